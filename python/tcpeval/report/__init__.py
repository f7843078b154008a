"""The report of a study: figures, tables and one self-contained HTML page.

>>> from tcpeval.report import build_report
>>> build_report("results/linux-variants")          # doctest: +SKIP
PosixPath('.../results/linux-variants/report.html')

The input is a study's results directory (docs/study-format.md, read by
:func:`tcpeval.report.data.load_results`); the figure kinds and file names are described
in :mod:`tcpeval.report.figures`, the tables in :mod:`tcpeval.report.tables`
and the page in :mod:`tcpeval.report.page`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from tcpeval import __version__
from tcpeval.errors import StoreError
from tcpeval.files import write_text_atomic
from tcpeval.results_db import ResultsDB

from .data import StudyResults, experiment_runs, load_results
from .figures import FORMATS, FigureOutput, experiment_figures, figure_formats, figure_outputs
from .page import experiment_html, page_html
from .saving import FigureSaver
from .scorecard import Scorecard, scorecard, write_csv
from .tables import TableOutput, experiment_tables, table_output

__all__ = [
    "FigureOutput",
    "Report",
    "Scorecard",
    "StudyResults",
    "TableOutput",
    "build",
    "build_report",
    "default_formats",
    "experiment_figures",
    "experiment_runs",
    "experiment_tables",
    "figure_formats",
    "figure_outputs",
    "load_results",
    "table_output",
]


@dataclass(frozen=True)
class Report:
    """A built report: the page, and every figure and table it shows, per
    experiment in study-file order."""

    page: Path
    figures: dict[str, list[FigureOutput]]
    tables: dict[str, list[TableOutput]]
    scorecard: Scorecard


def build(
    study_dir: str | Path,
    *,
    workers: int | None = None,
    progress: bool = False,
    formats: Iterable[str] | None = None,
) -> Report:
    """Build the report of the study whose results are in ``study_dir``.

    Writes every figure to ``study_dir/figures/`` (in ``formats``; None:
    PNG alone for a quick study, whose report is a first look and must not
    take longer than its runs, PNG, SVG and PDF for a full one; PNG always,
    see :func:`figure_formats`), every table
    to ``study_dir/tables/`` (CSV) and the page to ``study_dir/report.html``
    (replaced atomically, once every figure file is written). Figures are
    saved on ``workers`` processes (default: every core; 1 saves in this
    process), with a progress bar if ``progress``. The returned outputs keep
    no matplotlib Figure (``figure`` is None), so memory does not grow with
    the study.
    """
    check_runs(study_dir)
    study = load_results(study_dir)
    saved = figure_formats(default_formats(study.mode) if formats is None else formats)
    figures: dict[str, list[FigureOutput]] = {}
    tables: dict[str, list[TableOutput]] = {}
    with FigureSaver(workers or os.cpu_count() or 1, progress) as saver:
        for experiment in study.experiments:
            name = experiment["name"]
            drawn = experiment_figures(study, experiment, study.directory / "figures", saver, saved)
            figures[name] = [replace(out, figure=None) for out in drawn]
            tables[name] = experiment_tables(study, experiment, study.directory / "tables")
    remove_other_formats(study.directory / "figures", [o for outs in figures.values() for o in outs], saved)
    card = scorecard(study)
    write_csv(card, study.directory / "tables")
    sections = [experiment_html(study, e, figures[e["name"]], tables[e["name"]]) for e in study.experiments]
    page = study.directory / "report.html"
    write_text_atomic(page, page_html(study, sections, __version__, card))
    return Report(page, figures, tables, card)


def remove_other_formats(directory: Path, outputs: Iterable[FigureOutput], saved: Iterable[str]) -> int:
    """Deletes the files an earlier report wrote for these figures in formats
    this one did not save (a full report's SVG and PDF, rebuilt PNG alone),
    so ``figures/`` holds what the page shows and no stale picture; returns
    how many were deleted."""
    other = [f for f in FORMATS if f not in set(saved)]
    removed = 0
    for out in outputs:
        for fmt in other:
            path = directory / f"{out.name}.{fmt}"
            if path.exists():
                path.unlink()
                removed += 1
    return removed


def default_formats(mode: str) -> tuple[str, ...]:
    """The figure formats a report saves unless told: PNG in quick mode
    (SVG and PDF double the report's time, measured in BENCHMARKS.md),
    all of :data:`FORMATS` in full mode."""
    return ("png",) if mode == "quick" else FORMATS


def check_runs(study_dir: str | Path) -> None:
    """Raises :class:`~tcpeval.errors.StoreError` naming every stored run
    whose files are missing or differ from their recorded checksums (a report
    must not draw from damaged runs; rerunning the study simulates them again)."""
    db = ResultsDB(study_dir, readonly=True)
    try:
        damaged = db.damaged()
    finally:
        db.close()
    if damaged:
        lines = [problem for key in sorted(damaged) for problem in damaged[key]]
        raise StoreError(
            Path(study_dir),
            f"{len(damaged)} stored run(s) damaged ({'; '.join(lines)}); "
            "rerun the study command to simulate them again",
        )


def build_report(
    study_dir: str | Path,
    *,
    workers: int | None = None,
    progress: bool = False,
    formats: Iterable[str] | None = None,
) -> Path:
    """Build the report of the study in ``study_dir`` (see :func:`build`) and
    return the page's path."""
    return build(study_dir, workers=workers, progress=progress, formats=formats).page
