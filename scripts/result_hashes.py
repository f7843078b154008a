"""Prints SHA-256 digests of simulated results, to prove a refactoring changed nothing.

Runs every scenario in ``examples/`` and the first quick-mode run of each
experiment of each shipped study, and prints, per run, the normalised
scenario's hash and one digest per result table (column names, dtypes and
the raw bytes of every column). It also hashes the normalised scenario of
every quick-mode run of every study (validation and normalisation only,
nothing simulated). Runs with a queue discipline other than DropTail also
hash their ``aqm_series``. Compare the output before and after a change::

    python scripts/result_hashes.py > before.txt   # on the old commit
    python scripts/result_hashes.py > after.txt    # on the new one
    diff before.txt after.txt                      # must be empty

``--max-duration S`` caps each study run's duration (quicker, still exact).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time

import numpy as np
import pandas as pd
from sample_runs import example_runs, study_first_runs, study_quick_specs

import tcpeval
from tcpeval.study import shipped_studies

TABLES = (
    "flow_series",
    "queue_series",
    "aqm_series",
    "class_series",
    "transfers",
    "flows",
    "links",
    "classes",
)


#: Columns added after this digest was first used, left out of it while all
#: zero or NaN (the feature unused), so that adding one changes no digest of
#: a run that does not use it, and using it does.
LATER_COUNTERS = {
    "flows": ("ece_reductions", "ce_received"),
    "aqm_series": ("marks", "delay", "drop_prob", "dropping", "flow_queues"),
}


def table_digest(df: pd.DataFrame, table: str = "") -> str:
    """SHA-256 over a table's column names, dtypes and values, bit for bit
    (without the all-zero :data:`LATER_COUNTERS` of ``table``)."""
    h = hashlib.sha256()
    h.update(repr(len(df)).encode())
    for name in df.columns:
        col = df[name]
        if name in LATER_COUNTERS.get(table, ()) and not np.nan_to_num(col.to_numpy(dtype=float)).any():
            continue
        h.update(f"{name}:{col.dtype}\0".encode())
        values = col.to_numpy()
        if values.dtype.kind in "biufc":
            h.update(np.ascontiguousarray(values).tobytes())
        else:  # strings, optional values: by their repr, never by object pointers
            h.update(repr(list(col)).encode())
    return h.hexdigest()


def run_digests(label: str, scenario: tcpeval.Scenario) -> None:
    t0 = time.perf_counter()
    r = tcpeval.run(scenario, progress=False)
    wall = time.perf_counter() - t0
    print(f"{label} scenario {scenario.hash}")
    print(f"{label} sim_time_s {r.sim_time_s!r} events {r.events}")
    for t in TABLES:
        print(f"{label} {t} {table_digest(r.stored_table(t), t)}")  # as stored: no derived name columns
    print(f"# {label}: {wall:.1f} s wall", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-duration", type=float, default=None, help="cap each study run's duration_s")
    ap.add_argument("--no-studies", action="store_true", help="run the examples only")
    args = ap.parse_args()
    print(f"tcpeval {tcpeval.__version__}")
    for label, sc in example_runs():
        run_digests(label, sc)
    if args.no_studies:
        return
    for study_name in shipped_studies():
        specs = study_quick_specs(study_name)
        all_hashes = hashlib.sha256("".join(s.key for s in specs).encode()).hexdigest()
        print(f"study/{study_name} quick-runs {len(specs)} run-keys {all_hashes}")
        for label, sc in study_first_runs(study_name, args.max_duration):
            run_digests(label, sc)


if __name__ == "__main__":
    main()
