//! CUBIC (RFC 9438 / RFC 8312; S. Ha, I. Rhee, L. Xu, "CUBIC: A New
//! TCP-Friendly High-Speed TCP Variant", SIGOPS OSR 2008; Linux
//! `net/ipv4/tcp_cubic.c`), with HyStart (S. Ha, I. Rhee, "Taming the
//! Elephants: New TCP Slow Start", 2011).
//!
//! Window function, packets and seconds: `W(t) = C (t - K)^3 + W_max`,
//! `t` the time since the epoch started (the first congestion-avoidance ACK
//! after a reduction), `K = cbrt((W_max - cwnd_epoch) / C)`
//! (= `cbrt(W_max (1 - beta) / C)` right after a beta cut); if
//! `W_max <= cwnd_epoch`, `K = 0` and the origin is `cwnd_epoch`.
//!
//! Per ACK in congestion avoidance (Linux `bictcp_update`, kept in its
//! integer form on the integer window): `target = origin ± floor(C |t + d - K|^3)`
//! with `d` = delay_min (Linux looks one minimum RTT ahead);
//! `cnt = cwnd / (target - cwnd)` if `target > cwnd`, else `100 cwnd`
//! (`plateau_cnt_factor`); before the first loss (`W_max = 0`) `cnt <= 20`.
//! TCP-friendly region (`tcp_friendliness`): `W_est` starts at `cwnd_epoch`
//! and gains one packet per `floor(cwnd s / 8)` packets acked with
//! `s = floor(8 (1 + beta) / (3 (1 - beta)))` = 15 for beta 0.7, i.e.
//! `8/15 = 0.533` packets per RTT (RFC 9438's `α = 3 (1 - beta)/(1 + beta)`
//! = 0.529 in the kernel's integer form); if `W_est > cwnd`,
//! `cnt <= cwnd / (W_est - cwnd)`. Finally `cnt >= 2` (`min_cnt`: at most
//! ×1.5 per RTT, RFC 9438's `target <= 1.5 cwnd`), and growth is
//! `AI(cnt, acked)`. `cnt` is recomputed when cwnd changed or
//! `update_interval_s` (1/32 s) has passed, the cubic term at most once per
//! instant.
//!
//! Loss: the epoch ends; fast convergence — `W_max = floor(cwnd (1 + beta)/2)`
//! if cwnd is below the previous `W_max`, else `W_max = cwnd`;
//! `ssthresh = max(floor(beta cwnd), 2)`. RTO (state Loss): all state is
//! reset (W_max = 0, delay_min, HyStart re-armed), as in Linux. After idle
//! (`TxStart`) the epoch start moves forward by the idle time.
//!
//! delay_min is the minimum RTT sample, ignoring samples within
//! `delay_holdoff_s` (1 s, Linux `HZ`) of the epoch start.
//!
//! HyStart (Linux, default on) runs in slow start once cwnd >= 16, in rounds
//! that end when `snd_una` passes the `snd_nxt` recorded at the round start.
//! It ends slow start (`ssthresh = cwnd`) on either signal:
//! * ACK train: ACKs no more than 2 ms apart extend a train that started at
//!   the round's first ACK; found when the train is longer than delay_min/2
//!   (Linux without pacing);
//! * delay: after 8 RTT samples in the round, found when the round's minimum
//!   RTT exceeds `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)` (Linux up to
//!   ~5.6 used `delay_min / 16`: `hystart_delay_divisor`).
//!
//! Once found, HyStart stays off until an RTO. Interface note: `pkts_acked`
//! may not write the window, so the exit found there is applied at the
//! start of the same ACK's `cong_avoid`; HyStart therefore only runs on ACKs
//! that reach `cong_avoid` (states Open, Disorder, Loss).
//!
//! HyStart++ (`hystart_plus_plus`, off; RFC 9406, which RFC 9438 recommends)
//! replaces HyStart in the initial slow start: see [`crate::hystart_pp`]. Its
//! N_RTT_SAMPLE, MIN/MAX_RTT_THRESH and MIN_RTT_DIVISOR are
//! `hystart_min_samples`, `hystart_delay_min_ms`/`_max_ms` and
//! `hystart_delay_divisor`, whose defaults are the RFC's. It replaces
//! slow start's growth (and Limited Slow-Start) while it runs, ends at the
//! first loss, and after an RTO slow start is standard, as the RFC advises.
//!
//! Differences from the kernel: times are exact instead of jiffies and
//! microseconds (so K and the cubic term are not quantised to 1/1024 s and
//! the cube root is exact), and beta and C are the nominal 0.7 and 0.4 (the
//! kernel holds 717/1024 and 410/1024: set them for bit-level replication;
//! ssthresh differs by at most one packet, and only above 512 packets).
//! RFC 9438's switch of α to 1 once `W_est` passes the previous maximum is
//! not in Linux and not here.
//!
//! CUBIC 2.0-2.2 (Linux 2.6.16-2.6.25 and TCP-Linux's 2.6.22 modules; the
//! `linux-2.6.1x` and `ns2-tcp-linux` platform presets set these, the
//! defaults are today's): `ackratio_comp` divides cnt by the packets-per-ACK
//! estimate (as BIC does, [`crate::common::AckRatio`]); `max_increment`
//! (S_max, 16) floors cnt at `cwnd HZ 8 / (10 S_max delay_min)`, at most
//! S_max packets per RTT per 100 ms of delay_min, where 2.1 applies it only
//! above the origin (`max_increment_above_origin`) and 2.0 kept delay_min in
//! plain jiffies while the formula expects it ×8 (`delay_min_shift = 0`: a
//! floor 8 times higher, 20 packets per second); before the first loss cnt
//! is set to 50 (`no_loss_fixed_cnt`, `no_loss_max_cnt = 50`) after the
//! S_max floor; the final floor is `cnt >= 1` (`min_cnt = 1`); and growth
//! uses the 2.6 counter, +1 per cnt + 1 ACKs (`growth_26`). Read in
//! tcp_cubic.c 2.0 (2.6.16-2.6.18) and TCP-Linux's src/tcp_cubic.c (2.1).
//!
//! Sources of the defaults (read from `tcp_cubic.c`; C and beta also
//! RFC 9438): C = 0.4 (bic_scale 41 × 10/1024), beta = 0.7 (717/1024; 0.8 in
//! 2.6.19-2.6.24), fast convergence and TCP friendliness on, HyStart on with
//! both detectors, low window 16, 8 samples, ACK delta 2 ms, delay clamp
//! [4, 16] ms of delay_min/8, initial_ssthresh 0 (off; applied only with
//! HyStart off, as in Linux), no-loss cap 20, refresh HZ/32, holdoff HZ.

use crate::common::{
    additive_increase, additive_increase_26, floor_product, slow_start_then, AckRatio, GrowthMode,
};
use crate::hystart_pp::{HyStartPp, HyStartPpConfig};
use crate::params::params;
use crate::{AckInfo, AckSample, CaState, CongestionControl, CwndEvent, NamedAlgorithm, Tcb, Time};

params! {
    /// CUBIC's parameters.
    pub struct CubicParams for |p| {
        c: f64 = 0.4, open_low(0.0, 1e6),
            "C, packets/s^3 (0.4; Linux 410/1024)";
        beta: f64 = 0.7, open_low(0.0, 0.99),
            "fraction of cwnd kept after a loss (0.7; Linux 717/1024)";
        fast_convergence: bool = true, unchecked(),
            "W_max = cwnd (1 + beta)/2 after a loss below the previous W_max (on)";
        tcp_friendliness: bool = true, unchecked(),
            "never grow slower than the Reno-equivalent W_est (on)";
        hystart: bool = true, unchecked(),
            "HyStart slow-start exit (Linux on)";
        hystart_ack_train: bool = true, unchecked(),
            "HyStart ACK-train detector (on)";
        hystart_delay: bool = true, unchecked(),
            "HyStart delay-increase detector (on)";
        hystart_plus_plus: bool = false, unchecked(),
            "RFC 9406 HyStart++ in the initial slow start instead of HyStart (off); \
                  it uses hystart_min_samples and the delay clamp and divisor as N_RTT_SAMPLE, \
                  MIN/MAX_RTT_THRESH and MIN_RTT_DIVISOR";
        hystart_css_growth_divisor: u32 = 4, closed(1.0, 1e6),
            "HyStart++ CSS_GROWTH_DIVISOR: CSS grows this much slower than slow start (4)";
        hystart_css_rounds: u32 = 5, closed(1.0, 1e6),
            "HyStart++ CSS_ROUNDS: rounds of CSS before congestion avoidance (5)";
        hystart_ss_limit: u32 = 8, closed(1.0, 1e9),
            "HyStart++ L: most packets one ACK adds in slow start and CSS (8, unpaced)";
        hystart_low_window: u32 = 16, closed(0.0, 1e9),
            "HyStart runs from this cwnd, packets (16)";
        hystart_min_samples: u32 = 8, closed(0.0, 1e6),
            "RTT samples per round before the delay test (8)";
        hystart_ack_delta_ms: f64 = 2.0, closed(0.0, 1e6),
            "largest ACK spacing extending an ACK train, ms (2)";
        hystart_delay_min_ms: f64 = 4.0, closed(0.0, 1e6),
            "lower clamp of the delay threshold, ms (4)";
        hystart_delay_max_ms: f64 = 16.0, with { crate::params::check_range("hystart_delay_max_ms", crate::params::AsF64::as_f64(p.hystart_delay_max_ms), p.hystart_delay_min_ms, 1e6)?; },
            "upper clamp of the delay threshold, ms (16)";
        hystart_delay_divisor: u32 = 8, closed(1.0, 1e6),
            "delay threshold = delay_min / divisor before clamping (8; Linux <= 5.6: 16)";
        initial_ssthresh: f64 = 0.0, closed(0.0, 1e12),
            "initial ssthresh with HyStart off, packets; 0 = unchanged (Linux 0)";
        no_loss_max_cnt: u32 = 20, closed(1.0, 1e9),
            "largest cnt (packets per +1) before the first loss (20)";
        plateau_cnt_factor: u32 = 100, closed(1.0, 1e6),
            "cnt = factor x cwnd when the cubic target is not above cwnd (100)";
        min_cnt: u32 = 2, closed(1.0, 1e9),
            "smallest cnt, packets per +1 (2: at most +50% per RTT)";
        update_interval_s: f64 = 1.0 / 32.0, closed(0.0, 1e6),
            "cnt kept this long while cwnd is unchanged, s (Linux HZ/32)";
        delay_holdoff_s: f64 = 1.0, closed(0.0, 1e6),
            "RTT samples this soon after an epoch start are ignored, s (Linux HZ = 1 s)";
        ackratio_comp: bool = false, unchecked(),
            "divide cnt by the packets-per-ACK estimate (CUBIC 2.0-2.2, Linux 2.6.16-2.6.25; off)";
        max_increment: u32 = 0, closed(0.0, 1e9),
            "S_max cap of CUBIC 2.x, packets per 100 ms of delay_min; 0 = none (0; 16 before 2.6.26)";
        max_increment_above_origin: bool = true, unchecked(),
            "S_max cap only above the origin, t >= K (CUBIC 2.1-2.2: on); off = always (CUBIC 2.0)";
        delay_min_shift: u32 = 3, closed(0.0, 16.0),
            "fixed-point shift of delay_min in the S_max cap (3, CUBIC 2.1+; 0 in CUBIC 2.0: 8x tighter cap)";
        no_loss_fixed_cnt: bool = false, unchecked(),
            "before the first loss set cnt = no_loss_max_cnt instead of capping at it (CUBIC 2.x; off)";
        growth_26: bool = false, unchecked(),
            "2.6-era counter: +1 packet per cnt + 1 ACKs (Linux before 3.19; off)";
    }
}

impl CubicParams {
    /// `K = cbrt(distance / C)`, seconds, for a window `distance` packets below
    /// W_max (RFC 9438 section 4.2, eq. 2: `cbrt(W_max (1 - beta) / C)` after a
    /// cut).
    pub fn k(&self, distance: f64) -> f64 {
        (distance / self.c).cbrt()
    }

    /// CUBIC 2.x's S_max floor on cnt, `cwnd HZ 8 / (10 S_max (delay_min <<
    /// shift))` with delay_min in jiffies, i.e. `floor(0.8 cwnd / (S_max
    /// delay_min_s 2^shift))`: with shift 3, at most S_max packets per RTT per
    /// 100 ms of delay_min. None before a delay_min sample (Linux skips the
    /// cap while delay_min is 0).
    fn smax_min_cnt(&self, cwnd: u32, delay_min: Option<Time>) -> Option<u32> {
        let d = delay_min?.secs() * f64::from(1u32 << self.delay_min_shift);
        let denom = f64::from(self.max_increment) * d * 10.0;
        (denom > 0.0).then(|| {
            (f64::from(cwnd) * 8.0 / denom)
                .floor()
                .min(f64::from(u32::MAX)) as u32
        })
    }

    /// Packets acked per +1 of W_est, times 8 (Linux `beta_scale`).
    fn friendly_scale(&self) -> u32 {
        let s = (8.0 * (1.0 + self.beta) / (3.0 * (1.0 - self.beta))).floor() as u32;
        s.max(8)
    }

    /// HyStart delay threshold over delay_min:
    /// `clamp(delay_min / divisor, delay_min_ms, delay_max_ms)`.
    /// The HyStart++ constants these parameters give (RFC 9406 section 4.3).
    fn hystart_pp_config(&self) -> HyStartPpConfig {
        HyStartPpConfig {
            min_rtt_thresh: Time::from_secs_f64(self.hystart_delay_min_ms / 1e3),
            max_rtt_thresh: Time::from_secs_f64(self.hystart_delay_max_ms / 1e3),
            min_rtt_divisor: self.hystart_delay_divisor,
            n_rtt_sample: self.hystart_min_samples,
            css_growth_divisor: self.hystart_css_growth_divisor,
            css_rounds: self.hystart_css_rounds,
            limit: self.hystart_ss_limit,
        }
    }

    /// HyStart's delay threshold, `clamp(delay_min / divisor, min, max)`:
    /// the same formula as HyStart++'s RttThresh, on the same parameters.
    fn delay_threshold(&self, delay_min: Time) -> Time {
        self.hystart_pp_config().rtt_thresh(delay_min)
    }
}

/// HyStart's per-round state (Linux `bictcp` round fields).
#[derive(Clone, Debug, Default)]
struct HyStart {
    /// An exit point was found; HyStart is off until an RTO.
    found: bool,
    /// Time of the round's first ACK.
    round_start: Time,
    /// The round ends when `snd_una` passes this.
    end_seq: u64,
    /// Time of the last ACK of the current ACK train.
    last_ack: Time,
    /// Minimum RTT of the round so far.
    curr_rtt: Option<Time>,
    /// RTT samples taken in the round (up to `hystart_min_samples`).
    sample_cnt: u32,
}

/// Per-flow CUBIC state.
#[derive(Clone, Debug)]
pub struct Cubic {
    params: CubicParams,
    /// Packets acked per +1 packet.
    cnt: u32,
    /// `cnt` before the ACK-ratio compensation (equal to it without).
    cnt_uncomp: u32,
    /// W_max (0 before the first loss), packets.
    last_max_cwnd: u32,
    /// cwnd when `cnt` was last computed.
    last_cwnd: u32,
    /// When `cnt` was last computed.
    last_time: Time,
    /// Window at the cubic function's plateau, packets.
    origin: u32,
    /// K, seconds from the epoch start to the plateau.
    k: f64,
    /// Minimum RTT sample (holdoff applied).
    delay_min: Option<Time>,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<Time>,
    /// Packets acked since W_est last grew.
    ack_cnt: u32,
    /// W_est, the Reno-equivalent window, packets.
    tcp_cwnd: u32,
    hystart: HyStart,
    /// HyStart++ of the initial slow start (`hystart_plus_plus`; gone after an RTO).
    hystart_pp: Option<HyStartPp>,
    /// ssthresh chosen by HyStart in `pkts_acked`, applied in `cong_avoid`.
    pending_ssthresh: Option<f64>,
    /// Packets per ACK (`ackratio_comp`; Linux `delayed_ack`).
    delayed_ack: AckRatio,
}

impl NamedAlgorithm for Cubic {
    const NAME: &'static str = "cubic";
    const SUMMARY: &'static str =
        "CUBIC (RFC 9438, Linux): cubic window growth around W_max, TCP-friendly region, HyStart";
    type Params = CubicParams;
    fn new(params: CubicParams) -> Self {
        Cubic {
            params,
            cnt: 0,
            cnt_uncomp: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: Time::ZERO,
            origin: 0,
            k: 0.0,
            delay_min: None,
            epoch_start: None,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: HyStart::default(),
            hystart_pp: None,
            pending_ssthresh: None,
            delayed_ack: AckRatio::new(),
        }
    }
}

impl Cubic {
    /// Forgets the window history and delay_min (Linux `bictcp_reset`).
    fn reset(&mut self) {
        *self = Cubic::new(self.params.clone());
    }

    /// Starts a HyStart round at this ACK (Linux `bictcp_hystart_reset`).
    fn hystart_reset(&mut self, tcb: &Tcb) {
        let found = self.hystart.found;
        self.hystart = HyStart {
            found,
            round_start: tcb.now,
            end_seq: tcb.snd_nxt,
            last_ack: tcb.now,
            curr_rtt: None,
            sample_cnt: 0,
        };
    }

    /// One RTT sample in slow start (Linux `hystart_update`).
    fn hystart_update(&mut self, tcb: &Tcb, delay: Time) {
        if tcb.snd_una > self.hystart.end_seq {
            self.hystart_reset(tcb);
        }
        let p = &self.params;
        if tcb.cwnd < f64::from(p.hystart_low_window) {
            return;
        }
        let delay_min = self.delay_min.unwrap_or(delay);
        let hs = &mut self.hystart;
        if p.hystart_ack_train {
            let delta = Time::from_secs_f64(p.hystart_ack_delta_ms / 1e3);
            if tcb.now.saturating_sub(hs.last_ack) <= delta {
                hs.last_ack = tcb.now;
                let threshold = Time::from_ps(delay_min.ps() / 2);
                if tcb.now.saturating_sub(hs.round_start) > threshold {
                    hs.found = true;
                }
            }
        }
        if p.hystart_delay {
            let curr = hs.curr_rtt.map_or(delay, |c| c.min(delay));
            hs.curr_rtt = Some(curr);
            if hs.sample_cnt < p.hystart_min_samples {
                hs.sample_cnt += 1;
            } else if curr > delay_min + p.delay_threshold(delay_min) {
                hs.found = true;
            }
        }
        if self.hystart.found {
            self.pending_ssthresh = Some(tcb.cwnd);
        }
    }

    /// Recomputes `cnt` for the integer window `cwnd` (Linux `bictcp_update`).
    fn update(&mut self, cwnd: u32, acked: u32, now: Time) {
        let p = &self.params;
        self.ack_cnt += acked;
        let interval = Time::from_secs_f64(p.update_interval_s);
        if self.last_cwnd == cwnd && now.saturating_sub(self.last_time) <= interval {
            return;
        }
        let cubic_due = !(self.epoch_start.is_some() && now == self.last_time);
        if !cubic_due {
            self.cnt = self.cnt_uncomp;
        }
        if cubic_due {
            self.last_cwnd = cwnd;
            self.last_time = now;
            let epoch_start = match self.epoch_start {
                Some(t) => t,
                None => {
                    self.epoch_start = Some(now);
                    self.ack_cnt = acked;
                    self.tcp_cwnd = cwnd;
                    if self.last_max_cwnd <= cwnd {
                        self.k = 0.0;
                        self.origin = cwnd;
                    } else {
                        self.k = p.k(f64::from(self.last_max_cwnd - cwnd));
                        self.origin = self.last_max_cwnd;
                    }
                    now
                }
            };
            let d = self.delay_min.unwrap_or(Time::ZERO);
            let t = (now.saturating_sub(epoch_start) + d).secs();
            let offs = (t - self.k).abs();
            let delta = (p.c * offs * offs * offs).floor();
            let origin = f64::from(self.origin);
            let target = if t < self.k {
                origin - delta
            } else {
                origin + delta
            };
            let w = f64::from(cwnd);
            self.cnt = if target > w {
                (w / (target - w)).floor() as u32
            } else {
                p.plateau_cnt_factor.saturating_mul(cwnd)
            };
            if p.max_increment > 0 && (t >= self.k || !p.max_increment_above_origin) {
                if let Some(min_cnt) = p.smax_min_cnt(cwnd, self.delay_min) {
                    self.cnt = self.cnt.max(min_cnt);
                }
            }
            if self.last_max_cwnd == 0 {
                self.cnt = if p.no_loss_fixed_cnt {
                    p.no_loss_max_cnt
                } else {
                    self.cnt.min(p.no_loss_max_cnt)
                };
            }
        }
        if p.tcp_friendliness {
            let acks_per_step = ((u64::from(cwnd) * u64::from(p.friendly_scale())) >> 3).max(1);
            let acks_per_step = acks_per_step.min(u64::from(u32::MAX)) as u32;
            while self.ack_cnt > acks_per_step {
                self.ack_cnt -= acks_per_step;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt_uncomp = self.cnt.max(p.min_cnt);
        self.cnt = if p.ackratio_comp {
            self.delayed_ack.compensate(self.cnt).max(p.min_cnt)
        } else {
            self.cnt_uncomp
        };
    }
}

impl CongestionControl for Cubic {
    /// The 2.6 module set no `min_cwnd`, so rate halving stopped at
    /// ssthresh (Linux 2.6 `tcp_cwnd_min`).
    fn min_cwnd(&self, tcb: &Tcb) -> f64 {
        tcb.ssthresh
    }

    fn init(&mut self, tcb: &mut Tcb) {
        self.reset();
        if self.params.hystart_plus_plus {
            self.hystart_pp = Some(HyStartPp::new(self.params.hystart_pp_config(), tcb));
        } else if self.params.hystart {
            self.hystart_reset(tcb);
        } else if self.params.initial_ssthresh > 0.0 {
            tcb.ssthresh = self.params.initial_ssthresh;
        }
    }

    fn ssthresh(&mut self, tcb: &Tcb) -> f64 {
        self.epoch_start = None;
        // A slow-start exit found on this ACK is superseded by the loss.
        self.pending_ssthresh = None;
        if let Some(hp) = self.hystart_pp.as_mut() {
            hp.finish();
        }
        let cwnd = tcb.cwnd_pkts();
        let beta = self.params.beta;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd && self.params.fast_convergence {
            floor_product(f64::from(cwnd), (1.0 + beta) / 2.0) as u32
        } else {
            cwnd
        };
        floor_product(f64::from(cwnd), beta).max(2.0)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, ack: &AckInfo) {
        if let Some(s) = self.pending_ssthresh.take() {
            tcb.ssthresh = s;
        }
        let acked = match self.hystart_pp.as_mut() {
            Some(hp) if hp.active() && tcb.in_slow_start() => hp.grow(tcb, ack.acked),
            _ => slow_start_then(tcb, ack.acked),
        };
        if acked == 0 {
            return;
        }
        self.update(tcb.cwnd_pkts(), acked, tcb.now);
        if self.params.growth_26 {
            additive_increase_26(tcb, f64::from(self.cnt), acked);
        } else {
            additive_increase(tcb, GrowthMode::Linux, f64::from(self.cnt), acked);
        }
    }

    fn pkts_acked(&mut self, tcb: &Tcb, sample: &AckSample) {
        if self.params.ackratio_comp && tcb.ca_state == CaState::Open && sample.acked > 0 {
            self.delayed_ack.sample(sample.acked);
        }
        let reaches_cong_avoid = matches!(
            tcb.ca_state,
            CaState::Open | CaState::Disorder | CaState::Loss
        );
        if let Some(hp) = self.hystart_pp.as_mut() {
            if hp.active() && tcb.in_slow_start() && reaches_cong_avoid {
                let delay = sample.rtt.map(|r| r.max(Time::from_us(1)));
                if let Some(s) = hp.on_ack(tcb, delay) {
                    self.pending_ssthresh = Some(s);
                }
            }
        }
        let Some(rtt) = sample.rtt else {
            return;
        };
        if let Some(start) = self.epoch_start {
            if tcb.now.saturating_sub(start) < Time::from_secs_f64(self.params.delay_holdoff_s) {
                return;
            }
        }
        let delay = rtt.max(Time::from_us(1));
        self.delay_min = Some(self.delay_min.map_or(delay, |d| d.min(delay)));
        let linux_hystart = self.params.hystart && !self.params.hystart_plus_plus;
        if linux_hystart && !self.hystart.found && tcb.in_slow_start() && reaches_cong_avoid {
            self.hystart_update(tcb, delay);
        }
    }

    fn set_state(&mut self, tcb: &mut Tcb, new_state: CaState) {
        if new_state == CaState::Loss {
            self.reset();
            self.hystart_reset(tcb);
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, event: CwndEvent) {
        if event == CwndEvent::TxStart {
            if let Some(start) = self.epoch_start {
                // Linux bictcp_cwnd_event: idle time since the last send.
                let idle = tcb.now.saturating_sub(tcb.last_send);
                self.epoch_start = Some((start + idle).min(tcb.now));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Harness;

    fn cubic() -> Cubic {
        Cubic::new(CubicParams::default())
    }

    fn no_hystart() -> Cubic {
        Cubic::new(CubicParams {
            hystart: false,
            ..CubicParams::default()
        })
    }

    /// W(t) = C (t - K)^3 + W_max with K = cbrt(W_max (1 - beta)/C).
    fn w_cubic(w_max: f64, t: f64) -> f64 {
        let k = (w_max * 0.3 / 0.4).cbrt();
        0.4 * (t - k).powi(3) + w_max
    }

    /// A flow that lost at `w_max` and is now at the first ACK of its epoch.
    fn after_loss(cc: Cubic, w_max: f64, rtt: Time) -> Harness<Cubic> {
        let mut h = Harness::new(cc, w_max, 2.0).with_rtt(rtt);
        h.fast_loss();
        h
    }

    #[test]
    fn k_for_three_window_sizes() {
        // RFC 9438 section 4.2, eq. 2: K = cbrt(W_max (1 - beta)/C): 100 ->
        // 4.22 s, 1000 -> 9.09 s, 10000 -> 19.57 s; the epoch starts at 0.7
        // W_max.
        for (w_max, k) in [(100.0, 4.217), (1000.0, 9.086), (10_000.0, 19.574)] {
            let mut h = after_loss(no_hystart(), w_max, Time::from_ms(100));
            assert_eq!(h.tcb.cwnd, 0.7 * w_max);
            h.ack(1, Some(Time::from_ms(100)));
            assert!((h.cc.k - k).abs() < 0.001, "W_max {w_max}: K = {}", h.cc.k);
            assert_eq!(h.cc.origin, w_max as u32);
        }
    }

    #[test]
    fn window_follows_the_cubic_function() {
        // RFC 9438 section 4.2, eq. 1: cwnd(t) = C (t - K)^3 + W_max, cwnd(K) =
        // W_max. Linux aims one minimum RTT ahead, so after one RTT of ACKs the
        // window has caught up with W(t): within 2 packets (integer arithmetic)
        // at every check, plateau included.
        let w_max = 1000.0;
        let rtt = Time::from_ms(100);
        let mut h = after_loss(no_hystart(), w_max, rtt);
        let epoch = h.now() + Time::from_ps(rtt.ps() / 700);
        let k = (w_max * 0.3f64 / 0.4).cbrt();
        let mut checks = vec![1.0, 3.0, 6.0, k, 11.0, 13.0];
        while let Some(&t) = checks.first() {
            h.round();
            let elapsed = (h.now() - epoch).secs();
            if elapsed >= t {
                let w = w_cubic(w_max, elapsed);
                let err = h.tcb.cwnd - w;
                assert!(
                    err.abs() <= 2.0,
                    "t = {elapsed}: cwnd {} vs {w}",
                    h.tcb.cwnd
                );
                checks.remove(0);
            }
        }
    }

    #[test]
    fn growth_is_independent_of_the_rtt() {
        // RFC 9438 section 4.2 (eq. 1 has no RTT): the window is a function of
        // time, not of RTTs.
        let at_5s = |rtt_ms: u64| {
            let rtt = Time::from_ms(rtt_ms);
            let mut h = after_loss(no_hystart(), 1000.0, rtt);
            let end = h.now() + Time::from_secs(5);
            while h.now() < end {
                h.round();
            }
            h.tcb.cwnd
        };
        let (fast, slow) = (at_5s(50), at_5s(200));
        assert!((fast - slow).abs() <= 0.01 * fast, "{fast} vs {slow}");
        assert!((fast - w_cubic(1000.0, 5.0)).abs() <= 10.0);
    }

    #[test]
    fn tcp_friendly_region_at_short_rtt() {
        // RFC 9438 section 4.3 (Reno-friendly region): RTT 10 ms, W_max 100: K
        // = 4.2 s = 420 RTTs, while W_est regains the 30 packets in ~57 RTTs
        // (+8/15 per RTT): cwnd tracks W_est. Without friendliness it would
        // follow W(t) = 81 at 57 RTTs.
        let rtt = Time::from_ms(10);
        let mut h = after_loss(no_hystart(), 100.0, rtt);
        h.rounds(20);
        let at_20 = h.tcb.cwnd;
        h.rounds(37);
        let at_57 = h.tcb.cwnd;
        let per_rtt = (at_57 - at_20) / 37.0;
        assert!((per_rtt - 8.0 / 15.0).abs() < 0.05, "{per_rtt} per RTT");
        assert!((98.0..=101.0).contains(&at_57), "{at_57}");
        let p = CubicParams {
            hystart: false,
            tcp_friendliness: false,
            ..CubicParams::default()
        };
        let mut h = after_loss(Cubic::new(p), 100.0, rtt);
        h.rounds(57);
        let w = w_cubic(100.0, 0.58);
        assert!((h.tcb.cwnd - w).abs() <= 2.0, "{} vs {w}", h.tcb.cwnd);
        assert!(at_57 > h.tcb.cwnd + 15.0);
    }

    #[test]
    fn ssthresh_keeps_seven_tenths_and_fast_convergence() {
        // RFC 9438 section 4.6 / Linux bictcp_recalc_ssthresh: ssthresh =
        // floor(0.7 cwnd).
        for (cwnd, ssthresh) in [(1000.0, 700.0), (90.0, 63.0), (517.0, 361.0), (2.0, 2.0)] {
            let mut h = Harness::new(cubic(), cwnd, 1.0);
            h.fast_loss();
            assert_eq!(h.tcb.ssthresh, ssthresh, "cwnd {cwnd}");
        }
        let mut h = Harness::new(cubic(), 1000.0, 1.0);
        h.fast_loss();
        assert_eq!(h.cc.last_max_cwnd, 1000);
        h.fast_loss(); // at 700 < 1000: W_max = floor(700 * 0.85)
        assert_eq!(h.cc.last_max_cwnd, 595);
        assert_eq!(h.tcb.ssthresh, 490.0);
        let off = CubicParams {
            fast_convergence: false,
            ..CubicParams::default()
        };
        let mut h = Harness::new(Cubic::new(off), 1000.0, 1.0);
        h.fast_loss();
        h.fast_loss();
        assert_eq!(h.cc.last_max_cwnd, 700);
    }

    #[test]
    fn no_loss_yet_grows_at_least_five_percent() {
        // Linux bictcp_update: with W_max = 0, cnt <= 20: 1000 -> +50 in one RTT.
        let mut h = Harness::new(no_hystart(), 1000.0, 2.0).with_rtt(Time::from_ms(100));
        h.round();
        assert_eq!(h.tcb.cwnd, 1050.0);
    }

    #[test]
    fn at_most_half_a_window_per_rtt() {
        // Linux cnt >= 2 (RFC 9438: target <= 1.5 cwnd). With a 2 s RTT the
        // convex part of W(t) outruns 50% per RTT a few RTTs past K = 4.2 s
        // (W_max 100): from then on each RTT adds exactly half the window.
        let mut h = after_loss(no_hystart(), 100.0, Time::from_secs(2));
        let mut capped = 0;
        while h.tcb.cwnd < 2000.0 {
            let c = h.tcb.cwnd;
            h.round();
            let inc = h.tcb.cwnd - c;
            assert!(inc <= (c / 2.0).ceil(), "cwnd {c}: +{inc}");
            if c >= 250.0 {
                assert!(inc >= (c / 2.0).floor(), "cwnd {c}: +{inc}");
                capped += 1;
            }
        }
        assert!(capped >= 3);
    }

    #[test]
    fn hystart_ack_train() {
        // Fixed 100 ms RTT, slow start 10 -> 20 -> 40 -> 80. The round of 80
        // has ACKs 1.25 ms apart (<= 2 ms): the train from the round's first
        // ACK passes delay_min/2 = 50 ms at ACK 42 (1.25 * 41 > 50), when
        // cwnd = 80 + 41: ssthresh = 121.
        let mut h = Harness::new(cubic(), 10.0, f64::INFINITY).with_rtt(Time::from_ms(100));
        h.rounds(3);
        assert_eq!(h.tcb.cwnd, 80.0);
        assert!(h.tcb.ssthresh.is_infinite());
        h.round();
        assert_eq!(h.tcb.ssthresh, 121.0);
        assert!(h.cc.hystart.found);
        // Without the detector the round doubles.
        let p = CubicParams {
            hystart_ack_train: false,
            ..CubicParams::default()
        };
        let mut h = Harness::new(Cubic::new(p), 10.0, f64::INFINITY).with_rtt(Time::from_ms(100));
        h.rounds(4);
        assert_eq!(h.tcb.cwnd, 160.0);
    }

    #[test]
    fn hystart_delay() {
        // 1000 pkt/s behind 100 ms (BDP 100), no buffer limit, ACK train off:
        // rounds of 10, 20, 40, 80 see 100 ms; the round of 160 sees 160 ms >
        // 100 + clamp(100/8, 4, 16) = 112.5 ms. After 8 samples (cwnd 168)
        // the 9th ACK exits: ssthresh = 168.
        let p = CubicParams {
            hystart_ack_train: false,
            ..CubicParams::default()
        };
        let mut h = Harness::new(Cubic::new(p), 10.0, f64::INFINITY).with_bottleneck(
            Time::from_ms(100),
            1000.0,
            f64::INFINITY,
        );
        h.rounds(5);
        assert_eq!(h.tcb.ssthresh, 168.0);
        // With both detectors (default) the ACK train of the round of 80
        // (ACKs 1.25 ms apart, still below the BDP) ends slow start first,
        // at 121 as on a fixed path.
        let mut h = Harness::new(cubic(), 10.0, f64::INFINITY).with_bottleneck(
            Time::from_ms(100),
            1000.0,
            f64::INFINITY,
        );
        h.rounds(5);
        assert_eq!(h.tcb.ssthresh, 121.0);
    }

    #[test]
    fn hystart_delay_threshold_clamp() {
        // Linux hystart_update: clamp(delay_min/8, 4 ms, 16 ms).
        let p = CubicParams::default();
        assert_eq!(p.delay_threshold(Time::from_ms(100)), Time::from_us(12_500));
        assert_eq!(p.delay_threshold(Time::from_ms(10)), Time::from_ms(4));
        assert_eq!(p.delay_threshold(Time::from_ms(400)), Time::from_ms(16));
        let old = CubicParams {
            hystart_delay_divisor: 16,
            ..CubicParams::default()
        };
        assert_eq!(
            old.delay_threshold(Time::from_ms(100)),
            Time::from_us(6_250)
        );
    }

    #[test]
    fn hystart_waits_for_the_low_window() {
        // 50 pkt/s behind 100 ms (BDP 5): the round of 8 already sees 160 ms,
        // but HyStart only acts from cwnd 16: in the round of 16 (320 ms) the
        // 9th ACK exits at cwnd 24.
        let mut h = Harness::new(cubic(), 2.0, f64::INFINITY).with_bottleneck(
            Time::from_ms(100),
            50.0,
            f64::INFINITY,
        );
        h.rounds(3);
        assert_eq!(h.tcb.cwnd, 16.0);
        assert!(h.tcb.ssthresh.is_infinite());
        h.round();
        assert_eq!(h.tcb.ssthresh, 24.0);
    }

    #[test]
    fn rto_resets_everything_and_rearms_hystart() {
        // Linux bictcp_state (Loss) / RFC 9438 section 4.8: W_max = 0,
        // delay_min forgotten, HyStart re-armed.
        let mut h = Harness::new(cubic(), 10.0, f64::INFINITY).with_rtt(Time::from_ms(100));
        h.rounds(4);
        assert!(h.cc.hystart.found);
        let before = h.tcb.cwnd;
        h.rto();
        assert_eq!(h.tcb.ssthresh, floor_product(before, 0.7));
        assert_eq!(h.cc.last_max_cwnd, 0);
        assert_eq!(h.cc.delay_min, None);
        assert!(!h.cc.hystart.found);
        assert_eq!(h.tcb.cwnd, 1.0);
    }

    fn hystart_pp() -> Cubic {
        Cubic::new(CubicParams {
            hystart_plus_plus: true,
            ..CubicParams::default()
        })
    }

    #[test]
    fn hystart_plus_plus_replaces_hystart() {
        // On a fixed 100 ms path the ACK train of the round of 80 ends Linux
        // HyStart at 121 (hystart_ack_train); HyStart++ only watches the
        // round's minimum RTT, which never rises: slow start doubles on.
        let mut h = Harness::new(hystart_pp(), 10.0, f64::INFINITY).with_rtt(Time::from_ms(100));
        h.rounds(4);
        assert_eq!(h.tcb.cwnd, 160.0);
        assert!(h.tcb.ssthresh.is_infinite());
        assert!(!h.cc.hystart.found);
    }

    #[test]
    fn hystart_plus_plus_ends_slow_start_through_css_with_ssthresh_cwnd() {
        // 1000 pkt/s behind 100 ms, no buffer limit: the rounds above the BDP
        // (100) see a higher minimum RTT, CSS follows, and after CSS_ROUNDS
        // congestion avoidance starts with ssthresh = the cwnd of then, no loss.
        let mut h = Harness::new(hystart_pp(), 10.0, f64::INFINITY).with_bottleneck(
            Time::from_ms(100),
            1000.0,
            f64::INFINITY,
        );
        let mut css_seen = false;
        for _ in 0..30 {
            h.round();
            let phase = h.cc.hystart_pp.as_ref().unwrap().phase;
            css_seen |= matches!(phase, crate::hystart_pp::Phase::Css { .. });
            if phase == crate::hystart_pp::Phase::Done {
                break;
            }
        }
        assert!(css_seen);
        assert!(h.tcb.ssthresh.is_finite() && h.tcb.ssthresh > 100.0);
        assert_eq!(h.losses, 0);
        assert!(h.tcb.cwnd >= h.tcb.ssthresh);
    }

    #[test]
    fn hystart_plus_plus_is_for_the_initial_slow_start_only() {
        // RFC 9406: after an RTO slow start is standard (up to ssthresh).
        let mut h = Harness::new(hystart_pp(), 10.0, f64::INFINITY).with_rtt(Time::from_ms(100));
        h.rounds(2);
        h.rto();
        assert!(h.cc.hystart_pp.is_none());
        assert_eq!(h.tcb.ssthresh, 28.0); // floor(40 x 0.7)
                                          // cwnd 1 -> 2 -> 4 -> 8 -> 16 -> 28
                                          // (32 capped at ssthresh).
        h.rounds(5);
        assert_eq!(h.tcb.cwnd, 28.0);
    }

    #[test]
    fn a_loss_supersedes_a_slow_start_exit_not_yet_applied() {
        // HyStart (or HyStart++) finds its exit in pkts_acked and applies it
        // in the next cong_avoid; if the same ACK starts a recovery, the
        // loss's ssthresh must stay after it, not the pre-loss cwnd.
        let mut h = Harness::new(cubic(), 10.0, f64::INFINITY).with_rtt(Time::from_ms(100));
        h.rounds(3);
        assert_eq!(h.tcb.cwnd, 80.0);
        h.cc.pending_ssthresh = Some(h.tcb.cwnd);
        h.fast_loss();
        assert_eq!(h.tcb.ssthresh, 56.0); // floor(80 x 0.7)
        h.ack(1, Some(Time::from_ms(100)));
        assert_eq!(h.tcb.ssthresh, 56.0);
    }

    #[test]
    fn delay_samples_are_held_off_after_an_epoch_start() {
        // Linux bictcp_acked: samples within 1 s of the epoch start are ignored.
        let mut h = after_loss(no_hystart(), 1000.0, Time::from_ms(100));
        h.ack(1, Some(Time::from_ms(100)));
        assert_eq!(h.cc.delay_min, Some(Time::from_ms(100)));
        h.ack(1, Some(Time::from_ms(50)));
        assert_eq!(h.cc.delay_min, Some(Time::from_ms(100)));
        h.advance_to(h.now() + Time::from_secs(1));
        h.ack(1, Some(Time::from_ms(50)));
        assert_eq!(h.cc.delay_min, Some(Time::from_ms(50)));
    }

    #[test]
    fn idle_time_shifts_the_epoch() {
        // Linux bictcp_cwnd_event (CA_EVENT_TX_START): after idle the epoch
        // start moves by the idle time. Linux measures the idle time from the
        // last transmission (`lsndtime`), not from the last ACK, which comes
        // one RTT later.
        let mut h = after_loss(no_hystart(), 1000.0, Time::from_ms(100));
        h.rounds(2);
        let start = h.cc.epoch_start.expect("epoch started");
        let last_send = h.tcb.last_send;
        assert!(last_send > Time::ZERO && last_send < h.now());
        h.advance_to(last_send + Time::from_secs(3));
        let mut tcb = h.tcb.clone();
        h.cc.cwnd_event(&mut tcb, CwndEvent::TxStart);
        assert_eq!(h.cc.epoch_start, Some(start + Time::from_secs(3)));
    }

    #[test]
    fn counting_modes() {
        // Linux bictcp_update: growth uses AI(cnt, acked) and W_est counts
        // acked, so per-packet counting with delayed ACKs matches an ACK per
        // packet, and per-ACK counting halves the friendly-region growth.
        let run = |delack: u32, per_ack: bool| {
            let mut h = after_loss(no_hystart(), 100.0, Time::from_ms(10)).with_delayed_ack(delack);
            if per_ack {
                h = h.with_per_ack_counting();
            }
            h.rounds(40);
            h.tcb.cwnd - 70.0
        };
        let base = run(1, false);
        assert!((base - 40.0 * 8.0 / 15.0).abs() <= 2.0, "{base}");
        assert!((run(2, false) - base).abs() <= 1.0);
        let halved = run(2, true);
        assert!((halved - base / 2.0).abs() <= 2.0, "{halved} vs {base}");
    }

    /// CUBIC right after a loss at W_max = 1000 (cwnd 800, beta 0.8) with
    /// delay_min 100 ms, at its epoch's first ACK: K = cbrt(200 / 0.4) =
    /// 7.937 s, t = 0 + delay_min, target = 1000 - floor(0.4 (7.837)^3) =
    /// 808, so the cubic's own cnt = 800 / 8 = 100.
    fn epoch_start_cnt(p: CubicParams) -> u32 {
        let mut cc = Cubic::new(p);
        cc.last_max_cwnd = 1000;
        cc.delay_min = Some(Time::from_ms(100));
        cc.update(800, 1, Time::from_secs(10));
        cc.cnt
    }

    fn cubic_2_0() -> CubicParams {
        // tcp_cubic.c 2.0 (Linux 2.6.16-2.6.18): S_max 16 on every ACK,
        // delay_min unscaled; the ACK-ratio division is tested separately.
        CubicParams {
            hystart: false,
            beta: 0.8,
            max_increment: 16,
            max_increment_above_origin: false,
            delay_min_shift: 0,
            min_cnt: 1,
            ..CubicParams::default()
        }
    }

    #[test]
    fn smax_cap_of_cubic_2_0_and_2_1() {
        // Without the cap: the cubic's cnt.
        assert_eq!(
            epoch_start_cnt(CubicParams {
                max_increment: 0,
                ..cubic_2_0()
            }),
            100
        );
        // 2.0: min_cnt = cwnd HZ 8 / (10 S_max delay_min_jiffies)
        // = 800 * 8 / (10 * 16 * 0.1) = 400 (2 packets per RTT, not 16).
        assert_eq!(epoch_start_cnt(cubic_2_0()), 400);
        // With delay_min kept x8 (2.1+) the floor is 800 / 16 = 50: no effect.
        let shifted = CubicParams {
            delay_min_shift: 3,
            ..cubic_2_0()
        };
        assert_eq!(
            shifted.smax_min_cnt(800, Some(Time::from_ms(100))),
            Some(50)
        );
        assert_eq!(epoch_start_cnt(shifted), 100);
        // 2.1 applies the cap only above the origin (t >= K); here t < K.
        let above_only = CubicParams {
            max_increment_above_origin: true,
            ..cubic_2_0()
        };
        assert_eq!(epoch_start_cnt(above_only), 100);
        // No delay_min sample yet: no cap (Linux tests delay_min > 0).
        assert_eq!(cubic_2_0().smax_min_cnt(800, None), None);
    }

    #[test]
    fn ackratio_compensation_divides_cnt() {
        // tcp_cubic.c 2.x: cnt = (cnt << 4) / delayed_ack, delayed_ack
        // starting at 2 packets per ACK (32): 400 -> 200.
        let p = CubicParams {
            ackratio_comp: true,
            ..cubic_2_0()
        };
        assert_eq!(epoch_start_cnt(p.clone()), 200);
        // One packet per ACK in the Open state: 32 + 1 - 2 = 31, then stays
        // (31 + 1 - 1); 400 * 16 / 31 = 206.
        let mut cc = Cubic::new(p);
        let tcb = Tcb::new(800.0, 2.0, 1448);
        for _ in 0..50 {
            cc.pkts_acked(
                &tcb,
                &AckSample {
                    acked: 1,
                    rtt: None,
                },
            );
        }
        assert_eq!(cc.delayed_ack.scaled(), 31);
        cc.last_max_cwnd = 1000;
        cc.delay_min = Some(Time::from_ms(100));
        cc.update(800, 1, Time::from_secs(10));
        assert_eq!(cc.cnt, 206);
    }

    #[test]
    fn no_loss_cnt_is_set_in_cubic_2_and_capped_today() {
        // Before any loss the origin is cwnd and the target is flat:
        // cnt = 100 cwnd, then today's cap 20, or CUBIC 2.x's `cnt = 50`.
        let at_start = |p: CubicParams| {
            let mut cc = Cubic::new(p);
            cc.update(100, 1, Time::from_secs(1));
            cc.cnt
        };
        assert_eq!(at_start(no_hystart().params), 20);
        let fixed = CubicParams {
            no_loss_fixed_cnt: true,
            no_loss_max_cnt: 50,
            ..cubic_2_0()
        };
        assert_eq!(at_start(fixed), 50);
    }

    #[test]
    fn growth_26_adds_one_packet_per_cnt_plus_one_acks() {
        // tcp_cubic.c 2.x bictcp_cong_avoid: the ACK that adds a packet
        // resets the counter and is not counted. cnt = 400 (the 2.0 S_max
        // floor) throughout: +1 per 401 ACKs, against +1 per 400 today.
        let after = |growth_26: bool, acks: u32| {
            let p = CubicParams {
                growth_26,
                ..cubic_2_0()
            };
            let mut h = Harness::new(Cubic::new(p), 800.0, 2.0);
            h.cc.last_max_cwnd = 1000;
            h.cc.delay_min = Some(Time::from_ms(100));
            for _ in 0..acks {
                h.ack(1, None);
            }
            assert_eq!(h.cc.cnt, 400);
            h.tcb.cwnd
        };
        assert_eq!(after(true, 1203), 803.0);
        assert_eq!(after(true, 1202), 802.0);
        assert_eq!(after(false, 1200), 803.0);
    }

    #[test]
    fn initial_ssthresh_only_without_hystart() {
        let p = CubicParams {
            hystart: false,
            initial_ssthresh: 100.0,
            ..CubicParams::default()
        };
        assert_eq!(
            Harness::new(Cubic::new(p.clone()), 10.0, f64::INFINITY)
                .tcb
                .ssthresh,
            100.0
        );
        let p = CubicParams { hystart: true, ..p };
        assert!(Harness::new(Cubic::new(p), 10.0, f64::INFINITY)
            .tcb
            .ssthresh
            .is_infinite());
    }
}
