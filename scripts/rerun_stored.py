"""Re-simulates stored runs of a results directory with the installed engine and
compares their tables bit for bit: proof that an engine change left those runs'
results as they were, without building the old engine (scripts/result_hashes.py
compares two builds instead).

Usage: python scripts/rerun_stored.py RESULTS_DIR [RESULTS_DIR ...] [--per-dir N]
Exits 1 if any run differs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import pandas as pd

import tcpeval

TABLES = ("flows", "flow_series", "queue_series", "links")


def same_tables(run_dir: Path, result: tcpeval.RunResult) -> list[str]:
    """The names of the tables whose stored and new contents differ."""
    differ = []
    for table in TABLES:
        old = pd.read_parquet(run_dir / f"{table}.parquet")
        new = getattr(result, table)
        cols = [c for c in old.columns if c in new.columns]
        if not old[cols].reset_index(drop=True).equals(new[cols].reset_index(drop=True)):
            differ.append(table)
    return differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--per-dir", type=int, default=4, help="runs drawn from each directory (default 4)")
    a = ap.parse_args()
    rng = random.Random(1)
    bad = 0
    for d in a.dirs:
        runs = sorted((d / "runs").glob("*/summary.json"))
        for summary in rng.sample(runs, min(a.per_dir, len(runs))):
            stored = json.loads(summary.read_text())
            differ = same_tables(summary.parent, tcpeval.run(stored["scenario"]))
            bad += bool(differ)
            verdict = f"differs in {', '.join(differ)}" if differ else "identical"
            print(f"{summary.parent} (stored by {stored['tcpeval_version']}): {verdict}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
