//! A flow as the world holds it in its slot table: its endpoints (a TCP
//! connection or a UDP source's sequence counter), its routes, its ACK delay
//! line and its counters; and the `flows` table's description of a flow.

use crate::packet::Packet;
use crate::tcp::{Connection, Receiver, Sender};
use crate::time::Time;
use std::collections::VecDeque;

/// A route: the position of its first hop in the world's hop table.
pub(crate) type RouteId = u32;

/// A flow's endpoints. UDP flows are few (one per source), so the TCP
/// variant stays inline rather than boxed: no indirection per packet.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Ends {
    /// A TCP connection.
    Tcp(Connection),
    /// A UDP source and its sink; `next_seq` numbers the packets.
    Udp { next_seq: u64 },
}

/// One flow: its endpoints, routes and counters.
#[derive(Debug)]
pub(crate) struct Flow {
    pub(crate) ends: Ends,
    pub(crate) fwd: RouteId,
    pub(crate) rev: RouteId,
    pub(crate) class: u32,
    /// Extra round-trip delay applied to ACKs before they reach the sender.
    pub(crate) ack_delay: Time,
    /// ACKs in the delay line with the time each reaches the sender.
    pub(crate) delay_line: VecDeque<(Time, Packet)>,
    /// Packets injected and not yet delivered or dropped.
    pub(crate) in_network: u32,
    /// Row in the transfers table, for a finite transfer.
    pub(crate) transfer: Option<u32>,
    /// A finite transfer was fully acknowledged.
    pub(crate) done: bool,
    pub(crate) delivered_pkts: u64,
    pub(crate) data_received: u64,
    pub(crate) data_dropped: u64,
    pub(crate) acks_dropped: u64,
    pub(crate) first_loss: Option<Time>,
}

impl Flow {
    pub(crate) fn new(ends: Ends, fwd: RouteId, rev: RouteId, class: u32, ack_delay: Time) -> Flow {
        Flow {
            ends,
            fwd,
            rev,
            class,
            ack_delay,
            delay_line: VecDeque::new(),
            in_network: 0,
            transfer: None,
            done: false,
            delivered_pkts: 0,
            data_received: 0,
            data_dropped: 0,
            acks_dropped: 0,
            first_loss: None,
        }
    }

    pub(crate) fn sender(&self) -> &Sender {
        match &self.ends {
            Ends::Tcp(c) => &c.sender,
            Ends::Udp { .. } => unreachable!("a UDP flow has no TCP sender"),
        }
    }

    pub(crate) fn receiver(&self) -> &Receiver {
        match &self.ends {
            Ends::Tcp(c) => &c.receiver,
            Ends::Udp { .. } => unreachable!("a UDP flow has no TCP receiver"),
        }
    }
}

/// What the `flows` table says about a flow besides its counters.
#[derive(Debug)]
pub(crate) struct FlowMeta {
    pub(crate) name: String,
    pub(crate) spec: usize,
    pub(crate) start: Time,
    pub(crate) stop: Option<Time>,
    pub(crate) size: Option<u64>,
    pub(crate) trace: bool,
    pub(crate) base_rtt: Time,
}
