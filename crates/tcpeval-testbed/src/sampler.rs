//! The probes: at the flow period, each running sender's `TCP_INFO` into
//! the flow series; at the queue period, each sampled qdisc's counters
//! into the queue series. Both tables have the simulator's columns
//! (crates/tcpeval-sim/src/probe.rs), rows at the scheduled tick times; how
//! late the sampler woke is reported.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;

use crate::clock::{now_ns, sleep_until};
use crate::flows::FlowShared;
use crate::qdisc_stats::QdiscReader;
use crate::tcp_info::TcpInfo;

/// The run's series are the simulator's own tables (one declaration of
/// their columns, crates/tcpeval-sim/src/probe.rs), filled from the kernel:
/// `cwnd` and `ssthresh` in segments (`tcpi_snd_cwnd`, `tcpi_snd_ssthresh`,
/// infinite while unset, JSON null), `srtt` from `tcpi_rtt`, `delivered` the
/// bytes the receiving application read, `sent` `tcpi_data_segs_out`,
/// `retransmitted` `tcpi_total_retrans`, `timeouts` `tcpi_total_rto`; queue
/// bytes are frames with their Ethernet header.
pub use tcpeval_sim::probe::{FlowSeries, QueueSeries};

/// What the sampler recorded.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Samples {
    /// Flow series.
    pub flow_series: FlowSeries,
    /// Queue series.
    pub queue_series: QueueSeries,
    /// Largest delay between a tick and the sampler's wake-up, s.
    pub max_lag_s: f64,
}

/// Periods (ns, 0: none), the run's time zero and end (ns on the clock).
pub struct Schedule {
    /// Flow series period, ns.
    pub flow_period_ns: u64,
    /// Queue series period, ns.
    pub queue_period_ns: u64,
    /// Time zero, ns.
    pub t0_ns: u64,
    /// Length of the run, ns.
    pub duration_ns: u64,
}

/// Records until the end of the run or `stop`; hands the qdisc readers back.
pub fn run(
    s: Schedule,
    flows: Vec<Arc<FlowShared>>,
    mut queues: Vec<(u32, QdiscReader)>,
    stop: Arc<AtomicBool>,
    realtime: bool,
) -> (Samples, Vec<(u32, QdiscReader)>) {
    crate::clock::tight_timer_slack();
    if realtime {
        crate::sched::set_realtime(crate::sched::SAMPLER);
    }
    let mut out = Samples::default();
    let next = |k: u64, p: u64| if p == 0 { u64::MAX } else { k * p };
    let (mut kf, mut kq) = (0u64, 0u64);
    loop {
        let (tf, tq) = (next(kf, s.flow_period_ns), next(kq, s.queue_period_ns));
        let tick = tf.min(tq);
        if tick > s.duration_ns || stop.load(Ordering::Relaxed) {
            break;
        }
        sleep_until(s.t0_ns + tick);
        out.max_lag_s = out
            .max_lag_s
            .max(now_ns().saturating_sub(s.t0_ns + tick) as f64 / 1e9);
        let t = tick as f64 / 1e9;
        if tf == tick {
            kf += 1;
            let fs = &mut out.flow_series;
            for (i, f) in flows.iter().enumerate() {
                let fd = f.snd_fd.load(Ordering::SeqCst);
                if fd < 0 || f.stopped.load(Ordering::SeqCst) {
                    continue;
                }
                let Ok((info, _)) = TcpInfo::read(fd) else {
                    continue;
                };
                fs.time.push(t);
                fs.flow.push(i as u32);
                fs.cwnd.push(f64::from(info.snd_cwnd));
                fs.ssthresh.push(info.ssthresh());
                fs.srtt.push(info.srtt_s());
                fs.delivered.push(f.delivered.load(Ordering::Relaxed));
                fs.sent.push(u64::from(info.data_segs_out));
                fs.retransmitted.push(u64::from(info.total_retrans));
                fs.timeouts.push(u64::from(info.total_rto));
            }
        }
        if tq == tick {
            kq += 1;
            let qs = &mut out.queue_series;
            for (link, r) in queues.iter_mut() {
                let Ok(c) = r.read() else { continue };
                qs.time.push(t);
                qs.link.push(*link);
                qs.qlen.push(c.qlen);
                qs.qbytes.push(u64::from(c.backlog));
                qs.departed_bytes.push(c.bytes);
                qs.drops.push(u64::from(c.drops));
            }
        }
    }
    (out, queues)
}
