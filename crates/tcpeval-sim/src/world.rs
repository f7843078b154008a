//! The world: the arenas (links, routes' hops, flow slots) and the event
//! loop that routes each event to its owner. What is not routing lives with
//! its owner: checks and derived values in [`crate::resolve`] (the world is
//! built once from a [`Resolved`] plan), traffic generators in
//! [`crate::traffic::generators`] (one event variant, [`Event::Traffic`]),
//! TCP timers and SACK blocks in [`crate::tcp::Connection`], sampling in
//! [`crate::probe`], and the result tables in [`crate::results`].
//!
//! Packets live in link FIFOs (or a dequeue discipline's queues); the heap
//! holds one delivery event per busy link (and one dequeue event per busy
//! link whose discipline decides at dequeue, see `net::link`), the flows'
//! lazily cancelled timers, flow starts/stops, traffic arrivals and the
//! probe samplers. A link fed by exactly one other link
//! (a receiver's access link behind the bottleneck, a sender's behind the
//! reverse bottleneck) is folded into it (see `net::link`): a packet bound
//! for it is offered to it as soon as the feeding link accepts it, so the
//! feeding link spends no delivery event on it. A run is single-threaded and
//! deterministic: the same scenario and seed give bit-identical results.
//!
//! Early receivers. A receiver touches nothing but its own state and its
//! ACKs' first link, so where that link carries its ACKs alone, and its
//! data's last link is folded (the arrival time is known when the link
//! before it accepts the packet), the receiver takes each data packet as
//! soon as the arrival time is known, at that time, ahead of the world's
//! clock: the packet spends no delivery event at the receiver. Its
//! timeline stays in order by itself: its segments come in arrival order
//! (one FIFO), its delayed-ACK timer expires before a later segment is
//! taken ([`crate::tcp::Receiver::expire_delack_before`]), and its ACKs
//! enter their link, a folded link then (counted in the past), in time
//! order. What the world counts per arrival (packets received and
//! delivered, per flow and class) is counted by the last link
//! ([`Link::offer_counted`]) up to the horizon, the next time anything
//! reads it: a flow or class sample (which runs after all else at its
//! time), a planned snapshot or the end (see `world/horizon.rs`); an
//! arrival past the horizon waits in the link until a later count passes
//! it, and is counted before anything reads it. A delayed-ACK deadline at the
//! very time of a segment's arrival yields to the segment, early or not.
//! Only flows of the `flows` table qualify, with no delay line and no ECN
//! echo; a host group's receivers share their uplink. As with folding,
//! events at the same picosecond may run in another order than with a
//! delivery event per arrival (they run in scheduling order, and the world
//! schedules an early receiver's ACK sooner): the one way an early
//! receiver can change a result.
//!
//! Early senders, the same idea at the other end: a sender of the table
//! takes each ACK as soon as its arrival time is known, within a horizon
//! that keeps what the probes and the results read in step with the clock
//! (see `world/early_senders.rs`).
//!
//! Flows live in slots. The first slots hold the scenario's flows and the
//! generated long-lived ones (the `flows` table), then one per UDP source,
//! then short transfers. A transfer's slot is reused once the transfer has
//! completed and none of its packets is left in the network (`in_network`
//! counts them, ACKs in its delay line included); the slot keeps its old
//! timers' pending heap events, stopped, so a stale event can never fire
//! for the new flow: the lazy timers treat it as their own early wake-up.
//!
//! Per-flow round-trip times on shared paths: a generated transfer runs
//! over its class's host group (zero-delay access links shared by the
//! class, see `net::topology`), and the difference between its drawn RTT
//! and the path's own is added as a delay line on its ACK path, just before
//! the sender: a FIFO with one pending event, the one per-packet cost of a
//! flow-specific RTT (one event per ACK, about half an event per data packet
//! with delayed ACKs). Putting all the extra delay on the ACK path keeps the
//! flow's RTT, ACK clock and completion time exact while its data enters the
//! shared links at once; creating links per flow instead would cost two
//! extra link events per packet and unbounded link tables for thousands of
//! short flows. Long-lived flows keep their own access links (no delay line).

mod early_senders;
mod horizon;

use crate::event::{Event, EventQueue, FlowId, LinkId, TimerKind};
use crate::flow::{Ends, Flow, FlowMeta, RouteId};
use crate::net::{Link, Offer};
use crate::packet::{Packet, Payload};
use crate::probe::{Recorder, SampleKind};
use crate::resolve::Resolved;
use crate::results::{ClassCounters, ClassSummary, FlowSummary, LinkSummary, Results};
use crate::rng::{draws_on_this_thread, purpose, seed_word, stream, BernoulliGaps};
use crate::scenario::{Scenario, ScenarioError};
use crate::tcp::Connection;
use crate::time::Time;
use crate::traffic::generators::{Generators, Host, Transfer, Wake};
use crate::traffic::ClassInfo;
use early_senders::{choose_early_senders, EarlySenders};
use horizon::Horizon;
use tcpeval_cc::CongestionControl;

/// One hop of a route in the world's flat hop table, where each route's
/// hops follow one another. A packet's `hop` is its position in this table,
/// so moving it on needs neither its flow nor its route.
#[derive(Clone, Copy, Debug)]
struct Hop {
    /// The link the packet crosses.
    link: LinkId,
    /// The next hop's link is folded into this one (see `net::link`).
    next_folded: bool,
    /// The route ends after this link, at an endpoint.
    last: bool,
    /// The link keeps no packet, only what its counters need
    /// ([`Link::offer_counted`]): it is offered ahead of the clock and
    /// either ends the route at an early receiver, which takes the packet at
    /// once (see the module doc), or passes it on to a folded next link.
    counted: bool,
}

/// A simulation ready to run.
#[derive(Debug)]
pub struct World {
    now: Time,
    end: Time,
    packet_size: u32,
    events: EventQueue,
    links: Vec<Link>,
    monitored: Vec<LinkId>,
    /// Every route's hops, route after route.
    hops: Vec<Hop>,
    flows: Vec<Flow>,
    /// One entry per flow of the `flows` table (the first slots).
    meta: Vec<FlowMeta>,
    /// Reusable transfer slots.
    free_slots: Vec<FlowId>,
    /// Forward route, reverse route and base RTT of each host group.
    groups: Vec<(RouteId, RouteId, Time)>,
    classes: Vec<ClassInfo>,
    class_counters: Vec<ClassCounters>,
    /// TCP flows started and not completed, per class.
    class_active: Vec<u32>,
    /// The traffic generators (taken out while one handles its event).
    traffic: Generators,
    /// The probes' samplers, the columns they fill and the transfers table.
    probes: Recorder,
    scratch: Vec<Packet>,
    /// Drops decided by folded links ahead of time and not yet happened:
    /// link, packet, random loss (else a full buffer). Slots are reused.
    late_drops: Vec<Option<(LinkId, Packet, bool)>>,
    free_late_drops: Vec<u32>,
    /// The scenario's seed.
    seed: u64,
    /// Connections made so far: the index of the next one's
    /// [`purpose::CC_RANDOM`] stream.
    connections_made: u64,
    /// Random numbers this world has drawn so far, while being resolved,
    /// built and run (see [`crate::rng`]); zero means its results are the
    /// same for every seed.
    random_draws: u64,
    /// Time of the last traffic generator's event handled (see [`World::snapshot`]).
    last_traffic: Option<Time>,
    /// The flows whose receiver runs early, each with its data's last
    /// link, which counts its packets (see the module doc).
    early: Vec<(FlowId, LinkId)>,
    /// The flows whose sender runs early (see `world/early_senders.rs`).
    early_senders: EarlySenders,
    /// How far ahead of the clock early senders act and folded links
    /// count (see `world/horizon.rs`).
    horizon: Horizon,
}

fn ms(v: f64) -> Time {
    Time::from_secs_f64(v / 1e3)
}

impl World {
    /// Validates `sc` and builds the world at time zero.
    pub fn new(sc: &Scenario) -> Result<World, ScenarioError> {
        Ok(World::from_plan(Resolved::new(sc)?))
    }

    /// Builds the world at time zero from a resolved scenario: the links,
    /// the routes' hops, a slot per flow, the generators' flows, and the
    /// first events (flow starts and stops, then the generators', then the
    /// samplers', an order that fixes how same-time events run).
    pub fn from_plan(plan: Resolved) -> World {
        let draws_before = draws_on_this_thread();
        let mut cc_draws = 0;
        let net = &plan.net;
        let mut links = Vec::with_capacity(net.links.len());
        for (j, spec) in net.links.iter().enumerate() {
            let loss = (spec.loss > 0.0).then(|| {
                BernoulliGaps::new(spec.loss, stream(plan.seed, purpose::LINK_LOSS, j as u64))
            });
            links.push(
                Link::new(
                    spec.name.clone(),
                    spec.rate_bps,
                    spec.delay,
                    net.buffers[j],
                    loss,
                )
                .with_schedules(spec.rate_schedule.clone(), spec.delay_schedule.clone())
                .with_aqm(spec.queue.build(
                    spec.rate_bps,
                    plan.packet_size,
                    stream(plan.seed, purpose::LINK_AQM, j as u64),
                )),
            );
        }
        let mut hops: Vec<Hop> = Vec::new();
        let mut add_route = |r: &Vec<LinkId>| {
            let start = hops.len() as RouteId;
            hops.extend(r.iter().enumerate().map(|(i, &link)| Hop {
                link,
                next_folded: false,
                last: i + 1 == r.len(),
                counted: false,
            }));
            start
        };
        let mut events = EventQueue::new();
        let mut flows = Vec::with_capacity(net.routes.len());
        let mut meta = Vec::with_capacity(net.routes.len());
        for (i, (route, fp)) in net.routes.iter().zip(plan.flows).enumerate() {
            let id = i as FlowId;
            let mut cc = fp.cc;
            cc.set_random_seed(seed_word(plan.seed, purpose::CC_RANDOM, i as u64));
            cc_draws += u64::from(cc.uses_random_seed());
            events.push(fp.meta.start, Event::FlowStart(id));
            if let Some(t) = fp.meta.stop {
                events.push(t, Event::FlowStop(id));
            }
            flows.push(Flow::new(
                Ends::Tcp(Connection::new(id, fp.tcp, cc, fp.meta.size)),
                add_route(&route.fwd),
                add_route(&route.rev),
                fp.class,
                Time::ZERO,
            ));
            meta.push(fp.meta);
        }
        let groups: Vec<(RouteId, RouteId, Time)> = net
            .groups
            .iter()
            .map(|g| (add_route(&g.fwd), add_route(&g.rev), net.base_rtt(g)))
            .collect();
        let monitored = plan.monitored;
        fold_links(&mut links, &mut hops, &monitored);
        let early = choose_early(&mut links, &mut hops, &flows, &monitored);
        let early_senders = choose_early_senders(&mut links, &mut hops, &flows, &meta, &monitored);
        let n_classes = plan.classes.len();
        let mut world = World {
            now: Time::ZERO,
            end: plan.end,
            packet_size: plan.packet_size,
            events,
            links,
            monitored,
            hops,
            flows,
            meta,
            free_slots: Vec::new(),
            groups,
            classes: plan.classes,
            class_counters: vec![ClassCounters::default(); n_classes],
            class_active: vec![0; n_classes],
            traffic: Generators::default(),
            probes: Recorder::default(),
            scratch: Vec::with_capacity(64),
            late_drops: Vec::new(),
            free_late_drops: Vec::new(),
            seed: plan.seed,
            connections_made: net.routes.len() as u64,
            random_draws: plan.random_draws + cc_draws,
            last_traffic: None,
            early,
            early_senders,
            horizon: Horizon::default(),
        };
        let mut traffic = Generators::new(plan.web, plan.udp);
        traffic.start(&mut world);
        world.traffic = traffic;
        world.probes.start(&plan.probes, &mut world.events);
        let reads = world.probes.kinds().map(|k| k != SampleKind::Queues);
        // Only folded links are offered, and count, ahead of the clock.
        let ahead = world.links.iter().any(Link::is_folded);
        world.horizon.start(world.end, reads, ahead);
        world.random_draws += draws_on_this_thread() - draws_before;
        world
    }

    /// The same world with no link folded and no early receiver or sender,
    /// every link spending a delivery event per packet; call before
    /// running. Its results are the folded world's (only events scheduled
    /// for the same picosecond may run in another order): a check on
    /// folding and early receivers and senders (`tests/folding.rs`).
    pub fn unfolded(mut self) -> World {
        debug_assert_eq!(self.events.processed(), 0);
        for link in &mut self.links {
            link.set_folded(false);
        }
        for hop in &mut self.hops {
            hop.counted = false;
        }
        self.early.clear();
        self.early_senders.clear();
        self.horizon.deactivate();
        mark_folded_next(&self.links, &mut self.hops);
        self
    }

    /// Flows whose receiver runs early (see the module doc).
    pub fn early_receivers(&self) -> usize {
        self.early.len()
    }

    /// Flows whose sender runs early (see `world/early_senders.rs`).
    pub fn early_senders(&self) -> usize {
        self.early_senders.len()
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// End of the run.
    pub fn end(&self) -> Time {
        self.end
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }

    /// Flow slots in use or reusable (the most flows ever alive at once, plus the table's).
    pub fn flow_slots(&self) -> usize {
        self.flows.len()
    }

    /// Random numbers drawn so far (see the field); an algorithm that
    /// takes a random seed counts one draw per connection, used or not.
    pub fn random_draws(&self) -> u64 {
        self.random_draws
    }

    /// Runs every event up to `until` (capped at the end of the run).
    pub fn advance(&mut self, until: Time) {
        let draws_before = draws_on_this_thread();
        let until = until.min(self.end);
        loop {
            let next = self.events.peek_time().unwrap_or(Time::NEVER);
            if self.horizon.must_pass(next, until) {
                self.pass_horizon();
                continue;
            }
            if next > until {
                break;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            self.now = t;
            self.handle(ev);
        }
        self.now = self.now.max(until);
        self.random_draws += draws_on_this_thread() - draws_before;
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> Results {
        let end = self.end;
        self.advance(end);
        self.finish()
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::LinkDelivery(l) => self.on_delivery(l),
            Event::LinkDequeue(l) => self.on_dequeue(l),
            Event::LateDrop(i) => self.on_late_drop(i),
            Event::Timer {
                flow,
                kind,
                generation,
            } => self.on_timer(flow, kind, generation),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::FlowStop(f) => self.on_flow_stop(f),
            Event::Sample(i) => self.sample(i),
            Event::DelayExit(f) => self.on_delay_exit(f),
            Event::Traffic(wake) => {
                self.last_traffic = Some(self.now);
                let mut traffic = std::mem::take(&mut self.traffic);
                traffic.handle(wake, self);
                self.traffic = traffic;
            }
        }
    }

    fn on_flow_start(&mut self, f: FlowId) {
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        let m = &self.meta[f as usize];
        let cls = fl.class as usize;
        self.class_counters[cls].started += 1;
        self.class_active[cls] += 1;
        if let Some(size) = m.size {
            self.class_counters[cls].offered_bytes += size * u64::from(self.packet_size);
            let mss = fl.sender().tcb.mss;
            fl.transfer = Some(self.probes.transfers.begin(
                fl.class,
                i64::from(f),
                size,
                (size * u64::from(mss)) as f64,
                now.secs(),
                m.base_rtt.secs(),
            ));
        }
        let mut out = std::mem::take(&mut self.scratch);
        if let Ends::Tcp(c) = &mut fl.ends {
            c.sender.start(now, &mut out);
        }
        self.flush(f, &mut out);
        self.scratch = out;
    }

    /// A packet of flow `f` left the network (delivered or dropped); frees
    /// the slot of a finished transfer once nothing of it is left.
    fn packet_gone(&mut self, f: FlowId) {
        let fl = &mut self.flows[f as usize];
        fl.in_network -= 1;
        if fl.in_network == 0 && fl.done && f as usize >= self.meta.len() {
            self.free_slots.push(f);
        }
    }

    /// Offers `pkt`, on its way along its route, to the link of its hop at
    /// time `t` (the world's clock, or ahead of it for a folded link). A
    /// packet bound next for a folded link goes on to it at once.
    fn offer(&mut self, mut pkt: Packet, mut t: Time) {
        // A loop, not recursion, along a run of folded links: each pass
        // offers the packet to one link, and a folded next link takes it
        // at its arrival time on the next pass.
        loop {
            let hop = self.hops[pkt.hop as usize];
            let l = hop.link;
            // Nothing reads the counts before the horizon: count up to it
            // now, this packet too if it arrives by then; a link's own
            // counters are read later still (see `world/horizon.rs`).
            let offered = if hop.counted {
                let by = if hop.last && pkt.is_data() {
                    let by = self.horizon.at();
                    self.settle_early(pkt.flow, l, by);
                    by
                } else {
                    let by = self.horizon.links_at();
                    self.links[l as usize].settle_counted(by, |_| {});
                    by
                };
                self.links[l as usize].offer_counted(&mut pkt, t, by)
            } else {
                let by = self.horizon.links_at();
                self.links[l as usize].offer_by(&mut pkt, t, !hop.next_folded, by)
            };
            match offered {
                Offer::Accepted { arrival, schedule } => {
                    if hop.next_folded {
                        pkt.hop += 1;
                        t = arrival;
                        continue;
                    }
                    if hop.counted {
                        // Not passed on: the route's end, an early
                        // receiver or sender.
                        if pkt.is_data() {
                            self.arrive_early(pkt, l, arrival);
                        } else {
                            self.arrive_at_early_sender(pkt, arrival);
                        }
                    } else if schedule {
                        self.events.push(arrival, Event::LinkDelivery(l));
                    }
                }
                Offer::Queued => self.queued(l),
                o @ (Offer::Dropped | Offer::Lost) => self.refused(l, pkt, t, o == Offer::Lost),
            }
            return;
        }
    }

    /// Link `l` refused `pkt` offered at `t` (`lost`: to random loss, else
    /// its buffer or discipline). A folded link's drop waits for the clock
    /// to reach `t` (a `LateDrop` event); another's counts now. Out of
    /// line: drops are rare next to the packets accepted.
    #[cold]
    #[inline(never)]
    fn refused(&mut self, l: LinkId, pkt: Packet, t: Time, lost: bool) {
        if self.links[l as usize].is_folded() {
            let drop = Some((l, pkt, lost));
            let i = match self.free_late_drops.pop() {
                Some(i) => {
                    self.late_drops[i as usize] = drop;
                    i
                }
                None => {
                    self.late_drops.push(drop);
                    (self.late_drops.len() - 1) as u32
                }
            };
            self.events.push(t, Event::LateDrop(i));
        } else {
            self.packet_dropped(pkt);
        }
    }

    /// A dequeue-kind link took a packet: schedules what it asks. Out of
    /// line, so that `offer` stays compact for the other links.
    #[cold]
    #[inline(never)]
    fn queued(&mut self, l: LinkId) {
        let (delivery, dequeue) = self.links[l as usize].take_scheduled();
        self.link_scheduled(l, delivery, dequeue);
    }

    /// Schedules a dequeue-kind link's delivery and dequeue events, if
    /// asked, and accounts the packets its discipline dropped (now).
    fn link_scheduled(&mut self, l: LinkId, delivery: Option<Time>, dequeue: Option<Time>) {
        if let Some(t) = delivery {
            self.events.push(t, Event::LinkDelivery(l));
        }
        if let Some(t) = dequeue {
            self.events.push(t, Event::LinkDequeue(l));
        }
        while let Some(pkt) = self.links[l as usize].pop_dropped() {
            self.packet_dropped(pkt);
        }
    }

    /// A dequeue-kind link ends a serialization: its discipline hands over
    /// the next packet.
    fn on_dequeue(&mut self, l: LinkId) {
        let (delivery, dequeue) = self.links[l as usize].dequeue(self.now);
        self.link_scheduled(l, delivery, dequeue);
    }

    /// A folded link's drop happens now.
    fn on_late_drop(&mut self, i: u32) {
        let (l, pkt, lost) = self.late_drops[i as usize]
            .take()
            .expect("a pending drop fires once");
        self.free_late_drops.push(i);
        self.links[l as usize].count_drop(lost);
        self.packet_dropped(pkt);
    }

    /// Counts the drop of `pkt`, now, against its flow and class.
    fn packet_dropped(&mut self, pkt: Packet) {
        let f = &mut self.flows[pkt.flow as usize];
        if pkt.is_data() {
            f.data_dropped += 1;
            f.first_loss.get_or_insert(self.now);
            self.class_counters[f.class as usize].dropped += 1;
        } else {
            f.acks_dropped += 1;
            if let (Ends::Tcp(c), Payload::Ack { sack, .. }) = (&mut f.ends, pkt.payload) {
                c.ack_dropped(sack);
            }
        }
        self.packet_gone(pkt.flow);
    }

    /// Sends the packets an endpoint of TCP flow `f` produced and pushes the
    /// flow's timer events that became due for scheduling.
    fn flush(&mut self, f: FlowId, out: &mut Vec<Packet>) {
        self.flush_at(f, out, self.now);
    }

    /// [`World::flush`] at time `t`: the world's clock, or ahead of it for
    /// an early receiver's ACKs.
    fn flush_at(&mut self, f: FlowId, out: &mut Vec<Packet>, t: Time) {
        let (fwd, rev, class) = {
            let fl = &self.flows[f as usize];
            (fl.fwd, fl.rev, fl.class as usize)
        };
        for mut pkt in out.drain(..) {
            self.flows[f as usize].in_network += 1;
            pkt.hop = if pkt.is_data() {
                let c = &mut self.class_counters[class];
                c.sent += 1;
                c.sent_bytes += u64::from(pkt.size);
                fwd
            } else {
                rev
            };
            self.offer(pkt, t);
        }
        let Ends::Tcp(c) = &mut self.flows[f as usize].ends else {
            return;
        };
        let events = &mut self.events;
        c.due_timers(|kind, t, generation| {
            events.push(
                t,
                Event::Timer {
                    flow: f,
                    kind,
                    generation,
                },
            );
        });
    }

    fn on_delivery(&mut self, l: LinkId) {
        let (mut pkt, next) = self.links[l as usize].deliver_head(self.now);
        if let Some(t) = next {
            self.events.push(t, Event::LinkDelivery(l));
        }
        if !self.hops[pkt.hop as usize].last {
            pkt.hop += 1;
            self.offer(pkt, self.now);
            return;
        }
        let f = pkt.flow;
        let fl = &mut self.flows[f as usize];
        if !pkt.is_data() && fl.ack_delay > Time::ZERO {
            let exit = self.now + fl.ack_delay;
            if fl.delay_line.is_empty() {
                self.events.push(exit, Event::DelayExit(f));
            }
            fl.delay_line.push_back((exit, pkt));
            return;
        }
        self.arrive(pkt);
    }

    fn on_delay_exit(&mut self, f: FlowId) {
        let fl = &mut self.flows[f as usize];
        let (_, pkt) = fl
            .delay_line
            .pop_front()
            .expect("delay exit of an empty line");
        if let Some(&(t, _)) = fl.delay_line.front() {
            self.events.push(t, Event::DelayExit(f));
        }
        self.arrive(pkt);
    }

    /// Data packet `pkt` of flow `f`, accepted by its counted last link `l`,
    /// reaches its early receiver at `at`, ahead of the clock (see the
    /// module doc): first a delayed ACK due before it, then the segment.
    fn arrive_early(&mut self, pkt: Packet, l: LinkId, at: Time) {
        let f = pkt.flow;
        let Payload::Data { seq, tsval } = pkt.payload else {
            unreachable!("only data reaches a receiver");
        };
        let mut out = std::mem::take(&mut self.scratch);
        let Ends::Tcp(c) = &mut self.flows[f as usize].ends else {
            unreachable!("an early receiver is a TCP flow's");
        };
        if let Some(deadline) = c.receiver.expire_delack_before(at, &mut out) {
            self.flush_at(f, &mut out, deadline);
        }
        let Ends::Tcp(c) = &mut self.flows[f as usize].ends else {
            unreachable!("an early receiver is a TCP flow's");
        };
        let n = c.receiver.on_data(seq, tsval, pkt.ecn, at, &mut out);
        if !self.links[l as usize].credit_last(n as u32) {
            // The link counted the arrival at once: so does the world.
            let fl = &mut self.flows[f as usize];
            let mss = u64::from(fl.sender().tcb.mss);
            count_arrival(fl, &mut self.class_counters[fl.class as usize], mss, n);
        }
        self.flush_at(f, &mut out, at);
        self.scratch = out;
    }

    /// Counts what flow `f`'s early receiver took by `cut`, its arrivals
    /// held in its counted last link `l`: a delivery event would have
    /// counted them as `arrive` does.
    fn settle_early(&mut self, f: FlowId, l: LinkId, cut: Time) {
        let fl = &mut self.flows[f as usize];
        let mss = u64::from(fl.sender().tcb.mss);
        let class = &mut self.class_counters[fl.class as usize];
        self.links[l as usize].settle_counted(cut, |delivered| {
            count_arrival(fl, class, mss, u64::from(delivered));
        });
    }

    /// [`World::settle_early`] for every early receiver, up to `cut`.
    fn settle_all_early(&mut self, cut: Time) {
        for i in 0..self.early.len() {
            let (f, l) = self.early[i];
            self.settle_early(f, l, cut);
        }
    }

    /// A packet reaches the endpoint at the end of its route.
    fn arrive(&mut self, pkt: Packet) {
        if !pkt.is_data() {
            self.ack_arrives(pkt);
            return;
        }
        let f = pkt.flow;
        let now = self.now;
        let mut out = std::mem::take(&mut self.scratch);
        let fl = &mut self.flows[f as usize];
        let cls = fl.class as usize;
        match (&mut fl.ends, pkt.payload) {
            (Ends::Udp { .. }, _) => {
                fl.data_received += 1;
                let c = &mut self.class_counters[cls];
                c.received += 1;
                c.delivered_bytes += u64::from(pkt.size);
            }
            (Ends::Tcp(conn), Payload::Data { seq, tsval }) => {
                fl.data_received += 1;
                let n = conn.receiver.on_data(seq, tsval, pkt.ecn, now, &mut out);
                fl.delivered_pkts += n;
                let c = &mut self.class_counters[cls];
                c.received += 1;
                c.delivered_bytes += n * u64::from(conn.sender.tcb.mss);
            }
            (Ends::Tcp(_), Payload::Ack { .. }) => unreachable!("ACKs arrive in `ack_arrives`"),
        }
        if matches!(self.flows[f as usize].ends, Ends::Tcp(_)) {
            self.flush(f, &mut out);
        }
        self.scratch = out;
        self.packet_gone(f);
    }

    /// ACK `pkt` reaches its sender now. A retransmission timeout due at
    /// this very time comes first, as it does for an early sender (see
    /// `world/early_senders.rs`) and in ns-2, whose scheduler runs the
    /// timer, set before the ACK's arrival was, first.
    fn ack_arrives(&mut self, pkt: Packet) {
        let f = pkt.flow;
        let now = self.now;
        let mut out = std::mem::take(&mut self.scratch);
        if self.flows[f as usize].sender().rto_deadline() == now {
            self.connection(f).sender.expire_rto(now, &mut out);
            self.flush(f, &mut out);
        }
        self.sender_takes(&pkt, now, &mut out);
        self.flush(f, &mut out);
        self.scratch = out;
        self.packet_gone(f);
    }

    /// The sender of TCP flow `pkt.flow` takes ACK `pkt` at `at` (the
    /// clock, or ahead of it for an early sender), its packets onto `out`;
    /// a transfer's completion is counted at `at`.
    fn sender_takes(&mut self, pkt: &Packet, at: Time, out: &mut Vec<Packet>) {
        let fl = &mut self.flows[pkt.flow as usize];
        let Ends::Tcp(conn) = &mut fl.ends else {
            unreachable!("an ACK reaches a TCP sender");
        };
        conn.on_ack(at, pkt.payload, pkt.ecn, out);
        if fl.done || conn.sender.completed_at.is_none() {
            return;
        }
        fl.done = true;
        if let Some(row) = fl.transfer {
            self.probes.transfers.end(row, at.secs());
        }
        let cls = fl.class as usize;
        self.class_counters[cls].completed += 1;
        self.class_active[cls] -= 1;
    }

    fn on_timer(&mut self, f: FlowId, kind: TimerKind, generation: u32) {
        let now = self.now;
        if kind == TimerKind::DelayedAck && self.data_arrives_now(f) {
            // A segment arriving at the deadline is taken first, as an early
            // receiver takes it (`Receiver::expire_delack_before`): the
            // timer's event runs again after the segment's delivery event.
            self.events.push(
                now,
                Event::Timer {
                    flow: f,
                    kind,
                    generation,
                },
            );
            return;
        }
        let mut out = std::mem::take(&mut self.scratch);
        let Ends::Tcp(c) = &mut self.flows[f as usize].ends else {
            unreachable!("timer of a UDP flow");
        };
        c.on_timer(kind, generation, now, &mut out);
        self.flush(f, &mut out);
        self.scratch = out;
    }

    /// True if a data packet of flow `f` reaches its receiver now, its
    /// delivery event still pending: the head of its route's last link.
    fn data_arrives_now(&self, f: FlowId) -> bool {
        let last = route_end(&self.hops, self.flows[f as usize].fwd);
        self.links[self.hops[last].link as usize]
            .head()
            .is_some_and(|(p, t)| t == self.now && p.flow == f && p.is_data())
    }

    /// Flow `f`'s TCP connection.
    fn connection(&mut self, f: FlowId) -> &mut Connection {
        match &mut self.flows[f as usize].ends {
            Ends::Tcp(c) => c,
            Ends::Udp { .. } => unreachable!("a UDP flow has no TCP connection"),
        }
    }

    /// Sampler `i` takes its sample now and is scheduled again.
    fn sample(&mut self, i: u32) {
        let (period, kind) = self.probes.sampler(i);
        if kind != SampleKind::Queues {
            // The sample runs after everything else at its time, arrivals
            // included.
            self.settle_all_early(self.now);
        }
        let t = self.now.secs();
        match kind {
            SampleKind::Flows => {
                for (id, (fl, m)) in self.flows.iter().zip(&self.meta).enumerate() {
                    let sender = fl.sender();
                    if m.trace && sender.is_active() {
                        let delivered = fl.delivered_pkts * u64::from(sender.tcb.mss);
                        self.probes.flows.record(t, id as u32, sender, delivered);
                    }
                }
            }
            SampleKind::Queues => {
                for &l in &self.monitored {
                    let link = &mut self.links[l as usize];
                    self.probes.queues.record(t, l, link, self.now);
                    self.probes.aqm.record(t, l, link, self.now);
                }
            }
            SampleKind::Classes => {
                let classes = self.class_counters.iter().zip(&self.class_active);
                for (c, (k, &active)) in classes.enumerate() {
                    self.probes.classes.record(t, c as u32, k, active);
                }
            }
        }
        let next = self.now + period;
        let next = if next <= self.end {
            self.events.push_last(next, Event::Sample(i), i);
            next
        } else {
            Time::NEVER
        };
        if kind != SampleKind::Queues {
            // A point of the horizon.
            self.horizon.sampled(i, next);
        }
    }

    /// Plans snapshots at times `cuts` (see [`World::snapshot`]), before
    /// the run: the early senders and the links' counts ahead of the clock
    /// stop there (see `world/horizon.rs`), so that the results can be
    /// read there.
    pub fn plan_snapshots(&mut self, cuts: &[Time]) {
        assert_eq!(
            self.events.processed(),
            0,
            "snapshots are planned before the run"
        );
        self.horizon.plan(cuts);
    }

    /// True if the results can be read now ([`World::finish`],
    /// [`World::snapshot`]): at the end of the run, at a planned snapshot
    /// ([`World::plan_snapshots`]), or wherever no early sender has run
    /// ahead of the clock and no link counted ahead of it
    /// ([`Link::counted_to`]; see `world/horizon.rs`).
    pub fn can_report_now(&self) -> bool {
        self.horizon.current_at(self.now) && self.links.iter().all(|l| l.counted_to() <= self.now)
    }

    /// Stops the run where it is and collects the results.
    ///
    /// # Panics
    /// If the results cannot be read now ([`World::can_report_now`]): a
    /// run stopped before its end stops at a planned snapshot.
    pub fn finish(mut self) -> Results {
        assert!(
            self.can_report_now(),
            "a run stopped before its end reports at a planned snapshot (World::plan_snapshots)"
        );
        let probes = std::mem::take(&mut self.probes);
        self.collect(probes)
    }

    /// The results as they stand now: what [`World::finish`] would give,
    /// and so, at a time `D`, what a run of the same scenario with
    /// `duration_s = D` gives (events up to `D` are the same, and nothing
    /// before the end reads it), unless a traffic generator's event was
    /// handled at exactly `D`: web and UDP sources stop at the end, so the
    /// shorter run would not have had it; or unless `D` was not planned
    /// ([`World::plan_snapshots`]) and an early sender or a link's count
    /// ran ahead of it. Then `None`, and a run of that duration must be
    /// simulated on its own. The world runs on afterwards,
    /// its later results untouched: the only state the snapshot moves is
    /// each link's served packets, which every reader advances to its own
    /// time first, and the early receivers' arrivals up to now, counted now
    /// rather than later (sums, the same whenever counted). Used to take a
    /// sweep over the run's duration from one run (the Python runner's
    /// prefix families).
    pub fn snapshot(&mut self) -> Option<Results> {
        if self.last_traffic == Some(self.now) || !self.can_report_now() {
            return None;
        }
        let probes = self.probes.clone();
        Some(self.collect(probes))
    }

    /// The results as of now, with the columns in `probes`.
    fn collect(&mut self, probes: Recorder) -> Results {
        self.settle_all_early(self.now);
        let mut in_transit = vec![0u64; self.flows.len()];
        // An early receiver's packets whose arrival is ahead are on their way.
        for &(f, l) in &self.early {
            in_transit[f as usize] += self.links[l as usize].counted_in_flight() as u64;
        }
        for link in &mut self.links {
            link.advance(self.now);
            for p in link.packets() {
                if p.is_data() {
                    in_transit[p.flow as usize] += 1;
                }
            }
        }
        // A drop still ahead has not happened: the packet is on its way.
        for (_, p, _) in self.late_drops.iter().flatten() {
            if p.is_data() {
                in_transit[p.flow as usize] += 1;
            }
        }
        let mut class_counters = self.class_counters.clone();
        for (fl, &n) in self.flows.iter().zip(&in_transit) {
            class_counters[fl.class as usize].in_transit += n;
        }
        let flows = self
            .flows
            .iter()
            .zip(&self.meta)
            .zip(in_transit)
            .map(|((fl, m), transit)| FlowSummary::new(fl, m, transit))
            .collect();
        let links = self
            .links
            .iter()
            .enumerate()
            .map(|(j, l)| LinkSummary::new(l, self.monitored.contains(&(j as LinkId)), self.now))
            .collect();
        let classes = self
            .classes
            .iter()
            .cloned()
            .zip(class_counters)
            .map(|(info, counters)| ClassSummary { info, counters })
            .collect();
        Results {
            sim_time_s: self.now.secs(),
            events: self.events.processed(),
            random_draws: self.random_draws,
            flow_series: probes.flows,
            queue_series: probes.queues,
            aqm_series: probes.aqm,
            class_series: probes.classes,
            transfers: probes.transfers,
            classes,
            flows,
            links,
        }
    }
}

/// The world as the traffic generators see it (see `traffic::generators`).
impl Host for World {
    fn now(&self) -> Time {
        self.now
    }

    fn schedule(&mut self, t: Time, wake: Wake) {
        self.events.push(t, Event::Traffic(wake));
    }

    /// Opens the transfer in a free flow slot (or a new one) over its host
    /// group's routes, its RTT raised to the drawn one by a delay line.
    fn start_transfer(&mut self, tr: Transfer<'_>) {
        let now = self.now;
        let drawn = tr.size;
        let (fwd, rev, base) = self.groups[tr.group];
        let rtt = tr.rtt_ms.map_or(base, |r| ms(r).max(base));
        let class = tr.class;
        let proto = tr.proto;
        let f = match self.free_slots.pop() {
            Some(f) => f,
            // A new slot; its provisional (UDP) endpoints are replaced below.
            None => self.open_udp_flow(class, tr.group),
        };
        let mut cc = proto.cc.clone();
        cc.set_random_seed(seed_word(
            self.seed,
            purpose::CC_RANDOM,
            self.connections_made,
        ));
        self.random_draws += u64::from(cc.uses_random_seed());
        self.connections_made += 1;
        let mut conn = Connection::new(f, proto.cfg, cc, Some(drawn.pkts));
        let slot = &mut self.flows[f as usize];
        if let Ends::Tcp(old) = &slot.ends {
            // Keep the old timers' pending events (see the module doc).
            conn.inherit_timers(old);
        }
        let mut delay_line = std::mem::take(&mut slot.delay_line);
        delay_line.clear();
        *slot = Flow::new(Ends::Tcp(conn), fwd, rev, class, rtt - base);
        slot.delay_line = delay_line;
        slot.transfer = Some(self.probes.transfers.begin(
            class,
            -1,
            drawn.pkts,
            drawn.bytes,
            now.secs(),
            rtt.secs(),
        ));
        let c = &mut self.class_counters[class as usize];
        c.started += 1;
        c.offered_bytes += drawn.pkts * u64::from(self.packet_size);
        self.class_active[class as usize] += 1;
        let mut out = std::mem::take(&mut self.scratch);
        if let Ends::Tcp(c) = &mut self.flows[f as usize].ends {
            c.sender.start(now, &mut out);
        }
        self.flush(f, &mut out);
        self.scratch = out;
    }

    fn open_udp_flow(&mut self, class: u32, group: usize) -> FlowId {
        let (fwd, rev, _) = self.groups[group];
        self.flows.push(Flow::new(
            Ends::Udp { next_seq: 0 },
            fwd,
            rev,
            class,
            Time::ZERO,
        ));
        (self.flows.len() - 1) as FlowId
    }

    fn send_udp(&mut self, f: FlowId, size: u32) {
        let fl = &mut self.flows[f as usize];
        let Ends::Udp { next_seq } = &mut fl.ends else {
            unreachable!("a UDP source's slot holds a UDP flow");
        };
        let seq = *next_seq;
        *next_seq += 1;
        fl.in_network += 1;
        let c = &mut self.class_counters[fl.class as usize];
        c.sent += 1;
        c.sent_bytes += u64::from(size);
        c.offered_bytes += u64::from(size);
        let hop = fl.fwd;
        self.offer(
            Packet {
                flow: f,
                size,
                hop,
                ecn: Default::default(),
                payload: Payload::Data { seq, tsval: 0 },
            },
            self.now,
        );
    }
}

/// Counts the arrival at an early receiver of a data packet of flow `fl`
/// in class `class`, which delivered `n` packets of `mss` bytes in order,
/// as [`World::arrive`] counts an arrival.
fn count_arrival(fl: &mut Flow, class: &mut ClassCounters, mss: u64, n: u64) {
    fl.data_received += 1;
    fl.delivered_pkts += n;
    fl.in_network -= 1;
    class.received += 1;
    class.delivered_bytes += n * mss;
}

/// Index in `hops` of the last hop of the route starting at `first`.
fn route_end(hops: &[Hop], first: RouteId) -> usize {
    (first as usize..hops.len())
        .find(|&i| hops[i].last)
        .expect("a route ends")
}

/// Chooses the early receivers (see the module doc), after folding: the
/// flows of the `flows` table (the first slots, with no delay line) whose
/// TCP receiver echoes no ECN, whose data's last link is folded and
/// carries this route alone, and whose ACKs' first link carries this route
/// alone, unprobed, with no active queue discipline. Marks each one's last
/// data hop counted and folds its ACKs' first link (it is offered ahead of
/// the clock, so it counts in the past); that link is counted too where it
/// passes its ACKs on to a folded link (it then has no delivery event to
/// count them at). Returns each flow with its last link.
fn choose_early(
    links: &mut [Link],
    hops: &mut [Hop],
    flows: &[Flow],
    monitored: &[LinkId],
) -> Vec<(FlowId, LinkId)> {
    let mut uses = vec![0u32; links.len()];
    for h in hops.iter() {
        uses[h.link as usize] += 1;
    }
    let mut early = Vec::new();
    for (f, fl) in flows.iter().enumerate() {
        let Ends::Tcp(c) = &fl.ends else {
            continue;
        };
        if c.receiver.echoes_ecn() || fl.ack_delay > Time::ZERO {
            continue;
        }
        let first = fl.fwd as usize;
        let last = route_end(hops, fl.fwd);
        let data_link = hops[last].link;
        let ack_link = hops[fl.rev as usize].link;
        let qualifies = last > first
            && hops[last - 1].next_folded
            && uses[data_link as usize] == 1
            && uses[ack_link as usize] == 1
            && !monitored.contains(&ack_link)
            && !links[ack_link as usize].has_aqm()
            && !links[ack_link as usize].is_folded();
        if qualifies {
            hops[last].counted = true;
            let ack_hop = &mut hops[fl.rev as usize];
            ack_hop.counted = ack_hop.next_folded;
            links[ack_link as usize].set_folded(true);
            early.push((f as FlowId, data_link));
        }
    }
    early
}

/// Folds every link fed by exactly one other link and by no host (see
/// `net::link`), unless it is probed, has an active queue discipline
/// (whose state must follow the world's clock) or is fed by a dequeue-kind
/// link (whose deliveries are known only at its dequeue events). Folding
/// never chains: a folded link's feeder is not folded, nor is a link
/// feeding a folded one, because only an unfolded link offers at the
/// world's clock.
/// Marks in `hops` the hops whose next link is folded.
fn fold_links(links: &mut [Link], hops: &mut [Hop], monitored: &[LinkId]) {
    #[derive(Clone, Copy, PartialEq)]
    enum Feed {
        Nothing,
        Link(LinkId),
        Several,
    }
    let mut feed = vec![Feed::Nothing; links.len()];
    for i in 0..hops.len() {
        // The link before on the same route, if any (a route starts after
        // the previous route's last hop).
        let by = (i > 0 && !hops[i - 1].last).then(|| hops[i - 1].link);
        let f = &mut feed[hops[i].link as usize];
        *f = match (*f, by) {
            (Feed::Nothing, Some(k)) => Feed::Link(k),
            (Feed::Link(k), Some(j)) if j == k => Feed::Link(k),
            _ => Feed::Several,
        };
    }
    let mut feeds_folded = vec![false; links.len()];
    for l in 0..links.len() {
        if let Feed::Link(k) = feed[l] {
            let k = k as usize;
            if !monitored.contains(&(l as LinkId))
                && !links[l].has_aqm()
                && !links[k].dequeues()
                && !links[k].is_folded()
                && !feeds_folded[l]
            {
                links[l].set_folded(true);
                feeds_folded[k] = true;
            }
        }
    }
    mark_folded_next(links, hops);
}

/// Sets each hop's `next_folded` from the links' folding.
fn mark_folded_next(links: &[Link], hops: &mut [Hop]) {
    for i in 0..hops.len() {
        hops[i].next_folded = !hops[i].last && links[hops[i + 1].link as usize].is_folded();
    }
}
