//! Retransmission-timeout estimation (RFC 6298, with the Linux floor rule of
//! spec/algorithms.md section 1.9) and exponential backoff.

use super::config::RtoMode;
use crate::time::Time;

/// SRTT / RTTVAR estimator and the current RTO with backoff.
#[derive(Clone, Copy, Debug)]
pub struct RtoEstimator {
    mode: RtoMode,
    min: Time,
    max: Time,
    /// Smoothed RTT, if a sample was taken.
    pub srtt: Option<Time>,
    /// RTT variation (RFC 6298 RTTVAR).
    pub rttvar: Time,
    /// RTO without backoff.
    base: Time,
    /// Number of consecutive backoffs (doublings).
    pub backoff: u32,
}

impl RtoEstimator {
    /// An estimator with RTO `initial` until the first sample.
    pub fn new(mode: RtoMode, min: Time, initial: Time, max: Time) -> Self {
        RtoEstimator {
            mode,
            min,
            max,
            srtt: None,
            rttvar: Time::ZERO,
            base: initial,
            backoff: 0,
        }
    }

    /// Feeds one RTT sample `r` (never from a retransmitted packet: Karn)
    /// and clears the backoff.
    ///
    /// First sample: SRTT = R, RTTVAR = R/2. Later: RTTVAR = 3/4 RTTVAR +
    /// 1/4 |SRTT - R| (with the old SRTT), SRTT = 7/8 SRTT + 1/8 R.
    /// RTO = SRTT + max(4 RTTVAR, min) (Linux) or max(SRTT + 4 RTTVAR, min)
    /// (RFC 6298), capped at the maximum.
    pub fn sample(&mut self, r: Time) {
        let r_ps = r.ps();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Time::from_ps(r_ps / 2);
            }
            Some(s) => {
                let err = s.ps().abs_diff(r_ps);
                self.rttvar = Time::from_ps((3 * self.rttvar.ps() + err) / 4);
                self.srtt = Some(Time::from_ps((7 * s.ps() + r_ps) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let var4 = Time::from_ps(4 * self.rttvar.ps());
        self.base = match self.mode {
            RtoMode::Linux => srtt + var4.max(self.min),
            RtoMode::Rfc6298 => (srtt + var4).max(self.min),
        }
        .min(self.max);
        self.backoff = 0;
    }

    /// The RTO to arm now: the base doubled once per backoff, capped.
    pub fn current(&self) -> Time {
        let mut t = self.base;
        for _ in 0..self.backoff {
            t = Time::from_ps(t.ps().saturating_mul(2));
            if t >= self.max {
                return self.max;
            }
        }
        t.min(self.max)
    }

    /// One more doubling after a timeout.
    pub fn back_off(&mut self) {
        if self.current() < self.max {
            self.backoff += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linux() -> RtoEstimator {
        RtoEstimator::new(
            RtoMode::Linux,
            Time::from_ms(200),
            Time::from_secs(1),
            Time::from_secs(120),
        )
    }
    fn rfc() -> RtoEstimator {
        RtoEstimator::new(
            RtoMode::Rfc6298,
            Time::from_secs(1),
            Time::from_secs(1),
            Time::from_secs(60),
        )
    }

    #[test]
    fn initial_rto_is_one_second() {
        assert_eq!(linux().current(), Time::from_secs(1));
    }

    #[test]
    fn first_sample_matches_spec_fact_17() {
        // RFC: max(3R, 1 s); Linux: max(3R, R + 200 ms).
        let mut l = linux();
        l.sample(Time::from_ms(100));
        assert_eq!(l.current(), Time::from_ms(300));
        let mut l = linux();
        l.sample(Time::from_ms(10));
        assert_eq!(l.current(), Time::from_ms(210));
        let mut r = rfc();
        r.sample(Time::from_ms(100));
        assert_eq!(r.current(), Time::from_secs(1));
        let mut r = rfc();
        r.sample(Time::from_ms(500));
        assert_eq!(r.current(), Time::from_ms(1500));
    }

    #[test]
    fn later_samples_follow_rfc6298_smoothing() {
        // R1 = 100 ms: SRTT 100, RTTVAR 50. R2 = 200 ms:
        // RTTVAR = 3/4*50 + 1/4*|100-200| = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5.
        let mut r = rfc();
        r.sample(Time::from_ms(100));
        r.sample(Time::from_ms(200));
        assert_eq!(r.srtt, Some(Time::from_us(112_500)));
        assert_eq!(r.rttvar, Time::from_us(62_500));
        // RTO = max(112.5 + 250, 1000) ms.
        assert_eq!(r.current(), Time::from_secs(1));
        let mut l = linux();
        l.sample(Time::from_ms(100));
        l.sample(Time::from_ms(200));
        assert_eq!(l.current(), Time::from_us(362_500));
    }

    #[test]
    fn backoff_doubles_up_to_the_cap_and_a_sample_clears_it() {
        let mut l = linux();
        l.sample(Time::from_ms(100)); // 300 ms
        l.back_off();
        assert_eq!(l.current(), Time::from_ms(600));
        l.back_off();
        assert_eq!(l.current(), Time::from_ms(1200));
        for _ in 0..20 {
            l.back_off();
        }
        assert_eq!(l.current(), Time::from_secs(120));
        l.sample(Time::from_ms(100));
        assert_eq!(l.backoff, 0);
        assert!(l.current() < Time::from_secs(1));
    }
}
