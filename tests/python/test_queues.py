"""Queue disciplines on a real run: RED against DropTail on the
``examples/red-dumbbell.toml`` bottleneck (issue 20)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import tcpeval
from tcpeval.errors import ScenarioError
from tcpeval.scenario import load_scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "red-dumbbell.toml"
# RED's average needs ~1/w_q = 500 packets (~0.6 s here) to settle; slow start ends well before.
WARMUP_S = 5.0
DURATION_S = 30.0


def _bottleneck_run(queue: dict[str, object] | None) -> tcpeval.RunResult:
    """The example, shortened, with ``queue`` as the bottleneck's discipline
    (``None``: the default, DropTail)."""
    data = copy.deepcopy(load_scenario(EXAMPLE).data)
    bottleneck = data["topology"]["bottleneck"]
    if queue is None:
        del bottleneck["queue"]
    else:
        bottleneck["queue"] = queue
    data["duration_s"] = DURATION_S
    return tcpeval.run(data, progress=False)


def _bottleneck_queue(r: tcpeval.RunResult) -> tuple[float, int, int]:
    """Mean packets waiting at R1->R2 after the warm-up, the most ever
    waiting, and the drops there."""
    link = int(r.links.index[r.links["name"] == "R1->R2"][0])
    q = r.queue_series[(r.queue_series["link"] == link) & (r.queue_series["time"] > WARMUP_S)]
    row = r.links.loc[link]
    return float(q["qlen"].mean()), int(row["max_qlen"]), int(row["drops"])


def test_red_keeps_the_mean_queue_between_its_thresholds_where_droptail_fills_the_buffer() -> None:
    red = copy.deepcopy(load_scenario(EXAMPLE).data)["topology"]["bottleneck"]["queue"]
    min_th, max_th = float(red["min_th"]), float(red["max_th"])
    red_run, dt_run = _bottleneck_run(red), _bottleneck_run(None)
    red_mean, red_max, red_drops = _bottleneck_queue(red_run)
    dt_mean, dt_max, dt_drops = _bottleneck_queue(dt_run)
    assert min_th <= red_mean <= max_th, red_mean
    assert red_drops > 0 and red_max < 100, (red_drops, red_max)
    # Reno under DropTail fills the 100-packet buffer and only then loses.
    assert dt_max == 100 and dt_drops > 0
    assert dt_mean > 2 * max_th, dt_mean
    # The discipline's own probe: RED's average sits between the thresholds
    # too, and its early and forced drops are among the link's drops.
    assert set(red_run.aqm_series["link_name"]) == {"R1->R2", "R2->R1"}  # both directions run RED
    aqm = red_run.aqm_series[red_run.aqm_series["link_name"] == "R1->R2"]
    settled = aqm[aqm["time"] > WARMUP_S]
    assert min_th <= settled["avg_queue"].mean() <= max_th
    last = aqm.iloc[-1]
    assert last["early_drops"] > 0 and last["early_drops"] + last["forced_drops"] <= red_drops
    assert dt_run.aqm_series.empty and "avg_queue" in dt_run.aqm_series.columns


def test_red_runs_are_deterministic_and_the_seed_moves_the_drops() -> None:
    data = copy.deepcopy(load_scenario(EXAMPLE).data)
    data["duration_s"] = 5.0
    a = tcpeval.run(data, progress=False)
    b = tcpeval.run(data, progress=False)
    assert a.links.equals(b.links) and a.queue_series.equals(b.queue_series)
    c = tcpeval.run(dict(data, seed=7), progress=False)
    assert not a.queue_series.equals(c.queue_series)


def test_a_bad_red_parameter_names_its_field_and_range() -> None:
    data = copy.deepcopy(load_scenario(EXAMPLE).data)
    data["topology"]["bottleneck"]["queue"]["max_p"] = 2
    with pytest.raises(ScenarioError, match=r"topology\.bottleneck\.queue\.max_p.*allowed"):
        tcpeval.run(data, progress=False)
