//! The world: links, flows, traffic sources and the event loop.
//!
//! Packets live in link FIFOs; the heap holds one delivery event per busy
//! link, the flows' lazily cancelled timers, flow starts/stops, traffic
//! arrivals and the probe samplers. A link fed by exactly one other link
//! (a receiver's access link behind the bottleneck, a sender's behind the
//! reverse bottleneck) is folded into it (see `net::link`): a packet bound
//! for it is offered to it as soon as the feeding link accepts it, so the
//! feeding link spends no delivery event on it. A run is single-threaded and
//! deterministic: the same scenario and seed give bit-identical results.
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

use crate::event::{Event, EventQueue, FlowId, LinkId, TimerKind};
use crate::net::topology::build_network_with;
use crate::net::{BufferLimit, Link, Offer};
use crate::packet::{Packet, Payload};
use crate::probe::{ClassSeries, FlowSeries, QueueSeries, SampleKind, Transfers};
use crate::results::{ClassCounters, ClassSummary, FlowSummary, LinkSummary, Results};
use crate::rng::{purpose, stream, BernoulliGaps};
use crate::scenario::{check, check_pos, FlowSpec, Scenario, ScenarioError, TcpOptions};
use crate::tcp::{Connection, Sender};
use crate::time::Time;
use crate::traffic::udp::UdpSource;
use crate::traffic::web::{Sessions, WebSource};
use crate::traffic::{plan, ClassInfo};
use rand::Rng;
use std::collections::VecDeque;

/// A route: the position of its first hop in the world's hop table.
type RouteId = u32;

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
}

/// A flow's endpoints. UDP flows are few (one per source), so the TCP
/// variant stays inline rather than boxed: no indirection per packet.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
enum Ends {
    /// A TCP connection.
    Tcp(Connection),
    /// A UDP source and its sink; `next_seq` numbers the packets.
    Udp { next_seq: u64 },
}

/// One flow: its endpoints, routes and counters.
#[derive(Debug)]
struct Flow {
    ends: Ends,
    fwd: RouteId,
    rev: RouteId,
    class: u32,
    /// Extra round-trip delay applied to ACKs before they reach the sender.
    ack_delay: Time,
    /// ACKs in the delay line with the time each reaches the sender.
    delay_line: VecDeque<(Time, Packet)>,
    /// Packets injected and not yet delivered or dropped.
    in_network: u32,
    /// Row in the transfers table, for a finite transfer.
    transfer: Option<u32>,
    /// A finite transfer was fully acknowledged.
    done: bool,
    delivered_pkts: u64,
    data_received: u64,
    data_dropped: u64,
    acks_dropped: u64,
    first_loss: Option<Time>,
}

impl Flow {
    fn new(ends: Ends, fwd: RouteId, rev: RouteId, class: u32, ack_delay: Time) -> Flow {
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

    fn sender(&self) -> &Sender {
        match &self.ends {
            Ends::Tcp(c) => &c.sender,
            Ends::Udp { .. } => unreachable!("a UDP flow has no TCP sender"),
        }
    }
}

/// What the `flows` table says about a flow besides its counters.
#[derive(Debug)]
struct FlowMeta {
    name: String,
    spec: usize,
    start: Time,
    stop: Option<Time>,
    size: Option<u64>,
    trace: bool,
    base_rtt: Time,
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
    web: Vec<WebSource>,
    sessions: Sessions,
    udp: Vec<UdpSource>,
    /// Flow slot of each UDP source.
    udp_flows: Vec<FlowId>,
    samplers: Vec<(Time, SampleKind)>,
    flow_series: FlowSeries,
    queue_series: QueueSeries,
    class_series: ClassSeries,
    transfers: Transfers,
    scratch: Vec<Packet>,
    /// Drops decided by folded links ahead of time and not yet happened:
    /// link, packet, random loss (else a full buffer). Slots are reused.
    late_drops: Vec<Option<(LinkId, Packet, bool)>>,
    free_late_drops: Vec<u32>,
}

fn ms(v: f64) -> Time {
    Time::from_secs_f64(v / 1e3)
}

impl World {
    /// Validates `sc` and builds the world at time zero.
    pub fn new(sc: &Scenario) -> Result<World, ScenarioError> {
        check_pos("duration_s", sc.duration_s, 1e7)?;
        check("packet_size", f64::from(sc.packet_size), 80.0, 65535.0)?;
        if sc.flows.is_empty() && sc.traffic.is_empty() {
            return Err(ScenarioError::new(
                "flows",
                "at least one flow (or a traffic generator) is needed",
            ));
        }
        for (k, f) in sc.flows.iter().enumerate() {
            check(&format!("flows[{k}].count"), f64::from(f.count), 1.0, 1e6)?;
        }
        sc.flow_tcp(&TcpOptions::default())?
            .resolve("tcp", sc.packet_size)?;
        let p = &sc.probes;
        let class_period = p.class_period_ms.unwrap_or(p.flow_period_ms);
        for (name, v) in [
            ("flow_period_ms", p.flow_period_ms),
            ("queue_period_ms", p.queue_period_ms),
            ("class_period_ms", class_period),
        ] {
            if v != 0.0 {
                check(&format!("probes.{name}"), v, 0.001, 1e9)?;
            }
        }
        let plan = plan(sc)?;
        let mut all_flows: Vec<FlowSpec> = sc.flows.clone();
        all_flows.extend(plan.bulk_flows.iter().map(|(f, _)| f.clone()));
        let n_explicit = sc.flows.len();
        let net = build_network_with(sc, &all_flows, n_explicit, &plan.groups)?;
        let end = Time::from_secs_f64(sc.duration_s);
        let mut links = Vec::with_capacity(net.links.len());
        for (j, spec) in net.links.iter().enumerate() {
            let loss = (spec.loss > 0.0).then(|| {
                BernoulliGaps::new(spec.loss, stream(sc.seed, purpose::LINK_LOSS, j as u64))
            });
            links.push(
                Link::new(
                    spec.name.clone(),
                    spec.rate_bps,
                    spec.delay,
                    net.buffers[j],
                    loss,
                )
                .with_schedules(spec.rate_schedule.clone(), spec.delay_schedule.clone()),
            );
        }
        let monitored: Vec<LinkId> = match &p.queue_links {
            None => (0..net.links.len())
                .filter(|&j| net.links[j].monitored)
                .map(|j| j as LinkId)
                .collect(),
            Some(names) => {
                let mut ids = Vec::new();
                for (i, n) in names.iter().enumerate() {
                    ids.push(net.link_id(n).ok_or_else(|| {
                        ScenarioError::new(
                            format!("probes.queue_links[{i}]"),
                            format!("no link named '{n}'; links are named like 'R1->R2'"),
                        )
                    })?);
                }
                ids
            }
        };
        let mut hops: Vec<Hop> = Vec::new();
        let mut add_route = |r: &Vec<LinkId>| {
            let start = hops.len() as RouteId;
            hops.extend(r.iter().enumerate().map(|(i, &link)| Hop {
                link,
                next_folded: false,
                last: i + 1 == r.len(),
            }));
            start
        };
        let mut events = EventQueue::new();
        let mut flows = Vec::with_capacity(net.routes.len());
        let mut meta = Vec::with_capacity(net.routes.len());
        let mut copy_of_spec = vec![0u32; all_flows.len()];
        for (i, route) in net.routes.iter().enumerate() {
            let k = route.spec;
            let f = &all_flows[k];
            let at = |name: &str| format!("flows[{k}].{name}");
            check(&at("start_s"), f.start_s, 0.0, sc.duration_s)?;
            let mut start_s = f.start_s;
            if let Some(j) = f.start_jitter_s {
                check(&at("start_jitter_s"), j, 0.0, sc.duration_s)?;
                start_s += stream(sc.seed, purpose::FLOW_START, i as u64).gen::<f64>() * j;
            }
            if let Some(stop) = f.stop_s {
                if !(stop.is_finite() && stop > f.start_s) {
                    return Err(ScenarioError::new(
                        at("stop_s"),
                        format!("{stop} must be after start_s ({})", f.start_s),
                    ));
                }
            }
            if let Some(size) = f.size_pkts {
                check(&at("size_pkts"), size as f64, 1.0, 1e15)?;
            }
            let cc = crate::traffic::build_algorithm(
                &format!("flows[{k}]"),
                &f.algorithm,
                &sc.flow_params(&f.algorithm, &f.params),
            )?;
            let tcp = sc.flow_tcp(&f.tcp)?.resolve(&at("tcp"), sc.packet_size)?;
            let id = i as FlowId;
            let name = match &f.name {
                Some(n) if f.count > 1 => format!("{n}.{}", copy_of_spec[k]),
                Some(n) => n.clone(),
                None => format!("flow{i}"),
            };
            copy_of_spec[k] += 1;
            let start = Time::from_secs_f64(start_s);
            events.push(start, Event::FlowStart(id));
            let stop = f.stop_s.map(Time::from_secs_f64);
            if let Some(t) = stop {
                events.push(t, Event::FlowStop(id));
            }
            let class = if k < n_explicit {
                k as u32
            } else {
                plan.bulk_flows[k - n_explicit].1
            };
            flows.push(Flow::new(
                Ends::Tcp(Connection::new(id, tcp, cc, f.size_pkts)),
                add_route(&route.fwd),
                add_route(&route.rev),
                class,
                Time::ZERO,
            ));
            meta.push(FlowMeta {
                name,
                spec: k,
                start,
                stop,
                size: f.size_pkts,
                trace: f.trace,
                base_rtt: net.base_rtt(route),
            });
        }
        let groups: Vec<(RouteId, RouteId, Time)> = net
            .groups
            .iter()
            .map(|g| (add_route(&g.fwd), add_route(&g.rev), net.base_rtt(g)))
            .collect();
        fold_links(&mut links, &mut hops, &monitored);
        let mut udp_flows = Vec::with_capacity(plan.udp.len());
        for (u, src) in plan.udp.iter().enumerate() {
            let (fwd, rev, _) = groups[src.group];
            udp_flows.push(flows.len() as FlowId);
            flows.push(Flow::new(
                Ends::Udp { next_seq: 0 },
                fwd,
                rev,
                src.class,
                Time::ZERO,
            ));
            if let Some(t) = src.first() {
                events.push(t, Event::Udp(u as u32));
            }
        }
        let mut web = plan.web;
        let mut sessions = Sessions::default();
        for (s, src) in web.iter_mut().enumerate() {
            if src.session.is_some() {
                Self::preroll(s as u32, src, &mut sessions, &mut events);
            } else if let Some(t) = src.next_arrival(None) {
                events.push(t, Event::WebArrival(s as u32));
            }
        }
        let mut samplers = Vec::new();
        for (period_ms, kind) in [
            (p.flow_period_ms, SampleKind::Flows),
            (p.queue_period_ms, SampleKind::Queues),
            (class_period, SampleKind::Classes),
        ] {
            if period_ms > 0.0 {
                events.push(Time::ZERO, Event::Sample(samplers.len() as u32));
                samplers.push((ms(period_ms), kind));
            }
        }
        let n_classes = plan.classes.len();
        Ok(World {
            now: Time::ZERO,
            end,
            packet_size: sc.packet_size,
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
            web,
            sessions,
            udp: plan.udp,
            udp_flows,
            samplers,
            flow_series: FlowSeries::default(),
            queue_series: QueueSeries::default(),
            class_series: ClassSeries::default(),
            transfers: Transfers::default(),
            scratch: Vec::with_capacity(64),
            late_drops: Vec::new(),
            free_late_drops: Vec::new(),
        })
    }

    /// Starts SURGE source `s` in steady state: sessions arriving in the
    /// `preroll_s` before its start are played forward without transfers;
    /// those still running at the start are scheduled at their next file,
    /// and the first arrival after the start is scheduled.
    fn preroll(s: u32, src: &mut WebSource, sessions: &mut Sessions, events: &mut EventQueue) {
        let start = src.start();
        let mut t = -src.preroll_s();
        loop {
            t += src.gap_s();
            if t >= 0.0 {
                let at = start + Time::from_secs_f64(t);
                if at < src.stop {
                    events.push(at, Event::WebArrival(s));
                }
                return;
            }
            let mut sess = src.new_session(s);
            let mut at = t;
            loop {
                if at >= 0.0 {
                    let when = start + Time::from_secs_f64(at);
                    if when < src.stop {
                        events.push(when, Event::Session(sessions.insert(sess)));
                    }
                    break;
                }
                match src.next_in_session(&mut sess) {
                    Some(gap) => at += gap.secs(),
                    None => break,
                }
            }
        }
    }

    /// The same world with no link folded, every link spending a delivery
    /// event per packet; call before running. Its results are the folded
    /// world's (only events scheduled for the same picosecond may run in
    /// another order): a check on the folding.
    pub fn unfolded(mut self) -> World {
        debug_assert_eq!(self.events.processed(), 0);
        for link in &mut self.links {
            link.set_folded(false);
        }
        mark_folded_next(&self.links, &mut self.hops);
        self
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

    /// Runs every event up to `until` (capped at the end of the run).
    pub fn advance(&mut self, until: Time) {
        let until = until.min(self.end);
        while let Some(t) = self.events.peek_time() {
            if t > until {
                break;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            self.now = t;
            self.handle(ev);
        }
        self.now = self.now.max(until);
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
            Event::LateDrop(i) => self.on_late_drop(i),
            Event::Timer {
                flow,
                kind,
                generation,
            } => self.on_timer(flow, kind, generation),
            Event::FlowStart(f) => self.on_flow_start(f),
            Event::FlowStop(f) => {
                if let Ends::Tcp(c) = &mut self.flows[f as usize].ends {
                    c.sender.stop();
                }
            }
            Event::Sample(i) => self.sample(i),
            Event::DelayExit(f) => self.on_delay_exit(f),
            Event::WebArrival(s) => self.on_web_arrival(s as usize),
            Event::Session(id) => self.session_step(id),
            Event::Udp(u) => self.on_udp(u as usize),
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
            fl.transfer = Some(self.transfers.begin(
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
    fn offer(&mut self, mut pkt: Packet, t: Time) {
        let hop = self.hops[pkt.hop as usize];
        let l = hop.link;
        let link = &mut self.links[l as usize];
        match link.offer(pkt, t, !hop.next_folded) {
            Offer::Accepted { arrival, schedule } => {
                if hop.next_folded {
                    pkt.hop += 1;
                    self.offer(pkt, arrival);
                } else if schedule {
                    self.events.push(arrival, Event::LinkDelivery(l));
                }
            }
            o @ (Offer::Dropped | Offer::Lost) => {
                if link.is_folded() {
                    let drop = Some((l, pkt, o == Offer::Lost));
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
        }
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
            self.offer(pkt, self.now);
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

    /// A packet reaches the endpoint at the end of its route.
    fn arrive(&mut self, pkt: Packet) {
        let f = pkt.flow;
        let now = self.now;
        let mut out = std::mem::take(&mut self.scratch);
        let fl = &mut self.flows[f as usize];
        let cls = fl.class as usize;
        let mut completed = false;
        match (&mut fl.ends, pkt.payload) {
            (Ends::Udp { .. }, _) => {
                fl.data_received += 1;
                let c = &mut self.class_counters[cls];
                c.received += 1;
                c.delivered_bytes += u64::from(pkt.size);
            }
            (Ends::Tcp(conn), Payload::Data { seq, tsval }) => {
                fl.data_received += 1;
                let n = conn.receiver.on_data(seq, tsval, now, &mut out);
                fl.delivered_pkts += n;
                let c = &mut self.class_counters[cls];
                c.received += 1;
                c.delivered_bytes += n * u64::from(conn.sender.tcb.mss);
            }
            (Ends::Tcp(conn), ack @ Payload::Ack { .. }) => {
                conn.on_ack(now, ack, &mut out);
                completed = !fl.done && conn.sender.completed_at.is_some();
            }
        }
        if completed {
            fl.done = true;
            if let Some(row) = fl.transfer {
                self.transfers.end(row, now.secs());
            }
            self.class_counters[cls].completed += 1;
            self.class_active[cls] -= 1;
        }
        if matches!(self.flows[f as usize].ends, Ends::Tcp(_)) {
            self.flush(f, &mut out);
        }
        self.scratch = out;
        self.packet_gone(f);
    }

    fn on_timer(&mut self, f: FlowId, kind: TimerKind, generation: u32) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.scratch);
        let Ends::Tcp(c) = &mut self.flows[f as usize].ends else {
            unreachable!("timer of a UDP flow");
        };
        c.on_timer(kind, generation, now, &mut out);
        self.flush(f, &mut out);
        self.scratch = out;
    }

    fn on_web_arrival(&mut self, s: usize) {
        let now = self.now;
        let src = &mut self.web[s];
        if let Some(t) = src.next_arrival(Some(now)) {
            self.events.push(t, Event::WebArrival(s as u32));
        }
        if src.session.is_none() {
            let rtt_ms = src.draw_rtt_ms();
            self.start_transfer(s, rtt_ms);
            return;
        }
        let session = src.new_session(s as u32);
        let id = self.sessions.insert(session);
        self.session_step(id);
    }

    /// A SURGE session requests its next file now, then waits its active
    /// OFF time (more files on this page) or think time (next page).
    fn session_step(&mut self, id: u32) {
        let now = self.now;
        let sess = *self.sessions.get_mut(id);
        let s = sess.source as usize;
        if now >= self.web[s].stop {
            self.sessions.remove(id);
            return;
        }
        self.start_transfer(s, sess.rtt_ms);
        let src = &mut self.web[s];
        let next = src
            .next_in_session(self.sessions.get_mut(id))
            .map(|gap| now + gap);
        match next {
            Some(t) if t < src.stop => self.events.push(t, Event::Session(id)),
            _ => self.sessions.remove(id),
        }
    }

    /// Opens a transfer of web source `s` now, with a drawn size, over the
    /// source's host group, its RTT raised to `rtt_ms` by a delay line.
    fn start_transfer(&mut self, s: usize, rtt_ms: Option<f64>) {
        let now = self.now;
        let src = &mut self.web[s];
        let drawn = src.draw_size();
        let (fwd, rev, base) = self.groups[src.group];
        let rtt = rtt_ms.map_or(base, |r| ms(r).max(base));
        let class = src.class;
        let proto = &src.proto;
        let f = match self.free_slots.pop() {
            Some(f) => f,
            None => {
                // A new slot; its provisional endpoints are replaced below.
                self.flows.push(Flow::new(
                    Ends::Udp { next_seq: 0 },
                    fwd,
                    rev,
                    class,
                    Time::ZERO,
                ));
                (self.flows.len() - 1) as FlowId
            }
        };
        let mut conn = Connection::new(f, proto.cfg, proto.cc.clone(), Some(drawn.pkts));
        let slot = &mut self.flows[f as usize];
        if let Ends::Tcp(old) = &slot.ends {
            // Keep the old timers' pending events (see the module doc).
            conn.inherit_timers(old);
        }
        let mut delay_line = std::mem::take(&mut slot.delay_line);
        delay_line.clear();
        *slot = Flow::new(Ends::Tcp(conn), fwd, rev, class, rtt - base);
        slot.delay_line = delay_line;
        slot.transfer =
            Some(
                self.transfers
                    .begin(class, -1, drawn.pkts, drawn.bytes, now.secs(), rtt.secs()),
            );
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

    fn on_udp(&mut self, u: usize) {
        let src = &mut self.udp[u];
        let size = src.size;
        if let Some(t) = src.sent(self.now) {
            self.events.push(t, Event::Udp(u as u32));
        }
        let f = self.udp_flows[u];
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
                payload: Payload::Data { seq, tsval: 0 },
            },
            self.now,
        );
    }

    fn sample(&mut self, i: u32) {
        let (period, kind) = self.samplers[i as usize];
        let t = self.now.secs();
        match kind {
            SampleKind::Flows => {
                let s = &mut self.flow_series;
                for (id, (fl, m)) in self.flows.iter().zip(&self.meta).enumerate() {
                    let sender = fl.sender();
                    if !m.trace || !sender.is_active() {
                        continue;
                    }
                    let tcb = &sender.tcb;
                    s.time.push(t);
                    s.flow.push(id as u32);
                    s.cwnd.push(tcb.cwnd);
                    s.ssthresh.push(tcb.ssthresh);
                    s.srtt.push(tcb.srtt.map_or(f64::NAN, |x| x.secs()));
                    s.delivered.push(fl.delivered_pkts * u64::from(tcb.mss));
                    let st = sender.stats;
                    s.sent.push(st.sent);
                    s.retransmitted.push(st.retransmitted);
                    s.timeouts.push(st.timeouts);
                }
            }
            SampleKind::Queues => {
                let s = &mut self.queue_series;
                for &l in &self.monitored {
                    let link = &mut self.links[l as usize];
                    link.advance(self.now);
                    s.time.push(t);
                    s.link.push(l);
                    s.qlen.push(link.waiting());
                    s.qbytes.push(link.waiting_bytes());
                    let c = link.counters_at(self.now);
                    s.departed_bytes.push(c.bytes_departed);
                    s.drops.push(c.drops);
                }
            }
            SampleKind::Classes => {
                let s = &mut self.class_series;
                for (c, (k, active)) in self
                    .class_counters
                    .iter()
                    .zip(&self.class_active)
                    .enumerate()
                {
                    s.time.push(t);
                    s.class.push(c as u32);
                    s.delivered.push(k.delivered_bytes);
                    s.offered.push(k.offered_bytes);
                    s.sent.push(k.sent_bytes);
                    s.active.push(*active);
                }
            }
        }
        let next = self.now + period;
        if next <= self.end {
            self.events.push(next, Event::Sample(i));
        }
    }

    /// Stops the run where it is and collects the results.
    pub fn finish(mut self) -> Results {
        let mut in_transit = vec![0u64; self.flows.len()];
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
        for (fl, &n) in self.flows.iter().zip(&in_transit) {
            self.class_counters[fl.class as usize].in_transit += n;
        }
        let flows = self
            .flows
            .iter()
            .zip(&self.meta)
            .zip(in_transit)
            .map(|((fl, m), transit)| {
                let sender = fl.sender();
                let st = sender.stats;
                FlowSummary {
                    name: m.name.clone(),
                    algorithm: sender.cc.name().to_string(),
                    spec: m.spec,
                    start_s: m.start.secs(),
                    stop_s: m.stop.map(Time::secs),
                    size_pkts: m.size,
                    base_rtt_s: m.base_rtt.secs(),
                    mss: sender.tcb.mss,
                    sent: st.sent,
                    retransmitted: st.retransmitted,
                    fast_retransmits: st.fast_retransmits,
                    timeouts: st.timeouts,
                    undos: st.undos,
                    delivered_bytes: fl.delivered_pkts * u64::from(sender.tcb.mss),
                    data_received: fl.data_received,
                    data_dropped: fl.data_dropped,
                    acks_dropped: fl.acks_dropped,
                    data_in_transit: transit,
                    first_loss_s: fl.first_loss.map(Time::secs),
                    completed_s: sender.completed_at.map(Time::secs),
                    final_cwnd: sender.tcb.cwnd,
                }
            })
            .collect();
        let links = self
            .links
            .iter()
            .enumerate()
            .map(|(j, l)| LinkSummary {
                name: l.name.clone(),
                rate_bps: l.rate_bps,
                delay_s: l.delay.secs(),
                buffer_pkts: match l.buffer {
                    BufferLimit::Packets(p) => Some(p),
                    BufferLimit::Bytes(_) => None,
                },
                buffer_bytes: match l.buffer {
                    BufferLimit::Bytes(b) => Some(b),
                    BufferLimit::Packets(_) => None,
                },
                monitored: self.monitored.contains(&(j as LinkId)),
                counters: l.counters_at(self.now),
            })
            .collect();
        let classes = self
            .classes
            .into_iter()
            .zip(self.class_counters)
            .map(|(info, counters)| ClassSummary { info, counters })
            .collect();
        Results {
            sim_time_s: self.now.secs(),
            events: self.events.processed(),
            flow_series: self.flow_series,
            queue_series: self.queue_series,
            class_series: self.class_series,
            transfers: self.transfers,
            classes,
            flows,
            links,
        }
    }
}

/// Folds every link fed by exactly one other link and by no host (see
/// `net::link`), unless it is probed. Folding never chains: a folded link's
/// feeder is not folded, nor is a link feeding a folded one, because only
/// an unfolded link offers at the world's clock.
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
            if !monitored.contains(&(l as LinkId)) && !links[k].is_folded() && !feeds_folded[l] {
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
