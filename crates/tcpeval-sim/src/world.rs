//! The world: links, flows and the event loop.
//!
//! Packets live in link FIFOs; the heap holds one delivery event per busy
//! link, the flows' lazily cancelled timers, flow starts/stops and the probe
//! samplers. A run is single-threaded and deterministic: the same scenario
//! and seed give bit-identical results.

use crate::event::{Event, EventQueue, FlowId, LinkId, TimerKind};
use crate::net::{build_network, BufferLimit, Link, Offer};
use crate::packet::{Packet, Payload};
use crate::probe::{FlowSeries, QueueSeries, SampleKind};
use crate::results::{FlowSummary, LinkSummary, Results};
use crate::rng::{purpose, stream, BernoulliGaps};
use crate::scenario::{check, check_pos, Scenario, ScenarioError};
use crate::tcp::sender::AckIn;
use crate::tcp::{Receiver, Sender};
use crate::time::Time;
use rand::Rng;

/// One flow: both endpoints, its routes and its bookkeeping.
#[derive(Debug)]
struct Flow {
    name: String,
    spec: usize,
    sender: Sender,
    receiver: Receiver,
    fwd: Vec<LinkId>,
    rev: Vec<LinkId>,
    start: Time,
    stop: Option<Time>,
    size: Option<u64>,
    trace: bool,
    base_rtt: Time,
    delivered_pkts: u64,
    data_received: u64,
    data_dropped: u64,
    acks_dropped: u64,
    first_loss: Option<Time>,
}

/// A simulation ready to run.
#[derive(Debug)]
pub struct World {
    now: Time,
    end: Time,
    events: EventQueue,
    links: Vec<Link>,
    monitored: Vec<LinkId>,
    flows: Vec<Flow>,
    samplers: Vec<(Time, SampleKind)>,
    flow_series: FlowSeries,
    queue_series: QueueSeries,
    scratch: Vec<Packet>,
}

fn ms(v: f64) -> Time {
    Time::from_secs_f64(v / 1e3)
}

impl World {
    /// Validates `sc` and builds the world at time zero.
    pub fn new(sc: &Scenario) -> Result<World, ScenarioError> {
        check_pos("duration_s", sc.duration_s, 1e7)?;
        check("packet_size", f64::from(sc.packet_size), 80.0, 65535.0)?;
        if sc.flows.is_empty() {
            return Err(ScenarioError::new("flows", "at least one flow is needed"));
        }
        for (k, f) in sc.flows.iter().enumerate() {
            check(&format!("flows[{k}].count"), f64::from(f.count), 1.0, 1e6)?;
        }
        sc.tcp.resolve("tcp", sc.packet_size)?;
        let p = &sc.probes;
        for (name, v) in [
            ("flow_period_ms", p.flow_period_ms),
            ("queue_period_ms", p.queue_period_ms),
        ] {
            if v != 0.0 {
                check(&format!("probes.{name}"), v, 0.001, 1e9)?;
            }
        }
        let net = build_network(sc)?;
        let end = Time::from_secs_f64(sc.duration_s);
        let mut links = Vec::with_capacity(net.links.len());
        for (j, spec) in net.links.iter().enumerate() {
            let loss = (spec.loss > 0.0).then(|| {
                BernoulliGaps::new(spec.loss, stream(sc.seed, purpose::LINK_LOSS, j as u64))
            });
            links.push(Link::new(
                spec.name.clone(),
                spec.rate_bps,
                spec.delay,
                net.buffers[j],
                loss,
            ));
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
        let mut events = EventQueue::new();
        let mut flows = Vec::with_capacity(net.routes.len());
        let mut copy_of_spec = vec![0u32; sc.flows.len()];
        for (i, route) in net.routes.iter().enumerate() {
            let k = route.spec;
            let f = &sc.flows[k];
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
            let params = serde_json::Value::Object(f.params.clone());
            let cc = tcpeval_cc::build(&f.algorithm, &params).map_err(|e| {
                if e.field == "algorithm" {
                    ScenarioError::new(at("algorithm"), e.message)
                } else if e.field.is_empty() {
                    ScenarioError::new(at("params"), e.message)
                } else {
                    ScenarioError::new(format!("flows[{k}].params.{}", e.field), e.message)
                }
            })?;
            let tcp = f.tcp.over(&sc.tcp).resolve(&at("tcp"), sc.packet_size)?;
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
            flows.push(Flow {
                name,
                spec: k,
                sender: Sender::new(id, tcp, cc, f.size_pkts),
                receiver: Receiver::new(id, &tcp),
                fwd: route.fwd.clone(),
                rev: route.rev.clone(),
                start,
                stop,
                size: f.size_pkts,
                trace: f.trace,
                base_rtt: net.base_rtt(route),
                delivered_pkts: 0,
                data_received: 0,
                data_dropped: 0,
                acks_dropped: 0,
                first_loss: None,
            });
        }
        let mut samplers = Vec::new();
        for (period_ms, kind) in [
            (p.flow_period_ms, SampleKind::Flows),
            (p.queue_period_ms, SampleKind::Queues),
        ] {
            if period_ms > 0.0 {
                events.push(Time::ZERO, Event::Sample(samplers.len() as u32));
                samplers.push((ms(period_ms), kind));
            }
        }
        Ok(World {
            now: Time::ZERO,
            end,
            events,
            links,
            monitored,
            flows,
            samplers,
            flow_series: FlowSeries::default(),
            queue_series: QueueSeries::default(),
            scratch: Vec::with_capacity(64),
        })
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
            Event::Timer {
                flow,
                kind,
                generation,
            } => self.on_timer(flow, kind, generation),
            Event::FlowStart(f) => {
                let mut out = std::mem::take(&mut self.scratch);
                self.flows[f as usize].sender.start(self.now, &mut out);
                self.flush(f, &mut out);
                self.scratch = out;
            }
            Event::FlowStop(f) => self.flows[f as usize].sender.stop(),
            Event::Sample(i) => self.sample(i),
        }
    }

    fn offer(&mut self, l: LinkId, pkt: Packet) {
        match self.links[l as usize].offer(pkt, self.now) {
            Offer::Accepted { arrival, was_empty } => {
                if was_empty {
                    self.events.push(arrival, Event::LinkDelivery(l));
                }
            }
            Offer::Dropped | Offer::Lost => {
                let f = &mut self.flows[pkt.flow as usize];
                if pkt.is_data() {
                    f.data_dropped += 1;
                    f.first_loss.get_or_insert(self.now);
                } else {
                    f.acks_dropped += 1;
                }
            }
        }
    }

    /// Sends the packets an endpoint of flow `f` produced and pushes the
    /// flow's timer events that became due for scheduling.
    fn flush(&mut self, f: FlowId, out: &mut Vec<Packet>) {
        let (first_fwd, first_rev) = {
            let fl = &self.flows[f as usize];
            (fl.fwd[0], fl.rev[0])
        };
        for pkt in out.drain(..) {
            let l = if pkt.is_data() { first_fwd } else { first_rev };
            self.offer(l, pkt);
        }
        let fl = &mut self.flows[f as usize];
        let timers = [
            (TimerKind::Rto, &mut fl.sender.rto_timer),
            (TimerKind::DelayedAck, &mut fl.receiver.delack),
            (TimerKind::Cc, &mut fl.sender.cc_timer),
        ];
        for (kind, timer) in timers {
            if let Some((t, generation)) = timer.to_schedule() {
                self.events.push(
                    t,
                    Event::Timer {
                        flow: f,
                        kind,
                        generation,
                    },
                );
            }
        }
    }

    fn on_delivery(&mut self, l: LinkId) {
        let (mut pkt, next) = self.links[l as usize].deliver_head(self.now);
        if let Some(t) = next {
            self.events.push(t, Event::LinkDelivery(l));
        }
        let f = pkt.flow;
        let route = {
            let fl = &self.flows[f as usize];
            if pkt.is_data() {
                &fl.fwd
            } else {
                &fl.rev
            }
        };
        let hop = usize::from(pkt.hop) + 1;
        if hop < route.len() {
            let next_link = route[hop];
            pkt.hop = hop as u16;
            self.offer(next_link, pkt);
            return;
        }
        let mut out = std::mem::take(&mut self.scratch);
        let now = self.now;
        let fl = &mut self.flows[f as usize];
        match pkt.payload {
            Payload::Data { seq } => {
                fl.data_received += 1;
                fl.delivered_pkts += fl.receiver.on_data(seq, now, &mut out);
            }
            Payload::Ack {
                cum,
                trigger,
                n_sack,
                sack,
            } => {
                let ack = AckIn {
                    cum,
                    trigger,
                    sack: &sack[..usize::from(n_sack)],
                };
                fl.sender.on_ack(now, ack, &mut out);
            }
        }
        self.flush(f, &mut out);
        self.scratch = out;
    }

    fn on_timer(&mut self, f: FlowId, kind: TimerKind, generation: u32) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.scratch);
        let fl = &mut self.flows[f as usize];
        match kind {
            TimerKind::Rto => {
                if fl.sender.rto_timer.fire(generation, now) {
                    fl.sender.on_rto(now, &mut out);
                }
            }
            TimerKind::DelayedAck => {
                if fl.receiver.delack.fire(generation, now) {
                    fl.receiver.on_delack_timer(&mut out);
                }
            }
            TimerKind::Cc => {
                if fl.sender.cc_timer.fire(generation, now) {
                    fl.sender.on_cc_timer(now, &mut out);
                }
            }
        }
        self.flush(f, &mut out);
        self.scratch = out;
    }

    fn sample(&mut self, i: u32) {
        let (period, kind) = self.samplers[i as usize];
        let t = self.now.secs();
        match kind {
            SampleKind::Flows => {
                let s = &mut self.flow_series;
                for (id, fl) in self.flows.iter().enumerate() {
                    if !fl.trace || !fl.sender.is_active() {
                        continue;
                    }
                    let tcb = &fl.sender.tcb;
                    s.time.push(t);
                    s.flow.push(id as u32);
                    s.cwnd.push(tcb.cwnd);
                    s.ssthresh.push(tcb.ssthresh);
                    s.srtt.push(tcb.srtt.map_or(f64::NAN, |x| x.secs()));
                    s.delivered.push(fl.delivered_pkts * u64::from(tcb.mss));
                    let st = fl.sender.stats;
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
                    s.departed_bytes.push(link.counters.bytes_departed);
                    s.drops.push(link.counters.drops);
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
        let flows = self
            .flows
            .iter()
            .zip(in_transit)
            .map(|(fl, transit)| {
                let st = fl.sender.stats;
                FlowSummary {
                    name: fl.name.clone(),
                    algorithm: fl.sender.cc.name().to_string(),
                    spec: fl.spec,
                    start_s: fl.start.secs(),
                    stop_s: fl.stop.map(Time::secs),
                    size_pkts: fl.size,
                    base_rtt_s: fl.base_rtt.secs(),
                    mss: fl.sender.tcb.mss,
                    sent: st.sent,
                    retransmitted: st.retransmitted,
                    fast_retransmits: st.fast_retransmits,
                    timeouts: st.timeouts,
                    delivered_bytes: fl.delivered_pkts * u64::from(fl.sender.tcb.mss),
                    data_received: fl.data_received,
                    data_dropped: fl.data_dropped,
                    acks_dropped: fl.acks_dropped,
                    data_in_transit: transit,
                    first_loss_s: fl.first_loss.map(Time::secs),
                    completed_s: fl.sender.completed_at.map(Time::secs),
                    final_cwnd: fl.sender.tcb.cwnd,
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
                counters: l.counters,
            })
            .collect();
        Results {
            sim_time_s: self.now.secs(),
            events: self.events.processed(),
            flow_series: self.flow_series,
            queue_series: self.queue_series,
            flows,
            links,
        }
    }
}
