//! The TCP receiver: cumulative ACK, SACK blocks (RFC 2018) with D-SACK
//! for duplicates (RFC 2883), timestamp echo (RFC 7323) and delayed ACK
//! (RFC 1122 section 4.2.3.2 and RFC 5681 section 4.2: an ACK for at least
//! every second full-sized segment and at once for out-of-order data, with
//! Linux's quick-ack start, `net/ipv4/tcp_input.c` `tcp_incr_quickack`),
//! and with ECN the echo of CE marks (see [`EcnEcho`]).

use super::config::TcpConfig;
use super::timer::LazyTimer;
use crate::event::FlowId;
use crate::packet::{Codepoint, Ecn, Packet, Payload, SackBlock, SackStore, MAX_SACK_BLOCKS};
use crate::time::Time;
use std::collections::BTreeMap;

/// Segments ACKed at once after a CE mark or a retransmission is seen
/// (Linux `tcp_enter_quickack_mode(sk, 2)` in `__tcp_ecn_check_ce`).
const ECN_QUICKACKS: u32 = 2;

/// How the receiver echoes CE marks to the sender.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnEcho {
    /// ECN off: ACKs carry no ECE and are Not-ECT.
    #[default]
    Off,
    /// RFC 3168 section 6.1.3 (Linux `__tcp_ecn_check_ce`,
    /// `tcp_ecn_accept_cwr`, `tcp_ecn_send`): from a CE arrival, every ACK
    /// carries ECE until a data packet with CWR arrives; a CE after that
    /// starts it again. A CE while not echoing, and a Not-ECT segment
    /// (a retransmission) once ECT was seen, make the next
    /// [`ECN_QUICKACKS`] segments ACKed at once; a CWR segment is ACKed at
    /// once.
    Rfc3168,
    /// DCTCP's accurate echo (RFC 8257 section 3.2; Linux
    /// `dctcp_ece_ack_update`): ECE is the CE state of the last data
    /// packet. When that state changes, the data not yet ACKed is first
    /// ACKed with the old state, then the new packet at once. ACKs are
    /// ECT(0), as all of a `TCP_CONG_NEEDS_ECN` connection's packets.
    PerCe,
}

/// One flow's receiving end.
#[derive(Debug)]
pub struct Receiver {
    flow: FlowId,
    sack: bool,
    delayed_ack: bool,
    delack_count: u32,
    delack_timeout: Time,
    ack_size: u32,
    /// Next in-order sequence number expected.
    pub rcv_nxt: u64,
    /// Out-of-order ranges above `rcv_nxt`: start -> end (exclusive).
    ooo: BTreeMap<u64, u64>,
    /// A sequence number inside each of the most recently reported blocks.
    recent: [Option<u64>; MAX_SACK_BLOCKS - 1],
    /// In-order segments received and not yet acknowledged.
    pending: u32,
    /// RFC 7323 `TS.Recent`: the timestamp the next ACK echoes.
    ts_recent: u32,
    /// `rcv_nxt` when the last ACK left (RFC 7323 `Last.ACK.sent`, Linux
    /// `rcv_wup`): only segments at or below it update `ts_recent`, so a
    /// delayed ACK echoes the earliest segment it covers and out-of-order
    /// segments echo nothing new.
    last_ack_sent: u64,
    quickack_left: u32,
    /// Delayed-ACK timer.
    delack: LazyTimer,
    /// SACK blocks of the ACKs sent and not yet arrived or dropped.
    pub(super) sacks: SackStore,
    /// ACKs sent.
    pub acks_sent: u64,
    /// How CE marks are echoed.
    echo: EcnEcho,
    /// ACKs carry ECE (Linux `TCP_ECN_DEMAND_CWR`; with [`EcnEcho::PerCe`]
    /// the CE state of the last data packet, DCTCP's `ce_state`).
    ece: bool,
    /// An ECT or CE segment has arrived (Linux `TCP_ECN_SEEN`).
    ect_seen: bool,
    /// Data packets that arrived CE-marked.
    pub ce_received: u64,
}

impl Receiver {
    /// A receiver for `flow` with the flow's TCP options.
    pub fn new(flow: FlowId, cfg: &TcpConfig) -> Self {
        Receiver {
            flow,
            sack: cfg.sack,
            delayed_ack: cfg.delayed_ack,
            delack_count: cfg.delack_count.max(1),
            delack_timeout: cfg.delack_timeout,
            ack_size: cfg.ack_size,
            rcv_nxt: 0,
            ooo: BTreeMap::new(),
            recent: [None; MAX_SACK_BLOCKS - 1],
            pending: 0,
            ts_recent: 0,
            last_ack_sent: 0,
            quickack_left: cfg.quickack_segments,
            delack: LazyTimer::default(),
            sacks: SackStore::default(),
            acks_sent: 0,
            echo: EcnEcho::Off,
            ece: false,
            ect_seen: false,
            ce_received: 0,
        }
    }

    /// This receiver echoing CE marks by `echo`.
    pub fn with_ecn_echo(mut self, echo: EcnEcho) -> Self {
        self.echo = echo;
        self
    }

    /// The ECN bits of an arriving data segment, before its ACK is
    /// decided (see [`EcnEcho`]); may send the ACK of earlier data first
    /// (DCTCP). Returns true when this segment must be ACKed at once.
    fn on_ecn(&mut self, ecn: Ecn, out: &mut Vec<Packet>) -> bool {
        let ce = ecn.is_ce();
        self.ce_received += u64::from(ce);
        match self.echo {
            EcnEcho::Off => false,
            EcnEcho::Rfc3168 => {
                let mut now = false;
                if ecn.cwr() {
                    self.ece = false;
                    now = true;
                }
                match ecn.codepoint() {
                    Codepoint::NotEct if self.ect_seen => {
                        self.quickack_left = self.quickack_left.max(ECN_QUICKACKS);
                    }
                    Codepoint::NotEct => {}
                    Codepoint::Ce => {
                        if !self.ece {
                            self.quickack_left = self.quickack_left.max(ECN_QUICKACKS);
                            self.ece = true;
                        }
                        self.ect_seen = true;
                    }
                    Codepoint::Ect0 => self.ect_seen = true,
                }
                now
            }
            EcnEcho::PerCe => {
                if ce == self.ece {
                    return false;
                }
                if self.pending > 0 {
                    // The delayed ACK goes first, with the old state and
                    // the old cumulative point (Linux prior_rcv_nxt).
                    let last = self.rcv_nxt.saturating_sub(1);
                    self.send_ack(last, false, out);
                }
                self.ece = ce;
                true
            }
        }
    }

    /// The out-of-order block holding `seq`, if any.
    fn block_of(&self, seq: u64) -> Option<SackBlock> {
        let (&start, &end) = self.ooo.range(..=seq).next_back()?;
        (seq < end).then_some(SackBlock { start, end })
    }

    /// Stores `seq` above `rcv_nxt`; false if it was already held.
    fn insert_ooo(&mut self, seq: u64) -> bool {
        // Fast path, the usual case while a hole waits for its
        // retransmission: `seq` at or above the end of the highest block,
        // which it extends or follows. No block can hold it or start at
        // `seq + 1`, so this is the general rule's result without its
        // searches.
        if let Some(mut last) = self.ooo.last_entry() {
            let end = *last.get();
            if seq == end {
                *last.get_mut() = seq + 1;
                return true;
            }
            if seq > end {
                self.ooo.insert(seq, seq + 1);
                return true;
            }
        }
        if self.block_of(seq).is_some() {
            return false;
        }
        let mut start = seq;
        let mut end = seq + 1;
        if let Some((&s, &e)) = self.ooo.range(..seq).next_back() {
            if e == seq {
                start = s;
                self.ooo.remove(&s);
            }
        }
        if let Some(e2) = self.ooo.remove(&end) {
            end = e2;
        }
        self.ooo.insert(start, end);
        true
    }

    /// Handles a data segment with timestamp `tsval` arriving at `now`.
    /// Pushes an ACK onto `out` when one is due and returns the number of
    /// packets newly delivered in order to the application.
    pub fn on_data(
        &mut self,
        seq: u64,
        tsval: u32,
        ecn: Ecn,
        now: Time,
        out: &mut Vec<Packet>,
    ) -> u64 {
        if seq <= self.last_ack_sent {
            self.ts_recent = self.ts_recent.max(tsval);
        }
        let mut immediate = self.echo != EcnEcho::Off && self.on_ecn(ecn, out);
        let had_ooo = !self.ooo.is_empty();
        let before = self.rcv_nxt;
        let mut duplicate = false;
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            if let Some((&s, &e)) = self.ooo.first_key_value() {
                if s == self.rcv_nxt {
                    self.ooo.remove(&s);
                    self.rcv_nxt = e;
                }
            }
        } else if seq > self.rcv_nxt {
            duplicate = !self.insert_ooo(seq);
            immediate = true;
        } else {
            duplicate = true;
            immediate = true; // duplicate: ACK at once
        }
        // Out of order, filling a hole, delayed ACK off, or quick-ack start.
        immediate |= had_ooo || !self.delayed_ack || self.quickack_left > 0;
        if immediate {
            self.quickack_left = self.quickack_left.saturating_sub(1);
            self.send_ack(seq, duplicate, out);
        } else {
            self.pending += 1;
            if self.pending >= self.delack_count {
                self.send_ack(seq, false, out);
            } else if !self.delack.is_armed() {
                self.delack.set(now + self.delack_timeout);
            }
        }
        self.rcv_nxt - before
    }

    /// The heap event of the delayed-ACK timer with `generation` fires at
    /// `now`: pending data is ACKed if the timer really expired.
    pub fn on_delack_event(&mut self, generation: u32, now: Time, out: &mut Vec<Packet>) {
        if self.delack.fire(generation, now) {
            self.on_delack_timer(out);
        }
    }

    /// For a receiver that runs ahead of the world's clock (an early
    /// receiver, see `world`), before it takes a segment arriving at `t`:
    /// if the delayed-ACK timer expires before `t`, it expires now, at its
    /// deadline, which is returned, and the pending data's ACK goes onto
    /// `out`. Its heap event, when it fires, finds the timer stopped or
    /// re-armed later, and does nothing. A deadline at `t` itself is left
    /// to the segment, which is taken first.
    pub fn expire_delack_before(&mut self, t: Time, out: &mut Vec<Packet>) -> Option<Time> {
        let deadline = self.delack.deadline;
        if deadline >= t {
            return None; // also when stopped: `Time::NEVER` is the largest time
        }
        self.delack.stop();
        self.on_delack_timer(out);
        Some(deadline)
    }

    /// True if the receiver echoes ECN marks.
    pub fn echoes_ecn(&self) -> bool {
        self.echo != EcnEcho::Off
    }

    /// The delayed-ACK timer's heap event to push, if its deadline needs
    /// one: `(time, generation)`.
    pub fn delack_to_schedule(&mut self) -> Option<(Time, u32)> {
        self.delack.to_schedule()
    }

    /// Takes over `old`'s delayed-ACK timer, stopped (see
    /// [`super::connection::Connection::inherit_timers`]).
    pub fn inherit_timers(&mut self, old: &Receiver) {
        self.delack = old.delack;
        self.delack.stop();
    }

    /// The delayed-ACK timer expired: ACK what is pending.
    pub fn on_delack_timer(&mut self, out: &mut Vec<Packet>) {
        if self.pending > 0 {
            let last = self.rcv_nxt.saturating_sub(1);
            self.send_ack(last, false, out);
        }
    }

    /// Sends the ACK triggered by segment `trigger`; `duplicate`: it was
    /// received before (D-SACK when SACK is on).
    fn send_ack(&mut self, trigger: u64, duplicate: bool, out: &mut Vec<Packet>) {
        self.pending = 0;
        self.last_ack_sent = self.rcv_nxt;
        self.delack.stop();
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        let mut n = 0usize;
        if self.sack && !self.ooo.is_empty() {
            // First the block holding the segment that triggered this ACK,
            // then the most recently reported other blocks (RFC 2018).
            let candidates = std::iter::once(Some(trigger)).chain(self.recent.iter().copied());
            for seq in candidates.flatten() {
                if let Some(b) = self.block_of(seq) {
                    if n < MAX_SACK_BLOCKS && !sack[..n].contains(&b) {
                        sack[n] = b;
                        n += 1;
                    }
                }
            }
            if n == 0 {
                // The trigger was in order; report the highest block.
                if let Some((&start, &end)) = self.ooo.last_key_value() {
                    sack[0] = SackBlock { start, end };
                    n = 1;
                }
            }
            if n > 0 {
                let first = sack[0].start;
                if self.recent[0] != Some(first) {
                    self.recent.rotate_right(1);
                    self.recent[0] = Some(first);
                }
            }
        }
        self.acks_sent += 1;
        let sack = self.sacks.put(&sack[..n]);
        let ecn = match self.echo {
            EcnEcho::Off => Ecn::default(),
            EcnEcho::Rfc3168 => Ecn::default().with_ece(self.ece),
            EcnEcho::PerCe => Ecn::default()
                .with_ece(self.ece)
                .with_codepoint(Codepoint::Ect0),
        };
        out.push(Packet {
            flow: self.flow,
            size: self.ack_size,
            hop: 0,
            ecn,
            payload: Payload::Ack {
                cum: self.rcv_nxt,
                trigger,
                sack,
                dsack: self.sack && duplicate,
                tsecr: self.ts_recent,
            },
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(delayed: bool) -> TcpConfig {
        TcpConfig {
            delayed_ack: delayed,
            quickack_segments: 0,
            ..TcpConfig::default()
        }
    }

    #[test]
    fn out_of_order_blocks_are_the_runs_of_the_segments_held() {
        // Arrivals above a hole in many orders (ascending runs, gaps,
        // fill-ins, duplicates, from a fixed LCG): the blocks must always be
        // the maximal runs of the distinct segments received, which is what
        // the fast path for a segment past the highest block must keep.
        let mut x: u64 = 12345;
        for round in 0..200 {
            let mut r = Receiver::new(0, &cfg(false));
            r.rcv_nxt = 0;
            let mut held = std::collections::BTreeSet::new();
            let mut next = 1u64;
            for _ in 0..300 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let seq = match (x >> 33) % 4 {
                    0 | 1 => next,                    // the next one in order
                    2 => next + 1 + (x >> 40) % 5,    // past a gap
                    _ => 1 + (x >> 45) % next.max(1), // a fill-in or duplicate
                };
                next = next.max(seq + 1);
                assert_eq!(
                    r.insert_ooo(seq),
                    held.insert(seq),
                    "round {round}, seq {seq}"
                );
                let mut runs: Vec<(u64, u64)> = Vec::new();
                for &s in &held {
                    match runs.last_mut() {
                        Some(last) if last.1 == s => last.1 = s + 1,
                        _ => runs.push((s, s + 1)),
                    }
                }
                let blocks: Vec<(u64, u64)> = r.ooo.iter().map(|(&s, &e)| (s, e)).collect();
                assert_eq!(blocks, runs, "round {round}, seq {seq}");
            }
        }
    }

    /// An ACK's cumulative point and SACK blocks, taken from `r`'s store.
    fn ack_of(r: &mut Receiver, p: &Packet) -> (u64, Vec<(u64, u64)>) {
        match p.payload {
            Payload::Ack { cum, sack, .. } => {
                let (set, n) = r.sacks.take(sack);
                (cum, set[..n].iter().map(|b| (b.start, b.end)).collect())
            }
            Payload::Data { .. } => panic!("not an ack"),
        }
    }

    #[test]
    fn cumulative_ack_and_sack_blocks() {
        let mut r = Receiver::new(0, &cfg(false));
        let mut out = Vec::new();
        assert_eq!(r.on_data(0, 0, Ecn::default(), Time::ZERO, &mut out), 1);
        assert_eq!(r.on_data(2, 0, Ecn::default(), Time::ZERO, &mut out), 0);
        assert_eq!(r.on_data(3, 0, Ecn::default(), Time::ZERO, &mut out), 0);
        assert_eq!(r.on_data(5, 0, Ecn::default(), Time::ZERO, &mut out), 0);
        let acks: Vec<_> = out.iter().map(|p| ack_of(&mut r, p)).collect();
        assert_eq!(acks[0], (1, vec![]));
        assert_eq!(acks[1], (1, vec![(2, 3)]));
        assert_eq!(acks[2], (1, vec![(2, 4)]));
        assert_eq!(acks[3], (1, vec![(5, 6), (2, 4)]));
        // The hole at 1 fills: everything up to 4 is delivered, 5 still SACKed.
        out.clear();
        assert_eq!(r.on_data(1, 0, Ecn::default(), Time::ZERO, &mut out), 3);
        assert_eq!(ack_of(&mut r, &out[0]), (4, vec![(5, 6)]));
        assert_eq!(r.sacks.held(), 0);
        out.clear();
        assert_eq!(r.on_data(4, 0, Ecn::default(), Time::ZERO, &mut out), 2);
        assert_eq!(ack_of(&mut r, &out[0]), (6, vec![]));
    }

    #[test]
    fn delayed_ack_every_second_segment_and_timer() {
        let mut r = Receiver::new(0, &cfg(true));
        let mut out = Vec::new();
        r.on_data(0, 0, Ecn::default(), Time::ZERO, &mut out);
        assert!(out.is_empty());
        assert_eq!(r.delack.deadline, Time::from_ms(40));
        r.on_data(1, 0, Ecn::default(), Time::from_ms(1), &mut out);
        assert_eq!(out.len(), 1);
        assert!(!r.delack.is_armed());
        r.on_data(2, 0, Ecn::default(), Time::from_ms(2), &mut out);
        r.on_delack_timer(&mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(ack_of(&mut r, &out[1]).0, 3);
        // Out of order: immediate.
        r.on_data(5, 0, Ecn::default(), Time::from_ms(3), &mut out);
        assert_eq!(out.len(), 3);
    }

    #[test]
    fn an_early_receiver_expires_its_delayed_ack_before_a_later_segment() {
        // The timer armed at 0 for 40 ms (delayed ACK every second segment):
        // a segment at 40 ms exactly is taken first (nothing expires), one
        // later expires the timer at its deadline with the pending data's
        // ACK; a stopped timer never expires.
        let mut r = Receiver::new(0, &cfg(true));
        let mut out = Vec::new();
        r.on_data(0, 0, Ecn::default(), Time::ZERO, &mut out);
        assert_eq!(r.expire_delack_before(Time::from_ms(40), &mut out), None);
        assert!(out.is_empty() && r.delack.is_armed());
        let later = Time::from_ms(40) + Time::from_ps(1);
        assert_eq!(
            r.expire_delack_before(later, &mut out),
            Some(Time::from_ms(40))
        );
        assert_eq!(out.len(), 1);
        assert_eq!(ack_of(&mut r, &out[0]).0, 1);
        assert!(!r.delack.is_armed());
        assert_eq!(r.expire_delack_before(Time::from_secs(9), &mut out), None);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn quickack_acks_the_first_segments_one_by_one() {
        let c = TcpConfig {
            quickack_segments: 2,
            ..TcpConfig::default()
        };
        let mut r = Receiver::new(0, &c);
        let mut out = Vec::new();
        for s in 0..4 {
            r.on_data(s, 0, Ecn::default(), Time::ZERO, &mut out);
        }
        assert_eq!(out.len(), 3); // 0, 1 quick; 2+3 delayed together
    }

    /// Feeds `r` the segments `(seq, tsval)`; returns the D-SACK flag and
    /// echoed timestamp of each ACK it sent.
    fn echoes(r: &mut Receiver, segments: &[(u64, u32)]) -> Vec<(bool, u32)> {
        let mut out = Vec::new();
        for &(seq, tsval) in segments {
            r.on_data(seq, tsval, Ecn::default(), Time::ZERO, &mut out);
        }
        out.iter()
            .map(|p| match p.payload {
                Payload::Ack { dsack, tsecr, .. } => (dsack, tsecr),
                Payload::Data { .. } => panic!("not an ack"),
            })
            .collect()
    }

    #[test]
    fn timestamps_echo_the_earliest_unacknowledged_in_order_segment() {
        // RFC 7323 section 4.3: TS.Recent is taken only from a segment at
        // or below Last.ACK.sent. A delayed ACK of 0 (TSval 10) and 1
        // (TSval 11) echoes 10; 3 out of order (TSval 13) does not move
        // it; the hole filled by 2 (TSval 20) does.
        let mut r = Receiver::new(0, &cfg(true));
        assert_eq!(
            echoes(&mut r, &[(0, 10), (1, 11), (3, 13), (2, 20)]),
            vec![(false, 10), (false, 10), (false, 20)]
        );
    }

    #[test]
    fn a_duplicate_segment_is_reported_by_dsack_only_with_sack() {
        // RFC 2883: a segment received twice (below rcv_nxt, or held out
        // of order) is ACKed at once with a D-SACK. The copy of 0 is at or
        // below Last.ACK.sent, so its TSval 5 becomes TS.Recent; the copy
        // of 2, above it, leaves TS.Recent alone.
        for sack in [true, false] {
            let c = TcpConfig { sack, ..cfg(false) };
            let mut r = Receiver::new(0, &c);
            assert_eq!(
                echoes(&mut r, &[(0, 1), (2, 2), (0, 5), (2, 6)]),
                vec![(false, 1), (false, 1), (sack, 5), (sack, 5)],
                "sack {sack}"
            );
        }
    }

    #[test]
    fn no_sack_blocks_when_sack_is_off() {
        let c = TcpConfig {
            sack: false,
            delayed_ack: false,
            ..TcpConfig::default()
        };
        let mut r = Receiver::new(0, &c);
        let mut out = Vec::new();
        r.on_data(1, 0, Ecn::default(), Time::ZERO, &mut out);
        assert_eq!(ack_of(&mut r, &out[0]), (0, vec![]));
    }

    /// ECT(0), CE, and ECT(0) with CWR.
    fn ect() -> Ecn {
        Ecn::default().with_codepoint(Codepoint::Ect0)
    }
    fn ce() -> Ecn {
        Ecn::default().with_codepoint(Codepoint::Ce)
    }

    /// Feeds `r` in-order segments from 0 with the ECN bits `marks`;
    /// returns each ACK's cumulative point and ECE flag.
    fn ece_trace(r: &mut Receiver, marks: &[Ecn]) -> Vec<(u64, bool)> {
        let mut out = Vec::new();
        for (seq, &e) in marks.iter().enumerate() {
            r.on_data(seq as u64, 0, e, Time::ZERO, &mut out);
        }
        out.iter()
            .map(|p| match p.payload {
                Payload::Ack { cum, .. } => (cum, p.ecn.ece()),
                Payload::Data { .. } => panic!("not an ack"),
            })
            .collect()
    }

    #[test]
    fn rfc3168_echoes_ece_from_a_mark_until_cwr() {
        // RFC 3168 section 6.1.3: ECE on every ACK after a CE arrival
        // until a CWR segment arrives; the CWR segment's own ACK no longer
        // echoes (Linux tcp_ecn_accept_cwr before __tcp_ecn_check_ce). ACK
        // per segment (delayed ACK off).
        let mut r = Receiver::new(0, &cfg(false)).with_ecn_echo(EcnEcho::Rfc3168);
        let cwr = ect().with_cwr(true);
        let trace = ece_trace(&mut r, &[ect(), ce(), ect(), ect(), cwr, ect(), ce()]);
        let ece: Vec<bool> = trace.iter().map(|t| t.1).collect();
        assert_eq!(ece, [false, true, true, true, false, false, true]);
        assert_eq!(r.ce_received, 2);
        // Off: nothing echoed.
        let mut r = Receiver::new(0, &cfg(false));
        assert!(ece_trace(&mut r, &[ce(), ce()]).iter().all(|t| !t.1));
    }

    #[test]
    fn rfc3168_acks_a_mark_and_the_next_segment_at_once() {
        // Linux __tcp_ecn_check_ce: a CE while not echoing enters quick-ack
        // mode for 2 segments, so with delayed ACKs (every 2nd segment) the
        // CE segment 2 and segment 3 are each ACKed at once; 4 and 5 share
        // one again. A CWR segment is ACKed at once (tcp_ecn_accept_cwr).
        let c = TcpConfig {
            quickack_segments: 0,
            ..TcpConfig::default()
        };
        let mut r = Receiver::new(0, &c).with_ecn_echo(EcnEcho::Rfc3168);
        let cwr = ect().with_cwr(true);
        let trace = ece_trace(&mut r, &[ect(), ect(), ce(), ect(), ect(), ect(), cwr]);
        assert_eq!(
            trace,
            [(2, false), (3, true), (4, true), (6, true), (7, false)]
        );
    }

    #[test]
    fn rfc3168_acks_a_not_ect_segment_after_ect_ones_at_once() {
        // Linux __tcp_ecn_check_ce: Not-ECT once ECT was seen is probably a
        // retransmission (RFC 3168 section 6.1.5 keeps those Not-ECT), so
        // quick-ack mode for 2 segments: the Not-ECT 2 and then 3 are each
        // ACKed at once; without ECN 2 and 3 share one delayed ACK.
        let c = TcpConfig {
            quickack_segments: 0,
            ..TcpConfig::default()
        };
        let not_ect = Ecn::default();
        let marks = [ect(), ect(), not_ect, ect(), ect(), ect()];
        let mut r = Receiver::new(0, &c).with_ecn_echo(EcnEcho::Rfc3168);
        let cums: Vec<u64> = ece_trace(&mut r, &marks).iter().map(|t| t.0).collect();
        assert_eq!(cums, [2, 3, 4, 6]);
        let mut r = Receiver::new(0, &c);
        let cums: Vec<u64> = ece_trace(&mut r, &marks).iter().map(|t| t.0).collect();
        assert_eq!(cums, [2, 4, 6]);
    }

    #[test]
    fn dctcp_echo_follows_each_ce_change_at_once() {
        // RFC 8257 section 3.2, Linux dctcp_ece_ack_update, delayed ACK
        // every 2nd segment. 0, 1 unmarked: one ACK (cum 2, no ECE). 2
        // unmarked waits; 3 is CE: the state changes, so 2 is ACKed first
        // with the old state (cum 3, no ECE), then 3 at once with ECE. 4, 5
        // CE: one delayed ACK with ECE. 6 unmarked: changed again, nothing
        // pending, ACKed at once without ECE. ACKs are ECT(0).
        let c = TcpConfig {
            quickack_segments: 0,
            ..TcpConfig::default()
        };
        let mut r = Receiver::new(0, &c).with_ecn_echo(EcnEcho::PerCe);
        let mut out = Vec::new();
        let marks = [ect(), ect(), ect(), ce(), ce(), ce(), ect()];
        for (seq, &e) in marks.iter().enumerate() {
            r.on_data(seq as u64, 0, e, Time::ZERO, &mut out);
        }
        let trace: Vec<(u64, bool)> = out
            .iter()
            .map(|p| match p.payload {
                Payload::Ack { cum, .. } => (cum, p.ecn.ece()),
                Payload::Data { .. } => panic!("not an ack"),
            })
            .collect();
        assert_eq!(
            trace,
            [(2, false), (3, false), (4, true), (6, true), (7, false)]
        );
        assert!(out.iter().all(|p| p.ecn.codepoint() == Codepoint::Ect0));
        assert_eq!(r.ce_received, 3);
    }
}
