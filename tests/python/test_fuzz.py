"""Seeded fuzzing of scenario loading and running (tests/python/fuzz_scenarios.py):
no abort, no hang, no exception but ScenarioError, every error naming its
field. A 100-case sample runs by default; 1500 cases in the slow suite."""

from __future__ import annotations

import pytest

import fuzz_scenarios as fz


@pytest.fixture(scope="module")
def ctx():
    return fz.context()


def _check(outcomes: list[fz.Outcome]) -> None:
    bad = [o for o in outcomes if o.kind not in ("ok", "error")]
    assert not bad, bad[:5]
    unnamed = [o for o in outcomes if o.kind == "error" and not fz.names_a_field(o)]
    assert not unnamed, unnamed[:5]
    json_positions = [o for o in outcomes if " at line 1 column" in o.message]
    assert not json_positions, json_positions[:5]
    counts = fz.summarize(outcomes)
    assert counts.get("ok", 0) >= len(outcomes) // 50 and counts.get("error", 0) >= len(outcomes) // 2, counts


def test_the_harness_notices_aborts_and_hangs(ctx) -> None:
    assert fz.run_case(ctx, {}, target=fz.abort_child).kind == "abort"
    assert fz.run_case(ctx, {}, target=fz.sleep_child, time_limit_s=1.0).kind == "hang"
    memory = {"duration_s": 1, "topology": {"kind": "dumbbell"}, "flows": [{"count": 10**9}]}
    refused = fz.run_case(ctx, memory)  # refused by the budget the memory cap implies
    assert refused.kind == "error" and refused.field.startswith(("flows", "probes")), refused


def test_a_sample_of_mutated_scenarios(ctx) -> None:
    _check([fz.run_case(ctx, data, muts) for data, muts in fz.cases(seed=2024, n=100)])


@pytest.mark.slow
def test_1500_mutated_scenarios(ctx) -> None:
    _check([fz.run_case(ctx, data, muts) for data, muts in fz.cases(seed=18, n=1500)])
