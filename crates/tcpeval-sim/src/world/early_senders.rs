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
//! The horizon. What the sender changes is read by others at the clock
//! (the flow and class probes, the results), so an early sender takes an
//! ACK at once only up to the horizon, the next point at which they read
//! (see `world/horizon.rs`). A later ACK waits, with those after it, in the
//! flow's pending queue; once every event up to the horizon has run, and
//! before any later one, the horizon moves to the next point and the ACKs
//! it reaches are taken, before the clock reaches their arrival.
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

/// The world's early senders (see the module doc).
#[derive(Debug, Default)]
pub(super) struct EarlySenders {
    senders: Vec<EarlySender>,
    /// Index into `senders` of each flow of the `flows` table, or [`NONE`].
    of_flow: Vec<u32>,
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
        if at <= self.horizon.at() && es.pending.is_empty() {
            self.take_ack_early(i, pkt, at);
        } else {
            es.pending.push_back((at, pkt));
        }
    }

    /// Moves the horizon to its next point and takes every pending ACK it
    /// now reaches (see `world/horizon.rs`).
    pub(super) fn pass_horizon(&mut self) {
        self.horizon.pass();
        let horizon = self.horizon.at();
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
        self.horizon.ran_to(at);
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
