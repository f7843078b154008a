"""Series of one run as the time-series and throughput figures draw them.

Flows are chosen by flow-name selectors (:func:`matches`); an aggregate is
the sum of the selected flows' samples (:func:`summed_series`); goodput is
binned from the cumulative delivered bytes (:func:`goodput_bins`) and
shared out (:func:`cumulative_shares`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..metrics.throughput import throughput_series


def matches(name: str, selector: str) -> bool:
    """A flow-name selector matches the flow of that name and the copies of a
    flow with ``count`` (``base`` matches ``base.0``, ``base.1``)."""
    return name == selector or name.startswith(f"{selector}.")


def summed_series(series: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The sum of series sampled on one grid of a fixed period, e.g. the cwnds
    (packets) of the flows of an aggregate.

    Each ``(time in s, values)`` covers its own span of the grid (a flow is
    sampled from its start to its end); the sum is taken at every time any
    of them has a sample, a series without a sample there counting 0 (a flow
    not yet started or gone). Times are matched to the grid by rounding to
    the smallest sampling period among the series. Returns ``(time, sum)``.
    """
    spans = [(np.asarray(t, dtype=float), np.asarray(v, dtype=float)) for t, v in series if np.size(t)]
    if not spans:
        return np.empty(0), np.empty(0)
    steps = [np.median(np.diff(t)) for t, _ in spans if t.size > 1]
    period = min(steps) if steps else 1.0
    ticks = [np.rint(t / period).astype(np.int64) for t, _ in spans]
    grid, first = np.unique(np.concatenate(ticks), return_index=True)
    time = np.concatenate([t for t, _ in spans])[first]
    total = np.zeros(grid.size)
    for tick, (_, v) in zip(ticks, spans, strict=True):
        np.add.at(total, np.searchsorted(grid, tick), v)
    return time, total


def goodput_bins(
    time: np.ndarray, delivered: np.ndarray, interval: float, t_start: float, t_end: float
) -> tuple[np.ndarray, np.ndarray]:
    """Goodput in Mbit/s over the whole intervals of ``interval`` s in
    ``[t_start, t_end]``, from a flow's cumulative delivered bytes, held at
    its first sample (0, at the flow's start) before it and at its last
    after it, so every flow of a run gets the same intervals. Returns
    ``(interval starts in s, Mbit/s)``."""
    begin, bps = throughput_series(time, delivered, interval, t_start, t_end)
    return begin, bps / 1e6


def cumulative_shares(delivered: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each flow's share (fraction, 0 to 1) of the data all of them delivered
    up to each time: ``delivered`` maps a flow to its bytes delivered since
    the start of the figure at each interval end; NaN where none was."""
    total = np.sum(np.vstack([np.asarray(d, dtype=float) for d in delivered.values()]), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            name: np.where(total > 0, np.asarray(d, dtype=float) / total, np.nan)
            for name, d in delivered.items()
        }
