//! The running traffic generators: web sources (Poisson transfers and SURGE
//! sessions) and UDP sources, driven by their own events.
//!
//! The world routes every generator event ([`crate::event::Event::Traffic`])
//! here, with itself as the [`Host`]: a generator draws what it needs from
//! its own random streams, schedules its next event and asks the host to
//! open a transfer or send a datagram. A new kind of generator adds a
//! [`Wake`] variant and its handler here; the world does not change.

use super::sizes::Drawn;
use super::udp::UdpSource;
use super::web::{Sessions, WebSource};
use super::TcpProto;
use crate::event::FlowId;
use crate::time::Time;

/// A generator's event: which generator wakes up, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// A web source (index) starts a transfer or a session.
    WebArrival(u32),
    /// A SURGE session (index) requests its next file.
    Session(u32),
    /// A UDP source (index) sends a packet.
    Udp(u32),
}

/// A finite TCP transfer a generator asks the host to open now.
#[derive(Debug)]
pub struct Transfer<'a> {
    /// Traffic class of the transfer.
    pub class: u32,
    /// Host group whose routes it takes.
    pub group: usize,
    /// Its TCP options and algorithm (the algorithm is cloned).
    pub proto: &'a TcpProto,
    /// The size drawn.
    pub size: Drawn,
    /// The client's round-trip time, ms (`None`: the group's own); never
    /// below the group's propagation RTT.
    pub rtt_ms: Option<f64>,
}

/// What the generators need of the world.
pub trait Host {
    /// The current simulated time.
    fn now(&self) -> Time;
    /// Schedules generator event `wake` at `t`.
    fn schedule(&mut self, t: Time, wake: Wake);
    /// Opens `transfer` now.
    fn start_transfer(&mut self, transfer: Transfer<'_>);
    /// Opens a flow slot for UDP source `source` (class `class`, host group
    /// `group`); returns its flow id.
    fn open_udp_flow(&mut self, class: u32, group: usize) -> FlowId;
    /// Sends a UDP datagram of `size` wire bytes on flow `flow` now.
    fn send_udp(&mut self, flow: FlowId, size: u32);
}

/// Every generator of a run and the SURGE sessions in progress.
#[derive(Debug, Default)]
pub struct Generators {
    web: Vec<WebSource>,
    sessions: Sessions,
    udp: Vec<UdpSource>,
    /// Flow slot of each UDP source.
    udp_flows: Vec<FlowId>,
}

impl Generators {
    /// The generators of a traffic plan, not started.
    pub fn new(web: Vec<WebSource>, udp: Vec<UdpSource>) -> Self {
        Generators {
            web,
            sessions: Sessions::default(),
            udp,
            udp_flows: Vec::new(),
        }
    }

    /// Opens the UDP sources' flows and schedules every generator's first
    /// event: UDP sources first, then web sources (a SURGE source in steady
    /// state: the sessions begun before its start are played forward).
    pub fn start(&mut self, host: &mut impl Host) {
        for src in &self.udp {
            let f = host.open_udp_flow(src.class, src.group);
            self.udp_flows.push(f);
        }
        for (u, src) in self.udp.iter().enumerate() {
            if let Some(t) = src.first() {
                host.schedule(t, Wake::Udp(u as u32));
            }
        }
        for s in 0..self.web.len() {
            if self.web[s].session.is_some() {
                self.preroll(s as u32, host);
            } else if let Some(t) = self.web[s].next_arrival(None) {
                host.schedule(t, Wake::WebArrival(s as u32));
            }
        }
    }

    /// Handles generator event `wake`.
    pub fn handle(&mut self, wake: Wake, host: &mut impl Host) {
        match wake {
            Wake::WebArrival(s) => self.on_web_arrival(s as usize, host),
            Wake::Session(id) => self.session_step(id, host),
            Wake::Udp(u) => self.on_udp(u as usize, host),
        }
    }

    /// Starts SURGE source `s` in steady state: sessions arriving in the
    /// `preroll_s` before its start are played forward without transfers;
    /// those still running at the start are scheduled at their next file,
    /// and the first arrival after the start is scheduled.
    fn preroll(&mut self, s: u32, host: &mut impl Host) {
        let src = &mut self.web[s as usize];
        let start = src.start();
        let mut t = -src.preroll_s();
        loop {
            t += src.gap_s();
            if t >= 0.0 {
                let at = start + Time::from_secs_f64(t);
                if at < src.stop {
                    host.schedule(at, Wake::WebArrival(s));
                }
                return;
            }
            let mut sess = src.new_session(s);
            let mut at = t;
            loop {
                if at >= 0.0 {
                    let when = start + Time::from_secs_f64(at);
                    if when < src.stop {
                        host.schedule(when, Wake::Session(self.sessions.insert(sess)));
                    }
                    break;
                }
                match src.next_in_session(&mut sess) {
                    Some(gap) => at += gap.secs(),
                    None => break,
                }
            }
        }
    }

    fn on_web_arrival(&mut self, s: usize, host: &mut impl Host) {
        let now = host.now();
        let src = &mut self.web[s];
        if let Some(t) = src.next_arrival(Some(now)) {
            host.schedule(t, Wake::WebArrival(s as u32));
        }
        if src.session.is_none() {
            let rtt_ms = src.draw_rtt_ms();
            self.start_transfer(s, rtt_ms, host);
            return;
        }
        let session = src.new_session(s as u32);
        let id = self.sessions.insert(session);
        self.session_step(id, host);
    }

    /// A SURGE session requests its next file now, then waits its active
    /// OFF time (more files on this page) or think time (next page).
    fn session_step(&mut self, id: u32, host: &mut impl Host) {
        let now = host.now();
        let sess = *self.sessions.get_mut(id);
        let s = sess.source as usize;
        if now >= self.web[s].stop {
            self.sessions.remove(id);
            return;
        }
        self.start_transfer(s, sess.rtt_ms, host);
        let src = &mut self.web[s];
        let next = src
            .next_in_session(self.sessions.get_mut(id))
            .map(|gap| now + gap);
        match next {
            Some(t) if t < src.stop => host.schedule(t, Wake::Session(id)),
            _ => self.sessions.remove(id),
        }
    }

    /// Opens a transfer of web source `s` now, with a drawn size, its RTT
    /// raised to `rtt_ms` (see [`Transfer::rtt_ms`]).
    fn start_transfer(&mut self, s: usize, rtt_ms: Option<f64>, host: &mut impl Host) {
        let src = &mut self.web[s];
        let size = src.draw_size();
        host.start_transfer(Transfer {
            class: src.class,
            group: src.group,
            proto: &src.proto,
            size,
            rtt_ms,
        });
    }

    fn on_udp(&mut self, u: usize, host: &mut impl Host) {
        let src = &mut self.udp[u];
        let size = src.size;
        if let Some(t) = src.sent(host.now()) {
            host.schedule(t, Wake::Udp(u as u32));
        }
        host.send_udp(self.udp_flows[u], size);
    }
}
