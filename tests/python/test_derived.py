"""Derived metrics: a run's metric against its paired baseline run (tcpeval.derived)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tcpeval.derived import add_derived
from tcpeval.study import StudyError, parse_study

SPEC = {"name": "f2r", "fn": "baseline_over_run", "metric": "g", "baseline": {"algorithm": "reno"}}


def _frame() -> pd.DataFrame:
    rows = [
        # algorithm, n, seed, status, g
        ("reno", 1, 1, "ok", 10.0),
        ("reno", 1, 2, "ok", 12.0),
        ("cubic", 1, 1, "ok", 5.0),
        ("cubic", 1, 2, "ok", 4.0),
        ("cubic", 2, 1, "ok", 8.0),  # no reno run at n = 2
        ("reno", 4, 1, "error", float("nan")),
        ("cubic", 4, 1, "ok", 3.0),  # its baseline failed
        ("bic", 1, 1, "ok", 0.0),  # zero denominator
    ]
    return pd.DataFrame(rows, columns=["algorithm", "n", "seed", "status", "g"])


def test_runs_pair_with_the_baseline_of_the_same_point_and_seed() -> None:
    out = add_derived(_frame(), ["algorithm", "n"], [SPEC])
    got = out["f2r"].tolist()
    assert got[:4] == [1.0, 1.0, 10.0 / 5.0, 12.0 / 4.0]
    assert all(math.isnan(v) for v in got[4:])


def test_run_over_baseline_is_the_inverse() -> None:
    out = add_derived(_frame(), ["algorithm", "n"], [dict(SPEC, fn="run_over_baseline")])
    assert out["f2r"].tolist()[2:4] == [5.0 / 10.0, 4.0 / 12.0]


STUDY = """
name = "d"
[defaults]
duration_s = 2.0
[[experiment]]
name = "e"
[experiment.scenario]
topology = { kind = "dumbbell", bottleneck = { rate_mbps = 10, delay_ms = 5 } }
flows = [{ algorithm = "reno", rtt_ms = 20 }]
[experiment.sweep]
algorithm = { path = "flows[0].algorithm", values = ["reno", "cubic"] }
[experiment.quick]
algorithm = ["reno", "cubic"]
[[experiment.metric]]
name = "g"
fn = "goodput_mbps"
[[experiment.derived]]
name = "f2r"
fn = "baseline_over_run"
metric = "g"
baseline = { algorithm = "reno" }
"""


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ('metric = "g"', 'metric = "x"', "experiment[0].derived[0].metric", "not a metric"),
        (
            'fn = "baseline_over_run"',
            'fn = "difference"',
            "experiment[0].derived[0].fn",
            "allowed: baseline_over_run",
        ),
        (
            '{ algorithm = "reno" }',
            "{ rtt = 1 }",
            "experiment[0].derived[0].baseline.rtt",
            "not a sweep parameter",
        ),
        (
            '{ algorithm = "reno" }',
            '{ algorithm = "bic" }',
            "experiment[0].derived[0].baseline.algorithm",
            "not one of its values",
        ),
        (
            'algorithm = ["reno", "cubic"]',
            'algorithm = ["cubic"]',
            "experiment[0].derived[0].baseline.algorithm",
            "quick-mode",
        ),
        ('name = "f2r"', 'name = "g"', "experiment[0].derived[0].name", "used twice"),
    ],
)
def test_bad_derived_entries_name_the_field(old: str, new: str, field: str, message: str) -> None:
    parse_study(STUDY)
    with pytest.raises(StudyError) as info:
        parse_study(STUDY.replace(old, new))
    assert info.value.field == field and message in info.value.message
