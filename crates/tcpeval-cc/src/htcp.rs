//! H-TCP (D. Leith, R. Shorten, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004, and "H-TCP: TCP congestion control for high
//! bandwidth-delay product paths", IETF draft 2005; Linux
//! `net/ipv4/tcp_htcp.c`).
//!
//! The increase grows with the time `Δ` since the last congestion event:
//! per packet `cwnd += alpha / cwnd` with
//!
//! * `α_H(Δ) = 1` for `Δ <= Δ_L`, else `1 + 10 (Δ - Δ_L) + ((Δ - Δ_L)/2)^2`
//!   (`alpha_linear` = 10 /s, `alpha_quadratic` = 1/4 /s², `Δ_L` = 1 s);
//! * RTT scaling (default on): `α_H ← max(1, α_H · m)`, `m = minRTT / 100 ms`
//!   clamped to [0.1, 2];
//! * `alpha = 2 (1 - beta) α_H` (1 if that is 0).
//!
//! `growth = "linux"` (default) keeps Linux's integer window: a packet is
//! added once `cwnd_cnt · alpha >= cwnd`, and alpha is recomputed then;
//! `growth = "float"` adds `alpha / cwnd` per packet with alpha recomputed
//! on every ACK (ns-2 style float growth).
//!
//! With `integer_alpha` (default, Linux) `α_H` is floored before and after
//! the RTT scaling, as the kernel's integer arithmetic does (Δ = 2 s gives
//! 11, not 11.25). The backoff on a loss is adaptive:
//!
//! 1. bandwidth switch (default on): if the largest throughput estimate of
//!    the last epoch `maxB` moved by more than ±20% from the previous epoch's,
//!    `beta = beta_min` and the adaptive mode is suspended for one epoch;
//! 2. otherwise, in adaptive mode and with `minRTT > 10 ms`,
//!    `beta = minRTT / maxRTT` clamped to [`beta_min`, `beta_max`] = [0.5, 0.8];
//!    else `beta = beta_min` and adaptive mode starts at the next loss;
//! 3. alpha is recomputed and maxRTT ages: `maxRTT = minRTT + 0.95 (maxRTT - minRTT)`;
//! 4. `ssthresh = max(floor(beta cwnd), 2)`.
//!
//! RTT bookkeeping: minRTT is the minimum of all samples (never aged);
//! maxRTT is raised only in the Open state and only by samples at most 20 ms
//! above it (spike filter). Throughput: once at least a minRTT and
//! `cwnd - max(floor(alpha), 1)` packets have passed (Open/Disorder only), a
//! sample `packets / elapsed` resets `Bi = maxB` within 3 minRTTs of the last
//! congestion event, else `Bi = (3 Bi + sample)/4`, `maxB = max(maxB, Bi)`.
//!
//! Congestion events: `last_cong` is set to now when the sender enters CWR,
//! Recovery or Loss, and again when it returns to Open (Linux `htcp_state`:
//! the kernel's `last_cong` is "time since last congestion event end", so Δ
//! counts from the end of recovery; not from its start).
//! An undo restores `last_cong`, maxRTT and the previous epoch's maxB.
//!
//! Linux details kept: the congestion-avoidance credit is the packet count
//! of the ACK as seen by `pkts_acked` (H-TCP's own delayed-ACK compensation,
//! present since 2.6.2x, so per-ACK counting by the sender does not slow it;
//! `delack_compensation = false` uses the sender's `acked` instead); the ACK
//! that triggers an increase adds no credit; packets acked beyond ssthresh
//! at the end of slow start are not carried into congestion avoidance.
//! Differences from the kernel: times are exact rather than jiffies, the
//! throughput clock starts at `init` (the kernel's starts at jiffies 0), and
//! beta is not quantised to 1/128 (the kernel's `BETA_MAX` 102/128 = 0.797;
//! set `beta_max` to 0.796875 to match it bit for bit).
//!
//! Sources of the defaults (all read from `tcp_htcp.c`): Δ_L = 1 s
//! (`HZ`), the α_H coefficients, `BETA_MIN` 1/2, `BETA_MAX` 0.8, the 20%
//! throughput band (`between(5 maxB, 4 old_maxB, 6 old_maxB)`), RTT scaling
//! reference 100 ms with the ratio clamped to [0.5, 10] (i.e. `m` in
//! [0.1, 2]), the 10 ms adaptive-mode floor, the 20 ms spike filter, the
//! 95/100 maxRTT aging and the 3-minRTT throughput reset; both switches on.
//! ns-3 has no clamp and no RTT scaling; FreeBSD defaults both switches off.
//!
//! Consequence of the spike filter worth knowing (see the tests): when a
//! backoff leaves more than 20 ms of queue, maxRTT never learns the queue,
//! stays at minRTT, and the backoff is the gentlest, `beta_max`.

use crate::common::{floor_product, slow_start, GrowthMode};
use crate::params::params;
use crate::{AckInfo, AckSample, CaState, CongestionControl, NamedAlgorithm, Tcb, Time};

/// The throughput estimate's EWMA, `Bi = (3 Bi + sample) / 4` (Linux
/// `measure_achieved_throughput` in `tcp_htcp.c`): weight of the old value...
const BI_EWMA_OLD_WEIGHT: f64 = 3.0;
/// ... and the denominator.
const BI_EWMA_DENOMINATOR: f64 = 4.0;

params! {
    /// H-TCP's parameters.
    pub struct HtcpParams for |p| {
        delta_l_s: f64 = 1.0, closed(0.0, 1e6),
            "Δ_L, s: Reno-like increase for this long after a congestion event (1)";
        alpha_linear: f64 = 10.0, closed(0.0, 1e6),
            "α_H(Δ) linear coefficient, 1/s: 1 + a (Δ-Δ_L) + q (Δ-Δ_L)^2 (10)";
        alpha_quadratic: f64 = 0.25, closed(0.0, 1e6),
            "α_H(Δ) quadratic coefficient, 1/s^2 (0.25)";
        integer_alpha: bool = true, unchecked(),
            "floor α_H before and after RTT scaling as Linux does (true)";
        beta_min: f64 = 0.5, open_low(0.0, 1.0),
            "smallest backoff factor, fraction of cwnd kept (0.5)";
        beta_max: f64 = 0.8, closed(p.beta_min, 1.0),
            "largest backoff factor (0.8; Linux holds 102/128)";
        use_bandwidth_switch: bool = true, unchecked(),
            "backoff beta_min when the epoch throughput changed (Linux on)";
        throughput_ratio: f64 = 0.2, closed(0.0, 1e6),
            "relative throughput change that trips the bandwidth switch (0.2)";
        use_rtt_scaling: bool = true, unchecked(),
            "scale α_H by minRTT / rtt_ref_s (Linux on)";
        rtt_ref_s: f64 = 0.1, open_low(0.0, 1e6),
            "reference RTT of the RTT scaling, s (0.1)";
        rtt_scale_min: f64 = 0.1, open_low(0.0, 1e6),
            "lower clamp of the RTT scaling factor (0.1)";
        rtt_scale_max: f64 = 2.0, closed(p.rtt_scale_min, 1e6),
            "upper clamp of the RTT scaling factor (2)";
        adaptive_min_rtt_ms: f64 = 10.0, closed(0.0, 1e9),
            "adaptive backoff needs minRTT above this, ms (10)";
        max_rtt_spike_ms: f64 = 20.0, closed(0.0, 1e9),
            "maxRTT ignores samples more than this above it, ms (20)";
        max_rtt_aging: f64 = 0.95, closed(0.0, 1.0),
            "maxRTT = minRTT + aging (maxRTT - minRTT) at each backoff (0.95)";
        bw_reset_rtts: u32 = 3, closed(0.0, 1e6),
            "throughput estimate restarts within this many minRTTs of a congestion event (3)";
        delack_compensation: bool = true, unchecked(),
            "CA credit = packets per ACK from pkts_acked as Linux (true) or the sender's acked";
        growth: GrowthMode = GrowthMode::Linux, unchecked(),
            "window arithmetic: \"linux\" (integer + counter, alpha recomputed at each +1) or \"float\" (alpha/cwnd per packet)";
    }
}

/// What an undo restores (Linux `undo_last_cong`, `undo_maxRTT`, `undo_old_maxB`).
#[derive(Clone, Copy, Debug)]
struct Undo {
    last_cong: Time,
    max_rtt: Time,
    old_max_b: f64,
}

/// Per-flow H-TCP state.
#[derive(Clone, Debug)]
pub struct Htcp {
    params: HtcpParams,
    /// Increase per RTT, packets.
    alpha: f64,
    /// Fraction of cwnd kept at the next loss.
    beta: f64,
    /// Adaptive backoff allowed (set after one epoch of stable throughput).
    modeswitch: bool,
    /// Packets covered by the current ACK, from `pkts_acked` (Open state).
    pkts_acked: u32,
    /// Minimum RTT sample (`None` before the first sample).
    min_rtt: Option<Time>,
    /// Maximum RTT (queueing included), spike-filtered; zero before Open samples.
    max_rtt: Time,
    /// Time of the last congestion event (entry into and return from it).
    last_cong: Time,
    /// State saved when a congestion event began, for undo.
    undo: Option<Undo>,
    /// Packets delivered since `lasttime` (throughput estimator).
    packetcount: u32,
    /// Start of the current throughput sample.
    lasttime: Time,
    /// Smoothed throughput, packets/s.
    bi: f64,
    /// Largest `bi` of this epoch, packets/s.
    max_b: f64,
    /// `max_b` of the previous epoch, packets/s.
    old_max_b: f64,
}

impl NamedAlgorithm for Htcp {
    const NAME: &'static str = "htcp";
    const SUMMARY: &'static str =
        "H-TCP: increase grows with time since the last loss; RTT-adaptive backoff in [0.5, 0.8]";
    type Params = HtcpParams;
    fn new(params: HtcpParams) -> Self {
        Htcp {
            beta: params.beta_min,
            params,
            alpha: 1.0,
            modeswitch: false,
            pkts_acked: 1,
            min_rtt: None,
            max_rtt: Time::ZERO,
            last_cong: Time::ZERO,
            undo: None,
            packetcount: 0,
            lasttime: Time::ZERO,
            bi: 0.0,
            max_b: 0.0,
            old_max_b: 0.0,
        }
    }
}

impl Htcp {
    /// α_H at `now` (before the `2 (1 - beta)` factor), RTT scaling included.
    fn alpha_h(&self, now: Time) -> f64 {
        let p = &self.params;
        let delta = now.saturating_sub(self.last_cong).secs();
        let mut factor = 1.0;
        if delta > p.delta_l_s {
            let d = delta - p.delta_l_s;
            factor = 1.0 + p.alpha_linear * d + p.alpha_quadratic * d * d;
            if p.integer_alpha {
                factor = factor.floor();
            }
        }
        if let (true, Some(min_rtt)) = (p.use_rtt_scaling, self.min_rtt) {
            let m = (min_rtt.secs() / p.rtt_ref_s).clamp(p.rtt_scale_min, p.rtt_scale_max);
            factor *= m;
            if p.integer_alpha {
                factor = factor.floor();
            }
            factor = factor.max(1.0);
        }
        factor
    }

    fn alpha_update(&mut self, now: Time) {
        let alpha = 2.0 * self.alpha_h(now) * (1.0 - self.beta);
        self.alpha = if alpha > 0.0 { alpha } else { 1.0 };
    }

    fn beta_update(&mut self) {
        let p = &self.params;
        if p.use_bandwidth_switch {
            let (max_b, old) = (self.max_b, self.old_max_b);
            self.old_max_b = max_b;
            let r = p.throughput_ratio;
            if max_b < (1.0 - r) * old || max_b > (1.0 + r) * old {
                self.beta = p.beta_min;
                self.modeswitch = false;
                return;
            }
        }
        let adaptive_floor = Time::from_secs_f64(p.adaptive_min_rtt_ms / 1e3);
        match self.min_rtt {
            Some(min) if self.modeswitch && min > adaptive_floor && self.max_rtt > Time::ZERO => {
                self.beta = (min.secs() / self.max_rtt.secs()).clamp(p.beta_min, p.beta_max);
            }
            _ => {
                self.beta = p.beta_min;
                self.modeswitch = true;
            }
        }
    }

    fn measure_rtt(&mut self, rtt: Time, state: CaState) {
        let min = self.min_rtt.map_or(rtt, |m| m.min(rtt));
        self.min_rtt = Some(min);
        if state == CaState::Open {
            self.max_rtt = self.max_rtt.max(min);
            let spike = Time::from_secs_f64(self.params.max_rtt_spike_ms / 1e3);
            if rtt > self.max_rtt && rtt <= self.max_rtt + spike {
                self.max_rtt = rtt;
            }
        }
    }

    fn measure_throughput(&mut self, tcb: &Tcb, acked: u32) {
        if !matches!(tcb.ca_state, CaState::Open | CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = tcb.now;
            return;
        }
        self.packetcount += acked;
        let Some(min_rtt) = self.min_rtt else {
            return;
        };
        // Linux compares against the unsigned `cwnd - max(floor(alpha), 1)`,
        // which never passes when alpha exceeds cwnd.
        let alpha_pkts = (self.alpha.floor() as u32).max(1);
        let Some(needed) = tcb.cwnd_pkts().checked_sub(alpha_pkts) else {
            return;
        };
        let elapsed = tcb.now.saturating_sub(self.lasttime);
        if self.packetcount >= needed && elapsed >= min_rtt && elapsed > Time::ZERO {
            let sample = f64::from(self.packetcount) / elapsed.secs();
            let since_cong = tcb.now.saturating_sub(self.last_cong);
            if since_cong.ps() / min_rtt.ps() <= u64::from(self.params.bw_reset_rtts) {
                self.max_b = sample;
                self.bi = sample;
            } else {
                self.bi = (BI_EWMA_OLD_WEIGHT * self.bi + sample) / BI_EWMA_DENOMINATOR;
                self.max_b = self.max_b.max(self.bi);
            }
            self.packetcount = 0;
            self.lasttime = tcb.now;
        }
    }
}

impl CongestionControl for Htcp {
    /// The 2.6 module set no `min_cwnd`, so rate halving stopped at
    /// ssthresh (Linux 2.6 `tcp_cwnd_min`).
    fn min_cwnd(&self, tcb: &Tcb) -> f64 {
        tcb.ssthresh
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.last_cong = tcb.now;
        self.lasttime = tcb.now;
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        self.beta_update();
        self.alpha_update(tcb.now);
        if let Some(min) = self.min_rtt {
            if self.max_rtt > min {
                let excess = (self.max_rtt - min).secs() * self.params.max_rtt_aging;
                self.max_rtt = min + Time::from_secs_f64(excess);
            }
        }
        floor_product(tcb.cwnd, self.beta).max(2.0)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if tcb.in_slow_start() {
            slow_start(tcb, ack.acked);
            return;
        }
        let credit = if self.params.delack_compensation {
            self.pkts_acked
        } else {
            ack.acked
        };
        if self.params.growth == GrowthMode::Float {
            self.alpha_update(tcb.now);
            tcb.cwnd = (tcb.cwnd + self.alpha * f64::from(credit) / tcb.cwnd).min(tcb.cwnd_clamp);
            self.pkts_acked = 1;
            return;
        }
        if (f64::from(tcb.cwnd_cnt) * self.alpha).floor() >= tcb.cwnd {
            if tcb.cwnd < tcb.cwnd_clamp {
                tcb.cwnd += 1.0;
            }
            tcb.cwnd_cnt = 0;
            self.alpha_update(tcb.now);
        } else {
            tcb.cwnd_cnt += credit;
        }
        self.pkts_acked = 1;
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        if tcb.ca_state == CaState::Open {
            self.pkts_acked = sample.acked;
        }
        if let Some(rtt) = sample.rtt.filter(|r| *r > Time::ZERO) {
            self.measure_rtt(rtt, tcb.ca_state);
        }
        if self.params.use_bandwidth_switch {
            self.measure_throughput(tcb, sample.acked);
        }
    }

    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        match new_state {
            CaState::Open => {
                if self.undo.take().is_some() {
                    self.last_cong = tcb.now;
                }
            }
            CaState::Cwr | CaState::Recovery | CaState::Loss => {
                self.undo = Some(Undo {
                    last_cong: self.last_cong,
                    max_rtt: self.max_rtt,
                    old_max_b: self.old_max_b,
                });
                self.last_cong = tcb.now;
            }
            CaState::Disorder => {}
        }
    }

    fn undo_cwnd(&mut self, tcb: &Tcb, prior_cwnd: f64) -> f64 {
        if let Some(u) = self.undo.take() {
            self.last_cong = u.last_cong;
            self.max_rtt = u.max_rtt;
            self.old_max_b = u.old_max_b;
        }
        tcb.cwnd.max(prior_cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn htcp() -> Htcp {
        Htcp::new(HtcpParams::default())
    }

    #[test]
    fn float_growth_adds_alpha_over_cwnd_per_packet() {
        // Leith & Shorten 2004, float form: cwnd += alpha/cwnd per packet. Within
        // Delta_L of the start alpha_H = 1 and alpha = 2 (1 - 0.5) = 1: one
        // round of 100 packets adds sum 1/c, about 1 packet.
        let p = HtcpParams {
            growth: GrowthMode::Float,
            ..HtcpParams::default()
        };
        let mut h = Harness::new(Htcp::new(p), 100.0, 50.0).with_rtt(Time::from_ms(100));
        h.round();
        let expected = (0..100).fold(100.0, |c: f64, _| c + 1.0 / c);
        assert!((h.tcb.cwnd - expected).abs() < 1e-9, "{}", h.tcb.cwnd);
        // Later alpha grows with the time since the last congestion event.
        for _ in 0..30 {
            h.round();
        }
        let before = h.tcb.cwnd;
        h.round();
        assert!(h.tcb.cwnd - before > 2.0, "{}", h.tcb.cwnd - before);
    }

    /// alpha at `delta` seconds after the last congestion event, with the
    /// given minRTT and beta.
    fn alpha_at(params: HtcpParams, delta: f64, min_rtt_ms: u64, beta: f64) -> f64 {
        let mut h = Htcp::new(params);
        h.min_rtt = Some(Time::from_ms(min_rtt_ms));
        h.beta = beta;
        h.alpha_update(Time::from_secs_f64(delta));
        h.alpha
    }

    #[test]
    fn alpha_of_delta() {
        // Leith & Shorten 2004 / Linux htcp_alpha_update: α_H = 1 for Δ <= 1 s;
        // 1 + 10(Δ-1) + ((Δ-1)/2)^2 after: Δ = 2 s -> 11.25 (Linux integer 11),
        // Δ = 3 s -> 22. With beta = 1/2, alpha = 2 (1 - beta) α_H = α_H.
        // minRTT 100 ms: RTT scaling x1.
        let int = HtcpParams::default();
        let float = HtcpParams {
            integer_alpha: false,
            ..HtcpParams::default()
        };
        for (delta, int_alpha, float_alpha) in [
            (0.5, 1.0, 1.0),
            (1.0, 1.0, 1.0),
            (2.0, 11.0, 11.25),
            (3.0, 22.0, 22.0),
        ] {
            assert_eq!(
                alpha_at(int.clone(), delta, 100, 0.5),
                int_alpha,
                "Δ = {delta}"
            );
            assert_eq!(
                alpha_at(float.clone(), delta, 100, 0.5),
                float_alpha,
                "Δ = {delta}"
            );
        }
        // alpha = 2 (1 - beta) α_H: beta 0.8 at Δ = 3 s -> 0.4 * 22.
        assert!((alpha_at(int, 3.0, 100, 0.8) - 8.8).abs() < 1e-12);
    }

    #[test]
    fn rtt_scaling() {
        // Linux htcp_alpha_update (use_rtt_scaling): m = minRTT / 100 ms in
        // [0.1, 2]; Δ = 2 s: 100 ms -> 11; 20 ms -> floor(11 * 0.2) = 2; 200 ms
        // -> 22; 400 ms -> clamped x2 = 22; 5 ms -> x0.1 -> floor(1.1) = 1; at
        // Δ <= 1 s: 20 ms -> floor(0.2) -> never below 1.
        let p = HtcpParams::default();
        for (min_rtt, expected) in [(100, 11.0), (20, 2.0), (200, 22.0), (400, 22.0), (5, 1.0)] {
            assert_eq!(
                alpha_at(p.clone(), 2.0, min_rtt, 0.5),
                expected,
                "{min_rtt} ms"
            );
        }
        assert_eq!(alpha_at(p.clone(), 0.5, 20, 0.5), 1.0);
        // Float form: 11.25 * 0.2 = 2.25.
        let float = HtcpParams {
            integer_alpha: false,
            ..p.clone()
        };
        assert!((alpha_at(float, 2.0, 20, 0.5) - 2.25).abs() < 1e-12);
        // Scaling off: minRTT does not matter.
        let off = HtcpParams {
            use_rtt_scaling: false,
            ..p
        };
        assert_eq!(alpha_at(off, 2.0, 20, 0.5), 11.0);
    }

    /// An H-TCP in adaptive mode with the given RTTs and stable throughput.
    fn adaptive(min_ms: u64, max_ms: u64) -> Htcp {
        let mut h = htcp();
        h.min_rtt = Some(Time::from_ms(min_ms));
        h.max_rtt = Time::from_ms(max_ms);
        h.modeswitch = true;
        h.max_b = 1000.0;
        h.old_max_b = 1000.0;
        h
    }

    #[test]
    fn adaptive_backoff_is_min_over_max_rtt_clamped() {
        // Linux htcp_beta_update: beta = minRTT/maxRTT in [0.5, 0.8];
        // ssthresh = max(floor(beta cwnd), 2).
        let tcb = Tcb::new(1000.0, 500.0, 1448);
        for (max_ms, beta, ssthresh) in [
            (110, 0.8, 800.0), // 0.909 clamped to 0.8
            (150, 2.0 / 3.0, 666.0),
            (125, 0.8, 800.0), // exactly 0.8
            (300, 0.5, 500.0), // 0.333 clamped to 0.5
        ] {
            let mut h = adaptive(100, max_ms);
            assert_eq!(h.ssthresh(&tcb), ssthresh, "maxRTT {max_ms}");
            assert!((h.beta - beta).abs() < 1e-12);
        }
        // Step 3: maxRTT ages toward minRTT by 5% per backoff: 100 + 0.95 * 50.
        let mut h = adaptive(100, 150);
        h.ssthresh(&tcb);
        assert_eq!(h.max_rtt, Time::from_us(147_500));
        // minRTT <= 10 ms: no adaptive backoff.
        let mut h = adaptive(10, 12);
        assert_eq!(h.ssthresh(&tcb), 500.0);
        // The bandwidth switch: maxB up 30% -> beta_min, adaptive mode paused.
        let mut h = adaptive(100, 110);
        h.max_b = 1300.0;
        assert_eq!(h.ssthresh(&tcb), 500.0);
        assert!(!h.modeswitch);
        // The next epoch with stable throughput re-arms the mode at beta_min,
        // the one after backs off adaptively.
        assert_eq!(h.ssthresh(&tcb), 500.0);
        assert!(h.modeswitch);
        assert_eq!(h.ssthresh(&tcb), 800.0);
        // Within the ±20% band (maxB +15%) the adaptive backoff stays.
        let mut h = adaptive(100, 110);
        h.max_b = 1150.0;
        assert_eq!(h.ssthresh(&tcb), 800.0);
    }

    #[test]
    fn max_rtt_spike_filter_and_open_only() {
        // Linux measure_rtt: maxRTT rises only in Open and only by samples at
        // most 20 ms above it.
        let mut h = htcp();
        h.measure_rtt(Time::from_ms(100), CaState::Open);
        assert_eq!(h.max_rtt, Time::from_ms(100));
        h.measure_rtt(Time::from_ms(115), CaState::Open);
        assert_eq!(h.max_rtt, Time::from_ms(115));
        h.measure_rtt(Time::from_ms(140), CaState::Open);
        assert_eq!(h.max_rtt, Time::from_ms(115));
        h.measure_rtt(Time::from_ms(135), CaState::Open);
        assert_eq!(h.max_rtt, Time::from_ms(135));
        h.measure_rtt(Time::from_ms(150), CaState::Recovery);
        assert_eq!(h.max_rtt, Time::from_ms(135));
        h.measure_rtt(Time::from_ms(90), CaState::Recovery);
        assert_eq!(h.min_rtt, Some(Time::from_ms(90)));
    }

    #[test]
    fn reno_like_for_delta_l_then_faster() {
        // Linux htcp_alpha_update: alpha = 1 (+1/RTT) while Δ <= Δ_L = 1 s
        // after the end of recovery; at Δ = 2 s the increase is about α_H = 11
        // per RTT.
        let rtt = Time::from_ms(100);
        let mut h = Harness::new(htcp(), 1000.0, 2.0).with_rtt(rtt);
        h.round();
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, 500.0);
        let open_at = h.now();
        assert_eq!(h.cc.last_cong, open_at);
        // Rounds 1..9 end before Δ = 1 s; each needs cwnd + 1 ACKs per +1
        // (the increasing ACK adds no credit), so +1 in every round but the
        // first, which carries no credit in.
        let mut prev = h.tcb.cwnd;
        for n in 1..=9 {
            h.round();
            let inc = h.tcb.cwnd - prev;
            assert!(inc == 1.0 || (n == 1 && inc == 0.0), "round {n}: +{inc}");
            prev = h.tcb.cwnd;
        }
        while h.now() < open_at + Time::from_secs(2) {
            prev = h.tcb.cwnd;
            h.round();
        }
        let inc = h.tcb.cwnd - prev;
        assert!((10.0..=12.0).contains(&inc), "+{inc} per RTT at Δ = 2 s");
    }

    #[test]
    fn per_ack_counting_is_compensated_like_linux() {
        // Linux H-TCP takes its credit from pkts_acked: with an ACK every 2
        // packets and the sender counting per ACK it still grows ~1/RTT;
        // without the compensation it grows ~1/2 per RTT (2.6 per-ACK counting).
        let run = |comp: bool| {
            let p = HtcpParams {
                delack_compensation: comp,
                ..HtcpParams::default()
            };
            let mut h = Harness::new(Htcp::new(p), 100.0, 2.0)
                .with_rtt(Time::from_ms(10))
                .with_delayed_ack(2)
                .with_per_ack_counting();
            h.rounds(40); // 0.4 s: Δ < Δ_L throughout
            h.tcb.cwnd - 100.0
        };
        let with = run(true);
        let without = run(false);
        assert!((37.0..=40.0).contains(&with), "{with}");
        assert!((19.0..=20.0).contains(&without), "{without}");
    }

    #[test]
    fn adaptive_backoff_on_a_bottleneck() {
        // 1000 pkt/s, 100 ms: BDP 100, maxRTT = (100 + buffer) ms. Linux
        // htcp_beta_update: beta = minRTT/maxRTT clamped to [0.5, 0.8]. Buffer
        // 10 -> 0.91 -> 0.8; buffer 50 -> ~0.65 (maxRTT ages between losses);
        // buffer 100 -> 0.49 -> 0.5. The first backoffs are 0.5: the slow-start
        // overshoot gives two epochs of changing throughput (bandwidth switch),
        // then one epoch arms the adaptive mode. Buffer 200: the queue never
        // drains below 20 ms after a backoff, so the spike filter never lets
        // maxRTT above minRTT and Linux backs off by the gentlest factor, 0.8.
        for (buffer, lo, hi) in [
            (10.0, 0.8, 0.8),
            (50.0, 0.6, 0.7),
            (100.0, 0.5, 0.5),
            (200.0, 0.8, 0.8),
        ] {
            let mut h =
                Harness::new(htcp(), 10.0, 1e9).with_bottleneck(Time::from_ms(100), 1000.0, buffer);
            let mut betas = Vec::new();
            while h.losses < 8 {
                let losses = h.losses;
                h.round();
                if h.losses > losses {
                    betas.push(h.cc.beta);
                }
            }
            assert!(betas[..4].iter().all(|b| *b == 0.5), "{betas:?}");
            assert!(
                betas[4..].iter().all(|b| (lo..=hi).contains(b)),
                "{betas:?}"
            );
        }
    }

    #[test]
    fn undo_restores_the_congestion_epoch() {
        let mut h = Harness::new(htcp(), 100.0, 2.0);
        h.advance_to(Time::from_secs(5));
        let mut tcb = h.tcb.clone();
        h.cc.set_state(&mut tcb, CaState::Recovery);
        assert_eq!(h.cc.last_cong, Time::from_secs(5));
        assert_eq!(h.cc.undo_cwnd(&tcb, 120.0), 120.0);
        assert_eq!(h.cc.last_cong, Time::ZERO);
    }

    #[test]
    fn rto_restarts_slow_start_and_the_epoch() {
        let mut h = Harness::new(htcp(), 64.0, 1e9).with_rtt(Time::from_ms(100));
        h.advance_to(Time::from_secs(3));
        h.rto();
        assert_eq!(h.tcb.ssthresh, 32.0);
        assert_eq!(h.tcb.cwnd, 1.0);
        assert_eq!(h.cc.last_cong, Time::from_secs(3));
        h.rounds(5);
        assert_eq!(h.tcb.cwnd, 32.0);
    }
}
