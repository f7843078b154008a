"""Fraction of time a window-based flow spends in its "Reno mode"."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._series import paired, window_mask


def reno_mode_fraction(
    time: ArrayLike,
    cwnd: ArrayLike,
    low_window: float = 38.0,
    t_start: float | None = None,
    t_end: float | None = None,
) -> float:
    """Fraction of the samples in ``[t_start, t_end)`` with ``cwnd < low_window``.

    cwnd is sampled at a fixed period, so this is the fraction of time spent
    below the threshold. HighSpeed TCP uses the standard Reno response
    (a = 1, b = 1/2) below Low_Window = 38 packets (RFC 3649 section 5), so for
    an HSTCP flow this is the share of time it behaves as Reno; the ``fairness``
    study (Molnar et al., Computer Networks 2009) calls it "Reno mode". Other
    thresholds apply to other algorithms (Scalable's legacy window, for
    example). NaN if the window holds no sample.
    """
    t, w = paired(time, cwnd, "cwnd")
    w = w[window_mask(t, t_start, t_end)]
    return float(np.mean(w < low_window)) if w.size else float("nan")
