"""Named study metrics on a real run, against direct computations."""

from __future__ import annotations

import math

import pytest

import tcpeval
from conftest import small_dumbbell
from tcpeval.metrics.named import compute


@pytest.fixture(scope="module")
def run() -> tcpeval.RunResult:
    sc = small_dumbbell(duration_s=20.0)
    sc["topology"]["bottleneck"]["loss"] = 0.002
    return tcpeval.run(sc, progress=False)


def test_windowed_counters_add_up_to_the_totals(run) -> None:
    whole = compute(run, "retx_prob", {"flows": ["a", "b"]})
    f = run.flows
    assert whole == pytest.approx(f["retransmitted"].sum() / f["sent"].sum())
    # Over the whole run, the windowed form reads the same counters.
    windowed = compute(run, "retx_prob", {"flows": ["a", "b"], "window": [0, 20]})
    assert windowed == pytest.approx(whole, rel=1e-3)
    halves = [compute(run, "timeouts", {"flows": ["a"], "window": w}) for w in ([0, 10], [10, 20])]
    assert sum(halves) == pytest.approx(compute(run, "timeouts", {"flows": ["a"]}))


def test_goodput_utilization_and_jain(run) -> None:
    total = compute(run, "goodput_mbps", {"agg": "sum", "window": [5, 20]})
    util = compute(run, "utilization", {"window": [5, 20]})
    # Goodput is payload only: utilization x 20 Mbit/s x 1460/1500 >= goodput.
    assert total <= util * 20 * 1460 / 1500 + 1e-6
    # With 0.2% random loss Reno cannot fill the link (Mathis: ~27-packet windows).
    assert 0.3 * 20 < total < 20
    a = compute(run, "goodput_mbps", {"flows": ["a"], "window": [5, 20]})
    b = compute(run, "goodput_mbps", {"flows": ["b"], "window": [5, 20]})
    j = compute(run, "jain", {"window": [5, 20]})
    assert j == pytest.approx((a + b) ** 2 / (2 * (a * a + b * b)))
    assert compute(run, "ratio", {"flows": ["a", "b"], "window": [5, 20]}) == pytest.approx(a / b)


def test_first_loss_and_errors(run) -> None:
    first = compute(run, "first_loss_s", {})
    assert 0 < first < 20 and math.isfinite(first)
    with pytest.raises(ValueError, match="no flow named"):
        compute(run, "jain", {"flows": ["zz"]})
    with pytest.raises(ValueError, match="unknown metric function"):
        compute(run, "nope", {})
