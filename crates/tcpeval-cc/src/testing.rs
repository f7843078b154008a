//! A test harness that drives one algorithm without a network.
//!
//! [`Harness`] plays a simplified sender on a virtual clock: each
//! [`Harness::round`] sends `floor(cwnd)` packets and returns their ACKs
//! spread evenly over one RTT, with an RTT sample on every ACK. The path is
//! either a fixed RTT or a fluid single bottleneck (queueing delay =
//! backlog / rate, a loss when the backlog exceeds the buffer), optionally
//! with Bernoulli random loss. Losses are handled as the generic sender
//! does with PRR: `set_state(Recovery)`, `ssthresh()`, one RTT without growth,
//! then `cwnd = ssthresh`, `cwnd_event(CompleteCwr)`, `set_state(Open)`.
//! RTOs follow Linux `tcp_enter_loss`: `ssthresh()`, cwnd = 1, `set_state(Loss)`,
//! `cwnd_event(Loss)`.
//!
//! The hooks are called in the same order as by the simulator's sender, so a
//! value asserted here is the value the algorithm produces in a real run
//! with the same ACK sequence.

use crate::{AckInfo, AckSample, CaState, CongestionControl, CwndEvent, Tcb, Time};

/// The path the harness's packets see.
#[derive(Clone, Copy, Debug)]
enum Path {
    /// Every packet sees the same RTT.
    Fixed(Time),
    /// One bottleneck of `rate_pps` packets/s behind `base_rtt` of
    /// propagation: packets beyond the bandwidth-delay product queue, and a
    /// window above `bdp + buffer` loses a packet.
    Bottleneck {
        base_rtt: Time,
        rate_pps: f64,
        buffer: f64,
    },
}

/// Deterministic SplitMix64 generator for the harness's random losses.
#[derive(Clone, Debug)]
struct SplitMix(u64);

impl SplitMix {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Drives one algorithm with synthetic ACKs, RTT samples and losses.
pub struct Harness<C: CongestionControl> {
    /// The algorithm under test.
    pub cc: C,
    /// The control block the algorithm sees.
    pub tcb: Tcb,
    /// Loss events (fast recoveries) so far.
    pub losses: u64,
    path: Path,
    pkts_per_ack: u32,
    per_ack_counting: bool,
    random_loss: Option<(f64, SplitMix)>,
    /// Deterministic loss of every n-th packet sent, and packets sent so far.
    periodic_loss: Option<(u64, u64)>,
    high_seq: u64,
    next_timer: Option<Time>,
}

impl<C: CongestionControl> Harness<C> {
    /// A harness with the given initial cwnd and ssthresh (packets), a fixed
    /// 100 ms RTT, an ACK per packet and per-packet counting. Calls `init`.
    pub fn new(mut cc: C, cwnd: f64, ssthresh: f64) -> Self {
        let mut tcb = Tcb::new(cwnd, ssthresh, 1448);
        cc.init(&mut tcb);
        let next_timer = cc.timer_period();
        Harness {
            cc,
            tcb,
            losses: 0,
            path: Path::Fixed(Time::from_ms(100)),
            pkts_per_ack: 1,
            per_ack_counting: false,
            random_loss: None,
            periodic_loss: None,
            high_seq: 0,
            next_timer,
        }
    }

    /// Every packet sees RTT `rtt`.
    pub fn with_rtt(mut self, rtt: Time) -> Self {
        self.path = Path::Fixed(rtt);
        self
    }

    /// A fluid bottleneck: `rate_pps` packets/s, propagation RTT `base_rtt`,
    /// a DropTail buffer of `buffer` packets (use `f64::INFINITY` for none).
    pub fn with_bottleneck(mut self, base_rtt: Time, rate_pps: f64, buffer: f64) -> Self {
        self.path = Path::Bottleneck {
            base_rtt,
            rate_pps,
            buffer,
        };
        self
    }

    /// The receiver ACKs every `n` packets (delayed ACK).
    pub fn with_delayed_ack(mut self, n: u32) -> Self {
        self.pkts_per_ack = n.max(1);
        self
    }

    /// `cong_avoid` sees `acked = 1` per ACK (2.6-era kernels with `tcp_abc` =
    /// 0).
    pub fn with_per_ack_counting(mut self) -> Self {
        self.per_ack_counting = true;
        self
    }

    /// Limited Slow-Start with the given `max_ssthresh` (packets).
    pub fn with_lss(mut self, max_ssthresh: u32) -> Self {
        self.tcb.max_ssthresh = max_ssthresh;
        self
    }

    /// Each packet is lost independently with probability `p` (seeded).
    pub fn with_random_loss(mut self, p: f64, seed: u64) -> Self {
        self.random_loss = Some((p, SplitMix(seed)));
        self
    }

    /// Every `n`-th packet sent is lost (deterministic loss rate `1/n`, for
    /// response-function facts that need no averaging over randomness).
    pub fn with_periodic_loss(mut self, n: u64) -> Self {
        self.periodic_loss = Some((n.max(1), 0));
        self
    }

    /// Current virtual time.
    pub fn now(&self) -> Time {
        self.tcb.now
    }

    /// Bandwidth-delay product of the bottleneck path in packets (0 for a fixed RTT).
    pub fn bdp(&self) -> f64 {
        match self.path {
            Path::Fixed(_) => 0.0,
            Path::Bottleneck {
                base_rtt, rate_pps, ..
            } => base_rtt.secs() * rate_pps,
        }
    }

    /// The RTT a window of `inflight` packets sees on the path.
    pub fn rtt_for(&self, inflight: f64) -> Time {
        match self.path {
            Path::Fixed(rtt) => rtt,
            Path::Bottleneck {
                base_rtt, rate_pps, ..
            } => {
                let backlog = (inflight - base_rtt.secs() * rate_pps).max(0.0);
                base_rtt + Time::from_secs_f64(backlog / rate_pps)
            }
        }
    }

    /// Moves the clock to `t`, firing the algorithm's own timer on the way.
    pub fn advance_to(&mut self, t: Time) {
        while let (Some(due), Some(period)) = (self.next_timer, self.cc.timer_period()) {
            if due > t {
                break;
            }
            self.tcb.now = due;
            self.cc.on_timer(&mut self.tcb);
            self.next_timer = Some(due + period);
        }
        self.tcb.now = self.tcb.now.max(t);
    }

    /// A duplicate ACK now (no SACK: nothing newly delivered), which only
    /// `in_ack_event` sees.
    pub fn dupack(&mut self) {
        self.cc.in_ack_event(&self.tcb);
    }

    /// One ACK now, delivering `acked` packets, with RTT sample `rtt`.
    pub fn ack(&mut self, acked: u32, rtt: Option<Time>) {
        let t = &mut self.tcb;
        t.snd_una += u64::from(acked);
        t.snd_nxt = t.snd_nxt.max(t.snd_una);
        t.delivered += u64::from(acked);
        t.packets_in_flight = t.packets_in_flight.saturating_sub(acked);
        if let Some(r) = rtt {
            t.min_rtt = Some(t.min_rtt.map_or(r, |m| m.min(r)));
            t.srtt = Some(match t.srtt {
                None => r,
                Some(s) => Time::from_ps((s.ps() * 7 + r.ps()) / 8),
            });
        }
        self.cc.in_ack_event(&self.tcb);
        self.cc.pkts_acked(&self.tcb, &AckSample { acked, rtt });
        if self.tcb.ca_state == CaState::Loss && self.tcb.snd_una >= self.high_seq {
            self.set_state(CaState::Open);
        }
        if matches!(
            self.tcb.ca_state,
            CaState::Open | CaState::Disorder | CaState::Loss
        ) {
            let counted = if self.per_ack_counting { 1 } else { acked };
            let info = AckInfo {
                acked: counted,
                ack_seq: self.tcb.snd_una,
            };
            self.cc.cong_avoid(&mut self.tcb, &info);
        }
    }

    /// One round trip: `floor(cwnd)` packets sent now, their ACKs spread
    /// evenly over the RTT that window sees. A packet lost at random, or a
    /// window above the bottleneck's `bdp + buffer`, ends the round with a
    /// fast recovery after the ACKs of the packets before it.
    pub fn round(&mut self) {
        let w = self.tcb.cwnd.floor().max(1.0) as u32;
        let rtt = self.rtt_for(f64::from(w));
        let start = self.tcb.now;
        self.tcb.snd_nxt = self.tcb.snd_una + u64::from(w);
        self.tcb.last_send = start;
        self.tcb.packets_in_flight = w;
        let overflow_at = match self.path {
            Path::Bottleneck { buffer, .. } => {
                let cap = (self.bdp() + buffer).floor();
                (f64::from(w) > cap).then_some(cap.max(0.0) as u32)
            }
            Path::Fixed(_) => None,
        };
        let mut lost_at = overflow_at;
        if let Some((n, sent)) = self.periodic_loss.as_mut() {
            // Packet number sent + i + 1 of the flow is lost if divisible by n.
            let first = (*n - *sent % *n) - 1;
            if first < u64::from(w) {
                let first = first as u32;
                lost_at = Some(lost_at.map_or(first, |l| l.min(first)));
            }
        }
        if let Some((p, rng)) = self.random_loss.as_mut() {
            for i in 0..w {
                if lost_at.is_some_and(|l| l <= i) {
                    break;
                }
                if rng.next_f64() < *p {
                    lost_at = Some(i);
                    break;
                }
            }
        }
        if let Some((_, sent)) = self.periodic_loss.as_mut() {
            // Packets up to and including a lost one count as sent.
            *sent += u64::from(lost_at.map_or(w, |l| l + 1));
        }
        let n_acks = w.div_ceil(self.pkts_per_ack);
        let mut sent_acked = 0;
        for i in 0..n_acks {
            let acked = self.pkts_per_ack.min(w - sent_acked);
            if lost_at.is_some_and(|l| sent_acked + acked > l) {
                break;
            }
            let at = start + Time::from_ps(rtt.ps() / u64::from(n_acks) * u64::from(i + 1));
            self.advance_to(at);
            self.ack(acked, Some(rtt));
            sent_acked += acked;
        }
        if lost_at.is_some() {
            self.advance_to(start + rtt);
            self.fast_loss();
        } else {
            self.advance_to(start + rtt);
        }
    }

    /// `n` rounds.
    pub fn rounds(&mut self, n: u32) {
        for _ in 0..n {
            self.round();
        }
    }

    /// Rounds until the clock has advanced by at least `d`.
    pub fn run_for(&mut self, d: Time) {
        let end = self.tcb.now + d;
        while self.tcb.now < end {
            self.round();
        }
    }

    fn set_state(&mut self, s: CaState) {
        self.cc.set_state(&mut self.tcb, s);
        self.tcb.ca_state = s;
    }

    /// A loss found by duplicate ACKs: Recovery for one RTT (no growth), then
    /// cwnd = ssthresh, `CompleteCwr`, back to Open (Linux PRR exit).
    pub fn fast_loss(&mut self) {
        self.losses += 1;
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb);
        self.tcb.cwnd_cnt = 0;
        self.set_state(CaState::Recovery);
        let rtt = self.rtt_for(self.tcb.cwnd);
        let end = self.tcb.now + rtt;
        self.advance_to(end);
        self.tcb.snd_una = self.tcb.snd_nxt;
        self.tcb.packets_in_flight = 0;
        self.tcb.cwnd = self.tcb.ssthresh;
        self.cc.cwnd_event(&mut self.tcb, CwndEvent::CompleteCwr);
        self.set_state(CaState::Open);
    }

    /// A retransmission timeout (Linux `tcp_enter_loss`): ssthresh from the
    /// algorithm, cwnd = 1, state Loss until the next ACK.
    pub fn rto(&mut self) {
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb);
        self.tcb.cwnd = 1.0;
        self.tcb.cwnd_cnt = 0;
        self.tcb.snd_nxt = self.tcb.snd_una;
        self.tcb.packets_in_flight = 0;
        self.high_seq = self.tcb.snd_una + 1;
        self.set_state(CaState::Loss);
        self.cc.cwnd_event(&mut self.tcb, CwndEvent::Loss);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reno::{Reno, RenoParams};
    use crate::NamedAlgorithm;

    #[test]
    fn bottleneck_overflow_triggers_a_loss_at_bdp_plus_buffer() {
        // 1000 pkt/s x 100 ms = 100 pkt BDP, buffer 50: a window of 151 loses.
        let mut h = Harness::new(Reno::new(RenoParams::default()), 140.0, 100.0).with_bottleneck(
            Time::from_ms(100),
            1000.0,
            50.0,
        );
        assert_eq!(h.rtt_for(150.0), Time::from_ms(150));
        h.rounds(10);
        assert_eq!(h.losses, 0);
        assert_eq!(h.tcb.cwnd, 150.0);
        h.round();
        assert_eq!(h.tcb.cwnd, 151.0);
        h.round();
        assert_eq!(h.losses, 1);
        assert_eq!(h.tcb.cwnd, 75.0);
    }

    #[test]
    fn periodic_loss_drops_every_nth_packet() {
        // Reno from 10 in CA, every 25th packet lost: rounds of 10 and 11
        // packets, then the round of packets 22..33 loses packet 25 after 3 ACKs.
        let mut h =
            Harness::new(Reno::new(RenoParams::default()), 10.0, 5.0).with_periodic_loss(25);
        h.rounds(2);
        assert_eq!(h.losses, 0);
        let delivered = h.tcb.delivered;
        h.round();
        assert_eq!((h.losses, h.tcb.delivered - delivered), (1, 3));
        // Counting resumes after the lost packet: from cwnd 6, rounds of 6, 7
        // and 8 packets, and packet 50 is the 4th of the round of 9.
        assert_eq!(h.tcb.cwnd, 6.0);
        let mut rounds = 0;
        while h.losses == 1 {
            h.round();
            rounds += 1;
        }
        assert_eq!(rounds, 4);
    }

    #[test]
    fn random_loss_is_reproducible() {
        let run = |seed| {
            let mut h = Harness::new(Reno::new(RenoParams::default()), 10.0, 1e9)
                .with_random_loss(1e-3, seed);
            h.rounds(300);
            (h.losses, h.tcb.cwnd)
        };
        assert_eq!(run(7), run(7));
        assert!(run(7).0 > 0);
    }
}
