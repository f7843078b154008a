//! Transfer sizes: an empirical table in packets, or a lognormal body with a
//! Pareto tail in bytes. Each draw gives the packet count the sender sends
//! and the size it stands for in bytes (a byte size becomes
//! `max(1, ceil(bytes / mss))` full packets: the engine sends whole packets
//! only). [`Sizer::mean_pkts`] is exact, so a target load sets an exact
//! arrival rate.

use super::dist::{lognormal, normal_cdf, truncated_pareto};
use crate::rng::Stream;
use crate::scenario::{check, check_pos, ScenarioError};
use rand::Rng;
use serde::{Deserialize, Serialize};
use tcpeval_cc::Shown;

/// The `reverse` study's web mix (Mascolo & Vacirca 2006): sizes, packets.
pub const REVERSE_MIX_PKTS: [u64; 4] = [1, 6, 18, 190];
/// The `reverse` study's web mix: probability of each size.
pub const REVERSE_MIX_PROBS: [f64; 4] = [0.5, 0.2, 0.2, 0.1];

fn reverse_pkts() -> Vec<u64> {
    REVERSE_MIX_PKTS.to_vec()
}
fn reverse_probs() -> Vec<f64> {
    REVERSE_MIX_PROBS.to_vec()
}

/// SURGE's file-size body (Barford & Crovella, SIGMETRICS 1998, Table 1):
/// lognormal with `mu` = 9.357 and `sigma` = 1.318 on ln(bytes). The same
/// constants appear in independent public re-implementations of SURGE's
/// size generator.
pub const SURGE_MU: f64 = 9.357;
/// See [`SURGE_MU`].
pub const SURGE_SIGMA: f64 = 1.318;
/// SURGE's file-size tail: Pareto from k = 133 KB (taken as 133 000 bytes),
/// as quoted from SURGE's Table 1 (not checked against an independent
/// source, unlike the body).
pub const SURGE_CUTOFF_BYTES: f64 = 133_000.0;
/// SURGE's file-size tail exponent: alpha = 1.1.
pub const SURGE_ALPHA: f64 = 1.1;
/// Largest transfer, bytes (10 MB). Our choice, not SURGE's: with alpha =
/// 1.1 the untruncated tail has infinite variance, so the offered load of a
/// finite run would wander far from its target; SURGE itself served a finite
/// file set, which bounds sizes the same way.
pub const DEFAULT_MAX_BYTES: f64 = 1e7;

fn surge_mu() -> f64 {
    SURGE_MU
}
fn surge_sigma() -> f64 {
    SURGE_SIGMA
}
fn surge_cutoff() -> f64 {
    SURGE_CUTOFF_BYTES
}
fn surge_alpha() -> f64 {
    SURGE_ALPHA
}
fn default_max_bytes() -> f64 {
    DEFAULT_MAX_BYTES
}

/// A transfer-size distribution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeSpec {
    /// Sizes `pkts[i]` (packets, >= 1) with probabilities `probs[i]`
    /// (summing to 1). Default: the `reverse` study's mix, 1, 6, 18 and 190
    /// packets with probabilities 0.5, 0.2, 0.2 and 0.1 (mean 24.3 packets).
    Empirical {
        /// Sizes, packets.
        #[serde(default = "reverse_pkts")]
        pkts: Vec<u64>,
        /// Probability of each size.
        #[serde(default = "reverse_probs")]
        probs: Vec<f64>,
    },
    /// A lognormal body spliced to a Pareto tail, in bytes: below
    /// `cutoff_bytes` the CDF is the lognormal's, `Phi((ln x - mu)/sigma)`;
    /// the remaining mass `1 - Phi((ln cutoff - mu)/sigma)` follows a Pareto
    /// of shape `alpha` from `cutoff_bytes`, truncated at `max_bytes`. The
    /// CDF is continuous. Defaults: SURGE's file sizes ([`SURGE_MU`] ...).
    LognormalPareto {
        /// Mean of ln(bytes) of the body (-10..=30).
        #[serde(default = "surge_mu")]
        mu: f64,
        /// Standard deviation of ln(bytes) of the body (0 < sigma <= 10).
        #[serde(default = "surge_sigma")]
        sigma: f64,
        /// Where the tail starts, bytes (> 0).
        #[serde(default = "surge_cutoff")]
        cutoff_bytes: f64,
        /// Pareto shape of the tail (0 < alpha <= 100).
        #[serde(default = "surge_alpha")]
        alpha: f64,
        /// Largest size, bytes (> cutoff_bytes, <= 1e12).
        #[serde(default = "default_max_bytes")]
        max_bytes: f64,
    },
}

impl SizeSpec {
    /// The `reverse` study's mix.
    pub fn reverse_mix() -> Self {
        SizeSpec::Empirical {
            pkts: reverse_pkts(),
            probs: reverse_probs(),
        }
    }

    /// SURGE's file sizes.
    pub fn surge() -> Self {
        SizeSpec::LognormalPareto {
            mu: SURGE_MU,
            sigma: SURGE_SIGMA,
            cutoff_bytes: SURGE_CUTOFF_BYTES,
            alpha: SURGE_ALPHA,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    /// Checks the parameters; `at` is the field path.
    pub fn validate(&self, at: &str) -> Result<(), ScenarioError> {
        match self {
            SizeSpec::Empirical { pkts, probs } => {
                if pkts.is_empty() || pkts.len() != probs.len() {
                    return Err(ScenarioError::new(
                        format!("{at}.probs"),
                        format!(
                            "needs one probability per size: {} sizes, {} probabilities",
                            pkts.len(),
                            probs.len()
                        ),
                    ));
                }
                for (i, &p) in pkts.iter().enumerate() {
                    check(&format!("{at}.pkts[{i}]"), p as f64, 1.0, 1e12)?;
                }
                for (i, &p) in probs.iter().enumerate() {
                    check(&format!("{at}.probs[{i}]"), p, 0.0, 1.0)?;
                }
                let sum: f64 = probs.iter().sum();
                if (sum - 1.0).abs() > 1e-6 {
                    return Err(ScenarioError::new(
                        format!("{at}.probs"),
                        format!("sum to {sum}; allowed 1 (within 1e-6)"),
                    ));
                }
                Ok(())
            }
            SizeSpec::LognormalPareto {
                mu,
                sigma,
                cutoff_bytes,
                alpha,
                max_bytes,
            } => {
                check(&format!("{at}.mu"), *mu, -10.0, 30.0)?;
                check_pos(&format!("{at}.sigma"), *sigma, 10.0)?;
                check_pos(&format!("{at}.cutoff_bytes"), *cutoff_bytes, 1e12)?;
                check_pos(&format!("{at}.alpha"), *alpha, 100.0)?;
                if !(max_bytes.is_finite() && max_bytes > cutoff_bytes && *max_bytes <= 1e12) {
                    return Err(ScenarioError::new(
                        format!("{at}.max_bytes"),
                        format!(
                            "{} is out of range; allowed {} < value <= 1e12",
                            Shown(*max_bytes),
                            Shown(*cutoff_bytes)
                        ),
                    ));
                }
                Ok(())
            }
        }
    }
}

/// One drawn size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drawn {
    /// Packets to send (>= 1).
    pub pkts: u64,
    /// The size drawn, bytes (for an empirical table: `pkts * mss`).
    pub bytes: f64,
}

#[derive(Clone, Debug)]
enum Kind {
    Empirical {
        pkts: Vec<u64>,
        /// Cumulative probabilities; the last is forced to 1.
        cum: Vec<f64>,
    },
    LognormalPareto {
        mu: f64,
        sigma: f64,
        cutoff: f64,
        alpha: f64,
        max: f64,
    },
}

/// A validated size distribution, ready to draw from.
#[derive(Clone, Debug)]
pub struct Sizer {
    kind: Kind,
    mss: u32,
}

impl Sizer {
    /// A sampler of `spec` (validated) for senders of `mss` payload bytes per packet.
    pub fn new(spec: &SizeSpec, mss: u32) -> Sizer {
        let kind = match spec {
            SizeSpec::Empirical { pkts, probs } => {
                let mut acc = 0.0;
                let mut cum: Vec<f64> = probs
                    .iter()
                    .map(|p| {
                        acc += p;
                        acc
                    })
                    .collect();
                *cum.last_mut().expect("validated: not empty") = 1.0;
                Kind::Empirical {
                    pkts: pkts.clone(),
                    cum,
                }
            }
            SizeSpec::LognormalPareto {
                mu,
                sigma,
                cutoff_bytes,
                alpha,
                max_bytes,
            } => Kind::LognormalPareto {
                mu: *mu,
                sigma: *sigma,
                cutoff: *cutoff_bytes,
                alpha: *alpha,
                max: *max_bytes,
            },
        };
        Sizer { kind, mss }
    }

    fn packets_for(&self, bytes: f64) -> u64 {
        (bytes / f64::from(self.mss)).ceil().max(1.0) as u64
    }

    /// One draw.
    pub fn sample(&self, rng: &mut Stream) -> Drawn {
        match &self.kind {
            Kind::Empirical { pkts, cum } => {
                let u: f64 = rng.gen();
                let i = cum.iter().position(|&c| u < c).unwrap_or(cum.len() - 1);
                Drawn {
                    pkts: pkts[i],
                    bytes: pkts[i] as f64 * f64::from(self.mss),
                }
            }
            &Kind::LognormalPareto {
                mu,
                sigma,
                cutoff,
                alpha,
                max,
            } => {
                // A lognormal draw above the cutoff is replaced by a tail
                // draw: the body keeps exactly its CDF below the cutoff.
                let mut bytes = lognormal(rng, mu, sigma);
                if bytes > cutoff {
                    bytes = truncated_pareto(rng, cutoff, alpha, max);
                }
                Drawn {
                    pkts: self.packets_for(bytes),
                    bytes,
                }
            }
        }
    }

    /// `P(size in bytes > x)` of a byte-valued distribution.
    fn survival_bytes(&self, x: f64) -> f64 {
        match self.kind {
            Kind::Empirical { .. } => unreachable!("empirical sizes are in packets"),
            Kind::LognormalPareto {
                mu,
                sigma,
                cutoff,
                alpha,
                max,
            } => {
                if x <= 0.0 {
                    1.0
                } else if x <= cutoff {
                    1.0 - normal_cdf((x.ln() - mu) / sigma)
                } else if x < max {
                    let tail = 1.0 - normal_cdf((cutoff.ln() - mu) / sigma);
                    let norm = 1.0 - (cutoff / max).powf(alpha);
                    tail * ((cutoff / x).powf(alpha) - (cutoff / max).powf(alpha)) / norm
                } else {
                    0.0
                }
            }
        }
    }

    /// The exact mean number of packets per transfer: for a byte-valued
    /// distribution, `E[N] = sum_{k >= 0} P(N > k) = 1 + sum_{k >= 1} P(X > k mss)`
    /// with `N = max(1, ceil(X / mss))`, summed up to `max_bytes`.
    pub fn mean_pkts(&self) -> f64 {
        match &self.kind {
            Kind::Empirical { pkts, cum } => {
                let mut prev = 0.0;
                pkts.iter()
                    .zip(cum)
                    .map(|(&s, &c)| {
                        let p = c - prev;
                        prev = c;
                        s as f64 * p
                    })
                    .sum()
            }
            Kind::LognormalPareto { max, .. } => {
                let m = f64::from(self.mss);
                let last = (max / m).ceil() as u64;
                1.0 + (1..last)
                    .map(|k| self.survival_bytes(k as f64 * m))
                    .sum::<f64>()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn reverse_mix_mean_and_offered_load() {
        let s = Sizer::new(&SizeSpec::reverse_mix(), 1460);
        let mean = s.mean_pkts();
        assert!((mean - 24.3).abs() < 1e-12, "{mean}");
        // 24.3 packets x 1500 B x 8 every 50 ms = 5.832 Mbit/s ("about 5.8").
        assert!((mean * 1500.0 * 8.0 / 0.05 - 5.832e6).abs() < 1e-3);
        let mut r = stream(3, 4, 0);
        let n = 200_000;
        let counts = (0..n).fold([0usize; 4], |mut c, _| {
            let d = s.sample(&mut r);
            c[REVERSE_MIX_PKTS.iter().position(|&p| p == d.pkts).unwrap()] += 1;
            c
        });
        for (c, p) in counts.iter().zip(REVERSE_MIX_PROBS) {
            assert!((*c as f64 / n as f64 - p).abs() < 0.005, "{counts:?}");
        }
    }

    #[test]
    fn lognormal_pareto_mean_matches_samples() {
        // A light tail (alpha = 2.5) so the sample mean settles quickly.
        let spec = SizeSpec::LognormalPareto {
            mu: 9.357,
            sigma: 1.318,
            cutoff_bytes: 133_000.0,
            alpha: 2.5,
            max_bytes: 1e7,
        };
        spec.validate("sizes").unwrap();
        let s = Sizer::new(&spec, 1460);
        let mean = s.mean_pkts();
        let mut r = stream(5, 4, 0);
        let n = 400_000;
        let sample: f64 = (0..n).map(|_| s.sample(&mut r).pkts as f64).sum::<f64>() / n as f64;
        assert!((sample / mean - 1.0).abs() < 0.01, "{sample} vs {mean}");
        // The body's share below the cutoff: Phi((ln 133000 - 9.357) / 1.318) = 0.968.
        let below = (0..n)
            .filter(|_| s.sample(&mut r).bytes <= 133_000.0)
            .count() as f64
            / n as f64;
        assert!((below - 0.968).abs() < 0.002, "{below}");
    }

    #[test]
    fn surge_sizes_have_a_finite_mean_of_about_25_packets() {
        let s = Sizer::new(&SizeSpec::surge(), 1460);
        let mean = s.mean_pkts();
        assert!(mean > 20.0 && mean < 30.0, "{mean}");
        let mut r = stream(6, 4, 0);
        for _ in 0..100_000 {
            let d = s.sample(&mut r);
            assert!(d.bytes > 0.0 && d.bytes <= 1e7 && d.pkts >= 1);
            assert_eq!(d.pkts, ((d.bytes / 1460.0).ceil() as u64).max(1));
        }
    }

    #[test]
    fn validation_names_the_field() {
        let bad = SizeSpec::Empirical {
            pkts: vec![1, 2],
            probs: vec![0.5, 0.4],
        };
        let e = bad.validate("traffic.web[0].sizes").unwrap_err();
        assert_eq!(e.field, "traffic.web[0].sizes.probs");
        assert!(e.message.contains("allowed 1"), "{e}");
        let bad = SizeSpec::LognormalPareto {
            mu: 9.0,
            sigma: 1.0,
            cutoff_bytes: 1000.0,
            alpha: 1.2,
            max_bytes: 500.0,
        };
        let e = bad.validate("s").unwrap_err();
        assert_eq!(e.field, "s.max_bytes");
    }
}
