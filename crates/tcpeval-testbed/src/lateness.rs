//! The delay line's own error: how late each frame left after its due time
//! (arrival + configured delay), kept as a histogram of 1-us buckets.

use serde::Serialize;

/// Buckets of 1 us; lateness of this many us or more lands in the last one
/// (its exact value still counts in [`Lateness::max_us`]).
pub const BUCKETS: usize = 20_000;

/// Histogram of lateness, us.
#[derive(Clone, Debug)]
pub struct Lateness {
    counts: Vec<u64>,
    total: u64,
    max_ns: u64,
    sum_ns: u128,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            counts: vec![0; BUCKETS],
            total: 0,
            max_ns: 0,
            sum_ns: 0,
        }
    }
}

/// Percentiles of a lateness histogram, us (0 without frames).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LatenessSummary {
    /// Frames measured.
    pub frames: u64,
    /// Mean, us.
    pub mean_us: f64,
    /// Median, us (upper edge of its 1-us bucket).
    pub p50_us: f64,
    /// 99th percentile, us (upper edge of its bucket).
    pub p99_us: f64,
    /// 99.9th percentile, us (upper edge of its bucket).
    pub p999_us: f64,
    /// Largest, us (exact).
    pub max_us: f64,
}

impl Lateness {
    /// Records one frame that left `late_ns` after its due time.
    pub fn record(&mut self, late_ns: u64) {
        let b = ((late_ns / 1000) as usize).min(BUCKETS - 1);
        self.counts[b] += 1;
        self.total += 1;
        self.max_ns = self.max_ns.max(late_ns);
        self.sum_ns += u128::from(late_ns);
    }

    /// Adds another histogram's frames.
    pub fn merge(&mut self, other: &Lateness) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.total += other.total;
        self.max_ns = self.max_ns.max(other.max_ns);
        self.sum_ns += other.sum_ns;
    }

    /// Largest lateness, us.
    pub fn max_us(&self) -> f64 {
        self.max_ns as f64 / 1e3
    }

    /// The `q`-quantile (0..=1), us: the upper edge of the first bucket at
    /// which the cumulative count reaches `ceil(q * frames)`; the exact
    /// maximum if that is the overflow bucket.
    pub fn quantile_us(&self, q: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut cum = 0;
        for (i, c) in self.counts.iter().enumerate() {
            cum += c;
            if cum >= rank {
                return if i == BUCKETS - 1 {
                    self.max_us()
                } else {
                    ((i + 1) as f64).min(self.max_us())
                };
            }
        }
        self.max_us()
    }

    /// Frames, mean and percentiles.
    pub fn summary(&self) -> LatenessSummary {
        LatenessSummary {
            frames: self.total,
            mean_us: if self.total == 0 {
                0.0
            } else {
                self.sum_ns as f64 / self.total as f64 / 1e3
            },
            p50_us: self.quantile_us(0.5),
            p99_us: self.quantile_us(0.99),
            p999_us: self.quantile_us(0.999),
            max_us: self.max_us(),
        }
    }
}

/// Lateness from which a frame counts as part of a late spell, ns: above
/// it the frames that should have been spread out leave together, so the
/// flow's ACK clock arrives as a burst (1 ms is ~4 frames at 50 Mbit/s,
/// ~80 at 1 Gbit/s).
pub const SPELL_THRESHOLD_NS: u64 = 1_000_000;
/// Most spells kept per direction; later ones are only counted.
pub const MAX_SPELLS: usize = 100_000;

/// A run of consecutive frames that each left at least
/// [`SPELL_THRESHOLD_NS`] late: one stall of the delay line, seen from the
/// frames it held up.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LateSpell {
    /// When the spell's first frame was due, s from the run's time zero
    /// (set by the run from [`LateSpell::due_ns`]; negative before it).
    pub at_s: f64,
    /// Its first frame's due time, `CLOCK_MONOTONIC` ns.
    #[serde(skip)]
    pub due_ns: u64,
    /// The latest frame of the spell, us.
    pub worst_us: f64,
    /// Frames in the spell.
    pub frames: u64,
}

/// The late spells of one direction, in time order.
#[derive(Clone, Debug, Default)]
pub struct Spells {
    list: Vec<LateSpell>,
    open: bool,
    dropped: u64,
}

impl Spells {
    /// Notes one frame due at `due_ns` that left `late_ns` after it: a late
    /// frame joins the open spell or opens one; a timely frame closes it.
    pub fn record(&mut self, due_ns: u64, late_ns: u64) {
        if late_ns < SPELL_THRESHOLD_NS {
            self.open = false;
            return;
        }
        let late_us = late_ns as f64 / 1e3;
        if self.open {
            if let Some(s) = self.list.last_mut() {
                s.worst_us = s.worst_us.max(late_us);
                s.frames += 1;
            }
            return;
        }
        self.open = true;
        if self.list.len() >= MAX_SPELLS {
            self.dropped += 1;
            self.open = false;
            return;
        }
        self.list.push(LateSpell {
            at_s: 0.0,
            due_ns,
            worst_us: late_us,
            frames: 1,
        });
    }

    /// The spells kept, and how many more were only counted.
    pub fn finish(self) -> (Vec<LateSpell>, u64) {
        (self.list, self.dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_upper_bucket_edges_capped_by_the_maximum() {
        let mut l = Lateness::default();
        // 98 frames 0.5 us late, one 7.2 us, one 30 ms (overflow bucket).
        for _ in 0..98 {
            l.record(500);
        }
        l.record(7_200);
        l.record(30_000_000);
        let s = l.summary();
        assert_eq!(s.frames, 100);
        assert_eq!(s.p50_us, 1.0); // rank 50 is a 0.5 us frame: bucket [0, 1)
        assert_eq!(s.p99_us, 8.0); // rank 99 is the 7.2 us frame: bucket [7, 8)
        assert_eq!(s.max_us, 30_000.0);
        assert_eq!(s.p999_us, 30_000.0); // rank 100: the overflow bucket gives the exact max
        assert!((s.mean_us - (98.0 * 0.5 + 7.2 + 30_000.0) / 100.0).abs() < 1e-9);
    }

    #[test]
    fn empty_histogram_reports_zeros() {
        assert_eq!(Lateness::default().summary(), LatenessSummary::default());
    }

    #[test]
    fn merge_adds_counts() {
        let mut a = Lateness::default();
        let mut b = Lateness::default();
        a.record(1_500);
        b.record(2_500);
        a.merge(&b);
        assert_eq!(a.summary().frames, 2);
        assert_eq!(a.quantile_us(1.0), 2.5);
    }

    #[test]
    fn consecutive_late_frames_form_one_spell_and_a_timely_frame_ends_it() {
        let mut s = Spells::default();
        s.record(10, 200_000); // timely: no spell
        s.record(20, 1_500_000);
        s.record(30, 4_000_000);
        s.record(40, 2_000_000);
        s.record(50, 999_999); // below the threshold: closes the spell
        s.record(60, 1_000_000);
        let (list, dropped) = s.finish();
        assert_eq!(dropped, 0);
        assert_eq!(list.len(), 2);
        assert_eq!(
            (list[0].due_ns, list[0].frames, list[0].worst_us),
            (20, 3, 4000.0)
        );
        assert_eq!(
            (list[1].due_ns, list[1].frames, list[1].worst_us),
            (60, 1, 1000.0)
        );
    }

    #[test]
    fn spells_beyond_the_cap_are_counted_not_kept() {
        let mut s = Spells::default();
        for i in 0..(MAX_SPELLS as u64 + 3) {
            s.record(2 * i, 2_000_000);
            s.record(2 * i + 1, 0);
        }
        let (list, dropped) = s.finish();
        assert_eq!((list.len(), dropped), (MAX_SPELLS, 3));
    }
}
