"""The tables of a study report: metric means with their 95% confidence intervals.

Each ``[[experiment.table]]`` (``name``, ``rows``: sweep parameters,
``columns``: metrics, optional ``title``) gives one table with a row per
combination of the ``rows`` parameters that has runs, in study-file value
order. Runs at other values of the parameters not listed in ``rows`` are
pooled into the row. ``runs`` is the number of ok runs of the row; a cell is
``mean ± half-width`` of the Student-t 95% interval over the runs that have a
value of that metric (:func:`tcpeval.metrics.nan_mean_ci`), followed by
``(n=k)`` when only ``k`` < ``runs`` of them do; one value is shown alone and no
value as ``—``. The same numbers, unrounded, are written to
``TABLEDIR/EXPERIMENT-TABLE.csv`` (columns: the row parameters, ``runs``, then
``METRIC_mean``, ``METRIC_ci95`` (half-width) and ``METRIC_n`` per metric).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import StoreError
from ..files import write_with
from ..metrics.stats import nan_mean_ci
from .data import RUN_COLUMNS, StudyResults, ok_runs, present_values, select
from .figures import CONFIDENCE, label, slug

RUNS = "runs"
"""The column holding each row's number of ok runs (not ``n``: studies sweep
parameters called ``n``)."""

MISSING = "—"
"""What a cell with no value shows."""


@dataclass
class TableOutput:
    """One table of the report.

    ``numbers`` holds the unrounded values (the CSV's columns), ``text`` the
    same rows as shown (strings), ``path`` the CSV written, and ``message``
    why there is no table (then ``path`` is None and the frames are empty).
    """

    experiment: str
    name: str
    title: str
    numbers: pd.DataFrame
    text: pd.DataFrame
    path: Path | None = None
    message: str | None = None


def cell_text(mean: float, half_width: float, count: int, runs: int) -> str:
    """A cell as shown: ``"950.2 ± 3.1"`` (4 significant digits for the mean,
    2 for the half-width), the mean alone for one value, :data:`MISSING` for
    none, and ``" (n=k)"`` appended when ``count`` < ``runs``."""
    if count == 0:
        return MISSING
    text = f"{mean:.4g}" if count == 1 or math.isnan(half_width) else f"{mean:.4g} ± {half_width:.2g}"
    return f"{text} (n={count})" if count < runs else text


def table_output(
    study: StudyResults, experiment: Mapping[str, Any], spec: Mapping[str, Any], directory: Path
) -> TableOutput:
    """Compute one ``[[experiment.table]]`` table ``spec`` and write its CSV under ``directory``.

    Raises ``ValueError`` naming the experiment and table when ``spec``
    refers to an unknown sweep parameter or metric.
    """
    where = f"experiment {experiment.get('name')!r}, table {spec.get('name')!r}"
    if "name" not in spec:
        raise ValueError(f"{where}: missing key 'name'")
    frame = study.runs[experiment["name"]]
    params = list(experiment.get("sweep", {}))
    metrics = list(frame.columns[len(RUN_COLUMNS) + len(params) :])
    rows = list(spec.get("rows", []))
    columns = list(spec.get("columns", metrics))
    for p in rows:
        if p not in params:
            raise ValueError(f"{where}: row {p!r} is not a sweep parameter of the experiment")
        if p == RUNS:
            raise ValueError(
                f"{where}: row {p!r} has the name of the table's run-count column; rename the parameter"
            )
    for m in columns:
        if m not in metrics:
            raise ValueError(f"{where}: column {m!r} is not a metric of the experiment")
    name = slug(f"{experiment['name']}-{spec['name']}")
    title = str(spec.get("title", spec["name"]))
    points = present_values(study, experiment, frame, rows)
    if not points:
        return TableOutput(experiment["name"], name, title, pd.DataFrame(), pd.DataFrame(), message="no runs")
    numbers: list[dict[str, Any]] = []
    text: list[dict[str, str]] = []
    for point in points:
        runs = ok_runs(select(frame, point))
        values = runs[columns].to_numpy(dtype=float).T if len(runs) else np.full((len(columns), 1), np.nan)
        mean, half, count = nan_mean_ci(values, CONFIDENCE)
        number_row: dict[str, Any] = {**point, RUNS: len(runs)}
        text_row = {**{p: label(v) for p, v in point.items()}, RUNS: str(len(runs))}
        for i, m in enumerate(columns):
            number_row.update({f"{m}_mean": mean[i], f"{m}_ci95": half[i], f"{m}_n": int(count[i])})
            text_row[m] = cell_text(float(mean[i]), float(half[i]), int(count[i]), len(runs))
        numbers.append(number_row)
        text.append(text_row)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{name}.csv"
    table = pd.DataFrame(numbers)
    try:
        write_with(path, lambda tmp: table.to_csv(tmp, index=False))
    except OSError as e:
        raise StoreError(path, f"cannot write: {e.strerror or e}") from None
    return TableOutput(experiment["name"], name, title, table, pd.DataFrame(text), path)


def experiment_tables(
    study: StudyResults, experiment: Mapping[str, Any], directory: Path
) -> list[TableOutput]:
    """Every table of ``experiment``, in study-file order (see :func:`table_output`)."""
    return [table_output(study, experiment, spec, directory) for spec in experiment.get("table", [])]
