//! BBR on a virtual clock: scripted rate samples, one ACK per round trip,
//! checked against the rules of Linux `tcp_bbr.c` with exact values.

use super::*;
use crate::{CaState, CongestionControl, NamedAlgorithm, RateSample, Tcb, Time};

const MSS: u32 = 1000;

/// One BBR flow and the control block the sender would hand it.
struct Flow {
    bbr: Bbr,
    tcb: Tcb,
}

impl Flow {
    fn new(seed: u64) -> Flow {
        let mut bbr = Bbr::new(BbrParams::default());
        bbr.set_random_seed(seed);
        let mut tcb = Tcb::new(10.0, crate::UNLIMITED, MSS);
        bbr.init(&mut tcb);
        Flow { bbr, tcb }
    }

    /// An ACK at `at_ms` delivering `n` packets as one sample over
    /// `interval_ms`, with RTT sample `rtt_ms`, `in_flight` packets left in
    /// flight (and as many before it), `losses` newly lost. Every such ACK
    /// starts a round: its sample's packet was sent after the previous
    /// round's end.
    fn ack(
        &mut self,
        at_ms: u64,
        n: u64,
        interval_ms: u64,
        rtt_ms: u64,
        in_flight: u32,
        losses: u32,
    ) {
        self.ack_at(
            Time::from_ms(at_ms),
            n,
            interval_ms,
            rtt_ms,
            in_flight,
            losses,
        );
    }

    /// [`Flow::ack`] at any time.
    fn ack_at(
        &mut self,
        now: Time,
        n: u64,
        interval_ms: u64,
        rtt_ms: u64,
        in_flight: u32,
        losses: u32,
    ) {
        let prior_delivered = self.tcb.delivered;
        self.tcb.now = now;
        self.tcb.delivered += n;
        self.tcb.delivered_mstamp = now;
        self.tcb.packets_in_flight = in_flight;
        self.tcb.lost += u64::from(losses);
        let rtt = Time::from_ms(rtt_ms);
        self.tcb.srtt = Some(rtt);
        self.tcb.min_rtt = Some(self.tcb.min_rtt.map_or(rtt, |m| m.min(rtt)));
        let rs = RateSample {
            prior_delivered,
            delivered: Some(n),
            interval: Some(Time::from_ms(interval_ms)),
            is_app_limited: false,
            is_retrans: false,
            acked_sacked: n as u32,
            losses,
            prior_in_flight: in_flight + n as u32,
            rtt: Some(rtt),
        };
        self.bbr.cong_control(&mut self.tcb, &rs);
    }

    /// STARTUP rounds of 100 ms delivering 10, 20, 40, 80 packets, then
    /// 99 three times, with 500 packets in flight: BBR ends in DRAIN.
    fn through_startup(&mut self) -> u64 {
        let mut t = 0;
        for n in [10, 20, 40, 80, 99, 99, 99] {
            t += 100;
            self.ack(t, n, 100, 100, 500, 0);
        }
        t
    }
}

/// Bandwidth of `n` packets per 100 ms in BBR's units (packets/µs x 2^24).
fn bw_per_100ms(n: u64) -> u64 {
    n * BW_UNIT / 100_000
}

/// Linux `bbr_rate_bytes_per_sec` written out: bw x mss x gain / 256 x 99 %.
fn pacing_rate(bw: u64, gain: u32) -> u64 {
    (((bw * u64::from(MSS) * u64::from(gain)) >> 8) * 990_000) >> 24
}

#[test]
fn startup_exits_after_three_rounds_without_25_percent_growth() {
    let mut f = Flow::new(1);
    let mut t = 0;
    let mut seen = Vec::new();
    for n in [10, 20, 40, 80, 99, 99, 99] {
        t += 100;
        f.ack(t, n, 100, 100, 500, 0);
        seen.push((f.bbr.mode, f.bbr.full_bw_cnt, f.bbr.max_bw()));
    }
    // Doubling rounds reset the count; 99 < 1.25 x 80 three times fills the pipe.
    let counts: Vec<u32> = seen.iter().map(|s| s.1).collect();
    assert_eq!(counts, vec![0, 0, 0, 0, 1, 2, 3]);
    assert!(seen[..6].iter().all(|s| s.0 == Mode::Startup));
    assert_eq!(seen[6].0, Mode::Drain);
    assert!(f.bbr.full_bw_reached);
    assert_eq!(f.bbr.max_bw(), bw_per_100ms(99));
    // STARTUP's gains were 2/ln2; DRAIN paces at 1/2.885 and keeps cwnd's gain.
    assert_eq!((f.bbr.pacing_gain, f.bbr.cwnd_gain), (88, 739));
    // bbr_check_drain: ssthresh = bbr_inflight(max_bw, 1): BDP ceil(99.0 -
    // tiny) = 99 packets, plus 3 TSO bursts of 2 (the pacing rate is
    // below 2 x 1000 bytes per 1/1024 s), rounded up to even: 106.
    assert_eq!(f.bbr.bdp(f.bbr.max_bw(), BBR_UNIT), 99);
    assert_eq!(f.bbr.tso_segs_goal(&f.tcb), 2);
    assert_eq!(f.tcb.ssthresh, 106.0);
}

#[test]
fn a_single_round_of_growth_restarts_the_count() {
    let mut f = Flow::new(1);
    let mut t = 0;
    for n in [10, 20, 40, 80, 99, 99, 125, 130, 130] {
        t += 100;
        f.ack(t, n, 100, 100, 500, 0);
    }
    // 125 >= 1.25 x 80 reset the count at the seventh round: 2 since.
    assert_eq!(f.bbr.full_bw_cnt, 2);
    assert_eq!(f.bbr.mode, Mode::Startup);
}

#[test]
fn drain_ends_when_in_flight_is_down_to_one_bdp() {
    let mut f = Flow::new(1);
    let t = f.through_startup();
    f.ack(t + 100, 99, 100, 100, 107, 0);
    assert_eq!(f.bbr.mode, Mode::Drain, "107 > 106 packets");
    f.ack(t + 200, 99, 100, 100, 106, 0);
    assert_eq!(f.bbr.mode, Mode::ProbeBw);
    assert_eq!(f.bbr.cwnd_gain, 512);
}

#[test]
fn probe_bw_cycles_the_eight_gains_from_a_random_phase_and_paces_at_gain_times_bw() {
    let mut f = Flow::new(7);
    let t = f.through_startup();
    f.ack(t + 100, 99, 100, 100, 100, 0);
    assert_eq!(f.bbr.mode, Mode::ProbeBw);
    let start = f.bbr.cycle_idx;
    let gains = [320, 192, 256, 256, 256, 256, 256, 256];
    let bw = bw_per_100ms(99);
    // Each ACK 101 ms after the last ends the phase (longer than min_rtt
    // 100 ms; the 1.25 phase also needs its in-flight target, 1000 is
    // above it; the 0.75 phase ends on time as in flight is still above
    // one BDP).
    let mut got = Vec::new();
    for k in 1..=16 {
        f.ack(t + 100 + 101 * k, 99, 100, 100, 1000, 0);
        got.push(f.bbr.pacing_gain);
        assert_eq!(f.tcb.pacing_rate, Some(pacing_rate(bw, f.bbr.pacing_gain)));
    }
    let want: Vec<u32> = (1..=16).map(|k| gains[(start + k) % CYCLE_LEN]).collect();
    assert_eq!(got, want);
    // 1.25 x 99 packets of 1000 bytes per 100 ms, less Linux's 1 %
    // margin: 1 225 125 bytes/s, up to the truncation of bw to 2^-24
    // packets/µs.
    let ideal = 1.25 * 990_000.0 * 0.99;
    assert!((pacing_rate(bw, 320) as f64 / ideal - 1.0).abs() < 1e-4);
}

#[test]
fn a_phase_lasts_one_min_rtt() {
    let mut f = Flow::new(7);
    let t = f.through_startup();
    f.ack(t + 100, 99, 100, 100, 100, 0);
    let idx = f.bbr.cycle_idx;
    // The phase began at this ACK's delivery time; 100 ms later is not
    // longer than min_rtt, 100.001 ms is.
    f.ack(t + 200, 99, 100, 100, 100, 0);
    assert_eq!(f.bbr.cycle_idx, idx);
    f.ack_at(Time::from_us((t + 200) * 1000 + 1), 99, 100, 100, 100, 0);
    assert_eq!(f.bbr.cycle_idx, (idx + 1) % CYCLE_LEN);
}

#[test]
fn the_start_phase_is_seeded_and_never_the_draining_one() {
    let start = |seed| {
        let mut f = Flow::new(seed);
        let t = f.through_startup();
        f.ack(t + 100, 99, 100, 100, 100, 0);
        f.bbr.cycle_idx
    };
    let mut counts = [0u32; CYCLE_LEN];
    for seed in 0..700 {
        counts[start(seed)] += 1;
    }
    // Linux: CYCLE_LEN - 1 - random_below(7), then one phase on: any of
    // the seven phases but 1 (gain 0.75), each about equally often.
    assert_eq!(counts[1], 0);
    for (i, &c) in counts.iter().enumerate().filter(|(i, _)| *i != 1) {
        assert!((70..=130).contains(&c), "phase {i}: {c} of 700");
    }
    assert_eq!(start(42), start(42));
}

#[test]
fn probe_rtt_after_10_s_without_a_new_min_then_200_ms_at_4_packets() {
    let mut f = Flow::new(3);
    // min_rtt 100 ms from the first ACK, at 100 ms.
    let t = f.through_startup();
    let mut at = t;
    while at < 10_100 {
        at += 100;
        f.ack(at, 99, 100, 120, 100, 0);
        assert_ne!(f.bbr.mode, Mode::ProbeRtt, "at {at} ms");
    }
    // At 10.1 s the filter is exactly 10 s old: not expired (Linux `after`).
    assert_eq!(at, 10_100);
    let cwnd_before = f.tcb.cwnd_pkts();
    f.ack(10_200, 99, 100, 120, 100, 0);
    assert_eq!(f.bbr.mode, Mode::ProbeRtt);
    assert_eq!((f.bbr.pacing_gain, f.bbr.cwnd_gain), (256, 256));
    assert_eq!(f.tcb.cwnd, 4.0);
    assert_eq!(f.bbr.prior_cwnd, cwnd_before);
    // The expired filter took the new sample; the low-rate samples of the
    // mode are marked application-limited.
    assert_eq!(f.bbr.min_rtt_us, 120_000);
    assert_eq!(f.tcb.app_limited, f.tcb.delivered + 100);
    // In flight reaches 4 at 10.3 s: the 200 ms dwell starts; a round
    // passes at 10.4 s; at 10.5 s the dwell is not yet over (strictly
    // after), at 10.6 s it is.
    for (at, in_flight, mode) in [
        (10_300, 4, Mode::ProbeRtt),
        (10_400, 4, Mode::ProbeRtt),
        (10_500, 4, Mode::ProbeRtt),
    ] {
        f.ack(at, 4, 100, 100, in_flight, 0);
        assert_eq!(f.bbr.mode, mode, "at {at} ms");
        assert_eq!(f.tcb.cwnd, 4.0, "at {at} ms");
    }
    f.ack(10_600, 4, 100, 100, 4, 0);
    assert_eq!(f.bbr.mode, Mode::ProbeBw);
    // Back to the saved cwnd (then capped at the target, which is higher).
    assert!(f.tcb.cwnd_pkts() >= cwnd_before, "{}", f.tcb.cwnd);
    // The next PROBE_RTT is due 10 s after this exit.
    for k in 1..=99 {
        f.ack(10_600 + 100 * k, 99, 100, 120, 100, 0);
        assert_ne!(f.bbr.mode, Mode::ProbeRtt);
    }
    f.ack(20_700, 99, 100, 120, 100, 0);
    assert_eq!(f.bbr.mode, Mode::ProbeRtt);
}

#[test]
fn the_first_round_of_recovery_conserves_packets_then_cwnd_is_restored() {
    let mut f = Flow::new(3);
    let t = f.through_startup();
    f.ack(t + 100, 99, 100, 100, 100, 0);
    assert_eq!(f.bbr.mode, Mode::ProbeBw);
    let cwnd = f.tcb.cwnd_pkts();
    // The sender enters recovery: bbr_ssthresh saves cwnd, keeps ssthresh.
    assert_eq!(f.bbr.ssthresh(&f.tcb), 106.0);
    assert_eq!(f.bbr.prior_cwnd, cwnd);
    f.tcb.ca_state = CaState::Recovery;
    f.ack(t + 150, 2, 100, 100, 50, 1);
    // Packet conservation: in flight + acked, whatever cwnd was.
    assert_eq!(f.tcb.cwnd, 52.0);
    // Recovery over: the saved cwnd back, plus what this ACK delivered,
    // capped at the target (bbr_set_cwnd with full bandwidth reached).
    f.tcb.ca_state = CaState::Open;
    f.ack(t + 250, 1, 100, 100, 60, 0);
    let bw = f.bbr.bw();
    let target = f
        .bbr
        .quantization_budget(&f.tcb, f.bbr.bdp(bw, 512) + f.bbr.ack_aggregation_cwnd());
    assert!(cwnd + 1 > 52, "the restore is visible");
    assert_eq!(f.tcb.cwnd_pkts(), (cwnd + 1).min(target));
}

#[test]
fn a_policer_is_detected_from_two_lossy_intervals_at_the_same_rate() {
    // bbr_lt_bw_sampling: after the first loss, intervals of at least 4
    // rounds ending in a loss with lost/delivered >= 50/256 give a rate;
    // two within 1/8 of each other set lt_bw to their mean and pace at it
    // with gain 1.
    let mut f = Flow::new(3);
    let t = f.through_startup();
    f.ack(t + 100, 99, 100, 100, 100, 0);
    let mut at = t + 100;
    // 50 packets per 100 ms delivered, 20 lost per round: 40 % loss.
    let mut round = |f: &mut Flow, losses| {
        at += 100;
        f.ack(at, 50, 100, 100, 100, losses);
    };
    // The first loss starts an interval (counting its round); its fourth
    // round ends it: 150 delivered, 60 lost (40 % >= 50/256) in 300 ms.
    round(&mut f, 20);
    for _ in 0..2 {
        round(&mut f, 20);
    }
    assert_eq!(f.bbr.lt_bw, 0);
    round(&mut f, 20);
    assert_eq!(f.bbr.lt_bw, 150 * BW_UNIT / 300_000);
    assert!(!f.bbr.lt_use_bw);
    // The second interval: 200 in 400 ms, the same rate: policed.
    for _ in 0..3 {
        round(&mut f, 20);
    }
    assert!(!f.bbr.lt_use_bw);
    round(&mut f, 20);
    assert!(f.bbr.lt_use_bw);
    assert_eq!(f.bbr.lt_bw, 200 * BW_UNIT / 400_000);
    assert_eq!(f.bbr.bw(), f.bbr.lt_bw);
    assert_eq!(f.bbr.pacing_gain, BBR_UNIT);
    assert_eq!(f.tcb.pacing_rate, Some(pacing_rate(f.bbr.lt_bw, BBR_UNIT)));
}

#[test]
fn an_rto_ends_a_round_and_starts_policer_sampling() {
    let mut f = Flow::new(3);
    f.through_startup();
    f.bbr.set_state(&mut f.tcb, CaState::Loss);
    assert!(f.bbr.round_start);
    assert!(f.bbr.lt_is_sampling);
}

#[test]
fn init_turns_pacing_on_at_high_gain_times_the_initial_window_per_ms() {
    // bbr_init_pacing_rate_from_rtt without an RTT sample: 10 packets per
    // nominal 1 ms at 2.885.
    let f = Flow::new(0);
    assert!(f.tcb.pacing);
    assert_eq!(
        f.tcb.pacing_rate,
        Some(pacing_rate(10 * BW_UNIT / 1000, 739))
    );
    assert_eq!(f.bbr.mode, Mode::Startup);
}
