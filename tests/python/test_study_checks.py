"""A study's metric, figure and table references are checked when it is
loaded and by --plan, before any run; metrics that fail at run time make
the sweep exit non-zero; --plan estimates the time before any run exists."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import subprocess_env
from tcpeval.plan import calibrate, plan, remaining_wall_s
from tcpeval.study import StudyError, expand, parse_study
from test_study import TINY

FIGURE = """
[[experiment.figure]]
name = "f"
kind = "line"
x = "rtt"
y = "goodput"
group = "algorithm"
"""


def _error(text: str) -> StudyError:
    with pytest.raises(StudyError) as info:
        parse_study(text)
    return info.value


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (('fn = "goodput_mbps"', 'fn = "goodput_mbs"'), "experiment[0].metric[0].fn", "'goodput_mbs'"),
        (('agg = "sum"', 'aggregate = "sum"'), "experiment[0].metric[0].aggregate", "its arguments: flows"),
        (
            ('name = "jain"\nfn = "jain"', 'name = "jain"\nfn = "ratio"'),
            "experiment[0].metric[1].flows",
            "needs",
        ),
        (
            ('columns = ["goodput", "jain"', 'columns = ["goodput", "jian"'),
            "experiment[0].table[0].columns[1]",
            "'jian'",
        ),
        (('rows = ["algorithm", "rtt"]', 'rows = ["algo"]'), "experiment[0].table[0].rows[0]", "not a sweep"),
        (('y = "goodput"', 'y = "goodput_mbps"'), "experiment[0].figure[0].y", "not a metric"),
        (('x = "rtt"', 'x = "rtts"'), "experiment[0].figure[0].x", "not a sweep parameter"),
        (('kind = "line"', 'kind = "lines"'), "experiment[0].figure[0].kind", "use line"),
        (('group = "algorithm"', 'colour = "algorithm"'), "experiment[0].figure[0].colour", "unknown key"),
        (('group = "algorithm"', "ylim = [1, 0]"), "experiment[0].figure[0].ylim", "low < high"),
        (('group = "algorithm"', "x_factor = 0"), "experiment[0].figure[0].x_factor", "> 0"),
        (
            (
                'kind = "line"\nx = "rtt"\ny = "goodput"',
                'kind = "bars"\ny = ["goodput", "jain"]\nlabels = ["a"]',
            ),
            "experiment[0].figure[0].labels",
            "one label per metric of y (2)",
        ),
    ],
)
def test_misspelt_references_fail_at_load_naming_the_field(edit, field, message) -> None:
    text = (TINY + FIGURE).replace(*edit)
    assert text != TINY + FIGURE
    e = _error(text)
    assert e.field == field and message in e.message, e


def test_a_timeseries_figure_point_must_be_a_sweep_value() -> None:
    ts = '\n[[experiment.figure]]\nname = "ts"\nkind = "timeseries"\nwhere = { rtt = 30 }\n'
    assert _error(TINY + ts).field == "experiment[0].figure[0].where.rtt"
    parse_study(TINY + ts.replace("30", "40"))


def _env() -> dict[str, str]:
    return subprocess_env()


def _tcpeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcpeval.cli", *args], capture_output=True, text=True, env=_env(), check=False
    )


def test_plan_rejects_a_misspelt_metric_before_creating_anything(tmp_path: Path) -> None:
    study = tmp_path / "bad.toml"
    study.write_text(TINY.replace('fn = "goodput_mbps"', 'fn = "goodput_mbs"'))
    out = tmp_path / "out"
    for extra in (["--plan"], []):
        p = _tcpeval("study", "run", str(study), "--out", str(out), *extra)
        assert p.returncode == 2 and "experiment[0].metric[0].fn" in p.stderr and "goodput_mbs" in p.stderr
        assert not out.exists()


def test_a_sweep_whose_metrics_failed_exits_non_zero_and_says_so(tmp_path: Path) -> None:
    study = tmp_path / "s.toml"
    # A valid function whose flow selector names no flow: it fails on every run.
    study.write_text(TINY.replace('agg = "sum"', 'agg = "sum"\nflows = ["zz"]'))
    out = tmp_path / "out"
    p = _tcpeval("study", "run", str(study), "--quick", "--out", str(out), "--quiet", "--no-report")
    assert p.returncode == 1, p.stderr
    assert "2 run(s) stored but some of their metrics failed" in p.stdout
    assert "metric goodput: no flow named 'zz'" in p.stdout
    q = _tcpeval("results", "query", str(out))
    assert "no flow named 'zz'" in q.stdout


def test_plan_estimates_the_time_before_any_run_is_stored(tmp_path: Path) -> None:
    study = tmp_path / "s.toml"
    study.write_text(TINY)
    p = _tcpeval("study", "run", str(study), "--plan", "--workers", "2", "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert "the 8 runs left: about 0 h 00 min on 2 workers (from a short calibration run)" in p.stdout
    assert "a calibration sees only a run's first seconds" in p.stdout  # and says it may run low
    assert not (tmp_path / "o").exists()


def test_calibration_measures_the_wall_time_per_simulated_second() -> None:
    spec = expand(parse_study(TINY))[0]  # 4 s at 20 Mbit/s: a few ms of wall time
    rate = calibrate(spec, wall_budget_s=0.2)
    assert 1e-5 < rate < 0.2
    plans = plan([spec], {})
    assert remaining_wall_s(plans, 1) is None
    assert remaining_wall_s(plans, 2, {"grid": rate}) == pytest.approx(4.0 * rate / 2)
