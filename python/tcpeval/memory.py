"""A run's memory, estimated before the engine builds it, and the budget it
must fit in.

A valid-looking scenario can ask for more memory than the machine has
(a million flows, probes every microsecond for minutes); the engine would
then abort the interpreter when an allocation fails, which Python cannot
catch. :func:`check_budget` refuses such a run first, with an error naming
the fields that cost the most and the estimate.

The estimate is an upper bound of the main costs, from constants measured on
the engine (x86-64, tcpeval 0.6; ``tests/python/test_memory.py`` checks the
estimate stays above what runs use):

* each flow (a ``[[flows]]`` copy or a bulk flow per direction):
  :data:`BYTES_PER_FLOW` (about 4-6 KB measured to build, doubled for the
  run);
* each probe sample (a flow, link or class row): :data:`BYTES_PER_SAMPLE`
  (engine column, numpy array and pandas frame: about 170 B measured);
* each packet a core link's buffer can hold: :data:`BYTES_PER_QUEUED_PACKET`
  (queue entry and the sender's scoreboard: about 150 B measured), for at
  most the packets that can arrive in the run (10 x the link's rate, the
  default access rate, times the duration).

The budget (bytes) is ``TCPEVAL_MEMORY_BUDGET_MB`` when set, otherwise
:data:`BUDGET_FRACTION` of the machine's physical memory, and never more
than half the address space left under an ``RLIMIT_AS`` limit.
"""

from __future__ import annotations

import math
import os
import resource
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcpeval.errors import ScenarioError

BYTES_PER_FLOW = 12_000
BYTES_PER_SAMPLE = 200
BYTES_PER_QUEUED_PACKET = 200
BASE_BYTES = 50_000_000
"""What any run costs besides the above (tables, interpreter-side frames), bytes."""

BUDGET_FRACTION = 0.5
"""Share of physical memory one run may use by default."""

BUDGET_ENV = "TCPEVAL_MEMORY_BUDGET_MB"

DEFAULT_PERIOD_MS = 10.0
DEFAULT_PACKET_SIZE = 1500


@dataclass(frozen=True)
class Estimate:
    """A run's estimated memory, bytes, with the share of each cost (field -> bytes)."""

    total: int
    parts: dict[str, int]

    def describe(self) -> str:
        """The largest parts: ``"flows[0].count: 12.0 GB, probes.flow_period_ms: 1.2 GB"``."""
        top = sorted(self.parts.items(), key=lambda kv: -kv[1])[:3]
        return ", ".join(f"{k}: {_gb(v)}" for k, v in top if v >= 1e6)


def _bytes(x: float) -> int:
    """``x`` bytes as an int, saturating (a product of absurd fields may overflow to inf)."""
    return int(min(max(x, 0.0), 1e30)) if not math.isnan(x) else int(1e30)


def _gb(n: float) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"


def _num(v: Any, default: float) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return default
    return float(v)


def _list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _dict(v: Any) -> Mapping[str, Any]:
    return v if isinstance(v, Mapping) else {}


def _core_links(topology: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any], int]]:
    """(field path, link table, directions) of every core link."""
    kind = topology.get("kind")
    if kind == "dumbbell":
        return [("topology.bottleneck", _dict(topology.get("bottleneck")), 2)]
    links = [_dict(link) for link in _list(topology.get("links"))]
    if kind == "graph":
        return [
            (f"topology.links[{i}]", link, 2 if link.get("duplex", True) else 1)
            for i, link in enumerate(links)
        ]
    return [(f"topology.links[{i}]", link, 2) for i, link in enumerate(links)]


def _max_rtt_ms(data: Mapping[str, Any]) -> float:
    """The largest RTT a flow of the scenario may have, ms (for ``bdp`` buffers), roughly."""
    rtts = [_num(f.get("rtt_ms"), 0.0) for f in _list(data.get("flows")) if isinstance(f, Mapping)]
    topology = _dict(data.get("topology"))
    delays = sum(_num(link.get("delay_ms"), 0.0) for _, link, _ in _core_links(topology))
    return max([*rtts, 2 * delays + 4 * _num(_dict(topology.get("access")).get("delay_ms"), 1.0), 1.0])


def estimate(data: Mapping[str, Any]) -> Estimate:
    """The memory a run of raw scenario ``data`` may take, bytes (see the module doc).

    Reads the raw, unvalidated data: anything malformed counts as its
    default, and the engine reports it afterwards."""
    parts: dict[str, int] = {}
    duration = max(_num(data.get("duration_s"), 0.0), 0.0)
    packet_bits = 8 * max(_num(data.get("packet_size"), DEFAULT_PACKET_SIZE), 1.0)
    flows = 0.0
    traced = 0.0
    for i, f in enumerate(_list(data.get("flows"))):
        f = _dict(f)
        n = max(_num(f.get("count"), 1), 0.0)
        flows += n
        traced += n if f.get("trace", True) is not False else 0
        parts[f"flows[{i}].count"] = _bytes(n * BYTES_PER_FLOW)
    traffic = _dict(data.get("traffic"))
    classes = float(len(_list(data.get("flows"))))
    entry_classes = classes
    for kind in ("web", "bulk", "udp"):
        for i, g in enumerate(_list(traffic.get(kind))):
            g = _dict(g)
            dirs = 2 if g.get("direction") == "both" else 1
            classes += dirs
            if kind == "bulk":
                n = max(_num(g.get("count"), 1), 0.0) * dirs
                flows += n
                traced += n if g.get("trace", True) is not False else 0
                parts[f"traffic.bulk[{i}].count"] = _bytes(n * BYTES_PER_FLOW)
    probes = _dict(data.get("probes"))
    flow_period = _num(probes.get("flow_period_ms"), DEFAULT_PERIOD_MS)
    queue_period = _num(probes.get("queue_period_ms"), DEFAULT_PERIOD_MS)
    # The engine's Probes::class_period: unset, the class series follows the
    # flow period only when there is generated traffic.
    generated = classes > entry_classes
    class_period = _num(probes.get("class_period_ms"), flow_period if generated else 0.0)
    topology = _dict(data.get("topology"))
    links = _core_links(topology)
    queue_links = probes.get("queue_links")
    monitored = float(len(queue_links) if isinstance(queue_links, list) else sum(d for _, _, d in links))
    for name, period, rows in (
        ("probes.flow_period_ms", flow_period, traced),
        ("probes.queue_period_ms", queue_period, monitored),
        ("probes.class_period_ms", class_period, classes),
    ):
        if period > 0:
            parts[name] = _bytes(rows * (duration * 1e3 / period + 1) * BYTES_PER_SAMPLE)
    max_rtt_s = _max_rtt_ms(data) / 1e3
    for at, link, dirs in links:
        rate_bps = max(_num(link.get("rate_mbps"), 0.0), 0.0) * 1e6
        arriving = 10 * rate_bps * duration / packet_bits
        buffer = _dict(link.get("buffer")) or {"bdp": 1.0}
        if "packets" in buffer:
            held = _num(buffer["packets"], 0.0)
        elif "bytes" in buffer:
            held = _num(buffer["bytes"], 0.0) * 8 / packet_bits
        else:
            rtt_s = _num(link.get("bdp_rtt_ms"), 0.0) / 1e3 or max_rtt_s
            held = _num(buffer.get("bdp"), 1.0) * rate_bps * rtt_s / packet_bits
        parts[f"{at}.buffer"] = _bytes(dirs * max(min(held, arriving), 0.0) * BYTES_PER_QUEUED_PACKET)
    return Estimate(BASE_BYTES + sum(parts.values()), parts)


def budget() -> int:
    """The memory one run may use, bytes (see the module doc)."""
    env = os.environ.get(BUDGET_ENV)
    if env:
        try:
            mb = float(env)
        except ValueError:
            mb = -1.0
        if not 0 < mb < 1e12:
            raise ScenarioError("", f"{BUDGET_ENV}={env!r} is not a number of megabytes in 0 < value < 1e12")
        return int(mb * 1e6)
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        physical = 8 * 1024**3
    limit = int(physical * BUDGET_FRACTION)
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limit = min(limit, max(soft - _address_space_used(), 0) // 2)
    return limit


def _address_space_used() -> int:
    """This process's virtual memory size, bytes (0 where /proc is missing)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def check_budget(data: Mapping[str, Any]) -> Estimate:
    """Raises :class:`ScenarioError` when :func:`estimate` exceeds :func:`budget`,
    naming the costliest field; returns the estimate otherwise."""
    est = estimate(data)
    allowed = budget()
    if est.total > allowed:
        worst = max(est.parts, key=lambda k: est.parts[k]) if est.parts else ""
        raise ScenarioError(
            worst,
            f"the run would need about {_gb(est.total)} of memory ({est.describe()}); "
            f"the budget is {_gb(allowed)} (--memory-budget MB or {BUDGET_ENV} change it; or lower these fields)",
        )
    return est
