"""A study's results directory: the run store plus a SQLite catalog.

Layout (docs/study-format.md): ``study.toml`` and ``study.json`` describe
what was run; ``runs/KEY/`` holds each finished run's tables (written
atomically by :func:`tcpeval.store.save_run`); ``catalog.sqlite`` has one row
per run with its sweep point, seed, status and metrics.

:class:`ResultsDB` is the one reader and writer of that directory: the
sweep, ``tcpeval results query`` (:func:`results`) and the report
(:func:`tcpeval.report.data.load_results`) all read the catalog through
:meth:`ResultsDB.records` and the stored study files through
:meth:`ResultsDB.study_spec` and :meth:`ResultsDB.study_info`.

SQLite rather than DuckDB: it ships with Python, needs no server, and its
transactions make each catalog row appear whole or not at all, which is what
resuming needs. The per-run Parquet files stay readable by any tool.

Several processes may run sweeps into one directory at once. A run is
simulated only by the process holding its claim (:meth:`ResultsDB.claim`:
an exclusive ``flock`` on ``claims/KEY.lock``, released by the kernel when
the process dies, so a killed sweep leaves no stale claim); the holder
checks the catalog again before simulating, so no run is simulated twice. A
temporary run directory (``runs/.KEY.tmp-...``) is removed only by a process
holding KEY's claim: its own, or one left by a dead process. A catalog row
is never replaced by a worse one (an error never replaces an ok run).

The ``files`` column keeps the SHA-256 of every file of a run
(:func:`tcpeval.store.store_run`); :meth:`ResultsDB.damaged` checks them, so
a resumed sweep re-simulates a damaged run and a report names it. Rows
written before checksums were kept have none and are not checked.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import shutil
import sqlite3
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from tcpeval import __version__
from tcpeval.derived import add_derived
from tcpeval.errors import StoreError
from tcpeval.files import write_text_atomic
from tcpeval.result import RunResult
from tcpeval.store import load_run, verify_run

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
    finished REAL NOT NULL,
    files TEXT
)
"""

BUSY_TIMEOUT_S = 60.0
"""How long a catalog write waits for another process's transaction, s."""

_COLUMNS = "key, experiment, point, seed, status, error, wall_s, metrics, version, finished, files"


@dataclass(frozen=True)
class RunRecord:
    """The outcome of one run, as the catalog stores it: its sweep point
    (parameter -> value as the study file wrote it), seed, status (``"ok"``
    or ``"error"``), error text, wall-clock time (s) and metrics (name ->
    number, None where the metric has no value)."""

    key: str
    experiment: str
    point: dict[str, Any]
    seed: int
    status: str
    error: str | None
    wall_s: float
    metrics: dict[str, float | None]
    files: dict[str, str] | None = field(default=None)
    """SHA-256 of each stored file of the run, by name (None: not stored)."""


class Claim:
    """The exclusive right of this process to simulate and store one run
    (an ``flock`` on ``claims/KEY.lock``, see the module doc)."""

    def __init__(self, fd: int, key: str) -> None:
        self._fd: int | None = fd
        self.key = key

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None


class ResultsDB:
    """A study results directory; creates it on first use.

    Raises :class:`StoreError` naming the path when the directory cannot be
    created or the catalog is not a SQLite database."""

    def __init__(self, root: str | Path, readonly: bool = False) -> None:
        self.root = Path(root)
        self.catalog = self.root / "catalog.sqlite"
        if readonly:
            if not self.catalog.exists():
                raise StoreError(self.catalog, "missing: not a study results directory")
            try:
                self._db = sqlite3.connect(f"{self.catalog.resolve().as_uri()}?mode=ro", uri=True)
                self._db.execute("SELECT count(*) FROM runs").fetchone()
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(runs)")}
            except sqlite3.DatabaseError as e:
                raise StoreError(self.catalog, catalog_problem(e)) from None
            self._has_files = "files" in columns
            return
        try:
            (self.root / "runs").mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(e.filename or self.root, f"cannot create: {e.strerror or e}") from None
        try:
            self._db = sqlite3.connect(self.catalog, timeout=BUSY_TIMEOUT_S)
            with self._db:
                self._db.execute(SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(runs)")}
            if "files" not in columns:  # a catalog written before checksums were kept
                with self._db:
                    self._db.execute("ALTER TABLE runs ADD COLUMN files TEXT")
        except sqlite3.DatabaseError as e:
            raise StoreError(self.catalog, catalog_problem(e)) from None
        self._has_files = True

    def close(self) -> None:
        self._db.close()

    def run_dir(self, key: str) -> Path:
        """Where the tables of run ``key`` live."""
        return self.root / "runs" / key

    def claim(self, key: str) -> Claim | None:
        """Claims run ``key`` for this process (see the module doc); None when
        another process (or another thread of this one) holds it."""
        path = self.root / "claims" / f"{key}.lock"
        try:
            path.parent.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(path, f"cannot create: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return Claim(fd, key)

    def remove_partial_runs(self, key: str | None = None) -> int:
        """Deletes the temporary run directories (``runs/.KEY.tmp-*``,
        ``.KEY.old-*``) of runs no live process is writing: those whose claim
        this call can take. With ``key``, only that run's, whose claim the
        caller must hold. Returns how many were removed."""
        removed = 0
        for p in (self.root / "runs").iterdir():
            if not p.name.startswith("."):
                continue
            owner_key = p.name[1:].split(".", 1)[0]
            if key is not None:
                if owner_key != key:
                    continue
                shutil.rmtree(p, ignore_errors=True)
                removed += 1
                continue
            claim = self.claim(owner_key)
            if claim is None:
                continue  # a live process is writing it
            try:
                shutil.rmtree(p, ignore_errors=True)
                removed += 1
            finally:
                claim.release()
        return removed

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as e:
            raise StoreError(self.catalog, catalog_problem(e)) from None

    def stored_files(self) -> dict[str, dict[str, str] | None]:
        """Run key -> its files' SHA-256 (None when not recorded) of every ok row."""
        if not self._has_files:  # a catalog from before checksums, opened read-only
            return {k: None for (k,) in self._query("SELECT key FROM runs WHERE status = 'ok'")}
        return {
            k: (json.loads(f) if f else None)
            for k, f in self._query("SELECT key, files FROM runs WHERE status = 'ok'")
        }

    def damaged(self, keys: set[str] | None = None) -> dict[str, list[str]]:
        """Ok runs (of ``keys``, if given) whose stored files are missing or
        differ from their recorded SHA-256: key -> the problems, one per file."""
        out = {}
        for key, files in self.stored_files().items():
            if (keys is not None and key not in keys) or not files:
                continue  # rows from before checksums were kept are not checked
            if not self.run_dir(key).is_dir():
                out[key] = [f"{self.run_dir(key)}: missing"]
            elif problems := verify_run(self.run_dir(key), files):
                out[key] = problems
        return out

    def stored_ok(self, key: str) -> bool:
        """Whether run ``key`` has an ok row and files matching its checksums."""
        column = "files" if self._has_files else "NULL"
        rows = self._query(f"SELECT {column} FROM runs WHERE key = ? AND status = 'ok'", (key,))
        if not rows or not self.run_dir(key).is_dir():
            return False
        return not (rows[0][0] and verify_run(self.run_dir(key), json.loads(rows[0][0])))

    def done_keys(self, verify: bool = False) -> set[str]:
        """Keys of the runs stored successfully (with ``verify``, only those
        whose files match their checksums)."""
        stored = self.stored_files()
        keys = {k for k in stored if self.run_dir(k).is_dir()}
        if verify:
            keys -= set(self.damaged(keys))
        return keys

    def status(self, key: str) -> tuple[str, float] | None:
        """The catalog status of run ``key`` and when it was recorded (time.time()), or None."""
        rows = self._query("SELECT status, finished FROM runs WHERE key = ?", (key,))
        return (rows[0][0], float(rows[0][1])) if rows else None

    def record(self, rec: RunRecord) -> None:
        """Stores the catalog row of a run, atomically. An existing row is
        replaced unless it is an ok run and ``rec`` is not (never a worse row);
        an ok row without new files keeps its recorded checksums."""

        def clean(v: float | None) -> float | None:
            return None if v is None or math.isnan(v) else v  # NaN -> null

        row = (
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
            json.dumps(rec.files, sort_keys=True) if rec.files is not None else None,
        )
        try:
            with self._db:
                self._db.execute(
                    f"INSERT INTO runs ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET experiment = excluded.experiment, "
                    "point = excluded.point, seed = excluded.seed, status = excluded.status, "
                    "error = excluded.error, wall_s = excluded.wall_s, metrics = excluded.metrics, "
                    "version = excluded.version, finished = excluded.finished, "
                    "files = coalesce(excluded.files, runs.files) "
                    "WHERE NOT (runs.status = 'ok' AND excluded.status != 'ok')",
                    row,
                )
        except sqlite3.DatabaseError as e:
            raise StoreError(self.catalog, catalog_problem(e)) from None

    def records(self, experiment: str | None = None) -> list[RunRecord]:
        """The catalog's rows (of one ``experiment``, if given), parsed, in a
        fixed order whatever order the runs finished or were re-measured in:
        experiment, sweep point (its JSON text), seed, key. Their ``files``
        are not read (None). Raises :class:`StoreError` naming the catalog
        when a row's point or metrics is not a JSON object."""
        if experiment is None:
            return self._select("", ())
        return self._select(" WHERE experiment = ?", (experiment,))

    def records_of(self, keys: list[str]) -> list[RunRecord]:
        """The catalog rows of the runs ``keys`` that have one, as :meth:`records` gives them."""
        return self._select(f" WHERE key IN ({', '.join('?' * len(keys))})", tuple(keys))

    def _select(self, where: str, args: tuple[str, ...]) -> list[RunRecord]:
        q = "SELECT key, experiment, point, seed, status, error, wall_s, metrics FROM runs"
        return [
            RunRecord(
                key=key,
                experiment=exp,
                point=self._json_object(point, f"run {key}: point"),
                seed=seed,
                status=status,
                error=error,
                wall_s=wall,
                metrics=self._json_object(metrics, f"run {key}: metrics"),
            )
            for key, exp, point, seed, status, error, wall, metrics in self._query(
                q + where + " ORDER BY experiment, point, seed, key", args
            )
        ]

    def _json_object(self, text: str | None, what: str) -> dict[str, Any]:
        """A JSON object column of the catalog ({} when empty)."""
        if text is None or text == "":
            return {}
        try:
            value = json.loads(text)
        except ValueError as e:
            raise StoreError(self.catalog, f"{what} is broken JSON ({e})") from None
        if not isinstance(value, dict):
            raise StoreError(self.catalog, f"{what} is not a JSON object: {text!r}")
        return value

    @property
    def study_file(self) -> Path:
        """The copy of the study file the sweep ran (``study.toml``)."""
        return self.root / "study.toml"

    def study_spec(self) -> dict[str, Any]:
        """The stored study file, parsed ({} if there is none)."""
        source = self.study_file
        if not source.exists():
            return {}
        try:
            return tomllib.loads(source.read_text(encoding="utf-8"))
        except (ValueError, OSError) as e:
            raise StoreError(source, f"cannot read the stored study file ({e})") from None

    def study_info(self) -> dict[str, Any]:
        """The run information last written by :meth:`write_study` ({} if none)."""
        path = self.root / "study.json"
        if not path.exists():
            return {}
        try:
            info = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as e:
            raise StoreError(path, f"broken JSON ({e}); delete it and rerun the study") from None
        if not isinstance(info, dict):
            raise StoreError(path, "not a JSON object; delete it and rerun the study")
        return info

    def wall_s(self, key: str) -> float:
        """The recorded wall-clock time of run ``key``, s."""
        ((wall,),) = self._query("SELECT wall_s FROM runs WHERE key = ?", (key,))
        return float(wall)

    def write_study(self, source: str, info: dict[str, Any]) -> None:
        """Keeps a copy of the study file and its run information (each file
        written atomically: concurrent sweeps may write them at once)."""
        for name, text in (("study.toml", source), ("study.json", json.dumps(info, indent=2))):
            try:
                write_text_atomic(self.root / name, text)
            except OSError as e:
                raise StoreError(self.root / name, f"cannot write: {e.strerror or e}") from None

    def runs(self, experiment: str | None = None) -> pd.DataFrame:
        """One row per run: key, experiment, seed, status, error, wall_s, sweep params, metrics.

        Rows come in a fixed order (experiment, sweep point, seed), whatever
        order the runs finished or were re-measured in.
        """
        rows = []
        for rec in self.records(experiment):
            row: dict[str, Any] = {
                "key": rec.key,
                "experiment": rec.experiment,
                "seed": rec.seed,
                "status": rec.status,
                "error": rec.error,
                "wall_s": rec.wall_s,
            }
            row.update(rec.point)
            row.update({k: (float("nan") if v is None else v) for k, v in rec.metrics.items()})
            rows.append(row)
        return self._with_derived(pd.DataFrame(rows))

    def _with_derived(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Adds each experiment's derived metrics (:mod:`tcpeval.derived`),
        declared in the stored study file, to that experiment's rows."""
        if frame.empty or not self.study_file.exists():
            return frame
        spec = self.study_spec()
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


def catalog_problem(e: sqlite3.DatabaseError) -> str:
    """What a SQLite error on the catalog means to a user."""
    text = str(e)
    if "not a database" in text or "malformed" in text:
        return (
            f"not a usable catalog ({text}); move it away and rerun the study: "
            "runs not in the catalog are simulated again"
        )
    return f"catalog error: {text}"


def results(study_dir: str | Path, experiment: str | None = None) -> pd.DataFrame:
    """The run summaries of a study directory as a DataFrame."""
    if not (Path(study_dir) / "catalog.sqlite").exists():
        raise FileNotFoundError(f"{study_dir} is not a study results directory (no catalog.sqlite)")
    db = ResultsDB(study_dir, readonly=True)
    try:
        return db.runs(experiment)
    finally:
        db.close()
