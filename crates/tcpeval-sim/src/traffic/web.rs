//! Web traffic: short TCP transfers, each a real flow (SACK, the chosen
//! algorithm and options) that opens, sends its size and ends, aimed at a
//! target offered load per direction. Two arrival models:
//!
//! - `poisson`: transfers arrive as a Poisson process; sizes from an
//!   empirical table (default: the `reverse` study's mix with a 50 ms mean
//!   inter-arrival, about 5.8 Mbit/s) or a lognormal body with a Pareto tail
//!   (SURGE's file sizes by default: the `background` study's web traffic).
//! - `surge`: SURGE-like sessions (Barford & Crovella, "Generating
//!   representative Web workloads for network and server performance
//!   evaluation", SIGMETRICS 1998). A session is a run of pages; a page is a
//!   base file and its embedded files, requested one after another with an
//!   "active OFF" time between them; between pages the user thinks
//!   ("inactive OFF"). The distributions are SURGE's (its Table 1; see
//!   [`SessionSpec`] and [`super::sizes`]). Two changes make the load a
//!   target rather than an outcome: sessions arrive as a Poisson process
//!   (SURGE runs a fixed population of user equivalents), and each request
//!   follows the previous one by its OFF time measured from the previous
//!   *request* (SURGE waits for the previous transfer to finish, so its load
//!   depends on the network). This is the open-loop arrangement of ns-2's
//!   web traffic generator with SURGE's distributions.
//!
//! Offered load counts the wire bits of the data packets a transfer must
//! send: `size_pkts * packet_size * 8`. The arrival rate for a target load
//! `L` (bit/s) is `L / (E[size_pkts] * packet_size * 8)` transfers per second
//! (Poisson), or that divided by `E[pages] * E[objects per page]` sessions
//! per second (SURGE), with `E[size_pkts]` computed exactly from the size
//! distribution ([`Sizer::mean_pkts`]).
//!
//! Round-trip times: each transfer (Poisson) or session (SURGE: one client
//! per session) draws an RTT from `rtt`; the world adds the difference to
//! the path's own RTT as a per-flow delay (see `world.rs`).
//!
//! Steady state from the start: a Poisson source is stationary at once. A
//! SURGE source at time `start` already has sessions in progress, so its
//! session arrivals are generated from [`WebSource::preroll_s`] before the
//! start (ten mean session spans), and the files those sessions request
//! from the start on are kept. Without this the load would ramp up over the
//! first session spans and a 300 s run would fall a few percent short.

use super::dist::{exponential, pareto, weibull};
use super::rtt::{RttSampler, RttSpec};
use super::sizes::{Drawn, SizeSpec, Sizer};
use super::{check_window, ClassInfo, ClassKind, Directions, Endpoints, TcpProto};
use crate::net::topology::GroupSpec;
use crate::rng::{purpose, stream, Stream};
use crate::scenario::{check, check_pos, Scenario, ScenarioError, TcpOptions};
use crate::time::Time;
use crate::time_scale::{scale_opt, ScaleTime};
use serde::{Deserialize, Serialize};
use tcpeval_cc::Shown;

/// The `reverse` study's mean inter-arrival time per direction, ms.
pub const REVERSE_MEAN_INTERARRIVAL_MS: f64 = 50.0;
/// The `yeah` study's average web load, Mbit/s.
pub const YEAH_LOAD_MBPS: f64 = 4.0;

fn default_algorithm() -> String {
    "reno".into()
}

/// How transfers arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WebModel {
    /// Independent transfers, Poisson arrivals.
    #[default]
    Poisson,
    /// SURGE-like sessions of pages of objects, Poisson session arrivals.
    Surge,
}

fn pages_mean() -> f64 {
    5.0
}
fn objects_alpha() -> f64 {
    2.43
}
fn max_objects() -> u32 {
    100
}
fn active_off_shape() -> f64 {
    1.46
}
fn active_off_scale_s() -> f64 {
    0.382
}
fn think_alpha() -> f64 {
    1.5
}
fn think_scale_s() -> f64 {
    1.0
}

/// The session structure of the `surge` model. Defaults: SURGE's Table 1
/// (Barford & Crovella 1998) where SURGE has the quantity, our choice
/// where it has not (marked). Provenance: the values are those widely
/// quoted from that table; only the file-size body (see
/// [`super::sizes::SURGE_MU`]) could be checked against an independent
/// public source while writing this, so check the others against the paper
/// before relying on them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    /// Mean pages per session (geometric on 1, 2, ...; 1..=1e6). Default 5:
    /// our choice (SURGE's users browse for the whole run); it changes how
    /// bursty a session is, not the mean load.
    #[serde(default = "pages_mean")]
    pub pages_mean: f64,
    /// Files per page (the base file and its embedded files):
    /// `floor(X)`, `X ~ Pareto(k = 1, alpha)`, SURGE's "embedded references"
    /// (alpha = 2.43, k = 1). We read SURGE's count as including the base
    /// file, since a Pareto with k = 1 gives every page at least one file.
    #[serde(default = "objects_alpha")]
    pub objects_alpha: f64,
    /// Most files per page (1..=100000). Default 100: our choice; the
    /// Pareto above gives more than 100 with probability 1.4e-5.
    #[serde(default = "max_objects")]
    pub max_objects: u32,
    /// "Active OFF" time between the requests of one page: Weibull with this
    /// shape (SURGE: 1.46) ...
    #[serde(default = "active_off_shape")]
    pub active_off_shape: f64,
    /// ... and this scale, s (SURGE: 0.382).
    #[serde(default = "active_off_scale_s")]
    pub active_off_scale_s: f64,
    /// "Inactive OFF" (think) time between pages: Pareto with this shape
    /// (SURGE: 1.5; above 1, so the mean is finite) ...
    #[serde(default = "think_alpha")]
    pub think_alpha: f64,
    /// ... and this minimum, s (SURGE: k = 1).
    #[serde(default = "think_scale_s")]
    pub think_scale_s: f64,
}

impl Default for SessionSpec {
    fn default() -> Self {
        SessionSpec {
            pages_mean: pages_mean(),
            objects_alpha: objects_alpha(),
            max_objects: max_objects(),
            active_off_shape: active_off_shape(),
            active_off_scale_s: active_off_scale_s(),
            think_alpha: think_alpha(),
            think_scale_s: think_scale_s(),
        }
    }
}

impl SessionSpec {
    fn validate(&self, at: &str) -> Result<(), ScenarioError> {
        let f = |n: &str| format!("{at}.{n}");
        check(&f("pages_mean"), self.pages_mean, 1.0, 1e6)?;
        check_pos(&f("objects_alpha"), self.objects_alpha, 100.0)?;
        check(&f("max_objects"), f64::from(self.max_objects), 1.0, 1e5)?;
        check_pos(&f("active_off_shape"), self.active_off_shape, 100.0)?;
        check_pos(&f("active_off_scale_s"), self.active_off_scale_s, 1e5)?;
        if !(self.think_alpha > 1.0 && self.think_alpha <= 100.0) {
            return Err(ScenarioError::new(
                f("think_alpha"),
                format!(
                    "{} is out of range; allowed 1 < value <= 100 (a finite mean think time)",
                    Shown(self.think_alpha)
                ),
            ));
        }
        check_pos(&f("think_scale_s"), self.think_scale_s, 1e5)
    }

    /// Mean files per page: `sum_{j=1}^{max} P(floor(X) >= j) = sum_{j=1}^{max} j^-alpha`.
    pub fn mean_objects(&self) -> f64 {
        (1..=self.max_objects)
            .map(|j| f64::from(j).powf(-self.objects_alpha))
            .sum()
    }
}

/// A web traffic generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// Class name; default `web<k>`.
    #[serde(default)]
    pub name: Option<String>,
    /// Arrival model.
    #[serde(default)]
    pub model: WebModel,
    /// Directions; each runs independently at the full target load.
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
    /// Target offered load per direction, Mbit/s (wire bits of data
    /// packets). `surge` default: 4 (the `yeah` study).
    #[serde(default)]
    pub load_mbps: Option<f64>,
    /// `poisson` only, instead of `load_mbps`: mean time between transfers
    /// per direction, ms (default 50, the `reverse` study).
    #[serde(default)]
    pub mean_interarrival_ms: Option<f64>,
    /// Transfer sizes. Default: `poisson`, the `reverse` study's mix;
    /// `surge`, SURGE's file sizes (lognormal body, Pareto tail).
    #[serde(default)]
    pub sizes: Option<SizeSpec>,
    /// `surge` only: the session structure.
    #[serde(default)]
    pub session: Option<SessionSpec>,
    /// Round-trip time of each transfer (`poisson`) or session (`surge`);
    /// default: the path's own (zero-delay host links around the core).
    #[serde(default)]
    pub rtt: Option<RttSpec>,
    /// Congestion-control algorithm (default `reno`).
    #[serde(default = "default_algorithm")]
    pub algorithm: String,
    /// Algorithm parameter overrides.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// TCP options of every transfer (over the scenario's `tcp`).
    #[serde(default)]
    pub tcp: TcpOptions,
    /// First arrivals from this time, s.
    #[serde(default)]
    pub start_s: f64,
    /// No transfer starts at or after this time, s (default: the end).
    #[serde(default)]
    pub stop_s: Option<f64>,
}

impl ScaleTime for WebSpec {
    /// Quick mode: the start and stop times move with the run's axis.
    fn scale_time(&mut self, factor: f64) {
        self.start_s *= factor;
        scale_opt(&mut self.stop_s, factor);
    }
}

/// One direction of a web generator, running.
#[derive(Debug)]
pub struct WebSource {
    /// Its traffic class.
    pub class: u32,
    /// Its host group (index into the network's group routes).
    pub group: usize,
    /// TCP setup of its transfers.
    pub proto: TcpProto,
    /// Round-trip-time distribution, if any.
    pub rtt: Option<RttSampler>,
    /// SURGE session structure (`None`: Poisson transfers).
    pub session: Option<SessionSpec>,
    sizer: Sizer,
    /// Mean time between arrivals (transfers or sessions), s.
    mean_gap_s: f64,
    start: Time,
    /// No arrival, session step or transfer at or after this time.
    pub stop: Time,
    arrivals: Stream,
    sizes: Stream,
    rtts: Stream,
    sessions: Stream,
}

/// Expands web generator `g` into one source per direction, adding classes
/// and host groups.
pub fn sources(
    sc: &Scenario,
    g: usize,
    spec: &WebSpec,
    classes: &mut Vec<ClassInfo>,
    groups: &mut Vec<GroupSpec>,
) -> Result<Vec<WebSource>, ScenarioError> {
    let at = format!("traffic.web[{g}]");
    check_window(&at, spec.start_s, spec.stop_s, sc.duration_s)?;
    let proto = TcpProto::new(&at, &spec.algorithm, &spec.params, &spec.tcp, sc)?;
    let mss = proto.cfg.mss();
    let sizes = spec.sizes.clone().unwrap_or(match spec.model {
        WebModel::Poisson => SizeSpec::reverse_mix(),
        WebModel::Surge => SizeSpec::surge(),
    });
    sizes.validate(&format!("{at}.sizes"))?;
    let sizer = Sizer::new(&sizes, mss);
    let bits_per_transfer = sizer.mean_pkts() * f64::from(sc.packet_size) * 8.0;
    let session = match (spec.model, &spec.session) {
        (WebModel::Poisson, Some(_)) => {
            return Err(ScenarioError::new(
                format!("{at}.session"),
                "only the surge model has sessions",
            ))
        }
        (WebModel::Poisson, None) => None,
        (WebModel::Surge, s) => {
            let s = s.clone().unwrap_or_default();
            s.validate(&format!("{at}.session"))?;
            Some(s)
        }
    };
    let bits_per_arrival = match &session {
        None => bits_per_transfer,
        Some(s) => bits_per_transfer * s.pages_mean * s.mean_objects(),
    };
    let target_bps = match (spec.load_mbps, spec.mean_interarrival_ms, spec.model) {
        (Some(_), Some(_), _) => {
            return Err(ScenarioError::new(
                format!("{at}.mean_interarrival_ms"),
                "give load_mbps or mean_interarrival_ms, not both",
            ))
        }
        (None, Some(_), WebModel::Surge) => {
            return Err(ScenarioError::new(
                format!("{at}.mean_interarrival_ms"),
                "a surge source is set by load_mbps",
            ))
        }
        (Some(l), None, _) => {
            check_pos(&format!("{at}.load_mbps"), l, 1e7)?;
            l * 1e6
        }
        (None, gap, WebModel::Poisson) => {
            let gap = gap.unwrap_or(REVERSE_MEAN_INTERARRIVAL_MS);
            check_pos(&format!("{at}.mean_interarrival_ms"), gap, 1e9)?;
            bits_per_transfer / (gap / 1e3)
        }
        (None, None, WebModel::Surge) => YEAH_LOAD_MBPS * 1e6,
    };
    let rtt = spec
        .rtt
        .as_ref()
        .map(|r| RttSampler::new(r, &format!("{at}.rtt")))
        .transpose()?;
    let ends = Endpoints {
        at: &at,
        directions: spec.direction,
        from: spec.from,
        to: spec.to,
        path: spec.path.as_deref(),
    };
    let base = spec.name.clone().unwrap_or_else(|| format!("web{g}"));
    let stop = Time::from_secs_f64(spec.stop_s.unwrap_or(sc.duration_s).min(sc.duration_s));
    let mut out = Vec::new();
    for (d, place) in ends.place(&sc.topology)?.into_iter().enumerate() {
        let class = classes.len() as u32;
        let name = format!("{base}{}", place.suffix);
        classes.push(ClassInfo {
            name: name.clone(),
            kind: ClassKind::Web,
            direction: place.direction,
            target_bps: Some(target_bps),
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
        let index = ((g as u64) << 1) | d as u64;
        out.push(WebSource {
            class,
            group,
            proto: proto.clone(),
            rtt: rtt.clone(),
            session: session.clone(),
            sizer: sizer.clone(),
            mean_gap_s: bits_per_arrival / target_bps,
            start: Time::from_secs_f64(spec.start_s),
            stop,
            arrivals: stream(sc.seed, purpose::WEB_ARRIVAL, index),
            sizes: stream(sc.seed, purpose::WEB_SIZE, index),
            rtts: stream(sc.seed, purpose::WEB_RTT, index),
            sessions: stream(sc.seed, purpose::WEB_SESSION, index),
        });
    }
    Ok(out)
}

impl WebSource {
    /// A time between arrivals (transfers or sessions), s.
    pub fn gap_s(&mut self) -> f64 {
        exponential(&mut self.arrivals, self.mean_gap_s)
    }

    /// The time of the arrival after one at `after` (the first: after the
    /// start), if it falls before the stop.
    pub fn next_arrival(&mut self, after: Option<Time>) -> Option<Time> {
        let from = after.unwrap_or(self.start);
        let t = from + Time::from_secs_f64(self.gap_s());
        (t < self.stop).then_some(t)
    }

    /// When arrivals begin.
    pub fn start(&self) -> Time {
        self.start
    }

    /// How long before the start session arrivals are generated: ten mean
    /// session spans, `(E[pages] - 1) E[think] + E[pages] (E[files] - 1)
    /// E[active OFF]`, within 10 s ..= 1e5 s (0 for a Poisson source). A session
    /// older than that is still requesting files with probability about
    /// `E[pages] P(think > preroll)`, below 1e-3 with SURGE's defaults.
    pub fn preroll_s(&self) -> f64 {
        let Some(s) = &self.session else {
            return 0.0;
        };
        let think = s.think_alpha * s.think_scale_s / (s.think_alpha - 1.0);
        let active =
            s.active_off_scale_s * super::dist::ln_gamma(1.0 + 1.0 / s.active_off_shape).exp();
        let span = (s.pages_mean - 1.0) * think + s.pages_mean * (s.mean_objects() - 1.0) * active;
        (10.0 * span).clamp(10.0, 1e5)
    }

    /// A new session of source `source`: its client's RTT, pages and first page's files.
    pub fn new_session(&mut self, source: u32) -> Session {
        let rtt_ms = self.draw_rtt_ms();
        let pages_left = self.draw_pages();
        let objects_left = self.draw_objects();
        Session {
            source,
            rtt_ms,
            pages_left,
            objects_left,
        }
    }

    /// The session's current file has been requested: moves to the next
    /// one and returns the time until it (active OFF within a page, think
    /// time to the next page), or `None` when the session is over.
    pub fn next_in_session(&mut self, sess: &mut Session) -> Option<Time> {
        sess.objects_left -= 1;
        if sess.objects_left > 0 {
            Some(self.draw_active_off())
        } else if sess.pages_left > 1 {
            sess.pages_left -= 1;
            sess.objects_left = self.draw_objects();
            Some(self.draw_think())
        } else {
            None
        }
    }

    /// A transfer size.
    pub fn draw_size(&mut self) -> Drawn {
        self.sizer.sample(&mut self.sizes)
    }

    /// A round-trip time, ms (`None` without an RTT distribution).
    pub fn draw_rtt_ms(&mut self) -> Option<f64> {
        let r = self.rtt.as_ref()?;
        Some(r.sample(&mut self.rtts))
    }

    fn session_spec(&self) -> &SessionSpec {
        self.session.as_ref().expect("a surge source")
    }

    /// Pages of a new session (geometric with the configured mean).
    fn draw_pages(&mut self) -> u32 {
        let mean = self.session_spec().pages_mean;
        if mean <= 1.0 {
            return 1;
        }
        let q = 1.0 - 1.0 / mean;
        let u = super::dist::unit_open(&mut self.sessions);
        (1.0 + (u.ln() / q.ln()).floor()).min(1e6) as u32
    }

    /// Files of a new page.
    fn draw_objects(&mut self) -> u32 {
        let s = self.session_spec();
        let (alpha, max) = (s.objects_alpha, s.max_objects);
        let x = pareto(&mut self.sessions, 1.0, alpha).floor();
        x.min(f64::from(max)) as u32
    }

    /// An active OFF time (between the requests of one page).
    fn draw_active_off(&mut self) -> Time {
        let s = self.session_spec();
        let (shape, scale) = (s.active_off_shape, s.active_off_scale_s);
        Time::from_secs_f64(weibull(&mut self.sessions, shape, scale))
    }

    /// An inactive OFF (think) time, between pages.
    fn draw_think(&mut self) -> Time {
        let s = self.session_spec();
        let (k, alpha) = (s.think_scale_s, s.think_alpha);
        Time::from_secs_f64(pareto(&mut self.sessions, k, alpha).min(1e7))
    }
}

/// A SURGE session in progress: its source, its client's RTT and what is
/// left of it. One pending event per session drives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Session {
    /// Index of the web source.
    pub source: u32,
    /// The client's round-trip time, ms, if drawn.
    pub rtt_ms: Option<f64>,
    /// Pages left, the current one included.
    pub pages_left: u32,
    /// Files of the current page still to request.
    pub objects_left: u32,
}

/// Sessions in progress, in reusable slots.
#[derive(Debug, Default)]
pub struct Sessions {
    slots: Vec<Session>,
    free: Vec<u32>,
}

impl Sessions {
    /// Stores `s`, returning its id.
    pub fn insert(&mut self, s: Session) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = s;
                id
            }
            None => {
                self.slots.push(s);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// The session `id`.
    pub fn get_mut(&mut self, id: u32) -> &mut Session {
        &mut self.slots[id as usize]
    }

    /// Frees `id` (its event must not fire again).
    pub fn remove(&mut self, id: u32) {
        self.free.push(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::from_json;

    fn scenario(web: &str) -> Scenario {
        from_json(&format!(
            r#"{{"duration_s": 100, "topology": {{"kind": "dumbbell",
                "bottleneck": {{"rate_mbps": 100, "delay_ms": 10}}}},
                "flows": [], "traffic": {{"web": [{web}]}}}}"#
        ))
        .unwrap()
    }

    fn build(web: &str) -> Result<(Vec<WebSource>, Vec<ClassInfo>), ScenarioError> {
        let sc = scenario(web);
        let mut classes = Vec::new();
        let mut groups = Vec::new();
        let s = sources(&sc, 0, &sc.traffic.web[0], &mut classes, &mut groups)?;
        Ok((s, classes))
    }

    #[test]
    fn reverse_preset_is_the_default_poisson_source() {
        let (s, classes) = build(r#"{"direction": "both"}"#).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(classes[0].name, "web0.fwd");
        assert_eq!(classes[1].name, "web0.rev");
        assert!((s[0].mean_gap_s - 0.05).abs() < 1e-12);
        // 24.3 packets x 1500 B x 8 / 50 ms.
        assert!((classes[0].target_bps.unwrap() - 5.832e6).abs() < 1e-3);
    }

    #[test]
    fn a_target_load_sets_the_arrival_rate() {
        let (s, _) = build(r#"{"load_mbps": 11.664}"#).unwrap();
        assert!((s[0].mean_gap_s - 0.025).abs() < 1e-12);
    }

    #[test]
    fn surge_session_rate_follows_from_pages_objects_and_sizes() {
        let (mut s, classes) = build(r#"{"model": "surge", "direction": "reverse"}"#).unwrap();
        let src = &mut s[0];
        assert_eq!(classes[0].target_bps, Some(4e6));
        let objects = src.session_spec().mean_objects();
        assert!((objects - 1.37).abs() < 0.01, "{objects}");
        let bits = src.sizer.mean_pkts() * 1500.0 * 8.0 * 5.0 * objects;
        assert!((src.mean_gap_s - bits / 4e6).abs() < 1e-12);
        let n = 100_000;
        let pages: f64 = (0..n).map(|_| f64::from(src.draw_pages())).sum::<f64>() / n as f64;
        assert!((pages - 5.0).abs() < 0.05, "{pages}");
        let objs: f64 = (0..n).map(|_| f64::from(src.draw_objects())).sum::<f64>() / n as f64;
        assert!((objs - objects).abs() < 0.02, "{objs}");
    }

    #[test]
    fn conflicting_fields_are_named() {
        let e = build(r#"{"load_mbps": 5, "mean_interarrival_ms": 50}"#).unwrap_err();
        assert_eq!(e.field, "traffic.web[0].mean_interarrival_ms");
        let e = build(r#"{"session": {}}"#).unwrap_err();
        assert_eq!(e.field, "traffic.web[0].session");
        let e = build(r#"{"model": "surge", "session": {"pages_mean": 0.5}}"#).unwrap_err();
        assert_eq!(e.field, "traffic.web[0].session.pages_mean");
        let e = build(r#"{"from": 1, "to": 2}"#).unwrap_err();
        assert_eq!(e.field, "traffic.web[0].from");
        let e = build(r#"{"algorithm": "nope"}"#).unwrap_err();
        assert_eq!(e.field, "traffic.web[0].algorithm");
        let e = build(r#"{"load_mbps": -1}"#).unwrap_err();
        assert!(e.message.contains("allowed 0 < value"), "{e}");
    }

    #[test]
    fn arrivals_stop_at_the_stop_time() {
        let (mut s, _) = build(r#"{"start_s": 10, "stop_s": 20}"#).unwrap();
        let src = &mut s[0];
        let mut t = src.next_arrival(None);
        let mut n = 0;
        while let Some(x) = t {
            assert!(x > Time::from_secs(10) && x < Time::from_secs(20));
            n += 1;
            t = src.next_arrival(Some(x));
        }
        // 10 s at 20 arrivals/s.
        assert!((150..250).contains(&n), "{n}");
    }
}
