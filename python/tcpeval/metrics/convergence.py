"""Convergence time of a flow entering beside an established one."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._series import paired
from .throughput import sliding_throughput


def convergence_time(
    time: ArrayLike,
    bytes_first: ArrayLike,
    bytes_second: ArrayLike,
    second_start: float,
    fraction: float = 0.8,
    window: float = 1.0,
    t_end: float | None = None,
) -> float:
    """Time (s) from the second flow's start until it gets ``fraction`` of the first's rate.

    Definition: both flows' cumulative delivered bytes are sampled at the same
    ``time`` (s). At every sample ``t_k >= second_start`` (and ``<= t_end``),
    each flow's ``window``-second average rate is taken over the trailing
    window ``[t_k - window, t_k]`` (:func:`tcpeval.metrics.sliding_throughput`).
    The result is ``t_k - second_start`` for the first ``t_k`` where the second
    flow's average is positive and at least ``fraction`` times the first
    flow's; NaN if that never happens. Because every sample is tested, the
    answer is exact to the sampling period: it is the first sample time at or
    after the true crossing. The trailing window reaches back before the
    second flow's start, where it delivered nothing, so a flow cannot converge
    on a start-up burst shorter than the window.

    Source: Ha, Kim, Le, Rhee, Xu, PFLDnet 2006 (``background`` study):
    "the time from the second start until the second flow's 1-second average
    throughput first reaches 80% of the first flow's".
    """
    if not fraction > 0:
        raise ValueError(f"fraction must be positive, got {fraction}")
    t, b1 = paired(time, bytes_first, "bytes_first")
    _, b2 = paired(time, bytes_second, "bytes_second")
    r1 = sliding_throughput(t, b1, window)
    r2 = sliding_throughput(t, b2, window)
    candidate = t >= second_start
    if t_end is not None:
        candidate &= t <= t_end
    reached = candidate & (r2 > 0) & (r2 >= fraction * r1)
    if not reached.any():
        return float("nan")
    return float(t[np.argmax(reached)] - second_start)
