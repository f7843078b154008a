//! The scenario: what to simulate, as data (TOML or JSON via serde), and its
//! validation. Every error names the offending field by its path
//! (`flows[1].rtt_ms`) and says which values are allowed.
//!
//! Units are in the field names: `_mbps` (Mbit/s), `_ms`, `_s`, `_pkts`,
//! `_bytes`. Defaults are those of spec/algorithms.md section 1.

use crate::platform::Platform;
use crate::tcp::config::{CountMode, LossMarking, LssMode, RecoveryMode, RtoMode, TcpConfig};
use crate::time::Time;
pub use crate::traffic::Traffic;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// A scenario error: the path of the field and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Dotted path of the field (`topology.bottleneck.rate_mbps`).
    pub field: String,
    /// What is wrong and which values are allowed.
    pub message: String,
}

impl ScenarioError {
    /// An error at `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

fn default_seed() -> u64 {
    1
}
fn default_packet_size() -> u32 {
    1500
}
fn default_true() -> bool {
    true
}
fn default_count() -> u32 {
    1
}
fn default_period_ms() -> f64 {
    10.0
}

/// A whole scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free-form name.
    #[serde(default)]
    pub name: String,
    /// Simulated duration, seconds (> 0).
    pub duration_s: f64,
    /// Seed of every random stream.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Wire size of a full data packet, bytes (headers included; 80..=65535).
    #[serde(default = "default_packet_size")]
    pub packet_size: u32,
    /// The network.
    pub topology: Topology,
    /// Platform preset (`linux`, `linux-2.6.13`, `linux-2.6.16`, `ns2`,
    /// `ns2-tcp-linux`): TCP options and algorithm parameters under the
    /// scenario's and the flows' own (see `platform.rs`). Left out of the
    /// normalized scenario when unset, so older scenarios keep their hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    /// TCP options for every flow (each flow may override them).
    #[serde(default)]
    pub tcp: TcpOptions,
    /// The flows.
    pub flows: Vec<FlowSpec>,
    /// Generated traffic: web transfers, long-lived background flows, UDP.
    #[serde(default, skip_serializing_if = "Traffic::is_empty")]
    pub traffic: Traffic,
    /// What to record.
    #[serde(default)]
    pub probes: Probes,
}

impl Scenario {
    /// The TCP options of a flow (or generator) whose own table is `own`:
    /// its own over the scenario's over the platform preset's.
    pub fn flow_tcp(&self, own: &TcpOptions) -> Result<TcpOptions, ScenarioError> {
        let mine = own.over(&self.tcp);
        Ok(match self.platform {
            Some(p) => mine.over(&p.tcp_options(self.packet_size)?),
            None => mine,
        })
    }

    /// The parameters of `algorithm` for a flow whose own are `own`: the
    /// platform preset's with the flow's over them.
    pub fn flow_params(&self, algorithm: &str, own: &Map<String, Value>) -> Map<String, Value> {
        let mut params = match self.platform {
            Some(p) => p.params(algorithm),
            None => Map::new(),
        };
        for (k, v) in own {
            params.insert(k.clone(), v.clone());
        }
        params
    }
}

/// A DropTail buffer size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum BufferSpec {
    /// Packets waiting (`{ packets = 100 }`).
    Packets(u32),
    /// Bytes waiting (`{ bytes = 2000000 }`).
    Bytes(u64),
    /// A fraction of the link's bandwidth-delay product (`{ bdp = 1.0 }`),
    /// BDP = rate x the smallest round-trip propagation delay of the flows
    /// crossing the link (or `bdp_rtt_ms` when given), in packets.
    Bdp(f64),
}

fn default_buffer() -> BufferSpec {
    BufferSpec::Bdp(1.0)
}

/// A link (or both directions of one, in the dumbbell and parking lot).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkOpts {
    /// Rate, Mbit/s (> 0).
    pub rate_mbps: f64,
    /// One-way propagation delay, ms (>= 0).
    pub delay_ms: f64,
    /// DropTail buffer.
    #[serde(default = "default_buffer")]
    pub buffer: BufferSpec,
    /// RTT used for a `bdp` buffer instead of the flows' smallest, ms.
    #[serde(default)]
    pub bdp_rtt_ms: Option<f64>,
    /// Random loss probability per packet, forward direction (0..=1).
    #[serde(default)]
    pub loss: f64,
    /// Random loss probability per packet, reverse direction (0..=1).
    #[serde(default)]
    pub reverse_loss: f64,
    /// Rate changes, both directions: `[[time_s, rate_mbps], ...]`, times
    /// increasing. A change applies to packets that start service at or
    /// after its time (see `net::link`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_schedule: Vec<(f64, f64)>,
    /// Delay changes, both directions: `[[time_s, delay_ms], ...]`, times
    /// increasing. A change applies to packets departing at or after its
    /// time; packets never overtake one another.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delay_schedule: Vec<(f64, f64)>,
}

/// The access links between hosts and routers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccessOpts {
    /// Rate, Mbit/s; default: 10 times the fastest core link.
    #[serde(default)]
    pub rate_mbps: Option<f64>,
    /// One-way delay of each access link, ms, for flows without `rtt_ms`.
    #[serde(default = "default_access_delay")]
    pub delay_ms: f64,
    /// Buffer of each access link; default: that of the first core link.
    #[serde(default)]
    pub buffer: Option<BufferSpec>,
}

fn default_access_delay() -> f64 {
    1.0
}

impl Default for AccessOpts {
    fn default() -> Self {
        AccessOpts {
            rate_mbps: None,
            delay_ms: default_access_delay(),
            buffer: None,
        }
    }
}

/// A dumbbell: per-flow hosts on access links around one bottleneck used in
/// both directions (reverse data shares the forward flows' ACK path).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    /// The bottleneck R1 -> R2 (and R2 -> R1, same rate, delay and buffer).
    pub bottleneck: LinkOpts,
    /// Access links.
    #[serde(default)]
    pub access: AccessOpts,
}

/// A chain of routers R0 - R1 - ... - Rn (simple, inhomogeneous and complex
/// parking lots); flows enter at router `from` and leave at router `to`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParkingLot {
    /// The core links, Ri -> Ri+1 (both directions).
    pub links: Vec<LinkOpts>,
    /// Access links.
    #[serde(default)]
    pub access: AccessOpts,
}

/// One link of a general graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphLink {
    /// Tail node name.
    pub from: String,
    /// Head node name.
    pub to: String,
    /// Rate, Mbit/s.
    pub rate_mbps: f64,
    /// One-way delay, ms.
    pub delay_ms: f64,
    /// DropTail buffer.
    #[serde(default = "default_buffer")]
    pub buffer: BufferSpec,
    /// RTT used for a `bdp` buffer, ms.
    #[serde(default)]
    pub bdp_rtt_ms: Option<f64>,
    /// Random loss probability per packet (each direction).
    #[serde(default)]
    pub loss: f64,
    /// Also create the link `to -> from` with the same parameters.
    #[serde(default = "default_true")]
    pub duplex: bool,
    /// Record this link's queue (both directions when duplex).
    #[serde(default)]
    pub monitor: bool,
    /// Rate changes (each direction): `[[time_s, rate_mbps], ...]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_schedule: Vec<(f64, f64)>,
    /// Delay changes (each direction): `[[time_s, delay_ms], ...]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub delay_schedule: Vec<(f64, f64)>,
}

/// A general graph: named nodes, links, and per-flow node paths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Graph {
    /// Node names.
    pub nodes: Vec<String>,
    /// Links.
    pub links: Vec<GraphLink>,
}

/// The network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    /// One bottleneck, per-flow access links.
    Dumbbell(Dumbbell),
    /// A chain of core links.
    ParkingLot(ParkingLot),
    /// Any graph.
    Graph(Graph),
}

/// Direction of a dumbbell flow's data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Left to right (R1 -> R2).
    #[default]
    Forward,
    /// Right to left: data shares the forward flows' ACK path.
    Reverse,
}

/// TCP options; every field optional, flow values override scenario values
/// which override the defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpOptions {
    /// SACK on (default) or NewReno.
    pub sack: Option<bool>,
    /// `prr` (default), `rfc6675` or `rate_halving` (Linux 2.6).
    pub recovery: Option<RecoveryMode>,
    /// `rfc6675` (default) or `fack` (Linux 2.6). Left out of the
    /// normalized scenario when unset, so that scenarios written before the
    /// option existed keep their hash (and their stored runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_marking: Option<LossMarking>,
    /// Undo spurious window reductions (timestamps and D-SACK; default
    /// off). Left out of the normalized scenario when unset, as above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<bool>,
    /// Duplicate-ACK threshold (1..=100, default 3).
    pub dupthresh: Option<u32>,
    /// Initial cwnd, packets (1..=1e6, default 10).
    pub initial_cwnd: Option<f64>,
    /// Initial ssthresh, packets (>= 2; default unlimited).
    pub initial_ssthresh: Option<f64>,
    /// RFC 3742 max_ssthresh, packets (0 = Limited Slow-Start off, default).
    pub max_ssthresh: Option<u32>,
    /// `rfc3742` (default) or `ns2`: where Limited Slow-Start acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lss: Option<LssMode>,
    /// Detect lost retransmissions from SACKs (default on, as Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_retransmit: Option<bool>,
    /// Receiver window, packets (default unlimited).
    pub rwnd_pkts: Option<u64>,
    /// Receiver window, bytes (rounded down to whole packets).
    pub rwnd_bytes: Option<u64>,
    /// `per_packet` (default) or `per_ack`.
    pub count_mode: Option<CountMode>,
    /// Delayed ACK (default on).
    pub delayed_ack: Option<bool>,
    /// Segments per delayed ACK (1..=64, default 2).
    pub delack_count: Option<u32>,
    /// Delayed-ACK timer, ms (1..=500, default 40).
    pub delack_timeout_ms: Option<f64>,
    /// Segments ACKed one by one at start (default 16).
    pub quickack_segments: Option<u32>,
    /// `linux` (default) or `rfc6298`.
    pub rto_mode: Option<RtoMode>,
    /// RTO floor, ms (default 200).
    pub rto_min_ms: Option<f64>,
    /// Initial RTO, ms (default 1000).
    pub rto_initial_ms: Option<f64>,
    /// RTO ceiling, ms (default 120000).
    pub rto_max_ms: Option<f64>,
    /// Clock tick of `rto_mode = "ns2"`, ms (default 10, ns-2 tcpTick_).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_tick_ms: Option<f64>,
}

/// One flow (or `count` identical flows).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Display name; default `flow<i>`.
    #[serde(default)]
    pub name: Option<String>,
    /// Congestion-control algorithm (see `tcpeval algorithms`).
    pub algorithm: String,
    /// Algorithm parameter overrides by name.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Dumbbell: data direction.
    #[serde(default)]
    pub direction: Direction,
    /// Dumbbell / parking lot: round-trip propagation delay, ms; sets the
    /// flow's two access-link delays.
    #[serde(default)]
    pub rtt_ms: Option<f64>,
    /// Parking lot: entry router index.
    #[serde(default)]
    pub from: Option<usize>,
    /// Parking lot: exit router index.
    #[serde(default)]
    pub to: Option<usize>,
    /// Graph: node path from sender to receiver.
    #[serde(default)]
    pub path: Option<Vec<String>>,
    /// Start time, s.
    #[serde(default)]
    pub start_s: f64,
    /// If set, the start is drawn uniformly in `[start_s, start_s + start_jitter_s]`.
    #[serde(default)]
    pub start_jitter_s: Option<f64>,
    /// The application stops offering data at this time, s.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// Finite transfer size, packets (default: bulk, unlimited).
    #[serde(default)]
    pub size_pkts: Option<u64>,
    /// Number of identical flows this entry stands for.
    #[serde(default = "default_count")]
    pub count: u32,
    /// TCP option overrides.
    #[serde(default)]
    pub tcp: TcpOptions,
    /// Record this flow's time series.
    #[serde(default = "default_true")]
    pub trace: bool,
}

/// What to record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Probes {
    /// Period of the per-flow series (cwnd, ssthresh, srtt, delivered), ms; 0 = off.
    #[serde(default = "default_period_ms")]
    pub flow_period_ms: f64,
    /// Period of the per-link queue series, ms; 0 = off.
    #[serde(default = "default_period_ms")]
    pub queue_period_ms: f64,
    /// Links whose queue is recorded, by name; default: the core links.
    #[serde(default)]
    pub queue_links: Option<Vec<String>>,
    /// Period of the per-class series (delivered and offered bytes, active
    /// flows), ms; 0 = off; default: `flow_period_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_period_ms: Option<f64>,
}

impl Default for Probes {
    fn default() -> Self {
        Probes {
            flow_period_ms: default_period_ms(),
            queue_period_ms: default_period_ms(),
            queue_links: None,
            class_period_ms: None,
        }
    }
}

/// Parses a scenario from JSON, naming the field of any error.
pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let sc: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." { String::new() } else { path };
        ScenarioError::new(field, e.into_inner().to_string())
    })?;
    Ok(sc)
}

/// Checks `lo <= v <= hi` for a finite `v`.
pub(crate) fn check(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::new(
            field,
            format!("{v} is out of range; allowed {lo} ..= {hi}"),
        ))
    }
}

/// Checks `lo < v <= hi` for a finite `v`.
pub(crate) fn check_pos(field: &str, v: f64, hi: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v > 0.0 && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::new(
            field,
            format!("{v} is out of range; allowed 0 < value <= {hi}"),
        ))
    }
}

fn ms(v: f64) -> Time {
    Time::from_secs_f64(v / 1e3)
}

impl TcpOptions {
    /// `self` with unset fields taken from `base`.
    pub fn over(&self, base: &TcpOptions) -> TcpOptions {
        macro_rules! pick {
            ($($f:ident),*) => { TcpOptions { $($f: self.$f.clone().or(base.$f.clone())),* } };
        }
        pick!(
            sack,
            recovery,
            loss_marking,
            undo,
            dupthresh,
            initial_cwnd,
            initial_ssthresh,
            max_ssthresh,
            lss,
            lost_retransmit,
            rwnd_pkts,
            rwnd_bytes,
            count_mode,
            delayed_ack,
            delack_count,
            delack_timeout_ms,
            quickack_segments,
            rto_mode,
            rto_min_ms,
            rto_initial_ms,
            rto_max_ms,
            rto_tick_ms
        )
    }

    /// Validates and resolves to a [`TcpConfig`]; `at` is the field path prefix.
    pub fn resolve(&self, at: &str, packet_size: u32) -> Result<TcpConfig, ScenarioError> {
        let d = TcpConfig::default();
        let f = |name: &str| format!("{at}.{name}");
        let mut c = TcpConfig { packet_size, ..d };
        c.sack = self.sack.unwrap_or(d.sack);
        c.recovery = self.recovery.unwrap_or(d.recovery);
        c.loss_marking = self.loss_marking.unwrap_or(d.loss_marking);
        c.undo = self.undo.unwrap_or(d.undo);
        if let Some(v) = self.dupthresh {
            check(&f("dupthresh"), f64::from(v), 1.0, 100.0)?;
            c.dupthresh = v;
        }
        if let Some(v) = self.initial_cwnd {
            check(&f("initial_cwnd"), v, 1.0, 1e6)?;
            c.initial_cwnd = v;
        }
        if let Some(v) = self.initial_ssthresh {
            check(&f("initial_ssthresh"), v, 2.0, 1e9)?;
            c.initial_ssthresh = v;
        }
        if let Some(v) = self.max_ssthresh {
            check(&f("max_ssthresh"), f64::from(v), 0.0, 1e6)?;
            c.max_ssthresh = v;
        }
        c.lss = self.lss.unwrap_or(d.lss);
        c.lost_retransmit = self.lost_retransmit.unwrap_or(d.lost_retransmit);
        match (self.rwnd_pkts, self.rwnd_bytes) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    f("rwnd_bytes"),
                    "give rwnd_pkts or rwnd_bytes, not both",
                ))
            }
            (Some(p), None) => {
                check(&f("rwnd_pkts"), p as f64, 1.0, 1e12)?;
                c.rwnd = p;
            }
            (None, Some(b)) => {
                let p = b / u64::from(c.mss());
                if p == 0 {
                    return Err(ScenarioError::new(
                        f("rwnd_bytes"),
                        format!("{b} is below one segment; allowed >= {} bytes", c.mss()),
                    ));
                }
                c.rwnd = p;
            }
            (None, None) => {}
        }
        c.count_mode = self.count_mode.unwrap_or(d.count_mode);
        c.delayed_ack = self.delayed_ack.unwrap_or(d.delayed_ack);
        if let Some(v) = self.delack_count {
            check(&f("delack_count"), f64::from(v), 1.0, 64.0)?;
            c.delack_count = v;
        }
        if let Some(v) = self.delack_timeout_ms {
            check(&f("delack_timeout_ms"), v, 1.0, 500.0)?;
            c.delack_timeout = ms(v);
        }
        if let Some(v) = self.quickack_segments {
            check(&f("quickack_segments"), f64::from(v), 0.0, 1e6)?;
            c.quickack_segments = v;
        }
        c.rto_mode = self.rto_mode.unwrap_or(d.rto_mode);
        if let Some(v) = self.rto_min_ms {
            check(&f("rto_min_ms"), v, 1.0, 60_000.0)?;
            c.rto_min = ms(v);
        }
        if let Some(v) = self.rto_initial_ms {
            check(&f("rto_initial_ms"), v, 1.0, 600_000.0)?;
            c.rto_initial = ms(v);
        }
        if let Some(v) = self.rto_max_ms {
            check(&f("rto_max_ms"), v, 1.0, 3_600_000.0)?;
            c.rto_max = ms(v);
        }
        if let Some(v) = self.rto_tick_ms {
            check(&f("rto_tick_ms"), v, 0.001, 1000.0)?;
            c.rto_tick = ms(v);
        }
        if c.rto_max < c.rto_min {
            return Err(ScenarioError::new(f("rto_max_ms"), "must be >= rto_min_ms"));
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{
        "duration_s": 10,
        "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": 100, "delay_ms": 10}},
        "flows": [{"algorithm": "reno", "rtt_ms": 100}]
    }"#;

    #[test]
    fn minimal_scenario_parses_with_defaults() {
        let s = from_json(MINIMAL).unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(s.packet_size, 1500);
        assert_eq!(s.flows[0].count, 1);
        assert_eq!(s.probes.flow_period_ms, 10.0);
        let Topology::Dumbbell(d) = &s.topology else {
            panic!()
        };
        assert_eq!(d.bottleneck.buffer, BufferSpec::Bdp(1.0));
    }

    #[test]
    fn unknown_fields_are_named() {
        let bad = MINIMAL.replace("\"rtt_ms\"", "\"rtt\"");
        let e = from_json(&bad).unwrap_err();
        assert!(e.field.starts_with("flows[0]"), "{e}");
        assert!(e.message.contains("unknown field `rtt`"), "{e}");
    }

    #[test]
    fn wrong_types_are_named() {
        let bad = MINIMAL.replace("\"duration_s\": 10", "\"duration_s\": \"ten\"");
        let e = from_json(&bad).unwrap_err();
        assert_eq!(e.field, "duration_s");
    }

    #[test]
    fn tcp_options_merge_and_resolve() {
        let flow = TcpOptions {
            sack: Some(false),
            ..TcpOptions::default()
        };
        let base = TcpOptions {
            sack: Some(true),
            max_ssthresh: Some(100),
            ..TcpOptions::default()
        };
        let c = flow.over(&base).resolve("flows[0].tcp", 1500).unwrap();
        assert!(!c.sack);
        assert_eq!(c.max_ssthresh, 100);
        let bad = TcpOptions {
            initial_cwnd: Some(0.0),
            ..TcpOptions::default()
        };
        let e = bad.resolve("tcp", 1500).unwrap_err();
        assert_eq!(e.field, "tcp.initial_cwnd");
        assert!(e.message.contains("allowed 1"));
        let rw = TcpOptions {
            rwnd_bytes: Some(65536),
            ..TcpOptions::default()
        };
        assert_eq!(rw.resolve("tcp", 1500).unwrap().rwnd, 44); // 65536 / 1460
    }
}
