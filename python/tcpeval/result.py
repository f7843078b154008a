"""The results of one run as pandas DataFrames, with the summary numbers
the CLI prints.

Tables (units in the column docs of the engine, restated here):

- ``flow_series``: time (s), flow (id), flow_name, cwnd (packets), ssthresh (packets, inf
  while unlimited), srtt (s, NaN before the first sample), delivered
  (bytes delivered in order to the application so far), and the cumulative
  counters sent, retransmitted, timeouts (so rates can be taken per phase).
- ``queue_series``: time (s), link (id), link_name, qlen (packets waiting), qbytes,
  departed_bytes (cumulative), drops (cumulative queue drops: full buffer
  or discipline).
- ``aqm_series``: time (s), link (id), link_name, avg_queue (the average
  queue the link's discipline acts on: RED's, packets or bytes; step's, the
  packets the last arrival found; NaN for the others), early_drops and
  forced_drops (cumulative, the discipline's own; ``drops`` in
  ``queue_series`` counts them too, with the full buffer's), marks (ECN CE
  marks, cumulative), delay (s: the queue delay PIE acts on, the sojourn
  time of the last packet CoDel dequeued; NaN for RED and step), drop_prob
  (PIE's drop probability; NaN for the others), dropping (CoDel state
  machines in their dropping state) and flow_queues (FQ-CoDel's flow queues
  holding packets). Rows only for monitored links with a discipline other
  than DropTail.
- ``flows``: one row per flow with its totals (sent, retransmitted,
  fast_retransmits, timeouts, ece_reductions and ce_received with ECN,
  delivered_bytes, first_loss, base_rtt, ...).
- ``links``: one row per link (rate_bps, delay, buffer, arrivals, drops,
  random_drops, departures, bytes_departed, max_qlen, monitored).
- ``transfers``: one row per finite transfer (generated web transfers and
  flows with ``size_pkts``): class, flow (-1 for a generated transfer),
  size_pkts, size_bytes (the size drawn), start (s), end (s, NaN if
  unfinished), rtt (round-trip propagation delay, s).
- ``class_series``: time (s), class, delivered (payload bytes delivered in
  order so far; UDP: wire bytes received), offered (wire bytes offered so
  far), sent (wire bytes of data packets sent so far), active (TCP flows
  started and not completed).
- ``classes``: one row per traffic class (the scenario's flow entries, then
  each direction of each generator): name, kind (flows, bulk, web, udp),
  direction, target_bps (NaN if none), offered_bytes, sent, sent_bytes,
  received, dropped, in_transit, delivered_bytes, started, completed.

The series carry each flow's and link's name beside its id (``flow_name``,
``link_name``: categorical, from the ``flows`` and ``links`` tables). They
are views of those tables, added when a result is built or loaded and never
stored (:data:`NAME_COLUMNS`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from tcpeval import _core
from tcpeval.scenario import Scenario

if TYPE_CHECKING:
    from tcpeval._core import RunTables


NAME_COLUMNS: dict[str, tuple[str, str, str]] = {
    "flow_series": ("flow", "flows", "flow_name"),
    "queue_series": ("link", "links", "link_name"),
    "aqm_series": ("link", "links", "link_name"),
}
"""Series table -> (id column, table naming the ids, name column added beside the id)."""


def _with_names(series: pd.DataFrame, id_col: str, names: pd.Series, name_col: str) -> pd.DataFrame:
    """``series`` with a categorical ``name_col`` giving ``names[id]`` for each row's ``id_col``."""
    if name_col in series.columns or id_col not in series.columns or len(names) == 0:
        return series
    categories, codes = np.unique(names.astype(str).to_numpy(), return_inverse=True)
    ids = series[id_col].to_numpy()
    column = pd.Categorical.from_codes(codes[ids], categories=pd.Index(categories))
    out = series.copy(deep=False)
    # pandas-stubs 3.1 leave extension arrays (a Categorical) out of insert's value types.
    out.insert(list(series.columns).index(id_col) + 1, name_col, column)  # type: ignore[arg-type]
    return out


ID_COLUMNS: dict[str, str] = {"flows": "flow", "links": "link", "classes": "class"}
"""Summary table -> the id column put first (the row's index; series refer to it)."""


def columns() -> list[dict[str, Any]]:
    """Every result table with its columns (name, type, meaning and unit), as
    stored and as :class:`RunResult` holds them: the engine's declared
    columns, each summary table's id column, and the series' name columns."""
    tables: list[dict[str, Any]] = json.loads(_core.columns())
    for t in tables:
        if (ident := ID_COLUMNS.get(t["key"])) is not None:
            doc = f"Id of the {ident} (its row number; the series' `{ident}` column refers to it)."
            t["columns"].insert(0, {"name": ident, "type": "int", "doc": doc})
        if (named := NAME_COLUMNS.get(t["key"])) is not None:
            id_col, source, name_col = named
            at = 1 + next(i for i, c in enumerate(t["columns"]) if c["name"] == id_col)
            doc = f"Name of the {id_col} (from the `{source}` table; not stored, added on load)."
            t["columns"].insert(at, {"name": name_col, "type": "category", "doc": doc})
    return tables


def _series_frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    """A series table (column name -> numpy array, handed over by the engine
    and held by nothing else) as a DataFrame on the same arrays: no copy, so a
    run's probes are in memory once (pandas copies a dict of arrays by
    default, which doubled the peak of a run with dense probes)."""
    return pd.DataFrame(columns, copy=False)


_DTYPES = {"int": "int64", "float": "float64", "bool": "bool"}
"""Column type of the engine's declarations -> pandas dtype (others: object)."""


def _with_id(rows: Sequence[Mapping[str, Any]], key: str) -> pd.DataFrame:
    """Summary rows of table ``key`` as a table with its id column (the row
    number) first; with no rows (a run whose flows are all generated
    traffic has none in ``flows``), the declared columns, empty."""
    ident = ID_COLUMNS[key]
    if rows:
        table = pd.DataFrame.from_records(rows)
    else:
        declared = next(t["columns"] for t in json.loads(_core.columns()) if t["key"] == key)
        table = pd.DataFrame({c["name"]: pd.Series(dtype=_DTYPES.get(c["type"], "object")) for c in declared})
    table.insert(0, ident, np.arange(len(table), dtype=np.int64))
    return table


@dataclass
class RunResult:
    """Everything one run produced."""

    scenario: Scenario
    flow_series: pd.DataFrame
    queue_series: pd.DataFrame
    flows: pd.DataFrame
    links: pd.DataFrame
    sim_time_s: float
    events: int
    wall_time_s: float
    transfers: pd.DataFrame = field(default_factory=pd.DataFrame)
    class_series: pd.DataFrame = field(default_factory=pd.DataFrame)
    classes: pd.DataFrame = field(default_factory=pd.DataFrame)
    aqm_series: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: Facts of a run on another backend than the simulator (``tcpeval.testbed``:
    #: host, kernel, delay-line lateness); empty for a simulated run.
    backend: dict[str, Any] = field(default_factory=dict)
    #: Random numbers the simulator drew (loss, jitter, traffic, AQM, a
    #: seeded algorithm): 0 means the same results for every seed. None when
    #: not known (a testbed run, or one stored before tcpeval 0.14).
    random_draws: int | None = None

    def __post_init__(self) -> None:
        for table, (id_col, source, name_col) in NAME_COLUMNS.items():
            named = getattr(self, source)
            if "name" in named.columns:
                setattr(self, table, _with_names(getattr(self, table), id_col, named["name"], name_col))

    def stored_table(self, name: str) -> pd.DataFrame:
        """Table ``name`` as stored: without the name columns derived from other tables."""
        frame: pd.DataFrame = getattr(self, name)
        derived = NAME_COLUMNS.get(name)
        return frame.drop(columns=[derived[2]]) if derived and derived[2] in frame.columns else frame

    @classmethod
    def from_raw(cls, scenario: Scenario, raw: RunTables, wall_time_s: float) -> RunResult:
        flows, links, classes = (_with_id(raw[key], key) for key in ("flows", "links", "classes"))
        classes["target_bps"] = classes["target_bps"].astype(float)
        return cls(
            scenario=scenario,
            flow_series=_series_frame(raw["flow_series"]),
            queue_series=_series_frame(raw["queue_series"]),
            flows=flows,
            links=links,
            sim_time_s=float(raw["sim_time_s"]),
            events=int(raw["events"]),
            wall_time_s=wall_time_s,
            transfers=_series_frame(raw["transfers"]),
            class_series=_series_frame(raw["class_series"]),
            classes=classes,
            aqm_series=_series_frame(raw["aqm_series"]),
            random_draws=int(raw["random_draws"]),
        )

    @property
    def duration(self) -> float:
        """Simulated time covered, s."""
        return self.sim_time_s

    @property
    def packets_delivered(self) -> int:
        """Data packets that reached a receiver (all flows, generated traffic included)."""
        if len(self.classes):
            return int(self.classes["received"].sum())
        return int(self.flows["data_received"].sum())

    def link_id(self, name: str) -> int:
        """Index of the link called ``name`` (e.g. ``"R1->R2"``)."""
        hits = self.links.index[self.links["name"] == name]
        if len(hits) == 0:
            raise KeyError(f"no link named {name!r}; links: {', '.join(self.links['name'])}")
        return int(hits[0])

    def summary(self) -> pd.DataFrame:
        """Per-flow goodput (Mbit/s over the flow's active time), loss and recovery counts."""
        f = self.flows
        end = f["completed"].astype(float).fillna(self.sim_time_s)
        active = (end - f["start"]).clip(lower=1e-12)
        sent = f["sent"].replace(0, np.nan)
        return pd.DataFrame(
            {
                "flow": f["name"],
                "algorithm": f["algorithm"],
                "goodput_mbps": f["delivered_bytes"] * 8 / active / 1e6,
                "sent": f["sent"],
                "retransmitted": f["retransmitted"],
                "retx_prob": (f["retransmitted"] / sent).fillna(0.0),
                "fast_retx": f["fast_retransmits"],
                "timeouts": f["timeouts"],
                "undos": f["undos"],
                "dropped": f["data_dropped"],
            }
        )

    def class_summary(self) -> pd.DataFrame:
        """Per traffic class: target, offered and carried load over the run (Mbit/s),
        transfers started and completed, and the data-packet drop fraction.

        Offered counts wire bits of the data the applications offered; carried
        counts payload bits delivered in order (UDP: wire bits received).
        """
        c = self.classes
        t = max(self.sim_time_s, 1e-12)
        sent = c["sent"].replace(0, np.nan)
        return pd.DataFrame(
            {
                "class": c["name"],
                "kind": c["kind"],
                "direction": c["direction"],
                "target_mbps": c["target_bps"] / 1e6,
                "offered_mbps": c["offered_bytes"] * 8 / t / 1e6,
                "carried_mbps": c["delivered_bytes"] * 8 / t / 1e6,
                "started": c["started"],
                "completed": c["completed"],
                "drop_prob": (c["dropped"] / sent).fillna(0.0),
            }
        )

    def link_summary(self) -> pd.DataFrame:
        """Per monitored link: utilization over the run, drops, drop probability, max queue."""
        m = self.links[self.links["monitored"]]
        arrivals = m["arrivals"].replace(0, np.nan)
        return pd.DataFrame(
            {
                "link": m["name"],
                "utilization": m["bytes_departed"] * 8 / (m["rate_bps"] * self.sim_time_s),
                "drops": m["drops"],
                "drop_prob": (m["drops"] / arrivals).fillna(0.0),
                "max_qlen": m["max_qlen"],
                "buffer": m["buffer"],
            }
        )
