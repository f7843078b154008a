//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016), as mainline
//! Linux `net/ipv4/tcp_bbr.c` implements it; every function below names the
//! kernel function it follows.
//!
//! BBR models the path by two numbers, each from its own windowed filter:
//! the bottleneck bandwidth (the maximum delivery rate of the last
//! `bw_rtts` round trips, [`minmax::MinMax`]) and the round-trip
//! propagation time (the minimum RTT of the last `min_rtt_win_ms`). It
//! paces at `pacing_gain x bw` and caps the data in flight at
//! `cwnd_gain x bw x min_rtt` (plus allowances for ACK aggregation and
//! TSO), and does not react to loss as such. Its state machine:
//!
//! * **STARTUP**: gains `high_gain` (2/ln 2), doubling the rate each round,
//!   until three rounds in a row raise the bandwidth estimate by less than
//!   25 % ("full bandwidth reached");
//! * **DRAIN**: pacing gain `1/high_gain` until the data in flight is down
//!   to one BDP;
//! * **PROBE_BW**: the eight-phase gain cycle 1.25, 0.75, 1 x 6, each phase
//!   about one min_rtt long, starting at a random phase other than 0.75;
//! * **PROBE_RTT**: when the min_rtt estimate is `min_rtt_win_ms` old, cwnd
//!   drops to `cwnd_min_target` packets for `probe_rtt_mode_ms` and a round
//!   trip, to measure the propagation delay again.
//!
//! Losses shape cwnd only through packet conservation in the first round
//! of a recovery; a long-term bandwidth estimate (`lt_bw`) detects token
//! bucket policers from two sampling intervals of consistent rate and high
//! loss, and then paces at the policed rate for `lt_bw_max_rtts` rounds.
//!
//! BBR uses the sender's delivery-rate samples through
//! [`CongestionControl::cong_control`] and turns pacing on in `init`.
//! Arithmetic is Linux's: bandwidth in packets per microsecond scaled by
//! 2^24 (`BW_SCALE`), gains in 1/256 (`BBR_UNIT`), times in microseconds
//! for RTTs and intervals.
//!
//! Not modelled: `is_ack_delayed` (Linux keeps an expired min_rtt filter
//! from taking a sample from an ACK that may have been delayed; here every
//! RTT sample counts), and TSO itself (the TSO allowance in the target cwnd,
//! `bbr_tso_segs_goal`, is computed as Linux does).

pub mod minmax;
#[cfg(test)]
mod tests;

use crate::params::params;
use crate::{CaState, CongestionControl, CwndEvent, NamedAlgorithm, RateSample, Tcb, Time};
use minmax::MinMax;

/// Bandwidth scale: rates are packets per microsecond times 2^24 (Linux `BW_SCALE`).
pub const BW_SCALE: u32 = 24;
/// One packet per microsecond in bandwidth units (Linux `BW_UNIT`).
pub const BW_UNIT: u64 = 1 << BW_SCALE;
/// Gains are in 1/256 (Linux `BBR_SCALE` = 8).
pub const BBR_SCALE: u32 = 8;
/// A gain of 1.0 (Linux `BBR_UNIT`).
pub const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// Phases in the PROBE_BW gain cycle (Linux `CYCLE_LEN`).
pub const CYCLE_LEN: usize = 8;
/// Linux `TCP_INIT_CWND` (`include/net/tcp.h`): the cwnd cap before any RTT
/// sample, and the delivered count below which STARTUP grows regardless.
pub const TCP_INIT_CWND: u32 = 10;
/// The largest TSO/GSO payload `bbr_tso_segs_goal` budgets for: Linux
/// `GSO_LEGACY_MAX_SIZE - 1 - MAX_TCP_HEADER` (65536 - 1 - 320 on x86-64).
pub const GSO_MAX_BYTES: u64 = 65_536 - 1 - 320;

params! {
    /// BBR's parameters: the constants of Linux `net/ipv4/tcp_bbr.c`, gains
    /// in 1/256 as the kernel holds them.
    pub struct BbrParams for |p| {
        /// STARTUP pacing and cwnd gain, 1/256 (2/ln 2 = 2.885, rounded up).
        high_gain: u32 = 739, closed(256.0, 4096.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_high_gain = BBR_UNIT * 2885 / 1000 + 1";
        /// DRAIN pacing gain, 1/256 (1/high_gain).
        drain_gain: u32 = 88, closed(1.0, 256.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_drain_gain = BBR_UNIT * 1000 / 2885";
        /// PROBE_BW cwnd gain, 1/256.
        cwnd_gain: u32 = 512, closed(256.0, 4096.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_cwnd_gain = BBR_UNIT * 2";
        /// PROBE_BW gain of the probing phase (phase 0), 1/256.
        probe_up_gain: u32 = 320, closed(256.0, 1024.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_pacing_gain[0] = BBR_UNIT * 5 / 4";
        /// PROBE_BW gain of the draining phase (phase 1), 1/256.
        probe_down_gain: u32 = 192, closed(1.0, 256.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_pacing_gain[1] = BBR_UNIT * 3 / 4";
        /// PROBE_BW gain of the six cruising phases, 1/256.
        cruise_gain: u32 = 256, closed(1.0, 1024.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_pacing_gain[2..8] = BBR_UNIT";
        /// PROBE_BW starts at phase CYCLE_LEN - 1 - r with r uniform below
        /// this, then advances one phase (7: any phase but the draining one).
        cycle_rand: u32 = 7, closed(1.0, 8.0),
            unit "phases",
            source "Linux tcp_bbr.c bbr_cycle_rand = 7, bbr_reset_probe_bw_mode";
        /// Length of the max-bandwidth filter window.
        bw_rtts: u32 = 10, closed(1.0, 1000.0),
            unit "round trips",
            source "Linux tcp_bbr.c bbr_bw_rtts = CYCLE_LEN + 2";
        /// Length of the min-RTT filter window.
        min_rtt_win_ms: u32 = 10_000, closed(1.0, 3_600_000.0),
            unit "ms",
            source "Linux tcp_bbr.c bbr_min_rtt_win_sec = 10";
        /// Minimum time at cwnd_min_target in PROBE_RTT; 0 never enters PROBE_RTT.
        probe_rtt_mode_ms: u32 = 200, closed(0.0, 60_000.0),
            unit "ms",
            source "Linux tcp_bbr.c bbr_probe_rtt_mode_ms = 200";
        /// Packets BBR keeps in flight at least, and in PROBE_RTT at most.
        cwnd_min_target: u32 = 4, closed(1.0, 1000.0),
            unit "packets",
            source "Linux tcp_bbr.c bbr_cwnd_min_target = 4";
        /// Pace this much below the estimated bandwidth.
        pacing_margin_percent: u32 = 1, closed(0.0, 99.0),
            unit "%",
            source "Linux tcp_bbr.c bbr_pacing_margin_percent = 1";
        /// Below this pacing rate, one-packet TSO bursts (else two).
        min_tso_rate: u64 = 1_200_000, closed(0.0, 1e12),
            unit "bit/s",
            source "Linux tcp_bbr.c bbr_min_tso_rate = 1200000, bbr_min_tso_segs";
        /// TSO burst budget: pacing_rate >> pacing_shift bytes (about 1 ms).
        pacing_shift: u32 = 10, closed(0.0, 32.0),
            unit "",
            source "Linux sk_pacing_shift = 10 (net/core/sock.c sock_init_data), read by bbr_tso_segs_generic";
        /// Bandwidth growth per round below which STARTUP counts a round
        /// without growth, 1/256.
        full_bw_thresh: u32 = 320, closed(256.0, 1024.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_full_bw_thresh = BBR_UNIT * 5 / 4";
        /// Rounds without growth after which the pipe is full.
        full_bw_cnt: u32 = 3, closed(1.0, 3.0),
            unit "round trips",
            source "Linux tcp_bbr.c bbr_full_bw_cnt = 3 (a 2-bit counter in struct bbr)";
        /// Minimum rounds in a long-term bandwidth sampling interval.
        lt_intvl_min_rtts: u32 = 4, closed(1.0, 31.0),
            unit "round trips",
            source "Linux tcp_bbr.c bbr_lt_intvl_min_rtts = 4";
        /// Loss ratio (lost / delivered) of a lossy interval, 1/256 (50/256 ≈ 20 %).
        lt_loss_thresh: u32 = 50, closed(0.0, 256.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_lt_loss_thresh = 50";
        /// Two intervals' rates within this ratio are consistent, 1/256 (1/8).
        lt_bw_ratio: u32 = 32, closed(0.0, 256.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_lt_bw_ratio = BBR_UNIT / 8";
        /// Two intervals' rates within this difference are consistent (4 kbit/s).
        lt_bw_diff: u64 = 500, closed(0.0, 1e12),
            unit "bytes/s",
            source "Linux tcp_bbr.c bbr_lt_bw_diff = 4000 / 8";
        /// Rounds to pace at the policed rate before probing again.
        lt_bw_max_rtts: u32 = 48, closed(1.0, 127.0),
            unit "round trips",
            source "Linux tcp_bbr.c bbr_lt_bw_max_rtts = 48 (a 7-bit counter in struct bbr)";
        /// Gain on the ACK-aggregation allowance, 1/256; 0 turns it off.
        extra_acked_gain: u32 = 256, closed(0.0, 4096.0),
            unit "1/256",
            source "Linux tcp_bbr.c bbr_extra_acked_gain = BBR_UNIT";
        /// Length of each half of the extra-acked max filter.
        extra_acked_win_rtts: u32 = 5, closed(1.0, 31.0),
            unit "round trips",
            source "Linux tcp_bbr.c bbr_extra_acked_win_rtts = 5";
        /// Packets ACKed in an aggregation epoch after which it restarts.
        ack_epoch_acked_reset_thresh: u32 = 1_048_576, closed(1.0, 1_048_576.0),
            unit "packets",
            source "Linux tcp_bbr.c bbr_ack_epoch_acked_reset_thresh = 1 << 20";
        /// Cap on the aggregation allowance, as time at the estimated bandwidth.
        extra_acked_max_ms: u32 = 100, closed(0.0, 10_000.0),
            unit "ms",
            source "Linux tcp_bbr.c bbr_extra_acked_max_us = 100 * 1000";
    }
}

/// BBR's modes (Linux `enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ramp up quickly to fill the pipe.
    Startup,
    /// Drain the queue STARTUP made.
    Drain,
    /// Cycle the pacing gain around the estimated bandwidth.
    ProbeBw,
    /// Cut the data in flight to measure min_rtt again.
    ProbeRtt,
}

/// Linux's order of the CA states (`TCP_CA_Open` = 0 ... `TCP_CA_Loss` = 4).
fn ca_rank(s: CaState) -> u8 {
    match s {
        CaState::Open => 0,
        CaState::Disorder => 1,
        CaState::Cwr => 2,
        CaState::Recovery => 3,
        CaState::Loss => 4,
    }
}

/// Microseconds in `t`, truncated (Linux keeps `tcp_mstamp` in µs).
fn us(t: Time) -> u64 {
    t.ps() / 1_000_000
}

/// SplitMix64: the per-flow random source of the gain cycle's start phase,
/// seeded by the simulator from the flow's random stream.
#[derive(Clone, Copy, Debug, Default)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u32(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 32) as u32
    }

    /// Uniform below `n` (Linux `get_random_u32_below`: multiply and shift).
    fn below(&mut self, n: u32) -> u32 {
        ((u64::from(self.next_u32()) * u64::from(n)) >> 32) as u32
    }
}

/// Per-flow BBR state (Linux `struct bbr`).
#[derive(Clone, Debug)]
pub struct Bbr {
    p: BbrParams,
    rng: SplitMix64,
    /// Current mode.
    pub mode: Mode,
    /// Minimum RTT in the filter window, µs; `u32::MAX` before any sample.
    pub min_rtt_us: u32,
    /// When `min_rtt_us` was last set.
    min_rtt_stamp: Time,
    /// End of the PROBE_RTT dwell, once in flight reached the target.
    probe_rtt_done_stamp: Option<Time>,
    /// Max-bandwidth filter over round trips (`BW_UNIT` scale).
    bw: MinMax,
    /// Packet-timed round trips so far.
    pub rtt_cnt: u32,
    /// `delivered` at which the current round ends.
    next_rtt_delivered: u64,
    /// Start of the current gain-cycle phase.
    cycle_mstamp: Time,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    /// Pacing at the long-term (policed) rate.
    pub lt_use_bw: bool,
    /// Long-term bandwidth estimate (`BW_UNIT` scale).
    pub lt_bw: u64,
    lt_last_delivered: u64,
    /// Start of the long-term interval, ms.
    lt_last_stamp: u64,
    lt_last_lost: u64,
    /// Current pacing gain, 1/256.
    pub pacing_gain: u32,
    /// Current cwnd gain, 1/256.
    pub cwnd_gain: u32,
    /// STARTUP found the pipe full.
    pub full_bw_reached: bool,
    /// Bandwidth at the last 25 % growth (`BW_UNIT` scale).
    full_bw: u64,
    /// Rounds since then.
    pub full_bw_cnt: u32,
    /// Current phase of the gain cycle.
    pub cycle_idx: usize,
    has_seen_rtt: bool,
    /// cwnd before the last recovery or PROBE_RTT.
    pub prior_cwnd: u32,
    ack_epoch_mstamp: Time,
    extra_acked: [u32; 2],
    ack_epoch_acked: u32,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
}

impl NamedAlgorithm for Bbr {
    const NAME: &'static str = "bbr";
    const SUMMARY: &'static str =
        "BBR v1 (Linux tcp_bbr.c): paces at the max delivery rate, cwnd 2 x bw x min_rtt";
    type Params = BbrParams;
    fn new(p: BbrParams) -> Self {
        Bbr {
            p,
            rng: SplitMix64::default(),
            mode: Mode::Startup,
            min_rtt_us: u32::MAX,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_done_stamp: None,
            bw: MinMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: Time::ZERO,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw: 0,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            ack_epoch_mstamp: Time::ZERO,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
        }
    }
}

impl Bbr {
    /// The windowed max bandwidth (`bbr_max_bw`), `BW_UNIT` scale.
    pub fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    /// The bandwidth estimate in use (`bbr_bw`): lt_bw when policed.
    pub fn bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// The PROBE_BW gain of phase `i`.
    fn cycle_gain(&self, i: usize) -> u32 {
        match i {
            0 => self.p.probe_up_gain,
            1 => self.p.probe_down_gain,
            _ => self.p.cruise_gain,
        }
    }

    /// `bbr_extra_acked`: the larger of the two halves of the filter.
    fn extra_acked(&self) -> u32 {
        self.extra_acked[0].max(self.extra_acked[1])
    }

    /// `bbr_rate_bytes_per_sec`: `rate` (`BW_UNIT` scale) times `gain`
    /// (1/256) in bytes per second, less the pacing margin.
    fn rate_bytes_per_sec(&self, tcb: &Tcb, rate: u64, gain: u32) -> u64 {
        let mut r = u128::from(rate) * u128::from(tcb.mss) * u128::from(gain);
        r >>= BBR_SCALE;
        r *= u128::from(1_000_000 / 100 * (100 - self.p.pacing_margin_percent as u64));
        (r >> BW_SCALE) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain x cwnd / srtt (1 ms
    /// before any RTT sample).
    fn init_pacing_rate_from_rtt(&mut self, tcb: &mut Tcb) {
        let rtt_us = match tcb.srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                us(s).max(1)
            }
            None => 1_000,
        };
        let bw = u64::from(tcb.cwnd_pkts()) * BW_UNIT / rtt_us;
        tcb.pacing_rate = Some(self.rate_bytes_per_sec(tcb, bw, self.p.high_gain));
    }

    /// `bbr_set_pacing_rate`: gain x bw, only upwards until the pipe is full.
    fn set_pacing_rate(&mut self, tcb: &mut Tcb, bw: u64, gain: u32) {
        let rate = self.rate_bytes_per_sec(tcb, bw, gain);
        if !self.has_seen_rtt && tcb.srtt.is_some() {
            self.init_pacing_rate_from_rtt(tcb);
        }
        if self.full_bw_reached || rate > tcb.pacing_rate.unwrap_or(u64::MAX) {
            tcb.pacing_rate = Some(rate);
        }
    }

    /// `bbr_tso_segs_goal` (with `bbr_min_tso_segs`): the packets of one
    /// TSO burst at the current pacing rate.
    pub fn tso_segs_goal(&self, tcb: &Tcb) -> u32 {
        let rate = tcb.pacing_rate.unwrap_or(u64::MAX);
        let min_segs = if rate < self.p.min_tso_rate >> 3 {
            1
        } else {
            2
        };
        let bytes = (rate >> self.p.pacing_shift).min(GSO_MAX_BYTES);
        let segs = (bytes / u64::from(tcb.mss.max(1))).max(min_segs);
        segs.min(0x7FFF) as u32
    }

    /// `bbr_save_cwnd`: remember the last good cwnd.
    fn save_cwnd(&mut self, tcb: &Tcb) {
        if ca_rank(self.prev_ca_state) < ca_rank(CaState::Recovery) && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = tcb.cwnd_pkts();
        } else {
            self.prior_cwnd = self.prior_cwnd.max(tcb.cwnd_pkts());
        }
    }

    /// `bbr_bdp`: ceil(bw x min_rtt x gain), `TCP_INIT_CWND` before any RTT sample.
    pub fn bdp(&self, bw: u64, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return TCP_INIT_CWND;
        }
        let w = u128::from(bw) * u128::from(self.min_rtt_us);
        let bdp = ((w * u128::from(gain)) >> BBR_SCALE).div_ceil(u128::from(BW_UNIT));
        bdp as u32
    }

    /// `bbr_quantization_budget`: room for three TSO bursts, rounded up to
    /// an even count, and two more in the probing phase.
    pub fn quantization_budget(&self, tcb: &Tcb, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal(tcb);
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`: the in-flight target for `bw` and `gain`.
    pub fn inflight(&self, tcb: &Tcb, bw: u64, gain: u32) -> u32 {
        let bdp = self.bdp(bw, gain);
        self.quantization_budget(tcb, bdp)
    }

    /// `bbr_packets_in_net_at_edt`: the packets still in the network when
    /// the next packet's departure time comes.
    fn packets_in_net_at_edt(&self, tcb: &Tcb, inflight_now: u32) -> u32 {
        let edt = tcb.next_departure.max(tcb.now);
        let interval_us = us(edt - tcb.now);
        let interval_delivered = (u128::from(self.bw()) * u128::from(interval_us)) >> BW_SCALE;
        let mut at_edt = u64::from(inflight_now);
        if self.pacing_gain > BBR_UNIT {
            at_edt += u64::from(self.tso_segs_goal(tcb));
        }
        if interval_delivered >= u128::from(at_edt) {
            return 0;
        }
        (u128::from(at_edt) - interval_delivered) as u32
    }

    /// `bbr_ack_aggregation_cwnd`: the cwnd allowance for ACK aggregation.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if self.p.extra_acked_gain == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = u128::from(self.bw()) * u128::from(self.p.extra_acked_max_ms) * 1000
            / u128::from(BW_UNIT);
        let aggr =
            (u64::from(self.p.extra_acked_gain) * u64::from(self.extra_acked())) >> BBR_SCALE;
        aggr.min(max_aggr as u64) as u32
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: packet conservation in the
    /// first round of a recovery, the saved cwnd back after it; returns the
    /// cwnd and whether conservation applies.
    fn set_cwnd_to_recover_or_restore(
        &mut self,
        tcb: &Tcb,
        rs: &RateSample,
        acked: u32,
    ) -> (u32, bool) {
        let prev = ca_rank(self.prev_ca_state);
        let state = ca_rank(tcb.ca_state);
        let mut cwnd = tcb.cwnd_pkts();
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        let recovery = ca_rank(CaState::Recovery);
        if state == recovery && prev != recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = tcb.delivered;
            cwnd = tcb.packets_in_flight + acked;
        } else if prev >= recovery && state < recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = tcb.ca_state;
        if self.packet_conservation {
            return (cwnd.max(tcb.packets_in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow-start towards the target cwnd, or snap down to it.
    fn set_cwnd(&mut self, tcb: &mut Tcb, rs: &RateSample, acked: u32, bw: u64, gain: u32) {
        let mut cwnd = tcb.cwnd_pkts();
        if acked > 0 {
            let (c, conserving) = self.set_cwnd_to_recover_or_restore(tcb, rs, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(tcb, target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || tcb.delivered < u64::from(TCP_INIT_CWND) {
                    cwnd += acked;
                }
                cwnd = cwnd.max(self.p.cwnd_min_target);
            }
        }
        let mut w = f64::from(cwnd).min(tcb.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            w = w.min(f64::from(self.p.cwnd_min_target));
        }
        tcb.cwnd = w;
    }

    /// `bbr_is_next_cycle_phase`: a phase ends after a min_rtt, the probing
    /// one only once in flight reached its target (or on loss), the
    /// draining one early once in flight is down to one BDP.
    fn is_next_cycle_phase(&self, tcb: &Tcb, rs: &RateSample) -> bool {
        let elapsed = us(tcb.delivered_mstamp.saturating_sub(self.cycle_mstamp));
        let is_full_length = elapsed > u64::from(self.min_rtt_us);
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(tcb, rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(tcb, bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(tcb, bw, BBR_UNIT)
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, tcb: &Tcb) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_mstamp = tcb.delivered_mstamp;
    }

    /// `bbr_reset_probe_bw_mode`: PROBE_BW from a random phase, never the
    /// draining one.
    fn reset_probe_bw_mode(&mut self, tcb: &Tcb) {
        self.mode = Mode::ProbeBw;
        let r = self.rng.below(self.p.cycle_rand) as usize;
        self.cycle_idx = CYCLE_LEN - 1 - r;
        self.advance_cycle_phase(tcb);
    }

    /// `bbr_reset_mode`: back to STARTUP unless the pipe was found full.
    fn reset_mode(&mut self, tcb: &Tcb) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(tcb);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self, tcb: &Tcb) {
        self.lt_last_stamp = us(tcb.delivered_mstamp) / 1000;
        self.lt_last_delivered = tcb.delivered;
        self.lt_last_lost = tcb.lost;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset_lt_bw_sampling(&mut self, tcb: &Tcb) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(tcb);
    }

    /// `bbr_lt_bw_interval_done`: two consistent intervals mean a policer.
    fn lt_bw_interval_done(&mut self, tcb: &Tcb, bw: u64) {
        if self.lt_bw > 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * u64::from(BBR_UNIT) <= u64::from(self.p.lt_bw_ratio) * self.lt_bw
                || self.rate_bytes_per_sec(tcb, diff, BBR_UNIT) <= self.p.lt_bw_diff
            {
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(tcb);
    }

    /// `bbr_lt_bw_sampling`: long-term delivery rate over lossy intervals
    /// of 4 to 16 rounds, to detect a token-bucket policer.
    fn lt_bw_sampling(&mut self, tcb: &Tcb, rs: &RateSample) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= self.p.lt_bw_max_rtts {
                    self.reset_lt_bw_sampling(tcb);
                    self.reset_probe_bw_mode(tcb);
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(tcb);
            self.lt_is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt_bw_sampling(tcb);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < self.p.lt_intvl_min_rtts {
            return;
        }
        if self.lt_rtt_cnt > 4 * self.p.lt_intvl_min_rtts {
            self.reset_lt_bw_sampling(tcb);
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = tcb.lost - self.lt_last_lost;
        let delivered = tcb.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < u64::from(self.p.lt_loss_thresh) * delivered {
            return;
        }
        let t_ms = (us(tcb.delivered_mstamp) / 1000) as i64 - self.lt_last_stamp as i64;
        if t_ms < 1 {
            return;
        }
        if t_ms as u64 >= u64::from(u32::MAX) / 1000 {
            self.reset_lt_bw_sampling(tcb);
            return;
        }
        let bw = delivered * BW_UNIT / (t_ms as u64 * 1000);
        self.lt_bw_interval_done(tcb, bw);
    }

    /// `bbr_update_bw`: round counting and the max-bandwidth filter.
    fn update_bw(&mut self, tcb: &Tcb, rs: &RateSample) {
        self.round_start = false;
        let (Some(delivered), Some(interval)) = (rs.delivered, rs.interval) else {
            return;
        };
        let interval_us = us(interval);
        if interval_us == 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = tcb.delivered;
            self.rtt_cnt = self.rtt_cnt.wrapping_add(1);
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(tcb, rs);
        let bw = delivered * BW_UNIT / interval_us;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.running_max(self.p.bw_rtts, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`: the windowed max of packets ACKed
    /// beyond what the estimated bandwidth explains.
    fn update_ack_aggregation(&mut self, tcb: &Tcb, rs: &RateSample) {
        if self.p.extra_acked_gain == 0
            || rs.acked_sacked == 0
            || rs.delivered.is_none()
            || rs.interval.map_or(0, us) == 0
        {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1F);
            if self.extra_acked_win_rtts >= self.p.extra_acked_win_rtts {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = us(tcb.delivered_mstamp.saturating_sub(self.ack_epoch_mstamp));
        let mut expected =
            (u128::from(self.bw()) * u128::from(epoch_us) / u128::from(BW_UNIT)) as u64;
        if u64::from(self.ack_epoch_acked) <= expected
            || self.ack_epoch_acked + rs.acked_sacked >= self.p.ack_epoch_acked_reset_thresh
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = tcb.delivered_mstamp;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xFFFFF);
        let extra = (u64::from(self.ack_epoch_acked)
            - expected.min(u64::from(self.ack_epoch_acked)))
        .min(u64::from(tcb.cwnd_pkts())) as u32;
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        if extra > *slot {
            *slot = extra;
        }
    }

    /// `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, tcb: &Tcb, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(tcb, rs) {
            self.advance_cycle_phase(tcb);
        }
    }

    /// `bbr_check_full_bw_reached`: three rounds without 25 % growth.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (u128::from(self.full_bw) * u128::from(self.p.full_bw_thresh)) >> BBR_SCALE;
        if u128::from(self.max_bw()) >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.p.full_bw_cnt;
    }

    /// `bbr_check_drain`: STARTUP to DRAIN once full, DRAIN to PROBE_BW
    /// once in flight is down to one BDP.
    fn check_drain(&mut self, tcb: &mut Tcb) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            tcb.ssthresh = f64::from(self.inflight(tcb, self.max_bw(), BBR_UNIT));
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(tcb, tcb.packets_in_flight)
                <= self.inflight(tcb, self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode(tcb);
        }
    }

    /// `bbr_check_probe_rtt_done`: leave PROBE_RTT after its dwell.
    fn check_probe_rtt_done(&mut self, tcb: &mut Tcb) {
        match self.probe_rtt_done_stamp {
            Some(done) if tcb.now > done => {}
            _ => return,
        }
        self.min_rtt_stamp = tcb.now;
        tcb.cwnd = tcb.cwnd.max(f64::from(self.prior_cwnd));
        self.reset_mode(tcb);
    }

    /// The min-RTT filter window has passed since the last new minimum.
    fn min_rtt_expired(&self, now: Time) -> bool {
        now > self.min_rtt_stamp + Time::from_ms(u64::from(self.p.min_rtt_win_ms))
    }

    /// `bbr_update_min_rtt`: the min-RTT filter, and PROBE_RTT when it expires.
    fn update_min_rtt(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        let expired = self.min_rtt_expired(tcb.now);
        if let Some(rtt) = rs.rtt {
            let rtt_us = us(rtt).min(u64::from(u32::MAX - 1)) as u32;
            if rtt_us < self.min_rtt_us || expired {
                self.min_rtt_us = rtt_us;
                self.min_rtt_stamp = tcb.now;
            }
        }
        if self.p.probe_rtt_mode_ms > 0
            && expired
            && !self.idle_restart
            && self.mode != Mode::ProbeRtt
        {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tcb);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Ignore the low rate samples of this mode.
            tcb.app_limited = (tcb.delivered + u64::from(tcb.packets_in_flight)).max(1);
            if self.probe_rtt_done_stamp.is_none()
                && tcb.packets_in_flight <= self.p.cwnd_min_target
            {
                self.probe_rtt_done_stamp =
                    Some(tcb.now + Time::from_ms(u64::from(self.p.probe_rtt_mode_ms)));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = tcb.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(tcb);
                }
            }
        }
        if rs.delivered.is_some_and(|d| d > 0) {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (self.p.high_gain, self.p.high_gain),
            Mode::Drain => (self.p.drain_gain, self.p.high_gain),
            Mode::ProbeBw => {
                let g = if self.lt_use_bw {
                    BBR_UNIT
                } else {
                    self.cycle_gain(self.cycle_idx)
                };
                (g, self.p.cwnd_gain)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_update_model`.
    fn update_model(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        self.update_bw(tcb, rs);
        self.update_ack_aggregation(tcb, rs);
        self.update_cycle_phase(tcb, rs);
        self.check_full_bw_reached(rs);
        self.check_drain(tcb);
        self.update_min_rtt(tcb, rs);
        self.update_gains();
    }
}

impl CongestionControl for Bbr {
    /// `bbr_init`.
    fn init(&mut self, tcb: &mut Tcb) {
        self.prior_cwnd = 0;
        tcb.ssthresh = crate::UNLIMITED;
        self.rtt_cnt = 0;
        self.next_rtt_delivered = tcb.delivered;
        self.prev_ca_state = CaState::Open;
        self.packet_conservation = false;
        self.probe_rtt_done_stamp = None;
        self.probe_rtt_round_done = false;
        self.min_rtt_us = tcb.min_rtt.map_or(u32::MAX, |m| us(m) as u32);
        self.min_rtt_stamp = tcb.now;
        self.bw.reset(self.rtt_cnt, 0);
        self.has_seen_rtt = false;
        self.init_pacing_rate_from_rtt(tcb);
        self.round_start = false;
        self.idle_restart = false;
        self.full_bw_reached = false;
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.cycle_mstamp = Time::ZERO;
        self.cycle_idx = 0;
        self.reset_lt_bw_sampling(tcb);
        self.mode = Mode::Startup;
        self.ack_epoch_mstamp = tcb.now;
        self.ack_epoch_acked = 0;
        self.extra_acked_win_rtts = 0;
        self.extra_acked_win_idx = 0;
        self.extra_acked = [0; 2];
        tcb.pacing = true;
    }

    /// `bbr_ssthresh`: keep ssthresh, save cwnd for after the recovery.
    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        self.save_cwnd(tcb);
        tcb.ssthresh
    }

    /// Never called: BBR has `cong_control`.
    fn cong_avoid(&mut self, _tcb: &mut Tcb, _ack: &crate::AckInfo) {}

    /// `bbr_set_state`: an RTO ends a round and counts as a loss for the
    /// policer detection.
    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        if new_state == CaState::Loss {
            let rs = RateSample {
                losses: 1,
                ..RateSample::default()
            };
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true;
            self.lt_bw_sampling(tcb, &rs);
        }
    }

    /// `bbr_cwnd_event` / `bbr_cwnd_event_tx_start`: restarting from idle
    /// while application-limited, pace at the estimated bandwidth.
    fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
        if event == CwndEvent::TxStart && tcb.app_limited != 0 {
            self.idle_restart = true;
            self.ack_epoch_mstamp = tcb.now;
            self.ack_epoch_acked = 0;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(tcb, self.bw(), BBR_UNIT);
            } else if self.mode == Mode::ProbeRtt {
                self.check_probe_rtt_done(tcb);
            }
        }
    }

    /// `bbr_undo_cwnd`: a spurious loss; start the full-pipe detection over.
    fn undo_cwnd(&mut self, tcb: &Tcb, _prior_cwnd: f64) -> f64 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling(tcb);
        tcb.cwnd
    }

    fn has_cong_control(&self) -> bool {
        true
    }

    /// `bbr_main`.
    fn cong_control(&mut self, tcb: &mut Tcb, rs: &RateSample) {
        self.update_model(tcb, rs);
        let bw = self.bw();
        self.set_pacing_rate(tcb, bw, self.pacing_gain);
        self.set_cwnd(tcb, rs, rs.acked_sacked, bw, self.cwnd_gain);
    }

    fn set_random_seed(&mut self, seed: u64) {
        self.rng = SplitMix64(seed);
    }

    /// The gain cycle's start phase is drawn (`bbr_reset_probe_bw_mode`).
    fn uses_random_seed(&self) -> bool {
        true
    }
}
