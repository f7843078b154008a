"""Running one scenario, with a progress bar of simulated time."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tqdm import tqdm

from tcpeval import _core
from tcpeval.result import RunResult
from tcpeval.scenario import Scenario, load_scenario

#: Number of engine steps between progress updates.
PROGRESS_STEPS = 200


def run(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    *,
    progress: bool | None = None,
) -> RunResult:
    """Runs a scenario to its end and returns its results.

    ``progress``: show a progress bar of simulated time with an ETA on
    stderr; ``None`` shows it when stderr is a terminal. The engine releases
    the GIL while it runs, so runs in threads proceed in parallel.
    """
    sc = load_scenario(scenario)
    sim = _core.Simulation(sc.data)
    end = sim.end
    show = sys.stderr.isatty() if progress is None else progress
    started = time.perf_counter()
    with tqdm(
        total=round(end, 6),
        disable=not show,
        unit="sim-s",
        desc=sc.name or "run",
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total:.1f} sim-s [{elapsed}<{remaining}]",
    ) as bar:
        for k in range(1, PROGRESS_STEPS + 1):
            t = end * k / PROGRESS_STEPS
            sim.advance(t)
            bar.update(round(t, 6) - bar.n)
    raw = sim.finish()
    wall = time.perf_counter() - started
    return RunResult.from_raw(sc, raw, wall_time_s=wall)
