//! Probes: periodic samples of every traced flow, every monitored queue and
//! every traffic class, appended to column vectors that are handed over once
//! at the end; and the per-transfer record of finite transfers. One sampler
//! event per period serves all flows (or all links, or all classes), and
//! nothing is recorded when a period is zero.

/// Per-flow time series, one row per (sample time, traced active flow).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowSeries {
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

/// Per-link queue series, one row per (sample time, monitored link).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueSeries {
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
    /// Packets dropped by the full buffer so far.
    pub drops: Vec<u64>,
}

/// Per-class series, one row per (sample time, class): the aggregate of
/// every flow of the class, so short transfers that come and go add up.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassSeries {
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

/// One row per finite transfer (a generated web transfer, or a scenario
/// flow with `size_pkts`), in start order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Transfers {
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
