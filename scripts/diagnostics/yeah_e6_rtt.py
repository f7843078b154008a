"""Diagnostic (issue 15): does the yeah study's unstated RTT for its
Fair-to-Reno test decide the e6-n1-* misses?

The paper states no RTT for that test (Section V-D); the study takes 25 ms
from the RTT-fairness test of the same section. This runs the test with
n = 1 at 25, 100 and 200 ms, one seed, with every other setting read from
the shipped yeah study file (its top-level settings, platform, sender and
algorithm options), and prints the Fair-to-Reno ratio per RTT. Its answer
is in the notes of the e6-n1-* claims. About 10 minutes on two workers.

Usage: python scripts/diagnostics/yeah_e6_rtt.py OUT_DIR
"""

from __future__ import annotations

import sys

from shipped_variant import run_and_read, variant

from tcpeval.study import Study

E6_AT_THREE_RTTS = """
[[experiment]]
name = "e6-rtt"
title = "Fair-to-Reno ratio with n = 1 against the RTT"
[experiment.scenario]
topology = { kind = "dumbbell", bottleneck = { rate_mbps = 500, delay_ms = 1, buffer = { bdp = 1.0 } }, access = { rate_mbps = 1000, delay_ms = 1 } }
flows = [{ name = "reno", algorithm = "reno", rtt_ms = 25, count = 1 }, { name = "tested", algorithm = "reno", rtt_ms = 25 }]
[experiment.sweep]
algorithm = { path = "flows[1].algorithm", values = ["reno", "htcp", "cubic", "highspeed"] }
rtt = { path = "flows[*].rtt_ms", values = [25, 100, 200] }
[[experiment.metric]]
name = "reno_goodput"
fn = "goodput_mbps"
flows = ["reno"]
[[experiment.metric]]
name = "tested_goodput"
fn = "goodput_mbps"
flows = ["tested"]
[[experiment.metric]]
name = "utilization"
fn = "utilization"
"""


def study() -> Study:
    """The yeah study's settings with the one experiment above."""
    return variant(
        "yeah",
        [('name = "yeah"', 'name = "diag-yeah-e6-rtt"'), ("replications = 3", "replications = 1")],
        E6_AT_THREE_RTTS,
        "yeah_e6_rtt.py",
    )


def main(argv: list[str]) -> int:
    runs = run_and_read(study(), argv, __doc__, "e6-rtt")
    if runs is None:
        return 2 if len(argv) != 2 else 1
    reno = runs.groupby(["rtt", "algorithm"])["reno_goodput"].mean().unstack("algorithm")
    ratio = reno.rdiv(reno["reno"], axis=0).drop(columns="reno")
    print("Fair-to-Reno ratio with n = 1 (Reno's goodput beside a Reno flow over beside the algorithm):")
    print(ratio.round(2).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
