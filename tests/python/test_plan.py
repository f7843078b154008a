"""Sizing a sweep (--plan): runs, stored runs and the wall time left."""

from __future__ import annotations

import pytest

from tcpeval.plan import plan, prefix_shares, remaining_wall_s, twin_runs, unmeasured
from tcpeval.study import RunSpec, expand, parse_study
from test_study import TINY, TINY_LOSSY


def spec(experiment: str, key: str, duration_s: float) -> RunSpec:
    return RunSpec(experiment, {}, 1, {"duration_s": duration_s}, key)


SPECS = [
    spec("a", "a1", 100),
    spec("a", "a2", 100),
    spec("b", "b1", 200),
    spec("b", "b2", 200),
    spec("c", "c1", 300),
]


def test_each_experiment_counts_its_runs_and_the_simulated_seconds_left() -> None:
    plans = plan(SPECS, {"a1": 50.0, "b1": 20.0})
    assert [(p.name, p.runs, p.stored, p.simulated_s, p.left_s) for p in plans] == [
        ("a", 2, 1, 200.0, 100.0),
        ("b", 2, 1, 400.0, 200.0),
        ("c", 1, 0, 300.0, 300.0),
    ]


def test_wall_time_left_uses_each_experiments_own_speed_or_the_overall_one() -> None:
    # a: 50 wall s per 100 simulated s; b: 20 per 200; c has no stored run
    # and takes the overall (50 + 20) / (100 + 200). Left: 100 x 0.5 +
    # 200 x 0.1 + 300 x 0.2333 = 140 wall s, on 2 workers 70 s.
    plans = plan(SPECS, {"a1": 50.0, "b1": 20.0})
    assert remaining_wall_s(plans, workers=2) == pytest.approx(70.0)
    assert remaining_wall_s(plans, workers=1) == pytest.approx(140.0)


def test_no_estimate_before_any_run_is_stored_and_none_left_when_all_are() -> None:
    assert remaining_wall_s(plan(SPECS, {}), workers=2) is None
    done = {s.key: 10.0 for s in SPECS}
    assert remaining_wall_s(plan(SPECS, done), workers=2) == 0.0


def test_experiments_without_a_stored_run_are_named_as_guessed() -> None:
    assert unmeasured(plan(SPECS, {"a1": 50.0, "b1": 20.0})) == ["c"]
    assert unmeasured(plan(SPECS, {s.key: 10.0 for s in SPECS})) == []


def test_seed_twins_are_found_by_building_each_points_first_run_and_cost_nothing() -> None:
    # TINY draws nothing: each point's seed 2 is a twin. With loss, none is.
    specs = expand(parse_study(TINY))
    twins = twin_runs(specs)
    assert twins == {s.key for s in specs if s.seed == 2}
    assert twin_runs(expand(parse_study(TINY_LOSSY))) == set()
    (p,) = plan(specs, {}, twins)
    assert (p.runs, p.twins, p.left_s) == (8, 4, 4 * 4.0)
    # A stored twin's copy time is not a simulation's: the rate is the first seeds'.
    stored = {s.key: (10.0 if s.seed == 1 else 0.01) for s in specs[:4]}
    (p,) = plan(specs, stored, twins)
    assert p.stored_wall_s == 10.0 * sum(s.seed == 1 for s in specs[:4])


def test_a_run_held_up_by_a_pause_does_not_inflate_the_estimate() -> None:
    # Three runs of 100 simulated s took 50 wall s; a fourth spanned a
    # 20-minute pause (1250 s). Its rate is 25 times the median: left out.
    specs = [spec("a", f"a{i}", 100) for i in range(6)]
    stored = {"a0": 50.0, "a1": 50.0, "a2": 50.0, "a3": 1250.0}
    (p,) = plan(specs, stored)
    assert (p.stored, p.stored_wall_s, p.stored_simulated_s) == (4, 150.0, 300.0)
    assert remaining_wall_s([p], workers=1) == pytest.approx(2 * 50.0)
    # A run merely slower than the others (here 6 times the median, as runs
    # of one experiment can be) counts.
    (p,) = plan(specs, {**stored, "a3": 300.0})
    assert p.stored_wall_s == 450.0


def test_a_prefix_family_counts_its_longest_run_once_stored_or_not() -> None:
    # A duration sweep (100, 300 s) and a run named apart from the 300 s one
    # (same key but names): one family, 300 simulated seconds in all.
    base = {"seed": 1, "flows": [{"name": "x", "algorithm": "reno"}], "traffic": {}}
    members = [
        RunSpec("a", {"d": 100}, 1, dict(base, duration_s=100.0), "a100"),
        RunSpec("a", {"d": 300}, 1, dict(base, duration_s=300.0), "a300"),
        RunSpec("b", {}, 1, dict(base, duration_s=300.0, flows=[{"name": "y", "algorithm": "reno"}]), "b300"),
    ]
    shares = prefix_shares(members)
    assert shares == {"a100": 100.0, "a300": 200.0, "b300": 0.0}
    fresh = plan(members, {}, prefixes=True)
    assert sum(p.left_s for p in fresh) == sum(p.simulated_s for p in fresh) == 300.0
    # Stored as one family: each member's wall time is its part of the
    # shared run; the copy's (0 simulated seconds) does not enter the speed.
    stored = plan(members, {"a100": 1.0, "a300": 2.0, "b300": 0.01}, prefixes=True)
    assert [(p.stored_wall_s, p.stored_simulated_s) for p in stored] == [(3.0, 300.0), (0.0, 0.0)]
    # With a300 stored, a100 and b300 are left: the sweep runs them as one
    # family of 300 s, as --plan counts them.
    resumed = plan(members, {"a300": 5.0}, prefixes=True)
    assert sum(p.left_s for p in resumed) == 300.0
    assert [(p.stored_wall_s, p.stored_simulated_s) for p in resumed] == [(5.0, 300.0), (0.0, 0.0)]
