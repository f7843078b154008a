//! A first-in first-out ring of `Copy` values, for the links' per-packet
//! queues.
//!
//! The links push and pop several values per packet (see `net::link`), so
//! these operations are on every packet's path. A ring whose capacity is a
//! power of two finds a slot with one mask, and keeps its head and tail as
//! free-running counters (their difference is the length), so a push or a
//! pop is a comparison, a masked index and a copy. `VecDeque` pays a wrap
//! test per index and keeps a separate length; in the 2-flow benchmark its
//! operations took about a fifth of all instructions. Invariant: the
//! wrapping difference `tail - head` is at most `slots.len()`, which is zero
//! or a power of two and only grows. A masked count is then always a
//! slot's index once the ring holds a value or has grown for one, so the
//! hot accessors index without a bounds check ([`Fifo::at`]); this
//! module's tests check them against `VecDeque` through growth, the ring's
//! wrap-around, and the counters' own wrap past `usize::MAX`.

/// A FIFO ring of `Copy` values that grows by doubling and never shrinks.
#[derive(Clone, Debug)]
pub struct Fifo<T: Copy> {
    /// The ring; its length is zero or a power of two.
    slots: Vec<T>,
    /// Values popped since the last growth (free-running, wrapping);
    /// its slot holds the front value.
    head: usize,
    /// `head` plus the values held (wrapping); its slot takes the next push.
    tail: usize,
}

impl<T: Copy> Default for Fifo<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy> Fifo<T> {
    /// An empty ring; it allocates on the first push.
    pub const fn new() -> Self {
        Fifo {
            slots: Vec::new(),
            head: 0,
            tail: 0,
        }
    }

    /// Values held.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.tail.wrapping_sub(self.head)
    }

    /// True when nothing is held.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.tail == self.head
    }

    #[inline(always)]
    fn slot(&self, count: usize) -> usize {
        count & self.slots.len().wrapping_sub(1)
    }

    /// The value in the slot of `count`. Call only while the ring holds a
    /// value (so `slots` is not empty): the index is not checked in
    /// release builds.
    #[inline(always)]
    fn at(&self, count: usize) -> &T {
        debug_assert!(!self.slots.is_empty());
        // SAFETY: `slots.len()` is a power of two, not zero (the caller's
        // condition), so `slot` masks `count` below it.
        unsafe { self.slots.get_unchecked(self.slot(count)) }
    }

    /// Appends `value` at the back.
    #[inline(always)]
    pub fn push_back(&mut self, value: T) {
        if self.len() == self.slots.len() {
            self.grow(value);
        }
        let i = self.slot(self.tail);
        debug_assert!(i < self.slots.len());
        // SAFETY: the ring has a slot free, so `slots` is not empty (a
        // power of two) and `i` is masked below its length.
        unsafe { *self.slots.get_unchecked_mut(i) = value };
        self.tail = self.tail.wrapping_add(1);
    }

    /// Doubles the ring (at least 8 slots), keeping the values in order
    /// from slot 0; `fill` fills the new slots (a `Copy` value, so that no
    /// slot is ever uninitialized).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, fill: T) {
        let n = self.len();
        let mut slots = vec![fill; (2 * self.slots.len()).max(8)];
        for (k, s) in slots.iter_mut().take(n).enumerate() {
            *s = self.slots[self.slot(self.head.wrapping_add(k))];
        }
        self.slots = slots;
        self.head = 0;
        self.tail = n;
    }

    /// Removes and returns the front value.
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        let v = *self.at(self.head);
        self.head = self.head.wrapping_add(1);
        Some(v)
    }

    /// The front value.
    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        if self.is_empty() {
            return None;
        }
        Some(self.at(self.head))
    }

    /// The back value.
    #[inline(always)]
    pub fn back(&self) -> Option<&T> {
        if self.is_empty() {
            return None;
        }
        Some(self.at(self.tail.wrapping_sub(1)))
    }

    /// The back value, mutable.
    #[inline(always)]
    pub fn back_mut(&mut self) -> Option<&mut T> {
        if self.is_empty() {
            return None;
        }
        let i = self.slot(self.tail.wrapping_sub(1));
        Some(&mut self.slots[i])
    }

    /// The values from front to back.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len()).map(move |k| &self.slots[self.slot(self.head.wrapping_add(k))])
    }
}

#[cfg(test)]
mod tests {
    use super::Fifo;
    use std::collections::VecDeque;

    #[test]
    fn empty_ring_has_nothing() {
        let mut f: Fifo<u32> = Fifo::new();
        assert!(f.is_empty());
        assert_eq!(f.len(), 0);
        assert_eq!(f.front(), None);
        assert_eq!(f.back(), None);
        assert_eq!(f.back_mut(), None);
        assert_eq!(f.pop_front(), None);
        assert_eq!(f.iter().count(), 0);
    }

    #[test]
    fn keeps_order_across_growth_and_wrap() {
        // Interleaved pushes and pops wrap the ring many times and grow it
        // while its values straddle the end of the slots; a VecDeque fed
        // the same operations is the reference.
        let mut f = Fifo::new();
        let mut r = VecDeque::new();
        let mut next = 0u64;
        for round in 0..200u64 {
            for _ in 0..(round % 13 + 1) {
                f.push_back(next);
                r.push_back(next);
                next += 1;
            }
            for _ in 0..(round % 11) {
                assert_eq!(f.pop_front(), r.pop_front());
            }
            assert_eq!(f.len(), r.len());
            assert_eq!(f.front(), r.front());
            assert_eq!(f.back(), r.back());
            assert!(f.iter().eq(r.iter()));
            assert!(f.slots.len().is_power_of_two());
        }
        if let (Some(a), Some(b)) = (f.back_mut(), r.back_mut()) {
            *a += 1000;
            *b += 1000;
        }
        while let Some(v) = r.pop_front() {
            assert_eq!(f.pop_front(), Some(v));
        }
        assert!(f.is_empty());
    }

    #[test]
    fn counters_wrap_past_usize_max() {
        // The counters are free-running: start them near the top of the
        // range on a grown ring, then push, grow and pop across the wrap.
        let mut f = Fifo::new();
        f.push_back(0u32);
        f.pop_front();
        f.head = usize::MAX - 3;
        f.tail = usize::MAX - 3;
        let mut r = VecDeque::new();
        for v in 0..40u32 {
            f.push_back(v);
            r.push_back(v);
            if v % 3 == 0 {
                assert_eq!(f.pop_front(), r.pop_front());
            }
            assert_eq!(f.len(), r.len());
            assert_eq!(f.back(), r.back());
            assert!(f.iter().eq(r.iter()));
        }
        while let Some(v) = r.pop_front() {
            assert_eq!(f.pop_front(), Some(v));
        }
    }

    #[test]
    fn grows_by_doubling_from_eight() {
        let mut f = Fifo::new();
        f.push_back(1u8);
        assert_eq!(f.slots.len(), 8);
        for v in 2..=9 {
            f.push_back(v);
        }
        assert_eq!(f.slots.len(), 16);
        assert_eq!(
            f.iter().copied().collect::<Vec<_>>(),
            (1..=9).collect::<Vec<u8>>()
        );
    }
}
