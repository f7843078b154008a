//! Building blocks shared by the algorithms: slow start (with RFC 3742
//! Limited Slow-Start), additive increase with a fractional counter
//! (Linux `tcp_cong_avoid_ai`) or in floating point (ns-2 style), and Reno's
//! ssthresh. Section numbers refer to spec/algorithms.md.

use crate::Tcb;
use serde::{Deserialize, Serialize};

/// How fractional window growth is kept (spec 1.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrowthMode {
    /// Integer cwnd plus the `cwnd_cnt` credit: +1 packet per `w` packets acked.
    #[default]
    Linux,
    /// Floating-point cwnd: `cwnd += acked / w` (ns-2).
    Float,
}

/// Slow start on `acked` newly delivered packets (spec 1.5, 1.6).
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

/// Additive increase of one packet per `w` packets acked (spec 1.2).
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
/// (Linux `tcp_reno_ssthresh` with beta = 1/2; spec section 2).
pub fn reno_ssthresh(tcb: &Tcb, beta: f64) -> f64 {
    (tcb.cwnd * beta).floor().max(2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::UNLIMITED;

    fn tcb(cwnd: f64, ssthresh: f64) -> Tcb {
        Tcb::new(cwnd, ssthresh, 1448)
    }

    #[test]
    fn slow_start_adds_acked_up_to_ssthresh_and_returns_leftover() {
        // spec 1.5: cwnd <- min(cwnd + acked, ssthresh), leftover to CA.
        let mut t = tcb(10.0, 14.0);
        assert_eq!(slow_start(&mut t, 3), 0);
        assert_eq!(t.cwnd, 13.0);
        assert_eq!(slow_start(&mut t, 4), 3);
        assert_eq!(t.cwnd, 14.0);
    }

    #[test]
    fn limited_slow_start_follows_rfc3742_k() {
        // RFC 3742 / spec 1.6: above max_ssthresh = 100, K = floor(cwnd/50),
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
        // spec 1.2: exactly one packet per w acked.
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
        // Credit from a larger w converts first (step 1 of spec 1.2).
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
}
