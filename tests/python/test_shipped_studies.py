"""Every shipped study, end to end in quick mode: every run finishes and
every declared figure and table has data.

The `reverse` study runs in the default test run; the others take minutes
each on two cores and are marked slow (`python -m pytest -m slow`).
"""

from __future__ import annotations

import pytest

from tcpeval.report import build, load_results
from tcpeval.report.figures import slug
from tcpeval.runner import run_study
from tcpeval.study import expand, load_study

SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    "name",
    [
        "reverse",
        pytest.param("linux-variants", marks=SLOW),
        pytest.param("yeah", marks=SLOW),
        pytest.param("background", marks=SLOW),
        pytest.param("fairness", marks=SLOW),
        pytest.param("modern", marks=SLOW),
    ],
)
def test_quick_mode_produces_every_declared_figure_and_table(name: str, tmp_path) -> None:
    study = load_study(name)
    summary = run_study(study, tmp_path, quick=True, progress=False)
    assert not summary.failed, [(f.experiment, f.point, f.error) for f in summary.failed]
    assert summary.ok == len(expand(study, quick=True))

    report = build(tmp_path)
    assert report.page.exists()
    # Every claim of the study file gets a verdict, marked indicative in quick
    # mode; only `modern` (no paper to reproduce) has none.
    assert len(report.scorecard.verdicts) == len(study.claims)
    assert study.claims or name == "modern"
    assert all(v.indicative for v in report.scorecard.verdicts)
    assert report.scorecard.measured > 0
    assert "id='scorecard'" in report.page.read_text(encoding="utf-8")
    for experiment in load_results(tmp_path).experiments:
        name = experiment["name"]
        figures = report.figures[name]
        for declared in experiment.get("figure", []):
            stem = slug(f"{name}-{declared['name']}")
            assert any(f.name.startswith(stem) for f in figures), (name, declared["name"])
        for fig in figures:
            assert fig.message is None and not fig.notes, ((name, fig.name), fig.message, fig.notes)
            assert set(fig.paths) == {"png"}, (name, fig.name)  # quick mode: PNG unless asked
            assert all(p.stat().st_size > 0 for p in fig.paths.values()), (name, fig.name)
        declared_tables = experiment.get("table", [])
        assert len(report.tables[name]) == len(declared_tables)
        for table, declared in zip(report.tables[name], declared_tables, strict=True):
            assert table.message is None and table.path is not None and table.path.exists(), table.name
            for column in declared["columns"]:
                assert table.numbers[f"{column}_n"].sum() > 0, (name, table.name, column)
