//! Building blocks shared by the algorithms: slow start (with RFC 3742
//! Limited Slow-Start), additive increase with a fractional counter
//! (Linux `tcp_cong_avoid_ai`) or in floating point (ns-2 style), Reno's
//! ssthresh, the RFC 3649 HighSpeed response curve, Vegas-style once-per-RTT
//! RTT bookkeeping, and a minimum-RTT filter with optional aging. The
//! primary source of each is named where it is defined.

use crate::{CaState, Tcb, Time};
use serde::{Deserialize, Serialize};

/// How fractional window growth is kept (Linux `tcp_cong_avoid_ai` in
/// `net/ipv4/tcp_cong.c`, or ns-2 `TcpAgent::opencwnd` in `tcp/tcp.cc`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrowthMode {
    /// Integer cwnd plus the `cwnd_cnt` credit: +1 packet per `w` packets acked.
    #[default]
    Linux,
    /// Floating-point cwnd: `cwnd += acked / w` (ns-2).
    Float,
}

/// Slow start on `acked` newly delivered packets (RFC 5681 section 3.1; RFC
/// 3742 section 2).
///
/// Without Limited Slow-Start (or while `cwnd <= max_ssthresh`) this is modern
/// Linux `tcp_slow_start`: one packet per packet acked, `cwnd = min(cwnd +
/// acked, ssthresh)`. Above `tcb.max_ssthresh` (when non-zero) it is RFC 3742:
/// `K = floor(cwnd / (0.5 * max_ssthresh))` and each packet acked adds `1/K`,
/// kept as integer credit in `cwnd_cnt` (one packet per `K` acked), which
/// gives between `max_ssthresh/2` and `max_ssthresh` packets per RTT.
/// Returns the packets of `acked` not used because cwnd reached ssthresh
/// (the caller hands them to congestion avoidance).
pub fn slow_start(tcb: &mut Tcb, acked: u32) -> u32 {
    let mut left = acked;
    let lss_limit = f64::from(tcb.max_ssthresh);
    while left > 0 && tcb.cwnd < tcb.ssthresh {
        left -= 1;
        if tcb.max_ssthresh > 0 && tcb.cwnd > lss_limit {
            let k = (tcb.cwnd / (0.5 * lss_limit)).floor().max(1.0) as u32;
            tcb.cwnd_cnt += 1;
            if tcb.cwnd_cnt >= k {
                tcb.cwnd_cnt -= k;
                tcb.cwnd += 1.0;
            }
        } else {
            tcb.cwnd = (tcb.cwnd + 1.0).min(tcb.ssthresh);
        }
    }
    tcb.cwnd = tcb.cwnd.min(tcb.cwnd_clamp);
    left
}

/// The Limited Slow-Start increment per ACK, packets (RFC 3742 section 2,
/// in ns-2's form `TcpAgent::limited_slow_start`): `1/K` with
/// `K = floor(cwnd / (max_ssthresh / 2))`, or 0 while `K` is 0 (cwnd below
/// `max_ssthresh / 2`) or LSS is off (`max_ssthresh == 0`). Over one RTT
/// of `cwnd` ACKs this adds about `max_ssthresh / 2` packets.
pub fn lss_increment(cwnd: f64, max_ssthresh: u32) -> f64 {
    if max_ssthresh == 0 {
        return 0.0;
    }
    let k = (cwnd / (0.5 * f64::from(max_ssthresh))).floor();
    if k >= 1.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// The usual start of `cong_avoid`: slow start while below ssthresh, then
/// returns the packets of `acked` left for congestion avoidance (0 means
/// there is nothing more to do on this ACK).
pub fn slow_start_then(tcb: &mut Tcb, acked: u32) -> u32 {
    if tcb.in_slow_start() {
        slow_start(tcb, acked)
    } else {
        acked
    }
}

/// Additive increase of one packet per `w` packets acked (Linux
/// `tcp_cong_avoid_ai`).
///
/// Linux mode is `tcp_cong_avoid_ai`: credit left over from a larger `w`
/// first converts to one packet, then `acked` is added to `cwnd_cnt` and every
/// full `w` of credit adds a packet. Float mode adds `acked / w` directly.
/// `w` is clamped to at least 1.
pub fn additive_increase(tcb: &mut Tcb, mode: GrowthMode, w: f64, acked: u32) {
    match mode {
        GrowthMode::Linux => {
            let w = (w.max(1.0)) as u32;
            if tcb.cwnd_cnt >= w {
                tcb.cwnd_cnt = 0;
                tcb.cwnd += 1.0;
            }
            tcb.cwnd_cnt += acked;
            if tcb.cwnd_cnt >= w {
                let delta = tcb.cwnd_cnt / w;
                tcb.cwnd_cnt -= delta * w;
                tcb.cwnd += f64::from(delta);
            }
        }
        GrowthMode::Float => {
            tcb.cwnd += f64::from(acked) / w.max(1.0);
        }
    }
    tcb.cwnd = tcb.cwnd.min(tcb.cwnd_clamp);
}

/// The 2.6-era form of [`additive_increase`] on the integer window (Linux
/// `bictcp_cong_avoid` of 2.6.13-2.6.25 and TCP-Linux's 2.6.22 modules):
/// per ACK, `if cwnd_cnt >= w { cwnd += 1; cwnd_cnt = 0 } else { cwnd_cnt += 1 }`.
/// The ACK that adds a packet is not counted, so growth is +1 packet per
/// `w + 1` ACKs (the modern form, since the stretch-ACK rework of 3.19, is
/// +1 per `w`). `acked` counts the ACK `acked` times (1 with per-ACK
/// counting, as those kernels had).
pub fn additive_increase_26(tcb: &mut Tcb, w: f64, acked: u32) {
    let w = (w.max(1.0)) as u32;
    for _ in 0..acked {
        if tcb.cwnd_cnt >= w {
            if tcb.cwnd < tcb.cwnd_clamp {
                tcb.cwnd += 1.0;
            }
            tcb.cwnd_cnt = 0;
        } else {
            tcb.cwnd_cnt += 1;
        }
    }
}

/// Linux's packets-per-ACK estimate of BIC and of CUBIC up to 2.6.25
/// (`delayed_ack`, fixed point ×16 = `1 << ACK_RATIO_SHIFT`): an EWMA with
/// gain 1/16 in the kernel's integer form, `delayed_ack += acked -
/// delayed_ack / 16`, fed in the Open state only, starting at 2 packets per
/// ACK. [`AckRatio::compensate`] divides an ACK count by it so that per-ACK
/// counting with delayed ACKs grows at the per-packet rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckRatio(u32);

impl AckRatio {
    /// Fixed-point shift (Linux `ACK_RATIO_SHIFT`).
    pub const SHIFT: u32 = 4;

    /// Two packets per ACK (Linux `bictcp_reset`).
    pub fn new() -> Self {
        AckRatio(2 << Self::SHIFT)
    }

    /// The estimate, packets per ACK ×16.
    pub fn scaled(self) -> u32 {
        self.0
    }

    /// One ACK that acked `acked` packets (call in the Open state only).
    pub fn sample(&mut self, acked: u32) {
        self.0 = (self.0 + acked).saturating_sub(self.0 >> Self::SHIFT);
    }

    /// `cnt × 16 / delayed_ack` (integer), the ACKs per +1 packet.
    pub fn compensate(self, cnt: u32) -> u32 {
        ((u64::from(cnt) << Self::SHIFT) / u64::from(self.0.max(1))) as u32
    }
}

impl Default for AckRatio {
    fn default() -> Self {
        Self::new()
    }
}

/// `floor(x * f)` without the binary-rounding trap of `f64` fractions:
/// `0.7 * 90` is `62.99999999999999` in binary floating point, so a plain
/// `floor` would give 62 where the rule means 63. A product within a relative
/// 1e-12 of an integer is taken as that integer. Used for the multiplicative
/// decreases `floor(cwnd * beta)` of the Linux-form algorithms.
pub fn floor_product(x: f64, f: f64) -> f64 {
    let y = x * f;
    let r = y.round();
    if (y - r).abs() <= 1e-12 * y.abs().max(1.0) {
        r
    } else {
        y.floor()
    }
}

/// Reno's slow-start threshold after a loss: `max(floor(cwnd * beta), 2)`
/// (Linux `tcp_reno_ssthresh` with beta = 1/2).
pub fn reno_ssthresh(tcb: &Tcb, beta: f64) -> f64 {
    (tcb.cwnd * beta).floor().max(2.0)
}

/// The HighSpeed TCP response curve of RFC 3649 (section 5), as
/// continuous formulas (the ns-2 form; Linux uses a 72-row table derived from
/// them, which differs from these by at most 1 in `a(w)`).
///
/// Windows are in packets, loss rates are per packet. Below or at
/// `low_window` the curve is standard TCP: `a = 1`, `b = 1/2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hstcp {
    /// Low_Window: largest window (packets) with standard-TCP behaviour (RFC 38).
    pub low_window: f64,
    /// High_Window: window (packets) reached at loss rate `high_p` (RFC 83000).
    pub high_window: f64,
    /// Low_P: loss rate of standard TCP at `low_window` (RFC 1e-3).
    pub low_p: f64,
    /// High_P: loss rate that sustains `high_window` (RFC 1e-7).
    pub high_p: f64,
    /// High_Decrease: decrease factor `b` at `high_window` (RFC 0.1).
    pub high_decrease: f64,
}

impl Hstcp {
    /// The RFC 3649 section 5 parameters.
    pub const RFC3649: Hstcp = Hstcp {
        low_window: 38.0,
        high_window: 83_000.0,
        low_p: 1e-3,
        high_p: 1e-7,
        high_decrease: 0.1,
    };

    /// Position of `w` between Low_Window and High_Window on a log scale
    /// (0 at `low_window`, 1 at `high_window`).
    fn log_position(&self, w: f64) -> f64 {
        (w.ln() - self.low_window.ln()) / (self.high_window.ln() - self.low_window.ln())
    }

    /// `p(w)`: the loss rate at which HighSpeed TCP holds window `w` (RFC 3649
    /// section 5: log-linear between (Low_W, Low_P) and (High_W, High_P);
    /// about `0.078 / w^1.2`).
    pub fn p(&self, w: f64) -> f64 {
        (self.low_p.ln() + self.log_position(w) * (self.high_p.ln() - self.low_p.ln())).exp()
    }
}

/// HighSpeed decrease factor `b(w)` (RFC 3649 section 5): the fraction of
/// the window removed on a loss, `1/2` up to `low_window`, then falling
/// log-linearly to `high_decrease` at `high_window`.
pub fn hstcp_b(w: f64, hs: &Hstcp) -> f64 {
    if w <= hs.low_window {
        0.5
    } else {
        0.5 + (hs.high_decrease - 0.5) * hs.log_position(w)
    }
}

/// HighSpeed increase `a(w)` in packets per RTT (RFC 3649 section 5):
/// `w^2 * p(w) * 2 b(w) / (2 - b(w))`, and 1 up to `low_window`.
pub fn hstcp_a(w: f64, hs: &Hstcp) -> f64 {
    if w <= hs.low_window {
        1.0
    } else {
        let b = hstcp_b(w, hs);
        w * w * hs.p(w) * 2.0 * b / (2.0 - b)
    }
}

/// Vegas-style RTT bookkeeping for algorithms that decide once per RTT
/// (Linux `tcp_vegas.c` state: Vegas, YeAH, Compound and Fusion).
///
/// `base_rtt` is the smallest sample seen (a [`MinRtt`]: never aged, as in
/// Linux, unless built with [`RttRound::new`] and a maximum age);
/// `min_rtt` and `cnt_rtt` cover the current round, which ends with the
/// first ACK beyond `beg_snd_nxt` (the `snd_nxt` recorded at round start).
/// Per-RTT decisions run only while `enabled`: the round restarts on entering
/// Open and stops in any other state, because RTT samples during recovery
/// and after an RTO are ambiguous (Linux `tcp_vegas_state` in
/// `net/ipv4/tcp_vegas.c`).
#[derive(Clone, Debug)]
pub struct RttRound {
    /// Smallest RTT sample of the connection (propagation delay estimate).
    base_rtt: MinRtt,
    /// Smallest RTT sample in the current round.
    pub min_rtt: Option<Time>,
    /// Number of RTT samples in the current round.
    pub cnt_rtt: u32,
    /// The round ends with the first ACK beyond this sequence number.
    pub beg_snd_nxt: u64,
    /// Whether per-RTT decisions are made (Open state).
    pub enabled: bool,
}

impl Default for RttRound {
    /// A round whose base RTT never ages (Linux).
    fn default() -> Self {
        RttRound::new(Time::ZERO)
    }
}

impl RttRound {
    /// A round tracker whose base RTT ages after `base_max_age` without
    /// confirmation (zero: never, as in Linux; see [`MinRtt`]).
    pub fn new(base_max_age: Time) -> Self {
        RttRound {
            base_rtt: MinRtt::new(base_max_age),
            min_rtt: None,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            enabled: false,
        }
    }

    /// The connection's base RTT, if any sample was taken.
    pub fn base_rtt(&self) -> Option<Time> {
        self.base_rtt.get()
    }

    /// Forgets the base RTT: the next sample starts a new one.
    pub fn reset_base(&mut self) {
        self.base_rtt.reset();
    }

    /// Records one RTT sample taken at time `now`.
    pub fn on_sample(&mut self, now: Time, rtt: Time) {
        self.base_rtt.update(now, rtt);
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.cnt_rtt += 1;
    }

    /// Starts a fresh round at the current `snd_nxt` and enables decisions
    /// (Linux `vegas_enable`): the samples of the round so far are dropped.
    pub fn enable(&mut self, tcb: &Tcb) {
        self.enabled = true;
        self.next_round(tcb);
    }

    /// Follows the sender's state: enabled in Open, paused otherwise.
    pub fn set_state(&mut self, tcb: &Tcb, new_state: CaState) {
        if new_state == CaState::Open {
            self.enable(tcb);
        } else {
            self.enabled = false;
        }
    }

    /// True when decisions are enabled and `ack_seq` is beyond the round's end.
    pub fn round_ended(&self, ack_seq: u64) -> bool {
        self.enabled && ack_seq > self.beg_snd_nxt
    }

    /// Begins the next round: ends at the current `snd_nxt`, no samples yet.
    pub fn next_round(&mut self, tcb: &Tcb) {
        self.beg_snd_nxt = tcb.snd_nxt;
        self.min_rtt = None;
        self.cnt_rtt = 0;
    }

    /// The round's minimum RTT and the base RTT, if the round has at least
    /// `min_samples` samples (Linux Vegas/YeAH/CTCP require 3: fewer means
    /// only delayed ACKs were seen).
    pub fn sampled(&self, min_samples: u32) -> Option<(Time, Time)> {
        match (self.min_rtt, self.base_rtt.get()) {
            (Some(rtt), Some(base)) if self.cnt_rtt >= min_samples && rtt.ps() > 0 => {
                Some((rtt, base))
            }
            _ => None,
        }
    }
}

/// Running minimum of RTT samples: the baseRTT / RTTmin estimators of the
/// delay-based algorithms (Linux `tcp_vegas.c` `baseRTT`, `tcp_illinois.c`
/// `base_rtt`, ...).
///
/// Linux never ages these minima (a route change that lengthens the path
/// leaves them too small forever); that is the behaviour with `max_age =
/// Time::ZERO`. With a non-zero `max_age`, a minimum that has not been
/// confirmed (matched or undercut by a sample) for longer than `max_age` is
/// replaced by the next sample, after which the minimum re-forms from the
/// samples that follow.
#[derive(Clone, Debug)]
pub struct MinRtt {
    min: Option<Time>,
    confirmed_at: Time,
    max_age: Time,
}

impl MinRtt {
    /// An empty filter; `max_age` zero means never aged.
    pub fn new(max_age: Time) -> Self {
        MinRtt {
            min: None,
            confirmed_at: Time::ZERO,
            max_age,
        }
    }

    /// Takes the RTT sample `rtt` observed at time `now`.
    pub fn update(&mut self, now: Time, rtt: Time) {
        let expired =
            self.max_age > Time::ZERO && now.saturating_sub(self.confirmed_at) > self.max_age;
        if expired || !matches!(self.min, Some(m) if rtt > m) {
            self.min = Some(rtt);
            self.confirmed_at = now;
        }
    }

    /// The current minimum, if any sample was taken since creation or reset.
    pub fn get(&self) -> Option<Time> {
        self.min
    }

    /// Forgets the minimum: the next sample starts a new one.
    pub fn reset(&mut self) {
        self.min = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UNLIMITED;

    fn tcb(cwnd: f64, ssthresh: f64) -> Tcb {
        Tcb::new(cwnd, ssthresh, 1448)
    }

    #[test]
    fn additive_increase_26_counts_the_growing_ack_out() {
        // Linux 2.6 bictcp_cong_avoid: w = 4 adds a packet on the 5th ACK.
        let mut t = tcb(10.0, 2.0);
        for _ in 0..4 {
            additive_increase_26(&mut t, 4.0, 1);
        }
        assert_eq!((t.cwnd, t.cwnd_cnt), (10.0, 4));
        additive_increase_26(&mut t, 4.0, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt), (11.0, 0));
        // Today's form adds it on the 4th.
        let mut m = tcb(10.0, 2.0);
        for _ in 0..4 {
            additive_increase(&mut m, GrowthMode::Linux, 4.0, 1);
        }
        assert_eq!(m.cwnd, 11.0);
    }

    #[test]
    fn ack_ratio_estimate_in_the_kernels_integer_form() {
        // delayed_ack += acked - delayed_ack >> 4, from 32 (2 per ACK).
        let mut r = AckRatio::new();
        assert_eq!(r.scaled(), 32);
        r.sample(2);
        assert_eq!(r.scaled(), 32);
        r.sample(1);
        assert_eq!(r.scaled(), 31);
        r.sample(1);
        assert_eq!(r.scaled(), 31);
        // cnt 16 / delayed_ack: 20 -> 10 at 32.
        assert_eq!(AckRatio::new().compensate(20), 10);
    }

    #[test]
    fn slow_start_adds_acked_up_to_ssthresh_and_returns_leftover() {
        // modern Linux tcp_slow_start (tcp_cong.c): cwnd <- min(cwnd + acked,
        // ssthresh), leftover to CA.
        let mut t = tcb(10.0, 14.0);
        assert_eq!(slow_start(&mut t, 3), 0);
        assert_eq!(t.cwnd, 13.0);
        assert_eq!(slow_start(&mut t, 4), 3);
        assert_eq!(t.cwnd, 14.0);
    }

    #[test]
    fn limited_slow_start_follows_rfc3742_k() {
        // RFC 3742 section 2: above max_ssthresh = 100, K = floor(cwnd/50),
        // +1/K per packet. From 101: K = 2 for 98 packets (+49 -> 150), then
        // K = 3 for the next 3 packets (+1): 101 packets acked -> cwnd 151.
        let mut t = tcb(101.0, UNLIMITED);
        t.max_ssthresh = 100;
        for _ in 0..101 {
            assert_eq!(slow_start(&mut t, 1), 0);
        }
        assert_eq!(t.cwnd, 151.0);
        assert_eq!(t.cwnd_cnt, 0);
        // At exactly max_ssthresh growth is still exponential (LSS is for cwnd > max).
        let mut t = tcb(100.0, UNLIMITED);
        t.max_ssthresh = 100;
        slow_start(&mut t, 1);
        assert_eq!(t.cwnd, 101.0);
    }

    #[test]
    fn below_max_ssthresh_slow_start_is_exponential() {
        let mut t = tcb(10.0, UNLIMITED);
        t.max_ssthresh = 100;
        assert_eq!(slow_start(&mut t, 10), 0);
        assert_eq!(t.cwnd, 20.0);
    }

    #[test]
    fn additive_increase_linux_one_per_w() {
        // Linux tcp_cong_avoid_ai: exactly one packet per w acked.
        let mut t = tcb(10.0, 5.0);
        for _ in 0..9 {
            additive_increase(&mut t, GrowthMode::Linux, 10.0, 1);
        }
        assert_eq!(t.cwnd, 10.0);
        additive_increase(&mut t, GrowthMode::Linux, 10.0, 1);
        assert_eq!(t.cwnd, 11.0);
        assert_eq!(t.cwnd_cnt, 0);
        // Several increments in one call: 25 acked at w = 10 -> +2, credit 5.
        additive_increase(&mut t, GrowthMode::Linux, 10.0, 25);
        assert_eq!(t.cwnd, 13.0);
        assert_eq!(t.cwnd_cnt, 5);
        // Credit from a larger w converts first (tcp_cong_avoid_ai's first
        // test, cwnd_cnt >= w).
        t.cwnd_cnt = 7;
        additive_increase(&mut t, GrowthMode::Linux, 4.0, 1);
        assert_eq!(t.cwnd, 14.0);
        assert_eq!(t.cwnd_cnt, 1);
    }

    #[test]
    fn additive_increase_float() {
        let mut t = tcb(10.0, 5.0);
        additive_increase(&mut t, GrowthMode::Float, 10.0, 5);
        assert!((t.cwnd - 10.5).abs() < 1e-12);
    }

    #[test]
    fn floor_product_is_exact_on_integral_products() {
        // 0.7 * 90 is 62.999... in f64; the decrease rule means floor(63.0) = 63.
        let beta = std::hint::black_box(0.7_f64);
        assert_eq!((90.0 * beta).floor(), 62.0);
        assert_eq!(floor_product(90.0, beta), 63.0);
        assert_eq!(floor_product(340.0, beta), 238.0);
        assert_eq!(floor_product(517.0, 0.7), 361.0);
        assert_eq!(floor_product(100.0, 0.8), 80.0);
        assert_eq!(floor_product(99.0, 0.8), 79.0);
        assert_eq!(floor_product(1e6 + 1.0, 0.125), 125_000.0);
    }

    #[test]
    fn reno_ssthresh_halves_with_floor_two() {
        assert_eq!(reno_ssthresh(&tcb(101.0, 1.0), 0.5), 50.0);
        assert_eq!(reno_ssthresh(&tcb(3.0, 1.0), 0.5), 2.0);
    }
    #[test]
    fn hstcp_curve_matches_rfc3649_anchor_points() {
        // RFC 3649 section 5: a(38) = 1, b(38) = 0.5, a(83000) ~ 72.5,
        // b(83000) = 0.1, p(w) ~ 0.078 / w^1.2.
        let hs = Hstcp::RFC3649;
        assert_eq!(hstcp_a(38.0, &hs), 1.0);
        assert_eq!(hstcp_b(38.0, &hs), 0.5);
        assert!((hstcp_b(83_000.0, &hs) - 0.1).abs() < 1e-12);
        assert!((hstcp_a(83_000.0, &hs) - 72.5).abs() < 0.05);
        assert!((hs.p(83_000.0) - 1e-7).abs() < 1e-18);
        for w in [100.0, 1_000.0, 10_000.0] {
            let approx = 0.078 / f64::powf(w, 1.2);
            assert!((hs.p(w) / approx - 1.0).abs() < 0.05, "p({w})");
        }
        // b falls and a rises with w (RFC 3649 section 5).
        assert!(hstcp_b(1_000.0, &hs) < hstcp_b(100.0, &hs));
        assert!(hstcp_a(1_000.0, &hs) > hstcp_a(100.0, &hs));
    }

    #[test]
    fn rtt_round_tracks_base_and_round_minimum() {
        // Linux tcp_vegas.c: baseRTT = min ever, minRTT/cntRTT per round.
        let mut t = tcb(10.0, 5.0);
        let mut r = RttRound::default();
        r.enable(&t);
        r.on_sample(t.now, Time::from_ms(120));
        r.on_sample(t.now, Time::from_ms(110));
        assert_eq!(r.sampled(3), None);
        r.on_sample(t.now, Time::from_ms(130));
        assert_eq!(r.sampled(3), Some((Time::from_ms(110), Time::from_ms(110))));
        t.snd_nxt = 20;
        assert!(r.round_ended(1));
        r.next_round(&t);
        assert!(!r.round_ended(20) && r.round_ended(21));
        assert_eq!(r.cnt_rtt, 0);
        r.on_sample(t.now, Time::from_ms(150));
        assert_eq!(r.min_rtt, Some(Time::from_ms(150)));
        assert_eq!(r.base_rtt(), Some(Time::from_ms(110)));
        // Outside Open no round ends (Linux tcp_vegas_state); entering Open
        // restarts it.
        r.set_state(&t, CaState::Recovery);
        assert!(!r.round_ended(100));
        t.snd_nxt = 40;
        r.set_state(&t, CaState::Open);
        assert!(!r.round_ended(40) && r.round_ended(41));
        assert_eq!(r.cnt_rtt, 0);
    }

    #[test]
    fn min_rtt_never_ages_by_default() {
        // Linux tcp_vegas.c: baseRTT is the minimum over the whole connection.
        let mut m = MinRtt::new(Time::ZERO);
        assert_eq!(m.get(), None);
        m.update(Time::from_secs(0), Time::from_ms(100));
        m.update(Time::from_secs(1), Time::from_ms(120));
        assert_eq!(m.get(), Some(Time::from_ms(100)));
        m.update(Time::from_secs(1000), Time::from_ms(150));
        assert_eq!(m.get(), Some(Time::from_ms(100)));
        m.update(Time::from_secs(1001), Time::from_ms(90));
        assert_eq!(m.get(), Some(Time::from_ms(90)));
        m.reset();
        m.update(Time::from_secs(1002), Time::from_ms(200));
        assert_eq!(m.get(), Some(Time::from_ms(200)));
    }

    #[test]
    fn min_rtt_with_aging_follows_a_longer_path() {
        // tcpeval's option, not Linux (docs/decisions.md): an unconfirmed
        // minimum older than max_age gives way to the next sample; later
        // smaller samples undercut it.
        let mut m = MinRtt::new(Time::from_secs(10));
        m.update(Time::from_secs(0), Time::from_ms(100));
        m.update(Time::from_secs(10), Time::from_ms(150));
        assert_eq!(m.get(), Some(Time::from_ms(100)), "exactly max_age: kept");
        m.update(Time::from_secs(11), Time::from_ms(150));
        assert_eq!(m.get(), Some(Time::from_ms(150)));
        m.update(Time::from_secs(12), Time::from_ms(140));
        assert_eq!(m.get(), Some(Time::from_ms(140)));
        // A sample equal to the minimum confirms it (no expiry at 21 s).
        m.update(Time::from_secs(20), Time::from_ms(140));
        m.update(Time::from_secs(29), Time::from_ms(160));
        assert_eq!(m.get(), Some(Time::from_ms(140)));
    }
}
