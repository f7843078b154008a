//! Step marking: the switch of DCTCP (M. Alizadeh et al., "Data Center TCP
//! (DCTCP)", SIGCOMM 2010, section 3.1 "Simple Marking at the Switch";
//! RFC 8257 section 3.1): an arriving packet is marked with CE when the
//! instantaneous queue exceeds the threshold K, with no averaging and no
//! randomness, so the marks tell the senders at once how far the queue
//! is above K.
//!
//! Here a packet is marked when it finds at least `mark_threshold` packets
//! waiting (not counting the one in service, the link's queue convention),
//! so that with it the queue holds more than K. A Not-ECT packet that
//! would be marked is dropped instead (RFC 3168 section 5), which makes the
//! discipline a DropTail of K packets for flows without ECN. The buffer
//! stays the hard limit.
//!
//! Linux deployments get the same behaviour from `sch_red` with `min = max
//! = K`, probability 1 and ECN on the instantaneous queue; a discipline of
//! its own keeps RED's own rules (max_th above min_th, the average) intact.

use super::{AqmState, Arrival, DropCause, ParamDoc, Verdict};
use crate::scenario::ScenarioError;
use serde::{Deserialize, Serialize};

/// What `tcpeval queues` says of step marking.
pub const SUMMARY: &str = "Step marking (DCTCP, Alizadeh et al. 2010 section 3.1; RFC 8257 \
    section 3.1): marks an ECN-capable packet with CE when it finds mark_threshold packets or \
    more waiting, drops a Not-ECT one there instead; the buffer is the hard limit.";

/// Step marking's parameters (`queue = { kind = "step", mark_threshold = 20 }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StepParams {
    /// Packets waiting from which an arrival is marked (DCTCP's K).
    pub mark_threshold: u32,
}

/// Default K = 20 packets: Linux `Documentation/networking/dctcp.rst`'s
/// threshold heuristic for 1 Gbit/s switches (65 packets at 10 Gbit/s).
impl Default for StepParams {
    fn default() -> Self {
        StepParams { mark_threshold: 20 }
    }
}

/// Step marking's parameters as documented and checked.
pub const PARAMS: &[ParamDoc] = &[ParamDoc {
    name: "mark_threshold",
    unit: "packets",
    range: Some((1.0, 1e9)),
    doc: "Packets waiting (not counting the one in service) from which an arriving packet is \
          marked CE (dropped if Not-ECT): DCTCP's K.",
    source: "Alizadeh et al., SIGCOMM 2010, section 3.1 (K); RFC 8257 section 3.1; default: \
             Linux Documentation/networking/dctcp.rst, 20 packets at 1 Gbit/s (65 at 10 Gbit/s)",
}];

impl StepParams {
    /// Checks the parameters; errors name `at.<field>` and the allowed range.
    pub fn check(&self, at: &str) -> Result<(), ScenarioError> {
        PARAMS[0].check(at, f64::from(self.mark_threshold))
    }
}

/// Step marking's state on one link: its counts and the queue the last
/// arrival found.
#[derive(Clone, Debug)]
pub struct Step {
    p: StepParams,
    last_waiting: u32,
    marks: u64,
    drops: u64,
}

impl Step {
    /// Step marking with parameters `p` (checked).
    pub fn new(p: StepParams) -> Self {
        Step {
            p,
            last_waiting: 0,
            marks: 0,
            drops: 0,
        }
    }

    /// The verdict on an arriving packet: mark (or drop a Not-ECT packet)
    /// when `mark_threshold` or more packets are waiting.
    pub fn on_arrival(&mut self, a: &Arrival) -> Verdict {
        self.last_waiting = a.waiting_pkts;
        if a.waiting_pkts < self.p.mark_threshold {
            Verdict::Enqueue
        } else if a.ect {
            self.marks += 1;
            Verdict::Mark
        } else {
            self.drops += 1;
            Verdict::Drop(DropCause::Forced)
        }
    }

    /// The state probes report: the queue it acts on is the one the last
    /// arrival found (no average); its drops of Not-ECT packets count as
    /// forced.
    pub fn state(&self) -> AqmState {
        AqmState {
            avg_queue: f64::from(self.last_waiting),
            early_drops: 0,
            forced_drops: self.drops,
            marks: self.marks,
            delay: f64::NAN,
            drop_prob: f64::NAN,
            dropping: 0,
            flow_queues: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Time;

    fn arrival(waiting: u32, ect: bool) -> Arrival {
        Arrival {
            now: Time::ZERO,
            waiting_pkts: waiting,
            waiting_bytes: u64::from(waiting) * 1500,
            idle_since: None,
            size: 1500,
            ect,
            start: Time::ZERO,
            buffer_full: false,
        }
    }

    #[test]
    fn marks_from_k_packets_waiting_and_drops_not_ect_there() {
        // DCTCP section 3.1: mark when the queue exceeds K on arrival; K = 5.
        let mut s = Step::new(StepParams { mark_threshold: 5 });
        assert_eq!(s.on_arrival(&arrival(0, true)), Verdict::Enqueue);
        assert_eq!(s.on_arrival(&arrival(4, true)), Verdict::Enqueue);
        assert_eq!(s.on_arrival(&arrival(5, true)), Verdict::Mark);
        assert_eq!(s.on_arrival(&arrival(50, true)), Verdict::Mark);
        assert_eq!(s.on_arrival(&arrival(4, false)), Verdict::Enqueue);
        assert_eq!(
            s.on_arrival(&arrival(5, false)),
            Verdict::Drop(DropCause::Forced)
        );
        let st = s.state();
        assert_eq!((st.marks, st.forced_drops, st.early_drops), (2, 1, 0));
        assert_eq!(st.avg_queue, 5.0);
    }

    #[test]
    fn a_zero_threshold_names_the_field_and_the_range() {
        let e = StepParams { mark_threshold: 0 }
            .check("topology.bottleneck.queue")
            .unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.mark_threshold");
        assert!(e.message.contains("allowed 1 ..= 1e9"), "{e}");
    }
}
