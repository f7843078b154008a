"""The results of one run as pandas DataFrames, with the summary numbers
the CLI prints.

Tables (units in the column docs of the engine, restated here):

- ``flow_series``: time (s), flow, cwnd (packets), ssthresh (packets, inf
  while unlimited), srtt (s, NaN before the first sample), delivered
  (bytes delivered in order to the application so far), and the cumulative
  counters sent, retransmitted, timeouts (so rates can be taken per phase).
- ``queue_series``: time (s), link, qlen (packets waiting), qbytes,
  departed_bytes (cumulative), drops (cumulative buffer drops).
- ``flows``: one row per flow with its totals (sent, retransmitted,
  fast_retransmits, timeouts, delivered_bytes, first_loss, base_rtt, ...).
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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from tcpeval.scenario import Scenario

if TYPE_CHECKING:
    from tcpeval._core import RunTables


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

    @classmethod
    def from_raw(cls, scenario: Scenario, raw: RunTables, wall_time_s: float) -> RunResult:
        flows = pd.DataFrame.from_records(raw["flows"])
        flows.insert(0, "flow", np.arange(len(flows), dtype=np.int64))
        links = pd.DataFrame.from_records(raw["links"])
        links.insert(0, "link", np.arange(len(links), dtype=np.int64))
        classes = pd.DataFrame.from_records(raw["classes"])
        classes.insert(0, "class", np.arange(len(classes), dtype=np.int64))
        classes["target_bps"] = classes["target_bps"].astype(float)
        return cls(
            scenario=scenario,
            flow_series=pd.DataFrame(raw["flow_series"]),
            queue_series=pd.DataFrame(raw["queue_series"]),
            flows=flows,
            links=links,
            sim_time_s=float(raw["sim_time_s"]),
            events=int(raw["events"]),
            wall_time_s=wall_time_s,
            transfers=pd.DataFrame(raw["transfers"]),
            class_series=pd.DataFrame(raw["class_series"]),
            classes=classes,
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
