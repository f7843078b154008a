//! The horizon: how far ahead of the world's clock the early endpoints may
//! act and the folded links count. An early sender takes ACKs ahead of the
//! clock (see `world/early_senders.rs`), and a folded link, offered ahead
//! of the clock, counts what it accepts by then at once (see `net::link`).
//! What they
//! change is read by others at the clock: the flow probes read a sender's
//! window and counters and a flow's delivered packets, the class probes a
//! class's counters and active and completed flows, and the results
//! everything at the end and at planned snapshots
//! ([`super::World::plan_snapshots`]). So they act and count ahead only up
//! to the horizon: the next of those points (flow or class samples,
//! planned snapshots, the end). The points are fixed by the scenario, never
//! by where an [`super::World::advance`] stops, so a run gives the same
//! results however it is cut into advances; once every event up to the
//! horizon has run, and before any later one, the horizon moves to the
//! next point ([`Horizon::must_pass`]). Between two points the state may
//! be ahead of the clock, so results are read only at a point, or where
//! nothing ran ahead ([`Horizon::current_at`]).
//!
//! The links' own counters are read by the results alone (a probed link
//! is never folded), so a link counts what it alone counts up to a
//! farther horizon: the next planned snapshot or the end
//! ([`Horizon::links_at`]).

use crate::time::Time;

/// The points at which others read what early endpoints change, the next
/// of them, and how far anything ran ahead of the clock.
#[derive(Debug, Default)]
pub(super) struct Horizon {
    /// The next point: early endpoints act and count now up to this time.
    at: Time,
    /// The first planned snapshot not before `at`, or the end: the links
    /// count what they alone count up to this time.
    links_at: Time,
    /// Whether anything acts or counts ahead of the clock (a folded link);
    /// if not, the horizon never moves.
    active: bool,
    /// End of the run.
    end: Time,
    /// Planned snapshots, ascending ([`super::World::plan_snapshots`]).
    cuts: Vec<Time>,
    /// Next sample of each sampler that reads flows or classes
    /// (`Time::NEVER` for the others and for a sampler that is done).
    next_sample: Vec<Time>,
    /// Latest time up to which anything acted or counted ahead.
    ran_to: Time,
}

impl Horizon {
    /// Sets the run's end and its samplers (each reading flows or classes
    /// or not, all with their first sample at time zero), whether anything
    /// runs ahead, and the first point.
    pub(super) fn start(&mut self, end: Time, reads: impl Iterator<Item = bool>, active: bool) {
        self.end = end;
        self.active = active;
        self.next_sample = reads
            .map(|r| if r { Time::ZERO } else { Time::NEVER })
            .collect();
        self.at = self.next_point(None);
        self.links_at = self.next_cut();
    }

    /// Plans snapshots at `cuts` (see [`super::World::plan_snapshots`]);
    /// before the run.
    pub(super) fn plan(&mut self, cuts: &[Time]) {
        self.cuts = cuts.iter().copied().filter(|&t| t < self.end).collect();
        self.cuts.sort_unstable();
        self.cuts.dedup();
        self.at = self.next_point(None);
        self.links_at = self.next_cut();
    }

    /// Stops anything from running ahead (see [`super::World::unfolded`]).
    pub(super) fn deactivate(&mut self) {
        self.active = false;
    }

    /// The current point: early endpoints act and count up to this time.
    #[inline]
    pub(super) fn at(&self) -> Time {
        self.at
    }

    /// The links' horizon: they count what nothing but the results read
    /// (their own counters) up to this time.
    #[inline]
    pub(super) fn links_at(&self) -> Time {
        self.links_at
    }

    /// The first planned snapshot not before the current point, or the end.
    fn next_cut(&self) -> Time {
        let at = self.at;
        self.cuts
            .iter()
            .copied()
            .find(|&c| c >= at)
            .unwrap_or(self.end)
    }

    /// The first point after `after` (from the start if `None`): the next
    /// flow or class sample, planned snapshot or the end.
    fn next_point(&self, after: Option<Time>) -> Time {
        let later = |t: &&Time| match after {
            None => true,
            Some(a) => **t > a,
        };
        let sample = self.next_sample.iter().filter(later).min();
        let cut = self.cuts.iter().find(later);
        [sample, cut]
            .into_iter()
            .flatten()
            .fold(self.end, |m, &t| m.min(t))
    }

    /// Records sampler `i`'s next sample (`Time::NEVER`: none).
    pub(super) fn sampled(&mut self, i: u32, next: Time) {
        if self.next_sample[i as usize] != Time::NEVER {
            self.next_sample[i as usize] = next;
        }
    }

    /// True if the world, about to run an event at `next` (`Time::NEVER`
    /// if none) in an advance to `until`, must first move the horizon on:
    /// every event up to the horizon has run, and the event is past it, or
    /// the advance ends before the horizon (so that every ACK up to
    /// `until` is taken). The moves depend on the events alone, not on
    /// how a run is cut into advances.
    #[inline]
    pub(super) fn must_pass(&self, next: Time, until: Time) -> bool {
        self.active && self.at < self.end && next > self.at && (next <= until || self.at < until)
    }

    /// Moves the horizon to its next point.
    pub(super) fn pass(&mut self) {
        self.at = self.next_point(Some(self.at));
        self.links_at = self.next_cut();
    }

    /// Records that something acted or counted ahead of the clock up to
    /// `t` (not after the horizon).
    #[inline]
    pub(super) fn ran_to(&mut self, t: Time) {
        self.ran_to = self.ran_to.max(t);
    }

    /// True if nothing has run past `now`: the state is the state at `now`.
    pub(super) fn current_at(&self, now: Time) -> bool {
        self.ran_to <= now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_samples_cuts_and_the_end_and_links_look_to_the_next_cut() {
        // A 1 s run, one sampler reading flows (every 0.4 s) and one
        // reading queues only; a snapshot planned at 0.5 s.
        let ms = Time::from_ms;
        let mut h = Horizon::default();
        h.start(ms(1000), [true, false].into_iter(), true);
        h.plan(&[ms(500), ms(2000)]); // the second is past the end: ignored
        assert_eq!((h.at(), h.links_at()), (Time::ZERO, ms(500)));
        h.sampled(0, ms(400));
        h.sampled(1, ms(10)); // a queue sampler is never a point
                              // Every event up to the point has run and the next is past it.
        assert!(h.must_pass(ms(1), ms(1000)));
        assert!(!h.must_pass(Time::ZERO, ms(1000)));
        h.pass();
        assert_eq!((h.at(), h.links_at()), (ms(400), ms(500)));
        h.sampled(0, ms(800));
        h.pass();
        assert_eq!((h.at(), h.links_at()), (ms(500), ms(500)));
        // An advance to the cut stops there without passing it.
        assert!(!h.must_pass(ms(600), ms(500)));
        h.pass();
        assert_eq!((h.at(), h.links_at()), (ms(800), ms(1000)));
        h.sampled(0, Time::NEVER);
        h.pass();
        assert_eq!((h.at(), h.links_at()), (ms(1000), ms(1000)));
        assert!(!h.must_pass(ms(1001), ms(2000)), "never past the end");
    }

    #[test]
    fn nothing_ahead_never_moves_and_reports_what_ran_ahead() {
        let mut h = Horizon::default();
        h.start(Time::from_ms(1000), std::iter::empty(), false);
        assert!(!h.must_pass(Time::from_ms(1), Time::from_ms(1000)));
        assert!(h.current_at(Time::ZERO));
        h.ran_to(Time::from_ms(7));
        assert!(!h.current_at(Time::from_ms(6)));
        assert!(h.current_at(Time::from_ms(7)));
    }
}
