//! Topology builders: dumbbell, parking-lot chain and general graph, each
//! turned into unidirectional links and, for every flow, the list of links
//! its data crosses (forward route) and its ACKs cross (reverse route).
//!
//! Node names: routers `R1`, `R2` (dumbbell) or `R0..Rn` (parking lot), and
//! per flow `i` a sender host `S<i>` and receiver host `D<i>`. Link names are
//! `tail->head`.
//!
//! Generated traffic (web transfers, UDP) attaches through host groups: one
//! sender host `<class>.src` and one receiver host `<class>.dst` per traffic
//! class, each on one access link pair shared by every flow of the class,
//! with zero propagation delay. A flow's own round-trip time is then set by
//! a per-flow delay line in the world (see `world.rs`), so thousands of
//! short flows need no links of their own. A group link stands for many
//! hosts' own links, so unless `topology.access.buffer` is set it never
//! drops ([`GROUP_BUFFER_PKTS`]): at the default access rate (ten times
//! the core) it only absorbs simultaneous bursts of the group's flows.

use super::link::BufferLimit;
use super::queue::QueueSpec;
use super::schedule::parse_changes;
use crate::event::LinkId;
use crate::scenario::{
    check, check_pos, AccessOpts, BufferSpec, Direction, FlowSpec, Graph, LinkOpts, ParkingLot,
    Scenario, ScenarioError, Topology,
};
use crate::time::Time;
use std::collections::HashMap;

/// A link before its buffer is resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    /// `tail->head`.
    pub name: String,
    /// Rate, bit/s.
    pub rate_bps: f64,
    /// One-way propagation delay.
    pub delay: Time,
    /// Buffer as configured.
    pub buffer: BufferSpec,
    /// Queue discipline.
    pub queue: QueueSpec,
    /// RTT for a BDP-relative buffer, if given.
    pub bdp_rtt: Option<Time>,
    /// Random loss probability per packet.
    pub loss: f64,
    /// Its queue is recorded by default.
    pub monitored: bool,
    /// Field path of the buffer setting, for errors.
    pub field: String,
    /// Rate changes: `(time, bit/s)`.
    pub rate_schedule: Vec<(Time, f64)>,
    /// Delay changes: `(time, s)`.
    pub delay_schedule: Vec<(Time, f64)>,
}

/// Buffer of a host group's access links when `topology.access.buffer` is
/// not set, packets: large enough never to fill.
pub const GROUP_BUFFER_PKTS: u32 = 1_000_000_000;

/// Where the hosts of one generated traffic class attach.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec {
    /// Class name; the hosts are `<name>.src` and `<name>.dst`.
    pub name: String,
    /// Field path of the generator, for errors.
    pub field: String,
    /// Dumbbell: data direction.
    pub direction: Direction,
    /// Parking lot: entry router (the sender side).
    pub from: Option<usize>,
    /// Parking lot: exit router (the receiver side).
    pub to: Option<usize>,
    /// Graph: node path from sender to receiver.
    pub path: Option<Vec<String>>,
}

/// The links one flow's packets cross.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowRoute {
    /// Index of the flow entry in the scenario (several flows share one with `count`).
    pub spec: usize,
    /// Data path, sender to receiver.
    pub fwd: Vec<LinkId>,
    /// ACK path, receiver to sender.
    pub rev: Vec<LinkId>,
}

/// The built network.
#[derive(Clone, Debug)]
pub struct Network {
    /// Link descriptions.
    pub links: Vec<LinkSpec>,
    /// Resolved buffer limits, one per link.
    pub buffers: Vec<BufferLimit>,
    /// One route per expanded flow, in scenario order.
    pub routes: Vec<FlowRoute>,
    /// One route per host group, in the order given (`spec` = group index).
    pub groups: Vec<FlowRoute>,
}

impl Network {
    /// Round-trip propagation delay of a route (sum of both paths' delays).
    pub fn base_rtt(&self, r: &FlowRoute) -> Time {
        r.fwd
            .iter()
            .chain(r.rev.iter())
            .fold(Time::ZERO, |acc, &l| acc + self.links[l as usize].delay)
    }

    /// Id of the link named `name`.
    pub fn link_id(&self, name: &str) -> Option<LinkId> {
        self.links
            .iter()
            .position(|l| l.name == name)
            .map(|i| i as LinkId)
    }
}

fn ms(v: f64) -> Time {
    Time::from_secs_f64(v / 1e3)
}

fn check_buffer(field: &str, b: &BufferSpec) -> Result<(), ScenarioError> {
    match *b {
        BufferSpec::Packets(p) => check(&format!("{field}.packets"), f64::from(p), 1.0, 1e9),
        BufferSpec::Bytes(x) => check(&format!("{field}.bytes"), x as f64, 1.0, 1e13),
        BufferSpec::Bdp(f) => check_pos(&format!("{field}.bdp"), f, 1000.0),
    }
}

struct Builder {
    links: Vec<LinkSpec>,
    index: HashMap<(String, String), LinkId>,
}

impl Builder {
    fn new() -> Self {
        Builder {
            links: Vec::new(),
            index: HashMap::new(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        from: &str,
        to: &str,
        rate_mbps: f64,
        delay_ms: f64,
        buffer: BufferSpec,
        bdp_rtt_ms: Option<f64>,
        loss: f64,
        monitored: bool,
        field: &str,
    ) -> LinkId {
        let id = self.links.len() as LinkId;
        self.links.push(LinkSpec {
            name: format!("{from}->{to}"),
            rate_bps: rate_mbps * 1e6,
            delay: ms(delay_ms),
            buffer,
            queue: QueueSpec::default(),
            bdp_rtt: bdp_rtt_ms.map(ms),
            loss,
            monitored,
            field: field.to_string(),
            rate_schedule: Vec::new(),
            delay_schedule: Vec::new(),
        });
        self.index.insert((from.to_string(), to.to_string()), id);
        id
    }

    fn get(&self, from: &str, to: &str) -> Option<LinkId> {
        self.index.get(&(from.to_string(), to.to_string())).copied()
    }

    /// Both directions of a core link, with its schedules.
    fn duplex(
        &mut self,
        a: &str,
        b: &str,
        o: &LinkOpts,
        field: &str,
        at: &str,
    ) -> Result<(), ScenarioError> {
        let (rate, delay) = schedules(at, &o.rate_schedule, &o.delay_schedule)?;
        let first = self.links.len();
        self.add(
            a,
            b,
            o.rate_mbps,
            o.delay_ms,
            o.buffer,
            o.bdp_rtt_ms,
            o.loss,
            true,
            field,
        );
        self.add(
            b,
            a,
            o.rate_mbps,
            o.delay_ms,
            o.buffer,
            o.bdp_rtt_ms,
            o.reverse_loss,
            true,
            field,
        );
        for l in &mut self.links[first..] {
            l.rate_schedule = rate.clone();
            l.delay_schedule = delay.clone();
            l.queue = o.queue.clone();
        }
        Ok(())
    }
}

/// Parses a link's rate (Mbit/s) and delay (ms) schedules into engine units.
#[allow(clippy::type_complexity)]
fn schedules(
    at: &str,
    rate: &[(f64, f64)],
    delay: &[(f64, f64)],
) -> Result<(Vec<(Time, f64)>, Vec<(Time, f64)>), ScenarioError> {
    let rate = parse_changes(&format!("{at}.rate_schedule"), rate, 0.0, 1e7, true)?
        .into_iter()
        .map(|(t, v)| (t, v * 1e6))
        .collect();
    let delay = parse_changes(&format!("{at}.delay_schedule"), delay, 0.0, 1e5, false)?
        .into_iter()
        .map(|(t, v)| (t, v / 1e3))
        .collect();
    Ok((rate, delay))
}

fn check_link_opts(field: &str, o: &LinkOpts) -> Result<(), ScenarioError> {
    check_pos(&format!("{field}.rate_mbps"), o.rate_mbps, 1e7)?;
    check(&format!("{field}.delay_ms"), o.delay_ms, 0.0, 1e5)?;
    check_buffer(&format!("{field}.buffer"), &o.buffer)?;
    o.queue.check(&format!("{field}.queue"))?;
    if let Some(r) = o.bdp_rtt_ms {
        check_pos(&format!("{field}.bdp_rtt_ms"), r, 1e6)?;
    }
    check(&format!("{field}.loss"), o.loss, 0.0, 1.0)?;
    check(&format!("{field}.reverse_loss"), o.reverse_loss, 0.0, 1.0)
}

/// The access rate (Mbit/s), the buffer of per-flow access links and the
/// buffer of host-group links.
fn access_params(
    access: &AccessOpts,
    core: &[&LinkOpts],
) -> Result<(f64, BufferSpec, BufferSpec), ScenarioError> {
    let fastest = core.iter().map(|o| o.rate_mbps).fold(0.0, f64::max);
    let rate = access.rate_mbps.unwrap_or(10.0 * fastest);
    check_pos("topology.access.rate_mbps", rate, 1e7)?;
    check("topology.access.delay_ms", access.delay_ms, 0.0, 1e5)?;
    let buffer = access.buffer.unwrap_or(core[0].buffer);
    check_buffer("topology.access.buffer", &buffer)?;
    let group = access
        .buffer
        .unwrap_or(BufferSpec::Packets(GROUP_BUFFER_PKTS));
    Ok((rate, buffer, group))
}

/// The one-way delay of each of a flow's two access links: from its
/// `rtt_ms` when given (`(rtt/2 - core one-way delay) / 2`), else the default.
fn access_delay(
    flow: &FlowSpec,
    k: usize,
    core_oneway_ms: f64,
    default_ms: f64,
) -> Result<f64, ScenarioError> {
    match flow.rtt_ms {
        None => Ok(default_ms),
        Some(rtt) => {
            let field = format!("flows[{k}].rtt_ms");
            check_pos(&field, rtt, 1e6)?;
            let a = (rtt / 2.0 - core_oneway_ms) / 2.0;
            if a < 0.0 {
                return Err(ScenarioError::new(
                    field,
                    format!(
                        "{rtt} ms is below the round-trip propagation delay of the core path; allowed >= {} ms",
                        2.0 * core_oneway_ms
                    ),
                ));
            }
            Ok(a)
        }
    }
}

fn no_graph_fields(f: &FlowSpec, k: usize) -> Result<(), ScenarioError> {
    if f.path.is_some() {
        return Err(ScenarioError::new(
            format!("flows[{k}].path"),
            "only a graph topology takes node paths",
        ));
    }
    Ok(())
}

/// Routes of the flows and of the host groups.
type Routes = (Builder, Vec<FlowRoute>, Vec<FlowRoute>);

/// The access links of a host group: sender host to `entry`, `exit` to the
/// receiver host, and back; zero delay, shared by the group's flows.
fn group_access(
    b: &mut Builder,
    g: &GroupSpec,
    entry: &str,
    exit: &str,
    rate: f64,
    buf: BufferSpec,
) -> [LinkId; 4] {
    let (s, r) = (format!("{}.src", g.name), format!("{}.dst", g.name));
    let af = "topology.access.buffer";
    [
        b.add(&s, entry, rate, 0.0, buf, None, 0.0, false, af),
        b.add(exit, &r, rate, 0.0, buf, None, 0.0, false, af),
        b.add(&r, exit, rate, 0.0, buf, None, 0.0, false, af),
        b.add(entry, &s, rate, 0.0, buf, None, 0.0, false, af),
    ]
}

fn dumbbell(
    flows: &[FlowSpec],
    groups: &[GroupSpec],
    d: &crate::scenario::Dumbbell,
) -> Result<Routes, ScenarioError> {
    check_link_opts("topology.bottleneck", &d.bottleneck)?;
    let (arate, abuf, gbuf) = access_params(&d.access, &[&d.bottleneck])?;
    let mut b = Builder::new();
    b.duplex(
        "R1",
        "R2",
        &d.bottleneck,
        "topology.bottleneck.buffer",
        "topology.bottleneck",
    )?;
    let mut routes = Vec::new();
    let mut i = 0usize;
    for (k, f) in flows.iter().enumerate() {
        no_graph_fields(f, k)?;
        if f.from.is_some() || f.to.is_some() {
            return Err(ScenarioError::new(
                format!("flows[{k}].from"),
                "only a parking lot takes from/to routers",
            ));
        }
        let a = access_delay(f, k, d.bottleneck.delay_ms, d.access.delay_ms)?;
        let (left, right) = match f.direction {
            Direction::Forward => ("R1", "R2"),
            Direction::Reverse => ("R2", "R1"),
        };
        for _ in 0..f.count {
            let (s, r) = (format!("S{i}"), format!("D{i}"));
            let af = "topology.access.buffer";
            let up = b.add(&s, left, arate, a, abuf, None, 0.0, false, af);
            let down = b.add(right, &r, arate, a, abuf, None, 0.0, false, af);
            let ack_up = b.add(&r, right, arate, a, abuf, None, 0.0, false, af);
            let ack_down = b.add(left, &s, arate, a, abuf, None, 0.0, false, af);
            let core = b.get(left, right).expect("core link");
            let core_back = b.get(right, left).expect("core link");
            routes.push(FlowRoute {
                spec: k,
                fwd: vec![up, core, down],
                rev: vec![ack_up, core_back, ack_down],
            });
            i += 1;
        }
    }
    let mut group_routes = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        let (left, right) = match g.direction {
            Direction::Forward => ("R1", "R2"),
            Direction::Reverse => ("R2", "R1"),
        };
        let [up, down, ack_up, ack_down] = group_access(&mut b, g, left, right, arate, gbuf);
        let core = b.get(left, right).expect("core link");
        let core_back = b.get(right, left).expect("core link");
        group_routes.push(FlowRoute {
            spec: k,
            fwd: vec![up, core, down],
            rev: vec![ack_up, core_back, ack_down],
        });
    }
    Ok((b, routes, group_routes))
}

/// The core hops of a parking-lot path from router `from` to router `to`,
/// after checking both exist and differ (`at`: the field path prefix).
fn chain_hops(
    at: &str,
    from: Option<usize>,
    to: Option<usize>,
    n: usize,
) -> Result<Vec<(usize, usize)>, ScenarioError> {
    let (Some(from), Some(to)) = (from, to) else {
        return Err(ScenarioError::new(
            format!("{at}.from"),
            format!("a parking-lot flow needs `from` and `to` router indices in 0..={n}"),
        ));
    };
    for (name, v) in [("from", from), ("to", to)] {
        if v > n {
            return Err(ScenarioError::new(
                format!("{at}.{name}"),
                format!("router {v} does not exist; allowed 0..={n}"),
            ));
        }
    }
    if from == to {
        return Err(ScenarioError::new(
            format!("{at}.to"),
            "must differ from `from`",
        ));
    }
    Ok(if from < to {
        (from..to).map(|j| (j, j + 1)).collect()
    } else {
        (to..from).rev().map(|j| (j + 1, j)).collect()
    })
}

fn parking_lot(
    flows: &[FlowSpec],
    groups: &[GroupSpec],
    p: &ParkingLot,
) -> Result<Routes, ScenarioError> {
    if p.links.is_empty() {
        return Err(ScenarioError::new(
            "topology.links",
            "a parking lot needs at least one link",
        ));
    }
    for (j, o) in p.links.iter().enumerate() {
        check_link_opts(&format!("topology.links[{j}]"), o)?;
    }
    let core: Vec<&LinkOpts> = p.links.iter().collect();
    let (arate, abuf, gbuf) = access_params(&p.access, &core)?;
    let mut b = Builder::new();
    for (j, o) in p.links.iter().enumerate() {
        b.duplex(
            &format!("R{j}"),
            &format!("R{}", j + 1),
            o,
            &format!("topology.links[{j}].buffer"),
            &format!("topology.links[{j}]"),
        )?;
    }
    let n = p.links.len();
    let core_links = |b: &Builder, hops: &[(usize, usize)]| -> (Vec<LinkId>, Vec<LinkId>) {
        let fwd = hops
            .iter()
            .map(|&(x, y)| {
                b.get(&format!("R{x}"), &format!("R{y}"))
                    .expect("core link")
            })
            .collect();
        let rev = hops
            .iter()
            .rev()
            .map(|&(x, y)| {
                b.get(&format!("R{y}"), &format!("R{x}"))
                    .expect("core link")
            })
            .collect();
        (fwd, rev)
    };
    let mut routes = Vec::new();
    let mut i = 0usize;
    for (k, f) in flows.iter().enumerate() {
        no_graph_fields(f, k)?;
        let hops = chain_hops(&format!("flows[{k}]"), f.from, f.to, n)?;
        let (from, to) = (f.from.expect("checked"), f.to.expect("checked"));
        let core_ms: f64 = hops.iter().map(|&(x, y)| p.links[x.min(y)].delay_ms).sum();
        let a = access_delay(f, k, core_ms, p.access.delay_ms)?;
        for _ in 0..f.count {
            let (s, r) = (format!("S{i}"), format!("D{i}"));
            let (entry, exit) = (format!("R{from}"), format!("R{to}"));
            let af = "topology.access.buffer";
            let mut fwd = vec![b.add(&s, &entry, arate, a, abuf, None, 0.0, false, af)];
            let mut rev = vec![b.add(&r, &exit, arate, a, abuf, None, 0.0, false, af)];
            let (core_fwd, core_rev) = core_links(&b, &hops);
            fwd.extend(core_fwd);
            rev.extend(core_rev);
            fwd.push(b.add(&exit, &r, arate, a, abuf, None, 0.0, false, af));
            rev.push(b.add(&entry, &s, arate, a, abuf, None, 0.0, false, af));
            routes.push(FlowRoute { spec: k, fwd, rev });
            i += 1;
        }
    }
    let mut group_routes = Vec::new();
    for (k, g) in groups.iter().enumerate() {
        let hops = chain_hops(&g.field, g.from, g.to, n)?;
        let (entry, exit) = (
            format!("R{}", g.from.expect("checked")),
            format!("R{}", g.to.expect("checked")),
        );
        let [up, down, ack_up, ack_down] = group_access(&mut b, g, &entry, &exit, arate, gbuf);
        let (core_fwd, core_rev) = core_links(&b, &hops);
        let mut fwd = vec![up];
        fwd.extend(core_fwd);
        fwd.push(down);
        let mut rev = vec![ack_up];
        rev.extend(core_rev);
        rev.push(ack_down);
        group_routes.push(FlowRoute { spec: k, fwd, rev });
    }
    Ok((b, routes, group_routes))
}

/// The links along a graph node path and back (`at`: the path's field).
fn graph_path(
    b: &Builder,
    names: &HashMap<&str, usize>,
    at: &str,
    path: &[String],
) -> Result<(Vec<LinkId>, Vec<LinkId>), ScenarioError> {
    if path.len() < 2 {
        return Err(ScenarioError::new(at, "needs at least two nodes"));
    }
    let mut fwd = Vec::new();
    let mut rev = Vec::new();
    for w in path.windows(2) {
        for n in w {
            if !names.contains_key(n.as_str()) {
                return Err(ScenarioError::new(at, format!("unknown node '{n}'")));
            }
        }
        fwd.push(
            b.get(&w[0], &w[1])
                .ok_or_else(|| ScenarioError::new(at, format!("no link {}->{}", w[0], w[1])))?,
        );
        rev.push(b.get(&w[1], &w[0]).ok_or_else(|| {
            ScenarioError::new(at, format!("no link {}->{} for the ACKs", w[1], w[0]))
        })?);
    }
    rev.reverse();
    Ok((fwd, rev))
}

fn graph(flows: &[FlowSpec], groups: &[GroupSpec], g: &Graph) -> Result<Routes, ScenarioError> {
    let mut names = HashMap::new();
    for (j, n) in g.nodes.iter().enumerate() {
        if names.insert(n.as_str(), j).is_some() {
            return Err(ScenarioError::new(
                format!("topology.nodes[{j}]"),
                format!("duplicate node '{n}'"),
            ));
        }
    }
    let mut b = Builder::new();
    for (j, l) in g.links.iter().enumerate() {
        let at = format!("topology.links[{j}]");
        for (f, node) in [("from", &l.from), ("to", &l.to)] {
            if !names.contains_key(node.as_str()) {
                return Err(ScenarioError::new(
                    format!("{at}.{f}"),
                    format!("unknown node '{node}'; known: {}", g.nodes.join(", ")),
                ));
            }
        }
        let opts = LinkOpts {
            rate_mbps: l.rate_mbps,
            delay_ms: l.delay_ms,
            buffer: l.buffer,
            queue: l.queue.clone(),
            bdp_rtt_ms: l.bdp_rtt_ms,
            loss: l.loss,
            reverse_loss: l.loss,
            rate_schedule: Vec::new(),
            delay_schedule: Vec::new(),
        };
        check_link_opts(&at, &opts)?;
        let (rate, delay) = schedules(&at, &l.rate_schedule, &l.delay_schedule)?;
        let field = format!("{at}.buffer");
        for (x, y) in std::iter::once((&l.from, &l.to)).chain(l.duplex.then_some((&l.to, &l.from)))
        {
            if b.get(x, y).is_some() {
                return Err(ScenarioError::new(
                    at.clone(),
                    format!("link {x}->{y} is defined twice"),
                ));
            }
            let id = b.add(
                x,
                y,
                l.rate_mbps,
                l.delay_ms,
                l.buffer,
                l.bdp_rtt_ms,
                l.loss,
                l.monitor,
                &field,
            );
            b.links[id as usize].rate_schedule = rate.clone();
            b.links[id as usize].delay_schedule = delay.clone();
            b.links[id as usize].queue = l.queue.clone();
        }
    }
    let mut routes = Vec::new();
    for (k, f) in flows.iter().enumerate() {
        let at = format!("flows[{k}].path");
        let Some(path) = &f.path else {
            return Err(ScenarioError::new(
                at,
                "a graph flow needs a node `path` from sender to receiver",
            ));
        };
        if f.rtt_ms.is_some() {
            return Err(ScenarioError::new(
                format!("flows[{k}].rtt_ms"),
                "a graph flow's RTT follows from its path's link delays; remove rtt_ms",
            ));
        }
        let (fwd, rev) = graph_path(&b, &names, &at, path)?;
        for _ in 0..f.count {
            routes.push(FlowRoute {
                spec: k,
                fwd: fwd.clone(),
                rev: rev.clone(),
            });
        }
    }
    let mut group_routes = Vec::new();
    for (k, gr) in groups.iter().enumerate() {
        let at = format!("{}.path", gr.field);
        let Some(path) = &gr.path else {
            return Err(ScenarioError::new(
                at,
                "on a graph, generated traffic needs a node `path` from sender to receiver",
            ));
        };
        let (fwd, rev) = graph_path(&b, &names, &at, path)?;
        group_routes.push(FlowRoute { spec: k, fwd, rev });
    }
    Ok((b, routes, group_routes))
}

/// The round-trip propagation delay of the core path between the access
/// links, ms: the smallest RTT a flow on it can have. Dumbbell: twice the
/// bottleneck delay; parking lot: twice the delays from router `from` to
/// `to`; `None` on a graph (or for a parking-lot path that does not exist,
/// which the topology builder reports).
pub fn core_rtt_ms(sc: &Scenario, from: Option<usize>, to: Option<usize>) -> Option<f64> {
    match &sc.topology {
        Topology::Dumbbell(d) => Some(2.0 * d.bottleneck.delay_ms),
        Topology::ParkingLot(p) => {
            let hops = chain_hops("", from, to, p.links.len()).ok()?;
            Some(
                2.0 * hops
                    .iter()
                    .map(|&(x, y)| p.links[x.min(y)].delay_ms)
                    .sum::<f64>(),
            )
        }
        Topology::Graph(_) => None,
    }
}

/// Builds the links and routes of `sc` with the scenario's flows.
pub fn build_network(sc: &Scenario) -> Result<Network, ScenarioError> {
    build_network_with(sc, &sc.flows, sc.flows.len(), &[])
}

/// Builds the links, the routes of `flows` (the scenario's own flow
/// entries first, `n_explicit` of them, then generated long-lived ones) and of the
/// host `groups`, and resolves every buffer.
///
/// A `bdp` buffer is sized from the smallest base RTT of the explicit flows
/// crossing the link; generated traffic does not shrink the buffer the
/// scenario's own flows are measured against. A link that no explicit flow
/// crosses uses the generated flows and groups crossing it instead.
pub fn build_network_with(
    sc: &Scenario,
    flows: &[FlowSpec],
    n_explicit: usize,
    groups: &[GroupSpec],
) -> Result<Network, ScenarioError> {
    let (b, routes, group_routes) = match &sc.topology {
        Topology::Dumbbell(d) => dumbbell(flows, groups, d)?,
        Topology::ParkingLot(p) => parking_lot(flows, groups, p)?,
        Topology::Graph(g) => graph(flows, groups, g)?,
    };
    let mut net = Network {
        links: b.links,
        buffers: Vec::new(),
        routes,
        groups: group_routes,
    };
    let min_rtt_over = |rs: &mut dyn Iterator<Item = &FlowRoute>| {
        let mut min_rtt = vec![Time::NEVER; net.links.len()];
        for r in rs {
            let rtt = net.base_rtt(r);
            for &l in r.fwd.iter().chain(r.rev.iter()) {
                min_rtt[l as usize] = min_rtt[l as usize].min(rtt);
            }
        }
        min_rtt
    };
    // Routes are per flow after `count` expands an entry; `spec` is the entry.
    let explicit = min_rtt_over(&mut net.routes.iter().filter(|r| r.spec < n_explicit));
    let generated = min_rtt_over(
        &mut net
            .routes
            .iter()
            .filter(|r| r.spec >= n_explicit)
            .chain(net.groups.iter()),
    );
    let min_rtt: Vec<Time> = explicit
        .iter()
        .zip(&generated)
        .map(|(&e, &g)| if e == Time::NEVER { g } else { e })
        .collect();
    let pkt_bits = f64::from(sc.packet_size) * 8.0;
    for (j, l) in net.links.iter().enumerate() {
        let limit = match l.buffer {
            BufferSpec::Packets(p) => BufferLimit::Packets(p),
            BufferSpec::Bytes(x) => BufferLimit::Bytes(x),
            BufferSpec::Bdp(f) => {
                let rtt = l.bdp_rtt.unwrap_or(min_rtt[j]);
                if rtt == Time::NEVER {
                    // No flow crosses the link: any buffer behaves the same.
                    BufferLimit::Packets(1)
                } else {
                    let bdp = l.rate_bps * rtt.secs() / pkt_bits;
                    BufferLimit::Packets((f * bdp).round().max(1.0) as u32)
                }
            }
        };
        net.buffers.push(limit);
    }
    Ok(net)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::from_json;

    fn dumbbell_json(flows: &str) -> String {
        format!(
            r#"{{"duration_s": 1, "topology": {{"kind": "dumbbell",
                "bottleneck": {{"rate_mbps": 500, "delay_ms": 10, "buffer": {{"bdp": 1.0}}}}}},
                "flows": [{flows}]}}"#
        )
    }

    #[test]
    fn dumbbell_rtts_and_bdp_buffer() {
        let sc = from_json(&dumbbell_json(
            r#"{"algorithm": "reno", "rtt_ms": 60}, {"algorithm": "reno", "rtt_ms": 120, "direction": "reverse"}"#,
        ))
        .unwrap();
        let net = build_network(&sc).unwrap();
        assert_eq!(net.routes.len(), 2);
        assert_eq!(net.base_rtt(&net.routes[0]), Time::from_ms(60));
        assert_eq!(net.base_rtt(&net.routes[1]), Time::from_ms(120));
        // Forward flow crosses R1->R2; the reverse flow's data crosses R2->R1.
        assert_eq!(net.links[net.routes[0].fwd[1] as usize].name, "R1->R2");
        assert_eq!(net.links[net.routes[1].fwd[1] as usize].name, "R2->R1");
        assert_eq!(net.routes[0].rev[1], net.routes[1].fwd[1]);
        // BDP = 500 Mbit/s x 60 ms / 12000 bit = 2500 packets.
        let core = net.link_id("R1->R2").unwrap() as usize;
        assert_eq!(net.buffers[core], BufferLimit::Packets(2500));
    }

    #[test]
    fn a_bdp_buffer_counts_every_copy_of_a_counted_entry() {
        // Entries [120 ms x 3, 60 ms]: four routes, the 60 ms one last. The
        // BDP takes the smallest RTT of all four: 500 Mbit/s x 60 ms = 2500
        // packets (counting only the first two routes gave 120 ms, 5000).
        let sc = from_json(&dumbbell_json(
            r#"{"algorithm": "reno", "rtt_ms": 120, "count": 3}, {"algorithm": "reno", "rtt_ms": 60}"#,
        ))
        .unwrap();
        let net = build_network(&sc).unwrap();
        assert_eq!(net.routes.len(), 4);
        let core = net.link_id("R1->R2").unwrap() as usize;
        assert_eq!(net.buffers[core], BufferLimit::Packets(2500));
    }

    #[test]
    fn rtt_below_core_delay_is_rejected() {
        let sc = from_json(&dumbbell_json(r#"{"algorithm": "reno", "rtt_ms": 15}"#)).unwrap();
        let e = build_network(&sc).unwrap_err();
        assert_eq!(e.field, "flows[0].rtt_ms");
        assert!(e.message.contains("allowed >= 20"), "{e}");
    }

    #[test]
    fn negative_rate_is_rejected() {
        let sc =
            from_json(&dumbbell_json(r#"{"algorithm": "reno"}"#).replace("500", "-5")).unwrap();
        let e = build_network(&sc).unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.rate_mbps");
    }

    #[test]
    fn parking_lot_routes() {
        let sc = from_json(
            r#"{"duration_s": 1, "topology": {"kind": "parking_lot", "links": [
                {"rate_mbps": 1000, "delay_ms": 10, "buffer": {"packets": 1666}},
                {"rate_mbps": 1000, "delay_ms": 5, "buffer": {"packets": 833}}]},
              "flows": [{"algorithm": "reno", "from": 0, "to": 2},
                        {"algorithm": "reno", "from": 2, "to": 1, "rtt_ms": 30}]}"#,
        )
        .unwrap();
        let net = build_network(&sc).unwrap();
        let names = |ids: &[LinkId]| {
            ids.iter()
                .map(|&l| net.links[l as usize].name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&net.routes[0].fwd),
            ["S0->R0", "R0->R1", "R1->R2", "R2->D0"]
        );
        assert_eq!(
            names(&net.routes[0].rev),
            ["D0->R2", "R2->R1", "R1->R0", "R0->S0"]
        );
        assert_eq!(names(&net.routes[1].fwd), ["S1->R2", "R2->R1", "R1->D1"]);
        assert_eq!(net.base_rtt(&net.routes[1]), Time::from_ms(30));
        // Default access delay 1 ms: 2 x (10 + 5 + 2) = 34 ms.
        assert_eq!(net.base_rtt(&net.routes[0]), Time::from_ms(34));
    }

    #[test]
    fn graph_paths_and_errors() {
        let base = r#"{"duration_s": 1, "topology": {"kind": "graph", "nodes": ["a", "r", "b"], "links": [
                {"from": "a", "to": "r", "rate_mbps": 1000, "delay_ms": 1},
                {"from": "r", "to": "b", "rate_mbps": 100, "delay_ms": 20, "monitor": true}]},
              "flows": [{"algorithm": "reno", "path": PATH}]}"#;
        let sc = from_json(&base.replace("PATH", r#"["a", "r", "b"]"#)).unwrap();
        let net = build_network(&sc).unwrap();
        assert_eq!(net.base_rtt(&net.routes[0]), Time::from_ms(42));
        let sc = from_json(&base.replace("PATH", r#"["a", "x"]"#)).unwrap();
        let e = build_network(&sc).unwrap_err();
        assert_eq!(e.field, "flows[0].path");
        assert!(e.message.contains("unknown node 'x'"));
    }
}
