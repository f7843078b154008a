//! `cargo bench -p tcpeval-sim`: runs fixed scenarios and reports simulated
//! data packets delivered per wall-clock second and events per second.
//! `cargo bench -p tcpeval-sim --bench engine -- NAME...` runs only the cases
//! whose name contains one of the words (for profiling one case);
//! `--duration-s=S` shortens every case to S simulated seconds (for
//! instruction counts under valgrind, which runs about 50 times slower).

use std::time::Instant;
use tcpeval_sim::{from_json, World};

struct Case {
    name: &'static str,
    json: String,
}

fn dumbbell(rate: f64, rtt: f64, flows: usize, duration: f64, algorithm: &str) -> String {
    let f: Vec<String> = (0..flows)
        .map(|i| {
            format!(
                r#"{{"algorithm": "{algorithm}", "rtt_ms": {rtt}, "start_s": {}}}"#,
                i
            )
        })
        .collect();
    format!(
        r#"{{"duration_s": {duration}, "topology": {{"kind": "dumbbell",
            "bottleneck": {{"rate_mbps": {rate}, "delay_ms": 5, "buffer": {{"bdp": 1.0}}}}}},
            "flows": [{}]}}"#,
        f.join(",")
    )
}

/// `flows` flows of `algorithm` at `rtt` ms on a dumbbell of `rate` Mbit/s
/// with buffer = BDP, started `min(0.1, 1 / flows)` s apart, with the TCP
/// options `tcp` (a JSON object): the many-flow cases of issue 19, as
/// `tcpeval bench` (python/tcpeval/bench.py) builds them. Their 2-flow
/// cases are named `2fl` here so that the word `2flows` still selects only
/// the first case, whose instruction counts BENCHMARKS.md follows.
fn staggered(
    rate: f64,
    rtt: f64,
    flows: usize,
    duration: f64,
    algorithm: &str,
    tcp: &str,
) -> String {
    let step = (1.0 / flows as f64).min(0.1);
    let f: Vec<String> = (0..flows)
        .map(|i| {
            format!(
                r#"{{"algorithm": "{algorithm}", "rtt_ms": {rtt}, "start_s": {}}}"#,
                step * i as f64
            )
        })
        .collect();
    format!(
        r#"{{"duration_s": {duration}, "tcp": {tcp},
            "probes": {{"flow_period_ms": 0, "queue_period_ms": 0, "class_period_ms": 0}},
            "topology": {{"kind": "dumbbell",
            "bottleneck": {{"rate_mbps": {rate}, "delay_ms": 5, "buffer": {{"bdp": 1.0}}}}}},
            "flows": [{}]}}"#,
        f.join(",")
    )
}

/// Short transfers, about 1000 open at once: 1000 transfers/s of 20
/// packets (240 Mbit/s offered on a 1 Gbit/s dumbbell), each with an RTT
/// uniform in 0.25-0.75 s, open about 2 RTTs (Little's law: rate x time open).
fn short_flows(duration: f64) -> String {
    format!(
        r#"{{"duration_s": {duration}, "probes": {{"flow_period_ms": 0, "queue_period_ms": 0}},
            "topology": {{"kind": "dumbbell",
            "bottleneck": {{"rate_mbps": 1000, "delay_ms": 5, "buffer": {{"packets": 5000}}}}}},
            "flows": [],
            "traffic": {{"web": [{{"load_mbps": 240,
                "sizes": {{"kind": "empirical", "pkts": [20], "probs": [1.0]}},
                "rtt": {{"kind": "uniform", "min_ms": 250, "max_ms": 750}}}}]}}}}"#
    )
}

/// The shape of the background study's runs with background traffic, as
/// `tcpeval bench`'s `background-mix-400M-60s` (python/tcpeval/bench.py,
/// where the source is named): two CUBIC flows at 82 ms on 400 Mbit/s
/// (the second from 1 s),
/// 50 long-lived Reno flows and 80 Mbit/s of web transfers each way.
fn background_mix(duration: f64) -> String {
    format!(
        r#"{{"duration_s": {duration}, "platform": "linux-2.6.13",
            "probes": {{"flow_period_ms": 0, "queue_period_ms": 0, "class_period_ms": 0}},
            "topology": {{"kind": "dumbbell",
              "bottleneck": {{"rate_mbps": 400, "delay_ms": 8, "buffer": {{"bytes": 2097152}}}},
              "access": {{"rate_mbps": 1000}}}},
            "flows": [{{"algorithm": "cubic", "rtt_ms": 82}},
                      {{"algorithm": "cubic", "rtt_ms": 82, "start_s": 1}}],
            "traffic": {{
              "web": [{{"load_mbps": 80, "direction": "both", "rtt": {{"kind": "internet"}},
                "sizes": {{"kind": "lognormal_pareto", "mu": 9.357, "sigma": 1.318, "cutoff_bytes": 133000}}}}],
              "bulk": [{{"count": 50, "direction": "both", "rtt": {{"kind": "internet"}}, "start_window_s": 5.0}}]}}}}"#
    )
}

fn main() {
    let duration = |d: f64| {
        std::env::args()
            .find_map(|a| a.strip_prefix("--duration-s=").map(str::to_owned))
            .map_or(d, |s| s.parse().expect("--duration-s=SECONDS"))
    };
    let cases = [
        Case {
            name: "reno-2flows-500M-60ms-60s",
            json: dumbbell(500.0, 60.0, 2, duration(60.0), "reno"),
        },
        Case {
            name: "reno-10flows-1G-100ms-30s",
            json: dumbbell(1000.0, 100.0, 10, duration(30.0), "reno"),
        },
        Case {
            name: "web-1000-concurrent-1G-30s",
            json: short_flows(duration(30.0)),
        },
        Case {
            name: "reno-ackeach-nosack-2fl-60s",
            json: staggered(
                500.0,
                60.0,
                2,
                duration(60.0),
                "reno",
                r#"{"delayed_ack": false, "sack": false}"#,
            ),
        },
        Case {
            name: "cubic-2fl-1G-100ms-30s",
            json: staggered(1000.0, 100.0, 2, duration(30.0), "cubic", "{}"),
        },
        Case {
            name: "cubic-1000flows-1G-100ms-30s",
            json: staggered(1000.0, 100.0, 1000, duration(30.0), "cubic", "{}"),
        },
        Case {
            name: "cubic-10000flows-1G-100ms-10s",
            json: staggered(1000.0, 100.0, 10_000, duration(10.0), "cubic", "{}"),
        },
        Case {
            name: "background-mix-400M-60s",
            json: background_mix(duration(60.0)),
        },
    ];
    println!(
        "{:<30} {:>12} {:>14} {:>14} {:>10}",
        "case", "wall s", "pkts/s", "events/s", "ev/pkt"
    );
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    for c in &cases {
        if !wanted.is_empty() && !wanted.iter().any(|w| c.name.contains(w.as_str())) {
            continue;
        }
        let sc = from_json(&c.json).expect("valid scenario");
        let world = World::new(&sc).expect("valid scenario");
        let t0 = Instant::now();
        let r = world.run();
        let wall = t0.elapsed().as_secs_f64();
        let pkts = r.data_packets_received() as f64;
        println!(
            "{:<30} {:>12.3} {:>14.0} {:>14.0} {:>10.2}",
            c.name,
            wall,
            pkts / wall,
            r.events as f64 / wall,
            r.events as f64 / pkts
        );
        let t = &r.transfers;
        if !t.is_empty() {
            // Little's law: mean transfers open = total open time / run time.
            let open: f64 = (0..t.len())
                .map(|i| {
                    let end = if t.end[i].is_nan() {
                        r.sim_time_s
                    } else {
                        t.end[i]
                    };
                    end - t.start[i]
                })
                .sum();
            println!(
                "{:<30} {} transfers, {:.0} open on average",
                "",
                t.len(),
                open / r.sim_time_s
            );
        }
    }
}
