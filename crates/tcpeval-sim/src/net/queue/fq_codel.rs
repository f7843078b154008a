//! FQ-CoDel, Flow Queue CoDel (T. Høiland-Jørgensen, P. McKenney, D. Taht,
//! J. Gettys, E. Dumazet, RFC 8290, 2018), as Linux builds it
//! (`net/sched/sch_fq_codel.c`). It runs on the dequeue link kind of
//! `net::link`: it chooses which packet leaves, and CoDel drops at dequeue.
//!
//! - **Flow queues** (RFC 8290; Linux `fq_codel_hash`): a
//!   packet goes to queue `reciprocal_scale(hash, flows)` of its flow's
//!   hash. Linux hashes the 5-tuple with a secret drawn at boot; here the
//!   hash is SplitMix64 of the flow id keyed by a draw from the link's
//!   seeded stream (`rng::purpose::LINK_AQM`), so two flows may share a
//!   queue as in Linux, the same seed always the same way.
//! - **Deficit round robin** over two lists (RFC 8290;
//!   Linux `fq_codel_dequeue`): a queue that gets its first packet while in
//!   no list joins the tail of `new_flows` with a deficit of one `quantum`.
//!   The head of `new_flows` (else of `old_flows`) is served: with a
//!   deficit `<= 0` it gets another quantum and moves to the tail of
//!   `old_flows`; otherwise its CoDel dequeues a packet and the deficit
//!   drops by its size. A queue found empty leaves its list, except that an
//!   empty queue of `new_flows` moves to `old_flows` when that list is not
//!   empty (no starvation of the old flows).
//! - **Per-queue CoDel** ([`super::codel::CodelVars`]), with the whole
//!   discipline's backlog as the "almost empty" test (Linux passes
//!   `sch->qstats.backlog`).
//! - **Overload** (RFC 8290; Linux `fq_codel_drop`): when an
//!   enqueue takes the discipline over its limit (the link's `buffer`, and
//!   `memory_limit` bytes), the queue with the largest backlog loses
//!   packets from its head until half its backlog is gone or
//!   `drop_batch_size` packets are, and its CoDel `count` grows by as many.
//!
//! Differences from Linux: memory is counted in packet bytes (Linux counts
//! each buffer's `truesize`); the packet limit is the link's buffer (Linux
//! `limit`, 10240 packets by default). No ECN marking yet (Linux marks by
//! default where the packet is ECN-capable; tcpeval has no ECN yet).

use super::codel::{codel_time, CodelConsts, CodelParams, CodelVars, Queued, Source};
use super::{AqmState, ParamDoc};
use crate::net::link::BufferLimit;
use crate::packet::Packet;
use crate::rng::{mix, Stream};
use crate::scenario::ScenarioError;
use crate::time::Time;
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What `tcpeval queues` says of FQ-CoDel.
pub const SUMMARY: &str = "Flow Queue CoDel (RFC 8290; Linux sch_fq_codel): flows hashed into \
    queues served by deficit round robin (new flows first), CoDel on each queue, the fattest \
    queue dropped from at the limit (the buffer, and memory_limit). Has its own dequeue events.";

/// FQ-CoDel's parameters (`queue = { kind = "fq_codel", ... }`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelParams {
    /// CoDel's target on each queue, ms.
    pub target_ms: f64,
    /// CoDel's interval on each queue, ms.
    pub interval_ms: f64,
    /// Number of flow queues.
    pub flows: u32,
    /// DRR quantum, bytes.
    pub quantum: u32,
    /// Most packets one overload drop takes from the fattest queue.
    pub drop_batch_size: u32,
    /// Bytes held at most, besides the link's buffer.
    pub memory_limit: u64,
}

/// Defaults: Linux `fq_codel_init` (1024 flows, quantum `psched_mtu` =
/// 1514 bytes on Ethernet, drop batch 64, memory limit 32 MiB) and
/// `codel_params_init` (target 5 ms, interval 100 ms); RFC 8290
impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            target_ms: 5.0,
            interval_ms: 100.0,
            flows: 1024,
            quantum: 1514,
            drop_batch_size: 64,
            memory_limit: 32 << 20,
        }
    }
}

/// FQ-CoDel's parameters as documented and checked.
pub const PARAMS: &[ParamDoc] = &[
    super::codel::PARAMS[0],
    super::codel::PARAMS[1],
    ParamDoc {
        name: "flows",
        unit: "queues",
        range: Some((1.0, 65_536.0)),
        doc: "Number of flow queues flows are hashed into.",
        source: "RFC 8290 (1024); Linux fq_codel_init flows_cnt 1024, range 1..65536",
    },
    ParamDoc {
        name: "quantum",
        unit: "bytes",
        range: Some((256.0, 1e9)),
        doc: "Deficit round robin quantum: bytes a queue may send per round.",
        source: "RFC 8290 (1514 bytes); Linux fq_codel quantum psched_mtu, \
                 at least 256",
    },
    ParamDoc {
        name: "drop_batch_size",
        unit: "packets",
        range: Some((1.0, 65_536.0)),
        doc: "Most packets dropped from the fattest queue at once when over the limit.",
        source: "Linux fq_codel_init drop_batch_size 64",
    },
    ParamDoc {
        name: "memory_limit",
        unit: "bytes",
        range: Some((1.0, 2_147_483_648.0)),
        doc: "Bytes the queues may hold before the fattest is dropped from (besides the \
              link's buffer).",
        source: "Linux fq_codel_init memory_limit 32 MiB, at most 2^31",
    },
];

fn param(name: &str) -> &'static ParamDoc {
    PARAMS
        .iter()
        .find(|p| p.name == name)
        .expect("declared parameter")
}

impl FqCodelParams {
    /// Checks every parameter; errors name `at.<field>` and the allowed range.
    pub fn check(&self, at: &str) -> Result<(), ScenarioError> {
        param("target_ms").check(at, self.target_ms)?;
        param("interval_ms").check(at, self.interval_ms)?;
        param("flows").check(at, f64::from(self.flows))?;
        param("quantum").check(at, f64::from(self.quantum))?;
        param("drop_batch_size").check(at, f64::from(self.drop_batch_size))?;
        param("memory_limit").check(at, self.memory_limit as f64)
    }

    fn codel(&self) -> CodelParams {
        CodelParams {
            target_ms: self.target_ms,
            interval_ms: self.interval_ms,
        }
    }
}

/// Which list a flow queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
}

/// One flow queue (Linux `struct fq_codel_flow`).
#[derive(Clone, Debug, Default)]
struct FlowQueue {
    q: VecDeque<Queued>,
    /// Bytes in `q` (Linux `backlogs[i]`).
    bytes: u64,
    /// DRR deficit, bytes.
    deficit: i64,
    vars: CodelVars,
    list: Option<List>,
}

/// A flow queue seen by its CoDel, with the discipline's totals.
struct FlowSource<'a> {
    q: &'a mut VecDeque<Queued>,
    bytes: &'a mut u64,
    total_bytes: &'a mut u64,
    total_pkts: &'a mut u32,
}

impl Source for FlowSource<'_> {
    fn pop(&mut self) -> Option<Queued> {
        let p = self.q.pop_front()?;
        let size = u64::from(p.pkt.size);
        *self.bytes -= size;
        *self.total_bytes -= size;
        *self.total_pkts -= 1;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        *self.total_bytes
    }
}

/// FQ-CoDel on one link.
#[derive(Clone, Debug)]
pub struct FqCodel {
    c: CodelConsts,
    quantum: i64,
    drop_batch: u32,
    memory_limit: u64,
    /// Key of the flow hash (drawn from the link's stream).
    hash_key: u64,
    flows: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    /// Packets held.
    qlen: u32,
    /// Bytes held.
    backlog: u64,
    /// Drops by the queues' CoDel.
    codel_drops: u64,
    /// Drops from the fattest queue over the limit.
    overlimit_drops: u64,
    /// Sojourn time of the last packet a CoDel dequeued, CoDel units.
    last_sojourn: u64,
}

impl FqCodel {
    /// FQ-CoDel on a link carrying full packets of `mtu` bytes, its flow
    /// hash keyed by a draw from `rng`.
    pub fn new(p: &FqCodelParams, mtu: u32, mut rng: Stream) -> Self {
        FqCodel {
            c: CodelConsts::new(&p.codel(), mtu),
            quantum: i64::from(p.quantum),
            drop_batch: p.drop_batch_size,
            memory_limit: p.memory_limit,
            hash_key: rng.gen(),
            flows: vec![FlowQueue::default(); p.flows as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            qlen: 0,
            backlog: 0,
            codel_drops: 0,
            overlimit_drops: 0,
            last_sojourn: 0,
        }
    }

    /// The queue of flow `flow` (Linux `fq_codel_hash`: `reciprocal_scale`
    /// of a 32-bit hash).
    pub fn queue_of(&self, flow: u32) -> usize {
        let h = (mix(self.hash_key ^ u64::from(flow)) >> 32) as u32;
        ((u64::from(h) * self.flows.len() as u64) >> 32) as usize
    }

    /// Enqueues `pkt` at `now` (Linux `fq_codel_enqueue`); over `limit`
    /// (or the memory limit) drops from the fattest queue into `dropped`,
    /// which may take the arriving packet itself.
    pub fn enqueue(
        &mut self,
        pkt: Packet,
        now: Time,
        limit: BufferLimit,
        dropped: &mut Vec<Packet>,
    ) {
        let idx = self.queue_of(pkt.flow);
        let size = u64::from(pkt.size);
        let f = &mut self.flows[idx];
        f.q.push_back(Queued {
            pkt,
            enqueued: codel_time(now),
        });
        f.bytes += size;
        self.backlog += size;
        self.qlen += 1;
        if f.list.is_none() {
            f.list = Some(List::New);
            f.deficit = self.quantum;
            self.new_flows.push_back(idx as u32);
        }
        let over = match limit {
            BufferLimit::Packets(b) => self.qlen > b,
            BufferLimit::Bytes(b) => self.backlog > b,
        };
        if over || self.backlog > self.memory_limit {
            self.drop_from_fattest(dropped);
        }
    }

    /// Linux `fq_codel_drop`: up to `drop_batch_size` packets from the head
    /// of the queue with the most bytes, until half its bytes are gone.
    fn drop_from_fattest(&mut self, dropped: &mut Vec<Packet>) {
        let mut idx = 0;
        let mut max = 0;
        for (i, f) in self.flows.iter().enumerate() {
            if f.bytes > max {
                max = f.bytes;
                idx = i;
            }
        }
        let threshold = max >> 1;
        let f = &mut self.flows[idx];
        let (mut n, mut len) = (0u32, 0u64);
        while let Some(q) = f.q.pop_front() {
            len += u64::from(q.pkt.size);
            n += 1;
            dropped.push(q.pkt);
            if n >= self.drop_batch || len >= threshold {
                break;
            }
        }
        f.vars.count = f.vars.count.wrapping_add(n);
        f.bytes -= len;
        self.backlog -= len;
        self.qlen -= n;
        self.overlimit_drops += u64::from(n);
    }

    /// The packet to serialize at `now` (Linux `fq_codel_dequeue`); CoDel's
    /// drops go to `dropped`.
    pub fn dequeue(&mut self, now: Time, dropped: &mut Vec<Packet>) -> Option<Packet> {
        let now = codel_time(now);
        loop {
            let (list, idx) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (List::New, i as usize),
                (None, Some(&i)) => (List::Old, i as usize),
                (None, None) => return None,
            };
            let f = &mut self.flows[idx];
            if f.deficit <= 0 {
                f.deficit += self.quantum;
                self.pop_list(list);
                self.flows[idx].list = Some(List::Old);
                self.old_flows.push_back(idx as u32);
                continue;
            }
            let FlowQueue { q, bytes, vars, .. } = f;
            let mut src = FlowSource {
                q,
                bytes,
                total_bytes: &mut self.backlog,
                total_pkts: &mut self.qlen,
            };
            let before = dropped.len();
            let out = vars.dequeue(&mut src, now, &self.c, dropped);
            self.codel_drops += (dropped.len() - before) as u64;
            match out {
                None => {
                    self.pop_list(list);
                    if list == List::New && !self.old_flows.is_empty() {
                        self.flows[idx].list = Some(List::Old);
                        self.old_flows.push_back(idx as u32);
                    } else {
                        self.flows[idx].list = None;
                    }
                }
                Some(p) => {
                    let f = &mut self.flows[idx];
                    f.deficit -= i64::from(p.pkt.size);
                    self.last_sojourn = f.vars.ldelay;
                    return Some(p.pkt);
                }
            }
        }
    }

    fn pop_list(&mut self, list: List) {
        match list {
            List::New => self.new_flows.pop_front(),
            List::Old => self.old_flows.pop_front(),
        };
    }

    /// Packets held.
    pub fn len(&self) -> u32 {
        self.qlen
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.qlen == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.backlog
    }

    /// The packets held, queue by queue.
    pub fn packets(&self) -> impl Iterator<Item = &Packet> {
        self.flows.iter().flat_map(|f| f.q.iter().map(|q| &q.pkt))
    }

    /// The state probes report (scans the flow queues).
    pub fn state(&self) -> AqmState {
        AqmState {
            avg_queue: f64::NAN,
            early_drops: self.codel_drops,
            forced_drops: self.overlimit_drops,
            marks: 0,
            delay: super::codel::codel_units_to_secs(self.last_sojourn),
            drop_prob: f64::NAN,
            dropping: self.flows.iter().filter(|f| f.vars.dropping).count() as u32,
            flow_queues: self.flows.iter().filter(|f| !f.q.is_empty()).count() as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Payload;
    use crate::rng::stream;

    fn pkt(flow: u32, size: u32) -> Packet {
        Packet {
            flow,
            size,
            hop: 0,
            payload: Payload::Data { seq: 0, tsval: 0 },
            ecn: Default::default(),
        }
    }

    /// FQ-CoDel with two flows in different queues.
    fn fq(p: FqCodelParams) -> FqCodel {
        let q = FqCodel::new(&p, 1500, stream(1, 99, 0));
        assert_ne!(q.queue_of(0), q.queue_of(1), "pick another seed");
        q
    }

    const BIG: BufferLimit = BufferLimit::Packets(100_000);

    #[test]
    fn drr_serves_equal_bytes_to_flows_of_different_packet_sizes() {
        // RFC 8290 / Linux fq_codel_dequeue, quantum 1514: flow
        // 0 (1500 B) and flow 1 (500 B) both backlogged (no time passes, so
        // CoDel never drops). Worked by hand from the deficits: 0 sends two
        // (1514 -> 14 -> -1486), then 1 four (1514 -> ... -> -486), then
        // each round 0 one packet and 1 three, the deficits carrying over.
        let mut q = fq(FqCodelParams::default());
        let mut d = Vec::new();
        for _ in 0..3000 {
            q.enqueue(pkt(0, 1500), Time::ZERO, BIG, &mut d);
        }
        for _ in 0..9000 {
            q.enqueue(pkt(1, 500), Time::ZERO, BIG, &mut d);
        }
        let seq: String = (0..20)
            .map(|_| match q.dequeue(Time::ZERO, &mut d).unwrap().flow {
                0 => 'A',
                _ => 'B',
            })
            .collect();
        assert_eq!(seq, "AABBBBABBBABBBABBBAB");
        let mut bytes = [0u64; 2];
        for _ in 20..3000 {
            let p = q.dequeue(Time::ZERO, &mut d).unwrap();
            bytes[p.flow as usize] += u64::from(p.size);
        }
        // The first 20: 6 A (9000 B), 14 B (7000 B). Over 3000 packets,
        // exactly equal bytes (the deficits are back where they started).
        assert_eq!(bytes[0] + 9_000, 1_125_000);
        assert_eq!(bytes[1] + 7_000, 1_125_000);
        assert!(d.is_empty());
    }

    #[test]
    fn a_new_flow_is_served_before_the_old_ones() {
        let mut q = fq(FqCodelParams::default());
        let mut d = Vec::new();
        for _ in 0..10 {
            q.enqueue(pkt(0, 1500), Time::ZERO, BIG, &mut d);
        }
        // Flow 0 spends its quantum and becomes old.
        assert_eq!(q.dequeue(Time::ZERO, &mut d).unwrap().flow, 0);
        assert_eq!(q.dequeue(Time::ZERO, &mut d).unwrap().flow, 0);
        // A packet of a new flow goes ahead of flow 0's backlog.
        q.enqueue(pkt(1, 100), Time::ZERO, BIG, &mut d);
        assert_eq!(q.dequeue(Time::ZERO, &mut d).unwrap().flow, 1);
        assert_eq!(q.dequeue(Time::ZERO, &mut d).unwrap().flow, 0);
        assert_eq!(q.state().flow_queues, 1);
    }

    #[test]
    fn over_the_limit_the_fattest_queue_loses_half_its_bytes_from_the_head() {
        // Linux fq_codel_drop: limit 10 packets; flow 0 holds 8, flow 1
        // holds 3: the 11th packet takes it over; flow 0 (12000 B) loses
        // from its head until 6000 B are gone: 4 packets; its count grows by 4.
        let mut q = fq(FqCodelParams::default());
        let mut d = Vec::new();
        let lim = BufferLimit::Packets(10);
        for i in 0..8 {
            let mut p = pkt(0, 1500);
            p.payload = Payload::Data { seq: i, tsval: 0 };
            q.enqueue(p, Time::ZERO, lim, &mut d);
        }
        for _ in 0..3 {
            q.enqueue(pkt(1, 1500), Time::ZERO, lim, &mut d);
        }
        let seqs: Vec<u64> = d
            .iter()
            .map(|p| match p.payload {
                Payload::Data { seq, .. } => seq,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(seqs, [0, 1, 2, 3]);
        assert_eq!((q.len(), q.bytes()), (7, 7 * 1500));
        assert_eq!(q.flows[q.queue_of(0)].vars.count, 4);
        assert_eq!(q.state().forced_drops, 4);
        // The batch size caps a drop.
        let mut q = fq(FqCodelParams {
            drop_batch_size: 1,
            ..FqCodelParams::default()
        });
        d.clear();
        for _ in 0..11 {
            q.enqueue(pkt(0, 1500), Time::ZERO, lim, &mut d);
        }
        assert_eq!((d.len(), q.len()), (1, 10));
    }

    #[test]
    fn each_queue_runs_its_own_codel() {
        // Flow 0 builds a standing queue (sojourn above target for more
        // than an interval); flow 1 sends one packet now and then. Only
        // flow 0's CoDel drops, and only flow 0's packets.
        let mut q = fq(FqCodelParams::default());
        let mut d = Vec::new();
        for _ in 0..400 {
            q.enqueue(pkt(0, 1500), Time::ZERO, BIG, &mut d);
        }
        for k in 1..=300u64 {
            let now = Time::from_ms(k);
            if k % 10 == 0 {
                q.enqueue(pkt(1, 1500), now, BIG, &mut d);
            }
            q.dequeue(now, &mut d);
        }
        assert!(
            !d.is_empty() && d.iter().all(|p| p.flow == 0),
            "{}",
            d.len()
        );
        assert!(q.flows[q.queue_of(0)].vars.dropping);
        assert!(!q.flows[q.queue_of(1)].vars.dropping);
        assert_eq!(q.state().early_drops, d.len() as u64);
    }

    #[test]
    fn the_flow_hash_is_seeded_and_deterministic() {
        let p = FqCodelParams::default();
        let a = FqCodel::new(&p, 1500, stream(1, 99, 0));
        let b = FqCodel::new(&p, 1500, stream(1, 99, 0));
        let c = FqCodel::new(&p, 1500, stream(2, 99, 0));
        let qa: Vec<usize> = (0..64).map(|f| a.queue_of(f)).collect();
        let qb: Vec<usize> = (0..64).map(|f| b.queue_of(f)).collect();
        let qc: Vec<usize> = (0..64).map(|f| c.queue_of(f)).collect();
        assert_eq!(qa, qb);
        assert_ne!(qa, qc);
        assert!(qa.iter().all(|&i| i < 1024));
        // 64 flows in 1024 queues: a few may share, most do not.
        let mut distinct = qa.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() >= 60, "{}", distinct.len());
    }

    #[test]
    fn bad_parameters_name_the_field_and_the_range() {
        let at = "topology.bottleneck.queue";
        for (p, field) in [
            (
                FqCodelParams {
                    quantum: 100,
                    ..FqCodelParams::default()
                },
                "quantum",
            ),
            (
                FqCodelParams {
                    flows: 0,
                    ..FqCodelParams::default()
                },
                "flows",
            ),
            (
                FqCodelParams {
                    target_ms: 0.0,
                    ..FqCodelParams::default()
                },
                "target_ms",
            ),
        ] {
            let e = p.check(at).unwrap_err();
            assert_eq!(e.field, format!("{at}.{field}"));
            assert!(e.message.contains("allowed"), "{e}");
        }
    }

    #[test]
    fn every_parameter_is_documented() {
        let v = serde_json::to_value(FqCodelParams::default()).unwrap();
        let mut names: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut documented: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
        names.sort_unstable();
        documented.sort_unstable();
        assert_eq!(names, documented);
    }
}
