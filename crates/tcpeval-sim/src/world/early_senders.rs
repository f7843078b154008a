//! Early senders: a sender of the `flows` table that takes each ACK as soon
//! as its arrival time is known, ahead of the world's clock, so that the ACK
//! spends no delivery event at the sender (one event fewer per ACK).
//!
//! Which flows. A flow of the `flows` table with no ACK delay line, whose
//! sender acts on nothing but its ACKs and its retransmission timer
//! ([`crate::tcp::Sender::acts_on_acks_and_rto_alone`]: no pacing, no
//! clock of the algorithm), whose ACKs' last link is folded
//! and carries this route alone (its arrival time is known when the link
//! before accepts the ACK), and whose data's first link carries this route
//! alone, unprobed, with no active queue discipline, not feeding a folded
//! link. That ACK link is counted ([`Link::offer_counted`]: it keeps no
//! packet), and the data link is folded: the sender offers to it ahead of
//! the clock, so it counts only what is in the past, and delivers at the
//! clock as before.
//!
//! The sender's timeline stays in order by itself. Before it takes an ACK
//! at time `t`, its retransmission timer expires if due by `t`
//! ([`crate::tcp::Sender::expire_rto`]), and the flow's stop applies if it
//! falls by `t` (a stop event runs before an ACK at its time), so its
//! packets enter their first link in time order. A timeout due at the very
//! time of an ACK's arrival comes first, early sender or not
//! (`World::ack_arrives`).
//!
//! The horizon. What the sender changes is read by others at the clock:
//! the flow probes read its window and counters, the class probes its
//! class's sent packets and active and completed flows (a finite or
//! stopped flow completes when its last data is acknowledged), and the
//! results its state at the end and at planned snapshots
//! ([`World::plan_snapshots`]). So an early sender takes an ACK at once
//! only up to the horizon: the next of those points (flow or class
//! samples, planned snapshots, the end). A later ACK waits, with those
//! after it, in the flow's pending queue. Once every event up to the
//! horizon has run, and before any later one, the horizon moves to the
//! next point and the ACKs it reaches are taken, before the clock reaches
//! their arrival. The points are fixed by the scenario, so a run gives
//! the same results however it is cut into [`World::advance`]s; but
//! between two points the senders may run ahead of the clock, and the
//! results can be read only at a point, or where no sender ran ahead
//! ([`World::can_report_now`]; [`World::finish`] checks).
//!
//! As with early receivers, events at the same picosecond may run in
//! another order than with a delivery event per ACK (the sender's packets
//! are scheduled sooner): the one way an early sender can change a result.

use super::{route_end, Hop, World};
use crate::event::{FlowId, LinkId};
use crate::flow::{Ends, Flow, FlowMeta};
use crate::net::Link;
use crate::packet::Packet;
use crate::time::Time;
use std::collections::VecDeque;

/// No early sender (an entry of [`EarlySenders::of_flow`]).
const NONE: u32 = u32::MAX;

/// The world's early senders and their horizon (see the module doc).
#[derive(Debug, Default)]
pub(super) struct EarlySenders {
    senders: Vec<EarlySender>,
    /// Index into `senders` of each flow of the `flows` table, or [`NONE`].
    of_flow: Vec<u32>,
    /// An early sender takes now the ACKs arriving up to this time, a
    /// point of the horizon (see [`EarlySenders::pass`]).
    horizon: Time,
    /// End of the run.
    end: Time,
    /// Planned snapshots, ascending ([`World::plan_snapshots`]).
    cuts: Vec<Time>,
    /// Next sample of each sampler that reads flows or classes
    /// (`Time::NEVER` for the others and for a sampler that is done).
    next_sample: Vec<Time>,
    /// Latest time at which an early sender took an ACK or expired a timer.
    ran_to: Time,
}

/// One early sender.
#[derive(Debug)]
struct EarlySender {
    flow: FlowId,
    /// ACKs arriving past the horizon, with their arrival times, in order.
    pending: VecDeque<(Time, Packet)>,
    /// The flow's stop time while its stop has not been applied.
    stop: Option<Time>,
}

impl EarlySenders {
    /// Flows whose sender runs early.
    pub(super) fn len(&self) -> usize {
        self.senders.len()
    }

    /// Index of flow `f`'s early sender, if it has one.
    fn index(&self, f: FlowId) -> Option<usize> {
        match self.of_flow.get(f as usize) {
            Some(&i) if i != NONE => Some(i as usize),
            _ => None,
        }
    }

    /// Sets the run's end and its samplers (each reading flows or classes
    /// or not, all with their first sample at time zero), and the first
    /// horizon.
    pub(super) fn start(&mut self, end: Time, reads: impl Iterator<Item = bool>) {
        self.end = end;
        self.next_sample = reads
            .map(|r| if r { Time::ZERO } else { Time::NEVER })
            .collect();
        self.horizon = self.next_point(None);
    }

    /// Plans snapshots at `cuts` (see [`World::plan_snapshots`]); before
    /// the run.
    pub(super) fn plan(&mut self, cuts: &[Time]) {
        self.cuts = cuts.iter().copied().filter(|&t| t < self.end).collect();
        self.cuts.sort_unstable();
        self.cuts.dedup();
        self.horizon = self.next_point(None);
    }

    /// The first point of the horizon after `after` (from the start if
    /// `None`): the next flow or class sample, planned snapshot or the end.
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
    pub(super) fn must_pass(&self, next: Time, until: Time) -> bool {
        !self.senders.is_empty()
            && self.horizon < self.end
            && next > self.horizon
            && (next <= until || self.horizon < until)
    }

    /// Moves the horizon to its next point.
    fn pass(&mut self) {
        self.horizon = self.next_point(Some(self.horizon));
    }

    /// True if no early sender has run past `now`: the senders' state is
    /// the state at `now`.
    pub(super) fn current_at(&self, now: Time) -> bool {
        self.ran_to <= now
    }

    /// Forgets every early sender (see [`World::unfolded`]).
    pub(super) fn clear(&mut self) {
        self.senders.clear();
        self.of_flow.clear();
    }
}

impl World {
    /// ACK `pkt`, accepted by its counted last link, reaches its early
    /// sender at `at`: taken now if within the horizon and nothing is
    /// pending before it, else left pending.
    pub(super) fn arrive_at_early_sender(&mut self, pkt: Packet, at: Time) {
        let i = self
            .early_senders
            .index(pkt.flow)
            .expect("a counted ACK link ends at an early sender");
        let es = &mut self.early_senders.senders[i];
        if at <= self.early_senders.horizon && es.pending.is_empty() {
            self.take_ack_early(i, pkt, at);
        } else {
            es.pending.push_back((at, pkt));
        }
    }

    /// Moves the horizon to its next point and takes every pending ACK it
    /// now reaches (see [`EarlySenders::must_pass`]).
    pub(super) fn pass_horizon(&mut self) {
        self.early_senders.pass();
        let horizon = self.early_senders.horizon;
        for i in 0..self.early_senders.senders.len() {
            while let Some(&(at, _)) = self.early_senders.senders[i].pending.front() {
                if at > horizon {
                    break;
                }
                let (_, pkt) = self.early_senders.senders[i]
                    .pending
                    .pop_front()
                    .expect("a front");
                self.take_ack_early(i, pkt, at);
            }
        }
    }

    /// Early sender `i` takes ACK `pkt` at `at`, ahead of the clock: first
    /// its retransmission timer and its stop if due by then (see the
    /// module doc).
    fn take_ack_early(&mut self, i: usize, pkt: Packet, at: Time) {
        let f = self.early_senders.senders[i].flow;
        self.early_senders.ran_to = self.early_senders.ran_to.max(at);
        let mut out = std::mem::take(&mut self.scratch);
        loop {
            let deadline = self.flows[f as usize].sender().rto_deadline();
            if deadline > at {
                break; // also when stopped: `Time::NEVER` is the largest time
            }
            self.apply_stop_by(i, deadline);
            self.connection(f).sender.expire_rto(deadline, &mut out);
            self.flush_at(f, &mut out, deadline);
        }
        self.apply_stop_by(i, at);
        debug_assert!(
            !self.connection(f).sender.tcb.pacing,
            "an early sender never paces"
        );
        self.sender_takes(&pkt, at, &mut out);
        self.flush_at(f, &mut out, at);
        self.scratch = out;
        self.packet_gone(f);
    }

    /// Applies early sender `i`'s stop if it falls at or before `t` and
    /// has not been applied.
    fn apply_stop_by(&mut self, i: usize, t: Time) {
        let es = &mut self.early_senders.senders[i];
        if es.stop.is_some_and(|s| s <= t) {
            es.stop = None;
            let f = es.flow;
            self.connection(f).sender.stop();
        }
    }

    /// Flow `f`'s stop event: the sender stops offering data, unless an
    /// early sender already applied its stop.
    pub(super) fn on_flow_stop(&mut self, f: FlowId) {
        if let Some(i) = self.early_senders.index(f) {
            if self.early_senders.senders[i].stop.take().is_none() {
                return;
            }
        }
        if let Ends::Tcp(c) = &mut self.flows[f as usize].ends {
            c.sender.stop();
        }
    }
}

/// Chooses the early senders (see the module doc), after folding and the
/// early receivers: marks each one's last ACK hop counted and folds its
/// data's first link.
pub(super) fn choose_early_senders(
    links: &mut [Link],
    hops: &mut [Hop],
    flows: &[Flow],
    meta: &[FlowMeta],
    monitored: &[LinkId],
) -> EarlySenders {
    let mut uses = vec![0u32; links.len()];
    for h in hops.iter() {
        uses[h.link as usize] += 1;
    }
    let mut chosen = EarlySenders {
        of_flow: vec![NONE; meta.len()],
        ..EarlySenders::default()
    };
    for (f, (fl, m)) in flows.iter().zip(meta).enumerate() {
        let Ends::Tcp(c) = &fl.ends else {
            continue;
        };
        if fl.ack_delay > Time::ZERO || !c.sender.acts_on_acks_and_rto_alone() {
            continue;
        }
        let ack_last = route_end(hops, fl.rev);
        let ack_link = hops[ack_last].link as usize;
        let data_first = &hops[fl.fwd as usize];
        let data_link = data_first.link as usize;
        let qualifies = ack_last > fl.rev as usize
            && hops[ack_last - 1].next_folded
            && uses[ack_link] == 1
            && uses[data_link] == 1
            && !data_first.last
            && !data_first.next_folded
            && !monitored.contains(&(data_link as LinkId))
            && !links[data_link].has_aqm()
            && !links[data_link].dequeues()
            && !links[data_link].is_folded();
        if qualifies {
            hops[ack_last].counted = true;
            links[data_link].set_folded(true);
            chosen.of_flow[f] = chosen.senders.len() as u32;
            chosen.senders.push(EarlySender {
                flow: f as FlowId,
                pending: VecDeque::new(),
                stop: m.stop,
            });
        }
    }
    chosen
}
