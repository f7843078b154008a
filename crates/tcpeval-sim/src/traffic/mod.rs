//! Generated traffic: what the scenario's `traffic` section asks for, and
//! its expansion into traffic classes, long-lived flows, host groups and
//! sources the world runs.
//!
//! - `traffic.web`: short TCP transfers that open, send their size and end
//!   ([`web`]): Poisson arrivals with an empirical or lognormal/Pareto size
//!   distribution, or SURGE-like sessions, each aimed at an offered load.
//! - `traffic.bulk`: long-lived TCP flows, N per direction, receiver window
//!   64 KB by default ([`bulk`]). They become ordinary flows with their own
//!   access links (the engine's fast path) and appear in the `flows` table.
//! - `traffic.udp`: unresponsive constant-bit-rate or on/off sources ([`udp`]).
//!
//! Every generator takes a `direction` (dumbbell: `forward`, `reverse` or
//! `both`; on a parking lot `forward` runs `from -> to`; on a graph along
//! `path`), and each direction is a traffic class of its own, named
//! `<name>` or, for `both`, `<name>.fwd` and `<name>.rev`. The scenario's
//! own flow entries are classes too (one per entry), listed first.
//!
//! Randomness: each generator direction draws from its own streams (one per
//! purpose: arrivals, sizes, RTTs, sessions, on/off periods), so adding a
//! generator or changing one's sizes never moves another's draws.

pub mod bulk;
pub mod dist;
pub mod generators;
pub mod rtt;
pub mod sizes;
pub mod udp;
pub mod web;

use crate::columns::{record, Cell, Column, Row};
use crate::net::topology::GroupSpec;
use crate::scenario::{Direction, FlowSpec, Scenario, ScenarioError, TcpOptions, Topology};
use crate::tcp::config::TcpConfig;
use crate::time_scale::ScaleTime;
use serde::{Deserialize, Serialize};
use tcpeval_cc::Algorithm;

/// The `traffic` section of a scenario.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Traffic {
    /// Short-transfer (web) generators.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub web: Vec<web::WebSpec>,
    /// Long-lived background TCP flows.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bulk: Vec<bulk::BulkSpec>,
    /// UDP sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub udp: Vec<udp::UdpSpec>,
}

impl ScaleTime for Traffic {
    /// Quick mode: each generator scales its own start and stop times.
    fn scale_time(&mut self, factor: f64) {
        self.web.iter_mut().for_each(|g| g.scale_time(factor));
        self.bulk.iter_mut().for_each(|g| g.scale_time(factor));
        self.udp.iter_mut().for_each(|g| g.scale_time(factor));
    }
}

impl Traffic {
    /// True when no traffic is generated (the section is left out of the
    /// normalized scenario, so older scenarios keep their hash).
    pub fn is_empty(&self) -> bool {
        self.web.is_empty() && self.bulk.is_empty() && self.udp.is_empty()
    }
}

/// Which directions a generator runs in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Directions {
    /// Left to right (dumbbell), `from -> to` (parking lot), along `path` (graph).
    #[default]
    Forward,
    /// The other way.
    Reverse,
    /// Both, as two independent classes `<name>.fwd` and `<name>.rev`.
    Both,
}

impl Directions {
    /// The directions, each with its class-name suffix.
    pub fn expand(self) -> Vec<(Direction, &'static str)> {
        match self {
            Directions::Forward => vec![(Direction::Forward, "")],
            Directions::Reverse => vec![(Direction::Reverse, "")],
            Directions::Both => vec![(Direction::Forward, ".fwd"), (Direction::Reverse, ".rev")],
        }
    }
}

/// Where a generator's hosts are, as given in its spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Endpoints<'a> {
    /// Field path of the generator.
    pub at: &'a str,
    /// Dumbbell directions.
    pub directions: Directions,
    /// Parking lot: entry router.
    pub from: Option<usize>,
    /// Parking lot: exit router.
    pub to: Option<usize>,
    /// Graph: node path.
    pub path: Option<&'a [String]>,
}

/// One direction of a generator, placed on the topology.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// Direction (the dumbbell builder's; a label elsewhere, where
    /// `from`/`to` or `path` already run the other way for `reverse`).
    pub direction: Direction,
    /// Parking lot: entry and exit routers for this direction.
    pub from: Option<usize>,
    /// See `from`.
    pub to: Option<usize>,
    /// Graph: the node path for this direction.
    pub path: Option<Vec<String>>,
    /// Class-name suffix (`""`, `.fwd`, `.rev`).
    pub suffix: &'static str,
}

impl Endpoints<'_> {
    /// Checks the fields against the topology and expands the directions.
    pub fn place(&self, topology: &Topology) -> Result<Vec<Placement>, ScenarioError> {
        let at = self.at;
        let forbid = |name: &str, set: bool, why: &str| {
            if set {
                Err(ScenarioError::new(format!("{at}.{name}"), why.to_string()))
            } else {
                Ok(())
            }
        };
        match topology {
            Topology::Dumbbell(_) => {
                forbid(
                    "from",
                    self.from.is_some() || self.to.is_some(),
                    "only a parking lot takes from/to routers",
                )?;
                forbid(
                    "path",
                    self.path.is_some(),
                    "only a graph topology takes node paths",
                )?;
            }
            Topology::ParkingLot(_) => {
                forbid(
                    "path",
                    self.path.is_some(),
                    "only a graph topology takes node paths",
                )?;
            }
            Topology::Graph(_) => {
                forbid(
                    "from",
                    self.from.is_some() || self.to.is_some(),
                    "only a parking lot takes from/to routers",
                )?;
            }
        }
        Ok(self
            .directions
            .expand()
            .into_iter()
            .map(|(d, suffix)| {
                let reverse = d == Direction::Reverse;
                let dumbbell = matches!(topology, Topology::Dumbbell(_));
                let (from, to) = if reverse && !dumbbell {
                    (self.to, self.from)
                } else {
                    (self.from, self.to)
                };
                let path = self.path.map(|p| {
                    let mut p = p.to_vec();
                    if reverse {
                        p.reverse();
                    }
                    p
                });
                Placement {
                    direction: d,
                    from,
                    to,
                    path,
                    suffix,
                }
            })
            .collect())
    }
}

/// What kind of traffic a class is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassKind {
    /// A flow entry of the scenario.
    Flows,
    /// Long-lived generated TCP flows.
    Bulk,
    /// Short generated TCP transfers.
    Web,
    /// UDP.
    Udp,
}

impl ClassKind {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            ClassKind::Flows => "flows",
            ClassKind::Bulk => "bulk",
            ClassKind::Web => "web",
            ClassKind::Udp => "udp",
        }
    }
}

/// A class's kind is exported as its name.
impl Row for ClassKind {
    fn cells(&self, name: &'static str, out: &mut Vec<(&'static str, Cell)>) {
        out.push((name, Cell::Str(self.name().to_string())));
    }
    fn columns(name: &'static str, doc: &'static str, out: &mut Vec<Column>) {
        out.push(Column {
            name,
            dtype: "str",
            doc,
        });
    }
}

/// A direction is exported as `forward` or `reverse`.
impl Row for Direction {
    fn cells(&self, name: &'static str, out: &mut Vec<(&'static str, Cell)>) {
        let text = match self {
            Direction::Forward => "forward",
            Direction::Reverse => "reverse",
        };
        out.push((name, Cell::Str(text.to_string())));
    }
    fn columns(name: &'static str, doc: &'static str, out: &mut Vec<Column>) {
        out.push(Column {
            name,
            dtype: "str",
            doc,
        });
    }
}

record! {
    /// A traffic class: one flow entry or one direction of a generator.
    #[derive(Clone, Debug, PartialEq)]
    pub struct ClassInfo {
        /// Display name.
        pub name: String,
        /// Kind.
        pub kind: ClassKind,
        /// `forward` or `reverse` (on a parking lot or graph: relative to the
        /// generator's `from -> to` or `path`).
        pub direction: Direction,
        /// Target offered load, bit/s (wire bits of data packets), if any.
        pub target_bps: Option<f64>,
    }
}

/// A generator's TCP setup, resolved once and cloned for every flow.
#[derive(Clone, Debug)]
pub struct TcpProto {
    /// Options.
    pub cfg: TcpConfig,
    /// A freshly built algorithm; each flow gets a clone.
    pub cc: Algorithm,
}

impl TcpProto {
    /// Builds the algorithm and options of a generator at field path `at`.
    pub fn new(
        at: &str,
        algorithm: &str,
        params: &serde_json::Map<String, serde_json::Value>,
        tcp: &TcpOptions,
        sc: &Scenario,
    ) -> Result<TcpProto, ScenarioError> {
        let cc = build_algorithm(at, algorithm, &sc.flow_params(algorithm, params))?;
        let cfg = sc
            .flow_tcp(tcp)?
            .resolve(&format!("{at}.tcp"), sc.packet_size)?;
        Ok(TcpProto { cfg, cc })
    }
}

/// Builds algorithm `name` with `params`, naming errors under `at`.
pub fn build_algorithm(
    at: &str,
    name: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Result<Algorithm, ScenarioError> {
    let p = serde_json::Value::Object(params.clone());
    tcpeval_cc::build(name, &p).map_err(|e| {
        if e.field == "algorithm" {
            ScenarioError::new(format!("{at}.algorithm"), e.message)
        } else if e.field.is_empty() {
            ScenarioError::new(format!("{at}.params"), e.message)
        } else {
            ScenarioError::new(format!("{at}.params.{}", e.field), e.message)
        }
    })
}

/// The traffic of a scenario, expanded.
#[derive(Debug)]
pub struct Plan {
    /// Every class: the scenario's flow entries first, then bulk, web and UDP classes.
    pub classes: Vec<ClassInfo>,
    /// Long-lived generated flows (appended after the scenario's flows) and their classes.
    pub bulk_flows: Vec<(FlowSpec, u32)>,
    /// Host groups of the web and UDP sources, in source order (web first).
    pub groups: Vec<GroupSpec>,
    /// Web sources, one per generator direction.
    pub web: Vec<web::WebSource>,
    /// UDP sources, one per generator direction.
    pub udp: Vec<udp::UdpSource>,
}

/// Expands `sc.traffic` (validating it; errors name the field).
pub fn plan(sc: &Scenario) -> Result<Plan, ScenarioError> {
    let mut classes: Vec<ClassInfo> = sc
        .flows
        .iter()
        .enumerate()
        .map(|(k, f)| ClassInfo {
            name: f.name.clone().unwrap_or_else(|| format!("flows[{k}]")),
            kind: ClassKind::Flows,
            direction: f.direction,
            target_bps: None,
        })
        .collect();
    let mut bulk_flows = Vec::new();
    for (g, spec) in sc.traffic.bulk.iter().enumerate() {
        bulk_flows.extend(bulk::expand(sc, g, spec, &mut classes)?);
    }
    let mut groups = Vec::new();
    let mut web_sources = Vec::new();
    for (g, spec) in sc.traffic.web.iter().enumerate() {
        web_sources.extend(web::sources(sc, g, spec, &mut classes, &mut groups)?);
    }
    let mut udp_sources = Vec::new();
    for (g, spec) in sc.traffic.udp.iter().enumerate() {
        udp_sources.extend(udp::sources(sc, g, spec, &mut classes, &mut groups)?);
    }
    Ok(Plan {
        classes,
        bulk_flows,
        groups,
        web: web_sources,
        udp: udp_sources,
    })
}

/// Checks a generator's start and stop times (s) against the run.
pub fn check_window(
    at: &str,
    start_s: f64,
    stop_s: Option<f64>,
    duration_s: f64,
) -> Result<(), ScenarioError> {
    crate::scenario::check(&format!("{at}.start_s"), start_s, 0.0, duration_s)?;
    if let Some(stop) = stop_s {
        if !(stop.is_finite() && stop > start_s) {
            return Err(ScenarioError::new(
                format!("{at}.stop_s"),
                format!("{stop} must be after start_s ({start_s})"),
            ));
        }
    }
    Ok(())
}
