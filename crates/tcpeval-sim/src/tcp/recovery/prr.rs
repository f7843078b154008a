//! Proportional Rate Reduction (RFC 6937, section 3, the PRR-SSRB variant
//! with the slow-start reduction bound), the in-recovery cwnd of Linux 3.2
//! and later (`net/ipv4/tcp_input.c`: `tcp_init_cwnd_reduction` resets the
//! counters, `tcp_cwnd_reduction` computes `sndcnt` on each ACK).
//!
//! Over the recovery episode PRR spreads the reduction from the flight at
//! entry (`RecoverFS`) down to ssthresh across the ACKs that come back:
//! while `pipe > ssthresh` it sends `ssthresh / RecoverFS` packets per
//! packet delivered; once `pipe` has fallen to ssthresh it grows back
//! towards ssthresh no faster than slow start would (the reduction bound).
//!
//! Units: packets throughout.

/// The PRR counters of one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// Packets delivered to the receiver since recovery began
    /// (RFC 6937 `prr_delivered`).
    delivered: u64,
    /// Packets sent since recovery began, retransmissions included
    /// (RFC 6937 `prr_out`).
    out: u64,
    /// Packets outstanding when recovery began, at least 1 (RFC 6937
    /// `RecoverFS = snd.nxt - snd.una`; Linux divides by `prior_cwnd`
    /// instead, see docs/decisions.md).
    recover_fs: u64,
}

impl Prr {
    /// Recovery begins with `packets_out` packets outstanding: both counters
    /// start at zero (RFC 6937 section 3, "at the beginning of recovery").
    pub fn enter(&mut self, packets_out: u32) {
        *self = Prr {
            delivered: 0,
            out: 0,
            recover_fs: u64::from(packets_out).max(1),
        };
    }

    /// One packet left during recovery (RFC 6937: "on any data transmission
    /// or retransmission", `prr_out += 1`).
    pub fn on_sent(&mut self) {
        self.out += 1;
    }

    /// The cwnd for an ACK that delivered `newly` packets, with `pipe`
    /// packets in flight after it and `ssthresh` the target window:
    /// `pipe + sndcnt`, at least 1, where (RFC 6937 section 3)
    ///
    /// - `pipe > ssthresh`: `sndcnt = ceil(prr_delivered * ssthresh / RecoverFS) - prr_out`;
    /// - otherwise (PRR-SSRB): `sndcnt = min(ssthresh - pipe,
    ///   max(prr_delivered - prr_out, newly) + 1)`;
    ///
    /// and a negative `sndcnt` counts as 0. ssthresh is taken in whole
    /// packets (its floor), as Linux's integer `snd_ssthresh`.
    pub fn cwnd(&mut self, newly: u32, pipe: u32, ssthresh: f64) -> f64 {
        self.delivered += u64::from(newly);
        let pipe = i64::from(pipe);
        let ssthresh = ssthresh.floor() as i64;
        let delivered = self.delivered as i64;
        let out = self.out as i64;
        let sndcnt = if pipe > ssthresh {
            let fs = self.recover_fs as i64;
            // Integer ceiling of delivered * ssthresh / fs.
            (delivered * ssthresh + fs - 1) / fs - out
        } else {
            (ssthresh - pipe).min((delivered - out).max(i64::from(newly)) + 1)
        };
        (pipe + sndcnt.max(0)).max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn above_ssthresh_sends_ssthresh_over_recoverfs_per_delivered_packet() {
        // RFC 6937 section 3, proportional part: RecoverFS 20, ssthresh 10,
        // one packet delivered per ACK. sndcnt = ceil(k * 10 / 20) - prr_out
        // after the k-th ACK: 1, 0, 1, 0 when each allowed packet is sent,
        // so one packet leaves per two delivered. pipe falls by one per ACK
        // and rises by one per packet sent: 19, 19, 18, 18 (from 20 at entry
        // minus the delivered one).
        let mut prr = Prr::default();
        prr.enter(20);
        let mut pipe = 20;
        let mut cwnds = Vec::new();
        for _ in 0..4 {
            pipe -= 1;
            let cwnd = prr.cwnd(1, pipe, 10.0);
            cwnds.push(cwnd);
            while pipe < cwnd as u32 {
                prr.on_sent();
                pipe += 1;
            }
        }
        assert_eq!(cwnds, vec![20.0, 19.0, 19.0, 18.0]);
        assert_eq!((prr.delivered, prr.out), (4, 2));
    }

    #[test]
    fn at_or_below_ssthresh_the_slow_start_bound_limits_the_send() {
        // RFC 6937 section 3, PRR-SSRB: ssthresh 10, pipe 4, so
        // ssthresh - pipe = 6 could go; prr_delivered 5 (4 earlier + 1
        // now), prr_out 3: limit = max(5 - 3, 1) + 1 = 3, cwnd = 4 + 3 = 7.
        let mut prr = Prr::default();
        prr.enter(20);
        prr.delivered = 4;
        prr.out = 3;
        assert_eq!(prr.cwnd(1, 4, 10.0), 7.0);
        // With pipe 9 only ssthresh - pipe = 1 fits: cwnd 10 = ssthresh.
        assert_eq!(prr.cwnd(1, 9, 10.0), 10.0);
    }

    #[test]
    fn a_negative_sndcnt_sends_nothing_and_cwnd_stays_at_least_one() {
        // Proportional part with more sent than earned: RecoverFS 10,
        // ssthresh 5, prr_delivered 1, prr_out 4: ceil(1 * 5 / 10) - 4 = -3,
        // clipped to 0, cwnd = pipe = 8.
        let mut prr = Prr::default();
        prr.enter(10);
        prr.out = 4;
        assert_eq!(prr.cwnd(1, 8, 5.0), 8.0);
        // Nothing in flight and nothing allowed: cwnd is floored at 1.
        let mut prr = Prr::default();
        prr.enter(0);
        assert_eq!(prr.recover_fs, 1);
        assert_eq!(prr.cwnd(0, 0, 0.0), 1.0);
    }

    #[test]
    fn ssthresh_counts_in_whole_packets() {
        // ssthresh 10.9 acts as 10: RecoverFS 20, first ACK delivers 2,
        // pipe 18 > 10: ceil(2 * 10 / 20) - 0 = 1, cwnd 19 (with 10.9 taken
        // as is it would be ceil(1.09) = 2, cwnd 20).
        let mut prr = Prr::default();
        prr.enter(20);
        assert_eq!(prr.cwnd(2, 18, 10.9), 19.0);
    }
}
