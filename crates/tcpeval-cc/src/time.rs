//! Simulated time: an integer count of picoseconds.
//!
//! Integer time keeps runs bit-for-bit deterministic and link timing exact
//! (a 1500-byte packet takes exactly 12 000 000 ps at 1 Gbit/s). A `u64` of
//! picoseconds spans about 213 days, far beyond any study's run length.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// A point in simulated time or a duration, in picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    /// Time zero (also the zero duration).
    pub const ZERO: Time = Time(0);
    /// The largest representable time, used as "never".
    pub const NEVER: Time = Time(u64::MAX);

    const PS_PER_S: f64 = 1e12;

    /// From picoseconds.
    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    /// From nanoseconds.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    /// From microseconds.
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    /// From milliseconds.
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Time {
        Time(s * 1_000_000_000_000)
    }
    /// From seconds as a float, rounded to the nearest picosecond.
    /// Negative or non-finite inputs give zero.
    pub fn from_secs_f64(s: f64) -> Time {
        if s.is_finite() && s > 0.0 {
            Time((s * Self::PS_PER_S).round() as u64)
        } else {
            Time::ZERO
        }
    }
    /// Picoseconds.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Seconds as a float.
    pub fn secs(self) -> f64 {
        self.0 as f64 / Self::PS_PER_S
    }
    /// Milliseconds as a float.
    pub fn millis(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// `self - other`, or zero if `other` is later.
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    /// The duration multiplied by a float factor (rounded to the nearest ps).
    pub fn mul_f64(self, k: f64) -> Time {
        Time::from_secs_f64(self.secs() * k)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 = self.0.saturating_add(rhs.0);
    }
}

impl Sub for Time {
    type Output = Time;
    /// Difference of two times; panics in debug builds if `rhs > self`.
    fn sub(self, rhs: Time) -> Time {
        debug_assert!(rhs.0 <= self.0, "time went backwards");
        Time(self.0.wrapping_sub(rhs.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} s", self.secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_are_exact_for_integers() {
        assert_eq!(Time::from_ms(1).ps(), 1_000_000_000);
        assert_eq!(Time::from_secs(2), Time::from_ms(2000));
        assert_eq!(Time::from_secs_f64(0.1), Time::from_ms(100));
        assert_eq!(
            Time::from_us(5) + Time::from_ns(1),
            Time::from_ps(5_001_000)
        );
        assert_eq!(Time::from_secs_f64(-1.0), Time::ZERO);
        assert!((Time::from_ms(250).secs() - 0.25).abs() < 1e-15);
    }

    #[test]
    fn saturating_ops() {
        assert_eq!(
            Time::from_ms(1).saturating_sub(Time::from_ms(2)),
            Time::ZERO
        );
        assert_eq!(Time::NEVER + Time::from_ms(1), Time::NEVER);
    }
}
