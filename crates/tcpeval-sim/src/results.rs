//! What a run hands back: the probe columns and per-flow / per-link totals.

use crate::columns::record;
use crate::flow::{Flow, FlowMeta};
use crate::net::{BufferLimit, Link, LinkCounters};
use crate::probe::{AqmSeries, ClassSeries, FlowSeries, QueueSeries, Transfers};
use crate::time::Time;
use crate::traffic::ClassInfo;

record! {
    /// Totals of one flow over the run.
    #[derive(Clone, Debug, PartialEq)]
    pub struct FlowSummary as "flows" => FlowRow {
        /// Display name.
        pub name: String,
        /// Congestion-control algorithm.
        pub algorithm: String,
        /// Index of the scenario flow entry this flow comes from.
        pub spec: usize,
        /// Actual start time, s.
        pub start_s: f64 => "start",
        /// Time the application stopped offering data, s.
        pub stop_s: Option<f64> => "stop",
        /// Transfer size, packets (`None` = bulk).
        pub size_pkts: Option<u64>,
        /// Round-trip propagation delay of the flow's path, s.
        pub base_rtt_s: f64 => "base_rtt",
        /// Payload bytes per full data packet.
        pub mss: u32,
        /// Data packets transmitted (retransmissions included).
        pub sent: u64,
        /// Retransmitted data packets.
        pub retransmitted: u64,
        /// Fast-recovery episodes.
        pub fast_retransmits: u64,
        /// Retransmission timeouts.
        pub timeouts: u64,
        /// Reductions undone as spurious (TCP option `undo`).
        pub undos: u64,
        /// Window reductions for ECN echoes (RFC 3168 CWR episodes); 0
        /// without ECN.
        pub ece_reductions: u64,
        /// Data packets that reached the receiver CE-marked; 0 without ECN.
        pub ce_received: u64,
        /// Bytes delivered in order to the receiving application.
        pub delivered_bytes: u64,
        /// Data packets that reached the receiver (duplicates included).
        pub data_received: u64,
        /// Data packets dropped anywhere (buffer or random loss).
        pub data_dropped: u64,
        /// ACKs dropped anywhere.
        pub acks_dropped: u64,
        /// Data packets still on links when the run ended.
        pub data_in_transit: u64,
        /// Time of the first drop of one of the flow's data packets, s.
        pub first_loss_s: Option<f64> => "first_loss",
        /// Time a finite transfer was fully acknowledged, s.
        pub completed_s: Option<f64> => "completed",
        /// cwnd at the end, packets.
        pub final_cwnd: f64,
    }
}

impl FlowSummary {
    /// The totals of TCP flow `fl`, described by `m`, at the end of the run,
    /// with `data_in_transit` of its data packets still on their way.
    pub(crate) fn new(fl: &Flow, m: &FlowMeta, data_in_transit: u64) -> Self {
        let sender = fl.sender();
        let st = sender.stats;
        FlowSummary {
            name: m.name.clone(),
            algorithm: sender.cc.name().to_string(),
            spec: m.spec,
            start_s: m.start.secs(),
            stop_s: m.stop.map(Time::secs),
            size_pkts: m.size,
            base_rtt_s: m.base_rtt.secs(),
            mss: sender.tcb.mss,
            sent: st.sent,
            retransmitted: st.retransmitted,
            fast_retransmits: st.fast_retransmits,
            timeouts: st.timeouts,
            undos: st.undos,
            ece_reductions: st.ece_reductions,
            ce_received: fl.receiver().ce_received,
            delivered_bytes: fl.delivered_pkts * u64::from(sender.tcb.mss),
            data_received: fl.data_received,
            data_dropped: fl.data_dropped,
            acks_dropped: fl.acks_dropped,
            data_in_transit,
            first_loss_s: fl.first_loss.map(Time::secs),
            completed_s: sender.completed_at.map(Time::secs),
            final_cwnd: sender.tcb.cwnd,
        }
    }
}

record! {
    /// Totals of one link over the run.
    #[derive(Clone, Debug, PartialEq)]
    pub struct LinkSummary as "links" => LinkRow {
        /// `tail->head`.
        pub name: String,
        /// Rate, bit/s.
        pub rate_bps: f64,
        /// One-way delay, s.
        pub delay_s: f64 => "delay",
        /// Buffer limit in packets, if packet-limited.
        pub buffer_pkts: Option<u32> => "buffer",
        /// Buffer limit in bytes, if byte-limited.
        pub buffer_bytes: Option<u64>,
        /// Its queue was recorded.
        pub monitored: bool,
        /// Counters.
        pub counters: LinkCounters,
    }
}

impl LinkSummary {
    /// The totals of `link` at `now` (the end of the run); `monitored`: its
    /// queue was recorded.
    pub(crate) fn new(link: &Link, monitored: bool, now: Time) -> Self {
        LinkSummary {
            name: link.name.clone(),
            rate_bps: link.rate_bps,
            delay_s: link.delay.secs(),
            buffer_pkts: match link.buffer {
                BufferLimit::Packets(p) => Some(p),
                BufferLimit::Bytes(_) => None,
            },
            buffer_bytes: match link.buffer {
                BufferLimit::Bytes(b) => Some(b),
                BufferLimit::Packets(_) => None,
            },
            monitored,
            counters: link.counters_at(now),
        }
    }
}

record! {
    /// Totals of one traffic class over the run. Packet conservation holds per
    /// class: `sent = received + dropped + in_transit`.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct ClassCounters {
        /// Wire bytes of data offered by the applications (see [`ClassSeries::offered`]).
        pub offered_bytes: u64,
        /// Data packets sent, retransmissions included.
        pub sent: u64,
        /// Wire bytes of the data packets sent.
        pub sent_bytes: u64,
        /// Data packets that reached a receiver (duplicates included).
        pub received: u64,
        /// Data packets dropped anywhere.
        pub dropped: u64,
        /// Data packets still on links at the end.
        pub in_transit: u64,
        /// Payload bytes delivered in order (UDP: wire bytes received).
        pub delivered_bytes: u64,
        /// TCP flows started.
        pub started: u64,
        /// Finite TCP transfers completed.
        pub completed: u64,
    }
}

record! {
    /// One traffic class and its totals.
    #[derive(Clone, Debug, PartialEq)]
    pub struct ClassSummary as "classes" => ClassRow {
        /// What the class is.
        pub info: ClassInfo,
        /// Its totals.
        pub counters: ClassCounters,
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    /// Simulated time covered, s.
    pub sim_time_s: f64,
    /// Events processed.
    pub events: u64,
    /// Random numbers drawn (see [`crate::rng`]): 0 means the run's
    /// results are the same for every seed.
    pub random_draws: u64,
    /// Per-flow series.
    pub flow_series: FlowSeries,
    /// Per-link queue series.
    pub queue_series: QueueSeries,
    /// Per-link queue-discipline series.
    pub aqm_series: AqmSeries,
    /// Per-class series.
    pub class_series: ClassSeries,
    /// One row per finite transfer.
    pub transfers: Transfers,
    /// Per-class totals (the scenario's flow entries first, then generated traffic).
    pub classes: Vec<ClassSummary>,
    /// Per-flow totals.
    pub flows: Vec<FlowSummary>,
    /// Per-link totals.
    pub links: Vec<LinkSummary>,
}

impl Results {
    /// Data packets delivered to receivers (every flow, generated
    /// transfers and UDP included; duplicates included).
    pub fn data_packets_received(&self) -> u64 {
        self.classes.iter().map(|c| c.counters.received).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::columns::{Cell, Record};

    fn names<R: Record>() -> Vec<&'static str> {
        R::row_columns().iter().map(|c| c.name).collect()
    }

    #[test]
    fn row_columns_keep_the_names_of_the_stored_tables() {
        // The stored Parquet tables and the metrics read these names.
        assert_eq!(
            names::<FlowSummary>(),
            [
                "name",
                "algorithm",
                "spec",
                "start",
                "stop",
                "size_pkts",
                "base_rtt",
                "mss",
                "sent",
                "retransmitted",
                "fast_retransmits",
                "timeouts",
                "undos",
                "ece_reductions",
                "ce_received",
                "delivered_bytes",
                "data_received",
                "data_dropped",
                "acks_dropped",
                "data_in_transit",
                "first_loss",
                "completed",
                "final_cwnd",
            ]
        );
        assert_eq!(
            names::<LinkSummary>(),
            [
                "name",
                "rate_bps",
                "delay",
                "buffer",
                "buffer_bytes",
                "monitored",
                "arrivals",
                "drops",
                "random_drops",
                "departures",
                "bytes_departed",
                "max_qlen",
            ]
        );
        assert_eq!(
            names::<ClassSummary>(),
            [
                "name",
                "kind",
                "direction",
                "target_bps",
                "offered_bytes",
                "sent",
                "sent_bytes",
                "received",
                "dropped",
                "in_transit",
                "delivered_bytes",
                "started",
                "completed",
            ]
        );
    }

    #[test]
    fn a_row_flattens_nested_records_into_named_cells() {
        let link = LinkSummary {
            name: "R1->R2".into(),
            rate_bps: 1e8,
            delay_s: 0.01,
            buffer_pkts: Some(100),
            buffer_bytes: None,
            monitored: true,
            counters: LinkCounters {
                max_qlen: 7,
                ..LinkCounters::default()
            },
        };
        let row = link.row();
        assert_eq!(row[2], ("delay", Cell::F64(0.01)));
        assert_eq!(row[3], ("buffer", Cell::OptU64(Some(100))));
        assert_eq!(row[4], ("buffer_bytes", Cell::OptU64(None)));
        assert_eq!(row[11], ("max_qlen", Cell::U64(7)));
    }
}
