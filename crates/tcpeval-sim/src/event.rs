//! The event queue: a binary heap keyed by (time, insertion sequence), so
//! events at the same time run in the order they were scheduled and a run is
//! deterministic; the probes' samples run after every other event at their
//! time ([`EventQueue::push_last`]). Events are small `Copy` values naming
//! what to do by typed ids; the heap holds pending link deliveries and
//! timers, never packets.

use crate::time::Time;
use crate::traffic::generators::Wake;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Index of a link in the network.
pub type LinkId = u32;
/// Index of a flow in the scenario.
pub type FlowId = u32;

/// Which of a flow's timers fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// The sender's retransmission timer.
    Rto,
    /// The receiver's delayed-ACK timer.
    DelayedAck,
    /// The congestion-control algorithm's own clock (FAST).
    Cc,
    /// The sender's pacing timer (a packet's departure time has come).
    Pacing,
}

/// Something that happens at a point in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of a link's in-flight FIFO reaches the far end.
    LinkDelivery(LinkId),
    /// A dequeue-kind link ends a serialization and takes the next packet
    /// from its discipline (see `net::link`).
    LinkDequeue(LinkId),
    /// A folded link's drop, decided ahead of time, happens (index into
    /// the world's pending drops).
    LateDrop(u32),
    /// A flow timer; stale if `generation` no longer matches the flow's.
    Timer {
        flow: FlowId,
        kind: TimerKind,
        generation: u32,
    },
    /// A flow's application starts sending.
    FlowStart(FlowId),
    /// A flow's application stops offering new data.
    FlowStop(FlowId),
    /// A periodic probe (index into the world's samplers) takes a sample.
    Sample(u32),
    /// The head ACK of a flow's delay line reaches the sender.
    DelayExit(FlowId),
    /// A traffic generator's own event (see `traffic::generators`).
    Traffic(Wake),
}

/// A heap entry. `key` packs the time (high 64 bits, ps) and the insertion
/// sequence (low 64 bits; a sampler's slot at the top of that range), so
/// one integer comparison orders entries by time and then by scheduling
/// order.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl Entry {
    fn time(&self) -> Time {
        Time::from_ps((self.key >> 64) as u64)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest event,
    /// and among equal times the one scheduled first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A deterministic priority queue of events.
///
/// Most handlers schedule a follow-up event (a link its next delivery, a
/// timer its re-arm), so [`EventQueue::pop`] leaves the popped entry at the
/// top of the heap, marked taken, and the next [`EventQueue::push`] writes
/// over it and sifts it down once, instead of a full pop followed by a push.
/// Keys are unique, so the order of events is the same either way.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    popped: u64,
    /// The heap's top is the last popped event, already returned.
    taken: bool,
}

impl EventQueue {
    /// Sources that [`EventQueue::push_last`] can order (the insertion
    /// sequence of [`EventQueue::push`] never reaches their keys).
    pub const LAST_SLOTS: u32 = 256;

    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`.
    pub fn push(&mut self, time: Time, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.insert(Entry {
            key: (u128::from(time.ps()) << 64) | u128::from(seq),
            event,
        });
    }

    /// Schedules `event` at `time` after every other event at that time,
    /// whenever scheduled: for a probe's sampler, so that a sample sees all
    /// that happens at its time. `slot` (below [`EventQueue::LAST_SLOTS`],
    /// one per such source, each with at most one pending event) orders
    /// these among themselves, lowest first.
    pub fn push_last(&mut self, time: Time, event: Event, slot: u32) {
        debug_assert!(slot < Self::LAST_SLOTS);
        self.insert(Entry {
            key: (u128::from(time.ps()) << 64)
                | u128::from(u64::MAX - u64::from(Self::LAST_SLOTS) + u64::from(slot)),
            event,
        });
    }

    /// Puts `entry` on the heap, over the taken top if there is one.
    #[inline(always)]
    fn insert(&mut self, entry: Entry) {
        if self.taken {
            self.taken = false;
            *self.heap.peek_mut().expect("a taken entry is on the heap") = entry;
        } else {
            self.heap.push(entry);
        }
    }

    /// Removes the taken entry, if any, from the heap.
    fn settle(&mut self) {
        if self.taken {
            self.taken = false;
            self.heap.pop();
        }
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&mut self) -> Option<Time> {
        self.settle();
        self.heap.peek().map(Entry::time)
    }

    /// Removes and returns the earliest event (ties: first scheduled first).
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.settle();
        let e = *self.heap.peek()?;
        self.taken = true;
        self.popped += 1;
        Some((e.time(), e.event))
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len() - usize::from(self.taken)
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new();
        q.push(Time::from_ms(3), Event::FlowStart(3));
        q.push(Time::from_ms(1), Event::FlowStart(1));
        q.push(Time::from_ms(2), Event::FlowStart(2));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t).collect();
        assert_eq!(
            order,
            vec![Time::from_ms(1), Time::from_ms(2), Time::from_ms(3)]
        );
        assert_eq!(q.processed(), 3);
    }

    #[test]
    fn ties_resolve_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..100 {
            q.push(Time::from_ms(5), Event::FlowStart(i));
        }
        q.push(Time::from_ms(4), Event::FlowStop(0));
        assert_eq!(q.pop(), Some((Time::from_ms(4), Event::FlowStop(0))));
        for i in 0..100 {
            assert_eq!(q.pop(), Some((Time::from_ms(5), Event::FlowStart(i))));
        }
        assert!(q.is_empty());
    }

    #[test]
    fn at_one_time_samples_run_after_every_other_event() {
        // Samplers scheduled before the other events at their time still run
        // after them (by slot among themselves); the rest run in scheduling
        // order, and an earlier time still comes first.
        let t = Time::from_ms(7);
        let mut q = EventQueue::new();
        q.push_last(t, Event::Sample(1), 1);
        q.push(t, Event::FlowStart(4));
        q.push(t, Event::LinkDelivery(9));
        q.push_last(t, Event::Sample(0), 0);
        q.push(t, Event::FlowStop(4));
        q.push(t, Event::LinkDelivery(2));
        q.push(Time::from_ms(6), Event::Sample(5));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(
            order,
            vec![
                Event::Sample(5),
                Event::FlowStart(4),
                Event::LinkDelivery(9),
                Event::FlowStop(4),
                Event::LinkDelivery(2),
                Event::Sample(0),
                Event::Sample(1),
            ]
        );
    }

    #[test]
    fn a_deep_heap_pops_in_key_order() {
        // 3000 entries (twelve levels of the binary heap), times with many ties,
        // half popped, 1000 more pushed, then all popped: the order is the
        // sorted (time, insertion) order throughout.
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u32)> = Vec::new();
        let mut x = 99u64;
        let mut push = |q: &mut EventQueue, reference: &mut Vec<(Time, u32)>, id: u32| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = Time::from_us((x >> 33) % 700);
            q.push(t, Event::FlowStart(id));
            reference.push((t, id));
        };
        for id in 0..3000 {
            push(&mut q, &mut reference, id);
        }
        reference.sort();
        let mut popped: Vec<(Time, u32)> = Vec::new();
        for _ in 0..1500 {
            let (t, Event::FlowStart(id)) = q.pop().expect("non-empty") else {
                panic!("only FlowStart pushed")
            };
            popped.push((t, id));
        }
        assert_eq!(popped, reference[..1500]);
        let mut rest = reference.split_off(1500);
        for id in 3000..4000 {
            push(&mut q, &mut rest, id);
        }
        rest.sort();
        let drained: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let want: Vec<_> = rest
            .iter()
            .map(|&(t, id)| (t, Event::FlowStart(id)))
            .collect();
        assert_eq!(drained, want);
    }

    #[test]
    fn a_push_after_a_pop_reuses_the_top_and_keeps_the_order() {
        // Against a reference list, with 0, 1 or 2 pushes before each pop: a
        // push right after a pop reuses the top, the others do not. Ids grow
        // with every push, so they order ties as the insertion sequence does.
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u32)> = Vec::new();
        let mut x = 12345u64;
        let mut next_id = 0u32;
        for step in 0..5000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for k in 0..(x >> 20) % 3 {
                let t = Time::from_us(step + (x >> 33) % 500 + k);
                q.push(t, Event::FlowStart(next_id));
                reference.push((t, next_id));
                next_id += 1;
            }
            assert_eq!(q.len(), reference.len());
            let least = (0..reference.len()).min_by_key(|&i| reference[i]);
            let want = least.map(|i| reference.swap_remove(i));
            assert_eq!(q.pop(), want.map(|(t, id)| (t, Event::FlowStart(id))));
        }
        reference.sort();
        for (t, id) in reference {
            assert_eq!(q.pop(), Some((t, Event::FlowStart(id))));
        }
        assert!(q.is_empty() && q.peek_time().is_none() && q.pop().is_none());
    }
}
