//! Helpers shared by the engine's network tests.

use tcpeval_sim::{run_json, Results};

/// Runs a scenario given as JSON and checks packet conservation.
pub fn run(json: &str) -> Results {
    let r = run_json(json).unwrap_or_else(|e| panic!("scenario rejected: {e}"));
    assert_conserved(&r);
    r
}

/// Checks packet conservation for every flow and every traffic class:
/// sent = received + dropped + still in transit.
pub fn assert_conserved(r: &Results) {
    for f in &r.flows {
        assert_eq!(
            f.sent,
            f.data_received + f.data_dropped + f.data_in_transit,
            "conservation broken for {}: {f:?}",
            f.name
        );
    }
    for c in &r.classes {
        let k = &c.counters;
        assert_eq!(
            k.sent,
            k.received + k.dropped + k.in_transit,
            "conservation broken for class {}: {k:?}",
            c.info.name
        );
    }
}

/// A dumbbell scenario: `rate` Mbit/s bottleneck, flows given as JSON.
pub fn dumbbell(
    duration_s: f64,
    rate_mbps: f64,
    delay_ms: f64,
    buffer: &str,
    flows: &str,
    extra: &str,
) -> String {
    format!(
        r#"{{"duration_s": {duration_s}, "seed": 7 {extra},
            "topology": {{"kind": "dumbbell",
              "bottleneck": {{"rate_mbps": {rate_mbps}, "delay_ms": {delay_ms}, "buffer": {buffer}}}}},
            "flows": [{flows}]}}"#
    )
}

/// Goodput of flow `i` between `t0` and `t1` (s) from the flow series, bit/s.
pub fn goodput(r: &Results, i: u32, t0: f64, t1: f64) -> f64 {
    let s = &r.flow_series;
    let at = |t: f64| {
        (0..s.time.len())
            .rev()
            .find(|&k| s.flow[k] == i && s.time[k] <= t + 1e-9)
            .map_or(0, |k| s.delivered[k])
    };
    (at(t1) - at(t0)) as f64 * 8.0 / (t1 - t0)
}

/// Jain's fairness index.
pub fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    s * s / (x.len() as f64 * s2)
}

/// Everything a run reports except its event count, as text (NaN-safe).
pub fn tables(r: &Results) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{}",
        r.flows,
        r.links,
        r.classes,
        r.flow_series,
        r.queue_series,
        r.aqm_series,
        r.class_series,
        r.transfers,
        r.sim_time_s
    )
}

/// Generated traffic on host groups: web transfers both ways (slots reused,
/// ACK delay lines) and an on-off UDP source, as a scenario's `traffic`
/// field with its leading comma (for [`dumbbell`]'s `extra`).
pub const WEB_AND_ON_OFF_UDP: &str = r#", "traffic": {
    "web": [{"name": "web", "direction": "both"}],
    "udp": [{"name": "cbr", "rate_mbps": 10,
             "on": {"kind": "exponential", "mean_s": 1.0},
             "off": {"kind": "exponential", "mean_s": 4.0}}]}"#;

/// One flow through a graph whose last link, fed only by the first, is the
/// bottleneck: the folded link drops (full buffer and random loss) ahead of
/// the world's clock, with a rate and a delay change on it.
pub fn graph_with_folded_bottleneck() -> String {
    r#"{"duration_s": 30, "seed": 3,
        "topology": {"kind": "graph", "nodes": ["h1", "R", "h2"],
          "links": [
            {"from": "h1", "to": "R", "rate_mbps": 1000, "delay_ms": 5},
            {"from": "R", "to": "h2", "rate_mbps": 100, "delay_ms": 10,
             "buffer": {"packets": 30}, "loss": 0.001,
             "rate_schedule": [[12.0, 50.0]], "delay_schedule": [[20.0, 2.0]]}]},
        "flows": [{"algorithm": "cubic", "path": ["h1", "R", "h2"]}]}"#
        .to_string()
}
