//! Packets: small `Copy` values that move through link FIFOs.

use crate::event::FlowId;

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
    },
    /// An acknowledgement.
    Ack {
        /// Cumulative ACK: every sequence number below it was received.
        cum: u64,
        /// The data segment whose arrival triggered this ACK.
        trigger: u64,
        /// Number of valid entries in `sack`.
        n_sack: u8,
        /// SACK blocks: first the one holding `trigger`, then recent others.
        sack: [SackBlock; MAX_SACK_BLOCKS],
    },
}

/// A packet on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The flow the packet belongs to.
    pub flow: FlowId,
    /// Size on the wire, bytes.
    pub size: u32,
    /// Index of the link the packet is on within its route.
    pub hop: u16,
    /// Data (forward route) or ACK (reverse route).
    pub payload: Payload,
}

impl Packet {
    /// True for a data segment.
    pub fn is_data(&self) -> bool {
        matches!(self.payload, Payload::Data { .. })
    }
}
