//! A hint to the CPU to bring a value into its caches before it is read.
//!
//! The links' FIFOs hold every packet in flight: with thousands of them
//! (a long, fast path, or many flows) a FIFO's head has left the caches by
//! the time the packet is delivered, and the many FIFOs, read in turn, are
//! too many streams for the hardware prefetcher. A link prefetches its next
//! head when it delivers one, so the load has the time until the next
//! delivery to complete. A hint never changes a result.

/// Asks for the cache lines of `*value` to be loaded (x86-64; a no-op on
/// other targets).
#[inline(always)]
pub fn prefetch<T>(value: Option<&T>) {
    if let Some(v) = value {
        prefetch_at(v as *const T);
    }
}

/// Asks for the cache lines of the slot just after `*last` in memory to be
/// loaded: where a FIFO's next `push_back` will most likely write (unless
/// its ring wraps there, when the hint is merely wasted).
#[inline(always)]
pub fn prefetch_next<T>(last: Option<&T>) {
    if let Some(v) = last {
        prefetch_at((v as *const T).wrapping_add(1));
    }
}

#[inline(always)]
fn prefetch_at<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = at.cast::<i8>();
        let last = first.wrapping_add(std::mem::size_of::<T>().saturating_sub(1));
        // SAFETY: a prefetch only hints the cache; it never faults and
        // reads nothing into the program, whatever the address.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            _mm_prefetch::<_MM_HINT_T0>(last);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}
