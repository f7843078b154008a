"""Queue occupancy statistics and queueing delay.

Queue series are instantaneous lengths sampled at a fixed period (for example
100 Hz in the ``yeah`` study, 10 ms or 1 ms in the ``fairness`` study), so
sample statistics are time averages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ._series import as_1d, paired, window_mask


@dataclass(frozen=True)
class QueueStats:
    """Summary of a queue series over a window.

    Values are in the unit of the input (packets or bytes), or fractions of
    the buffer when a buffer size was given. ``percentiles`` maps each
    requested percentile (0-100) to its value. ``samples`` is the number of
    samples in the window; with none, every value is NaN.
    """

    mean: float
    std: float
    max: float
    percentiles: dict[float, float]
    samples: int


def queue_stats(
    qlen: ArrayLike,
    time: ArrayLike | None = None,
    t_start: float | None = None,
    t_end: float | None = None,
    buffer: float | None = None,
    percentiles: Sequence[float] = (50.0, 90.0, 99.0),
) -> QueueStats:
    """Mean, standard deviation, maximum and percentiles of a sampled queue length.

    Definitions: over the samples in ``[t_start, t_end)`` (all samples when
    ``time`` is ``None``), mean and population standard deviation (ddof 0),
    maximum, and percentiles with linear interpolation (numpy's default). If
    ``buffer`` is given (same unit as ``qlen``) every value is divided by it,
    giving the "mean queue length normalized to B" of the ``yeah`` study
    (Baiocchi et al., PFLDnet 2007, E1 and E4).
    """
    if time is None:
        if t_start is not None or t_end is not None:
            raise ValueError("a time window needs the sample times")
        q = as_1d(qlen, "qlen")
    else:
        t, q = paired(time, qlen, "qlen")
        q = q[window_mask(t, t_start, t_end)]
    if buffer is not None:
        if not buffer > 0:
            raise ValueError(f"buffer must be positive, got {buffer}")
        q = q / float(buffer)
    levels = [float(p) for p in percentiles]
    if q.size == 0:
        return QueueStats(np.nan, np.nan, np.nan, dict.fromkeys(levels, np.nan), 0)
    values = np.percentile(q, levels)
    return QueueStats(
        mean=float(q.mean()),
        std=float(q.std()),
        max=float(q.max()),
        percentiles={p: float(v) for p, v in zip(levels, values, strict=True)},
        samples=int(q.size),
    )


def queueing_delay(qbytes: ArrayLike, rate_bps: float) -> np.ndarray:
    """Queueing delay in seconds from a queue length in bytes: ``8 * qbytes / rate_bps``.

    The time a packet arriving behind ``qbytes`` bytes waits until the link,
    serving at ``rate_bps`` bit/s, has sent them (FIFO drain time). Vectorized.
    Source: the drain time of a FIFO queue (backlog over service rate), as in
    any queueing text; a packet's own transmission time is not included.
    """
    if not rate_bps > 0:
        raise ValueError(f"rate_bps must be positive, got {rate_bps}")
    return 8.0 * np.asarray(qbytes, dtype=float) / float(rate_bps)


def queueing_delay_packets(qlen: ArrayLike, rate_bps: float, packet_size: float = 1500.0) -> np.ndarray:
    """Queueing delay in seconds from a queue length in packets of ``packet_size`` bytes.

    Definition: ``8 * qlen * packet_size / rate_bps`` (see :func:`queueing_delay`).
    """
    return queueing_delay(np.asarray(qlen, dtype=float) * float(packet_size), rate_bps)
