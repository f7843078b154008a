"""Shared checks and helpers for sampled series (private to the metrics package).

Conventions used across ``tcpeval.metrics``:

* time is in seconds, a 1-D non-decreasing float array;
* a *cumulative* series (bytes delivered, bytes departed) is non-decreasing
  and is read between samples by linear interpolation, clamped to the first
  and last sample outside the sampled range;
* a *sampled* series (cwnd, queue length) holds instantaneous values taken at
  a fixed period, so a plain sample mean is a time average;
* a time window ``(t_start, t_end)`` is half-open, ``t_start <= t < t_end``,
  for sampled series (adjacent phases never share a sample), and reads a
  cumulative series at exactly ``t_start`` and ``t_end``. ``None`` means the
  first (last) sample.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def as_1d(values: ArrayLike, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D float array, or raise ``ValueError`` naming it."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    return arr


def as_time(time: ArrayLike, name: str = "time") -> np.ndarray:
    """Return a non-empty, non-decreasing 1-D time array in seconds."""
    t = as_1d(time, name)
    if t.size == 0:
        raise ValueError(f"{name} is empty")
    if np.any(np.diff(t) < 0):
        raise ValueError(f"{name} must be non-decreasing")
    return t


def paired(time: ArrayLike, values: ArrayLike, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Check that ``values`` is a 1-D series sampled at ``time``; return both as arrays."""
    t = as_time(time)
    v = as_1d(values, name)
    if v.shape != t.shape:
        raise ValueError(f"{name} has {v.size} samples but time has {t.size}")
    return t, v


def bounds(t: np.ndarray, t_start: float | None, t_end: float | None) -> tuple[float, float]:
    """Resolve an optional window to ``(t_start, t_end)`` and check ``t_start < t_end``."""
    lo = float(t[0]) if t_start is None else float(t_start)
    hi = float(t[-1]) if t_end is None else float(t_end)
    if not hi > lo:
        raise ValueError(f"empty time window: t_start={lo} must be below t_end={hi}")
    return lo, hi


def window_mask(t: np.ndarray, t_start: float | None, t_end: float | None) -> np.ndarray:
    """Boolean mask of the samples in ``[t_start, t_end)`` (no bound when ``None``).

    When ``t_end`` is ``None`` the last sample is included.
    """
    mask = np.ones(t.shape, dtype=bool)
    if t_start is not None:
        mask &= t >= t_start
    if t_end is not None:
        mask &= t < t_end
    return mask


def cumulative_at(t: np.ndarray, cumulative: np.ndarray, at: ArrayLike) -> np.ndarray:
    """Read a cumulative series at times ``at`` (linear interpolation, clamped)."""
    return np.interp(np.asarray(at, dtype=float), t, cumulative)


def sample_period(t: np.ndarray, rtol: float = 1e-3) -> float:
    """Return the fixed sampling period of ``t``; raise if the samples are irregular."""
    if t.size < 2:
        raise ValueError("at least two samples are needed to know the sampling period")
    steps = np.diff(t)
    period = float(np.median(steps))
    if not period > 0 or np.any(np.abs(steps - period) > rtol * period):
        raise ValueError("samples must be taken at a fixed period")
    return period
