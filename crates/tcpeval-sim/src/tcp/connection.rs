//! One TCP connection as the world holds it: the sender and the receiver of
//! a flow, and the four lazily cancelled timers they own (see
//! [`super::timer`]). The world hands the connection its packets and its
//! timer events, and asks it which timer events to schedule; it never
//! touches a timer or the SACK store itself.

use super::config::TcpConfig;
use super::receiver::{EcnEcho, Receiver};
use super::sender::{AckIn, Sender};
use crate::event::{FlowId, TimerKind};
use crate::packet::{Ecn, Packet, Payload, SackRef};
use crate::time::Time;
use tcpeval_cc::Algorithm;

/// A flow's two TCP ends.
#[derive(Debug)]
pub struct Connection {
    /// The sending end.
    pub sender: Sender,
    /// The receiving end.
    pub receiver: Receiver,
}

impl Connection {
    /// A connection for flow `flow`: options `cfg`, algorithm `cc`, and a
    /// finite size in packets (`None`: unlimited).
    /// With ECN (option `ecn`, or an algorithm that needs it) the receiver
    /// echoes marks as RFC 3168 says, or per CE change for an algorithm
    /// that needs ECN (DCTCP: Linux runs the same module at both ends).
    pub fn new(flow: FlowId, cfg: TcpConfig, cc: Algorithm, size: Option<u64>) -> Self {
        let echo = if cc.needs_ecn() {
            EcnEcho::PerCe
        } else if cfg.ecn {
            EcnEcho::Rfc3168
        } else {
            EcnEcho::Off
        };
        Connection {
            receiver: Receiver::new(flow, &cfg).with_ecn_echo(echo),
            sender: Sender::new(flow, cfg, cc, size),
        }
    }

    /// Takes over the timers of `old`, the connection that held the same
    /// flow slot before, stopped: their heap events may still be pending,
    /// and keeping the generations makes such an event stale for this
    /// connection (the lazy timers treat it as an early wake-up).
    pub fn inherit_timers(&mut self, old: &Connection) {
        self.sender.inherit_timers(&old.sender);
        self.receiver.inherit_timers(&old.receiver);
    }

    /// The ACK `ack` (a [`Payload::Ack`] with ECN bits `ecn`) reaches the
    /// sender at `now`; its SACK blocks are read from the receiver's
    /// store, which kept them while the ACK travelled.
    pub fn on_ack(&mut self, now: Time, ack: Payload, ecn: Ecn, out: &mut Vec<Packet>) {
        let Payload::Ack {
            cum,
            trigger,
            sack,
            dsack,
            tsecr,
        } = ack
        else {
            unreachable!("on_ack of a data segment");
        };
        let (blocks, n) = self.receiver.sacks.take(sack);
        let ack = AckIn {
            cum,
            trigger,
            sack: &blocks[..n],
            dsack,
            tsecr,
            ece: ecn.ece(),
        };
        self.sender.on_ack(now, ack, out);
    }

    /// An ACK carrying `sack` was dropped: its blocks are released.
    pub fn ack_dropped(&mut self, sack: SackRef) {
        self.receiver.sacks.release(sack);
    }

    /// The heap event of timer `kind` with `generation` fires at `now`; the
    /// timer's owner acts if the timer really expired.
    pub fn on_timer(&mut self, kind: TimerKind, generation: u32, now: Time, out: &mut Vec<Packet>) {
        match kind {
            TimerKind::Rto => self.sender.on_rto_event(generation, now, out),
            TimerKind::DelayedAck => self.receiver.on_delack_event(generation, now, out),
            TimerKind::Cc => self.sender.on_cc_event(generation, now, out),
            TimerKind::Pacing => self.sender.on_pacing_event(generation, now, out),
        }
    }

    /// Calls `schedule(kind, time, generation)` for each timer whose
    /// deadline needs a heap event, in a fixed order (RTO, delayed ACK,
    /// the algorithm's clock, pacing) so runs stay deterministic.
    pub fn due_timers(&mut self, mut schedule: impl FnMut(TimerKind, Time, u32)) {
        if let Some((t, g)) = self.sender.rto_to_schedule() {
            schedule(TimerKind::Rto, t, g);
        }
        if let Some((t, g)) = self.receiver.delack_to_schedule() {
            schedule(TimerKind::DelayedAck, t, g);
        }
        if let Some((t, g)) = self.sender.cc_timer_to_schedule() {
            schedule(TimerKind::Cc, t, g);
        }
        if let Some((t, g)) = self.sender.pacing_timer_to_schedule() {
            schedule(TimerKind::Pacing, t, g);
        }
    }
}
