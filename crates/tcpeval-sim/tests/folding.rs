//! Folding single-fed links (see `net::link`) saves events and changes no
//! result: each scenario runs folded and unfolded and gives the same tables.

#[allow(dead_code)]
mod common;
use common::{
    assert_conserved, dumbbell, graph_with_folded_bottleneck, tables, WEB_AND_ON_OFF_UDP,
};
use tcpeval_sim::{from_json, Results, Time, World};

/// Runs `json` folded and unfolded up to `stop_s` (the end if `None`),
/// checks they agree and that folding saved events; returns the folded run.
fn same_folded_or_not(json: &str, stop_s: Option<f64>) -> Results {
    let (folded, unfolded) = folded_and_unfolded(json, stop_s);
    assert!(
        folded.events < unfolded.events,
        "folding saved no event: {} vs {}",
        folded.events,
        unfolded.events
    );
    folded
}

/// Runs `json` folded and unfolded up to `stop_s` (the end if `None`) and
/// checks they agree; returns both runs.
fn folded_and_unfolded(json: &str, stop_s: Option<f64>) -> (Results, Results) {
    let sc = from_json(json).unwrap_or_else(|e| panic!("scenario rejected: {e}"));
    let run = |w: World| match stop_s {
        None => w.run(),
        Some(t) => {
            let mut w = w;
            w.advance(Time::from_secs_f64(t));
            w.finish()
        }
    };
    let folded = run(World::new(&sc).unwrap());
    let unfolded = run(World::new(&sc).unwrap().unfolded());
    assert_conserved(&folded);
    assert_eq!(tables(&folded), tables(&unfolded));
    (folded, unfolded)
}

#[test]
fn a_folded_bottleneck_drops_exactly_as_an_unfolded_one() {
    let r = same_folded_or_not(&graph_with_folded_bottleneck(), None);
    let last = r.links.iter().find(|l| l.name == "R->h2").unwrap();
    assert!(!last.monitored);
    assert!(
        last.counters.drops > 0 && last.counters.random_drops > 0,
        "{:?}",
        last.counters
    );
    assert!(r.flows[0].data_dropped > 0);
}

#[test]
fn a_probed_link_is_not_folded_and_its_samples_are_unchanged() {
    let json = graph_with_folded_bottleneck()
        .replace(r#""loss": 0.001,"#, r#""loss": 0.001, "monitor": true,"#);
    let r = same_folded_or_not(&json, None);
    let q = &r.queue_series;
    assert!(q.time.len() > 1000 && q.qlen.iter().any(|&n| n > 20));
}

#[test]
fn a_run_stopped_midway_counts_only_the_past() {
    // Stopped while packets and drops decided ahead are still on the way.
    for t in [7.0, 12.0004, 20.01] {
        same_folded_or_not(&graph_with_folded_bottleneck(), Some(t));
    }
}

#[test]
fn a_dumbbell_with_reverse_traffic_is_unchanged() {
    let flows = r#"{"algorithm": "reno", "rtt_ms": 40},
                   {"algorithm": "htcp", "rtt_ms": 80, "start_s": 2},
                   {"algorithm": "cubic", "rtt_ms": 40, "direction": "reverse", "start_s": 5}"#;
    let json = dumbbell(20.0, 50.0, 10.0, r#"{"bdp": 0.5}"#, flows, "")
        .replace(r#""delay_ms": 10,"#, r#""delay_ms": 10, "loss": 0.0001,"#);
    same_folded_or_not(&json, None);
}

#[test]
fn web_and_udp_traffic_on_host_groups_is_unchanged() {
    // Web transfers both ways (slots reused, ACK delay lines) and an on-off
    // UDP source beside a bulk flow, on a dumbbell with a 20-packet buffer.
    let json = dumbbell(
        30.0,
        100.0,
        10.0,
        r#"{"packets": 20}"#,
        r#"{"algorithm": "reno", "rtt_ms": 40}"#,
        WEB_AND_ON_OFF_UDP,
    );
    let r = same_folded_or_not(&json, None);
    assert!(r.transfers.len() > 500, "{} transfers", r.transfers.len());
}

#[test]
fn a_link_fed_by_a_dequeue_discipline_is_not_folded() {
    // CoDel on the first link (a bottleneck with a rate change): the link
    // after it learns its packets only at CoDel's dequeue events, so it is
    // not folded (DropTail there lets it fold). Folded or not, the same
    // results, every packet accounted for.
    let json = r#"{"duration_s": 30, "seed": 3,
        "topology": {"kind": "graph", "nodes": ["h1", "R", "h2"],
          "links": [
            {"from": "h1", "to": "R", "rate_mbps": 20, "delay_ms": 5,
             "buffer": {"packets": 200}, "queue": {"kind": "codel"},
             "rate_schedule": [[12.0, 10.0]]},
            {"from": "R", "to": "h2", "rate_mbps": 1000, "delay_ms": 10,
             "delay_schedule": [[20.0, 2.0]]}]},
        "flows": [{"algorithm": "cubic", "path": ["h1", "R", "h2"]},
                  {"algorithm": "reno", "path": ["h1", "R", "h2"], "start_s": 3}]}"#;
    same_folded_or_not(&json.replace(r#""queue": {"kind": "codel"},"#, ""), None);
    let (r, unfolded) = folded_and_unfolded(json, None);
    assert_eq!(r.events, unfolded.events);
    let first = r.links.iter().find(|l| l.name == "h1->R").unwrap();
    assert!(first.counters.drops > 0, "{:?}", first.counters);
    assert!(r.flows.iter().all(|f| f.data_dropped > 0));
    // Stopped with packets waiting in CoDel's queue: they count as in transit.
    folded_and_unfolded(json, Some(12.0004));
}

#[test]
fn early_receivers_give_the_results_of_a_delivery_event_each() {
    // The shape of background's runs: two traced CUBIC flows and 12
    // long-lived Reno flows each way with their own access links (early
    // receivers),
    // web transfers both ways over host groups (receivers that share their
    // uplink, not early), 1 s class and 100 ms flow and queue samples, a
    // 2 MB buffer. Early, folded and unfolded runs give the same tables, so
    // do runs stopped midway (arrivals ahead of the clock not yet counted).
    // Rates and delays are not round, so that no two events meet at one
    // picosecond, where the order may differ (see `world`).
    let flows = r#"{"algorithm": "cubic", "rtt_ms": 82.13},
                   {"algorithm": "cubic", "rtt_ms": 41.77, "start_s": 1}"#;
    let extra = r#", "platform": "linux-2.6.13",
        "probes": {"flow_period_ms": 100, "queue_period_ms": 100, "class_period_ms": 1000},
        "traffic": {
          "web": [{"load_mbps": 20, "direction": "both", "rtt": {"kind": "internet"}}],
          "bulk": [{"count": 12, "direction": "both", "rtt": {"kind": "internet"},
                    "start_window_s": 2.0}]}"#;
    let json = dumbbell(12.0, 97.31, 8.37, r#"{"bytes": 2097152}"#, flows, extra);
    let sc = from_json(&json).unwrap();
    assert_eq!(World::new(&sc).unwrap().early_receivers(), 2 + 2 * 12);
    let r = same_folded_or_not(&json, None);
    assert!(r.transfers.len() > 100 && r.flows.iter().all(|f| f.data_received > 0));
    for t in [3.0, 7.77] {
        same_folded_or_not(&json, Some(t));
    }
}
