//! Unresponsive UDP cross traffic: a constant-bit-rate source, or an on/off
//! source that sends at its rate during on periods and is silent during off
//! periods, both drawn from distributions.
//!
//! While on, packets leave every `packet_size * 8 / rate` seconds, the first
//! at the start of the on period; an on period shorter than that interval
//! still sends its first packet. The long-run rate of an on/off source is
//! about `rate * E[on] / (E[on] + E[off])` (each on period sends
//! `ceil(on / interval)` packets), its class's target. One event per packet.

use super::dist::TimeDist;
use super::{check_window, ClassInfo, ClassKind, Directions, Endpoints};
use crate::net::topology::GroupSpec;
use crate::rng::{purpose, stream, Stream};
use crate::scenario::{check, check_pos, Scenario, ScenarioError};
use crate::time::{tx_time, Time};
use crate::time_scale::{scale_opt, ScaleTime};
use serde::{Deserialize, Serialize};

/// A UDP source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// Class name; default `udp<k>`.
    #[serde(default)]
    pub name: Option<String>,
    /// Directions (one independent source each).
    #[serde(default)]
    pub direction: Directions,
    /// Parking lot: entry router of the forward direction.
    #[serde(default)]
    pub from: Option<usize>,
    /// Parking lot: exit router of the forward direction.
    #[serde(default)]
    pub to: Option<usize>,
    /// Graph: node path of the forward direction.
    #[serde(default)]
    pub path: Option<Vec<String>>,
    /// Sending rate while on, Mbit/s (wire bits).
    pub rate_mbps: f64,
    /// Wire size of each packet, bytes (28..=65535; default: the scenario's `packet_size`).
    #[serde(default)]
    pub packet_size: Option<u32>,
    /// On-period durations; with `off`, makes an on/off source (else CBR).
    #[serde(default)]
    pub on: Option<TimeDist>,
    /// Off-period durations.
    #[serde(default)]
    pub off: Option<TimeDist>,
    /// Start, s (an on period starts here).
    #[serde(default)]
    pub start_s: f64,
    /// Stop, s (default: the end).
    #[serde(default)]
    pub stop_s: Option<f64>,
}

impl ScaleTime for UdpSpec {
    /// Quick mode: the start and stop times move with the run's axis.
    fn scale_time(&mut self, factor: f64) {
        self.start_s *= factor;
        scale_opt(&mut self.stop_s, factor);
    }
}

/// One direction of a UDP source, running.
#[derive(Debug)]
pub struct UdpSource {
    /// Its traffic class.
    pub class: u32,
    /// Its host group.
    pub group: usize,
    /// Wire size of each packet, bytes.
    pub size: u32,
    interval: Time,
    on_off: Option<(TimeDist, TimeDist)>,
    rng: Stream,
    /// End of the current on period.
    on_until: Time,
    start: Time,
    stop: Time,
}

/// Expands UDP generator `g` into one source per direction.
pub fn sources(
    sc: &Scenario,
    g: usize,
    spec: &UdpSpec,
    classes: &mut Vec<ClassInfo>,
    groups: &mut Vec<GroupSpec>,
) -> Result<Vec<UdpSource>, ScenarioError> {
    let at = format!("traffic.udp[{g}]");
    check_window(&at, spec.start_s, spec.stop_s, sc.duration_s)?;
    check_pos(&format!("{at}.rate_mbps"), spec.rate_mbps, 1e7)?;
    let size = spec.packet_size.unwrap_or(sc.packet_size);
    check(&format!("{at}.packet_size"), f64::from(size), 28.0, 65535.0)?;
    let on_off = match (spec.on, spec.off) {
        (None, None) => None,
        (Some(on), Some(off)) => {
            on.validate(&format!("{at}.on"))?;
            off.validate(&format!("{at}.off"))?;
            Some((on, off))
        }
        (Some(_), None) => {
            return Err(ScenarioError::new(
                format!("{at}.off"),
                "an on/off source needs both `on` and `off`",
            ))
        }
        (None, Some(_)) => {
            return Err(ScenarioError::new(
                format!("{at}.on"),
                "an on/off source needs both `on` and `off`",
            ))
        }
    };
    let rate_bps = spec.rate_mbps * 1e6;
    let duty = on_off.map_or(1.0, |(on, off)| on.mean() / (on.mean() + off.mean()));
    let ends = Endpoints {
        at: &at,
        directions: spec.direction,
        from: spec.from,
        to: spec.to,
        path: spec.path.as_deref(),
    };
    let base = spec.name.clone().unwrap_or_else(|| format!("udp{g}"));
    let start = Time::from_secs_f64(spec.start_s);
    let stop = Time::from_secs_f64(spec.stop_s.unwrap_or(sc.duration_s).min(sc.duration_s));
    let mut out = Vec::new();
    for (d, place) in ends.place(&sc.topology)?.into_iter().enumerate() {
        let class = classes.len() as u32;
        let name = format!("{base}{}", place.suffix);
        classes.push(ClassInfo {
            name: name.clone(),
            kind: ClassKind::Udp,
            direction: place.direction,
            target_bps: Some(rate_bps * duty),
        });
        let group = groups.len();
        groups.push(GroupSpec {
            name,
            field: at.clone(),
            direction: place.direction,
            from: place.from,
            to: place.to,
            path: place.path,
        });
        out.push(UdpSource {
            class,
            group,
            size,
            interval: tx_time(size, rate_bps),
            on_off,
            rng: stream(sc.seed, purpose::UDP_ONOFF, ((g as u64) << 1) | d as u64),
            on_until: start,
            start,
            stop,
        });
    }
    Ok(out)
}

impl UdpSource {
    /// Time of the first packet, if before the stop.
    pub fn first(&self) -> Option<Time> {
        (self.start < self.stop).then_some(self.start)
    }

    /// A packet leaves at `now` (a scheduled send time); returns the time of
    /// the next one, if before the stop.
    pub fn sent(&mut self, now: Time) -> Option<Time> {
        let mut next = now + self.interval;
        if let Some((on, off)) = self.on_off {
            if now >= self.on_until {
                // This packet opens an on period.
                self.on_until = now + Time::from_secs_f64(on.sample(&mut self.rng));
            }
            if next >= self.on_until {
                next = self.on_until + Time::from_secs_f64(off.sample(&mut self.rng));
            }
        }
        (next < self.stop).then_some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::from_json;

    fn build(udp: &str) -> Result<(Vec<UdpSource>, Vec<ClassInfo>), ScenarioError> {
        let sc = from_json(&format!(
            r#"{{"duration_s": 100, "topology": {{"kind": "dumbbell",
                "bottleneck": {{"rate_mbps": 100, "delay_ms": 10}}}},
                "flows": [], "traffic": {{"udp": [{udp}]}}}}"#
        ))
        .unwrap();
        let (mut c, mut g) = (Vec::new(), Vec::new());
        let s = sources(&sc, 0, &sc.traffic.udp[0], &mut c, &mut g)?;
        Ok((s, c))
    }

    #[test]
    fn cbr_sends_at_its_rate() {
        let (mut s, c) = build(r#"{"rate_mbps": 12, "start_s": 1, "stop_s": 2}"#).unwrap();
        assert_eq!(c[0].target_bps, Some(12e6));
        let src = &mut s[0];
        // 1500 B at 12 Mbit/s = 1 ms apart: 1000 packets in [1, 2).
        let mut t = src.first();
        let mut n = 0;
        while let Some(x) = t {
            n += 1;
            t = src.sent(x);
        }
        assert_eq!(n, 1000);
    }

    #[test]
    fn on_off_keeps_its_duty_cycle() {
        let (mut s, c) = build(
            r#"{"rate_mbps": 12, "on": {"kind": "exponential", "mean_s": 0.5},
                "off": {"kind": "exponential", "mean_s": 1.5}}"#,
        )
        .unwrap();
        assert_eq!(c[0].target_bps, Some(3e6));
        let src = &mut s[0];
        let mut t = src.first();
        let mut n = 0u64;
        while let Some(x) = t {
            n += 1;
            t = src.sent(x);
        }
        // 100 s x 1000 pkt/s x 1/4, plus about half a packet per on period (50 of them).
        let want = 25_000.0 + 25.0;
        assert!((n as f64 / want - 1.0).abs() < 0.15, "{n}");
    }

    #[test]
    fn half_an_on_off_pair_is_rejected() {
        let e = build(r#"{"rate_mbps": 1, "on": {"kind": "fixed", "s": 1}}"#).unwrap_err();
        assert_eq!(e.field, "traffic.udp[0].off");
        let e = build(r#"{"rate_mbps": 0}"#).unwrap_err();
        assert_eq!(e.field, "traffic.udp[0].rate_mbps");
    }
}
