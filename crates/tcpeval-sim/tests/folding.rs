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
            let t = Time::from_secs_f64(t);
            w.plan_snapshots(&[t]);
            w.advance(t);
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
    assert_eq!(World::new(&sc).unwrap().early_senders(), 2 + 2 * 12);
    let r = same_folded_or_not(&json, None);
    assert!(r.transfers.len() > 100 && r.flows.iter().all(|f| f.data_received > 0));
    for t in [3.0, 7.77] {
        same_folded_or_not(&json, Some(t));
    }
}

#[test]
fn early_senders_give_the_results_of_a_delivery_event_each() {
    // Three senders that act on ACKs and timeouts alone, one of them
    // sending the other way and stopped midway, beside a pacing BBR
    // and a clocked FAST sender (neither early). The ACKs' last link (the
    // senders' access links, about 10-20 ms) looks further ahead than the
    // 10 ms flow samples, and random loss on a 25-packet buffer makes
    // retransmission timeouts fire. Rates and delays are not round (see
    // `early_receivers_give_the_results_of_a_delivery_event_each`).
    let flows = r#"{"algorithm": "reno", "rtt_ms": 83.17},
                   {"algorithm": "cubic", "rtt_ms": 61.9, "start_s": 0.51},
                   {"algorithm": "htcp", "rtt_ms": 47.3, "start_s": 1.07, "direction": "reverse",
                    "stop_s": 9.313},
                   {"algorithm": "bbr", "rtt_ms": 70.1},
                   {"algorithm": "fast", "rtt_ms": 70.1, "start_s": 2.3}"#;
    let extra =
        r#", "probes": {"flow_period_ms": 10, "queue_period_ms": 7, "class_period_ms": 33}"#;
    let json = dumbbell(16.0, 31.37, 5.11, r#"{"packets": 25}"#, flows, extra).replace(
        r#""delay_ms": 5.11,"#,
        r#""delay_ms": 5.11, "loss": 0.003,"#,
    );
    let sc = from_json(&json).unwrap();
    assert_eq!(World::new(&sc).unwrap().early_senders(), 3);
    let r = same_folded_or_not(&json, None);
    assert!(r.flows[..2].iter().all(|f| f.timeouts > 0), "{:?}", r.flows);
    // The stopped flow sent nothing new after its stop: its last samples'
    // sent counts stop growing once its outstanding data is through.
    let s = &r.flow_series;
    let sent_at = |t: f64| {
        (0..s.time.len())
            .filter(|&k| s.flow[k] == 2 && s.time[k] <= t + 1e-9)
            .map(|k| s.sent[k])
            .next_back()
            .expect("a sample")
    };
    assert!(sent_at(9.3) > 0 && sent_at(14.0) == sent_at(15.99));
    // Stopped midway (ACKs ahead of the clock still pending), on and off
    // the sampling grid and at the flow's stop.
    for t in [4.0, 9.313, 12.3456] {
        same_folded_or_not(&json, Some(t));
    }
}

#[test]
fn early_senders_with_ecn_give_the_results_of_a_delivery_event_each() {
    // DCTCP senders (their receivers echo ECN, so not early receivers)
    // behind a step-marking bottleneck: ECN echoes reach an early sender.
    let flows = r#"{"algorithm": "dctcp", "rtt_ms": 2.173},
                   {"algorithm": "dctcp", "rtt_ms": 3.91, "start_s": 0.137}"#;
    let json = dumbbell(3.0, 97.3, 0.51, r#"{"packets": 200}"#, flows, "").replace(
        r#""buffer": {"packets": 200}"#,
        r#""buffer": {"packets": 200}, "queue": {"kind": "step", "mark_threshold": 20}"#,
    );
    let sc = from_json(&json).unwrap();
    let w = World::new(&sc).unwrap();
    assert_eq!((w.early_senders(), w.early_receivers()), (2, 0));
    let r = same_folded_or_not(&json, None);
    assert!(
        r.flows.iter().all(|f| f.ece_reductions > 0),
        "{:?}",
        r.flows
    );
    same_folded_or_not(&json, Some(1.2345));
}
