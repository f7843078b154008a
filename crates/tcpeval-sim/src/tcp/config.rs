//! Per-flow TCP options: each declared once in the [`tcp_options!`] table
//! below (see `tcp::declare`), which makes the scenario's [`TcpOptions`],
//! the resolved [`TcpConfig`] with its defaults, the range checks and the
//! [`OPTIONS`] listing; and the option values' enums.

use super::declare::tcp_options;
use crate::scenario::{check, ScenarioError};
use crate::time::Time;
use serde::{Deserialize, Serialize};

/// How `acked` is counted for congestion avoidance: Linux passes the packets
/// an ACK newly delivers (`tcp_cong_avoid_ai` in `net/ipv4/tcp_cong.c`);
/// 2.6-era kernels counted one per ACK (2.6.13 had no RFC 3465 byte
/// counting; the `tcp_abc` sysctl of 2.6.15 - 2.6.17 defaulted to 1 but
/// only Reno's avoidance and slow start read it, see [`CountMode::Abc`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CountMode {
    /// Packets newly delivered (modern Linux).
    #[default]
    PerPacket,
    /// One per ACK, whatever it covers (Linux 2.6 - 3.x without ABC).
    PerAck,
    /// RFC 3465 byte counting with L = 1: one per ACK in slow start,
    /// packets newly delivered in avoidance. Linux 2.6.15 - 2.6.17's default
    /// `tcp_abc = 1`, which only Reno's avoidance (`tcp_reno_cong_avoid`,
    /// also used by Westwood+) and `tcp_slow_start` consulted; the other
    /// modules kept their own per-ACK counters.
    Abc,
}

/// cwnd during SACK-based fast recovery (the rules are in `tcp::recovery`).
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

/// Which outstanding packets SACK information marks lost (Linux 2.6
/// `tcp_update_scoreboard` / `tcp_mark_head_lost` in `net/ipv4/tcp_input.c`
/// for FACK; RFC 6675 section 4 `IsLost`).
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

/// How the retransmission timeout is computed and floored (RFC 6298
/// section 2; Linux `tcp_rtt_estimator`, `tcp_set_rto`; ns-2 `tcp.cc`).
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
    /// with an eighth of the weight, and no RTTVAR floor; and the timer
    /// restarted by every ACK not older than snd_una, duplicates included
    /// (`time_processing`: `renew_timer`).
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

tcp_options! {
    engine {
        /// Wire size of a full data packet, bytes (headers included).
        packet_size: u32 = 1500;
        /// Wire size of an ACK, bytes.
        ack_size: u32 = 40;
    }
    /// SACK on: the RFC 6675 scoreboard; off: NewReno (RFC 6582).
    sack: bool = true, unit "", range none, always,
        source "RFC 2018, RFC 6675; Linux net.ipv4.tcp_sack = 1", => [sack: bool as same];
    /// cwnd during SACK-based fast recovery: `prr`, `rfc6675`,
    /// `rate_halving` (Linux 2.6) or `ns2_sack1`.
    recovery: RecoveryMode = RecoveryMode::Prr, unit "", range none, always,
        source "RFC 6937 (Linux >= 3.2); RFC 6675; Linux 2.6 tcp_cwnd_down; ns-2 tcp-sack1.cc",
        => [recovery: RecoveryMode as same];
    /// Which outstanding packets SACK information marks lost: `rfc6675` or
    /// `fack` (Linux 2.6 - 4.14).
    loss_marking: LossMarking = LossMarking::Rfc6675, unit "", range none, if_set,
        source "RFC 6675 IsLost; Linux net.ipv4.tcp_fack", => [loss_marking: LossMarking as same];
    /// Undo a window reduction shown spurious by timestamps (Eifel) or D-SACK.
    undo: bool = false, unit "", range none, if_set,
        source "RFC 3522, RFC 2883; Linux tcp_try_undo_* (on in Linux, off here)",
        => [undo: bool as same];
    /// Duplicate-ACK threshold, and SACK loss threshold.
    dupthresh: u32 = 3, unit "packets", range (1.0, 100.0), always,
        source "RFC 5681 section 3.2; Linux tcp_reordering = 3", => [dupthresh: u32 as same];
    /// ns-2 Sack1's window-scaled threshold: while not in recovery, the
    /// duplicate-ACK (SACK loss) threshold is `max(dupthresh, floor(cwnd) /
    /// divisor)` (integer division); 0 keeps it at `dupthresh`.
    dupthresh_cwnd_divisor: u32 = 0, unit "", range (0.0, 1e6), if_set,
        source "ns-2 TcpAgent::numdupacks (tcp.cc), used by tcp-sack1.cc; numdupacksFrac_ was 100 until 2006-09-27 (ns-2.28), -1 (off) after",
        => [dupthresh_cwnd_divisor: u32 as same];
    /// Initial congestion window.
    initial_cwnd: f64 = 10.0, unit "packets", range (1.0, 1e6), always,
        source "RFC 6928; Linux TCP_INIT_CWND = 10 (since 3.0)", => [initial_cwnd: f64 as same];
    /// Initial slow-start threshold (infinity: unlimited).
    initial_ssthresh: f64 = f64::INFINITY, unit "packets", range (2.0, 1e9), always,
        source "RFC 5681 section 3.1 (arbitrarily high); Linux TCP_INFINITE_SSTHRESH",
        => [initial_ssthresh: f64 as same];
    /// RFC 3742 max_ssthresh; 0 turns Limited Slow-Start off.
    max_ssthresh: u32 = 0, unit "packets", range (0.0, 1e6), always,
        source "RFC 3742; ns-2 TcpAgent max_ssthresh_", => [max_ssthresh: u32 as same];
    /// Where Limited Slow-Start acts: `rfc3742` (slow start only) or `ns2`
    /// (also in congestion avoidance until the first loss).
    lss: LssMode = LssMode::Rfc3742, unit "", range none, if_set,
        source "RFC 3742; ns-2 TcpAgent::limited_slow_start (Molnar et al. 2009 section 5.1)",
        => [lss: LssMode as same];
    /// Mark a retransmission lost when SACKs show that packets sent after
    /// it arrived; off, a lost retransmission waits for the RTO.
    lost_retransmit: bool = true, unit "", range none, if_set,
        source "Linux tcp_mark_lost_retrans; off in ns-2 Sack1 and RFC 6675",
        => [lost_retransmit: bool as same];
    /// Explicit Congestion Notification: data packets carry ECT(0), the
    /// receiver echoes a CE mark with ECE until the sender's CWR, and the
    /// sender reduces its window at most once per window of data on ECE,
    /// retransmitting nothing. An algorithm that needs ECN (`dctcp`) turns
    /// it on whatever this says.
    ecn: bool = false, unit "", range none, if_set,
        source "RFC 3168 sections 5, 6.1; Linux net.ipv4.tcp_ecn = 1 (its default 2 requests ECN on no connection a host opens: off here)",
        => [ecn: bool as same];
    /// Receiver window (unlimited by default; give this or `rwnd_bytes`).
    rwnd_pkts: u64 = u64::MAX, unit "packets", range (1.0, 1e12), always,
        source "RFC 9293 SND.WND", => [rwnd: u64 as custom(TcpOptions::resolve_rwnd)];
    /// Receiver window, rounded down to whole segments (give this or `rwnd_pkts`).
    rwnd_bytes: u64 = u64::MAX, unit "bytes", range none, always,
        source "RFC 9293 SND.WND", => [none];
    /// How `acked` counts for window growth: `per_packet` (packets newly
    /// delivered) or `per_ack` (one per ACK; Linux 2.6 - 3.x without ABC).
    count_mode: CountMode = CountMode::PerPacket, unit "", range none, always,
        source "RFC 3465 (ABC); Linux tcp_cong_avoid acked", => [count_mode: CountMode as same];
    /// Delayed ACK on.
    delayed_ack: bool = true, unit "", range none, always,
        source "RFC 1122 section 4.2.3.2, RFC 5681 section 4.2", => [delayed_ack: bool as same];
    /// ACK at least every this many in-order segments when delaying.
    delack_count: u32 = 2, unit "segments", range (1.0, 64.0), always,
        source "RFC 5681 section 4.2", => [delack_count: u32 as same];
    /// Delayed-ACK timer.
    delack_timeout_ms: f64 = 40.0, unit "ms", range (1.0, 500.0), always,
        source "Linux TCP_DELACK_MIN = HZ/25", => [delack_timeout: Time as ms];
    /// Segments ACKed one by one at connection start (Linux quick-ack).
    quickack_segments: u32 = 16, unit "segments", range (0.0, 1e6), always,
        source "Linux tcp_incr_quickack (TCP_MAX_QUICKACKS = 16)",
        => [quickack_segments: u32 as same];
    /// RTO rule: `linux` (SRTT + max(4 RTTVAR, rto_min)), `rfc6298`, `ns2`
    /// or `ns2_linux` (ns-2's tick clock).
    rto_mode: RtoMode = RtoMode::Linux, unit "", range none, always,
        source "Linux tcp_set_rto; RFC 6298; ns-2 tcp.cc rtt_update, tcp-linux.cc",
        => [rto_mode: RtoMode as same];
    /// RTO floor.
    rto_min_ms: f64 = 200.0, unit "ms", range (1.0, 60_000.0), always,
        source "Linux TCP_RTO_MIN = HZ/5", => [rto_min: Time as ms];
    /// RTO before the first RTT sample.
    rto_initial_ms: f64 = 1000.0, unit "ms", range (1.0, 600_000.0), always,
        source "RFC 6298 section 2.1; Linux TCP_TIMEOUT_INIT = 1 s (since 3.1)",
        => [rto_initial: Time as ms];
    /// RTO ceiling after backoff.
    rto_max_ms: f64 = 120_000.0, unit "ms", range (1.0, 3_600_000.0), always,
        source "Linux TCP_RTO_MAX = 120 s", => [rto_max: Time as ms];
    /// Pace data packets (Linux internal TCP pacing, `tcp_pacing_check` and
    /// `tcp_update_skb_after_send` in `net/ipv4/tcp_output.c`): each packet
    /// after the first nine moves the next departure time on by its size
    /// over the pacing rate. An algorithm may turn pacing on itself (BBR
    /// does, as Linux `bbr_init`); this option turns it on for any other,
    /// at the cwnd / srtt rate of `pacing_ss_ratio` / `pacing_ca_ratio`.
    pacing: bool = false, unit "", range none, if_set,
        source "Linux sk_pacing_status (SK_PACING_NEEDED without the fq qdisc); off unless the algorithm asks",
        => [pacing: bool as same];
    /// Pacing rate in slow start (cwnd < ssthresh / 2), percent of cwnd x
    /// mss / srtt.
    pacing_ss_ratio: u32 = 200, unit "%", range (1.0, 1000.0), if_set,
        source "Linux net.ipv4.tcp_pacing_ss_ratio = 200, read by tcp_update_pacing_rate (tcp_input.c)",
        => [pacing_ss_ratio: u32 as same];
    /// Pacing rate otherwise, percent of cwnd x mss / srtt.
    pacing_ca_ratio: u32 = 120, unit "%", range (1.0, 1000.0), if_set,
        source "Linux net.ipv4.tcp_pacing_ca_ratio = 120, read by tcp_update_pacing_rate (tcp_input.c)",
        => [pacing_ca_ratio: u32 as same];
    /// Clock tick of the `ns2` RTO estimators.
    rto_tick_ms: f64 = 10.0, unit "ms", range (0.001, 1000.0), if_set,
        source "ns-2 ns-default.tcl Agent/TCP tcpTick_ = 0.01", => [rto_tick: Time as ms];
}

impl TcpOptions {
    /// Resolves the receive window from `rwnd_pkts` (checked against
    /// `range`) or `rwnd_bytes` (whole segments, at least one); not both.
    fn resolve_rwnd(
        &self,
        c: &mut TcpConfig,
        at: &str,
        range: Option<(f64, f64)>,
    ) -> Result<(), ScenarioError> {
        let f = |name: &str| format!("{at}.{name}");
        match (self.rwnd_pkts, self.rwnd_bytes) {
            (Some(_), Some(_)) => {
                return Err(ScenarioError::new(
                    f("rwnd_bytes"),
                    "give rwnd_pkts or rwnd_bytes, not both",
                ))
            }
            (Some(p), None) => {
                let (lo, hi) = range.expect("rwnd_pkts has a range");
                check(&f("rwnd_pkts"), p as f64, lo, hi)?;
                c.rwnd = p;
            }
            (None, Some(b)) => {
                let p = b / u64::from(c.mss());
                if p == 0 {
                    return Err(ScenarioError::new(
                        f("rwnd_bytes"),
                        format!("{b} is below one segment; allowed >= {} bytes", c.mss()),
                    ));
                }
                c.rwnd = p;
            }
            (None, None) => {}
        }
        Ok(())
    }

    /// Checks the options that constrain one another.
    fn check_together(c: &TcpConfig, at: &str) -> Result<(), ScenarioError> {
        if c.rto_max < c.rto_min {
            return Err(ScenarioError::new(
                format!("{at}.rto_max_ms"),
                "must be >= rto_min_ms",
            ));
        }
        Ok(())
    }
}

impl TcpConfig {
    /// Payload bytes of a full data packet (40 bytes of TCP/IP headers).
    pub fn mss(&self) -> u32 {
        self.packet_size.saturating_sub(40).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_defaults_resolve_to_the_engine_defaults_exactly() {
        // The values the engine used before the options were declared in one
        // table; any change here changes simulated results.
        let before = TcpConfig {
            packet_size: 1500,
            ack_size: 40,
            sack: true,
            recovery: RecoveryMode::Prr,
            loss_marking: LossMarking::Rfc6675,
            undo: false,
            dupthresh: 3,
            dupthresh_cwnd_divisor: 0,
            initial_cwnd: 10.0,
            initial_ssthresh: f64::INFINITY,
            max_ssthresh: 0,
            lss: LssMode::Rfc3742,
            lost_retransmit: true,
            ecn: false,
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
            pacing: false,
            pacing_ss_ratio: 200,
            pacing_ca_ratio: 120,
        };
        assert_eq!(TcpConfig::default(), before);
        assert_eq!(TcpOptions::default().resolve("tcp", 1500).unwrap(), before);
    }

    #[test]
    fn unset_options_serialize_as_before_so_scenario_hashes_hold() {
        let text = serde_json::to_string(&TcpOptions::default()).unwrap();
        assert_eq!(
            text,
            r#"{"sack":null,"recovery":null,"dupthresh":null,"initial_cwnd":null,"#.to_string()
                + r#""initial_ssthresh":null,"max_ssthresh":null,"rwnd_pkts":null,"#
                + r#""rwnd_bytes":null,"count_mode":null,"delayed_ack":null,"#
                + r#""delack_count":null,"delack_timeout_ms":null,"quickack_segments":null,"#
                + r#""rto_mode":null,"rto_min_ms":null,"rto_initial_ms":null,"rto_max_ms":null}"#
        );
    }

    #[test]
    fn the_listing_names_every_option_once_with_a_source() {
        let all: serde_json::Value = serde_json::from_str(
            r#"{"loss_marking":"fack","undo":true,"lss":"ns2","lost_retransmit":false,"rto_tick_ms":1,"dupthresh_cwnd_divisor":100,"ecn":true,"pacing":true,"pacing_ss_ratio":150,"pacing_ca_ratio":110}"#,
        )
        .unwrap();
        let set: TcpOptions = serde_json::from_value(all).unwrap();
        let shown = serde_json::to_value(set).unwrap();
        let names: Vec<&str> = OPTIONS.iter().map(|o| o.name).collect();
        assert_eq!(shown.as_object().unwrap().len(), OPTIONS.len());
        for key in shown.as_object().unwrap().keys() {
            assert_eq!(names.iter().filter(|n| **n == key).count(), 1, "{key}");
        }
        for o in OPTIONS {
            assert!(!o.source.is_empty() && !o.doc.is_empty(), "{}", o.name);
        }
    }

    #[test]
    fn out_of_range_options_name_the_field_and_the_declared_range() {
        for o in OPTIONS.iter().filter(|o| o.range.is_some()) {
            let (lo, _) = o.range.unwrap();
            let below = if o.kind == "f64" {
                serde_json::json!(lo - 1.0)
            } else {
                serde_json::json!(lo as i64 - 1)
            };
            let bad = serde_json::json!({ o.name: below });
            // Unsigned options below 0 fail to parse; the rest fail the check.
            let Ok(opts) = serde_json::from_value::<TcpOptions>(bad) else {
                continue;
            };
            let e = opts.resolve("flows[2].tcp", 1500).unwrap_err();
            assert_eq!(e.field, format!("flows[2].tcp.{}", o.name));
            assert!(e.message.contains("allowed"), "{}: {e}", o.name);
        }
    }
}
