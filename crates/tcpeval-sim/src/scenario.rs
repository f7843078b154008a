//! The scenario: what to simulate, as data (TOML or JSON via serde), and its
//! validation. Every error names the offending field by its path
//! (`flows[1].rtt_ms`) and says which values are allowed.
//!
//! Units are in the field names: `_mbps` (Mbit/s), `_ms`, `_s`, `_pkts`,
//! `_bytes`. The TCP defaults are today's Linux sender (each option's
//! source is listed with it in `tcp::config`).

pub use crate::net::queue::QueueSpec;
use crate::platform::Platform;
pub use crate::tcp::config::TcpOptions;
pub use crate::traffic::Traffic;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use tcpeval_cc::Shown;

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

/// Marks the start and end of a field path that [`kind_tagged!`] puts in
/// front of an error message, so [`from_deserializer`] can join it to the
/// path of the enclosing field (a serde error carries only a message).
const PATH_MARK: char = '\u{1f}';

/// An error message carrying `path` (relative to the enclosing field).
pub(crate) fn nested_error(path: &str, message: &str) -> String {
    format!("{PATH_MARK}{path}{PATH_MARK}{message}")
}

/// The relative path and the message of an error made by [`nested_error`]
/// (an empty path for any other error).
pub(crate) fn split_nested(text: &str) -> (String, String) {
    if let Some(rest) = text.strip_prefix(PATH_MARK) {
        if let Some((path, message)) = rest.split_once(PATH_MARK) {
            return (path.to_string(), message.to_string());
        }
    }
    (String::new(), text.to_string())
}

/// `message` without serde_json's trailing ` at line L column C`.
fn without_json_position(message: &str) -> String {
    if let Some(i) = message.rfind(" at line ") {
        let tail = &message[i + " at line ".len()..];
        if let Some((line, column)) = tail.split_once(" column ") {
            let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            if digits(line) && digits(column) {
                return message[..i].to_string();
            }
        }
    }
    message.to_string()
}

/// `outer.inner`, where `"."` or an empty part means the root.
pub(crate) fn join_path(outer: &str, inner: &str) -> String {
    let outer = if outer == "." { "" } else { outer };
    let inner = if inner == "." { "" } else { inner };
    match (outer.is_empty(), inner.is_empty()) {
        (_, true) => outer.to_string(),
        (true, false) => inner.to_string(),
        (false, false) if inner.starts_with('[') => format!("{outer}{inner}"),
        (false, false) => format!("{outer}.{inner}"),
    }
}

/// Deserializes the variants of an internally tagged enum (`kind = "..."`)
/// one by one from a [`Value`]. Serde's derived form buffers the table and
/// loses the path of any error inside it; this keeps it. Each line maps a
/// `kind` to a newtype variant whose content is deserialized with the rest
/// of the table.
macro_rules! kind_tagged {
    ($enum:ident { $($kind:literal => $variant:ident),+ $(,)? }) => {
        impl TryFrom<serde_json::Value> for $enum {
            type Error = String;

            fn try_from(value: serde_json::Value) -> Result<Self, String> {
                const KINDS: &[&str] = &[$($kind),+];
                let serde_json::Value::Object(mut table) = value else {
                    return Err(format!("expected a table with a `kind` field, got {value}"));
                };
                let kind = match table.remove("kind") {
                    Some(serde_json::Value::String(kind)) => kind,
                    Some(other) => return Err($crate::scenario::nested_error("kind", &format!("expected a string, got {other}"))),
                    None => return Err($crate::scenario::nested_error("kind", "missing field `kind`")),
                };
                let rest = serde_json::Value::Object(table);
                let content = |e: serde_path_to_error::Error<serde_json::Error>| {
                    let (inner, message) = $crate::scenario::split_nested(&e.inner().to_string());
                    $crate::scenario::nested_error(&$crate::scenario::join_path(&e.path().to_string(), &inner), &message)
                };
                match kind.as_str() {
                    $($kind => serde_path_to_error::deserialize(rest).map($enum::$variant).map_err(content),)+
                    other => {
                        let allowed: Vec<String> = KINDS.iter().map(|k| format!("`{k}`")).collect();
                        Err($crate::scenario::nested_error(
                            "kind",
                            &format!("unknown variant `{other}`, expected one of {}", allowed.join(", ")),
                        ))
                    }
                }
            }
        }
    };
}
pub(crate) use kind_tagged;

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
    /// Buffer: DropTail's limit, and the hard limit under any discipline.
    #[serde(default = "default_buffer")]
    pub buffer: BufferSpec,
    /// Queue discipline (`{ kind = "red", ... }`, see `tcpeval queues`),
    /// each direction; DropTail by default, and then left out of the
    /// normalized scenario so that older scenarios keep their hash.
    #[serde(default, skip_serializing_if = "QueueSpec::is_droptail")]
    pub queue: QueueSpec,
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
    /// Buffer: DropTail's limit, and the hard limit under any discipline.
    #[serde(default = "default_buffer")]
    pub buffer: BufferSpec,
    /// Queue discipline (`{ kind = "red", ... }`, see `tcpeval queues`),
    /// each direction; DropTail by default, and then left out of the
    /// normalized scenario so that older scenarios keep their hash.
    #[serde(default, skip_serializing_if = "QueueSpec::is_droptail")]
    pub queue: QueueSpec,
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
///
/// Deserialized through [`Value`] by [`kind_tagged!`] so that an error inside
/// a topology keeps its path (`topology.bottleneck.delay_ms`); serialized
/// with the `kind` tag as usual.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "Value")]
pub enum Topology {
    /// One bottleneck, per-flow access links.
    Dumbbell(Dumbbell),
    /// A chain of core links.
    ParkingLot(ParkingLot),
    /// Any graph.
    Graph(Graph),
}

kind_tagged!(Topology {
    "dumbbell" => Dumbbell,
    "parking_lot" => ParkingLot,
    "graph" => Graph,
});

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
    /// flows), ms; 0 = off; default: see [`Probes::class_period`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_period_ms: Option<f64>,
}

impl Probes {
    /// The per-class series' period, ms: `class_period_ms` where set;
    /// otherwise `flow_period_ms` if the scenario has generated traffic (a
    /// bulk, web or UDP class, whose only record over time this series is),
    /// and 0 (off) if every class is a flow entry of the scenario, whose
    /// flows `flow_series` records already (a copy there would double the
    /// probes' memory for nothing; set the period to get it anyway).
    pub fn class_period(&self, generated_traffic: bool) -> f64 {
        match self.class_period_ms {
            Some(ms) => ms,
            None if generated_traffic => self.flow_period_ms,
            None => 0.0,
        }
    }
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
    from_deserializer(&mut serde_json::Deserializer::from_str(text))
}

/// Parses a scenario from any serde data source (JSON text, Python objects),
/// naming the field of any error by its full path.
pub fn from_deserializer<'de, D>(de: D) -> Result<Scenario, ScenarioError>
where
    D: serde::Deserializer<'de>,
    D::Error: fmt::Display,
{
    serde_path_to_error::deserialize(de).map_err(|e| {
        let outer = e.path().to_string();
        let (inner, message) = split_nested(&e.into_inner().to_string());
        if inner.is_empty() {
            ScenarioError::new(join_path(&outer, &inner), message)
        } else {
            // A JSON parser puts the position of the whole enclosing table after it.
            ScenarioError::new(join_path(&outer, &inner), without_json_position(&message))
        }
    })
}

/// Checks `lo <= v <= hi` for a finite `v`.
pub(crate) fn check(field: &str, v: f64, lo: f64, hi: f64) -> Result<(), ScenarioError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ScenarioError::new(
            field,
            format!(
                "{} is out of range; allowed {} ..= {}",
                Shown(v),
                Shown(lo),
                Shown(hi)
            ),
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
            format!(
                "{} is out of range; allowed 0 < value <= {}",
                Shown(v),
                Shown(hi)
            ),
        ))
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
    fn errors_inside_a_topology_keep_their_full_path() {
        let bad = MINIMAL.replace("\"delay_ms\": 10", "\"delay_ms\": \"ten\"");
        let e = from_json(&bad).unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.delay_ms", "{e}");
        assert!(
            e.message
                .starts_with("invalid type: string \"ten\", expected f64"),
            "{e}"
        );
        let bad = MINIMAL.replace(
            "\"delay_ms\": 10",
            "\"delay_ms\": 10, \"buffer_packets\": 5",
        );
        let e = from_json(&bad).unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.buffer_packets", "{e}");
        assert!(
            e.message
                .starts_with("unknown field `buffer_packets`, expected one of `rate_mbps`"),
            "{e}"
        );
        assert!(!e.message.contains(" at line "), "{e}");
    }

    #[test]
    fn a_topology_kind_is_checked_by_name() {
        let e = from_json(&MINIMAL.replace("\"dumbbell\"", "\"star\"")).unwrap_err();
        assert_eq!(e.field, "topology.kind");
        assert_eq!(
            e.message,
            "unknown variant `star`, expected one of `dumbbell`, `parking_lot`, `graph`"
        );
        let e = from_json(&MINIMAL.replace("\"kind\": \"dumbbell\", ", "")).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("topology.kind", "missing field `kind`")
        );
    }

    #[test]
    fn every_topology_kind_round_trips_through_its_tag() {
        let s = from_json(MINIMAL).unwrap();
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.contains("\"kind\":\"dumbbell\""), "{text}");
        assert_eq!(from_json(&text).unwrap(), s);
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
