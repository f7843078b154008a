"""A study's results directory: the run store plus a SQLite catalog.

Layout (docs/study-format.md): ``study.toml`` and ``study.json`` describe
what was run; ``runs/KEY/`` holds each finished run's tables (written
atomically by :func:`tcpeval.store.save_run`); ``catalog.sqlite`` has one row
per run with its sweep point, seed, status and metrics.

SQLite rather than DuckDB: it ships with Python, needs no server, and its
transactions make each catalog row appear whole or not at all, which is what
resuming needs. The per-run Parquet files stay readable by any tool.
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from tcpeval import __version__
from tcpeval.derived import add_derived
from tcpeval.result import RunResult
from tcpeval.store import load_run

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    experiment TEXT NOT NULL,
    point TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    wall_s REAL,
    metrics TEXT,
    version TEXT NOT NULL,
    finished REAL NOT NULL
)
"""


@dataclass(frozen=True)
class RunRecord:
    """The outcome of one run, as the catalog stores it."""

    key: str
    experiment: str
    point: dict[str, Any]
    seed: int
    status: str
    error: str | None
    wall_s: float
    metrics: dict[str, float | None]


class ResultsDB:
    """A study results directory; creates it on first use."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "runs").mkdir(exist_ok=True)
        self._db = sqlite3.connect(self.root / "catalog.sqlite")
        with self._db:
            self._db.execute(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def run_dir(self, key: str) -> Path:
        """Where the tables of run ``key`` live."""
        return self.root / "runs" / key

    def remove_partial_runs(self) -> int:
        """Deletes run directories half-written by a killed process; returns how many.

        Only the coordinator of a sweep may call this (it owns the directory).
        """
        stale = [p for p in (self.root / "runs").iterdir() if p.name.startswith(".")]
        for p in stale:
            shutil.rmtree(p, ignore_errors=True)
        return len(stale)

    def done_keys(self) -> set[str]:
        """Keys of the runs stored successfully."""
        rows = self._db.execute("SELECT key FROM runs WHERE status = 'ok'").fetchall()
        return {k for (k,) in rows if self.run_dir(k).is_dir()}

    def record(self, rec: RunRecord) -> None:
        """Stores (or replaces) the catalog row of a run, atomically."""

        def clean(v: float | None) -> float | None:
            return None if v is None or math.isnan(v) else v  # NaN -> null

        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    rec.key,
                    rec.experiment,
                    json.dumps(rec.point, sort_keys=True),
                    rec.seed,
                    rec.status,
                    rec.error,
                    rec.wall_s,
                    json.dumps({k: clean(v) for k, v in rec.metrics.items()}),
                    __version__,
                    time.time(),
                ),
            )

    def study_info(self) -> dict[str, Any]:
        """The run information last written by :meth:`write_study` ({} if none)."""
        path = self.root / "study.json"
        return json.loads(path.read_text()) if path.exists() else {}

    def wall_s(self, key: str) -> float:
        """The recorded wall-clock time of run ``key``, s."""
        (wall,) = self._db.execute("SELECT wall_s FROM runs WHERE key = ?", (key,)).fetchone()
        return float(wall)

    def write_study(self, source: str, info: dict[str, Any]) -> None:
        """Keeps a copy of the study file and its run information."""
        (self.root / "study.toml").write_text(source)
        (self.root / "study.json").write_text(json.dumps(info, indent=2))

    def runs(self, experiment: str | None = None) -> pd.DataFrame:
        """One row per run: key, experiment, seed, status, error, wall_s, sweep params, metrics.

        Rows come in a fixed order (experiment, sweep point, seed), whatever
        order the runs finished or were re-measured in.
        """
        q = "SELECT key, experiment, point, seed, status, error, wall_s, metrics FROM runs"
        args: tuple[str, ...] = ()
        if experiment is not None:
            q += " WHERE experiment = ?"
            args = (experiment,)
        rows = []
        for key, exp, point, seed, status, error, wall, metrics in self._db.execute(
            q + " ORDER BY experiment, point, seed, key", args
        ):
            row: dict[str, Any] = {
                "key": key,
                "experiment": exp,
                "seed": seed,
                "status": status,
                "error": error,
                "wall_s": wall,
            }
            row.update(json.loads(point))
            row.update(
                {k: (float("nan") if v is None else v) for k, v in json.loads(metrics or "{}").items()}
            )
            rows.append(row)
        return self._with_derived(pd.DataFrame(rows))

    def _with_derived(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Adds each experiment's derived metrics (:mod:`tcpeval.derived`),
        declared in the stored study file, to that experiment's rows."""
        source = self.root / "study.toml"
        if frame.empty or not source.exists():
            return frame
        spec = tomllib.loads(source.read_text())
        parts = []
        for exp in spec.get("experiment", []):
            part = frame[frame["experiment"] == exp["name"]]
            if exp.get("derived") and len(part):
                part = add_derived(part, list(exp.get("sweep", {})), exp["derived"])
            parts.append(part)
        known = {e["name"] for e in spec.get("experiment", [])}
        parts.append(frame[~frame["experiment"].isin(known)])
        return pd.concat([p for p in parts if len(p)], ignore_index=False).sort_index()

    def load_run(self, key: str) -> RunResult:
        """The stored tables of run ``key``."""
        return load_run(self.run_dir(key))


def results(study_dir: str | Path, experiment: str | None = None) -> pd.DataFrame:
    """The run summaries of a study directory as a DataFrame."""
    if not (Path(study_dir) / "catalog.sqlite").exists():
        raise FileNotFoundError(f"{study_dir} is not a study results directory (no catalog.sqlite)")
    db = ResultsDB(study_dir)
    try:
        return db.runs(experiment)
    finally:
        db.close()
