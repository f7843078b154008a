"""The engine benchmark (``tcpeval bench``): fixed scenarios, reporting
simulated data packets delivered per wall-clock second, events per second,
events per delivered packet and the peak memory of the run.

Each case runs in a fresh interpreter (``python -m tcpeval.bench CASE
SCALE``), so its peak resident memory is its own and one case's heap does not
slow the next. The cases are those of issue 19: a 2-flow dumbbell with
delayed ACK and SACK, the same with an ACK per packet and no SACK (the shape
of htsim's NewReno), the same with 10 ms probes, CUBIC at 1 Gbit/s x
100 ms with 2, 1000 and 10 000 flows (1000 also with 10 ms probes), and the
mix of the background study's runs with background traffic, the costliest
part of the five full studies.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from tcpeval import _core
from tcpeval.scenario import load_scenario

#: Probe settings of a case run "without probes" and "with 10 ms probes"
#: (issue 19's case: flow and queue series every 10 ms; the class series at
#: its default, which is off when every class is a flow entry).
NO_PROBES: dict[str, float] = {"flow_period_ms": 0, "queue_period_ms": 0, "class_period_ms": 0}
PROBES_10MS: dict[str, float] = {"flow_period_ms": 10, "queue_period_ms": 10}


@dataclass(frozen=True)
class BenchCase:
    """A named benchmark scenario (``probes`` is set over the scenario's)."""

    name: str
    scenario: dict[str, Any]
    probes: dict[str, float]


def dumbbell_case(
    name: str,
    rate_mbps: float,
    rtt_ms: float,
    flows: int,
    duration_s: float,
    algorithm: str = "reno",
    tcp: dict[str, Any] | None = None,
    probes: dict[str, float] = NO_PROBES,
    stagger_s: float = 0.1,
) -> BenchCase:
    """``flows`` flows of ``algorithm`` on a dumbbell with buffer = BDP,
    started ``stagger_s`` apart (at most 1 s in all, so thousands of flows
    are all running early in the run)."""
    step = min(stagger_s, 1.0 / flows)
    scenario: dict[str, Any] = {
        "name": name,
        "duration_s": duration_s,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate_mbps": rate_mbps, "delay_ms": 5, "buffer": {"bdp": 1.0}},
        },
        "flows": [{"algorithm": algorithm, "rtt_ms": rtt_ms, "start_s": step * i} for i in range(flows)],
    }
    if tcp:
        scenario["tcp"] = tcp
    return BenchCase(name, scenario, probes)


def short_flows_case(name: str, duration_s: float) -> BenchCase:
    """About 1000 short transfers open at once: 1000 transfers/s of 20 packets
    (240 Mbit/s offered on a 1 Gbit/s dumbbell), RTTs uniform in 0.25-0.75 s (each open about 2 RTTs)."""
    scenario = {
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
    }
    return BenchCase(name, scenario, NO_PROBES)


def background_mix_case(name: str, duration_s: float) -> BenchCase:
    """The shape of the background study's runs with background traffic
    (Ha et al., section 4.1; the study's ``utilization-bg``), which take most
    of its full mode's time: two CUBIC flows at 82 ms on a 400 Mbit/s
    dumbbell with a 2 MB buffer (the second from 1 s, so that the case
    also runs at a tenth of its duration), 50 long-lived Reno flows each way and
    80 Mbit/s of web transfers each way, both with Internet-like RTTs, on
    the 2.6.13 sender preset."""
    internet = {"kind": "internet"}
    scenario = {
        "name": name,
        "duration_s": duration_s,
        "platform": "linux-2.6.13",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate_mbps": 400, "delay_ms": 8, "buffer": {"bytes": 2097152}},
            "access": {"rate_mbps": 1000},
        },
        "flows": [
            {"algorithm": "cubic", "rtt_ms": 82, "start_s": 0},
            {"algorithm": "cubic", "rtt_ms": 82, "start_s": 1},
        ],
        "traffic": {
            "web": [
                {
                    "load_mbps": 80,
                    "direction": "both",
                    "rtt": internet,
                    "sizes": {
                        "kind": "lognormal_pareto",
                        "mu": 9.357,
                        "sigma": 1.318,
                        "cutoff_bytes": 133000,
                    },
                }
            ],
            "bulk": [{"count": 50, "direction": "both", "rtt": internet, "start_window_s": 5.0}],
        },
    }
    return BenchCase(name, scenario, NO_PROBES)


CASES = [
    dumbbell_case("reno-2flows-500M-60ms-60s", 500, 60, 2, 60),
    dumbbell_case(
        "reno-2flows-ackeach-nosack-60s", 500, 60, 2, 60, tcp={"delayed_ack": False, "sack": False}
    ),
    dumbbell_case("reno-2flows-probes10ms-60s", 500, 60, 2, 60, probes=PROBES_10MS),
    dumbbell_case("reno-10flows-1G-100ms-30s", 1000, 100, 10, 30),
    short_flows_case("web-1000-concurrent-1G-30s", 30),
    dumbbell_case("cubic-2flows-1G-100ms-30s", 1000, 100, 2, 30, algorithm="cubic"),
    dumbbell_case("cubic-1000flows-1G-100ms-30s", 1000, 100, 1000, 30, algorithm="cubic"),
    dumbbell_case(
        "cubic-1000flows-probes10ms-30s", 1000, 100, 1000, 30, algorithm="cubic", probes=PROBES_10MS
    ),
    dumbbell_case("cubic-10000flows-1G-100ms-10s", 1000, 100, 10_000, 10, algorithm="cubic"),
    background_mix_case("background-mix-400M-60s", 60),
]


@dataclass(frozen=True)
class BenchResult:
    """Speed and memory of one case."""

    name: str
    wall_s: float
    packets: int
    events: int
    #: Peak resident memory of the process that ran the case, MiB.
    peak_rss_mib: float

    @property
    def packets_per_s(self) -> float:
        return self.packets / self.wall_s

    @property
    def events_per_s(self) -> float:
        return self.events / self.wall_s

    @property
    def events_per_packet(self) -> float:
        return self.events / max(self.packets, 1)


def case_named(name: str) -> BenchCase:
    """The case called ``name``; a ``ValueError`` lists the cases otherwise."""
    for case in CASES:
        if case.name == name:
            return case
    raise ValueError(f"bench case: unknown {name!r}; cases: {', '.join(c.name for c in CASES)}")


def run_here(case: BenchCase, scale: float = 1.0) -> BenchResult:
    """Runs one case (duration multiplied by ``scale``) in this process; the
    peak memory is this process's so far."""
    data = dict(case.scenario, duration_s=case.scenario["duration_s"] * scale, probes=case.probes)
    sc = load_scenario(data)
    sim = _core.Simulation(sc.data)
    t0 = time.perf_counter()
    sim.advance(sim.end)
    wall = time.perf_counter() - t0
    events = sim.events
    raw = sim.finish()
    packets = sum(c["received"] for c in raw["classes"])
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return BenchResult(case.name, wall, packets, events, peak_kib / 1024.0)


def run_case(case: BenchCase, scale: float = 1.0) -> BenchResult:
    """Runs one case in a fresh interpreter and returns its result."""
    out = subprocess.run(
        [sys.executable, "-m", "tcpeval.bench", case.name, repr(scale)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"bench case {case.name} failed: {out.stderr.strip()}")
    return BenchResult(**json.loads(out.stdout.splitlines()[-1]))


def machine() -> str:
    """A one-line description of this machine and of the engine's build
    (``plain``, ``profile-guided``: ``scripts/build_pgo.sh``)."""
    cpu = platform.processor() or platform.machine()
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()}, {_core.engine_build()} build"


if __name__ == "__main__":  # one case in this interpreter: `python -m tcpeval.bench CASE SCALE`
    result = run_here(case_named(sys.argv[1]), float(sys.argv[2]))
    print(json.dumps(asdict(result)))
