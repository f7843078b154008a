//! FAST TCP (Jin, Wei, Low, INFOCOM 2004 and IEEE/ACM ToN 2006; the ns-2 module
//! of T. Cui and L. Andrew, CUBIN, `tcp-fast.cc` v1.1.3). There is no mainline
//! Linux FAST, so the defaults follow the ns-2 module, the form used in
//! published simulations.
//!
//! FAST keeps `alpha` packets of its own queued at the bottleneck. Per ACK it
//! keeps `baseRTT` (smallest RTT sample, never aged unless
//! `base_rtt_max_age`) and `avgRTT`, an EWMA of the samples with weight
//! `min(3/cwnd, 1/256)` (ns-2; the paper's `min(3/cwnd, 1/4)` is
//! `avg_rtt_filter = paper`). On its own timer (`timer_period()` =
//! `update_interval`, not per ACK) it updates the window:
//!
//! `w <- min{ max_growth * w, (1 - gamma) w + gamma (baseRTT/avgRTT * w_old +
//! alpha) }`, floored at `min_cwnd`, where `w_old` is the window in flight when
//! the packets now being acknowledged were sent (here: cwnd at the start of the
//! current RTT period). The fixed point keeps `alpha` packets queued: `w* =
//! alpha / (1 - baseRTT/avgRTT)`; near it the error shrinks by `1 - gamma` per
//! update (Jin, Wei, Low 2004).
//!
//! * Update period: a tick updates only if `update_interval` has passed since
//!   the last update (an MI step also counts, as in ns-2) and, with
//!   `every_other_rtt` (ns-2 >= 1.1.3 and the Caltech Linux prototype), only
//!   in every other RTT: all ticks within one RTT period update, the next RTT
//!   period is frozen, so the window is measured for a full RTT before it is
//!   changed again. RTT periods are delimited like Vegas rounds (the first ACK
//!   beyond the `snd_nxt` of the previous period start). Relative rather
//!   than absolute parity means a tick period that is a multiple of two RTTs
//!   cannot starve the updates.
//! * Hold band (ns-2): no change while the queue estimate `w_old (avgRTT -
//!   baseRTT) / avgRTT` lies in `[alpha, beta)`; with `beta = alpha` (the
//!   default, `beta: null`) the band is empty.
//! * Multiplicative increase: while `avgRTT - baseRTT < mi_threshold` every
//!   ACK adds one packet (ns-2 `fast_cc`; slow-start-like: x2 per RTT with an
//!   ACK per packet, x1.5 with delayed ACKs) and the timer updates are
//!   suspended. Before the first RTT sample FAST is in this mode.
//! * Pacing (ns-2, when `baseRTT >= pace_min_base_rtt`): an increase is not
//!   applied at the tick but spread evenly over the ACKs expected in the next
//!   `update_interval` (`acks in the last RTT period * update_interval /
//!   avgRTT`); a new update discards what is left. Decreases are immediate.
//! * Loss: `ssthresh = cwnd * loss_beta` (1/2) and the sender sets cwnd to it
//!   at the end of recovery (ns-2 halves both). RTO: the same ssthresh and
//!   `cwnd = rto_cwnd` (ns-2 `slowstart_` = 2; the generic sender's 1 is
//!   `rto_cwnd = 1`).
//! * Outside the Open state the timer updates, MI and pacing pause (RTT samples
//!   around a loss are ambiguous); in Recovery the RTT estimators also pause
//!   (ns-2 skips them in fast recovery); in the Loss state (after an RTO) cwnd
//!   grows by standard slow start up to ssthresh. Entering Open skips the RTT
//!   period whose ACKs cover packets sent before.
//! * Window arithmetic: `growth = float` (default, ns-2 `high_accuracy_cwnd_`
//!   2) keeps the fractional window; `linux` keeps it integral and carries the
//!   dropped fraction of each update until it adds up to a packet (ns-2 mode
//!   1), and paces in whole packets.
//!
//! Constants and their sources: gamma 0.5 (ns-2 constructor default and the
//! papers); the ns-2 EWMA weight `min(3/w, 1/256)` (`fast_est_update_avgrtt`);
//! MI, hold band, floor 2, pacing threshold 4 ms, halving and RTO window 2
//! (ns-2 `fast_cc`, `fast_calc_cwnd`, `dupack_action`, `timeout`); every
//! other RTT (ns-2 1.1.3 change log: "as in Linux"). Not confirmed, because
//! the module's TCL defaults were not found: `alpha` = 100 packets (the ns-2
//! binding holds it as an integer; published runs set it explicitly, e.g.
//! 100-200, and the Caltech example scripts 800-10000), `mi_threshold` =
//! 0.75 ms (recalled; the Caltech example scripts and the `fairness` study set
//! 1.5 ms explicitly) and `update_interval` = 10 ms (the base value of the
//! `fairness` study).

use crate::common::{slow_start, GrowthMode, MinRtt};
use crate::params::{check_range, params};
use crate::{AckInfo, AckSample, CaState, CongestionControl, CwndEvent, NamedAlgorithm, Tcb, Time};
use serde::{Deserialize, Serialize};

/// Cap of the avgRTT EWMA weight in the ns-2 module.
const NS2_WEIGHT_CAP: f64 = 1.0 / 256.0;
/// Cap of the avgRTT EWMA weight in the FAST papers.
const PAPER_WEIGHT_CAP: f64 = 1.0 / 4.0;

/// Which avgRTT EWMA weight FAST uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AvgRttFilter {
    /// `min(3/cwnd, 1/256)` (ns-2 module).
    #[default]
    Ns2,
    /// `min(3/cwnd, 1/4)` (Jin, Wei, Low).
    Paper,
}

params! {
    /// FAST TCP's parameters.
    pub struct FastParams for |p| {
        alpha: f64 = 100.0, closed(0.0, 1e9),
            "packets kept queued at equilibrium (ns-2 alpha_; default 100 unconfirmed)";
        beta: Option<f64> = None, with {
            if let Some(beta) = p.beta {
                check_range("beta", beta, p.alpha, 1e9)?;
            }
        },
            "upper edge of the no-update queue band, packets; null = alpha (ns-2 sets beta_ = alpha_)";
        gamma: f64 = 0.5, open_low(0.0, 1.0),
            "weight of the new target per update, (0, 1] (ns-2 and papers 0.5)";
        update_interval: f64 = 0.01, open_low(0.0, 1e3),
            "period of FAST's update timer and minimum update spacing, seconds (10 ms; unconfirmed)";
        every_other_rtt: bool = true, unchecked(),
            "update only in every other RTT period (ns-2 >= 1.1.3, Linux prototype: true)";
        mi_threshold: f64 = 0.00075, closed(0.0, 1e3),
            "queueing delay below which cwnd grows per ACK, seconds (0.00075 unconfirmed; fairness study 0.0015)";
        avg_rtt_filter: AvgRttFilter = AvgRttFilter::Ns2, unchecked(),
            "avgRTT EWMA weight: \"ns2\" min(scale/cwnd, 1/256) or \"paper\" min(scale/cwnd, 1/4)";
        avg_rtt_gain_scale: f64 = 3.0, open_low(0.0, 1e9),
            "numerator of the EWMA weight scale/cwnd (3)";
        max_growth: f64 = 2.0, closed(1.0, 1e9),
            "largest factor one update may grow cwnd by (paper 2)";
        min_cwnd: f64 = 2.0, closed(1.0, 1e9),
            "smallest window an update sets, packets (ns-2 2)";
        loss_beta: f64 = 0.5, open_low(0.0, 1.0),
            "fraction of cwnd kept after a loss, ssthresh and cwnd (ns-2 0.5)";
        rto_cwnd: f64 = 2.0, closed(1.0, 1e9),
            "cwnd after a retransmission timeout, packets (ns-2 2; standard 1)";
        pace_increases: bool = true, unchecked(),
            "spread increases over the next update interval's ACKs (ns-2 true)";
        pace_min_base_rtt: f64 = 0.004, closed(0.0, 1e3),
            "baseRTT below which increases are applied at once, seconds (ns-2 0.004)";
        base_rtt_max_age: f64 = 0.0, closed(0.0, 1e6),
            "baseRTT aging, seconds; 0 = never aged";
        growth: GrowthMode = GrowthMode::Float, unchecked(),
            "window arithmetic: \"float\" (ns-2 double) or \"linux\" (integer, fraction carried)";
    }
}

/// Per-flow FAST TCP state.
#[derive(Clone, Debug)]
pub struct Fast {
    params: FastParams,
    base_rtt: MinRtt,
    /// EWMA of the RTT samples, seconds.
    avg_rtt: Option<f64>,
    /// RTT periods seen so far.
    period: u64,
    /// The current period ends with the first ACK beyond this sequence number.
    period_end: u64,
    /// cwnd at the start of the current period (the window now being acked).
    w_old: f64,
    /// ACKs in the current period so far.
    acks_in_period: u32,
    /// ACKs in the previous period.
    acks_last_period: u32,
    /// Period of the latest update.
    burst: Option<u64>,
    /// First period in which a new run of updates may start.
    earliest: u64,
    /// Time of the latest update or MI step.
    last_update: Option<Time>,
    /// Window a paced increase is heading for, packets.
    pace_target: f64,
    /// Increase per ACK while pacing (0 = not pacing).
    pace_step: f64,
    /// Paced increase not yet applied as whole packets (`growth = linux`).
    pace_credit: f64,
    /// Fractions dropped by integer updates, carried (`growth = linux`).
    remainder: f64,
}

impl Fast {
    /// baseRTT, if a sample was taken.
    pub fn base_rtt(&self) -> Option<Time> {
        self.base_rtt.get()
    }

    /// avgRTT in seconds, if a sample was taken.
    pub fn avg_rtt(&self) -> Option<f64> {
        self.avg_rtt
    }

    /// Whether FAST is in multiplicative-increase mode (queueing delay below
    /// `mi_threshold`, or no RTT sample yet).
    pub fn in_mi_mode(&self) -> bool {
        match (self.base_rtt.get(), self.avg_rtt) {
            (Some(base), Some(avg)) => avg - base.secs() < self.params.mi_threshold,
            _ => true,
        }
    }

    fn interval(&self) -> Time {
        Time::from_secs_f64(self.params.update_interval)
    }

    /// Window updates may run in the current period.
    fn gate_open(&self) -> bool {
        self.burst == Some(self.period) || self.period >= self.earliest
    }

    /// Records an update in the current period at `now`.
    fn note_update(&mut self, now: Time) {
        self.burst = Some(self.period);
        self.earliest = if self.params.every_other_rtt {
            self.period + 2
        } else {
            self.period
        };
        self.last_update = Some(now);
    }

    /// Starts measuring afresh: the period now running covers packets sent
    /// before this moment, so no update until the next one.
    fn restart_periods(&mut self, tcb: &Tcb) {
        self.period_end = tcb.snd_nxt;
        self.burst = None;
        self.earliest = self.period + 1;
        self.pace_step = 0.0;
    }

    /// Rounds an update's target to whole packets, carrying the fraction (ns-2
    /// `high_accuracy_cwnd_` 1).
    fn integral(&mut self, target: f64) -> f64 {
        self.remainder += target - target.floor();
        let mut w = target.floor();
        if self.remainder > 1.0 {
            w += 1.0;
            self.remainder -= 1.0;
        }
        w
    }

    /// Applies one ACK's share of a paced increase: the step is the increase
    /// over the ACKs expected in `update_interval`, so it is added per ACK,
    /// whatever the ACK acknowledges (a delayed ACK counts once).
    fn pace(&mut self, tcb: &mut Tcb) {
        let add = self.pace_step;
        match self.params.growth {
            GrowthMode::Float => tcb.cwnd = (tcb.cwnd + add).min(self.pace_target),
            GrowthMode::Linux => {
                self.pace_credit += add;
                while self.pace_credit >= 1.0 && tcb.cwnd < self.pace_target {
                    tcb.cwnd += 1.0;
                    self.pace_credit -= 1.0;
                }
            }
        }
        if tcb.cwnd >= self.pace_target {
            self.pace_step = 0.0;
        }
    }
}

impl NamedAlgorithm for Fast {
    const NAME: &'static str = "fast";
    const SUMMARY: &'static str =
        "FAST TCP: delay-based, keeps alpha packets queued (ns-2 CUBIN module v1.1.3)";
    type Params = FastParams;
    fn new(params: FastParams) -> Self {
        let base_rtt = MinRtt::new(Time::from_secs_f64(params.base_rtt_max_age));
        Fast {
            params,
            base_rtt,
            avg_rtt: None,
            period: 0,
            period_end: 0,
            w_old: 0.0,
            acks_in_period: 0,
            acks_last_period: 0,
            burst: None,
            earliest: 1,
            last_update: None,
            pace_target: 0.0,
            pace_step: 0.0,
            pace_credit: 0.0,
            remainder: 0.0,
        }
    }
}

impl CongestionControl for Fast {
    fn init(&mut self, tcb: &mut Tcb) {
        self.base_rtt.reset();
        self.avg_rtt = None;
        self.period = 0;
        self.w_old = tcb.cwnd;
        self.acks_in_period = 0;
        self.acks_last_period = 0;
        self.last_update = None;
        self.pace_credit = 0.0;
        self.remainder = 0.0;
        self.restart_periods(tcb);
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        let w = tcb.cwnd * self.params.loss_beta;
        let w = match self.params.growth {
            GrowthMode::Float => w,
            GrowthMode::Linux => w.floor(),
        };
        w.max(2.0)
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        if tcb.snd_una > self.period_end {
            self.period += 1;
            self.period_end = tcb.snd_nxt;
            self.w_old = tcb.cwnd;
            self.acks_last_period = self.acks_in_period;
            self.acks_in_period = 0;
        }
        self.acks_in_period += 1;
        if matches!(tcb.ca_state, CaState::Recovery | CaState::Cwr) {
            return;
        }
        if let Some(rtt) = sample.rtt {
            self.base_rtt.update(tcb.now, rtt);
            let r = rtt.secs();
            self.avg_rtt = Some(match self.avg_rtt {
                None => r,
                Some(avg) => {
                    let cap = match self.params.avg_rtt_filter {
                        AvgRttFilter::Ns2 => NS2_WEIGHT_CAP,
                        AvgRttFilter::Paper => PAPER_WEIGHT_CAP,
                    };
                    let weight = (self.params.avg_rtt_gain_scale / tcb.cwnd.max(1.0)).min(cap);
                    avg + weight * (r - avg)
                }
            });
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if tcb.ca_state != CaState::Open {
            if tcb.in_slow_start() {
                slow_start(tcb, ack.acked);
            }
            return;
        }
        if self.in_mi_mode() {
            // ns-2 fast_cc: +1 per ACK, whatever the ACK acknowledges.
            tcb.cwnd = (tcb.cwnd + 1.0).min(tcb.cwnd_clamp);
            self.last_update = Some(tcb.now);
            self.pace_step = 0.0;
            return;
        }
        if self.pace_step > 0.0 {
            self.pace(tcb);
        }
    }

    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        if new_state == CaState::Open {
            self.restart_periods(tcb);
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
        if event == CwndEvent::Loss {
            tcb.cwnd = self.params.rto_cwnd.min(tcb.cwnd_clamp);
            self.pace_step = 0.0;
        }
    }

    fn timer_period(&self) -> Option<Time> {
        Some(self.interval())
    }

    fn on_timer(&mut self, tcb: &mut Tcb) {
        if tcb.ca_state != CaState::Open || self.in_mi_mode() || !self.gate_open() {
            return;
        }
        if self
            .last_update
            .is_some_and(|t| tcb.now.saturating_sub(t) < self.interval())
        {
            return;
        }
        let (Some(base), Some(avg)) = (self.base_rtt.get(), self.avg_rtt) else {
            return;
        };
        let base = base.secs();
        self.note_update(tcb.now);
        let p = &self.params;
        let queued = self.w_old * (avg - base) / avg;
        if queued >= p.alpha && queued < p.beta.unwrap_or(p.alpha) {
            return;
        }
        let mut target = (1.0 - p.gamma) * tcb.cwnd + p.gamma * (base / avg * self.w_old + p.alpha);
        target = target.min(p.max_growth * tcb.cwnd).max(p.min_cwnd);
        if p.growth == GrowthMode::Linux {
            target = self.integral(target);
        }
        let target = target.min(tcb.cwnd_clamp);
        let p = &self.params;
        self.pace_step = 0.0;
        if target > tcb.cwnd && p.pace_increases && base >= p.pace_min_base_rtt {
            let acks = (f64::from(self.acks_last_period) * p.update_interval / avg).max(1.0);
            self.pace_target = target;
            self.pace_step = (target - tcb.cwnd) / acks;
            self.pace_credit = 0.0;
        } else {
            tcb.cwnd = target;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;
    use crate::UNLIMITED;

    const BASE: Time = Time::from_ms(100);
    const RATE: f64 = 1000.0;

    fn fast(p: FastParams) -> Fast {
        Fast::new(p)
    }

    /// Plain update rule: no MI, no pacing.
    fn plain() -> FastParams {
        FastParams {
            alpha: 20.0,
            mi_threshold: 0.0,
            pace_increases: false,
            ..FastParams::default()
        }
    }

    /// Runs rounds until `n` window changes were seen; returns the windows.
    fn updates(h: &mut Harness<Fast>, n: usize) -> Vec<f64> {
        let mut seen = vec![h.tcb.cwnd];
        while seen.len() <= n {
            h.round();
            if h.tcb.cwnd != *seen.last().unwrap() {
                seen.push(h.tcb.cwnd);
            }
        }
        seen
    }

    /// A bottleneck flow (BDP 100 packets, no buffer limit) that learned
    /// baseRTT at cwnd = BDP and was then set to `w`; updates every 2 s,
    /// paper EWMA so avgRTT settles between updates.
    fn perturbed(gamma: f64, w: f64) -> Harness<Fast> {
        let p = FastParams {
            gamma,
            update_interval: 2.0,
            avg_rtt_filter: AvgRttFilter::Paper,
            ..plain()
        };
        let mut h =
            Harness::new(fast(p), 100.0, UNLIMITED).with_bottleneck(BASE, RATE, f64::INFINITY);
        h.rounds(3);
        assert_eq!(h.cc.base_rtt(), Some(BASE));
        h.tcb.cwnd = w;
        h
    }

    #[test]
    fn error_to_the_fixed_point_shrinks_by_one_minus_gamma_per_update() {
        // Jin, Wei, Low 2004: with the queue responding to the window,
        // baseRTT/avgRTT
        // * w = BDP, so each update moves w to (1-g) w + g (BDP + alpha): the
        // error to w* = BDP + alpha = 120 shrinks by (1 - gamma) exactly
        // (while cwnd is whole, so the sent window equals cwnd).
        let mut h = perturbed(0.5, 184.0);
        let ws = updates(&mut h, 7);
        let errors: Vec<f64> = ws.iter().map(|w| w - 120.0).collect();
        let expected = [64.0, 32.0, 16.0, 8.0, 4.0, 2.0, 1.0, 0.5];
        for (e, x) in errors.iter().zip(expected) {
            assert!((e - x).abs() < 1e-6, "errors {errors:?}");
        }
        let mut h = perturbed(0.25, 184.0);
        let ws = updates(&mut h, 3);
        let errors: Vec<f64> = ws.iter().map(|w| w - 120.0).collect();
        for (e, x) in errors.iter().zip([64.0, 48.0, 36.0, 27.0]) {
            assert!((e - x).abs() < 1e-6, "errors {errors:?}");
        }
    }

    #[test]
    fn equilibrium_keeps_alpha_packets_queued() {
        // Jin, Wei, Low 2004: w* = alpha / (1 - baseRTT/avgRTT), backlog = alpha.
        let mut h = perturbed(0.5, 184.0);
        h.run_for(Time::from_secs(40));
        let base = h.cc.base_rtt().unwrap().secs();
        let avg = h.cc.avg_rtt().unwrap();
        let w_star = 20.0 / (1.0 - base / avg);
        assert!((w_star - 120.0).abs() < 1e-6, "w* {w_star}");
        assert!((120.0..120.5).contains(&h.tcb.cwnd), "cwnd {}", h.tcb.cwnd);
        assert_eq!(h.tcb.cwnd.floor() - h.bdp(), 20.0);
        assert_eq!(h.losses, 0);
    }

    #[test]
    fn updates_run_in_every_other_rtt() {
        // ns-2 tcp-fast.cc: every other RTT with minimum spacing
        // update_interval. Fixed RTT 100 ms, 10 ms ticks: the 10 ticks of one
        // RTT period each move cwnd halfway to w_old + alpha (w_old = cwnd at
        // the period start), leaving 20/1024 of the step; the next period is
        // frozen.
        let mut h = Harness::new(fast(plain()), 100.0, UNLIMITED).with_rtt(BASE);
        let mut ws = Vec::new();
        for _ in 0..5 {
            h.round();
            ws.push(h.tcb.cwnd);
        }
        let a = 120.0 - 20.0 / 1024.0;
        let b = a + 20.0 - 20.0 / 1024.0;
        let c = b + 20.0 - 20.0 / 1024.0;
        assert_eq!(ws, vec![a, a, b, b, c]);
        // Every RTT (ns-2 before 1.1.3): each period updates.
        let p = FastParams {
            every_other_rtt: false,
            ..plain()
        };
        let mut h = Harness::new(fast(p), 100.0, UNLIMITED).with_rtt(BASE);
        h.rounds(2);
        assert_eq!(h.tcb.cwnd, b);
    }

    #[test]
    fn long_update_interval_is_not_starved_by_parity() {
        // A tick every 200 ms = 2 RTTs: relative parity lets every tick update.
        let p = FastParams {
            update_interval: 0.2,
            ..plain()
        };
        let mut h = Harness::new(fast(p), 100.0, UNLIMITED).with_rtt(BASE);
        let ws = updates(&mut h, 3);
        assert_eq!(ws, vec![100.0, 110.0, 120.0, 130.0]);
        assert!(h.now() <= Time::from_ms(700));
    }

    #[test]
    fn multiplicative_increase_while_queueing_delay_is_small() {
        // ns-2 tcp-fast.cc: avgRTT - baseRTT < mi_threshold -> cwnd += 1 per
        // packet acked: without queueing, cwnd doubles every RTT.
        let mut h = Harness::new(fast(FastParams::default()), 10.0, UNLIMITED).with_rtt(BASE);
        for n in 1..=5 {
            h.round();
            assert_eq!(h.tcb.cwnd, 10.0 * 2f64.powi(n));
        }
    }

    #[test]
    fn multiplicative_increase_adds_one_per_ack_whatever_it_acknowledges() {
        // ns-2 tcp-fast.cc fast_cc: cwnd += 1 per ACK. With an ACK every two
        // packets the round of 10 has 5 ACKs (10 -> 15) and the round of 15
        // has 8 (seven of 2 packets, one of 1): 15 -> 23.
        let mut h = Harness::new(fast(FastParams::default()), 10.0, UNLIMITED)
            .with_rtt(BASE)
            .with_delayed_ack(2);
        h.round();
        assert_eq!(h.tcb.cwnd, 15.0);
        h.round();
        assert_eq!(h.tcb.cwnd, 23.0);
    }

    #[test]
    fn multiplicative_increase_stops_at_mi_threshold() {
        // ns-2 EWMA weight 1/256 (cwnd < 768): after base = avg = 100 ms, samples
        // of 110 ms give avg - base = 10 ms * (1 - (255/256)^k), first >= 0.75
        // ms at k = ceil(ln(1 - 0.075) / ln(255/256)) = 20. MI adds 1 for the
        // first ACK and the next 19; none from the 20th on.
        let mut h = Harness::new(fast(FastParams::default()), 10.0, UNLIMITED);
        let k = ((1.0f64 - 0.075).ln() / (255.0f64 / 256.0).ln()).ceil() as u32;
        assert_eq!(k, 20);
        h.ack(1, Some(BASE));
        assert_eq!(h.tcb.cwnd, 11.0);
        for _ in 1..k {
            h.ack(1, Some(Time::from_ms(110)));
        }
        assert!(h.cc.in_mi_mode());
        assert_eq!(h.tcb.cwnd, 10.0 + f64::from(k));
        for _ in 0..10 {
            h.ack(1, Some(Time::from_ms(110)));
        }
        assert!(!h.cc.in_mi_mode());
        assert_eq!(h.tcb.cwnd, 10.0 + f64::from(k));
    }

    #[test]
    fn avg_rtt_weight_is_min_of_three_over_w_and_the_cap() {
        // ns-2 tcp-fast.cc min(3/w, 1/256); Jin, Wei, Low 2004 min(3/w, 1/4).
        let step = |filter, w: f64| {
            let p = FastParams {
                avg_rtt_filter: filter,
                ..FastParams::default()
            };
            let mut h = Harness::new(fast(p), w, UNLIMITED);
            h.ack(1, Some(BASE));
            h.tcb.cwnd = w;
            h.ack(1, Some(Time::from_ms(200)));
            (h.cc.avg_rtt().unwrap() - 0.1) / 0.1
        };
        assert!((step(AvgRttFilter::Ns2, 100.0) - 1.0 / 256.0).abs() < 1e-12);
        assert!((step(AvgRttFilter::Ns2, 3000.0) - 1.0 / 1000.0).abs() < 1e-12);
        assert!((step(AvgRttFilter::Paper, 100.0) - 0.03).abs() < 1e-12);
        assert!((step(AvgRttFilter::Paper, 4.0) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn increases_are_paced_over_the_next_interval() {
        // ns-2 fast_pace: the step to 110 computed at the 200 ms tick (w_old
        // 100, fixed RTT: target = 100 + gamma alpha) is spread over the
        // 100 x 0.2/0.1 = 200 ACKs expected before the next tick.
        let p = FastParams {
            update_interval: 0.2,
            every_other_rtt: false,
            pace_increases: true,
            ..plain()
        };
        let mut h = Harness::new(fast(p.clone()), 100.0, UNLIMITED).with_rtt(BASE);
        h.rounds(2);
        assert!((h.tcb.cwnd - 100.05).abs() < 1e-9, "{}", h.tcb.cwnd);
        h.round();
        assert!((h.tcb.cwnd - 105.05).abs() < 1e-9, "{}", h.tcb.cwnd);
        h.round();
        assert_eq!(h.tcb.cwnd, 110.0, "reached the target, not beyond");
        // Not paced with baseRTT under 4 ms (ns-2).
        let mut h = Harness::new(fast(p), 100.0, UNLIMITED).with_rtt(Time::from_ms(2));
        h.rounds(100);
        assert_eq!(h.tcb.cwnd, 110.0);
    }

    #[test]
    fn a_paced_increase_is_spread_over_the_acks_not_the_packets() {
        // With an ACK every 2 packets the 100-packet RTT brings 50 ACKs, so
        // the +10 of the tick is spread over 50 x 0.2/0.1 = 100 ACKs: half of
        // it in the next RTT, all of it in two (it used to count packets and
        // finish in one RTT, half the interval).
        let p = FastParams {
            update_interval: 0.2,
            every_other_rtt: false,
            pace_increases: true,
            ..plain()
        };
        let mut h = Harness::new(fast(p), 100.0, UNLIMITED)
            .with_rtt(BASE)
            .with_delayed_ack(2);
        h.rounds(2);
        let start = h.tcb.cwnd;
        h.round();
        assert!(
            (h.tcb.cwnd - start - 5.0).abs() < 0.1,
            "{start} -> {}",
            h.tcb.cwnd
        );
        h.round();
        assert_eq!(h.tcb.cwnd, 110.0);
    }

    #[test]
    fn linux_growth_keeps_the_window_whole() {
        // ns-2 high_accuracy_cwnd_ 1: integer targets, fractions carried.
        let p = FastParams {
            growth: GrowthMode::Linux,
            ..plain()
        };
        let mut h = Harness::new(fast(p), 100.0, UNLIMITED).with_rtt(BASE);
        h.rounds(5);
        assert_eq!(h.tcb.cwnd, h.tcb.cwnd.floor());
        assert!((158.0..=160.0).contains(&h.tcb.cwnd), "{}", h.tcb.cwnd);
    }

    #[test]
    fn loss_halves_cwnd_and_ssthresh() {
        // ns-2 tcp-fast.cc: 3 dupACKs -> ssthresh = cwnd/2, cwnd = cwnd/2
        // (float window).
        let mut h = Harness::new(fast(plain()), 201.0, UNLIMITED).with_rtt(BASE);
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 100.5);
        assert_eq!(h.tcb.cwnd, 100.5);
        // RTO: ssthresh halved, cwnd = 2 (ns-2 slowstart_).
        h.tcb.cwnd = 80.0;
        h.rto();
        assert_eq!(h.tcb.ssthresh, 40.0);
        assert_eq!(h.tcb.cwnd, 2.0);
    }

    #[test]
    fn nothing_updates_outside_open() {
        // ns-2 tcp-fast.cc skips the estimators in fast recovery: the timer
        // update and the estimators pause in Recovery.
        let p = FastParams {
            every_other_rtt: false,
            ..plain()
        };
        let mut h = Harness::new(fast(p), 100.0, UNLIMITED).with_rtt(BASE);
        h.round();
        let (w, avg) = (h.tcb.cwnd, h.cc.avg_rtt());
        h.cc.set_state(&mut h.tcb, CaState::Recovery);
        h.tcb.ca_state = CaState::Recovery;
        let t = h.now() + Time::from_ms(50);
        h.advance_to(t);
        h.ack(1, Some(Time::from_ms(300)));
        assert_eq!(h.tcb.cwnd, w);
        assert_eq!(h.cc.avg_rtt(), avg);
        // Back in Open, the period covering pre-recovery packets is skipped.
        h.cc.set_state(&mut h.tcb, CaState::Open);
        h.tcb.ca_state = CaState::Open;
        h.tcb.snd_nxt = h.tcb.snd_una + 50;
        h.cc.on_timer(&mut h.tcb);
        assert_eq!(h.tcb.cwnd, w);
    }

    #[test]
    fn fairness_study_overrides_build() {
        // Molnar et al. 2009 (python/tcpeval/studies/fairness.toml): alpha =
        // beta per topology, gamma 0.5, update period 10/30/100 ms,
        // mi_threshold 0.0015.
        let a = crate::build(
            "fast",
            &serde_json::json!({"alpha": 4166, "beta": 4166, "gamma": 0.5,
                                "update_interval": 0.03, "mi_threshold": 0.0015}),
        )
        .unwrap();
        assert_eq!(a.timer_period(), Some(Time::from_ms(30)));
        let e = crate::build("fast", &serde_json::json!({"alpha": 50, "beta": 10})).unwrap_err();
        assert_eq!(e.field, "beta");
    }
}
