//! HyStart++ (RFC 9406, "HyStart++: Modified Slow Start for TCP", 2023):
//! a delay-based exit from the initial slow start, through a short
//! Conservative Slow Start (CSS) that guards against a spurious exit.
//! RFC 9438 recommends it for CUBIC (section 4.10); here it
//! is CUBIC's `hystart_plus_plus` option, and this module holds only the
//! slow-start part, so any algorithm could use it.
//!
//! Rounds (RFC 9406 section 4.2): a round starts with `window_end =
//! snd_nxt` and ends on the first ACK with `snd_una >= window_end`; at each
//! round start `last_round_min_rtt = current_round_min_rtt`, the current
//! minimum is forgotten and the sample count restarts.
//!
//! Per ACK, packets and seconds:
//! * slow start: `cwnd += min(acked, L)`; after at least `N_RTT_SAMPLE`
//!   samples in the round, with both round minimums known, it enters CSS when
//!   `current_round_min_rtt >= last_round_min_rtt + RttThresh`,
//!   `RttThresh = clamp(last_round_min_rtt / MIN_RTT_DIVISOR, MIN_RTT_THRESH,
//!   MAX_RTT_THRESH)`, and keeps `css_baseline_min_rtt =
//!   current_round_min_rtt`;
//! * CSS: `cwnd += min(acked, L) / CSS_GROWTH_DIVISOR` (kept as whole
//!   packets with a credit of packets acked); after `N_RTT_SAMPLE` samples in
//!   a round whose minimum fell below the baseline, the exit was spurious and
//!   slow start resumes; once `CSS_ROUNDS` rounds of CSS are complete (the
//!   partial round in which CSS began counts as the first), congestion
//!   avoidance begins with `ssthresh = cwnd`.
//!
//! Order within an ACK: the RTT test runs before the window grows (the
//! algorithm sees the sample in `pkts_acked`, grows in `cong_avoid`), where
//! the RFC grows first; so the ACK that enters CSS already grows at the CSS
//! rate and the one that ends CSS at the slow-start rate, a difference of
//! less than one ACK's growth (neqo orders it the same way). ECN is not
//! modelled, and HyStart++ is not used to regrow the window after idle
//! (an RFC MAY).
//!
//! A loss in slow start or CSS ends HyStart++ (the algorithm's loss response
//! sets ssthresh). As the RFC advises, it runs only in the connection's
//! initial slow start: later slow starts (after an RTO) are standard, bounded
//! by the ssthresh found.
//!
//! Defaults (RFC 9406 section 4.3): MIN_RTT_THRESH 4 ms, MAX_RTT_THRESH
//! 16 ms, MIN_RTT_DIVISOR 8, N_RTT_SAMPLE 8, CSS_GROWTH_DIVISOR 4,
//! CSS_ROUNDS 5, and L = 8 for a sender without pacing (the simulator's).

use crate::{Tcb, Time};

/// HyStart++ constants (RFC 9406 section 4.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HyStartPpConfig {
    /// MIN_RTT_THRESH, lower clamp of RttThresh (4 ms).
    pub min_rtt_thresh: Time,
    /// MAX_RTT_THRESH, upper clamp of RttThresh (16 ms).
    pub max_rtt_thresh: Time,
    /// MIN_RTT_DIVISOR: RttThresh is this fraction of the last round's minimum (8).
    pub min_rtt_divisor: u32,
    /// N_RTT_SAMPLE, RTT samples a round needs before a test (8).
    pub n_rtt_sample: u32,
    /// CSS_GROWTH_DIVISOR, how much slower CSS grows than slow start (4).
    pub css_growth_divisor: u32,
    /// CSS_ROUNDS, rounds of CSS before congestion avoidance (5).
    pub css_rounds: u32,
    /// L, most packets one ACK may add, packets (8 without pacing).
    pub limit: u32,
}

impl Default for HyStartPpConfig {
    fn default() -> Self {
        HyStartPpConfig {
            min_rtt_thresh: Time::from_ms(4),
            max_rtt_thresh: Time::from_ms(16),
            min_rtt_divisor: 8,
            n_rtt_sample: 8,
            css_growth_divisor: 4,
            css_rounds: 5,
            limit: 8,
        }
    }
}

impl HyStartPpConfig {
    /// RttThresh for a last-round minimum RTT (RFC 9406 section 4.2).
    pub fn rtt_thresh(&self, last_round_min_rtt: Time) -> Time {
        Time::from_ps(last_round_min_rtt.ps() / u64::from(self.min_rtt_divisor))
            .clamp(self.min_rtt_thresh, self.max_rtt_thresh)
    }
}

/// Where the connection is in HyStart++.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start, watching for a delay increase.
    SlowStart,
    /// Conservative Slow Start since a round whose minimum RTT was `baseline`;
    /// `rounds` rounds of CSS are complete (the partial round it began in counts).
    Css { baseline: Time, rounds: u32 },
    /// HyStart++ is over: congestion avoidance, or any later slow start.
    Done,
}

/// HyStart++ state of one connection.
#[derive(Clone, Debug)]
pub struct HyStartPp {
    /// The constants.
    pub config: HyStartPpConfig,
    /// The current phase.
    pub phase: Phase,
    last_round_min_rtt: Option<Time>,
    current_round_min_rtt: Option<Time>,
    rtt_sample_count: u32,
    window_end: u64,
    /// Packets acked in CSS not yet turned into window (< CSS_GROWTH_DIVISOR).
    css_credit: u32,
}

impl HyStartPp {
    /// HyStart++ at the start of a connection, its first round starting now.
    pub fn new(config: HyStartPpConfig, tcb: &Tcb) -> Self {
        HyStartPp {
            config,
            phase: Phase::SlowStart,
            last_round_min_rtt: None,
            current_round_min_rtt: None,
            rtt_sample_count: 0,
            window_end: tcb.snd_nxt,
            css_credit: 0,
        }
    }

    /// True while HyStart++ governs slow start (slow start or CSS).
    pub fn active(&self) -> bool {
        self.phase != Phase::Done
    }

    /// Ends HyStart++ (a loss, or the algorithm left slow start).
    pub fn finish(&mut self) {
        self.phase = Phase::Done;
    }

    /// An ACK in slow start with RTT sample `rtt`, before the window grows.
    /// Returns `Some(ssthresh)` when CSS ends and congestion avoidance begins.
    pub fn on_ack(&mut self, tcb: &Tcb, rtt: Option<Time>) -> Option<f64> {
        if !self.active() {
            return None;
        }
        if tcb.snd_una >= self.window_end {
            self.start_round(tcb);
            if let Phase::Css { rounds, .. } = self.phase {
                if rounds >= self.config.css_rounds {
                    self.phase = Phase::Done;
                    return Some(tcb.cwnd);
                }
            }
        }
        let rtt = rtt?;
        let current = self.current_round_min_rtt.map_or(rtt, |m| m.min(rtt));
        self.current_round_min_rtt = Some(current);
        self.rtt_sample_count += 1;
        if self.rtt_sample_count < self.config.n_rtt_sample {
            return None;
        }
        match self.phase {
            Phase::SlowStart => {
                if let Some(last) = self.last_round_min_rtt {
                    if current >= last + self.config.rtt_thresh(last) {
                        self.phase = Phase::Css {
                            baseline: current,
                            rounds: 0,
                        };
                        self.css_credit = 0;
                    }
                }
            }
            Phase::Css { baseline, .. } if current < baseline => self.phase = Phase::SlowStart,
            Phase::Css { .. } | Phase::Done => {}
        }
        None
    }

    fn start_round(&mut self, tcb: &Tcb) {
        self.last_round_min_rtt = self.current_round_min_rtt;
        self.current_round_min_rtt = None;
        self.rtt_sample_count = 0;
        self.window_end = tcb.snd_nxt;
        if let Phase::Css { baseline, rounds } = self.phase {
            self.phase = Phase::Css {
                baseline,
                rounds: rounds + 1,
            };
        }
    }

    /// Grows cwnd for `acked` packets in slow start or CSS, up to ssthresh and
    /// the clamp; returns the packets of `acked` left once cwnd reached
    /// ssthresh (for congestion avoidance).
    pub fn grow(&mut self, tcb: &mut Tcb, acked: u32) -> u32 {
        let room = (tcb.ssthresh - tcb.cwnd).max(0.0);
        let used = acked.min(room.ceil().min(f64::from(u32::MAX)) as u32);
        let counted = used.min(self.config.limit);
        let add = match self.phase {
            Phase::Css { .. } => {
                self.css_credit += counted;
                let whole = self.css_credit / self.config.css_growth_divisor;
                self.css_credit -= whole * self.config.css_growth_divisor;
                whole
            }
            Phase::SlowStart | Phase::Done => counted,
        };
        tcb.cwnd = (tcb.cwnd + f64::from(add))
            .min(tcb.ssthresh)
            .min(tcb.cwnd_clamp);
        acked - used
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection that has sent its initial window of 10, and its HyStart++.
    fn start() -> (HyStartPp, Tcb) {
        let mut t = Tcb::new(10.0, f64::INFINITY, 1448);
        t.snd_nxt = 10;
        (HyStartPp::new(HyStartPpConfig::default(), &t), t)
    }

    /// One ACK of one packet with RTT `rtt`; the sender then fills its window
    /// (`snd_nxt = snd_una + cwnd`), as a window-limited sender does.
    fn ack(h: &mut HyStartPp, t: &mut Tcb, rtt: Time) -> Option<f64> {
        t.snd_una += 1;
        let exit = h.on_ack(t, Some(rtt));
        if let Some(s) = exit {
            t.ssthresh = s;
        }
        h.grow(t, 1);
        t.snd_nxt = t.snd_nxt.max(t.snd_una + t.cwnd as u64);
        exit
    }

    #[test]
    fn rtt_thresh_is_an_eighth_of_the_last_round_clamped_to_4_16_ms() {
        // RFC 9406 section 4.2: RttThresh = max(4 ms, min(lastRoundMinRTT / 8, 16 ms)).
        let c = HyStartPpConfig::default();
        assert_eq!(c.rtt_thresh(Time::from_ms(100)), Time::from_us(12_500));
        assert_eq!(c.rtt_thresh(Time::from_ms(20)), Time::from_ms(4));
        assert_eq!(c.rtt_thresh(Time::from_ms(200)), Time::from_ms(16));
    }

    #[test]
    fn a_delay_increase_of_rtt_thresh_enters_css_at_the_eighth_sample_of_a_round() {
        // The first round ends when snd_una reaches the initial snd_nxt = 10:
        // ACKs 1-9 (100 ms) are its samples, and ACK 10 starts the second
        // round, which runs to the snd_nxt of then, 10 + 2 x 9 = 28. With the
        // second round at 112.5 ms = 100 + 100/8, its 8th sample (ACK 17)
        // enters CSS with that round's minimum as baseline; at 112.4 ms never.
        for (us, css) in [(112_500, true), (112_400, false)] {
            let (mut h, mut t) = start();
            for _ in 1..=9 {
                ack(&mut h, &mut t, Time::from_ms(100));
            }
            for i in 10..=27 {
                ack(&mut h, &mut t, Time::from_us(us));
                let want = if css && i >= 17 {
                    Phase::Css {
                        baseline: Time::from_us(us),
                        rounds: 0,
                    }
                } else {
                    Phase::SlowStart
                };
                assert_eq!(h.phase, want, "{us} us, ACK {i}");
            }
            // Slow start added one packet per ACK until CSS, then a quarter.
            let expected = if css {
                10.0 + 16.0 + (11 / 4) as f64
            } else {
                37.0
            };
            assert_eq!(t.cwnd, expected, "{us} us");
        }
    }

    #[test]
    fn css_ends_with_ssthresh_cwnd_when_its_fifth_round_is_complete() {
        // RFC 9406: a round ends when snd_una reaches the snd_nxt recorded at
        // its start; when CSS_ROUNDS = 5 rounds of CSS are complete (the one
        // CSS began in counts), congestion avoidance begins with ssthresh = cwnd.
        let (mut h, mut t) = start();
        let mut round_end = t.snd_nxt;
        for _ in 1..=9 {
            ack(&mut h, &mut t, Time::from_ms(100));
        }
        let mut starts = Vec::new();
        let mut exit = None;
        for _ in 0..10_000 {
            let before = h.phase;
            let cwnd = t.cwnd;
            if t.snd_una + 1 >= round_end {
                starts.push(t.snd_una + 1);
                round_end = t.snd_nxt;
            }
            if let Some(s) = ack(&mut h, &mut t, Time::from_ms(120)) {
                assert_eq!(s, cwnd);
                exit = Some(s);
                break;
            }
            if let (Phase::Css { rounds: a, .. }, Phase::Css { rounds: b, .. }) = (before, h.phase)
            {
                assert!(b == a || (b == a + 1 && starts.last() == Some(&t.snd_una)));
            }
        }
        assert_eq!(h.phase, Phase::Done);
        // CSS began in the round that started at ACK 10; five more round
        // starts end it, so the exit is at the sixth round start after ACK 9.
        assert_eq!(starts.len(), 6);
        assert_eq!(starts.last(), Some(&t.snd_una));
        assert_eq!(exit, Some(t.ssthresh));
        assert_eq!(t.cwnd, t.ssthresh);
    }

    #[test]
    fn a_round_below_the_baseline_resumes_slow_start() {
        // RFC 9406: in CSS, currentRoundMinRTT < cssBaselineMinRtt after
        // N_RTT_SAMPLE samples means the exit was spurious. CSS from ACK 17
        // (as above); the round starting at ACK 28 sees 110 ms < 120 ms and
        // resumes slow start at its 8th sample, ACK 35.
        let (mut h, mut t) = start();
        for _ in 1..=9 {
            ack(&mut h, &mut t, Time::from_ms(100));
        }
        for _ in 10..=27 {
            ack(&mut h, &mut t, Time::from_ms(120));
        }
        assert!(matches!(h.phase, Phase::Css { rounds: 0, .. }));
        for i in 28..=40 {
            ack(&mut h, &mut t, Time::from_ms(110));
            assert_eq!(h.phase == Phase::SlowStart, i >= 35, "ACK {i}");
        }
        let before = t.cwnd;
        ack(&mut h, &mut t, Time::from_ms(110));
        assert_eq!(t.cwnd, before + 1.0);
    }

    #[test]
    fn one_ack_adds_at_most_l_packets_and_stops_at_ssthresh() {
        // RFC 9406: cwnd += min(N, L * SMSS), L = 8 without pacing.
        let (mut h, mut t) = start();
        assert_eq!(h.grow(&mut t, 20), 0);
        assert_eq!(t.cwnd, 18.0);
        t.ssthresh = 21.0;
        assert_eq!(h.grow(&mut t, 5), 2);
        assert_eq!(t.cwnd, 21.0);
    }

    #[test]
    fn nothing_is_detected_once_done() {
        let (mut h, mut t) = start();
        h.finish();
        for _ in 1..=9 {
            ack(&mut h, &mut t, Time::from_ms(100));
        }
        for _ in 10..=60 {
            assert_eq!(ack(&mut h, &mut t, Time::from_ms(200)), None);
        }
        assert_eq!(h.phase, Phase::Done);
        assert_eq!(t.cwnd, 70.0);
    }
}
