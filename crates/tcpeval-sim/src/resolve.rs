//! Scenario resolution: every check of a [`Scenario`] and every value the
//! world is built from, worked out once before the run. Errors name the
//! field (`flows[1].start_s`) and the allowed values, and come in a fixed
//! order (top-level fields, TCP options, probes, traffic, topology, queue
//! links, then each flow), so the same bad scenario always reports the same
//! field first.
//!
//! The result, a [`Resolved`] plan, holds the network (links, routes, host
//! groups), each flow with its start, algorithm and TCP options, the
//! traffic classes and generators, and the probe settings. It is built by
//! [`Resolved::new`] and consumed by [`crate::world::World::from_plan`].

use crate::event::LinkId;
use crate::flow::FlowMeta;
use crate::net::topology::build_network_with;
use crate::net::Network;
use crate::rng::{draws_on_this_thread, purpose, stream};
use crate::scenario::{check, check_pos, FlowSpec, Probes, Scenario, ScenarioError, TcpOptions};
use crate::tcp::TcpConfig;
use crate::time::Time;
use crate::traffic::udp::UdpSource;
use crate::traffic::web::WebSource;
use crate::traffic::{build_algorithm, plan, ClassInfo, ClassKind};
use rand::Rng;
use tcpeval_cc::Algorithm;

/// A scenario flow (one copy of a flow entry, or a generated long-lived
/// flow), resolved.
#[derive(Debug)]
pub(crate) struct FlowPlan {
    /// What the `flows` table says about it.
    pub(crate) meta: FlowMeta,
    /// Its traffic class.
    pub(crate) class: u32,
    /// Its TCP options.
    pub(crate) tcp: TcpConfig,
    /// Its congestion-control algorithm, built with its parameters.
    pub(crate) cc: Algorithm,
}

/// A validated scenario, resolved into what the world is built from.
#[derive(Debug)]
pub struct Resolved {
    /// End of the run.
    pub(crate) end: Time,
    /// Seed of every random stream.
    pub(crate) seed: u64,
    /// Wire size of a full data packet, bytes.
    pub(crate) packet_size: u32,
    /// Links, flow routes (one per entry of `flows`) and host groups.
    pub(crate) net: Network,
    /// Links whose queue is recorded.
    pub(crate) monitored: Vec<LinkId>,
    /// One per route of `net`, in the same order.
    pub(crate) flows: Vec<FlowPlan>,
    /// Every traffic class: the scenario's flow entries first.
    pub(crate) classes: Vec<ClassInfo>,
    /// Web sources, one per generator direction.
    pub(crate) web: Vec<WebSource>,
    /// UDP sources, one per generator direction.
    pub(crate) udp: Vec<UdpSource>,
    /// What to record.
    pub(crate) probes: Probes,
    /// Random numbers drawn while resolving (start-time jitter, a bulk
    /// generator's round-trip times and starts): see [`crate::rng`].
    pub(crate) random_draws: u64,
}

impl Resolved {
    /// Validates `sc` and resolves it; the error names the first bad field.
    pub fn new(sc: &Scenario) -> Result<Resolved, ScenarioError> {
        let draws_before = draws_on_this_thread();
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
        let monitored = monitored_links(&net, p)?;
        let mut flows = Vec::with_capacity(net.routes.len());
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
            let cc = build_algorithm(
                &format!("flows[{k}]"),
                &f.algorithm,
                &sc.flow_params(&f.algorithm, &f.params),
            )?;
            let tcp = sc.flow_tcp(&f.tcp)?.resolve(&at("tcp"), sc.packet_size)?;
            let name = match &f.name {
                Some(n) if f.count > 1 => format!("{n}.{}", copy_of_spec[k]),
                Some(n) => n.clone(),
                None => format!("flow{i}"),
            };
            copy_of_spec[k] += 1;
            let class = if k < n_explicit {
                k as u32
            } else {
                plan.bulk_flows[k - n_explicit].1
            };
            flows.push(FlowPlan {
                meta: FlowMeta {
                    name,
                    spec: k,
                    start: Time::from_secs_f64(start_s),
                    stop: f.stop_s.map(Time::from_secs_f64),
                    size: f.size_pkts,
                    trace: f.trace,
                    base_rtt: net.base_rtt(route),
                },
                class,
                tcp,
                cc,
            });
        }
        let generated = plan.classes.iter().any(|c| c.kind != ClassKind::Flows);
        let probes = Probes {
            class_period_ms: Some(sc.probes.class_period(generated)),
            ..sc.probes.clone()
        };
        Ok(Resolved {
            end: Time::from_secs_f64(sc.duration_s),
            seed: sc.seed,
            packet_size: sc.packet_size,
            net,
            monitored,
            flows,
            classes: plan.classes,
            web: plan.web,
            udp: plan.udp,
            probes,
            random_draws: draws_on_this_thread() - draws_before,
        })
    }
}

/// The links whose queue is recorded: `probes.queue_links` by name, or by
/// default the topology's monitored (core) links.
fn monitored_links(net: &Network, p: &Probes) -> Result<Vec<LinkId>, ScenarioError> {
    match &p.queue_links {
        None => Ok((0..net.links.len())
            .filter(|&j| net.links[j].monitored)
            .map(|j| j as LinkId)
            .collect()),
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
            Ok(ids)
        }
    }
}
