"""Adapters from a simulation run result to the array metrics.

The engine delivers a run result ``r`` holding pandas DataFrames (the
contract, see :class:`RunView`; :class:`tcpeval.RunResult` is one):

* ``r.flow_series``: ``time`` (s), ``flow`` (id), ``cwnd`` and ``ssthresh``
  (packets; ssthresh inf if unset), ``srtt`` (s, NaN if none), ``delivered``
  (bytes delivered to the application, cumulative);
* ``r.queue_series``: ``time`` (s), ``link`` (id), ``qlen`` (packets),
  ``qbytes`` (bytes), sampled at a fixed period;
* ``r.flows``: one row per flow: ``flow``, ``name``, ``algorithm``, ``start``
  and ``stop`` (s), ``sent`` (data packets incl. retransmissions),
  ``retransmitted``, ``fast_retransmits``, ``timeouts``, ``undos`` (reductions
  undone, TCP option ``undo``), ``delivered_bytes``,
  ``first_loss`` (s, NaN if none), ``base_rtt`` (s);
* ``r.links``: one row per link: ``link``, ``name``, ``rate_bps``, ``delay``
  (s), ``buffer`` (packets), ``arrivals``, ``drops``, ``departures``,
  ``bytes_departed``, ``max_qlen``;
* ``r.sim_time_s``: simulated time (s).

Flows and links are named by their integer id or by their ``name``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np
import pandas as pd

from .fairness import jain_index
from .loss import drop_probability
from .queue import QueueStats, queue_stats
from .throughput import throughput


class RunView(Protocol):
    """What the metrics read from a run result (the engine's output
    contract): :class:`tcpeval.RunResult`, or any object with these tables."""

    flow_series: pd.DataFrame
    queue_series: pd.DataFrame
    flows: pd.DataFrame
    links: pd.DataFrame
    sim_time_s: float
    """Simulated time covered, s."""


def _row(table: pd.DataFrame, id_column: str, key: int | str, what: str) -> pd.Series:
    column = "name" if isinstance(key, str) else id_column
    match = table[table[column] == key]
    if len(match) != 1:
        raise KeyError(f"{what} {key!r}: {len(match)} matching rows in the run result")
    return match.iloc[0]


def _trace(series: pd.DataFrame, id_column: str, ident: int, column: str) -> tuple[np.ndarray, np.ndarray]:
    if column not in series.columns:
        raise KeyError(f"no column {column!r}; available: {list(series.columns)}")
    rows = series[series[id_column] == ident].sort_values("time", kind="stable")
    return rows["time"].to_numpy(dtype=float), rows[column].to_numpy(dtype=float)


def run_flow_trace(r: RunView, flow: int | str, column: str = "cwnd") -> tuple[np.ndarray, np.ndarray]:
    """``(time, values)`` arrays of one flow's ``column`` from ``r.flow_series``, in time order."""
    ident = int(_row(r.flows, "flow", flow, "flow")["flow"])
    return _trace(r.flow_series, "flow", ident, column)


def run_queue_trace(r: RunView, link: int | str, column: str = "qlen") -> tuple[np.ndarray, np.ndarray]:
    """``(time, values)`` arrays of one link's ``column`` from ``r.queue_series``, in time order."""
    ident = int(_row(r.links, "link", link, "link")["link"])
    return _trace(r.queue_series, "link", ident, column)


def _flow_window(
    r: RunView, row: pd.Series, t_start: float | None, t_end: float | None
) -> tuple[float, float]:
    lo = float(row["start"]) if t_start is None else float(t_start)
    if t_end is not None:
        return lo, float(t_end)
    stop = float(row["stop"])
    return lo, min(stop, float(r.sim_time_s)) if np.isfinite(stop) else float(r.sim_time_s)


def _selected_flows(r: RunView, flows: Iterable[int | str] | None) -> list[pd.Series]:
    if flows is None:
        return [row for _, row in r.flows.iterrows()]
    return [_row(r.flows, "flow", f, "flow") for f in flows]


def run_flow_goodputs(
    r: RunView,
    t_start: float | None = None,
    t_end: float | None = None,
    flows: Iterable[int | str] | None = None,
) -> pd.Series:
    """Goodput of each flow in bit/s, indexed by flow id, over a window.

    Uses :func:`tcpeval.metrics.goodput` on the flow's cumulative ``delivered``
    bytes. Without ``t_start`` (``t_end``) the window starts (ends) at the
    flow's own start (stop, capped at the run duration), so a flow is not
    diluted by time it was not running. ``flows`` selects flows (ids or
    names); all by default.
    """
    values: dict[int, float] = {}
    for row in _selected_flows(r, flows):
        ident = int(row["flow"])
        time, delivered = _trace(r.flow_series, "flow", ident, "delivered")
        if time.size == 0:
            raise ValueError(f"flow {ident} has no samples in flow_series")
        lo, hi = _flow_window(r, row, t_start, t_end)
        values[ident] = throughput(time, delivered, lo, hi)
    return pd.Series(values, name="goodput_bps", dtype=float).rename_axis("flow")


def run_flow_jain(
    r: RunView,
    t_start: float | None = None,
    t_end: float | None = None,
    flows: Iterable[int | str] | None = None,
) -> float:
    """Jain's index of the flows' goodputs (:func:`run_flow_goodputs`, same window rules)."""
    return float(jain_index(run_flow_goodputs(r, t_start, t_end, flows).to_numpy()))


def run_link_utilization(
    r: RunView,
    link: int | str,
    t_start: float | None = None,
    t_end: float | None = None,
    flows: Iterable[int | str] | None = None,
) -> float:
    """Utilization of a link: carried bits / (rate_bps * duration), dimensionless.

    Without ``flows``: the link's own counter, ``8 * bytes_departed /
    (rate_bps * r.sim_time_s)``; the contract gives that counter only for the
    whole run, so a window other than ``[0, r.sim_time_s]`` raises
    ``ValueError``. With ``flows`` (the flows crossing the link): the sum of
    their delivered bytes over ``[t_start, t_end]`` (default ``[0,
    r.sim_time_s]``), i.e. goodput-based utilization, which excludes
    retransmissions and headers.
    """
    row = _row(r.links, "link", link, "link")
    rate = float(row["rate_bps"])
    lo = 0.0 if t_start is None else float(t_start)
    hi = float(r.sim_time_s) if t_end is None else float(t_end)
    if flows is None:
        if lo != 0.0 or hi != float(r.sim_time_s):
            raise ValueError(
                "the link counters cover the whole run only; pass the flows crossing the link "
                "to measure a window"
            )
        return float(8.0 * float(row["bytes_departed"]) / (rate * hi))
    goodputs = run_flow_goodputs(r, lo, hi, flows)
    return float(goodputs.sum() / rate)


def run_queue_stats(
    r: RunView,
    link: int | str,
    t_start: float | None = None,
    t_end: float | None = None,
    percentiles: Sequence[float] = (50.0, 90.0, 99.0),
) -> QueueStats:
    """Queue-length statistics of a link normalized to its buffer (fractions of ``buffer`` packets).

    :func:`tcpeval.metrics.queue_stats` over the samples in ``[t_start, t_end)``
    of the link's ``qlen``.
    """
    row = _row(r.links, "link", link, "link")
    time, qlen = _trace(r.queue_series, "link", int(row["link"]), "qlen")
    return queue_stats(qlen, time, t_start, t_end, buffer=float(row["buffer"]), percentiles=percentiles)


def run_drop_probability(r: RunView, link: int | str) -> float:
    """Drop probability of a link over the run: ``drops / arrivals`` (NaN if nothing arrived)."""
    row = _row(r.links, "link", link, "link")
    return float(drop_probability(float(row["drops"]), float(row["arrivals"])))
