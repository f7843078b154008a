//! Retransmission-timeout estimation (RFC 6298 section 2, or Linux's rule
//! from `net/ipv4/tcp_input.c` `tcp_rtt_estimator` and `tcp_set_rto`, where
//! `rto_min` floors the variance term rather than the RTO, or ns-2's
//! tick-based estimator) and exponential backoff (RFC 6298 section 5.5).

use super::config::RtoMode;
use crate::time::Time;

/// ns-2's estimator (tcp/tcp.cc, `rfc2988_` true, no timestamps): SRTT x 8
/// and RTTVAR x 4 held as integers in clock ticks (T_SRTT_BITS 3,
/// T_RTTVAR_BITS 2, rttvar_exp_ 2).
#[derive(Clone, Copy, Debug)]
struct Ns2Clock {
    /// tcpTick_.
    tick: Time,
    /// The flow's clock phase (ns-2 `boot_time_`, uniform in one tick).
    phase: Time,
    /// 8 x SRTT in ticks; 0 before the first sample (srtt_init_ 0).
    t_srtt: i64,
    /// 4 x RTTVAR in ticks.
    t_rttvar: i64,
    /// SRTT + 4 RTTVAR, whole ticks (t_rtxcur_).
    t_rtxcur: Time,
    /// Backoff multiplier (t_backoff_: 1, 2, 4, ...).
    t_backoff: u64,
    /// TCP-Linux's RTTVAR rule (`RtoMode::Ns2Linux`).
    linux_rttvar: bool,
}

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
    /// The ns-2 estimator's state, in `RtoMode::Ns2`.
    ns2: Option<Ns2Clock>,
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
            ns2: None,
        }
    }

    /// ns-2's estimator with clock `tick` and the flow's clock phase
    /// `phase` (reduced to one tick): RTO `initial` (rtxcur_init_) until the
    /// first sample.
    /// `linux_rttvar` selects TCP-Linux's RTTVAR rule (`RtoMode::Ns2Linux`).
    pub fn ns2(
        min: Time,
        initial: Time,
        max: Time,
        tick: Time,
        phase: Time,
        linux_rttvar: bool,
    ) -> Self {
        let tick_ps = tick.ps().max(1);
        RtoEstimator {
            ns2: Some(Ns2Clock {
                tick,
                phase: Time::from_ps(phase.ps() % tick_ps),
                t_srtt: 0,
                t_rttvar: 0,
                t_rtxcur: initial,
                t_backoff: 1,
                linux_rttvar,
            }),
            ..RtoEstimator::new(
                if linux_rttvar {
                    RtoMode::Ns2Linux
                } else {
                    RtoMode::Ns2
                },
                min,
                initial,
                max,
            )
        }
    }

    /// ns-2 `rtt_update` for the timed segment sent at `sent`, acknowledged
    /// at `now`, and the end of any backoff (newack sets t_backoff_ = 1).
    ///
    /// The sample is whole ticks of the flow's clock: `floor((now - sent +
    /// (sent + phase) mod tick) / tick)`, at least 1. First sample: SRTT =
    /// R, RTTVAR = R/2; later `delta = R - SRTT`, SRTT += delta/8, RTTVAR +=
    /// (|delta| - RTTVAR)/4, in ns-2's scaled integers (each kept >= 1),
    /// and t_rtxcur = SRTT + 4 RTTVAR in whole ticks.
    pub fn sample_ns2(&mut self, sent: Time, now: Time) {
        let Some(c) = self.ns2.as_mut() else {
            return;
        };
        let tick = c.tick.ps().max(1);
        let tickoff = (sent.ps() + c.phase.ps()) % tick;
        let t_rtt = (((now.ps() - sent.ps()) + tickoff) / tick).max(1) as i64;
        if c.t_srtt != 0 {
            let mut delta = t_rtt - (c.t_srtt >> 3);
            c.t_srtt += delta;
            if c.t_srtt <= 0 {
                c.t_srtt = 1;
            }
            if c.linux_rttvar {
                // tcp-linux.cc: a sample below SRTT moves RTTVAR down with
                // weight 1/32 instead of 1/4 (Linux tcp_rtt_estimator).
                let below = delta < 0;
                delta = delta.abs() - (c.t_rttvar >> 2);
                if below && delta > 0 {
                    delta >>= 3;
                }
                c.t_rttvar += delta;
            } else {
                delta = delta.abs() - (c.t_rttvar >> 2);
                c.t_rttvar += delta;
                if c.t_rttvar <= 0 {
                    c.t_rttvar = 1;
                }
            }
        } else {
            c.t_srtt = t_rtt << 3;
            c.t_rttvar = t_rtt << 1;
        }
        let ticks = (((c.t_rttvar << 3) + c.t_srtt) >> 3).max(0);
        c.t_rtxcur = Time::from_ps(ticks as u64 * tick);
        c.t_backoff = 1;
        self.srtt = Some(Time::from_ps((c.t_srtt as u64 * tick) / 8));
        self.rttvar = Time::from_ps((c.t_rttvar.max(0) as u64 * tick) / 4);
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
            RtoMode::Rfc6298 | RtoMode::Ns2 | RtoMode::Ns2Linux => (srtt + var4).max(self.min),
        }
        .min(self.max);
        self.backoff = 0;
    }

    /// The RTO to arm now: the base doubled once per backoff, capped.
    /// ns-2 (`rtt_timeout`): max(t_rtxcur, rto_min) x t_backoff, capped,
    /// and at least two ticks.
    pub fn current(&self) -> Time {
        if let Some(c) = &self.ns2 {
            let base = if c.t_rtxcur < self.min {
                self.min
            } else {
                c.t_rtxcur
            };
            let t = Time::from_ps(base.ps().saturating_mul(c.t_backoff)).min(self.max);
            return t.max(Time::from_ps(2 * c.tick.ps()));
        }
        let mut t = self.base;
        for _ in 0..self.backoff {
            t = Time::from_ps(t.ps().saturating_mul(2));
            if t >= self.max {
                return self.max;
            }
        }
        t.min(self.max)
    }

    /// One more doubling after a timeout. ns-2 (`rtt_backoff`) doubles
    /// while below 64 or the RTO is below the ceiling, and past 8 moves
    /// SRTT into RTTVAR and forgets it (the next sample starts afresh).
    pub fn back_off(&mut self) {
        let below_max = self.current() < self.max;
        if let Some(c) = self.ns2.as_mut() {
            if c.t_backoff < 64 || below_max {
                c.t_backoff <<= 1;
            }
            if c.t_backoff > 8 {
                c.t_rttvar += c.t_srtt >> 3;
                c.t_srtt = 0;
            }
            return;
        }
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

    fn ns2_clock() -> RtoEstimator {
        RtoEstimator::ns2(
            Time::from_ms(200),
            Time::from_secs(3),
            Time::from_secs(60),
            Time::from_ms(10),
            Time::ZERO,
            false,
        )
    }

    #[test]
    fn ns2_samples_are_whole_ticks_and_keep_a_tick_of_variation() {
        // ns-2 tcp.cc rtt_update with tcpTick_ 10 ms and boot phase 0.
        let mut e = ns2_clock();
        assert_eq!(e.current(), Time::from_secs(3)); // rtxcur_init_
                                                     // 204.9 ms sent on a tick
                                                     // boundary: t_rtt = 20
                                                     // ticks. First sample:
                                                     // t_srtt = 160, t_rttvar =
                                                     // 40: RTO = 20 + 4 x 10 =
                                                     // 60 ticks.
        e.sample_ns2(
            Time::from_secs(1),
            Time::from_secs(1) + Time::from_us(204_900),
        );
        assert_eq!(e.current(), Time::from_ms(600));
        // Twenty more identical samples: t_rttvar decays by a quarter per
        // sample until t_rttvar >> 2 is 0 (it stops at 3): RTTVAR never
        // goes below 3/4 tick, so RTO = (8 x 3 + 160) >> 3 = 23 ticks.
        for k in 0..20 {
            let sent = Time::from_secs(2 + k);
            e.sample_ns2(sent, sent + Time::from_ms(200));
        }
        assert_eq!(e.current(), Time::from_ms(230));
        // A send time 5 ms into a tick adds the tick offset: 200 ms + 5 ms
        // phase = 20.5 ticks, floored to 20.
        let mut e = ns2_clock();
        e.sample_ns2(Time::from_ms(5), Time::from_ms(205));
        assert_eq!(e.srtt, Some(Time::from_ms(200)));
    }

    #[test]
    fn ns2_rto_floor_backoff_and_srtt_reset() {
        let mut e = ns2_clock();
        e.sample_ns2(Time::ZERO, Time::from_ms(30)); // 3 ticks: RTO 9 ticks < 200 ms
        assert_eq!(e.current(), Time::from_ms(200)); // minrto_, clamped before backoff
        e.back_off();
        assert_eq!(e.current(), Time::from_ms(400));
        for _ in 0..3 {
            e.back_off();
        }
        // t_backoff 16 > 8: SRTT moved into RTTVAR (t_rttvar 6 + 3), t_srtt 0;
        // the RTO keeps t_rtxcur (9 ticks), so 200 ms x 16.
        assert_eq!(e.current(), Time::from_ms(3200));
        e.sample_ns2(Time::from_secs(10), Time::from_secs(10) + Time::from_ms(50));
        // After the reset the sample starts afresh: SRTT 5, RTTVAR 2.5 ticks:
        // 15 ticks -> 200 ms floor.
        assert_eq!(e.srtt, Some(Time::from_ms(50)));
        assert_eq!(e.current(), Time::from_ms(200));
    }

    #[test]
    fn tcp_linux_rttvar_falls_an_eighth_as_fast_below_srtt() {
        // tcp-linux.cc rtt_update, tick 1 ms. First sample 100: t_srtt 800,
        // t_rttvar 200. Second 90: delta -10, t_srtt 790; |delta| - 50 < 0
        // is not scaled: t_rttvar 160. Third 120 (above SRTT 98): delta 22,
        // 22 - 40 = -18: t_rttvar 142. ns-2's rule gives the same here; they
        // part when a low sample's |delta| exceeds RTTVAR: fourth 50 (SRTT
        // 101): delta -51, 51 - 35 = 16, scaled to 2: t_rttvar 144 (ns-2: 158).
        let make = |linux| {
            RtoEstimator::ns2(
                Time::from_ms(200),
                Time::from_secs(3),
                Time::from_secs(120),
                Time::from_ms(1),
                Time::ZERO,
                linux,
            )
        };
        let feed = |e: &mut RtoEstimator| {
            for (k, ms) in [100u64, 90, 120, 50].into_iter().enumerate() {
                let sent = Time::from_secs(k as u64);
                e.sample_ns2(sent, sent + Time::from_ms(ms));
            }
        };
        let (mut linux, mut ns2) = (make(true), make(false));
        feed(&mut linux);
        feed(&mut ns2);
        assert_eq!(linux.rttvar, Time::from_us(36_000)); // 144 / 4 ticks
        assert_eq!(ns2.rttvar, Time::from_us(39_500)); // 158 / 4 ticks
    }
}
