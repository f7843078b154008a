"""Sizing a sweep before running it: runs, stored runs, simulated seconds and
the wall time the rest should take, per experiment (``--plan``).

The wall-time estimate comes from each experiment's wall seconds per
simulated second, times its simulated seconds left, over the number of
workers. The rate is that of the experiment's runs already stored in the
results directory (leaving out runs held up by a pause) or, when it has none, a short calibration
(:func:`calibrate`): its first run simulated on this machine for a fraction
of a second of wall time, its rate taken over the later half of that span
(past the slow start). A calibrated rate is measured on one core with
nothing else running, so a busy machine or a run whose load grows later
(flows starting late) takes longer.

Runs that the sweep will store from a seed twin instead of simulating
(:mod:`tcpeval.runner`) cost nothing: :func:`twin_runs` finds them by
building each point's first run and reading whether building it drew a
random number. Loss, jitter, generated traffic, FQ-CoDel and BBR draw
there; RED and PIE draw only once their queue grows, so their runs are
counted as simulated here and may turn out cheaper.

Runs that differ only in their duration and names (a prefix family,
:func:`tcpeval.runner.prefix_families`) are simulated as one run as long as
the longest: each member counts the simulated seconds it adds to the next
shorter one (:func:`prefix_shares`; a member as long as it, none), as its
stored wall time does. Families are formed as the sweep forms them: among
the runs left (a resumed sweep simulates what is left of a family as one),
and, for the speed, among the stored runs (exact when they were simulated
as one family; runs of a family stored in separate sittings look slower).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass

from .study import RunSpec

CALIBRATION_WALL_S = 2.0
"""Wall time all calibrations of one ``--plan`` may take together, s."""

STALLED_FACTOR = 20.0
"""A stored run whose wall seconds per simulated second exceed this many
times its experiment's median is left out of the speed: it was held up
(the sweep paused or the machine suspended while it ran), and one such run
of a 20-minute pause would triple an hour's estimate. Runs of one
experiment genuinely differ by up to about 6 times (full fairness's
parking lot, yeah's swept durations), so the bar is well above that; with
one or two stored runs nothing can be told apart."""


@dataclass(frozen=True)
class ExperimentPlan:
    """One experiment of a sweep.

    ``simulated_s`` and ``left_s`` are simulated seconds (all runs, runs not
    stored); ``stored_wall_s`` and ``stored_simulated_s`` are the wall and
    simulated seconds of the stored runs that were simulated (not copied
    from a seed twin) and not held up (:data:`STALLED_FACTOR`).
    """

    name: str
    runs: int
    stored: int
    simulated_s: float
    left_s: float
    stored_wall_s: float
    stored_simulated_s: float
    twins: int = 0
    """Runs not stored that will be stored from a seed twin (not in ``left_s``)."""


def plan(
    specs: Sequence[RunSpec],
    stored_wall_s: Mapping[str, float],
    twins: Set[str] = frozenset(),
    prefixes: bool = False,
) -> list[ExperimentPlan]:
    """Per experiment, in study order: ``specs`` against the stored runs,
    given as run key -> the wall seconds the run took; ``twins``: keys of
    the runs to be stored from a seed twin (:func:`twin_runs`); with
    ``prefixes``, runs of a prefix family cost their share
    (:func:`prefix_shares`), taken as the sweep forms families: among the
    runs left to simulate, and among the stored ones for their speed."""
    everything = prefix_shares(specs) if prefixes else {}
    left_shares = (
        prefix_shares([s for s in specs if s.key not in stored_wall_s and s.key not in twins])
        if prefixes
        else {}
    )
    stored_shares = (
        prefix_shares([s for s in specs if s.key in stored_wall_s and s.key not in twins]) if prefixes else {}
    )

    def cost(shares: Mapping[str, float]) -> Callable[[RunSpec], float]:
        return lambda s: shares.get(s.key, duration(s))

    plans = []
    for name in dict.fromkeys(s.experiment for s in specs):
        mine = [s for s in specs if s.experiment == name]
        done = [s for s in mine if s.key in stored_wall_s]
        left = [s for s in mine if s.key not in stored_wall_s]
        stored_cost = cost(stored_shares)
        # A member as long as its family's previous one costs nothing (its
        # wall time is the copy's): it says nothing of the speed.
        stored_sim = _unstalled(
            [s for s in done if s.key not in twins and stored_cost(s) > 0], stored_wall_s, stored_cost
        )
        plans.append(
            ExperimentPlan(
                name=name,
                runs=len(mine),
                stored=len(done),
                simulated_s=sum(map(cost(everything), mine)),
                left_s=sum(map(cost(left_shares), (s for s in left if s.key not in twins))),
                stored_wall_s=sum(stored_wall_s[s.key] for s in stored_sim),
                stored_simulated_s=sum(map(stored_cost, stored_sim)),
                twins=sum(s.key in twins for s in left),
            )
        )
    return plans


def prefix_shares(specs: Sequence[RunSpec]) -> dict[str, float]:
    """The simulated seconds each run of a prefix family adds to its next
    shorter member (the shortest, its duration), by run key; runs outside
    a family are not listed (they cost their duration)."""
    from .runner import prefix_families

    shares: dict[str, float] = {}
    for members in prefix_families(list(specs)).values():
        before = 0.0
        for m in members:
            shares[m.key] = duration(m) - before
            before = duration(m)
    return shares


def twin_runs(specs: Sequence[RunSpec]) -> set[str]:
    """Keys of the runs of ``specs`` a sweep stores from a seed twin: every
    seed but the first of a sweep point whose first run draws no random
    number while its world is built (see the module doc)."""
    from tcpeval import _core

    from .runner import point_id

    by_point: dict[tuple[str, str], list[RunSpec]] = {}
    for s in specs:
        by_point.setdefault(point_id(s), []).append(s)
    keys: set[str] = set()
    for seeds in by_point.values():
        if len(seeds) > 1 and _core.Simulation(seeds[0].scenario).random_draws == 0:
            keys.update(s.key for s in seeds[1:])
    return keys


def remaining_wall_s(
    plans: Sequence[ExperimentPlan], workers: int, calibrated: Mapping[str, float] | None = None
) -> float | None:
    """Wall seconds the runs not stored should take on ``workers`` workers.

    Each experiment's wall seconds per simulated second are its stored
    runs', else its ``calibrated`` rate, else the stored runs' overall one;
    None when an experiment with runs left has none of these."""
    calibrated = calibrated or {}
    wall = sum(p.stored_wall_s for p in plans)
    sim = sum(p.stored_simulated_s for p in plans)
    overall = wall / sim if sim > 0 else None
    total = 0.0
    for p in plans:
        if p.stored_simulated_s > 0:
            rate = p.stored_wall_s / p.stored_simulated_s
        elif p.name in calibrated:
            rate = calibrated[p.name]
        elif overall is not None:
            rate = overall
        elif p.left_s > 0:
            return None
        else:
            rate = 0.0
        total += p.left_s * rate
    return total / workers


def calibrate(spec: RunSpec, wall_budget_s: float) -> float:
    """Wall seconds per simulated second of ``spec``'s run on this machine,
    from simulating it for about ``wall_budget_s`` (or to its end): the steps
    grow until the budget is spent, and the rate is taken over the later
    half of the simulated span."""
    from tcpeval import _core

    started = time.perf_counter()
    sim = _core.Simulation(spec.scenario)
    end = float(sim.end)
    t, step = 0.0, min(end, 0.01)
    marks = [(0.0, time.perf_counter() - started)]
    while t < end and marks[-1][1] < wall_budget_s:
        t = min(end, t + step)
        sim.advance(t)
        marks.append((t, time.perf_counter() - started))
        step *= 1.5
    t_end, wall_end = marks[-1]
    half = next((m for m in marks if m[0] >= t_end / 2), marks[0])
    if t_end >= end or t_end - half[0] <= 0:
        return wall_end / max(t_end, 1e-9)
    return (wall_end - half[1]) / (t_end - half[0])


def calibrate_plans(specs: Sequence[RunSpec], plans: Sequence[ExperimentPlan]) -> dict[str, float]:
    """:func:`calibrate` for each experiment with runs left and none stored
    (on its first run left), sharing :data:`CALIBRATION_WALL_S` between them."""
    todo = [p.name for p in plans if p.stored == 0 and p.left_s > 0]
    rates = {}
    for name in todo:
        first = next(s for s in specs if s.experiment == name)
        rates[name] = calibrate(first, CALIBRATION_WALL_S / len(todo))
    return rates


def unmeasured(plans: Sequence[ExperimentPlan]) -> list[str]:
    """Experiments with runs left and none stored: their share of the
    estimate borrows the other experiments' speed, which can be far off (a
    run with background traffic costs several times one without)."""
    return [p.name for p in plans if p.stored == 0 and p.runs > 0]


def duration(spec: RunSpec) -> float:
    """The run's simulated duration, s."""
    return float(spec.scenario["duration_s"])


def _unstalled(
    runs: Sequence[RunSpec], wall_s: Mapping[str, float], cost: Callable[[RunSpec], float]
) -> list[RunSpec]:
    """``runs`` without those held up (see :data:`STALLED_FACTOR`), each
    costing ``cost`` simulated seconds."""
    if not runs:
        return []
    median = statistics.median(wall_s[s.key] / cost(s) for s in runs)
    return [s for s in runs if wall_s[s.key] / cost(s) <= STALLED_FACTOR * median]
