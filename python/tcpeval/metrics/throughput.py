"""Throughput, goodput and link utilization from cumulative byte counters.

All rates are in bit/s. The input is a cumulative byte counter sampled over
time (``time`` in s, ``cum_bytes`` in bytes), for example the bytes a flow
delivered to its application (goodput) or the bytes a link sent (carried
traffic). Between samples the counter is read by linear interpolation, so a
window need not fall on sample times; outside the sampled range the counter is
held at its first/last value.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._series import as_1d, bounds, cumulative_at, paired


def throughput(
    time: ArrayLike,
    cum_bytes: ArrayLike,
    t_start: float | None = None,
    t_end: float | None = None,
) -> float:
    """Average rate of a cumulative byte counter over a window, in bit/s.

    Definition: ``8 * (B(t_end) - B(t_start)) / (t_end - t_start)`` where ``B``
    is the counter read by linear interpolation. ``None`` bounds mean the first
    and last sample. Counting retransmitted and header bytes (a sender or link
    counter) gives throughput; counting application bytes gives goodput (see
    :func:`goodput`).

    Source: the usual measurement definition (bits transferred per measurement
    interval), as used by RFC 6349, the framework for TCP throughput testing.
    """
    t, b = paired(time, cum_bytes, "cum_bytes")
    lo, hi = bounds(t, t_start, t_end)
    b_lo, b_hi = cumulative_at(t, b, [lo, hi])
    return float(8.0 * (b_hi - b_lo) / (hi - lo))


def goodput(
    time: ArrayLike,
    delivered_bytes: ArrayLike,
    t_start: float | None = None,
    t_end: float | None = None,
) -> float:
    """Goodput in bit/s: the rate of bytes delivered in order to the application.

    Same formula as :func:`throughput`, applied to the cumulative delivered-to-
    application counter, so retransmissions and headers are excluded.

    Source: the common definition of goodput as application-level throughput;
    the ``yeah`` and ``reverse`` studies (Baiocchi et al., PFLDnet 2007;
    Mascolo & Vacirca, PFLDnet 2006) report goodput per flow.
    """
    return throughput(time, delivered_bytes, t_start, t_end)


def throughput_series(
    time: ArrayLike,
    cum_bytes: ArrayLike,
    interval: float,
    t_start: float | None = None,
    t_end: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Rates over consecutive fixed intervals, e.g. 1 s averages, in bit/s.

    The window ``[t_start, t_end]`` is cut into whole intervals
    ``[t_start + k*interval, t_start + (k+1)*interval)``; a partial interval at
    the end is dropped. Each rate is ``8 * (B(end) - B(begin)) / interval``.

    Returns ``(begin, rate)``: the interval start times (s) and the rates.

    Source: the interval averages of Ha et al., PFLDnet 2006 (10 s for the
    stability metric, 1 s for convergence) and Molnar et al., Computer Networks
    2009 (throughput sampling 1 s / 0.1 s).
    """
    if not interval > 0:
        raise ValueError(f"interval must be positive, got {interval}")
    t, b = paired(time, cum_bytes, "cum_bytes")
    lo, hi = bounds(t, t_start, t_end)
    count = int(np.floor((hi - lo) / interval + 1e-9))
    begin = lo + interval * np.arange(count, dtype=float)
    edges = cumulative_at(t, b, lo + interval * np.arange(count + 1, dtype=float))
    return begin, 8.0 * np.diff(edges) / interval


def sliding_throughput(time: ArrayLike, cum_bytes: ArrayLike, window: float) -> np.ndarray:
    """Trailing-window average rate at every sample time, in bit/s.

    Definition: ``r(t_k) = 8 * (B(t_k) - B(t_k - window)) / window`` for each
    sample time ``t_k``; ``B`` before the first sample is the first value, so
    the first ``window`` seconds of the series are averaged over time the
    counter did not move. Evaluated at every sample, it resolves events to the
    sampling period rather than to the window length.

    Source: the "1-second average throughput" of Ha et al., PFLDnet 2006.
    """
    if not window > 0:
        raise ValueError(f"window must be positive, got {window}")
    t, b = paired(time, cum_bytes, "cum_bytes")
    return 8.0 * (b - cumulative_at(t, b, t - window)) / window


def phase_throughput(time: ArrayLike, cum_bytes: ArrayLike, boundaries: ArrayLike) -> np.ndarray:
    """Average rate in each phase delimited by ``boundaries``, in bit/s.

    ``boundaries`` ``[b0, b1, ..., bn]`` (s, increasing) define the phases
    ``[b0, b1), [b1, b2), ...``; the result has ``n`` rates, each as in
    :func:`throughput`.

    Source: the per-phase reports of the ``reverse`` study (Mascolo & Vacirca,
    PFLDnet 2006: phases [0, 333), [333, 666), [666, 1000] s).
    """
    t, b = paired(time, cum_bytes, "cum_bytes")
    edges = as_1d(boundaries, "boundaries")
    if edges.size < 2 or np.any(np.diff(edges) <= 0):
        raise ValueError("boundaries must hold at least two strictly increasing times")
    return 8.0 * np.diff(cumulative_at(t, b, edges)) / np.diff(edges)


def link_utilization(
    carried_bits: ArrayLike, capacity_bps: ArrayLike, duration: ArrayLike
) -> np.ndarray | float:
    """Fraction of a link's capacity used: ``carried_bits / (capacity_bps * duration)``.

    Units: bits, bit/s and s; the result is dimensionless, in [0, 1] for a
    link that cannot exceed its rate. Vectorized (broadcasts its arguments);
    returns a float for scalar inputs.

    Source: the standard definition used by all five studies ("link
    utilization", "efficiency"), e.g. Baiocchi et al., PFLDnet 2007.
    """
    value = np.asarray(carried_bits, dtype=float) / (
        np.asarray(capacity_bps, dtype=float) * np.asarray(duration, dtype=float)
    )
    return float(value) if value.ndim == 0 else value


def utilization(
    time: ArrayLike,
    cum_bytes: ArrayLike,
    capacity_bps: float,
    t_start: float | None = None,
    t_end: float | None = None,
) -> float:
    """Link utilization over a window from a cumulative byte counter.

    Definition: :func:`throughput` of the counter over the window divided by
    ``capacity_bps`` (bit/s). Feed it the link's departed bytes for carried
    traffic, or the sum of the flows' delivered bytes for goodput-based
    utilization.

    Source: as :func:`link_utilization`.
    """
    if not capacity_bps > 0:
        raise ValueError(f"capacity_bps must be positive, got {capacity_bps}")
    return throughput(time, cum_bytes, t_start, t_end) / float(capacity_bps)
