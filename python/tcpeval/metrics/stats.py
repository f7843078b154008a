"""Confidence intervals across independent replications."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True)
class MeanCI:
    """A sample mean with the half-width of its confidence interval.

    Arrays (or floats for a 1-D input) of the same shape. ``n`` is the number
    of replications each mean is over. ``low``/``high`` are
    ``mean -/+ half_width``.
    """

    mean: np.ndarray | float
    half_width: np.ndarray | float
    n: int

    @property
    def low(self) -> np.ndarray | float:
        """Lower end of the interval."""
        return self.mean - self.half_width

    @property
    def high(self) -> np.ndarray | float:
        """Upper end of the interval."""
        return self.mean + self.half_width


def mean_ci(samples: ArrayLike, confidence: float = 0.95, axis: int = -1) -> MeanCI:
    """Mean and Student-t confidence interval over replications along ``axis``.

    Definition: for ``n`` replications with mean ``m`` and sample standard
    deviation ``s`` (ddof 1), the half-width is ``t_{(1+c)/2, n-1} * s / sqrt(n)``
    with ``c = confidence`` and ``t`` the Student-t quantile
    (``scipy.stats.t.ppf``). It assumes independent replications of an
    approximately normal statistic. With ``n = 1`` the spread is unknown and
    the half-width is NaN (not 0, which would claim certainty). A NaN sample
    makes its mean and half-width NaN.

    Source: W. S. Gosset ("Student"), Biometrika 6(1), 1908; R. Jain, The Art
    of Computer Systems Performance Analysis, Wiley 1991, ch. 13.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    arr = np.asarray(samples, dtype=float)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    n = arr.shape[axis]
    if n == 0:
        raise ValueError("no replications to average")
    mean = arr.mean(axis=axis)
    if n == 1:
        half = np.full(mean.shape, np.nan)
    else:
        sd = arr.std(axis=axis, ddof=1)
        from scipy import stats  # 1 s to import: only where an interval is taken

        half = stats.t.ppf(0.5 + confidence / 2.0, n - 1) * sd / np.sqrt(n)
    if np.ndim(mean) == 0:
        return MeanCI(float(mean), float(half), n)
    return MeanCI(mean, half, n)


def nan_mean_ci(samples: ArrayLike, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`mean_ci` over the last axis of ``samples``, leaving NaN samples out.

    A NaN sample is a missing replication (a failed run, a metric without a
    value), so each entry is over its own non-NaN samples and entries may
    have different counts. Returns ``(mean, half_width, n)``, arrays of the
    shape of ``samples`` without its last axis: the mean is NaN where ``n``
    is 0 and the half-width NaN where ``n`` < 2.
    """
    arr = np.asarray(samples, dtype=float)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    flat = arr.reshape(-1, arr.shape[-1])
    mean = np.full(flat.shape[0], np.nan)
    half = np.full(flat.shape[0], np.nan)
    count = np.zeros(flat.shape[0], dtype=int)
    for i, row in enumerate(flat):
        present = row[~np.isnan(row)]
        count[i] = present.size
        if present.size:
            ci = mean_ci(present, confidence)
            mean[i], half[i] = ci.mean, ci.half_width
    shape = arr.shape[:-1]
    return mean.reshape(shape), half.reshape(shape), count.reshape(shape)
