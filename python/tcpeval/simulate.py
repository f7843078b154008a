"""Running one scenario, with a progress bar of simulated time."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

from tcpeval import _core, memory
from tcpeval.result import RunResult
from tcpeval.scenario import Scenario, load_scenario

if TYPE_CHECKING:
    from tcpeval._core import RunTables

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


def prefix_key(scenario: Mapping[str, Any]) -> str:
    """What runs sharing a prefix have in common: the normalized scenario
    ``scenario`` but for ``duration_s`` and its names (the scenario's and its
    flows'), as text. Two scenarios with the same key give, up to the
    shorter one's end, the same run: the engine reads the duration only as
    the end, and the names only to label the flows and classes tables
    (:func:`run_prefixes`)."""
    data = {k: v for k, v in scenario.items() if k not in ("duration_s", "name")}
    data["flows"] = [{k: v for k, v in f.items() if k != "name"} for f in scenario.get("flows") or []]
    return json.dumps(data, sort_keys=True, default=str)


def run_prefixes(scenarios: Sequence[Mapping[str, Any]]) -> list[RunResult]:
    """The results of every scenario in ``scenarios``, which differ only in
    their duration and names (one :func:`prefix_key`), from one run as long
    as the longest: each shorter one is a snapshot of it at that duration,
    and each gets its own flows' names, the same tables as running it alone,
    bit for bit (the engine's ``snapshot``). Where a web or UDP source's
    event falls at exactly a shorter duration (a run of that duration would
    not have it: its sources stop at its end), that one is simulated on its
    own instead. In the order given; each result's ``wall_time_s`` is the
    time spent on it (for a snapshot, the part of the long run since the
    previous one), so that their sum is the time spent in all.

    The snapshots' tables are all held until the end: when the members'
    memory estimates (:mod:`tcpeval.memory`) add up to more than the budget
    one run may take, each is simulated on its own instead."""
    loaded = [load_scenario(s) for s in scenarios]
    if len({prefix_key(sc.data) for sc in loaded}) != 1:
        raise ValueError("run_prefixes: the scenarios must differ only in duration_s and names")
    if sum(memory.estimate(sc.data).total for sc in loaded) > memory.budget():
        return [run(sc, progress=False) for sc in loaded]
    order = sorted(range(len(loaded)), key=lambda i: loaded[i].data["duration_s"])
    simulated = loaded[order[-1]]
    sim = _core.Simulation(simulated.data)
    sim.plan_snapshots([float(sc.data["duration_s"]) for sc in loaded])
    results: dict[int, RunResult] = {}
    last = time.perf_counter()
    for i in order:
        sim.advance(float(loaded[i].data["duration_s"]))
        raw = sim.snapshot() if i != order[-1] else sim.finish()
        if raw is None:
            # Its own run's wall time; the shared run's time so far goes to the next member.
            results[i] = run(loaded[i], progress=False)
            continue
        if _flow_names(loaded[i]) != _flow_names(simulated):
            _rename(raw, loaded[i])
        results[i] = RunResult.from_raw(loaded[i], raw, wall_time_s=time.perf_counter() - last)
        last = time.perf_counter()
    return [results[i] for i in range(len(loaded))]


def _flow_names(scenario: Scenario) -> list[Any]:
    return [f.get("name") for f in scenario.data.get("flows") or []]


def _rename(raw: RunTables, scenario: Scenario) -> None:
    """Gives the flows and classes tables of ``raw`` the names ``scenario``'s
    run has, as the engine derives them (read from its world at time zero)."""
    fresh = _core.Simulation(scenario.data).finish()
    for table in ("flows", "classes"):
        for row, named in zip(raw[table], fresh[table], strict=True):
            row["name"] = named["name"]
