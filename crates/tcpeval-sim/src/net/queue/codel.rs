//! CoDel, Controlled Delay (K. Nichols, V. Jacobson, A. McGregor, J.
//! Iyengar, RFC 8289, 2018), as Linux builds it (`include/net/codel.h`,
//! `include/net/codel_impl.h`, `net/sched/sch_codel.c`). CoDel decides when
//! a packet *leaves* the queue, so it runs on the dequeue link kind of
//! `net::link` (see `docs/dequeue-disciplines.md`).
//!
//! At each dequeue (Linux `codel_dequeue`, `codel_should_drop`):
//! - the head packet's sojourn time `now - enqueue time` is compared with
//!   `target`; below it, or with at most one full packet's bytes left in the
//!   queue (Linux: `backlog <= mtu`; RFC 8289 compares with a maximum packet size),
//!   the delay is fine and `first_above_time` is cleared;
//! - once above, `first_above_time = now + interval`; a packet dequeued
//!   after that (strictly) while still above may be dropped;
//! - outside the dropping state the first such packet is dropped and the
//!   state entered, with `count` 1, or `count - lastcount` when the state is
//!   re-entered within 16 intervals of the last scheduled drop and that
//!   difference exceeds 1 (Linux `codel_dequeue`);
//!   the next drop at `now + interval / sqrt(count)`;
//! - in the dropping state, every packet dequeued at or after the next drop
//!   time is dropped, `count` incremented and the next drop moved to
//!   `drop_next + interval / sqrt(count)`, until a dequeued packet's sojourn
//!   falls under `target`, which ends the state.
//!
//! Arithmetic as Linux's, so the drop times are Linux's to the tick: time in
//! units of 1024 ns (`CODEL_SHIFT` 10; [`codel_time`]), `1 / sqrt(count)`
//! kept as a 16-bit fixed-point reciprocal updated by one Newton step per
//! change of `count` ([`newton_step`]), and the control law a 32-bit
//! reciprocal scale ([`control_law`]). Linux's `u32` times wrap (after 73
//! minutes) and use 0 as "unset"; here they are `u64` and `Option`.
//! The hard limit is the link's buffer (Linux `sch_codel`: `sch->limit`,
//! 1000 packets, a tail drop). No ECN marking yet.

use super::{AqmState, ParamDoc};
use crate::packet::Packet;
use crate::scenario::ScenarioError;
use crate::time::Time;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What `tcpeval queues` says of CoDel.
pub const SUMMARY: &str = "Controlled Delay (RFC 8289; Linux sch_codel): FIFO that drops at \
    dequeue once the sojourn time stayed above target for an interval, then at interval / \
    sqrt(count); the buffer is the hard limit. Has its own dequeue events.";

/// Linux `CODEL_SHIFT`: CoDel's clock counts units of 2^10 ns.
pub const CODEL_SHIFT: u32 = 10;
/// Linux `REC_INV_SQRT_SHIFT` (32 - 16): `rec_inv_sqrt` keeps the top 16
/// bits of a Q0.32 number.
pub const REC_INV_SQRT_SHIFT: u32 = 16;
/// Re-entering the dropping state within this many intervals of the last
/// scheduled drop resumes from `count - lastcount` (Linux `codel_dequeue`).
pub const REENTRY_INTERVALS: u64 = 16;

/// CoDel's parameters (`queue = { kind = "codel", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelParams {
    /// Acceptable standing queue delay, ms.
    pub target_ms: f64,
    /// Sliding window over which the delay must stay above target, ms.
    pub interval_ms: f64,
}

/// Defaults: RFC 8289 and Linux `codel_params_init`
/// (target 5 ms, interval 100 ms).
impl Default for CodelParams {
    fn default() -> Self {
        CodelParams {
            target_ms: 5.0,
            interval_ms: 100.0,
        }
    }
}

/// CoDel's (and FQ-CoDel's) parameters as documented and checked.
pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "target_ms",
        unit: "ms",
        range: Some((0.001, 10_000.0)),
        doc: "Acceptable standing queue delay (sojourn time) of a dequeued packet.",
        source: "RFC 8289 (5 ms); Linux codel_params_init target 5 ms",
    },
    ParamDoc {
        name: "interval_ms",
        unit: "ms",
        range: Some((0.001, 100_000.0)),
        doc: "How long the sojourn time must stay above target before a drop; drops then \
              come at interval / sqrt(count). Should exceed the worst RTT.",
        source: "RFC 8289 (100 ms); Linux codel_params_init interval 100 ms",
    },
];

fn param(name: &str) -> &'static ParamDoc {
    PARAMS
        .iter()
        .find(|p| p.name == name)
        .expect("declared parameter")
}

impl CodelParams {
    /// Checks every parameter; errors name `at.<field>` and the allowed range.
    pub fn check(&self, at: &str) -> Result<(), ScenarioError> {
        param("target_ms").check(at, self.target_ms)?;
        param("interval_ms").check(at, self.interval_ms)
    }
}

/// A packet waiting in a CoDel queue with its enqueue time, CoDel units
/// (Linux `codel_set_enqueue_time`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Queued {
    /// The packet.
    pub pkt: Packet,
    /// Enqueue time, CoDel units ([`codel_time`]).
    pub enqueued: u64,
}

/// CoDel's clock: `t` in units of 1024 ns (Linux `codel_get_time`,
/// `ktime_get_ns() >> CODEL_SHIFT`).
pub fn codel_time(t: Time) -> u64 {
    t.ps() / (1000 << CODEL_SHIFT)
}

/// A duration of `ms` milliseconds in CoDel units (Linux `MS2TIME`, or tc's
/// microseconds `* NSEC_PER_USEC >> CODEL_SHIFT`).
pub fn ms_to_codel(ms: f64) -> u64 {
    ((ms * 1e6).round() as u64) >> CODEL_SHIFT
}

/// One Newton step for `1/sqrt(count)` (Linux `codel_Newton_step`):
/// `x' = x (3 - count x^2) / 2` with `x` in Q0.32, stored in 16 bits.
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = u32::from(rec_inv_sqrt) << REC_INV_SQRT_SHIFT;
    let invsqrt2 = ((u64::from(invsqrt) * u64::from(invsqrt)) >> 32) as u32;
    let mut val = (3u64 << 32).wrapping_sub(u64::from(count) * u64::from(invsqrt2));
    val >>= 2; // as Linux: keeps the next product within 64 bits
    val = val.wrapping_mul(u64::from(invsqrt)) >> (32 - 2 + 1);
    (val >> REC_INV_SQRT_SHIFT) as u16
}

/// `t + interval / sqrt(count)` with `1/sqrt(count)` as `rec_inv_sqrt`
/// (Linux `codel_control_law`, `reciprocal_scale`).
pub fn control_law(t: u64, interval: u64, rec_inv_sqrt: u16) -> u64 {
    let scale = u64::from(u32::from(rec_inv_sqrt) << REC_INV_SQRT_SHIFT);
    t + ((interval * scale) >> 32)
}

/// The constants one CoDel instance works with.
#[derive(Clone, Copy, Debug)]
pub struct CodelConsts {
    /// Target, CoDel units.
    pub target: u64,
    /// Interval, CoDel units.
    pub interval: u64,
    /// A full packet, bytes (Linux `params->mtu`, `psched_mtu`).
    pub mtu: u64,
}

impl CodelConsts {
    /// From the parameters, for full packets of `mtu` bytes.
    pub fn new(p: &CodelParams, mtu: u32) -> Self {
        CodelConsts {
            target: ms_to_codel(p.target_ms),
            interval: ms_to_codel(p.interval_ms),
            mtu: u64::from(mtu),
        }
    }
}

/// Where a CoDel instance takes its packets from: a FIFO, and the bytes the
/// whole discipline holds (Linux passes `sch->qstats.backlog`, so FQ-CoDel's
/// per-flow CoDel sees the whole qdisc's backlog).
pub trait Source {
    /// Removes the head packet, if any.
    fn pop(&mut self) -> Option<Queued>;
    /// Bytes left in the whole discipline.
    fn backlog(&self) -> u64;
}

/// One CoDel state machine (Linux `struct codel_vars`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelVars {
    /// Drops since entering the dropping state (plus the resumed count).
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// In the dropping state.
    pub dropping: bool,
    /// `1/sqrt(count)`, Q0.16.
    pub rec_inv_sqrt: u16,
    /// Time from which a packet above target may be dropped, CoDel units.
    pub first_above_time: Option<u64>,
    /// Next drop time in the dropping state, CoDel units.
    pub drop_next: u64,
    /// Sojourn time of the last dequeued packet, CoDel units.
    pub ldelay: u64,
}

impl CodelVars {
    /// Linux `codel_should_drop` for `pkt` just taken from the head at `now`
    /// with `backlog` bytes left: true once the sojourn has stayed above
    /// target for an interval.
    fn should_drop(
        &mut self,
        pkt: Option<&Queued>,
        now: u64,
        backlog: u64,
        c: &CodelConsts,
    ) -> bool {
        let Some(q) = pkt else {
            self.first_above_time = None;
            return false;
        };
        self.ldelay = now.saturating_sub(q.enqueued);
        if self.ldelay < c.target || backlog <= c.mtu {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + c.interval);
                false
            }
            Some(t) => now > t,
        }
    }

    /// Linux `codel_dequeue`: the packet to send from `src` at `now`, after
    /// dropping (into `dropped`) the head packets the control law says to.
    pub fn dequeue(
        &mut self,
        src: &mut impl Source,
        now: u64,
        c: &CodelConsts,
        dropped: &mut Vec<Packet>,
    ) -> Option<Queued> {
        let Some(mut pkt) = src.pop() else {
            self.dropping = false;
            return None;
        };
        let drop = self.should_drop(Some(&pkt), now, src.backlog(), c);
        if self.dropping {
            if !drop {
                self.dropping = false;
            } else if now >= self.drop_next {
                while self.dropping && now >= self.drop_next {
                    self.count = self.count.wrapping_add(1);
                    self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
                    dropped.push(pkt.pkt);
                    let next = src.pop();
                    if !self.should_drop(next.as_ref(), now, src.backlog(), c) {
                        self.dropping = false;
                    } else {
                        self.drop_next = control_law(self.drop_next, c.interval, self.rec_inv_sqrt);
                    }
                    match next {
                        Some(n) => pkt = n,
                        None => return None,
                    }
                }
            }
        } else if drop {
            dropped.push(pkt.pkt);
            let next = src.pop();
            self.should_drop(next.as_ref(), now, src.backlog(), c);
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            let recent =
                (now as i64 - self.drop_next as i64) < (REENTRY_INTERVALS * c.interval) as i64;
            if delta > 1 && recent {
                self.count = delta;
                self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = u16::MAX;
            }
            self.lastcount = self.count;
            self.drop_next = control_law(now, c.interval, self.rec_inv_sqrt);
            pkt = next?;
        }
        Some(pkt)
    }
}

/// CoDel on one link: a FIFO of the packets waiting and one state machine.
#[derive(Clone, Debug)]
pub struct Codel {
    c: CodelConsts,
    vars: CodelVars,
    fifo: Fifo,
    drops: u64,
}

/// A FIFO and its bytes.
#[derive(Clone, Debug, Default)]
struct Fifo {
    q: VecDeque<Queued>,
    bytes: u64,
}

impl Source for Fifo {
    fn pop(&mut self) -> Option<Queued> {
        let q = self.q.pop_front()?;
        self.bytes -= u64::from(q.pkt.size);
        Some(q)
    }
    fn backlog(&self) -> u64 {
        self.bytes
    }
}

impl Codel {
    /// CoDel on a link carrying full packets of `mtu` bytes.
    pub fn new(p: &CodelParams, mtu: u32) -> Self {
        Codel {
            c: CodelConsts::new(p, mtu),
            vars: CodelVars::default(),
            fifo: Fifo::default(),
            drops: 0,
        }
    }

    /// Enqueues `pkt` at `now` (the caller checked the hard limit).
    pub fn enqueue(&mut self, pkt: Packet, now: Time) {
        self.fifo.bytes += u64::from(pkt.size);
        self.fifo.q.push_back(Queued {
            pkt,
            enqueued: codel_time(now),
        });
    }

    /// The packet to serialize at `now`, dropping by the control law first.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<Packet>) -> Option<Packet> {
        let before = dropped.len();
        let out = self
            .vars
            .dequeue(&mut self.fifo, codel_time(now), &self.c, dropped);
        self.drops += (dropped.len() - before) as u64;
        out.map(|q| q.pkt)
    }

    /// Packets waiting.
    pub fn len(&self) -> u32 {
        self.fifo.q.len() as u32
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.fifo.q.is_empty()
    }

    /// Bytes waiting.
    pub fn bytes(&self) -> u64 {
        self.fifo.bytes
    }

    /// The packets waiting, head first.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.fifo.q.iter().map(|q| &q.pkt)
    }

    /// The state machine.
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }

    /// The state probes report.
    pub fn state(&self) -> AqmState {
        AqmState {
            avg_queue: f64::NAN,
            early_drops: self.drops,
            forced_drops: 0,
            marks: 0,
            delay: codel_units_to_secs(self.vars.ldelay),
            drop_prob: f64::NAN,
            dropping: u32::from(self.vars.dropping),
            flow_queues: 0,
        }
    }
}

/// A duration in CoDel units, s.
pub fn codel_units_to_secs(u: u64) -> f64 {
    (u << CODEL_SHIFT) as f64 * 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Payload;

    fn pkt(seq: u64) -> Packet {
        Packet {
            flow: 0,
            size: 1500,
            hop: 0,
            payload: Payload::Data { seq, tsval: 0 },
            ecn: Default::default(),
        }
    }

    #[test]
    fn the_clock_counts_1024_ns_units() {
        assert_eq!(codel_time(Time::from_us(1)), 0);
        assert_eq!(codel_time(Time::from_ps(1_024_000)), 1);
        // Linux MS2TIME: 5 ms = 5e6 >> 10 = 4882, 100 ms = 97656.
        assert_eq!(ms_to_codel(5.0), 4882);
        assert_eq!(ms_to_codel(100.0), 97656);
    }

    #[test]
    fn newton_steps_approach_one_over_sqrt_count() {
        // Linux codel_Newton_step, one step per count from count 1's 0xFFFF
        // (the values of Linux's integer arithmetic, worked by hand from
        // codel_impl.h): x' = x (3 - count x^2) / 2 lags the exact
        // 1/sqrt(count) at first (0.5 at count 2, not 0.707) and is within
        // 1% of it by count 8 (RFC 8289: interval / sqrt(count)).
        let mut r = u16::MAX;
        let mut got = Vec::new();
        for count in 2..=8u32 {
            r = newton_step(r, count);
            got.push(r);
        }
        assert_eq!(
            got,
            [0x8001, 0x9000, 0x7CE0, 0x7107, 0x6771, 0x600C, 0x59FD]
        );
        let x = f64::from(r) / 65536.0;
        assert!((x - 1.0 / 8f64.sqrt()).abs() < 0.01, "{x}");
    }

    #[test]
    fn the_control_law_spaces_drops_by_interval_over_sqrt_count() {
        // count 1 (0xFFFF): t + interval * 0xFFFF0000 / 2^32 = t + 97654.
        assert_eq!(control_law(1000, 97656, u16::MAX), 1000 + 97654);
        // 1/sqrt(4) = 0.5 -> 0x8000: exactly half the interval.
        assert_eq!(control_law(0, 97656, 0x8000), 48828);
    }

    struct Q(VecDeque<Queued>, u64);
    impl Source for Q {
        fn pop(&mut self) -> Option<Queued> {
            let q = self.0.pop_front()?;
            self.1 -= u64::from(q.pkt.size);
            Some(q)
        }
        fn backlog(&self) -> u64 {
            self.1
        }
    }

    /// A queue of `n` packets all enqueued at time 0.
    fn full(n: u64) -> Q {
        Q(
            (0..n)
                .map(|i| Queued {
                    pkt: pkt(i),
                    enqueued: 0,
                })
                .collect(),
            n * 1500,
        )
    }

    #[test]
    fn drops_start_an_interval_after_the_delay_went_above_target_then_follow_the_law() {
        // A standing queue, every packet enqueued at 0; dequeues at
        // 10, 20, ... ms (sojourn = now > 5 ms target from 10 ms).
        let c = CodelConsts::new(&CodelParams::default(), 1500);
        let mut v = CodelVars::default();
        let mut q = full(1000);
        let mut dropped = Vec::new();
        let mut drop_times = Vec::new();
        for k in 1..=60u64 {
            let now = ms_to_codel(10.0 * k as f64);
            let before = dropped.len();
            v.dequeue(&mut q, now, &c, &mut dropped);
            for _ in before..dropped.len() {
                drop_times.push(k * 10);
            }
            if k == 1 {
                // first above at 10 ms: may drop after 10 + 100 ms.
                assert_eq!(v.first_above_time, Some(ms_to_codel(10.0) + c.interval));
            }
        }
        // First drop at the first dequeue strictly after 110 ms (120 ms):
        // count 1, next drop 120 ms + interval (97654 units, 99.997 ms),
        // i.e. the dequeue at 220 ms. Then each drop adds interval times
        // Linux's Newton-step reciprocal for the new count (see
        // newton_steps_approach_one_over_sqrt_count): count 2 + 50.0 ms
        // (270.0 -> the 270 ms dequeue), 3 + 56.3 (326.3 -> 330), 4 + 48.8
        // (375.0 -> 380), 5 + 44.2 (419.2 -> 420), 6 + 40.4 (459.6 -> 460),
        // 7 + 37.5 (497.1 -> 500), 8 + 35.2 (532.3 -> 540), 9 + 33.3
        // (565.6 -> 570), 10 + 31.6 (597.2 -> 600).
        assert_eq!(
            drop_times,
            [120, 220, 270, 330, 380, 420, 460, 500, 540, 570, 600]
        );
        assert!(v.dropping);
        assert_eq!(v.count, 11);
    }

    #[test]
    fn the_drop_times_are_linux_integer_arithmetic() {
        // Entering: count 1, drop_next = now + control_law(0xFFFF).
        let c = CodelConsts::new(&CodelParams::default(), 1500);
        let mut v = CodelVars::default();
        let mut q = full(100);
        let mut d = Vec::new();
        v.dequeue(&mut q, 10_000, &c, &mut d); // first above: 10000 + 97656
        assert!(d.is_empty());
        v.dequeue(&mut q, 10_000 + 97_657, &c, &mut d);
        assert_eq!(d.len(), 1);
        assert_eq!((v.count, v.lastcount, v.rec_inv_sqrt), (1, 1, u16::MAX));
        assert_eq!(v.drop_next, 10_000 + 97_657 + 97_654);
        // The next drop: count 2, rec_inv_sqrt one Newton step from 0xFFFF,
        // drop_next advanced from the previous drop_next.
        let t = v.drop_next;
        v.dequeue(&mut q, t, &c, &mut d);
        assert_eq!(d.len(), 2);
        assert_eq!(v.count, 2);
        assert_eq!(v.rec_inv_sqrt, 0x8001);
        assert_eq!(v.drop_next, control_law(t, c.interval, v.rec_inv_sqrt));
    }

    #[test]
    fn a_sojourn_under_target_ends_the_dropping_state_and_a_quick_return_resumes_the_count() {
        let c = CodelConsts::new(&CodelParams::default(), 1500);
        let mut v = CodelVars {
            count: 10,
            lastcount: 4,
            dropping: true,
            rec_inv_sqrt: 0x5000,
            first_above_time: Some(0),
            drop_next: 500_000,
            ldelay: 0,
        };
        // A packet enqueued 1 ms ago: under target, leave the state.
        let mut q = Q(
            [Queued {
                pkt: pkt(0),
                enqueued: 490_000 - 977,
            }]
            .into_iter()
            .chain((1..10).map(|i| Queued {
                pkt: pkt(i),
                enqueued: 0,
            }))
            .collect(),
            15_000,
        );
        let mut d = Vec::new();
        assert!(v.dequeue(&mut q, 490_000, &c, &mut d).is_some());
        assert!(!v.dropping && d.is_empty());
        // Above target again: first_above at 491000 + interval; the drop
        // after it re-enters with count - lastcount = 6 (within 16
        // intervals of drop_next), one Newton step from the old reciprocal.
        v.dequeue(&mut q, 491_000, &c, &mut d);
        let t = 491_000 + c.interval + 1;
        v.dequeue(&mut q, t, &c, &mut d);
        assert_eq!(d.len(), 1);
        assert!(v.dropping);
        assert_eq!((v.count, v.lastcount), (6, 6));
        assert_eq!(v.rec_inv_sqrt, 0x6090); // newton_step(0x5000, 6)
        assert_eq!(v.drop_next, control_law(t, c.interval, v.rec_inv_sqrt));
    }

    #[test]
    fn an_almost_empty_queue_is_never_dropped_from() {
        // Linux codel_should_drop: backlog <= mtu after the head left.
        let c = CodelConsts::new(&CodelParams::default(), 1500);
        let mut v = CodelVars::default();
        let mut q = full(2);
        let mut d = Vec::new();
        v.dequeue(&mut q, 10_000, &c, &mut d);
        assert_eq!(v.first_above_time, None); // 1500 bytes left: <= mtu
        assert!(d.is_empty());
    }

    #[test]
    fn bad_parameters_name_the_field_and_the_range() {
        let e = CodelParams {
            interval_ms: -1.0,
            ..CodelParams::default()
        }
        .check("topology.bottleneck.queue")
        .unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.interval_ms");
        assert!(e.message.contains("allowed"), "{e}");
    }

    #[test]
    fn every_parameter_is_documented() {
        let v = serde_json::to_value(CodelParams::default()).unwrap();
        let mut names: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut documented: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        names.sort_unstable();
        documented.sort_unstable();
        assert_eq!(names, documented);
    }
}
