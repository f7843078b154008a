//! Congestion-control algorithms for tcpeval.
//!
//! This crate knows nothing of the simulator. An algorithm sees a connection
//! through [`Tcb`] (the sender's control block: windows in packets, sequence
//! numbers in packets, times in [`Time`]) and is told about the connection's
//! life through the hooks of [`CongestionControl`], a one-to-one image of
//! Linux `struct tcp_congestion_ops`:
//!
//! | hook          | called                                                        | may
//! change            |
//! |---------------|---------------------------------------------------------------|-----------------------|
//! | `init`        | once, when the connection starts                              | own
//! state, `ssthresh` |
//! | `pkts_acked`  | every ACK that advances `snd_una` or SACKs data, before `cong_avoid` |
//! own state only |
//! | `cong_avoid`  | every such ACK while not in a cwnd reduction (Open, Disorder, Loss)
//! and cwnd-limited | `cwnd`, `cwnd_cnt`, `ssthresh` |
//! | `ssthresh`    | on entering fast recovery and on RTO; returns, never writes   | own
//! state only        |
//! | `set_state`   | just before the sender's [`CaState`] changes                  | own
//! state, `cwnd`, `ssthresh` |
//! | `cwnd_event`  | on the [`CwndEvent`]s                                         | own
//! state, `cwnd`, `ssthresh` |
//! | `undo_cwnd`   | on spurious-loss undo; returns the cwnd to restore            | own
//! state only        |
//! | `cong_control` | every ACK, after loss recovery, instead of `cong_avoid`, if `has_cong_control()` | own
//! state, `cwnd`, `pacing_rate`, `app_limited` |
//! | `on_timer`    | every `timer_period()` if that is `Some` (FAST's own clock)   | own
//! state, `cwnd`, `ssthresh` |
//!
//! The generic sender owns loss detection, recovery, RTO and the in-recovery
//! cwnd; algorithms supply `ssthresh()` and growth in the Open state.
//!
//! Each algorithm lives in its own file with a `*Params` struct whose fields
//! are the algorithm's named, overridable constants (defaults from the Linux
//! module, the paper or the RFC the file's doc names), and is listed once in
//! [`registry`].

pub mod bbr;
pub mod common;
pub mod params;
pub mod registry;
#[cfg(test)]
pub(crate) mod testing;
pub mod time;

pub mod africa;
pub mod bic;
pub mod compound;
pub mod cubic;
pub mod dctcp;
pub mod fast;
pub mod fusion;
pub mod highspeed;
pub mod htcp;
pub mod hystart_pp;
pub mod illinois;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod westwood;
pub mod yeah;

pub use params::{ParamDoc, ParamError, ParamRange, ParamSet, Shown};
pub use registry::{build, catalog, Algorithm, AlgorithmInfo};
pub use time::Time;

/// Window value that stands for "unlimited" (initial ssthresh, no clamp).
pub const UNLIMITED: f64 = f64::INFINITY;

/// The sender's congestion-avoidance state, with Linux's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaState {
    /// Nothing suspicious: ACKs advance the window.
    Open,
    /// Duplicate ACKs or SACKs seen, nothing marked lost yet.
    Disorder,
    /// The window is being reduced after an ECN echo (RFC 3168 section
    /// 6.1.2; Linux `tcp_enter_cwr`), until the data outstanding at the echo
    /// is acknowledged. Entered only by flows with ECN on.
    Cwr,
    /// Fast recovery after a loss was detected by duplicate ACKs or SACK.
    Recovery,
    /// After a retransmission timeout: slow start from cwnd = 1.
    Loss,
}

/// Events passed to [`CongestionControl::cwnd_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndEvent {
    /// First transmission after the sender was idle (no data outstanding).
    TxStart,
    /// cwnd restarted after an idle period longer than the RTO (RFC 5681).
    CwndRestart,
    /// Fast recovery finished: the window reduction is complete.
    CompleteCwr,
    /// A retransmission timeout fired (after `ssthresh()` and cwnd = 1).
    Loss,
}

/// The sender's control block as an algorithm sees it (Linux: the fields
/// of `struct tcp_sock` that `tcp_congestion_ops` hooks read).
///
/// Windows are in packets (full-sized segments). `cwnd` is an `f64` so that
/// formula-defined algorithms (float mode, ns-2 style) can keep a fractional
/// window; Linux-derived algorithms keep it integral and use `cwnd_cnt` as
/// the fractional-increase credit. The sender transmits while
/// `packets_in_flight < floor(cwnd)` (and the receiver window allows).
///
/// The fields come in three kinds:
///
/// * **the window** (`cwnd`, `cwnd_cnt`, `ssthresh`): what an algorithm
///   changes, in the hooks the crate docs list;
/// * **the connection's state** (`now`, `snd_una`, `snd_nxt`,
///   `packets_in_flight`, `srtt`, `min_rtt`, `ca_state`, `delivered`,
///   `last_send`): kept by the sender, read-only to an algorithm;
/// * **sender settings** (`mss`, `max_ssthresh`, `cwnd_clamp`): fixed when
///   the connection is made; an algorithm reads them, and only `cwnd_clamp`
///   may be lowered, by `init` (HighSpeed's table end).
///
/// Everything else the sender keeps (loss recovery, the scoreboard, the
/// RTO estimator, its options) is out of an algorithm's reach.
#[derive(Clone, Debug)]
pub struct Tcb {
    /// Current time (the sender's clock at the hook call).
    pub now: Time,
    /// Congestion window, packets (>= 1 outside the algorithm's own hooks;
    /// Linux `snd_cwnd`).
    pub cwnd: f64,
    /// Fractional-increase credit for integer (Linux-mode) growth, packets
    /// (Linux `snd_cwnd_cnt`).
    pub cwnd_cnt: u32,
    /// Slow-start threshold, packets; [`UNLIMITED`] until the first loss
    /// (Linux `snd_ssthresh`).
    pub ssthresh: f64,
    /// Sender setting: hard cap on cwnd, packets; [`UNLIMITED`] unless an
    /// algorithm lowers it in `init` (Linux `snd_cwnd_clamp`).
    pub cwnd_clamp: f64,
    /// Oldest unacknowledged sequence number (packets).
    pub snd_una: u64,
    /// Next new sequence number to send (packets).
    pub snd_nxt: u64,
    /// Packets the sender believes are in the network (Linux
    /// `tcp_packets_in_flight`).
    pub packets_in_flight: u32,
    /// Sender setting: maximum segment size in bytes (payload of a full
    /// data packet; Linux `mss_cache`).
    pub mss: u32,
    /// Smoothed RTT (RFC 6298 SRTT), if a sample exists.
    pub srtt: Option<Time>,
    /// Minimum RTT sample seen on this connection, if any.
    pub min_rtt: Option<Time>,
    /// Current congestion-avoidance state (Linux `icsk_ca_state`).
    pub ca_state: CaState,
    /// Total packets delivered to the receiver so far (cumulative + SACKed;
    /// Linux `tp->delivered`).
    pub delivered: u64,
    /// Of `delivered`, the packets newly delivered by ACKs that carried ECE
    /// (Linux `tp->delivered_ce` under RFC 3168 feedback,
    /// `tcp_count_delivered`); 0 without ECN.
    pub delivered_ce: u64,
    /// Sender setting: the Limited Slow-Start (RFC 3742) threshold in
    /// packets, 0 = off (the sysctl `tcp_max_ssthresh` that Linux 2.6.2x -
    /// 3.x `tcp_slow_start` in `tcp_cong.c` read); the sender's own ns-2
    /// form of LSS reads it too.
    pub max_ssthresh: u32,
    /// Time of the last data transmission (Linux `lsndtime`), zero before
    /// the first; the sender updates it after each send, so at `TxStart`
    /// it is the start of the idle period.
    pub last_send: Time,
    /// Total packets marked lost so far (Linux `tp->lost`, counted as
    /// `tcp_sum_lost` does: a lost retransmission counts again).
    pub lost: u64,
    /// When the last ACK that delivered data arrived (Linux
    /// `tp->delivered_mstamp`, kept by `tcp_rate_gen`); set before
    /// `cong_control`.
    pub delivered_mstamp: Time,
    /// Nonzero while the flow is application-limited: `delivered +
    /// packets_in_flight` (at least 1) when it became so (Linux
    /// `tp->app_limited`; cleared once `delivered` passes it); set before
    /// `cong_control`, which may set it too, as BBR does in PROBE_RTT to
    /// mark its low-rate samples.
    pub app_limited: u64,
    /// Pacing on (Linux `sk_pacing_status != SK_PACING_NONE`): the sender's
    /// option `pacing`, or set by an algorithm's `init` (as `bbr_init`).
    pub pacing: bool,
    /// Pacing rate in bytes per second, `None` = unlimited (Linux
    /// `sk_pacing_rate`, `~0UL` when unset). Written by the sender from
    /// cwnd / srtt (Linux `tcp_update_pacing_rate`) unless the algorithm
    /// has `cong_control`, which then sets it itself.
    pub pacing_rate: Option<u64>,
    /// Earliest departure time of the next data packet (Linux
    /// `tp->tcp_wstamp_ns`), kept by the sender while pacing; at or before
    /// `now` when a packet may leave at once. Read-only to an algorithm.
    pub next_departure: Time,
}

impl Tcb {
    /// A fresh control block: cwnd = `initial_cwnd`, ssthresh = `initial_ssthresh`.
    pub fn new(initial_cwnd: f64, initial_ssthresh: f64, mss: u32) -> Self {
        Tcb {
            now: Time::ZERO,
            cwnd: initial_cwnd,
            cwnd_cnt: 0,
            ssthresh: initial_ssthresh,
            cwnd_clamp: UNLIMITED,
            snd_una: 0,
            snd_nxt: 0,
            packets_in_flight: 0,
            mss,
            srtt: None,
            min_rtt: None,
            ca_state: CaState::Open,
            delivered: 0,
            delivered_ce: 0,
            max_ssthresh: 0,
            last_send: Time::ZERO,
            lost: 0,
            delivered_mstamp: Time::ZERO,
            app_limited: 0,
            pacing: false,
            pacing_rate: None,
            next_departure: Time::ZERO,
        }
    }

    /// True while cwnd is below ssthresh (RFC 5681 / modern Linux `tcp_in_slow_start`).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// cwnd as Linux holds it: the integral number of packets.
    pub fn cwnd_pkts(&self) -> u32 {
        self.cwnd as u32
    }
}

/// What an ACK that advanced the window tells [`CongestionControl::cong_avoid`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckInfo {
    /// Packets newly delivered by this ACK, as counted by the sender's
    /// counting mode: the cumulative advance plus newly SACKed packets in
    /// per-packet mode, always 1 in per-ACK mode (2.6-era kernels).
    pub acked: u32,
    /// Cumulative ACK point after this ACK (packets).
    pub ack_seq: u64,
}

/// What [`CongestionControl::pkts_acked`] receives for each ACK that
/// advances `snd_una` or SACKs data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSample {
    /// Packets newly delivered by this ACK (per-packet count, never mode-adjusted).
    pub acked: u32,
    /// RTT sample of this ACK: now minus the send time of the most recently
    /// sent packet it newly delivers; `None` when every such packet was
    /// retransmitted (Karn).
    pub rtt: Option<Time>,
}

/// A delivery-rate sample, made by the sender for every ACK (Linux `struct
/// rate_sample`, filled by `tcp_rate_skb_delivered` and `tcp_rate_gen` in
/// `net/ipv4/tcp_rate.c`) and handed to [`CongestionControl::cong_control`].
///
/// The rate is `delivered / interval`: the packets delivered between the
/// transmission of the most recently sent packet this ACK delivers and now,
/// over the longer of that packet's send interval and its ACK interval, so
/// that neither a burst of sends nor of ACKs overstates it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// `tcb.delivered` when the sampled packet was sent (Linux `prior_delivered`).
    pub prior_delivered: u64,
    /// Packets delivered over the interval; `None` when the ACK delivered
    /// nothing that can be sampled (Linux `delivered = -1`).
    pub delivered: Option<u64>,
    /// The sample's interval, `max(send elapsed, ACK elapsed)`; `None` when
    /// invalid, including an interval shorter than the connection's
    /// minimum RTT (Linux `interval_us = -1`).
    pub interval: Option<Time>,
    /// The sampled packet was sent while the flow was application-limited:
    /// the rate says little about the path (Linux `is_app_limited`).
    pub is_app_limited: bool,
    /// The sampled packet was a retransmission (Linux `is_retrans`).
    pub is_retrans: bool,
    /// Packets this ACK newly delivered, cumulatively or by SACK (Linux
    /// `acked_sacked`).
    pub acked_sacked: u32,
    /// Packets newly marked lost while this ACK was processed (Linux `losses`).
    pub losses: u32,
    /// Packets in flight before this ACK (Linux `prior_in_flight`).
    pub prior_in_flight: u32,
    /// The ACK's RTT sample for the algorithm (Linux `rtt_us`, the `ca_rtt`
    /// of `tcp_clean_rtx_queue`), `None` under Karn's rule.
    pub rtt: Option<Time>,
}

/// The plug-in interface every algorithm implements. See the crate docs for
/// who may change what.
pub trait CongestionControl {
    /// Connection start. May set `tcb.ssthresh` (e.g. a fixed initial value).
    fn init(&mut self, _tcb: &mut Tcb) {}

    /// The slow-start threshold to use after a loss (packets, >= 2).
    /// Called on entering fast recovery and on RTO, with the pre-inflation
    /// cwnd in `tcb`. Returns, never writes the window.
    fn ssthresh(&mut self, tcb: &Tcb) -> f64;

    /// Grow cwnd on an ACK that advanced the window (Open, Disorder or Loss state).
    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo);

    /// Every arriving ACK, duplicates included, before `pkts_acked` (Linux
    /// `in_ack_event`); `tcb.snd_una` is already the ACK's cumulative point.
    fn in_ack_event(&mut self, _tcb: &Tcb) {}

    /// RTT and delivery bookkeeping for every ACK that delivers data.
    fn pkts_acked(&mut self, _tcb: &Tcb, _sample: &AckSample) {}

    /// Called just before the sender's state changes to `new_state`.
    fn set_state(&mut self, _tcb: &mut Tcb, _new_state: CaState) {}

    /// Connection events (idle restart, recovery complete, RTO).
    fn cwnd_event(&mut self, _tcb: &mut Tcb, _event: CwndEvent) {}

    /// Lower bound on cwnd while Linux 2.6 rate halving shrinks it in fast
    /// recovery (`tcp_congestion_ops.min_cwnd`, read by `tcp_cwnd_min` in
    /// 2.6 `net/ipv4/tcp_input.c`; asked only in the
    /// sender's `rate_halving` recovery mode). Default `tcp_reno_min_cwnd`:
    /// ssthresh / 2, in whole packets. A 2.6 module without the hook (BIC,
    /// CUBIC, H-TCP) got ssthresh itself from `tcp_cwnd_min`.
    fn min_cwnd(&self, tcb: &Tcb) -> f64 {
        (tcb.ssthresh / 2.0).floor()
    }

    /// cwnd to restore after a loss is found spurious (Linux default
    /// `max(cwnd, prior_cwnd)`).
    fn undo_cwnd(&mut self, tcb: &Tcb, prior_cwnd: f64) -> f64 {
        tcb.cwnd.max(prior_cwnd)
    }

    /// Period of the algorithm's own clock, if it has one (FAST's window update).
    fn timer_period(&self) -> Option<Time> {
        None
    }

    /// The algorithm's own clock ticked (only if `timer_period()` is `Some`).
    fn on_timer(&mut self, _tcb: &mut Tcb) {}

    /// True if the algorithm implements [`CongestionControl::cong_control`]
    /// (Linux: `tcp_congestion_ops.cong_control` is non-NULL).
    fn has_cong_control(&self) -> bool {
        false
    }

    /// Sets cwnd and the pacing rate from the ACK's rate sample, on every
    /// ACK after the sender's loss-recovery state machine (Linux
    /// `tcp_cong_control` in `net/ipv4/tcp_input.c`). Called only if
    /// [`CongestionControl::has_cong_control`]; then the sender bypasses
    /// its own window rules: `cong_avoid` is never called, and the
    /// in-recovery cwnd rule (PRR and the others) and the cwnd = ssthresh
    /// at the end of a recovery are not applied (Linux skips
    /// `tcp_cwnd_reduction` and `tcp_end_cwnd_reduction`). `ssthresh`,
    /// `set_state`, `cwnd_event`, `undo_cwnd` and the RTO's cwnd = 1 remain.
    fn cong_control(&mut self, _tcb: &mut Tcb, _rs: &RateSample) {}

    /// Seeds the algorithm's own random choices (BBR's gain-cycle start
    /// phase, Linux `get_random_u32_below`); the simulator calls it once
    /// per connection with a value from the flow's seeded stream, so a run
    /// stays deterministic. Algorithms without random choices ignore it.
    fn set_random_seed(&mut self, _seed: u64) {}

    /// Whether the algorithm draws from the seed given by
    /// [`CongestionControl::set_random_seed`]: then a run's results may
    /// depend on its seed, and the simulator counts the connection as
    /// having drawn (whether or not it reached a random choice).
    fn uses_random_seed(&self) -> bool {
        false
    }
}

/// An algorithm that the registry can build by name from typed parameters.
pub trait NamedAlgorithm: CongestionControl + Sized {
    /// Registry name, lower case (`"cubic"`, `"yeah"`, ...).
    const NAME: &'static str;
    /// One-line description for `tcpeval algorithms`.
    const SUMMARY: &'static str;
    /// The algorithm's named, overridable constants.
    type Params: ParamSet;
    /// The algorithm needs ECN, which its flows then use whatever their
    /// `ecn` option says (Linux `TCP_CONG_NEEDS_ECN`); it also gets the
    /// receiver's per-CE-change echo instead of RFC 3168's echo-until-CWR.
    const NEEDS_ECN: bool = false;
    /// A new per-flow instance.
    fn new(params: Self::Params) -> Self;
}
