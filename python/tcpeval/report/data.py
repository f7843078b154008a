"""A study's results directory (docs/study-format.md) as the report sees it:
one pandas DataFrame of runs per experiment.

The report reads only the results layout, never the running study, and
reads it through :class:`tcpeval.results_db.ResultsDB`, the directory's one
reader:

* ``study.toml``: the study as run; its ``experiment`` array declares each
  experiment's sweep, metrics, figures and tables;
* ``study.json``: ``name``, ``mode`` (``"quick"`` or ``"full"``),
  ``tcpeval_version``, ``started``, ``finished``;
* ``catalog.sqlite``, table ``runs``: ``key``, ``experiment``, ``point``
  (JSON object: sweep parameter -> value), ``seed``, ``status`` (``"ok"`` or
  ``"error"``), ``error``, ``wall_s`` and ``metrics`` (JSON object: metric
  name -> number or null);
* ``runs/KEY/``: the tables of each ok run (:func:`tcpeval.store.load_run`).

:func:`load_results` makes each experiment one DataFrame with a row per run
(see :func:`experiment_runs`). Sweep values that are TOML tables or arrays (a
buffer of ``{ bdp = 0.5 }``) are kept as their canonical JSON text so that
they can be compared, grouped and shown (:func:`canonical`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..derived import add_derived
from ..errors import StoreError
from ..results_db import ResultsDB, RunRecord
from ..store import SUMMARY, read_summary
from ..study import experiment_time_scale

RUN_COLUMNS = ("key", "seed", "status", "error", "wall_s")
"""The columns every experiment frame starts with, before its sweep
parameters and metrics."""

Value = bool | int | float | str
"""A sweep value as the report handles it (see :func:`canonical`)."""


def canonical(value: Any) -> Value:
    """A sweep value as a comparable scalar: numbers, strings and booleans as
    they are, anything else (a table, an array) as compact JSON with sorted keys."""
    if isinstance(value, (bool, int, float, str)):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class StudyResults:
    """A study's results directory, read: the study file, its run metadata
    and one DataFrame of runs per experiment (keyed by experiment name)."""

    directory: Path
    spec: dict[str, Any]
    meta: dict[str, Any]
    runs: dict[str, pd.DataFrame]
    other_settings: int = 0
    """Stored runs left out of ``runs``: the study file has changed since
    they ran (a setting edited), so no run of its plan has their key."""

    @property
    def mode(self) -> str:
        """``"quick"`` or ``"full"``, as recorded in ``study.json``."""
        return str(self.meta.get("mode", "full"))

    def time_scale(self, experiment: Mapping[str, Any]) -> float:
        """Factor from the full run's time axis to this mode's for ``experiment`` (its
        table in the study file): in quick mode the study's ``quick.duration_scale``,
        or 1 where the experiment sweeps ``duration_s`` (:func:`tcpeval.study.experiment_time_scale`);
        1 in full mode."""
        if self.mode != "quick":
            return 1.0
        paths = [
            path
            for param in experiment.get("sweep", {}).values()
            for path in ([param["path"]] if isinstance(param["path"], str) else param["path"])
        ]
        return experiment_time_scale(float(self.spec.get("quick", {}).get("duration_scale", 1.0)), paths)

    @property
    def stored_runs(self) -> int:
        """Runs in the catalog, ok or failed."""
        return sum(len(frame) for frame in self.runs.values())

    @property
    def complete(self) -> bool:
        """The last sweep into this directory ran to its end (``study.json``
        records when), and no fewer runs are stored than it planned (older
        directories do not record the plan)."""
        planned = self.meta.get("planned_runs")
        return self.meta.get("finished") is not None and (planned is None or self.stored_runs >= int(planned))

    @property
    def experiments(self) -> list[dict[str, Any]]:
        """The experiment tables of the study file, in file order."""
        return list(self.spec.get("experiment", []))

    def declared_values(self, experiment: Mapping[str, Any], param: str) -> list[Any]:
        """The values the study file gives sweep parameter ``param`` for this
        mode, as written: ``[experiment.quick]`` replaces the sweep's in quick mode."""
        sweep = experiment.get("sweep", {})
        if param not in sweep:
            raise ValueError(f"experiment {experiment.get('name')!r} has no sweep parameter {param!r}")
        quick = experiment.get("quick", {})
        if self.mode == "quick" and isinstance(quick.get(param), list):
            return list(quick[param])
        return list(sweep[param].get("values", []))

    def values(self, experiment: Mapping[str, Any], param: str) -> list[Value]:
        """The values of sweep parameter ``param`` (:func:`canonical`) in the
        order of :meth:`declared_values`, followed by any other value found in
        the catalog."""
        order = list(dict.fromkeys(canonical(v) for v in self.declared_values(experiment, param)))
        frame = self.runs.get(experiment["name"])
        if frame is not None:
            order.extend(v for v in dict.fromkeys(frame[param].dropna()) if v not in order)
        return order


def experiment_runs(records: Iterable[RunRecord], experiment: Mapping[str, Any]) -> pd.DataFrame:
    """One row per catalog record of ``experiment`` (``records``: its rows,
    :meth:`tcpeval.results_db.ResultsDB.records`).

    Columns: ``key``, ``seed``, ``status`` (``"ok"``/``"error"``),
    ``error`` (text or None), ``wall_s`` (wall-clock run time, s), then one
    column per sweep parameter (its value at the run's point, see
    :func:`canonical`; None if the point lacks it) and one per metric (float,
    NaN where the metric has no value, as for a failed run). Metrics found in
    the catalog but not declared follow the declared ones, and the
    experiment's derived metrics (:mod:`tcpeval.derived`) come last. Rows are sorted by
    key, so the frame does not depend on the order runs finished in.
    """
    name = experiment["name"]
    params = list(experiment.get("sweep", {}))
    metrics = [m["name"] for m in experiment.get("metric", [])]
    clash = set(RUN_COLUMNS) & set(params + metrics) | set(params) & set(metrics)
    if clash:
        raise ValueError(f"experiment {name!r}: names used twice as columns: {sorted(clash)}")
    rows = []
    for rec in sorted(records, key=lambda r: r.key):
        if rec.experiment != name:
            raise ValueError(f"run {rec.key} is of experiment {rec.experiment!r}, not {name!r}")
        for extra in rec.metrics:
            if extra not in metrics and extra not in RUN_COLUMNS and extra not in params:
                metrics.append(extra)
        row: dict[str, Any] = {
            "key": rec.key,
            "seed": rec.seed,
            "status": rec.status,
            "error": rec.error,
            "wall_s": rec.wall_s,
        }
        row.update({p: canonical(rec.point[p]) if p in rec.point else None for p in params})
        row.update({m: rec.metrics.get(m) for m in metrics})
        rows.append(row)
    columns = [*RUN_COLUMNS, *params, *metrics]
    frame = pd.DataFrame.from_records(rows, columns=columns)
    for m in metrics:
        frame[m] = pd.to_numeric(frame[m], errors="coerce").astype(float)
    frame["wall_s"] = frame["wall_s"].astype(float)
    return add_derived(frame, params, experiment.get("derived", []))


def load_results(study_dir: str | Path) -> StudyResults:
    """Read a study's results directory (see the module docstring).

    The catalog is opened read-only, so a report can be built while the
    study still runs (it then shows the runs finished so far). A missing
    or unreadable file raises an ``OSError`` naming it.
    """
    directory = Path(study_dir).resolve()
    db = ResultsDB(directory, readonly=True)
    try:
        for path in (db.study_file, directory / "study.json"):
            if not path.exists():
                raise FileNotFoundError(f"{path}: missing: not a study results directory")
        spec, meta = db.study_spec(), db.study_info()
        planned = planned_keys(db.study_file.read_text(encoding="utf-8"), meta)
        runs, other = {}, 0
        for e in spec.get("experiment", []):
            records = db.records(e["name"])
            kept = [r for r in records if planned is None or r.key in planned]
            other += len(records) - len(kept)
            runs[e["name"]] = experiment_runs(kept, e)
    finally:
        db.close()
    return StudyResults(directory=directory, spec=spec, meta=meta, runs=runs, other_settings=other)


def planned_keys(source: str, meta: Mapping[str, Any]) -> set[str] | None:
    """The run keys that the study file ``source`` plans in the mode and
    platform ``study.json`` (``meta``) records, or None where they cannot be
    told: a directory written before ``platform_override`` was recorded, or
    a study file this version no longer reads. A run stored under an earlier
    version of the study file (a setting since edited) has another key. The
    keys the sweep stored in ``study.json`` are taken when they are those of
    this file, mode and platform (:func:`~tcpeval.study.plan_digest`);
    otherwise the study is expanded again (seconds for a large study)."""
    from ..errors import ScenarioError
    from ..study import expand, parse_study, plan_digest

    if "platform_override" not in meta:
        return None
    quick = meta.get("mode") == "quick"
    stored = meta.get("planned_keys")
    if isinstance(stored, dict) and stored.get("digest") == plan_digest(
        source, quick, meta["platform_override"]
    ):
        return set(stored["keys"])
    try:
        study = parse_study(source)
        specs = expand(study, quick=quick, platform=meta["platform_override"])
    except ScenarioError:
        return None
    return {s.key for s in specs}


def twin_copies(study: StudyResults, frame: pd.DataFrame) -> int:
    """How many of the ok runs in ``frame`` were stored from a seed twin
    (``reused_from`` in their ``summary.json``, :mod:`tcpeval.runner`): runs
    that draw no random number, whose seeds are all the same run. A summary
    that cannot be read counts as no copy (the report names damaged runs
    elsewhere)."""
    copies = 0
    db = ResultsDB(study.directory, readonly=True)
    try:
        for key in ok_runs(frame)["key"]:
            try:
                summary = read_summary(db.run_dir(str(key)) / SUMMARY)
            except StoreError:
                continue
            copies += "reused_from" in summary
    finally:
        db.close()
    return copies


def ok_runs(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of runs that finished (status ``"ok"``)."""
    return frame[frame["status"] == "ok"]


def select(frame: pd.DataFrame, point: Mapping[str, Value]) -> pd.DataFrame:
    """The rows whose sweep parameters equal every value in ``point``."""
    mask = np.ones(len(frame), dtype=bool)
    for param, value in point.items():
        mask &= (frame[param] == value).to_numpy(dtype=bool)
    return frame[mask]


def present_values(
    study: StudyResults,
    experiment: Mapping[str, Any],
    frame: pd.DataFrame,
    params: Sequence[str],
) -> list[dict[str, Value]]:
    """The combinations of ``params`` that occur in ``frame``, in the study
    file's value order (the first parameter varying slowest)."""
    if not params:
        return [{}] if len(frame) else []
    seen = set(frame[list(params)].itertuples(index=False, name=None))
    orders = [study.values(experiment, p) for p in params]
    combos: list[dict[str, Value]] = [{}]
    for param, order in zip(params, orders, strict=True):
        combos = [{**c, param: v} for c in combos for v in order]
    return [c for c in combos if tuple(c[p] for p in params) in seen]
