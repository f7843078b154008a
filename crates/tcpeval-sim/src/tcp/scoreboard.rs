//! The sender's scoreboard: one entry per outstanding packet in
//! `[una, nxt)` with its send time and SACKED / LOST / RETRANS flags, and the
//! Linux counters `sacked_out`, `lost_out`, `retrans_out` kept exact so that
//! `in_flight = packets_out - sacked_out - lost_out + retrans_out`
//! (RFC 6675 `pipe`) is O(1).
//!
//! Loss marking follows RFC 6675 `IsLost` in its packet form: a packet is
//! lost when at least `dupthresh` SACKed packets lie above it. With `h` the
//! `dupthresh`-th highest SACKed sequence number, exactly the un-SACKed
//! packets below `h` are lost; `h` only grows, so marking is amortized O(1).
//! With FACK (Linux 2.6 - 4.14) `h` is instead the highest SACKed sequence
//! number minus `dupthresh - 1`: a hole is lost once more than `dupthresh`
//! packets, SACKed or not, lie from it to the highest SACKed one
//! (`fackets_out > reordering`).
//!
//! Lost retransmissions (which RFC 6675 leaves to the RTO) are detected as
//! Linux 2.6 `tcp_mark_lost_retrans` does: a retransmission sent when the
//! highest sequence sent was `x` is lost once a packet above `x` +
//! `dupthresh` is SACKed, since on a FIFO path it should have arrived first.
//! It is then marked for another retransmission.

use super::config::LossMarking;
use super::rate::{SampledPacket, TxSnapshot};
use crate::time::Time;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// A retransmission of this packet is outstanding.
const RETRANS: u8 = 4;
/// The packet was retransmitted at least once (Karn: no RTT sample).
const EVER_RETRANS: u8 = 8;

#[derive(Clone, Copy, Debug)]
struct Seg {
    sent_at: Time,
    flags: u8,
}

/// What an ACK newly delivered, and the send times its RTT samples come
/// from.
///
/// Karn's rule as Linux applies it per ACK (`tcp_clean_rtx_queue`, without
/// timestamps): when the cumulative part of an ACK covers a packet that was
/// ever retransmitted (`FLAG_RETRANS_DATA_ACKED`), that part gives no sample
/// at all, not even from the never-retransmitted packets it also covers
/// (their ACK may have waited behind the retransmission: after a NewReno
/// recovery of many RTTs they would read as an RTT of many seconds). Newly
/// SACKed never-retransmitted packets still give one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Packets newly delivered (cumulatively acked without an earlier SACK, or newly SACKed).
    pub packets: u32,
    /// A cumulatively acked packet had been retransmitted.
    pub cum_retransmitted: bool,
    /// Send times of the first (in sequence) and the most recently sent
    /// never-retransmitted packets newly cumulatively acked.
    pub cum_clean: Option<(Time, Time)>,
    /// Send times of the earliest and latest sent never-retransmitted
    /// packets newly SACKed.
    pub sack_clean: Option<(Time, Time)>,
    /// The most recently sent packet newly delivered, retransmissions
    /// included: the delivery-rate sample's packet (Linux
    /// `tcp_rate_skb_delivered`).
    pub sampled: Option<SampledPacket>,
}

impl Delivered {
    /// Counts `seg` (sequence number `seq`, rate snapshot `tx` if the
    /// scoreboard keeps them) as newly delivered.
    fn add(&mut self, seq: u64, seg: &Seg, tx: Option<TxSnapshot>, cumulative: bool) {
        self.packets += 1;
        if let Some(tx) = tx {
            let this = SampledPacket {
                sent_at: seg.sent_at,
                seq,
                tx,
                retransmitted: seg.flags & EVER_RETRANS != 0,
            };
            self.sampled = Some(self.sampled.map_or(this, |p| p.newest(this)));
        }
        if seg.flags & EVER_RETRANS != 0 {
            return;
        }
        let t = seg.sent_at;
        if cumulative {
            self.cum_clean = Some(
                self.cum_clean
                    .map_or((t, t), |(first, last)| (first, last.max(t))),
            );
        } else {
            self.sack_clean = Some(
                self.sack_clean
                    .map_or((t, t), |(a, b)| (a.min(t), b.max(t))),
            );
        }
    }

    /// The cumulative part's send times, unless it covered a retransmission.
    fn cum_sample(&self) -> Option<(Time, Time)> {
        self.cum_clean.filter(|_| !self.cum_retransmitted)
    }

    /// Send time of the packet the RTO estimator's sample is taken from
    /// (Linux `seq_rtt`, else `sack_rtt`): the first clean packet
    /// cumulatively acked, else the earliest sent newly SACKed one.
    pub fn rto_sample_sent(&self) -> Option<Time> {
        self.cum_sample()
            .or(self.sack_clean)
            .map(|(first, _)| first)
    }

    /// Send time of the packet the algorithm's RTT sample is taken from
    /// (Linux `ca_rtt`): the latest sent newly SACKed clean packet, else the
    /// latest sent clean packet cumulatively acked.
    pub fn cc_sample_sent(&self) -> Option<Time> {
        self.sack_clean.or(self.cum_sample()).map(|(_, last)| last)
    }
}

/// The outstanding packets of one sender.
#[derive(Debug)]
pub struct Scoreboard {
    segs: VecDeque<Seg>,
    /// Each outstanding packet's delivery-rate snapshot (`tcp::rate`), in
    /// step with `segs`; kept only for an algorithm that reads rate
    /// samples ([`Scoreboard::with_rate_samples`]), so that the others pay
    /// nothing for them.
    tx: Option<VecDeque<TxSnapshot>>,
    una: u64,
    /// Outstanding packets SACKed.
    pub sacked_out: u32,
    /// Outstanding packets marked lost and not SACKed.
    pub lost_out: u32,
    /// Outstanding retransmissions (not yet SACKed or acked).
    pub retrans_out: u32,
    /// Packets marked lost over the connection's life, a lost
    /// retransmission counting again (Linux `tp->lost`, `tcp_sum_lost`).
    pub lost_total: u64,
    dupthresh: usize,
    marking: LossMarking,
    /// The `dupthresh` highest SACKed sequence numbers, highest first.
    top: Vec<u64>,
    /// Packets below this were considered by SACK-based loss marking.
    marked_to: u64,
    /// No lost, not-retransmitted packet lies below this hint.
    retx_hint: u64,
    /// No lost packet lies at or above this bound.
    lost_hi: u64,
    /// Highest sequence number SACKed so far (+1), 0 if none.
    highest_sacked: u64,
    /// Outstanding retransmissions in send order: (seq, nxt when retransmitted).
    retx_order: VecDeque<(u64, u64)>,
}

impl Scoreboard {
    /// An empty scoreboard with the given loss threshold (packets) and
    /// SACK loss-marking rule.
    pub fn new(dupthresh: u32, marking: LossMarking) -> Self {
        Scoreboard {
            segs: VecDeque::new(),
            tx: None,
            una: 0,
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
            lost_total: 0,
            dupthresh: dupthresh.max(1) as usize,
            marking,
            top: Vec::with_capacity(dupthresh.max(1) as usize + 1),
            marked_to: 0,
            retx_hint: 0,
            lost_hi: 0,
            highest_sacked: 0,
            retx_order: VecDeque::new(),
        }
    }

    /// The same scoreboard keeping a rate snapshot per packet, so that
    /// [`Delivered::sampled`] is filled.
    pub fn with_rate_samples(mut self) -> Self {
        self.tx = Some(VecDeque::new());
        self
    }

    /// The rate snapshot of outstanding packet `seq`, if kept.
    fn tx_of(&self, seq: u64) -> Option<TxSnapshot> {
        let tx = self.tx.as_ref()?;
        tx.get((seq - self.una) as usize).copied()
    }

    /// Oldest unacknowledged sequence number.
    pub fn una(&self) -> u64 {
        self.una
    }

    /// Next new sequence number.
    pub fn nxt(&self) -> u64 {
        self.una + self.segs.len() as u64
    }

    /// Packets between `una` and `nxt`.
    pub fn packets_out(&self) -> u32 {
        self.segs.len() as u32
    }

    /// Packets believed in the network (RFC 6675 pipe, Linux `in_flight`).
    pub fn in_flight(&self) -> u32 {
        self.packets_out() - self.sacked_out - self.lost_out + self.retrans_out
    }

    fn seg_mut(&mut self, seq: u64) -> Option<&mut Seg> {
        if seq < self.una {
            return None;
        }
        self.segs.get_mut((seq - self.una) as usize)
    }

    /// True if `seq` is outstanding with any of `flags` set.
    fn has_flag(&self, seq: u64, flags: u8) -> bool {
        seq >= self.una
            && self
                .segs
                .get((seq - self.una) as usize)
                .is_some_and(|s| s.flags & flags != 0)
    }

    /// True if `seq` is outstanding and SACKed.
    pub fn is_sacked(&self, seq: u64) -> bool {
        self.has_flag(seq, SACKED)
    }

    /// True if `seq` is outstanding and was ever retransmitted.
    pub fn ever_retransmitted(&self, seq: u64) -> bool {
        self.has_flag(seq, EVER_RETRANS)
    }

    /// Records a new packet sent at `now` with its rate snapshot `tx`
    /// (dropped unless rate samples are kept); returns its sequence number.
    pub fn push_new(&mut self, now: Time, tx: TxSnapshot) -> u64 {
        self.segs.push_back(Seg {
            sent_at: now,
            flags: 0,
        });
        if let Some(d) = &mut self.tx {
            d.push_back(tx);
        }
        self.nxt() - 1
    }

    /// Records the retransmission of `seq` at `now` with its rate snapshot `tx`.
    pub fn mark_retransmitted(&mut self, seq: u64, now: Time, tx: TxSnapshot) {
        let una = self.una;
        let Some(s) = self.seg_mut(seq) else { return };
        let was = s.flags & RETRANS != 0;
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent_at = now;
        if let Some(d) = &mut self.tx {
            d[(seq - una) as usize] = tx;
        }
        if !was {
            self.retrans_out += 1;
        }
        let nxt = self.nxt();
        self.retx_order.push_back((seq, nxt));
    }

    /// Marks for another retransmission every outstanding retransmission
    /// overtaken by a SACKed packet sent after it (see the module docs).
    pub fn mark_lost_retransmits(&mut self) {
        while let Some(&(seq, nxt_then)) = self.retx_order.front() {
            if self.highest_sacked <= nxt_then + self.dupthresh as u64 {
                break;
            }
            self.retx_order.pop_front();
            let una = self.una;
            if seq < una {
                continue;
            }
            let s = &mut self.segs[(seq - una) as usize];
            if s.flags & RETRANS != 0 && s.flags & SACKED == 0 {
                s.flags &= !RETRANS;
                self.retrans_out -= 1;
                self.lost_total += 1;
                self.retx_hint = self.retx_hint.min(seq);
            }
        }
    }

    /// Removes `seg`'s contribution to the counters (it was acked or SACKed).
    fn clear_counters(&mut self, flags: u8) {
        if flags & LOST != 0 {
            self.lost_out -= 1;
        }
        if flags & RETRANS != 0 {
            self.retrans_out -= 1;
        }
    }

    /// Cumulative ACK up to `cum` (exclusive), clamped to `nxt`.
    pub fn ack_to(&mut self, cum: u64, out: &mut Delivered) {
        let cum = cum.min(self.nxt());
        // Two copies of the loop: a flow without rate samples (every
        // algorithm but those with `cong_control`) pays nothing for the
        // snapshot queue.
        if self.tx.is_some() {
            self.ack_range::<true>(cum, out);
        } else {
            self.ack_range::<false>(cum, out);
        }
    }

    /// [`Scoreboard::ack_to`]'s work, `cum <= nxt`; `SAMPLED`: rate
    /// snapshots are kept (`self.tx` is `Some`) and handed to `out`.
    #[inline(always)]
    fn ack_range<const SAMPLED: bool>(&mut self, cum: u64, out: &mut Delivered) {
        while self.una < cum {
            let seg = self.segs.pop_front().expect("outstanding segment");
            let tx = if SAMPLED {
                self.tx.as_mut().and_then(VecDeque::pop_front)
            } else {
                None
            };
            self.una += 1;
            out.cum_retransmitted |= seg.flags & EVER_RETRANS != 0;
            if seg.flags & SACKED != 0 {
                self.sacked_out -= 1;
            } else {
                out.add(self.una - 1, &seg, tx, true);
                self.clear_counters(seg.flags);
            }
        }
        self.retx_hint = self.retx_hint.max(self.una);
        self.marked_to = self.marked_to.max(self.una);
    }

    /// SACKs one packet; returns false if it was not outstanding or already SACKed.
    pub fn sack_one(&mut self, seq: u64, out: &mut Delivered) -> bool {
        let Some(s) = self.seg_mut(seq) else {
            return false;
        };
        if s.flags & SACKED != 0 {
            return false;
        }
        let seg = *s;
        s.flags = (s.flags | SACKED) & !(LOST | RETRANS);
        let tx = self.tx_of(seq);
        self.sacked_out += 1;
        out.add(seq, &seg, tx, false);
        self.clear_counters(seg.flags);
        self.note_top(seq);
        self.highest_sacked = self.highest_sacked.max(seq + 1);
        true
    }

    /// SACKs the block `[start, end)`. Blocks grow at their edges between
    /// ACKs, so this walks inwards from both ends and stops at the first
    /// packet already SACKed: O(newly SACKed) per block. The sender hands
    /// an ACK's blocks over before its trigger, so a block grown by several
    /// packets (an earlier ACK was lost) is walked in full. (A packet inside
    /// a block, never reported at an edge, stays un-SACKed until the
    /// cumulative ACK covers it.)
    pub fn sack_block(&mut self, start: u64, end: u64, out: &mut Delivered) {
        let start = start.max(self.una);
        let end = end.min(self.nxt());
        let mut hi = end;
        while hi > start && self.sack_one(hi - 1, out) {
            hi -= 1;
        }
        let mut lo = start;
        while lo < hi && self.sack_one(lo, out) {
            lo += 1;
        }
    }

    /// The loss threshold, packets.
    pub fn dupthresh(&self) -> u32 {
        self.dupthresh as u32
    }

    /// Changes the loss threshold (ns-2 Sack1's window-scaled threshold,
    /// `TcpAgent::numdupacks`). The highest-SACKed list is cut to the new
    /// size, or rebuilt from the outstanding SACKed packets when it grows
    /// (O(packets out), only when the threshold changes).
    pub fn set_dupthresh(&mut self, dupthresh: u32) {
        let k = dupthresh.max(1) as usize;
        if k == self.dupthresh {
            return;
        }
        self.dupthresh = k;
        if k < self.top.len() {
            self.top.truncate(k);
            return;
        }
        self.top.clear();
        for (i, seg) in self.segs.iter().enumerate().rev() {
            if self.top.len() == k {
                break;
            }
            if seg.flags & SACKED != 0 {
                self.top.push(self.una + i as u64);
            }
        }
    }

    fn note_top(&mut self, seq: u64) {
        if self.top.len() == self.dupthresh && seq <= *self.top.last().expect("non-empty") {
            return;
        }
        let pos = self
            .top
            .iter()
            .position(|&x| x < seq)
            .unwrap_or(self.top.len());
        self.top.insert(pos, seq);
        self.top.truncate(self.dupthresh);
    }

    fn mark_lost_flag(&mut self, seq: u64) {
        let Some(s) = self.seg_mut(seq) else { return };
        if s.flags & (SACKED | LOST) == 0 {
            s.flags |= LOST;
            self.lost_out += 1;
            self.lost_total += 1;
            self.retx_hint = self.retx_hint.min(seq);
            self.lost_hi = self.lost_hi.max(seq + 1);
        }
    }

    /// SACK loss marking (see the module doc): RFC 6675, every un-SACKed
    /// packet with at least `dupthresh` SACKed packets above it is marked
    /// lost; FACK, every un-SACKed packet more than `dupthresh` packets
    /// below the highest SACKed one (counting it).
    pub fn mark_lost_by_sack(&mut self) {
        let h = match self.marking {
            LossMarking::Rfc6675 if self.top.len() < self.dupthresh => return,
            LossMarking::Rfc6675 => self.top[self.dupthresh - 1],
            // highest_sacked is one past the highest SACKed packet.
            LossMarking::Fack => self.highest_sacked.saturating_sub(self.dupthresh as u64),
        };
        let h = h.min(self.nxt());
        let mut seq = self.marked_to.max(self.una);
        while seq < h {
            self.mark_lost_flag(seq);
            seq += 1;
        }
        self.marked_to = self.marked_to.max(h);
    }

    /// Marks one packet lost (NewReno fast retransmit and partial ACKs).
    pub fn mark_lost(&mut self, seq: u64) {
        self.mark_lost_flag(seq);
    }

    /// After an RTO: every outstanding un-SACKed packet is lost and no
    /// retransmission is considered outstanding any more.
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            if s.flags & RETRANS != 0 {
                // A lost retransmission counts again (tcp_sum_lost).
                self.lost_total += 1;
            }
            s.flags &= !RETRANS;
        }
        self.retrans_out = 0;
        self.retx_order.clear();
        let (una, nxt) = (self.una, self.nxt());
        for seq in una..nxt {
            self.mark_lost_flag(seq);
        }
        self.retx_hint = una;
        self.marked_to = self.marked_to.max(nxt);
    }

    /// Undo of a spurious reduction: no packet is lost after all
    /// (`lost_out` = 0, as Linux's `tcp_undo_cwnd_reduction`). A packet
    /// already retransmitted counts once in flight, as its original; Linux
    /// counts its retransmission too, a difference of the few packets
    /// retransmitted before the undo. SACK marking starts over.
    pub fn unmark_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.flags &= !(LOST | RETRANS);
        }
        self.lost_out = 0;
        self.retrans_out = 0;
        self.retx_order.clear();
        self.marked_to = self.una;
        self.retx_hint = self.una;
    }

    /// The lowest packet marked lost and not yet retransmitted (RFC 6675
    /// NextSeg rule 1).
    pub fn next_retransmit(&mut self) -> Option<u64> {
        // Only lost packets are retransmitted (RETRANS implies LOST), so
        // lost_out - retrans_out packets await a retransmission.
        if self.lost_out == self.retrans_out {
            return None;
        }
        let mut seq = self.retx_hint.max(self.una);
        while seq < self.lost_hi.min(self.nxt()) {
            let f = self.segs[(seq - self.una) as usize].flags;
            if f & LOST != 0 && f & RETRANS == 0 {
                self.retx_hint = seq;
                return Some(seq);
            }
            seq += 1;
        }
        self.retx_hint = seq;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        board_with(n, LossMarking::Rfc6675)
    }

    fn board_with(n: u64, marking: LossMarking) -> Scoreboard {
        let mut sb = Scoreboard::new(3, marking);
        for i in 0..n {
            sb.push_new(Time::from_ms(i), TxSnapshot::default());
        }
        sb
    }

    #[test]
    fn without_rate_samples_nothing_is_sampled() {
        let mut sb = board(10);
        let mut d = Delivered::default();
        sb.ack_to(5, &mut d);
        assert_eq!((d.packets, d.sampled), (5, None));
    }

    #[test]
    fn the_rate_sample_comes_from_the_latest_sent_packet_delivered() {
        // Packets 0..10 sent at i ms, 2 retransmitted at 50 ms with its own
        // snapshot. A SACK of 3..=5 samples 5 (sent at 5 ms); the cumulative
        // ACK to 6 then delivers 0, 1 and the retransmitted 2, which is the
        // latest sent (Linux tcp_rate_skb_delivered keeps the packet with
        // the latest send time), not 5 again: SACKed packets are skipped.
        let mut sb = Scoreboard::new(3, LossMarking::Rfc6675).with_rate_samples();
        for i in 0..10 {
            let tx = TxSnapshot {
                delivered: 100 + i,
                ..TxSnapshot::default()
            };
            sb.push_new(Time::from_ms(i), tx);
        }
        let mut d = Delivered::default();
        sb.sack_block(3, 6, &mut d);
        let p = d.sampled.unwrap();
        assert_eq!(
            (p.seq, p.sent_at, p.retransmitted),
            (5, Time::from_ms(5), false)
        );
        assert_eq!(p.tx.delivered, 105);
        let tx = TxSnapshot {
            delivered: 3,
            ..TxSnapshot::default()
        };
        sb.mark_lost(2);
        sb.mark_retransmitted(2, Time::from_ms(50), tx);
        let mut d = Delivered::default();
        sb.ack_to(6, &mut d);
        assert_eq!(d.packets, 3);
        let p = d.sampled.unwrap();
        assert_eq!(
            (p.seq, p.sent_at, p.retransmitted),
            (2, Time::from_ms(50), true)
        );
        assert_eq!(p.tx, tx);
    }

    #[test]
    fn lost_total_counts_every_loss_mark_and_lost_retransmissions_again() {
        // Linux tp->lost (tcp_sum_lost): 0..=2 lost by SACKs of 3..=5; 0
        // retransmitted, then an RTO marks everything outstanding lost: 6..10
        // are new marks (4), and 0's lost retransmission counts again.
        let mut sb = board(10);
        sb.sack_block(3, 6, &mut Delivered::default());
        sb.mark_lost_by_sack();
        assert_eq!(sb.lost_total, 3);
        sb.mark_retransmitted(0, Time::from_ms(20), TxSnapshot::default());
        sb.mark_all_lost();
        assert_eq!(sb.lost_total, 3 + 4 + 1);
    }

    #[test]
    fn sack_marks_and_is_lost_rule() {
        // Packets 0..10 sent; 2 lost; 3,4,5 SACKed -> 2 (and 0,1) have 3 SACKed above.
        let mut sb = board(10);
        let mut d = Delivered::default();
        sb.sack_block(3, 6, &mut d);
        assert_eq!(d.packets, 3);
        assert_eq!(sb.sacked_out, 3);
        sb.mark_lost_by_sack();
        assert_eq!(sb.lost_out, 3); // 0, 1, 2 are below the 3rd highest SACK (3)
        assert_eq!(sb.in_flight(), 10 - 3 - 3);
        // Cumulative ACK of 0 and 1 arrives: they were delivered after all.
        let mut d = Delivered::default();
        sb.ack_to(2, &mut d);
        assert_eq!(d.packets, 2);
        assert_eq!(sb.lost_out, 1);
        assert_eq!(sb.next_retransmit(), Some(2));
        sb.mark_retransmitted(2, Time::from_ms(50), TxSnapshot::default());
        assert_eq!(sb.retrans_out, 1);
        assert_eq!(sb.in_flight(), 8 - 3 - 1 + 1);
        assert_eq!(sb.next_retransmit(), None);
        // The retransmission fills the hole: cumulative ACK to 6.
        let mut d = Delivered::default();
        sb.ack_to(6, &mut d);
        assert_eq!(d.packets, 1); // only packet 2 is new; 3..6 were SACKed
        assert_eq!(d.cc_sample_sent(), None); // packet 2 was retransmitted: Karn
        assert_eq!((sb.sacked_out, sb.lost_out, sb.retrans_out), (0, 0, 0));
        assert_eq!(sb.in_flight(), 4);
    }

    #[test]
    fn a_raised_threshold_needs_that_many_sacks_above_a_hole() {
        // ns-2 numdupacks(cwnd) = max(3, cwnd / 100): at cwnd 800 the
        // threshold is 8. Holes at 0; packets 1..=5 SACKed: 5 < 8, nothing
        // is lost; three more SACKs make 8 and mark packet 0.
        let mut sb = board(20);
        let mut d = Delivered::default();
        sb.sack_block(1, 6, &mut d);
        sb.set_dupthresh(8);
        assert_eq!(sb.dupthresh(), 8);
        sb.mark_lost_by_sack();
        assert_eq!(sb.lost_out, 0);
        sb.sack_block(6, 9, &mut d);
        sb.mark_lost_by_sack();
        assert_eq!(sb.lost_out, 1);
        // Lowered again, the list is cut, not rebuilt: 3 SACKs above 9 mark 9.
        sb.set_dupthresh(3);
        sb.sack_block(10, 13, &mut d);
        sb.mark_lost_by_sack();
        assert_eq!(sb.lost_out, 2);
    }

    #[test]
    fn fewer_than_dupthresh_sacks_mark_nothing() {
        let mut sb = board(10);
        let mut d = Delivered::default();
        sb.sack_block(5, 7, &mut d);
        sb.mark_lost_by_sack();
        assert_eq!(sb.lost_out, 0);
        sb.sack_block(5, 8, &mut d); // the block grew by one at its right edge
        assert_eq!(d.packets, 3);
        sb.mark_lost_by_sack();
        assert_eq!(sb.lost_out, 5); // 0..5
    }

    #[test]
    fn fack_counts_every_packet_up_to_the_highest_sack() {
        // Packets 0..10, dupthresh 3; lost after SACKs of the given packets.
        let lost = |marking, sacked: &[u64]| {
            let mut sb = board_with(10, marking);
            for &q in sacked {
                sb.sack_one(q, &mut Delivered::default());
            }
            sb.mark_lost_by_sack();
            sb.lost_out
        };
        // Only 5 SACKed. RFC 6675: one SACK above any hole, nothing lost.
        // FACK: fackets_out = 6 > 3, so the 6 - 3 = 3 packets from the head
        // (0, 1, 2) are lost; 3 and 4 are within dupthresh.
        assert_eq!(lost(LossMarking::Rfc6675, &[5]), 0);
        assert_eq!(lost(LossMarking::Fack, &[5]), 3);
        // 8 SACKed too: 0..=5 but the SACKed 5, so 3 and 4 as well.
        assert_eq!(lost(LossMarking::Fack, &[5, 8]), 5);
        // A SACK at or below dupthresh from the head marks nothing.
        assert_eq!(lost(LossMarking::Fack, &[2]), 0);
    }

    #[test]
    fn an_undo_leaves_nothing_lost_and_each_packet_in_flight_once() {
        // After an RTO (all 10 lost) and the retransmission of 0 and 1, an
        // undo: lost_out = retrans_out = 0, in flight 10 - 2 SACKed = 8,
        // nothing to retransmit; 0 and 1 still give no RTT sample (Karn).
        let mut b = board(10);
        let mut d = Delivered::default();
        b.sack_one(5, &mut d);
        b.sack_one(6, &mut d);
        b.mark_all_lost();
        b.mark_retransmitted(0, Time::from_ms(5), TxSnapshot::default());
        b.mark_retransmitted(1, Time::from_ms(5), TxSnapshot::default());
        assert_eq!((b.lost_out, b.retrans_out, b.in_flight()), (8, 2, 2));
        b.unmark_lost();
        assert_eq!((b.lost_out, b.retrans_out, b.in_flight()), (0, 0, 8));
        assert_eq!(b.next_retransmit(), None);
        assert!(b.ever_retransmitted(1) && !b.ever_retransmitted(2));
    }

    #[test]
    fn rto_marks_everything_unsacked_lost() {
        let mut sb = board(6);
        let mut d = Delivered::default();
        sb.sack_one(4, &mut d);
        sb.mark_retransmitted(0, Time::from_ms(9), TxSnapshot::default());
        sb.mark_all_lost();
        assert_eq!(sb.lost_out, 5);
        assert_eq!(sb.retrans_out, 0);
        assert_eq!(sb.in_flight(), 0);
        let order: Vec<u64> = std::iter::from_fn(|| {
            let s = sb.next_retransmit()?;
            sb.mark_retransmitted(s, Time::from_ms(10), TxSnapshot::default());
            Some(s)
        })
        .collect();
        assert_eq!(order, vec![0, 1, 2, 3, 5]);
    }

    #[test]
    fn a_retransmission_overtaken_by_later_sacks_is_lost_again() {
        let mut sb = board(10);
        let mut d = Delivered::default();
        sb.sack_block(1, 4, &mut d);
        sb.mark_lost_by_sack();
        assert_eq!(sb.next_retransmit(), Some(0));
        sb.mark_retransmitted(0, Time::from_ms(20), TxSnapshot::default()); // sent when nxt = 10
        for _ in 10..15 {
            sb.push_new(Time::from_ms(21), TxSnapshot::default());
        }
        // Packets up to 12 SACKed: not yet conclusive.
        sb.sack_block(4, 13, &mut d);
        sb.mark_lost_retransmits();
        assert_eq!(sb.next_retransmit(), None);
        // Packet 13 (= 10 + dupthresh), sent after the retransmission, is SACKed: 0 was lost again.
        sb.sack_block(4, 14, &mut d);
        sb.mark_lost_retransmits();
        assert_eq!(sb.retrans_out, 0);
        assert_eq!(sb.next_retransmit(), Some(0));
    }

    #[test]
    fn rtt_sample_sources() {
        let mut sb = board(4); // sent at 0, 1, 2, 3 ms
        let mut d = Delivered::default();
        sb.ack_to(3, &mut d);
        assert_eq!(d.rto_sample_sent(), Some(Time::from_ms(0)));
        assert_eq!(d.cc_sample_sent(), Some(Time::from_ms(2)));
        // SACKs of 4 (sent at 4 ms) and 5 (5 ms) with the cumulative ACK
        // of 3: the algorithm's sample is the newest SACKed packet's, the
        // estimator's still the first cumulatively acked one's.
        let mut sb = board(6);
        let mut d = Delivered::default();
        sb.ack_to(3, &mut d);
        sb.sack_block(4, 6, &mut d);
        assert_eq!(d.rto_sample_sent(), Some(Time::from_ms(0)));
        assert_eq!(d.cc_sample_sent(), Some(Time::from_ms(5)));
    }

    #[test]
    fn a_cumulative_ack_over_a_retransmission_gives_no_sample() {
        // Packet 1 retransmitted at 50 ms; the ACK of 0..4 covers it: no
        // sample from 0, 2 or 3 either (Karn, Linux FLAG_RETRANS_DATA_ACKED);
        // a packet newly SACKed by the same ACK (5, sent at 5 ms) gives one.
        let mut sb = board(8);
        sb.mark_retransmitted(1, Time::from_ms(50), TxSnapshot::default());
        let mut d = Delivered::default();
        sb.ack_to(4, &mut d);
        assert_eq!(d.packets, 4);
        assert!(d.cum_retransmitted);
        assert_eq!((d.rto_sample_sent(), d.cc_sample_sent()), (None, None));
        sb.sack_one(5, &mut d);
        assert_eq!(d.rto_sample_sent(), Some(Time::from_ms(5)));
        assert_eq!(d.cc_sample_sent(), Some(Time::from_ms(5)));
        // A retransmission SACKed earlier still taints the cumulative ACK.
        let mut sb = board(8);
        sb.mark_retransmitted(1, Time::from_ms(50), TxSnapshot::default());
        sb.sack_one(1, &mut Delivered::default());
        let mut d = Delivered::default();
        sb.ack_to(3, &mut d);
        assert!(d.cum_retransmitted);
        assert_eq!(d.rto_sample_sent(), None);
    }
}
