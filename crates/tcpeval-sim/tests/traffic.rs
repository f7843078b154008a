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
    // Data (1500 B) and ACK (40 B) serialized on a 10 Gbit/s access link,
    // the 1 Gbit/s core and another access link: 1.2 + 12 + 1.2 + 0.032 +
    // 0.32 + 0.032 = 14.784 us on top of the RTT, unless two transfers meet
    // at the core.
    let serialization = 14.784e-6;
    let mut exact = 0;
    for i in 0..t.len() {
        assert!((0.02..=0.2).contains(&t.rtt[i]), "rtt {}", t.rtt[i]);
        if t.end[i].is_nan() {
            assert!(t.start[i] > 9.8, "unfinished transfer {i}");
            continue;
        }
        let extra = t.end[i] - t.start[i] - t.rtt[i];
        assert!(
            extra > serialization - 1e-12 && extra < 20e-6,
            "fct - rtt = {extra}"
        );
        exact += usize::from((extra - serialization).abs() < 1e-12);
    }
    assert!(exact * 100 >= t.len() * 99, "{exact} of {}", t.len());
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

/// Mean of the queue length of link `name` over samples in `[t0, t1)`.
fn mean_qlen(r: &Results, name: &str, t0: f64, t1: f64) -> f64 {
    let l = r.links.iter().position(|l| l.name == name).unwrap() as u32;
    let q = &r.queue_series;
    let v: Vec<f64> = (0..q.time.len())
        .filter(|&k| q.link[k] == l && q.time[k] >= t0 && q.time[k] < t1)
        .map(|k| f64::from(q.qlen[k]))
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Mean smoothed RTT of flow `i` over samples in `[t0, t1)`, s.
fn mean_srtt(r: &Results, i: u32, t0: f64, t1: f64) -> f64 {
    let s = &r.flow_series;
    let v: Vec<f64> = (0..s.time.len())
        .filter(|&k| s.flow[k] == i && s.time[k] >= t0 && s.time[k] < t1)
        .map(|k| s.srtt[k])
        .collect();
    v.iter().sum::<f64>() / v.len() as f64
}

#[test]
fn reverse_bulk_flows_queue_the_forward_acks() {
    // The `reverse` study's scenario A in small: forward A and B start in
    // [0, 2] s; reverse C and D run from 20 s to 40 s. Their data fills
    // R2->R1, the forward flows' ACK path: the ACKs queue behind it, the
    // forward flows' RTT grows and their goodput changes.
    let flows = r#"{"name": "A", "algorithm": "reno", "rtt_ms": 40, "count": 2, "start_jitter_s": 2},
                   {"name": "C", "algorithm": "reno", "rtt_ms": 40, "count": 2,
                    "direction": "reverse", "start_s": 20, "stop_s": 40}"#;
    let r = run(&dumbbell(60.0, 50.0, 10.0, r#"{"bdp": 1.0}"#, flows, ""));
    assert!(r.flows[..2]
        .iter()
        .all(|f| (0.0..=2.0).contains(&f.start_s)));
    assert_eq!(r.flows[2].start_s, 20.0);
    assert_eq!(r.flows[3].stop_s, Some(40.0));
    let (q1, q2, q3) = (
        mean_qlen(&r, "R2->R1", 5.0, 20.0),
        mean_qlen(&r, "R2->R1", 25.0, 40.0),
        mean_qlen(&r, "R2->R1", 45.0, 60.0),
    );
    // Phase 1: only ACKs on R2->R1 (40 B at 50 Mbit/s): no queue to speak of.
    assert!(q1 < 2.0, "phase 1 reverse queue {q1}");
    assert!(q2 > 20.0, "phase 2 reverse queue {q2}");
    // Reverse flows stopped: the queue drains (outstanding data only).
    assert!(q3 < 2.0, "phase 3 reverse queue {q3}");
    for i in 0..2 {
        // The ACKs wait behind ~q2 packets of 1500 B at 50 Mbit/s (0.24 ms
        // each), while the forward queue shrinks (in this seed from 95 to
        // 71 packets): the smoothed RTT still rises, and falls back after.
        let (s1, s2, s3) = (
            mean_srtt(&r, i, 5.0, 20.0),
            mean_srtt(&r, i, 25.0, 40.0),
            mean_srtt(&r, i, 45.0, 60.0),
        );
        assert!(
            s2 > s1 + 1e-3 && s3 < s2 - 1e-3,
            "flow {i}: srtt {s1} {s2} {s3}"
        );
    }
    let fwd = |t0, t1| goodput(&r, 0, t0, t1) + goodput(&r, 1, t0, t1);
    let (g1, g2, g3) = (fwd(5.0, 20.0), fwd(25.0, 40.0), fwd(45.0, 60.0));
    // Phase goodputs: 48.7, 38.8 and 48.7 Mbit/s in this seed.
    assert!(
        g1 > 0.9 * 50e6 && g3 > 0.9 * 50e6,
        "forward goodput {g1} {g3}"
    );
    assert!(g2 < 0.9 * g1, "forward goodput unchanged: {g1} vs {g2}");
    // The reverse flows' own ACKs queue behind forward data in turn.
    let rev = goodput(&r, 2, 25.0, 40.0) + goodput(&r, 3, 25.0, 40.0);
    assert!(rev > 0.5 * 50e6, "reverse goodput {rev}");
}

#[test]
fn udp_cbr_carries_its_rate_and_on_off_its_duty_cycle() {
    let traffic = r#", "traffic": {"udp": [
        {"name": "cbr", "rate_mbps": 20, "packet_size": 1000},
        {"name": "onoff", "rate_mbps": 30, "direction": "reverse",
         "on": {"kind": "exponential", "mean_s": 0.5},
         "off": {"kind": "exponential", "mean_s": 1.5}}]}"#;
    let r = run(&dumbbell(60.0, 100.0, 10.0, r#"{"bdp": 1.0}"#, "", traffic));
    let cbr = &r.classes[0].counters;
    // 20 Mbit/s of 1000 B packets: 2500 packets/s for 60 s, all delivered
    // but the ones still on their way at the end.
    assert_eq!(cbr.sent, 150_000);
    assert_eq!(cbr.dropped, 0);
    assert_eq!(cbr.received + cbr.in_transit, 150_000);
    let carried = class_goodput(&r, 0, 1.0, 59.0);
    assert!((carried / 20e6 - 1.0).abs() < 0.001, "{carried}");
    // On/off: 30 Mbit/s a quarter of the time.
    let onoff = &r.classes[1];
    assert_eq!(onoff.info.target_bps, Some(7.5e6));
    let rate = onoff.counters.delivered_bytes as f64 * 8.0 / 60.0;
    assert!((rate / 7.5e6 - 1.0).abs() < 0.15, "{rate}");
    let on_fraction = {
        // Share of 100 ms class samples with traffic.
        let tr = class_trace(&r, 1);
        let busy = tr.windows(2).filter(|w| w[1].1 > w[0].1).count();
        busy as f64 / (tr.len() - 1) as f64
    };
    assert!(on_fraction > 0.2 && on_fraction < 0.4, "{on_fraction}");
}

#[test]
fn a_rate_schedule_changes_throughput_at_its_time() {
    // 10 Mbit/s until 20 s, 20 Mbit/s after: one Reno flow follows.
    let json = dumbbell(
        40.0,
        10.0,
        10.0,
        r#"{"packets": 100}"#,
        r#"{"algorithm": "reno", "rtt_ms": 40}"#,
        "",
    )
    .replace(
        r#""delay_ms": 10,"#,
        r#""delay_ms": 10, "rate_schedule": [[20.0, 20.0]],"#,
    );
    let r = run(&json);
    let q = &r.queue_series;
    let core = r.links.iter().position(|l| l.name == "R1->R2").unwrap() as u32;
    let departed = |t: f64| {
        (0..q.time.len())
            .find(|&k| q.link[k] == core && q.time[k] >= t - 1e-9)
            .map(|k| q.departed_bytes[k])
            .unwrap() as f64
    };
    let rate = |t0: f64, t1: f64| (departed(t1) - departed(t0)) * 8.0 / (t1 - t0);
    let before = rate(5.0, 20.0);
    let after = rate(25.0, 40.0);
    assert!(before <= 10e6 && before > 9.5e6, "{before}");
    assert!(after <= 20e6 && after > 18e6, "{after}");
    // The link never ran faster than 10 Mbit/s before the change.
    // (Up to one packet's serialization straddles a sample.)
    assert!(rate(19.0, 20.0) <= 10e6 + 1500.0 * 8.0);
    assert!(goodput(&r, 0, 25.0, 40.0) > 1.8 * goodput(&r, 0, 5.0, 20.0));
}

#[test]
fn generated_traffic_runs_on_parking_lots_and_graphs() {
    // Parking lot R0 - R1 - R2: web transfers R0 -> R2 both ways, bulk
    // flows R1 -> R2 with an RTT floor of the core path (2 x 5 ms), UDP R0 -> R1.
    let json = r#"{"duration_s": 10, "seed": 3,
        "topology": {"kind": "parking_lot", "links": [
            {"rate_mbps": 100, "delay_ms": 10}, {"rate_mbps": 100, "delay_ms": 5}]},
        "flows": [],
        "traffic": {
            "web": [{"name": "w", "from": 0, "to": 2, "direction": "both",
                     "rtt": {"kind": "uniform", "min_ms": 40, "max_ms": 80}}],
            "bulk": [{"name": "b", "from": 1, "to": 2, "count": 3,
                      "rtt": {"kind": "uniform", "min_ms": 1, "max_ms": 30}}],
            "udp": [{"name": "u", "from": 0, "to": 1, "rate_mbps": 5}]}}"#;
    let r = run(json);
    let link = |name: &str| r.links.iter().find(|l| l.name == name).unwrap();
    assert!(link("w.fwd.src->R0").counters.arrivals > 0);
    assert!(link("R2->w.fwd.dst").counters.arrivals > 0);
    assert!(link("w.rev.src->R2").counters.arrivals > 0);
    assert!(link("u.src->R0").counters.arrivals > 0);
    // UDP leaves at R1 (some packets still on the way, or dropped at R0->R1).
    let (src, dst) = (
        link("u.src->R0").counters.arrivals,
        link("R1->u.dst").counters.arrivals,
    );
    assert!(dst > src * 9 / 10 && dst <= src, "{src} {dst}");
    assert_eq!(
        link("R1->u.dst").counters.arrivals,
        r.classes[3].counters.received
    );
    // Bulk RTTs drawn below 10 ms are raised to the core path's.
    for f in &r.flows {
        assert!(
            f.base_rtt_s >= 0.01 - 1e-12 && f.base_rtt_s <= 0.03 + 1e-12,
            "{f:?}"
        );
    }
    let t = &r.transfers;
    assert!(t.len() > 300);
    assert!((0..t.len()).all(|i| (0.04..=0.08).contains(&t.rtt[i])));
    // Graph: web transfers along a node path and back.
    let json = r#"{"duration_s": 5, "topology": {"kind": "graph", "nodes": ["a", "r", "b"],
            "links": [{"from": "a", "to": "r", "rate_mbps": 1000, "delay_ms": 1},
                      {"from": "r", "to": "b", "rate_mbps": 100, "delay_ms": 10, "monitor": true}]},
        "flows": [], "traffic": {"web": [{"path": ["a", "r", "b"], "direction": "both"}]}}"#;
    let r = run(json);
    let t = &r.transfers;
    assert!((0..t.len()).all(|i| (t.rtt[i] - 0.022).abs() < 1e-12));
    assert!(r.classes.iter().all(|c| c.counters.completed > 50));
    let e = tcpeval_sim::run_json(&json.replace(r#""path": ["a", "r", "b"], "#, "")).unwrap_err();
    assert_eq!(e.field, "traffic.web[0].path");
}

#[test]
fn an_aggregate_starts_uniformly_in_its_window() {
    // 200 flows starting uniformly in [10, 15] s, stopping at 20 s.
    let flows = r#"{"algorithm": "reno", "rtt_ms": 40, "count": 200,
                    "start_s": 10, "start_jitter_s": 5, "stop_s": 20}"#;
    let json = dumbbell(20.0, 100.0, 10.0, r#"{"bdp": 1.0}"#, flows, "");
    let mut starts: Vec<f64> = run(&json).flows.iter().map(|f| f.start_s).collect();
    starts.sort_by(f64::total_cmp);
    assert!(starts[0] >= 10.0 && starts[199] <= 15.0);
    // Largest gap between the empirical CDF and the uniform one (KS
    // statistic); the 1% critical value for n = 200 is 0.115.
    let d = starts
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let u = (s - 10.0) / 5.0;
            (u - i as f64 / 200.0)
                .abs()
                .max(((i + 1) as f64 / 200.0 - u).abs())
        })
        .fold(0.0, f64::max);
    assert!(d < 0.115, "KS distance {d}");
}

#[test]
fn scenarios_without_traffic_normalize_as_before() {
    // New optional sections stay out of the normalized scenario, so the
    // hash of an older scenario does not change.
    let json = dumbbell(
        1.0,
        10.0,
        1.0,
        r#"{"bdp": 1.0}"#,
        r#"{"algorithm": "reno"}"#,
        "",
    );
    let text = serde_json::to_string(&from_json(&json).unwrap()).unwrap();
    for key in [
        "traffic",
        "rate_schedule",
        "delay_schedule",
        "class_period_ms",
    ] {
        assert!(!text.contains(key), "{key} in {text}");
    }
    let bad = json.replace(
        r#""delay_ms": 1,"#,
        r#""delay_ms": 1, "delay_schedule": [[2.0, 5.0], [1.0, 4.0]],"#,
    );
    let e = tcpeval_sim::run_json(&bad).unwrap_err();
    assert_eq!(e.field, "topology.bottleneck.delay_schedule[1]");
    assert!(e.message.contains("increasing"), "{e}");
}

#[test]
fn class_series_defaults_on_only_for_generated_traffic() {
    // Probes::class_period: unset, the class series follows the flow period
    // when there is generated traffic and is off when every class is a flow
    // entry (flow_series holds those flows); a set period is always kept.
    let flow = r#"{"algorithm": "reno", "rtt_ms": 40}"#;
    let flows_only = dumbbell(2.0, 10.0, 5.0, r#"{"bdp": 1.0}"#, flow, "");
    let r = run(&flows_only);
    assert_eq!(r.class_series.time.len(), 0);
    assert!(!r.flow_series.time.is_empty());

    let asked = dumbbell(
        2.0,
        10.0,
        5.0,
        r#"{"bdp": 1.0}"#,
        flow,
        r#", "probes": {"class_period_ms": 500}"#,
    );
    let r = run(&asked);
    let times: Vec<f64> = class_trace(&r, 0).iter().map(|&(t, _)| t).collect();
    assert_eq!(times, [0.0, 0.5, 1.0, 1.5, 2.0]);

    let web = dumbbell(2.0, 10.0, 5.0, r#"{"bdp": 1.0}"#, flow, WEB_BOTH);
    let r = run(&web);
    // Default flow period 10 ms: 201 samples (0 to 2 s) of 3 classes.
    assert_eq!(r.class_series.time.len(), 3 * 201);
    assert_eq!(class_trace(&r, 2).len(), 201);
}
