"""Named per-run metrics for study files (docs/study-format.md, "Metric functions").

Each function takes a run result and the keyword arguments written in the
study file and returns one number (NaN when the metric is undefined for the
run, e.g. no drop happened). Flow selectors are lists of flow names; a name
also selects the copies ``name.0``, ``name.1``, ... of a flow entry with
``count > 1``. They find flows, links, windows and samples through the
lookups of :mod:`tcpeval.metrics.runview` (the one adapter from a run to
the metrics) and compute with the array metrics of this package.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._series import cumulative_at
from .convergence import convergence_time
from .fairness import jain_index
from .queue import queue_stats
from .reno_mode import reno_mode_fraction
from .runview import (
    RunView,
    flow_rows,
    flow_series_of,
    flow_start,
    link_named,
    link_queue_series,
    run_window,
    select_flows,
)
from .spectra import dominant_frequencies, periodogram_psd
from .stability import throughput_cov
from .throughput import throughput, utilization

MetricFn = Callable[..., float]


def _flow_goodput_bps(r: RunView, flow: int, lo: float, hi: float) -> float:
    s = flow_series_of(r, flow)
    if s.empty:
        return 0.0
    # Before its first sample a flow had delivered nothing.
    t = np.concatenate([[0.0], s["time"].to_numpy()])
    b = np.concatenate([[0.0], s["delivered"].to_numpy(dtype=float)])
    if t[1] == 0.0:
        t, b = t[1:], b[1:]
    return throughput(t, b, lo, hi)


def _agg(values: list[float], agg: str) -> float:
    if not values:
        return float("nan")
    if agg == "sum":
        return float(np.sum(values))
    if agg == "mean":
        return float(np.mean(values))
    if agg == "min":
        return float(np.min(values))
    if agg == "max":
        return float(np.max(values))
    raise ValueError(f"agg must be one of sum, mean, min, max; got {agg!r}")


def goodput_mbps(
    r: RunView, flows: Sequence[str] | None = None, agg: str = "mean", window: Any = None
) -> float:
    """Application goodput of the selected flows over the window, Mbit/s (aggregated by ``agg``)."""
    lo, hi = run_window(r, window)
    return _agg([_flow_goodput_bps(r, f, lo, hi) / 1e6 for f in select_flows(r, flows)], agg)


def link_utilization(r: RunView, link: str = "R1->R2", window: Any = None) -> float:
    """Bytes serialized on ``link`` over the window / its capacity."""
    lo, hi = run_window(r, window)
    s = link_queue_series(r, link)
    rate = float(link_named(r, link)["rate_bps"])
    return utilization(s["time"], s["departed_bytes"].to_numpy(dtype=float), rate, lo, hi)


#: TCP/IP header bytes of a data packet: wire size = mss + this (crates/tcpeval-sim/src/tcp/config.rs).
HEADER_BYTES = 40


def goodput_utilization(
    r: RunView, flows: Sequence[str] | None = None, link: str = "R1->R2", window: Any = None
) -> float:
    """Goodput of the selected flows counted in whole data packets (payload plus the 40-byte
    TCP/IP header each) over the window / ``link``'s capacity.

    A link's share carried as the selected flows' new data, for papers that quote goodput as a
    fraction of the link: unlike :func:`link_utilization` it leaves out retransmissions and other
    traffic (reverse flows' ACKs, cross traffic), and unlike ``goodput_mbps`` / capacity it does
    not stop at mss / packet size (97 % with 1500-byte packets).
    """
    lo, hi = run_window(r, window)
    rate = float(link_named(r, link)["rate_bps"])
    ids = select_flows(r, flows)
    mss = dict(zip(r.flows["flow"], r.flows["mss"].astype(float), strict=True))
    wire_bps = sum(_flow_goodput_bps(r, f, lo, hi) * (mss[f] + HEADER_BYTES) / mss[f] for f in ids)
    return float(wire_bps / rate)


def loss_ratio(r: RunView, flows: Sequence[str] | None = None) -> float:
    """Data packets dropped / data packets sent, over the selected flows."""
    f = flow_rows(r, select_flows(r, flows))
    sent = f["sent"].sum()
    return float(f["data_dropped"].sum() / sent) if sent else float("nan")


def loss_pct(r: RunView, flows: Sequence[str] | None = None) -> float:
    """:func:`loss_ratio` in percent: 100 x data packets dropped / data packets sent."""
    return 100.0 * loss_ratio(r, flows)


def _counter_in_window(r: RunView, flow: int, column: str, lo: float, hi: float) -> float:
    """Increase of a cumulative flow counter over [lo, hi] (0 before the flow's first sample)."""
    s = flow_series_of(r, flow)
    if s.empty:
        return 0.0
    t = s["time"].to_numpy()
    v = s[column].to_numpy(dtype=float)
    return float(np.interp(hi, t, v, left=0.0) - np.interp(lo, t, v, left=0.0))


def retx_prob(r: RunView, flows: Sequence[str] | None = None, window: Any = None) -> float:
    """Retransmitted / sent data packets of the selected flows (over the window, if given)."""
    ids = select_flows(r, flows)
    if window is None:
        f = flow_rows(r, ids)
        sent, retx = float(f["sent"].sum()), float(f["retransmitted"].sum())
    else:
        lo, hi = run_window(r, window)
        sent = sum(_counter_in_window(r, i, "sent", lo, hi) for i in ids)
        retx = sum(_counter_in_window(r, i, "retransmitted", lo, hi) for i in ids)
    return retx / sent if sent else float("nan")


def timeouts(r: RunView, flows: Sequence[str] | None = None, agg: str = "sum", window: Any = None) -> float:
    """Retransmission timeouts of the selected flows (over the window, if given)."""
    ids = select_flows(r, flows)
    if window is None:
        f = flow_rows(r, ids)
        return _agg([float(x) for x in f["timeouts"]], agg)
    lo, hi = run_window(r, window)
    return _agg([_counter_in_window(r, i, "timeouts", lo, hi) for i in ids], agg)


def _link_counter_in_window(s: pd.DataFrame, column: str, lo: float, hi: float) -> float:
    """Increase of a cumulative queue-series counter over [lo, hi] (linear interpolation, clamped)."""
    at_lo, at_hi = cumulative_at(s["time"].to_numpy(dtype=float), s[column].to_numpy(dtype=float), [lo, hi])
    return float(at_hi - at_lo)


def _departed_packets_in_window(r: RunView, link: str, lo: float, hi: float) -> float:
    """Packets that left ``link`` over [lo, hi]: departed bytes / the run's mean departed packet size.

    The queue series counts bytes, not packets; the mean size (``bytes_departed / departures``
    of the whole run) makes the count exact when every packet on the link has the same size.
    """
    row = link_named(r, link)
    if not row["departures"]:
        return 0.0
    mean_bytes = float(row["bytes_departed"]) / float(row["departures"])
    return _link_counter_in_window(link_queue_series(r, link), "departed_bytes", lo, hi) / mean_bytes


def drop_prob(r: RunView, link: str = "R1->R2", window: Any = None) -> float:
    """Buffer drops / arrivals at ``link``; over a window, drops / (drops + departed packets).

    Without ``window``: the run's buffer drops / arrivals (the link's counters). With
    ``window = [t0, t1]`` (s): the queue series has no arrival counter, so the value is
    drops / (drops + departed packets) over the window, both read from the cumulative series
    (departed packets as in :func:`_departed_packets_in_window`). Random (non-buffer) losses
    are not in that denominator, and departures differ from arrivals by the queue's change over
    the window. NaN when it is 0.
    """
    if window is None:
        row = link_named(r, link)
        return float(row["drops"] / row["arrivals"]) if row["arrivals"] else float("nan")
    lo, hi = run_window(r, window)
    drops = _link_counter_in_window(link_queue_series(r, link), "drops", lo, hi)
    offered = drops + _departed_packets_in_window(r, link, lo, hi)
    return drops / offered if offered else float("nan")


def _queue(r: RunView, link: str, window: Any) -> Any:
    lo, hi = run_window(r, window)
    s = link_queue_series(r, link)
    buffer = link_named(r, link)["buffer"]
    if buffer is None or pd.isna(buffer):
        raise ValueError(f"link {link!r} has a byte buffer; queue normalization needs packets")
    return queue_stats(s["qlen"].to_numpy(dtype=float), s["time"], lo, hi, buffer=float(buffer))


def queue_mean_norm(r: RunView, link: str = "R1->R2", window: Any = None) -> float:
    """Mean queue length / buffer on ``link`` over the window."""
    return float(_queue(r, link, window).mean)


def queue_std_norm(r: RunView, link: str = "R1->R2", window: Any = None) -> float:
    """Standard deviation of queue length / buffer on ``link`` over the window."""
    return float(_queue(r, link, window).std)


def queue_cov(r: RunView, link: str = "R1->R2", window: Any = None) -> float:
    """Coefficient of variation of ``link``'s queue length: std / mean of its samples in [t0, t1).

    Population standard deviation (ddof 0) over the mean of the qlen samples (packets) in the
    window, dimensionless; NaN if the mean is 0 or the window holds no sample.
    """
    lo, hi = run_window(r, window)
    s = link_queue_series(r, link)
    stats = queue_stats(s["qlen"].to_numpy(dtype=float), s["time"], lo, hi)
    return float(stats.std / stats.mean) if stats.mean > 0 else float("nan")


def jain(r: RunView, flows: Sequence[str] | None = None, window: Any = None) -> float:
    """Jain's index of the selected flows' goodputs over the window."""
    lo, hi = run_window(r, window)
    return float(jain_index([_flow_goodput_bps(r, f, lo, hi) for f in select_flows(r, flows)]))


def jain_groups(r: RunView, groups: Sequence[Sequence[str]], window: Any = None) -> float:
    """Jain's index of the groups' mean goodputs (RTT fairness across RTT groups)."""
    lo, hi = run_window(r, window)
    means = [np.mean([_flow_goodput_bps(r, f, lo, hi) for f in select_flows(r, g)]) for g in groups]
    return float(jain_index(means))


def ratio(r: RunView, flows: Sequence[str], window: Any = None) -> float:
    """Goodput of the first selector's flows / goodput of the second's."""
    if len(flows) != 2:
        raise ValueError("ratio takes flows = [first, second]")
    lo, hi = run_window(r, window)
    a = sum(_flow_goodput_bps(r, f, lo, hi) for f in select_flows(r, [flows[0]]))
    b = sum(_flow_goodput_bps(r, f, lo, hi) for f in select_flows(r, [flows[1]]))
    return float(a / b) if b else float("nan")


def cov(r: RunView, link: str = "R1->R2", interval: float = 10.0, window: Any = None) -> float:
    """Coefficient of variation of ``link``'s throughput over ``interval``-second intervals."""
    lo, hi = run_window(r, window)
    s = link_queue_series(r, link)
    return float(throughput_cov(s["time"], s["departed_bytes"].to_numpy(dtype=float), interval, lo, hi))


def convergence_s(r: RunView, flows: Sequence[str], fraction: float = 0.8, never: str = "nan") -> float:
    """Seconds from the second flow's start until its 1 s goodput reaches ``fraction`` x the first's.

    A run that never gets there gives NaN (``never = "nan"``, left out of means) or, with
    ``never = "cap"``, the time from the second start to the end of the run: a lower bound
    that keeps non-converging runs in a mean ("converges very slowly or never").
    """
    if len(flows) != 2:
        raise ValueError("convergence_s takes flows = [first, second]")
    if never not in ("nan", "cap"):
        raise ValueError(f"never must be 'nan' or 'cap'; got {never!r}")
    first, second = select_flows(r, [flows[0]])[0], select_flows(r, [flows[1]])[0]
    t = np.unique(r.flow_series["time"].to_numpy())  # every flow's sample times

    def on_grid(flow: int) -> np.ndarray:
        s = flow_series_of(r, flow)
        return np.interp(t, s["time"], s["delivered"].to_numpy(dtype=float), left=0.0)

    start = flow_start(r, second)
    value = float(convergence_time(t, on_grid(first), on_grid(second), start, fraction))
    if math.isnan(value) and never == "cap":
        return float(r.sim_time_s) - start
    return value


def first_loss_s(r: RunView, flows: Sequence[str] | None = None, agg: str = "min") -> float:
    """Time from each selected flow's start to its first dropped packet (NaN if none)."""
    f = flow_rows(r, select_flows(r, flows))
    vals = [float(a - s) for a, s in zip(f["first_loss"], f["start"], strict=True) if pd.notna(a)]
    return _agg(vals, agg)


def reno_mode(
    r: RunView, flows: Sequence[str] | None = None, low_window: float = 38.0, window: Any = None
) -> float:
    """Mean over the selected flows of the fraction of time cwnd < ``low_window``."""
    lo, hi = run_window(r, window)
    vals = []
    for f in select_flows(r, flows):
        s = flow_series_of(r, f)
        vals.append(reno_mode_fraction(s["time"], s["cwnd"], low_window, lo, hi))
    return _agg(vals, "mean")


def _peak_hz(time: Any, x: Any, lo: float, hi: float, rank: int = 1) -> float:
    """The ``rank``-th strongest periodogram peak (Hz) of a sampled series over [lo, hi),
    skipping the DC and 1/T bins; NaN if the spectrum has fewer peaks."""
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise ValueError(f"rank must be an integer >= 1; got {rank!r}")
    f, p = periodogram_psd(np.asarray(time, dtype=float), np.asarray(x, dtype=float), t_start=lo, t_end=hi)
    peaks, _ = dominant_frequencies(f, p, count=rank)
    return float(peaks[rank - 1]) if len(peaks) >= rank else float("nan")


def cwnd_peak_hz(r: RunView, flows: Sequence[str] | None = None, window: Any = None, rank: int = 1) -> float:
    """Frequency (Hz) of the ``rank``-th strongest peak (1 = dominant) of the first selected
    flow's cwnd series (periodogram)."""
    lo, hi = run_window(r, window)
    s = flow_series_of(r, select_flows(r, flows)[0])
    return _peak_hz(s["time"], s["cwnd"], lo, hi, rank)


def queue_peak_hz(r: RunView, link: str = "R1->R2", window: Any = None, rank: int = 1) -> float:
    """Frequency (Hz) of the ``rank``-th strongest peak of ``link``'s queue-length series
    (periodogram, as :func:`cwnd_peak_hz`)."""
    lo, hi = run_window(r, window)
    s = link_queue_series(r, link)
    return _peak_hz(s["time"], s["qlen"], lo, hi, rank)


def _first_sustained(t: np.ndarray, ok: np.ndarray, t0: float, hold_s: float) -> float:
    """First sample time ``t_k >= t0`` from which ``ok`` holds at every sample up to at least
    ``t_k + hold_s`` (the samples being the only evidence between them); NaN if none.
    ``hold_s = 0`` is the first ``ok`` sample at or after ``t0``."""
    keep = t >= t0
    t, ok = t[keep], ok[keep]
    if not ok.any():
        return math.nan
    # Runs of consecutive ok samples: [starts[i], ends[i]] (inclusive indices).
    edges = np.diff(np.concatenate([[0], ok.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    lasting = t[ends] - t[starts] >= hold_s
    return float(t[starts[np.argmax(lasting)]]) if lasting.any() else math.nan


def cwnd_reach_s(r: RunView, cwnd: float, flows: Sequence[str] | None = None, agg: str = "min") -> float:
    """Seconds from each selected flow's start until its cwnd sample first reaches ``cwnd``
    packets (NaN for a flow that never does; aggregated by ``agg`` over the others).

    The end of Limited Slow-Start (cwnd = W_LSS) or of slow start, as the fairness study's
    eqs. (2)-(3) predict it; exact to the probe interval.
    """
    vals = []
    for f in select_flows(r, flows):
        s = flow_series_of(r, f)
        t = flow_start(r, f)
        hit = _first_sustained(
            s["time"].to_numpy(dtype=float), s["cwnd"].to_numpy(dtype=float) >= cwnd, t, 0.0
        )
        if not math.isnan(hit):
            vals.append(hit - t)
    return _agg(vals, agg)


def settle_s(
    r: RunView,
    flows: Sequence[str] | None = None,
    band: float = 0.1,
    hold_s: float = 5.0,
    window: Any = None,
    agg: str = "mean",
) -> float:
    """Seconds from each selected flow's start until its cwnd enters, and then stays in for
    ``hold_s`` seconds, the band ``mean x (1 +- band)`` around its mean cwnd over ``window``
    (its equilibrium); NaN for a flow that never settles, aggregated by ``agg``.

    The saturation time of a delay-based flow (FAST), which converges to a window instead of
    oscillating: the fairness study's Table 4.
    """
    if not 0 < band < 1:
        raise ValueError(f"band must be in (0, 1); got {band}")
    if hold_s < 0:
        raise ValueError(f"hold_s must be >= 0; got {hold_s}")
    lo, hi = run_window(r, window)
    vals = []
    for f in select_flows(r, flows):
        eq = _flow_samples(r, f, "cwnd", lo, hi)
        if not eq.size:
            continue
        m = float(eq.mean())
        s = flow_series_of(r, f)
        w = s["cwnd"].to_numpy(dtype=float)
        inside = (w >= m * (1 - band)) & (w <= m * (1 + band))
        t = flow_start(r, f)
        hit = _first_sustained(s["time"].to_numpy(dtype=float), inside, t, hold_s)
        if not math.isnan(hit):
            vals.append(hit - t)
    return _agg(vals, agg)


def queue_onset_s(
    r: RunView,
    link: str = "R1->R2",
    threshold_pkts: float = 1.0,
    hold_s: float = 1.0,
    flows: Sequence[str] | None = None,
) -> float:
    """Seconds from the first selected flow's start (the run's start without ``flows``) until
    ``link``'s queue rises above ``threshold_pkts`` packets and stays above it for ``hold_s``
    seconds: when the flow has filled the pipe and the link saturates (the fairness study's
    eq. (4), t0). NaN if it never does."""
    if hold_s < 0:
        raise ValueError(f"hold_s must be >= 0; got {hold_s}")
    t0 = flow_start(r, select_flows(r, flows)[0]) if flows else 0.0
    s = link_queue_series(r, link)
    hit = _first_sustained(
        s["time"].to_numpy(dtype=float), s["qlen"].to_numpy(dtype=float) > threshold_pkts, t0, hold_s
    )
    return hit - t0


def _flow_samples(r: RunView, flow: int, column: str, lo: float, hi: float) -> np.ndarray:
    """The flow's non-NaN samples of a flow_series ``column`` taken in [lo, hi)."""
    s = flow_series_of(r, flow)
    t = s["time"].to_numpy(dtype=float)
    v = s[column].to_numpy(dtype=float)[(t >= lo) & (t < hi)]
    return v[~np.isnan(v)]


def cwnd_max(r: RunView, flows: Sequence[str] | None = None, agg: str = "max", window: Any = None) -> float:
    """Largest cwnd sample (packets) of each selected flow in [t0, t1), aggregated by ``agg``.

    Flows without a cwnd sample in the window are left out; NaN if no flow has one.
    """
    lo, hi = run_window(r, window)
    samples = [_flow_samples(r, f, "cwnd", lo, hi) for f in select_flows(r, flows)]
    return _agg([float(v.max()) for v in samples if v.size], agg)


def rtt_jain(r: RunView, flows: Sequence[str] | None = None, window: Any = None) -> float:
    """Jain's index of the selected flows' mean smoothed RTTs (flow_series ``srtt``, s) in [t0, t1).

    Each flow's mean is over its srtt samples in the window (NaN samples, before the first RTT
    measurement, left out); NaN if a selected flow has no sample. The "RTT-fair" column of
    Table 3 of the ``linux-variants`` study (Alrshah & Othman).
    """
    lo, hi = run_window(r, window)
    means = []
    for f in select_flows(r, flows):
        v = _flow_samples(r, f, "srtt", lo, hi)
        if not v.size:
            return float("nan")
        means.append(float(v.mean()))
    return float(jain_index(means))


#: The metric functions a study file can name in ``fn``.
METRICS: dict[str, MetricFn] = {
    "goodput_mbps": goodput_mbps,
    "utilization": link_utilization,
    "goodput_utilization": goodput_utilization,
    "loss_ratio": loss_ratio,
    "loss_pct": loss_pct,
    "retx_prob": retx_prob,
    "timeouts": timeouts,
    "drop_prob": drop_prob,
    "queue_mean_norm": queue_mean_norm,
    "queue_std_norm": queue_std_norm,
    "queue_cov": queue_cov,
    "jain": jain,
    "jain_groups": jain_groups,
    "ratio": ratio,
    "cov": cov,
    "convergence_s": convergence_s,
    "cwnd_reach_s": cwnd_reach_s,
    "settle_s": settle_s,
    "queue_onset_s": queue_onset_s,
    "first_loss_s": first_loss_s,
    "reno_mode": reno_mode,
    "cwnd_peak_hz": cwnd_peak_hz,
    "queue_peak_hz": queue_peak_hz,
    "cwnd_max": cwnd_max,
    "rtt_jain": rtt_jain,
}


def compute(r: RunView, fn: str, args: dict[str, Any]) -> float:
    """Evaluates metric ``fn`` with ``args`` on run ``r``."""
    if fn not in METRICS:
        raise ValueError(f"unknown metric function {fn!r}; known: {', '.join(METRICS)}")
    return float(METRICS[fn](r, **args))
