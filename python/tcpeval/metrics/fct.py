"""Flow completion time statistics, grouped by flow size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._series import as_1d


def flow_completion_times(start: ArrayLike, end: ArrayLike) -> np.ndarray:
    """Completion time of each flow in seconds: ``end - start``.

    ``end`` is NaN for a flow that did not finish, and so is its completion
    time. Source: N. Dukkipati, N. McKeown, "Why Flow-Completion Time is the
    Right Metric for Congestion Control", ACM CCR 36(1), 2006.
    """
    s = as_1d(start, "start")
    e = as_1d(end, "end")
    if s.shape != e.shape:
        raise ValueError("start and end must have the same length")
    return e - s


@dataclass(frozen=True)
class FctBuckets:
    """Completion-time statistics per flow-size bucket.

    Bucket ``i`` holds the flows with ``lower[i] <= size < upper[i]``.
    ``flows`` counts them, ``completed`` those that finished; ``mean`` and each
    entry of ``percentiles`` (percentile in 0-100 -> array) are over the
    completed flows, in seconds, NaN for a bucket with none.
    """

    lower: np.ndarray
    upper: np.ndarray
    flows: np.ndarray
    completed: np.ndarray
    mean: np.ndarray
    percentiles: dict[float, np.ndarray]


def fct_by_size(
    sizes: ArrayLike,
    start: ArrayLike,
    end: ArrayLike,
    edges: ArrayLike,
    percentiles: Sequence[float] = (50.0, 95.0, 99.0),
) -> FctBuckets:
    """Mean and percentiles of flow completion time per size bucket.

    ``sizes`` (bytes or packets), ``start`` and ``end`` (s, NaN if unfinished)
    describe each flow; ``edges`` (increasing, same unit as ``sizes``) bound
    the buckets ``[edges[i], edges[i+1])``, e.g. ``[0, 10e3, 100e3, 1e6, inf]``.
    Flows outside all buckets are ignored. Percentiles use linear
    interpolation. Source: the FCT-by-size reporting of Dukkipati & McKeown,
    ACM CCR 2006.
    """
    size = as_1d(sizes, "sizes")
    fct = flow_completion_times(start, end)
    if size.shape != fct.shape:
        raise ValueError("sizes, start and end must have the same length")
    bounds = as_1d(edges, "edges")
    if bounds.size < 2 or np.any(np.diff(bounds) <= 0):
        raise ValueError("edges must hold at least two strictly increasing values")
    levels = [float(p) for p in percentiles]
    buckets = bounds.size - 1
    index = np.searchsorted(bounds, size, side="right") - 1
    flows = np.zeros(buckets, dtype=int)
    completed = np.zeros(buckets, dtype=int)
    mean = np.full(buckets, np.nan)
    table = {p: np.full(buckets, np.nan) for p in levels}
    for i in range(buckets):
        members = fct[index == i]
        done = members[np.isfinite(members)]
        flows[i] = members.size
        completed[i] = done.size
        if done.size:
            mean[i] = done.mean()
            for p, value in zip(levels, np.percentile(done, levels), strict=True):
                table[p][i] = value
    return FctBuckets(bounds[:-1].copy(), bounds[1:].copy(), flows, completed, mean, table)
