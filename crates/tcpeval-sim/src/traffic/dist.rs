//! Random variates and the special functions their means and CDFs need.
//!
//! Every sampler takes the caller's [`Stream`], so each generator draws from
//! its own seeded stream. Uniforms come from `rng.gen::<f64>()` in `[0, 1)`;
//! where a logarithm or a negative power needs `(0, 1]`, `1 - u` is used.
//! The special functions are written out here (series, continued fraction,
//! Stirling's series) rather than taken from a library, to keep the engine
//! free of numeric dependencies; each states its accuracy.

use crate::rng::Stream;
use crate::scenario::{check, check_pos, ScenarioError};
use rand::Rng;
use serde::{Deserialize, Serialize};
use tcpeval_cc::Shown;

/// A uniform variate in `(0, 1]`.
pub fn unit_open(rng: &mut Stream) -> f64 {
    1.0 - rng.gen::<f64>()
}

/// Exponential with mean `mean` (inverse CDF).
pub fn exponential(rng: &mut Stream, mean: f64) -> f64 {
    -mean * unit_open(rng).ln()
}

/// Pareto with scale (minimum) `k` and shape `alpha`: `P(X > x) = (k/x)^alpha`, `x >= k`.
pub fn pareto(rng: &mut Stream, k: f64, alpha: f64) -> f64 {
    k * unit_open(rng).powf(-1.0 / alpha)
}

/// Pareto with scale `k` and shape `alpha` truncated to `[k, max]` (`max > k`):
/// `F(x) = (1 - (k/x)^alpha) / (1 - (k/max)^alpha)`, sampled by inverting `F`.
pub fn truncated_pareto(rng: &mut Stream, k: f64, alpha: f64, max: f64) -> f64 {
    let mass = 1.0 - (k / max).powf(alpha);
    let u: f64 = rng.gen();
    (k * (1.0 - u * mass).powf(-1.0 / alpha)).min(max)
}

/// Weibull with shape `shape` and scale `scale`: `P(X > x) = exp(-(x/scale)^shape)`.
pub fn weibull(rng: &mut Stream, shape: f64, scale: f64) -> f64 {
    scale * (-unit_open(rng).ln()).powf(1.0 / shape)
}

/// A standard normal variate (Box-Muller, one pair of uniforms per variate,
/// so the number of draws per call is fixed).
pub fn standard_normal(rng: &mut Stream) -> f64 {
    let r = (-2.0 * unit_open(rng).ln()).sqrt();
    let theta = std::f64::consts::TAU * rng.gen::<f64>();
    r * theta.cos()
}

/// Lognormal: `exp(mu + sigma Z)`, `Z` standard normal.
pub fn lognormal(rng: &mut Stream, mu: f64, sigma: f64) -> f64 {
    (mu + sigma * standard_normal(rng)).exp()
}

/// The complementary error function, absolute error below 1e-13 and
/// relative error below 1e-9 for all `x` (Taylor series of `erf` for
/// `|x| < 3`, the Laplace continued fraction beyond).
pub fn erfc(x: f64) -> f64 {
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 3.0 {
        // erf(x) = 2/sqrt(pi) sum_n (-1)^n x^(2n+1) / (n! (2n+1)).
        let x2 = x * x;
        let mut term = x; // (-1)^n x^(2n+1) / n!
        let mut sum = x;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs().max(1e-300) {
            n += 1.0;
            term *= -x2 / n;
            sum += term / (2.0 * n + 1.0);
        }
        return 1.0 - sum * std::f64::consts::FRAC_2_SQRT_PI;
    }
    // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))),
    // evaluated from a fixed depth upward (ample for x >= 3).
    let mut f = x;
    for k in (1..=60).rev() {
        f = x + (f64::from(k) / 2.0) / f;
    }
    (-x * x).exp() / (std::f64::consts::PI.sqrt() * f)
}

/// The standard normal CDF.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// `ln Gamma(x)` for `x > 0`: Stirling's series after shifting the argument
/// above 10 with `Gamma(x) = Gamma(x + n) / (x (x+1) ... (x+n-1))`;
/// relative error below 1e-13.
pub fn ln_gamma(x: f64) -> f64 {
    let mut z = x;
    let mut shift = 0.0;
    while z < 10.0 {
        shift += z.ln();
        z += 1.0;
    }
    let z2 = z * z;
    let series = 1.0 / (12.0 * z) - 1.0 / (360.0 * z * z2) + 1.0 / (1260.0 * z * z2 * z2)
        - 1.0 / (1680.0 * z * z2 * z2 * z2);
    (z - 0.5) * z.ln() - z + 0.5 * (std::f64::consts::TAU).ln() + series - shift
}

/// A distribution of durations in seconds (UDP on and off periods).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TimeDist {
    /// Always `s` seconds.
    Fixed {
        /// Duration, s (> 0).
        s: f64,
    },
    /// Exponential with mean `mean_s` seconds.
    Exponential {
        /// Mean, s (> 0).
        mean_s: f64,
    },
    /// Uniform in `[min_s, max_s]` seconds.
    Uniform {
        /// Lower end, s (>= 0).
        min_s: f64,
        /// Upper end, s (> min_s).
        max_s: f64,
    },
    /// Pareto with minimum `scale_s` seconds and shape `alpha` (> 1, so the mean is finite).
    Pareto {
        /// Minimum, s (> 0).
        scale_s: f64,
        /// Shape (1 < alpha <= 100).
        alpha: f64,
    },
}

impl TimeDist {
    /// Checks the parameters; `at` is the field path.
    pub fn validate(&self, at: &str) -> Result<(), ScenarioError> {
        match *self {
            TimeDist::Fixed { s } => check_pos(&format!("{at}.s"), s, 1e7),
            TimeDist::Exponential { mean_s } => check_pos(&format!("{at}.mean_s"), mean_s, 1e7),
            TimeDist::Uniform { min_s, max_s } => {
                check(&format!("{at}.min_s"), min_s, 0.0, 1e7)?;
                if !(max_s.is_finite() && max_s > min_s && max_s <= 1e7) {
                    return Err(ScenarioError::new(
                        format!("{at}.max_s"),
                        format!(
                            "{} is out of range; allowed {} < value <= 1e7",
                            Shown(max_s),
                            Shown(min_s)
                        ),
                    ));
                }
                Ok(())
            }
            TimeDist::Pareto { scale_s, alpha } => {
                check_pos(&format!("{at}.scale_s"), scale_s, 1e7)?;
                if !(alpha.is_finite() && alpha > 1.0 && alpha <= 100.0) {
                    return Err(ScenarioError::new(
                        format!("{at}.alpha"),
                        format!("{} is out of range; allowed 1 < value <= 100", Shown(alpha)),
                    ));
                }
                Ok(())
            }
        }
    }

    /// The mean, s.
    pub fn mean(&self) -> f64 {
        match *self {
            TimeDist::Fixed { s } => s,
            TimeDist::Exponential { mean_s } => mean_s,
            TimeDist::Uniform { min_s, max_s } => 0.5 * (min_s + max_s),
            TimeDist::Pareto { scale_s, alpha } => alpha * scale_s / (alpha - 1.0),
        }
    }

    /// One draw, s.
    pub fn sample(&self, rng: &mut Stream) -> f64 {
        match *self {
            TimeDist::Fixed { s } => s,
            TimeDist::Exponential { mean_s } => exponential(rng, mean_s),
            TimeDist::Uniform { min_s, max_s } => min_s + (max_s - min_s) * rng.gen::<f64>(),
            TimeDist::Pareto { scale_s, alpha } => pareto(rng, scale_s, alpha),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn erfc_matches_known_values() {
        // Reference values of erfc to 15 digits.
        for (x, want) in [
            (0.0, 1.0),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_13),
            (2.0, 0.004_677_734_981_047_266),
            (2.9, 4.109_787_809_945_884e-5),
            (3.0, 2.209_049_699_858_544e-5),
            (5.0, 1.537_459_794_428_034_8e-12),
            (-1.0, 1.842_700_792_949_715),
        ] {
            let got = erfc(x);
            assert!(
                ((got - want) / want).abs() < 1e-9,
                "erfc({x}) = {got}, want {want}"
            );
        }
        assert!((normal_cdf(1.959_963_984_540_054) - 0.975).abs() < 1e-12);
    }

    #[test]
    fn ln_gamma_matches_factorials_and_half_integers() {
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
        assert!((ln_gamma(1.0)).abs() < 1e-12);
        // Gamma(1 + 1/1.46) = 0.905_870... (Weibull mean factor of SURGE's active OFF time).
        assert!((ln_gamma(1.0 + 1.0 / 1.46).exp() - 0.905_870).abs() < 1e-5);
    }

    fn mean_of(n: usize, mut f: impl FnMut() -> f64) -> f64 {
        (0..n).map(|_| f()).sum::<f64>() / n as f64
    }

    #[test]
    fn samplers_have_their_means() {
        let mut r = stream(1, 99, 0);
        let n = 400_000;
        let e = mean_of(n, || exponential(&mut r, 2.0));
        assert!((e - 2.0).abs() < 0.02, "exponential mean {e}");
        let p = mean_of(n, || pareto(&mut r, 1.0, 3.0));
        assert!((p - 1.5).abs() < 0.01, "pareto mean {p}");
        let w = mean_of(n, || weibull(&mut r, 1.46, 0.382));
        assert!((w - 0.382 * 0.905_870).abs() < 0.003, "weibull mean {w}");
        let z = mean_of(n, || standard_normal(&mut r));
        assert!(z.abs() < 0.01, "normal mean {z}");
        let l = mean_of(n, || lognormal(&mut r, 0.0, 0.5));
        assert!((l - (0.125f64).exp()).abs() < 0.01, "lognormal mean {l}");
        for _ in 0..10_000 {
            let t = truncated_pareto(&mut r, 10.0, 1.1, 100.0);
            assert!((10.0..=100.0).contains(&t));
        }
    }

    #[test]
    fn time_dists_validate_and_sample() {
        let d = TimeDist::Pareto {
            scale_s: 1.0,
            alpha: 1.0,
        };
        let e = d.validate("on").unwrap_err();
        assert_eq!(e.field, "on.alpha");
        assert!(e.message.contains("1 < value"));
        let u = TimeDist::Uniform {
            min_s: 1.0,
            max_s: 3.0,
        };
        u.validate("off").unwrap();
        assert_eq!(u.mean(), 2.0);
        let mut r = stream(2, 99, 0);
        assert!((0..1000).all(|_| (1.0..=3.0).contains(&u.sample(&mut r))));
        assert_eq!(TimeDist::Fixed { s: 0.5 }.sample(&mut r), 0.5);
    }
}
