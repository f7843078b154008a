"""Saturation time: how long a flow takes to fill the path, measured and predicted.

Measured (Molnar, Sonkoly, Trinh, Computer Networks 2009, ``fairness`` study):

* loss-based algorithms saturate when the buffer first overflows, so the
  saturation time is the time from the flow's start to its first drop;
* delay-based algorithms (FAST) never need a drop: their saturation time is
  the time until cwnd settles in a band around its equilibrium.

Predicted: closed forms for the time a window-growth rule needs to reach a
target window (for example the BDP plus the buffer), all in round trips of
``rtt`` seconds with per-packet ACKs (no delayed ACK).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from ._series import as_1d, paired


def time_to_first_drop(drop_times: ArrayLike, start: float = 0.0) -> float:
    """Loss-based saturation time: seconds from ``start`` to the first drop at or after it.

    ``drop_times`` (s) are the times of the flow's drops (or its recorded
    first loss); NaN if there is none after ``start``. Source: Molnar et al.
    2009, "the time from start to the first drop, i.e. the buffer first full".
    """
    drops = as_1d(drop_times, "drop_times")
    later = drops[drops >= start]
    return float(later.min() - start) if later.size else float("nan")


def time_to_buffer_full(time: ArrayLike, qlen: ArrayLike, buffer: float, start: float | None = None) -> float:
    """Seconds from ``start`` until the sampled queue first reaches ``buffer`` (NaN if never).

    The same loss-based saturation time as :func:`time_to_first_drop`, read
    from a queue-length series (packets, sampled at ``time`` in s) when drop
    times were not recorded: a DropTail queue drops only when full. Exact to
    the sampling period. ``start`` defaults to the first sample.
    """
    t, q = paired(time, qlen, "qlen")
    t0 = float(t[0]) if start is None else float(start)
    full = (t >= t0) & (q >= buffer)
    return float(t[np.argmax(full)] - t0) if full.any() else float("nan")


def cwnd_equilibrium(
    time: ArrayLike, cwnd: ArrayLike, tail: float = 0.25, t_end: float | None = None
) -> float:
    """Estimate of the equilibrium window: the median cwnd over the final ``tail`` of the series.

    Definition: with ``T`` the last sample time not after ``t_end`` and ``T0``
    the first sample time, the median of the samples with
    ``t >= T - tail * (T - T0)``. The median ignores the occasional excursion
    (a late drop, a route change) that a mean would follow. A flow that never
    settles gives a meaningless value; check it with
    :func:`delay_saturation_time`, which then returns NaN.
    """
    if not 0 < tail <= 1:
        raise ValueError(f"tail must be in (0, 1], got {tail}")
    t, w = paired(time, cwnd, "cwnd")
    if t_end is not None:
        keep = t <= t_end
        t, w = t[keep], w[keep]
    if t.size == 0:
        raise ValueError("no cwnd samples before t_end")
    last = t[-1]
    return float(np.median(w[t >= last - tail * (last - t[0])]))


def delay_saturation_time(
    time: ArrayLike,
    cwnd: ArrayLike,
    start: float | None = None,
    band: float = 0.05,
    equilibrium: float | None = None,
    tail: float = 0.25,
    t_end: float | None = None,
) -> float:
    """Delay-based saturation time (s): until cwnd stays within ``band`` of equilibrium.

    Definition: over the samples in ``[start, t_end]``, the settling time is the
    first sample time after which every sample satisfies
    ``|cwnd - W| <= band * W`` (the control-theory settling time with a
    +-``band`` tolerance). ``W`` is ``equilibrium`` if given, otherwise
    :func:`cwnd_equilibrium` over the same samples with ``tail``. Returns NaN
    if the last sample is outside the band (the flow has not settled). Exact
    to the sampling period.

    Source: Molnar et al., Computer Networks 2009 ("delay-based: time until
    cwnd settles in its equilibrium band").
    """
    if not band > 0:
        raise ValueError(f"band must be positive, got {band}")
    t, w = paired(time, cwnd, "cwnd")
    t0 = float(t[0]) if start is None else float(start)
    keep = t >= t0
    if t_end is not None:
        keep &= t <= t_end
    t, w = t[keep], w[keep]
    if t.size == 0:
        raise ValueError("no cwnd samples in the window")
    eq = cwnd_equilibrium(t, w, tail) if equilibrium is None else float(equilibrium)
    outside = np.abs(w - eq) > band * abs(eq)
    if outside[-1]:
        return float("nan")
    settled = 0 if not outside.any() else int(np.flatnonzero(outside)[-1]) + 1
    return float(t[settled] - t0)


def _check_growth_args(target: float, start_window: float, rtt: float) -> None:
    if not rtt > 0:
        raise ValueError(f"rtt must be positive, got {rtt}")
    if not start_window > 0:
        raise ValueError(f"the starting window must be positive, got {start_window}")
    if not math.isfinite(target):
        raise ValueError(f"target must be finite, got {target}")


def slow_start_time(target: float, rtt: float, initial_window: float = 10.0, growth: float = 2.0) -> float:
    """Seconds for slow start to grow cwnd from ``initial_window`` to ``target`` packets.

    Model: cwnd multiplies by ``growth`` per round trip (2 with per-packet
    ACKs, RFC 5681 section 3.1; about 1.5 with delayed ACKs and per-ACK
    counting), so after ``n`` whole rounds it is ``IW * growth**n``. Inside a
    round the ACKs, and so the increments, are spread evenly over the RTT, so
    the window grows linearly from ``w_n`` to ``w_{n+1}``:

        t = rtt * (n + (target - w_n) / (w_{n+1} - w_n)),  w_n <= target < w_{n+1}

    exact at ``target = IW * growth**n`` (``n`` RTTs). Returns 0 when the target
    is not above the initial window.
    """
    _check_growth_args(target, initial_window, rtt)
    if not growth > 1:
        raise ValueError(f"growth must exceed 1, got {growth}")
    if target <= initial_window:
        return 0.0
    rounds, window = 0, float(initial_window)
    while window * growth <= target:
        window *= growth
        rounds += 1
    return rtt * (rounds + (target - window) / (window * (growth - 1.0)))


def limited_slow_start_time(
    target: float, rtt: float, initial_window: float = 10.0, max_ssthresh: float = 100.0
) -> float:
    """Seconds for Limited Slow-Start (RFC 3742) to grow cwnd from ``initial_window`` to ``target``.

    Model (RFC 3742, integer-K form): each round trip delivers one ACK per
    packet of the window at the round's start (``floor(cwnd)`` ACKs), spread
    evenly over the RTT. Per ACK, if ``cwnd <= max_ssthresh`` then
    ``cwnd += 1`` (ordinary slow start), else with
    ``K = floor(cwnd / (max_ssthresh / 2))``, ``cwnd += 1/K``. Growth is thus
    doubling up to ``max_ssthresh`` and then between ``max_ssthresh/2`` and
    ``max_ssthresh`` packets per RTT. The ACK sequence is evaluated exactly
    (rational arithmetic, segment by segment between changes of K), and the
    target time is interpolated within the ACK that reaches it. Returns 0 when
    the target is not above the initial window.

    Example (IW 10, max_ssthresh 100): 10, 20, 40, 80 after 3 RTTs; in round 4
    21 ACKs take cwnd to 101, the other 59 add 1/2 each (130.5); round 5 needs
    39 of its 130 ACKs to reach 150, so 150 is reached after 4.3 RTTs.
    """
    _check_growth_args(target, initial_window, rtt)
    if initial_window < 1:
        raise ValueError(f"initial_window must be at least 1 packet, got {initial_window}")
    if not max_ssthresh > 0:
        raise ValueError(f"max_ssthresh must be positive, got {max_ssthresh}")
    if target <= initial_window:
        return 0.0
    goal = Fraction(target)
    limit = Fraction(max_ssthresh)
    half = limit / 2
    cwnd = Fraction(initial_window)
    rounds = 0
    while True:
        acks = math.floor(cwnd)
        used = 0
        while used < acks:
            if cwnd <= limit:
                step = Fraction(1)
                segment = math.floor(limit - cwnd) + 1
            else:
                k = math.floor(cwnd / half)
                step = Fraction(1, k)
                segment = math.ceil((half * (k + 1) - cwnd) * k)
            segment = min(segment, acks - used)
            if cwnd + segment * step >= goal:
                return float((rounds + (used + (goal - cwnd) / step) / acks) * Fraction(rtt))
            cwnd += segment * step
            used += segment
        rounds += 1


def multiplicative_increase_time(target: float, start_window: float, rtt: float, rate: float = 0.01) -> float:
    """Seconds for a multiplicative increase of ``rate`` per RTT to reach ``target``.

    Model: Scalable TCP adds ``a = rate`` per ACK, so cwnd grows by the factor
    ``1 + a`` per round trip (1 %/RTT for a = 0.01), and

        t = rtt * ln(target / start_window) / ln(1 + rate).

    Returns 0 when the target is not above the start. Source: T. Kelly,
    "Scalable TCP: Improving Performance in Highspeed Wide Area Networks",
    ACM CCR 33(2), 2003.
    """
    _check_growth_args(target, start_window, rtt)
    if not rate > 0:
        raise ValueError(f"rate must be positive, got {rate}")
    if target <= start_window:
        return 0.0
    return rtt * math.log(target / start_window) / math.log1p(rate)


def additive_increase_time(target: float, start_window: float, rtt: float, increase: float = 1.0) -> float:
    """Seconds for an additive increase of ``increase`` packets per RTT to reach ``target``.

    Model: ``t = rtt * (target - start_window) / increase`` (Reno congestion
    avoidance, RFC 5681 section 3.1: about one packet per RTT). Returns 0 when
    the target is not above the start.
    """
    _check_growth_args(target, start_window, rtt)
    if not increase > 0:
        raise ValueError(f"increase must be positive, got {increase}")
    if target <= start_window:
        return 0.0
    return rtt * (target - start_window) / increase
