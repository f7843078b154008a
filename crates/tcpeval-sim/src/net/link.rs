//! A unidirectional link: a serializer of fixed rate behind a queue, then
//! a propagation delay. The queue is DropTail (drop when the buffer is
//! full), optionally preceded by an active discipline (see `net::queue`)
//! that decides on each arrival (enqueue, drop, or mark an ECN-capable
//! packet with CE and enqueue it); a DropTail link carries none.
//!
//! The link needs no event of its own per packet. When a packet arrives at
//! time `t`, its end of serialization is `d = max(t, previous d) + size/rate`
//! and it reaches the far end at `d + delay`. The link keeps two FIFOs: the
//! packets whose serialization has not ended (the queue a new packet finds,
//! so a drop is decided on arrival), and the packets waiting for their
//! delivery event at the far end, in order of `d` and so of arrival there:
//! the world keeps a single pending event per link, for the head of that
//! FIFO. A packet the world passes on at once (see "Folded links") is not
//! kept for delivery.
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
//!
//! Folded links. A link fed by a single other link receives its packets in
//! the order, and at the times, that link delivers them; both are known as
//! soon as the feeding link accepts a packet. The world then offers the
//! packet to the folded link at once, with its future arrival time, and
//! spends no delivery event on the feeding link. A folded link's state thus
//! runs ahead of the world's clock, so its [`LinkCounters`] count an event
//! only once it is in the past: an accepted packet's arrival, departure and
//! queue length at a delivery after its serialization (or at
//! [`Link::counters_at`]), a drop when the world's drop event for it fires
//! ([`Link::count_drop`]); or, where the world gives a time before which
//! nothing reads them ([`Link::offer_by`]), a packet serialized by then at
//! once. Offers to a folded link must come in non-decreasing time, as they
//! do from one feeder; a folded link is never probed.
//!
//! Counted links. The last link before an early receiver (see `world`:
//! a receiver that takes its packets ahead of the world's clock) is a
//! folded link that keeps no packet: [`Link::offer_counted`] hands the
//! packet back with its arrival time, and keeps only what the counters
//! need, with a number the world attaches ([`Link::credit_last`]: the
//! packets the arrival delivered in order). [`Link::settle_counted`]
//! counts the packets whose arrival is not after a time the world gives
//! and returns their numbers, so that what the world counts per arrival is
//! counted by the time anything reads it, as a delivery event would have
//! counted it. An early receiver's
//! ACK link, offered ahead of the clock too, is counted the same way when
//! it passes its packets on to a folded link (it then has no delivery
//! event of its own to count them at). Where nothing reads the counts
//! before a time the world gives (the horizon, see `world/horizon.rs`), a
//! packet arriving by then (serialized by then, on a link that keeps it
//! for delivery), with none waiting to be counted before it, is counted at
//! once and its entry never kept: sums and maxima, the same whenever
//! counted.
//!
//! The dequeue kind. A discipline that decides when a packet leaves the
//! queue (CoDel, FQ-CoDel: [`Dequeuer`]) holds the packets waiting itself,
//! and the link computes a packet's end of serialization only when it
//! leaves: an arrival at an idle link is served at once; otherwise the
//! world keeps one pending dequeue event per busy link, at the end of the
//! current serialization, where the discipline hands over the next packet
//! (possibly after dropping some). Rate and delay schedules apply as above
//! (the rate at the start of service, the delay at its end). Such a link
//! is never folded, nor is the link it feeds (its deliveries are not known
//! ahead). DropTail, RED and PIE links never enter this path: their `offer`
//! is the arithmetic above, behind the one `extras` check. See
//! `docs/dequeue-disciplines.md`.

use super::queue::{Aqm, AqmState, Arrival, Dequeuer, Discipline, Verdict};
use super::schedule::Schedule;
use crate::columns::record;
use crate::fifo::Fifo;
use crate::packet::{Codepoint, Packet};
use crate::prefetch::{prefetch, prefetch_next};
use crate::rng::BernoulliGaps;
use crate::time::{Time, TxTimeMemo};

/// A DropTail buffer limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferLimit {
    /// At most this many packets waiting.
    Packets(u32),
    /// At most this many bytes waiting.
    Bytes(u64),
}

record! {
    /// Per-link counters, over the whole run.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct LinkCounters {
        /// Packets offered to the link.
        pub arrivals: u64,
        /// Packets dropped by the queue: the full buffer, or the link's
        /// discipline (whose own state splits its drops by cause).
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
}

/// What happened to an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Queued; it reaches the far end at `arrival`. `schedule` tells the
    /// caller to schedule the link's delivery event for it: it was kept for
    /// delivery and is now the only packet waiting for one. A CE mark
    /// the link set is already on the offered packet (see [`Link::offer`]).
    Accepted { arrival: Time, schedule: bool },
    /// Taken by a dequeue-kind link's discipline (waiting, or in service
    /// at once). The events to schedule are in [`Link::take_scheduled`],
    /// the packets the discipline dropped meanwhile in
    /// [`Link::pop_dropped`]. (A unit variant, so that `Offer` stays as
    /// small as DropTail's fast path had it.)
    Queued,
    /// Dropped by the full buffer or the discipline.
    Dropped,
    /// Dropped by random loss.
    Lost,
}

/// What a folded link keeps of a packet waiting for its delivery event, to
/// count it once it is in the past (see the module doc).
#[derive(Clone, Copy, Debug)]
struct FoldedEntry {
    /// Time it was offered to the link.
    offered: Time,
    /// End of serialization.
    dep_end: Time,
    /// Packets waiting just after it was accepted.
    qlen: u32,
    /// Size on the wire, bytes.
    size: u32,
    /// On a counted link, the world's number for this packet (see the
    /// module doc); 0 elsewhere.
    credit: u32,
}

/// What a link keeps of an accepted packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hold {
    /// The packet, until its delivery event.
    Deliver,
    /// Nothing: the caller passes the packet on at its arrival time.
    PassOn,
    /// What the counters need, until [`Link::settle_counted`] passes its
    /// arrival time (a counted link, see the module doc); nothing if it
    /// arrives by the time [`Link::offer_counted`] gives with nothing
    /// waiting before it: counted at once.
    Count,
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
    /// Counters over the run; on a folded link, of what is in the past
    /// (see the module doc and [`Link::counters_at`]).
    counters: LinkCounters,
    /// Offered ahead of the world's clock by its single feeding link.
    folded: bool,
    /// End of serialization and size (bytes) of each accepted packet whose
    /// serialization had not ended by the last `advance`, in order.
    unserved: Fifo<(Time, u32)>,
    /// Bytes in `unserved`.
    unserved_bytes: u64,
    /// Packets kept for delivery and not yet delivered, in order of arrival.
    /// Their arrival times are in `arrivals` and, on a folded link, what
    /// its counters need in `folded_entries`, at the same positions: three
    /// FIFOs rather than one of records, so that reading the next delivery's
    /// time touches 8 bytes per packet, not a whole record (with thousands
    /// of packets in flight, these reads miss the cache).
    transit: Fifo<Packet>,
    /// Far-end arrival time of each packet in `transit`.
    arrivals: Fifo<Time>,
    /// On a folded link, each packet in `transit`'s offer time, end of
    /// serialization, queue length found and size; empty on other links.
    folded_entries: Fifo<FoldedEntry>,
    last_dep_end: Time,
    last_arrive: Time,
    /// The latest time up to which the link counted ahead of the clock
    /// (see [`Link::counted_to`]).
    counted_to: Time,
    /// Serialization times of the sizes this link carries.
    tx_memo: TxTimeMemo,
    /// Random loss and the queue discipline, if any (`None`: a lossless
    /// DropTail link, which pays one check per offer for both).
    extras: Option<Box<Extras>>,
    /// Rate over time, bit/s (`None`: always `rate_bps`).
    rate_schedule: Option<Box<Schedule>>,
    /// Delay over time, s (`None`: always `delay`).
    delay_schedule: Option<Box<Schedule>>,
}

/// What a link may do to a packet before its buffer sees it, kept off
/// DropTail's fast path.
#[derive(Debug, Default)]
struct Extras {
    /// Random loss process.
    loss: Option<BernoulliGaps>,
    /// Active queue discipline deciding on arrival (`None`: DropTail alone).
    aqm: Option<Aqm>,
    /// The dequeue kind's state (`None`: the arrival-time arithmetic).
    dequeuing: Option<Dequeuing>,
}

/// A dequeue-kind link's discipline and event bookkeeping.
#[derive(Debug)]
struct Dequeuing {
    /// The discipline, holding the packets waiting.
    disc: Dequeuer,
    /// A dequeue event is pending for this link.
    pending: bool,
    /// Packets the discipline dropped, not yet taken by the world.
    dropped: Vec<Packet>,
    /// The delivery and dequeue events the last offer asks for.
    scheduled: (Option<Time>, Option<Time>),
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
            folded: false,
            unserved: Fifo::new(),
            unserved_bytes: 0,
            transit: Fifo::new(),
            arrivals: Fifo::new(),
            folded_entries: Fifo::new(),
            last_dep_end: Time::ZERO,
            last_arrive: Time::ZERO,
            counted_to: Time::ZERO,
            tx_memo: TxTimeMemo::default(),
            extras: loss.map(|loss| {
                Box::new(Extras {
                    loss: Some(loss),
                    aqm: None,
                    dequeuing: None,
                })
            }),
            rate_schedule: None,
            delay_schedule: None,
        }
    }

    /// Puts the discipline `d` in front of the buffer (`None`: DropTail);
    /// one that decides at dequeue makes this a dequeue-kind link.
    pub fn with_aqm(mut self, d: Option<Discipline>) -> Self {
        match d {
            None => {}
            Some(Discipline::Arrival(aqm)) => {
                self.extras.get_or_insert_with(Box::default).aqm = Some(aqm);
            }
            Some(Discipline::Dequeue(disc)) => {
                self.extras.get_or_insert_with(Box::default).dequeuing = Some(Dequeuing {
                    disc,
                    pending: false,
                    dropped: Vec::new(),
                    scheduled: (None, None),
                });
            }
        }
        self
    }

    /// The discipline's state as of `now` (not before the last offer), if
    /// the link has one.
    pub fn aqm_state_at(&mut self, now: Time) -> Option<AqmState> {
        let x = self.extras.as_mut()?;
        if let Some(d) = &x.dequeuing {
            return Some(d.disc.state());
        }
        Some(x.aqm.as_mut()?.state_at(now))
    }

    fn dequeuing(&self) -> Option<&Dequeuing> {
        self.extras.as_ref().and_then(|x| x.dequeuing.as_ref())
    }

    /// True if the link has an active discipline (such a link is never
    /// folded, so its state follows the world's clock).
    pub fn has_aqm(&self) -> bool {
        self.extras
            .as_ref()
            .is_some_and(|x| x.aqm.is_some() || x.dequeuing.is_some())
    }

    /// True for a dequeue-kind link (see the module doc): the link it
    /// feeds is never folded.
    pub fn dequeues(&self) -> bool {
        self.dequeuing().is_some()
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

    /// Makes this a folded link or not (see the module doc); before any offer.
    pub fn set_folded(&mut self, folded: bool) {
        debug_assert_eq!(self.counters, LinkCounters::default());
        self.folded = folded;
    }

    /// True for a folded link.
    pub fn is_folded(&self) -> bool {
        self.folded
    }

    /// The counters as of `cut`, which must not be before the last delivery
    /// or `advance`, nor before [`Link::counted_to`]: on a folded link, the
    /// ones of `counters` plus the arrivals and departures of the packets
    /// left to count that are not after `cut`. Drops not yet counted are
    /// after `cut`.
    pub fn counters_at(&self, cut: Time) -> LinkCounters {
        let mut c = self.counters;
        if self.folded {
            for e in self.folded_entries.iter() {
                if e.offered <= cut {
                    c.arrivals += 1;
                    c.max_qlen = c.max_qlen.max(e.qlen);
                }
                if e.dep_end <= cut {
                    c.departures += 1;
                    c.bytes_departed += u64::from(e.size);
                }
            }
        }
        c
    }

    /// Counts a drop of a folded link when it is in the past: `lost` for
    /// random loss, otherwise a full buffer.
    pub fn count_drop(&mut self, lost: bool) {
        debug_assert!(self.folded);
        self.counters.arrivals += 1;
        if lost {
            self.counters.random_drops += 1;
        } else {
            self.counters.drops += 1;
        }
    }

    /// Ends the serialization of every packet done by `now`; earlier `now`
    /// than a previous call changes nothing.
    pub fn advance(&mut self, now: Time) {
        while let Some(&(dep_end, size)) = self.unserved.front() {
            if dep_end > now {
                break;
            }
            self.unserved.pop_front();
            self.unserved_bytes -= u64::from(size);
            if !self.folded {
                self.counters.departures += 1;
                self.counters.bytes_departed += u64::from(size);
            }
        }
    }

    /// Packets waiting (not counting the one in service) as of the last
    /// `advance`, whatever the link's kind (for probes).
    pub fn qlen(&self) -> u32 {
        match self.dequeuing() {
            Some(d) => d.disc.len(),
            None => self.waiting(),
        }
    }

    /// Bytes waiting (not counting the packet in service) as of the last
    /// `advance`, whatever the link's kind (for probes).
    pub fn qbytes(&self) -> u64 {
        match self.dequeuing() {
            Some(d) => d.disc.bytes(),
            None => self.waiting_bytes(),
        }
    }

    /// Packets waiting in the serializer's FIFO (not counting the one in
    /// service) as of the last `advance`; on a dequeue-kind link, always 0
    /// (see [`Link::qlen`]).
    pub fn waiting(&self) -> u32 {
        (self.unserved.len() as u32).saturating_sub(1)
    }

    /// Bytes waiting (not counting the packet in service) as of the last `advance`.
    pub fn waiting_bytes(&self) -> u64 {
        match self.unserved.front() {
            Some(&(_, size)) => self.unserved_bytes - u64::from(size),
            None => 0,
        }
    }

    /// Offers `pkt` to the link at time `t` (never before an earlier
    /// offer's). With `keep` the packet waits for its delivery event;
    /// without, the caller passes it on at its arrival time itself. A
    /// discipline's CE mark is set on `pkt` itself, so the caller's copy
    /// and the kept one both carry it.
    pub fn offer(&mut self, pkt: &mut Packet, t: Time, keep: bool) -> Offer {
        self.offer_by(pkt, t, keep, Time::ZERO)
    }

    /// [`Link::offer`], where nothing reads the counters before `count_by`:
    /// a folded link then counts at once a packet kept for delivery whose
    /// serialization ends by then, with none waiting to be counted before
    /// it (see the module doc), rather than at its delivery.
    pub fn offer_by(&mut self, pkt: &mut Packet, t: Time, keep: bool, count_by: Time) -> Offer {
        let hold = if keep { Hold::Deliver } else { Hold::PassOn };
        self.accept(pkt, t, hold, count_by)
    }

    /// Offers `pkt` to a counted link (a folded link before an early
    /// receiver or sender, see the module doc) at time `t`: as [`Link::offer`]
    /// without keeping the packet, which the caller hands to its receiver
    /// at the arrival time returned. If the packet arrives by `count_by`
    /// (a time before which nothing reads the counters) and no packet
    /// waits to be counted before it, it is counted at once; otherwise what
    /// the counters need stays until [`Link::settle_counted`] passes its
    /// arrival.
    pub fn offer_counted(&mut self, pkt: &mut Packet, t: Time, count_by: Time) -> Offer {
        debug_assert!(self.folded, "only a folded link counts ahead of the clock");
        self.accept(pkt, t, Hold::Count, count_by)
    }

    /// Attaches `credit` to the packet last accepted by
    /// [`Link::offer_counted`], if it waits to be counted; false if it was
    /// counted at once, so that the caller counts its credit itself.
    pub fn credit_last(&mut self, credit: u32) -> bool {
        match self.folded_entries.back_mut() {
            Some(e) => {
                e.credit = credit;
                true
            }
            None => false,
        }
    }

    /// On a counted link: counts every packet whose arrival is not after
    /// `cut` (which may be ahead of the clock), oldest first, and calls
    /// `settled` with each one's credit.
    pub fn settle_counted(&mut self, cut: Time, mut settled: impl FnMut(u32)) {
        while let Some(&arrive) = self.arrivals.front() {
            if arrive > cut {
                break;
            }
            self.counted_to = arrive;
            self.arrivals.pop_front();
            let e = self
                .folded_entries
                .pop_front()
                .expect("one entry per arrival");
            self.count_arrived(e.qlen, e.size);
            settled(e.credit);
        }
    }

    /// The latest time up to which a link fed ahead of the clock has
    /// counted (`Time::ZERO` if never ahead): its counters may hold what
    /// happens up to then, ahead of the clock.
    pub fn counted_to(&self) -> Time {
        self.counted_to
    }

    /// Packets a counted link accepted whose arrival is still ahead (after
    /// [`Link::settle_counted`] up to now: those in flight).
    pub fn counted_in_flight(&self) -> usize {
        // A kept packet has an arrival time and a place in `transit`; a
        // counted one only the arrival time.
        self.arrivals.len() - self.transit.len()
    }

    /// [`Link::offer`]'s work, the accepted packet held as `hold` says
    /// (`count_by`: see [`Link::offer_counted`]).
    #[inline(always)]
    fn accept(&mut self, pkt: &mut Packet, t: Time, hold: Hold, count_by: Time) -> Offer {
        let count = !self.folded;
        if count {
            self.counters.arrivals += 1;
        }
        if self.extras.is_some() {
            if let Some(decided) = self.extras_offer(pkt, t) {
                if count {
                    match decided {
                        Offer::Lost => self.counters.random_drops += 1,
                        Offer::Dropped => self.counters.drops += 1,
                        _ => {}
                    }
                }
                return decided;
            }
        }
        self.advance(t);
        if !self.unserved.is_empty() {
            let full = match self.buffer {
                BufferLimit::Packets(b) => self.waiting() >= b,
                BufferLimit::Bytes(b) => self.waiting_bytes() + u64::from(pkt.size) > b,
            };
            if full {
                if count {
                    self.counters.drops += 1;
                }
                return Offer::Dropped;
            }
        }
        let start = self.last_dep_end.max(t);
        let rate = match self.rate_schedule.as_mut() {
            None => self.rate_bps,
            Some(s) => s.at(start),
        };
        let dep_end = start + self.tx_memo.get(pkt.size, rate);
        self.last_dep_end = dep_end;
        let arrive = match self.delay_schedule.as_mut() {
            None => dep_end + self.delay,
            Some(s) => (dep_end + Time::from_secs_f64(s.at(dep_end))).max(self.last_arrive),
        };
        self.last_arrive = arrive;
        self.unserved.push_back((dep_end, pkt.size));
        self.unserved_bytes += u64::from(pkt.size);
        let qlen = self.waiting();
        if count {
            self.counters.max_qlen = self.counters.max_qlen.max(qlen);
        }
        let schedule = hold == Hold::Deliver && self.transit.is_empty();
        match hold {
            Hold::Deliver => self.keep(*pkt, t, dep_end, arrive, qlen, count_by),
            Hold::PassOn => {}
            Hold::Count if arrive <= count_by && self.arrivals.is_empty() => {
                self.count_arrived(qlen, pkt.size);
                self.counted_to = arrive;
            }
            Hold::Count => {
                self.arrivals.push_back(arrive);
                self.note_folded(t, dep_end, qlen, pkt.size);
            }
        }
        Offer::Accepted {
            arrival: arrive,
            schedule,
        }
    }

    /// Random loss, then the discipline (after `advance(t)`), on `pkt`
    /// arriving at `t`: `Lost` or `Dropped` if either refuses it, the
    /// dequeue kind's outcome on such a link, `None` to go on with the
    /// buffer; a mark sets CE on an ECT packet and drops a Not-ECT one
    /// (RFC 3168 section 5). Out of line and marked cold so that DropTail's
    /// `offer` stays as compact as before (one `None` check).
    #[cold]
    #[inline(never)]
    fn extras_offer(&mut self, pkt: &mut Packet, t: Time) -> Option<Offer> {
        let x = self.extras.as_mut().expect("checked by the caller");
        if let Some(loss) = x.loss.as_mut() {
            if loss.lose_next() {
                return Some(Offer::Lost);
            }
        }
        if x.dequeuing.is_some() {
            return Some(self.offer_dequeuing(*pkt, t));
        }
        x.aqm.as_ref()?; // no discipline: the buffer decides
        self.advance(t);
        let buffer_full = !self.unserved.is_empty()
            && match self.buffer {
                BufferLimit::Packets(b) => self.waiting() >= b,
                BufferLimit::Bytes(b) => self.waiting_bytes() + u64::from(pkt.size) > b,
            };
        let arrival = Arrival {
            now: t,
            waiting_pkts: self.waiting(),
            waiting_bytes: self.waiting_bytes(),
            idle_since: self.unserved.is_empty().then_some(self.last_dep_end),
            size: pkt.size,
            ect: pkt.ecn.is_ect(),
            start: self.last_dep_end.max(t),
            buffer_full,
        };
        let aqm = self.extras.as_mut().and_then(|x| x.aqm.as_mut());
        match aqm.expect("checked above").on_arrival(&arrival) {
            Verdict::Drop(_) => Some(Offer::Dropped),
            Verdict::Mark if !pkt.ecn.is_ect() => Some(Offer::Dropped),
            Verdict::Mark => {
                pkt.ecn = pkt.ecn.with_codepoint(Codepoint::Ce);
                None
            }
            Verdict::Enqueue => None,
        }
    }

    /// The dequeue kind's offer (after random loss): the discipline takes
    /// `pkt` under the link's buffer limit, and an idle link serves at once.
    fn offer_dequeuing(&mut self, pkt: Packet, t: Time) -> Offer {
        match self.enqueue_dequeuing(pkt, t) {
            None => Offer::Dropped,
            Some(s) => {
                self.dequeuing_mut().scheduled = s;
                Offer::Queued
            }
        }
    }

    /// [`Link::offer_dequeuing`]'s work: `None` if the packet is refused,
    /// else the delivery and dequeue events to schedule.
    fn enqueue_dequeuing(&mut self, pkt: Packet, t: Time) -> Option<(Option<Time>, Option<Time>)> {
        debug_assert!(!self.folded, "a dequeue-kind link is never folded");
        self.advance(t);
        let buffer = self.buffer;
        let d = self.dequeuing_mut();
        let before = d.dropped.len();
        if !d.disc.enqueue(pkt, t, buffer, &mut d.dropped) {
            return None;
        }
        let (others, qlen, pending) = (d.dropped.len() - before, d.disc.len(), d.pending);
        self.counters.drops += others as u64;
        self.counters.max_qlen = self.counters.max_qlen.max(qlen);
        if pending {
            return Some((None, None));
        }
        if self.last_dep_end > t {
            self.dequeuing_mut().pending = true;
            return Some((None, Some(self.last_dep_end)));
        }
        Some(self.serve(t))
    }

    /// The delivery and dequeue events (times) the last offer that
    /// returned [`Offer::Queued`] asks the caller to schedule.
    pub fn take_scheduled(&mut self) -> (Option<Time>, Option<Time>) {
        std::mem::take(&mut self.dequeuing_mut().scheduled)
    }

    fn dequeuing_mut(&mut self) -> &mut Dequeuing {
        self.extras
            .as_mut()
            .and_then(|x| x.dequeuing.as_mut())
            .expect("a dequeue-kind link")
    }

    /// The link's dequeue event at `now` (the end of a serialization): the
    /// discipline hands over the next packet. Returns when to schedule the
    /// link's delivery event and its next dequeue event, if needed; packets
    /// dropped meanwhile wait in [`Link::pop_dropped`].
    pub fn dequeue(&mut self, now: Time) -> (Option<Time>, Option<Time>) {
        self.advance(now);
        debug_assert!(self.last_dep_end <= now);
        self.serve(now)
    }

    /// Starts serializing at `now` the packet the discipline hands over.
    fn serve(&mut self, now: Time) -> (Option<Time>, Option<Time>) {
        let d = self.dequeuing_mut();
        d.pending = false;
        let before = d.dropped.len();
        let next = d.disc.dequeue(now, &mut d.dropped);
        let (dropped, left) = (d.dropped.len() - before, d.disc.len());
        self.counters.drops += dropped as u64;
        let Some(pkt) = next else {
            return (None, None);
        };
        let rate = match self.rate_schedule.as_mut() {
            None => self.rate_bps,
            Some(s) => s.at(now),
        };
        let dep_end = now + self.tx_memo.get(pkt.size, rate);
        self.last_dep_end = dep_end;
        let arrive = match self.delay_schedule.as_mut() {
            None => dep_end + self.delay,
            Some(s) => (dep_end + Time::from_secs_f64(s.at(dep_end))).max(self.last_arrive),
        };
        self.last_arrive = arrive;
        self.unserved.push_back((dep_end, pkt.size));
        self.unserved_bytes += u64::from(pkt.size);
        let delivery = self.transit.is_empty().then_some(arrive);
        self.keep(pkt, now, dep_end, arrive, left, Time::ZERO);
        let dequeue = (left > 0).then(|| {
            self.dequeuing_mut().pending = true;
            dep_end
        });
        (delivery, dequeue)
    }

    /// A packet a dequeue-kind link's discipline dropped (already counted
    /// in the link's drops), for the world to account; `None` when done.
    pub fn pop_dropped(&mut self) -> Option<Packet> {
        self.extras.as_mut()?.dequeuing.as_mut()?.dropped.pop()
    }

    /// Removes the head packet, which reaches the far end at `now`, and
    /// returns it with the far-end arrival time of the next one, if any.
    pub fn deliver_head(&mut self, now: Time) -> (Packet, Option<Time>) {
        self.advance(now);
        let pkt = self
            .transit
            .pop_front()
            .expect("delivery event for an empty link");
        let arrive = self.arrivals.pop_front();
        debug_assert_eq!(arrive, Some(now));
        if self.folded {
            // What is left to count, its own serialization's end among it
            // unless counted at once (see `keep`).
            while let Some(&e) = self.folded_entries.front() {
                if e.dep_end > now {
                    break;
                }
                self.folded_entries.pop_front();
                self.count_arrived(e.qlen, e.size);
            }
            prefetch(self.folded_entries.front());
        }
        prefetch(self.transit.front());
        (pkt, self.arrivals.front().copied())
    }

    /// Counts a folded link's packet, `size` bytes, that found `qlen`
    /// waiting: its arrival at the link and its departure.
    fn count_arrived(&mut self, qlen: u32, size: u32) {
        let c = &mut self.counters;
        c.arrivals += 1;
        c.departures += 1;
        c.bytes_departed += u64::from(size);
        c.max_qlen = c.max_qlen.max(qlen);
    }

    /// Keeps `pkt`, offered at `offered`, serialized by `dep_end`, for its
    /// delivery event at `arrive`; `qlen` packets were waiting just after.
    /// A folded link counts it at once if its serialization ends by
    /// `count_by` and nothing waits to be counted before it, else when
    /// its serialization's end is in the past at a delivery.
    #[inline(always)]
    fn keep(
        &mut self,
        pkt: Packet,
        offered: Time,
        dep_end: Time,
        arrive: Time,
        qlen: u32,
        count_by: Time,
    ) {
        self.transit.push_back(pkt);
        self.arrivals.push_back(arrive);
        if self.folded {
            if dep_end <= count_by && self.folded_entries.is_empty() {
                self.count_arrived(qlen, pkt.size);
                self.counted_to = dep_end;
            } else {
                self.note_folded(offered, dep_end, qlen, pkt.size);
                prefetch_next(self.folded_entries.back());
            }
        }
        prefetch_next(self.transit.back());
    }

    /// Records what a folded link's counters need of a packet accepted at
    /// `offered`, serialized by `dep_end`, `qlen` waiting just after, `size`
    /// bytes (its credit 0 until [`Link::credit_last`]).
    fn note_folded(&mut self, offered: Time, dep_end: Time, qlen: u32, size: u32) {
        self.folded_entries.push_back(FoldedEntry {
            offered,
            dep_end,
            qlen,
            size,
            credit: 0,
        });
    }

    /// The next packet kept for delivery, with its arrival time.
    pub fn head(&self) -> Option<(&Packet, Time)> {
        Some((self.transit.front()?, *self.arrivals.front()?))
    }

    /// Iterates the packets kept for delivery and not yet delivered, and
    /// those waiting in a dequeue-kind link's discipline.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        let waiting = self.dequeuing().map(|d| d.disc.packets());
        self.transit.iter().chain(waiting.into_iter().flatten())
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
            ecn: Default::default(),
            payload: Payload::Data { seq, tsval: 0 },
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
            l.offer(&mut data(0, 1500), t0, true),
            Offer::Accepted {
                arrival: t0 + Time::from_us(12) + Time::from_ms(10),
                schedule: true
            }
        );
        // A back-to-back packet waits for the first: departs at 24 us.
        assert_eq!(
            l.offer(&mut data(1, 1500), t0, true),
            Offer::Accepted {
                arrival: t0 + Time::from_us(24) + Time::from_ms(10),
                schedule: false
            }
        );
        // After an idle gap the serializer starts at the arrival time.
        let t1 = Time::from_ms(2);
        let Offer::Accepted { arrival, .. } = l.offer(&mut data(2, 1500), t1, true) else {
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
                matches!(l.offer(&mut data(i, 1500), t, true), Offer::Accepted { .. }),
                "packet {i}"
            );
        }
        assert_eq!(l.waiting(), 3);
        assert_eq!(l.offer(&mut data(4, 1500), t, true), Offer::Dropped);
        assert_eq!(l.counters.drops, 1);
        assert_eq!(l.counters.max_qlen, 3);
        // Once the first leaves service (12 us), there is room for one more.
        let t2 = t + Time::from_us(12);
        assert!(matches!(
            l.offer(&mut data(5, 1500), t2, true),
            Offer::Accepted { .. }
        ));
        assert_eq!(l.offer(&mut data(6, 1500), t2, true), Offer::Dropped);
        l.advance(t + Time::from_us(48));
        assert_eq!(l.counters.departures, 4);
        assert_eq!(l.counters.bytes_departed, 6000);
    }

    #[test]
    fn byte_buffer_counts_bytes() {
        // 3000 bytes waiting allowed: two 1500 B data packets, or one plus ACKs.
        let mut l = link(BufferLimit::Bytes(3000));
        let t = Time::ZERO;
        assert!(matches!(
            l.offer(&mut data(0, 1500), t, true),
            Offer::Accepted { .. }
        )); // in service
        assert!(matches!(
            l.offer(&mut data(1, 1500), t, true),
            Offer::Accepted { .. }
        ));
        assert!(matches!(
            l.offer(&mut data(2, 1460), t, true),
            Offer::Accepted { .. }
        ));
        assert_eq!(l.waiting_bytes(), 2960);
        assert!(matches!(
            l.offer(&mut data(3, 40), t, true),
            Offer::Accepted { .. }
        ));
        assert_eq!(l.offer(&mut data(4, 40), t, true), Offer::Dropped);
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
            .map(|i| match l.offer(&mut data(i, 1500), t, true) {
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
        let a0 = l.offer(&mut data(0, 1500), Time::ZERO, true);
        let a1 = l.offer(&mut data(1, 1500), Time::from_ms(2), true);
        let a2 = l.offer(&mut data(2, 1500), Time::from_ms(20), true);
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
        assert_eq!(l.offer(&mut data(0, 1500), Time::ZERO, true), Offer::Lost);
        assert_eq!(l.counters.random_drops, 1);
        assert_eq!(l.packets().count(), 0);
    }

    #[test]
    fn a_discipline_drops_before_the_buffer_is_full() {
        // RED with w_q = 1 (the average is the queue an arrival finds),
        // min_th 0, max_th 1: the third back-to-back packet finds one
        // waiting, the average reaches max_th and it is a forced drop,
        // counted with the link's drops, with room left in the buffer.
        use crate::net::queue::red::{Red, RedParams};
        let red = Red::new(
            RedParams {
                w_q: 1.0,
                min_th: 0.0,
                max_th: 1.0,
                ..RedParams::default()
            },
            1e9,
            1500,
            crate::rng::stream(1, 1, 1),
        );
        let mut l =
            link(BufferLimit::Packets(10)).with_aqm(Some(Discipline::Arrival(Aqm::Red(red))));
        assert!(l.has_aqm());
        let t = Time::ZERO;
        assert!(matches!(
            l.offer(&mut data(0, 1500), t, true),
            Offer::Accepted { .. }
        ));
        assert!(matches!(
            l.offer(&mut data(1, 1500), t, true),
            Offer::Accepted { .. }
        ));
        assert_eq!(l.offer(&mut data(2, 1500), t, true), Offer::Dropped);
        assert_eq!(l.counters.drops, 1);
        let s = l.aqm_state_at(t).unwrap();
        assert_eq!((s.avg_queue, s.early_drops, s.forced_drops), (1.0, 0, 1));
        assert_eq!(link(BufferLimit::Packets(10)).aqm_state_at(t), None);
    }

    fn codel_link(buffer: BufferLimit) -> Link {
        use crate::net::queue::codel::{Codel, CodelParams};
        let codel = Codel::new(&CodelParams::default(), 1500);
        link(buffer).with_aqm(Some(Discipline::Dequeue(Dequeuer::Codel(codel))))
    }

    #[test]
    fn the_dequeue_kind_serves_at_once_when_idle_and_keeps_one_dequeue_event() {
        // 1500 B at 1 Gbit/s = 12 us; 10 ms propagation.
        let mut l = codel_link(BufferLimit::Packets(10));
        assert!(l.dequeues() && l.has_aqm());
        let t = Time::from_ms(1);
        let tx = Time::from_us(12);
        let d = Time::from_ms(10);
        // Idle: served at once, its delivery to schedule, no dequeue event.
        assert_eq!(l.offer(&mut data(0, 1500), t, true), Offer::Queued);
        assert_eq!(l.take_scheduled(), (Some(t + tx + d), None));
        // Busy: waits; the first waiting packet asks for the dequeue event at
        // the end of the current serialization, the next asks for nothing.
        assert_eq!(l.offer(&mut data(1, 1500), t, true), Offer::Queued);
        assert_eq!(l.take_scheduled(), (None, Some(t + tx)));
        assert_eq!(l.offer(&mut data(2, 1500), t, true), Offer::Queued);
        assert_eq!(l.take_scheduled(), (None, None));
        assert_eq!((l.qlen(), l.qbytes(), l.waiting()), (2, 3000, 0));
        assert_eq!(l.packets().count(), 3);
        // The dequeue event: packet 1 goes into service (delivery already
        // scheduled for packet 0), the next dequeue at its end.
        assert_eq!(l.dequeue(t + tx), (None, Some(t + tx + tx)));
        assert_eq!(l.dequeue(t + tx + tx), (None, None));
        assert_eq!(l.qlen(), 0);
        let (p, next) = l.deliver_head(t + tx + d);
        assert_eq!((p, next), (data(0, 1500), Some(t + tx + tx + d)));
        l.advance(t + Time::from_ms(1));
        let c = l.counters_at(t + Time::from_ms(1));
        assert_eq!(
            (c.arrivals, c.departures, c.drops, c.max_qlen),
            (3, 3, 0, 2)
        );
        assert_eq!(l.pop_dropped(), None);
    }

    #[test]
    fn the_dequeue_kind_tail_drops_at_the_buffer_limit() {
        let mut l = codel_link(BufferLimit::Packets(1));
        let t = Time::ZERO;
        assert_eq!(l.offer(&mut data(0, 1500), t, true), Offer::Queued);
        assert_eq!(l.offer(&mut data(1, 1500), t, true), Offer::Queued);
        assert_eq!(l.offer(&mut data(2, 1500), t, true), Offer::Dropped);
        assert_eq!(l.counters_at(t).drops, 1);
    }

    #[test]
    fn a_head_drop_frees_the_serialization_slot() {
        // 12 Mbit/s: 1500 B in 1 ms, no propagation delay. 300 packets at 0:
        // packet k leaves the queue at k ms after k ms. In CoDel's 1024 ns
        // clock the 5 ms target is 4882 units, and so is a 5 ms sojourn
        // (5e6 / 1024 = 4882.8, truncated): the 5 ms dequeue is the first
        // at or above target, first_above_time = 4882 + 97656 units
        // (104.999 ms), and the 105 ms dequeue drops packet 105 and serves
        // packet 106 at once: it reaches the far end at 106 ms, not 107.
        use crate::net::queue::codel::{Codel, CodelParams};
        let codel = Codel::new(&CodelParams::default(), 1500);
        let mut l = Link::new(
            "l".into(),
            12e6,
            Time::ZERO,
            BufferLimit::Packets(1000),
            None,
        )
        .with_aqm(Some(Discipline::Dequeue(Dequeuer::Codel(codel))));
        for i in 0..300 {
            l.offer(&mut data(i, 1500), Time::ZERO, true);
        }
        let mut now = Time::from_ms(1);
        let mut drops = Vec::new();
        while now <= Time::from_ms(106) {
            let (_, next) = l.dequeue(now);
            while let Some(p) = l.pop_dropped() {
                drops.push((now, p));
            }
            now = next.unwrap();
        }
        assert_eq!(drops, [(Time::from_ms(105), data(105, 1500))]);
        for i in 0..105 {
            assert_eq!(l.deliver_head(Time::from_ms(i + 1)).0, data(i, 1500));
        }
        assert_eq!(l.deliver_head(Time::from_ms(106)).0, data(106, 1500));
        let s = l.aqm_state_at(now).unwrap();
        assert_eq!((s.early_drops, s.dropping), (1, 1));
        assert_eq!(l.counters_at(now).drops, 1);
    }

    #[test]
    fn a_mark_sets_ce_on_an_ect_packet_and_drops_a_not_ect_one() {
        // Step marking at K = 1: the first packet goes into service, the
        // second waits unmarked, the third finds one waiting: an ECT one is
        // delivered with CE, a Not-ECT one dropped (RFC 3168 section 5).
        use super::super::queue::step::{Step, StepParams};
        use crate::packet::Ecn;
        let step = Step::new(StepParams { mark_threshold: 1 });
        let mut l =
            link(BufferLimit::Packets(10)).with_aqm(Some(Discipline::Arrival(Aqm::Step(step))));
        let ect = |seq| Packet {
            ecn: Ecn::default().with_codepoint(Codepoint::Ect0),
            ..data(seq, 1500)
        };
        let t = Time::ZERO;
        for seq in 0..3 {
            assert!(matches!(
                l.offer(&mut ect(seq), t, true),
                Offer::Accepted { .. }
            ));
        }
        assert_eq!(l.offer(&mut data(3, 1500), t, true), Offer::Dropped);
        let marks: Vec<Codepoint> = l.transit.iter().map(|p| p.ecn.codepoint()).collect();
        assert_eq!(marks, [Codepoint::Ect0, Codepoint::Ect0, Codepoint::Ce]);
        let s = l.aqm_state_at(t).unwrap();
        assert_eq!((s.marks, s.forced_drops), (1, 1));
        assert_eq!(l.counters.drops, 1);
    }

    #[test]
    fn a_packet_passed_on_queues_but_waits_for_no_delivery() {
        // Two back-to-back packets, the first passed on by the caller: both
        // occupy the serializer, only the second is kept for delivery (and
        // asks for the delivery event, being the only one kept).
        let mut l = link(BufferLimit::Packets(10));
        let t = Time::ZERO;
        let first = l.offer(&mut data(0, 1500), t, false);
        assert_eq!(
            first,
            Offer::Accepted {
                arrival: Time::from_us(12) + Time::from_ms(10),
                schedule: false
            }
        );
        assert_eq!(l.waiting(), 0);
        assert_eq!(
            l.offer(&mut data(1, 1500), t, true),
            Offer::Accepted {
                arrival: Time::from_us(24) + Time::from_ms(10),
                schedule: true
            }
        );
        assert_eq!(l.waiting(), 1);
        assert_eq!(l.packets().count(), 1);
        l.advance(Time::from_us(24));
        assert_eq!(l.counters_at(Time::from_us(24)).departures, 2);
        let (p, next) = l.deliver_head(Time::from_us(24) + Time::from_ms(10));
        assert_eq!((p, next), (data(1, 1500), None));
    }

    #[test]
    fn a_folded_link_counts_at_once_what_it_serializes_by_the_time_given() {
        // Back to back at 1 ms: serializations end at 1.012 and 1.024 ms.
        let mut l = link(BufferLimit::Packets(10));
        l.set_folded(true);
        let t = Time::from_ms(1);
        let by = t + Time::from_us(12);
        l.offer_by(&mut data(0, 1500), t, true, by);
        // Counted at once, though its delivery is 10 ms ahead.
        assert_eq!(l.counted_to(), by);
        let c = l.counters_at(Time::ZERO);
        assert_eq!((c.arrivals, c.departures, c.bytes_departed), (1, 1, 1500));
        // The second ends after `by`: counted once in the past.
        l.offer_by(&mut data(1, 1500), t, true, by);
        assert_eq!(l.counters_at(Time::ZERO).departures, 1);
        assert_eq!(l.counters_at(by + Time::from_us(12)).departures, 2);
        let (p, _) = l.deliver_head(by + Time::from_ms(10));
        assert_eq!(p, data(0, 1500));
        // The first's delivery, at 11.012 ms, counts the second, whose
        // serialization ended by then.
        let c = l.counters_at(Time::ZERO);
        assert_eq!((c.arrivals, c.departures, c.max_qlen), (2, 2, 1));
        let (p, next) = l.deliver_head(by + Time::from_us(12) + Time::from_ms(10));
        assert_eq!((p, next), (data(1, 1500), None));
        assert_eq!(l.counters_at(Time::ZERO).departures, 2);
    }

    #[test]
    fn a_counted_link_counts_at_once_up_to_the_time_given() {
        // 1500 bytes at 1 Gbit/s: 12 us of serialization, then 10 ms.
        let mut l = link(BufferLimit::Packets(10));
        l.set_folded(true);
        let t = Time::from_ms(1);
        let arrive = t + Time::from_us(12) + Time::from_ms(10);
        // Arriving by the time given, with nothing waiting: counted now,
        // ahead of the clock, and nothing kept (so no credit to attach).
        let first = l.offer_counted(&mut data(0, 1500), t, arrive);
        assert!(matches!(first, Offer::Accepted { arrival, .. } if arrival == arrive));
        assert!(!l.credit_last(1));
        assert_eq!(l.counted_to(), arrive);
        assert_eq!(l.counters_at(Time::ZERO).departures, 1);
        assert_eq!(l.counted_in_flight(), 0);
        // Arriving 12 us after the time given: kept, counted once settled.
        l.offer_counted(&mut data(1, 1500), t, arrive);
        assert!(l.credit_last(3));
        assert_eq!(l.counted_in_flight(), 1);
        // A third arrives after it, whatever the time given: it waits too.
        l.offer_counted(&mut data(2, 1500), t, Time::from_secs(1));
        assert!(l.credit_last(4));
        let mut credits = Vec::new();
        l.settle_counted(arrive, |c| credits.push(c));
        assert!(credits.is_empty());
        l.settle_counted(Time::from_secs(1), |c| credits.push(c));
        assert_eq!(credits, [3, 4]);
        assert_eq!(l.counted_to(), arrive + Time::from_us(24));
        let c = l.counters_at(Time::ZERO);
        assert_eq!((c.arrivals, c.departures, c.max_qlen), (3, 3, 2));
    }

    #[test]
    fn a_folded_link_counts_only_what_is_in_the_past() {
        // Offers at 1 ms, 2 ms and 2.005 ms, all made before any of them
        // happens. Buffer 0: the third finds the second in service (until
        // 2.012 ms) and is dropped.
        let mut l = link(BufferLimit::Packets(0));
        l.set_folded(true);
        let t1 = Time::from_ms(1);
        let t2 = Time::from_ms(2);
        let t3 = t2 + Time::from_us(5);
        assert!(matches!(
            l.offer(&mut data(0, 1500), t1, true),
            Offer::Accepted { .. }
        ));
        assert!(matches!(
            l.offer(&mut data(1, 1500), t2, true),
            Offer::Accepted { .. }
        ));
        assert_eq!(l.offer(&mut data(2, 1500), t3, true), Offer::Dropped);
        // Nothing has happened by 0.5 ms.
        assert_eq!(l.counters_at(Time::from_us(500)), LinkCounters::default());
        // By 1.5 ms the first arrived and departed (at 1.012 ms).
        let c = l.counters_at(Time::from_us(1500));
        assert_eq!((c.arrivals, c.departures, c.bytes_departed), (1, 1, 1500));
        // By 2.006 ms the second arrived, not departed; the drop is counted
        // by the caller when its time comes.
        let c = l.counters_at(Time::from_us(2006));
        assert_eq!((c.arrivals, c.departures, c.drops), (2, 1, 0));
        l.count_drop(false);
        let (p, _) = l.deliver_head(t1 + Time::from_us(12) + Time::from_ms(10));
        assert_eq!(p, data(0, 1500));
        let c = l.counters_at(Time::from_ms(20));
        assert_eq!(
            (c.arrivals, c.departures, c.drops, c.max_qlen),
            (3, 2, 1, 0)
        );
    }
}
