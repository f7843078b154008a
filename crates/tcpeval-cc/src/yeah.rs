//! YeAH-TCP, "Yet Another Highspeed TCP" (Baiocchi, Castellani, Vacirca,
//! PFLDnet 2007; Linux `net/ipv4/tcp_yeah.c`; ns-3 `tcp-yeah.cc`).
//!
//! Two growth modes chosen once per RTT from Vegas-style delay state:
//!
//! * fast mode: Scalable TCP, `AI(min(cwnd, ai_cnt), acked)` (+1 packet per
//!   `min(cwnd, 100)` acked, i.e. +1 %/RTT above 100 packets);
//! * slow mode: Reno, `AI(cwnd, acked)`.
//!
//! At the end of each RTT (first ACK beyond the `snd_nxt` of the round's
//! start, with at least `min_rtt_samples` RTT samples in the round), with
//! `RTT` the round's minimum sample and `baseRTT` the connection's minimum:
//! `Q = cwnd (RTT - baseRTT) / RTT` packets. Slow mode if `Q > q_max` or
//! `RTT - baseRTT > baseRTT / phi`; then, if `Q > q_max` and
//! `cwnd > reno_count`, precautionary decongestion
//! `cwnd = max(cwnd - min(Q / gamma, cwnd / 2^epsilon), reno_count)`,
//! `ssthresh = cwnd`; `reno_count` doubles as the Reno-competition estimate
//! (`max(cwnd/2, 2)` when small, else +1 per slow RTT). In fast mode
//! `fast_count` counts RTTs and resets `reno_count` to 2 after `zeta` of
//! them. On loss, unless the flow has been in slow mode for `rho` RTTs
//! (competing with Reno), the cut is `max(min(lastQ, cwnd/2), cwnd/2^delta)`
//! instead of `cwnd/2`.
//!
//! Defaults are the Linux (= ns-3) constants, read in `tcp_yeah.c`:
//! `TCP_YEAH_ALPHA` 80, `GAMMA` 1, `DELTA` 3, `EPSILON` 1, `PHY` 8, `RHO` 16,
//! `ZETA` 50, `TCP_SCALABLE_AI_CNT` 100 (modern kernels pass the packets
//! acked to the Scalable rule; 2.6.22 scaled its step by packets per ACK).
//! `counters_26` reproduces the 2.6.22 module's counters (fast mode adds the
//! packets each ACK acked, which per-ACK counting otherwise hides); the
//! 2.6-era presets set it. Linux holds windows and the queue estimate in integers: in `growth =
//! "linux"` mode `Q`, the reductions and the halvings are floored as there;
//! `"float"` keeps them exact.
//!
//! Differences from Linux, by choice: the per-RTT update pauses outside the
//! Open state (RTT samples around a loss are ambiguous; Linux YeAH also runs it
//! during the Loss-state slow start after an RTO), and Linux's overflow guard
//! `cwnd_clamp <= 2^32/128` is not needed with floating-point windows. As in
//! Linux, baseRTT is never aged and is reset on idle restart
//! (`tcp_vegas_cwnd_event`).

use crate::common::{additive_increase, slow_start, GrowthMode, RttRound};
use crate::params::params;
use crate::{AckInfo, AckSample, CaState, CongestionControl, CwndEvent, NamedAlgorithm, Tcb, Time};

params! {
    /// YeAH-TCP's parameters (Linux names in parentheses).
    pub struct YeahParams for |p| {
        q_max: f64 = 80.0, closed(0.0, 1e9),
            "packets: own backlog above which YeAH enters slow mode and decongests (Linux 80)";
        gamma: f64 = 1.0, open_low(0.0, 1e6),
            "decongestion removes Q/gamma packets per RTT (Linux 1)";
        delta: u32 = 3, closed(0.0, 31.0),
            "log2: a loss removes at least cwnd/2^delta packets (Linux 3 = 1/8)";
        epsilon: u32 = 1, closed(0.0, 31.0),
            "log2: decongestion removes at most cwnd/2^epsilon packets (Linux 1 = 1/2)";
        phi: u32 = 8, closed(1.0, 1e6),
            "slow mode when queueing delay exceeds baseRTT/phi (Linux 8)";
        rho: u32 = 16, unchecked(),
            "RTTs: after this many consecutive slow-mode RTTs a loss halves cwnd (Linux 16)";
        zeta: u32 = 50, unchecked(),
            "RTTs: fast-mode RTTs after which reno_count resets to 2 (Linux 50)";
        ai_cnt: f64 = 100.0, closed(1.0, 1e9),
            "packets: Scalable increase of +1 per min(cwnd, ai_cnt) packets acked (Linux 100)";
        min_rtt_samples: u32 = 3, closed(1.0, 1e6),
            "RTT samples a round needs for the per-RTT update (Linux 3)";
        growth: GrowthMode = GrowthMode::Linux, unchecked(),
            "window arithmetic: \"linux\" (integer + counter, floored Q) or \"float\" (ns-2)";
        counters_26: bool = false, unchecked(),
            "2.6.22 tcp_yeah.c counters: fast mode adds pkts_acked, +1 once above min(cwnd, ai_cnt); slow mode +1 per cwnd ACKs (off)";
    }
}

/// Per-flow YeAH-TCP state.
#[derive(Clone, Debug)]
pub struct Yeah {
    params: YeahParams,
    /// baseRTT, the current round's minRTT and cntRTT, pause outside Open.
    round: RttRound,
    /// Backlog estimate `Q` of the last per-RTT update, packets.
    last_q: f64,
    /// Consecutive slow-mode (Reno) RTTs; 0 while in fast mode.
    doing_reno_now: u32,
    /// Estimate of the window share of competing Reno flows, packets (>= 2).
    reno_count: f64,
    /// Fast-mode RTTs since reno_count was last reset.
    fast_count: u32,
    /// Packets the last ACK acked in the Open state (`counters_26`; Linux
    /// 2.6.22 `yeah->pkts_acked`, back to 1 after each fast-mode use).
    pkts_acked: u32,
}

impl NamedAlgorithm for Yeah {
    const NAME: &'static str = "yeah";
    const SUMMARY: &'static str =
        "YeAH-TCP: Scalable increase while the own backlog is small, Reno and decongestion otherwise";
    type Params = YeahParams;
    fn new(params: YeahParams) -> Self {
        Yeah {
            params,
            round: RttRound::default(),
            last_q: 0.0,
            doing_reno_now: 0,
            reno_count: 2.0,
            fast_count: 0,
            pkts_acked: 1,
        }
    }
}

impl Yeah {
    /// `x` as Linux's integer arithmetic gives it (floored) in Linux mode.
    fn int(&self, x: f64) -> f64 {
        match self.params.growth {
            GrowthMode::Linux => x.floor(),
            GrowthMode::Float => x,
        }
    }

    /// One congestion-avoidance ACK with the 2.6.22 module's counters
    /// (`counters_26`; `tcp_yeah_cong_avoid`).
    fn grow_26(&mut self, tcb: &mut Tcb) {
        let cwnd = tcb.cwnd_pkts();
        let grow = if self.doing_reno_now == 0 {
            tcb.cwnd_cnt += self.pkts_acked;
            self.pkts_acked = 1;
            f64::from(tcb.cwnd_cnt) > tcb.cwnd.min(self.params.ai_cnt)
        } else {
            if tcb.cwnd_cnt < cwnd {
                tcb.cwnd_cnt += 1;
            }
            tcb.cwnd_cnt >= cwnd
        };
        if grow {
            if tcb.cwnd < tcb.cwnd_clamp {
                tcb.cwnd += 1.0;
            }
            tcb.cwnd_cnt = 0;
        }
    }

    /// The once-per-RTT decision with the round's minimum RTT `rtt` and the
    /// connection's `base` RTT (Linux `tcp_yeah_cong_avoid`).
    fn per_rtt_update(&mut self, tcb: &mut Tcb, rtt: Time, base: Time) {
        let p = &self.params;
        let queue_delay = rtt.saturating_sub(base);
        let q = self.int(tcb.cwnd * queue_delay.ps() as f64 / rtt.ps() as f64);
        let delay_high = u128::from(queue_delay.ps()) * u128::from(p.phi) > u128::from(base.ps());
        if q > p.q_max || delay_high {
            if q > p.q_max && tcb.cwnd > self.reno_count {
                let most = self.int(tcb.cwnd / f64::from(1u32 << p.epsilon));
                let reduction = self.int(q / p.gamma).min(most);
                tcb.cwnd = (tcb.cwnd - reduction).max(self.reno_count);
                tcb.ssthresh = tcb.cwnd;
            }
            if self.reno_count <= 2.0 {
                self.reno_count = self.int(tcb.cwnd / 2.0).max(2.0);
            } else {
                self.reno_count += 1.0;
            }
            self.doing_reno_now = self.doing_reno_now.saturating_add(1);
        } else {
            self.fast_count += 1;
            if self.fast_count > self.params.zeta {
                self.reno_count = 2.0;
                self.fast_count = 0;
            }
            self.doing_reno_now = 0;
        }
        self.last_q = q;
    }
}

impl CongestionControl for Yeah {
    fn init(&mut self, tcb: &mut Tcb) {
        self.round.enable(tcb);
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        let half = self.int(tcb.cwnd / 2.0).max(2.0);
        let reduction = if self.doing_reno_now < self.params.rho {
            let least = self.int(tcb.cwnd / f64::from(1u32 << self.params.delta));
            self.last_q.min(half).max(least)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = self.int(self.reno_count / 2.0).max(2.0);
        (tcb.cwnd - reduction).max(2.0)
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        if tcb.ca_state == CaState::Open {
            self.pkts_acked = sample.acked;
        }
        if let Some(rtt) = sample.rtt {
            self.round.on_sample(tcb.now, rtt);
        }
    }

    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        self.round.set_state(tcb, new_state);
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
        if matches!(event, CwndEvent::TxStart | CwndEvent::CwndRestart) {
            // tcp_vegas_cwnd_event re-initialises the Vegas state, baseRTT included.
            self.round = RttRound::default();
            self.round.enable(tcb);
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        let mut acked = ack.acked;
        if tcb.in_slow_start() {
            acked = slow_start(tcb, acked);
        }
        if acked > 0 && self.params.counters_26 {
            self.grow_26(tcb);
        } else if acked > 0 {
            let w = if self.doing_reno_now == 0 {
                tcb.cwnd.min(self.params.ai_cnt)
            } else {
                tcb.cwnd
            };
            additive_increase(tcb, self.params.growth, w, acked);
        }
        if self.round.round_ended(ack.ack_seq) {
            if let Some((rtt, base)) = self.round.sampled(self.params.min_rtt_samples) {
                self.per_rtt_update(tcb, rtt, base);
            }
            self.round.next_round(tcb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamSet;
    use crate::testing::Harness;
    use crate::UNLIMITED;

    fn yeah() -> Yeah {
        Yeah::new(YeahParams::default())
    }

    /// cwnd after `acks` ACKs of 2 packets each, per-ACK counting, with the
    /// 2.6.22 counters, in fast (`reno` false) or slow mode.
    fn after_acks_26(reno: bool, acks: u32) -> (f64, u32) {
        let p = YeahParams {
            counters_26: true,
            ..YeahParams::default()
        };
        let mut h = Harness::new(Yeah::new(p), 1000.0, 2.0)
            .with_delayed_ack(2)
            .with_per_ack_counting();
        h.cc.doing_reno_now = u32::from(reno);
        for _ in 0..acks {
            h.ack(2, None);
        }
        (h.tcb.cwnd, h.tcb.cwnd_cnt)
    }

    #[test]
    fn counters_26_fast_mode_counts_packets_acked() {
        // tcp_yeah.c 2.6.22: snd_cwnd_cnt += pkts_acked (2 here); +1 once
        // it exceeds min(cwnd, 100): the 51st ACK (102 packets), not the
        // 100th ACK that per-ACK counting alone would give.
        assert_eq!(after_acks_26(false, 50), (1000.0, 100));
        assert_eq!(after_acks_26(false, 51), (1001.0, 0));
    }

    #[test]
    fn counters_26_slow_mode_counts_acks() {
        // Reno branch: +1 per cwnd ACKs, whatever each ACK covers.
        assert_eq!(after_acks_26(true, 999).0, 1000.0);
        assert_eq!(after_acks_26(true, 1000), (1001.0, 0));
    }

    fn ms(x: u64) -> Time {
        Time::from_ms(x)
    }

    /// The per-RTT rule applied to a flow with window `cwnd`.
    fn update(y: &mut Yeah, cwnd: f64, rtt: Time, base: Time) -> Tcb {
        let mut t = Tcb::new(cwnd, UNLIMITED, 1448);
        y.per_rtt_update(&mut t, rtt, base);
        t
    }

    #[test]
    fn fast_mode_is_scalable_and_slow_mode_is_reno() {
        // Linux tcp_yeah_cong_avoid: fast mode AI(min(cwnd, 100)) = +cwnd/100
        // per RTT above 100 packets; slow mode AI(cwnd) = +1 per RTT.
        let mut h = Harness::new(yeah(), 500.0, 100.0).with_rtt(ms(100));
        h.round();
        for _ in 0..3 {
            let before = h.tcb.cwnd;
            h.round();
            assert_eq!(h.tcb.cwnd, before + (before / 100.0).floor());
            assert_eq!(h.cc.doing_reno_now, 0);
        }
        // Queueing delay 13 ms > baseRTT/phi = 12.5 ms with Q = 500*13/113 < 80:
        // slow mode without decongestion, from the first full round at 113 ms.
        h = h.with_rtt(ms(113));
        h.rounds(2);
        for n in 0..5 {
            let before = h.tcb.cwnd;
            h.round();
            assert_eq!(h.tcb.cwnd, before + 1.0);
            assert_eq!(h.cc.doing_reno_now, 2 + n);
        }
        assert!(h.cc.last_q <= 80.0);
    }

    #[test]
    fn mode_switch_thresholds() {
        // Linux tcp_yeah_cong_avoid: slow iff Q >
        // q_max or RTT
        // - baseRTT > baseRTT/phi.
        let base = ms(100);
        // Queueing delay exactly baseRTT/8 = 12.5 ms, Q = floor(600*12.5/112.5) = 66: fast.
        let mut y = yeah();
        update(&mut y, 600.0, Time::from_us(112_500), base);
        assert_eq!((y.doing_reno_now, y.fast_count, y.last_q), (0, 1, 66.0));
        // 1 ps more delay: slow, no decongestion (Q <= 80).
        let t = update(&mut y, 600.0, Time::from_ps(112_500_000_001), base);
        assert_eq!((y.doing_reno_now, t.cwnd), (1, 600.0));
        assert_eq!(y.reno_count, 300.0);
        // Q = floor(890 * 10/110) = 80: not above q_max, delay 10 ms < 12.5: fast.
        let mut y = yeah();
        let t = update(&mut y, 890.0, ms(110), base);
        assert_eq!((y.last_q, y.doing_reno_now, t.cwnd), (80.0, 0, 890.0));
        // Q = floor(891 * 10/110) = 81 > 80: slow mode with decongestion by Q/gamma = 81.
        let t = update(&mut y, 891.0, ms(110), base);
        assert_eq!((y.last_q, y.doing_reno_now), (81.0, 1));
        assert_eq!((t.cwnd, t.ssthresh), (810.0, 810.0));
        assert_eq!(y.reno_count, 405.0); // was 2 -> max(cwnd/2, 2)
    }

    #[test]
    fn decongestion_never_below_reno_count_nor_more_than_half() {
        // Linux tcp_yeah_cong_avoid, decongestion: cwnd' = max(cwnd -
        // min(Q/gamma, cwnd/2), reno_count).
        let base = ms(100);
        // Q = 300*50/150 = 100 would leave 200 < reno_count 250: stop at 250.
        let mut y = yeah();
        y.reno_count = 250.0;
        let t = update(&mut y, 300.0, ms(150), base);
        assert_eq!((t.cwnd, t.ssthresh), (250.0, 250.0));
        assert_eq!(y.reno_count, 251.0); // > 2: +1 per slow RTT

        // Q = 300*300/400 = 225 > cwnd/2: cut by exactly half.
        let mut y = yeah();
        let t = update(&mut y, 300.0, ms(400), base);
        assert_eq!(t.cwnd, 150.0);
        // cwnd <= reno_count: no decongestion at all.
        let mut y = yeah();
        y.reno_count = 300.0;
        let t = update(&mut y, 300.0, ms(400), base);
        assert_eq!((t.cwnd, t.ssthresh), (300.0, UNLIMITED));
    }

    #[test]
    fn fast_count_resets_reno_count_after_zeta_rtts() {
        // Linux tcp_yeah_cong_avoid: fast_count > zeta -> reno_count = 2,
        // fast_count = 0.
        let mut y = yeah();
        y.reno_count = 40.0;
        for _ in 0..50 {
            update(&mut y, 100.0, ms(100), ms(100));
        }
        assert_eq!((y.reno_count, y.fast_count), (40.0, 50));
        update(&mut y, 100.0, ms(100), ms(100));
        assert_eq!((y.reno_count, y.fast_count), (2.0, 0));
    }

    #[test]
    fn loss_rule() {
        // Linux tcp_yeah_ssthresh: red = max(min(lastQ, max(cwnd/2, 2)),
        // cwnd/8) unless doing_reno_now >= rho, then red = max(cwnd/2, 2);
        // ssthresh = cwnd - red.
        let t = Tcb::new(200.0, UNLIMITED, 1448);
        let cut = |last_q: f64, reno_rtts: u32| {
            let mut y = yeah();
            y.last_q = last_q;
            y.doing_reno_now = reno_rtts;
            200.0 - y.ssthresh(&t)
        };
        assert_eq!(cut(10.0, 0), 25.0); // at least cwnd/8
        assert_eq!(cut(60.0, 15), 60.0); // the backlog
        assert_eq!(cut(150.0, 0), 100.0); // at most cwnd/2
        assert_eq!(cut(10.0, 16), 100.0); // competing with Reno: halve

        // reno_count halves (floor 2), fast_count clears.
        let mut y = yeah();
        y.reno_count = 41.0;
        y.fast_count = 7;
        y.ssthresh(&t);
        assert_eq!((y.reno_count, y.fast_count), (20.0, 0));
        y.reno_count = 3.0;
        y.ssthresh(&t);
        assert_eq!(y.reno_count, 2.0);
    }

    #[test]
    fn equilibrium_backlog_stays_near_q_max_on_a_bottleneck() {
        // Baiocchi et al. 2007: loss-free equilibrium with a large buffer keeps
        // the own backlog near Q_max = 80 packets and the queueing delay below
        // baseRTT/8. BDP 1000 packets, so baseRTT/8 is 125 packets of queue and
        // Q_max binds. The Vegas-style estimate lags: the decision at a round's
        // first ACK uses the previous round's RTTs, whose window was set before
        // the previous decision, so a peak may pass 80 by up to two RTTs of
        // Scalable growth (2 * ceil(cwnd/100)).
        let mut h =
            Harness::new(yeah(), 10.0, UNLIMITED).with_bottleneck(ms(100), 10_000.0, f64::INFINITY);
        h.rounds(200);
        let bdp = h.bdp();
        let (mut sum, mut max, mut max_cwnd) = (0.0, 0.0f64, 0.0f64);
        for _ in 0..400 {
            let backlog = (h.tcb.cwnd.floor() - bdp).max(0.0);
            sum += backlog;
            max = max.max(backlog);
            max_cwnd = max_cwnd.max(h.tcb.cwnd);
            h.round();
        }
        assert_eq!(h.losses, 0);
        let lag = 2.0 * (max_cwnd / 100.0).ceil();
        assert!(max <= 80.0 + lag, "peak backlog {max}");
        assert!(max > 80.0, "the queue is driven up to Q_max: {max}");
        assert!(sum / 400.0 <= 80.0, "mean backlog {}", sum / 400.0);
        let peak_delay = max / 10_000.0;
        assert!(
            peak_delay <= ms(100).secs() / 8.0,
            "queueing delay {peak_delay}"
        );
        // Decongestion, not loss, holds the queue: ssthresh = cwnd was set.
        assert!(h.tcb.ssthresh < 2.0 * bdp);
    }

    #[test]
    fn per_rtt_update_pauses_outside_open() {
        // tcpeval's choice (docs/decisions.md): no per-RTT decisions outside
        // Open (here the Loss state after an RTO); entering Open starts a fresh
        // round.
        let mut y = yeah();
        let mut t = Tcb::new(300.0, 100.0, 1448);
        y.init(&mut t);
        let ack = |y: &mut Yeah, t: &mut Tcb, rtt: Time| {
            t.snd_una += 1;
            y.pkts_acked(
                t,
                &AckSample {
                    acked: 1,
                    rtt: Some(rtt),
                },
            );
            let info = AckInfo {
                acked: 1,
                ack_seq: t.snd_una,
            };
            y.cong_avoid(t, &info);
        };
        t.snd_nxt = 300;
        ack(&mut y, &mut t, ms(100)); // baseRTT 100 ms
        y.set_state(&mut t, CaState::Loss);
        for _ in 0..400 {
            ack(&mut y, &mut t, ms(200)); // 100 ms of queueing: slow mode if active
        }
        assert_eq!((y.fast_count, y.doing_reno_now), (0, 0));
        t.snd_nxt = 700;
        y.set_state(&mut t, CaState::Open);
        for _ in 0..299 {
            ack(&mut y, &mut t, ms(200));
        }
        assert_eq!(t.snd_una, 700);
        assert_eq!(
            y.doing_reno_now, 0,
            "round not over before snd_una passes 700"
        );
        ack(&mut y, &mut t, ms(200));
        assert_eq!(y.doing_reno_now, 1);
    }

    #[test]
    fn parameters_are_validated() {
        let bad = YeahParams {
            phi: 0,
            ..YeahParams::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "phi");
        assert!(YeahParams::default().validate().is_ok());
    }
}
