//! Rate halving, the in-recovery cwnd of Linux 2.6.x to 3.1
//! (`net/ipv4/tcp_input.c`: `tcp_cwnd_down` on each ACK in Recovery,
//! `tcp_complete_cwr` at its end), Linux's form of the proposal by Mathis,
//! Semke and Mahdavi ("The Rate-Halving Algorithm for TCP Congestion
//! Control", draft-mathis-tcp-ratehalving-00, 1999). Every second ACK that
//! delivers data takes one packet off cwnd while cwnd is above the
//! algorithm's `min_cwnd`, and cwnd never exceeds `in_flight + 1`, so one
//! packet goes out per two ACKs: over one round trip the sending rate
//! halves. At the end cwnd = min(cwnd, ssthresh).
//!
//! Units: packets.

/// The ACKs that take one packet off cwnd: every second one.
const ACKS_PER_DECREMENT: u32 = 2;

/// The rate-halving state of one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RateHalving {
    /// Delivering ACKs since the last decrement, 0 or 1 (Linux keeps it in
    /// `snd_cwnd_cnt`, which is otherwise idle during recovery).
    acks: u32,
}

impl RateHalving {
    /// Recovery begins: the count starts at zero (Linux
    /// `tcp_fastretrans_alert` clears `snd_cwnd_cnt` on entering Recovery).
    pub fn enter(&mut self) {
        self.acks = 0;
    }

    /// The cwnd after an ACK that delivered `newly` packets (Linux 2.6
    /// `tcp_cwnd_down`): `cwnd` one less on every second such ACK if above
    /// `min_cwnd` (asked only then), then at most `in_flight + 1`. An ACK
    /// that delivered nothing changes nothing.
    pub fn cwnd(
        &mut self,
        newly: u32,
        cwnd: f64,
        in_flight: u32,
        min_cwnd: impl FnOnce() -> f64,
    ) -> f64 {
        if newly == 0 {
            return cwnd;
        }
        self.acks += 1;
        let decrement = self.acks / ACKS_PER_DECREMENT;
        self.acks %= ACKS_PER_DECREMENT;
        let mut cwnd = cwnd;
        if decrement > 0 && cwnd > min_cwnd() {
            cwnd -= f64::from(decrement);
        }
        cwnd.min(f64::from(in_flight) + 1.0)
    }

    /// cwnd when recovery ends (Linux 2.6 `tcp_complete_cwr`).
    pub fn exit_cwnd(cwnd: f64, ssthresh: f64) -> f64 {
        cwnd.min(ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_second_delivering_ack_takes_one_packet_off() {
        // Linux 2.6 tcp_cwnd_down with plenty in flight (no in_flight + 1
        // bound) and min_cwnd 5: cwnd 20 -> 20, 19, 19, 18, 18.
        let mut rh = RateHalving::default();
        rh.enter();
        let mut cwnd = 20.0;
        let mut trace = Vec::new();
        for _ in 0..5 {
            cwnd = rh.cwnd(1, cwnd, 100, || 5.0);
            trace.push(cwnd);
        }
        assert_eq!(trace, vec![20.0, 19.0, 19.0, 18.0, 18.0]);
    }

    #[test]
    fn an_ack_that_delivers_nothing_neither_counts_nor_bounds() {
        // cwnd 20 with 3 in flight: a delivering ACK would cut it to
        // in_flight + 1 = 4; one that delivers nothing leaves it and the
        // count alone, so the next delivering ACK is still the first.
        let mut rh = RateHalving::default();
        rh.enter();
        assert_eq!(rh.cwnd(0, 20.0, 3, || 5.0), 20.0);
        assert_eq!(rh.acks, 0);
        assert_eq!(rh.cwnd(1, 20.0, 3, || 5.0), 4.0);
        assert_eq!(rh.acks, 1);
    }

    #[test]
    fn decrements_stop_at_min_cwnd_and_min_cwnd_is_asked_only_then() {
        // min_cwnd 5 (Linux tcp_reno_min_cwnd = ssthresh 10 / 2): from 6 a
        // decrement gives 5, the next one is refused (5 is not above 5).
        let mut rh = RateHalving::default();
        rh.enter();
        let mut asked = 0;
        let mut cwnd = 6.0;
        let mut trace = Vec::new();
        for _ in 0..4 {
            cwnd = rh.cwnd(1, cwnd, 100, || {
                asked += 1;
                5.0
            });
            trace.push(cwnd);
        }
        assert_eq!(trace, vec![6.0, 5.0, 5.0, 5.0]);
        assert_eq!(asked, 2);
    }

    #[test]
    fn recovery_ends_at_the_smaller_of_cwnd_and_ssthresh() {
        // Linux 2.6 tcp_complete_cwr.
        assert_eq!(RateHalving::exit_cwnd(17.0, 10.0), 10.0);
        assert_eq!(RateHalving::exit_cwnd(7.0, 10.0), 7.0);
    }
}
