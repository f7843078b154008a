//! Lazily cancelled timers.
//!
//! A flow's timer is re-armed on almost every ACK; pushing a heap event each
//! time would make the heap hold one stale event per ACK. Instead the timer
//! keeps its `deadline` and at most one pending heap event. Moving the
//! deadline later costs nothing: when the early event fires it is pushed
//! again for the new deadline. Moving it earlier schedules a new event with a
//! new generation, and the older one is ignored when it fires.

use crate::time::Time;

/// A one-shot timer with lazy cancellation.
#[derive(Clone, Copy, Debug)]
pub struct LazyTimer {
    /// When the timer expires; `Time::NEVER` when stopped.
    pub deadline: Time,
    /// Time of the pending heap event; `Time::NEVER` when none is pending.
    scheduled: Time,
    /// Generation of the pending heap event.
    generation: u32,
}

impl Default for LazyTimer {
    fn default() -> Self {
        LazyTimer {
            deadline: Time::NEVER,
            scheduled: Time::NEVER,
            generation: 0,
        }
    }
}

impl LazyTimer {
    /// Arms (or re-arms) the timer for `deadline`.
    pub fn set(&mut self, deadline: Time) {
        self.deadline = deadline;
    }

    /// Stops the timer.
    pub fn stop(&mut self) {
        self.deadline = Time::NEVER;
    }

    /// True if armed.
    pub fn is_armed(&self) -> bool {
        self.deadline != Time::NEVER
    }

    /// If a heap event must be pushed to honour the deadline, records it and
    /// returns its `(time, generation)`.
    /// Called for every timer of a flow after each of its events, so kept
    /// to one comparison: a stopped timer's deadline is `Time::NEVER`, the
    /// largest time, which no `scheduled` exceeds.
    pub fn to_schedule(&mut self) -> Option<(Time, u32)> {
        if self.scheduled <= self.deadline {
            return None;
        }
        self.generation = self.generation.wrapping_add(1);
        self.scheduled = self.deadline;
        Some((self.deadline, self.generation))
    }

    /// Handles the firing of the heap event of `generation` at `now`.
    /// Returns true if the timer expired (and stops it).
    pub fn fire(&mut self, generation: u32, now: Time) -> bool {
        if generation != self.generation || self.scheduled == Time::NEVER {
            return false;
        }
        self.scheduled = Time::NEVER;
        if self.deadline != Time::NEVER && self.deadline <= now {
            self.deadline = Time::NEVER;
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_deadlines_reuse_the_pending_event() {
        let mut t = LazyTimer::default();
        t.set(Time::from_ms(10));
        let (at, g) = t.to_schedule().unwrap();
        assert_eq!(at, Time::from_ms(10));
        t.set(Time::from_ms(20));
        assert_eq!(t.to_schedule(), None);
        // The early event fires: not expired, must be rescheduled for 20 ms.
        assert!(!t.fire(g, Time::from_ms(10)));
        let (at2, g2) = t.to_schedule().unwrap();
        assert_eq!(at2, Time::from_ms(20));
        assert!(t.fire(g2, Time::from_ms(20)));
        assert!(!t.is_armed());
    }

    #[test]
    fn earlier_deadline_supersedes_and_stale_events_are_ignored() {
        let mut t = LazyTimer::default();
        t.set(Time::from_ms(10));
        let (_, g_old) = t.to_schedule().unwrap();
        t.set(Time::from_ms(5));
        let (at, g_new) = t.to_schedule().unwrap();
        assert_eq!(at, Time::from_ms(5));
        assert!(t.fire(g_new, Time::from_ms(5)));
        assert!(!t.fire(g_old, Time::from_ms(10)));
        t.set(Time::from_ms(30));
        t.stop();
        assert_eq!(t.to_schedule(), None);
    }
}
