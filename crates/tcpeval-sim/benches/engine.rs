//! `cargo bench -p tcpeval-sim`: runs fixed scenarios and reports simulated
//! data packets delivered per wall-clock second and events per second.

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

fn main() {
    let cases = [
        Case {
            name: "reno-2flows-500M-60ms-60s",
            json: dumbbell(500.0, 60.0, 2, 60.0, "reno"),
        },
        Case {
            name: "reno-10flows-1G-100ms-30s",
            json: dumbbell(1000.0, 100.0, 10, 30.0, "reno"),
        },
    ];
    println!(
        "{:<30} {:>12} {:>14} {:>14} {:>10}",
        "case", "wall s", "pkts/s", "events/s", "ev/pkt"
    );
    for c in &cases {
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
    }
}
