//! Probes: periodic samples of every traced flow and every monitored queue,
//! appended to column vectors that are handed over once at the end. One
//! sampler event per period serves all flows (or all links), and nothing is
//! recorded when a period is zero.

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

/// What a sampler records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleKind {
    /// Every traced, active flow.
    Flows,
    /// Every monitored link.
    Queues,
}
