"""Derived metrics: a run's metric against the same metric of a baseline run.

Some results of the literature compare two runs, not two flows of one run:
YeAH's "Fair-to-Reno" ratio divides the goodput of n Reno flows next to one
more Reno flow by their goodput next to one flow of the tested algorithm.
An experiment declares such a value as

.. code-block:: toml

    [[experiment.derived]]
    name = "fair_to_reno"
    fn = "baseline_over_run"          # or "run_over_baseline"
    metric = "reno_goodput"
    baseline = { algorithm = "reno" }

Each run is paired with the run of the same experiment whose sweep point
equals its own except for the parameters in ``baseline`` (set to the
baseline values) and whose seed is the same, so replications pair one to
one and the confidence interval is that of the paired ratios. A run without
a finished baseline, or a zero denominator, gets NaN.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

FUNCTIONS = ("baseline_over_run", "run_over_baseline")
"""The allowed ``fn`` of a derived metric."""


def add_derived(
    frame: pd.DataFrame, params: Sequence[str], derived: Sequence[Mapping[str, Any]]
) -> pd.DataFrame:
    """``frame`` (one row per run: ``seed``, ``status``, the sweep ``params``
    and the metrics) with one more float column per entry of ``derived``."""
    out = frame.copy()
    for spec in derived:
        metric, baseline = spec["metric"], dict(spec["baseline"])
        others = [p for p in params if p not in baseline]
        ok = out[out["status"] == "ok"]
        mask = np.ones(len(ok), dtype=bool)
        for param, value in baseline.items():
            mask &= (ok[param] == value).to_numpy(dtype=bool)
        base = {(*(row[p] for p in others), row["seed"]): row[metric] for _, row in ok[mask].iterrows()}
        values = []
        for _, row in out.iterrows():
            b = base.get((*(row[p] for p in others), row["seed"]), np.nan)
            r = row[metric] if row["status"] == "ok" else np.nan
            num, den = (b, r) if spec["fn"] == "baseline_over_run" else (r, b)
            values.append(
                float(num) / float(den) if np.isfinite(num) and np.isfinite(den) and den != 0 else np.nan
            )
        out[spec["name"]] = np.asarray(values, dtype=float)
    return out
