//! `struct tcp_info` as Linux 6.7+ fills it for `getsockopt(TCP_INFO)`
//! (include/uapi/linux/tcp.h; filled by `tcp_get_info()` in
//! net/ipv4/tcp.c). The kernel copies at most the length we pass, so an
//! older kernel leaves the tail zero: [`TcpInfo::read`] reports how many
//! bytes it filled.

use std::os::fd::RawFd;

use crate::error::{Error, Result};

/// `TCP_INFINITE_SSTHRESH` (include/net/tcp.h): ssthresh before any loss.
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// `tcpi_ca_state` values (`enum tcp_ca_state`, include/uapi/linux/tcp.h).
pub mod ca_state {
    /// Nothing bad seen.
    pub const OPEN: u8 = 0;
    /// Fast recovery.
    pub const RECOVERY: u8 = 3;
    /// After a retransmission timeout.
    pub const LOSS: u8 = 4;
}

/// The kernel's `struct tcp_info`, field for field (units as the kernel's
/// comments give them: times in us unless named otherwise, windows in
/// segments).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
#[allow(missing_docs)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub flags: u8,
    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    /// Smoothed RTT, us.
    pub rtt: u32,
    pub rttvar: u32,
    /// Slow-start threshold, segments ([`INFINITE_SSTHRESH`] before a loss).
    pub snd_ssthresh: u32,
    /// Congestion window, segments.
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt: u32,
    pub rcv_space: u32,
    /// Segments retransmitted over the connection.
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    /// Smallest RTT seen, us.
    pub min_rtt: u32,
    /// Data segments received (`tcpEStatsPerfDataSegsIn`).
    pub data_segs_in: u32,
    /// Data segments sent, retransmissions included.
    pub data_segs_out: u32,
    pub delivery_rate: u64,
    /// Time with data in flight, us (`tcpi_busy_time`).
    pub busy_time: u64,
    /// Of the busy time, us limited by the receiver's window.
    pub rwnd_limited: u64,
    /// Of the busy time, us limited by the send buffer.
    pub sndbuf_limited: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
    pub snd_wnd: u32,
    pub rcv_wnd: u32,
    pub rehash: u32,
    /// Retransmission timeouts, SYN timeouts included (Linux 6.7+).
    pub total_rto: u16,
    pub total_rto_recoveries: u16,
    pub total_rto_time: u32,
}

impl TcpInfo {
    /// Reads a socket's `TCP_INFO`; returns it and the bytes the kernel filled.
    pub fn read(fd: RawFd) -> Result<(TcpInfo, usize)> {
        let mut info = TcpInfo::default();
        let mut len = std::mem::size_of::<TcpInfo>() as libc::socklen_t;
        // SAFETY: `info` is a plain repr(C) struct of `len` writable bytes.
        let r = unsafe {
            libc::getsockopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_INFO,
                &mut info as *mut _ as *mut libc::c_void,
                &mut len,
            )
        };
        if r != 0 {
            return Err(Error::os("getsockopt TCP_INFO"));
        }
        Ok((info, len as usize))
    }

    /// Slow-start threshold in segments, infinity while unset (the
    /// simulator's convention).
    pub fn ssthresh(&self) -> f64 {
        if self.snd_ssthresh >= INFINITE_SSTHRESH {
            f64::INFINITY
        } else {
            f64::from(self.snd_ssthresh)
        }
    }

    /// Smoothed RTT, s; NaN before the first RTT sample (the kernel reports 0).
    pub fn srtt_s(&self) -> f64 {
        if self.rtt == 0 {
            f64::NAN
        } else {
            f64::from(self.rtt) / 1e6
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Byte offset of a field within `t`.
    fn offset<F>(t: &TcpInfo, f: &F) -> usize {
        f as *const F as usize - t as *const TcpInfo as usize
    }

    #[test]
    fn layout_matches_the_kernel_header() {
        // include/uapi/linux/tcp.h (6.7+): 8 one-byte fields, 24 u32 up to
        // tcpi_total_retrans, then the 64-bit counters; 248 bytes in all.
        let t = TcpInfo::default();
        assert_eq!(offset(&t, &t.rto), 8);
        assert_eq!(offset(&t, &t.total_retrans), 100);
        assert_eq!(offset(&t, &t.pacing_rate), 104);
        assert_eq!(offset(&t, &t.min_rtt), 148);
        assert_eq!(offset(&t, &t.data_segs_out), 156);
        assert_eq!(offset(&t, &t.delivered), 192);
        assert_eq!(offset(&t, &t.total_rto), 240);
        assert_eq!(std::mem::size_of::<TcpInfo>(), 248);
    }

    #[test]
    fn unset_ssthresh_is_infinite_and_missing_rtt_is_nan() {
        let mut i = TcpInfo {
            snd_ssthresh: INFINITE_SSTHRESH,
            ..Default::default()
        };
        assert_eq!(i.ssthresh(), f64::INFINITY);
        assert!(i.srtt_s().is_nan());
        i.snd_ssthresh = 42;
        i.rtt = 100_250;
        assert_eq!(i.ssthresh(), 42.0);
        assert_eq!(i.srtt_s(), 0.10025);
    }
}
