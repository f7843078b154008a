"""A sample of runs that exercises the engine as the studies and examples do:
every scenario in ``examples/`` and the first quick-mode run of each
experiment of each shipped study.

Shared by ``result_hashes.py`` (digests of their results, to prove a change
moved nothing) and ``pgo_training.py`` (the workload a profile-guided build
learns from).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import tcpeval
from tcpeval.study import RunSpec, expand, load_study

ROOT = Path(__file__).resolve().parent.parent


def example_runs() -> Iterator[tuple[str, tcpeval.Scenario]]:
    """Every example scenario, labelled ``example/NAME``, in name order."""
    for path in sorted((ROOT / "examples").glob("*.toml")):
        yield f"example/{path.stem}", tcpeval.load_scenario(path)


def capped(sc: tcpeval.Scenario, max_duration: float | None) -> tcpeval.Scenario:
    """``sc`` with its duration cut to ``max_duration`` s (``None``: as is),
    but not below 1 s after its last scheduled start, so that it stays valid."""
    if max_duration is None or sc.duration_s <= max_duration:
        return sc
    starts = [f.get("start_s", 0.0) for f in sc.data["flows"]]
    return sc.replace(duration_s=max(max_duration, 1.0 + max(starts, default=0.0)))


def study_quick_specs(study_name: str) -> list[RunSpec]:
    """Every quick-mode run of a shipped study."""
    return expand(load_study(study_name), quick=True)


def study_first_runs(
    study_name: str, max_duration: float | None = None
) -> Iterator[tuple[str, tcpeval.Scenario]]:
    """The first quick-mode run of each experiment of a shipped study,
    labelled ``study/STUDY/EXPERIMENT``, its duration capped (:func:`capped`)."""
    seen: set[str] = set()
    for spec in study_quick_specs(study_name):
        if spec.experiment in seen:
            continue
        seen.add(spec.experiment)
        sc = capped(tcpeval.load_scenario(spec.scenario), max_duration)
        yield f"study/{study_name}/{spec.experiment}", sc
