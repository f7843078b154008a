//! Compound TCP (Tan, Song, Zhang, Sridharan, "A Compound TCP Approach for
//! High-speed and Long Distance Networks", IEEE INFOCOM 2006; Microsoft
//! Research TR-2005-86; draft-sridharan-tcpm-ctcp-00..02;
//! the ports named below).
//!
//! The send window is the sum of a Reno-like loss window `cwnd_l` and a
//! delay window `dwnd`: `tcb.cwnd = cwnd_l + dwnd` (the receiver window is
//! the sender's business). The algorithm keeps both components privately
//! and re-synchronises them whenever the sender has changed `tcb.cwnd`
//! (recovery exit sets `cwnd = ssthresh`, RTO sets 1, undo raises it).
//!
//! * Loss window: slow start while `cwnd_l < ssthresh` (+1 per packet),
//!   then `cwnd_l += 1/win` per packet (+1 per RTT).
//! * Delay window, once per RTT (round minimum RTT against baseRTT):
//!   `diff = win (RTT - baseRTT) / RTT` (packets queued by this flow);
//!   `diff < gamma`: `dwnd += max(alpha win^k - 1, 0)` (the -1 offsets
//!   `cwnd_l`'s own +1, so the total grows `alpha win^k` per RTT);
//!   `diff >= gamma`: `dwnd = max(dwnd - zeta diff, 0)`.
//!   Below `low_window` packets of total window `dwnd = 0` (plain Reno).
//! * Loss (`loss_split = "paper"`, default): `cwnd_l <- cwnd_l / 2`, `dwnd <-
//!   max(win (1 - beta) - cwnd_l / 2, 0)`, so the total becomes `win (1 -
//!   beta)`; `ssthresh()` returns that total and, once the sender has applied
//!   it, `tcb.ssthresh` is set to the new `cwnd_l` so that the loss window
//!   continues in congestion avoidance as Reno's would. `loss_split = "port"`:
//!   the rule of the Linux port as shipped in ns-2.35 TCP-Linux, `ssthresh =
//!   win (1 - beta)` and, when the sender has cut the window to `win'`: `cwnd_l
//!   = win'`, `dwnd = 0` if either component alone exceeds `win'`, else `dwnd`
//!   kept and `cwnd_l = win' - dwnd` (the loss window is then below ssthresh
//!   and slow-starts back to it, as in the port). With `beta = 1/2` one
//!   component always exceeds `win/2` unless they are equal, so the port in
//!   effect restarts from `cwnd_l = win/2`, `dwnd = 0` -- the port's "dwnd
//!   kept" holds only for smaller cuts. Reductions that do not follow a loss
//!   (idle restart) scale both components in proportion.
//! * RTO: `cwnd_l = 1`, `dwnd = 0`, standard slow start.
//! * The per-RTT update pauses outside the Open state (RTT samples around a
//!   loss are ambiguous; the ports' `tcp_compound_state`).
//!
//! Sources for the constants and rules:
//! * `alpha = 1/8`, `beta = 1/2`, `k = 3/4`, `gamma = 30` packets,
//!   `zeta = 1`: the INFOCOM paper; confirmed in the Linux port of
//!   A. Castellani and S. Hemminger (2006, `TCP_COMPOUND_ALPHA` 3 = shift
//!   for 1/8, `GAMMA` 30, `ZETA`/`ETA` 1, `win^3/4` through an integer 4th
//!   root; the version shipped in ns-2.35 TCP-Linux) and in L. Andrew's
//!   revised port (release 1.3, 2008, which also builds under ns-2
//!   TCP-Linux: `LOG_ALPHA` 3, `GAMMA` 30, `ETA` 1).
//! * Minimum window `low_window = 38` packets (a recollection of 41 was not
//!   confirmed): draft-sridharan-tcpm-ctcp states that the delay-based
//!   component only kicks in when the window is larger than a threshold
//!   "currently set to 38 packets assuming 1500 byte MTU" (quoted in the ICCRG
//!   list thread "Initial value of dwnd", Nov. 2008), and L. Andrew's port has
//!   `LOW_WINDOW = 38` ("Revert to Reno if CWND < LOW_WINDOW"), compared with
//!   the total window as here (the draft words it on cwnd). No source for 41
//!   was found. Castellani's original port has no threshold (`low_window = 0`).
//!   To reproduce ns-2.35 TCP-Linux use `loss_split = "port"`,
//!   `dwnd_in_slow_start = true`, `low_window = 0`, `growth = "linux"`.
//! * Round: Vegas-style, RTT = minimum sample of the last RTT, at least
//!   three samples (`cntRTT > 2`), as in both ports.
//! * Slow start: the paper and the draft ("dwnd is initialized to zero while
//!   the connection is in slow start") update `dwnd` only in congestion
//!   avoidance (`dwnd_in_slow_start = false`); Castellani's port runs the
//!   per-RTT update in slow start too (`true`).
//! * Gamma auto-tuning (draft-sridharan-tcpm-ctcp; L. Andrew's port, Dec.
//!   2007): per RTT `diff_reno = cwnd_l (RTT - baseRTT) / RTT`; at each loss
//!   `gamma += lambda (3/4 diff_reno - gamma)`, clamped to `[gamma_min,
//!   gamma_max] = [5, 30]`, then wait for a fresh `diff_reno` (one from a round
//!   where the delay component acts: not in slow start, not below `low_window`;
//!   forgotten after idle). Off by default. `lambda = 1/2` is the draft's value
//!   as recalled (not re-checked); Andrew's release 1.1 changelog records a
//!   change of lambda from 1/2 to 1/4 (and an ns-3 fork is reported to use 0.8)
//!   -- set `gamma_lambda` to reproduce those.
//! * Not reproduced: Andrew's port also pacing the `dwnd` increase over the
//!   next RTT and splitting a backoff proportionally between components.

use crate::common::{additive_increase, slow_start, GrowthMode, RttRound};
use crate::params::params;
use crate::{AckInfo, AckSample, CaState, CongestionControl, CwndEvent, NamedAlgorithm, Tcb, Time};
use serde::{Deserialize, Serialize};

/// Gamma tuning aims gamma at this fraction of the backlog `diff_reno` the
/// loss window had before the loss (draft-sridharan-tcpm-ctcp: 3/4).
const GAMMA_TUNING_BACKLOG_FRACTION: f64 = 0.75;

/// How a loss divides the reduced window between `cwnd_l` and `dwnd`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompoundLossSplit {
    /// INFOCOM 2006: `cwnd_l / 2`, `dwnd = max(win (1 - beta) - cwnd_l/2, 0)`.
    #[default]
    Paper,
    /// Linux/ns-2 TCP-Linux port (Castellani/Hemminger): `dwnd` kept,
    /// `cwnd_l = win' - dwnd`.
    Port,
}

params! {
    /// Compound TCP's parameters.
    pub struct CompoundParams for |p| {
        alpha: f64 = 0.125, open_low(0.0, 1e3),
            "delay-window increase factor, dwnd += alpha*win^k - 1 per RTT (paper 1/8)";
        beta: f64 = 0.5, open_low(0.0, 1.0),
            "fraction of the total window removed on a loss (paper 1/2)";
        k: f64 = 0.75, open_low(0.0, 1.0),
            "exponent of the delay-window increase (paper 3/4)";
        gamma: f64 = 30.0, closed(0.0, 1e9),
            "packets: own-backlog target; dwnd grows below it and shrinks above (paper 30)";
        zeta: f64 = 1.0, closed(0.0, 1e3),
            "dwnd falls by zeta*diff packets per RTT when diff >= gamma (paper 1)";
        low_window: f64 = 38.0, closed(0.0, 1e9),
            "packets: total window below which dwnd = 0 (38: CTCP draft, Andrew's port)";
        loss_split: CompoundLossSplit = CompoundLossSplit::Paper, unchecked(),
            "\"paper\" (cwnd_l/2, dwnd = win(1-beta) - cwnd_l/2) or \"port\" (Linux port: dwnd kept)";
        dwnd_in_slow_start: bool = false, unchecked(),
            "run the per-RTT dwnd update in slow start too (Linux port true, paper false)";
        gamma_tuning: bool = false, unchecked(),
            "tune gamma at each loss from 3/4 of the loss window's backlog (draft; off)";
        gamma_lambda: f64 = 0.5, open_low(0.0, 1.0),
            "gain of the gamma tuning, gamma += lambda*(3/4 diff_reno - gamma) (1/2)";
        gamma_min: f64 = 5.0, closed(0.0, 1e9),
            "packets: lower clamp of tuned gamma (5)";
        gamma_max: f64 = 30.0, closed(p.gamma_min, 1e9),
            "packets: upper clamp of tuned gamma (30)";
        min_rtt_samples: u32 = 3, closed(1.0, 1e6),
            "RTT samples a round needs for the per-RTT update (ports: 3)";
        growth: GrowthMode = GrowthMode::Float, unchecked(),
            "window arithmetic: \"float\" (paper) or \"linux\" (integer windows, floored dwnd steps)";
    }
}

/// Per-flow Compound TCP state.
#[derive(Clone, Debug)]
pub struct Compound {
    params: CompoundParams,
    round: RttRound,
    /// Loss-based window, packets.
    cwnd_l: f64,
    /// Delay-based window, packets (>= 0).
    dwnd: f64,
    /// Current backlog target, packets (tuned if `gamma_tuning`).
    gamma: f64,
    /// Backlog attributable to the loss window in the last RTT (gamma tuning).
    diff_reno: Option<f64>,
    /// `(cwnd_l, dwnd)` when `ssthresh()` was last called: the split to
    /// apply when the sender lowers cwnd after that loss.
    at_loss: Option<(f64, f64)>,
}

impl NamedAlgorithm for Compound {
    const NAME: &'static str = "compound";
    const SUMMARY: &'static str =
        "Compound TCP: Reno loss window plus a delay window growing alpha*win^k while backlog < gamma";
    type Params = CompoundParams;
    fn new(params: CompoundParams) -> Self {
        let gamma = params.gamma;
        Compound {
            params,
            round: RttRound::default(),
            cwnd_l: 0.0,
            dwnd: 0.0,
            gamma,
            diff_reno: None,
            at_loss: None,
        }
    }
}

impl Compound {
    /// `x` floored in Linux (integer) mode, unchanged in float mode.
    fn int(&self, x: f64) -> f64 {
        match self.params.growth {
            GrowthMode::Linux => x.floor(),
            GrowthMode::Float => x,
        }
    }

    /// The components after a loss that left the total at `win_new`, given
    /// the components `(c, d)` at the loss.
    fn split_after_loss(&self, c: f64, d: f64, win_new: f64) -> (f64, f64) {
        match self.params.loss_split {
            CompoundLossSplit::Paper => {
                let c_new = self.int(c / 2.0).min(win_new);
                (c_new, win_new - c_new)
            }
            CompoundLossSplit::Port => {
                if c > win_new || d > win_new {
                    (win_new, 0.0)
                } else {
                    (win_new - d, d)
                }
            }
        }
    }

    /// Brings `cwnd_l + dwnd` back to the sender's `cwnd` after the sender
    /// changed it. Returns the new `cwnd_l` if a paper-form loss split was
    /// applied (the caller then lowers ssthresh to it).
    fn resync(&mut self, cwnd: f64) -> Option<f64> {
        let total = self.cwnd_l + self.dwnd;
        let at_loss = self.at_loss.take();
        if (cwnd - total).abs() <= 1e-9 * total.max(1.0) {
            return None;
        }
        if cwnd > total {
            // Undo or an external raise: the loss window takes the difference.
            self.cwnd_l += cwnd - total;
            return None;
        }
        match at_loss {
            Some((c, d)) => {
                let (c_new, d_new) = self.split_after_loss(c, d, cwnd);
                self.cwnd_l = c_new;
                self.dwnd = d_new;
                (self.params.loss_split == CompoundLossSplit::Paper).then_some(c_new)
            }
            None => {
                // A reduction that is not a loss response: keep the proportions.
                self.dwnd = self.int(self.dwnd * cwnd / total);
                self.cwnd_l = cwnd - self.dwnd;
                None
            }
        }
    }

    /// `resync` plus the ssthresh adjustment of the paper split.
    fn sync(&mut self, tcb: &mut Tcb) {
        if let Some(cwnd_l) = self.resync(tcb.cwnd) {
            tcb.ssthresh = cwnd_l.max(2.0);
        }
    }

    /// The once-per-RTT delay-window update with the round's minimum RTT
    /// `rtt` and the connection's `base` RTT (Tan et al. 2006).
    fn update_dwnd(&mut self, tcb: &Tcb, rtt: Time, base: Time) {
        let p = &self.params;
        let win = tcb.cwnd;
        let queued_fraction = rtt.saturating_sub(base).ps() as f64 / rtt.ps() as f64;
        let diff = win * queued_fraction;
        if win < p.low_window {
            self.dwnd = 0.0;
            return;
        }
        if self.cwnd_l < tcb.ssthresh && !p.dwnd_in_slow_start {
            // Paper: the delay component only acts in congestion avoidance.
            return;
        }
        // gamma tuning learns only from rounds where the delay component
        // acts (Andrew's port), never from a slow-start round's backlog.
        self.diff_reno = Some(self.cwnd_l * queued_fraction);
        if diff < self.gamma {
            let step = self.int(p.alpha * win.powf(p.k)) - 1.0;
            self.dwnd += step.max(0.0);
        } else {
            self.dwnd = (self.dwnd - self.int(p.zeta * diff)).max(0.0);
        }
    }
}

impl CongestionControl for Compound {
    fn init(&mut self, tcb: &mut Tcb) {
        self.cwnd_l = tcb.cwnd;
        self.dwnd = 0.0;
        self.round.enable(tcb);
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        self.resync(tcb.cwnd);
        if self.params.gamma_tuning {
            if let Some(diff_reno) = self.diff_reno.take() {
                let p = &self.params;
                let g = self.gamma
                    + p.gamma_lambda * (GAMMA_TUNING_BACKLOG_FRACTION * diff_reno - self.gamma);
                self.gamma = g.clamp(p.gamma_min, p.gamma_max);
            }
        }
        self.at_loss = Some((self.cwnd_l, self.dwnd));
        let target = self.int(tcb.cwnd * (1.0 - self.params.beta));
        let total = match self.params.loss_split {
            CompoundLossSplit::Paper => target.max(self.int(self.cwnd_l / 2.0)),
            CompoundLossSplit::Port => target,
        };
        total.max(2.0)
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            self.round.on_sample(tcb.now, rtt);
        }
    }

    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        self.round.set_state(tcb, new_state);
        if new_state == CaState::Loss {
            // RTO: cwnd_l restarts from the sender's cwnd (1), no delay window.
            self.cwnd_l = tcb.cwnd;
            self.dwnd = 0.0;
            self.at_loss = None;
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
        match event {
            CwndEvent::CompleteCwr => self.sync(tcb),
            CwndEvent::TxStart | CwndEvent::CwndRestart => {
                // Fresh samples before the next decision; baseRTT is kept
                // (Andrew's port, as the CTCP specification asks), and
                // gamma tuning waits for a fresh diff_reno.
                self.sync(tcb);
                self.round.enable(tcb);
                self.diff_reno = None;
            }
            CwndEvent::Loss => {}
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        self.sync(tcb);
        let mut acked = ack.acked;
        if self.cwnd_l < tcb.ssthresh {
            // Slow start of the loss window (+1 per packet up to ssthresh, or
            // RFC 3742 above max_ssthresh): the shared rule, run on cwnd_l.
            tcb.cwnd = self.cwnd_l;
            acked = slow_start(tcb, acked);
            self.cwnd_l = tcb.cwnd;
            tcb.cwnd = self.cwnd_l + self.dwnd;
        }
        if acked > 0 {
            // cwnd_l += acked / win, with the sender's counter in Linux mode.
            let before = tcb.cwnd;
            additive_increase(tcb, self.params.growth, before, acked);
            self.cwnd_l += tcb.cwnd - before;
        }
        if self.round.round_ended(ack.ack_seq) {
            if let Some((rtt, base)) = self.round.sampled(self.params.min_rtt_samples) {
                self.update_dwnd(tcb, rtt, base);
            }
            self.round.next_round(tcb);
        }
        tcb.cwnd = (self.cwnd_l + self.dwnd).min(tcb.cwnd_clamp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamSet;
    use crate::reno::{Reno, RenoParams};
    use crate::testing::Harness;
    use crate::UNLIMITED;

    fn ctcp() -> Compound {
        Compound::new(CompoundParams::default())
    }

    fn ms(x: u64) -> Time {
        Time::from_ms(x)
    }

    /// A flow in congestion avoidance with the given components.
    fn with_components(p: CompoundParams, cwnd_l: f64, dwnd: f64) -> (Compound, Tcb) {
        let mut c = Compound::new(p);
        let mut t = Tcb::new(cwnd_l + dwnd, 2.0, 1448);
        c.init(&mut t);
        c.cwnd_l = cwnd_l;
        c.dwnd = dwnd;
        (c, t)
    }

    #[test]
    fn empty_queue_growth_is_alpha_win_to_the_k() {
        // Tan et al. 2006: with no queue, dwnd += alpha*win^k - 1 per RTT
        // and cwnd_l += 1, so the total grows alpha*win^0.75: win 1000 -> 22.2.
        let (mut c, t) = with_components(CompoundParams::default(), 1000.0, 0.0);
        c.update_dwnd(&t, ms(100), ms(100));
        let step = 0.125 * 1000f64.powf(0.75) - 1.0;
        assert_eq!(c.dwnd, step);
        assert!((step + 1.0 - 22.23).abs() < 0.01);

        let mut h = Harness::new(ctcp(), 1000.0, 100.0).with_rtt(ms(100));
        h.rounds(2);
        for _ in 0..5 {
            let w = h.tcb.cwnd;
            h.round();
            let expected = 0.125 * w.powf(0.75);
            assert!((h.tcb.cwnd - w - expected).abs() < 0.1, "win {w}");
        }
        assert!(h.cc.dwnd > 100.0);
        assert_eq!(h.tcb.cwnd, h.cc.cwnd_l + h.cc.dwnd);
    }

    #[test]
    fn backlog_above_gamma_shrinks_dwnd_by_zeta_diff() {
        // Tan et al. 2006: diff >= gamma -> dwnd = max(dwnd - zeta*diff, 0).
        // win 500, RTT 110 ms over baseRTT 100 ms: diff = 500*10/110 = 45.45.
        let (mut c, t) = with_components(CompoundParams::default(), 400.0, 100.0);
        c.update_dwnd(&t, ms(110), ms(100));
        assert!((c.dwnd - (100.0 - 500.0 * 10.0 / 110.0)).abs() < 1e-9);
        // Linux mode floors zeta*diff (port's integer arithmetic): 100 - 45.
        let p = CompoundParams {
            growth: GrowthMode::Linux,
            ..CompoundParams::default()
        };
        let (mut c, t) = with_components(p, 400.0, 100.0);
        c.update_dwnd(&t, ms(110), ms(100));
        assert_eq!(c.dwnd, 55.0);
        // Just below gamma (diff = 500*6.3/106.3 = 29.6) dwnd grows instead.
        let (mut c, t) = with_components(CompoundParams::default(), 400.0, 100.0);
        c.update_dwnd(&t, Time::from_us(106_300), ms(100));
        assert!((c.dwnd - (100.0 + 0.125 * 500f64.powf(0.75) - 1.0)).abs() < 1e-9);
    }

    #[test]
    fn dwnd_never_goes_negative() {
        // Tan et al. 2006: the decrease is floored at 0.
        let (mut c, t) = with_components(CompoundParams::default(), 480.0, 20.0);
        c.update_dwnd(&t, ms(110), ms(100));
        assert_eq!(c.dwnd, 0.0);
        // And on a fluid bottleneck (BDP 1000) the delay window tracks the
        // queue: never negative, cut whenever the backlog passes gamma. The
        // Vegas-style estimate lags one RTT, so with steps of
        // alpha*win^0.75 ~ 22 packets the backlog cycles between about
        // gamma - 1 step and gamma + 2 steps rather than sitting at 30.
        let mut h =
            Harness::new(ctcp(), 1000.0, 100.0).with_bottleneck(ms(100), 10_000.0, f64::INFINITY);
        let (mut max_backlog, mut cuts) = (0.0f64, 0);
        for _ in 0..60 {
            let dwnd = h.cc.dwnd;
            h.round();
            assert!(h.cc.dwnd >= 0.0);
            assert_eq!(h.tcb.cwnd, h.cc.cwnd_l + h.cc.dwnd);
            max_backlog = max_backlog.max(h.tcb.cwnd - h.bdp());
            cuts += usize::from(h.cc.dwnd < dwnd);
        }
        let step = 0.125 * 1100f64.powf(0.75);
        assert!(max_backlog < 30.0 + 2.0 * step, "backlog {max_backlog}");
        assert!(cuts >= 5, "dwnd cut {cuts} times");
        assert_eq!(h.losses, 0);
    }

    #[test]
    fn loss_leaves_win_times_one_minus_beta_paper_split() {
        // Tan et al. 2006: cwnd_l/2, dwnd = win(1-beta) - cwnd_l/2, total win/2.
        let mut h = Harness::new(ctcp(), 1000.0, 100.0).with_rtt(ms(100));
        h.cc.cwnd_l = 600.0;
        h.cc.dwnd = 400.0;
        h.fast_loss();
        assert_eq!(h.tcb.cwnd, 500.0);
        assert_eq!((h.cc.cwnd_l, h.cc.dwnd), (300.0, 200.0));
        // The loss window continues in congestion avoidance (+1/RTT).
        assert_eq!(h.tcb.ssthresh, 300.0);
        h.round();
        assert!((h.cc.cwnd_l - 301.0).abs() < 0.01, "{}", h.cc.cwnd_l);
        // Paper formula clamps dwnd at 0 when cwnd_l/2 alone exceeds win(1-beta).
        let p = CompoundParams {
            beta: 0.7,
            ..CompoundParams::default()
        };
        let mut h = Harness::new(Compound::new(p), 1000.0, 100.0).with_rtt(ms(100));
        h.cc.cwnd_l = 900.0;
        h.cc.dwnd = 100.0;
        h.fast_loss();
        assert_eq!((h.tcb.cwnd, h.cc.cwnd_l, h.cc.dwnd), (450.0, 450.0, 0.0));
    }

    #[test]
    fn port_split_follows_the_linux_resync_rule() {
        // ns-2.35 TCP-Linux tcp_compound.c (Castellani/Hemminger): ssthresh =
        // win/2; if cwnd_l or dwnd alone exceeds the new window: cwnd_l = win',
        // dwnd = 0; else dwnd kept and cwnd_l = win' - dwnd.
        let p = CompoundParams {
            loss_split: CompoundLossSplit::Port,
            ..CompoundParams::default()
        };
        let mut h = Harness::new(Compound::new(p.clone()), 1000.0, 100.0).with_rtt(ms(100));
        h.cc.cwnd_l = 700.0;
        h.cc.dwnd = 300.0;
        h.fast_loss();
        assert_eq!((h.tcb.cwnd, h.tcb.ssthresh), (500.0, 500.0));
        assert_eq!((h.cc.cwnd_l, h.cc.dwnd), (500.0, 0.0));
        // With a smaller cut (beta 0.3) both components fit: dwnd is kept, and
        // the loss window (400 < ssthresh 700) slow-starts as in the port.
        let p = CompoundParams { beta: 0.3, ..p };
        let mut h = Harness::new(Compound::new(p), 1000.0, 100.0).with_rtt(ms(100));
        h.cc.cwnd_l = 700.0;
        h.cc.dwnd = 300.0;
        h.fast_loss();
        assert_eq!((h.tcb.cwnd, h.tcb.ssthresh), (700.0, 700.0));
        assert_eq!((h.cc.cwnd_l, h.cc.dwnd), (400.0, 300.0));
        h.ack(1, Some(ms(100)));
        assert_eq!((h.cc.cwnd_l, h.tcb.cwnd), (401.0, 701.0));
    }

    #[test]
    fn rto_resets_both_components() {
        // Tan et al. 2006: RTO -> cwnd_l = 1, dwnd = 0, slow start to
        // win(1-beta).
        let mut h = Harness::new(ctcp(), 1000.0, 100.0).with_rtt(ms(100));
        h.cc.cwnd_l = 600.0;
        h.cc.dwnd = 400.0;
        h.rto();
        assert_eq!((h.tcb.cwnd, h.tcb.ssthresh), (1.0, 500.0));
        assert_eq!((h.cc.cwnd_l, h.cc.dwnd), (1.0, 0.0));
        h.rounds(3);
        assert_eq!((h.tcb.cwnd, h.cc.dwnd), (8.0, 0.0));
    }

    #[test]
    fn small_windows_are_reno_and_dwnd_waits_for_congestion_avoidance() {
        // Draft / Andrew's port: dwnd = 0 while the window is below 38 packets.
        let (mut c, t) = with_components(CompoundParams::default(), 30.0, 5.0);
        c.update_dwnd(&t, ms(100), ms(100));
        assert_eq!(c.dwnd, 0.0);
        // Paper: no dwnd growth in slow start; the port mode grows it there too.
        let mut h = Harness::new(ctcp(), 100.0, UNLIMITED).with_rtt(ms(100));
        h.rounds(3);
        assert_eq!((h.tcb.cwnd, h.cc.dwnd), (800.0, 0.0));
        let p = CompoundParams {
            dwnd_in_slow_start: true,
            ..CompoundParams::default()
        };
        let mut h = Harness::new(Compound::new(p), 100.0, UNLIMITED).with_rtt(ms(100));
        h.rounds(3);
        assert!(h.cc.dwnd > 0.0);
        assert_eq!(h.tcb.cwnd, h.cc.cwnd_l + h.cc.dwnd);
    }

    #[test]
    fn slow_start_of_the_loss_window_honours_limited_slow_start() {
        // RFC 3742 Limited Slow-Start is a sender option every algorithm's slow
        // start follows: above max_ssthresh = 100 the loss window grows as
        // Reno's does under the same option (dwnd stays 0 in slow start).
        let mut c = Harness::new(ctcp(), 200.0, UNLIMITED)
            .with_rtt(ms(100))
            .with_lss(100);
        let mut r = Harness::new(Reno::new(RenoParams::default()), 200.0, UNLIMITED)
            .with_rtt(ms(100))
            .with_lss(100);
        for _ in 0..3 {
            c.round();
            r.round();
            assert_eq!(c.tcb.cwnd, r.tcb.cwnd);
            assert_eq!(c.cc.cwnd_l, c.tcb.cwnd);
        }
        // RFC 3742: about max_ssthresh/2 = 50 per RTT here (K = 4, then 5),
        // where plain slow start would have doubled to 1600.
        assert!((340.0..=350.0).contains(&c.tcb.cwnd), "{}", c.tcb.cwnd);
    }

    #[test]
    fn gamma_tuning_ignores_slow_start_rounds_and_idle() {
        // Andrew's port: diff_reno only from rounds where dwnd acts, and a
        // restart after idle waits for a fresh one. A round at 101 ms over
        // 100 ms would pull gamma from 30 towards 3/4 x 500/101 = 3.7.
        let p = CompoundParams {
            gamma_tuning: true,
            ..CompoundParams::default()
        };
        let (mut c, mut t) = with_components(p.clone(), 500.0, 0.0);
        t.ssthresh = 1e9; // slow start: a backlog seen now must not tune gamma
        c.update_dwnd(&t, ms(101), ms(100));
        t.ssthresh = 2.0;
        c.ssthresh(&t);
        assert_eq!(c.gamma, 30.0);
        let (mut c, mut t) = with_components(p, 500.0, 0.0);
        c.update_dwnd(&t, ms(101), ms(100));
        c.cwnd_event(&mut t, CwndEvent::TxStart);
        c.ssthresh(&t);
        assert_eq!(c.gamma, 30.0);
        // In congestion avoidance without idle the same round does tune it.
        c.update_dwnd(&t, ms(101), ms(100));
        c.ssthresh(&t);
        assert!(c.gamma < 20.0, "{}", c.gamma);
    }

    #[test]
    fn gamma_tuning_tracks_three_quarters_of_diff_reno() {
        // draft-sridharan-tcpm-ctcp: gamma += lambda (3/4 diff_reno - gamma),
        // clamped to [5, 30], applied at a loss with a fresh diff_reno.
        let p = CompoundParams {
            gamma_tuning: true,
            ..CompoundParams::default()
        };
        let (mut c, t) = with_components(p, 500.0, 0.0);
        // cwnd_l 500 at RTT 105 ms over 100 ms: diff_reno = 500*5/105 = 23.81.
        c.update_dwnd(&t, ms(105), ms(100));
        c.ssthresh(&t);
        let expected = 30.0 + 0.5 * (0.75 * 500.0 * 5.0 / 105.0 - 30.0);
        assert!((c.gamma - expected).abs() < 1e-9);
        // No fresh sample: unchanged; a zero backlog drives it to the floor 5.
        c.ssthresh(&t);
        assert!((c.gamma - expected).abs() < 1e-9);
        for _ in 0..4 {
            c.update_dwnd(&t, ms(100), ms(100));
            c.ssthresh(&t);
        }
        assert_eq!(c.gamma, 5.0);
        // Off by default: gamma stays 30.
        let (mut c, t) = with_components(CompoundParams::default(), 500.0, 0.0);
        c.update_dwnd(&t, ms(100), ms(100));
        c.ssthresh(&t);
        assert_eq!(c.gamma, 30.0);
    }

    #[test]
    fn linux_growth_keeps_both_components_integral() {
        // the ports' integer arithmetic, through losses and cuts.
        let p = CompoundParams {
            growth: GrowthMode::Linux,
            ..CompoundParams::default()
        };
        let mut h = Harness::new(Compound::new(p), 10.0, UNLIMITED).with_bottleneck(
            ms(100),
            10_000.0,
            200.0,
        );
        for _ in 0..300 {
            h.round();
            assert_eq!((h.cc.cwnd_l.fract(), h.cc.dwnd.fract()), (0.0, 0.0));
            assert_eq!(h.tcb.cwnd, h.cc.cwnd_l + h.cc.dwnd);
        }
        assert!(h.losses > 0);
    }

    #[test]
    fn response_function_scales_as_p_to_the_minus_0_8() {
        // Tan et al. 2006: with the delay window dominant and no queue,
        // mean window ~ p^(-1/(2-k)) = p^-0.8. Deterministic loss of every
        // 1/p-th packet, p = 1e-4 and 1e-6 (two decades): the fitted
        // exponent must be within 10 % of 0.8.
        let mean_window = |n: u64| {
            let mut h = Harness::new(ctcp(), 10.0, UNLIMITED)
                .with_rtt(ms(100))
                .with_periodic_loss(n);
            while h.losses < 3 {
                h.round();
            }
            let (mut sum, mut rounds) = (0.0, 0u32);
            while h.losses < 13 {
                sum += h.tcb.cwnd;
                rounds += 1;
                h.round();
            }
            sum / f64::from(rounds)
        };
        let (w4, w6) = (mean_window(10_000), mean_window(1_000_000));
        let exponent = (w6 / w4).ln() / 100f64.ln();
        assert!((exponent / 0.8 - 1.0).abs() < 0.1, "exponent {exponent}");
    }

    #[test]
    fn parameters_are_validated() {
        let bad = CompoundParams {
            gamma_max: 1.0,
            ..CompoundParams::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "gamma_max");
        assert!(CompoundParams::default().validate().is_ok());
    }
}
