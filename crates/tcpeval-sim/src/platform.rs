//! Platform presets: the sender behaviour and congestion-module settings of
//! the platforms the reference studies ran on, as one named bundle.
//!
//! A scenario sets `platform = "linux-2.6.16"` (say); every flow then gets
//! the preset's TCP options under its own and the scenario's `tcp` tables,
//! and every algorithm the preset's parameters under the flow's `params`.
//! So explicit settings always win, and a preset never changes an
//! algorithm's code: only options and parameters that the platform's own
//! code had (Linux 2.6 kernels, ns-2's agents).
//!
//! Each preset is declared once, as a table of [`Setting`]s with the source
//! of every value; the options, the parameters and the listing
//! (`tcpeval platforms`) are all made from that table.

use crate::scenario::{ScenarioError, TcpOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A named platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Platform {
    /// Today's Linux sender: tcpeval's defaults (PRR recovery, RFC 6675 loss
    /// marking, Linux's RTO rule, per-packet counting; see `tcp::config`).
    #[serde(rename = "linux")]
    Linux,
    /// Linux 2.6.13 (August 2005), the `background` study's senders.
    #[serde(rename = "linux-2.6.13")]
    Linux2613,
    /// Linux 2.6.16 (March 2006), the `yeah` study's senders.
    #[serde(rename = "linux-2.6.16")]
    Linux2616,
    /// ns-2's own TCP agents (Agent/TCP/Sack1 with a TCPSink).
    #[serde(rename = "ns2")]
    Ns2,
    /// Linux 2.6 congestion modules in ns-2 (TCP-Linux, Wei and Cao 2006).
    #[serde(rename = "ns2-tcp-linux")]
    Ns2TcpLinux,
}

/// A preset value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PresetValue {
    /// A literal, as JSON text.
    Json(&'static str),
    /// The RFC 3390 initial window Linux 2.6 `tcp_init_cwnd` derives from
    /// the MSS: 4 packets up to 1095 bytes, 3 up to 1460, 2 above.
    Rfc3390InitialWindow,
}

/// One setting of a preset: `tcp.OPTION` or `ALGORITHM.PARAMETER`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// `tcp.recovery`, `cubic.beta`, ...
    pub key: &'static str,
    /// The value.
    pub value: PresetValue,
    /// Where the value comes from (file and version, manual, paper).
    pub source: &'static str,
}

const fn json(key: &'static str, value: &'static str, source: &'static str) -> Setting {
    Setting {
        key,
        value: PresetValue::Json(value),
        source,
    }
}

// Sources, as cited below: Linux 2.6.18 net/ipv4 (the nearest tree read;
// the sender code cited is 2.4-era and unchanged through 2.6.13-2.6.18),
// the 2.6.14.1 stable patch "tcp: BIC max increment too large", the
// ip-sysctl.txt of 2.6.17-rc6, the first mainline tcp_cubic.c (v2.0), and
// ns-2.35 (tcl/lib/ns-default.tcl, tcp/tcp.cc, tcp/tcp-sack1.cc,
// tcp/scoreboard-rq.cc, tcp/tcp-linux.cc, CHANGES.html for dated changes).

/// The Linux 2.6 sender, shared by 2.6.13 and 2.6.16.
const LINUX_26_SENDER: [Setting; 7] = [
    json(
        "tcp.recovery",
        r#""rate_halving""#,
        "Linux 2.6 tcp_input.c tcp_cwnd_down (PRR replaced it in 3.2)",
    ),
    json(
        "tcp.loss_marking",
        r#""fack""#,
        "Linux 2.6 sysctl_tcp_fack = 1 (FACK on by default until 4.15)",
    ),
    json(
        "tcp.undo",
        "true",
        "Linux 2.6 tcp_try_undo_recovery/_partial/_loss/_dsack; tcp_timestamps = 1, tcp_dsack = 1",
    ),
    json(
        "tcp.count_mode",
        r#""per_ack""#,
        "Linux 2.6: one cong_avoid call per ACK (2.6.13 has no ABC; 2.6.15-2.6.17 tcp_abc = 1 \
         limits slow start to +1 per ACK, and only Reno's avoidance counts bytes)",
    ),
    Setting {
        key: "tcp.initial_cwnd",
        value: PresetValue::Rfc3390InitialWindow,
        source: "Linux 2.6 tcp_input.c tcp_init_cwnd (RFC 3390; IW 10 came in 3.0)",
    },
    json(
        "tcp.rto_initial_ms",
        "3000",
        "Linux 2.6 TCP_TIMEOUT_INIT = 3 s (1 s since 3.1, RFC 6298)",
    ),
    json("tcp.rto_min_ms", "200", "Linux 2.6 TCP_RTO_MIN = HZ/5"),
];

/// Congestion-module parameters common to Linux 2.6.13 and 2.6.16 where
/// they differ from today's.
const LINUX_26_MODULES: [Setting; 18] = [
    json(
        "bic.initial_ssthresh",
        "100",
        "Linux 2.6 tcp_bic.c initial_ssthresh = 100 (read in 2.6.18; 0 by 2.6.22)",
    ),
    json(
        "cubic.beta",
        "0.7998046875",
        "CUBIC 2.0 as first merged (2.6.17/18; the CUBIC authors' patch on older kernels): \
         beta = 819/1024 (717 since 2.6.25)",
    ),
    json(
        "cubic.hystart",
        "false",
        "HyStart entered tcp_cubic.c in 2.6.29",
    ),
    json(
        "cubic.initial_ssthresh",
        "100",
        "CUBIC 2.0 tcp_cubic.c initial_ssthresh = 100 (0 by 2.6.22)",
    ),
    json(
        "cubic.ackratio_comp",
        "true",
        "CUBIC 2.0 tcp_cubic.c: cnt = (cnt << ACK_RATIO_SHIFT) / delayed_ack, bictcp_acked",
    ),
    json(
        "cubic.max_increment",
        "16",
        "CUBIC 2.0 tcp_cubic.c max_increment = 16: min_cnt = cwnd HZ 8 / (10 max_increment delay_min)",
    ),
    json(
        "cubic.max_increment_above_origin",
        "false",
        "CUBIC 2.0 tcp_cubic.c applies min_cnt on every update (2.1 only when t >= bic_K)",
    ),
    json(
        "cubic.delay_min_shift",
        "0",
        "CUBIC 2.0 tcp_cubic.c measure_delay keeps delay_min in plain jiffies (<< 3 from 2.1)",
    ),
    json(
        "cubic.no_loss_max_cnt",
        "50",
        "CUBIC 2.0 tcp_cubic.c: if (ca->loss_cwnd == 0) ca->cnt = 50",
    ),
    json(
        "cubic.no_loss_fixed_cnt",
        "true",
        "CUBIC 2.0 tcp_cubic.c sets cnt = 50 before the first loss (today: cnt <= 20)",
    ),
    json(
        "cubic.min_cnt",
        "1",
        "CUBIC 2.0 tcp_cubic.c: if (ca->cnt == 0) ca->cnt = 1 (cnt >= 2 came with Linux 4.x)",
    ),
    json(
        "cubic.growth_26",
        "true",
        "Linux 2.6 tcp_cubic.c bictcp_cong_avoid: snd_cwnd_cnt >= cnt ? (cwnd++, cnt = 0) : cnt++",
    ),
    json(
        "bic.growth_26",
        "true",
        "Linux 2.6 tcp_bic.c bictcp_cong_avoid: snd_cwnd_cnt >= cnt ? (cwnd++, cnt = 0) : cnt++",
    ),
    json(
        "yeah.counters_26",
        "true",
        "YeAH was not in mainline before 2.6.22: its authors' module as merged there \
         (tcp_yeah.c, read in TCP-Linux 2.6.22.6): fast mode adds pkts_acked",
    ),
    json(
        "scalable.ai_cnt",
        "50",
        "Linux 2.6 tcp_scalable.c TCP_SCALABLE_AI_CNT = 50 (read in 2.6.18)",
    ),
    json(
        "scalable.growth_26",
        "true",
        "Linux 2.6 tcp_scalable.c tcp_scalable_cong_avoid: snd_cwnd_cnt > min(snd_cwnd, \
         TCP_SCALABLE_AI_CNT) adds a packet, one per min(cwnd, 50) + 1 ACKs (read in 2.6.18)",
    ),
    json(
        "vegas.alpha",
        "1",
        "Linux 2.6 tcp_vegas.c alpha = 1 packet (read in 2.6.18; 2 by 2.6.22)",
    ),
    json(
        "vegas.beta",
        "3",
        "Linux 2.6 tcp_vegas.c beta = 3 packets (read in 2.6.18; 4 by 2.6.22)",
    ),
];

const LINUX_2613_ONLY: [Setting; 1] = [json(
    "bic.max_increment",
    "32",
    "Linux 2.6.13 tcp_bic.c max_increment = 32 (16 from the 2.6.14.1 stable fix on)",
)];

const LINUX_26: [Setting; 25] = concat_settings(LINUX_26_SENDER, LINUX_26_MODULES);
const LINUX_2613: [Setting; 26] = concat_settings(LINUX_26, LINUX_2613_ONLY);
const LINUX_2616: [Setting; 25] = LINUX_26;

/// What every ns-2 agent here shares: its initial window, RTO and receiver.
const NS2_AGENT: [Setting; 3] = [
    json(
        "tcp.initial_cwnd",
        "2",
        "ns-2 ns-default.tcl Agent/TCP windowInit_ 2 (Agent/TCP/Linux inherits it)",
    ),
    json(
        "tcp.rto_initial_ms",
        "3000",
        "ns-2 ns-default.tcl rtxcur_init_ 3 for Agent/TCP and Agent/TCP/Linux (6 up to ns-2.29)",
    ),
    json(
        "tcp.delayed_ack",
        "false",
        "ns-2 Agent/TCPSink/Sack1: one ACK per packet",
    ),
];

/// ns-2.32 - 2.35 Agent/TCP/Sack1 with an Agent/TCPSink/Sack1 receiver.
/// Older releases differ, and a study on one says so in its own tcp table:
/// the initial RTO was 6 s up to ns-2.29 and the RTO had no ceiling up to
/// 2.31 (CHANGES.html).
const NS2_OWN: [Setting; 16] = [
    json(
        "tcp.recovery",
        r#""ns2_sack1""#,
        "ns-2 tcp-sack1.cc: cwnd = ssthresh = win/2 on entry, send while pipe_ < cwnd, pipe_ \
         counted from ACKs (out - numdupacks at entry, -1 per ACK, -2 per partial ACK, +1 per send)",
    ),
    json(
        "tcp.loss_marking",
        r#""fack""#,
        "ns-2 scoreboard-rq.cc (Sack1 since 2003): in recovery every hole below the highest \
         SACKed packet is retransmitted, which FACK marks and RFC 6675 does not",
    ),
    json("tcp.undo", "false", "ns-2 Sack1 has no undo (frto_enabled_ 0)"),
    json(
        "tcp.lost_retransmit",
        "false",
        "ns-2 scoreboard-rq.cc: the retransmission pointer never moves back, so a lost \
         retransmission waits for the RTO",
    ),
    json(
        "tcp.count_mode",
        r#""per_ack""#,
        "ns-2 tcp.cc recv_newack_helper: one opencwnd per ACK advancing snd_una",
    ),
    json(
        "tcp.rto_mode",
        r#""ns2""#,
        "ns-2 tcp.cc rtt_update/rtt_timeout/rtt_backoff (rfc2988_ true, no timestamps): one \
         timed segment per RTT, whole-tick samples, max(srtt + 4 rttvar, minrto_) x backoff",
    ),
    json(
        "tcp.rto_tick_ms",
        "10",
        "ns-2 ns-default.tcl Agent/TCP tcpTick_ 0.01",
    ),
    json(
        "tcp.rto_min_ms",
        "200",
        "ns-2 ns-default.tcl Agent/TCP minrto_ 0.2 (since 2004)",
    ),
    json(
        "tcp.rto_max_ms",
        "60000",
        "ns-2 ns-default.tcl Agent/TCP maxrto_ 60 (since ns-2.32; 100000 s before)",
    ),
    json(
        "tcp.lss",
        r#""ns2""#,
        "ns-2 tcp.cc limited_slow_start, called from opencwnd's avoidance branch until the \
         first fast retransmit and again after a timeout; Molnar et al. 2009 section 5.1",
    ),
    json(
        "reno.growth",
        r#""float""#,
        "ns-2 tcp.cc opencwnd: cwnd_ (a double) += 1/cwnd_",
    ),
    json(
        "scalable.growth",
        r#""float""#,
        "ns-2 keeps cwnd_ as a double",
    ),
    json(
        "highspeed.mode",
        r#""formula""#,
        "ns-2 tcp.cc increase_param/decrease_param: RFC 3649 formulas on a double cwnd_",
    ),
    json("htcp.growth", r#""float""#, "ns-2 keeps cwnd_ as a double"),
    json("westwood.growth", r#""float""#, "ns-2 keeps cwnd_ as a double"),
    json("yeah.growth", r#""float""#, "ns-2 keeps cwnd_ as a double"),
];

/// TCP-Linux in ns-2.33 - 2.35 (Agent/TCP/Linux, D. X. Wei): Linux 2.6.22.6
/// congestion modules behind ns-2's sender, with an Agent/TCPSink/Sack1.
const NS2_TCP_LINUX_OWN: [Setting; 20] = [
    json(
        "tcp.recovery",
        r#""rate_halving""#,
        "tcp-linux.cc: Linux's rate halving emulated (next_pkts_in_flight_ falls by one per two ACKs)",
    ),
    json(
        "tcp.loss_marking",
        r#""fack""#,
        "tcp-linux.cc / scoreboard1.cc: FACK-style marking",
    ),
    json("tcp.undo", "false", "tcp-linux.cc: no undo (\"We don't have undo yet\")"),
    json(
        "tcp.count_mode",
        r#""per_ack""#,
        "tcp-linux.cc: one module cong_avoid call per ACK (ABC L = 1 equals it with a per-packet ACK)",
    ),
    json(
        "tcp.rto_mode",
        r#""ns2_linux""#,
        "tcp-linux.cc LinuxTcpAgent::rtt_update (ns-2's timed segment and scaled integers, \
         Linux's slower RTTVAR decrease), TcpAgent::rtt_timeout, and time_processing's \
         renew_timer (every ACK not older than snd_una restarts the timer)",
    ),
    json(
        "tcp.rto_tick_ms",
        "1",
        "tcp-linux.cc: tcp_tick_ = 1/JIFFY_RATIO = 1 ms once a congestion module is loaded",
    ),
    json("tcp.rto_min_ms", "200", "ns-default.tcl Agent/TCP/Linux minrto_ 0.2"),
    json(
        "cubic.beta",
        "0.7998046875",
        "TCP-Linux src/tcp_cubic.c (2.6.22.6, CUBIC 2.1): beta = 819/1024",
    ),
    json(
        "cubic.hystart",
        "false",
        "TCP-Linux src/tcp_cubic.c (2.6.22.6): no HyStart (2.6.29)",
    ),
    json(
        "cubic.ackratio_comp",
        "true",
        "TCP-Linux src/tcp_cubic.c (2.6.22.6): cnt = (cnt << ACK_RATIO_SHIFT) / delayed_ack",
    ),
    json(
        "cubic.max_increment",
        "16",
        "TCP-Linux src/tcp_cubic.c (2.6.22.6): max_increment = 16, min_cnt when t >= bic_K, \
         delay_min << 3",
    ),
    json(
        "cubic.no_loss_max_cnt",
        "50",
        "TCP-Linux src/tcp_cubic.c (2.6.22.6): if (ca->loss_cwnd == 0) ca->cnt = 50",
    ),
    json(
        "cubic.no_loss_fixed_cnt",
        "true",
        "TCP-Linux src/tcp_cubic.c (2.6.22.6) sets cnt = 50 before the first loss",
    ),
    json(
        "cubic.min_cnt",
        "1",
        "TCP-Linux src/tcp_cubic.c (2.6.22.6): if (ca->cnt == 0) ca->cnt = 1",
    ),
    json(
        "cubic.growth_26",
        "true",
        "TCP-Linux src/tcp_cubic.c (2.6.22.6) bictcp_cong_avoid: cnt >= ca->cnt ? (cwnd++, 0) : cnt++",
    ),
    json(
        "bic.growth_26",
        "true",
        "TCP-Linux src/tcp_bic.c (2.6.22.6) bictcp_cong_avoid: cnt >= ca->cnt ? (cwnd++, 0) : cnt++",
    ),
    json(
        "yeah.counters_26",
        "true",
        "TCP-Linux src/tcp_yeah.c (2.6.22.6): fast mode snd_cwnd_cnt += pkts_acked",
    ),
    json(
        "scalable.ai_cnt",
        "50",
        "TCP-Linux src/tcp_scalable.c (2.6.22.6): TCP_SCALABLE_AI_CNT = 50",
    ),
    json(
        "scalable.growth_26",
        "true",
        "TCP-Linux src/tcp_scalable.c (2.6.22.6): snd_cwnd_cnt > min(snd_cwnd, \
         TCP_SCALABLE_AI_CNT) adds a packet, one per min(cwnd, 50) + 1 ACKs",
    ),
    json(
        "illinois.ssthresh_26",
        "true",
        "TCP-Linux src/tcp_illinois.c (2.6.22.6) tcp_illinois_ssthresh: \
         max((snd_cwnd * beta) >> BETA_SHIFT, 2), the window cut to beta (today: by beta)",
    ),
];

const NS2: [Setting; 19] = concat_settings(NS2_AGENT, NS2_OWN);
const NS2_TCP_LINUX: [Setting; 23] = concat_settings(NS2_AGENT, NS2_TCP_LINUX_OWN);

const fn concat_settings<const A: usize, const B: usize, const N: usize>(
    a: [Setting; A],
    b: [Setting; B],
) -> [Setting; N] {
    let mut out = [json("", "null", ""); N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - A];
        i += 1;
    }
    out
}

impl Platform {
    /// Every platform, in listing order.
    pub const ALL: [Platform; 5] = [
        Platform::Linux,
        Platform::Linux2613,
        Platform::Linux2616,
        Platform::Ns2,
        Platform::Ns2TcpLinux,
    ];

    /// The name a scenario uses.
    pub fn name(self) -> &'static str {
        match self {
            Platform::Linux => "linux",
            Platform::Linux2613 => "linux-2.6.13",
            Platform::Linux2616 => "linux-2.6.16",
            Platform::Ns2 => "ns2",
            Platform::Ns2TcpLinux => "ns2-tcp-linux",
        }
    }

    /// One line on what the platform is.
    pub fn summary(self) -> &'static str {
        match self {
            Platform::Linux => "today's Linux sender: tcpeval's defaults, nothing changed",
            Platform::Linux2613 => "Linux 2.6.13 sender and congestion modules (background study)",
            Platform::Linux2616 => "Linux 2.6.16 sender and congestion modules (yeah study)",
            Platform::Ns2 => {
                "ns-2.32-2.35 TCP agents: Agent/TCP/Sack1 and a TCPSink/Sack1 (reverse, fairness)"
            }
            Platform::Ns2TcpLinux => {
                "TCP-Linux in ns-2.33-2.35: Linux 2.6.22 modules, ns-2 sender (linux-variants)"
            }
        }
    }

    /// The preset's settings with their sources.
    pub fn settings(self) -> &'static [Setting] {
        match self {
            Platform::Linux => &[],
            Platform::Linux2613 => &LINUX_2613,
            Platform::Linux2616 => &LINUX_2616,
            Platform::Ns2 => &NS2,
            Platform::Ns2TcpLinux => &NS2_TCP_LINUX,
        }
    }

    /// The value of `setting` for data packets of `packet_size` bytes.
    pub fn value(setting: &Setting, packet_size: u32) -> Value {
        match setting.value {
            PresetValue::Json(text) => {
                serde_json::from_str(text).expect("preset values are valid JSON (tested)")
            }
            PresetValue::Rfc3390InitialWindow => {
                let mss = packet_size.saturating_sub(40);
                Value::from(match mss {
                    0..=1095 => 4,
                    1096..=1460 => 3,
                    _ => 2,
                })
            }
        }
    }

    /// The value of `setting` as the listing shows it (a rule as its text).
    pub fn shown_value(setting: &Setting) -> Value {
        match setting.value {
            PresetValue::Json(_) => Self::value(setting, 0),
            PresetValue::Rfc3390InitialWindow => Value::from(
                "RFC 3390: 4 packets for an MSS up to 1095 bytes, 3 up to 1460, 2 above",
            ),
        }
    }

    /// The preset's TCP options for data packets of `packet_size` bytes.
    pub fn tcp_options(self, packet_size: u32) -> Result<TcpOptions, ScenarioError> {
        let mut map = Map::new();
        for s in self.settings() {
            if let Some(option) = s.key.strip_prefix("tcp.") {
                map.insert(option.to_string(), Self::value(s, packet_size));
            }
        }
        serde_json::from_value(Value::Object(map)).map_err(|e| {
            ScenarioError::new(
                "platform",
                format!("preset {} has a bad TCP option: {e}", self.name()),
            )
        })
    }

    /// The preset's parameters for `algorithm`.
    pub fn params(self, algorithm: &str) -> Map<String, Value> {
        let mut map = Map::new();
        for s in self.settings() {
            if let Some((alg, param)) = s.key.split_once('.') {
                if alg == algorithm {
                    map.insert(param.to_string(), Self::value(s, 0));
                }
            }
        }
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::TcpOptions;
    use crate::tcp::config::{CountMode, LossMarking, LssMode, RecoveryMode, RtoMode, TcpConfig};
    use crate::time::Time;

    #[test]
    fn every_preset_value_is_accepted_by_the_engine() {
        for p in Platform::ALL {
            let tcp = p.tcp_options(1500).unwrap();
            tcp.resolve("tcp", 1500).unwrap();
            for s in p.settings() {
                let (scope, _) = s.key.split_once('.').expect("scope.name");
                assert!(
                    !s.source.is_empty(),
                    "{}: {} has no source",
                    p.name(),
                    s.key
                );
                if scope != "tcp" {
                    let params = p.params(scope);
                    crate::traffic::build_algorithm("flows[0]", scope, &params)
                        .unwrap_or_else(|e| panic!("{} {}: {e}", p.name(), s.key));
                }
            }
        }
    }

    #[test]
    fn keys_are_unique_within_a_preset() {
        for p in Platform::ALL {
            let mut keys: Vec<_> = p.settings().iter().map(|s| s.key).collect();
            keys.sort_unstable();
            let n = keys.len();
            keys.dedup();
            assert_eq!(keys.len(), n, "{} repeats a key", p.name());
        }
    }

    #[test]
    fn linux_is_the_default_sender_exactly() {
        let tcp = Platform::Linux.tcp_options(1500).unwrap();
        assert_eq!(tcp, TcpOptions::default());
        assert_eq!(
            tcp.resolve("tcp", 1500).unwrap(),
            TcpOptions::default().resolve("tcp", 1500).unwrap()
        );
    }

    #[test]
    fn rfc3390_initial_window_follows_the_mss() {
        // Linux 2.6 tcp_init_cwnd: MSS 960 (1000-byte packets) -> 4,
        // MSS 1460 (1500-byte packets) -> 3, MSS 8960 (jumbo) -> 2.
        let iw = |size| {
            Platform::Linux2616
                .tcp_options(size)
                .unwrap()
                .initial_cwnd
                .unwrap()
        };
        assert_eq!((iw(1000), iw(1500), iw(9000)), (4.0, 3.0, 2.0));
    }

    #[test]
    fn ns2_preset_sets_exactly_the_listed_sender() {
        let c = Platform::Ns2
            .tcp_options(1000)
            .unwrap()
            .resolve("tcp", 1000)
            .unwrap();
        let expected = TcpConfig {
            packet_size: 1000,
            recovery: RecoveryMode::Ns2Sack1,
            loss_marking: LossMarking::Fack,
            undo: false,
            lost_retransmit: false,
            count_mode: CountMode::PerAck,
            initial_cwnd: 2.0,
            delayed_ack: false,
            rto_mode: RtoMode::Ns2,
            rto_tick: Time::from_ms(10),
            rto_min: Time::from_ms(200),
            rto_initial: Time::from_secs(3),
            rto_max: Time::from_secs(60),
            lss: LssMode::Ns2,
            ..TcpConfig::default()
        };
        assert_eq!(c, expected);
        assert_eq!(Platform::Ns2.params("highspeed")["mode"], "formula");
    }

    #[test]
    fn ns2_tcp_linux_preset_sets_exactly_the_listed_sender() {
        let c = Platform::Ns2TcpLinux
            .tcp_options(1040)
            .unwrap()
            .resolve("tcp", 1040)
            .unwrap();
        let expected = TcpConfig {
            packet_size: 1040,
            recovery: RecoveryMode::RateHalving,
            loss_marking: LossMarking::Fack,
            undo: false,
            count_mode: CountMode::PerAck,
            initial_cwnd: 2.0,
            delayed_ack: false,
            rto_mode: RtoMode::Ns2Linux,
            rto_tick: Time::from_ms(1),
            rto_min: Time::from_ms(200),
            rto_initial: Time::from_secs(3),
            ..TcpConfig::default()
        };
        assert_eq!(c, expected);
        assert_eq!(Platform::Ns2TcpLinux.params("scalable")["ai_cnt"], 50);
        // 2.6.22's tcp_scalable.c: one packet per min(cwnd, 50) + 1 ACKs.
        assert_eq!(Platform::Ns2TcpLinux.params("scalable")["growth_26"], true);
        for p in [Platform::Linux2613, Platform::Linux2616] {
            assert_eq!(p.params("scalable")["growth_26"], true, "{p:?}");
        }
        assert!(Platform::Ns2.params("scalable").get("growth_26").is_none());
        // 2.6.22's tcp_illinois_ssthresh keeps beta * cwnd; Illinois is not in
        // the 2.6.13 / 2.6.16 kernels, so only TCP-Linux sets it.
        assert_eq!(
            Platform::Ns2TcpLinux.params("illinois")["ssthresh_26"],
            true
        );
        for p in [
            Platform::Linux,
            Platform::Linux2613,
            Platform::Linux2616,
            Platform::Ns2,
        ] {
            assert!(p.params("illinois").get("ssthresh_26").is_none(), "{p:?}");
        }
    }

    #[test]
    fn linux_26_presets_set_exactly_the_listed_sender() {
        for p in [Platform::Linux2613, Platform::Linux2616] {
            let c = p.tcp_options(1500).unwrap().resolve("tcp", 1500).unwrap();
            let expected = TcpConfig {
                recovery: RecoveryMode::RateHalving,
                loss_marking: LossMarking::Fack,
                undo: true,
                count_mode: CountMode::PerAck,
                initial_cwnd: 3.0,
                rto_initial: Time::from_secs(3),
                rto_min: Time::from_ms(200),
                ..TcpConfig::default()
            };
            assert_eq!(c, expected, "{}", p.name());
            assert_eq!(p.params("cubic")["beta"], 0.7998046875);
            assert_eq!(p.params("cubic")["hystart"], false);
            assert_eq!(p.params("vegas")["beta"], 3);
            assert!(p.params("htcp").is_empty());
        }
        assert_eq!(Platform::Linux2613.params("bic")["max_increment"], 32);
        assert!(!Platform::Linux2616
            .params("bic")
            .contains_key("max_increment"));
    }
}
