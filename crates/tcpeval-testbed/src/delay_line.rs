//! The delay line: an L2 wire between two interfaces of one namespace.
//! Each direction is one thread with an AF_PACKET socket on its input
//! interface (packet(7)); a frame read at time `t` leaves on the other
//! interface at `t + delay` of its class (the host-side IPv4 address:
//! destination toward the hosts, source toward the router), unless the
//! class's seeded random loss drops it. Frames of one class leave in
//! arrival order (one FIFO per class, all with one constant delay).
//!
//! Used where the kernel has no netem. Its own error is measured, not
//! assumed: every frame's lateness (leave time minus due time) goes into a
//! [`Lateness`] histogram, and the sockets' drop counters
//! (`PACKET_STATISTICS`) are reported.

use std::collections::VecDeque;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

use crate::clock::{now_ns, tight_timer_slack};
use crate::config::WireConfig;
use crate::error::{Error, Result};
use crate::lateness::{LateSpell, Lateness, LatenessSummary, Spells};
use crate::{netns, sched, sys};

/// `PACKET_IGNORE_OUTGOING` (include/uapi/linux/if_packet.h, Linux 4.20+):
/// a socket does not see the frames it (or anyone) sends on its interface.
const PACKET_IGNORE_OUTGOING: i32 = 23;
/// `PACKET_STATISTICS`: `struct tpacket_stats` (frames, drops), reset on read.
const PACKET_STATISTICS: i32 = 6;
/// Socket buffers of the delay line's sockets, bytes: room for ~40 ms of
/// 1 Gbit/s should the thread be held up.
const SOCKET_BUFFER: i32 = 8 << 20;
/// Frames read per wake-up before the due ones are sent again.
const READ_BATCH: usize = 64;
/// Shortest time between two rounds of the loop, ns (see `run_direction`).
pub const WAKE_QUANTUM_NS: u64 = 100_000;
/// Longest sleep, ns (so a stop request is seen within it).
const MAX_SLEEP_NS: u64 = 10_000_000;

/// What one direction of the wire did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct DirectionStats {
    /// Frames sent on.
    pub forwarded: u64,
    /// Bytes of those frames (Ethernet header included).
    pub forwarded_bytes: u64,
    /// Frames sent on, per class, then the unclassified ones.
    pub forwarded_per_class: Vec<u64>,
    /// Frames dropped by the random loss.
    pub random_drops: u64,
    /// Frames the kernel dropped because the input socket's buffer was full.
    pub socket_drops: u64,
    /// Frames whose sending failed.
    pub send_errors: u64,
    /// Longest time between two rounds of the loop, us: a stall of the
    /// thread (preemption, real-time throttling) shows here.
    pub max_round_gap_us: f64,
    /// Longest send phase of one round (all due frames), us.
    pub max_round_us: f64,
    /// Most frames sent in one round.
    pub max_frames_per_round: u64,
    /// Longest single `send()`, us: it includes the softirq work the
    /// kernel does in this thread for the receiving side's stack.
    pub max_send_us: f64,
    /// Largest delay between the requested wake-up and the round's start
    /// (sleep overshoot: the thread was runnable but not running), us.
    pub max_wake_late_us: f64,
    /// Rounds whose wake-up was more than 1 ms late.
    pub late_wakes: u64,
    /// Longest time a frame waited in the input socket before this thread
    /// read it (kernel receive timestamp to `recv`), us; that wait is part
    /// of the frame's delay, not added to it.
    pub max_queued_us: f64,
    /// Frames that came without a kernel timestamp (their arrival is the
    /// time they were read).
    pub unstamped: u64,
    /// Whether `SCHED_FIFO` was granted.
    pub realtime: bool,
    /// Lateness of the frames sent on.
    pub lateness: LatenessSummary,
    /// The stalls, as runs of frames that left 1 ms or more late, in
    /// time order (see [`LateSpell`]).
    pub late_spells: Vec<LateSpell>,
    /// Spells beyond the kept ones (only counted).
    pub late_spells_dropped: u64,
}

/// The running delay line.
pub struct DelayLine {
    threads: Vec<JoinHandle<Result<(DirectionStats, Lateness)>>>,
}

impl WireStats {
    /// Sets every late spell's time relative to the run's time zero `t0_ns`.
    pub fn set_time_zero(&mut self, t0_ns: u64) {
        for d in [&mut self.to_hosts, &mut self.to_router] {
            for s in &mut d.late_spells {
                s.at_s = (s.due_ns as i128 - t0_ns as i128) as f64 / 1e9;
            }
        }
    }
}

/// What the whole wire did: both directions and their lateness together.
#[derive(Clone, Debug, Default, Serialize)]
pub struct WireStats {
    /// Toward the hosts.
    pub to_hosts: DirectionStats,
    /// Toward the router.
    pub to_router: DirectionStats,
    /// Both directions' lateness.
    pub lateness: LatenessSummary,
}

/// Which address of an IPv4 header picks the class.
#[derive(Clone, Copy)]
enum Key {
    Destination,
    Source,
}

struct Direction {
    rx: Arc<OwnedFd>,
    tx: Arc<OwnedFd>,
    key: Key,
    addrs: Vec<u32>,
    delays_ns: Vec<u64>,
    loss: Vec<f64>,
    seed: u64,
    realtime: bool,
}

fn packet_socket(ifname: &str) -> Result<OwnedFd> {
    let ifindex = netns::ifindex(ifname)?;
    // Protocol 0 receives nothing until bound to the interface below.
    let s = sys::socket(
        libc::AF_PACKET,
        libc::SOCK_RAW | libc::SOCK_NONBLOCK,
        0,
        ifname,
    )?;
    let fd = s.as_raw_fd();
    let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
    sll.sll_family = libc::AF_PACKET as u16;
    sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
    sll.sll_ifindex = ifindex as i32;
    // SAFETY: sll is a valid sockaddr_ll of its size.
    let r = unsafe {
        libc::bind(
            fd,
            &sll as *const _ as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(Error::os(format!("binding a packet socket to {ifname}")));
    }
    sys::setsockopt(
        fd,
        libc::SOL_PACKET,
        PACKET_IGNORE_OUTGOING,
        &1i32,
        "PACKET_IGNORE_OUTGOING",
    )?;
    sys::setsockopt(
        fd,
        libc::SOL_SOCKET,
        libc::SO_RCVBUFFORCE,
        &SOCKET_BUFFER,
        "SO_RCVBUFFORCE",
    )?;
    // Receive timestamps: a frame's delay runs from its arrival, not from
    // when the thread reads it.
    sys::setsockopt(
        fd,
        libc::SOL_SOCKET,
        libc::SO_TIMESTAMPNS,
        &1i32,
        "SO_TIMESTAMPNS",
    )?;
    sys::setsockopt(
        fd,
        libc::SOL_SOCKET,
        libc::SO_SNDBUFFORCE,
        &SOCKET_BUFFER,
        "SO_SNDBUFFORCE",
    )?;
    Ok(s)
}

/// Now on `CLOCK_REALTIME`, ns (the clock of the kernel's receive timestamps).
fn realtime_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Reads one frame into `buf` without blocking: its length and the
/// kernel's receive timestamp (`SO_TIMESTAMPNS`, realtime ns) if it came
/// with one; `None` when the socket is empty.
fn recv_stamped(fd: RawFd, buf: &mut [u8], cmsg: &mut [u64; 16]) -> Option<(usize, Option<u64>)> {
    let mut iov = libc::iovec {
        iov_base: buf.as_mut_ptr() as *mut libc::c_void,
        iov_len: buf.len(),
    };
    // SAFETY: msghdr is plain data; zeroed means no name and no flags.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cmsg.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = std::mem::size_of_val(cmsg) as _;
    // SAFETY: msg points at our own buffer, iovec and control area, all live.
    let n = unsafe { libc::recvmsg(fd, &mut msg, libc::MSG_DONTWAIT) };
    if n <= 0 {
        return None;
    }
    let mut stamp = None;
    // SAFETY: walking the control messages the kernel wrote into msg.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(&msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                if ts.tv_sec > 0 {
                    stamp = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
                }
            }
            c = libc::CMSG_NXTHDR(&msg, c);
        }
    }
    Some((n as usize, stamp))
}

/// Frames the kernel dropped on `fd` since the last call (`PACKET_STATISTICS`).
fn socket_drops(fd: RawFd) -> u64 {
    let mut st = [0u32; 2];
    let mut len = std::mem::size_of_val(&st) as libc::socklen_t;
    // SAFETY: st is a writable tpacket_stats (two u32).
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_PACKET,
            PACKET_STATISTICS,
            st.as_mut_ptr() as *mut libc::c_void,
            &mut len,
        )
    };
    if r == 0 {
        u64::from(st[1])
    } else {
        0
    }
}

/// The class of a frame: the index of its key address in `addrs`, or
/// `addrs.len()` for a frame that is not IPv4 or of no class.
fn classify(frame: &[u8], key: Key, addrs: &[u32]) -> usize {
    const ETH_HLEN: usize = 14;
    if frame.len() < ETH_HLEN + 20 || frame[12..14] != [0x08, 0x00] {
        return addrs.len();
    }
    let at = ETH_HLEN + if matches!(key, Key::Source) { 12 } else { 16 };
    let a = u32::from_be_bytes([frame[at], frame[at + 1], frame[at + 2], frame[at + 3]]);
    addrs.iter().position(|&x| x == a).unwrap_or(addrs.len())
}

/// Records how late a timed wake-up of the loop came (ns).
fn note_wake(stats: &mut DirectionStats, late_ns: u64) {
    stats.max_wake_late_us = stats.max_wake_late_us.max(late_ns as f64 / 1e3);
    if late_ns > 1_000_000 {
        stats.late_wakes += 1;
    }
}

fn run_direction(d: Direction, stop: Arc<AtomicBool>) -> Result<(DirectionStats, Lateness)> {
    tight_timer_slack();
    let mut stats = DirectionStats {
        realtime: d.realtime && sched::set_realtime(sched::WIRE),
        forwarded_per_class: vec![0; d.addrs.len() + 1],
        ..Default::default()
    };
    let mut lateness = Lateness::default();
    let mut spells = Spells::default();
    let mut rng = Pcg64::seed_from_u64(d.seed);
    let mut queues: Vec<VecDeque<(u64, Vec<u8>)>> = vec![VecDeque::new(); d.addrs.len() + 1];
    let mut delays = d.delays_ns.clone();
    delays.push(0);
    let mut loss = d.loss.clone();
    loss.push(0.0);
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut scratch = vec![0u8; 1 << 16];
    let mut cmsg = [0u64; 16];
    let (rx, tx) = (d.rx.as_raw_fd(), d.tx.as_raw_fd());
    socket_drops(rx); // reset: count from here
    let mut woke = 0u64;
    while !stop.load(Ordering::Relaxed) {
        // At most one round per WAKE_QUANTUM_NS: each wake-up costs a context
        // switch, and at tens of thousands of frames per second waking for
        // every frame would cap the rate; frames leave up to the quantum late
        // instead (measured, as all lateness).
        let mut wanted = now_ns();
        if wanted < woke + WAKE_QUANTUM_NS {
            wanted = woke + WAKE_QUANTUM_NS;
            crate::clock::sleep_until(wanted);
        }
        let t = now_ns();
        if woke > 0 {
            stats.max_round_gap_us = stats.max_round_gap_us.max((t - woke) as f64 / 1e3);
            note_wake(&mut stats, t.saturating_sub(wanted));
        }
        woke = t;
        let mut sent_in_round = 0u64;
        // Send every frame that is due.
        let mut next_due = u64::MAX;
        for (c, q) in queues.iter_mut().enumerate() {
            while let Some(&(due, _)) = q.front() {
                let now = now_ns();
                if due > now {
                    next_due = next_due.min(due);
                    break;
                }
                let (_, frame) = q.pop_front().expect("front exists");
                lateness.record(now - due);
                spells.record(due, now - due);
                // SAFETY: sending our own buffer on our bound packet socket.
                let n = unsafe {
                    libc::send(tx, frame.as_ptr() as *const libc::c_void, frame.len(), 0)
                };
                let took = now_ns() - now;
                stats.max_send_us = stats.max_send_us.max(took as f64 / 1e3);
                sent_in_round += 1;
                if n < 0 {
                    stats.send_errors += 1;
                } else {
                    stats.forwarded += 1;
                    stats.forwarded_bytes += frame.len() as u64;
                    stats.forwarded_per_class[c] += 1;
                }
                pool.push(frame);
            }
        }
        let sent_at = now_ns();
        stats.max_round_us = stats.max_round_us.max((sent_at - t) as f64 / 1e3);
        stats.max_frames_per_round = stats.max_frames_per_round.max(sent_in_round);
        // Sleep until the next due frame or an arrival.
        let wait = next_due.saturating_sub(sent_at).min(MAX_SLEEP_NS);
        let ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: wait as libc::c_long,
        };
        let mut pfd = libc::pollfd {
            fd: rx,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, a valid timespec, no signal mask change.
        unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        if pfd.revents & libc::POLLIN == 0 {
            if next_due != u64::MAX {
                note_wake(&mut stats, now_ns().saturating_sub(next_due));
            }
            continue;
        }
        // CLOCK_REALTIME - CLOCK_MONOTONIC now: the kernel stamps frames on
        // the realtime clock, the loop runs on the monotonic one.
        let offset = realtime_ns().wrapping_sub(now_ns());
        for _ in 0..READ_BATCH {
            let Some((n, stamp)) = recv_stamped(rx, &mut scratch, &mut cmsg) else {
                break;
            };
            let now = now_ns();
            // The frame's arrival is when the kernel queued it on our socket,
            // not when this thread got to read it: time spent waiting in the
            // socket (the thread busy or held up) is part of its delay, and
            // counts as lateness if it makes the frame leave late.
            let arrived = match stamp {
                Some(t) => t.wrapping_sub(offset).min(now),
                None => {
                    stats.unstamped += 1;
                    now
                }
            };
            stats.max_queued_us = stats.max_queued_us.max((now - arrived) as f64 / 1e3);
            let frame = &scratch[..n];
            let c = classify(frame, d.key, &d.addrs);
            if loss[c] > 0.0 && rng.gen::<f64>() < loss[c] {
                stats.random_drops += 1;
                continue;
            }
            let mut buf = pool.pop().unwrap_or_default();
            buf.clear();
            buf.extend_from_slice(frame);
            queues[c].push_back((arrived + delays[c], buf));
        }
    }
    stats.socket_drops = socket_drops(rx);
    stats.lateness = lateness.summary();
    (stats.late_spells, stats.late_spells_dropped) = spells.finish();
    Ok((stats, lateness))
}

impl DelayLine {
    /// Opens both interfaces' packet sockets in the wire's namespace and
    /// starts one thread per direction; they run until `stop` is set.
    pub fn start(cfg: &WireConfig, realtime: bool, stop: Arc<AtomicBool>) -> Result<DelayLine> {
        let (router_side, host_side) = (cfg.router_side.clone(), cfg.host_side.clone());
        let (a, b) = netns::run_in(&cfg.netns, move || {
            Ok((packet_socket(&router_side)?, packet_socket(&host_side)?))
        })?;
        let (a, b) = (Arc::new(a), Arc::new(b));
        let addrs: Vec<u32> = cfg.classes.iter().map(|c| u32::from(c.addr)).collect();
        let delays_ns: Vec<u64> = cfg
            .classes
            .iter()
            .map(|c| (c.delay_s * 1e9).round() as u64)
            .collect();
        let dirs = [
            (
                "wire-to-hosts",
                Direction {
                    rx: a.clone(),
                    tx: b.clone(),
                    key: Key::Destination,
                    addrs: addrs.clone(),
                    delays_ns: delays_ns.clone(),
                    loss: cfg.classes.iter().map(|c| c.loss_to_hosts).collect(),
                    seed: cfg.seed,
                    realtime,
                },
            ),
            (
                "wire-to-router",
                Direction {
                    rx: b,
                    tx: a,
                    key: Key::Source,
                    addrs,
                    delays_ns,
                    loss: cfg.classes.iter().map(|c| c.loss_to_router).collect(),
                    seed: cfg.seed ^ 0x9e37_79b9_7f4a_7c15,
                    realtime,
                },
            ),
        ];
        let mut threads = Vec::new();
        for (name, d) in dirs {
            let stop = stop.clone();
            threads.push(
                std::thread::Builder::new()
                    .name(name.into())
                    .spawn(move || run_direction(d, stop))
                    .map_err(|e| Error(format!("cannot start the delay line: {e}")))?,
            );
        }
        Ok(DelayLine { threads })
    }

    /// Waits for both directions (after `stop` was set) and returns their statistics.
    pub fn join(self) -> Result<WireStats> {
        let mut out = Vec::new();
        for t in self.threads {
            out.push(
                t.join()
                    .map_err(|_| Error("a delay-line thread panicked".into()))??,
            );
        }
        let (to_router, l_r) = out.pop().expect("two directions");
        let (to_hosts, l_h) = out.pop().expect("two directions");
        let mut all = l_h;
        all.merge(&l_r);
        Ok(WireStats {
            to_hosts,
            to_router,
            lateness: all.summary(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ipv4_frame(src: [u8; 4], dst: [u8; 4]) -> Vec<u8> {
        let mut f = vec![0u8; 54];
        f[12] = 0x08;
        f[14] = 0x45;
        f[26..30].copy_from_slice(&src);
        f[30..34].copy_from_slice(&dst);
        f
    }

    #[test]
    fn frames_are_classified_by_the_host_side_address() {
        let addrs = [
            u32::from_be_bytes([10, 0, 2, 10]),
            u32::from_be_bytes([10, 0, 2, 11]),
        ];
        let to_hosts = ipv4_frame([10, 0, 1, 2], [10, 0, 2, 11]);
        let to_router = ipv4_frame([10, 0, 2, 10], [10, 0, 1, 2]);
        assert_eq!(classify(&to_hosts, Key::Destination, &addrs), 1);
        assert_eq!(classify(&to_router, Key::Source, &addrs), 0);
        assert_eq!(classify(&to_router, Key::Destination, &addrs), 2); // 10.0.1.2: no class
        let mut arp = to_hosts.clone();
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert_eq!(classify(&arp, Key::Destination, &addrs), 2);
        assert_eq!(classify(&to_hosts[..20], Key::Destination, &addrs), 2);
    }
}
