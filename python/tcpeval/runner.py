"""Running a study's runs: locally on a thread pool (the engine releases the
GIL) or on a Dask distributed cluster, through the same function
:func:`execute`, with a progress bar over runs and resumption.

Each run is simulated, its tables written atomically under
``runs/KEY``, and its metrics computed where it ran; only the small
:class:`~tcpeval.results_db.RunRecord` travels back, and only the
coordinator writes the catalog. A run that fails is recorded with its
error and does not stop the others; a rerun retries it and skips every run
already stored. Runs start in turn from each experiment (round robin in
study order, each experiment's own runs in sweep order), so that the
progress bar's rate, and so its ETA, is a fair mix of cheap and costly
experiments from the start. When an experiment's metric declarations changed since its
stored runs were measured (``study.json`` keeps a digest per experiment),
those runs are re-measured from their stored tables, without simulating.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from tcpeval import __version__
from tcpeval.metrics.named import compute
from tcpeval.result import RunResult
from tcpeval.results_db import ResultsDB, RunRecord
from tcpeval.simulate import run
from tcpeval.store import save_run
from tcpeval.study import RunSpec, Study, expand


def execute(spec: RunSpec, metrics: list[tuple[str, str, dict[str, Any]]], run_dir: str) -> RunRecord:
    """Simulates one run, stores its tables in ``run_dir`` and computes its metrics.

    Never raises: a failure becomes a record with status ``error``.
    """
    started = time.perf_counter()
    try:
        result = run(spec.scenario, progress=False)
        save_run(result, run_dir)
        values, error = measure(result, metrics)
        status = "ok"
    except Exception as e:  # noqa: BLE001 - a run must not stop the sweep: its error is recorded
        status, error, values = "error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}", {}
    return RunRecord(
        key=spec.key,
        experiment=spec.experiment,
        point=spec.point,
        seed=spec.seed,
        status=status,
        error=error,
        wall_s=time.perf_counter() - started,
        metrics=values,
    )


def measure(
    result: RunResult, metrics: list[tuple[str, str, dict[str, Any]]]
) -> tuple[dict[str, float | None], str | None]:
    """The named metrics of one run, and the errors of those that failed
    (their value is None), or None when all succeeded."""
    values: dict[str, float | None] = {}
    errors = []
    for name, fn, args in metrics:
        try:
            values[name] = compute(result, fn, args)
        except (ValueError, KeyError, IndexError) as e:
            values[name] = None
            errors.append(f"metric {name}: {e}")
    return values, "; ".join(errors) if errors else None


def metrics_digest(metrics: list[tuple[str, str, dict[str, Any]]]) -> str:
    """Identity of an experiment's metric declarations, as run."""
    return hashlib.sha256(json.dumps(metrics, sort_keys=True).encode()).hexdigest()[:16]


def _remeasure(
    db: ResultsDB,
    specs: list[RunSpec],
    metric_specs: dict[str, list[Any]],
    stale: set[str],
    show: bool | None,
) -> None:
    """Recomputes the metrics of the stored runs of the ``stale`` experiments
    from their stored tables (no simulation): their metric declarations
    changed since those runs were measured."""
    stored = db.done_keys()
    redo = [s for s in specs if s.experiment in stale and s.key in stored]
    for spec in tqdm(redo, unit="run", desc="re-measuring", disable=show):
        values, error = measure(db.load_run(spec.key), metric_specs[spec.experiment])
        db.record(
            RunRecord(
                spec.key, spec.experiment, spec.point, spec.seed, "ok", error, db.wall_s(spec.key), values
            )
        )


def scaled_args(args: dict[str, Any], scale: float) -> dict[str, Any]:
    """Metric arguments for runs whose duration was scaled: time windows scale alike."""
    if "window" not in args or scale == 1.0:
        return args
    return dict(args, window=[float(w) * scale for w in args["window"]])


@dataclass(frozen=True)
class SweepSummary:
    """What a call to :func:`run_study` did."""

    total: int
    skipped: int
    ok: int
    failed: list[RunRecord]


def interleave(specs: list[RunSpec]) -> list[RunSpec]:
    """``specs`` reordered round robin over their experiments: the first run
    of each experiment (in order of first appearance), then the second of
    each, and so on; each experiment keeps its own order."""
    by_exp: dict[str, list[RunSpec]] = {}
    for s in specs:
        by_exp.setdefault(s.experiment, []).append(s)
    queues = list(by_exp.values())
    longest = max((len(q) for q in queues), default=0)
    return [q[i] for i in range(longest) for q in queues if i < len(q)]


def _local(jobs: list[Callable[[], RunRecord]], workers: int) -> Iterator[RunRecord]:
    """Runs ``jobs`` on a pool of ``workers`` threads, yielding each record as
    it finishes. Closing the generator early (Ctrl-C, an error) cancels the
    jobs not started, so an interrupted sweep stops instead of running on."""
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures: list[Future[RunRecord]] = [pool.submit(j) for j in jobs]
        for f in as_completed(futures):
            yield f.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _dask(calls: list[tuple[Any, ...]], scheduler: str) -> Iterator[RunRecord]:
    from distributed import Client
    from distributed import as_completed as dask_completed

    with Client(scheduler) as client:
        futures = [client.submit(execute, *c, pure=False) for c in calls]
        for f in dask_completed(futures):
            yield f.result()


def run_study(
    study: Study,
    out_dir: str | Path,
    *,
    quick: bool = False,
    only: list[str] | None = None,
    platform: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
) -> SweepSummary:
    """Runs every run of ``study`` not yet stored in ``out_dir``.

    ``scheduler``: address of a Dask scheduler (``tcp://host:8786``) to run
    on a cluster; otherwise a local pool of ``workers`` threads (default: all
    cores). ``platform`` runs every scenario on that platform preset instead
    of the study's (:func:`tcpeval.study.expand`).
    """
    specs = expand(study, quick=quick, only=only, platform=platform)
    db = ResultsDB(out_dir)
    info = {
        "name": study.name,
        "mode": "quick" if quick else "full",
        "platform": platform or study.platform or "linux",
        "tcpeval_version": __version__,
        "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "finished": None,
    }
    scale = study.duration_scale if quick else 1.0
    metric_specs = {
        e.name: [(m.name, m.fn, scaled_args(m.args, scale)) for m in e.metrics] for e in study.experiments
    }
    info["metrics"] = {name: metrics_digest(m) for name, m in metric_specs.items()}
    measured = db.study_info().get("metrics", {})
    show = None if progress is None else not progress
    db.remove_partial_runs()
    _remeasure(db, specs, metric_specs, {n for n, d in info["metrics"].items() if measured.get(n) != d}, show)
    db.write_study(study.source, info)
    done = db.done_keys()
    todo = interleave([s for s in specs if s.key not in done])
    calls = [(s, metric_specs[s.experiment], str(db.run_dir(s.key))) for s in todo]
    ok, failed = 0, []
    try:
        if scheduler:
            stream = _dask(calls, scheduler)
        else:
            n = workers or os.cpu_count() or 1
            stream = _local([lambda c=c: execute(*c) for c in calls], n)
        with tqdm(total=len(todo), unit="run", desc=study.name, disable=show) as bar, closing(stream):
            for rec in stream:
                db.record(rec)
                if rec.status == "ok":
                    ok += 1
                else:
                    failed.append(rec)
                    bar.write(
                        f"run failed: {rec.experiment} {rec.point} seed {rec.seed}: {rec.error.splitlines()[0]}"
                    )
                bar.update(1)
        info["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        db.write_study(study.source, info)
    finally:
        db.close()
    return SweepSummary(total=len(specs), skipped=len(specs) - len(todo), ok=ok, failed=failed)
