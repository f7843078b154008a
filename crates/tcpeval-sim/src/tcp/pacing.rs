//! TCP pacing as Linux does it without the fq qdisc ("internal pacing",
//! `net/ipv4/tcp_output.c`): the flow keeps one earliest departure time
//! (`tp->tcp_wstamp_ns`, here `Tcb::next_departure`); each data packet sent
//! moves it on by the packet's transmission time at the pacing rate, and the
//! sender sends only while it is not in the future, otherwise it arms one
//! pacing timer for it (`tcp_pacing_check`, the socket's `pacing_timer`).
//! A flow so has at most one pending pacing event, never one per packet.
//!
//! The rate comes from the algorithm (BBR sets `Tcb::pacing_rate`) or, for
//! the others when the option `pacing` is on, from cwnd and srtt with
//! Linux's ratios ([`cwnd_pacing_rate`], `tcp_update_pacing_rate` in
//! `net/ipv4/tcp_input.c`).
//!
//! Not modelled: TSO/GSO bursts (Linux paces whole skbs of up to
//! `pacing_rate >> sk_pacing_shift` bytes; here every packet is paced on its
//! own), the fq qdisc's per-flow credit, and pacing of the one
//! retransmission the sender makes on entering recovery (Linux sends it
//! through `tcp_xmit_retransmit_queue`, which paces; later retransmissions
//! are paced here too). The pacing length is the packet's wire size (Linux:
//! `skb->len`, without the IP header).

use crate::time::Time;

/// Packets a connection sends before pacing applies (Linux
/// `tcp_update_skb_after_send`: "Original sch_fq does not pace first 10
/// MSS", `tp->data_segs_out >= 10`, counting the packet just sent).
pub const UNPACED_SEGMENTS: u64 = 10;

/// Linux `tcp_update_skb_after_send` with `tcp_transmit_skb`'s
/// `tcp_wstamp_ns = max(tcp_wstamp_ns, now)`: the earliest departure time
/// after a packet of `bytes` leaves at `now`, the `data_segs_out`-th data
/// packet sent (this one included), at `rate` bytes per second (`None`:
/// unlimited). Idle time before the send (`credit`, how far the departure
/// time had to catch up with `now`) absorbs up to half of this packet's
/// transmission time ("take into account OS jitter").
pub fn next_departure(
    departure: Time,
    now: Time,
    bytes: u32,
    rate: Option<u64>,
    data_segs_out: u64,
) -> Time {
    let at = departure.max(now);
    let Some(rate) = rate.filter(|&r| r > 0) else {
        return at;
    };
    if data_segs_out < UNPACED_SEGMENTS {
        return at;
    }
    let credit = (at - departure).ps();
    let len = (u128::from(bytes) * 1_000_000_000_000 / u128::from(rate)) as u64;
    at + Time::from_ps(len - (len / 2).min(credit))
}

/// Linux `tcp_update_pacing_rate` (`net/ipv4/tcp_input.c`): the pacing rate
/// in bytes per second for a window of `max(cwnd, packets_out)` packets of
/// `mss` bytes per `srtt`, times `ss_ratio` percent while cwnd is below
/// half of ssthresh (slow start, still far from its end) and `ca_ratio`
/// percent otherwise. `None` (unlimited) before the first RTT sample.
pub fn cwnd_pacing_rate(
    mss: u32,
    cwnd: f64,
    ssthresh: f64,
    packets_out: u32,
    srtt: Option<Time>,
    ss_ratio: u32,
    ca_ratio: u32,
) -> Option<u64> {
    let srtt = srtt.filter(|s| s.ps() > 0)?;
    let cwnd = cwnd.max(0.0).floor();
    let ratio = if cwnd < (ssthresh / 2.0).floor() {
        ss_ratio
    } else {
        ca_ratio
    };
    let window = (cwnd as u64).max(u64::from(packets_out));
    let bytes_per_rtt = u128::from(mss) * u128::from(window) * u128::from(ratio);
    let rate = bytes_per_rtt * 1_000_000_000_000 / (100 * u128::from(srtt.ps()));
    Some(rate.min(u128::from(u64::MAX)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_packet_moves_the_departure_by_its_time_at_the_rate() {
        // 1500 bytes at 1.5 MB/s = 1 ms per packet, from the tenth packet on.
        let rate = Some(1_500_000);
        let t = next_departure(Time::ZERO, Time::ZERO, 1500, rate, 9);
        assert_eq!(t, Time::ZERO, "the first nine are not paced");
        let t = next_departure(t, Time::ZERO, 1500, rate, 10);
        assert_eq!(t, Time::from_ms(1));
        let t = next_departure(t, Time::from_ms(1), 1500, rate, 11);
        assert_eq!(t, Time::from_ms(2));
        // Unlimited: the departure time only catches up with the clock.
        assert_eq!(
            next_departure(t, Time::from_ms(5), 1500, None, 12),
            Time::from_ms(5)
        );
    }

    #[test]
    fn idle_time_absorbs_at_most_half_a_packet() {
        // Departure due at 2 ms, the packet leaves at 2.3 ms: 0.3 ms of
        // credit off its 1 ms, next at 3.0 ms. Leaving at 10 ms (8 ms of
        // credit) takes off only half: next at 10.5 ms.
        let rate = Some(1_500_000);
        let t = next_departure(Time::from_ms(2), Time::from_us(2300), 1500, rate, 20);
        assert_eq!(t, Time::from_ms(3));
        let t = next_departure(Time::from_ms(2), Time::from_ms(10), 1500, rate, 20);
        assert_eq!(t, Time::from_us(10_500));
    }

    #[test]
    fn cwnd_rate_uses_linux_ratios() {
        // cwnd 10 of mss 1000 per 100 ms = 100 kB/s; slow start far from
        // ssthresh (10 < 40 / 2): x 2; otherwise x 1.2.
        let srtt = Some(Time::from_ms(100));
        let r = |cwnd, ssthresh, out| cwnd_pacing_rate(1000, cwnd, ssthresh, out, srtt, 200, 120);
        assert_eq!(r(10.0, f64::INFINITY, 0), Some(200_000));
        assert_eq!(r(10.0, 40.0, 0), Some(200_000));
        assert_eq!(r(10.0, 21.0, 0), Some(120_000), "10 >= floor(21 / 2)");
        assert_eq!(r(10.0, 5.0, 0), Some(120_000));
        // More packets out than cwnd (after a reduction): they count.
        assert_eq!(r(10.0, 5.0, 15), Some(180_000));
        assert_eq!(cwnd_pacing_rate(1000, 10.0, 5.0, 0, None, 200, 120), None);
    }
}
