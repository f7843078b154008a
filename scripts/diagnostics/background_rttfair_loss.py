"""Diagnostic (issue 15): does a little loss randomness move the background
study's RTT-fairness results without background traffic toward the paper's
Fig. 6a?

The paper ties RTT fairness to the randomness of packet losses (section
4.4), and the study's runs without background traffic draw no random
number. This runs its rtt-fairness experiment at 16 ms against 162 ms with
random loss of 1e-7 and 1e-6 on the bottleneck, two seeds, every other
setting read from the shipped background study file, and prints Jain's
index and the long flow's share per algorithm and loss. Its answer (no) is
in the notes of the f6a-* claims. About 10 minutes on two workers.

Usage: python scripts/diagnostics/background_rttfair_loss.py OUT_DIR
"""

from __future__ import annotations

import sys

from shipped_variant import run_and_read, variant

from tcpeval.study import Study

RTT_FAIRNESS_WITH_LOSS = """
[[experiment]]
name = "rtt-fairness-loss"
title = "RTT fairness at 16 ms against 162 ms with random loss on the bottleneck"
[experiment.scenario]
topology = { kind = "dumbbell", bottleneck = { rate_mbps = 400, delay_ms = 8, buffer = { bytes = 2097152 } }, access = { rate_mbps = 1000 } }
flows = [{ name = "long", algorithm = "reno", rtt_ms = 162, start_s = 30 }, { name = "other", algorithm = "reno", rtt_ms = 16, start_s = 130 }]
[experiment.sweep]
algorithm = { path = "flows[*].algorithm", values = ["bic", "cubic", "highspeed", "htcp"] }
loss = { path = "topology.bottleneck.loss", values = [1e-7, 1e-6] }
[[experiment.metric]]
name = "fairness"
fn = "jain"
flows = ["long", "other"]
window = [135, 1200]
[[experiment.metric]]
name = "throughput_ratio"
fn = "ratio"
flows = ["long", "other"]
window = [135, 1200]
"""


def study() -> Study:
    """The background study's settings with the one experiment above."""
    return variant(
        "background",
        [
            ('name = "background"', 'name = "diag-background-rttfair-loss"'),
            ("replications = 3", "replications = 2"),
        ],
        RTT_FAIRNESS_WITH_LOSS,
        "background_rttfair_loss.py",
    )


def main(argv: list[str]) -> int:
    runs = run_and_read(study(), argv, __doc__, "rtt-fairness-loss")
    if runs is None:
        return 2 if len(argv) != 2 else 1
    table = runs.groupby(["algorithm", "loss"])[["fairness", "throughput_ratio"]].agg(["mean", "min", "max"])
    print("Jain's index and the 162 ms flow's throughput over the 16 ms flow's, [135, 1200] s:")
    print(table.round(3).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
