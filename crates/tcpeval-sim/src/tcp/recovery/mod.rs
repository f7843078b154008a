//! The sender's cwnd during SACK-based fast recovery, one variant per
//! [`RecoveryMode`], each owning the state it keeps over an episode:
//!
//! | variant | source | cwnd at entry | on each ACK | at the end |
//! |---|---|---|---|---|
//! | [`Recovery::Prr`] | RFC 6937 section 3; Linux >= 3.2 `tcp_cwnd_reduction` | [`Prr::cwnd`] | [`Prr::cwnd`] | ssthresh |
//! | [`Recovery::Rfc6675`] | RFC 6675 section 5, step (4.2) | ssthresh | unchanged | ssthresh |
//! | [`Recovery::Ns2Sack1`] | ns-2.35 `tcp/tcp-sack1.cc` | ssthresh | unchanged; its own `pipe` counter | ssthresh |
//! | [`Recovery::RateHalving`] | Linux 2.6 `tcp_cwnd_down`, `tcp_complete_cwr` | [`RateHalving::cwnd`] | [`RateHalving::cwnd`] | min(cwnd, ssthresh) |
//!
//! The sender owns what every variant shares: when an episode starts and
//! ends (`recover`, Linux `high_seq`), ssthresh from the algorithm, loss
//! marking and what is retransmitted. Without SACK the sender runs NewReno
//! (RFC 6582) and asks this type only to count what it sends.
//!
//! Units: packets.

mod prr;
mod rate_halving;

pub use prr::Prr;
pub use rate_halving::RateHalving;

use super::config::RecoveryMode;

/// The in-recovery cwnd rule of one sender and its per-episode state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// Proportional Rate Reduction with the slow-start reduction bound.
    Prr(Prr),
    /// RFC 6675: cwnd = ssthresh for the whole episode; the sender sends
    /// while the scoreboard's `pipe` is below it.
    Rfc6675,
    /// ns-2's Agent/TCP/Sack1: as RFC 6675, but `pipe` is a counter.
    Ns2Sack1(Ns2Pipe),
    /// Linux 2.6 rate halving.
    RateHalving(RateHalving),
}

/// What an ACK in recovery tells the cwnd rule, in packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecoveryAck {
    /// Packets this ACK newly delivered (cumulatively or by SACK).
    pub newly: u32,
    /// cwnd before this ACK.
    pub cwnd: f64,
    /// The episode's ssthresh.
    pub ssthresh: f64,
    /// Packets in flight after this ACK (the scoreboard's `pipe`).
    pub in_flight: u32,
}

impl Recovery {
    /// The rule `mode` names, with no episode begun.
    pub fn new(mode: RecoveryMode) -> Self {
        match mode {
            RecoveryMode::Prr => Recovery::Prr(Prr::default()),
            RecoveryMode::Rfc6675 => Recovery::Rfc6675,
            RecoveryMode::Ns2Sack1 => Recovery::Ns2Sack1(Ns2Pipe::default()),
            RecoveryMode::RateHalving => Recovery::RateHalving(RateHalving::default()),
        }
    }

    /// An episode begins with `packets_out` packets outstanding after a
    /// loss found by `dupthresh` duplicate ACKs or SACKs.
    pub fn enter(&mut self, packets_out: u32, dupthresh: u32) {
        match self {
            Recovery::Prr(prr) => prr.enter(packets_out),
            Recovery::Rfc6675 => {}
            Recovery::Ns2Sack1(pipe) => pipe.enter(packets_out, dupthresh),
            Recovery::RateHalving(rh) => rh.enter(),
        }
    }

    /// A packet left while in Recovery, retransmission or new data, sent
    /// by any path (the window, RFC 6675's first retransmission, a NewReno
    /// partial ACK): PRR's `prr_out`.
    pub fn on_sent(&mut self) {
        if let Recovery::Prr(prr) = self {
            prr.on_sent();
        }
    }

    /// A packet left through the window's send loop while in Recovery:
    /// ns-2 Sack1's `send_much` counts it in `pipe_` (its fast retransmit
    /// at entry goes out through `output` directly and is not counted).
    pub fn on_sent_by_window(&mut self) {
        if let Recovery::Ns2Sack1(pipe) = self {
            pipe.on_sent();
        }
    }

    /// The packets in flight the send rule compares with cwnd in Recovery,
    /// when this rule keeps its own count (ns-2 Sack1); `None`: the
    /// scoreboard's estimate.
    pub fn counted_pipe(&self) -> Option<u32> {
        match self {
            Recovery::Ns2Sack1(pipe) => Some(pipe.get()),
            _ => None,
        }
    }

    /// cwnd set on entry before the first ACK's rule applies: ssthresh for
    /// RFC 6675 (step 4.2, `cwnd = ssthresh`) and ns-2 Sack1; unchanged for
    /// PRR and rate halving, which reduce it gradually.
    pub fn entry_cwnd(&self, cwnd: f64, ssthresh: f64) -> f64 {
        match self {
            Recovery::Rfc6675 | Recovery::Ns2Sack1(_) => ssthresh,
            Recovery::Prr(_) | Recovery::RateHalving(_) => cwnd,
        }
    }

    /// An ACK in Recovery that does not end it; `cum_advanced`: it moved
    /// the cumulative point (a partial ACK). Returns the new cwnd;
    /// `min_cwnd` is the algorithm's floor for rate halving, asked only
    /// when needed.
    pub fn on_ack(
        &mut self,
        ack: RecoveryAck,
        cum_advanced: bool,
        min_cwnd: impl FnOnce() -> f64,
    ) -> f64 {
        if let Recovery::Ns2Sack1(pipe) = self {
            pipe.on_ack(cum_advanced);
        }
        self.cwnd(ack, min_cwnd)
    }

    /// The cwnd rule for an ACK in Recovery (also applied to the ACK that
    /// starts the episode, after [`Recovery::entry_cwnd`]).
    pub fn cwnd(&mut self, ack: RecoveryAck, min_cwnd: impl FnOnce() -> f64) -> f64 {
        match self {
            Recovery::Prr(prr) => prr.cwnd(ack.newly, ack.in_flight, ack.ssthresh),
            Recovery::Rfc6675 | Recovery::Ns2Sack1(_) => ack.cwnd,
            Recovery::RateHalving(rh) => rh.cwnd(ack.newly, ack.cwnd, ack.in_flight, min_cwnd),
        }
    }

    /// cwnd when the ACK of the recovery point ends the episode.
    pub fn exit_cwnd(&self, cwnd: f64, ssthresh: f64) -> f64 {
        match self {
            Recovery::RateHalving(_) => RateHalving::exit_cwnd(cwnd, ssthresh),
            Recovery::Prr(_) | Recovery::Rfc6675 | Recovery::Ns2Sack1(_) => ssthresh,
        }
    }
}

/// ns-2 Agent/TCP/Sack1's `pipe_` (ns-2.35 `tcp/tcp-sack1.cc`): its count of
/// packets in the network during fast recovery, kept by counting events
/// rather than read from the scoreboard, so an ACK lost on the way leaves
/// it too high and delays sending.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ns2Pipe {
    /// May go negative when more ACKs arrive than were counted out.
    pipe: i64,
}

impl Ns2Pipe {
    /// `dupack_action`: `pipe_ = maxseq_ - highest_ack_ - numdupacks`, the
    /// packets outstanding less the `dupthresh` that have left the network.
    pub fn enter(&mut self, packets_out: u32, dupthresh: u32) {
        self.pipe = i64::from(packets_out) - i64::from(dupthresh);
    }

    /// `send_much`: `pipe_++` per packet sent.
    pub fn on_sent(&mut self) {
        self.pipe += 1;
    }

    /// `recv` in fast recovery: `--pipe_` per ACK, and once more for a
    /// partial ACK (the "never worse than slow start" decrement).
    pub fn on_ack(&mut self, partial: bool) {
        self.pipe -= if partial { 2 } else { 1 };
    }

    /// The count, 0 when negative.
    pub fn get(&self) -> u32 {
        self.pipe.max(0) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(newly: u32, cwnd: f64, in_flight: u32) -> RecoveryAck {
        RecoveryAck {
            newly,
            cwnd,
            ssthresh: 10.0,
            in_flight,
        }
    }

    #[test]
    fn rfc6675_holds_cwnd_at_ssthresh_for_the_whole_episode() {
        // RFC 6675 section 5, step (4.2): cwnd = ssthresh at entry; the
        // algorithm does not change it until recovery ends at ssthresh.
        let mut r = Recovery::new(RecoveryMode::Rfc6675);
        r.enter(22, 3);
        assert_eq!(r.entry_cwnd(20.0, 10.0), 10.0);
        assert_eq!(r.on_ack(ack(1, 10.0, 18), false, || unreachable!()), 10.0);
        assert_eq!(r.on_ack(ack(3, 10.0, 4), true, || unreachable!()), 10.0);
        assert_eq!(r.counted_pipe(), None);
        assert_eq!(r.exit_cwnd(10.0, 10.0), 10.0);
    }

    #[test]
    fn ns2_sack1_counts_its_pipe_from_events() {
        // ns-2 tcp-sack1.cc: 22 outstanding at entry, 3 duplicate ACKs:
        // pipe_ = 19; --pipe_ per ACK (18), twice for a partial ACK (16),
        // ++pipe_ per packet send_much sends (17). PRR's counter is not
        // touched, the window stays at ssthresh.
        let mut r = Recovery::new(RecoveryMode::Ns2Sack1);
        r.enter(22, 3);
        assert_eq!(r.counted_pipe(), Some(19));
        assert_eq!(r.entry_cwnd(20.0, 10.0), 10.0);
        assert_eq!(r.on_ack(ack(1, 10.0, 17), false, || unreachable!()), 10.0);
        assert_eq!(r.counted_pipe(), Some(18));
        r.on_ack(ack(2, 10.0, 15), true, || unreachable!());
        assert_eq!(r.counted_pipe(), Some(16));
        r.on_sent();
        assert_eq!(r.counted_pipe(), Some(16));
        r.on_sent_by_window();
        assert_eq!(r.counted_pipe(), Some(17));
        assert_eq!(r.exit_cwnd(10.0, 10.0), 10.0);
    }

    #[test]
    fn ns2_sack1_pipe_below_zero_reads_as_zero() {
        // Fewer outstanding than dupthresh: 2 - 3 = -1 counts as 0, and one
        // packet sent brings it to 0, not 1.
        let mut pipe = Ns2Pipe::default();
        pipe.enter(2, 3);
        assert_eq!(pipe.get(), 0);
        pipe.on_sent();
        assert_eq!(pipe.get(), 0);
        pipe.on_sent();
        assert_eq!(pipe.get(), 1);
    }

    #[test]
    fn prr_counts_every_packet_sent_and_reduces_proportionally() {
        // RFC 6937 section 3 through the enum: RecoverFS 22, ssthresh 10,
        // first ACK delivers 1 with pipe 18: ceil(10 / 22) - 0 = 1, cwnd 19.
        // After one packet sent (prr_out 1) the next ACK (prr_delivered 2,
        // pipe 18) allows ceil(20 / 22) - 1 = 0: cwnd 18.
        let mut r = Recovery::new(RecoveryMode::Prr);
        r.enter(22, 3);
        assert_eq!(r.entry_cwnd(20.0, 10.0), 20.0);
        assert_eq!(r.cwnd(ack(1, 20.0, 18), || unreachable!()), 19.0);
        r.on_sent();
        r.on_sent_by_window();
        assert_eq!(r.on_ack(ack(1, 19.0, 18), false, || unreachable!()), 18.0);
        assert_eq!(r.counted_pipe(), None);
        assert_eq!(r.exit_cwnd(18.0, 10.0), 10.0);
    }

    #[test]
    fn rate_halving_through_the_enum_ends_at_min_of_cwnd_and_ssthresh() {
        // Linux 2.6 tcp_cwnd_down from cwnd 20, plenty in flight, min_cwnd
        // 5: the entry ACK counts without a decrement (20, bounded by
        // in_flight 18 + 1 = 19), the next takes one off (18), and
        // tcp_complete_cwr ends at min(cwnd, ssthresh).
        let mut r = Recovery::new(RecoveryMode::RateHalving);
        r.enter(22, 3);
        assert_eq!(r.entry_cwnd(20.0, 10.0), 20.0);
        assert_eq!(r.cwnd(ack(1, 20.0, 18), || 5.0), 19.0);
        assert_eq!(r.on_ack(ack(1, 19.0, 30), false, || 5.0), 18.0);
        assert_eq!(r.exit_cwnd(18.0, 10.0), 10.0);
        assert_eq!(r.exit_cwnd(8.0, 10.0), 8.0);
    }

    #[test]
    fn entering_again_starts_a_fresh_episode() {
        // A second episode forgets the first one's counters.
        let mut r = Recovery::new(RecoveryMode::Prr);
        r.enter(22, 3);
        r.cwnd(ack(5, 20.0, 18), || unreachable!());
        r.on_sent();
        r.enter(22, 3);
        assert_eq!(r, {
            let mut fresh = Recovery::new(RecoveryMode::Prr);
            fresh.enter(22, 3);
            fresh
        });
    }
}
