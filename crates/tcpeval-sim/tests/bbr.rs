//! BBR in a simulated network (issue 20): on a long fat pipe with a deep
//! buffer BBR keeps the queue small where a loss-based algorithm fills it.

#[allow(dead_code)]
mod common;
use common::{dumbbell, goodput, run};
use tcpeval_sim::Results;

/// One flow of `algorithm` alone for 40 s on a 100 Mbit/s, 100 ms RTT
/// dumbbell with a buffer of 10 BDP (8333 packets of 1500 bytes).
fn alone(algorithm: &str) -> Results {
    let json = dumbbell(
        40.0,
        100.0,
        10.0,
        r#"{"bdp": 10.0}"#,
        &format!(r#"{{"algorithm": "{algorithm}", "rtt_ms": 100}}"#),
        r#", "probes": {"queue_period_ms": 10, "flow_period_ms": 100}"#,
    );
    run(&json)
}

/// Mean and maximum bottleneck queue (packets) from `t0` s on.
fn queue_after(r: &Results, t0: f64) -> (f64, u32) {
    let core = r.links.iter().position(|l| l.name == "R1->R2").unwrap() as u32;
    let q = &r.queue_series;
    let v: Vec<u32> = (0..q.time.len())
        .filter(|&k| q.link[k] == core && q.time[k] >= t0)
        .map(|k| q.qlen[k])
        .collect();
    let mean = v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64;
    (mean, v.into_iter().max().unwrap())
}

#[test]
fn bbr_keeps_the_queue_under_one_bdp_where_cubic_fills_ten() {
    let bdp = 100e6 * 0.1 / 12_000.0;
    let bbr = alone("bbr");
    let (mean, max) = queue_after(&bbr, 5.0);
    let util = goodput(&bbr, 0, 5.0, 40.0) / 100e6 * 1500.0 / 1460.0;
    assert!(mean < bdp, "BBR mean queue {mean:.0} packets, BDP {bdp:.0}");
    assert!(util > 0.9, "BBR utilization {util:.3}");
    let cubic = alone("cubic");
    let (cmean, cmax) = queue_after(&cubic, 5.0);
    assert!(
        f64::from(cmax) > 0.9 * 10.0 * bdp,
        "CUBIC max queue {cmax}, buffer {:.0}",
        10.0 * bdp
    );
    assert!(cmean > 2.0 * bdp, "CUBIC mean queue {cmean:.0}");
    eprintln!(
        "BBR: mean queue {mean:.0} max {max} util {util:.3}; CUBIC: mean {cmean:.0} max {cmax}"
    );
}

/// Starts of the periods in which flow 0's sampled cwnd is at most
/// `cap` packets, from `t0` s on.
fn dips(r: &Results, t0: f64, cap: f64) -> Vec<f64> {
    let s = &r.flow_series;
    let mut starts = Vec::new();
    let mut inside = false;
    for k in 0..s.time.len() {
        if s.flow[k] != 0 || s.time[k] < t0 {
            continue;
        }
        let low = s.cwnd[k] <= cap;
        if low && !inside {
            starts.push(s.time[k]);
        }
        inside = low;
    }
    starts
}

#[test]
fn bbr_probes_rtt_at_four_packets_every_ten_seconds_and_repeats_exactly() {
    // Linux tcp_bbr.c: a busy flow whose min_rtt is 10 s old enters
    // PROBE_RTT (cwnd 4) for 200 ms and a round. Alone on the path its
    // RTT never falls below the first sample, so the dips come about
    // every 10.2-10.4 s (10 s plus the dwell and a round trip).
    let r = alone("bbr");
    let starts = dips(&r, 1.0, 4.0);
    eprintln!("PROBE_RTT dips at {starts:?}");
    assert_eq!(starts.len(), 3, "PROBE_RTT dips at {starts:?}");
    for w in starts.windows(2) {
        let gap = w[1] - w[0];
        assert!((10.0..10.6).contains(&gap), "dips at {starts:?}");
    }
    // Same seed, same run: the random start phase comes from the seed.
    let again = alone("bbr");
    assert_eq!(r.flow_series.cwnd, again.flow_series.cwnd);
    assert_eq!(r.queue_series.qlen, again.queue_series.qlen);
}
