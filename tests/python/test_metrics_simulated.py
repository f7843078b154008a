"""Metrics on a real simulated run: one Scalable flow on the `fairness`
study's dumbbell (1 Gbit/s, 100 ms RTT, buffer 8333 packets = BDP, initial
ssthresh 100, Limited Slow-Start)."""

from __future__ import annotations

import math

import pytest

import tcpeval
from tcpeval import metrics as m

RATE_PPS = 1e9 / 12000  # packets of 1500 B per second
BDP = 8333


@pytest.fixture(scope="module")
def scalable_run() -> tcpeval.RunResult:
    sc = {
        "duration_s": 120,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate_mbps": 1000, "delay_ms": 50, "buffer": {"packets": BDP}},
            "access": {"delay_ms": 0},
        },
        "tcp": {"initial_ssthresh": 100, "max_ssthresh": 100},
        "flows": [{"algorithm": "scalable", "rtt_ms": 100}],
    }
    return tcpeval.run(sc, progress=False)


def test_loss_cycle_frequency_matches_scalable_recovery_period(scalable_run) -> None:
    # spec fact 6: a cycle lasts 13.42 RTTs; with a full buffer the RTT is 200 ms.
    expected = 1.0 / (13.42 * 0.2)
    fs = scalable_run.flow_series
    f, p = m.periodogram_psd(fs.time.to_numpy(), fs.cwnd.to_numpy(), t_start=70.0, t_end=120.0)
    peak = m.dominant_frequencies(f, p, count=1)[0][0]
    assert abs(peak - expected) / expected < 0.10, (peak, expected)


def test_saturation_time_matches_the_analytic_prediction(scalable_run) -> None:
    # Slow start 10 -> 100 (initial ssthresh) at 100 ms, then +1%/RTT to the
    # BDP at 100 ms, then from BDP to BDP + B while the RTT grows with the
    # queue (dw/dt = 0.01 * rate, linear): the buffer first overflows then.
    t_ss = m.slow_start_time(100, 0.1)
    t_mi = m.multiplicative_increase_time(BDP, 100, 0.1)
    t_fill = BDP / (0.01 * RATE_PPS)
    predicted = t_ss + t_mi + t_fill
    measured = m.time_to_first_drop([scalable_run.flows["first_loss"].iloc[0]], 0.0)
    assert math.isfinite(measured)
    assert abs(measured - predicted) / predicted < 0.10, (measured, predicted)
