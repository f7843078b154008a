//! PIE, Proportional Integral controller Enhanced (R. Pan et al., RFC 8033,
//! 2017), as Linux builds it (`net/sched/sch_pie.c`, `include/net/pie.h`).
//! PIE decides on enqueue, so it fits the arrival link of `net::link` as
//! RED does.
//!
//! - **Queue delay** (Linux's default, `dq_rate_estimator` off): the
//!   sojourn time of the last packet that left the queue, `now -
//!   enqueue time`, and 0 when that departure left the queue empty (Linux
//!   `pie_process_dequeue`). The departure-rate estimator of RFC 8033
//!   Section 4.3 (Little's law) is Linux's non-default option and is not
//!   built. A packet leaves the queue when its serialization starts.
//! - **Probability update** every `t_update` (RFC 8033 Section 4.2, Linux
//!   `pie_calculate_probability`): `p += alpha (qdelay - target) + beta
//!   (qdelay - qdelay_old)`, with alpha and beta scaled down while `p` is
//!   small ([`scaled_gains`]), the step capped at 2% once `p >= 10%`, 2%
//!   more when `qdelay > 250 ms`, `p` bounded to 0..=1, and decayed by 1/64
//!   when the delay was 0 for two updates.
//! - **Burst allowance** (RFC 8033 Section 4.4): no early drop for
//!   `max_burst` after the controller was last reset; Linux reduces it by
//!   the time between consecutive departures (`pie_process_dequeue`), and
//!   resets it (`pie_vars_init`) once the delay was under `target/2` for two
//!   updates with `p == 0`.
//! - **Early drop** on enqueue (RFC 8033 Section 4.1, Linux
//!   `pie_drop_early`): none during the burst allowance, none when the
//!   delay is under `target/2` and `p < 20%` (the current estimate, as
//!   Linux; RFC 8033's pseudocode tests `qdelay_old`), none with under two full
//!   packets waiting; otherwise RFC 8033's de-randomized drop
//!   (`accu_prob`: no drop until the accumulated probability reaches 0.85,
//!   a certain drop at 8.5).
//!
//! The update timer is computed lazily, exactly: between two arrivals the
//! queue only drains, and the times at which its packets leave are known
//! when they are accepted, so at each arrival (and each probe sample) PIE
//! replays the departures and the `t_update` ticks since the last one in
//! time order (a departure before a tick at the same instant) before it
//! judges the packet. No event is scheduled.
//!
//! Differences from Linux, all documented here: arithmetic in `f64`
//! (seconds, probability in 0..=1) rather than Linux's fixed point
//! (probability in units of 2^-56, time in 64 ns ticks); `p` bounded to 1
//! as RFC 8033's pseudocode does (Linux's `u64` lets it exceed `MAX_PROB`
//! until it wraps); ticks at `k * t_update` from time zero (Linux arms its
//! first tick half a second after the qdisc is created); the hard limit is
//! the link's `buffer`, checked before PIE as in Linux `pie_qdisc_enqueue`
//! (a packet the full buffer drops is not judged, and clears `accu_prob`).
//! No ECN marking yet.

use super::{AqmState, Arrival, DropCause, ParamDoc, Verdict};
use crate::rng::Stream;
use crate::scenario::ScenarioError;
use crate::time::Time;
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What `tcpeval queues` says of PIE.
pub const SUMMARY: &str = "Proportional Integral controller Enhanced (RFC 8033; Linux sch_pie): \
    a drop probability updated every t_update from the queue delay (the last departure's \
    sojourn time), early drops on enqueue after a burst allowance; the buffer is the hard limit.";

/// No early drop while the delay is under this fraction of `target` and the
/// probability under [`LOW_PROB`] (RFC 8033 Section 4.1; Linux
/// `pie_drop_early`, `target / 2`).
pub const LOW_DELAY_FRACTION: f64 = 0.5;
/// See [`LOW_DELAY_FRACTION`] (RFC 8033 Section 4.1; Linux `MAX_PROB / 5`).
pub const LOW_PROB: f64 = 0.2;
/// No early drop with fewer than this many full packets' bytes waiting
/// (RFC 8033 Section 4.1; Linux `pie_drop_early`, `2 * mtu`).
pub const MIN_BACKLOG_PACKETS: u64 = 2;
/// De-randomization (RFC 8033; Linux `pie_drop_early`): no drop
/// while the accumulated probability is under this...
pub const ACCU_PROB_NO_DROP: f64 = 0.85;
/// ... and a certain drop once it reaches this.
pub const ACCU_PROB_DROP: f64 = 8.5;
/// Once `p` reaches this, a step of `p` is capped at [`MAX_STEP`] (RFC 8033
/// Section 4.2; Linux `MAX_PROB / 10`).
pub const STEP_CAP_FROM: f64 = 0.1;
/// Largest increase of `p` per update from [`STEP_CAP_FROM`] (RFC 8033
/// Section 4.2; Linux `(MAX_PROB / 100) * 2`).
pub const MAX_STEP: f64 = 0.02;
/// Above this queue delay, s, `p` rises by [`HIGH_DELAY_STEP`] more per
/// update (RFC 8033 Section 4.2; Linux `pie_calculate_probability`, 250 ms).
pub const HIGH_DELAY_S: f64 = 0.250;
/// See [`HIGH_DELAY_S`] (Linux `MAX_PROB / (100 / 2)`).
pub const HIGH_DELAY_STEP: f64 = 0.02;
/// Fraction of `p` removed per update when the delay was 0 for two updates
/// (RFC 8033 Section 4.2 "p = p * 0.98"; Linux `prob / 64`, used here).
pub const IDLE_DECAY: f64 = 1.0 / 64.0;

/// PIE's parameters (`queue = { kind = "pie", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PieParams {
    /// Target queue delay, ms.
    pub target_ms: f64,
    /// Period of the probability update, ms.
    pub t_update_ms: f64,
    /// Gain on the distance to the target, 1/s.
    pub alpha: f64,
    /// Gain on the change of the delay, 1/s.
    pub beta: f64,
    /// Burst allowance, ms.
    pub max_burst_ms: f64,
    /// Scale the drop probability by packet size over the full size.
    pub bytemode: bool,
}

/// Defaults: RFC 8033 and Linux `pie_params_init` /
/// `pie_vars_init` (target 15 ms, tupdate 15 ms, alpha 2/16, beta 20/16,
/// burst 150 ms, bytemode off).
impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target_ms: 15.0,
            t_update_ms: 15.0,
            alpha: 0.125,
            beta: 1.25,
            max_burst_ms: 150.0,
            bytemode: false,
        }
    }
}

/// PIE's parameters as documented and checked.
pub const PARAMS: &[ParamDoc] = &[
    ParamDoc {
        name: "target_ms",
        unit: "ms",
        range: Some((0.001, 10_000.0)),
        doc: "Queue delay the controller steers to (QDELAY_REF).",
        source: "RFC 8033 (15 ms); Linux pie_params_init target 15 ms",
    },
    ParamDoc {
        name: "t_update_ms",
        unit: "ms",
        range: Some((0.001, 10_000.0)),
        doc: "Period of the drop-probability update (T_UPDATE).",
        source: "RFC 8033 (15 ms); Linux pie_params_init tupdate 15 ms",
    },
    ParamDoc {
        name: "alpha",
        unit: "1/s",
        range: Some((0.0, 2.0)),
        doc: "Gain on (qdelay - target) per update, before the scaling of small \
              probabilities.",
        source: "RFC 8033 (0.125 Hz); Linux alpha 2 in units of 1/16, range 0..32",
    },
    ParamDoc {
        name: "beta",
        unit: "1/s",
        range: Some((0.0, 2.0)),
        doc: "Gain on (qdelay - qdelay_old) per update, before the scaling of small \
              probabilities.",
        source: "RFC 8033 (1.25 Hz); Linux beta 20 in units of 1/16, range 0..32",
    },
    ParamDoc {
        name: "max_burst_ms",
        unit: "ms",
        range: Some((0.0, 100_000.0)),
        doc: "Burst allowance: no early drop for this long after the controller resets.",
        source: "RFC 8033 (MAX_BURST 150 ms); Linux pie_vars_init burst_time",
    },
    ParamDoc {
        name: "bytemode",
        unit: "",
        range: None,
        doc: "Scale the drop probability by packet size over the full packet size.",
        source: "Linux sch_pie bytemode (default off); RFC 8033",
    },
];

fn param(name: &str) -> &'static ParamDoc {
    PARAMS
        .iter()
        .find(|p| p.name == name)
        .expect("declared parameter")
}

impl PieParams {
    /// Checks every parameter; errors name `at.<field>` and the allowed range.
    pub fn check(&self, at: &str) -> Result<(), ScenarioError> {
        param("target_ms").check(at, self.target_ms)?;
        param("t_update_ms").check(at, self.t_update_ms)?;
        param("alpha").check(at, self.alpha)?;
        param("beta").check(at, self.beta)?;
        param("max_burst_ms").check(at, self.max_burst_ms)
    }
}

/// Alpha and beta as used at probability `p` (RFC 8033 Section 4.2; Linux
/// `pie_calculate_probability`): halved below 10%, then divided by 4 more
/// for each decade `p` lies under 1% (Linux: while `p < 1/power`, `power`
/// from 100 to 10^6, so at most five times).
pub fn scaled_gains(alpha: f64, beta: f64, p: f64) -> (f64, f64) {
    if p >= 0.1 {
        return (alpha, beta);
    }
    let mut k = 0.5;
    let mut power = 100.0;
    while p < 1.0 / power && power <= 1e6 {
        k /= 4.0;
        power *= 10.0;
    }
    (alpha * k, beta * k)
}

/// PIE's state on one link.
#[derive(Clone, Debug)]
pub struct Pie {
    p: PieParams,
    target: f64,
    t_update: Time,
    max_burst: Time,
    /// Full packet size, bytes (Linux's `mtu`).
    mtu: u64,
    /// Drop probability, 0..=1.
    prob: f64,
    /// Accumulated probability since the last drop (RFC 8033).
    accu_prob: f64,
    /// Current queue delay estimate, s.
    qdelay: f64,
    /// The estimate at the previous update, s.
    qdelay_old: f64,
    /// Burst allowance left.
    burst_time: Time,
    /// Time of the last departure since the controller's reset.
    dq_tstamp: Option<Time>,
    /// The next update.
    next_tick: Time,
    /// Packets accepted and not yet departed in PIE's replay: (arrival,
    /// start of serialization, size), in order.
    pending: VecDeque<(Time, Time, u32)>,
    /// Bytes in `pending`.
    pending_bytes: u64,
    rng: Stream,
    early_drops: u64,
}

impl Pie {
    /// PIE on a link carrying full packets of `packet_size` bytes.
    pub fn new(p: PieParams, packet_size: u32, rng: Stream) -> Self {
        let t_update = Time::from_secs_f64(p.t_update_ms / 1e3);
        Pie {
            target: p.target_ms / 1e3,
            t_update,
            max_burst: Time::from_secs_f64(p.max_burst_ms / 1e3),
            burst_time: Time::from_secs_f64(p.max_burst_ms / 1e3),
            p,
            mtu: u64::from(packet_size),
            prob: 0.0,
            accu_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            dq_tstamp: None,
            next_tick: t_update,
            pending: VecDeque::new(),
            pending_bytes: 0,
            rng,
            early_drops: 0,
        }
    }

    /// The drop probability.
    pub fn prob(&self) -> f64 {
        self.prob
    }

    /// The state probes report, as of `now` (replaying up to it).
    pub fn state_at(&mut self, now: Time) -> AqmState {
        self.catch_up(now);
        AqmState {
            avg_queue: f64::NAN,
            early_drops: self.early_drops,
            forced_drops: 0,
            marks: 0,
            delay: self.qdelay,
            drop_prob: self.prob,
            dropping: 0,
            flow_queues: 0,
        }
    }

    /// Replays, in time order, the departures and updates due by `now`
    /// (a departure first when both fall on the same instant).
    fn catch_up(&mut self, now: Time) {
        loop {
            let dep = self.pending.front().map(|e| e.1).filter(|&s| s <= now);
            match dep {
                Some(start) if start <= self.next_tick => {
                    let (offered, _, size) = self.pending.pop_front().expect("peeked");
                    self.pending_bytes -= u64::from(size);
                    self.on_departure(start, start - offered, self.pending_bytes);
                }
                _ if self.next_tick <= now => {
                    self.update(self.pending_bytes);
                    self.next_tick += self.t_update;
                }
                _ => break,
            }
        }
    }

    /// A packet left the queue at `now` after `sojourn`, leaving `backlog`
    /// bytes waiting (Linux `pie_process_dequeue`, timestamp mode).
    pub fn on_departure(&mut self, now: Time, sojourn: Time, backlog: u64) {
        self.qdelay = if backlog == 0 { 0.0 } else { sojourn.secs() };
        let dtime = self.dq_tstamp.map_or(Time::ZERO, |d| now - d);
        self.dq_tstamp = Some(now);
        self.burst_time = self.burst_time.saturating_sub(dtime);
    }

    /// The periodic update with `backlog` bytes waiting (RFC 8033 Section
    /// 4.2; Linux `pie_calculate_probability`, timestamp mode).
    pub fn update(&mut self, backlog: u64) {
        let (qdelay, qdelay_old) = (self.qdelay, self.qdelay_old);
        // A zero delay with packets waiting: a tiny queue, no decay this round.
        let mut decay = !(qdelay == 0.0 && backlog != 0);
        let (alpha, beta) = scaled_gains(self.p.alpha, self.p.beta, self.prob);
        let mut delta = alpha * (qdelay - self.target) + beta * (qdelay - qdelay_old);
        if delta > MAX_STEP && self.prob >= STEP_CAP_FROM {
            delta = MAX_STEP;
        }
        if qdelay > HIGH_DELAY_S {
            delta += HIGH_DELAY_STEP;
        }
        self.prob += delta;
        if self.prob > 1.0 {
            self.prob = 1.0;
            decay = false;
        } else if self.prob < 0.0 {
            self.prob = 0.0;
        }
        if qdelay == 0.0 && qdelay_old == 0.0 && decay {
            self.prob -= self.prob * IDLE_DECAY;
        }
        let low = LOW_DELAY_FRACTION * self.target;
        if qdelay < low && qdelay_old < low && self.prob == 0.0 {
            // Linux pie_vars_init: the controller restarts.
            self.burst_time = self.max_burst;
            self.dq_tstamp = None;
            self.accu_prob = 0.0;
        }
        self.qdelay_old = qdelay;
    }

    /// The verdict on an arriving packet (RFC 8033 Section 4.1; Linux
    /// `pie_qdisc_enqueue`), after replaying up to its arrival.
    pub fn on_arrival(&mut self, a: &Arrival) -> Verdict {
        self.catch_up(a.now);
        if a.buffer_full {
            // Linux: the limit drops it before PIE judges it.
            self.accu_prob = 0.0;
            return Verdict::Enqueue;
        }
        if self.drop_early(a.waiting_bytes, a.size) {
            self.accu_prob = 0.0;
            self.early_drops += 1;
            return Verdict::Drop(DropCause::Early);
        }
        self.pending.push_back((a.now, a.start, a.size));
        self.pending_bytes += u64::from(a.size);
        Verdict::Enqueue
    }

    /// Linux `pie_drop_early` with `backlog` bytes waiting and a packet of
    /// `size` bytes: true to drop it.
    fn drop_early(&mut self, backlog: u64, size: u32) -> bool {
        if self.burst_time > Time::ZERO {
            return false;
        }
        if self.qdelay < LOW_DELAY_FRACTION * self.target && self.prob < LOW_PROB {
            return false;
        }
        if backlog < MIN_BACKLOG_PACKETS * self.mtu {
            return false;
        }
        let local = if self.p.bytemode && u64::from(size) <= self.mtu {
            self.prob * f64::from(size) / self.mtu as f64
        } else {
            self.prob
        };
        if local == 0.0 {
            self.accu_prob = 0.0;
        } else {
            self.accu_prob += local;
        }
        if self.accu_prob < ACCU_PROB_NO_DROP {
            return false;
        }
        if self.accu_prob >= ACCU_PROB_DROP {
            return true;
        }
        let u: f64 = self.rng.gen();
        u < local
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn pie() -> Pie {
        Pie::new(PieParams::default(), 1500, stream(1, 99, 0))
    }

    fn arrival(now: Time, waiting_pkts: u32, start: Time) -> Arrival {
        Arrival {
            now,
            waiting_pkts,
            waiting_bytes: u64::from(waiting_pkts) * 1500,
            idle_since: None,
            size: 1500,
            ect: false,
            start,
            buffer_full: false,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    #[test]
    fn small_probabilities_scale_the_gains_down() {
        // RFC 8033 Section 4.2 / Linux pie_calculate_probability: p >= 10%
        // full gains; 1%..10% halved; each decade under 1% another /4,
        // at most five times (p < 1e-6 stops at /2048).
        let g = |p| scaled_gains(0.125, 1.25, p).0 / 0.125;
        assert_eq!(g(0.1), 1.0);
        assert_eq!(g(0.5), 1.0);
        assert_eq!(g(0.05), 0.5);
        assert_eq!(g(0.01), 0.5);
        assert_eq!(g(0.005), 0.125);
        assert_eq!(g(0.0005), 0.5 / 16.0);
        assert_eq!(g(0.00005), 0.5 / 64.0);
        assert_eq!(g(0.000005), 0.5 / 256.0);
        assert_eq!(g(0.0000005), 0.5 / 1024.0);
        assert_eq!(g(0.0), 0.5 / 1024.0);
        assert_eq!(scaled_gains(0.125, 1.25, 0.05).1, 0.625);
    }

    #[test]
    fn the_update_is_the_pi_law_with_its_rfc_terms() {
        // p = 0: gains /2048. qdelay 20 ms, old 0, target 15 ms:
        // delta = (0.125 * 0.005 + 1.25 * 0.020) / 2048.
        let mut q = pie();
        q.qdelay = 0.020;
        q.update(3000);
        let want = (0.125 * 0.005 + 1.25 * 0.020) / 2048.0;
        assert!(close(q.prob, want), "{} {want}", q.prob);
        assert_eq!(q.qdelay_old, 0.020);
        // p = 0.5, qdelay 30 ms, old 20 ms: full gains,
        // delta = 0.125 * 0.015 + 1.25 * 0.010 = 0.014375 (under the 2% cap).
        q.prob = 0.5;
        q.qdelay = 0.030;
        q.update(3000);
        assert!(close(q.prob, 0.514375), "{}", q.prob);
        // The cap: from p >= 10% a step is at most 2%
        // (0.125 * 0.085 + 1.25 * 0.07 = 0.098 -> 0.02).
        q.qdelay = 0.100;
        q.update(3000);
        assert!(close(q.prob, 0.534375), "{}", q.prob);
        // Over 250 ms: 2% more on top of the capped step.
        q.qdelay = 0.300;
        q.update(3000);
        assert!(close(q.prob, 0.574375), "{}", q.prob);
        // Bounded at 1 (RFC 8033 pseudocode).
        q.prob = 0.99;
        q.update(3000);
        assert_eq!(q.prob, 1.0);
    }

    #[test]
    fn a_zero_delay_for_two_updates_decays_p_by_one_64th() {
        // qdelay = old = 0 at p = 0.5: delta = -0.125 * 0.015 = -0.001875,
        // then p -= p / 64 (Linux; RFC 8033 says 2%).
        let mut q = pie();
        q.prob = 0.5;
        q.update(0);
        let p = 0.5 - 0.001875;
        assert!(close(q.prob, p - p / 64.0), "{}", q.prob);
        // With bytes waiting but a zero delay: no decay that round.
        q.prob = 0.5;
        q.update(1500);
        assert!(close(q.prob, p), "{}", q.prob);
    }

    #[test]
    fn a_quiet_controller_resets_its_burst_allowance() {
        // Linux pie_vars_init from pie_calculate_probability: delay under
        // target/2 twice and p == 0.
        let mut q = pie();
        q.burst_time = Time::ZERO;
        q.accu_prob = 0.5;
        q.dq_tstamp = Some(Time::from_ms(3));
        q.update(0);
        assert_eq!(q.burst_time, Time::from_ms(150));
        assert_eq!((q.accu_prob, q.dq_tstamp), (0.0, None));
    }

    #[test]
    fn departures_set_the_delay_and_spend_the_burst_allowance() {
        // Linux pie_process_dequeue: qdelay = sojourn (0 if the queue is left
        // empty); burst_time shrinks by the time between departures.
        let mut q = pie();
        q.on_departure(Time::from_ms(10), Time::from_ms(4), 1500);
        assert_eq!(q.qdelay, 0.004);
        assert_eq!(q.burst_time, Time::from_ms(150)); // first: no dtime
        q.on_departure(Time::from_ms(40), Time::from_ms(6), 0);
        assert_eq!(q.qdelay, 0.0);
        assert_eq!(q.burst_time, Time::from_ms(120));
        q.on_departure(Time::from_ms(200), Time::from_ms(6), 1500);
        assert_eq!(q.burst_time, Time::ZERO);
    }

    #[test]
    fn no_early_drop_in_the_three_quiet_cases() {
        let mut q = pie();
        q.prob = 0.9;
        q.qdelay = 0.1;
        // Burst allowance left.
        assert!(!q.drop_early(100 * 1500, 1500));
        q.burst_time = Time::ZERO;
        // Under two full packets waiting.
        assert!(!q.drop_early(2 * 1500 - 1, 1500));
        // Delay under target/2 and p < 20%.
        q.prob = 0.19;
        q.qdelay = 0.0074;
        assert!(!q.drop_early(100 * 1500, 1500));
        assert_eq!(q.accu_prob, 0.0);
    }

    #[test]
    fn derandomized_drops_follow_the_accumulated_probability() {
        // RFC 8033: with p = 0.1 the first 8 packets accumulate
        // up to 0.8 < 0.85 and pass without a draw; from 0.85 a random draw
        // decides; from 8.5 the drop is certain.
        let mut q = pie();
        q.burst_time = Time::ZERO;
        q.qdelay = 0.1;
        q.prob = 0.1;
        for i in 0..8 {
            assert!(!q.drop_early(10 * 1500, 1500), "packet {i}");
        }
        assert!(close(q.accu_prob, 0.8));
        // p = 1: the first judged packet (accu 1 >= 0.85) is dropped by the draw.
        q.prob = 1.0;
        q.accu_prob = 0.0;
        assert!(q.drop_early(10 * 1500, 1500));
        // A certain drop at 8.5 whatever the draw.
        q.prob = 1e-9;
        q.accu_prob = 8.5;
        assert!(q.drop_early(10 * 1500, 1500));
    }

    #[test]
    fn the_lazy_replay_matches_departures_and_ticks_in_time_order() {
        // Packets accepted at 0 back to back, 1 ms serialization each:
        // starts at 0, 1, ..., 19 ms. The tick at 15 ms follows the departure
        // at 15 ms: qdelay = 15 ms sojourn, 4 packets still waiting.
        let mut q = pie();
        for i in 0..20u64 {
            let a = arrival(Time::ZERO, i as u32, Time::from_ms(i));
            assert_eq!(q.on_arrival(&a), Verdict::Enqueue);
        }
        let s = q.state_at(Time::from_ms(15));
        assert_eq!(s.delay, 0.015);
        // The update at 15 ms: qdelay = target, old 0: delta = 1.25 * 0.015 / 2048.
        assert!(close(s.drop_prob, 1.25 * 0.015 / 2048.0), "{}", s.drop_prob);
        // Burst allowance: 15 ms spent between the first and the 16th departure.
        assert_eq!(q.burst_time, Time::from_ms(135));
        // After the last departure (19 ms) the queue is empty: delay 0.
        let s = q.state_at(Time::from_ms(29));
        assert_eq!(s.delay, 0.0);
    }

    #[test]
    fn bad_parameters_name_the_field_and_the_range() {
        let at = "topology.bottleneck.queue";
        let e = PieParams {
            target_ms: 0.0,
            ..PieParams::default()
        }
        .check(at)
        .unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.target_ms");
        assert!(e.message.contains("allowed"), "{e}");
        let e = PieParams {
            beta: f64::NAN,
            ..PieParams::default()
        }
        .check(at)
        .unwrap_err();
        assert_eq!(e.field, "topology.bottleneck.queue.beta");
    }

    #[test]
    fn every_parameter_is_documented() {
        let v = serde_json::to_value(PieParams::default()).unwrap();
        let mut names: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut documented: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        documented.sort_unstable();
        names.sort_unstable();
        assert_eq!(names, documented);
    }
}
