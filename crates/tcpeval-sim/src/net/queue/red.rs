//! Random Early Detection (RED), as in S. Floyd and V. Jacobson, "Random
//! Early Detection Gateways for Congestion Avoidance", IEEE/ACM Trans. on
//! Networking 1(4), 1993 (below "F&J"), Fig. 2 ("Detailed algorithm for
//! RED gateways") and Section 4, with the refinements of Linux
//! `include/net/red.h` / `net/sched/sch_red.c` and ns-2 `queue/red.cc`:
//!
//! - On every arrival the average queue is updated (F&J Fig. 2,
//!   Linux `red_calc_qavg_no_idle_time`): `avg <- (1 - w_q) avg + w_q q`,
//!   `q` the packets (bytes in byte mode) waiting.
//! - After an idle period (the link's serializer empty since `q_time`) the
//!   average decays as if `m` empty-queue packets had arrived, `m` the idle
//!   time over a typical packet's transmission time (F&J Fig. 2,
//!   Linux `red_calc_qavg_from_idle_time`): `avg <- (1 - w_q)^m avg`.
//! - `avg < min_th`: enqueue, `count <- -1`. `min_th <= avg < max_th`:
//!   `count <- count + 1`, `p_b = max_p (avg - min_th) / (max_th - min_th)`,
//!   `p_a = p_b / (1 - count p_b)` (F&J eq. in Section 7, which spaces drops
//!   evenly), drop with probability `p_a` and then `count <- 0`.
//!   `avg >= max_th`: drop (a forced drop), `count <- 0`.
//! - Gentle mode (S. Floyd, "Recommendation on using the gentle_ variant
//!   of RED", 2000; ns-2 `gentle_`): between `max_th` and `2 max_th`,
//!   `p_b = max_p + (1 - max_p) (avg - max_th) / max_th`; forced drops only
//!   from `2 max_th`.
//! - Byte mode (F&J Section 4): the queue is measured in bytes and
//!   `p_b <- p_b size / max_size`, so a small packet is less likely dropped.
//!
//! The hard limit is the link's `buffer`, checked after RED lets a packet
//! through (Linux `red_enqueue`: `qdisc_enqueue` fails on a full queue).
//!
//! ECN (`ecn = true`, Linux `TC_RED_ECN`; RFC 3168 section 5): where RED
//! would drop, it marks an ECN-capable packet with CE instead and lets it
//! through, early and forced alike; a Not-ECT packet is still dropped.
//! With `harddrop` (Linux `TC_RED_HARDDROP`) the forced region drops
//! every packet, as ns-2's RED does; either way the full buffer drops. The
//! count since the last drop restarts at a mark too (Linux `red_action`
//! resets `qcount` on every `RED_PROB_MARK`).

use super::{AqmState, Arrival, DropCause, ParamDoc, Verdict};
use crate::rng::Stream;
use crate::scenario::ScenarioError;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// What `tcpeval queues` says of RED.
pub const SUMMARY: &str = "Random Early Detection (Floyd & Jacobson 1993; Linux sch_red): drops \
    at random as the average queue grows between min_th and max_th, drops spaced by the count \
    since the last drop; the buffer is the hard limit.";

/// How RED measures the queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RedMode {
    /// Packets waiting; thresholds in packets.
    #[default]
    Packets,
    /// Bytes waiting; thresholds in bytes, `p_b` scaled by packet size.
    Bytes,
}

/// RED's parameters (`queue = { kind = "red", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RedParams {
    /// Lower threshold of the average queue, packets (bytes in byte mode).
    pub min_th: f64,
    /// Upper threshold of the average queue, packets (bytes in byte mode).
    pub max_th: f64,
    /// Drop probability `p_b` as the average reaches `max_th`.
    pub max_p: f64,
    /// Weight of the current queue in the average.
    pub w_q: f64,
    /// Gentle mode: `p_b` rises from `max_p` to 1 between `max_th` and `2 max_th`.
    pub gentle: bool,
    /// `packets` or `bytes`.
    pub mode: RedMode,
    /// Mark ECN-capable packets instead of dropping them (left out of the
    /// normalised scenario when off, so that RED scenarios written before
    /// it keep their hash).
    #[serde(skip_serializing_if = "super::is_off")]
    pub ecn: bool,
    /// With `ecn`: still drop, not mark, in the forced region (left out
    /// when off, as `ecn`).
    #[serde(skip_serializing_if = "super::is_off")]
    pub harddrop: bool,
}

/// Defaults: ns-2's `Queue/RED` (`thresh_ 5`, `maxthresh_ 15`,
/// `linterm_ 10` i.e. max_p 1/10, `q_weight_ 0.002`), the values F&J's
/// Section 11 and Floyd's 1997 "RED: Discussions of Setting Parameters"
/// recommend; gentle off as in F&J and Linux sch_red.
impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            mode: RedMode::Packets,
            ecn: false,
            harddrop: false,
        }
    }
}

/// RED's parameters as documented and checked.
pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "min_th",
        unit: "packets (bytes in byte mode)",
        range: Some((0.0, 1e12)),
        doc: "Average queue below which nothing is dropped early.",
        source: "F&J 1993 Fig. 2; default ns-2 Queue/RED thresh_ = 5",
    },
    ParamDoc {
        name: "max_th",
        unit: "packets (bytes in byte mode)",
        range: Some((0.0, 1e12)),
        doc: "Average queue from which every packet is dropped (2 max_th in gentle mode); \
              must exceed min_th.",
        source: "F&J 1993 Fig. 2; default ns-2 Queue/RED maxthresh_ = 15",
    },
    ParamDoc {
        name: "max_p",
        unit: "",
        range: Some((1e-9, 1.0)),
        doc: "Early-drop probability p_b as the average queue reaches max_th.",
        source: "F&J 1993 Fig. 2; default ns-2 Queue/RED linterm_ = 10 (max_p = 1/10)",
    },
    ParamDoc {
        name: "w_q",
        unit: "",
        range: Some((1e-9, 1.0)),
        doc: "Weight of the current queue in the exponentially weighted average \
              (Linux: 2^-Wlog).",
        source: "F&J 1993 Section 11 (w_q >= 0.001); default ns-2 Queue/RED q_weight_ = 0.002",
    },
    ParamDoc {
        name: "gentle",
        unit: "",
        range: None,
        doc: "Between max_th and 2 max_th, p_b rises linearly from max_p to 1 instead of \
              jumping to 1.",
        source: "Floyd 2000, recommendation on the gentle_ variant of RED; default off as in \
                 F&J 1993 and Linux sch_red",
    },
    ParamDoc {
        name: "mode",
        unit: "",
        range: None,
        doc: "`packets`: the queue in packets; `bytes`: in bytes, and p_b scaled by packet \
              size over the full packet size.",
        source: "F&J 1993 Section 4",
    },
    ParamDoc {
        name: "ecn",
        unit: "",
        range: None,
        doc: "Mark an ECN-capable packet with CE where RED would drop it (early or forced); \
              Not-ECT packets are still dropped.",
        source: "RFC 3168 section 5; Linux sch_red red_enqueue with TC_RED_ECN (tc red ... ecn); \
                 default off as in Linux",
    },
    ParamDoc {
        name: "harddrop",
        unit: "",
        range: None,
        doc: "With ecn: drop rather than mark in the forced region (average at or above max_th, \
              2 max_th in gentle mode).",
        source: "Linux sch_red TC_RED_HARDDROP (tc red ... harddrop), default off; ns-2 \
                 Queue/RED marks only early drops",
    },
];

fn param(name: &str) -> &'static ParamDoc {
    PARAMS
        .iter()
        .find(|p| p.name == name)
        .expect("declared parameter")
}

impl RedParams {
    /// Checks every parameter; errors name `at.<field>` and the allowed range.
    pub fn check(&self, at: &str) -> Result<(), ScenarioError> {
        param("min_th").check(at, self.min_th)?;
        param("max_th").check(at, self.max_th)?;
        if self.max_th <= self.min_th {
            return Err(ScenarioError::new(
                format!("{at}.max_th"),
                format!(
                    "{} must exceed min_th ({}); allowed {} < max_th <= 1e12",
                    self.max_th, self.min_th, self.min_th
                ),
            ));
        }
        param("max_p").check(at, self.max_p)?;
        param("w_q").check(at, self.w_q)
    }
}

/// RED's drop and mark counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RedStats {
    /// Random drops between the thresholds (Linux `prob_drop`).
    pub early_drops: u64,
    /// Drops at or above `max_th` (`2 max_th` in gentle mode; Linux `forced_drop`).
    pub forced_drops: u64,
    /// Random CE marks between the thresholds (Linux `prob_mark`).
    pub early_marks: u64,
    /// CE marks at or above `max_th` (Linux `forced_mark`).
    pub forced_marks: u64,
}

/// RED's state on one link.
#[derive(Clone, Debug)]
pub struct Red {
    p: RedParams,
    /// F&J's "typical transmission time" `s` of the idle decay: a full
    /// packet's serialization time at the link's (initial) rate, s.
    typical_tx_s: f64,
    /// Full packet size, bytes (byte mode's `MaximumPacketSize`).
    max_size: f64,
    /// Average queue, packets (bytes in byte mode).
    avg: f64,
    /// Packets since the last drop while the average was between the
    /// thresholds; -1 below `min_th` (F&J Fig. 2).
    count: i64,
    rng: Stream,
    stats: RedStats,
}

impl Red {
    /// RED on a link of `rate_bps` carrying full packets of `packet_size` bytes.
    pub fn new(p: RedParams, rate_bps: f64, packet_size: u32, rng: Stream) -> Self {
        Red {
            p,
            typical_tx_s: f64::from(packet_size) * 8.0 / rate_bps,
            max_size: f64::from(packet_size),
            avg: 0.0,
            count: -1,
            rng,
            stats: RedStats::default(),
        }
    }

    /// The average queue, packets (bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The drop counts.
    pub fn stats(&self) -> RedStats {
        self.stats
    }

    /// The state probes report.
    pub fn state(&self) -> AqmState {
        AqmState {
            avg_queue: self.avg,
            early_drops: self.stats.early_drops,
            forced_drops: self.stats.forced_drops,
            marks: self.stats.early_marks + self.stats.forced_marks,
            delay: f64::NAN,
            drop_prob: f64::NAN,
            dropping: 0,
            flow_queues: 0,
        }
    }

    /// Updates the average for an arrival (F&J Fig. 2): the EWMA with the
    /// current queue, or after an idle period of `m` typical transmission
    /// times the decay `(1 - w_q)^m` (Linux `red_calc_qavg_from_idle_time`).
    pub fn update_avg(&mut self, a: &Arrival) {
        let w = self.p.w_q;
        match a.idle_since {
            Some(since) => {
                let m = (a.now - since).secs() / self.typical_tx_s;
                self.avg *= (1.0 - w).powf(m);
            }
            None => {
                let q = match self.p.mode {
                    RedMode::Packets => f64::from(a.waiting_pkts),
                    RedMode::Bytes => a.waiting_bytes as f64,
                };
                self.avg = (1.0 - w) * self.avg + w * q;
            }
        }
    }

    /// The early-drop probability `p_b` at the current average for a packet
    /// of `size` bytes, or `None` where every packet is dropped (at or
    /// above `max_th`, `2 max_th` in gentle mode). Zero below `min_th`.
    pub fn p_b(&self, size: u32) -> Option<f64> {
        let RedParams {
            min_th,
            max_th,
            max_p,
            gentle,
            ..
        } = self.p;
        let avg = self.avg;
        let p = if avg < min_th {
            0.0
        } else if avg < max_th {
            max_p * (avg - min_th) / (max_th - min_th)
        } else if gentle && avg < 2.0 * max_th {
            max_p + (1.0 - max_p) * (avg - max_th) / max_th
        } else {
            return None;
        };
        Some(match self.p.mode {
            RedMode::Packets => p,
            RedMode::Bytes => p * f64::from(size) / self.max_size,
        })
    }

    /// The verdict on an arriving packet (F&J Fig. 2).
    pub fn on_arrival(&mut self, a: &Arrival) -> Verdict {
        self.update_avg(a);
        if self.avg < self.p.min_th {
            self.count = -1;
            return Verdict::Enqueue;
        }
        let Some(p_b) = self.p_b(a.size) else {
            self.count = 0;
            if self.p.ecn && !self.p.harddrop && a.ect {
                self.stats.forced_marks += 1;
                return Verdict::Mark;
            }
            self.stats.forced_drops += 1;
            return Verdict::Drop(DropCause::Forced);
        };
        self.count += 1;
        let u: f64 = self.rng.gen();
        if u < p_a(p_b, self.count) {
            self.count = 0;
            if self.p.ecn && a.ect {
                self.stats.early_marks += 1;
                return Verdict::Mark;
            }
            self.stats.early_drops += 1;
            Verdict::Drop(DropCause::Early)
        } else {
            Verdict::Enqueue
        }
    }
}

/// F&J Section 7: the drop probability of a packet that arrives `count`
/// packets after the last drop, `p_a = p_b / (1 - count p_b)`, so that the
/// gap between drops is uniform in `1 ..= 1/p_b` rather than geometric; 1
/// once `count p_b >= 1`.
pub fn p_a(p_b: f64, count: i64) -> f64 {
    let c = count as f64 * p_b;
    if c >= 1.0 {
        1.0
    } else {
        p_b / (1.0 - c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::time::Time;

    /// RED on a 12 Mbit/s link (1500 B in 1 ms).
    fn red(p: RedParams) -> Red {
        Red::new(p, 12e6, 1500, stream(1, 99, 0))
    }

    fn busy(now_ms: u64, waiting: u32) -> Arrival {
        Arrival {
            now: Time::from_ms(now_ms),
            waiting_pkts: waiting,
            waiting_bytes: u64::from(waiting) * 1500,
            idle_since: None,
            size: 1500,
            ect: false,
            start: Time::from_ms(now_ms),
            buffer_full: false,
        }
    }

    #[test]
    fn the_average_is_the_ewma_of_the_queue() {
        // F&J Fig. 2: avg <- (1 - w_q) avg + w_q q. w_q = 0.5: 0 -> 4 -> 6 -> 3.
        let mut r = red(RedParams {
            w_q: 0.5,
            min_th: 100.0,
            max_th: 200.0,
            ..RedParams::default()
        });
        for (q, want) in [(8, 4.0), (8, 6.0), (0, 3.0)] {
            assert_eq!(r.on_arrival(&busy(0, q)), Verdict::Enqueue);
            assert_eq!(r.avg(), want);
        }
        // Byte mode averages bytes: 0.5 * 3000.
        let mut r = red(RedParams {
            w_q: 0.5,
            mode: RedMode::Bytes,
            min_th: 1e6,
            max_th: 2e6,
            ..RedParams::default()
        });
        r.on_arrival(&busy(0, 2));
        assert_eq!(r.avg(), 1500.0);
    }

    #[test]
    fn an_idle_period_decays_the_average_per_typical_packet_time() {
        // F&J Fig. 2 / Linux red_calc_qavg_from_idle_time: idle 3 ms at
        // 1 ms per packet is m = 3: avg <- (1 - w_q)^3 avg = 8 * 0.125 = 1.
        let mut r = red(RedParams {
            w_q: 0.5,
            min_th: 100.0,
            max_th: 200.0,
            ..RedParams::default()
        });
        r.on_arrival(&busy(0, 16)); // avg 8
        let idle = Arrival {
            idle_since: Some(Time::from_ms(10)),
            ..busy(13, 0)
        };
        r.on_arrival(&idle);
        assert!((r.avg() - 1.0).abs() < 1e-12, "{}", r.avg());
    }

    #[test]
    fn p_b_is_linear_between_the_thresholds() {
        // F&J Fig. 2: p_b = max_p (avg - min_th) / (max_th - min_th).
        let mut r = red(RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            ..RedParams::default()
        });
        for (avg, want) in [(4.0, Some(0.0)), (5.0, Some(0.0)), (10.0, Some(0.05))] {
            r.avg = avg;
            assert_eq!(r.p_b(1500), want, "avg {avg}");
        }
        r.avg = 15.0;
        assert_eq!(r.p_b(1500), None); // forced from max_th
                                       // Byte mode scales by size / full size (F&J Section 4): 0.05 * 500/1500.
        r.p.mode = RedMode::Bytes;
        r.p.min_th = 5.0 * 1500.0;
        r.p.max_th = 15.0 * 1500.0;
        r.avg = 10.0 * 1500.0;
        assert!((r.p_b(500).unwrap() - 0.05 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn gentle_mode_rises_from_max_p_to_one_up_to_twice_max_th() {
        // Floyd 2000: p_b = max_p + (1 - max_p)(avg - max_th)/max_th.
        let mut r = red(RedParams {
            gentle: true,
            ..RedParams::default()
        });
        r.avg = 15.0;
        assert_eq!(r.p_b(1500), Some(0.1));
        r.avg = 22.5; // halfway: 0.1 + 0.9 * 0.5
        assert!((r.p_b(1500).unwrap() - 0.55).abs() < 1e-15);
        r.avg = 30.0;
        assert_eq!(r.p_b(1500), None);
    }

    #[test]
    fn p_a_spaces_drops_by_the_count_since_the_last() {
        // F&J Section 7: p_a = p_b / (1 - count p_b).
        assert_eq!(p_a(0.1, 0), 0.1);
        assert!((p_a(0.1, 5) - 0.2).abs() < 1e-15);
        assert!((p_a(0.1, 9) - 1.0).abs() < 1e-12);
        assert_eq!(p_a(0.1, 10), 1.0);
        assert_eq!(p_a(0.1, 50), 1.0);
    }

    #[test]
    fn the_count_forces_a_drop_within_one_over_p_b_packets() {
        // max_p 0.2 and the average held at 10 (w_q tiny): p_b = 0.1. The
        // n-th packet after a drop has count n (F&J Fig. 2 increments before
        // use), so p_a reaches 1 by n = 1/p_b = 10: no gap exceeds 10, and
        // the gaps are uniform on 1..=10 with p_a(10) taking the rest, mean
        // 5 (sum of n p_b for n < 10, plus 10 (1 - 9 p_b)): about 2000 drops.
        let mut r = red(RedParams {
            w_q: 1e-9,
            max_p: 0.2,
            ..RedParams::default()
        });
        r.avg = 10.0;
        assert_eq!(r.p_b(1500), Some(0.1));
        let mut since: Option<u32> = None; // packets since the last drop
        let mut drops = 0;
        for _ in 0..10_000 {
            since = since.map(|n| n + 1);
            match r.on_arrival(&busy(0, 10)) {
                Verdict::Drop(DropCause::Early) => {
                    if let Some(n) = since {
                        assert!(n <= 10, "gap {n}");
                    }
                    since = Some(0);
                    drops += 1;
                }
                Verdict::Enqueue => {}
                v => panic!("{v:?}"),
            }
        }
        assert!((1900..2100).contains(&drops), "{drops}");
        assert_eq!(r.stats().early_drops, drops);
        r.avg = 1.0;
        assert_eq!(r.on_arrival(&busy(0, 1)), Verdict::Enqueue);
        assert_eq!(r.count, -1);
    }

    #[test]
    fn at_max_th_every_packet_is_a_forced_drop() {
        let mut r = red(RedParams::default());
        r.avg = 20.0;
        assert_eq!(r.on_arrival(&busy(0, 20)), Verdict::Drop(DropCause::Forced));
        assert_eq!(r.count, 0);
        assert_eq!(r.stats().forced_drops, 1);
    }

    #[test]
    fn with_ecn_red_marks_where_it_would_drop() {
        // Linux sch_red red_enqueue with TC_RED_ECN: RED_PROB_MARK and
        // RED_HARD_MARK set CE on an ECT packet (prob_mark, forced_mark);
        // a Not-ECT packet is dropped; TC_RED_HARDDROP drops in the forced
        // region. max_p 1 and the average held at 14 of 5..15: p_b = 0.9,
        // and the second packet after a mark has p_a = 1 (F&J Section 7).
        let ecn = RedParams {
            ecn: true,
            max_p: 1.0,
            w_q: 1e-9,
            ..RedParams::default()
        };
        let ect = |waiting| Arrival {
            ect: true,
            ..busy(0, waiting)
        };
        let mut r = red(ecn.clone());
        r.avg = 14.0;
        let mut verdicts = Vec::new();
        for _ in 0..50 {
            verdicts.push(r.on_arrival(&ect(14)));
        }
        assert!(verdicts
            .iter()
            .all(|v| matches!(v, Verdict::Mark | Verdict::Enqueue)));
        let s = r.stats();
        assert!(s.early_marks >= 25, "{s:?}"); // at least every second packet
        assert_eq!((s.early_drops, s.forced_drops, s.forced_marks), (0, 0, 0));
        assert_eq!(r.state().marks, s.early_marks);
        // Not-ECT: the same rule drops.
        let mut r = red(ecn.clone());
        r.avg = 14.0;
        for _ in 0..50 {
            assert_ne!(r.on_arrival(&busy(0, 14)), Verdict::Mark);
        }
        assert!(r.stats().early_drops >= 25);
        // Forced region: marked, or dropped with harddrop or Not-ECT.
        let mut r = red(ecn.clone());
        r.avg = 20.0;
        assert_eq!(r.on_arrival(&ect(20)), Verdict::Mark);
        assert_eq!(r.on_arrival(&busy(0, 20)), Verdict::Drop(DropCause::Forced));
        assert_eq!((r.stats().forced_marks, r.stats().forced_drops), (1, 1));
        let mut r = red(RedParams {
            harddrop: true,
            ..ecn
        });
        r.avg = 20.0;
        assert_eq!(r.on_arrival(&ect(20)), Verdict::Drop(DropCause::Forced));
        // Without ecn an ECT packet is dropped like any other.
        let mut r = red(RedParams::default());
        r.avg = 20.0;
        assert_eq!(r.on_arrival(&ect(20)), Verdict::Drop(DropCause::Forced));
    }

    #[test]
    fn flags_that_are_off_stay_out_of_the_normalised_scenario() {
        // A RED table written before ECN serializes as it did (its hash
        // holds); the listing still shows the flags with their defaults.
        let text = serde_json::to_string(&RedParams::default()).unwrap();
        assert!(
            !text.contains("ecn") && !text.contains("harddrop"),
            "{text}"
        );
        let listed = super::super::QueueSpec::defaults("red").unwrap();
        assert_eq!(listed["ecn"], false);
        assert_eq!(listed["harddrop"], false);
        let on: RedParams = serde_json::from_str(r#"{"ecn": true}"#).unwrap();
        assert!(serde_json::to_string(&on)
            .unwrap()
            .contains(r#""ecn":true"#));
    }

    #[test]
    fn bad_parameters_name_the_field_and_the_range() {
        let at = "topology.bottleneck.queue";
        let e = RedParams {
            min_th: 20.0,
            ..RedParams::default()
        }
        .check(at)
        .unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.max_th");
        assert!(e.message.contains("must exceed min_th (20)"), "{e}");
        let e = RedParams {
            max_p: 1.5,
            ..RedParams::default()
        }
        .check(at)
        .unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.max_p");
        assert!(e.message.contains("allowed 1e-9 ..= 1"), "{e}");
        let e = RedParams {
            w_q: f64::NAN,
            ..RedParams::default()
        }
        .check(at)
        .unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.w_q");
    }

    #[test]
    fn every_parameter_is_documented() {
        let all_on = RedParams {
            ecn: true,
            harddrop: true,
            ..RedParams::default()
        };
        let v = serde_json::to_value(all_on).unwrap();
        let names: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut documented: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        documented.sort_unstable();
        let mut names = names;
        names.sort_unstable();
        assert_eq!(names, documented);
    }
}
