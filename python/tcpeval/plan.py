"""Sizing a sweep before running it: runs, stored runs, simulated seconds and
the wall time the rest should take, per experiment (``--plan``).

The wall-time estimate comes from the runs already stored in the results
directory: each experiment's wall seconds per simulated second (its own
stored runs, or all stored runs when it has none yet), times the simulated
seconds left, over the number of workers. A sweep with nothing stored has no
estimate: the machine's speed is not guessed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .study import RunSpec


@dataclass(frozen=True)
class ExperimentPlan:
    """One experiment of a sweep.

    ``simulated_s`` and ``left_s`` are simulated seconds (all runs, runs not
    stored); ``stored_wall_s`` and ``stored_simulated_s`` are the wall and
    simulated seconds of the stored runs.
    """

    name: str
    runs: int
    stored: int
    simulated_s: float
    left_s: float
    stored_wall_s: float
    stored_simulated_s: float


def plan(specs: Sequence[RunSpec], stored_wall_s: Mapping[str, float]) -> list[ExperimentPlan]:
    """Per experiment, in study order: ``specs`` against the stored runs,
    given as run key -> the wall seconds the run took."""
    plans = []
    for name in dict.fromkeys(s.experiment for s in specs):
        mine = [s for s in specs if s.experiment == name]
        done = [s for s in mine if s.key in stored_wall_s]
        plans.append(
            ExperimentPlan(
                name=name,
                runs=len(mine),
                stored=len(done),
                simulated_s=sum(_duration(s) for s in mine),
                left_s=sum(_duration(s) for s in mine if s.key not in stored_wall_s),
                stored_wall_s=sum(stored_wall_s[s.key] for s in done),
                stored_simulated_s=sum(_duration(s) for s in done),
            )
        )
    return plans


def remaining_wall_s(plans: Sequence[ExperimentPlan], workers: int) -> float | None:
    """Wall seconds the runs not stored should take on ``workers`` workers,
    from the stored runs' speed; None when no run is stored yet."""
    wall = sum(p.stored_wall_s for p in plans)
    sim = sum(p.stored_simulated_s for p in plans)
    if sim <= 0:
        return None
    overall = wall / sim
    total = 0.0
    for p in plans:
        rate = p.stored_wall_s / p.stored_simulated_s if p.stored_simulated_s > 0 else overall
        total += p.left_s * rate
    return total / workers


def unmeasured(plans: Sequence[ExperimentPlan]) -> list[str]:
    """Experiments with runs left and none stored: their share of the
    estimate borrows the other experiments' speed, which can be far off (a
    run with background traffic costs several times one without)."""
    return [p.name for p in plans if p.stored == 0 and p.runs > 0]


def _duration(spec: RunSpec) -> float:
    return float(spec.scenario["duration_s"])
