//! A qdisc's counters over rtnetlink: an `RTM_GETQDISC` dump, the reply's
//! `TCA_STATS2` nest (`TCA_STATS_BASIC`: bytes and packets dequeued;
//! `TCA_STATS_QUEUE`: qlen, backlog, drops), as `tc -s qdisc` prints them
//! (include/uapi/linux/rtnetlink.h, pkt_sched.h, gen_stats.h; filled by
//! `tc_fill_qdisc()` in net/sched/sch_api.c). Reading it takes one
//! syscall pair, fast enough for a 1-ms probe period, where running `tc`
//! would take milliseconds.

use std::os::fd::{AsRawFd, OwnedFd};

use crate::error::{Error, Result};
use crate::sys;

const RTM_NEWQDISC: u16 = 36;
const RTM_GETQDISC: u16 = 38;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;
const NLM_F_REQUEST: u16 = 1;
const NLM_F_DUMP: u16 = 0x300;
const NLMSG_HDRLEN: usize = 16;
const TCMSG_LEN: usize = 20;
const TCA_STATS2: u16 = 7;
const TCA_STATS_BASIC: u16 = 1;
const TCA_STATS_QUEUE: u16 = 3;
const NLA_TYPE_MASK: u16 = 0x3fff;

/// One qdisc's counters at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QdiscCounters {
    /// Packets waiting.
    pub qlen: u32,
    /// Bytes waiting (frames with their Ethernet header).
    pub backlog: u32,
    /// Packets dropped so far.
    pub drops: u32,
    /// Bytes dequeued so far.
    pub bytes: u64,
    /// Packets dequeued so far.
    pub packets: u32,
}

/// A netlink socket in one namespace, for one qdisc (interface index and handle).
pub struct QdiscReader {
    sock: OwnedFd,
    ifindex: u32,
    handle: u32,
    seq: u32,
    buf: Vec<u8>,
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_ne_bytes([b[i], b[i + 1]])
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_ne_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// The netlink attributes in `b`: (type, payload).
fn attrs(b: &[u8]) -> Vec<(u16, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 4 <= b.len() {
        let len = u16_at(b, i) as usize;
        if len < 4 || i + len > b.len() {
            break;
        }
        out.push((u16_at(b, i + 2) & NLA_TYPE_MASK, &b[i + 4..i + len]));
        i += align4(len);
    }
    out
}

/// The counters in one `RTM_NEWQDISC` message's attributes.
pub fn parse_stats(attributes: &[u8]) -> Option<QdiscCounters> {
    let (_, stats) = attrs(attributes)
        .into_iter()
        .find(|(t, _)| *t == TCA_STATS2)?;
    let mut c = QdiscCounters::default();
    let mut found = false;
    for (t, p) in attrs(stats) {
        match t {
            TCA_STATS_BASIC if p.len() >= 12 => {
                c.bytes = u64::from_ne_bytes(p[0..8].try_into().ok()?);
                c.packets = u32_at(p, 8);
            }
            TCA_STATS_QUEUE if p.len() >= 12 => {
                c.qlen = u32_at(p, 0);
                c.backlog = u32_at(p, 4);
                c.drops = u32_at(p, 8);
                found = true;
            }
            _ => {}
        }
    }
    found.then_some(c)
}

impl QdiscReader {
    /// A reader of the qdisc with handle `handle` (major:minor as one u32;
    /// tc writes the major in hex, `10:` is `0x0010_0000`) on `ifname`; call in the qdisc's namespace.
    pub fn new(ifname: &str, handle: u32) -> Result<Self> {
        let ifindex = crate::netns::ifindex(ifname)?;
        let sock = sys::socket(
            libc::AF_NETLINK,
            libc::SOCK_RAW,
            libc::NETLINK_ROUTE,
            "rtnetlink",
        )?;
        sys::set_timeout(
            sock.as_raw_fd(),
            libc::SO_RCVTIMEO,
            1000,
            "rtnetlink receive timeout",
        )?;
        let mut r = QdiscReader {
            sock,
            ifindex,
            handle,
            seq: 0,
            buf: vec![0; 1 << 16],
        };
        r.read()?; // fails now, with a clear message, if the qdisc is missing
        Ok(r)
    }

    /// The qdisc's counters now.
    pub fn read(&mut self) -> Result<QdiscCounters> {
        self.seq = self.seq.wrapping_add(1);
        let mut req = [0u8; NLMSG_HDRLEN + TCMSG_LEN];
        req[0..4].copy_from_slice(&((NLMSG_HDRLEN + TCMSG_LEN) as u32).to_ne_bytes());
        req[4..6].copy_from_slice(&RTM_GETQDISC.to_ne_bytes());
        req[6..8].copy_from_slice(&(NLM_F_REQUEST | NLM_F_DUMP).to_ne_bytes());
        req[8..12].copy_from_slice(&self.seq.to_ne_bytes());
        req[20..24].copy_from_slice(&(self.ifindex as i32).to_ne_bytes());
        let fd = self.sock.as_raw_fd();
        // SAFETY: sending a valid buffer on our socket (destination: the kernel, the default).
        if unsafe { libc::send(fd, req.as_ptr() as *const libc::c_void, req.len(), 0) } < 0 {
            return Err(Error::os("rtnetlink RTM_GETQDISC"));
        }
        let mut found = None;
        loop {
            // SAFETY: receiving into our own buffer of its length.
            let n = unsafe {
                libc::recv(
                    fd,
                    self.buf.as_mut_ptr() as *mut libc::c_void,
                    self.buf.len(),
                    0,
                )
            };
            if n < 0 {
                return Err(Error::os("rtnetlink qdisc dump"));
            }
            let b = &self.buf[..n as usize];
            let mut i = 0;
            while i + NLMSG_HDRLEN <= b.len() {
                let len = u32_at(b, i) as usize;
                let ty = u16_at(b, i + 4);
                if len < NLMSG_HDRLEN || i + len > b.len() {
                    break;
                }
                if u32_at(b, i + 8) == self.seq {
                    match ty {
                        NLMSG_DONE => {
                            return found.ok_or_else(|| {
                                Error(format!(
                                    "no qdisc with handle {:x}: on interface index {}",
                                    self.handle >> 16,
                                    self.ifindex
                                ))
                            })
                        }
                        NLMSG_ERROR => {
                            return Err(Error("rtnetlink refused the qdisc dump".into()))
                        }
                        RTM_NEWQDISC if len >= NLMSG_HDRLEN + TCMSG_LEN => {
                            let tc = &b[i + NLMSG_HDRLEN..];
                            let ifindex = u32_at(tc, 4);
                            let handle = u32_at(tc, 8);
                            if ifindex == self.ifindex && handle == self.handle {
                                found = parse_stats(&b[i + NLMSG_HDRLEN + TCMSG_LEN..i + len]);
                            }
                        }
                        _ => {}
                    }
                }
                i += align4(len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(ty: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&((4 + payload.len()) as u16).to_ne_bytes());
        v.extend_from_slice(&ty.to_ne_bytes());
        v.extend_from_slice(payload);
        v.resize(align4(v.len()), 0);
        v
    }

    #[test]
    fn parses_basic_and_queue_stats_from_the_stats2_nest() {
        let mut basic = 123_456_789_012u64.to_ne_bytes().to_vec();
        basic.extend_from_slice(&81_000u32.to_ne_bytes());
        basic.extend_from_slice(&[0; 4]); // struct padding the kernel sends
        let mut queue = Vec::new();
        for v in [17u32, 17 * 1514, 42, 0, 9] {
            queue.extend_from_slice(&v.to_ne_bytes());
        }
        let mut nest = attr(TCA_STATS_BASIC, &basic);
        nest.extend(attr(TCA_STATS_QUEUE, &queue));
        let mut msg = attr(1, b"pfifo\0");
        msg.extend(attr(TCA_STATS2 | 0x8000, &nest)); // NLA_F_NESTED set
        let c = parse_stats(&msg).unwrap();
        assert_eq!(
            c,
            QdiscCounters {
                qlen: 17,
                backlog: 17 * 1514,
                drops: 42,
                bytes: 123_456_789_012,
                packets: 81_000
            }
        );
    }

    #[test]
    fn no_queue_stats_is_none() {
        assert_eq!(parse_stats(&attr(1, b"pfifo\0")), None);
    }
}
