"""Which scenarios the testbed runs, and how they map onto it.

Supported: a dumbbell with bulk TCP flows (any number, ``count``), per-flow
``rtt_ms`` (or the access delays), ``start_s``/``stop_s``, forward and
reverse direction, the bottleneck's rate, buffer (packets, bytes or BDP)
and random loss (``loss``, ``reverse_loss``), and the probe periods.
Anything else is refused by :func:`check_supported` with the field named.

Values the simulator derives (each flow's round-trip propagation delay,
a BDP buffer in packets) are taken from the simulator's own resolution of
the scenario, so they are declared once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcpeval import _core
from tcpeval.errors import ScenarioError
from tcpeval.scenario import Scenario
from tcpeval.testbed.dumbbell import LEAF_HANDLE, LEFT_ADDR, MIN_TCP_MEM, Bottleneck, Dumbbell

#: First receiver port; flow i listens on BASE_PORT + i.
BASE_PORT = 5001
#: Frame bytes the bottleneck counts per packet of the scenario's packet_size:
#: the 14-byte Ethernet header htb and the fifo see on a veth.
ETH_HEADER = 14


def _refuse(field: str, what: str) -> ScenarioError:
    return ScenarioError(field, f"the linux backend does not support {what}")


def check_supported(data: dict[str, Any]) -> None:
    """Raises :class:`ScenarioError` naming the first field the testbed cannot run."""
    topo = data["topology"]
    if topo["kind"] != "dumbbell":
        raise _refuse("topology.kind", f"a {topo['kind']} topology (only a dumbbell)")
    b = topo["bottleneck"]
    for key in ("rate_schedule", "delay_schedule"):
        if b.get(key):
            raise _refuse(f"topology.bottleneck.{key}", "rate or delay changes during a run")
    if data.get("traffic"):
        raise _refuse("traffic", "generated traffic (web, bulk groups, UDP); use [[flows]]")
    if data.get("platform") not in (None, "linux"):
        raise _refuse("platform", f"platform {data['platform']!r}: the host kernel is the platform")
    if any(v is not None for v in data["tcp"].values()):
        key = next(k for k, v in data["tcp"].items() if v is not None)
        raise _refuse(f"tcp.{key}", "simulator TCP options (the kernel's sysctls apply)")
    if data["probes"].get("queue_links") is not None:
        raise _refuse("probes.queue_links", "choosing queue links (both bottleneck directions are recorded)")
    for k, f in enumerate(data["flows"]):
        if f["size_pkts"] is not None:
            raise _refuse(f"flows[{k}].size_pkts", "finite transfers (bulk flows only)")
        if f["start_jitter_s"] is not None:
            raise _refuse(f"flows[{k}].start_jitter_s", "random start times")
        if f["params"]:
            raise _refuse(f"flows[{k}].params", "algorithm parameters (kernel modules use their defaults)")
        if any(v is not None for v in f["tcp"].values()):
            key = next(k2 for k2, v in f["tcp"].items() if v is not None)
            raise _refuse(f"flows[{k}].tcp.{key}", "simulator TCP options (the kernel's sysctls apply)")


@dataclass(frozen=True)
class FlowPlan:
    """One kernel flow."""

    index: int
    name: str
    spec: int
    algorithm: str
    reverse: bool
    rtt_s: float
    start_s: float
    stop_s: float | None


@dataclass(frozen=True)
class Plan:
    """A scenario mapped onto the testbed."""

    flows: list[FlowPlan]
    bottleneck: Bottleneck
    reverse_bottleneck: Bottleneck
    loss: float
    reverse_loss: float
    flow_period_s: float
    queue_period_s: float
    duration_s: float
    seed: int
    #: The simulator's resolved tables (flows, links) of this scenario, as templates.
    sim_tables: dict[str, Any]

    @property
    def algorithms(self) -> dict[str, str]:
        """Scenario field -> algorithm, for the availability check."""
        return {f"flows[{f.spec}].algorithm": f.algorithm for f in self.flows}

    def tcp_mem_bytes(self) -> int:
        """Socket buffer maximum: four times the largest BDP plus the buffer."""
        buf = max(
            b.buffer_bytes if b.buffer_bytes is not None else (b.buffer_pkts or 0) * (1500 + ETH_HEADER)
            for b in (self.bottleneck, self.reverse_bottleneck)
        )
        rate = max(self.bottleneck.rate_bps, self.reverse_bottleneck.rate_bps)
        bdp = rate / 8 * max(f.rtt_s for f in self.flows)
        return max(MIN_TCP_MEM, int(4 * (bdp + buf)))

    def run_config(self, d: Dumbbell) -> dict[str, Any]:
        """The JSON config of ``tcpeval._core.TestbedRun`` on dumbbell ``d``."""
        flows = []
        for f in self.flows:
            host = d.host_addr(f.index)
            left, right = d.ns("left"), d.ns("right")
            flows.append(
                {
                    "sender_netns": right if f.reverse else left,
                    "receiver_netns": left if f.reverse else right,
                    "sender_addr": host if f.reverse else None,
                    "receiver_addr": LEFT_ADDR if f.reverse else host,
                    "port": BASE_PORT + f.index,
                    "algorithm": f.algorithm,
                    "start_s": f.start_s,
                    "stop_s": f.stop_s,
                }
            )
        return {
            "duration_s": self.duration_s,
            "flow_period_s": self.flow_period_s,
            "queue_period_s": self.queue_period_s,
            # Real-time priority for every thread of the run: on a shared
            # machine the run should measure TCP, not the other processes.
            "realtime": True,
            "wire": {
                "netns": d.ns("wire"),
                "router_side": "wr",
                "host_side": "wh",
                "seed": self.seed,
                "classes": [
                    {
                        "addr": d.host_addr(f.index),
                        "delay_s": f.rtt_s / 2,
                        "loss_to_hosts": self.loss,
                        "loss_to_router": self.reverse_loss,
                    }
                    for f in self.flows
                ],
            },
            "flows": flows,
            "queues": [
                {"netns": d.ns("router"), "ifname": dev, "handle": LEAF_HANDLE, "link": link}
                for link, dev in enumerate(("right0", "left0"))
            ],
        }


def _bottleneck(link: Mapping[str, Any]) -> Bottleneck:
    """One direction of the simulator's resolved bottleneck (buffer in packets or bytes)."""
    by_bytes = link["buffer_bytes"] is not None
    return Bottleneck(
        rate_bps=float(link["rate_bps"]),
        buffer_pkts=None if by_bytes else int(link["buffer"]),
        buffer_bytes=int(link["buffer_bytes"]) if by_bytes else None,
    )


def plan(sc: Scenario) -> Plan:
    """Maps ``sc`` onto the testbed; :class:`ScenarioError` names what it cannot run."""
    data = sc.data
    check_supported(data)
    raw = _core.Simulation(sc.data).finish()  # the simulator's resolution, nothing simulated
    sim_flows, links = raw["flows"], raw["links"]
    assert [x["name"] for x in links[:2]] == ["R1->R2", "R2->R1"], "the simulator lists the bottleneck first"
    specs = data["flows"]
    flows = [
        FlowPlan(
            index=i,
            name=f["name"],
            spec=int(f["spec"]),
            algorithm=f["algorithm"],
            reverse=specs[int(f["spec"])]["direction"] == "reverse",
            rtt_s=float(f["base_rtt"]),
            start_s=float(f["start"]),
            stop_s=None if f["stop"] is None else float(f["stop"]),
        )
        for i, f in enumerate(sim_flows)
    ]
    if not flows:
        raise ScenarioError("flows", "the linux backend needs at least one flow")
    b = data["topology"]["bottleneck"]
    return Plan(
        flows=flows,
        bottleneck=_bottleneck(links[0]),
        reverse_bottleneck=_bottleneck(links[1]),
        loss=float(b["loss"]),
        reverse_loss=float(b["reverse_loss"]),
        flow_period_s=float(data["probes"]["flow_period_ms"]) / 1e3,
        queue_period_s=float(data["probes"]["queue_period_ms"]) / 1e3,
        duration_s=sc.duration_s,
        seed=sc.seed,
        sim_tables={"flows": sim_flows, "links": links[:2]},
    )
