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
}
