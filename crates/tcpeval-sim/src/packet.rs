//! Packets: small `Copy` values that move through link FIFOs.
//!
//! A packet is copied at every link it crosses, so it is kept to 48 bytes:
//! an ACK's SACK blocks (48 bytes of their own, and present only while the
//! receiver holds out-of-order data) stay in the receiver's [`SackStore`]
//! and the ACK carries a [`SackRef`] to them. ECN (RFC 3168) costs one
//! byte that fits in the padding: the IP header's ECN field and the TCP
//! header's ECE and CWR flags, in [`Ecn`].

use crate::event::FlowId;
use crate::time::Time;

/// At most this many SACK blocks ride on an ACK (RFC 2018 with timestamps: 3).
pub const MAX_SACK_BLOCKS: usize = 3;

/// A contiguous range `[start, end)` of received sequence numbers (packets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    /// First sequence number in the block.
    pub start: u64,
    /// One past the last sequence number in the block.
    pub end: u64,
}

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// A data segment with sequence number `seq` (in packets).
    Data {
        /// Sequence number of the segment.
        seq: u64,
        /// TCP timestamp (RFC 7323 TSval): the sender's clock in ms
        /// ([`ts_ticks`]) when the segment left.
        tsval: u32,
    },
    /// An acknowledgement.
    Ack {
        /// Cumulative ACK: every sequence number below it was received.
        cum: u64,
        /// The data segment whose arrival triggered this ACK.
        trigger: u64,
        /// SACK blocks, in the sending receiver's store: first the one
        /// holding `trigger`, then recent others.
        sack: SackRef,
        /// D-SACK (RFC 2883): `trigger` was a duplicate, received before.
        dsack: bool,
        /// Echoed timestamp (RFC 7323 TSecr): the receiver's `TS.Recent`.
        tsecr: u32,
    },
}

/// The TCP timestamp clock: whole milliseconds of simulated time (Linux
/// `tcp_time_stamp` at HZ = 1000), wrapping at 2^32 ms (49.7 days).
pub fn ts_ticks(t: Time) -> u32 {
    (t.ps() / 1_000_000_000) as u32
}

/// An ACK's SACK blocks in its receiver's [`SackStore`]: `n` blocks in slot
/// `slot` (no slot when `n` is 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackRef {
    slot: u32,
    n: u8,
}

impl SackRef {
    /// Number of SACK blocks.
    pub fn len(&self) -> usize {
        usize::from(self.n)
    }

    /// True when the ACK carries no SACK block.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }
}

/// The SACK blocks of the ACKs a receiver sent that have neither reached
/// the sender nor been dropped. Each set is written once ([`SackStore::put`])
/// and read once by whoever ends the ACK's life ([`SackStore::take`] on
/// arrival, [`SackStore::release`] on a drop); slots are reused, so the store
/// holds no more sets than ACKs with blocks are in flight at once.
#[derive(Debug, Default)]
pub struct SackStore {
    sets: Vec<[SackBlock; MAX_SACK_BLOCKS]>,
    free: Vec<u32>,
}

impl SackStore {
    /// Stores `blocks` (at most [`MAX_SACK_BLOCKS`]) for an ACK being sent.
    pub fn put(&mut self, blocks: &[SackBlock]) -> SackRef {
        if blocks.is_empty() {
            return SackRef::default();
        }
        let mut set = [SackBlock::default(); MAX_SACK_BLOCKS];
        set[..blocks.len()].copy_from_slice(blocks);
        let slot = match self.free.pop() {
            Some(slot) => {
                self.sets[slot as usize] = set;
                slot
            }
            None => {
                self.sets.push(set);
                (self.sets.len() - 1) as u32
            }
        };
        SackRef {
            slot,
            n: blocks.len() as u8,
        }
    }

    /// The blocks of an arriving ACK; frees their slot.
    pub fn take(&mut self, r: SackRef) -> ([SackBlock; MAX_SACK_BLOCKS], usize) {
        if r.is_empty() {
            return ([SackBlock::default(); MAX_SACK_BLOCKS], 0);
        }
        self.free.push(r.slot);
        (self.sets[r.slot as usize], r.len())
    }

    /// Frees the blocks of a dropped ACK.
    pub fn release(&mut self, r: SackRef) {
        if !r.is_empty() {
            self.free.push(r.slot);
        }
    }

    /// Sets held (ACKs with blocks in flight).
    pub fn held(&self) -> usize {
        self.sets.len() - self.free.len()
    }
}

/// The IP header's ECN field (RFC 3168 section 5): whether the sender's
/// transport is ECN-capable, and whether a router marked congestion. ECT(1)
/// is not used (RFC 3168 senders send ECT(0)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Codepoint {
    /// Not-ECT (00): the transport is not ECN-capable; a marking queue drops it.
    #[default]
    NotEct,
    /// ECT(0) (10): ECN-capable transport.
    Ect0,
    /// CE (11): Congestion Experienced, set by a queue on an ECT packet.
    Ce,
}

/// A packet's ECN bits: the IP codepoint and the TCP flags ECE (on ACKs,
/// RFC 3168 section 6.1.3) and CWR (on data, section 6.1.2), packed in one
/// byte. All zero (`Ecn::default()`) when ECN is off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ecn(u8);

impl Ecn {
    const CODEPOINT: u8 = 0b0011;
    const ECE: u8 = 0b0100;
    const CWR: u8 = 0b1000;

    /// The IP ECN field.
    pub fn codepoint(self) -> Codepoint {
        match self.0 & Self::CODEPOINT {
            0 => Codepoint::NotEct,
            1 => Codepoint::Ect0,
            _ => Codepoint::Ce,
        }
    }

    /// These bits with the IP ECN field set to `c`.
    pub fn with_codepoint(self, c: Codepoint) -> Self {
        Ecn((self.0 & !Self::CODEPOINT) | c as u8)
    }

    /// ECN-capable transport: ECT(0) or CE.
    pub fn is_ect(self) -> bool {
        self.codepoint() != Codepoint::NotEct
    }

    /// Congestion Experienced.
    pub fn is_ce(self) -> bool {
        self.codepoint() == Codepoint::Ce
    }

    /// The TCP ECN-Echo flag (set on ACKs).
    pub fn ece(self) -> bool {
        self.0 & Self::ECE != 0
    }

    /// These bits with ECE set to `on`.
    pub fn with_ece(self, on: bool) -> Self {
        Ecn(if on {
            self.0 | Self::ECE
        } else {
            self.0 & !Self::ECE
        })
    }

    /// The TCP Congestion Window Reduced flag (set on data).
    pub fn cwr(self) -> bool {
        self.0 & Self::CWR != 0
    }

    /// These bits with CWR set to `on`.
    pub fn with_cwr(self, on: bool) -> Self {
        Ecn(if on {
            self.0 | Self::CWR
        } else {
            self.0 & !Self::CWR
        })
    }
}

/// A packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The flow the packet belongs to.
    pub flow: FlowId,
    /// Size on the wire, bytes.
    pub size: u32,
    /// Position of the link the packet is on in the world's hop table (the
    /// world sets it when the packet enters the network; endpoints leave 0).
    pub hop: u32,
    /// ECN bits (all clear when the flow does not use ECN).
    pub ecn: Ecn,
    /// Data (forward route) or ACK (reverse route).
    pub payload: Payload,
}

impl Packet {
    /// True for a data segment.
    pub fn is_data(&self) -> bool {
        matches!(self.payload, Payload::Data { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_48_bytes() {
        assert_eq!(std::mem::size_of::<Packet>(), 48);
    }

    #[test]
    fn ecn_bits_are_independent() {
        let e = Ecn::default();
        assert_eq!(e.codepoint(), Codepoint::NotEct);
        assert!(!e.is_ect() && !e.ece() && !e.cwr());
        let e = e.with_codepoint(Codepoint::Ect0).with_cwr(true);
        assert!(e.is_ect() && !e.is_ce() && e.cwr() && !e.ece());
        let e = e
            .with_codepoint(Codepoint::Ce)
            .with_ece(true)
            .with_cwr(false);
        assert!(e.is_ect() && e.is_ce() && e.ece() && !e.cwr());
        assert_eq!(
            e.with_codepoint(Codepoint::NotEct).codepoint(),
            Codepoint::NotEct
        );
        assert!(e.with_codepoint(Codepoint::NotEct).ece());
    }

    #[test]
    fn sack_sets_round_trip_and_slots_are_reused() {
        let mut st = SackStore::default();
        let b = |s, e| SackBlock { start: s, end: e };
        assert!(st.put(&[]).is_empty());
        let r1 = st.put(&[b(5, 6), b(2, 4)]);
        let r2 = st.put(&[b(9, 12)]);
        assert_eq!(st.held(), 2);
        let (set, n) = st.take(r1);
        assert_eq!(&set[..n], &[b(5, 6), b(2, 4)]);
        st.release(r2);
        assert_eq!(st.held(), 0);
        // Freed slots serve the next ACKs: the store does not grow.
        let r3 = st.put(&[b(1, 2), b(3, 4), b(5, 6)]);
        let r4 = st.put(&[b(7, 8)]);
        assert_eq!(st.sets.len(), 2);
        assert_eq!(st.take(r4).0[0], b(7, 8));
        let (set, n) = st.take(r3);
        assert_eq!(&set[..n], &[b(1, 2), b(3, 4), b(5, 6)]);
    }
}
