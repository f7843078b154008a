//! Generated traffic in simulated networks: web transfers, background
//! flows, reverse traffic, UDP sources and link schedules.

#[allow(dead_code)]
mod common;
use common::{dumbbell, goodput, run};
use tcpeval_sim::{from_json, Results, World};

/// Rows of class `c` in the class series: (time, delivered bytes).
fn class_trace(r: &Results, c: u32) -> Vec<(f64, u64)> {
    let s = &r.class_series;
    (0..s.time.len())
        .filter(|&k| s.class[k] == c)
        .map(|k| (s.time[k], s.delivered[k]))
        .collect()
}

/// Goodput of class `c` between `t0` and `t1` (s), bit/s.
fn class_goodput(r: &Results, c: u32, t0: f64, t1: f64) -> f64 {
    let tr = class_trace(r, c);
    let at = |t: f64| {
        tr.iter()
            .rev()
            .find(|&&(x, _)| x <= t + 1e-9)
            .map_or(0, |&(_, d)| d)
    };
    (at(t1) - at(t0)) as f64 * 8.0 / (t1 - t0)
}

const WEB_BOTH: &str = r#", "traffic": {"web": [{"name": "web", "direction": "both"}]}"#;

#[test]
fn web_transfers_complete_conserve_packets_and_reuse_slots() {
    // The `reverse` study's web mix, both directions, on an uncongested
    // 100 Mbit/s dumbbell with one forward bulk flow.
    let json = dumbbell(
        60.0,
        100.0,
        10.0,
        r#"{"bdp": 1.0}"#,
        r#"{"algorithm": "reno", "rtt_ms": 40}"#,
        WEB_BOTH,
    );
    let sc = from_json(&json).unwrap();
    let mut w = World::new(&sc).unwrap();
    w.advance(tcpeval_sim::Time::from_secs(60));
    let slots = w.flow_slots();
    let r = w.finish();
    let names: Vec<&str> = r.classes.iter().map(|c| c.info.name.as_str()).collect();
    assert_eq!(names, ["flows[0]", "web.fwd", "web.rev"]);
    let t = &r.transfers;
    // About 20 transfers/s per direction for 60 s.
    assert!((2100..2700).contains(&t.len()), "{} transfers", t.len());
    // Every transfer started before the last 5 s has completed; ends follow starts.
    for i in 0..t.len() {
        if t.start[i] < 55.0 {
            assert!(t.end[i] > t.start[i], "transfer {i} unfinished");
        }
        assert!(t.rtt[i] >= 0.02, "rtt {}", t.rtt[i]);
    }
    // Slots are reused: far fewer than the transfers started.
    assert!(slots < 200, "{slots} slots for {} transfers", t.len());
    for (id, c) in r.classes.iter().enumerate().skip(1) {
        let offered = c.counters.offered_bytes as f64 * 8.0 / 60.0;
        let target = c.info.target_bps.unwrap();
        assert!(
            (offered / target - 1.0).abs() < 0.15,
            "{}: {offered} vs {target}",
            c.info.name
        );
        let rows = (0..t.len()).filter(|&i| t.class[i] == id as u32);
        assert_eq!(c.counters.started, rows.clone().count() as u64);
        let offered_rows: u64 = rows.map(|i| t.size_pkts[i] * 1500).sum();
        assert_eq!(c.counters.offered_bytes, offered_rows);
    }
    // The bulk flow keeps its own access links and still fills most of the link.
    assert!(goodput(&r, 0, 20.0, 60.0) > 70e6);
    assert!(class_goodput(&r, 1, 20.0, 60.0) > 3e6);
}

#[test]
fn same_seed_same_traffic() {
    let traffic = r#", "traffic": {
        "web": [{"name": "w", "direction": "both", "rtt": {"kind": "internet"},
                 "sizes": {"kind": "lognormal_pareto"}, "load_mbps": 5},
                {"name": "s", "model": "surge", "direction": "reverse", "load_mbps": 3}],
        "bulk": [{"name": "bg", "direction": "both", "count": 2, "rtt": {"kind": "internet"},
                  "start_window_s": 2}],
        "udp": [{"rate_mbps": 2, "on": {"kind": "exponential", "mean_s": 0.2},
                 "off": {"kind": "pareto", "scale_s": 0.1, "alpha": 1.5}}]}"#;
    let json = dumbbell(
        15.0,
        50.0,
        5.0,
        r#"{"bdp": 1.0}"#,
        r#"{"algorithm": "cubic", "rtt_ms": 40}"#,
        traffic,
    );
    let a = run(&json);
    let b = run(&json);
    assert_eq!(a.transfers.size_pkts, b.transfers.size_pkts);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
    assert_eq!(bits(&a.transfers.end), bits(&b.transfers.end));
    assert_eq!(bits(&a.transfers.rtt), bits(&b.transfers.rtt));
    assert_eq!(a.class_series, b.class_series);
    assert_eq!(a.classes, b.classes);
    assert_eq!(a.events, b.events);
    let c = run(&json.replace(r#""seed": 7"#, r#""seed": 8"#));
    assert_ne!(a.transfers.size_pkts, c.transfers.size_pkts);
    // Classes: the flow entry, then bulk, web and UDP directions.
    let names: Vec<&str> = a.classes.iter().map(|c| c.info.name.as_str()).collect();
    assert_eq!(
        names,
        ["flows[0]", "bg.fwd", "bg.rev", "w.fwd", "w.rev", "s", "udp0"]
    );
    // Background flows are rows of the flows table, named after their class.
    let flows: Vec<&str> = a.flows.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        flows,
        ["flow0", "bg.fwd.0", "bg.fwd.1", "bg.rev.0", "bg.rev.1"]
    );
    assert!(a.flows[1..]
        .iter()
        .all(|f| (0.0..=2.0).contains(&f.start_s)));
}

#[test]
fn one_packet_transfers_take_their_drawn_rtt() {
    // Uncongested 1 Gbit/s dumbbell with 1 ms of core delay (2 ms path RTT);
    // per-transfer RTTs uniform in [20, 200] ms come from the ACK delay line.
    // A 1-packet transfer completes one RTT (plus serialization) after it starts.
    let traffic = r#", "traffic": {"web": [{"mean_interarrival_ms": 20,
        "sizes": {"kind": "empirical", "pkts": [1], "probs": [1.0]},
        "rtt": {"kind": "uniform", "min_ms": 20, "max_ms": 200}}]}"#;
    let json = dumbbell(10.0, 1000.0, 1.0, r#"{"packets": 1000}"#, "", traffic);
    let r = run(&json);
    let t = &r.transfers;
    assert!(t.len() > 400);
    for i in 0..t.len() {
        assert!((0.02..=0.2).contains(&t.rtt[i]), "rtt {}", t.rtt[i]);
        if t.end[i].is_nan() {
            assert!(t.start[i] > 9.8, "unfinished transfer {i}");
            continue;
        }
        let fct = t.end[i] - t.start[i];
        // Data 1500 B and ACK 40 B over two 10 Gbit/s access links and the
        // 1 Gbit/s core: 15.2 us of serialization in all.
        assert!(
            fct >= t.rtt[i] && fct - t.rtt[i] < 20e-6,
            "fct {fct} rtt {}",
            t.rtt[i]
        );
    }
}

#[test]
fn background_flows_are_limited_by_their_64kb_window() {
    // 1 Gbit/s never limits four 100 ms flows each direction; a 64 KB window
    // (44 segments of 1460 B) allows 44 x 1460 x 8 / 0.1 s = 5.14 Mbit/s each.
    let traffic = r#", "traffic": {"bulk": [{"direction": "both", "count": 4,
        "rtt": {"kind": "fixed", "ms": 100}}]}"#;
    let json = dumbbell(30.0, 1000.0, 10.0, r#"{"bdp": 1.0}"#, "", traffic);
    let r = run(&json);
    assert_eq!(r.flows.len(), 8);
    let bound = 44.0 * 1460.0 * 8.0 / 0.1;
    for f in &r.flows {
        assert!((f.base_rtt_s - 0.1).abs() < 1e-9);
        // Bytes delivered from 5 s on: the flow series is off (trace = false).
        let g = f.delivered_bytes as f64 * 8.0 / 30.0;
        assert!(g <= bound * 1.001, "{}: {g} above {bound}", f.name);
        assert!(g >= bound * 0.9, "{}: {g} well below {bound}", f.name);
        assert_eq!(f.data_dropped, 0);
    }
    let per_class = |c: usize| class_goodput(&r, c as u32, 5.0, 30.0);
    for c in [0, 1] {
        let g = per_class(c);
        assert!(
            g <= 4.0 * bound * 1.001 && g >= 4.0 * bound * 0.98,
            "class {c}: {g}"
        );
    }
}
