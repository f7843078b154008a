//! DCTCP, Data Center TCP (M. Alizadeh et al., "Data Center TCP (DCTCP)",
//! SIGCOMM 2010; RFC 8257), as Linux `net/ipv4/tcp_dctcp.c` (mainline) runs
//! it over Reno.
//!
//! The sender keeps `alpha`, an estimate of the fraction of its packets that
//! met a queue above the marking threshold, and on an ECN echo cuts the
//! window in proportion to it instead of halving it:
//!
//! - **alpha** (Linux `dctcp_update_alpha`, the `in_ack_event` hook; RFC
//!   8257 section 3.3): once per window of data, when `snd_una` reaches the
//!   `snd_nxt` recorded at the previous update, with `F` the fraction of the
//!   packets delivered since then that were delivered by ECE ACKs
//!   (`tp->delivered_ce` over `tp->delivered`):
//!   `alpha <- (1 - g) alpha + g F`, in Linux's integers with alpha scaled
//!   by 1024 (`DCTCP_MAX_ALPHA`) and `g = 2^-shift_g`:
//!   `alpha -= min_not_zero(alpha, alpha >> shift_g)`, then, if any packet
//!   was marked, `alpha = min(alpha + (delivered_ce << (10 - shift_g)) /
//!   delivered, 1024)`. (The first subtraction takes all of an alpha below
//!   `2^shift_g`, so alpha decays to 0 rather than sticking.) Linux's u32
//!   arithmetic is done in u64 here, the same wherever Linux does not
//!   overflow.
//! - **window on ECE** (`dctcp_ssthresh`; RFC 8257 section 3.3): the
//!   sender's once-per-window reduction (CWR) asks `ssthresh`:
//!   `max(cwnd - ((cwnd alpha) >> 11), 2)`, i.e. `cwnd (1 - alpha / 2)`.
//! - **loss** (`dctcp_react_to_loss` from `dctcp_state` on entering
//!   Recovery, and from `dctcp_cwnd_event` on `CA_EVENT_LOSS`): Reno's
//!   halving, `ssthresh = max(cwnd >> 1, 2)`, once per loss episode.
//! - **growth**: Reno's (`tcp_reno_cong_avoid`); **undo**: `max(cwnd,
//!   loss_cwnd)` (`dctcp_cwnd_undo`).
//! - `alpha` starts at `alpha_on_init` (Linux `dctcp_alpha_on_init`, 1024:
//!   the first reductions are halvings until marks say otherwise).
//!
//! DCTCP needs ECN (Linux `TCP_CONG_NEEDS_ECN`): its flows use ECN whatever
//! their `ecn` option says, retransmissions stay ECT, and the receiver
//! echoes each change of the CE state at once (the sim's `EcnEcho::PerCe`,
//! Linux `dctcp_ece_ack_update`). Linux's fallback to Reno when the peer
//! refuses ECN never arises here (both ends are the simulator's), nor does
//! Protective Load Balancing (`tcp_plb_*`, a path rehash).

use crate::common::{additive_increase, slow_start_then, GrowthMode};
use crate::params::params;
use crate::{AckInfo, CaState, CongestionControl, CwndEvent, NamedAlgorithm, Tcb};

/// alpha's scale: 1024 stands for 1 (Linux `DCTCP_MAX_ALPHA`).
pub const MAX_ALPHA: u32 = 1024;

params! {
    /// DCTCP's parameters.
    pub struct DctcpParams for |p| {
        /// The EWMA gain of alpha is g = 1 / 2^shift_g.
        shift_g: u32 = 4, closed(0.0, 10.0),
            unit "",
            source "Linux net/ipv4/tcp_dctcp.c dctcp_shift_g = 4 (g = 1/16; the module accepts 0..10); RFC 8257 (g = 1/16)";
        /// alpha when the connection starts, in 1/1024.
        alpha_on_init: u32 = 1024, closed(0.0, 1024.0),
            unit "1/1024",
            source "Linux tcp_dctcp.c dctcp_alpha_on_init = DCTCP_MAX_ALPHA (1024); RFC 8257 (DCTCP.Alpha starts at 1)";
    }
}

/// Per-flow DCTCP state (Linux `struct dctcp`).
#[derive(Clone, Debug)]
pub struct Dctcp {
    params: DctcpParams,
    /// Estimated marked fraction, scaled by [`MAX_ALPHA`].
    alpha: u32,
    /// alpha is next updated when `snd_una` reaches this.
    next_seq: u64,
    /// `tcb.delivered` at the last update.
    old_delivered: u64,
    /// `tcb.delivered_ce` at the last update.
    old_delivered_ce: u64,
    /// cwnd at the last reduction, packets (for undo and the RTO halving).
    loss_cwnd: u32,
    /// `ssthresh` ran and no state change has followed but to Loss: an RTO
    /// now is one that Linux `tcp_enter_loss` reduces for, with its
    /// `CA_EVENT_LOSS` (the sender calls `ssthresh`, then `set_state(Loss)`,
    /// then `cwnd_event(Loss)`).
    ssthresh_fresh: bool,
}

impl NamedAlgorithm for Dctcp {
    const NAME: &'static str = "dctcp";
    const SUMMARY: &'static str = "DCTCP (Linux tcp_dctcp.c, RFC 8257): Reno growth, cwnd x (1 - \
                                   alpha/2) per window of ECN echoes, alpha the EWMA of the \
                                   marked fraction; needs ECN and a marking queue";
    const NEEDS_ECN: bool = true;
    type Params = DctcpParams;
    fn new(params: DctcpParams) -> Self {
        Dctcp {
            alpha: params.alpha_on_init.min(MAX_ALPHA),
            params,
            next_seq: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            loss_cwnd: 0,
            ssthresh_fresh: false,
        }
    }
}

/// One update of alpha (Linux `dctcp_update_alpha`) after `delivered`
/// packets of which `delivered_ce` came with ECE, gain `2^-shift_g`.
pub fn updated_alpha(alpha: u32, delivered: u64, delivered_ce: u64, shift_g: u32) -> u32 {
    let decay = alpha >> shift_g;
    // min_not_zero(alpha, alpha >> shift_g)
    let mut alpha = alpha - if decay == 0 { alpha } else { decay.min(alpha) };
    if delivered_ce > 0 {
        let add = (delivered_ce << (10 - shift_g)) / delivered.max(1);
        alpha = (u64::from(alpha) + add).min(u64::from(MAX_ALPHA)) as u32;
    }
    alpha
}

impl Dctcp {
    /// alpha, scaled by [`MAX_ALPHA`].
    pub fn alpha(&self) -> u32 {
        self.alpha
    }

    /// Linux `dctcp_reset`: the next window starts now.
    fn reset(&mut self, tcb: &Tcb) {
        self.next_seq = tcb.snd_nxt;
        self.old_delivered = tcb.delivered;
        self.old_delivered_ce = tcb.delivered_ce;
    }

    /// Linux `dctcp_react_to_loss`: Reno's halving.
    fn react_to_loss(&mut self, tcb: &mut Tcb, cwnd: u32) {
        self.loss_cwnd = cwnd;
        tcb.ssthresh = f64::from((cwnd >> 1).max(2));
    }
}

impl CongestionControl for Dctcp {
    fn init(&mut self, tcb: &mut Tcb) {
        self.alpha = self.params.alpha_on_init.min(MAX_ALPHA);
        self.loss_cwnd = 0;
        self.reset(tcb);
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        let cwnd = tcb.cwnd_pkts();
        self.loss_cwnd = cwnd;
        self.ssthresh_fresh = true;
        let cut = (u64::from(cwnd) * u64::from(self.alpha)) >> 11;
        (f64::from(cwnd) - cut as f64).max(2.0)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        let acked = slow_start_then(tcb, ack.acked);
        if acked == 0 {
            return;
        }
        let w = tcb.cwnd;
        additive_increase(tcb, GrowthMode::Linux, w, acked);
    }

    fn in_ack_event(&mut self, tcb: &Tcb) {
        if tcb.snd_una >= self.next_seq {
            let delivered = tcb.delivered - self.old_delivered;
            let delivered_ce = tcb.delivered_ce - self.old_delivered_ce;
            self.alpha = updated_alpha(self.alpha, delivered, delivered_ce, self.params.shift_g);
            self.reset(tcb);
        }
    }

    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        if new_state == CaState::Recovery && tcb.ca_state != CaState::Recovery {
            let cwnd = tcb.cwnd_pkts();
            self.react_to_loss(tcb, cwnd);
        }
        if new_state != CaState::Loss {
            self.ssthresh_fresh = false;
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
        if event == CwndEvent::Loss && self.ssthresh_fresh {
            // The cwnd Linux halves here is the one ssthresh just saw (the
            // sender has already set cwnd = 1).
            let cwnd = self.loss_cwnd;
            self.react_to_loss(tcb, cwnd);
            self.ssthresh_fresh = false;
        }
    }

    fn undo_cwnd(&mut self, tcb: &Tcb, _prior_cwnd: f64) -> f64 {
        tcb.cwnd.max(f64::from(self.loss_cwnd))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn dctcp() -> Dctcp {
        Dctcp::new(DctcpParams::default())
    }

    #[test]
    fn alpha_is_linux_integer_ewma_with_g_one_sixteenth() {
        // Linux dctcp_update_alpha, shift_g 4, alpha in 1/1024:
        // no marks: 1024 - 1024/16 = 960, then 960 - 60 = 900;
        // all 10 marked: 900 - 56 + (10 << 6) / 10 = 908;
        // 5 of 10 marked: 908 - 56 + 320 / 10 = 884.
        assert_eq!(updated_alpha(1024, 10, 0, 4), 960);
        assert_eq!(updated_alpha(960, 10, 0, 4), 900);
        assert_eq!(updated_alpha(900, 10, 10, 4), 908);
        assert_eq!(updated_alpha(908, 10, 5, 4), 884);
        // Capped at 1024; below 16 the decay takes it all (min_not_zero).
        assert_eq!(updated_alpha(1024, 10, 10, 4), 1024);
        assert_eq!(updated_alpha(15, 10, 0, 4), 0);
        assert_eq!(updated_alpha(0, 10, 0, 4), 0);
        assert_eq!(updated_alpha(0, 0, 0, 4), 0);
        // shift_g 0 (g = 1): alpha is the last window's fraction.
        assert_eq!(updated_alpha(700, 4, 1, 0), 256);
    }

    #[test]
    fn alpha_settles_at_the_marked_fraction_within_the_truncation() {
        // A steady F = 1/4: the fixed point has alpha >> 4 = 64 (F 1024 / 16),
        // so alpha ends in 1024 / 4 ..= 1024 / 4 + 15.
        let mut a = 1024;
        for _ in 0..300 {
            a = updated_alpha(a, 40, 10, 4);
        }
        assert!((256..=271).contains(&a), "{a}");
    }

    /// Sends nothing new; ACKs `n` packets one by one from `tcb.snd_una`,
    /// the first `marked` of them with ECE, calling `in_ack_event` as the
    /// sender does (after delivered and delivered_ce are counted).
    fn acks(d: &mut Dctcp, tcb: &mut Tcb, n: u64, marked: u64) {
        for k in 0..n {
            tcb.snd_una += 1;
            tcb.delivered += 1;
            tcb.delivered_ce += u64::from(k < marked);
            d.in_ack_event(tcb);
        }
    }

    #[test]
    fn alpha_updates_once_per_window_of_data() {
        // init records snd_nxt 0, so the first ACK closes a first window of
        // one unmarked packet (1024 -> 960) and the next window ends when
        // snd_una reaches the snd_nxt of then (10): 9 more unmarked packets
        // (-> 900). Meanwhile the sender has sent up to 20: that window
        // (10 packets, all marked) gives 908, the next (5 of 10) 884; no
        // update in between.
        let mut d = dctcp();
        let mut tcb = Tcb::new(10.0, 100.0, 1448);
        d.init(&mut tcb);
        tcb.snd_nxt = 10;
        acks(&mut d, &mut tcb, 1, 0);
        assert_eq!(d.alpha(), 960);
        acks(&mut d, &mut tcb, 8, 0);
        tcb.snd_nxt = 20;
        assert_eq!(d.alpha(), 960);
        acks(&mut d, &mut tcb, 1, 0);
        assert_eq!(d.alpha(), 900);
        acks(&mut d, &mut tcb, 9, 9);
        tcb.snd_nxt = 30;
        assert_eq!(d.alpha(), 900);
        acks(&mut d, &mut tcb, 1, 1);
        assert_eq!(d.alpha(), 908);
        acks(&mut d, &mut tcb, 9, 5);
        tcb.snd_nxt = 40;
        acks(&mut d, &mut tcb, 1, 0);
        assert_eq!(d.alpha(), 884);
    }

    #[test]
    fn ssthresh_keeps_one_minus_half_alpha_of_cwnd() {
        // dctcp_ssthresh: max(cwnd - ((cwnd * alpha) >> 11), 2).
        let mut d = dctcp();
        let tcb = Tcb::new(100.0, 1000.0, 1448);
        for (alpha, want) in [(1024, 50.0), (512, 75.0), (884, 57.0), (0, 100.0)] {
            d.alpha = alpha;
            assert_eq!(d.ssthresh(&tcb), want, "alpha {alpha}");
        }
        d.alpha = 1024;
        assert_eq!(d.ssthresh(&Tcb::new(3.0, 1000.0, 1448)), 2.0);
        assert_eq!(d.ssthresh(&Tcb::new(2.0, 1000.0, 1448)), 2.0);
    }

    #[test]
    fn a_loss_halves_whatever_alpha_says() {
        // dctcp_state on entering Recovery: ssthresh = max(cwnd >> 1, 2),
        // overriding the alpha-based value the sender asked for first.
        let mut h = Harness::new(dctcp(), 101.0, 50.0);
        h.cc.alpha = 0;
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 50.0);
        // An RTO (tcp_enter_loss: ssthresh, then CA_EVENT_LOSS) halves too.
        let mut h = Harness::new(dctcp(), 101.0, 50.0);
        h.cc.alpha = 0;
        h.rto();
        assert_eq!((h.tcb.ssthresh, h.tcb.cwnd), (50.0, 1.0));
        // An RTO in Recovery (no new ssthresh) leaves it alone.
        let mut h = Harness::new(dctcp(), 101.0, 50.0);
        h.tcb.ssthresh = 30.0;
        h.tcb.ca_state = CaState::Recovery;
        h.cc.set_state(&mut h.tcb, CaState::Loss);
        h.cc.cwnd_event(&mut h.tcb, CwndEvent::Loss);
        assert_eq!(h.tcb.ssthresh, 30.0);
    }

    #[test]
    fn undo_restores_the_cwnd_before_the_reduction() {
        // dctcp_cwnd_undo: max(cwnd, loss_cwnd).
        let mut d = dctcp();
        let mut tcb = Tcb::new(80.0, 1000.0, 1448);
        d.ssthresh(&tcb);
        tcb.cwnd = 40.0;
        assert_eq!(d.undo_cwnd(&tcb, 0.0), 80.0);
    }

    #[test]
    fn growth_is_renos() {
        // tcp_reno_cong_avoid: slow start, then +1 packet per cwnd acked.
        let mut h = Harness::new(dctcp(), 10.0, 20.0);
        h.round();
        assert_eq!(h.tcb.cwnd, 20.0);
        h.round();
        assert_eq!(h.tcb.cwnd, 21.0);
    }

    #[test]
    fn parameters_out_of_range_name_the_field() {
        let e = crate::build("dctcp", &serde_json::json!({"shift_g": 11})).unwrap_err();
        assert_eq!(e.field, "shift_g");
        let e = crate::build("dctcp", &serde_json::json!({"alpha_on_init": 1025})).unwrap_err();
        assert_eq!(e.field, "alpha_on_init");
        let a = crate::build("dctcp", &serde_json::Value::Null).unwrap();
        assert!(a.needs_ecn());
        assert!(!crate::build("reno", &serde_json::Value::Null)
            .unwrap()
            .needs_ecn());
    }
}
