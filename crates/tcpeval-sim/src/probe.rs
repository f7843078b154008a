//! Probes: periodic samples of every traced flow, every monitored queue and
//! every traffic class, appended to column vectors that are handed over once
//! at the end; and the per-transfer record of finite transfers. One sampler
//! event per period serves all flows (or all links, or all classes), and
//! nothing is recorded when a period is zero.

use crate::columns::table;
use crate::event::{Event, EventQueue, LinkId};
use crate::net::Link;
use crate::results::ClassCounters;
use crate::scenario::Probes;
use crate::tcp::Sender;
use crate::time::Time;

/// A run's probes: its samplers (period and what each records, one pending
/// [`Event::Sample`] each), the series they fill and the transfers table.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    samplers: Vec<(Time, SampleKind)>,
    /// Per-flow series.
    pub flows: FlowSeries,
    /// Per-link queue series.
    pub queues: QueueSeries,
    /// Per-link queue-discipline series.
    pub aqm: AqmSeries,
    /// Per-class series.
    pub classes: ClassSeries,
    /// One row per finite transfer.
    pub transfers: Transfers,
}

impl Recorder {
    /// Sets up a sampler for each nonzero period of `p` (flows, queues,
    /// classes; `p` as resolved, its class period set, see
    /// [`Probes::class_period`]) and schedules its first sample at time
    /// zero. A sampler's events run after every other event at their time
    /// ([`EventQueue::push_last`]): a sample sees all that happens then.
    pub fn start(&mut self, p: &Probes, events: &mut EventQueue) {
        let class_period = p.class_period_ms.unwrap_or(0.0);
        for (period_ms, kind) in [
            (p.flow_period_ms, SampleKind::Flows),
            (p.queue_period_ms, SampleKind::Queues),
            (class_period, SampleKind::Classes),
        ] {
            if period_ms > 0.0 {
                let i = self.samplers.len() as u32;
                events.push_last(Time::ZERO, Event::Sample(i), i);
                self.samplers
                    .push((Time::from_secs_f64(period_ms / 1e3), kind));
            }
        }
    }

    /// The samplers' kinds, sampler after sampler.
    pub fn kinds(&self) -> impl Iterator<Item = SampleKind> + '_ {
        self.samplers.iter().map(|&(_, k)| k)
    }

    /// Period and kind of sampler `i`.
    pub fn sampler(&self, i: u32) -> (Time, SampleKind) {
        self.samplers[i as usize]
    }
}

table! {
    /// Per-flow time series, one row per (sample time, traced active flow).
    pub struct FlowSeries as "flow_series" {
        /// Sample time, s.
        pub time: Vec<f64>,
        /// Flow index.
        pub flow: Vec<u32>,
        /// Congestion window, packets.
        pub cwnd: Vec<f64>,
        /// Slow-start threshold, packets (infinity while unlimited).
        pub ssthresh: Vec<f64>,
        /// Smoothed RTT, s (NaN before the first sample).
        pub srtt: Vec<f64>,
        /// Bytes delivered in order to the receiving application so far.
        pub delivered: Vec<u64>,
        /// Data packets sent so far (retransmissions included).
        pub sent: Vec<u64>,
        /// Data packets retransmitted so far.
        pub retransmitted: Vec<u64>,
        /// Retransmission timeouts so far.
        pub timeouts: Vec<u64>,
    }
}

impl FlowSeries {
    /// Appends flow `flow`'s row at `t` (s): its sender's window, RTT and
    /// counters, and `delivered` bytes delivered in order so far.
    pub fn record(&mut self, t: f64, flow: u32, sender: &Sender, delivered: u64) {
        let tcb = &sender.tcb;
        self.time.push(t);
        self.flow.push(flow);
        self.cwnd.push(tcb.cwnd);
        self.ssthresh.push(tcb.ssthresh);
        self.srtt.push(tcb.srtt.map_or(f64::NAN, |x| x.secs()));
        self.delivered.push(delivered);
        let st = sender.stats;
        self.sent.push(st.sent);
        self.retransmitted.push(st.retransmitted);
        self.timeouts.push(st.timeouts);
    }
}

table! {
    /// Per-link queue series, one row per (sample time, monitored link).
    pub struct QueueSeries as "queue_series" {
        /// Sample time, s.
        pub time: Vec<f64>,
        /// Link index.
        pub link: Vec<u32>,
        /// Packets waiting (not counting the one in service).
        pub qlen: Vec<u32>,
        /// Bytes waiting.
        pub qbytes: Vec<u64>,
        /// Bytes serialized onto the link so far.
        pub departed_bytes: Vec<u64>,
        /// Packets dropped by the queue so far (full buffer, or the discipline).
        pub drops: Vec<u64>,
    }
}

table! {
    /// Per-link queue-discipline series, one row per (sample time,
    /// monitored link with an active discipline, see `net::queue`); empty
    /// when every monitored link is DropTail. Sampled with `queue_series`.
    pub struct AqmSeries as "aqm_series" {
        /// Sample time, s.
        pub time: Vec<f64>,
        /// Link index.
        pub link: Vec<u32>,
        /// Average queue the discipline acts on (RED: its EWMA as of the
        /// last arrival, packets, or bytes in byte mode; step: the packets
        /// the last arrival found waiting).
        pub avg_queue: Vec<f64>,
        /// Early (random) drops by the discipline so far (RED: between
        /// min_th and max_th).
        pub early_drops: Vec<u64>,
        /// Forced drops by the discipline so far (RED: average at or above
        /// max_th; step: Not-ECT packets at the threshold); the full
        /// buffer's drops are not counted here.
        pub forced_drops: Vec<u64>,
        /// ECN CE marks by the discipline so far (early and forced).
        pub marks: Vec<u64>,
        /// Queue delay the discipline acts on, s (PIE: its estimate, the
        /// sojourn time of the last packet to leave the queue, 0 if that
        /// left it empty; CoDel, FQ-CoDel: the sojourn time of the last
        /// packet dequeued, dropped or not); NaN for RED.
        pub delay: Vec<f64>,
        /// Drop probability (PIE, as of its last update); NaN for the others.
        pub drop_prob: Vec<f64>,
        /// CoDel state machines in their dropping state (CoDel: 0 or 1;
        /// FQ-CoDel: how many flow queues' CoDel); 0 for RED and PIE.
        pub dropping: Vec<u32>,
        /// Flow queues holding packets (FQ-CoDel); 0 for the others.
        pub flow_queues: Vec<u32>,
    }
}

impl AqmSeries {
    /// Appends link `id`'s row at `now` (`t` in s), if it has a
    /// discipline. Out of line: the sampler that calls it sits in the
    /// event loop.
    #[inline(never)]
    pub fn record(&mut self, t: f64, id: LinkId, link: &mut Link, now: Time) {
        if let Some(s) = link.aqm_state_at(now) {
            self.time.push(t);
            self.link.push(id);
            self.avg_queue.push(s.avg_queue);
            self.early_drops.push(s.early_drops);
            self.forced_drops.push(s.forced_drops);
            self.marks.push(s.marks);
            self.delay.push(s.delay);
            self.drop_prob.push(s.drop_prob);
            self.dropping.push(s.dropping);
            self.flow_queues.push(s.flow_queues);
        }
    }
}

impl QueueSeries {
    /// Appends link `id`'s row at `now` (`t` in s), first moving the link's
    /// departures up to `now`.
    pub fn record(&mut self, t: f64, id: LinkId, link: &mut Link, now: Time) {
        link.advance(now);
        self.time.push(t);
        self.link.push(id);
        self.qlen.push(link.qlen());
        self.qbytes.push(link.qbytes());
        let c = link.counters_at(now);
        self.departed_bytes.push(c.bytes_departed);
        self.drops.push(c.drops);
    }
}

table! {
    /// Per-class series, one row per (sample time, class): the aggregate of
    /// every flow of the class, so short transfers that come and go add up.
    pub struct ClassSeries as "class_series" {
        /// Sample time, s.
        pub time: Vec<f64>,
        /// Class index.
        pub class: Vec<u32>,
        /// Payload bytes delivered in order to the class's receivers so far
        /// (UDP: wire bytes received).
        pub delivered: Vec<u64>,
        /// Wire bytes of data the class's applications offered so far (finite
        /// transfers: their whole size when they start; UDP: packets sent;
        /// unlimited bulk flows: 0).
        pub offered: Vec<u64>,
        /// Wire bytes of data packets sent so far, retransmissions included.
        pub sent: Vec<u64>,
        /// TCP flows started and not yet completed.
        pub active: Vec<u32>,
    }
}

impl ClassSeries {
    /// Appends class `class`'s row at `t` (s) from its counters `k` and its
    /// `active` TCP flows.
    pub fn record(&mut self, t: f64, class: u32, k: &ClassCounters, active: u32) {
        self.time.push(t);
        self.class.push(class);
        self.delivered.push(k.delivered_bytes);
        self.offered.push(k.offered_bytes);
        self.sent.push(k.sent_bytes);
        self.active.push(active);
    }
}

table! {
    /// One row per finite transfer (a generated web transfer, or a scenario
    /// flow with `size_pkts`), in start order.
    pub struct Transfers as "transfers" {
        /// Class index.
        pub class: Vec<u32>,
        /// Index in the `flows` table, -1 for a generated transfer.
        pub flow: Vec<i64>,
        /// Size, packets.
        pub size_pkts: Vec<u64>,
        /// Size drawn, bytes (an empirical table in packets gives `size_pkts * mss`).
        pub size_bytes: Vec<f64>,
        /// Start, s.
        pub start: Vec<f64>,
        /// Time the last byte was acknowledged, s; NaN if unfinished.
        pub end: Vec<f64>,
        /// Round-trip propagation delay of the transfer's path, s.
        pub rtt: Vec<f64>,
    }
}

impl Transfers {
    /// Appends a transfer starting at `start` (s); returns its row.
    pub fn begin(
        &mut self,
        class: u32,
        flow: i64,
        size_pkts: u64,
        size_bytes: f64,
        start: f64,
        rtt: f64,
    ) -> u32 {
        self.class.push(class);
        self.flow.push(flow);
        self.size_pkts.push(size_pkts);
        self.size_bytes.push(size_bytes);
        self.start.push(start);
        self.end.push(f64::NAN);
        self.rtt.push(rtt);
        (self.class.len() - 1) as u32
    }

    /// Records the end (s) of row `row`.
    pub fn end(&mut self, row: u32, end: f64) {
        self.end[row as usize] = end;
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.class.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.class.is_empty()
    }
}

/// What a sampler records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleKind {
    /// Every traced, active flow.
    Flows,
    /// Every monitored link.
    Queues,
    /// Every traffic class.
    Classes,
}
