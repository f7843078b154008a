"""Writing and reading one run's results: a directory with Parquet tables
and a JSON summary. A directory is written under a temporary name and
renamed into place, so a reader never sees a half-written run.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pandas as pd

from tcpeval import __version__
from tcpeval.result import RunResult
from tcpeval.scenario import Scenario

TABLES = ("flow_series", "queue_series", "flows", "links", "transfers", "class_series", "classes")


def summary_record(result: RunResult) -> dict[str, Any]:
    """The JSON summary of a run: scenario, its hash, version, totals."""
    return {
        "tcpeval_version": __version__,
        "scenario_hash": result.scenario.hash,
        "seed": result.scenario.seed,
        "scenario": result.scenario.data,
        "sim_time_s": result.sim_time_s,
        "events": result.events,
        "wall_time_s": result.wall_time_s,
        "flows": result.summary().to_dict(orient="records"),
        "links": result.link_summary().to_dict(orient="records"),
        "classes": result.class_summary().to_dict(orient="records") if len(result.classes) else [],
    }


def save_run(result: RunResult, out_dir: str | Path) -> Path:
    """Writes ``result`` to ``out_dir`` atomically (replacing an older run there)."""
    out = Path(out_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    for name in TABLES:
        getattr(result, name).to_parquet(tmp / f"{name}.parquet", index=False)
    with (tmp / "summary.json").open("w") as f:
        json.dump(summary_record(result), f, indent=2, default=float)
    if out.exists():
        old = out.parent / f".{out.name}.old-{os.getpid()}"
        os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old)
    else:
        os.replace(tmp, out)
    return out


def load_run(run_dir: str | Path) -> RunResult:
    """Reads a run written by :func:`save_run`."""
    d = Path(run_dir)
    with (d / "summary.json").open() as f:
        meta = json.load(f)
    # Runs written before a table existed load it empty.
    tables = {
        name: pd.read_parquet(d / f"{name}.parquet") if (d / f"{name}.parquet").exists() else pd.DataFrame()
        for name in TABLES
    }
    return RunResult(
        scenario=Scenario(meta["scenario"]),
        sim_time_s=meta["sim_time_s"],
        events=meta["events"],
        wall_time_s=meta["wall_time_s"],
        **tables,
    )
