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

use crate::time::Time;

/// The points at which others read what early endpoints change, the next
/// of them, and how far anything ran ahead of the clock.
#[derive(Debug, Default)]
pub(super) struct Horizon {
    /// The next point: early endpoints act and count now up to this time.
    at: Time,
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
    }

    /// Plans snapshots at `cuts` (see [`super::World::plan_snapshots`]);
    /// before the run.
    pub(super) fn plan(&mut self, cuts: &[Time]) {
        self.cuts = cuts.iter().copied().filter(|&t| t < self.end).collect();
        self.cuts.sort_unstable();
        self.cuts.dedup();
        self.at = self.next_point(None);
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
