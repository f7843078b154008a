//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 1995; Linux `net/ipv4/tcp_vegas.c`;
//! ns-3 `tcp-vegas.cc` for the textbook `diff`).
//!
//! Vegas compares the window it has with the window the path needs. Per ACK
//! it keeps `baseRTT` (the smallest RTT sample of the connection, never aged
//! unless `base_rtt_max_age` is set) and, for the current round trip, the
//! smallest sample `minRTT` and the sample count `cntRTT`. Once per RTT (the
//! first ACK beyond the `snd_nxt` recorded at the previous decision):
//!
//! * fewer than `min_samples` samples: Reno for that ACK;
//! * `target = cwnd * baseRTT / minRTT`, and the backlog estimate
//!   `diff = cwnd * (minRTT - baseRTT) / baseRTT` (Linux; the textbook and ns-3
//!   form `cwnd - target = cwnd * (minRTT - baseRTT) / minRTT` is
//!   `diff = textbook`; the Linux value is larger by `minRTT / baseRTT`);
//! * slow start with `diff > gamma`: `cwnd = min(cwnd, target + 1)`,
//!   `ssthresh = min(ssthresh, cwnd)`, leaving slow start; otherwise slow
//!   start proceeds as usual (every RTT, as Linux, not every other RTT as the
//!   Arizona code);
//! * congestion avoidance: `diff > beta` -> `cwnd -= 1` (and `ssthresh =
//!   min(ssthresh, cwnd)`), `diff < alpha` -> `cwnd += 1`, else hold;
//! * `cwnd >= min_cwnd`, then `ssthresh = max(ssthresh, 3/4 cwnd)` (Linux
//!   `tcp_current_ssthresh`, computed as `cwnd/2 + cwnd/4` in integers).
//!
//! Between decisions only slow start acts. The per-RTT machinery runs only in
//! the Open state: any other state pauses it (RTT samples around a loss are
//! ambiguous; Linux `tcp_vegas_state`), entering Open restarts it with a fresh
//! round, and an idle restart (`TxStart`, `CwndRestart`) also forgets baseRTT,
//! as Linux `tcp_vegas_init` does. While paused Vegas behaves as Reno. Losses
//! use Reno's `ssthresh = max(floor(cwnd/2), 2)`.
//!
//! Arithmetic: with `growth = linux` the rule is evaluated as the kernel
//! does, on RTTs in whole microseconds plus 1 (so never zero) with integer
//! truncation of `target` and `diff` (so with alpha 2 and beta 4 the hold
//! band is `2 <= real diff < 5`). With `growth = float` the same formulas are
//! evaluated in real numbers and the Reno fallback grows in floating point.
//!
//! Defaults: Linux alpha 2, beta 4, gamma 1 packets (ns-3 the same; the paper
//! used alpha 1, beta 3).

use crate::common::{slow_start, GrowthMode, RttRound};
use crate::params::params;
use crate::reno::{Reno, RenoParams};
use crate::{AckInfo, AckSample, CaState, CongestionControl, CwndEvent, NamedAlgorithm, Tcb, Time};
use serde::{Deserialize, Serialize};

/// Which backlog estimate `diff` Vegas compares with alpha, beta and gamma.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VegasDiff {
    /// `cwnd * (minRTT - baseRTT) / baseRTT` (Linux `tcp_vegas.c`).
    #[default]
    Linux,
    /// `cwnd - cwnd * baseRTT / minRTT = cwnd * (minRTT - baseRTT) / minRTT`
    /// (Brakmo & Peterson, ns-3 `TcpVegas`).
    Textbook,
}

params! {
    /// Vegas's parameters.
    pub struct VegasParams for |p| {
        alpha: f64 = 2.0, closed(0.0, 1e6),
            "lower edge of the backlog band, packets: cwnd += 1 per RTT below it (Linux 2, paper 1)";
        beta: f64 = 4.0, closed(p.alpha, 1e6),
            "upper edge of the backlog band, packets: cwnd -= 1 per RTT above it (Linux 4, paper 3)";
        gamma: f64 = 1.0, closed(0.0, 1e6),
            "backlog that ends slow start, packets (Linux 1)";
        diff: VegasDiff = VegasDiff::Linux, unchecked(),
            "backlog estimate: \"linux\" cwnd*(minRTT-baseRTT)/baseRTT or \"textbook\" cwnd*(minRTT-baseRTT)/minRTT";
        min_samples: u32 = 3, closed(1.0, 1e6),
            "RTT samples per round needed for a Vegas decision, else Reno (Linux 3)";
        min_cwnd: f64 = 2.0, closed(1.0, 1e6),
            "smallest window Vegas sets, packets (Linux 2)";
        loss_beta: f64 = 0.5, open_low(0.0, 1.0),
            "fraction of cwnd kept after a loss (Reno ssthresh, Linux 0.5)";
        base_rtt_max_age: f64 = 0.0, closed(0.0, 1e6),
            "baseRTT aging, seconds; 0 = never aged (Linux)";
        growth: GrowthMode = GrowthMode::Linux, unchecked(),
            "arithmetic: \"linux\" (integer microseconds and windows) or \"float\"";
    }
}

/// Per-flow Vegas state.
#[derive(Clone, Debug)]
pub struct Vegas {
    params: VegasParams,
    /// Reno, used while Vegas is paused and for rounds with too few samples.
    reno: Reno,
    /// baseRTT and the current round's minRTT and sample count.
    round: RttRound,
}

/// An RTT as Linux Vegas holds it: whole microseconds plus one.
fn vegas_us(t: Time) -> u64 {
    t.ps() / 1_000_000 + 1
}

impl Vegas {
    /// The connection's baseRTT estimate, if any sample was taken.
    pub fn base_rtt(&self) -> Option<Time> {
        self.round.base_rtt()
    }

    /// Whether the per-RTT Vegas decisions are active (Open state).
    pub fn enabled(&self) -> bool {
        self.round.enabled
    }

    /// `(target, diff)` for the round's `rtt` and `base`, in packets.
    fn target_and_diff(&self, cwnd: f64, rtt: Time, base: Time) -> (f64, f64) {
        match self.params.growth {
            GrowthMode::Linux => {
                let (rtt, base) = (vegas_us(rtt), vegas_us(base));
                let w = cwnd as u64;
                let target = w * base / rtt;
                let diff = match self.params.diff {
                    VegasDiff::Linux => w * rtt.saturating_sub(base) / base,
                    VegasDiff::Textbook => w.saturating_sub(target),
                };
                (target as f64, diff as f64)
            }
            GrowthMode::Float => {
                let (rtt, base) = (rtt.secs(), base.secs());
                let queued = (rtt - base).max(0.0);
                let diff = match self.params.diff {
                    VegasDiff::Linux => cwnd * queued / base,
                    VegasDiff::Textbook => cwnd * queued / rtt,
                };
                (cwnd * base / rtt, diff)
            }
        }
    }

    /// The once-per-RTT Vegas decision (Linux `tcp_vegas_cong_avoid`).
    fn decide(&mut self, tcb: &mut Tcb, rtt: Time, base: Time, acked: u32) {
        let p = &self.params;
        let (target, diff) = self.target_and_diff(tcb.cwnd, rtt, base);
        if tcb.in_slow_start() {
            if diff > p.gamma {
                tcb.cwnd = tcb.cwnd.min(target + 1.0);
                tcb.ssthresh = tcb.ssthresh.min(tcb.cwnd);
            } else {
                slow_start(tcb, acked);
            }
        } else if diff > p.beta {
            tcb.cwnd -= 1.0;
            tcb.ssthresh = tcb.ssthresh.min(tcb.cwnd);
        } else if diff < p.alpha {
            tcb.cwnd += 1.0;
        }
        tcb.cwnd = tcb.cwnd.max(p.min_cwnd).min(tcb.cwnd_clamp);
        // Linux tcp_current_ssthresh (Open state): max(ssthresh, 3/4 cwnd).
        let three_quarters = match p.growth {
            GrowthMode::Linux => {
                let w = tcb.cwnd as u64;
                ((w >> 1) + (w >> 2)) as f64
            }
            GrowthMode::Float => 0.75 * tcb.cwnd,
        };
        tcb.ssthresh = tcb.ssthresh.max(three_quarters);
    }
}

impl NamedAlgorithm for Vegas {
    const NAME: &'static str = "vegas";
    const SUMMARY: &'static str =
        "TCP Vegas: keeps alpha..beta packets queued, +-1 packet per RTT (Linux tcp_vegas)";
    type Params = VegasParams;
    fn new(params: VegasParams) -> Self {
        let reno = Reno::new(RenoParams {
            beta: params.loss_beta,
            growth: params.growth,
        });
        let round = RttRound::new(Time::from_secs_f64(params.base_rtt_max_age));
        Vegas {
            params,
            reno,
            round,
        }
    }
}

impl CongestionControl for Vegas {
    fn init(&mut self, tcb: &mut Tcb) {
        self.round.reset_base();
        self.round.enable(tcb);
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        self.reno.ssthresh(tcb)
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            self.round.on_sample(tcb.now, rtt);
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if !self.round.enabled {
            self.reno.cong_avoid(tcb, ack);
            return;
        }
        if self.round.round_ended(ack.ack_seq) {
            let sampled = self.round.sampled(self.params.min_samples);
            self.round.next_round(tcb);
            match sampled {
                Some((rtt, base)) => self.decide(tcb, rtt, base, ack.acked),
                None => self.reno.cong_avoid(tcb, ack),
            }
        } else if tcb.in_slow_start() {
            slow_start(tcb, ack.acked);
        }
    }

    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        self.round.set_state(tcb, new_state);
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
        if matches!(event, CwndEvent::TxStart | CwndEvent::CwndRestart) {
            self.init(tcb);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;
    use crate::UNLIMITED;

    fn vegas() -> Vegas {
        Vegas::new(VegasParams::default())
    }

    /// 100 ms propagation RTT, 1000 packets/s: BDP = 100 packets.
    const BASE: Time = Time::from_ms(100);
    const RATE: f64 = 1000.0;

    #[test]
    fn slow_start_ends_at_target_plus_one_when_diff_exceeds_gamma() {
        // Linux tcp_vegas_cong_avoid: in slow start, diff > gamma -> cwnd =
        // min(cwnd, target + 1), ssthresh = min(ssthresh, cwnd). Windows
        // 10..160 double (160 > BDP queues, RTT 160 ms). The decision at the
        // start of the 320-packet round sees minRTT = 160 ms of the previous
        // round: Linux diff = floor(320 * 60000 / 100001) = 191 > 1, target =
        // floor(320 * 100001 / 160001) = 200, so cwnd = 201 and ssthresh = 201
        // (3/4 cwnd is below).
        let mut h =
            Harness::new(vegas(), 10.0, UNLIMITED).with_bottleneck(BASE, RATE, f64::INFINITY);
        for expected in [20.0, 40.0, 80.0, 160.0, 320.0] {
            h.round();
            assert_eq!(h.tcb.cwnd, expected);
        }
        h.round();
        let target = (320 * 100_001 / 160_001) as f64;
        assert_eq!(h.tcb.cwnd, target + 1.0);
        assert_eq!(h.tcb.cwnd, 201.0);
        assert_eq!(h.tcb.ssthresh, 201.0);
        assert!(!h.tcb.in_slow_start());
        assert_eq!(h.losses, 0);
    }

    #[test]
    fn slow_start_continues_while_diff_is_at_most_gamma() {
        // Linux tcp_vegas_cong_avoid: without queueing (fixed RTT) diff = 0 <=
        // gamma: cwnd doubles every RTT (Linux slow start every RTT, not every
        // other RTT).
        let mut h = Harness::new(vegas(), 10.0, UNLIMITED).with_rtt(BASE);
        for n in 1..=6 {
            h.round();
            assert_eq!(h.tcb.cwnd, 10.0 * 2f64.powi(n));
        }
    }

    fn settled_backlogs(params: VegasParams) -> Vec<f64> {
        // Start below the BDP in congestion avoidance; buffer 10 > beta.
        let mut h = Harness::new(Vegas::new(params), 90.0, 50.0).with_bottleneck(BASE, RATE, 10.0);
        h.rounds(100);
        let mut backlogs = Vec::new();
        for _ in 0..30 {
            h.round();
            backlogs.push(h.tcb.cwnd.floor() - h.bdp());
        }
        assert_eq!(
            h.losses, 0,
            "Brakmo & Peterson 1995: no losses when the buffer exceeds beta"
        );
        backlogs
    }

    #[test]
    fn congestion_avoidance_holds_the_backlog_between_alpha_and_beta() {
        // Brakmo & Peterson 1995: steady state alpha <= diff <= beta, i.e. an
        // own backlog of 2..4 packets with the Linux constants, and cwnd stops
        // moving.
        let backlogs = settled_backlogs(VegasParams::default());
        for b in &backlogs {
            assert!((2.0..=4.0).contains(b), "backlog {b} outside [alpha, beta]");
        }
        assert!(backlogs.windows(2).all(|w| w[0] == w[1]), "{backlogs:?}");
    }

    #[test]
    fn textbook_diff_also_settles_in_the_band() {
        // Brakmo & Peterson 1995 with the textbook diff (ns-3 form).
        let p = VegasParams {
            diff: VegasDiff::Textbook,
            ..VegasParams::default()
        };
        let backlogs = settled_backlogs(p);
        for b in &backlogs {
            assert!((2.0..=4.0).contains(b), "backlog {b} outside [alpha, beta]");
        }
        assert!(backlogs.windows(2).all(|w| w[0] == w[1]), "{backlogs:?}");
    }

    /// Plays one round of `n` single-packet ACKs with the same RTT sample.
    fn play_round(h: &mut Harness<Vegas>, n: u32, rtt: Time) {
        h.tcb.snd_nxt = h.tcb.snd_una + u64::from(n);
        for _ in 0..n {
            h.ack(1, Some(rtt));
        }
    }

    #[test]
    fn linux_and_textbook_diff_differ_by_min_rtt_over_base_rtt() {
        // Linux diff = cwnd (RTT - baseRTT) / baseRTT: baseRTT 100 ms, then a
        // round at minRTT 104.1 ms. Its first ACK still decides on the 100 ms
        // round (diff 0: cwnd 101); the next decision has Linux diff 101 * 4.1
        // / 100 = 4.14 > beta (cwnd - 1) but textbook diff 101 * 4.1 / 104.1 =
        // 3.98 <= beta (hold). Float arithmetic isolates the definition from
        // truncation.
        let run = |diff| {
            let p = VegasParams {
                diff,
                growth: GrowthMode::Float,
                ..VegasParams::default()
            };
            let mut h = Harness::new(Vegas::new(p), 100.0, 50.0);
            play_round(&mut h, 100, BASE);
            let rtt = Time::from_us(104_100);
            play_round(&mut h, 100, rtt);
            let before = h.tcb.cwnd;
            play_round(&mut h, 1, rtt);
            h.tcb.cwnd - before
        };
        assert_eq!(run(VegasDiff::Linux), -1.0);
        assert_eq!(run(VegasDiff::Textbook), 0.0);
    }

    #[test]
    fn decisions_use_linux_integer_arithmetic() {
        // Linux: diff = floor(cwnd * ((rtt+1) - (base+1)) / (base+1)) in us.
        // baseRTT 100 ms, then minRTT 100.45 ms; the decision after the
        // first one (diff 0: cwnd 1001) has 1001 * 450 / 100001 = 4.5045 ->
        // 4, hold; the real-valued rule gives 4.5 > beta and shrinks.
        let run = |growth| {
            let p = VegasParams {
                growth,
                ..VegasParams::default()
            };
            let mut h = Harness::new(Vegas::new(p), 1000.0, 500.0);
            play_round(&mut h, 1000, BASE);
            let rtt = Time::from_us(100_450);
            play_round(&mut h, 1000, rtt);
            let before = h.tcb.cwnd;
            play_round(&mut h, 1, rtt);
            h.tcb.cwnd - before
        };
        assert_eq!(run(GrowthMode::Linux), 0.0);
        assert_eq!(run(GrowthMode::Float), -1.0);
    }

    #[test]
    fn too_few_samples_fall_back_to_reno() {
        // Linux: cntRTT <= 2 at the round end -> tcp_reno_cong_avoid for that
        // ACK. With one ACK per window (1 sample per round) Vegas never
        // decides, and that ACK's Reno increase is +1 per RTT in CA.
        let mut h = Harness::new(vegas(), 20.0, 10.0)
            .with_bottleneck(BASE, RATE, f64::INFINITY)
            .with_delayed_ack(1000);
        for n in 1..=5 {
            h.round();
            assert_eq!(h.tcb.cwnd, 20.0 + f64::from(n));
        }
    }

    #[test]
    fn loss_uses_reno_and_vegas_pauses_outside_open() {
        // Linux: loss -> Reno ssthresh; Vegas runs only in Open
        // (tcp_vegas_state).
        let mut h = Harness::new(vegas(), 90.0, 50.0).with_bottleneck(BASE, RATE, 10.0);
        h.rounds(20);
        h.tcb.cwnd = 101.0;
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 50.0);
        assert_eq!(h.tcb.cwnd, 50.0);
        assert!(h.cc.enabled());
        // After an RTO, the Loss state is Reno slow start, Vegas paused.
        h.rto();
        assert!(!h.cc.enabled());
        assert_eq!(h.tcb.ssthresh, 25.0);
        assert_eq!(h.tcb.cwnd, 1.0);
        h.round();
        assert!(h.cc.enabled(), "back in Open after the first ACK");
    }

    #[test]
    fn idle_restart_forgets_base_rtt() {
        // Linux tcp_vegas_cwnd_event: TX_START / CWND_RESTART re-run init.
        let mut h = Harness::new(vegas(), 10.0, UNLIMITED).with_rtt(BASE);
        h.round();
        assert_eq!(h.cc.base_rtt(), Some(BASE));
        h.cc.cwnd_event(&mut h.tcb, CwndEvent::TxStart);
        assert_eq!(h.cc.base_rtt(), None);
        h = h.with_rtt(Time::from_ms(150));
        h.round();
        assert_eq!(h.cc.base_rtt(), Some(Time::from_ms(150)));
    }

    #[test]
    fn base_rtt_aging_follows_a_route_change() {
        // Linux never ages baseRTT: it reads a longer path as queueing
        // and shrinks cwnd far below the new BDP; with aging baseRTT follows
        // the new path and cwnd fills it again. (Aging also re-reads Vegas's
        // own standing backlog as path delay at each expiry, so the backlog
        // is not asserted here.)
        let run = |max_age: f64| {
            let p = VegasParams {
                base_rtt_max_age: max_age,
                ..VegasParams::default()
            };
            let mut h = Harness::new(Vegas::new(p), 90.0, 50.0).with_bottleneck(BASE, RATE, 10.0);
            h.rounds(60);
            h = h.with_bottleneck(Time::from_ms(200), RATE, 10.0);
            h.rounds(300);
            (h.tcb.cwnd, h.bdp(), h.cc.base_rtt().unwrap())
        };
        let (never, _, base) = run(0.0);
        assert_eq!(base, BASE);
        assert!(
            never < 20.0,
            "cwnd {never}: 100 ms extra delay read as queue"
        );
        let (aged, bdp, base) = run(5.0);
        assert!(base >= Time::from_ms(200), "aged baseRTT {base}");
        assert!(
            aged > bdp,
            "cwnd {aged} should fill the new {bdp}-packet pipe"
        );
    }
}
