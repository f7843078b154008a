//! The run's clock: `CLOCK_MONOTONIC` in nanoseconds, the clock `ppoll(2)`
//! timeouts and the kernel's own timers follow.

/// Now on `CLOCK_MONOTONIC`, ns.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Sleeps until `deadline_ns` on `CLOCK_MONOTONIC` (absolute, so a late
/// wake-up does not shift later ticks).
pub fn sleep_until(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: valid timespec; EINTR just returns early, the callers re-check the time.
    unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        )
    };
}

/// Sets the calling thread's timer slack to 1 ns (`PR_SET_TIMERSLACK`,
/// prctl(2)): the default 50 us would add up to 50 us to every wake-up of
/// the delay line.
pub fn tight_timer_slack() {
    // SAFETY: prctl with an integer argument; failure only leaves the default slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}
