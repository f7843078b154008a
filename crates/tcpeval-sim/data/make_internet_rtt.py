"""Writes internet-rtt.csv, the default per-flow round-trip-time distribution.

Provenance (read before relying on it): we could not obtain a published
table of Internet RTTs. The one figure used is from Aikat, Kaur, Smith and
Jeffay, "Variability in TCP round-trip times" (ACM IMC 2003; the talk slides'
"variability across connections" summary): about 60% of the measured TCP
connections had a minimum RTT below 100 ms. Everything else is our choice:
a lognormal shape with sigma = 1.0 (on ln ms), truncated to [5 ms, 1000 ms],
whose median is solved so that the truncated CDF at 100 ms is exactly 0.60.
The table is that CDF at 41 log-spaced RTTs; the engine interpolates it
linearly. Run with Python 3 and scipy: python make_internet_rtt.py
"""

import math

from scipy.optimize import brentq
from scipy.stats import norm

SIGMA = 1.0
LO, HI = 5.0, 1000.0
ANCHOR_MS, ANCHOR_P = 100.0, 0.60


def truncated_cdf(x: float, median: float) -> float:
    f = lambda v: norm.cdf(math.log(v / median) / SIGMA)  # noqa: E731
    return (f(x) - f(LO)) / (f(HI) - f(LO))


median = brentq(lambda m: truncated_cdf(ANCHOR_MS, m) - ANCHOR_P, 10.0, 500.0)
points = [LO * (HI / LO) ** (i / 40) for i in range(41)]
with open("internet-rtt.csv", "w") as out:
    out.write("# Default per-flow round-trip propagation delay distribution (empirical CDF).\n")
    out.write("# Built by make_internet_rtt.py: lognormal, sigma = 1.0 on ln(ms), truncated to\n")
    out.write(f"# [5, 1000] ms, median {median:.2f} ms chosen so that P(RTT < 100 ms) = 0.60, the one\n")
    out.write("# figure taken from Aikat et al., IMC 2003 (60% of connections had min RTT < 100 ms).\n")
    out.write("# The shape and the bounds are our assumption, not measured data.\n")
    out.write("rtt_ms,cdf\n")
    for x in points:
        p = min(1.0, max(0.0, truncated_cdf(x, median)))
        out.write(f"{x:.3f},{p:.6f}\n")
