//! Reno / NewReno congestion control (RFC 5681; Linux `tcp_reno_*` in
//! `net/ipv4/tcp_cong.c`).
//!
//! Slow start, then one packet per RTT (`AI(cwnd, acked)`), and
//! `ssthresh = max(floor(cwnd * beta), 2)` on loss. NewReno and SACK recovery
//! are the generic sender's business; this file only sets the window rules.

use crate::common::{additive_increase, reno_ssthresh, slow_start_then, GrowthMode};
use crate::params::params;
use crate::{AckInfo, CongestionControl, NamedAlgorithm, Tcb};

params! {
    /// Reno's parameters.
    pub struct RenoParams for |p| {
        beta: f64 = 0.5, open_low(0.0, 1.0),
            "fraction of cwnd kept after a loss (Linux 0.5)";
        growth: GrowthMode = GrowthMode::Linux, unchecked(),
            "window arithmetic: \"linux\" (integer + counter) or \"float\" (ns-2)";
    }
}

/// Per-flow Reno state: none beyond the parameters.
#[derive(Clone, Debug)]
pub struct Reno {
    params: RenoParams,
}

impl NamedAlgorithm for Reno {
    const NAME: &'static str = "reno";
    const SUMMARY: &'static str = "Reno/NewReno AIMD(1, 1/2); with SACK recovery this is TCP-SACK";
    type Params = RenoParams;
    fn new(params: RenoParams) -> Self {
        Reno { params }
    }
}

impl CongestionControl for Reno {
    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        reno_ssthresh(tcb, self.params.beta)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        let acked = slow_start_then(tcb, ack.acked);
        if acked == 0 {
            return;
        }
        let w = tcb.cwnd;
        additive_increase(tcb, self.params.growth, w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;
    use crate::time::Time;
    use crate::UNLIMITED;

    fn reno() -> Reno {
        Reno::new(RenoParams::default())
    }

    #[test]
    fn slow_start_doubles_each_round() {
        // RFC 5681 section 3.1 slow start, IW 10, per-packet counting: cwnd =
        // 10 * 2^n after n RTTs.
        let mut h = Harness::new(reno(), 10.0, UNLIMITED).with_rtt(Time::from_ms(100));
        for n in 1..=5 {
            h.round();
            assert_eq!(h.tcb.cwnd, 10.0 * 2f64.powi(n));
        }
    }

    #[test]
    fn congestion_avoidance_adds_one_per_round() {
        // RFC 5681 section 3.1: +1 packet per RTT in CA.
        let mut h = Harness::new(reno(), 50.0, 40.0).with_rtt(Time::from_ms(100));
        for n in 1..=10 {
            h.round();
            assert_eq!(h.tcb.cwnd, 50.0 + f64::from(n));
        }
    }

    #[test]
    fn loss_halves_the_window() {
        // ssthresh = max(floor(cwnd/2), 2) (tcp_reno_ssthresh); cwnd = ssthresh on exit.
        let mut h = Harness::new(reno(), 101.0, 40.0).with_rtt(Time::from_ms(100));
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 50.0);
        assert_eq!(h.tcb.cwnd, 50.0);
        // Sawtooth (RFC 5681 AIMD): from W/2 back to W in W/2 rounds.
        h.rounds(50);
        assert_eq!(h.tcb.cwnd, 100.0);
    }

    #[test]
    fn rto_restarts_from_one() {
        let mut h = Harness::new(reno(), 64.0, UNLIMITED).with_rtt(Time::from_ms(100));
        h.rto();
        assert_eq!(h.tcb.ssthresh, 32.0);
        assert_eq!(h.tcb.cwnd, 1.0);
        h.rounds(5);
        assert_eq!(h.tcb.cwnd, 32.0);
    }

    #[test]
    fn per_ack_counting_with_delayed_acks_halves_ca_growth() {
        // Linux 2.6 per-ACK counting (tcp_abc = 0) with an ACK every 2nd packet
        // gives +0.5/RTT.
        let mut h = Harness::new(reno(), 100.0, 50.0)
            .with_rtt(Time::from_ms(100))
            .with_delayed_ack(2)
            .with_per_ack_counting();
        h.rounds(20);
        assert_eq!(h.tcb.cwnd, 110.0);
    }

    #[test]
    fn float_mode_grows_slightly_less_than_one_per_round() {
        // ns-2 opencwnd float form: the denominator grows within the RTT.
        let p = RenoParams {
            growth: GrowthMode::Float,
            ..RenoParams::default()
        };
        let mut h = Harness::new(Reno::new(p), 50.0, 40.0).with_rtt(Time::from_ms(100));
        h.round();
        let expected: f64 = (0..50).fold(50.0, |w: f64, _| w + 1.0 / w);
        assert!((h.tcb.cwnd - expected).abs() < 1e-12);
        assert!(h.tcb.cwnd < 51.0 && h.tcb.cwnd > 50.98);
    }
}
