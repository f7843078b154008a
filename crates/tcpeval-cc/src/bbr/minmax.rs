//! A windowed running maximum that keeps three samples (Kathleen Nichols'
//! algorithm, as Linux `lib/win_minmax.c` implements it for BBR's
//! bandwidth filter): the best value in the window and the best ones from
//! its later quarters, so the estimate falls back gracefully when the best
//! sample ages out, in O(1) time and space per sample.
//!
//! Times are in whatever unit the caller counts (BBR counts round trips);
//! differences wrap as Linux's `u32` arithmetic does.

/// One sample: `(time, value)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u32,
    v: u64,
}

/// The running-max filter (Linux `struct minmax`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinMax {
    s: [Sample; 3],
}

impl MinMax {
    /// The current estimate: the best value in the window (`minmax_get`).
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Forgets everything: `meas` at `t` is the only sample (`minmax_reset`).
    pub fn reset(&mut self, t: u32, meas: u64) -> u64 {
        self.s = [Sample { t, v: meas }; 3];
        meas
    }

    /// Adds `meas` at time `t` to a window of length `win`
    /// (`minmax_running_max`); returns the estimate.
    pub fn running_max(&mut self, win: u32, t: u32, meas: u64) -> u64 {
        let val = Sample { t, v: meas };
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, meas);
        }
        if val.v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// Ages the samples as the window moves on (`minmax_subwin_update`).
    fn subwin_update(&mut self, win: u32, val: Sample) -> u64 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The whole window passed without a new best: the second
            // choice becomes the best, the third the second; once more if
            // the second was out of the window too.
            self.s = [self.s[1], self.s[2], val];
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window without a new best: take a second
            // choice from the second quarter.
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            // Half the window: a third choice from the second half.
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_maximum_replaces_everything() {
        let mut m = MinMax::default();
        m.reset(0, 0);
        assert_eq!(m.running_max(10, 1, 50), 50);
        assert_eq!(m.running_max(10, 2, 40), 50);
        assert_eq!(m.running_max(10, 3, 60), 60);
        assert_eq!(m.s, [Sample { t: 3, v: 60 }; 3]);
    }

    #[test]
    fn the_best_ages_out_after_the_window_and_the_next_best_takes_over() {
        // Window 10 rounds. 100 at round 0, then 80 at round 3 (past a
        // quarter: second choice), 70 at round 6 (past half: third
        // choice), 60 afterwards. At round 11 the 100 is more than 10
        // rounds old: the estimate falls to 80, at round 14 to 70.
        let mut m = MinMax::default();
        m.reset(0, 100);
        assert_eq!(m.running_max(10, 3, 80), 100);
        assert_eq!(m.running_max(10, 6, 70), 100);
        let mut got = Vec::new();
        for t in 7..=17 {
            got.push((t, m.running_max(10, t, 60)));
        }
        assert_eq!(
            got,
            vec![
                (7, 100),
                (8, 100),
                (9, 100),
                (10, 100),
                (11, 80),
                (12, 80),
                (13, 80),
                (14, 70),
                (15, 70),
                (16, 70),
                (17, 60),
            ]
        );
    }
}
