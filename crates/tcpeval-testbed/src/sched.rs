//! Real-time scheduling of the testbed's threads (`SCHED_FIFO`,
//! sched(7)): on a shared machine, other processes would otherwise delay
//! the delay line's frames and the hosts' reads and writes, and the run
//! would measure the machine's load, not TCP. The kernel's RT throttling
//! (`sched_rt_runtime_us`, 95 % by default) keeps the machine usable.

/// Priority of the delay-line threads: above everything else of the run.
pub const WIRE: i32 = 50;
/// Priority of the sampler: its ticks should be on time.
pub const SAMPLER: i32 = 45;
/// Priority of the senders and receivers.
pub const HOSTS: i32 = 40;

/// Moves the calling thread to `SCHED_FIFO` at `priority`; false if refused.
pub fn set_realtime(priority: i32) -> bool {
    let p = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: pid 0 is the calling thread; p is a valid sched_param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 }
}
