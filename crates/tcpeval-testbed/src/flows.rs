//! Bulk TCP flows on the host kernel's stack: a receiver thread that
//! accepts one connection and reads until the end, and a sender thread that
//! enters its namespace, sets `TCP_CONGESTION` (tcp(7)), connects at the
//! flow's start and writes until its stop. Both publish their socket so
//! the sampler can read `TCP_INFO`; sockets are closed only after every
//! thread has ended, so a descriptor is never reused under the sampler.

use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::clock::{now_ns, sleep_until};
use crate::config::FlowConfig;
use crate::error::{Error, Result};
use crate::tcp_info::TcpInfo;
use crate::{netns, sched, sys};

/// Bytes per `write(2)` of a sender.
const WRITE_CHUNK: usize = 1 << 20;
/// Socket timeouts of the blocking calls, ms: how soon a thread sees a stop.
const POLL_MS: u64 = 20;
/// Longest wait for a connection to be set up, ms.
const CONNECT_TIMEOUT_MS: u64 = 10_000;
/// `TCP_NOTSENT_LOWAT` of the senders, bytes (tcp(7)): the application
/// keeps at most about this much unsent data in the socket, so a flow that
/// stops at `stop_s` sends little after it, as the simulator's flow, whose
/// application stops offering data then.
const NOTSENT_LOWAT: i32 = 128 << 10;
/// `TCP_NOTSENT_LOWAT` (include/uapi/linux/tcp.h).
const TCP_NOTSENT_LOWAT: i32 = 25;

/// What a flow's threads share with the sampler and the run.
#[derive(Debug)]
pub struct FlowShared {
    /// Sender socket, -1 until connected.
    pub snd_fd: AtomicI32,
    /// Receiver's accepted socket, -1 until accepted.
    pub rcv_fd: AtomicI32,
    /// Bytes the receiving application has read.
    pub delivered: AtomicU64,
    /// Set when the sender has stopped writing.
    pub stopped: AtomicBool,
    /// Time the connection was set up, ns on the run clock (0: not yet).
    pub connected_ns: AtomicU64,
    /// Time the sender stopped, ns on the run clock (0: not yet).
    pub stopped_ns: AtomicU64,
    /// Sender's `TCP_INFO` when it stopped.
    pub final_snd: Mutex<Option<TcpInfo>>,
    /// Receiver's `TCP_INFO` when it ended.
    pub final_rcv: Mutex<Option<TcpInfo>>,
    /// The first error of either thread.
    pub error: Mutex<Option<String>>,
}

impl Default for FlowShared {
    fn default() -> Self {
        FlowShared {
            snd_fd: AtomicI32::new(-1),
            rcv_fd: AtomicI32::new(-1),
            delivered: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
            connected_ns: AtomicU64::new(0),
            stopped_ns: AtomicU64::new(0),
            final_snd: Mutex::new(None),
            final_rcv: Mutex::new(None),
            error: Mutex::new(None),
        }
    }
}

impl FlowShared {
    fn fail(&self, e: Error) {
        let mut slot = self.error.lock().expect("not poisoned");
        slot.get_or_insert(e.0);
    }

    /// Closes both sockets (after every thread has ended).
    pub fn close(&self) {
        for fd in [&self.snd_fd, &self.rcv_fd] {
            let f = fd.swap(-1, Ordering::SeqCst);
            if f >= 0 {
                // SAFETY: the descriptor was published by into_raw_fd and is closed once.
                unsafe { libc::close(f) };
            }
        }
    }
}

/// A listening socket for flow `i`, made in the receiver's namespace.
pub fn listen(i: usize, f: &FlowConfig) -> Result<OwnedFd> {
    let (addr, port) = (f.receiver_addr, f.port);
    netns::run_in(&f.receiver_netns, move || {
        let s = sys::socket(libc::AF_INET, libc::SOCK_STREAM, 0, "a receiver")?;
        let fd = s.as_raw_fd();
        sys::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_REUSEADDR,
            &1i32,
            "SO_REUSEADDR",
        )?;
        if !sys::attach_v4(fd, sys::Attach::Bind, addr, port) {
            return Err(Error::os(format!("flow {i}: receiver bind {addr}:{port}")));
        }
        // SAFETY: listening on our bound socket.
        if unsafe { libc::listen(fd, 4) } != 0 {
            return Err(Error::os(format!("flow {i}: listen")));
        }
        sys::set_timeout(fd, libc::SO_RCVTIMEO, POLL_MS, "accept timeout")?;
        Ok(s)
    })
}

/// The receiver: accepts one connection on `listener` and reads until the
/// sender's FIN or `stop`.
pub fn receive(listener: OwnedFd, shared: Arc<FlowShared>, stop: Arc<AtomicBool>, realtime: bool) {
    if realtime {
        sched::set_realtime(sched::HOSTS);
    }
    let fd: RawFd = loop {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        // SAFETY: accepting on our listening socket; peer address not wanted.
        let c = unsafe {
            libc::accept4(
                listener.as_raw_fd(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                libc::SOCK_CLOEXEC,
            )
        };
        if c >= 0 {
            break c;
        }
        if !sys::would_block() {
            shared.fail(Error::os("accept"));
            return;
        }
    };
    shared.rcv_fd.store(fd, Ordering::SeqCst);
    if let Err(e) = sys::set_timeout(fd, libc::SO_RCVTIMEO, POLL_MS, "receive timeout") {
        shared.fail(e);
        return;
    }
    let mut buf = vec![0u8; 1 << 18];
    loop {
        // SAFETY: reading into our own buffer of its length.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len()) };
        if n > 0 {
            shared.delivered.fetch_add(n as u64, Ordering::Relaxed);
        } else if n == 0 {
            break;
        } else if sys::would_block() {
            if stop.load(Ordering::Relaxed) {
                break;
            }
        } else {
            shared.fail(Error::os("receiver read"));
            break;
        }
    }
    *shared.final_rcv.lock().expect("not poisoned") = TcpInfo::read(fd).ok().map(|x| x.0);
}

fn connect(i: usize, f: &FlowConfig) -> Result<OwnedFd> {
    let s = sys::socket(libc::AF_INET, libc::SOCK_STREAM, 0, "a sender")?;
    let fd = s.as_raw_fd();
    sys::setsockopt_bytes(
        fd,
        libc::IPPROTO_TCP,
        libc::TCP_CONGESTION,
        f.algorithm.as_bytes(),
        "",
    )
    .map_err(|e| Error(format!("flow {i}: TCP_CONGESTION {:?}{}", f.algorithm, e.0)))?;
    if let Some(a) = f.sender_addr {
        if !sys::attach_v4(fd, sys::Attach::Bind, a, 0) {
            return Err(Error::os(format!("flow {i}: sender bind {a}")));
        }
    }
    sys::setsockopt(
        fd,
        libc::IPPROTO_TCP,
        TCP_NOTSENT_LOWAT,
        &NOTSENT_LOWAT,
        "TCP_NOTSENT_LOWAT",
    )?;
    sys::set_timeout(fd, libc::SO_SNDTIMEO, CONNECT_TIMEOUT_MS, "connect timeout")?;
    if !sys::attach_v4(fd, sys::Attach::Connect, f.receiver_addr, f.port) {
        return Err(Error::os(format!(
            "flow {i}: connect to {}:{}",
            f.receiver_addr, f.port
        )));
    }
    sys::set_timeout(fd, libc::SO_SNDTIMEO, POLL_MS, "send timeout")?;
    Ok(s)
}

/// The sender: from `t0_ns + start_s` to its stop (or the run's end)
/// writes as fast as TCP takes the data.
pub fn send(
    i: usize,
    f: FlowConfig,
    t0_ns: u64,
    shared: Arc<FlowShared>,
    stop: Arc<AtomicBool>,
    realtime: bool,
) {
    if realtime {
        sched::set_realtime(sched::HOSTS);
    }
    if let Err(e) = netns::enter(&f.sender_netns) {
        shared.fail(e);
        return;
    }
    // Wait for the start in steps, so a stop request (Ctrl-C) ends the wait.
    let start = t0_ns + (f.start_s * 1e9) as u64;
    while now_ns() < start {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        sleep_until(start.min(now_ns() + POLL_MS * 1_000_000));
    }
    if stop.load(Ordering::Relaxed) {
        return;
    }
    let sock = match connect(i, &f) {
        Ok(s) => s,
        Err(e) => {
            shared.fail(e);
            return;
        }
    };
    shared
        .connected_ns
        .store(now_ns() - t0_ns, Ordering::SeqCst);
    let fd = sock.into_raw_fd();
    shared.snd_fd.store(fd, Ordering::SeqCst);
    let stop_at = f.stop_s.map_or(u64::MAX, |s| t0_ns + (s * 1e9) as u64);
    let buf = vec![0u8; WRITE_CHUNK];
    while !stop.load(Ordering::Relaxed) && now_ns() < stop_at {
        // SAFETY: writing our own buffer.
        let n = unsafe { libc::write(fd, buf.as_ptr() as *const libc::c_void, buf.len()) };
        if n < 0 && !sys::would_block() {
            shared.fail(Error::os(format!("flow {i}: sender write")));
            break;
        }
    }
    *shared.final_snd.lock().expect("not poisoned") = TcpInfo::read(fd).ok().map(|x| x.0);
    shared.stopped_ns.store(now_ns() - t0_ns, Ordering::SeqCst);
    shared.stopped.store(true, Ordering::SeqCst);
    // SAFETY: shutting down our own socket's sending side (FIN); closed later.
    unsafe { libc::shutdown(fd, libc::SHUT_WR) };
}
