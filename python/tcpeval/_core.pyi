"""Type stubs of the compiled engine module."""

from collections.abc import Mapping
from typing import Any, TypedDict

import numpy as np
from numpy.typing import NDArray

__version__: str

class ScenarioError(ValueError):
    """args = (text, field, message)."""

def validate(data: Mapping[str, Any], time_scale: float | None = None) -> str: ...
def toml_line(text: str, path: str) -> int | None: ...
def engine_build() -> str: ...
def algorithms() -> str: ...
def platforms() -> str: ...
def tcp_options() -> str: ...
def queues() -> str: ...
def columns() -> str: ...

class Simulation:
    def __init__(self, data: Mapping[str, Any]) -> None: ...
    def advance(self, until_s: float) -> None: ...
    def plan_snapshots(self, times_s: list[float]) -> None: ...
    @property
    def can_report_now(self) -> bool: ...
    @property
    def now(self) -> float: ...
    @property
    def end(self) -> float: ...
    @property
    def events(self) -> int: ...
    @property
    def random_draws(self) -> int: ...
    def snapshot(self) -> RunTables | None: ...
    def finish(self) -> RunTables: ...

class TestbedRun:
    """A real-time run on the host kernel (Linux only; see tcpeval.testbed)."""

    def __init__(self, config_json: str) -> None: ...
    def wait(self, timeout_s: float) -> bool: ...
    def stop(self) -> None: ...
    def finish(self) -> str: ...

def testbed_set_offloads(netns_name: str, ifnames: list[str], gro: bool = False) -> str: ...

class RunTables(TypedDict):
    """What ``Simulation.finish`` returns: the series tables as numpy columns,
    and one dict per class, flow and link with its totals."""

    sim_time_s: float
    events: int
    random_draws: int
    flow_series: FlowSeries
    queue_series: QueueSeries
    class_series: ClassSeries
    transfers: Transfers
    aqm_series: AqmSeries
    classes: list[ClassRow]
    flows: list[FlowRow]
    links: list[LinkRow]

# BEGIN generated from crates/tcpeval-sim/src/probe.rs

class FlowSeries(TypedDict):
    """Per-flow time series, one row per (sample time, traced active flow)."""

    time: NDArray[np.float64]
    """Sample time, s."""
    flow: NDArray[np.uint32]
    """Flow index."""
    cwnd: NDArray[np.float64]
    """Congestion window, packets."""
    ssthresh: NDArray[np.float64]
    """Slow-start threshold, packets (infinity while unlimited)."""
    srtt: NDArray[np.float64]
    """Smoothed RTT, s (NaN before the first sample)."""
    delivered: NDArray[np.uint64]
    """Bytes delivered in order to the receiving application so far."""
    sent: NDArray[np.uint64]
    """Data packets sent so far (retransmissions included)."""
    retransmitted: NDArray[np.uint64]
    """Data packets retransmitted so far."""
    timeouts: NDArray[np.uint64]
    """Retransmission timeouts so far."""

class QueueSeries(TypedDict):
    """Per-link queue series, one row per (sample time, monitored link)."""

    time: NDArray[np.float64]
    """Sample time, s."""
    link: NDArray[np.uint32]
    """Link index."""
    qlen: NDArray[np.uint32]
    """Packets waiting (not counting the one in service)."""
    qbytes: NDArray[np.uint64]
    """Bytes waiting."""
    departed_bytes: NDArray[np.uint64]
    """Bytes serialized onto the link so far."""
    drops: NDArray[np.uint64]
    """Packets dropped by the queue so far (full buffer, or the discipline)."""

class AqmSeries(TypedDict):
    """Per-link queue-discipline series, one row per (sample time, monitored link with an active discipline, see `net::queue`); empty when every monitored link is DropTail. Sampled with `queue_series`."""

    time: NDArray[np.float64]
    """Sample time, s."""
    link: NDArray[np.uint32]
    """Link index."""
    avg_queue: NDArray[np.float64]
    """Average queue the discipline acts on (RED: its EWMA as of the last arrival, packets, or bytes in byte mode; step: the packets the last arrival found waiting)."""
    early_drops: NDArray[np.uint64]
    """Early (random) drops by the discipline so far (RED: between min_th and max_th)."""
    forced_drops: NDArray[np.uint64]
    """Forced drops by the discipline so far (RED: average at or above max_th; step: Not-ECT packets at the threshold); the full buffer's drops are not counted here."""
    marks: NDArray[np.uint64]
    """ECN CE marks by the discipline so far (early and forced)."""
    delay: NDArray[np.float64]
    """Queue delay the discipline acts on, s (PIE: its estimate, the sojourn time of the last packet to leave the queue, 0 if that left it empty; CoDel, FQ-CoDel: the sojourn time of the last packet dequeued, dropped or not); NaN for RED."""
    drop_prob: NDArray[np.float64]
    """Drop probability (PIE, as of its last update); NaN for the others."""
    dropping: NDArray[np.uint32]
    """CoDel state machines in their dropping state (CoDel: 0 or 1; FQ-CoDel: how many flow queues' CoDel); 0 for RED and PIE."""
    flow_queues: NDArray[np.uint32]
    """Flow queues holding packets (FQ-CoDel); 0 for the others."""

# Per-class series, one row per (sample time, class): the aggregate of every flow of the class, so short transfers that come and go add up.
ClassSeries = TypedDict(
    "ClassSeries",
    {
        # Sample time, s.
        "time": NDArray[np.float64],
        # Class index.
        "class": NDArray[np.uint32],
        # Payload bytes delivered in order to the class's receivers so far (UDP: wire bytes received).
        "delivered": NDArray[np.uint64],
        # Wire bytes of data the class's applications offered so far (finite transfers: their whole size when they start; UDP: packets sent; unlimited bulk flows: 0).
        "offered": NDArray[np.uint64],
        # Wire bytes of data packets sent so far, retransmissions included.
        "sent": NDArray[np.uint64],
        # TCP flows started and not yet completed.
        "active": NDArray[np.uint32],
    },
)

# One row per finite transfer (a generated web transfer, or a scenario flow with `size_pkts`), in start order.
Transfers = TypedDict(
    "Transfers",
    {
        # Class index.
        "class": NDArray[np.uint32],
        # Index in the `flows` table, -1 for a generated transfer.
        "flow": NDArray[np.int64],
        # Size, packets.
        "size_pkts": NDArray[np.uint64],
        # Size drawn, bytes (an empirical table in packets gives `size_pkts * mss`).
        "size_bytes": NDArray[np.float64],
        # Start, s.
        "start": NDArray[np.float64],
        # Time the last byte was acknowledged, s; NaN if unfinished.
        "end": NDArray[np.float64],
        # Round-trip propagation delay of the transfer's path, s.
        "rtt": NDArray[np.float64],
    },
)

class ClassRow(TypedDict):
    """One traffic class and its totals."""

    name: str
    """Display name."""
    kind: str
    """Kind."""
    direction: str
    """`forward` or `reverse` (on a parking lot or graph: relative to the generator's `from -> to` or `path`)."""
    target_bps: float | None
    """Target offered load, bit/s (wire bits of data packets), if any."""
    offered_bytes: int
    """Wire bytes of data offered by the applications (see [`ClassSeries::offered`])."""
    sent: int
    """Data packets sent, retransmissions included."""
    sent_bytes: int
    """Wire bytes of the data packets sent."""
    received: int
    """Data packets that reached a receiver (duplicates included)."""
    dropped: int
    """Data packets dropped anywhere."""
    in_transit: int
    """Data packets still on links at the end."""
    delivered_bytes: int
    """Payload bytes delivered in order (UDP: wire bytes received)."""
    started: int
    """TCP flows started."""
    completed: int
    """Finite TCP transfers completed."""

class FlowRow(TypedDict):
    """Totals of one flow over the run."""

    name: str
    """Display name."""
    algorithm: str
    """Congestion-control algorithm."""
    spec: int
    """Index of the scenario flow entry this flow comes from."""
    start: float
    """Actual start time, s."""
    stop: float | None
    """Time the application stopped offering data, s."""
    size_pkts: int | None
    """Transfer size, packets (`None` = bulk)."""
    base_rtt: float
    """Round-trip propagation delay of the flow's path, s."""
    mss: int
    """Payload bytes per full data packet."""
    sent: int
    """Data packets transmitted (retransmissions included)."""
    retransmitted: int
    """Retransmitted data packets."""
    fast_retransmits: int
    """Fast-recovery episodes."""
    timeouts: int
    """Retransmission timeouts."""
    undos: int
    """Reductions undone as spurious (TCP option `undo`)."""
    ece_reductions: int
    """Window reductions for ECN echoes (RFC 3168 CWR episodes); 0 without ECN."""
    ce_received: int
    """Data packets that reached the receiver CE-marked; 0 without ECN."""
    delivered_bytes: int
    """Bytes delivered in order to the receiving application."""
    data_received: int
    """Data packets that reached the receiver (duplicates included)."""
    data_dropped: int
    """Data packets dropped anywhere (buffer or random loss)."""
    acks_dropped: int
    """ACKs dropped anywhere."""
    data_in_transit: int
    """Data packets still on links when the run ended."""
    first_loss: float | None
    """Time of the first drop of one of the flow's data packets, s."""
    completed: float | None
    """Time a finite transfer was fully acknowledged, s."""
    final_cwnd: float
    """cwnd at the end, packets."""

class LinkRow(TypedDict):
    """Totals of one link over the run."""

    name: str
    """`tail->head`."""
    rate_bps: float
    """Rate, bit/s."""
    delay: float
    """One-way delay, s."""
    buffer: int | None
    """Buffer limit in packets, if packet-limited."""
    buffer_bytes: int | None
    """Buffer limit in bytes, if byte-limited."""
    monitored: bool
    """Its queue was recorded."""
    arrivals: int
    """Packets offered to the link."""
    drops: int
    """Packets dropped by the queue: the full buffer, or the link's discipline (whose own state splits its drops by cause)."""
    random_drops: int
    """Packets dropped by the link's random-loss process."""
    departures: int
    """Packets whose serialization has ended."""
    bytes_departed: int
    """Bytes whose serialization has ended."""
    max_qlen: int
    """Largest number of packets ever waiting."""

# END generated
