//! The TCP sender: window-limited transmission, the Linux
//! congestion-avoidance state machine (Open, Disorder, Recovery, Loss;
//! `tcp_fastretrans_alert` in `net/ipv4/tcp_input.c`), SACK-based loss
//! recovery (RFC 6675 or FACK marking, with the in-recovery cwnd of
//! [`Recovery`]: PRR, RFC 6937, the plain RFC 6675 window, ns-2 Sack1 or
//! Linux 2.6 rate halving) or NewReno (RFC 6582 section 3.2) when SACK is
//! off, the retransmission timer (RFC 6298, Karn, backoff), optionally the
//! undo of reductions that timestamps or D-SACK show spurious (see
//! [`UndoState`]), and with ECN (RFC 3168 section 6.1) the CWR state.
//!
//! ECN. Data carries ECT(0) (retransmissions only for an algorithm that
//! needs ECN, Linux `tcp_ecn_send`). An ACK with ECE, in Open or Disorder,
//! starts a window reduction without retransmitting (Linux
//! `tcp_try_to_open` -> `tcp_enter_cwr`): ssthresh from the algorithm, state
//! CWR until the ACK of data sent after the reduction began (Linux ends CWR
//! when `snd_una` passes `high_seq`), and CWR on the next new data packet.
//! In CWR cwnd follows the sender's recovery rule, as Linux shares
//! `tcp_cwnd_reduction` (PRR) between CWR and Recovery: PRR and rate
//! halving reduce it gradually, `rfc6675` and `ns2_sack1` set cwnd =
//! ssthresh at once (RFC 3168 section 6.1.2's halving, ns-2 `ecn()`).
//! Further ECEs in CWR, Recovery or Loss reduce nothing: at most one
//! reduction per window (RFC 3168 section 6.1.2). A loss found in CWR
//! enters Recovery without a second ssthresh (Linux `tcp_enter_recovery`
//! skips `tcp_init_cwnd_reduction` in a reduction); the recovery rule's
//! episode state restarts there (Linux carries PRR's counters over from
//! the CWR part).
//!
//! The congestion-control algorithm is consulted through the hooks of
//! `tcpeval_cc::CongestionControl`, in the order Linux calls them.

use super::config::{CountMode, LssMode, RtoMode, TcpConfig};
use super::pacing;
use super::rate::{RateEstimator, TxSnapshot};
use super::recovery::{Recovery, RecoveryAck};
use super::rto::RtoEstimator;
use super::scoreboard::{Delivered, Scoreboard};
use super::timer::LazyTimer;
use super::undo::UndoState;
use crate::event::FlowId;
use crate::packet::{ts_ticks, Codepoint, Ecn, Packet, Payload, SackBlock};
use crate::time::Time;
use tcpeval_cc::common::lss_increment;
use tcpeval_cc::{
    AckInfo, AckSample, Algorithm, CaState, CongestionControl, CwndEvent, RateSample, Tcb,
};

/// RFC 3042 limited transmit: the first and second duplicate ACKs each let
/// one new segment out (NewReno mode; with SACK the scoreboard's `pipe`
/// already excludes what was SACKed).
const LIMITED_TRANSMIT_SEGMENTS: u32 = 2;

/// Per-flow sender counters over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    /// Data packets transmitted, retransmissions included.
    pub sent: u64,
    /// Retransmitted data packets.
    pub retransmitted: u64,
    /// Fast-recovery episodes (fast retransmits).
    pub fast_retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Reductions undone as spurious (option `undo`).
    pub undos: u64,
    /// Window reductions for ECN echoes (entries into CWR).
    pub ece_reductions: u64,
}

/// The fields of an arriving ACK.
#[derive(Clone, Copy, Debug)]
pub struct AckIn<'a> {
    /// Cumulative ACK.
    pub cum: u64,
    /// Segment that triggered the ACK.
    pub trigger: u64,
    /// SACK blocks.
    pub sack: &'a [SackBlock],
    /// D-SACK: `trigger` reached the receiver twice.
    pub dsack: bool,
    /// Echoed timestamp (ms ticks).
    pub tsecr: u32,
    /// ECN-Echo (RFC 3168 section 6.1.3).
    pub ece: bool,
}

/// One flow's sending end.
#[derive(Debug)]
pub struct Sender {
    flow: FlowId,
    cfg: TcpConfig,
    /// The congestion-control algorithm.
    pub cc: Algorithm,
    /// The control block the algorithm sees.
    pub tcb: Tcb,
    sb: Scoreboard,
    /// RTT / RTO estimator.
    pub rto: RtoEstimator,
    /// Retransmission timer.
    rto_timer: LazyTimer,
    /// The algorithm's own periodic clock, if it has one.
    cc_timer: LazyTimer,
    /// The pacing timer: armed for `tcb.next_departure` when pacing holds
    /// a packet back (see `tcp::pacing`).
    pacing_timer: LazyTimer,
    /// Delivery-rate estimation (see `tcp::rate`).
    rate: RateEstimator,
    /// The algorithm sets cwnd itself from rate samples (its
    /// `has_cong_control()`): the sender's window rules stand aside.
    cc_control: bool,
    /// End of the current recovery episode (`high_seq` / RFC 6582 `recover`).
    recover: u64,
    /// NewReno: a new recovery may start only once `una >= nr_guard`.
    nr_guard: u64,
    /// The in-recovery cwnd rule (option `recovery`) and its episode state.
    recovery: Recovery,
    /// `rto_mode = ns2`: the one timed segment (ns-2 rtt_seq_, rtt_ts_)
    /// while ns-2's rtt_active_ is set.
    timed: Option<(u64, Time)>,
    /// ns-2 Limited Slow-Start still acts in congestion avoidance: no loss
    /// yet, or the last reduction was a timeout (ns-2 `last_cwnd_action_`).
    lss_in_ca: bool,
    /// Evidence for undoing the current reduction (used when `cfg.undo`).
    undo: UndoState,
    dupacks: u32,
    partial_seen: bool,
    /// The application offers data up to (excluding) this sequence number.
    app_limit: u64,
    cwnd_limited: bool,
    started: bool,
    /// ECN in use: option `ecn`, or an algorithm that needs it.
    ecn: bool,
    /// The next new data packet carries CWR (Linux `TCP_ECN_QUEUE_CWR`).
    queue_cwr: bool,
    /// `ecn || tcb.pacing`: a packet sent needs [`Sender::send_extras`].
    /// Set at creation and again in `start`, after the algorithm's `init`
    /// (which may turn pacing on, as BBR's does; nothing turns it on later).
    send_extras: bool,
    /// When a finite transfer was fully acknowledged.
    pub completed_at: Option<Time>,
    /// Counters.
    pub stats: SenderStats,
}

impl Sender {
    /// A sender for `flow`; `size` is the transfer size in packets (`None` = bulk).
    pub fn new(flow: FlowId, cfg: TcpConfig, cc: Algorithm, size: Option<u64>) -> Self {
        let mut ssthresh = cfg.initial_ssthresh;
        if cfg.lss == LssMode::Ns2 && cfg.max_ssthresh > 0 {
            // ns-2 TcpAgent::reset: the initial ssthresh is clamped to
            // max_ssthresh, so LSS takes over from there in avoidance.
            ssthresh = ssthresh.min(f64::from(cfg.max_ssthresh));
        }
        let mut tcb = Tcb::new(cfg.initial_cwnd, ssthresh, cfg.mss());
        tcb.max_ssthresh = cfg.max_ssthresh;
        let ecn = cfg.ecn || cc.needs_ecn();
        tcb.pacing = cfg.pacing;
        let cc_control = cc.has_cong_control();
        Sender {
            flow,
            cfg,
            cc,
            tcb,
            sb: if cc_control {
                Scoreboard::new(cfg.dupthresh, cfg.loss_marking).with_rate_samples()
            } else {
                Scoreboard::new(cfg.dupthresh, cfg.loss_marking)
            },
            rto: match cfg.rto_mode {
                RtoMode::Ns2 | RtoMode::Ns2Linux => RtoEstimator::ns2(
                    cfg.rto_min,
                    cfg.rto_initial,
                    cfg.rto_max,
                    cfg.rto_tick,
                    ns2_clock_phase(flow, cfg.rto_tick),
                    cfg.rto_mode == RtoMode::Ns2Linux,
                ),
                _ => RtoEstimator::new(cfg.rto_mode, cfg.rto_min, cfg.rto_initial, cfg.rto_max),
            },
            rto_timer: LazyTimer::default(),
            cc_timer: LazyTimer::default(),
            pacing_timer: LazyTimer::default(),
            rate: RateEstimator::default(),
            cc_control,
            recover: 0,
            nr_guard: 0,
            recovery: Recovery::new(cfg.recovery),
            lss_in_ca: true,
            timed: None,
            undo: UndoState::default(),
            dupacks: 0,
            partial_seen: false,
            app_limit: size.unwrap_or(u64::MAX),
            cwnd_limited: false,
            started: false,
            ecn,
            queue_cwr: false,
            send_extras: ecn || cfg.pacing,
            completed_at: None,
            stats: SenderStats::default(),
        }
    }

    /// Packets sent and not yet cumulatively acknowledged.
    pub fn packets_out(&self) -> u32 {
        self.sb.packets_out()
    }

    /// Packets believed in the network.
    pub fn in_flight(&self) -> u32 {
        self.sb.in_flight()
    }

    /// True once the application started and until a finite transfer completes.
    pub fn is_active(&self) -> bool {
        self.started && self.completed_at.is_none()
    }

    /// The application starts: initialize the algorithm and send.
    pub fn start(&mut self, now: Time, out: &mut Vec<Packet>) {
        self.started = true;
        self.tcb.now = now;
        self.cc.init(&mut self.tcb);
        self.send_extras = self.ecn || self.tcb.pacing;
        if let Some(p) = self.cc.timer_period() {
            self.cc_timer.set(now + p);
        }
        self.try_send(now, out);
    }

    /// The application stops offering new data (outstanding data still completes).
    pub fn stop(&mut self) {
        self.app_limit = self.app_limit.min(self.sb.nxt());
    }

    fn set_state(&mut self, s: CaState) {
        if self.tcb.ca_state != s {
            self.cc.set_state(&mut self.tcb, s);
            self.tcb.ca_state = s;
        }
    }

    fn sync_tcb(&mut self, now: Time) {
        self.tcb.now = now;
        self.tcb.snd_una = self.sb.una();
        self.tcb.snd_nxt = self.sb.nxt();
        self.tcb.packets_in_flight = self.sb.in_flight();
        self.tcb.lost = self.sb.lost_total;
        if self.cc_control {
            // Only rate samples move these (see `tx_snapshot`); without
            // them both keep their initial values in `rate` and `tcb`.
            self.tcb.delivered_mstamp = self.rate.delivered_at;
            self.tcb.app_limited = self.rate.app_limited;
        }
    }

    /// ECN in use on this flow.
    pub fn ecn(&self) -> bool {
        self.ecn
    }

    /// Pacing's next departure and the packet's ECN bits, for a flow with
    /// either (`send_extras`); out of line, so that a flow without them
    /// pays one check per packet sent.
    #[cold]
    #[inline(never)]
    fn send_extras(&mut self, new_data: bool) -> Ecn {
        if self.tcb.pacing {
            self.tcb.next_departure = pacing::next_departure(
                self.tcb.next_departure,
                self.tcb.now,
                self.cfg.packet_size,
                self.tcb.pacing_rate,
                self.stats.sent,
            );
        }
        self.data_ecn(new_data)
    }

    /// The ECN bits of a data packet (Linux `tcp_ecn_send`): ECT(0) on new
    /// data, on a retransmission only for an algorithm that needs ECN
    /// (RFC 3168 section 6.1.5 keeps retransmissions Not-ECT); CWR on the
    /// first new data packet after a reduction (section 6.1.2).
    fn data_ecn(&mut self, new_data: bool) -> Ecn {
        let mut e = Ecn::default();
        if !self.ecn {
            return e;
        }
        if new_data || self.cc.needs_ecn() {
            e = e.with_codepoint(Codepoint::Ect0);
        }
        if new_data && self.queue_cwr {
            self.queue_cwr = false;
            e = e.with_cwr(true);
        }
        e
    }

    fn emit(&mut self, seq: u64, new_data: bool, out: &mut Vec<Packet>) {
        self.stats.sent += 1;
        self.tcb.last_send = self.tcb.now;
        let ecn = if self.send_extras {
            self.send_extras(new_data)
        } else {
            Ecn::default()
        };
        if matches!(self.tcb.ca_state, CaState::Recovery | CaState::Cwr) {
            self.recovery.on_sent();
        }
        out.push(Packet {
            flow: self.flow,
            size: self.cfg.packet_size,
            hop: 0,
            ecn,
            payload: Payload::Data {
                seq,
                tsval: ts_ticks(self.tcb.now),
            },
        });
        if !self.rto_timer.is_armed() {
            self.rto_timer.set(self.tcb.now + self.rto.current());
        }
    }

    /// The rate snapshot of a packet (re)sent now (Linux
    /// `tcp_rate_skb_sent`); rate samples are made only for an algorithm
    /// that reads them (`cong_control`), the others pay nothing.
    fn tx_snapshot(&mut self, now: Time) -> TxSnapshot {
        if !self.cc_control {
            return TxSnapshot::default();
        }
        self.rate
            .on_send(now, self.sb.packets_out(), self.tcb.delivered)
    }

    fn retransmit(&mut self, seq: u64, now: Time, out: &mut Vec<Packet>) {
        let tx = self.tx_snapshot(now);
        self.sb.mark_retransmitted(seq, now, tx);
        self.undo.on_retransmit(ts_ticks(now));
        self.stats.retransmitted += 1;
        self.emit(seq, false, out);
    }

    /// The usable window in packets: cwnd (plus RFC 3042 limited transmit
    /// in NewReno mode).
    fn window(&self) -> u32 {
        let mut w = self.tcb.cwnd.max(1.0).floor() as u32;
        if !self.cfg.sack && self.tcb.ca_state == CaState::Disorder {
            w += self.dupacks.min(LIMITED_TRANSMIT_SEGMENTS);
        }
        w
    }

    /// Packets in flight as the send rule sees them: the scoreboard's
    /// estimate, or in Recovery the recovery rule's own count if it keeps
    /// one (ns-2 Sack1).
    fn pipe(&self) -> u32 {
        let counted = match self.tcb.ca_state {
            CaState::Recovery => self.recovery.counted_pipe(),
            _ => None,
        };
        counted.unwrap_or_else(|| self.sb.in_flight())
    }

    /// Sends retransmissions and new data while the window allows.
    pub fn try_send(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.is_active() {
            return;
        }
        self.tcb.now = now;
        let window = self.window();
        let in_recovery = self.tcb.ca_state == CaState::Recovery;
        loop {
            if self.pipe() >= window {
                self.cwnd_limited = true;
                break;
            }
            if self.tcb.pacing && self.tcb.next_departure > now {
                // Linux tcp_pacing_check: hold back, wake at the departure time.
                self.pacing_timer.set(self.tcb.next_departure);
                break;
            }
            if let Some(seq) = self.sb.next_retransmit() {
                self.retransmit(seq, now, out);
                if in_recovery {
                    self.recovery.on_sent_by_window();
                }
                continue;
            }
            let nxt = self.sb.nxt();
            if nxt < self.app_limit && nxt - self.sb.una() < self.cfg.rwnd {
                if self.sb.packets_out() == 0 {
                    self.cc.cwnd_event(&mut self.tcb, CwndEvent::TxStart);
                }
                let tx = self.tx_snapshot(now);
                let seq = self.sb.push_new(now, tx);
                if self.cfg.rto_mode.is_ns2() && self.timed.is_none() {
                    self.timed = Some((seq, now));
                }
                self.emit(seq, true, out);
                if in_recovery {
                    self.recovery.on_sent_by_window();
                }
                continue;
            }
            if nxt >= self.app_limit && self.cc_control {
                // Linux tcp_rate_check_app_limited: the application has
                // nothing more to send.
                self.rate.check_app_limited(
                    self.tcb.delivered,
                    self.sb.in_flight(),
                    window,
                    self.sb.lost_out,
                );
            }
            self.cwnd_limited = false;
            break;
        }
        self.sync_tcb(now);
    }

    /// Handles an arriving ACK, then sends what the window allows.
    pub fn on_ack(&mut self, now: Time, ack: AckIn<'_>, out: &mut Vec<Packet>) {
        if !self.is_active() {
            return;
        }
        self.tcb.now = now;
        let una0 = self.sb.una();
        let prior_in_flight = self.sb.in_flight();
        let lost0 = self.sb.lost_total;
        if ack.dsack {
            let seq = ack.trigger;
            self.undo
                .on_dsack(seq, seq < una0 || self.sb.ever_retransmitted(seq));
        }
        let mut d = Delivered::default();
        if ack.cum > una0 {
            self.sb.ack_to(ack.cum, &mut d);
        }
        if self.cfg.sack {
            // Blocks first: a block's walk inwards from its top edge stops at
            // the first packet already SACKed, so SACKing the trigger (the
            // top edge of the first block) first would hide what a lost
            // earlier ACK reported below it.
            for b in ack.sack {
                self.sb.sack_block(b.start, b.end, &mut d);
            }
            self.sb.sack_one(ack.trigger, &mut d);
        }
        let cum_advanced = self.sb.una() > una0;
        self.tcb.delivered += u64::from(d.packets);
        // Linux tcp_ecn_rcv_ecn_echo (ECE counts only with ECN on) and
        // tcp_count_delivered: what an ECE ACK delivers counts as marked.
        let ece = self.ecn && ack.ece;
        if ece {
            self.tcb.delivered_ce += u64::from(d.packets);
        }
        // RTT samples (Karn's rule per ACK, see `Delivered`); ns-2 times
        // one segment at a time and abandons it at a fast retransmit or a
        // timeout (reset_rtx_timer).
        if self.cfg.rto_mode.is_ns2() {
            if let Some((seq, sent)) = self.timed {
                if ack.cum > seq {
                    self.timed = None;
                    self.rto.sample_ns2(sent, now);
                    self.tcb.srtt = self.rto.srtt;
                }
            }
        } else if let Some(sent) = d.rto_sample_sent() {
            self.rto.sample(now - sent);
            self.tcb.srtt = self.rto.srtt;
        }
        let cc_rtt = d.cc_sample_sent().map(|sent| now - sent);
        if let Some(r) = cc_rtt {
            self.tcb.min_rtt = Some(self.tcb.min_rtt.map_or(r, |m| m.min(r)));
        }
        self.sync_tcb(now);
        self.cc.in_ack_event(&self.tcb);
        if d.packets > 0 {
            self.cc.pkts_acked(
                &self.tcb,
                &AckSample {
                    acked: d.packets,
                    rtt: cc_rtt,
                },
            );
        }
        if self.tcb.ca_state == CaState::Loss && cum_advanced && self.undo.may_undo(ack.tsecr) {
            // Linux tcp_try_undo_loss: the timeout was spurious. With SACK
            // the sender carries on in Open; without, it stays in Loss
            // until the recovery point is acknowledged.
            self.undo_reduction(true);
            if self.cfg.sack {
                self.set_state(CaState::Open);
            }
        }
        if self.cfg.sack {
            self.sack_state_machine(now, d.packets, cum_advanced, ack.tsecr, ece, out);
        } else {
            self.newreno_state_machine(now, una0, d.packets, ack.tsecr, ece, out);
        }
        // Linux tcp_ack: tcp_rate_gen, then tcp_cong_control.
        if self.cc_control {
            let mut rs = self.rate.gen(
                now,
                self.tcb.delivered,
                d.packets,
                (self.sb.lost_total - lost0) as u32,
                d.sampled,
                self.tcb.min_rtt,
            );
            rs.prior_in_flight = prior_in_flight;
            rs.rtt = cc_rtt;
            self.cong_control(now, &rs);
        } else if self.tcb.pacing {
            self.update_pacing_rate();
        }
        // RFC 6298 (5.2, 5.3): stop when all is acked, restart on new data
        // acked. TCP-Linux in ns-2 restarts it on every ACK that is not
        // older than snd_una, duplicates included (tcp-linux.cc
        // time_processing: renew_timer), so a lost retransmission times out
        // only once the duplicate ACKs stop.
        if self.sb.packets_out() == 0 {
            self.rto_timer.stop();
        } else if cum_advanced || (self.cfg.rto_mode == RtoMode::Ns2Linux && ack.cum >= una0) {
            self.rto_timer.set(now + self.rto.current());
        }
        if self.sb.una() >= self.app_limit && self.app_limit != u64::MAX {
            self.completed_at = Some(now);
            self.rto_timer.stop();
            self.cc_timer.stop();
            self.sync_tcb(now);
            return;
        }
        self.try_send(now, out);
    }

    /// Linux `tcp_cong_control` with the algorithm's `cong_control`: it
    /// sets cwnd and the pacing rate from the rate sample (and may mark
    /// the flow application-limited).
    fn cong_control(&mut self, now: Time, rs: &RateSample) {
        self.sync_tcb(now);
        self.cc.cong_control(&mut self.tcb, rs);
        self.rate.app_limited = self.tcb.app_limited;
    }

    /// The end of Linux `tcp_cong_control` for the other algorithms (their
    /// cwnd already grown by `cong_avoid` in [`Sender::grow`]): the pacing
    /// rate follows cwnd / srtt (`tcp_update_pacing_rate`).
    fn update_pacing_rate(&mut self) {
        self.tcb.pacing_rate = pacing::cwnd_pacing_rate(
            self.tcb.mss,
            self.tcb.cwnd,
            self.tcb.ssthresh,
            self.sb.packets_out(),
            self.tcb.srtt,
            self.cfg.pacing_ss_ratio,
            self.cfg.pacing_ca_ratio,
        );
    }

    /// cwnd as a loss-recovery rule sets it (entry, each ACK, exit: Linux
    /// `tcp_cwnd_reduction` and `tcp_end_cwnd_reduction`, and the NewReno
    /// rules); Linux skips these for an algorithm with `cong_control`.
    fn set_recovery_cwnd(&mut self, cwnd: f64) {
        if !self.cc_control {
            self.tcb.cwnd = cwnd;
        }
    }

    fn grow(&mut self, newly: u32) {
        if self.cc_control {
            return;
        }
        let slow_start_room = self.tcb.in_slow_start()
            && self.tcb.cwnd < 2.0 * f64::from(self.sb.packets_out().max(1));
        if newly == 0 || !(self.cwnd_limited || slow_start_room) {
            return;
        }
        let acked = match self.cfg.count_mode {
            CountMode::PerPacket => newly,
            CountMode::PerAck => 1,
            CountMode::Abc if self.tcb.in_slow_start() => 1,
            CountMode::Abc => newly,
        };
        let info = AckInfo {
            acked,
            ack_seq: self.sb.una(),
        };
        let ns2_lss = self.cfg.lss == LssMode::Ns2
            && self.cfg.max_ssthresh > 0
            && self.lss_in_ca
            && !self.tcb.in_slow_start();
        let before = self.tcb.cwnd;
        self.cc.cong_avoid(&mut self.tcb, &info);
        if ns2_lss {
            // ns-2 TcpAgent::limited_slow_start: the larger increment wins.
            let lss = f64::from(acked) * lss_increment(before, self.cfg.max_ssthresh);
            if before + lss > self.tcb.cwnd {
                self.tcb.cwnd = (before + lss).min(self.tcb.cwnd_clamp);
            }
        }
    }

    /// Linux `tcp_current_ssthresh`: the ssthresh a reduction starting now
    /// should be able to restore; outside a reduction at least 3/4 of cwnd.
    fn current_ssthresh(&self) -> f64 {
        if matches!(self.tcb.ca_state, CaState::Cwr | CaState::Recovery) {
            return self.tcb.ssthresh;
        }
        let c = self.tcb.cwnd.floor();
        self.tcb.ssthresh.max((c / 2.0).floor() + (c / 4.0).floor())
    }

    /// A reduction begins: keep what an undo would restore. Only here does
    /// an undo episode open, so without the option nothing is ever undone.
    fn begin_undo(&mut self) {
        if self.cfg.undo {
            let prior = self.current_ssthresh();
            self.undo.begin(self.sb.una(), self.tcb.cwnd, prior);
        }
    }

    /// Linux `tcp_undo_cwnd_reduction`: cwnd from the algorithm's
    /// `undo_cwnd` (default max(cwnd, prior cwnd)), ssthresh back to its
    /// prior value if that was higher; `unmark_loss` after a timeout, when
    /// every outstanding packet was marked lost.
    fn undo_reduction(&mut self, unmark_loss: bool) {
        self.tcb.cwnd = self.cc.undo_cwnd(&self.tcb, self.undo.prior_cwnd);
        self.tcb.ssthresh = self.tcb.ssthresh.max(self.undo.prior_ssthresh);
        if unmark_loss {
            self.sb.unmark_lost();
        }
        self.undo.close();
        self.stats.undos += 1;
        self.queue_cwr = false; // Linux tcp_ecn_withdraw_cwr
    }

    /// An ECE ACK in Open or Disorder: the window reduction of RFC 3168
    /// section 6.1.2 begins (Linux `tcp_enter_cwr` and
    /// `tcp_init_cwnd_reduction`): ssthresh from the algorithm, the end of
    /// the episode at `snd_nxt`, CWR queued for the next new data packet,
    /// then the recovery rule's cwnd at entry. Nothing is retransmitted.
    fn enter_cwr(&mut self) {
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb);
        self.tcb.cwnd_cnt = 0;
        self.recover = self.sb.nxt();
        self.recovery
            .enter(self.sb.packets_out(), self.sb.dupthresh());
        self.queue_cwr = true;
        self.set_state(CaState::Cwr);
        self.tcb.cwnd = self.recovery.entry_cwnd(self.tcb.cwnd, self.tcb.ssthresh);
        self.stats.ece_reductions += 1;
    }

    /// Ends CWR once the ACK passes the point where it began (Linux
    /// `tcp_fastretrans_alert`: in CWR, `snd_una` after `high_seq`, then
    /// `tcp_end_cwnd_reduction`): cwnd from the recovery rule's exit
    /// (ssthresh; rate halving: min(cwnd, ssthresh)), `CompleteCwr`, Open.
    fn maybe_end_cwr(&mut self) {
        if self.tcb.ca_state == CaState::Cwr && self.sb.una() > self.recover {
            let cwnd = self.recovery.exit_cwnd(self.tcb.cwnd, self.tcb.ssthresh);
            self.exit_recovery(cwnd);
        }
    }

    /// An ACK in Open, Disorder or CWR with no loss to recover: an ECE
    /// starts a reduction, and in CWR cwnd follows the recovery rule (Linux
    /// `tcp_cong_control`: `tcp_cwnd_reduction` on an ACK that delivered
    /// data). Returns false outside CWR: the caller then sets Open or
    /// Disorder and grows the window. Without ECE and outside CWR (every
    /// ACK of a flow without ECN) that answer is known at once; the rest
    /// is out of line.
    #[inline]
    fn cwr_ack(&mut self, newly: u32, ece: bool) -> bool {
        if !ece && self.tcb.ca_state != CaState::Cwr {
            return false;
        }
        self.cwr_ack_reducing(newly, ece)
    }

    /// [`Sender::cwr_ack`] with an ECE or in CWR.
    #[cold]
    #[inline(never)]
    fn cwr_ack_reducing(&mut self, newly: u32, ece: bool) -> bool {
        if ece && self.tcb.ca_state != CaState::Cwr {
            self.enter_cwr();
        }
        if self.tcb.ca_state != CaState::Cwr {
            return false;
        }
        if newly > 0 {
            let ack = self.recovery_ack(newly);
            self.tcb.cwnd = self.recovery.cwnd(ack, || self.cc.min_cwnd(&self.tcb));
        }
        true
    }

    /// ns-2 `TcpAgent::numdupacks(cwnd_)`: `max(numdupacks_, (int) cwnd_ /
    /// numdupacksFrac_)`, the threshold tcp-sack1.cc compares its
    /// duplicate-ACK count with (option `dupthresh_cwnd_divisor` > 0).
    fn window_scaled_dupthresh(&self) -> u32 {
        let scaled = self.tcb.cwnd.max(0.0).floor() as u32 / self.cfg.dupthresh_cwnd_divisor;
        self.cfg.dupthresh.max(scaled)
    }

    fn enter_recovery(&mut self) {
        // From CWR the window is already being reduced for this window of
        // data: no second ssthresh (RFC 3168 section 6.1.2; Linux
        // tcp_enter_recovery) and nothing to undo.
        if self.tcb.ca_state != CaState::Cwr {
            self.begin_undo();
            self.tcb.ssthresh = self.cc.ssthresh(&self.tcb);
            self.tcb.cwnd_cnt = 0;
            self.queue_cwr = true; // Linux tcp_init_cwnd_reduction
        }
        self.set_state(CaState::Recovery);
        self.recover = self.sb.nxt();
        self.recovery
            .enter(self.sb.packets_out(), self.sb.dupthresh());
        self.lss_in_ca = false;
        if self.cfg.rto_mode.is_ns2() {
            // ns-2 Sack1 dupack_action: reset_rtx_timer(1, 0).
            self.timed = None;
            self.rto_timer.set(self.tcb.now + self.rto.current());
        }
        self.stats.fast_retransmits += 1;
    }

    fn exit_recovery(&mut self, cwnd: f64) {
        if !self.cc_control {
            // Linux tcp_end_cwnd_reduction returns early for cong_control.
            self.tcb.cwnd = cwnd;
            self.cc.cwnd_event(&mut self.tcb, CwndEvent::CompleteCwr);
        }
        self.set_state(CaState::Open);
    }

    /// What an ACK that delivered `newly` packets tells the recovery rule.
    fn recovery_ack(&self, newly: u32) -> RecoveryAck {
        RecoveryAck {
            newly,
            cwnd: self.tcb.cwnd,
            ssthresh: self.tcb.ssthresh,
            in_flight: self.sb.in_flight(),
        }
    }

    fn sack_state_machine(
        &mut self,
        now: Time,
        newly: u32,
        cum_advanced: bool,
        tsecr: u32,
        ece: bool,
        out: &mut Vec<Packet>,
    ) {
        if self.cfg.dupthresh_cwnd_divisor > 0 && self.tcb.ca_state != CaState::Recovery {
            self.sb.set_dupthresh(self.window_scaled_dupthresh());
        }
        self.sb.mark_lost_by_sack();
        if self.cfg.lost_retransmit {
            self.sb.mark_lost_retransmits();
        }
        match self.tcb.ca_state {
            CaState::Recovery => {
                if self.sb.una() >= self.recover && self.undo.may_undo(tsecr) {
                    // Linux tcp_try_undo_recovery.
                    self.undo_reduction(false);
                    self.set_state(CaState::Open);
                } else if self.sb.una() >= self.recover {
                    let cwnd = self.recovery.exit_cwnd(self.tcb.cwnd, self.tcb.ssthresh);
                    self.exit_recovery(cwnd);
                } else {
                    let ack = self.recovery_ack(newly);
                    let cwnd = self
                        .recovery
                        .on_ack(ack, cum_advanced, || self.cc.min_cwnd(&self.tcb));
                    self.set_recovery_cwnd(cwnd);
                }
            }
            CaState::Loss => {
                if self.sb.una() >= self.recover {
                    self.set_state(CaState::Open);
                }
                self.grow(newly);
            }
            CaState::Open | CaState::Disorder | CaState::Cwr => {
                self.maybe_end_cwr();
                if self.undo.all_dsacked() {
                    // Linux tcp_try_undo_dsack: the last retransmission of
                    // an ended episode came back as a duplicate.
                    self.undo_reduction(false);
                }
                if self.sb.lost_out > 0 {
                    self.enter_recovery();
                    let prior = self.tcb.cwnd;
                    self.tcb.cwnd = self.recovery.entry_cwnd(self.tcb.cwnd, self.tcb.ssthresh);
                    let ack = self.recovery_ack(newly);
                    self.tcb.cwnd = self.recovery.cwnd(ack, || self.cc.min_cwnd(&self.tcb));
                    if self.cc_control {
                        self.tcb.cwnd = prior;
                    }
                    // RFC 6675 step 4.3: the first lost packet goes out now.
                    if let Some(seq) = self.sb.next_retransmit() {
                        self.retransmit(seq, now, out);
                    }
                } else if !self.cwr_ack(newly, ece) {
                    let s = if self.sb.sacked_out > 0 {
                        CaState::Disorder
                    } else {
                        CaState::Open
                    };
                    self.set_state(s);
                    self.grow(newly);
                }
            }
        }
    }

    fn newreno_state_machine(
        &mut self,
        now: Time,
        una0: u64,
        newly: u32,
        tsecr: u32,
        ece: bool,
        out: &mut Vec<Packet>,
    ) {
        let una = self.sb.una();
        let advanced = una > una0;
        let dup = !advanced && self.sb.packets_out() > 0;
        match self.tcb.ca_state {
            CaState::Recovery => {
                if advanced && una >= self.recover && self.undo.may_undo(tsecr) {
                    self.dupacks = 0;
                    self.undo_reduction(false);
                    self.set_state(CaState::Open);
                } else if advanced && una >= self.recover {
                    // Full ACK (RFC 6582 step 4): cwnd = min(ssthresh, FlightSize + 1).
                    let flight = f64::from(self.sb.packets_out());
                    let cwnd = self.tcb.ssthresh.min(flight.max(1.0) + 1.0);
                    self.dupacks = 0;
                    self.exit_recovery(cwnd);
                } else if advanced {
                    // Partial ACK (step 3): retransmit the next hole, deflate.
                    let acked = (una - una0) as f64;
                    self.set_recovery_cwnd((self.tcb.cwnd - acked + 1.0).max(1.0));
                    self.sb.mark_lost(una);
                    if let Some(seq) = self.sb.next_retransmit() {
                        self.retransmit(seq, now, out);
                    }
                    if !self.partial_seen {
                        self.partial_seen = true;
                        self.rto_timer.set(now + self.rto.current());
                    }
                } else if dup {
                    self.set_recovery_cwnd(self.tcb.cwnd + 1.0); // step 2: inflation
                }
            }
            CaState::Loss => {
                if advanced {
                    if una >= self.recover {
                        self.set_state(CaState::Open);
                    }
                    self.grow(newly);
                }
            }
            CaState::Open | CaState::Disorder | CaState::Cwr => {
                self.maybe_end_cwr();
                if advanced {
                    self.dupacks = 0;
                    if !self.cwr_ack(newly, ece) {
                        self.set_state(CaState::Open);
                        self.grow(newly);
                    }
                } else if dup {
                    self.dupacks += 1;
                    if self.dupacks >= self.cfg.dupthresh && una0 >= self.nr_guard {
                        // Step 1: enter fast recovery.
                        self.enter_recovery();
                        self.nr_guard = self.recover;
                        self.partial_seen = false;
                        self.set_recovery_cwnd(self.tcb.ssthresh + f64::from(self.cfg.dupthresh));
                        self.sb.mark_lost(una);
                        if let Some(seq) = self.sb.next_retransmit() {
                            self.retransmit(seq, now, out);
                        }
                    } else if !self.cwr_ack(newly, ece) {
                        self.set_state(CaState::Disorder);
                    }
                }
            }
        }
    }

    /// The retransmission timer expired (RFC 6298 section 5.4 - 5.6, Linux
    /// `tcp_retransmit_timer` and `tcp_enter_loss`): reduce once per
    /// episode, cwnd = 1, everything outstanding lost, back off, retransmit.
    pub fn on_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.is_active() || self.sb.packets_out() == 0 {
            return;
        }
        self.sync_tcb(now);
        self.stats.timeouts += 1;
        self.lss_in_ca = true;
        self.timed = None;
        // Linux tcp_enter_loss: a new ssthresh unless this window was
        // already reduced (Recovery, Loss, or CWR short of its end).
        let reduce = match self.tcb.ca_state {
            CaState::Open | CaState::Disorder => true,
            CaState::Cwr => self.sb.una() >= self.recover,
            CaState::Recovery | CaState::Loss => false,
        };
        self.queue_cwr = true;
        if reduce {
            self.begin_undo();
            self.tcb.ssthresh = self.cc.ssthresh(&self.tcb);
        }
        self.tcb.cwnd = 1.0;
        self.tcb.cwnd_cnt = 0;
        self.sb.mark_all_lost();
        self.recover = self.sb.nxt();
        self.nr_guard = self.recover;
        self.dupacks = 0;
        self.set_state(CaState::Loss);
        self.sync_tcb(now);
        self.cc.cwnd_event(&mut self.tcb, CwndEvent::Loss);
        self.rto.back_off();
        self.rto_timer.set(now + self.rto.current());
        self.try_send(now, out);
    }

    /// True if this sender acts only on its ACKs and its retransmission
    /// timer: no pacing (option `pacing`, or an algorithm that sets cwnd
    /// and pacing itself, as BBR's `init` turns pacing on) and no clock of
    /// the algorithm (FAST). Such a sender may take its ACKs ahead of the
    /// world's clock (an early sender, see `world::early_senders`). Read
    /// before [`Sender::start`].
    pub fn acts_on_acks_and_rto_alone(&self) -> bool {
        !self.tcb.pacing && !self.cc_control && self.cc.timer_period().is_none()
    }

    /// Deadline of the retransmission timer; `Time::NEVER` when stopped.
    pub fn rto_deadline(&self) -> Time {
        self.rto_timer.deadline
    }

    /// The retransmission timer expires now, at its deadline `now`, ahead
    /// of its heap event (due before or at an ACK the sender takes), as
    /// [`Sender::on_rto_event`] would. The pending heap event,
    /// when it fires, finds the timer stopped or re-armed later.
    pub fn expire_rto(&mut self, now: Time, out: &mut Vec<Packet>) {
        debug_assert_eq!(self.rto_timer.deadline, now);
        self.rto_timer.stop();
        self.on_rto(now, out);
    }

    /// The heap event of the retransmission timer with `generation` fires
    /// at `now`: the timeout is handled if the timer really expired.
    pub fn on_rto_event(&mut self, generation: u32, now: Time, out: &mut Vec<Packet>) {
        if self.rto_timer.fire(generation, now) {
            self.on_rto(now, out);
        }
    }

    /// The heap event of the algorithm's clock with `generation` fires at
    /// `now`: the tick is handled if the timer really expired.
    pub fn on_cc_event(&mut self, generation: u32, now: Time, out: &mut Vec<Packet>) {
        if self.cc_timer.fire(generation, now) {
            self.on_cc_timer(now, out);
        }
    }

    /// The heap event of the pacing timer with `generation` fires at `now`:
    /// the departure time has come, send what the window allows (Linux
    /// `tcp_pace_kick`).
    pub fn on_pacing_event(&mut self, generation: u32, now: Time, out: &mut Vec<Packet>) {
        if self.pacing_timer.fire(generation, now) {
            self.try_send(now, out);
        }
    }

    /// The pacing timer's heap event to push, if its deadline needs one.
    pub fn pacing_timer_to_schedule(&mut self) -> Option<(Time, u32)> {
        self.pacing_timer.to_schedule()
    }

    /// The retransmission timer's heap event to push, if its deadline needs
    /// one: `(time, generation)`.
    pub fn rto_to_schedule(&mut self) -> Option<(Time, u32)> {
        self.rto_timer.to_schedule()
    }

    /// The algorithm clock's heap event to push, if its deadline needs one.
    pub fn cc_timer_to_schedule(&mut self) -> Option<(Time, u32)> {
        self.cc_timer.to_schedule()
    }

    /// Takes over `old`'s timers, stopped (see
    /// [`super::connection::Connection::inherit_timers`]).
    pub fn inherit_timers(&mut self, old: &Sender) {
        self.rto_timer = old.rto_timer;
        self.cc_timer = old.cc_timer;
        self.pacing_timer = old.pacing_timer;
        self.rto_timer.stop();
        self.cc_timer.stop();
        self.pacing_timer.stop();
    }

    /// The algorithm's own clock ticked.
    pub fn on_cc_timer(&mut self, now: Time, out: &mut Vec<Packet>) {
        if !self.is_active() {
            return;
        }
        self.sync_tcb(now);
        self.cc.on_timer(&mut self.tcb);
        if let Some(p) = self.cc.timer_period() {
            self.cc_timer.set(now + p);
        }
        self.try_send(now, out);
    }
}

/// The clock phase of `flow` in a tick of `tick` (ns-2's `boot_time_`,
/// which ns-2 draws uniformly in one tick): the flow id times the golden
/// ratio, modulo 1, so flows' clocks are spread evenly and a run is the same
/// for every seed.
fn ns2_clock_phase(flow: FlowId, tick: Time) -> Time {
    let frac =
        (u64::from(flow).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    Time::from_ps((frac * tick.ps() as f64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::config::{LossMarking, RecoveryMode};

    /// A Reno sender in congestion avoidance at cwnd 20, with the default
    /// options changed by `options`, having sent packets 0..20 at time zero.
    fn reno_at_20(options: impl FnOnce(&mut TcpConfig)) -> (Sender, Vec<Packet>) {
        let mut cfg = TcpConfig {
            initial_cwnd: 20.0,
            initial_ssthresh: 20.0,
            ..TcpConfig::default()
        };
        options(&mut cfg);
        started("reno", serde_json::json!({}), cfg)
    }

    /// A started sender of `algorithm` with `params` and options `cfg`,
    /// and what it sent at time zero.
    fn started(
        algorithm: &str,
        params: serde_json::Value,
        cfg: TcpConfig,
    ) -> (Sender, Vec<Packet>) {
        let cc = tcpeval_cc::build(algorithm, &params).unwrap();
        let mut s = Sender::new(0, cfg, cc, None);
        let mut out = Vec::new();
        s.start(Time::ZERO, &mut out);
        (s, out)
    }

    #[test]
    fn a_sender_acts_on_acks_and_rto_alone_unless_it_paces_or_has_a_clock() {
        // What an early sender relies on (`world::early_senders`): read
        // before `start`, the answer must hold after the algorithm's
        // `init` too. Every registered algorithm, with and without the
        // `pacing` option: pacing on or a clock of the algorithm's armed
        // means the sender is not one.
        let mut alone = Vec::new();
        for name in tcpeval_cc::registry::names() {
            for pacing in [false, true] {
                let cfg = TcpConfig {
                    pacing,
                    ..TcpConfig::default()
                };
                let cc = tcpeval_cc::build(name, &serde_json::json!({})).unwrap();
                let mut s = Sender::new(0, cfg, cc, None);
                let before = s.acts_on_acks_and_rto_alone();
                s.start(Time::ZERO, &mut Vec::new());
                let acts_alone = !s.tcb.pacing && !s.cc_timer.is_armed() && !s.cc_control;
                assert_eq!(before, acts_alone, "{name}, pacing {pacing}");
                if before {
                    alone.push(name);
                }
            }
        }
        for name in ["bbr", "fast"] {
            assert!(!alone.contains(&name), "{name}");
        }
        for name in ["reno", "cubic", "htcp", "vegas", "yeah", "dctcp"] {
            assert!(alone.contains(&name), "{name}");
        }
    }

    fn seqs(out: &mut Vec<Packet>) -> Vec<u64> {
        out.drain(..)
            .map(|p| match p.payload {
                Payload::Data { seq, .. } => seq,
                Payload::Ack { .. } => panic!("a sender sends data"),
            })
            .collect()
    }

    /// The ACK for packet `k` when packet 0 is lost and 1..=k arrived.
    fn sack_up_to(s: &mut Sender, k: u64, out: &mut Vec<Packet>) {
        let block = [SackBlock {
            start: 1,
            end: k + 1,
        }];
        let ack = AckIn {
            cum: 0,
            trigger: k,
            sack: &block,
            dsack: false,
            tsecr: 0,
            ece: false,
        };
        s.on_ack(Time::from_ms(100 + k), ack, out);
    }

    /// An ACK covering everything below `cum`, echoing `tsecr`.
    fn ack_echo(cum: u64, trigger: u64, dsack: bool, tsecr: u32) -> AckIn<'static> {
        AckIn {
            cum,
            trigger,
            sack: &[],
            dsack,
            tsecr,
            ece: false,
        }
    }

    /// A float-growth Scalable sender (a = 0.01) in congestion avoidance at
    /// `cwnd` with ssthresh 100 and max_ssthresh 100, counting per ACK, LSS
    /// in `lss` mode, having sent its whole window at time zero.
    fn scalable_lss(cwnd: f64, lss: LssMode) -> (Sender, Vec<Packet>) {
        let cfg = TcpConfig {
            initial_cwnd: cwnd,
            initial_ssthresh: 100.0,
            max_ssthresh: 100,
            lss,
            count_mode: CountMode::PerAck,
            ..TcpConfig::default()
        };
        started("scalable", serde_json::json!({ "growth": "float" }), cfg)
    }

    #[test]
    fn abc_counts_one_per_ack_in_slow_start_and_packets_in_avoidance() {
        // Linux 2.6.16 tcp_abc = 1: tcp_slow_start adds one packet per ACK
        // covering at least an MSS; tcp_reno_cong_avoid counts bytes.
        let reno = |cwnd: f64, ssthresh: f64| {
            let cfg = TcpConfig {
                initial_cwnd: cwnd,
                initial_ssthresh: ssthresh,
                count_mode: CountMode::Abc,
                ..TcpConfig::default()
            };
            started("reno", serde_json::json!({ "growth": "float" }), cfg)
        };
        // Slow start: an ACK for two packets adds one (per_packet: two).
        let (mut s, mut out) = reno(10.0, 1000.0);
        s.on_ack(Time::from_ms(100), ack_echo(2, 1, false, 0), &mut out);
        assert_eq!(s.tcb.cwnd, 11.0);
        // Avoidance: an ACK for two packets adds 2 / cwnd (per_ack: 1 / cwnd).
        let (mut s, mut out) = reno(100.0, 50.0);
        s.on_ack(Time::from_ms(100), ack_echo(2, 1, false, 0), &mut out);
        assert_eq!(s.tcb.cwnd, 100.02);
    }

    #[test]
    fn ns2_window_scaled_dupthresh_waits_for_cwnd_over_divisor_sacks() {
        // ns-2.28 Sack1: numdupacks(cwnd_) = max(3, (int) cwnd_ / 100). At
        // cwnd 800 a hole at packet 0 is a loss only once 8 packets above it
        // are SACKed; with the option off, at the third.
        let at_800 = |divisor| {
            let cfg = TcpConfig {
                initial_cwnd: 800.0,
                initial_ssthresh: 800.0,
                dupthresh_cwnd_divisor: divisor,
                ..TcpConfig::default()
            };
            started("reno", serde_json::json!({}), cfg)
        };
        let (mut s, mut out) = at_800(100);
        for k in 1..=7 {
            sack_up_to(&mut s, k, &mut out);
            assert_ne!(s.tcb.ca_state, CaState::Recovery, "{k} SACKs");
        }
        sack_up_to(&mut s, 8, &mut out);
        assert_eq!(s.tcb.ca_state, CaState::Recovery);
        assert_eq!(s.stats.fast_retransmits, 1);
        let (mut s, mut out) = at_800(0);
        for k in 1..=3 {
            sack_up_to(&mut s, k, &mut out);
        }
        assert_eq!(s.tcb.ca_state, CaState::Recovery);
        // Below cwnd 400 (divisor 100) the floor of 3 holds.
        let cfg = TcpConfig {
            initial_cwnd: 399.0,
            initial_ssthresh: 399.0,
            dupthresh_cwnd_divisor: 100,
            ..TcpConfig::default()
        };
        let (mut s, mut out) = started("reno", serde_json::json!({}), cfg);
        for k in 1..=3 {
            sack_up_to(&mut s, k, &mut out);
        }
        assert_eq!(s.tcb.ca_state, CaState::Recovery);
    }

    #[test]
    fn ns2_lss_outgrows_the_algorithm_in_congestion_avoidance_until_the_first_loss() {
        // ns-2 limited_slow_start (Molnar et al. 2009, section 5.1): above
        // ssthresh, before any loss, each ACK adds max(a, 1/K) with
        // K = floor(cwnd / 50). At cwnd 200, K = 4: +0.25 instead of +0.01.
        let (mut s, mut out) = scalable_lss(200.0, LssMode::Ns2);
        s.on_ack(Time::from_ms(100), ack_echo(1, 0, false, 0), &mut out);
        assert_eq!(s.tcb.cwnd, 200.25);
        // RFC 3742 leaves congestion avoidance alone: Scalable's +0.01.
        let (mut s, mut out) = scalable_lss(200.0, LssMode::Rfc3742);
        s.on_ack(Time::from_ms(100), ack_echo(1, 0, false, 0), &mut out);
        assert_eq!(s.tcb.cwnd, 200.01);
        // At cwnd 6000, K = 120: 1/120 < 0.01, Scalable's own increase wins
        // (the paper's W_LSS = (max_ssthresh / 2) / a = 5000 is the switch).
        let (mut s, mut out) = scalable_lss(6000.0, LssMode::Ns2);
        s.on_ack(Time::from_ms(100), ack_echo(1, 0, false, 0), &mut out);
        assert_eq!(s.tcb.cwnd, 6000.01);
        // After a fast recovery LSS no longer acts; after a timeout it does again.
        let (mut s, mut out) = scalable_lss(200.0, LssMode::Ns2);
        s.enter_recovery();
        s.exit_recovery(200.0);
        s.on_ack(Time::from_ms(100), ack_echo(1, 0, false, 0), &mut out);
        assert_eq!(s.tcb.cwnd, 200.01);
        s.on_rto(Time::from_secs(2), &mut out);
        assert!(s.lss_in_ca);
    }

    #[test]
    fn ns2_lss_clamps_ssthresh_and_then_matches_rfc3742s_rate() {
        // ns-2 reset() clamps an unlimited initial ssthresh to max_ssthresh
        // (100); from cwnd 150 its avoidance-branch LSS adds 1/K = 1/3 per
        // ACK, where RFC 3742 in slow start adds one packet per K = 3 ACKs:
        // both are at 151 after three ACKs.
        let run = |lss| {
            let (mut s, mut out) = scalable_lss(150.0, lss);
            s.tcb.ssthresh = if lss == LssMode::Ns2 {
                s.tcb.ssthresh
            } else {
                f64::INFINITY
            };
            let mut cwnds = Vec::new();
            for k in 0..3 {
                s.on_ack(
                    Time::from_ms(100 + k),
                    ack_echo(k + 1, k, false, 0),
                    &mut out,
                );
                cwnds.push(s.tcb.cwnd);
            }
            (s.tcb.ssthresh, cwnds)
        };
        let (ssthresh, ns2) = run(LssMode::Ns2);
        assert_eq!(ssthresh, 100.0);
        assert!((ns2[0] - (150.0 + 1.0 / 3.0)).abs() < 1e-12);
        assert!((ns2[2] - 151.0).abs() < 1e-12, "{ns2:?}");
        let (_, rfc) = run(LssMode::Rfc3742);
        assert_eq!(rfc, vec![150.0, 150.0, 151.0]);
    }

    #[test]
    fn pacing_holds_packets_to_the_cwnd_rate_with_one_timer() {
        // Reno at cwnd 20 (ssthresh 20: congestion avoidance) sent 0..20 at
        // time zero unpaced (no RTT sample yet: no rate). The ACK of 0 at
        // 100 ms gives srtt 100 ms, so the rate is Linux's 120 % of
        // cwnd 20 x mss 1460 per 100 ms = 350 400 bytes/s, and one
        // 1500-byte packet takes `len`. Packet 20 leaves at once; 100 ms of
        // idle credit takes half of `len` off its spacing (Linux
        // tcp_update_skb_after_send). The ACK of 1 and 2 at 101 ms frees
        // two slots, but the next departure is later: one timer, and each
        // firing releases one packet `len` after the previous.
        let (mut s, mut out) = reno_at_20(|c| c.pacing = true);
        assert_eq!(seqs(&mut out), (0..20).collect::<Vec<_>>());
        s.on_ack(Time::from_ms(100), ack_echo(1, 0, false, 0), &mut out);
        assert_eq!(s.tcb.pacing_rate, Some(350_400));
        assert_eq!(seqs(&mut out), vec![20]);
        let len = Time::from_ps(1500 * 1_000_000_000_000 / 350_400);
        let first = Time::from_ms(100) + Time::from_ps(len.ps() - len.ps() / 2);
        assert_eq!(s.tcb.next_departure, first);
        s.on_ack(Time::from_ms(101), ack_echo(3, 2, false, 0), &mut out);
        assert!(out.is_empty());
        // srtt is now 7/8 x 100 + 1/8 x 101 = 100.125 ms: 349 962 bytes/s.
        assert_eq!(s.tcb.pacing_rate, Some(349_962));
        let len = Time::from_ps(1500 * 1_000_000_000_000 / 349_962);
        let (at, g) = s.pacing_timer_to_schedule().unwrap();
        assert_eq!(at, first);
        assert_eq!(s.pacing_timer_to_schedule(), None, "one pending event");
        s.on_pacing_event(g, at, &mut out);
        assert_eq!(seqs(&mut out), vec![21]);
        let (at2, g2) = s.pacing_timer_to_schedule().unwrap();
        assert_eq!(at2, first + len);
        s.on_pacing_event(g2, at2, &mut out);
        assert_eq!(seqs(&mut out), vec![22]);
        // The window is full now: no timer is armed for nothing.
        assert_eq!(s.pacing_timer_to_schedule(), None);
    }

    #[test]
    fn a_cong_control_algorithm_sets_cwnd_in_recovery_itself() {
        // Linux tcp_cong_control: with cong_control, tcp_cwnd_reduction
        // (PRR) is skipped. BBR (cwnd 20; pacing lets the first 10 out at
        // once, the rest at its initial rate) loses packet 0; the third SACK
        // starts a recovery. PRR would make cwnd pipe + 1; BBR's packet
        // conservation (bbr_set_cwnd_to_recover_or_restore) makes it the
        // packets in flight when it is called, the retransmission of 0
        // included, plus the one this ACK delivered.
        let cfg = TcpConfig {
            initial_cwnd: 20.0,
            ..TcpConfig::default()
        };
        let (mut s, mut out) = started("bbr", serde_json::json!({}), cfg);
        assert!(s.tcb.pacing, "bbr_init turns pacing on");
        out.clear();
        for k in 1..=2 {
            sack_up_to(&mut s, k, &mut out);
        }
        out.clear();
        // STARTUP grew cwnd by one per SACK (Linux: delivered < TCP_INIT_CWND).
        let saved = s.tcb.cwnd;
        assert_eq!(saved, 22.0);
        sack_up_to(&mut s, 3, &mut out);
        assert_eq!(s.tcb.ca_state, CaState::Recovery);
        let sent = seqs(&mut out);
        assert_eq!(sent[0], 0, "the fast retransmission");
        let new_after = sent.len() as u32 - 1;
        let in_flight_at_cc = s.in_flight() - new_after;
        assert_eq!(s.tcb.cwnd, f64::from(in_flight_at_cc + 1));
        assert_eq!(s.stats.fast_retransmits, 1);
        // The recovery ends: the sender's exit rule would set cwnd to
        // ssthresh, which BBR leaves unlimited; BBR restores the cwnd it
        // saved (bbr_ssthresh) instead, plus the packets this ACK delivered
        // (STARTUP: below its target, it grows by them).
        let nxt = s.sb.nxt();
        let delivered_before = s.tcb.delivered;
        s.on_ack(
            Time::from_ms(200),
            ack_echo(nxt, nxt - 1, false, 0),
            &mut out,
        );
        assert_eq!(s.tcb.ca_state, CaState::Open);
        let acked = (s.tcb.delivered - delivered_before) as f64;
        assert_eq!(s.tcb.cwnd, saved + acked);
    }

    #[test]
    fn without_pacing_the_same_acks_send_at_once() {
        let (mut s, mut out) = reno_at_20(|_| {});
        out.clear();
        s.on_ack(Time::from_ms(100), ack_echo(1, 0, false, 0), &mut out);
        s.on_ack(Time::from_ms(101), ack_echo(3, 2, false, 0), &mut out);
        assert_eq!(seqs(&mut out), vec![20, 21, 22]);
        assert_eq!(s.tcb.pacing_rate, None);
        assert_eq!(s.pacing_timer_to_schedule(), None);
    }

    #[test]
    fn a_sack_block_grown_by_a_lost_ack_is_read_in_full() {
        // The ACK for packet 5 is lost; the next one (trigger 6, block
        // 1..=6) reports 5 and 6. Reading its trigger first used to stop the
        // block's walk at 6 and leave 5 un-SACKed, later "lost" and resent.
        let (mut s, mut out) = reno_at_20(|_| {});
        for k in [1, 2, 3, 4, 6] {
            sack_up_to(&mut s, k, &mut out);
        }
        assert_eq!(s.sb.sacked_out, 6);
    }

    #[test]
    fn ns2_sack1_counts_acks_so_a_lost_ack_delays_sending() {
        // Packet 0 of 0..20 is lost; the first two SACKs let 20 and 21 out,
        // the third starts recovery with cwnd = ssthresh = 10 and 22 packets
        // out. ns-2's pipe_ = 22 - 3 = 19 at entry, one less per ACK: ten
        // more ACKs bring it to 9 and let a new packet out. The ACK for
        // packet 5 is lost: the scoreboard learns of packet 5 from the next
        // SACK (in flight 22 - 13 = 9 at packet 13), ns-2's counter does not
        // (19 - 10 = 9 only at the tenth ACK, packet 14).
        let first_new = |recovery| {
            let (mut s, mut out) = reno_at_20(|c| c.recovery = recovery);
            out.clear();
            for k in 1..=3 {
                sack_up_to(&mut s, k, &mut out);
            }
            assert_eq!(s.tcb.ca_state, CaState::Recovery);
            assert_eq!(seqs(&mut out), vec![20, 21, 0]);
            for k in [4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] {
                sack_up_to(&mut s, k, &mut out);
                if seqs(&mut out).iter().any(|&q| q >= 22) {
                    return k;
                }
            }
            0
        };
        assert_eq!(first_new(RecoveryMode::Rfc6675), 13);
        assert_eq!(first_new(RecoveryMode::Ns2Sack1), 14);
    }

    #[test]
    fn ns2_tcp_linux_restarts_the_rto_on_every_ack_duplicates_included() {
        // tcp-linux.cc time_processing runs renew_timer for every ACK not
        // older than snd_una, so duplicate ACKs push the deadline on; ns-2's
        // Sack1 (ns2) restarts it at the fast retransmit and on new data
        // acked, RFC 6298 only on new data acked. Packet 0 is lost; SACKs
        // for 1..=10 arrive at 101..=110 ms.
        for (mode, follows_dupacks) in [
            (RtoMode::Ns2Linux, true),
            (RtoMode::Ns2, false),
            (RtoMode::Rfc6298, false),
        ] {
            let (mut s, mut out) = reno_at_20(|c| {
                c.rto_mode = mode;
                c.recovery = RecoveryMode::Rfc6675;
            });
            let sent_at = s.rto_timer.deadline;
            for k in 1..=3 {
                sack_up_to(&mut s, k, &mut out);
            }
            let at_recovery = s.rto_timer.deadline;
            for k in 4..=10 {
                sack_up_to(&mut s, k, &mut out);
            }
            let deadline = s.rto_timer.deadline;
            if follows_dupacks {
                assert_eq!(deadline, Time::from_ms(110) + s.rto.current(), "{mode:?}");
            } else {
                assert_eq!(deadline, at_recovery, "{mode:?}");
            }
            let restarted_at_recovery = at_recovery != sent_at;
            assert_eq!(restarted_at_recovery, mode.is_ns2(), "{mode:?}");
        }
    }

    #[test]
    fn without_lost_retransmit_detection_a_lost_retransmission_waits_for_the_rto() {
        for (detect, lost_after) in [(true, 1), (false, 0)] {
            let (mut s, mut out) = reno_at_20(|c| {
                c.lost_retransmit = detect;
                c.recovery = RecoveryMode::Rfc6675;
            });
            out.clear();
            for k in 1..=3 {
                sack_up_to(&mut s, k, &mut out);
            }
            assert_eq!(s.tcb.ca_state, CaState::Recovery);
            // Packet 0 was retransmitted; the retransmission is lost too, and
            // SACKs for packets sent after it keep arriving.
            for k in 4..=19 {
                sack_up_to(&mut s, k, &mut out);
            }
            let sent: Vec<u64> = seqs(&mut out);
            let new_data_max = *sent.iter().max().unwrap();
            let block = [SackBlock {
                start: 1,
                end: new_data_max + 1,
            }];
            let ack = AckIn {
                cum: 0,
                trigger: new_data_max,
                sack: &block,
                dsack: false,
                tsecr: 0,
                ece: false,
            };
            s.on_ack(Time::from_ms(400), ack, &mut out);
            let again = seqs(&mut out).iter().filter(|&&q| q == 0).count();
            assert_eq!(again, lost_after, "detection {detect}");
        }
    }

    #[test]
    fn a_timeout_shown_spurious_by_the_echoed_timestamp_is_undone() {
        // Packets 0..20 left at 0 ms (TSval 0) in congestion avoidance
        // (cwnd 20, ssthresh 20); no ACK came back before the initial RTO
        // of 1 s: cwnd 1, Reno's ssthresh max(20 / 2, 2) = 10, 0
        // retransmitted at TSval 1000. At 1.1 s the ACK of all 20 echoes
        // TSval 0 < 1000: the originals got through (Eifel, RFC 3522), so
        // cwnd = max(1, prior cwnd 20) and ssthresh = prior
        // tcp_current_ssthresh = max(20, 20 / 2 + 20 / 4) = 20 (Linux
        // tcp_undo_cwnd_reduction). The same ACK then grows cwnd in
        // congestion avoidance: 20 acked at w = 20 gives 21.
        for undo in [true, false] {
            let (mut s, mut out) = reno_at_20(|c| c.undo = undo);
            out.clear();
            s.on_rto(Time::from_secs(1), &mut out);
            assert_eq!(seqs(&mut out), vec![0]);
            assert_eq!((s.tcb.cwnd, s.tcb.ssthresh), (1.0, 10.0));
            s.on_ack(Time::from_ms(1100), ack_echo(20, 19, false, 0), &mut out);
            assert_eq!(s.tcb.ca_state, CaState::Open);
            if undo {
                assert_eq!((s.tcb.cwnd, s.tcb.ssthresh, s.stats.undos), (21.0, 20.0, 1));
                assert_eq!(seqs(&mut out), (20..41).collect::<Vec<_>>());
            } else {
                // Slow start from 1 up to ssthresh 10 uses 9 of the 20
                // acked; the other 11 at w = 10 add one (Linux
                // tcp_reno_cong_avoid: tcp_slow_start, then
                // tcp_cong_avoid_ai with the leftover).
                assert_eq!((s.tcb.cwnd, s.tcb.ssthresh, s.stats.undos), (11.0, 10.0, 0));
            }
        }
    }

    #[test]
    fn a_timeout_whose_retransmission_is_echoed_stays() {
        // As above, but the ACK echoes the retransmission's TSval 1000:
        // the retransmission repaired a real loss, nothing is undone (cwnd
        // as without the option: 11).
        let (mut s, mut out) = reno_at_20(|c| c.undo = true);
        s.on_rto(Time::from_secs(1), &mut out);
        s.on_ack(Time::from_ms(1100), ack_echo(20, 0, false, 1000), &mut out);
        assert_eq!((s.tcb.cwnd, s.tcb.ssthresh, s.stats.undos), (11.0, 10.0, 0));
    }

    #[test]
    fn a_recovery_ended_by_an_ack_of_the_original_is_undone() {
        // Packet 0 only delayed: SACKs of 1..=3 start a recovery (ssthresh
        // 10) and retransmit 0 at 103 ms (TSval 103). The ACK ending the
        // recovery echoes the original's TSval 0: Linux
        // tcp_try_undo_recovery restores cwnd = max(cwnd, 20) and ssthresh
        // 20 and goes to Open, with no COMPLETE_CWR cwnd = ssthresh.
        for (tsecr, cwnd, ssthresh, undos) in [(0, 20.0, 20.0, 1), (103, 10.0, 10.0, 0)] {
            let (mut s, mut out) = reno_at_20(|c| c.undo = true);
            for k in 1..=3 {
                sack_up_to(&mut s, k, &mut out);
            }
            assert_eq!(s.tcb.ca_state, CaState::Recovery);
            s.on_ack(Time::from_ms(150), ack_echo(23, 0, false, tsecr), &mut out);
            assert_eq!(s.tcb.ca_state, CaState::Open);
            assert_eq!(
                (s.tcb.cwnd, s.tcb.ssthresh, s.stats.undos),
                (cwnd, ssthresh, undos),
                "tsecr {tsecr}"
            );
        }
    }

    #[test]
    fn a_dsack_for_the_only_retransmission_undoes_the_ended_recovery() {
        // The same recovery ends normally (the ACK echoes the
        // retransmission: cwnd = ssthresh = 10). Then a D-SACK reports 0
        // received twice: every retransmission of the episode was
        // unnecessary (RFC 3708), so Linux tcp_try_undo_dsack restores
        // cwnd 20 and ssthresh 20. Without the option it is ignored.
        for (undo, cwnd) in [(true, 20.0), (false, 10.0)] {
            let (mut s, mut out) = reno_at_20(|c| c.undo = undo);
            for k in 1..=3 {
                sack_up_to(&mut s, k, &mut out);
            }
            s.on_ack(Time::from_ms(150), ack_echo(23, 0, false, 103), &mut out);
            assert_eq!(s.tcb.cwnd, 10.0);
            s.on_ack(Time::from_ms(151), ack_echo(23, 0, true, 103), &mut out);
            assert_eq!(s.tcb.cwnd, cwnd, "undo {undo}");
            assert_eq!(s.stats.undos, u64::from(undo));
        }
    }

    #[test]
    fn rate_halving_sends_one_packet_per_two_acks() {
        // Linux 2.6 tcp_cwnd_down. Packet 0 is lost. ACKs 1 and 2
        // (Disorder) each clock out one new packet (20, 21). ACK 3 marks 0
        // lost (RFC 6675: three SACKs above it): ssthresh = 10, the halving
        // counter goes to 1 without a decrement, and cwnd = in_flight + 1 =
        // (22 - 3 sacked - 1 lost) + 1 = 19; 0 is retransmitted. From then on
        // every second ACK takes one off cwnd and every other ACK sends one.
        let (mut s, mut out) = reno_at_20(|c| c.recovery = RecoveryMode::RateHalving);
        assert_eq!(seqs(&mut out), (0..20).collect::<Vec<_>>());
        let mut trace = Vec::new();
        for k in 1..=7 {
            sack_up_to(&mut s, k, &mut out);
            trace.push((k, s.tcb.cwnd, seqs(&mut out)));
        }
        assert_eq!(
            trace,
            vec![
                (1, 20.0, vec![20]),
                (2, 20.0, vec![21]),
                (3, 19.0, vec![0]),
                (4, 18.0, vec![]),
                (5, 18.0, vec![22]),
                (6, 17.0, vec![]),
                (7, 17.0, vec![23]),
            ]
        );
        assert_eq!(s.tcb.ssthresh, 10.0);
        assert_eq!(s.tcb.ca_state, CaState::Recovery);
        // Everything up to 23 acknowledged: recovery ends with
        // cwnd = min(cwnd, ssthresh) = min(17, 10).
        let ack = AckIn {
            cum: 24,
            trigger: 0,
            sack: &[],
            dsack: false,
            tsecr: 0,
            ece: false,
        };
        s.on_ack(Time::from_ms(120), ack, &mut out);
        assert_eq!(s.tcb.ca_state, CaState::Open);
        assert_eq!(s.tcb.cwnd, 10.0);
        assert_eq!(seqs(&mut out), (24..34).collect::<Vec<_>>());
    }

    #[test]
    fn rate_halving_decrements_stop_at_half_of_ssthresh() {
        // In recovery (ssthresh 10) with cwnd already down to 6 and plenty
        // in flight: the next decrement takes it to min_cwnd = 10 / 2 = 5,
        // the ones after leave it there; in_flight + 1 is no bound here.
        let (mut s, mut out) = reno_at_20(|c| c.recovery = RecoveryMode::RateHalving);
        for k in 1..=3 {
            sack_up_to(&mut s, k, &mut out);
        }
        out.clear();
        s.tcb.cwnd = 6.0;
        let mut cwnds = Vec::new();
        for k in 4..=9 {
            sack_up_to(&mut s, k, &mut out);
            cwnds.push(s.tcb.cwnd);
        }
        assert_eq!(cwnds, vec![5.0; 6]);
        // Nothing went out: 22 sent - 9 SACKed - 1 lost + 1 retransmitted
        // = 13 in flight, above cwnd.
        assert_eq!(s.in_flight(), 13);
        assert!(out.is_empty());
    }

    #[test]
    fn the_ack_ending_a_newreno_recovery_gives_no_rtt_sample() {
        // SACK off; packet 1 lost. The ACK of 0 at 100 ms gives the one RTT
        // sample (100 ms). Three duplicate ACKs retransmit 1; the ACK of
        // everything at 210 ms covers that retransmission, so none of the
        // packets it acknowledges (2..=19 sent at 0 included) is a sample
        // (Karn, Linux FLAG_RETRANS_DATA_ACKED): a 210 ms one would have
        // moved srtt to 113.75 ms.
        let (mut s, mut out) = reno_at_20(|c| c.sack = false);
        let ack = |cum, trigger| AckIn {
            cum,
            trigger,
            sack: &[],
            dsack: false,
            tsecr: 0,
            ece: false,
        };
        s.on_ack(Time::from_ms(100), ack(1, 0), &mut out);
        assert_eq!(s.tcb.srtt, Some(Time::from_ms(100)));
        for k in 2..20 {
            s.on_ack(Time::from_ms(100 + k), ack(1, k), &mut out);
        }
        assert_eq!(s.tcb.ca_state, CaState::Recovery);
        assert_eq!(s.stats.retransmitted, 1);
        // Everything sent before the recovery began (20 on the ACK of 0,
        // 21 and 22 by limited transmit), so the ACK is a full one.
        assert_eq!(s.recover, 23);
        s.on_ack(Time::from_ms(210), ack(23, 1), &mut out);
        assert_eq!(s.tcb.ca_state, CaState::Open);
        assert_eq!(s.tcb.srtt, Some(Time::from_ms(100)));
    }

    #[test]
    fn prr_and_rfc6675_windows_at_recovery_entry() {
        // The same third ACK: RFC 6675 sets cwnd = ssthresh = 10; PRR
        // (RFC 6937, pipe 18 > ssthresh 10) allows
        // ceil(prr_delivered 1 * ssthresh 10 / RecoverFS 22) - prr_out 0 = 1
        // packet, so cwnd = pipe + 1 = 19.
        for (mode, cwnd) in [(RecoveryMode::Rfc6675, 10.0), (RecoveryMode::Prr, 19.0)] {
            let (mut s, mut out) = reno_at_20(|c| c.recovery = mode);
            for k in 1..=3 {
                sack_up_to(&mut s, k, &mut out);
            }
            assert_eq!(s.tcb.cwnd, cwnd, "{mode:?}");
        }
    }

    #[test]
    fn fack_enters_recovery_on_the_first_sack_far_enough_ahead() {
        // Packets 0..=3 lost, 4 arrives: one SACK, which RFC 6675 does not
        // count as loss; FACK does (fackets_out = 5 > 3), marking 0 and 1.
        for (marking, state) in [
            (LossMarking::Rfc6675, CaState::Disorder),
            (LossMarking::Fack, CaState::Recovery),
        ] {
            let (mut s, mut out) = reno_at_20(|c| c.loss_marking = marking);
            out.clear();
            let block = [SackBlock { start: 4, end: 5 }];
            let ack = AckIn {
                cum: 0,
                trigger: 4,
                sack: &block,
                dsack: false,
                tsecr: 0,
                ece: false,
            };
            s.on_ack(Time::from_ms(100), ack, &mut out);
            assert_eq!(s.tcb.ca_state, state, "{marking:?}");
        }
    }

    /// An ACK of everything below `cum` (trigger `cum - 1`) with ECE `ece`.
    fn ack_ece(cum: u64, ece: bool) -> AckIn<'static> {
        AckIn {
            ece,
            ..ack_echo(cum, cum - 1, false, 0)
        }
    }

    /// The sequence numbers and ECN bits of what a sender sent.
    fn sent_ecn(out: &mut Vec<Packet>) -> Vec<(u64, Ecn)> {
        out.drain(..)
            .map(|p| match p.payload {
                Payload::Data { seq, .. } => (seq, p.ecn),
                Payload::Ack { .. } => panic!("a sender sends data"),
            })
            .collect()
    }

    #[test]
    fn an_ece_reduces_once_per_window_and_retransmits_nothing() {
        // RFC 3168 section 6.1.2 with Linux's CWR state and PRR
        // (tcp_cwnd_reduction). Reno at cwnd 20 sent 0..20 as ECT(0). The
        // ACK of 0 with ECE: ssthresh = 20 / 2 = 10, CWR until the ACK
        // passes 20 (snd_nxt then); PRR (RecoverFS 19 outstanding) lets
        // ceil(1 * 10 / 19) = 1 packet out: 20, carrying CWR.
        let (mut s, mut out) = reno_at_20(|c| c.ecn = true);
        let first = sent_ecn(&mut out);
        assert!(first
            .iter()
            .all(|(_, e)| e.codepoint() == Codepoint::Ect0 && !e.cwr()));
        s.on_ack(Time::from_ms(100), ack_ece(1, true), &mut out);
        assert_eq!((s.tcb.ca_state, s.tcb.ssthresh), (CaState::Cwr, 10.0));
        let sent = sent_ecn(&mut out);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].0, 20);
        assert!(sent[0].1.cwr() && sent[0].1.codepoint() == Codepoint::Ect0);
        // More ECEs in the same window reduce nothing more; no CWR again.
        for k in 2..=20 {
            s.on_ack(Time::from_ms(100 + k), ack_ece(k, true), &mut out);
        }
        assert!(sent_ecn(&mut out).iter().all(|(_, e)| !e.cwr()));
        assert_eq!(s.tcb.ca_state, CaState::Cwr); // snd_una 20 is not after 20
        assert_eq!((s.stats.ece_reductions, s.stats.retransmitted), (1, 0));
        assert_eq!(s.stats.fast_retransmits, 0);
        // The ACK of 20 ends CWR at cwnd = ssthresh = 10 (Linux
        // tcp_end_cwnd_reduction); Reno's growth then adds 1 of 10 credit.
        s.on_ack(Time::from_ms(130), ack_ece(21, false), &mut out);
        assert_eq!(
            (s.tcb.ca_state, s.tcb.cwnd, s.tcb.cwnd_cnt),
            (CaState::Open, 10.0, 1)
        );
        // The next ECE is a new window: a second reduction, to 10 / 2.
        s.on_ack(Time::from_ms(131), ack_ece(22, true), &mut out);
        assert_eq!((s.stats.ece_reductions, s.tcb.ssthresh), (2, 5.0));
    }

    #[test]
    fn without_ecn_the_sender_ignores_ece_and_sends_not_ect() {
        let (mut s, mut out) = reno_at_20(|_| {});
        s.on_ack(Time::from_ms(100), ack_ece(1, true), &mut out);
        assert_eq!(s.tcb.ca_state, CaState::Open);
        assert_eq!(s.stats.ece_reductions, 0);
        assert!(sent_ecn(&mut out).iter().all(|(_, e)| *e == Ecn::default()));
    }

    #[test]
    fn the_ecn_reduction_follows_the_recovery_rule() {
        // RFC 6675 mode halves at once (cwnd = ssthresh = 10); rate halving
        // (Linux 2.6 tcp_cwnd_down in CWR) starts at in_flight + 1 = 20.
        for (mode, cwnd) in [
            (RecoveryMode::Rfc6675, 10.0),
            (RecoveryMode::RateHalving, 20.0),
        ] {
            let (mut s, mut out) = reno_at_20(|c| {
                c.ecn = true;
                c.recovery = mode;
            });
            s.on_ack(Time::from_ms(100), ack_ece(1, true), &mut out);
            assert_eq!(
                (s.tcb.ca_state, s.tcb.cwnd),
                (CaState::Cwr, cwnd),
                "{mode:?}"
            );
        }
    }

    #[test]
    fn a_loss_in_cwr_recovers_without_a_second_reduction() {
        // Packet 0 lost. The SACK of 1 carries ECE: CWR, ssthresh 10. The
        // SACK of 2 lowers cwnd by PRR to 19; the SACK of 3 marks 0 lost:
        // Recovery keeps ssthresh 10 (a new one would be 19 / 2 = 9) and
        // retransmits 0 (Linux tcp_enter_recovery in a reduction).
        let (mut s, mut out) = reno_at_20(|c| c.ecn = true);
        let block = [SackBlock { start: 1, end: 2 }];
        let ack = AckIn {
            ece: true,
            sack: &block,
            ..ack_echo(0, 1, false, 0)
        };
        s.on_ack(Time::from_ms(101), ack, &mut out);
        assert_eq!((s.tcb.ca_state, s.tcb.ssthresh), (CaState::Cwr, 10.0));
        sack_up_to(&mut s, 2, &mut out);
        assert_eq!(s.tcb.cwnd, 19.0);
        sack_up_to(&mut s, 3, &mut out);
        assert_eq!((s.tcb.ca_state, s.tcb.ssthresh), (CaState::Recovery, 10.0));
        assert_eq!((s.stats.fast_retransmits, s.stats.retransmitted), (1, 1));
        // The retransmission is Not-ECT (RFC 3168 section 6.1.5).
        let resent: Vec<(u64, Ecn)> = sent_ecn(&mut out)
            .into_iter()
            .filter(|(q, _)| *q == 0)
            .collect();
        assert_eq!(resent.len(), 2);
        assert_eq!(resent[1].1.codepoint(), Codepoint::NotEct);
    }

    #[test]
    fn a_timeout_in_cwr_keeps_the_reduced_ssthresh() {
        // Linux tcp_enter_loss: no new ssthresh while the window's
        // reduction is under way. After ten ECE ACKs PRR has let
        // ceil(10 * 10 / 19) = 6 packets out: 16 in flight, cwnd 16; a
        // second reduction would give 16 / 2 = 8.
        let (mut s, mut out) = reno_at_20(|c| c.ecn = true);
        for k in 1..=10 {
            s.on_ack(Time::from_ms(100 + k), ack_ece(k, true), &mut out);
        }
        assert_eq!((s.tcb.cwnd, s.in_flight()), (16.0, 16));
        s.on_rto(Time::from_secs(2), &mut out);
        assert_eq!(
            (s.tcb.ca_state, s.tcb.ssthresh, s.tcb.cwnd),
            (CaState::Loss, 10.0, 1.0)
        );
    }
}
