//! Delivery-rate estimation, as Linux `net/ipv4/tcp_rate.c` does it.
//!
//! Every (re)transmitted packet carries a [`TxSnapshot`] of the connection's
//! delivery state at its send (`tcp_rate_skb_sent`). When an ACK delivers
//! packets, the most recently sent of them is the sample's packet
//! (`tcp_rate_skb_delivered`, kept in the scoreboard's `Delivered`); then
//! [`RateEstimator::gen`] turns it into a [`RateSample`] (`tcp_rate_gen`):
//! the packets delivered since that packet was sent, over the longer of its
//! send interval (from the send of the packet whose delivery preceded it to
//! its own send) and its ACK interval (from that earlier delivery to now).
//!
//! Application-limited periods (`tcp_rate_check_app_limited`) mark the
//! packets sent in them, so an algorithm can discount their low rates.
//!
//! Times are the simulator's picoseconds (Linux keeps microseconds); counts
//! are packets, as Linux's `tp->delivered`.
//!
//! Differences from Linux: the minimum RTT an interval is checked against
//! is the connection's (Linux `tcp_min_rtt` is windowed over
//! `tcp_min_rtt_wlen` = 300 s); the sender checks for application limits
//! whenever it stops sending for lack of data (Linux checks when the
//! application writes, in `tcp_sendmsg`); SACK reneging is not modelled.

use crate::time::Time;
use tcpeval_cc::RateSample;

/// The connection's delivery state when a packet was (re)transmitted
/// (Linux `tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxSnapshot {
    /// Send time of the packet whose delivery most recently started a
    /// sample (`first_tx_mstamp`).
    pub first_tx: Time,
    /// When the connection's `delivered` last grew (`delivered_mstamp`).
    pub delivered_at: Time,
    /// Packets delivered so far (`delivered`).
    pub delivered: u64,
    /// Sent while application-limited (`is_app_limited`).
    pub app_limited: bool,
}

/// The packet a rate sample is taken from: the most recently sent one an
/// ACK newly delivers (ties: the higher sequence number, Linux
/// `tcp_skb_sent_after`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SampledPacket {
    /// Its last (re)transmission time.
    pub sent_at: Time,
    /// Its sequence number.
    pub seq: u64,
    /// Its snapshot at that transmission.
    pub tx: TxSnapshot,
    /// It was a retransmission.
    pub retransmitted: bool,
}

impl SampledPacket {
    /// Keeps the more recently sent of `self` and `other`.
    pub fn newest(self, other: SampledPacket) -> SampledPacket {
        let later = (other.sent_at, other.seq) > (self.sent_at, self.seq);
        if later {
            other
        } else {
            self
        }
    }
}

/// The sender's delivery-rate state (the `tcp_sock` fields `tcp_rate.c`
/// keeps, less `delivered`, which is `Tcb::delivered`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateEstimator {
    /// Send time of the packet that started the current sample interval
    /// (`tp->first_tx_mstamp`).
    first_tx: Time,
    /// When `delivered` last grew (`tp->delivered_mstamp`).
    pub delivered_at: Time,
    /// Nonzero while application-limited: the `delivered + in_flight`
    /// mark beyond which the limit ends (`tp->app_limited`).
    pub app_limited: u64,
}

impl RateEstimator {
    /// Linux `tcp_rate_skb_sent`: the snapshot a packet sent at `now`
    /// carries. With nothing outstanding (`packets_out == 0` before this
    /// send) the sample clocks restart at `now`, so an idle period never
    /// counts in an interval.
    pub fn on_send(&mut self, now: Time, packets_out: u32, delivered: u64) -> TxSnapshot {
        if packets_out == 0 {
            self.first_tx = now;
            self.delivered_at = now;
        }
        TxSnapshot {
            first_tx: self.first_tx,
            delivered_at: self.delivered_at,
            delivered,
            app_limited: self.app_limited != 0,
        }
    }

    /// Linux `tcp_rate_check_app_limited`: the application has nothing
    /// more to send, the window is not full and nothing is waiting for a
    /// retransmission, so what is sent from now on is application-limited
    /// until `delivered` passes `delivered + in_flight` (at least 1).
    pub fn check_app_limited(&mut self, delivered: u64, in_flight: u32, cwnd: u32, lost_out: u32) {
        if in_flight < cwnd && lost_out == 0 {
            self.app_limited = (delivered + u64::from(in_flight)).max(1);
        }
    }

    /// Linux `tcp_rate_gen`: the rate sample of an ACK at `now` that newly
    /// delivered `acked_sacked` packets (`delivered` is the connection's
    /// total after it) and during whose processing `losses` packets were
    /// marked lost. `sampled` is the most recently sent packet it delivered;
    /// `min_rtt` the connection's minimum RTT (an interval below it is
    /// invalid: ACK compression or a spurious retransmission). The caller
    /// fills `prior_in_flight` and `rtt`.
    pub fn gen(
        &mut self,
        now: Time,
        delivered: u64,
        acked_sacked: u32,
        losses: u32,
        sampled: Option<SampledPacket>,
        min_rtt: Option<Time>,
    ) -> RateSample {
        if self.app_limited != 0 && delivered > self.app_limited {
            self.app_limited = 0;
        }
        if acked_sacked > 0 {
            self.delivered_at = now;
        }
        let mut rs = RateSample {
            acked_sacked,
            losses,
            ..RateSample::default()
        };
        let Some(p) = sampled else {
            return rs;
        };
        // tcp_rate_skb_delivered: the sample's packet opens the next interval.
        self.first_tx = p.sent_at;
        rs.prior_delivered = p.tx.delivered;
        rs.is_app_limited = p.tx.app_limited;
        rs.is_retrans = p.retransmitted;
        rs.delivered = Some(delivered - p.tx.delivered);
        let send_elapsed = p.sent_at.saturating_sub(p.tx.first_tx);
        let ack_elapsed = now.saturating_sub(p.tx.delivered_at);
        let interval = send_elapsed.max(ack_elapsed);
        rs.interval = match min_rtt {
            Some(m) if interval >= m => Some(interval),
            _ => None,
        };
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Time {
        Time::from_ms(v)
    }

    /// Sends packets `seqs` at `at`, with `out` packets outstanding before
    /// the first, returning their snapshots.
    fn send(r: &mut RateEstimator, at: Time, out: u32, n: u32, delivered: u64) -> Vec<TxSnapshot> {
        (0..n).map(|i| r.on_send(at, out + i, delivered)).collect()
    }

    #[test]
    fn a_window_acked_one_rtt_later_gives_its_size_over_the_rtt() {
        // Ten packets sent at 0 from idle; ACKs of two packets each at
        // 100, 101, ... 104 ms. The first ACK's sample: delivered 2 since
        // the snapshot's 0, interval max(send 0 - first_tx 0, ack 100 - 0)
        // = 100 ms. The fifth: 10 delivered over 104 ms.
        let mut r = RateEstimator::default();
        let tx = send(&mut r, ms(0), 0, 10, 0);
        assert_eq!(tx[0], tx[9]);
        let mut rs = Vec::new();
        for k in 0..5u64 {
            let p = SampledPacket {
                sent_at: ms(0),
                seq: 2 * k + 1,
                tx: tx[(2 * k + 1) as usize],
                retransmitted: false,
            };
            rs.push(r.gen(ms(100 + k), 2 * (k + 1), 2, 0, Some(p), Some(ms(100))));
        }
        assert_eq!(rs[0].delivered, Some(2));
        assert_eq!(rs[0].interval, Some(ms(100)));
        assert_eq!(rs[4].delivered, Some(10));
        assert_eq!(rs[4].interval, Some(ms(104)));
        assert_eq!(rs[4].prior_delivered, 0);
        assert_eq!(r.delivered_at, ms(104));
    }

    #[test]
    fn the_longer_of_send_and_ack_intervals_is_used() {
        // Round two: packets sent at 100 ms (after the ACK delivering 2 at
        // 100 ms made delivered_at 100 and first_tx 0) and at 150 ms. The
        // one sent at 150 ms carries first_tx 0, delivered_at 100,
        // delivered 2; its ACK at 250 ms when delivered is 12: 10 packets
        // over max(send 150 - 0, ack 250 - 100) = 150 ms.
        let mut r = RateEstimator::default();
        let tx0 = r.on_send(ms(0), 0, 0);
        let p0 = SampledPacket {
            sent_at: ms(0),
            seq: 0,
            tx: tx0,
            retransmitted: false,
        };
        r.on_send(ms(0), 1, 0);
        let first = r.gen(ms(100), 2, 2, 0, Some(p0), Some(ms(100)));
        assert_eq!(first.interval, Some(ms(100)));
        let tx = r.on_send(ms(150), 5, 2);
        assert_eq!(
            tx,
            TxSnapshot {
                first_tx: ms(0),
                delivered_at: ms(100),
                delivered: 2,
                app_limited: false
            }
        );
        let p = SampledPacket {
            sent_at: ms(150),
            seq: 7,
            tx,
            retransmitted: true,
        };
        let rs = r.gen(ms(250), 12, 3, 1, Some(p), Some(ms(100)));
        assert_eq!(rs.delivered, Some(10));
        assert_eq!(rs.interval, Some(ms(150)));
        assert_eq!((rs.acked_sacked, rs.losses, rs.is_retrans), (3, 1, true));
        // An interval below the minimum RTT is not a valid sample.
        let short = r.gen(ms(250), 12, 0, 0, Some(p), Some(ms(200)));
        assert_eq!(short.interval, None);
        assert_eq!(short.delivered, Some(10));
    }

    #[test]
    fn an_ack_without_a_sampled_packet_is_invalid() {
        let mut r = RateEstimator::default();
        let rs = r.gen(ms(5), 0, 0, 2, None, Some(ms(1)));
        assert_eq!(rs.delivered, None);
        assert_eq!(rs.interval, None);
        assert_eq!(rs.losses, 2);
        // Nothing delivered: delivered_at does not move.
        assert_eq!(r.delivered_at, Time::ZERO);
    }

    #[test]
    fn app_limited_marks_later_sends_until_delivered_passes_the_mark() {
        // 4 in flight of a cwnd of 10, 20 delivered: the mark is 24.
        let mut r = RateEstimator::default();
        r.check_app_limited(20, 4, 10, 0);
        assert_eq!(r.app_limited, 24);
        assert!(r.on_send(ms(1), 4, 20).app_limited);
        r.gen(ms(2), 24, 4, 0, None, None);
        assert_eq!(r.app_limited, 24, "cleared only once delivered > mark");
        r.gen(ms(3), 25, 1, 0, None, None);
        assert_eq!(r.app_limited, 0);
        assert!(!r.on_send(ms(4), 4, 25).app_limited);
        // A full window, or a pending retransmission, is not app-limited.
        r.check_app_limited(25, 10, 10, 0);
        r.check_app_limited(25, 3, 10, 1);
        assert_eq!(r.app_limited, 0);
        // Nothing delivered nor in flight yet: the mark is 1.
        r.check_app_limited(0, 0, 10, 0);
        assert_eq!(r.app_limited, 1);
    }

    #[test]
    fn the_newest_packet_is_the_latest_sent_then_the_highest() {
        let tx = TxSnapshot::default();
        let p = |sent_at, seq| SampledPacket {
            sent_at,
            seq,
            tx,
            retransmitted: false,
        };
        assert_eq!(p(ms(5), 1).newest(p(ms(3), 9)), p(ms(5), 1));
        assert_eq!(p(ms(5), 1).newest(p(ms(5), 2)), p(ms(5), 2));
        // A retransmission sent later wins over higher new data sent earlier.
        assert_eq!(p(ms(2), 30).newest(p(ms(7), 4)), p(ms(7), 4));
    }
}
