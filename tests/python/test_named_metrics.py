"""Named study metrics on a real run, against direct computations, and on small made-up runs
whose values are worked out by hand."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

import tcpeval
from conftest import small_dumbbell
from tcpeval.metrics.named import METRICS, compute


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
    # Goodput is payload only: utilization x 20 Mbit/s x 1460/1500 >= goodput
    # over the whole run, where each byte delivered left the bottleneck
    # before the end. (Over a later window the inequality may fail by the
    # packets in flight at its start: 0.0017 Mbit/s over 5-20 s here.)
    whole = compute(run, "goodput_mbps", {"agg": "sum", "window": [0, 20]})
    assert whole <= compute(run, "utilization", {"window": [0, 20]}) * 20 * 1460 / 1500 + 1e-6
    total = compute(run, "goodput_mbps", {"agg": "sum", "window": [5, 20]})
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


def test_drop_prob_over_a_window_on_a_real_run(run) -> None:
    link = run.links[run.links["name"] == "R1->R2"].iloc[0]
    assert link["random_drops"] > 0  # the 0.2% random loss: arrivals exceed drops + departures
    assert compute(run, "drop_prob", {}) == pytest.approx(link["drops"] / link["arrivals"])
    # Only 1500-byte data packets cross R1->R2, so departed bytes count its packets exactly.
    whole = compute(run, "drop_prob", {"window": [0, 20]})
    assert whole == pytest.approx(link["drops"] / (link["drops"] + link["departures"]))


def fake_run(sim_time_s: float, queue: dict[str, Any] | None = None, flow_series: Any = None) -> Any:
    """A run object with the tables the named metrics read: two flows a, b and the link R1->R2
    (arrivals 50, buffer drops 5, 40 departures of 1000 bytes), with ``queue`` as its series."""
    flows = pd.DataFrame({"flow": [0, 1], "name": ["a", "b"], "sent": [200, 100], "data_dropped": [3, 0]})
    links = pd.DataFrame(
        {
            "link": [0],
            "name": ["R1->R2"],
            "buffer": [10],
            "arrivals": [50],
            "drops": [5],
            "departures": [40],
            "bytes_departed": [40_000],
        }
    )
    queue_series = pd.DataFrame({"link": 0, **(queue or {})})
    return SimpleNamespace(
        sim_time_s=sim_time_s, flows=flows, links=links, queue_series=queue_series, flow_series=flow_series
    )


@pytest.fixture
def counters_run() -> Any:
    queue = {
        "time": [0.0, 1.0, 2.0, 3.0, 4.0],
        "qlen": [0, 4, 2, 6, 0],
        "departed_bytes": [0, 10_000, 20_000, 30_000, 40_000],
        "drops": [0, 0, 2, 5, 5],
    }
    flow_series = pd.DataFrame(
        {
            "time": [0.0, 1.0, 2.0] * 2,
            "flow": [0, 0, 0, 1, 1, 1],
            "cwnd": [10.0, 30.0, 20.0, 5.0, 40.0, 8.0],
            "srtt": [np.nan, 0.1, 0.3, 0.2, 0.4, 0.6],
        }
    )
    return fake_run(4.0, queue, flow_series)


def test_new_metrics_are_registered() -> None:
    for name in ("queue_cov", "cwnd_max", "queue_peak_hz", "rtt_jain", "loss_pct"):
        assert name in METRICS


def test_drop_prob_by_hand(counters_run) -> None:
    # Whole run: 5 drops / 50 arrivals.
    assert compute(counters_run, "drop_prob", {}) == pytest.approx(0.1)
    # [1, 3]: 5 - 0 drops, 20000 bytes / 1000 bytes per packet = 20 departures: 5 / 25.
    assert compute(counters_run, "drop_prob", {"window": [1, 3]}) == pytest.approx(0.2)
    # [0.5, 1.5]: drops 0 -> 1 (interpolated), 10 departures: 1 / 11.
    assert compute(counters_run, "drop_prob", {"window": [0.5, 1.5]}) == pytest.approx(1 / 11)
    assert compute(counters_run, "drop_prob", {"window": [0, 1]}) == 0.0


def test_queue_cov_by_hand(counters_run) -> None:
    # Samples at t = 0, 1, 2, 3 (t = 4 is the window's open end): 0, 4, 2, 6, mean 3,
    # deviations -3, 1, -1, 3, variance 20 / 4 = 5.
    assert compute(counters_run, "queue_cov", {}) == pytest.approx(math.sqrt(5) / 3)
    # [1, 3): 4, 2: mean 3, std 1.
    assert compute(counters_run, "queue_cov", {"window": [1, 3]}) == pytest.approx(1 / 3)
    # [0, 1): one empty-queue sample, mean 0.
    assert math.isnan(compute(counters_run, "queue_cov", {"window": [0, 1]}))


def test_cwnd_max_by_hand(counters_run) -> None:
    assert compute(counters_run, "cwnd_max", {}) == 40.0
    assert compute(counters_run, "cwnd_max", {"agg": "mean"}) == pytest.approx((30 + 40) / 2)
    assert compute(counters_run, "cwnd_max", {"flows": ["a"]}) == 30.0
    assert compute(counters_run, "cwnd_max", {"window": [2, 3]}) == 20.0


def test_rtt_jain_by_hand(counters_run) -> None:
    # Samples in [0, 3): mean srtt a = (0.1 + 0.3) / 2 = 0.2 (its NaN before the first RTT
    # skipped, not counted as 0), b = (0.2 + 0.4 + 0.6) / 3 = 0.4:
    # (0.2 + 0.4)^2 / (2 (0.04 + 0.16)) = 0.36 / 0.4.
    assert compute(counters_run, "rtt_jain", {}) == pytest.approx(0.9)
    # [1, 2): 0.1 and 0.4: 0.25 / (2 (0.01 + 0.16)) = 0.25 / 0.34.
    assert compute(counters_run, "rtt_jain", {"window": [1, 2]}) == pytest.approx(25 / 34)
    assert compute(counters_run, "rtt_jain", {"flows": ["b"]}) == pytest.approx(1.0)
    # [0, 1): a has no RTT sample yet.
    assert math.isnan(compute(counters_run, "rtt_jain", {"window": [0, 1]}))


def test_loss_pct_by_hand(counters_run) -> None:
    # 3 dropped of 200 + 100 sent = 1 %.
    assert compute(counters_run, "loss_pct", {}) == pytest.approx(1.0)
    ratio = compute(counters_run, "loss_ratio", {})
    assert compute(counters_run, "loss_pct", {}) == pytest.approx(100 * ratio)
    assert compute(counters_run, "loss_pct", {"flows": ["b"]}) == 0.0


def test_queue_peak_hz_finds_the_queue_oscillation() -> None:
    # 10 s at 10 Hz; the window [0, 10) holds 100 samples, so the bins are 0.1 Hz apart.
    t = np.arange(101) / 10
    wave = 20 + 10 * np.sin(2 * np.pi * 0.5 * t) + 3 * np.sin(2 * np.pi * 2.0 * t)
    queue = {"time": t, "qlen": wave, "departed_bytes": 0, "drops": 0}
    flow_series = pd.DataFrame({"time": t, "flow": 0, "cwnd": wave, "srtt": 0.1})
    run = fake_run(10.0, queue, flow_series)
    assert compute(run, "queue_peak_hz", {}) == pytest.approx(0.5)
    assert compute(run, "cwnd_peak_hz", {"flows": ["a"]}) == pytest.approx(0.5)
    # [0, 4): 0.25 Hz bins; 0.5 Hz is bin 2, the first one not skipped.
    assert compute(run, "queue_peak_hz", {"window": [0, 4]}) == pytest.approx(0.5)
    # [8, 10): 0.5 Hz bins; the 0.5 Hz wave fits once (skipped), the 2 Hz one remains.
    assert compute(run, "queue_peak_hz", {"window": [8, 10]}) == pytest.approx(2.0)


def test_second_spectral_peak_by_rank() -> None:
    # The 0.5 Hz wave is the strongest, the 2 Hz one the second; no third peak.
    t = np.arange(101) / 10
    wave = 20 + 10 * np.sin(2 * np.pi * 0.5 * t) + 3 * np.sin(2 * np.pi * 2.0 * t)
    queue = {"time": t, "qlen": wave, "departed_bytes": 0, "drops": 0}
    flow_series = pd.DataFrame({"time": t, "flow": 0, "cwnd": wave, "srtt": 0.1})
    run = fake_run(10.0, queue, flow_series)
    assert compute(run, "cwnd_peak_hz", {"flows": ["a"], "rank": 2}) == pytest.approx(2.0)
    assert compute(run, "queue_peak_hz", {"rank": 2}) == pytest.approx(2.0)
    assert math.isnan(compute(run, "queue_peak_hz", {"rank": 40}))
    with pytest.raises(ValueError, match="rank must be an integer >= 1"):
        compute(run, "queue_peak_hz", {"rank": 0})


def ramp_run() -> Any:
    """Flow a starts at 1 s; its cwnd (sampled every 0.5 s) ramps 0, 20, ..., 100 by 3.5 s, dips
    to 70 at 4 s, then sits at 100 +- 5 until 20 s. The queue of R1->R2 is 0 until 3 s, 5 at
    3-3.5 s, 0 at 4 s, then 8 from 4.5 s on."""
    t = np.arange(0, 20.01, 0.5)
    cwnd = np.where(t < 1, np.nan, 0.0)
    ramp = (t >= 1) & (t <= 3.5)
    cwnd[ramp] = (t[ramp] - 1) / 0.5 * 20
    cwnd[t > 3.5] = 100 + 5 * np.where(np.arange((t > 3.5).sum()) % 2 == 0, 1, -1)
    cwnd[t == 4.0] = 70
    flow_series = pd.DataFrame({"time": t, "flow": 0, "cwnd": cwnd, "srtt": 0.1})
    qlen = np.where(t < 3, 0, 8.0)
    qlen[(t >= 3) & (t <= 3.5)] = 5
    qlen[t == 4.0] = 0
    run = fake_run(20.0, {"time": t, "qlen": qlen, "departed_bytes": 0, "drops": 0}, flow_series)
    run.flows["start"] = [1.0, 0.0]
    return run


def test_cwnd_reach_s_by_hand() -> None:
    run = ramp_run()
    # cwnd 60 is first sampled at 1 + 3 x 0.5 = 2.5 s: 1.5 s after the start.
    assert compute(run, "cwnd_reach_s", {"cwnd": 60, "flows": ["a"]}) == pytest.approx(1.5)
    assert compute(run, "cwnd_reach_s", {"cwnd": 100, "flows": ["a"]}) == pytest.approx(2.5)
    assert math.isnan(compute(run, "cwnd_reach_s", {"cwnd": 1000, "flows": ["a"]}))


def test_settle_s_by_hand() -> None:
    run = ramp_run()
    # Mean over [10, 20): 100 +- 5 alternating = 100 (20 samples); band 10 % = [90, 110].
    # First in the band at 3.5 s (cwnd 100) but out again at 4 s (70); in for good from 4.5 s.
    args = {"flows": ["a"], "window": [10, 20], "band": 0.1, "hold_s": 5}
    assert compute(run, "settle_s", args) == pytest.approx(3.5)
    # Without the hold the first entry counts: 3.5 - 1 = 2.5 s.
    assert compute(run, "settle_s", {**args, "hold_s": 0}) == pytest.approx(2.5)
    # A band of 2 % around 100 is never held (the cwnd is always 95 or 105).
    assert math.isnan(compute(run, "settle_s", {**args, "band": 0.02}))
    with pytest.raises(ValueError, match="band must be in"):
        compute(run, "settle_s", {**args, "band": 1.5})


def test_queue_onset_s_by_hand() -> None:
    run = ramp_run()
    # Above 1 packet from 3 s, but empty at 4 s; above for good from 4.5 s: 3.5 s after a's start.
    assert compute(run, "queue_onset_s", {"flows": ["a"], "hold_s": 1}) == pytest.approx(3.5)
    # Without flows the clock starts at 0; with no hold the first rise counts.
    assert compute(run, "queue_onset_s", {"hold_s": 0}) == pytest.approx(3.0)
    assert math.isnan(compute(run, "queue_onset_s", {"threshold_pkts": 10}))


def test_convergence_cap_for_runs_that_never_converge() -> None:
    # b starts at 2 s and never delivers anything: NaN, or capped at 10 - 2 = 8 s.
    t = np.arange(0, 10.01, 0.5)
    flow_series = pd.DataFrame(
        {
            "time": np.concatenate([t, t]),
            "flow": [0] * len(t) + [1] * len(t),
            "delivered": np.concatenate([t * 1e6, 0 * t]),
            "cwnd": 10.0,
            "srtt": 0.1,
        }
    )
    run = fake_run(10.0, {"time": t, "qlen": 0, "departed_bytes": 0, "drops": 0}, flow_series)
    run.flows["start"] = [0.0, 2.0]
    assert math.isnan(compute(run, "convergence_s", {"flows": ["a", "b"]}))
    assert compute(run, "convergence_s", {"flows": ["a", "b"], "never": "cap"}) == pytest.approx(8.0)
    with pytest.raises(ValueError, match="never must be"):
        compute(run, "convergence_s", {"flows": ["a", "b"], "never": "max"})


def test_goodput_utilization_counts_whole_packets_of_the_selected_flows(run) -> None:
    # Each delivered 1460-byte payload stands for its 1500-byte packet on the 20 Mbit/s link.
    w = {"window": [5, 20]}
    a = compute(run, "goodput_mbps", {"flows": ["a"], **w})
    both = compute(run, "goodput_mbps", {"agg": "sum", **w})
    assert compute(run, "goodput_utilization", {"flows": ["a"], **w}) == pytest.approx(a * 1500 / 1460 / 20)
    gu = compute(run, "goodput_utilization", w)
    assert gu == pytest.approx(both * 1500 / 1460 / 20)
    # Retransmissions cross the link but carry no new data: below the link's
    # utilization over the whole run (see test_goodput_utilization_and_jain).
    whole = {"window": [0, 20]}
    assert compute(run, "goodput_utilization", whole) < compute(run, "utilization", whole)
