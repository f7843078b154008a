"""The adapter from a simulation run result to the array metrics: the one
module that knows how a run's tables are laid out and looked up.

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

The ``run_*`` functions name flows and links by their integer id or by their
``name``. The lookups below them (:func:`select_flows`, :func:`link_named`,
:func:`link_queue_series`, :func:`run_window`, ...) serve the study-file
metrics of :mod:`tcpeval.metrics.named`, which select flows by name list.
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


def select_flows(r: RunView, selectors: Sequence[str] | None) -> list[int]:
    """Ids of the flows named by ``selectors`` (all flows when None), in
    selector order: a name selects its flow and the copies ``name.0``,
    ``name.1``, ... of a flow entry with ``count > 1``. Raises ``ValueError``
    naming an unknown selector and the flows there are."""
    names = r.flows["name"].astype(str)
    if selectors is None:
        return list(r.flows["flow"])
    ids: list[int] = []
    for sel in selectors:
        hit = r.flows["flow"][(names == sel) | names.str.startswith(f"{sel}.")]
        if hit.empty:
            raise ValueError(f"no flow named {sel!r}; flows: {', '.join(names)}")
        ids.extend(int(i) for i in hit)
    return ids


def run_window(r: RunView, window: Sequence[float] | None) -> tuple[float, float]:
    """``[t0, t1]`` (s) of a study-file ``window``, capped at the run's end;
    the whole run when None. Raises ``ValueError`` when it is empty."""
    if window is None:
        return 0.0, float(r.sim_time_s)
    lo, hi = float(window[0]), min(float(window[1]), float(r.sim_time_s))
    if not hi > lo:
        raise ValueError(f"window {list(window)} is empty for a {r.sim_time_s} s run")
    return lo, hi


def flow_rows(r: RunView, ids: Iterable[int]) -> pd.DataFrame:
    """The rows of ``r.flows`` of the flows ``ids``, in table order."""
    return r.flows[r.flows["flow"].isin(list(ids))]


def flow_series_of(r: RunView, flow: int) -> pd.DataFrame:
    """The ``r.flow_series`` samples of flow id ``flow``, in table order."""
    return r.flow_series[r.flow_series["flow"] == flow]


def flow_start(r: RunView, flow: int) -> float:
    """Start time of flow id ``flow``, s."""
    return float(r.flows.loc[r.flows["flow"] == flow, "start"].iloc[0])


def link_named(r: RunView, link: str) -> pd.Series:
    """The ``r.links`` row of the link called ``link`` (e.g. ``"R1->R2"``);
    raises ``ValueError`` naming the links there are."""
    rows = r.links[r.links["name"] == link]
    if rows.empty:
        raise ValueError(f"no link named {link!r}; links: {', '.join(r.links['name'])}")
    return rows.iloc[0]


def link_queue_series(r: RunView, link: str) -> pd.DataFrame:
    """The ``r.queue_series`` samples of the link called ``link``; raises
    ``ValueError`` when the run did not sample it."""
    row = link_named(r, link)
    s = r.queue_series[r.queue_series["link"] == int(row["link"])]
    if s.empty:
        raise ValueError(f"link {link!r} has no queue series (add it to probes.queue_links)")
    return s


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
