"""Fairness indices and throughput ratios.

Inputs are per-flow throughputs or goodputs (any consistent unit, usually
bit/s). Functions that reduce a set of flows take ``axis`` (default the last),
so a 2-D array of shape (points, flows) gives one value per point.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._series import as_1d


def _scalar_or_array(value: np.ndarray) -> np.ndarray | float:
    return float(value) if np.ndim(value) == 0 else value


def _safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.where(den == 0, np.nan, num / np.where(den == 0, 1.0, den))


def jain_index(x: ArrayLike, axis: int = -1) -> np.ndarray | float:
    """Jain's fairness index ``(sum x)^2 / (n * sum x^2)`` over ``axis``.

    Dimensionless, in [1/n, 1]: 1 when all n shares are equal, 1/n when one
    flow takes everything. All-zero shares give NaN (no allocation to judge).

    Source: R. Jain, D. Chiu, W. Hawe, "A Quantitative Measure of Fairness and
    Discrimination for Resource Allocation in Shared Computer Systems",
    DEC-TR-301, 1984.
    """
    arr = np.asarray(x, dtype=float)
    n = arr.shape[axis]
    total = arr.sum(axis=axis)
    squares = (arr * arr).sum(axis=axis)
    return _scalar_or_array(_safe_divide(total * total, n * squares))


def bandwidth_shares(x: ArrayLike, axis: int = -1) -> np.ndarray:
    """Each flow's fraction of the total: ``x_i / sum x`` over ``axis`` (NaN if the total is 0).

    Source: the "bandwidth shares" of the ``fairness`` study (Molnar, Sonkoly,
    Trinh, Computer Networks 2009).
    """
    arr = np.asarray(x, dtype=float)
    total = arr.sum(axis=axis, keepdims=True)
    return _safe_divide(arr, np.broadcast_to(total, arr.shape))


def throughput_ratio(numerator: ArrayLike, denominator: ArrayLike) -> np.ndarray | float:
    """Ratio of two flows' throughputs, elementwise (NaN if the denominator is 0).

    The order is the caller's: the ``background`` study's RTT-fairness ratio
    (Ha et al., PFLDnet 2006) puts the short-RTT flow over the 162 ms flow.
    """
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    return _scalar_or_array(_safe_divide(num, den))


def min_max_ratio(x: ArrayLike, axis: int = -1) -> np.ndarray | float:
    """Smallest over largest throughput along ``axis``, in [0, 1] (NaN if all are 0).

    Source: the min-max ratio, one of the earlier fairness measures that Jain,
    Chiu and Hawe (DEC-TR-301, 1984) discuss beside their index.
    """
    arr = np.asarray(x, dtype=float)
    return _scalar_or_array(_safe_divide(arr.min(axis=axis), arr.max(axis=axis)))


def _group_values(x: ArrayLike, groups: Sequence[Hashable]) -> dict[Hashable, np.ndarray]:
    values = as_1d(x, "x")
    if len(groups) != values.size:
        raise ValueError(f"groups has {len(groups)} labels for {values.size} flows")
    labels = list(dict.fromkeys(groups))
    keys = np.array([labels.index(g) for g in groups])
    return {label: values[keys == i] for i, label in enumerate(labels)}


def intra_group_fairness(x: ArrayLike, groups: Sequence[Hashable]) -> dict[Hashable, float]:
    """Jain's index within each group of flows (for example the flows sharing one RTT).

    ``groups`` labels each flow of ``x``; the result maps each label, in order
    of first appearance, to the Jain index of that group's throughputs.

    Source: the "intra-protocol fairness (Jain's index over same-RTT flows)" of
    the ``linux-variants`` study (Alrshah & Othman); with a single group it is
    the intra-protocol fairness of the ``background`` study (Ha et al. 2006).
    """
    return {label: float(jain_index(v)) for label, v in _group_values(x, groups).items()}


def rtt_fairness(x: ArrayLike, groups: Sequence[Hashable]) -> float:
    """Jain's index over the mean throughput of each group (for example each RTT class).

    Definition chosen here: average the flows within each group, then apply
    Jain's index to the group means, so a group's size does not weigh in and
    unfairness inside a group (see :func:`intra_group_fairness`) is not
    counted twice. With one flow per group (the ``background`` and ``yeah``
    studies) this is Jain's index of the flows themselves.

    Source: the "RTT fairness (Jain's index across the RTT groups)" of the
    ``linux-variants`` study (Alrshah & Othman).
    """
    means = [v.mean() for v in _group_values(x, groups).values()]
    return float(jain_index(means))


def tcp_friendliness(tested: ArrayLike, reference: ArrayLike) -> float:
    """Jain's index over the throughputs of the tested flows together with the standard-TCP flows.

    ``tested`` holds the high-speed flows' throughputs, ``reference`` the
    TCP-SACK/Reno flows'. With one of each, as in the ``background`` study
    (Ha et al., PFLDnet 2006, "TCP friendliness"), it is Jain's index of the
    pair: 1 when they share equally.
    """
    return float(jain_index(np.concatenate([as_1d(tested, "tested"), as_1d(reference, "reference")])))


def fair_to_reno(
    reno_with_reno: ArrayLike, reno_with_tested: ArrayLike, axis: int = -1
) -> np.ndarray | float:
    """Compute the Fair-to-Reno ratio of the ``yeah`` study (Baiocchi et al., PFLDnet 2007, E6).

    ``reno_with_reno`` holds the goodputs of the n Reno flows in the run where
    they compete with one more Reno flow (that extra flow excluded);
    ``reno_with_tested`` the goodputs of the n Reno flows in the run where the
    extra flow runs the tested algorithm. The ratio is

        sum(reno_with_reno) / sum(reno_with_tested)

    over ``axis``. It is 1 when the tested algorithm takes from Reno what
    another Reno flow would, and above 1 when it takes more. Dimensionless.
    """
    num = np.asarray(reno_with_reno, dtype=float).sum(axis=axis)
    den = np.asarray(reno_with_tested, dtype=float).sum(axis=axis)
    return _scalar_or_array(_safe_divide(num, den))
