//! Spurious-loss detection for undo (option `undo = true`), as Linux
//! keeps it (`tcp_init_undo`, `tcp_may_undo`, `tcp_packet_delayed`,
//! `tcp_check_dsack`): an episode of window reduction (fast recovery or a
//! timeout) may be undone when the ACKs show the network did not lose what
//! was retransmitted, either
//!
//! - by timestamps (Eifel, RFC 3522): an ACK echoes a timestamp older than
//!   the episode's first retransmission, so an original transmission got
//!   through; or
//! - by D-SACK (RFC 2883, 3708): every retransmission of the episode was
//!   reported back as a duplicate.
//!
//! This type only keeps the evidence; the sender decides when to look
//! (recovery end, every ACK in Loss, D-SACKs in Open and Disorder) and
//! restores the window.

/// The evidence about the current reduction episode.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UndoState {
    /// `snd_una` when the episode began; `None`: nothing to undo.
    marker: Option<u64>,
    /// Retransmissions of the episode (packets).
    retrans: u32,
    /// Of those, reported back as duplicates by D-SACK.
    dsacked: u32,
    /// Timestamp (ms ticks) of the episode's first retransmission.
    retrans_stamp: Option<u32>,
    /// cwnd before the reduction, packets.
    pub prior_cwnd: f64,
    /// ssthresh before the reduction (Linux `tcp_current_ssthresh`), packets.
    pub prior_ssthresh: f64,
}

impl UndoState {
    /// A reduction begins with `una` the oldest unacknowledged packet.
    pub fn begin(&mut self, una: u64, prior_cwnd: f64, prior_ssthresh: f64) {
        *self = UndoState {
            marker: Some(una),
            retrans: 0,
            dsacked: 0,
            retrans_stamp: None,
            prior_cwnd,
            prior_ssthresh,
        };
    }

    /// True while an episode can still be undone.
    fn is_open(&self) -> bool {
        self.marker.is_some()
    }

    /// The episode is undone or given up.
    pub fn close(&mut self) {
        self.marker = None;
        self.retrans_stamp = None;
    }

    /// A packet was retransmitted at timestamp `ts`.
    pub fn on_retransmit(&mut self, ts: u32) {
        if self.marker.is_some() {
            self.retrans += 1;
            self.retrans_stamp.get_or_insert(ts);
        }
    }

    /// A D-SACK reported packet `seq` received twice. It counts when `seq`
    /// belongs to the episode and `was_retransmitted`, which the caller
    /// judges as Linux does: always for a packet already acknowledged (its
    /// record is gone; Linux's "dumb counting"), by the packet's flags for
    /// one still outstanding. At most one per retransmission counts.
    pub fn on_dsack(&mut self, seq: u64, was_retransmitted: bool) {
        if self.marker.is_some_and(|m| seq >= m) && was_retransmitted && self.dsacked < self.retrans
        {
            self.dsacked += 1;
        }
    }

    /// Linux `tcp_packet_delayed`: the ACK echoes `tsecr`, older than the
    /// first retransmission, so it was sent for an original transmission.
    pub fn delayed(&self, tsecr: u32) -> bool {
        self.retrans_stamp.is_some_and(|r| tsecr < r)
    }

    /// True when an episode is open and every one of its retransmissions
    /// came back as a D-SACK.
    pub fn all_dsacked(&self) -> bool {
        self.is_open() && self.retrans > 0 && self.dsacked == self.retrans
    }

    /// Linux `tcp_may_undo`: an open episode whose retransmissions were all
    /// unnecessary, by D-SACK or by the timestamp `tsecr` of this ACK.
    pub fn may_undo(&self, tsecr: u32) -> bool {
        self.all_dsacked() || (self.is_open() && self.delayed(tsecr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_older_than_the_first_retransmission_shows_a_delay() {
        // Eifel (RFC 3522 section 3.2): retransmissions at 500 and 900 ms;
        // echoes of 499 ms or less come from originals, 500 and later may
        // come from the retransmission.
        let mut u = UndoState::default();
        assert!(!u.may_undo(0), "no episode");
        u.begin(10, 40.0, 1e9);
        assert!(!u.may_undo(0), "nothing retransmitted yet");
        u.on_retransmit(500);
        u.on_retransmit(900);
        assert!(u.may_undo(499));
        assert!(!u.may_undo(500));
        u.close();
        assert!(!u.may_undo(499));
    }

    #[test]
    fn dsacks_for_every_retransmission_allow_the_undo() {
        // RFC 3708: two retransmissions of the episode (from 10), D-SACKs
        // for both; one below the marker or for a packet never
        // retransmitted does not count, nor does one more than were sent.
        let mut u = UndoState::default();
        u.begin(10, 40.0, 1e9);
        u.on_retransmit(500);
        u.on_retransmit(510);
        u.on_dsack(9, true);
        u.on_dsack(12, false);
        u.on_dsack(10, true);
        assert!(!u.all_dsacked());
        u.on_dsack(11, true);
        assert!(u.all_dsacked() && u.may_undo(600));
        u.on_dsack(11, true);
        assert_eq!(u.dsacked, 2);
    }
}
