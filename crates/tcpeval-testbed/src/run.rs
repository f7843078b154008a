//! One testbed run: start the delay line, the receivers, the senders and
//! the sampler; wait for the end (or a stop request); gather what each
//! recorded. [`start`] returns at once with a [`Handle`], so the caller
//! (Python) can wait in short steps and still react to Ctrl-C.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use serde::Serialize;

use crate::clock::{now_ns, sleep_until};
use crate::config::RunConfig;
use crate::delay_line::{DelayLine, WireStats};
use crate::error::{Error, Result};
use crate::flows::{self, FlowShared};
use crate::netns;
use crate::qdisc_stats::{QdiscCounters, QdiscReader};
use crate::sampler::{self, Samples, Schedule};
use crate::tcp_info::TcpInfo;

/// Lead time between setting up and time zero, ns: lets every thread reach
/// its first wait.
const LEAD_NS: u64 = 100_000_000;

/// One flow's totals.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowTotals {
    /// Time the connection was set up, s (None: never).
    pub connected_s: Option<f64>,
    /// Time the sender stopped, s.
    pub stopped_s: Option<f64>,
    /// Sender MSS, bytes (`tcpi_snd_mss`).
    pub mss: u32,
    /// Data segments sent, retransmissions included.
    pub sent: u64,
    /// Segments retransmitted.
    pub retransmitted: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Bytes the receiving application read.
    pub delivered_bytes: u64,
    /// Data segments the receiver's TCP took in (`tcpi_data_segs_in`).
    pub data_received: u64,
    /// Smallest RTT the sender measured, s.
    pub min_rtt_s: Option<f64>,
    /// Congestion window at the end, segments.
    pub final_cwnd: f64,
    /// Time the sender had data in flight, s (`tcpi_busy_time`, Linux 4.10+).
    pub busy_s: f64,
    /// Of that, time limited by the receiver's window, s (`tcpi_rwnd_limited`).
    pub rwnd_limited_s: f64,
    /// Of that, time limited by the send buffer, s (`tcpi_sndbuf_limited`).
    pub sndbuf_limited_s: f64,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

/// One sampled qdisc's counters at the end.
#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueTotals {
    /// Link index.
    pub link: u32,
    /// Packets dequeued.
    pub packets: u64,
    /// Bytes dequeued.
    pub bytes: u64,
    /// Packets dropped.
    pub drops: u64,
    /// Largest queue seen by the sampler, packets.
    pub max_qlen: u32,
}

/// Everything a run recorded.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunResults {
    /// Time from time zero to the end of the run, s.
    pub duration_s: f64,
    /// Whether the run was stopped before its end.
    pub interrupted: bool,
    /// The probes' series.
    #[serde(flatten)]
    pub samples: Samples,
    /// Per flow.
    pub flows: Vec<FlowTotals>,
    /// Per sampled qdisc.
    pub queues: Vec<QueueTotals>,
    /// The delay line, if any.
    pub wire: Option<WireStats>,
}

/// A run in progress.
pub struct Handle {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Result<RunResults>>,
}

impl Handle {
    /// Asks the run to end now (its results cover the time until then).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// True once the run has ended.
    pub fn is_finished(&self) -> bool {
        self.thread.is_finished()
    }

    /// Waits for the end and returns the results.
    pub fn join(self) -> Result<RunResults> {
        self.thread
            .join()
            .map_err(|_| Error("the testbed run panicked".into()))?
    }
}

/// Starts a run; sockets and the delay line are set up before it returns,
/// so set-up errors come back here.
pub fn start(cfg: RunConfig) -> Result<Handle> {
    cfg.check()?;
    let stop = Arc::new(AtomicBool::new(false));
    let wire = cfg
        .wire
        .as_ref()
        .map(|w| DelayLine::start(w, cfg.realtime, stop.clone()))
        .transpose()?;
    let finish_wire = |wire: Option<DelayLine>, stop: &AtomicBool| {
        stop.store(true, Ordering::SeqCst);
        wire.map(|w| w.join()).transpose()
    };
    let mut listeners = Vec::new();
    let mut readers = Vec::new();
    let setup = (|| {
        for (i, f) in cfg.flows.iter().enumerate() {
            listeners.push(flows::listen(i, f)?);
        }
        for q in &cfg.queues {
            let (ifname, handle) = (q.ifname.clone(), q.handle);
            readers.push((
                q.link,
                netns::run_in(&q.netns, move || QdiscReader::new(&ifname, handle))?,
            ));
        }
        Ok::<(), Error>(())
    })();
    if let Err(e) = setup {
        let _ = finish_wire(wire, &stop);
        return Err(e);
    }
    let stop2 = stop.clone();
    let thread = std::thread::Builder::new()
        .name("testbed-run".into())
        .spawn(move || orchestrate(cfg, wire, listeners, readers, stop2))
        .map_err(|e| Error(format!("cannot start the testbed run: {e}")))?;
    Ok(Handle { stop, thread })
}

fn orchestrate(
    cfg: RunConfig,
    wire: Option<DelayLine>,
    listeners: Vec<std::os::fd::OwnedFd>,
    readers: Vec<(u32, QdiscReader)>,
    stop: Arc<AtomicBool>,
) -> Result<RunResults> {
    let t0 = now_ns() + LEAD_NS;
    let duration_ns = (cfg.duration_s * 1e9) as u64;
    let shared: Vec<Arc<FlowShared>> = cfg
        .flows
        .iter()
        .map(|_| Arc::new(FlowShared::default()))
        .collect();
    let rt = cfg.realtime;
    let mut threads = Vec::new();
    for (i, (f, l)) in cfg.flows.iter().zip(listeners).enumerate() {
        let (sh, st) = (shared[i].clone(), stop.clone());
        threads.push(std::thread::spawn(move || flows::receive(l, sh, st, rt)));
        let (sh, st, fc) = (shared[i].clone(), stop.clone(), f.clone());
        threads.push(std::thread::spawn(move || {
            flows::send(i, fc, t0, sh, st, rt)
        }));
    }
    let schedule = Schedule {
        flow_period_ns: (cfg.flow_period_s * 1e9) as u64,
        queue_period_ns: (cfg.queue_period_s * 1e9) as u64,
        t0_ns: t0,
        duration_ns,
    };
    let (sh, st) = (shared.clone(), stop.clone());
    let sampler = std::thread::spawn(move || sampler::run(schedule, sh, readers, st, rt));
    // Wait for the end in short steps so a stop request is seen.
    let end = t0 + duration_ns;
    while !stop.load(Ordering::SeqCst) && now_ns() < end {
        sleep_until((now_ns() + 10_000_000).min(end));
    }
    let interrupted = now_ns() < end;
    let ended = now_ns().saturating_sub(t0) as f64 / 1e9;
    // Every sender's TCP_INFO at the end (a stopped flow may have sent what
    // it had written after its stop), before stopping the threads.
    let snd_at_end: Vec<Option<TcpInfo>> = shared
        .iter()
        .map(|f| {
            let fd = f.snd_fd.load(Ordering::SeqCst);
            (fd >= 0)
                .then(|| TcpInfo::read(fd).ok().map(|x| x.0))
                .flatten()
        })
        .collect();
    stop.store(true, Ordering::SeqCst);
    let (samples, mut readers) = sampler
        .join()
        .map_err(|_| Error("the sampler panicked".into()))?;
    for t in threads {
        t.join()
            .map_err(|_| Error("a flow thread panicked".into()))?;
    }
    let mut wire = wire.map(|w| w.join()).transpose()?;
    if let Some(w) = wire.as_mut() {
        w.set_time_zero(t0);
    }
    let mut queues = Vec::new();
    for (link, r) in readers.iter_mut() {
        let link = *link;
        let c = r.read().unwrap_or(QdiscCounters::default());
        let max_qlen = samples
            .queue_series
            .link
            .iter()
            .zip(&samples.queue_series.qlen)
            .filter(|(l, _)| **l == link)
            .map(|(_, q)| *q)
            .max()
            .unwrap_or(0);
        queues.push(QueueTotals {
            link,
            packets: u64::from(c.packets),
            bytes: c.bytes,
            drops: u64::from(c.drops),
            max_qlen,
        });
    }
    let mut totals = Vec::new();
    for (f, at_end) in shared.iter().zip(snd_at_end) {
        let snd = at_end.or(*f.final_snd.lock().expect("not poisoned"));
        let rcv = *f.final_rcv.lock().expect("not poisoned");
        let ns_s = |v: u64| (v > 0).then(|| v as f64 / 1e9);
        totals.push(FlowTotals {
            connected_s: ns_s(f.connected_ns.load(Ordering::SeqCst)),
            stopped_s: ns_s(f.stopped_ns.load(Ordering::SeqCst)),
            mss: snd.map_or(0, |i| i.snd_mss),
            sent: snd.map_or(0, |i| u64::from(i.data_segs_out)),
            retransmitted: snd.map_or(0, |i| u64::from(i.total_retrans)),
            timeouts: snd.map_or(0, |i| u64::from(i.total_rto)),
            delivered_bytes: f.delivered.load(Ordering::SeqCst),
            data_received: rcv.map_or(0, |i| u64::from(i.data_segs_in)),
            min_rtt_s: snd.and_then(|i| (i.min_rtt > 0).then(|| f64::from(i.min_rtt) / 1e6)),
            final_cwnd: snd.map_or(0.0, |i| f64::from(i.snd_cwnd)),
            busy_s: snd.map_or(0.0, |i| i.busy_time as f64 / 1e6),
            rwnd_limited_s: snd.map_or(0.0, |i| i.rwnd_limited as f64 / 1e6),
            sndbuf_limited_s: snd.map_or(0.0, |i| i.sndbuf_limited as f64 / 1e6),
            error: f.error.lock().expect("not poisoned").clone(),
        });
        f.close();
    }
    Ok(RunResults {
        duration_s: ended.min(cfg.duration_s),
        interrupted,
        samples,
        flows: totals,
        queues,
        wire,
    })
}
