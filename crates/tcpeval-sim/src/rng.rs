//! Seeded random streams. Every consumer (a link's loss process, a traffic
//! generator, a start-time draw) gets its own stream derived from the
//! scenario seed and a fixed purpose tag, so adding a consumer never shifts
//! the numbers another one sees, and the same seed gives the same run.
//!
//! Every draw from a [`Stream`] is counted ([`draws_on_this_thread`]), so a
//! run can report whether it drew anything at all: a run that drew nothing
//! gives the same results whatever its seed, and a sweep then stores the
//! first seed's result for the others instead of simulating them again.

use std::cell::Cell;

use rand::{Rng, RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

thread_local! {
    /// Draws made by every [`Stream`] on this thread since it started.
    static DRAWS: Cell<u64> = const { Cell::new(0) };
}

/// Random words drawn on this thread so far, by every [`Stream`]. A world
/// counts its own draws as the difference across each of its calls (a
/// world runs on the thread that calls it, so two worlds alive on one
/// thread never mix their counts).
pub fn draws_on_this_thread() -> u64 {
    DRAWS.with(Cell::get)
}

fn note_draw() {
    DRAWS.with(|d| d.set(d.get() + 1));
}

/// A random stream (PCG-64 MCG: fast, small, and stable across versions)
/// that counts its draws (see the module doc); its numbers are the
/// generator's own.
#[derive(Clone, Debug)]
pub struct Stream(Pcg64Mcg);

impl RngCore for Stream {
    fn next_u32(&mut self) -> u32 {
        note_draw();
        self.0.next_u32()
    }

    fn next_u64(&mut self) -> u64 {
        note_draw();
        self.0.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        note_draw();
        self.0.fill_bytes(dest)
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        note_draw();
        self.0.try_fill_bytes(dest)
    }
}

/// SplitMix64 finalizer: a well-mixed 64-bit hash of `x` (also FQ-CoDel's
/// seeded flow hash).
pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The stream for `(seed, purpose, index)`.
pub fn stream(seed: u64, purpose: u64, index: u64) -> Stream {
    let a = mix(seed ^ mix(purpose ^ mix(index)));
    let b = mix(a ^ 0xD1B5_4A32_D192_ED03);
    Stream(Pcg64Mcg::seed_from_u64(a ^ b.rotate_left(32)))
}

/// Purpose tags for [`stream`].
pub mod purpose {
    /// Random loss on a link.
    pub const LINK_LOSS: u64 = 1;
    /// Random start times of flows.
    pub const FLOW_START: u64 = 2;
    /// Arrival times of a web source's transfers or sessions.
    pub const WEB_ARRIVAL: u64 = 3;
    /// Sizes of a web source's transfers.
    pub const WEB_SIZE: u64 = 4;
    /// Round-trip times of a web source's transfers or sessions.
    pub const WEB_RTT: u64 = 5;
    /// Page, object and think-time draws of a SURGE source's sessions.
    pub const WEB_SESSION: u64 = 6;
    /// Round-trip times of a bulk generator's flows.
    pub const BULK_RTT: u64 = 7;
    /// Start times of a bulk generator's flows.
    pub const BULK_START: u64 = 8;
    /// On and off periods of a UDP source.
    pub const UDP_ONOFF: u64 = 9;
    /// Drop draws of a link's queue discipline (index: the link).
    pub const LINK_AQM: u64 = 10;
    /// A congestion-control algorithm's own random choices (index: the
    /// connection, in the order the world makes them).
    pub const CC_RANDOM: u64 = 11;
}

/// One random 64-bit word from the stream for `(seed, purpose, index)`:
/// a seed for a consumer that keeps its own small generator. Not counted
/// as a draw: it is handed over, not used; a consumer that uses it counts
/// its own use (`World`'s congestion-control seeding).
pub fn seed_word(seed: u64, purpose: u64, index: u64) -> u64 {
    stream(seed, purpose, index).0.gen()
}

/// Bernoulli(p) per packet, drawn as geometric gaps between losses so that
/// a tiny p costs one random number per loss, not one per packet.
#[derive(Clone, Debug)]
pub struct BernoulliGaps {
    p: f64,
    /// Packets still to pass before the next loss.
    countdown: u64,
    rng: Stream,
}

impl BernoulliGaps {
    /// A loss process with probability `p` in `[0, 1]`.
    pub fn new(p: f64, mut rng: Stream) -> Self {
        let countdown = Self::gap(p, &mut rng);
        BernoulliGaps { p, countdown, rng }
    }

    /// Number of packets that pass before the next loss (geometric on {0,1,..}).
    fn gap(p: f64, rng: &mut Stream) -> u64 {
        if p <= 0.0 {
            return u64::MAX;
        }
        if p >= 1.0 {
            return 0;
        }
        let u: f64 = 1.0 - rng.gen::<f64>(); // in (0, 1]
        (u.ln() / (1.0 - p).ln()).floor().min(u64::MAX as f64 / 2.0) as u64
    }

    /// True if the next packet is lost.
    pub fn lose_next(&mut self) -> bool {
        if self.countdown == 0 {
            self.countdown = Self::gap(self.p, &mut self.rng);
            true
        } else {
            self.countdown -= 1;
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(stream(1, 1, 0), |r, _| Some(r.gen()))
            .collect();
        let b: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(stream(1, 1, 0), |r, _| Some(r.gen()))
            .collect();
        let c: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(stream(1, 1, 1), |r, _| Some(r.gen()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn draws_are_counted_and_seed_words_are_not() {
        let before = draws_on_this_thread();
        let _ = seed_word(1, purpose::CC_RANDOM, 0);
        assert_eq!(draws_on_this_thread(), before);
        let mut r = stream(1, purpose::LINK_LOSS, 0);
        let _: f64 = r.gen();
        let _: u32 = r.gen();
        assert_eq!(draws_on_this_thread(), before + 2);
        // A zero loss rate never draws, not even its first gap.
        let mut never = BernoulliGaps::new(0.0, stream(1, 1, 1));
        assert!((0..100).all(|_| !never.lose_next()));
        assert_eq!(draws_on_this_thread(), before + 2);
    }

    #[test]
    fn bernoulli_gaps_match_the_rate() {
        // 2e6 packets at p = 1e-3: mean 2000 losses, sd ~ 45.
        let mut g = BernoulliGaps::new(1e-3, stream(42, purpose::LINK_LOSS, 0));
        let losses = (0..2_000_000).filter(|_| g.lose_next()).count();
        assert!((1800..2200).contains(&losses), "losses {losses}");
        let mut never = BernoulliGaps::new(0.0, stream(1, 1, 1));
        assert!((0..10_000).all(|_| !never.lose_next()));
        let mut always = BernoulliGaps::new(1.0, stream(1, 1, 1));
        assert!((0..100).all(|_| always.lose_next()));
    }
}
