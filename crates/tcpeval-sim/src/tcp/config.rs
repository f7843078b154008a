//! Per-flow TCP options, with defaults from spec/algorithms.md section 1.

use crate::time::Time;
use serde::{Deserialize, Serialize};

/// How `acked` is counted for congestion avoidance (spec 1.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountMode {
    /// Packets newly delivered (modern Linux).
    #[default]
    PerPacket,
    /// One per ACK, whatever it covers (Linux 2.6 - 3.x without ABC).
    PerAck,
}

/// cwnd during SACK-based fast recovery (spec 1.8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecoveryMode {
    /// Proportional Rate Reduction, RFC 6937 with the slow-start bound (Linux >= 3.2).
    #[default]
    Prr,
    /// RFC 6675: cwnd = ssthresh at entry, send while pipe < cwnd.
    Rfc6675,
    /// Linux 2.6.x - 3.1 rate halving (`tcp_cwnd_down`): on every second
    /// ACK that delivers data, cwnd -= 1 while above ssthresh / 2, and never
    /// above in_flight + 1; on exit cwnd = min(cwnd, ssthresh).
    RateHalving,
    /// ns-2 Agent/TCP/Sack1 (tcp-sack1.cc): cwnd = ssthresh at entry and
    /// send while `pipe < cwnd`, where `pipe` is a counter, not the
    /// scoreboard's estimate: packets out minus `dupthresh` at entry, one
    /// less per ACK (two per partial ACK), one more per packet sent. An ACK
    /// lost on the way leaves it too high.
    Ns2Sack1,
}

/// Which outstanding packets SACK information marks lost (spec 1.8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossMarking {
    /// RFC 6675 `IsLost`: at least `dupthresh` SACKed packets above it.
    #[default]
    Rfc6675,
    /// FACK (Linux 2.6 - 4.14 default): more than `dupthresh` packets,
    /// SACKed or not, from it up to the highest SACKed one.
    Fack,
}

/// How the retransmission timeout is floored (spec 1.9).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RtoMode {
    /// Linux: RTO = SRTT + max(4 RTTVAR, rto_min).
    #[default]
    Linux,
    /// RFC 6298: RTO = max(SRTT + 4 RTTVAR, rto_min).
    Rfc6298,
    /// ns-2 `TcpAgent` (rfc2988_ true): one timed segment per RTT, samples
    /// in whole clock ticks (`rto_tick`, tcpTick_), SRTT and RTTVAR in
    /// ns-2's scaled integers, RTO = max(SRTT + 4 RTTVAR, rto_min) x backoff,
    /// at least two ticks (tcp.cc rtt_update, rtt_timeout, rtt_backoff).
    Ns2,
    /// TCP-Linux in ns-2 (tcp-linux.cc `LinuxTcpAgent::rtt_update`): `ns2`
    /// with Linux's RTTVAR rule, where a sample below SRTT lowers RTTVAR
    /// with an eighth of the weight, and no RTTVAR floor.
    Ns2Linux,
}

/// How Limited Slow-Start (RFC 3742) acts, when `max_ssthresh` is set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LssMode {
    /// RFC 3742: only in slow start, above `max_ssthresh`, each packet
    /// acked adds `1/K` with `K = floor(cwnd / (max_ssthresh / 2))`.
    #[default]
    Rfc3742,
    /// ns-2 (`TcpAgent::limited_slow_start`, as described by the fairness
    /// study, Molnar et al. 2009 section 5.1): RFC 3742 in slow start, and in
    /// congestion avoidance, until the first loss (and again after a
    /// timeout), every ACK raises cwnd by the larger of the algorithm's own
    /// increment and the LSS increment `1/K`.
    Ns2,
}

impl RtoMode {
    /// ns-2's clock and timed segment (`Ns2`, `Ns2Linux`).
    pub fn is_ns2(self) -> bool {
        matches!(self, RtoMode::Ns2 | RtoMode::Ns2Linux)
    }
}

/// TCP options of one flow, resolved to engine units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpConfig {
    /// Wire size of a full data packet, bytes (headers included).
    pub packet_size: u32,
    /// Wire size of an ACK, bytes.
    pub ack_size: u32,
    /// SACK on: RFC 6675 scoreboard; off: NewReno (RFC 6582).
    pub sack: bool,
    /// Recovery cwnd rule when SACK is on.
    pub recovery: RecoveryMode,
    /// SACK loss-marking rule.
    pub loss_marking: LossMarking,
    /// Undo a window reduction shown spurious by timestamps (Eifel) or
    /// D-SACK (spec 1.8; Linux default, off by default here).
    pub undo: bool,
    /// Duplicate-ACK threshold / SACK loss threshold (packets).
    pub dupthresh: u32,
    /// Initial congestion window (packets).
    pub initial_cwnd: f64,
    /// Initial slow-start threshold (packets); infinity = unlimited.
    pub initial_ssthresh: f64,
    /// RFC 3742 max_ssthresh (packets); 0 = Limited Slow-Start off.
    pub max_ssthresh: u32,
    /// Where Limited Slow-Start acts (RFC 3742 or ns-2).
    pub lss: LssMode,
    /// Mark a retransmission lost when SACKs show that packets sent after it
    /// arrived (Linux `tcp_mark_lost_retrans`); off, a lost retransmission
    /// is recovered only by the RTO (ns-2 Sack1, RFC 6675).
    pub lost_retransmit: bool,
    /// Receiver window (packets); `u64::MAX` = never limits.
    pub rwnd: u64,
    /// Counting mode for cwnd growth.
    pub count_mode: CountMode,
    /// Delayed ACK on.
    pub delayed_ack: bool,
    /// ACK at least every this many in-order segments when delaying.
    pub delack_count: u32,
    /// Delayed-ACK timer.
    pub delack_timeout: Time,
    /// Segments ACKed one by one at connection start (Linux quick-ack).
    pub quickack_segments: u32,
    /// RTO floor rule.
    pub rto_mode: RtoMode,
    /// RTO floor.
    pub rto_min: Time,
    /// RTO before the first RTT sample.
    pub rto_initial: Time,
    /// RTO ceiling after backoff.
    pub rto_max: Time,
    /// Clock tick of the `ns2` RTO estimator (ns-2 tcpTick_).
    pub rto_tick: Time,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            packet_size: 1500,
            ack_size: 40,
            sack: true,
            recovery: RecoveryMode::Prr,
            loss_marking: LossMarking::Rfc6675,
            undo: false,
            dupthresh: 3,
            initial_cwnd: 10.0,
            initial_ssthresh: f64::INFINITY,
            max_ssthresh: 0,
            lss: LssMode::Rfc3742,
            lost_retransmit: true,
            rwnd: u64::MAX,
            count_mode: CountMode::PerPacket,
            delayed_ack: true,
            delack_count: 2,
            delack_timeout: Time::from_ms(40),
            quickack_segments: 16,
            rto_mode: RtoMode::Linux,
            rto_min: Time::from_ms(200),
            rto_initial: Time::from_secs(1),
            rto_max: Time::from_secs(120),
            rto_tick: Time::from_ms(10),
        }
    }
}

impl TcpConfig {
    /// Payload bytes of a full data packet (40 bytes of TCP/IP headers).
    pub fn mss(&self) -> u32 {
        self.packet_size.saturating_sub(40).max(1)
    }
}
