//! The event queue: a binary heap keyed by (time, insertion sequence), so
//! events at the same time run in the order they were scheduled and a run is
//! deterministic. Events are small `Copy` values naming what to do by typed
//! ids; the heap holds pending link deliveries and timers, never packets.

use crate::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Index of a link in the network.
pub type LinkId = u32;
/// Index of a flow in the scenario.
pub type FlowId = u32;

/// Which of a flow's timers fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerKind {
    /// The sender's retransmission timer.
    Rto,
    /// The receiver's delayed-ACK timer.
    DelayedAck,
    /// The congestion-control algorithm's own clock (FAST).
    Cc,
}

/// Something that happens at a point in simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of a link's in-flight FIFO reaches the far end.
    LinkDelivery(LinkId),
    /// A flow timer; stale if `generation` no longer matches the flow's.
    Timer {
        flow: FlowId,
        kind: TimerKind,
        generation: u32,
    },
    /// A flow's application starts sending.
    FlowStart(FlowId),
    /// A flow's application stops offering new data.
    FlowStop(FlowId),
    /// A periodic probe (index into the world's samplers) takes a sample.
    Sample(u32),
    /// The head ACK of a flow's delay line reaches the sender.
    DelayExit(FlowId),
    /// A web source (index) starts a transfer or a session.
    WebArrival(u32),
    /// A SURGE session (index) requests its next file.
    Session(u32),
    /// A UDP source (index) sends a packet.
    Udp(u32),
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest event,
    /// and among equal times the one scheduled first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A deterministic priority queue of events.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    popped: u64,
}

impl EventQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `event` at `time`.
    pub fn push(&mut self, time: Time, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Removes and returns the earliest event (ties: first scheduled first).
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new();
        q.push(Time::from_ms(3), Event::FlowStart(3));
        q.push(Time::from_ms(1), Event::FlowStart(1));
        q.push(Time::from_ms(2), Event::FlowStart(2));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t).collect();
        assert_eq!(
            order,
            vec![Time::from_ms(1), Time::from_ms(2), Time::from_ms(3)]
        );
        assert_eq!(q.processed(), 3);
    }

    #[test]
    fn ties_resolve_in_insertion_order() {
        let mut q = EventQueue::new();
        for i in 0..100 {
            q.push(Time::from_ms(5), Event::FlowStart(i));
        }
        q.push(Time::from_ms(4), Event::FlowStop(0));
        assert_eq!(q.pop(), Some((Time::from_ms(4), Event::FlowStop(0))));
        for i in 0..100 {
            assert_eq!(q.pop(), Some((Time::from_ms(5), Event::FlowStart(i))));
        }
        assert!(q.is_empty());
    }
}
