//! BIC TCP (L. Xu, K. Harfoush, I. Rhee, "Binary Increase Congestion
//! Control for Fast, Long Distance Networks", INFOCOM 2004; Linux
//! `net/ipv4/tcp_bic.c`).
//!
//! After a loss at `W_max` the window searches for it: far below it grows
//! linearly by `S_max` per RTT, closer it closes a fraction `1/B` of the
//! remaining distance per RTT (binary search), and next to it it creeps
//! (`B / smooth_part` per RTT); above `W_max` the same steps mirror
//! ("max probing": slow, then exponential, then linear again). Every rule
//! sets `cnt`, the packets acked per +1 packet, and growth is `AI(cnt, acked)`
//! on the integer window:
//!
//! * `cwnd <= low_window`: `cnt = cwnd` (Reno).
//! * `cwnd < W_max`: `dist = (W_max - cwnd) / B` (integer);
//!   `dist > S_max` → `cnt = cwnd / S_max`; `dist <= 1` →
//!   `cnt = cwnd smooth_part / B`; else `cnt = cwnd / dist`.
//! * `cwnd >= W_max`: `cwnd < W_max + B` → `cnt = cwnd smooth_part / B`;
//!   `cwnd < W_max + S_max (B - 1)` → `cnt = cwnd (B - 1) / (cwnd - W_max)`;
//!   else `cnt = cwnd / S_max`.
//! * no loss yet (`W_max = 0`): `cnt <= 20` (at least 5% per RTT).
//! * ACK-ratio compensation (`ackratio_comp`, Linux): `cnt = cnt 16 / delayed_ack`
//!   with `delayed_ack` (packets per ACK ×16) an EWMA with gain 1/16 updated
//!   in the Open state, starting at 2 packets per ACK. `cnt >= 1`.
//!
//! `cnt` is recomputed when cwnd changed or `update_interval_s` (1/32 s)
//! has passed. Loss: fast convergence — `W_max = floor(cwnd (1 + beta)/2)`
//! if cwnd is below the previous `W_max`, else `W_max = cwnd`;
//! `ssthresh = max(cwnd/2, 2)` at or below `low_window`, else
//! `max(floor(beta cwnd), 2)`. An RTO (state Loss) resets all state.
//!
//! Linux's integer arithmetic is kept (all divisions above are integer
//! divisions). Two kernel properties to know about, both reproduced:
//! * The ACK-ratio estimator is updated with integer arithmetic (`delayed_ack
//!   += acked - delayed_ack / 16`); with one packet per ACK it moves from its
//!   initial 32 to 31 and stays there (`31 / 16 = 1` leaves no correction), so
//!   with an ACK per packet Linux BIC grows about 1.94× the nominal rates. With
//!   per-packet counting and an ACK every 2 packets it sits at 32 and the
//!   compensation doubles growth again (Linux `bictcp_acked` and
//!   `bictcp_update`). Its intended case is the 2.6 kernels' per-ACK counting
//!   with delayed ACKs, where it restores the nominal rates. `ackratio_comp =
//!   false` gives the nominal rates of `bictcp_update` in every case.
//! * Below `low_window` the kernel returns before the compensation, so the
//!   Reno region is exact.
//!
//! Sources of the defaults (read from `tcp_bic.c`): beta 819/1024 (0.8 here;
//! set 0.7998046875 for the kernel's rounding), `max_increment` (S_max) 16,
//! `low_window` 14, `BICTCP_B` 4, `smooth_part` 20 = floor(ln(1/S_min) /
//! ln(B/(B-1)) + B) with S_min = 0.01 (the kernel's module-parameter
//! description gives this formula), fast convergence on, `initial_ssthresh`
//! 0 (off; 2.6.1x kernels used 100), no-loss cap 20, refresh HZ/32. The BIC
//! fairness study's values (beta 0.8, S_max 32, S_min 0.01, B 4) are set
//! through `beta`, `max_increment`, `s_min` and `b`; ns-3's smooth_part 5
//! corresponds to `s_min` ~ 0.7.

use crate::common::{
    additive_increase, additive_increase_26, floor_product, slow_start_then, AckRatio, GrowthMode,
};
use crate::params::params;
use crate::{AckInfo, AckSample, CaState, CongestionControl, NamedAlgorithm, Tcb, Time};

params! {
    /// BIC's parameters.
    pub struct BicParams for |p| {
        beta: f64 = 0.8, open_low(0.0, 1.0),
            "fraction of cwnd kept after a loss (Linux 819/1024 ~ 0.8)";
        max_increment: u32 = 16, closed(1.0, 1e9),
            "S_max, largest increase per RTT, packets (Linux 16; paper 32)";
        s_min: f64 = 0.01, open_low(0.0, 1.0),
            "S_min, smallest increase per RTT near W_max, packets; smooth_part = floor(ln(1/S_min)/ln(B/(B-1)) + B) (0.01 -> 20)";
        b: u32 = 4, closed(2.0, 1e6),
            "B, binary-search divisor: 1/B of the distance to W_max per RTT (Linux 4)";
        low_window: u32 = 14, closed(0.0, 1e9),
            "Reno at or below this window, packets (14)";
        fast_convergence: bool = true, unchecked(),
            "W_max = cwnd (1 + beta)/2 after a loss below the previous W_max (on)";
        ackratio_comp: bool = true, unchecked(),
            "divide cnt by the packets-per-ACK estimate as Linux does (on)";
        initial_ssthresh: f64 = 0.0, closed(0.0, 1e12),
            "initial ssthresh, packets; 0 = unchanged (Linux 0; 2.6.1x 100)";
        no_loss_max_cnt: u32 = 20, closed(1.0, 1e9),
            "largest cnt (packets per +1) before the first loss (20)";
        update_interval_s: f64 = 1.0 / 32.0, closed(0.0, 1e6),
            "cnt kept this long while cwnd is unchanged, s (Linux HZ/32)";
        growth_26: bool = false, unchecked(),
            "2.6-era counter: +1 packet per cnt + 1 ACKs (Linux before 3.19; off)";
    }
}

impl BicParams {
    /// `smooth_part = floor(ln(1/S_min) / ln(B/(B-1)) + B)`: RTTs to cover
    /// the last B packets below W_max (20 for S_min 0.01, B 4).
    pub fn smooth_part(&self) -> u32 {
        let b = f64::from(self.b);
        ((1.0 / self.s_min).ln() / (b / (b - 1.0)).ln() + b).floor() as u32
    }
}

/// Per-flow BIC state.
#[derive(Clone, Debug)]
pub struct Bic {
    params: BicParams,
    /// `smooth_part`, derived from S_min and B.
    smooth_part: u32,
    /// Packets acked per +1 packet.
    cnt: u32,
    /// W_max: the window at the last loss (0 before the first), packets.
    last_max_cwnd: u32,
    /// cwnd when `cnt` was last computed.
    last_cwnd: u32,
    /// When `cnt` was last computed.
    last_time: Time,
    /// Packets per ACK (Linux `delayed_ack`).
    delayed_ack: AckRatio,
}

impl NamedAlgorithm for Bic {
    const NAME: &'static str = "bic";
    const SUMMARY: &'static str =
        "BIC TCP: binary search toward the last loss window, max probing above it";
    type Params = BicParams;
    fn new(params: BicParams) -> Self {
        Bic {
            smooth_part: params.smooth_part(),
            params,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: Time::ZERO,
            delayed_ack: AckRatio::new(),
        }
    }
}

impl Bic {
    /// Forgets everything learnt (Linux `bictcp_reset`).
    fn reset(&mut self) {
        *self = Bic::new(self.params.clone());
    }

    /// Recomputes `cnt` for the integer window `cwnd` (Linux `bictcp_update`).
    fn update(&mut self, cwnd: u32, now: Time) {
        let p = &self.params;
        let interval = Time::from_secs_f64(p.update_interval_s);
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= interval {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now;
        if cwnd <= p.low_window {
            self.cnt = cwnd;
            return;
        }
        let (b, s_max, smooth) = (p.b, p.max_increment, self.smooth_part);
        let w_max = self.last_max_cwnd;
        let mut cnt = if cwnd < w_max {
            let dist = (w_max - cwnd) / b;
            if dist > s_max {
                cwnd / s_max
            } else if dist <= 1 {
                cwnd * smooth / b
            } else {
                cwnd / dist
            }
        } else if cwnd < w_max + b {
            cwnd * smooth / b
        } else if cwnd < w_max + s_max * (b - 1) {
            cwnd * (b - 1) / (cwnd - w_max)
        } else {
            cwnd / s_max
        };
        if w_max == 0 {
            cnt = cnt.min(p.no_loss_max_cnt);
        }
        if p.ackratio_comp {
            cnt = self.delayed_ack.compensate(cnt);
        }
        self.cnt = cnt.max(1);
    }
}

impl CongestionControl for Bic {
    /// The 2.6 module set no `min_cwnd`, so rate halving stopped at
    /// ssthresh (Linux 2.6 `tcp_cwnd_min`).
    fn min_cwnd(&self, tcb: &Tcb) -> f64 {
        tcb.ssthresh
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.reset();
        if self.params.initial_ssthresh > 0.0 {
            tcb.ssthresh = self.params.initial_ssthresh;
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        let cwnd = tcb.cwnd_pkts();
        let beta = self.params.beta;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.params.fast_convergence {
            floor_product(f64::from(cwnd), (1.0 + beta) / 2.0) as u32
        } else {
            cwnd
        };
        if cwnd <= self.params.low_window {
            f64::from(cwnd / 2).max(2.0)
        } else {
            floor_product(f64::from(cwnd), beta).max(2.0)
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        let acked = slow_start_then(tcb, ack.acked);
        if acked == 0 {
            return;
        }
        self.update(tcb.cwnd_pkts(), tcb.now);
        if self.params.growth_26 {
            additive_increase_26(tcb, f64::from(self.cnt), acked);
        } else {
            additive_increase(tcb, GrowthMode::Linux, f64::from(self.cnt), acked);
        }
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        if tcb.ca_state == CaState::Open {
            self.delayed_ack.sample(sample.acked);
        }
    }

    fn set_state(&mut self, _tcb: &mut Tcb, new_state: CaState) {
        if new_state == CaState::Loss {
            self.reset();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    /// BIC with the nominal rates of Linux `bictcp_update` (no ACK-ratio
    /// scaling).
    fn nominal() -> Bic {
        Bic::new(BicParams {
            ackratio_comp: false,
            ..BicParams::default()
        })
    }

    fn harness(bic: Bic, cwnd: f64) -> Harness<Bic> {
        Harness::new(bic, cwnd, 2.0).with_rtt(Time::from_ms(100))
    }

    #[test]
    fn smooth_part_from_s_min() {
        // Linux tcp_bic.c (smooth_part): smooth_part = ln(1/S_min)/ln(B/(B-1))
        // + B = 20.
        assert_eq!(BicParams::default().smooth_part(), 20);
        let binary = BicParams {
            b: 2,
            ..BicParams::default()
        };
        assert_eq!(binary.smooth_part(), 8); // ln 100 / ln 2 = 6.6, + 2
        let ns3 = BicParams {
            s_min: 0.7,
            ..BicParams::default()
        };
        assert_eq!(ns3.smooth_part(), 5);
    }

    #[test]
    fn reno_at_or_below_the_low_window() {
        // Linux bictcp_update (low_window): cnt = cwnd for cwnd <= 14 (no
        // ACK-ratio scaling there, even with the Linux default on): +1 per RTT;
        // loss halves.
        let mut h = harness(Bic::new(BicParams::default()), 5.0);
        for n in 1..=9 {
            h.round();
            assert_eq!(h.tcb.cwnd, 5.0 + f64::from(n));
        }
        let mut h = harness(nominal(), 13.0);
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 6.0);
        let mut h = harness(nominal(), 2.0);
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 2.0);
    }

    #[test]
    fn loss_keeps_beta_and_sets_w_max_with_fast_convergence() {
        // Linux bictcp_recalc_ssthresh: ssthresh = max(floor(0.8 cwnd), 2);
        // W_max = cwnd, or floor(cwnd (1 + beta)/2) below the previous W_max.
        let mut h = harness(nominal(), 1000.0);
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 800.0);
        assert_eq!(h.cc.last_max_cwnd, 1000);
        h.fast_loss(); // at 800 < 1000: fast convergence
        assert_eq!(h.tcb.ssthresh, 640.0);
        assert_eq!(h.cc.last_max_cwnd, 720);
        let off = BicParams {
            fast_convergence: false,
            ..BicParams::default()
        };
        let mut h = harness(Bic::new(off), 1000.0);
        h.fast_loss();
        h.fast_loss();
        assert_eq!(h.cc.last_max_cwnd, 800);
    }

    #[test]
    fn binary_search_and_max_probing() {
        // Linux bictcp_update (nominal rates): after a loss at
        // W = 1000 cwnd = 800; while W - cwnd > 64: +16/RTT;
        // then +floor((W - cwnd)/4) per RTT; within 7 of W: +1 per 5 RTTs
        // (0.2/RTT); above W: +0.2/RTT for 4 packets, then +(cwnd - W)/3
        // per RTT up to W + 48, then +16/RTT.
        let w = 1000.0;
        let mut h = harness(nominal(), w);
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, 800.0);
        let mut rounds_per_step = Vec::new();
        let mut since_step = 0;
        while h.tcb.cwnd < w + 100.0 {
            let c = h.tcb.cwnd;
            h.round();
            let inc = h.tcb.cwnd - c;
            since_step += 1;
            if inc > 0.0 {
                rounds_per_step.push((c, since_step));
                since_step = 0;
            }
            let below = w - c;
            if below >= 80.0 {
                // Linear while W - cwnd >= 64 (dist >= 16) for the whole RTT:
                // cnt = cwnd/16 on multiples of 16 -> exactly 16.
                assert_eq!(inc, 16.0, "cwnd {c}");
            } else if below >= 8.0 {
                // Binary search: +min(floor((W - cwnd)/4), S_max), the
                // distance shrinking within the RTT.
                let dist = (below / 4.0).floor().min(16.0);
                assert!(
                    inc <= dist && inc >= dist - 2.0,
                    "cwnd {c}: +{inc}, dist {dist}"
                );
            } else if c >= w + 48.0 {
                assert!((16.0..=17.0).contains(&inc), "cwnd {c}: +{inc}");
            } else if c >= w + 4.0 {
                // Exponential probing: cnt = 3 cwnd/(cwnd - W) -> +(cwnd - W)/3.
                let rate = (c - w) / 3.0;
                assert!(
                    inc >= rate.floor() - 1.0 && inc <= rate * 1.5 + 1.0,
                    "cwnd {c}: +{inc}"
                );
            }
        }
        // The smooth regions (W - 7 <= cwnd < W + 4): cnt = 5 cwnd, exactly
        // five RTTs per packet (0.2/RTT).
        let smooth: Vec<_> = rounds_per_step
            .iter()
            .filter(|(c, _)| *c >= w - 7.0 && *c < w + 4.0)
            .collect();
        assert!(smooth.len() >= 10, "{smooth:?}");
        assert!(smooth[1..].iter().all(|(_, r)| *r == 5), "{smooth:?}");
    }

    #[test]
    fn s_max_clamps_the_increase() {
        // Xu et al. 2004: with the BIC paper's S_max = 32 the
        // linear phase is +32/RTT (far from W_max the distance/B is 50 > 32).
        let study = BicParams {
            beta: 0.8,
            max_increment: 32,
            s_min: 0.01,
            b: 4,
            ackratio_comp: false,
            ..BicParams::default()
        };
        let mut h = harness(Bic::new(study), 1000.0);
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, 800.0);
        h.round();
        assert_eq!(h.tcb.cwnd, 832.0);
        // Before any loss the no-loss cap (cnt <= 20, 5%/RTT) applies
        // instead of S_max: 1000 -> +50.
        let mut h = harness(nominal(), 1000.0);
        h.round();
        assert_eq!(h.tcb.cwnd, 1050.0);
    }

    #[test]
    fn fairness_study_values_are_settable_by_name() {
        let json = serde_json::json!({"beta": 0.8, "max_increment": 32, "s_min": 0.01, "b": 4});
        let p: BicParams = crate::params::parse_overrides(&json).unwrap();
        assert_eq!(p.max_increment, 32);
        assert_eq!(p.smooth_part(), 20);
        let e = crate::params::parse_overrides::<BicParams>(&serde_json::json!({"b": 1}));
        assert_eq!(e.unwrap_err().field, "b");
    }

    #[test]
    fn linux_ack_ratio_estimator() {
        // Linux bictcp_acked. One packet per ACK: the integer EWMA goes
        // 32 -> 31 and stays (31 >> 4 = 1), so in the linear phase
        // cnt = floor(floor(cwnd/16) * 16/31): 25 for cwnd 800..815, 26 for
        // 816..831; 800 ACKs pay 16 steps of 25 and 15 of 26: +31 per RTT
        // instead of 16.
        let mut h = harness(Bic::new(BicParams::default()), 1000.0);
        h.fast_loss();
        h.round();
        assert_eq!(h.cc.delayed_ack.scaled(), 31);
        assert_eq!(h.tcb.cwnd, 831.0);
        // 2.6-era setting: per-ACK counting with an ACK every 2 packets keeps
        // the estimate at 32 (2 packets/ACK), cnt = 25 per ACK, 400 ACKs per
        // RTT -> +16: the compensation restores the nominal rate.
        let mut h = harness(Bic::new(BicParams::default()), 1000.0)
            .with_delayed_ack(2)
            .with_per_ack_counting();
        h.fast_loss();
        h.round();
        assert_eq!(h.cc.delayed_ack.scaled(), 32);
        assert_eq!(h.tcb.cwnd, 816.0);
        // Per-packet counting with delayed ACKs: double compensation, +32.
        let mut h = harness(Bic::new(BicParams::default()), 1000.0).with_delayed_ack(2);
        h.fast_loss();
        h.round();
        assert_eq!(h.tcb.cwnd, 832.0);
        // Without compensation, per-ACK counting halves growth (Linux 2.6,
        // tcp_abc = 0).
        let mut h = harness(nominal(), 1000.0)
            .with_delayed_ack(2)
            .with_per_ack_counting();
        h.fast_loss();
        h.round();
        assert_eq!(h.tcb.cwnd, 808.0);
    }

    #[test]
    fn rto_forgets_w_max() {
        // Linux bictcp_state: set_state(Loss) resets all BIC state.
        let mut h = harness(nominal(), 1000.0);
        h.rto();
        assert_eq!(h.tcb.ssthresh, 800.0);
        assert_eq!(h.cc.last_max_cwnd, 0);
        assert_eq!(h.tcb.cwnd, 1.0);
    }

    #[test]
    fn initial_ssthresh_is_optional() {
        let p = BicParams {
            initial_ssthresh: 100.0,
            ..BicParams::default()
        };
        let h = Harness::new(Bic::new(p), 10.0, f64::INFINITY);
        assert_eq!(h.tcb.ssthresh, 100.0);
        let h = Harness::new(Bic::new(BicParams::default()), 10.0, f64::INFINITY);
        assert_eq!(h.tcb.ssthresh, f64::INFINITY);
    }
}
