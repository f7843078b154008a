//! TCP-Africa (King, Baraniuk, Riedi, "TCP-Africa: An Adaptive and Fair
//! Rapid Increase Rule for Scalable TCP", IEEE INFOCOM 2005, pp. 1838-1848;
//! reconstructed, see Sources below).
//!
//! A delay-sensitive switch between two congestion-avoidance rules, decided
//! on every ACK from the flow's estimated own backlog (the Vegas "diff")
//! `backlog = cwnd * (avgRTT - minRTT) / avgRTT` packets:
//!
//! * `backlog < alpha` (fast mode, the path looks under-used): HighSpeed TCP
//!   increase, `cwnd += a(cwnd) / cwnd` per ACK (RFC 3649 `a(w)`);
//! * otherwise (slow mode, a queue is building): Reno, `cwnd += 1 / cwnd`.
//!
//! On a loss `ssthresh = cwnd * (1 - b(cwnd))` with the HighSpeed `b(w)`
//! (`decrease = "hstcp"`, default), or `cwnd / 2` (`decrease = "half"`).
//! Slow start and RTO are standard.
//!
//! Sources and choices:
//! * The mode test, the two increase rules and the "HighSpeed increase, Reno
//!   fallback" structure: the paper's abstract (fast, scalable behaviour on
//!   under-utilised links, falling back to Reno "once links become well
//!   utilized and congestion is imminent") and the Linux port by D. Jansens
//!   as preserved in its derivative `tcp_china.c` (which keeps the Africa
//!   header comment, the RTT state and the HighSpeed increase/decrease but
//!   drops the mode test).
//! * `minRTT` = minimum sample, `avgRTT` = EWMA with weight 1/8 on the new
//!   sample (7/8 old): confirmed in `tcp_china.c` (`artt += rtt/8 - artt/8`,
//!   first sample initialises it).
//! * HighSpeed decrease on loss (`decrease = "hstcp"`): confirmed in
//!   `tcp_china.c` (`ssthresh = cwnd - cwnd * md / 256`). The paper's wording
//!   is ambiguous, so halving is offered as `decrease = "half"`.
//! * The fast-mode increase is counted once per ACK (`per_ack_increase`,
//!   default on): the Linux port adds `ai + 1` to its counter per call of
//!   `cong_avoid`, whatever the ACK acknowledges, as `tcp_highspeed.c` does
//!   (`hstcp_cong_avoid`), so with delayed ACKs it grows half as fast as
//!   the per-packet rule, which `per_ack_increase = false` gives. Slow
//!   (Reno) mode counts packets, as the kernel's Reno does.
//! * `a(w)`, `b(w)` use the RFC 3649 formulas ([`crate::common::hstcp_a`]),
//!   not the Linux 72-row table; the two differ by at most 1 packet/RTT in
//!   `a(w)` (see `highspeed.rs`). Up to `low_window` (38) `a = 1` and
//!   `b = 1/2`, so below it both modes are Reno.
//! * `alpha = 1.5` packets: **not confirmed**. Only the paper's abstract and
//!   bibliographic records could be retrieved, and the derived Linux code has
//!   no mode test; the value is recalled from the paper, unconfirmed
//!   (docs/decisions.md).
//! * Before the first RTT sample the backlog is unknown and slow (Reno) mode
//!   is used (a choice of this implementation; the sources are silent).

use crate::common::{
    additive_increase, hstcp_a, hstcp_b, reno_ssthresh, slow_start_then, GrowthMode, Hstcp,
};
use crate::params::params;
use crate::{AckInfo, AckSample, CongestionControl, NamedAlgorithm, Tcb};
use serde::{Deserialize, Serialize};

/// The loss response of TCP-Africa.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AfricaDecrease {
    /// HighSpeed decrease: `ssthresh = cwnd * (1 - b(cwnd))` (Linux port).
    #[default]
    Hstcp,
    /// Reno halving: `ssthresh = cwnd / 2`.
    Half,
}

params! {
    /// TCP-Africa's parameters.
    pub struct AfricaParams for |p| {
        alpha: f64 = 1.5, closed(0.0, 1e6),
            "packets: own-backlog estimate below which the HighSpeed (fast) increase is used (1.5, unconfirmed)";
        rtt_gain: f64 = 0.125, open_low(0.0, 1.0),
            "weight of a new RTT sample in the avgRTT EWMA (1/8, Linux port)";
        decrease: AfricaDecrease = AfricaDecrease::Hstcp, unchecked(),
            "loss response: \"hstcp\" (ssthresh = cwnd (1 - b(cwnd)), Linux port) or \"half\"";
        low_window: f64 = Hstcp::RFC3649.low_window, closed(1.0, 1e9),
            "packets: HighSpeed Low_Window, Reno behaviour up to it (RFC 3649: 38)";
        high_window: f64 = Hstcp::RFC3649.high_window, closed(p.low_window + 1.0, 1e12),
            "packets: HighSpeed High_Window (RFC 3649: 83000)";
        low_p: f64 = Hstcp::RFC3649.low_p, open_low(0.0, 1.0),
            "loss rate per packet at low_window (RFC 3649: 1e-3)";
        high_p: f64 = Hstcp::RFC3649.high_p, open_low(0.0, p.low_p),
            "loss rate per packet at high_window (RFC 3649: 1e-7)";
        high_decrease: f64 = Hstcp::RFC3649.high_decrease, open_low(0.0, 0.5),
            "fraction of cwnd removed on loss at high_window (RFC 3649: 0.1)";
        growth: GrowthMode = GrowthMode::Linux, unchecked(),
            "window arithmetic: \"linux\" (integer + counter) or \"float\" (ns-2)";
        per_ack_increase: bool = true, unchecked(),
            "fast-mode increase a(w)/w once per ACK, whatever it acks (Linux port, on); off: per packet acked";
    }
}

impl AfricaParams {
    fn hstcp(&self) -> Hstcp {
        Hstcp {
            low_window: self.low_window,
            high_window: self.high_window,
            low_p: self.low_p,
            high_p: self.high_p,
            high_decrease: self.high_decrease,
        }
    }
}

/// Per-flow TCP-Africa state.
#[derive(Clone, Debug)]
pub struct Africa {
    params: AfricaParams,
    hs: Hstcp,
    /// Smallest RTT sample, seconds (propagation-delay estimate).
    min_rtt: Option<f64>,
    /// EWMA of RTT samples, seconds.
    avg_rtt: Option<f64>,
}

impl NamedAlgorithm for Africa {
    const NAME: &'static str = "africa";
    const SUMMARY: &'static str =
        "TCP-Africa: HighSpeed increase while the own backlog < alpha, Reno otherwise";
    type Params = AfricaParams;
    fn new(params: AfricaParams) -> Self {
        let hs = params.hstcp();
        Africa {
            params,
            hs,
            min_rtt: None,
            avg_rtt: None,
        }
    }
}

impl Africa {
    /// Estimated own backlog `cwnd * (avgRTT - minRTT) / avgRTT` in packets,
    /// or `None` before the first RTT sample.
    fn backlog(&self, cwnd: f64) -> Option<f64> {
        match (self.avg_rtt, self.min_rtt) {
            (Some(avg), Some(min)) if avg > 0.0 => Some(cwnd * (avg - min) / avg),
            _ => None,
        }
    }

    /// Fast (HighSpeed) mode: the backlog estimate is below `alpha`.
    fn fast_mode(&self, cwnd: f64) -> bool {
        self.backlog(cwnd).is_some_and(|q| q < self.params.alpha)
    }
}

impl CongestionControl for Africa {
    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        let linux = self.params.growth == GrowthMode::Linux;
        match self.params.decrease {
            AfricaDecrease::Hstcp => {
                let cut = tcb.cwnd * hstcp_b(tcb.cwnd, &self.hs);
                let cut = if linux { cut.floor() } else { cut };
                (tcb.cwnd - cut).max(2.0)
            }
            AfricaDecrease::Half if linux => reno_ssthresh(tcb, 0.5),
            AfricaDecrease::Half => (tcb.cwnd * 0.5).max(2.0),
        }
    }

    fn pkts_acked(&mut self, _tcb: &Tcb, sample: &AckSample) {
        let Some(rtt) = sample.rtt else { return };
        let r = rtt.secs();
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.avg_rtt = Some(match self.avg_rtt {
            None => r,
            Some(avg) => avg + self.params.rtt_gain * (r - avg),
        });
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        let acked = slow_start_then(tcb, ack.acked);
        if acked == 0 {
            return;
        }
        let cwnd = tcb.cwnd;
        // Packets per +1: cwnd / a(cwnd) in fast mode, cwnd in slow mode.
        let (w, counted) = if self.fast_mode(cwnd) {
            let counted = if self.params.per_ack_increase {
                1
            } else {
                acked
            };
            (cwnd / hstcp_a(cwnd, &self.hs), counted)
        } else {
            (cwnd, acked)
        };
        additive_increase(tcb, self.params.growth, w, counted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamSet;
    use crate::testing::Harness;
    use crate::time::Time;
    use crate::UNLIMITED;

    fn africa() -> Africa {
        Africa::new(AfricaParams::default())
    }

    #[test]
    fn mode_switches_where_the_backlog_estimate_reaches_alpha() {
        // King et al. 2005: fast iff cwnd (avgRTT - minRTT)/avgRTT < alpha = 1.5.
        // minRTT 100 ms, avgRTT 101 ms: backlog = cwnd / 101, so cwnd 151
        // (1.495) is fast and cwnd 152 (1.505) is slow.
        let mut h = Harness::new(africa(), 151.0, 10.0);
        h.ack(1, Some(Time::from_ms(100)));
        for _ in 0..400 {
            h.ack(0, Some(Time::from_ms(101)));
        }
        assert!((h.cc.avg_rtt.unwrap() - 0.101).abs() < 1e-12);
        assert!(h.cc.fast_mode(151.0));
        assert!(!h.cc.fast_mode(152.0));
        // The EWMA weight is 1/8 (tcp_china.c): one 109 ms sample moves avg by 1 ms.
        h.ack(0, Some(Time::from_ms(109)));
        assert!((h.cc.avg_rtt.unwrap() - 0.102).abs() < 1e-12);
    }

    #[test]
    fn bottleneck_fast_until_backlog_reaches_alpha_then_reno() {
        // King et al. 2005 on a fluid bottleneck (BDP 100 pkts, no loss): with an
        // empty queue the flow grows by the HighSpeed a(w) > 1 per RTT; once
        // its own backlog w - 100 is >= 2 (> alpha) it grows exactly +1/RTT.
        let mut h = Harness::new(africa(), 60.0, 50.0).with_bottleneck(
            Time::from_ms(100),
            1000.0,
            f64::INFINITY,
        );
        let hs = Hstcp::RFC3649;
        let mut fast_rounds = 0;
        let mut slow_rounds = 0;
        for _ in 0..60 {
            let before = h.tcb.cwnd;
            h.round();
            let grew = h.tcb.cwnd - before;
            if before + 1.0 <= h.bdp() {
                // Fast mode: a(w) per RTT, within the integer counter's rounding.
                assert!((grew - hstcp_a(before, &hs)).abs() <= 1.0, "w {before}");
                fast_rounds += 1;
            } else if before >= h.bdp() + 4.0 {
                assert_eq!(grew, 1.0, "w {before}");
                slow_rounds += 1;
            }
        }
        assert!(fast_rounds >= 10 && slow_rounds >= 20);
        assert_eq!(h.losses, 0);
    }

    #[test]
    fn fast_mode_increase_is_the_highspeed_a_of_w() {
        // King et al. 2005 / RFC 3649 section 5: cwnd += a(cwnd)/cwnd per
        // packet (float form).
        let p = AfricaParams {
            growth: GrowthMode::Float,
            ..AfricaParams::default()
        };
        let mut h = Harness::new(Africa::new(p), 1000.0, 10.0).with_rtt(Time::from_ms(50));
        h.round();
        let hs = Hstcp::RFC3649;
        let expected = (0..1000).fold(1000.0, |c: f64, _| c + hstcp_a(c, &hs) / c);
        assert!((h.tcb.cwnd - expected).abs() < 1e-9);
        // a(1000) ~ 7.9 packets per RTT, far above Reno's 1.
        assert!((h.tcb.cwnd - 1000.0 - hstcp_a(1000.0, &hs)).abs() < 0.05);
        assert!(hstcp_a(1000.0, &hs) > 7.5);
    }

    #[test]
    fn fast_mode_counts_each_ack_once_unless_told_to_count_packets() {
        // Linux port (per_ack_increase, default): a(w)/w per ACK, so with an
        // ACK every 2 packets one RTT of 1000 packets adds about a(w)/2;
        // per_ack_increase = false adds a(w)/w per packet, about a(w).
        let hs = Hstcp::RFC3649;
        for (per_ack, step) in [(true, 1.0), (false, 2.0)] {
            let p = AfricaParams {
                growth: GrowthMode::Float,
                per_ack_increase: per_ack,
                ..AfricaParams::default()
            };
            let mut h = Harness::new(Africa::new(p), 1000.0, 10.0)
                .with_rtt(Time::from_ms(50))
                .with_delayed_ack(2);
            h.round();
            let expected = (0..500).fold(1000.0, |c: f64, _| c + step * hstcp_a(c, &hs) / c);
            assert!((h.tcb.cwnd - expected).abs() < 1e-9, "per_ack {per_ack}");
        }
    }

    #[test]
    fn slow_mode_increase_is_reno() {
        // King et al. 2005: backlog >= alpha -> cwnd += 1/cwnd per packet
        // (+1/RTT).
        let mut h = Harness::new(africa(), 500.0, 10.0);
        h.ack(0, Some(Time::from_ms(100)));
        h = h.with_rtt(Time::from_ms(110)); // backlog ~ 500 * 10/110 >> 1.5
        h.round();
        for n in 1..=5 {
            let before = h.tcb.cwnd;
            h.round();
            assert_eq!(h.tcb.cwnd, before + 1.0, "round {n}");
        }
    }

    #[test]
    fn hstcp_decrease_uses_b_of_w() {
        // tcp_china.c (Linux port): ssthresh = cwnd - floor(cwnd * b(cwnd)).
        // RFC 3649: b(1000) = 0.5 - 0.4 ln(1000/38)/ln(83000/38) = 0.32987.
        let b = 0.5 - 0.4 * (1000f64 / 38.0).ln() / (83_000f64 / 38.0).ln();
        assert!((b - 0.32987).abs() < 1e-5);
        let mut h = Harness::new(africa(), 1000.0, UNLIMITED);
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 1000.0 - (1000.0 * b).floor());
        assert_eq!(h.tcb.ssthresh, 671.0);
        // Below Low_Window b = 1/2 (Reno).
        let mut h = Harness::new(africa(), 30.0, UNLIMITED);
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, 15.0);
    }

    #[test]
    fn half_decrease_halves() {
        let p = AfricaParams {
            decrease: AfricaDecrease::Half,
            ..AfricaParams::default()
        };
        let mut h = Harness::new(Africa::new(p), 1001.0, UNLIMITED);
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, 500.0);
        h.rto();
        assert_eq!((h.tcb.cwnd, h.tcb.ssthresh), (1.0, 250.0));
    }

    #[test]
    fn without_rtt_samples_it_is_reno_and_slow_start_is_standard() {
        let mut h = Harness::new(africa(), 10.0, UNLIMITED);
        h.round();
        assert_eq!(h.tcb.cwnd, 20.0);
        assert!(!Africa::new(AfricaParams::default()).fast_mode(100.0));
    }

    #[test]
    fn parameters_are_validated() {
        let bad = AfricaParams {
            high_decrease: 0.7,
            ..AfricaParams::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "high_decrease");
        assert!(AfricaParams::default().validate().is_ok());
    }
}
