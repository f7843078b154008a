//! `World::snapshot` at a time `D` gives exactly what a run of the same
//! scenario with `duration_s = D` gives, and leaves the run's later
//! results untouched: what lets a sweep over the run's duration take all
//! its points from its longest run.

#[allow(dead_code)]
mod common;
use common::{
    assert_conserved, dumbbell, graph_with_folded_bottleneck, tables, WEB_AND_ON_OFF_UDP,
};
use tcpeval_sim::{from_json, Results, Time, World};

/// The scenario `json` with its `duration_s` (first field, as the helpers
/// write it) replaced by `d`.
fn with_duration(json: &str, d: f64) -> String {
    let at = json.find("\"duration_s\":").expect("a duration_s field") + "\"duration_s\":".len();
    let end = at + json[at..].find([',', '}']).expect("a value");
    format!("{}{d}{}", &json[..at], &json[end..])
}

/// Everything a run reports, event count and random draws included.
fn everything(r: &Results) -> String {
    format!(
        "{}\nevents {}\ndraws {}",
        tables(r),
        r.events,
        r.random_draws
    )
}

fn world(json: &str) -> World {
    World::new(&from_json(json).unwrap_or_else(|e| panic!("scenario rejected: {e}"))).unwrap()
}

/// Runs `json` once, taking snapshots at each of `cuts` (s, ascending,
/// below its duration), and checks each against a run of that duration;
/// then checks that the snapshots left the run's own end unchanged.
fn prefixes_match(json: &str, cuts: &[f64]) {
    let mut long = world(json);
    let planned: Vec<Time> = cuts.iter().map(|&d| Time::from_secs_f64(d)).collect();
    long.plan_snapshots(&planned);
    for &d in cuts {
        long.advance(Time::from_secs_f64(d));
        let snap = long.snapshot().expect("no traffic event at the cut");
        let short = world(&with_duration(json, d)).run();
        assert_conserved(&snap);
        assert!(short.events > 0 && !short.flows.is_empty());
        assert_eq!(everything(&snap), everything(&short), "snapshot at {d} s");
    }
    let with_snapshots = long.run();
    let without = world(json).run();
    assert_eq!(everything(&with_snapshots), everything(&without));
}

#[test]
fn random_loss_mixed_rtts_and_delayed_acks() {
    // Two algorithms, two RTTs, random loss on the bottleneck; cuts on and
    // off the 100 ms sampling grid.
    let json = dumbbell(
        20.0,
        50.0,
        10.0,
        r#"{"packets": 100}, "loss": 0.0005"#,
        r#"{"algorithm": "cubic", "rtt_ms": 40}, {"algorithm": "reno", "rtt_ms": 120, "start_s": 2}"#,
        "",
    );
    prefixes_match(&json, &[3.0, 7.35, 12.0]);
}

#[test]
fn red_drops_and_generated_long_lived_flows() {
    // RED draws its drops at random; bulk flows with Internet RTTs in both
    // directions carry their own drawn delays.
    let json = dumbbell(
        15.0,
        20.0,
        5.0,
        r#"{"packets": 200}, "queue": {"kind": "red", "min_th": 20, "max_th": 60}"#,
        r#"{"algorithm": "highspeed", "rtt_ms": 60}"#,
        r#", "traffic": {"bulk": [{"name": "bg", "direction": "both", "count": 3, "rtt": {"kind": "internet"}}]}"#,
    );
    prefixes_match(&json, &[4.0, 9.5]);
}

#[test]
fn a_folded_link_with_drops_ahead_of_the_clock_and_schedules() {
    // The folded last link drops ahead of the world's clock (late drops
    // pending at the cut count as in transit) under rate and delay changes.
    let json = graph_with_folded_bottleneck();
    prefixes_match(&json, &[5.0, 12.0, 21.7]);
}

#[test]
fn a_dequeue_discipline() {
    let json = dumbbell(
        12.0,
        30.0,
        10.0,
        r#"{"packets": 200}, "queue": {"kind": "codel"}"#,
        r#"{"algorithm": "reno", "rtt_ms": 50}, {"algorithm": "bic", "rtt_ms": 50}"#,
        "",
    );
    prefixes_match(&json, &[2.5, 8.0]);
}

#[test]
fn web_transfers_and_udp_on_off_sources() {
    // Random transfer arrivals and on-off periods: no event of theirs falls
    // exactly on these cuts.
    let json = dumbbell(
        20.0,
        100.0,
        10.0,
        r#"{"packets": 20}"#,
        r#"{"algorithm": "reno", "rtt_ms": 40}"#,
        WEB_AND_ON_OFF_UDP,
    );
    prefixes_match(&json, &[4.0, 11.2]);
}

#[test]
fn a_traffic_event_at_the_cut_refuses_the_snapshot() {
    // A constant-rate UDP source sends exactly at 2.4 s (every 1.2 ms from 0:
    // 1500-byte datagrams at 10 Mbit/s). A 2.4 s run stops its sources at its
    // end, so it does not send that datagram: the snapshot would differ, and
    // says so by refusing.
    let traffic = r#", "traffic": {"udp": [{"name": "cbr", "rate_mbps": 10}]}"#;
    let json = dumbbell(
        6.0,
        50.0,
        10.0,
        r#"{"packets": 50}"#,
        r#"{"algorithm": "reno", "rtt_ms": 40}"#,
        traffic,
    );
    let mut long = world(&json);
    long.advance(Time::from_secs_f64(2.4));
    assert!(long.snapshot().is_none());
    let mut at_the_cut = world(&json);
    at_the_cut.plan_snapshots(&[Time::from_secs_f64(2.4)]);
    at_the_cut.advance(Time::from_secs_f64(2.4));
    let short = world(&with_duration(&json, 2.4)).run();
    assert_ne!(everything(&at_the_cut.finish()), everything(&short));
    // Off the datagrams' grid, the snapshot is exact again.
    prefixes_match(&json, &[2.4006]);
}

#[test]
fn early_senders_give_the_same_run_however_it_is_cut_into_advances() {
    // Early senders take their ACKs ahead of the clock up to fixed points
    // (samples, planned snapshots, the end), never up to where an
    // `advance` stops: advancing in uneven steps gives the one run
    // `run` gives, bit for bit. Flow samples every 10 ms, shorter than
    // the ACKs' last links (about 15-25 ms), random loss, round numbers
    // (ties at one picosecond).
    let json = dumbbell(
        8.0,
        20.0,
        10.0,
        r#"{"packets": 60}, "loss": 0.001"#,
        r#"{"algorithm": "cubic", "rtt_ms": 80}, {"algorithm": "reno", "rtt_ms": 120, "start_s": 1}"#,
        r#", "probes": {"flow_period_ms": 10, "queue_period_ms": 10}"#,
    );
    let whole = world(&json).run();
    let mut stepped = world(&json);
    assert_eq!(stepped.early_senders(), 2);
    let mut t = 0.0;
    let mut step = 0.0017;
    while t < 8.0 {
        t += step;
        step *= 1.37;
        stepped.advance(Time::from_secs_f64(t));
    }
    assert_eq!(everything(&stepped.finish()), everything(&whole));
}

/// One Reno flow, an early sender, on a 6 s dumbbell with 10 ms flow
/// samples.
fn reno_with_10ms_flow_samples() -> String {
    dumbbell(
        6.0,
        20.0,
        10.0,
        r#"{"packets": 60}"#,
        r#"{"algorithm": "reno", "rtt_ms": 80}"#,
        r#", "probes": {"flow_period_ms": 10}"#,
    )
}

#[test]
fn an_unplanned_snapshot_the_early_senders_ran_past_is_refused() {
    // 4.005 s is between two 10 ms samples: the senders may have taken
    // ACKs up to 4.01 s. Unplanned, the snapshot says no, and the run
    // goes on to its own results; planned, it is exact.
    let json = reno_with_10ms_flow_samples();
    let mut long = world(&json);
    long.advance(Time::from_secs_f64(4.005));
    assert!(!long.can_report_now());
    assert!(long.snapshot().is_none());
    assert_eq!(everything(&long.run()), everything(&world(&json).run()));
    prefixes_match(&json, &[4.005]);
}

#[test]
#[should_panic(expected = "planned snapshot")]
fn finishing_where_the_early_senders_ran_past_is_refused() {
    let json = reno_with_10ms_flow_samples();
    let mut w = world(&json);
    w.advance(Time::from_secs_f64(4.005));
    w.finish();
}

#[test]
fn an_unplanned_snapshot_the_early_receivers_counted_past_is_refused() {
    // A BBR flow paces, so its sender is not early, but its receiver is:
    // its last link counts arrivals up to the next 10 ms sample, 4.01 s,
    // ahead of the clock. Unplanned at 4.005 s the snapshot says no, and
    // the run goes on to its own results; planned, it is exact.
    let json = dumbbell(
        6.0,
        20.0,
        10.0,
        r#"{"packets": 60}"#,
        r#"{"algorithm": "bbr", "rtt_ms": 80}"#,
        r#", "probes": {"flow_period_ms": 10}"#,
    );
    let mut long = world(&json);
    assert_eq!((long.early_receivers(), long.early_senders()), (1, 0));
    long.advance(Time::from_secs_f64(4.005));
    assert!(!long.can_report_now());
    assert!(long.snapshot().is_none());
    assert_eq!(everything(&long.run()), everything(&world(&json).run()));
    prefixes_match(&json, &[4.005]);
}
