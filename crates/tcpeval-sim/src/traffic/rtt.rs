//! Per-flow round-trip propagation delays drawn from a distribution: fixed,
//! uniform, lognormal, an empirical CDF from a CSV file, or the default
//! Internet distribution shipped with the engine (`data/internet-rtt.csv`;
//! its header and `data/make_internet_rtt.py` say exactly how it was built
//! and how little of it is measured).
//!
//! CDF file format: `#` comment lines, an optional header line, then
//! `rtt_ms,cdf` rows with RTTs strictly increasing, CDF values
//! non-decreasing from 0 (first row: the smallest RTT) to 1 (last row: the
//! largest). Draws interpolate linearly between rows.

use super::dist::lognormal;
use crate::rng::Stream;
use crate::scenario::{check, check_pos, ScenarioError};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// The default Internet RTT table (see the module doc).
pub const INTERNET_RTT_CSV: &str = include_str!("../../data/internet-rtt.csv");

/// How a flow's round-trip propagation delay is chosen, ms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RttSpec {
    /// Every flow gets `ms`.
    Fixed {
        /// RTT, ms (> 0).
        ms: f64,
    },
    /// Uniform in `[min_ms, max_ms]`.
    Uniform {
        /// Smallest RTT, ms (> 0).
        min_ms: f64,
        /// Largest RTT, ms (>= min_ms).
        max_ms: f64,
    },
    /// Lognormal with median `median_ms` and `sigma` on ln(ms).
    Lognormal {
        /// Median, ms (> 0).
        median_ms: f64,
        /// Standard deviation of ln(RTT) (0 < sigma <= 5).
        sigma: f64,
    },
    /// An empirical CDF read from the CSV file at `path` (relative paths
    /// are resolved from the current directory).
    Cdf {
        /// File path.
        path: String,
    },
    /// The default Internet RTT distribution shipped with the engine.
    Internet,
}

#[derive(Clone, Debug)]
enum Kind {
    Fixed(f64),
    Uniform(f64, f64),
    Lognormal {
        mu: f64,
        sigma: f64,
    },
    /// `(rtt_ms, cdf)` rows, validated.
    Table(Vec<(f64, f64)>),
}

/// A validated RTT distribution, ready to draw from.
#[derive(Clone, Debug)]
pub struct RttSampler {
    kind: Kind,
}

/// Parses a CDF table; errors name `at` (the field holding the table's source).
pub fn parse_cdf(text: &str, at: &str) -> Result<Vec<(f64, f64)>, ScenarioError> {
    let mut rows: Vec<(f64, f64)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut cols = line.split(',').map(str::trim);
        let (Some(a), Some(b), None) = (cols.next(), cols.next(), cols.next()) else {
            return Err(ScenarioError::new(
                at,
                format!("line {}: expected two columns `rtt_ms,cdf`", n + 1),
            ));
        };
        match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(p)) if x.is_finite() && p.is_finite() => rows.push((x, p)),
            _ if rows.is_empty() => continue, // a header line
            _ => {
                return Err(ScenarioError::new(
                    at,
                    format!("line {}: '{line}' is not two numbers", n + 1),
                ))
            }
        }
    }
    let bad = |msg: String| Err(ScenarioError::new(at, msg));
    if rows.len() < 2 {
        return bad("a CDF needs at least two rows".into());
    }
    for (i, w) in rows.windows(2).enumerate() {
        if w[1].0 <= w[0].0 {
            return bad(format!("row {}: RTTs must increase", i + 2));
        }
        if w[1].1 < w[0].1 {
            return bad(format!("row {}: CDF values must not decrease", i + 2));
        }
    }
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    if !(first.0 > 0.0 && first.0.is_finite() && last.0 <= 1e6) {
        return bad("RTTs must lie in 0 < rtt_ms <= 1e6".into());
    }
    if first.1 != 0.0 || last.1 != 1.0 {
        return bad("the CDF must start at 0 and end at 1".into());
    }
    Ok(rows)
}

impl RttSampler {
    /// Validates `spec` (field path `at`) and prepares it, reading a CDF file if any.
    pub fn new(spec: &RttSpec, at: &str) -> Result<RttSampler, ScenarioError> {
        let kind = match spec {
            &RttSpec::Fixed { ms } => {
                check_pos(&format!("{at}.ms"), ms, 1e6)?;
                Kind::Fixed(ms)
            }
            &RttSpec::Uniform { min_ms, max_ms } => {
                check_pos(&format!("{at}.min_ms"), min_ms, 1e6)?;
                check(&format!("{at}.max_ms"), max_ms, min_ms, 1e6)?;
                Kind::Uniform(min_ms, max_ms)
            }
            &RttSpec::Lognormal { median_ms, sigma } => {
                check_pos(&format!("{at}.median_ms"), median_ms, 1e6)?;
                check_pos(&format!("{at}.sigma"), sigma, 5.0)?;
                Kind::Lognormal {
                    mu: median_ms.ln(),
                    sigma,
                }
            }
            RttSpec::Cdf { path } => {
                let field = format!("{at}.path");
                let text = std::fs::read_to_string(path).map_err(|e| {
                    ScenarioError::new(field.clone(), format!("cannot read '{path}': {e}"))
                })?;
                Kind::Table(parse_cdf(&text, &field)?)
            }
            RttSpec::Internet => {
                Kind::Table(parse_cdf(INTERNET_RTT_CSV, at).expect("the shipped table is valid"))
            }
        };
        Ok(RttSampler { kind })
    }

    /// The smallest RTT this distribution can give, ms (0 for the lognormal).
    pub fn min_ms(&self) -> f64 {
        match &self.kind {
            Kind::Fixed(v) => *v,
            Kind::Uniform(a, _) => *a,
            Kind::Lognormal { .. } => 0.0,
            Kind::Table(rows) => rows[0].0,
        }
    }

    /// One draw, ms.
    pub fn sample(&self, rng: &mut Stream) -> f64 {
        match &self.kind {
            Kind::Fixed(v) => *v,
            Kind::Uniform(a, b) => a + (b - a) * rng.gen::<f64>(),
            Kind::Lognormal { mu, sigma } => lognormal(rng, *mu, *sigma),
            Kind::Table(rows) => {
                let u: f64 = rng.gen();
                // First row whose CDF exceeds u; interpolate from the one before.
                let j = rows
                    .partition_point(|&(_, p)| p <= u)
                    .clamp(1, rows.len() - 1);
                let (x0, p0) = rows[j - 1];
                let (x1, p1) = rows[j];
                if p1 > p0 {
                    x0 + (x1 - x0) * (u - p0) / (p1 - p0)
                } else {
                    x1
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn the_shipped_table_keeps_its_anchor() {
        let rows = parse_cdf(INTERNET_RTT_CSV, "rtt").unwrap();
        assert_eq!(rows[0], (5.0, 0.0));
        assert_eq!(rows.last().unwrap().1, 1.0);
        let s = RttSampler::new(&RttSpec::Internet, "rtt").unwrap();
        let mut r = stream(1, 5, 0);
        let n = 200_000;
        let below = (0..n).filter(|_| s.sample(&mut r) < 100.0).count() as f64 / n as f64;
        // 60% below 100 ms (Aikat et al.), up to the table's linear interpolation.
        assert!((below - 0.60).abs() < 0.01, "{below}");
        assert_eq!(s.min_ms(), 5.0);
    }

    #[test]
    fn table_draws_interpolate_linearly() {
        let rows = parse_cdf("rtt_ms,cdf\n10,0\n20,0.5\n40,1\n", "f").unwrap();
        let s = RttSampler {
            kind: Kind::Table(rows),
        };
        let mut r = stream(2, 5, 0);
        let n = 100_000;
        let v: Vec<f64> = (0..n).map(|_| s.sample(&mut r)).collect();
        assert!(v.iter().all(|&x| (10.0..=40.0).contains(&x)));
        let below15 = v.iter().filter(|&&x| x < 15.0).count() as f64 / n as f64;
        assert!((below15 - 0.25).abs() < 0.01, "{below15}");
    }

    #[test]
    fn bad_tables_and_parameters_are_rejected() {
        for (text, want) in [
            ("10,0\n5,1\n", "must increase"),
            ("10,0.1\n20,1\n", "start at 0"),
            ("10,0\n20,0.6\n30,0.5\n", "must not decrease"),
            ("10,0\n", "at least two"),
            ("10,0\n20,x\n", "not two numbers"),
        ] {
            let e = parse_cdf(text, "traffic.web[0].rtt.path").unwrap_err();
            assert!(e.message.contains(want), "{text:?}: {e}");
            assert_eq!(e.field, "traffic.web[0].rtt.path");
        }
        let e = RttSampler::new(
            &RttSpec::Cdf {
                path: "/nonexistent/rtt.csv".into(),
            },
            "r",
        )
        .unwrap_err();
        assert_eq!(e.field, "r.path");
        let e = RttSampler::new(
            &RttSpec::Uniform {
                min_ms: 50.0,
                max_ms: 20.0,
            },
            "r",
        )
        .unwrap_err();
        assert_eq!(e.field, "r.max_ms");
    }

    #[test]
    fn parametric_draws() {
        let mut r = stream(3, 5, 0);
        let s = RttSampler::new(
            &RttSpec::Lognormal {
                median_ms: 80.0,
                sigma: 0.5,
            },
            "r",
        )
        .unwrap();
        let n = 100_000;
        let below = (0..n).filter(|_| s.sample(&mut r) < 80.0).count() as f64 / n as f64;
        assert!((below - 0.5).abs() < 0.01);
        let f = RttSampler::new(&RttSpec::Fixed { ms: 42.0 }, "r").unwrap();
        assert_eq!(f.sample(&mut r), 42.0);
    }
}
