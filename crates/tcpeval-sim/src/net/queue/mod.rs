//! Queue disciplines: what a link's queue does beyond its hard buffer
//! limit. DropTail (the default) does nothing more: its links carry no
//! discipline at all and keep the link's fast path (one `None` check per
//! offer). The others come in two kinds ([`Discipline`]):
//!
//! - [`Aqm`]: decides on arrival (RED, PIE). It sees every packet that
//!   reaches the queue and returns a [`Verdict`]; the buffer limit then
//!   still applies. This fits the link's arrival-time arithmetic (no
//!   per-packet events).
//! - [`Dequeuer`]: holds the waiting packets and decides at dequeue which
//!   leaves and which it drops (CoDel, FQ-CoDel); the link then runs its
//!   dequeue kind, one event per busy link (see `net::link` and
//!   `docs/dequeue-disciplines.md`).
//!
//! A discipline may also mark (RFC 3168 section 5): [`Verdict::Mark`]
//! enqueues the packet with CE set. A discipline marks only an ECN-capable
//! arrival ([`Arrival::ect`]); the link drops a Not-ECT packet given that
//! verdict, since a router must not set CE on it.
//!
//! Adding a discipline: its own file with its parameters (a serde struct
//! and a [`ParamDoc`] list) and its state, one variant in [`QueueSpec`]
//! and its `kind_tagged!` line, one in [`Aqm`] or [`Dequeuer`] (and
//! [`QueueSpec::dequeues`]), and one entry in [`DISCIPLINES`].

pub mod codel;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod step;

use super::link::BufferLimit;
use crate::packet::Packet;
use crate::rng::Stream;
use crate::scenario::{kind_tagged, ScenarioError};
use crate::time::Time;
use codel::{Codel, CodelParams};
use fq_codel::{FqCodel, FqCodelParams};
use pie::{Pie, PieParams};
use red::{Red, RedParams};
use serde::{Deserialize, Serialize};
use step::{Step, StepParams};

/// One documented parameter of a discipline (for `tcpeval queues` and for
/// validation: `range` is the one place its allowed values are declared).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamDoc {
    /// Field name in the scenario's `queue` table.
    pub name: &'static str,
    /// Unit, or "" when dimensionless or not a number.
    pub unit: &'static str,
    /// Allowed closed range of a number (`None`: not a number).
    pub range: Option<(f64, f64)>,
    /// Meaning.
    pub doc: &'static str,
    /// Primary source of the parameter and its default.
    pub source: &'static str,
}

impl ParamDoc {
    /// Checks `v` against the declared range; the error names `at.<name>`.
    pub fn check(&self, at: &str, v: f64) -> Result<(), ScenarioError> {
        let (lo, hi) = self.range.expect("a numeric parameter has a range");
        crate::scenario::check(&format!("{at}.{}", self.name), v, lo, hi)
    }
}

/// A discipline as listed by `tcpeval queues`.
#[derive(Clone, Copy, Debug)]
pub struct DisciplineDoc {
    /// The `kind` that selects it.
    pub kind: &'static str,
    /// One line on what it does and its source.
    pub summary: &'static str,
    /// Its parameters (defaults: [`QueueSpec::defaults`]).
    pub params: &'static [ParamDoc],
}

/// Every discipline, in the order `tcpeval queues` lists them.
pub const DISCIPLINES: &[DisciplineDoc] = &[
    DisciplineDoc {
        kind: "droptail",
        summary: "First in, first out; a packet is dropped only when the buffer (the link's \
                  `buffer`) is full. The default.",
        params: &[],
    },
    DisciplineDoc {
        kind: "red",
        summary: red::SUMMARY,
        params: red::PARAMS,
    },
    DisciplineDoc {
        kind: "step",
        summary: step::SUMMARY,
        params: step::PARAMS,
    },
    DisciplineDoc {
        kind: "pie",
        summary: pie::SUMMARY,
        params: pie::PARAMS,
    },
    DisciplineDoc {
        kind: "codel",
        summary: codel::SUMMARY,
        params: codel::PARAMS,
    },
    DisciplineDoc {
        kind: "fq_codel",
        summary: fq_codel::SUMMARY,
        params: fq_codel::PARAMS,
    },
];

/// The empty parameter table of DropTail.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailParams {}

/// A link's queue discipline as the scenario gives it
/// (`queue = { kind = "red", min_th = 5 }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    try_from = "serde_json::Value"
)]
pub enum QueueSpec {
    /// Drop only when the buffer is full.
    Droptail(DropTailParams),
    /// Random Early Detection.
    Red(RedParams),
    /// Step marking at an instantaneous threshold (DCTCP's switch).
    Step(StepParams),
    /// Proportional Integral controller Enhanced.
    Pie(PieParams),
    /// Controlled Delay.
    Codel(CodelParams),
    /// Flow Queue CoDel.
    FqCodel(FqCodelParams),
}

kind_tagged!(QueueSpec {
    "droptail" => Droptail,
    "red" => Red,
    "step" => Step,
    "pie" => Pie,
    "codel" => Codel,
    "fq_codel" => FqCodel,
});

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail(DropTailParams {})
    }
}

impl QueueSpec {
    /// True for DropTail, which a normalized scenario leaves out so that
    /// every scenario written before disciplines existed keeps its hash.
    pub fn is_droptail(&self) -> bool {
        matches!(self, QueueSpec::Droptail(_))
    }

    /// Checks the parameters; errors name `at.<field>` (`at` is the path
    /// of the `queue` table).
    pub fn check(&self, at: &str) -> Result<(), ScenarioError> {
        match self {
            QueueSpec::Droptail(_) => Ok(()),
            QueueSpec::Red(p) => p.check(at),
            QueueSpec::Step(p) => p.check(at),
            QueueSpec::Pie(p) => p.check(at),
            QueueSpec::Codel(p) => p.check(at),
            QueueSpec::FqCodel(p) => p.check(at),
        }
    }

    /// True for a discipline that decides at dequeue (the link then runs
    /// its dequeue kind, see `net::link`).
    pub fn dequeues(&self) -> bool {
        matches!(self, QueueSpec::Codel(_) | QueueSpec::FqCodel(_))
    }

    /// The discipline's state for a link of `rate_bps` carrying full
    /// packets of `packet_size` bytes, drawing from `rng`; `None` for
    /// DropTail. The parameters must have passed [`QueueSpec::check`].
    pub fn build(&self, rate_bps: f64, packet_size: u32, rng: Stream) -> Option<Discipline> {
        Some(match self {
            QueueSpec::Droptail(_) => return None,
            QueueSpec::Red(p) => {
                Discipline::Arrival(Aqm::Red(Red::new(p.clone(), rate_bps, packet_size, rng)))
            }
            QueueSpec::Step(p) => Discipline::Arrival(Aqm::Step(Step::new(p.clone()))),
            QueueSpec::Pie(p) => {
                Discipline::Arrival(Aqm::Pie(Pie::new(p.clone(), packet_size, rng)))
            }
            QueueSpec::Codel(p) => Discipline::Dequeue(Dequeuer::Codel(Codel::new(p, packet_size))),
            QueueSpec::FqCodel(p) => {
                let fq = FqCodel::new(p, packet_size, rng);
                Discipline::Dequeue(Dequeuer::FqCodel(Box::new(fq)))
            }
        })
    }

    /// The default parameters of the discipline `kind`, as a JSON table.
    /// A documented parameter the serialization leaves out is a flag that
    /// is off (flags added after the first stored runs are skipped when
    /// off, see [`is_off`]), listed as `false`.
    pub fn defaults(kind: &str) -> Option<serde_json::Value> {
        let spec = match kind {
            "droptail" => QueueSpec::default(),
            "red" => QueueSpec::Red(RedParams::default()),
            "step" => QueueSpec::Step(StepParams::default()),
            "pie" => QueueSpec::Pie(PieParams::default()),
            "codel" => QueueSpec::Codel(CodelParams::default()),
            "fq_codel" => QueueSpec::FqCodel(FqCodelParams::default()),
            _ => return None,
        };
        let mut v = serde_json::to_value(spec).expect("serializable");
        let table = v.as_object_mut()?;
        table.remove("kind");
        let doc = DISCIPLINES.iter().find(|d| d.kind == kind)?;
        for p in doc.params {
            table
                .entry(p.name)
                .or_insert(serde_json::Value::Bool(false));
        }
        Some(v)
    }
}

/// Serde's `skip_serializing_if` for a flag added to a discipline after
/// scenarios using the discipline were stored: off, it is left out of the
/// normalised scenario, whose hash then stays what it was.
pub(crate) fn is_off(flag: &bool) -> bool {
    !*flag
}

/// What the queue looks like when a packet arrives (after the link has
/// ended every serialization due by `now`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    /// Arrival time.
    pub now: Time,
    /// Packets waiting (not counting the one in service).
    pub waiting_pkts: u32,
    /// Bytes waiting (not counting the packet in service).
    pub waiting_bytes: u64,
    /// When the link last went idle (its serializer emptied), if it is
    /// idle now; `None` while a packet is in service.
    pub idle_since: Option<Time>,
    /// Size of the arriving packet, bytes.
    pub size: u32,
    /// The arriving packet is ECN-capable (ECT(0) or already CE): a
    /// discipline that marks may mark it instead of dropping it.
    pub ect: bool,
    /// When its serialization would start if it is accepted (its
    /// departure from the queue; `now` at an idle link).
    pub start: Time,
    /// The link's buffer is full: it drops the packet whatever the verdict.
    pub buffer_full: bool,
}

/// Why a discipline refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// A random early drop (RED: the average queue between the thresholds;
    /// PIE: its drop probability).
    Early,
    /// A drop the discipline forces without a draw (RED: the average queue
    /// at or above `max_th`, or above `2 max_th` in gentle mode).
    Forced,
}

/// A discipline's decision on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Let it through to the buffer (which may still be full).
    Enqueue,
    /// Set CE and let it through to the buffer (which may still be full),
    /// given only for an ECT arrival; the link drops a Not-ECT one.
    Mark,
    /// Drop it.
    Drop(DropCause),
}

/// A discipline's state as probes report it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AqmState {
    /// Average queue the discipline acts on (RED: packets, or bytes in
    /// byte mode).
    pub avg_queue: f64,
    /// Early (random) drops so far.
    pub early_drops: u64,
    /// Forced drops so far (not counting the hard buffer limit's).
    pub forced_drops: u64,
    /// ECN CE marks so far (early and forced).
    pub marks: u64,
    /// Queue delay the discipline acts on, s (PIE: its estimate, the
    /// sojourn time of the last departure; CoDel, FQ-CoDel: the sojourn
    /// time of the last packet dequeued; NaN where none).
    pub delay: f64,
    /// Drop probability (PIE; NaN where none).
    pub drop_prob: f64,
    /// CoDel state machines in their dropping state (CoDel: 0 or 1).
    pub dropping: u32,
    /// Flow queues holding packets (FQ-CoDel; 0 for the others).
    pub flow_queues: u32,
}

/// A link's discipline as built: one that decides on arrival (the link
/// keeps its arrival-time arithmetic), or one that holds the waiting
/// packets and decides at dequeue (the link's dequeue kind).
#[derive(Clone, Debug)]
pub enum Discipline {
    /// Decides on arrival.
    Arrival(Aqm),
    /// Decides at dequeue.
    Dequeue(Dequeuer),
}

/// A discipline that holds the packets waiting and decides at dequeue
/// which one leaves, and which it drops (see `docs/dequeue-disciplines.md`).
#[derive(Clone, Debug)]
pub enum Dequeuer {
    /// Controlled Delay.
    Codel(Codel),
    /// Flow Queue CoDel.
    FqCodel(Box<FqCodel>),
}

impl Dequeuer {
    /// Offers `pkt` at `now` under the link's hard `limit` on what waits;
    /// false if the arriving packet is refused. Other packets the
    /// discipline drops to make room go to `dropped`.
    pub fn enqueue(
        &mut self,
        pkt: Packet,
        now: Time,
        limit: BufferLimit,
        dropped: &mut Vec<Packet>,
    ) -> bool {
        match self {
            Dequeuer::Codel(c) => {
                // Linux sch_codel codel_qdisc_enqueue: a tail drop at the limit.
                let full = match limit {
                    BufferLimit::Packets(b) => c.len() >= b,
                    BufferLimit::Bytes(b) => c.bytes() + u64::from(pkt.size) > b,
                };
                if full {
                    return false;
                }
                c.enqueue(pkt, now);
                true
            }
            Dequeuer::FqCodel(f) => {
                // Linux fq_codel_enqueue: always taken; over the limit the
                // fattest queue loses packets (maybe this one).
                f.enqueue(pkt, now, limit, dropped);
                true
            }
        }
    }

    /// The packet to serialize at `now`, if any; packets dropped on the
    /// way go to `dropped`.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<Packet>) -> Option<Packet> {
        match self {
            Dequeuer::Codel(c) => c.dequeue(now, dropped),
            Dequeuer::FqCodel(f) => f.dequeue(now, dropped),
        }
    }

    /// Packets waiting.
    pub fn len(&self) -> u32 {
        match self {
            Dequeuer::Codel(c) => c.len(),
            Dequeuer::FqCodel(f) => f.len(),
        }
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        match self {
            Dequeuer::Codel(c) => c.bytes(),
            Dequeuer::FqCodel(f) => f.bytes(),
        }
    }

    /// The packets waiting.
    pub fn packets(&self) -> Box<dyn Iterator<Item = &Packet> + '_> {
        match self {
            Dequeuer::Codel(c) => Box::new(c.packets()),
            Dequeuer::FqCodel(f) => Box::new(f.packets()),
        }
    }

    /// The state probes report.
    pub fn state(&self) -> AqmState {
        match self {
            Dequeuer::Codel(c) => c.state(),
            Dequeuer::FqCodel(f) => f.state(),
        }
    }
}

/// A link's active discipline that decides on arrival.
#[derive(Clone, Debug)]
pub enum Aqm {
    /// Random Early Detection.
    Red(Red),
    /// Step marking.
    Step(Step),
    /// Proportional Integral controller Enhanced.
    Pie(Pie),
}

impl Aqm {
    /// The verdict on an arriving packet (arrivals come in time order).
    pub fn on_arrival(&mut self, a: &Arrival) -> Verdict {
        match self {
            Aqm::Red(r) => r.on_arrival(a),
            Aqm::Step(s) => s.on_arrival(a),
            Aqm::Pie(p) => p.on_arrival(a),
        }
    }

    /// The state probes report, as of `now` (not before the last arrival).
    pub fn state_at(&mut self, now: Time) -> AqmState {
        match self {
            Aqm::Red(r) => r.state(),
            Aqm::Step(s) => s.state(),
            Aqm::Pie(p) => p.state_at(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{from_json, Topology};

    fn scenario(queue: &str) -> String {
        format!(
            r#"{{
            "duration_s": 1,
            "topology": {{"kind": "dumbbell", "bottleneck": {{"rate_mbps": 10, "delay_ms": 10{queue}}}}},
            "flows": [{{"algorithm": "reno", "rtt_ms": 100}}]
        }}"#
        )
    }

    fn queue_of(text: &str) -> QueueSpec {
        let sc = from_json(text).unwrap();
        let Topology::Dumbbell(d) = sc.topology else {
            panic!()
        };
        d.bottleneck.queue
    }

    #[test]
    fn droptail_is_the_default_and_left_out_of_the_normalized_scenario() {
        let sc = from_json(&scenario("")).unwrap();
        let text = serde_json::to_string(&sc).unwrap();
        assert!(!text.contains("\"queue\""), "{text}");
        let explicit = from_json(&scenario(r#", "queue": {"kind": "droptail"}"#)).unwrap();
        assert_eq!(explicit, sc);
        assert_eq!(serde_json::to_string(&explicit).unwrap(), text);
    }

    #[test]
    fn red_parses_with_defaults_and_round_trips() {
        let q = queue_of(&scenario(
            r#", "queue": {"kind": "red", "min_th": 10, "max_th": 30}"#,
        ));
        assert_eq!(
            q,
            QueueSpec::Red(RedParams {
                min_th: 10.0,
                max_th: 30.0,
                ..RedParams::default()
            })
        );
        let text = serde_json::to_string(&q).unwrap();
        assert!(text.starts_with(r#"{"kind":"red","min_th":10.0"#), "{text}");
    }

    #[test]
    fn queue_errors_name_the_field() {
        let e = from_json(&scenario(r#", "queue": {"kind": "red", "min_th": "x"}"#)).unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.min_th", "{e}");
        let e = from_json(&scenario(r#", "queue": {"kind": "red", "minth": 3}"#)).unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.minth", "{e}");
        let e = from_json(&scenario(r#", "queue": {"kind": "blue"}"#)).unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.kind", "{e}");
        assert_eq!(
            e.message,
            "unknown variant `blue`, expected one of `droptail`, `red`, `step`, `pie`, `codel`, `fq_codel`"
        );
        let sc = from_json(&scenario(
            r#", "queue": {"kind": "red", "min_th": 5, "max_th": 5}"#,
        ))
        .unwrap();
        let e = crate::resolve::Resolved::new(&sc).unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.max_th", "{e}");
    }

    #[test]
    fn every_discipline_is_listed_with_its_defaults() {
        for d in DISCIPLINES {
            let defaults = QueueSpec::defaults(d.kind).expect(d.kind);
            let keys: Vec<&String> = defaults.as_object().unwrap().keys().collect();
            assert_eq!(keys.len(), d.params.len(), "{}", d.kind);
            for p in d.params {
                assert!(defaults.get(p.name).is_some(), "{}.{}", d.kind, p.name);
            }
        }
        assert_eq!(QueueSpec::defaults("nope"), None);
    }
}
