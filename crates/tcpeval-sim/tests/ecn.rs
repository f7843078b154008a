//! ECN end to end (RFC 3168) and DCTCP on a dumbbell: what marking instead
//! of dropping changes in a whole run.

#[allow(dead_code)]
mod common;

use common::{dumbbell, goodput, run};
use tcpeval_sim::Results;

/// The bottleneck link's index and totals.
fn bottleneck(r: &Results) -> (u32, &tcpeval_sim::results::LinkSummary) {
    let i = r.links.iter().position(|l| l.name == "R1->R2").unwrap();
    (i as u32, &r.links[i])
}

/// Mean and maximum of the bottleneck's sampled queue (packets waiting)
/// from `t0` on.
fn queue_stats(r: &Results, t0: f64) -> (f64, u32) {
    let (id, _) = bottleneck(r);
    let q = &r.queue_series;
    let rows: Vec<u32> = (0..q.time.len())
        .filter(|&k| q.link[k] == id && q.time[k] >= t0)
        .map(|k| q.qlen[k])
        .collect();
    assert!(rows.len() > 100, "{} queue samples", rows.len());
    let mean = rows.iter().map(|&x| f64::from(x)).sum::<f64>() / rows.len() as f64;
    (mean, rows.iter().copied().max().unwrap())
}

/// The last AQM sample of the bottleneck: (early drops, forced drops, marks).
fn aqm_totals(r: &Results) -> (u64, u64, u64) {
    let (id, _) = bottleneck(r);
    let a = &r.aqm_series;
    let k = (0..a.time.len()).rev().find(|&k| a.link[k] == id).unwrap();
    (a.early_drops[k], a.forced_drops[k], a.marks[k])
}

#[test]
fn red_marking_replaces_drops_at_the_same_goodput() {
    // Two Reno flows, 10 Mbit/s, 40 ms RTT (BDP 33 packets), RED with
    // Floyd & Jacobson's thresholds (5, 15) in front of a 1000-packet
    // buffer. Without ECN RED drops; with `ecn` on the flows and the queue
    // it marks instead (Linux sch_red TC_RED_ECN): no packet is lost, no
    // packet is retransmitted, and the link is as busy.
    let red =
        r#"{"packets": 1000}, "queue": {"kind": "red", "min_th": 5, "max_th": 15, "ecn": true}"#;
    let flows = |ecn: bool| {
        format!(
            r#"{{"algorithm": "reno", "rtt_ms": 40, "count": 2, "start_jitter_s": 0.5, "tcp": {{"ecn": {ecn}}}}}"#
        )
    };
    let mut util = Vec::new();
    for ecn in [false, true] {
        let r = run(&dumbbell(60.0, 10.0, 10.0, red, &flows(ecn), ""));
        let (_, link) = bottleneck(&r);
        let (early, forced, marks) = aqm_totals(&r);
        let retx: u64 = r.flows.iter().map(|f| f.retransmitted).sum();
        let reductions: u64 = r.flows.iter().map(|f| f.ece_reductions).sum();
        let ce: u64 = r.flows.iter().map(|f| f.ce_received).sum();
        if ecn {
            assert_eq!(link.counters.drops, 0, "ECN run dropped");
            assert_eq!((early, forced, retx), (0, 0, 0));
            assert!(
                marks > 50 && reductions > 20,
                "marks {marks}, reductions {reductions}"
            );
            // Every mark reached a receiver, but for packets still on
            // their way at the end.
            let in_transit: u64 = r.flows.iter().map(|f| f.data_in_transit).sum();
            assert!(ce <= marks && marks - ce <= in_transit, "{ce} of {marks}");
            // At most one reduction per window: fewer reductions than marks.
            assert!(reductions < marks, "{reductions} vs {marks}");
        } else {
            assert!(
                link.counters.drops > 50 && early > 0,
                "drops {}",
                link.counters.drops
            );
            assert_eq!((marks, reductions, ce), (0, 0, 0));
        }
        let total: f64 = (0..2).map(|i| goodput(&r, i, 10.0, 60.0)).sum();
        util.push(total / 10e6 * 1500.0 / 1460.0);
    }
    // RED's early reductions (max_p 0.1) leave the link idle about a fifth
    // of the time at this BDP (measured 0.80 either way).
    assert!(util.iter().all(|&u| u > 0.7), "utilization {util:?}");
    assert!(
        (util[1] / util[0] - 1.0).abs() < 0.05,
        "utilization {util:?}"
    );
}

#[test]
fn dctcp_holds_the_queue_near_the_marking_threshold() {
    // DCTCP's setting (Alizadeh et al. 2010): two flows through 100 Mbit/s
    // with a 2 ms RTT (BDP 17 packets), step marking at K = 20 packets in
    // front of a 200-packet buffer. Marks cut cwnd by alpha / 2 once per
    // window, so the queue oscillates a few packets about K (measured: mean
    // 17.4, max 23), never reaches the hard limit, and the link stays busy
    // (measured utilization 1.00).
    let k = 20.0;
    let json = dumbbell(
        20.0,
        100.0,
        0.5,
        r#"{"packets": 200}, "queue": {"kind": "step", "mark_threshold": 20}"#,
        r#"{"algorithm": "dctcp", "rtt_ms": 2, "count": 2, "start_jitter_s": 0.1}"#,
        "",
    );
    let r = run(&json);
    let (_, link) = bottleneck(&r);
    assert_eq!(link.counters.drops, 0);
    let (mean, max) = queue_stats(&r, 2.0);
    assert!((mean - k).abs() < 0.25 * k, "mean queue {mean}");
    assert!(f64::from(max) < 2.0 * k, "max queue {max}");
    let total: f64 = (0..2).map(|i| goodput(&r, i, 2.0, 20.0)).sum();
    let util = total / 100e6 * 1500.0 / 1460.0;
    assert!(util > 0.95, "utilization {util}");
    for f in &r.flows {
        assert_eq!(f.retransmitted, 0, "{}", f.name);
        assert!(f.ece_reductions > 100, "{}: {}", f.name, f.ece_reductions);
    }
}

#[test]
fn reno_under_step_marking_halves_and_loses_throughput_dctcp_keeps() {
    // The same path with K = 5 and one flow. RFC 3168 Reno halves cwnd on
    // each marked window, to below the BDP, so the queue drains and the
    // link idles (measured utilization 0.73); DCTCP's alpha-sized cuts keep
    // it busy (0.996), as the DCTCP paper argues for small K (section 3.3).
    // Neither loses a packet.
    let run_one = |algo: &str| {
        let json = dumbbell(
            20.0,
            100.0,
            0.5,
            r#"{"packets": 200}, "queue": {"kind": "step", "mark_threshold": 5}"#,
            &format!(r#"{{"algorithm": "{algo}", "rtt_ms": 2, "tcp": {{"ecn": true}}}}"#),
            "",
        );
        let r = run(&json);
        assert_eq!(bottleneck(&r).1.counters.drops, 0, "{algo}");
        goodput(&r, 0, 2.0, 20.0) / 100e6 * 1500.0 / 1460.0
    };
    let reno = run_one("reno");
    let dctcp = run_one("dctcp");
    assert!(dctcp > 0.95, "dctcp {dctcp}");
    assert!(reno < dctcp - 0.03, "reno {reno} vs dctcp {dctcp}");
}
