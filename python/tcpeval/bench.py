"""The engine benchmark: fixed scenarios, reporting simulated data packets
delivered per wall-clock second and events per second (``tcpeval bench``)."""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass
from typing import Any

from tcpeval import _core
from tcpeval.scenario import load_scenario


@dataclass(frozen=True)
class BenchCase:
    """A named benchmark scenario."""

    name: str
    scenario: dict[str, Any]


def dumbbell_case(name: str, rate_mbps: float, rtt_ms: float, flows: int, duration_s: float) -> BenchCase:
    """``flows`` Reno flows on a dumbbell with buffer = BDP, starting 0.1 s apart."""
    return BenchCase(
        name,
        {
            "name": name,
            "duration_s": duration_s,
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate_mbps": rate_mbps, "delay_ms": 5, "buffer": {"bdp": 1.0}},
            },
            "flows": [{"algorithm": "reno", "rtt_ms": rtt_ms, "start_s": 0.1 * i} for i in range(flows)],
        },
    )


def short_flows_case(name: str, duration_s: float) -> BenchCase:
    """About 1000 short transfers open at once: 1000 transfers/s of 20 packets
    (240 Mbit/s offered on a 1 Gbit/s dumbbell), RTTs uniform in 0.25-0.75 s (each open about 2 RTTs)."""
    return BenchCase(
        name,
        {
            "name": name,
            "duration_s": duration_s,
            "topology": {
                "kind": "dumbbell",
                "bottleneck": {"rate_mbps": 1000, "delay_ms": 5, "buffer": {"packets": 5000}},
            },
            "flows": [],
            "traffic": {
                "web": [
                    {
                        "load_mbps": 240,
                        "sizes": {"kind": "empirical", "pkts": [20], "probs": [1.0]},
                        "rtt": {"kind": "uniform", "min_ms": 250, "max_ms": 750},
                    }
                ]
            },
        },
    )


CASES = [
    dumbbell_case("reno-2flows-500M-60ms-60s", 500, 60, 2, 60),
    dumbbell_case("reno-10flows-1G-100ms-30s", 1000, 100, 10, 30),
    short_flows_case("web-1000-concurrent-1G-30s", 30),
]


@dataclass(frozen=True)
class BenchResult:
    """Speed of one case."""

    name: str
    wall_s: float
    packets: int
    events: int

    @property
    def packets_per_s(self) -> float:
        return self.packets / self.wall_s

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s


def run_case(case: BenchCase, scale: float = 1.0) -> BenchResult:
    """Runs one case (duration multiplied by ``scale``) without probes."""
    data = dict(case.scenario, duration_s=case.scenario["duration_s"] * scale)
    data["probes"] = {"flow_period_ms": 0, "queue_period_ms": 0, "class_period_ms": 0}
    sc = load_scenario(data)
    sim = _core.Simulation(sc.data)
    t0 = time.perf_counter()
    sim.advance(sim.end)
    wall = time.perf_counter() - t0
    events = sim.events
    raw = sim.finish()
    packets = sum(c["received"] for c in raw["classes"])
    return BenchResult(case.name, wall, packets, events)


def machine() -> str:
    """A one-line description of this machine."""
    return f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {platform.system()}"
