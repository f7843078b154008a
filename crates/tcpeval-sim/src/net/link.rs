//! A unidirectional link: a serializer of fixed rate behind a DropTail
//! queue, then a propagation delay.
//!
//! The link needs no event of its own per packet. When a packet arrives at
//! time `t`, its end of serialization is `d = max(t, previous d) + size/rate`
//! and it reaches the far end at `d + delay`. Accepted packets stay in one
//! FIFO (queued, in service, or propagating) in order of `d`, and so in
//! order of arrival at the far end: the world keeps a single pending event
//! per link, for the head of this FIFO. The queue a new packet finds is the
//! set of FIFO entries whose serialization has not ended by `t`; a drop is
//! decided on arrival.
//!
//! Queue length convention (as ns-2's DropTail): the buffer limit counts the
//! packets waiting, not the one being serialized. A link with a buffer of
//! `B` packets holds at most `B` waiting plus one in service.
//!
//! Time-varying rate and delay (a [`Schedule`] each, known in advance): a
//! packet's service starts at `s = max(t, previous d)` and is serialized at
//! the rate in force at `s`, so a rate change applies exactly to the packets
//! that start service at or after it (one already in service finishes at the
//! old rate). Its propagation delay is the one in force when it departs
//! (`d`), and its arrival is `max(d + delay, previous arrival)`: when the
//! delay drops, packets that departed after the change wait behind the ones
//! still propagating, so the FIFO never reorders.

use super::schedule::Schedule;
use crate::packet::Packet;
use crate::rng::BernoulliGaps;
use crate::time::{tx_time, Time};
use std::collections::VecDeque;

/// A DropTail buffer limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferLimit {
    /// At most this many packets waiting.
    Packets(u32),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// Per-link counters, over the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Packets offered to the link.
    pub arrivals: u64,
    /// Packets dropped because the buffer was full.
    pub drops: u64,
    /// Packets dropped by the link's random-loss process.
    pub random_drops: u64,
    /// Packets whose serialization has ended.
    pub departures: u64,
    /// Bytes whose serialization has ended.
    pub bytes_departed: u64,
    /// Largest number of packets ever waiting.
    pub max_qlen: u32,
}

/// What happened to an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Queued; it reaches the far end at `arrival`. `was_empty` tells the
    /// caller to schedule the link's delivery event for it.
    Accepted { arrival: Time, was_empty: bool },
    /// Dropped by the full buffer.
    Dropped,
    /// Dropped by random loss.
    Lost,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    pkt: Packet,
    /// End of serialization.
    dep_end: Time,
    /// Arrival at the far end.
    arrive: Time,
}

/// A unidirectional link.
#[derive(Debug)]
pub struct Link {
    /// Display name (e.g. `R1->R2`).
    pub name: String,
    /// Rate, bit/s (> 0); the initial one when `rate_schedule` is set.
    pub rate_bps: f64,
    /// One-way propagation delay; the initial one when `delay_schedule` is set.
    pub delay: Time,
    /// DropTail limit.
    pub buffer: BufferLimit,
    /// Counters over the run.
    pub counters: LinkCounters,
    fifo: VecDeque<Entry>,
    /// `fifo[..served]` have finished serialization (by the last `advance`).
    served: usize,
    /// Bytes in `fifo[served..]`.
    unserved_bytes: u64,
    last_dep_end: Time,
    last_arrive: Time,
    loss: Option<BernoulliGaps>,
    /// Rate over time, bit/s (`None`: always `rate_bps`).
    rate_schedule: Option<Box<Schedule>>,
    /// Delay over time, s (`None`: always `delay`).
    delay_schedule: Option<Box<Schedule>>,
}

impl Link {
    /// A new idle link.
    pub fn new(
        name: String,
        rate_bps: f64,
        delay: Time,
        buffer: BufferLimit,
        loss: Option<BernoulliGaps>,
    ) -> Self {
        Link {
            name,
            rate_bps,
            delay,
            buffer,
            counters: LinkCounters::default(),
            fifo: VecDeque::new(),
            served: 0,
            unserved_bytes: 0,
            last_dep_end: Time::ZERO,
            last_arrive: Time::ZERO,
            loss,
            rate_schedule: None,
            delay_schedule: None,
        }
    }

    /// Sets the rate changes (`(time, bit/s)`) and delay changes (`(time, s)`).
    pub fn with_schedules(mut self, rate: Vec<(Time, f64)>, delay: Vec<(Time, f64)>) -> Self {
        if !rate.is_empty() {
            self.rate_schedule = Some(Box::new(Schedule::new(self.rate_bps, rate)));
        }
        if !delay.is_empty() {
            self.delay_schedule = Some(Box::new(Schedule::new(self.delay.secs(), delay)));
        }
        self
    }

    /// Accounts every packet whose serialization ended by `now`.
    /// `now` must never decrease between calls.
    pub fn advance(&mut self, now: Time) {
        while let Some(e) = self.fifo.get(self.served) {
            if e.dep_end > now {
                break;
            }
            self.unserved_bytes -= u64::from(e.pkt.size);
            self.counters.departures += 1;
            self.counters.bytes_departed += u64::from(e.pkt.size);
            self.served += 1;
        }
    }

    /// Packets waiting (not counting the one in service) as of the last `advance`.
    pub fn waiting(&self) -> u32 {
        ((self.fifo.len() - self.served) as u32).saturating_sub(1)
    }

    /// Bytes waiting (not counting the packet in service) as of the last `advance`.
    pub fn waiting_bytes(&self) -> u64 {
        match self.fifo.get(self.served) {
            Some(head) => self.unserved_bytes - u64::from(head.pkt.size),
            None => 0,
        }
    }

    /// Offers `pkt` to the link at time `now`.
    pub fn offer(&mut self, pkt: Packet, now: Time) -> Offer {
        self.counters.arrivals += 1;
        if let Some(loss) = self.loss.as_mut() {
            if loss.lose_next() {
                self.counters.random_drops += 1;
                return Offer::Lost;
            }
        }
        self.advance(now);
        let busy = self.fifo.len() > self.served;
        if busy {
            let full = match self.buffer {
                BufferLimit::Packets(b) => self.waiting() >= b,
                BufferLimit::Bytes(b) => self.waiting_bytes() + u64::from(pkt.size) > b,
            };
            if full {
                self.counters.drops += 1;
                return Offer::Dropped;
            }
        }
        let start = self.last_dep_end.max(now);
        let rate = match self.rate_schedule.as_mut() {
            None => self.rate_bps,
            Some(s) => s.at(start),
        };
        let dep_end = start + tx_time(pkt.size, rate);
        self.last_dep_end = dep_end;
        let arrive = match self.delay_schedule.as_mut() {
            None => dep_end + self.delay,
            Some(s) => (dep_end + Time::from_secs_f64(s.at(dep_end))).max(self.last_arrive),
        };
        self.last_arrive = arrive;
        let was_empty = self.fifo.is_empty();
        self.fifo.push_back(Entry {
            pkt,
            dep_end,
            arrive,
        });
        self.unserved_bytes += u64::from(pkt.size);
        self.counters.max_qlen = self.counters.max_qlen.max(self.waiting());
        Offer::Accepted {
            arrival: arrive,
            was_empty,
        }
    }

    /// Removes the head packet, which reaches the far end at `now`, and
    /// returns it with the far-end arrival time of the next one, if any.
    pub fn deliver_head(&mut self, now: Time) -> (Packet, Option<Time>) {
        self.advance(now);
        let head = self
            .fifo
            .pop_front()
            .expect("delivery event for an empty link");
        debug_assert_eq!(head.arrive, now);
        debug_assert!(self.served > 0);
        self.served -= 1;
        let next = self.fifo.front().map(|e| e.arrive);
        (head.pkt, next)
    }

    /// Packets accepted and not yet delivered at the far end.
    pub fn in_transit(&self) -> usize {
        self.fifo.len()
    }

    /// Iterates the packets accepted and not yet delivered.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.fifo.iter().map(|e| &e.pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Payload;

    fn data(seq: u64, size: u32) -> Packet {
        Packet {
            flow: 0,
            size,
            hop: 0,
            payload: Payload::Data { seq },
        }
    }

    fn link(buffer: BufferLimit) -> Link {
        Link::new("l".into(), 1e9, Time::from_ms(10), buffer, None)
    }

    #[test]
    fn serialization_plus_propagation_is_exact() {
        // 1500 B at 1 Gbit/s = 12 us, + 10 ms propagation.
        let mut l = link(BufferLimit::Packets(10));
        let t0 = Time::from_ms(1);
        assert_eq!(
            l.offer(data(0, 1500), t0),
            Offer::Accepted {
                arrival: t0 + Time::from_us(12) + Time::from_ms(10),
                was_empty: true
            }
        );
        // A back-to-back packet waits for the first: departs at 24 us.
        assert_eq!(
            l.offer(data(1, 1500), t0),
            Offer::Accepted {
                arrival: t0 + Time::from_us(24) + Time::from_ms(10),
                was_empty: false
            }
        );
        // After an idle gap the serializer starts at the arrival time.
        let t1 = Time::from_ms(2);
        let Offer::Accepted { arrival, .. } = l.offer(data(2, 1500), t1) else {
            panic!()
        };
        assert_eq!(arrival, t1 + Time::from_us(12) + Time::from_ms(10));
        let (p, next) = l.deliver_head(t0 + Time::from_us(12) + Time::from_ms(10));
        assert_eq!(p, data(0, 1500));
        assert_eq!(next, Some(t0 + Time::from_us(24) + Time::from_ms(10)));
    }

    #[test]
    fn droptail_drops_exactly_when_full() {
        // Buffer 3: one in service + 3 waiting are accepted, the 5th is dropped.
        let mut l = link(BufferLimit::Packets(3));
        let t = Time::from_ms(1);
        for i in 0..4 {
            assert!(
                matches!(l.offer(data(i, 1500), t), Offer::Accepted { .. }),
                "packet {i}"
            );
        }
        assert_eq!(l.waiting(), 3);
        assert_eq!(l.offer(data(4, 1500), t), Offer::Dropped);
        assert_eq!(l.counters.drops, 1);
        assert_eq!(l.counters.max_qlen, 3);
        // Once the first leaves service (12 us), there is room for one more.
        let t2 = t + Time::from_us(12);
        assert!(matches!(l.offer(data(5, 1500), t2), Offer::Accepted { .. }));
        assert_eq!(l.offer(data(6, 1500), t2), Offer::Dropped);
        l.advance(t + Time::from_us(48));
        assert_eq!(l.counters.departures, 4);
        assert_eq!(l.counters.bytes_departed, 6000);
    }

    #[test]
    fn byte_buffer_counts_bytes() {
        // 3000 bytes waiting allowed: two 1500 B data packets, or one plus ACKs.
        let mut l = link(BufferLimit::Bytes(3000));
        let t = Time::ZERO;
        assert!(matches!(l.offer(data(0, 1500), t), Offer::Accepted { .. })); // in service
        assert!(matches!(l.offer(data(1, 1500), t), Offer::Accepted { .. }));
        assert!(matches!(l.offer(data(2, 1460), t), Offer::Accepted { .. }));
        assert_eq!(l.waiting_bytes(), 2960);
        assert!(matches!(l.offer(data(3, 40), t), Offer::Accepted { .. }));
        assert_eq!(l.offer(data(4, 40), t), Offer::Dropped);
    }

    #[test]
    fn rate_change_applies_from_the_next_service_start() {
        // 1 Gbit/s, then 500 Mbit/s from 30 us. Three back-to-back packets at
        // 20 us: the first starts at 20 us (old rate, ends 32 us); the
        // second starts at 32 us (new rate, 24 us: ends 56 us), the third 80 us.
        let mut l =
            link(BufferLimit::Packets(10)).with_schedules(vec![(Time::from_us(30), 500e6)], vec![]);
        let t = Time::from_us(20);
        let d = Time::from_ms(10);
        let arrivals: Vec<Time> = (0..3)
            .map(|i| match l.offer(data(i, 1500), t) {
                Offer::Accepted { arrival, .. } => arrival - d,
                o => panic!("{o:?}"),
            })
            .collect();
        assert_eq!(
            arrivals,
            [Time::from_us(32), Time::from_us(56), Time::from_us(80)]
        );
    }

    #[test]
    fn delay_drop_never_reorders() {
        // 10 ms of delay, 1 ms from t = 1 ms: a packet departing just after
        // the change would overtake one still propagating; it waits instead.
        let mut l =
            link(BufferLimit::Packets(10)).with_schedules(vec![], vec![(Time::from_ms(1), 0.001)]);
        let a0 = l.offer(data(0, 1500), Time::ZERO);
        let a1 = l.offer(data(1, 1500), Time::from_ms(2));
        let a2 = l.offer(data(2, 1500), Time::from_ms(20));
        let at = |o: Offer| match o {
            Offer::Accepted { arrival, .. } => arrival,
            o => panic!("{o:?}"),
        };
        let (a0, a1, a2) = (at(a0), at(a1), at(a2));
        assert_eq!(a0, Time::from_us(12) + Time::from_ms(10));
        assert_eq!(a1, a0); // max(2 ms + 12 us + 1 ms, a0)
        assert_eq!(a2, Time::from_ms(21) + Time::from_us(12));
        let (_, next) = l.deliver_head(a0);
        assert_eq!(next, Some(a0));
    }

    #[test]
    fn random_loss_drops_every_packet_at_p_one() {
        let loss = BernoulliGaps::new(1.0, crate::rng::stream(1, 1, 1));
        let mut l = Link::new(
            "l".into(),
            1e9,
            Time::ZERO,
            BufferLimit::Packets(5),
            Some(loss),
        );
        assert_eq!(l.offer(data(0, 1500), Time::ZERO), Offer::Lost);
        assert_eq!(l.counters.random_drops, 1);
        assert_eq!(l.in_transit(), 0);
    }
}
