//! Piecewise-constant link parameters over time (a rate or a delay that
//! changes at scheduled instants), looked up by a cursor that only moves
//! forward: a link asks for the value at non-decreasing times, so each
//! lookup is amortized O(1) and no event is needed for a change.

use crate::scenario::ScenarioError;
use crate::time::Time;
use tcpeval_cc::Shown;

/// A value that holds `initial` until the first change and `changes[i].1`
/// from `changes[i].0` on. Change times strictly increase.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    changes: Vec<(Time, f64)>,
    next: usize,
    current: f64,
}

impl Schedule {
    /// A schedule starting at `initial`; `changes` must have strictly increasing times.
    pub fn new(initial: f64, changes: Vec<(Time, f64)>) -> Self {
        debug_assert!(changes.windows(2).all(|w| w[0].0 < w[1].0));
        Schedule {
            changes,
            next: 0,
            current: initial,
        }
    }

    /// The value in force at `t` (a change at exactly `t` applies).
    /// `t` must not decrease from one call to the next.
    pub fn at(&mut self, t: Time) -> f64 {
        while let Some(&(when, v)) = self.changes.get(self.next) {
            if when > t {
                break;
            }
            self.current = v;
            self.next += 1;
        }
        self.current
    }
}

/// Validates a `[[time_s, value], ...]` list: times in `0 ..= 1e7` s and
/// strictly increasing, each value in `lo ..= hi` (`lo` excluded when
/// `positive`). Returns the changes with times converted.
pub fn parse_changes(
    field: &str,
    pairs: &[(f64, f64)],
    lo: f64,
    hi: f64,
    positive: bool,
) -> Result<Vec<(Time, f64)>, ScenarioError> {
    let mut out: Vec<(Time, f64)> = Vec::with_capacity(pairs.len());
    let mut last = -1.0;
    for (i, &(t, v)) in pairs.iter().enumerate() {
        if !(t > last && (0.0..=1e7).contains(&t)) {
            return Err(ScenarioError::new(
                format!("{field}[{i}]"),
                format!(
                    "time {} s is out of range; allowed {} < time <= 1e7, increasing",
                    Shown(t),
                    Shown(last.max(0.0))
                ),
            ));
        }
        let ok = v.is_finite() && v <= hi && if positive { v > lo } else { v >= lo };
        if !ok {
            let op = if positive { "<" } else { "<=" };
            return Err(ScenarioError::new(
                format!("{field}[{i}]"),
                format!(
                    "value {} is out of range; allowed {} {op} value <= {}",
                    Shown(v),
                    Shown(lo),
                    Shown(hi)
                ),
            ));
        }
        last = t;
        out.push((Time::from_secs_f64(t), v));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_change_at_their_times() {
        let mut s = Schedule::new(
            10.0,
            vec![(Time::from_secs(1), 20.0), (Time::from_secs(2), 5.0)],
        );
        assert_eq!(s.at(Time::ZERO), 10.0);
        assert_eq!(s.at(Time::from_ms(999)), 10.0);
        assert_eq!(s.at(Time::from_secs(1)), 20.0);
        assert_eq!(s.at(Time::from_secs(5)), 5.0);
    }

    #[test]
    fn bad_lists_name_the_entry() {
        let e = parse_changes("l.rate_schedule", &[(1.0, 5.0), (1.0, 6.0)], 0.0, 1e7, true)
            .unwrap_err();
        assert_eq!(e.field, "l.rate_schedule[1]");
        let e = parse_changes("l.rate_schedule", &[(1.0, 0.0)], 0.0, 1e7, true).unwrap_err();
        assert!(e.message.contains("allowed 0 < value"), "{e}");
        let ok = parse_changes(
            "l.delay_schedule",
            &[(0.0, 0.0), (3.5, 20.0)],
            0.0,
            1e5,
            false,
        )
        .unwrap();
        assert_eq!(ok[1], (Time::from_ms(3500), 20.0));
    }
}
