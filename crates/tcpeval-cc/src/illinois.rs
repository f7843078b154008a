//! TCP-Illinois (Liu, Başar, Srikant, Performance Evaluation 2008; Linux
//! `net/ipv4/tcp_illinois.c`).
//!
//! A loss-based AIMD whose increase `alpha` and decrease `beta` follow the
//! average queueing delay. Per ACK it keeps `base_rtt` (smallest RTT sample,
//! never aged unless `base_rtt_max_age` is set), `max_rtt` (largest sample,
//! never aged: one delay spike widens `dm` for good, as in Linux), and the
//! sum and count of the samples of the current round trip. Once per RTT (the
//! first ACK beyond the `snd_nxt` recorded at the previous update):
//!
//! * `cwnd < win_thresh`: `alpha = alpha_base` (1), `beta = beta_base` (1/2),
//!   i.e. Reno;
//! * otherwise, if the round has samples, with `dm = max_rtt - base_rtt`
//!   and `da = mean(round samples) - base_rtt`:
//!   - alpha: `d1 = d1_fraction * dm`. If `da <= d1`: `alpha_max` if the
//!     delay never went above `d1`, else after `theta` such RTTs (the count is
//!     not reset by an RTT above `d1`, as in Linux and ns-3, unless
//!     `theta_consecutive`); until then alpha is kept. If `da > d1`: `alpha =
//!     (dm - d1) alpha_max / ((dm - d1) + (da - d1)(alpha_max - alpha_min) /
//!     alpha_min)`, so `alpha(d1) = alpha_max` and `alpha(dm) = alpha_min`;
//!   - beta: `beta_min` up to `d2 = d2_fraction * dm`, `beta_max` from `d3 =
//!     d3_fraction * dm`, linear in between.
//!
//! Increase: `cwnd += alpha / cwnd` per packet acked (slow start as usual).
//! Loss: `ssthresh = max(cwnd - beta * cwnd, 2)`; with `ssthresh_26`, the
//! rule of the module as first merged (2.6.22, and so ns-2's TCP-Linux),
//! `max(beta * cwnd, 2)`. On an RTO (`set_state(Loss)`)
//! alpha, beta and the counters are reset to the Reno values.
//!
//! The per-RTT update runs only in the Open state (RTT samples around a loss
//! are ambiguous; tcpeval's choice, docs/decisions.md): entering Open
//! starts a fresh round. Linux also updates in the Loss state; there cwnd is
//! usually below `win_thresh`.
//!
//! Arithmetic (`growth`): `linux` reproduces the kernel's fixed point: RTTs
//! in whole microseconds capped at `u32::MAX / (128 alpha_max)` (3.36 s with
//! the defaults), alpha in 1/128 and beta in 1/64 packets with integer
//! division, integer cwnd with `cwnd_cnt` counting the packets acked since
//! the last increase (`cwnd += floor(cnt * alpha / cwnd)` once that is at
//! least 1, the remainder is dropped), and `ssthresh = max(cwnd -
//! floor(cwnd * beta), 2)` (so a Reno-sized cut rounds to `ceil(cwnd/2)`).
//! `float` evaluates the same formulas in real numbers.
//!
//! Defaults (Linux = ns-3): alpha in [0.3, 10], beta in [1/8, 1/2], d1/d2/d3
//! = 1 %/10 %/80 % of dm, theta = 5 RTTs, win_thresh = 15 packets. The
//! paper's window threshold is not confirmed; 15 is the Linux module default.

use crate::common::{slow_start, GrowthMode, MinRtt};
use crate::params::params;
use crate::{AckInfo, AckSample, CaState, CongestionControl, NamedAlgorithm, Tcb, Time};

/// Linux keeps alpha in units of 1/2^7 packet (`ALPHA_SHIFT` 7).
const ALPHA_SHIFT: u32 = 7;
const ALPHA_SCALE: f64 = (1u32 << ALPHA_SHIFT) as f64;
/// Linux keeps beta in units of 1/2^6 (`BETA_SHIFT` 6).
const BETA_SHIFT: u32 = 6;
const BETA_SCALE: f64 = (1u32 << BETA_SHIFT) as f64;

params! {
    /// TCP-Illinois's parameters.
    pub struct IllinoisParams for |p| {
        /// Smallest additive increase, at the largest queueing delay.
        alpha_min: f64 = 0.3, closed(1.0 / ALPHA_SCALE, 1e3),
            unit "packets per RTT",
            source "Linux net/ipv4/tcp_illinois.c ALPHA_MIN = 0.3 (as ns-3)";
        /// Largest additive increase, at low queueing delay.
        alpha_max: f64 = 10.0, closed(p.alpha_min, 1e3),
            unit "packets per RTT",
            source "Linux net/ipv4/tcp_illinois.c ALPHA_MAX = 10 (as ns-3)";
        /// Increase below win_thresh and after an RTO.
        alpha_base: f64 = 1.0, closed(1.0 / ALPHA_SCALE, 1e3),
            unit "packets per RTT",
            source "Linux net/ipv4/tcp_illinois.c ALPHA_BASE = 1";
        /// Smallest multiplicative decrease, at low queueing delay.
        beta_min: f64 = 0.125, closed(0.0, 1.0),
            unit "fraction",
            source "Linux net/ipv4/tcp_illinois.c BETA_MIN = 1/8 (as ns-3)";
        /// Largest multiplicative decrease, at high queueing delay.
        beta_max: f64 = 0.5, closed(p.beta_min, 1.0),
            unit "fraction",
            source "Linux net/ipv4/tcp_illinois.c BETA_MAX = 1/2 (as ns-3)";
        /// Decrease below win_thresh and after an RTO.
        beta_base: f64 = 0.5, closed(0.0, 1.0),
            unit "fraction",
            source "Linux net/ipv4/tcp_illinois.c BETA_BASE = 1/2";
        /// Low-delay RTTs before alpha returns to alpha_max.
        theta: u32 = 5, closed(1.0, 1e6),
            unit "RTTs",
            source "Linux net/ipv4/tcp_illinois.c theta = 5 (as ns-3)";
        /// An RTT above d1 restarts the theta count.
        theta_consecutive: bool = false, unchecked("true or false"),
            unit "",
            source "Linux net/ipv4/tcp_illinois.c update_params and ns-3 TcpIllinois: off";
        /// Window below which Illinois is Reno.
        win_thresh: f64 = 15.0, closed(0.0, 1e9),
            unit "packets",
            source "Linux net/ipv4/tcp_illinois.c win_thresh = 15 (the paper's value not confirmed)";
        /// d1 as a fraction of the largest queueing delay dm.
        d1_fraction: f64 = 0.01, closed(0.0, 1.0),
            unit "fraction",
            source "Linux net/ipv4/tcp_illinois.c alpha(): d1 = dm / 100";
        /// d2 as a fraction of dm: beta_min up to d2.
        d2_fraction: f64 = 0.1, closed(0.0, 1.0),
            unit "fraction",
            source "Linux net/ipv4/tcp_illinois.c beta(): d2 = dm / 10";
        /// d3 as a fraction of dm: beta_max from d3.
        d3_fraction: f64 = 0.8, closed(p.d2_fraction, 1.0),
            unit "fraction",
            source "Linux net/ipv4/tcp_illinois.c beta(): d3 = 8 dm / 10";
        /// Base RTT aging; 0 = never aged.
        base_rtt_max_age: f64 = 0.0, closed(0.0, 1e6),
            unit "s",
            source "Linux net/ipv4/tcp_illinois.c (base_rtt never aged): 0";
        /// 2.6.22's decrease: the window is cut *to* beta times itself, not *by*
        /// it (`ssthresh = max(cwnd beta, 2)`), so a low-delay loss (beta = 1/8)
        /// leaves an eighth of the window; equal to today's rule only at beta = 1/2.
        ssthresh_26: bool = false, unchecked("true or false"),
            unit "",
            source "Linux 2.6.22 tcp_illinois.c tcp_illinois_ssthresh (read in TCP-Linux src/tcp_illinois.c, \
                    2.6.22.6): max((snd_cwnd * beta) >> BETA_SHIFT, 2); today's subtracts that from snd_cwnd";
        /// Arithmetic: "linux" (alpha in 1/128, beta in 1/64 fixed point, RTTs in us, integer
        /// cwnd) or "float".
        growth: GrowthMode = GrowthMode::Linux, unchecked("one of the names in the doc; serde rejects others"),
            unit "",
            source "Linux net/ipv4/tcp_illinois.c fixed point: \"linux\"";
    }
}

/// Per-flow TCP-Illinois state.
#[derive(Clone, Debug)]
pub struct Illinois {
    params: IllinoisParams,
    base_rtt: MinRtt,
    max_rtt: Option<Time>,
    /// Sum of the current round's samples, in [`Illinois::rtt_units`].
    sum_rtt: f64,
    /// Samples in the current round.
    cnt_rtt: u32,
    /// The round ends with the first ACK beyond this sequence number.
    end_seq: u64,
    /// Additive increase, packets per RTT.
    alpha: f64,
    /// Multiplicative decrease, fraction of cwnd.
    beta: f64,
    /// Packets delivered by the ACK being processed (from `pkts_acked`).
    acked: u32,
    /// The average delay went above d1 since alpha was last at its maximum.
    rtt_above: bool,
    /// Low-delay RTTs counted toward `theta`.
    rtt_low: u32,
}

/// A value in Linux fixed point with `scale` units per 1 (floor).
fn fixed(x: f64, scale: f64) -> u64 {
    (x * scale).floor() as u64
}

/// `x * fraction` in integers, as Linux's `dm / 100`, `8 * dm / 10`: the
/// fraction is taken as parts per million, which is exact for those.
fn fraction_of(x: u64, fraction: f64) -> u64 {
    x * (fraction * 1e6).round() as u64 / 1_000_000
}

impl Illinois {
    /// Current additive increase, packets per RTT.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// Current multiplicative decrease, fraction of cwnd.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// An RTT in the unit the arithmetic works in: whole microseconds capped
    /// at Linux's `RTT_MAX` (linux) or seconds (float).
    fn rtt_units(&self, t: Time) -> f64 {
        match self.params.growth {
            GrowthMode::Linux => {
                let rtt_max = u64::from(u32::MAX) / fixed(self.params.alpha_max, ALPHA_SCALE);
                (t.ps() / 1_000_000).min(rtt_max) as f64
            }
            GrowthMode::Float => t.secs(),
        }
    }

    fn rtt_reset(&mut self, tcb: &Tcb) {
        self.end_seq = tcb.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = 0.0;
    }

    /// Once-per-RTT update of alpha and beta (Linux `update_params`).
    fn update_params(&mut self, tcb: &Tcb) {
        let p = &self.params;
        if tcb.cwnd < p.win_thresh {
            self.alpha = p.alpha_base;
            self.beta = p.beta_base;
        } else if let (true, Some(base), Some(max)) =
            (self.cnt_rtt > 0, self.base_rtt.get(), self.max_rtt)
        {
            let base = self.rtt_units(base);
            let dm = self.rtt_units(max) - base;
            let mean = self.sum_rtt / f64::from(self.cnt_rtt);
            let (alpha, beta) = match p.growth {
                GrowthMode::Linux => {
                    let da = (mean.floor() - base).max(0.0) as u64;
                    let dm = dm.max(0.0) as u64;
                    (self.alpha_linux(da, dm), self.beta_linux(da, dm))
                }
                GrowthMode::Float => {
                    let da = (mean - base).max(0.0);
                    (self.alpha_float(da, dm), self.beta_float(da, dm))
                }
            };
            self.alpha = alpha;
            self.beta = beta;
        }
        self.rtt_reset(tcb);
    }

    /// The low-delay branch shared by both arithmetics: `Some(alpha)` when
    /// `da <= d1` (kept or `alpha_max`), `None` when the delay is above d1.
    fn alpha_low_delay(&mut self, low: bool) -> Option<f64> {
        if !low {
            self.rtt_above = true;
            if self.params.theta_consecutive {
                self.rtt_low = 0;
            }
            return None;
        }
        if !self.rtt_above {
            return Some(self.params.alpha_max);
        }
        self.rtt_low += 1;
        if self.rtt_low < self.params.theta {
            return Some(self.alpha);
        }
        self.rtt_low = 0;
        self.rtt_above = false;
        Some(self.params.alpha_max)
    }

    fn alpha_linux(&mut self, da: u64, dm: u64) -> f64 {
        let d1 = fraction_of(dm, self.params.d1_fraction);
        if let Some(a) = self.alpha_low_delay(da <= d1) {
            // alpha_max and a kept value both came from the fixed-point grid.
            return (a * ALPHA_SCALE).floor() / ALPHA_SCALE;
        }
        let amax = fixed(self.params.alpha_max, ALPHA_SCALE);
        let amin = fixed(self.params.alpha_min, ALPHA_SCALE);
        let (dm, da) = (dm - d1, da - d1);
        let a = dm * amax / (dm + da * (amax - amin) / amin);
        a as f64 / ALPHA_SCALE
    }

    fn alpha_float(&mut self, da: f64, dm: f64) -> f64 {
        let d1 = self.params.d1_fraction * dm;
        if let Some(a) = self.alpha_low_delay(da <= d1) {
            return a;
        }
        let (amax, amin) = (self.params.alpha_max, self.params.alpha_min);
        let (dm, da) = (dm - d1, da - d1);
        dm * amax / (dm + da * (amax - amin) / amin)
    }

    fn beta_linux(&self, da: u64, dm: u64) -> f64 {
        let p = &self.params;
        let (bmin, bmax) = (fixed(p.beta_min, BETA_SCALE), fixed(p.beta_max, BETA_SCALE));
        let d2 = fraction_of(dm, p.d2_fraction);
        let d3 = fraction_of(dm, p.d3_fraction);
        let b = if da <= d2 {
            bmin
        } else if da >= d3 || d3 <= d2 {
            bmax
        } else {
            (bmin * d3 + (bmax - bmin) * da - bmax * d2) / (d3 - d2)
        };
        b as f64 / BETA_SCALE
    }

    fn beta_float(&self, da: f64, dm: f64) -> f64 {
        let p = &self.params;
        let d2 = p.d2_fraction * dm;
        let d3 = p.d3_fraction * dm;
        if da <= d2 {
            p.beta_min
        } else if da >= d3 || d3 <= d2 {
            p.beta_max
        } else {
            p.beta_min + (p.beta_max - p.beta_min) * (da - d2) / (d3 - d2)
        }
    }
}

impl NamedAlgorithm for Illinois {
    const NAME: &'static str = "illinois";
    const SUMMARY: &'static str =
        "TCP-Illinois: AIMD with alpha in [0.3, 10] and beta in [1/8, 1/2] set by queueing delay";
    type Params = IllinoisParams;
    fn new(params: IllinoisParams) -> Self {
        let base_rtt = MinRtt::new(Time::from_secs_f64(params.base_rtt_max_age));
        let (alpha, beta) = (params.alpha_max, params.beta_base);
        Illinois {
            params,
            base_rtt,
            max_rtt: None,
            sum_rtt: 0.0,
            cnt_rtt: 0,
            end_seq: 0,
            alpha,
            beta,
            acked: 0,
            rtt_above: false,
            rtt_low: 0,
        }
    }
}

impl CongestionControl for Illinois {
    fn init(&mut self, tcb: &mut Tcb) {
        self.alpha = self.params.alpha_max;
        self.beta = self.params.beta_base;
        self.base_rtt.reset();
        self.max_rtt = None;
        self.acked = 0;
        self.rtt_low = 0;
        self.rtt_above = false;
        self.rtt_reset(tcb);
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        let kept = match self.params.growth {
            GrowthMode::Linux => {
                let w = tcb.cwnd_pkts() as u64;
                let cut = (w * fixed(self.beta, BETA_SCALE)) >> BETA_SHIFT;
                if self.params.ssthresh_26 {
                    cut as f64
                } else {
                    (w - cut) as f64
                }
            }
            GrowthMode::Float if self.params.ssthresh_26 => tcb.cwnd * self.beta,
            GrowthMode::Float => tcb.cwnd * (1.0 - self.beta),
        };
        kept.max(2.0)
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        self.acked = sample.acked;
        if let Some(rtt) = sample.rtt {
            self.base_rtt.update(tcb.now, rtt);
            self.max_rtt = Some(self.max_rtt.map_or(rtt, |m| m.max(rtt)));
            self.cnt_rtt += 1;
            self.sum_rtt += self.rtt_units(rtt);
        }
        // Linux runs update_params at the top of cong_avoid, before its
        // cwnd-limited test; the sender here calls cong_avoid only when
        // cwnd-limited, so the once-per-RTT update lives here, after this
        // ACK's sample, and an application-limited flow still updates.
        if tcb.ca_state == CaState::Open && tcb.snd_una > self.end_seq {
            self.update_params(tcb);
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if tcb.in_slow_start() {
            slow_start(tcb, ack.acked);
            return;
        }
        match self.params.growth {
            GrowthMode::Linux => {
                tcb.cwnd_cnt += self.acked;
                self.acked = 1;
                let w = tcb.cwnd_pkts() as u64;
                let delta =
                    (u64::from(tcb.cwnd_cnt) * fixed(self.alpha, ALPHA_SCALE)) >> ALPHA_SHIFT;
                if delta >= w {
                    tcb.cwnd = (tcb.cwnd + (delta / w) as f64).min(tcb.cwnd_clamp);
                    tcb.cwnd_cnt = 0;
                }
            }
            GrowthMode::Float => {
                tcb.cwnd += self.alpha * f64::from(self.acked) / tcb.cwnd;
                self.acked = 1;
                tcb.cwnd = tcb.cwnd.min(tcb.cwnd_clamp);
            }
        }
    }

    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        match new_state {
            CaState::Loss => {
                self.alpha = self.params.alpha_base;
                self.beta = self.params.beta_base;
                self.rtt_low = 0;
                self.rtt_above = false;
                self.rtt_reset(tcb);
            }
            CaState::Open => self.rtt_reset(tcb),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reno::{Reno, RenoParams};
    use crate::testing::Harness;

    const BASE: Time = Time::from_ms(100);

    fn illinois() -> Illinois {
        Illinois::new(IllinoisParams::default())
    }

    /// One round of `n` single-packet ACKs, all with RTT sample `rtt`.
    fn play_round(h: &mut Harness<Illinois>, n: u32, rtt: Time) {
        h.tcb.snd_nxt = h.tcb.snd_una + u64::from(n);
        for _ in 0..n {
            h.ack(1, Some(rtt));
        }
    }

    #[test]
    fn below_win_thresh_it_is_reno() {
        // Linux update_params (win_thresh 15): cwnd < 15 => exact Reno growth,
        // whatever the delay (here a 5-packet BDP, so the queue and delay grow
        // with cwnd).
        let mut ill = Harness::new(illinois(), 2.0, 8.0).with_bottleneck(BASE, 50.0, f64::INFINITY);
        let mut reno = Harness::new(Reno::new(RenoParams::default()), 2.0, 8.0).with_bottleneck(
            BASE,
            50.0,
            f64::INFINITY,
        );
        for _ in 0..8 {
            ill.round();
            reno.round();
            assert_eq!(ill.tcb.cwnd, reno.tcb.cwnd);
            assert_eq!(ill.tcb.cwnd_cnt, reno.tcb.cwnd_cnt);
        }
        assert_eq!(ill.tcb.cwnd, 14.0);
        assert_eq!((ill.cc.alpha(), ill.cc.beta()), (1.0, 0.5));
        // The halving matches Reno at even windows; at odd ones Linux's
        // cwnd - floor(cwnd/2) rounds up where Reno's floor(cwnd/2) rounds down.
        ill.fast_loss();
        reno.fast_loss();
        assert_eq!(ill.tcb.cwnd, 7.0);
        assert_eq!(reno.tcb.cwnd, 7.0);
        ill.tcb.cwnd = 13.0;
        assert_eq!(ill.cc.ssthresh(&ill.tcb), 7.0);
    }

    /// A flow at cwnd 100 in congestion avoidance that has seen a 200 ms
    /// sample (dm = 100 ms over the 100 ms base) and whose last two rounds
    /// had RTT `rtt` (so the last update saw only `rtt` samples).
    fn after_delay(rtt: Time) -> Harness<Illinois> {
        after_delay_with(IllinoisParams::default(), rtt)
    }

    /// Rounds at 100 ms, one at 200 ms (so dm = 100 ms), then two at `rtt`.
    fn after_delay_with(p: IllinoisParams, rtt: Time) -> Harness<Illinois> {
        let mut h = Harness::new(Illinois::new(p), 100.0, 50.0);
        play_round(&mut h, 100, BASE);
        play_round(&mut h, 100, BASE);
        play_round(&mut h, 100, Time::from_ms(200));
        play_round(&mut h, 100, rtt);
        play_round(&mut h, 100, rtt);
        play_round(&mut h, 1, rtt);
        h
    }

    #[test]
    fn alpha_and_beta_follow_the_average_queueing_delay() {
        // Linux alpha() / beta() in fixed point, dm = 100 ms, d1 = 1 ms, d2 =
        // 10 ms, d3 = 80 ms, delays in us: da = 100 ms: alpha = alpha_min =
        // 38/128, beta = beta_max = 32/64.
        let h = after_delay(Time::from_ms(200));
        assert_eq!(h.cc.alpha(), 38.0 / 128.0);
        assert_eq!(h.cc.beta(), 0.5);
        // da = 50 ms: alpha = 99000*1280 / (99000 + 49000*1242/38) = 74/128;
        // beta = (8*80000 - 32*10000 + 24*50000) / 70000 = 21/64.
        let h = after_delay(Time::from_ms(150));
        let a = 99_000 * 1280 / (99_000 + 49_000 * 1242 / 38);
        assert_eq!(a, 74);
        assert_eq!(h.cc.alpha(), 74.0 / 128.0);
        assert_eq!(h.cc.beta(), 21.0 / 64.0);
        // da = 5 ms: beta_min; da > d1 so alpha below the maximum.
        let h = after_delay(Time::from_ms(105));
        assert_eq!(h.cc.beta(), 0.125);
        assert!(h.cc.alpha() < 10.0);
    }

    #[test]
    fn an_application_limited_flow_still_updates_once_per_rtt() {
        // Linux updates alpha and beta before its cwnd-limited test, so a
        // flow whose sender skips cong_avoid (not cwnd-limited) still tracks
        // the delay: the same rounds as alpha_and_beta_follow_..., with only
        // pkts_acked called, give alpha = alpha_min at da = 100 ms.
        let mut h = Harness::new(illinois(), 100.0, 50.0);
        for rtt in [
            BASE,
            BASE,
            Time::from_ms(200),
            Time::from_ms(200),
            Time::from_ms(200),
        ] {
            h.tcb.snd_nxt = h.tcb.snd_una + 100;
            for _ in 0..100 {
                h.tcb.snd_una += 1;
                h.cc.pkts_acked(
                    &h.tcb,
                    &AckSample {
                        acked: 1,
                        rtt: Some(rtt),
                    },
                );
            }
        }
        h.tcb.snd_una += 1;
        let rtt = Some(Time::from_ms(200));
        h.cc.pkts_acked(&h.tcb, &AckSample { acked: 1, rtt });
        assert_eq!(h.cc.alpha(), 38.0 / 128.0);
        assert_eq!(h.cc.beta(), 0.5);
        assert_eq!(h.tcb.cwnd, 100.0);
    }

    #[test]
    fn float_arithmetic_uses_the_real_formulas() {
        // Liu, Başar, Srikant 2008 formulas in real numbers, da = 50 ms, dm =
        // 100 ms.
        let p = IllinoisParams {
            growth: GrowthMode::Float,
            ..IllinoisParams::default()
        };
        let mut h = Harness::new(Illinois::new(p), 100.0, 50.0);
        for rtt in [100, 100, 200, 150, 150] {
            play_round(&mut h, 100, Time::from_ms(rtt));
        }
        play_round(&mut h, 1, Time::from_ms(150));
        let (dm, da, d1) = (0.1, 0.05, 0.001);
        let alpha = (dm - d1) * 10.0 / ((dm - d1) + (da - d1) * (10.0 - 0.3) / 0.3);
        assert!((h.cc.alpha() - alpha).abs() < 1e-9, "{}", h.cc.alpha());
        let beta = 0.125 + (0.5 - 0.125) * (da - 0.01) / (0.08 - 0.01);
        assert!((h.cc.beta() - beta).abs() < 1e-9, "{}", h.cc.beta());
    }

    #[test]
    fn alpha_returns_to_max_after_theta_low_delay_rtts() {
        // Linux alpha() (theta): after the delay went up (alpha = alpha_min),
        // theta = 5 RTTs with da <= d1 are needed before alpha = 10; until then
        // alpha is kept.
        let mut h = after_delay(Time::from_ms(200));
        let kept = h.cc.alpha();
        assert_eq!(kept, 38.0 / 128.0);
        for _ in 0..4 {
            play_round(&mut h, 100, BASE);
            assert_eq!(h.cc.alpha(), kept);
            assert_eq!(h.cc.beta(), 0.125);
        }
        play_round(&mut h, 100, BASE);
        assert_eq!(h.cc.alpha(), 10.0);
        // With alpha = 10 cwnd grows about 10 packets per RTT (Linux: +1 each
        // time cnt * alpha reaches cwnd, remainder dropped).
        let w = h.tcb.cwnd;
        play_round(&mut h, w as u32, BASE);
        let growth = h.tcb.cwnd - w;
        assert!((9.0..=10.0).contains(&growth), "growth {growth}");
    }

    #[test]
    fn delay_never_above_d1_keeps_alpha_at_max() {
        // Linux alpha(): da <= d1 and the delay never rose -> alpha_max at once.
        let mut h = Harness::new(illinois(), 100.0, 50.0);
        play_round(&mut h, 100, BASE);
        play_round(&mut h, 1, BASE);
        assert_eq!(h.cc.alpha(), 10.0);
        assert_eq!(h.cc.beta(), 0.125);
    }

    #[test]
    fn theta_count_survives_interruptions_unless_consecutive() {
        // Linux and ns-3 do not reset the low-delay count when an RTT is
        // above d1; theta_consecutive (the paper's reading) does. Updates
        // (each at the first ACK of a round, over the previous round): the
        // rise to 200 ms sets alpha_min; then 3 low-delay RTTs (the third
        // mixes one 150 ms sample: da = 0.5 ms <= d1 = 1 ms), 2 above d1
        // (150 ms), and low again.
        let run = |consecutive| {
            let p = IllinoisParams {
                theta_consecutive: consecutive,
                ..IllinoisParams::default()
            };
            let mut h = Harness::new(Illinois::new(p), 100.0, 50.0);
            for rtt in [100, 100, 200, 200, 100, 100, 100, 150, 150, 100, 100] {
                play_round(&mut h, 100, Time::from_ms(rtt));
            }
            let before = h.cc.alpha();
            play_round(&mut h, 1, BASE);
            (before, h.cc.alpha())
        };
        let (before, after) = run(false);
        assert!(before < 1.0, "4 low-delay RTTs: alpha kept ({before})");
        assert_eq!(after, 10.0, "the 5th low-delay RTT, not consecutive");
        let (before, after) = run(true);
        assert_eq!(after, before, "only 2 consecutive low-delay RTTs");
    }

    #[test]
    fn loss_cuts_one_eighth_at_low_delay_and_half_at_high_delay() {
        // Linux beta() / tcp_illinois_ssthresh: da <= 0.1 dm -> cut 1/8; da >=
        // 0.8 dm -> cut 1/2 (Linux: ssthresh = cwnd - floor(cwnd * beta)).
        let mut h = after_delay(BASE);
        assert_eq!(h.cc.beta(), 0.125);
        let w = h.tcb.cwnd;
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, w - (w / 8.0).floor());
        let mut h = after_delay(Time::from_ms(190));
        assert_eq!(h.cc.beta(), 0.5);
        let w = h.tcb.cwnd;
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, w - (w / 2.0).floor());
    }

    #[test]
    fn ssthresh_26_cuts_to_beta_not_by_beta() {
        // Linux 2.6.22 tcp_illinois_ssthresh (TCP-Linux src/tcp_illinois.c,
        // 2.6.22.6): ssthresh = max((cwnd * beta) >> 6, 2). At low delay
        // (beta = 8/64) a window of 100 keeps floor(100 * 8 / 64) = 12; at
        // high delay (beta = 32/64) it keeps 50, today's value too.
        let p26 = || IllinoisParams {
            ssthresh_26: true,
            ..IllinoisParams::default()
        };
        let mut h = after_delay_with(p26(), BASE);
        assert_eq!(h.cc.beta(), 0.125);
        h.tcb.cwnd = 100.0;
        assert_eq!(h.cc.ssthresh(&h.tcb), 12.0);
        let mut h = after_delay_with(p26(), Time::from_ms(190));
        assert_eq!(h.cc.beta(), 0.5);
        h.tcb.cwnd = 100.0;
        assert_eq!(h.cc.ssthresh(&h.tcb), 50.0);
        // The floor of 2 packets still holds: 15 * 8 / 64 = 1.
        let mut h = after_delay_with(p26(), BASE);
        h.tcb.cwnd = 15.0;
        assert_eq!(h.cc.ssthresh(&h.tcb), 2.0);
        // Float arithmetic: 0.125 * 100 exactly.
        let mut h = after_delay_with(
            IllinoisParams {
                growth: GrowthMode::Float,
                ..p26()
            },
            BASE,
        );
        h.tcb.cwnd = 100.0;
        assert_eq!(h.cc.ssthresh(&h.tcb), 100.0 * h.cc.beta());
    }

    #[test]
    fn rto_resets_to_reno_values() {
        // Linux tcp_illinois_state / rtt_reset: RTO -> alpha = 1, beta = 0.5,
        // counters reset.
        let mut h = after_delay(BASE);
        let w = h.tcb.cwnd;
        assert_eq!(h.cc.beta(), 0.125);
        h.rto();
        assert_eq!(h.tcb.ssthresh, w - (w / 8.0).floor());
        assert_eq!((h.cc.alpha(), h.cc.beta()), (1.0, 0.5));
        // The theta count restarted: one low-delay RTT gives alpha_max
        // again only because rtt_above was cleared.
        h.tcb.cwnd = 100.0;
        h.tcb.ssthresh = 50.0;
        h.cc.set_state(&mut h.tcb, CaState::Open);
        h.tcb.ca_state = CaState::Open;
        play_round(&mut h, 100, BASE);
        play_round(&mut h, 1, BASE);
        assert_eq!(h.cc.alpha(), 10.0);
    }

    #[test]
    fn updates_pause_outside_open() {
        // tcpeval's choice (docs/decisions.md): no per-RTT update during
        // recovery; entering Open starts a fresh round, so the recovery-time
        // samples never reach alpha.
        let mut h = after_delay(BASE);
        let alpha = h.cc.alpha();
        h.cc.set_state(&mut h.tcb, CaState::Recovery);
        h.tcb.ca_state = CaState::Recovery;
        play_round(&mut h, 100, Time::from_ms(200));
        assert_eq!(h.cc.alpha(), alpha);
        h.cc.set_state(&mut h.tcb, CaState::Open);
        h.tcb.ca_state = CaState::Open;
        play_round(&mut h, 100, BASE);
        play_round(&mut h, 1, BASE);
        assert_eq!(
            h.cc.alpha(),
            alpha,
            "da = 0 counts toward theta, alpha kept"
        );
        assert_eq!(h.cc.beta(), 0.125);
    }
}
