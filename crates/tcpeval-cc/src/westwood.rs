//! TCP Westwood+ (Mascolo, Casetti, Gerla et al., MobiCom 2001; Grieco &
//! Mascolo, CCR 2004; Linux `net/ipv4/tcp_westwood.c`).
//!
//! Growth is Reno's (slow start and +1 per RTT). Westwood+ estimates the
//! bandwidth the flow gets from the rate of delivered data and, after a loss,
//! sets the window to that bandwidth times the smallest RTT seen, i.e. the
//! pipe size without the queue, instead of halving.
//!
//! * Bandwidth samples: on every ACK (`in_ack_event`, duplicates included)
//!   the data it acknowledges is added to a window that closes at the first
//!   ACK more than `max(last RTT sample, min_sample_interval)` after it
//!   opened; the sample is bytes / window length (the closing ACK's bytes
//!   count in the next window). An ACK counts its cumulative advance; a
//!   duplicate ACK counts one MSS, which is remembered and taken off the
//!   cumulative ACK that later covers it (Linux `westwood_acked_count`),
//!   so that with or without SACK the delivery rate is seen while the hole
//!   is being repaired. As in Linux the window length is compared with the
//!   RTT sample of the previous ACK, the ACK hook running before
//!   `pkts_acked`.
//! * Filter `linux` (default): two cascaded EWMAs, `bw_ns = g bw_ns + (1 - g)
//!   sample`, `bw = g bw + (1 - g) bw_ns` with `g = 7/8`; the first sample
//!   fills both (when both are still 0, as Linux tests). Filter `tustin`
//!   (paper, ns-3 default): `bw = a bw + (1 - a)/2 (s_k + s_{k-1})` with `a =
//!   0.9`, one sample per window; here the first sample also fills the filter
//!   (ns-3 starts from zero).
//! * RTTmin: the smallest RTT sample (never aged unless `rtt_min_max_age`),
//!   restarted from the next sample after an RTO and at connection start.
//! * Fast recovery is entered with Reno's `ssthresh = cwnd/2`; at its end
//!   (`COMPLETE_CWR`) `ssthresh = cwnd = max(bw * RTTmin / MSS, 2)`. On an
//!   RTO (`cwnd_event(Loss)`) `ssthresh = max(bw * RTTmin / MSS, 2)`, cwnd = 1
//!   (the sender's). With no bandwidth sample yet (bw = 0) that is 2.
//!
//! Linux works in jiffies and bytes per jiffy; here times are exact and the
//! bandwidth is in bytes per second. With `growth = linux` the window
//! `bw * RTTmin / MSS` is truncated to whole packets (as the kernel's integer
//! division), with `float` it is kept fractional. Linux updates RTTmin in its
//! ACK hook too, from the previous ACK's sample; here `pkts_acked` takes the
//! ACK's own (RTTmin is read only at a loss). Linux skips the duplicate-ACK
//! accounting on fast-path ACKs (in-order data, header prediction), which a
//! simulator cannot tell apart; here every ACK takes the slow path's rule,
//! the one `westwood_acked_count` states. Until the first RTT sample the RTT is
//! `initial_rtt` (Linux 20 s), which keeps the first window open.

use crate::common::{GrowthMode, MinRtt};
use crate::params::params;
use crate::reno::{Reno, RenoParams};
use crate::{AckInfo, AckSample, CongestionControl, CwndEvent, NamedAlgorithm, Tcb, Time};
use serde::{Deserialize, Serialize};

/// How bandwidth samples are smoothed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WestwoodFilter {
    /// Two cascaded EWMAs (Linux `westwood_filter`).
    #[default]
    Linux,
    /// The discretised Tustin low-pass filter of the Westwood+ paper (ns-3).
    Tustin,
}

params! {
    /// Westwood+'s parameters.
    pub struct WestwoodParams for |p| {
        filter: WestwoodFilter = WestwoodFilter::Linux, unchecked(),
            "bandwidth filter: \"linux\" (two cascaded EWMAs) or \"tustin\" (paper, ns-3)";
        ewma_gain: f64 = 0.875, closed(0.0, 1.0),
            "old-value weight of each cascaded EWMA (Linux 0.875)";
        tustin_gain: f64 = 0.9, closed(0.0, 1.0),
            "old-value weight of the Tustin filter (paper 0.9)";
        min_sample_interval: f64 = 0.05, closed(0.0, 1e3),
            "shortest bandwidth-sample window, seconds (Linux 0.05)";
        initial_rtt: f64 = 20.0, open_low(0.0, 1e3),
            "RTT assumed before the first sample, seconds (Linux 20)";
        loss_beta: f64 = 0.5, open_low(0.0, 1.0),
            "fraction of cwnd kept on entering fast recovery (Reno 0.5)";
        rtt_min_max_age: f64 = 0.0, closed(0.0, 1e6),
            "RTTmin aging, seconds; 0 = never aged (Linux)";
        growth: GrowthMode = GrowthMode::Linux, unchecked(),
            "Reno growth and window arithmetic: \"linux\" (integer) or \"float\"";
    }
}

/// Per-flow Westwood+ state.
#[derive(Clone, Debug)]
pub struct Westwood {
    params: WestwoodParams,
    reno: Reno,
    /// First (less smoothed) stage of the Linux filter, bytes/s.
    bw_ns: f64,
    /// Bandwidth estimate, bytes/s.
    bw: f64,
    /// Previous raw sample (Tustin filter), bytes/s.
    last_sample: f64,
    /// Bytes delivered in the current sample window.
    bytes: f64,
    /// When the current sample window opened.
    window_start: Time,
    /// Cumulative ACK point at the last ACK, packets.
    snd_una: u64,
    /// Packets credited by duplicate ACKs and not yet covered by a
    /// cumulative advance.
    accounted: u64,
    /// Latest RTT sample (`initial_rtt` before the first).
    rtt: Time,
    rtt_min: MinRtt,
}

impl Westwood {
    /// The bandwidth estimate, bytes per second (0 before the first sample).
    pub fn bandwidth(&self) -> f64 {
        self.bw
    }

    /// The RTTmin estimate, if an RTT sample was taken since start or RTO.
    pub fn rtt_min(&self) -> Option<Time> {
        self.rtt_min.get()
    }

    /// `max(bw * RTTmin / MSS, 2)` packets (Linux `tcp_westwood_bw_rttmin`).
    fn bw_rttmin(&self, tcb: &Tcb) -> f64 {
        let rtt_min = self.rtt_min.get().unwrap_or(self.rtt).secs();
        let w = self.bw * rtt_min / f64::from(tcb.mss);
        let w = match self.params.growth {
            GrowthMode::Linux => w.floor(),
            GrowthMode::Float => w,
        };
        w.max(2.0)
    }

    /// Packets this ACK counts as delivered (Linux `westwood_acked_count`):
    /// its cumulative advance, or one for a duplicate ACK; an advance of
    /// more than one is reduced by what duplicate ACKs already counted,
    /// down to one.
    fn acked_count(&mut self, tcb: &Tcb) -> u64 {
        let mut cumul = tcb.snd_una.saturating_sub(self.snd_una);
        self.snd_una = tcb.snd_una;
        if cumul == 0 {
            self.accounted += 1;
            cumul = 1;
        }
        if cumul > 1 {
            if self.accounted >= cumul {
                self.accounted -= cumul;
                cumul = 1;
            } else {
                cumul -= self.accounted;
                self.accounted = 0;
            }
        }
        cumul
    }

    /// Feeds one bandwidth sample (bytes/s) to the filter.
    fn filter(&mut self, sample: f64) {
        match self.params.filter {
            WestwoodFilter::Linux => {
                if self.bw_ns == 0.0 && self.bw == 0.0 {
                    self.bw_ns = sample;
                    self.bw = sample;
                } else {
                    let g = self.params.ewma_gain;
                    self.bw_ns = g * self.bw_ns + (1.0 - g) * sample;
                    self.bw = g * self.bw + (1.0 - g) * self.bw_ns;
                }
            }
            WestwoodFilter::Tustin => {
                if self.bw == 0.0 && self.last_sample == 0.0 {
                    self.bw = sample;
                } else {
                    let a = self.params.tustin_gain;
                    self.bw = a * self.bw + (1.0 - a) / 2.0 * (sample + self.last_sample);
                }
                self.last_sample = sample;
            }
        }
    }
}

impl NamedAlgorithm for Westwood {
    const NAME: &'static str = "westwood";
    const SUMMARY: &'static str =
        "Westwood+: Reno growth, window = bandwidth estimate x RTTmin after a loss";
    type Params = WestwoodParams;
    fn new(params: WestwoodParams) -> Self {
        let reno = Reno::new(RenoParams {
            beta: params.loss_beta,
            growth: params.growth,
        });
        let rtt_min = MinRtt::new(Time::from_secs_f64(params.rtt_min_max_age));
        let rtt = Time::from_secs_f64(params.initial_rtt);
        Westwood {
            params,
            reno,
            bw_ns: 0.0,
            bw: 0.0,
            last_sample: 0.0,
            bytes: 0.0,
            window_start: Time::ZERO,
            snd_una: 0,
            accounted: 0,
            rtt,
            rtt_min,
        }
    }
}

impl CongestionControl for Westwood {
    /// `tcp_westwood_bw_rttmin`, the 2.6 module's `min_cwnd`.
    fn min_cwnd(&self, tcb: &Tcb) -> f64 {
        self.bw_rttmin(tcb)
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.bw_ns = 0.0;
        self.bw = 0.0;
        self.last_sample = 0.0;
        self.bytes = 0.0;
        self.window_start = tcb.now;
        self.snd_una = tcb.snd_una;
        self.accounted = 0;
        self.rtt = Time::from_secs_f64(self.params.initial_rtt);
        self.rtt_min.reset();
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        self.reno.ssthresh(tcb)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        self.reno.cong_avoid(tcb, ack);
    }

    fn in_ack_event(&mut self, tcb: &Tcb) {
        let elapsed = tcb.now.saturating_sub(self.window_start);
        let span = self
            .rtt
            .max(Time::from_secs_f64(self.params.min_sample_interval));
        if elapsed > span {
            self.filter(self.bytes / elapsed.secs());
            self.bytes = 0.0;
            self.window_start = tcb.now;
        }
        self.bytes += self.acked_count(tcb) as f64 * f64::from(tcb.mss);
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            self.rtt = rtt;
            self.rtt_min.update(tcb.now, rtt);
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
        match event {
            CwndEvent::CompleteCwr => {
                tcb.ssthresh = self.bw_rttmin(tcb);
                tcb.cwnd = tcb.ssthresh;
            }
            CwndEvent::Loss => {
                tcb.ssthresh = self.bw_rttmin(tcb);
                self.rtt_min.reset();
            }
            CwndEvent::TxStart | CwndEvent::CwndRestart => {}
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
    const MSS: f64 = 1448.0;

    fn westwood() -> Westwood {
        Westwood::new(WestwoodParams::default())
    }

    #[test]
    fn estimate_converges_to_the_bottleneck_rate() {
        // Linux westwood_update_window / westwood_filter: the delivery rate of
        // a flow that fills the pipe is the bottleneck rate. From cwnd 50 (half
        // the 100-packet BDP: ACK rate 500/s) Reno grows into the pipe; the
        // estimate climbs to C * MSS.
        let mut h = Harness::new(westwood(), 50.0, 40.0).with_bottleneck(BASE, RATE, f64::INFINITY);
        h.rounds(10);
        let early = h.cc.bandwidth() / MSS;
        assert!((500.0..600.0).contains(&early), "early estimate {early}");
        h.rounds(150);
        let bw = h.cc.bandwidth() / MSS;
        assert!((bw / RATE - 1.0).abs() < 0.01, "estimate {bw} pkt/s");
        assert_eq!(h.cc.rtt_min(), Some(BASE));
    }

    #[test]
    fn post_loss_window_is_bandwidth_times_rtt_min() {
        // Mascolo et al. 2001 (ssthresh = BWE x RTTmin after a loss): single
        // flow, drop-tail buffer B = 50: the loss at cwnd 151 leaves cwnd =
        // ssthresh = floor(bw * RTTmin / MSS) ~ BDP = 100, not Reno's (BDP +
        // B)/2 = 75.
        let mut h = Harness::new(westwood(), 100.0, 50.0).with_bottleneck(BASE, RATE, 50.0);
        while h.losses == 0 {
            h.round();
        }
        let bw = h.cc.bandwidth();
        let expected = (bw * BASE.secs() / MSS).floor();
        assert_eq!(h.tcb.cwnd, expected);
        assert_eq!(h.tcb.ssthresh, expected);
        assert!((99.0..=100.0).contains(&expected), "window {expected}");
    }

    #[test]
    fn no_bandwidth_sample_gives_ssthresh_two() {
        // Linux tcp_westwood_bw_rttmin: bw = 0 (no sample window closed yet) ->
        // 2.
        let mut h = Harness::new(westwood(), 10.0, UNLIMITED).with_rtt(Time::from_ms(20));
        h.round();
        assert_eq!(h.cc.bandwidth(), 0.0, "20 ms < 50 ms: no window closed");
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, 2.0);
        assert_eq!(h.tcb.ssthresh, 2.0);
    }

    #[test]
    fn entering_recovery_uses_reno_ssthresh() {
        // Linux tcp_westwood_event: ssthresh() is Reno's cwnd/2; the BWE window
        // replaces it only at COMPLETE_CWR.
        let mut h = Harness::new(westwood(), 100.0, 50.0).with_bottleneck(BASE, RATE, 50.0);
        h.rounds(10);
        assert_eq!(h.cc.ssthresh(&h.tcb), (h.tcb.cwnd / 2.0).floor());
    }

    #[test]
    fn rto_sets_ssthresh_from_the_estimate_and_restarts_rtt_min() {
        // Linux tcp_westwood_event (CA_EVENT_LOSS): RTO -> ssthresh = max(bw *
        // RTTmin / MSS, 2), cwnd = 1, RTTmin restarts from the next sample.
        let mut h = Harness::new(westwood(), 100.0, 50.0).with_bottleneck(BASE, RATE, 50.0);
        h.rounds(20);
        let expected = (h.cc.bandwidth() * BASE.secs() / MSS).floor();
        h.rto();
        assert_eq!(h.tcb.ssthresh, expected);
        assert_eq!(h.tcb.cwnd, 1.0);
        assert_eq!(h.cc.rtt_min(), None);
        h = h.with_bottleneck(Time::from_ms(150), RATE, 50.0);
        h.round();
        assert_eq!(h.cc.rtt_min(), Some(Time::from_ms(150)));
    }

    /// Delivers one packet per `gap` for `n` ACKs, each with RTT sample `rtt`.
    fn deliver(h: &mut Harness<Westwood>, n: u32, gap: Time, rtt: Time) {
        for _ in 0..n {
            let t = h.now() + gap;
            h.advance_to(t);
            h.ack(1, Some(rtt));
        }
    }

    /// Samples of 5 packets / 60 ms, then 6 packets / 60 ms (bytes/s).
    fn two_windows(filter: WestwoodFilter) -> (f64, f64, f64) {
        // RTT 20 ms < 50 ms: windows close at the first ACK after 50 ms.
        let p = WestwoodParams {
            filter,
            ..WestwoodParams::default()
        };
        let mut h = Harness::new(Westwood::new(p), 100.0, 50.0);
        let (gap, rtt) = (Time::from_ms(10), Time::from_ms(20));
        deliver(&mut h, 6, gap, rtt); // closes at 60 ms: 5 packets counted
        let first = h.cc.bandwidth();
        deliver(&mut h, 6, gap, rtt); // closes at 120 ms: 6 packets
        let s1 = 5.0 * MSS / 0.06;
        assert!((first - s1).abs() < 1e-6, "first sample fills the filter");
        (s1, 6.0 * MSS / 0.06, h.cc.bandwidth())
    }

    #[test]
    fn linux_filter_is_two_cascaded_seven_eighths_ewmas() {
        // Linux westwood_filter: bw_ns = 7/8 bw_ns + 1/8 s; bw = 7/8 bw + 1/8
        // bw_ns.
        let (s1, s2, bw) = two_windows(WestwoodFilter::Linux);
        let bw_ns = 0.875 * s1 + 0.125 * s2;
        let expected = 0.875 * s1 + 0.125 * bw_ns;
        assert!((bw - expected).abs() < 1e-6, "{bw} vs {expected}");
    }

    #[test]
    fn tustin_filter_averages_the_last_two_samples() {
        // Mascolo et al. 2001, the Tustin filter: b = 0.9 b + 0.05 (s_k +
        // s_{k-1}).
        let (s1, s2, bw) = two_windows(WestwoodFilter::Tustin);
        let expected = 0.9 * s1 + 0.05 * (s2 + s1);
        assert!((bw - expected).abs() < 1e-6, "{bw} vs {expected}");
    }

    #[test]
    fn duplicate_acks_count_one_packet_each_until_covered() {
        // Linux westwood_acked_count. RTT 20 ms, one ACK per
        // 10 ms. Window 1 (0-60 ms): 5 packets. Window 2 (60-120 ms): the
        // 60 ms packet and five duplicate ACKs (70-110 ms), one packet each:
        // 6. Window 3 (120-180 ms): the 120 ms duplicate ACK; at 130 ms a
        // cumulative ACK of 7 covers the six credited packets, so it counts
        // 7 - 6 = 1; then one packet per ACK at 140-170 ms: 6 in all (12
        // without the subtraction).
        let mut h = Harness::new(westwood(), 100.0, 50.0);
        let (gap, rtt) = (Time::from_ms(10), Time::from_ms(20));
        deliver(&mut h, 6, gap, rtt);
        for _ in 0..6 {
            let t = h.now() + gap;
            h.advance_to(t);
            h.dupack();
        }
        let t = h.now() + gap;
        h.advance_to(t);
        h.ack(7, Some(rtt));
        deliver(&mut h, 5, gap, rtt);
        let (s1, s2, s3) = (5.0 * MSS / 0.06, 6.0 * MSS / 0.06, 6.0 * MSS / 0.06);
        let (ns2, bw2) = (
            0.875 * s1 + 0.125 * s2,
            0.875 * s1 + 0.125 * (0.875 * s1 + 0.125 * s2),
        );
        let expected = 0.875 * bw2 + 0.125 * (0.875 * ns2 + 0.125 * s3);
        let bw = h.cc.bandwidth();
        assert!((bw - expected).abs() < 1e-6, "{bw} vs {expected}");
    }

    #[test]
    fn sample_window_is_at_least_the_last_rtt() {
        // Linux westwood_update_window: a window closes after max(RTT, 50 ms):
        // with RTT 100 ms nothing is filtered at 60 ms, the first sample comes
        // after 100 ms.
        let mut h = Harness::new(westwood(), 100.0, 50.0);
        let (gap, rtt) = (Time::from_ms(10), Time::from_ms(100));
        deliver(&mut h, 10, gap, rtt);
        assert_eq!(h.cc.bandwidth(), 0.0, "100 ms not exceeded yet");
        deliver(&mut h, 1, gap, rtt);
        let expected = 10.0 * MSS / 0.11;
        assert!((h.cc.bandwidth() - expected).abs() < 1e-6);
    }

    #[test]
    fn float_growth_keeps_the_fractional_window() {
        let p = WestwoodParams {
            growth: GrowthMode::Float,
            ..WestwoodParams::default()
        };
        let mut h = Harness::new(Westwood::new(p), 100.0, 50.0).with_bottleneck(BASE, RATE, 50.0);
        while h.losses == 0 {
            h.round();
        }
        let expected = h.cc.bandwidth() * BASE.secs() / MSS;
        assert!((h.tcb.cwnd - expected).abs() < 1e-9);
    }
}
