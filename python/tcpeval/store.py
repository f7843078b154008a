"""Writing and reading one run's results: a directory with Parquet tables
and a JSON summary.

A run is first encoded in memory (:func:`encode_run`: file name -> bytes),
so it can travel from a cluster worker to the process that stores it, then
written (:func:`store_run`) under a temporary name (``.KEY.tmp-PID-TOKEN``)
and renamed into place, so a reader never sees a half-written run.
:func:`store_run` returns the SHA-256 of every file, which the catalog keeps
to detect damage later (:func:`verify_run`).

Parquet files carry page checksums (CRC-32 of every data page) and are read
with their verification on, so a flipped bit in a data page is an error, not
a different number.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import secrets
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from tcpeval import __version__
from tcpeval.errors import StoreError
from tcpeval.files import sha256_file
from tcpeval.result import RunResult
from tcpeval.scenario import Scenario

TABLES = (
    "flow_series",
    "queue_series",
    "flows",
    "links",
    "transfers",
    "class_series",
    "classes",
    "aqm_series",
)
SUMMARY = "summary.json"


def summary_record(result: RunResult) -> dict[str, Any]:
    """The JSON summary of a run: scenario, its hash, version, totals (and,
    for a run on the linux testbed, its ``backend`` facts)."""
    record = {
        "tcpeval_version": __version__,
        "scenario_hash": result.scenario.hash,
        "seed": result.scenario.seed,
        "scenario": result.scenario.data,
        "sim_time_s": result.sim_time_s,
        "events": result.events,
        "random_draws": result.random_draws,
        "wall_time_s": result.wall_time_s,
        "flows": result.summary().to_dict(orient="records"),
        "links": result.link_summary().to_dict(orient="records"),
        "classes": result.class_summary().to_dict(orient="records") if len(result.classes) else [],
    }
    if result.backend:
        record["backend"] = result.backend
    return record


def _parquet_bytes(frame: pd.DataFrame) -> bytes:
    """A table as Parquet, encoded for the series tcpeval writes (lossless).

    Integer columns are mostly cumulative counters and sample ids, so they
    are delta-encoded; float columns are split by byte (times and windows of
    nearby values share their high bytes); zstd on top. On a full-mode yeah
    run this is 4.1 MB against 7.3 MB for pyarrow's defaults (dictionary +
    snappy). Readers need nothing special: every Parquet reader decodes it.
    """
    buf = io.BytesIO()
    table = pa.Table.from_pandas(frame, preserve_index=False)
    encoding = {}
    for column, kind in zip(table.schema.names, table.schema.types, strict=True):
        if pa.types.is_integer(kind):
            encoding[column] = "DELTA_BINARY_PACKED"
        elif pa.types.is_floating(kind):
            encoding[column] = "BYTE_STREAM_SPLIT"
    pq.write_table(
        table,
        buf,
        compression="zstd",
        use_dictionary=False,
        column_encoding=encoding,
        write_page_checksum=True,
    )
    return buf.getvalue()


def encode_run(result: RunResult, skip: Sequence[str] = ()) -> dict[str, bytes]:
    """The files of a run, in memory: ``NAME.parquet`` per table but those in
    ``skip``, and ``summary.json`` (whose ``skipped_tables`` lists them; a
    skipped table loads empty, as does one older runs did not have)."""
    files = {
        f"{name}.parquet": _parquet_bytes(result.stored_table(name)) for name in TABLES if name not in skip
    }
    record = summary_record(result)
    if skip:
        record["skipped_tables"] = list(skip)
    files[SUMMARY] = json.dumps(record, indent=2, default=float).encode()
    return files


def digests(files: Mapping[str, bytes]) -> dict[str, str]:
    """SHA-256 of each encoded file, by name."""
    return {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


def _side_name(out: Path, kind: str) -> Path:
    return out.parent / f".{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


def store_run(files: Mapping[str, bytes], out_dir: str | Path) -> dict[str, str]:
    """Writes encoded run ``files`` to ``out_dir`` atomically (replacing an
    older run there) and returns their SHA-256 by name.

    The caller must be the only writer of ``out_dir`` (a sweep holds the
    run's claim, :class:`tcpeval.results_db.Claim`); other writers' temporary
    directories are never touched. On an error (a full disk, a read-only
    directory) the temporary directory is removed and a :class:`StoreError`
    naming the path is raised.
    """
    out = Path(out_dir)
    tmp = _side_name(out, "tmp")
    where = tmp
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        for name, data in files.items():
            where = tmp / name
            with open(where, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        where = out
        if out.exists():
            old = _side_name(out, "old")
            os.replace(out, old)
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        raise StoreError(where, f"cannot write: {e.strerror or e}") from None
    return digests(files)


def save_run(result: RunResult, out_dir: str | Path) -> Path:
    """Writes ``result`` to ``out_dir`` atomically (replacing an older run there)."""
    store_run(encode_run(result), out_dir)
    return Path(out_dir)


def verify_run(run_dir: str | Path, expected: Mapping[str, str]) -> list[str]:
    """What is wrong with the stored files of a run against their recorded
    SHA-256 ``expected`` (name -> hex): one line per missing or changed file,
    empty when every file matches."""
    d = Path(run_dir)
    problems = []
    for name, digest in sorted(expected.items()):
        path = d / name
        try:
            actual = sha256_file(path)
        except FileNotFoundError:
            problems.append(f"{path}: missing")
            continue
        except OSError as e:
            problems.append(f"{path}: cannot read: {e.strerror or e}")
            continue
        if actual != digest:
            problems.append(f"{path}: damaged (checksum differs from the one recorded when it was written)")
    return problems


def read_summary(path: Path) -> dict[str, Any]:
    """A run's ``summary.json``; a missing, unreadable or invalid one raises
    :class:`StoreError` naming it."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise StoreError(path, "missing") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise StoreError(path, f"not a valid run summary (broken JSON: {e})") from None
    except OSError as e:
        raise StoreError(path, f"cannot read: {e.strerror or e}") from None
    missing = [
        k
        for k in ("scenario", "sim_time_s", "events", "wall_time_s")
        if not isinstance(meta, dict) or k not in meta
    ]
    if missing:
        raise StoreError(path, f"not a valid run summary (no {', '.join(missing)})")
    return meta


def _read_table(path: Path) -> pd.DataFrame:
    # Runs written before a table existed load it empty.
    if not path.exists():
        return pd.DataFrame()
    try:
        return pq.read_table(path, page_checksum_verification=True).to_pandas()
    except (OSError, pa.ArrowException) as e:
        raise StoreError(path, f"damaged Parquet file ({e})") from None


def load_run(run_dir: str | Path) -> RunResult:
    """Reads a run written by :func:`save_run`; a missing, damaged or
    unreadable file raises :class:`StoreError` naming it."""
    d = Path(run_dir)
    meta = read_summary(d / SUMMARY)
    tables: dict[str, Any] = {name: _read_table(d / f"{name}.parquet") for name in TABLES}
    return RunResult(
        scenario=Scenario(meta["scenario"]),
        sim_time_s=meta["sim_time_s"],
        events=meta["events"],
        wall_time_s=meta["wall_time_s"],
        backend=meta.get("backend", {}),
        random_draws=meta.get("random_draws"),
        **tables,
    )
