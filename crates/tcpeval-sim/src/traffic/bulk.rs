//! Long-lived background TCP flows: `count` bulk transfers per direction,
//! each with its own round-trip time drawn from a distribution and, by
//! default, a 64 KB receiver window, so each is limited to about
//! 64 KB per RTT (the `background` study's iperf-like flows).
//!
//! They expand into ordinary flow entries before the network is built, so
//! each gets its own access links sized to its RTT (the engine's fast path,
//! no per-packet cost beyond a scenario flow's) and its row in the `flows`
//! table, named `<class>.<i>`.

use super::rtt::{RttSampler, RttSpec};
use super::{check_window, ClassInfo, ClassKind, Directions, Endpoints, TcpProto};
use crate::net::topology::core_rtt_ms;
use crate::rng::{purpose, stream};
use crate::scenario::{check, FlowSpec, Scenario, ScenarioError, TcpOptions, Topology};
use crate::time_scale::{scale_opt, ScaleTime};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Receiver window of a background flow unless its `tcp` sets one, bytes
/// (64 KB, the `background` study's).
pub const DEFAULT_RWND_BYTES: u64 = 65_536;

fn default_algorithm() -> String {
    "reno".into()
}
fn one() -> u32 {
    1
}

/// A group of long-lived background flows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BulkSpec {
    /// Class name; default `bulk<k>`.
    #[serde(default)]
    pub name: Option<String>,
    /// Congestion-control algorithm (default `reno`, with SACK: TCP-SACK).
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    /// Algorithm parameter overrides.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// Directions (each gets `count` flows).
    #[serde(default)]
    pub direction: Directions,
    /// Parking lot: entry router of the forward direction.
    #[serde(default)]
    pub from: Option<usize>,
    /// Parking lot: exit router of the forward direction.
    #[serde(default)]
    pub to: Option<usize>,
    /// Graph: node path of the forward direction.
    #[serde(default)]
    pub path: Option<Vec<String>>,
    /// Flows per direction (1..=100000).
    #[serde(default = "one")]
    pub count: u32,
    /// Each flow's round-trip propagation delay; default: the access
    /// delay of `topology.access`, like a flow without `rtt_ms`. Draws below
    /// the core path's own RTT are raised to it.
    #[serde(default)]
    pub rtt: Option<RttSpec>,
    /// Earliest start, s.
    #[serde(default)]
    pub start_s: f64,
    /// Each flow starts uniformly in `[start_s, start_s + start_window_s]`.
    #[serde(default)]
    pub start_window_s: Option<f64>,
    /// The flows stop offering data at this time, s.
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// TCP options; the receiver window defaults to 64 KB
    /// ([`DEFAULT_RWND_BYTES`]) unless `rwnd_pkts` or `rwnd_bytes` is set here.
    #[serde(default)]
    pub tcp: TcpOptions,
    /// Record each flow's time series (off by default: the class series
    /// carries their aggregate).
    #[serde(default)]
    pub trace: bool,
}

impl ScaleTime for BulkSpec {
    /// Quick mode: the start and stop times move with the run's axis.
    fn scale_time(&mut self, factor: f64) {
        self.start_s *= factor;
        scale_opt(&mut self.start_window_s, factor);
        scale_opt(&mut self.stop_s, factor);
    }
}

/// Expands generator `g` into flow entries with their class ids, adding
/// one class per direction to `classes`.
pub fn expand(
    sc: &Scenario,
    g: usize,
    spec: &BulkSpec,
    classes: &mut Vec<ClassInfo>,
) -> Result<Vec<(FlowSpec, u32)>, ScenarioError> {
    let at = format!("traffic.bulk[{g}]");
    check(&format!("{at}.count"), f64::from(spec.count), 1.0, 1e5)?;
    check_window(&at, spec.start_s, spec.stop_s, sc.duration_s)?;
    if let Some(w) = spec.start_window_s {
        check(
            &format!("{at}.start_window_s"),
            w,
            0.0,
            sc.duration_s - spec.start_s,
        )?;
    }
    let mut tcp = spec.tcp.clone();
    if tcp.rwnd_pkts.is_none() && tcp.rwnd_bytes.is_none() {
        // Set in the unit the scenario-wide options use, so the two never clash.
        if sc.tcp.rwnd_pkts.is_some() {
            let mss = crate::tcp::config::TcpConfig {
                packet_size: sc.packet_size,
                ..Default::default()
            }
            .mss();
            tcp.rwnd_pkts = Some(DEFAULT_RWND_BYTES / u64::from(mss));
        } else {
            tcp.rwnd_bytes = Some(DEFAULT_RWND_BYTES);
        }
    }
    TcpProto::new(&at, &spec.algorithm, &spec.params, &tcp, sc)?;
    let rtt = match &spec.rtt {
        Some(_) if matches!(sc.topology, Topology::Graph(_)) => {
            return Err(ScenarioError::new(
                format!("{at}.rtt"),
                "a graph flow's RTT follows from its path's link delays; remove rtt",
            ))
        }
        Some(r) => Some(RttSampler::new(r, &format!("{at}.rtt"))?),
        None => None,
    };
    let ends = Endpoints {
        at: &at,
        directions: spec.direction,
        from: spec.from,
        to: spec.to,
        path: spec.path.as_deref(),
    };
    let base = spec.name.clone().unwrap_or_else(|| format!("bulk{g}"));
    let mut out = Vec::new();
    for (d, place) in ends.place(&sc.topology)?.into_iter().enumerate() {
        let class = classes.len() as u32;
        let name = format!("{base}{}", place.suffix);
        classes.push(ClassInfo {
            name: name.clone(),
            kind: ClassKind::Bulk,
            direction: place.direction,
            target_bps: None,
        });
        let index = ((g as u64) << 1) | d as u64;
        let mut rtt_rng = stream(sc.seed, purpose::BULK_RTT, index);
        let mut start_rng = stream(sc.seed, purpose::BULK_START, index);
        let floor = core_rtt_ms(sc, place.from, place.to).unwrap_or(0.0);
        for i in 0..spec.count {
            let rtt_ms = rtt.as_ref().map(|r| r.sample(&mut rtt_rng).max(floor));
            let start_s = spec.start_s
                + spec
                    .start_window_s
                    .map_or(0.0, |w| w * start_rng.gen::<f64>());
            out.push((
                FlowSpec {
                    name: Some(format!("{name}.{i}")),
                    algorithm: spec.algorithm.clone(),
                    params: spec.params.clone(),
                    direction: place.direction,
                    rtt_ms,
                    from: place.from,
                    to: place.to,
                    path: place.path.clone(),
                    start_s,
                    start_jitter_s: None,
                    stop_s: spec.stop_s,
                    size_pkts: None,
                    count: 1,
                    tcp: tcp.clone(),
                    trace: spec.trace,
                },
                class,
            ));
        }
    }
    Ok(out)
}
