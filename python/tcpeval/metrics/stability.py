"""Throughput stability: coefficient of variation over fixed intervals."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .throughput import throughput_series


def coefficient_of_variation(x: ArrayLike, axis: int = -1) -> np.ndarray | float:
    """Coefficient of variation ``std(x) / mean(x)`` along ``axis``.

    The population standard deviation (ddof 0) is used, so a constant series
    gives exactly 0. Dimensionless. NaN when the mean is 0 or there are no
    values.

    Source: the stability metric of Ha, Kim, Le, Rhee, Xu, PFLDnet 2006
    (``background`` study).
    """
    arr = np.asarray(x, dtype=float)
    if arr.shape[axis] == 0:
        value = np.full(arr.sum(axis=axis).shape, np.nan)
    else:
        mean = arr.mean(axis=axis)
        std = arr.std(axis=axis)
        value = np.where(mean == 0, np.nan, std / np.where(mean == 0, 1.0, mean))
    return float(value) if np.ndim(value) == 0 else value


def throughput_cov(
    time: ArrayLike,
    cum_bytes: ArrayLike,
    interval: float = 10.0,
    t_start: float | None = 200.0,
    t_end: float | None = None,
) -> float:
    """CoV of the aggregate throughput measured in fixed intervals after a warm-up.

    ``cum_bytes`` is the aggregate cumulative counter (for example the
    bottleneck's departed bytes, or the sum of all flows' delivered bytes) at
    ``time`` (s). The window ``[t_start, t_end]`` is cut into whole intervals of
    ``interval`` s (see :func:`tcpeval.metrics.throughput_series`) and the
    coefficient of variation of those rates is returned; NaN if no whole
    interval fits, ``ValueError`` if the window is empty (a run shorter than
    the warm-up).

    The defaults are those of the ``background`` study: 10 s intervals after
    the first 200 s (Ha et al., PFLDnet 2006, "Stability").
    """
    _, rates = throughput_series(time, cum_bytes, interval, t_start, t_end)
    return float(coefficient_of_variation(rates))
