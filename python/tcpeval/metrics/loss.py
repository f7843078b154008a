"""Loss and retransmission ratios from packet counters.

Each function is a vectorized ratio of counters (arrays broadcast, scalars
give a float). A zero denominator gives NaN: nothing was offered, so no
probability can be estimated.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._series import bounds, cumulative_at, paired


def _ratio(numerator: ArrayLike, denominator: ArrayLike) -> np.ndarray | float:
    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    safe = np.where(den == 0, 1.0, den)
    value = np.where(den == 0, np.nan, num / safe)
    return float(value) if value.ndim == 0 else value


def drop_probability(dropped: ArrayLike, arrived: ArrayLike) -> np.ndarray | float:
    """Queue drop probability: packets dropped / packets that arrived at the queue.

    Dimensionless, in [0, 1]. On a single bottleneck with loss-free access
    links the arrivals equal the packets sent into it, so this is also the
    "buffer-overflow loss probability (dropped at the bottleneck / sent)" of the
    ``yeah`` study (Baiocchi et al., PFLDnet 2007, E1) and the "total packet
    loss rate at the bottleneck" of the ``background`` study (Ha et al.,
    PFLDnet 2006).
    """
    return _ratio(dropped, arrived)


def loss_ratio(lost: ArrayLike, sent: ArrayLike) -> np.ndarray | float:
    """Loss ratio: data packets lost / data packets sent (sent includes retransmissions).

    Dimensionless. Source: the "loss ratio" of the ``linux-variants`` study
    (Alrshah & Othman, "lost data packets / sent data packets").
    """
    return _ratio(lost, sent)


def retransmission_probability(retransmitted: ArrayLike, sent: ArrayLike) -> np.ndarray | float:
    """Retransmission probability: packets retransmitted / data packets sent.

    ``sent`` counts every transmission including retransmissions, so the value
    is in [0, 1]. Dimensionless. Source: the "packet retransmission
    probability" of the ``reverse`` study (Mascolo & Vacirca, PFLDnet 2006).
    """
    return _ratio(retransmitted, sent)


def ratio_in_window(
    time: ArrayLike,
    cum_numerator: ArrayLike,
    cum_denominator: ArrayLike,
    t_start: float | None = None,
    t_end: float | None = None,
) -> float:
    """Ratio of two cumulative counters' increments over a window.

    Definition: ``(N(t_end) - N(t_start)) / (D(t_end) - D(t_start))`` with both
    counters sampled at ``time`` (s) and read by linear interpolation; NaN when
    the denominator did not grow. Use it for any of the ratios above restricted
    to a phase, e.g. retransmitted/sent in the three phases of the ``reverse``
    study, or drops/arrivals of a link after warm-up.
    """
    t, num = paired(time, cum_numerator, "cum_numerator")
    _, den = paired(time, cum_denominator, "cum_denominator")
    lo, hi = bounds(t, t_start, t_end)
    n_lo, n_hi = cumulative_at(t, num, [lo, hi])
    d_lo, d_hi = cumulative_at(t, den, [lo, hi])
    return float(_ratio(n_hi - n_lo, d_hi - d_lo))
