"""One scenario on the testbed: plan it, build the dumbbell, run the Rust
threads in real time, and turn what they recorded into a
:class:`~tcpeval.result.RunResult` with the simulator's tables and columns.

Tables as the simulator fills them, with these differences:

- ``flow_series``: from each sender's ``TCP_INFO`` (cwnd and ssthresh in
  segments, srtt, cumulative data segments sent, retransmitted, RTOs) and
  the receiving application's byte count;
- ``queue_series``: the bottleneck fifo's counters (rtnetlink); bytes are
  frames with their Ethernet header;
- ``flows``: the simulator's rows for the scenario with the kernel's
  totals; ``fast_retransmits``, ``undos``, ``data_dropped``, ``acks_dropped``
  and ``data_in_transit`` are not observed (-1), ``first_loss`` is the
  first sample with a retransmission;
- ``links``: the two bottleneck directions only (the veths have no rate);
- ``classes``, ``class_series``, ``transfers``: empty.

The run's ``backend`` record (in summary.json) holds the host facts:
kernel, CPUs, CPU load during the run, sysctls, offloads, MSS, the delay
line's lateness percentiles and drops, the sampler's lag.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm import tqdm

from tcpeval import _core
from tcpeval.errors import ScenarioError
from tcpeval.result import RunResult
from tcpeval.scenario import Scenario, load_scenario
from tcpeval.testbed import host
from tcpeval.testbed.dumbbell import Dumbbell
from tcpeval.testbed.plan import Plan, plan
from tcpeval.testbed.rxpath import NAPI_PRIORITY

#: Wait step while the run proceeds, s (how soon Ctrl-C is acted on).
WAIT_STEP_S = 0.2
#: Columns of the simulator's flows table the kernel does not report.
UNOBSERVED = (
    "fast_retransmits",
    "undos",
    "ece_reductions",
    "ce_received",
    "data_dropped",
    "acks_dropped",
    "data_in_transit",
)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt meanwhile, so it tears the testbed down too."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def refusal(scenario: Mapping[str, Any] | Scenario) -> str | None:
    """Why this host's testbed cannot run ``scenario`` (a feature the testbed
    does not build, naming the field, or an algorithm the kernel lacks), or
    None when it can. Checks the plan only: builds nothing."""
    try:
        host.check_algorithms(plan(load_scenario(scenario)).algorithms)
    except (ScenarioError, host.TestbedError) as e:
        return str(e)
    return None


def run_linux(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    *,
    progress: bool | None = None,
    rx_path: str = "napi-threads",
    napi_priority: int | None = NAPI_PRIORITY,
) -> RunResult:
    """Runs ``scenario`` on this host's kernel in real time (root needed).

    ``rx_path`` and ``napi_priority``: where the delay line's receiving side
    runs (:mod:`~tcpeval.testbed.rxpath`; the default is what the testbed is
    measured with, the others are for measuring against it).

    Raises :class:`~tcpeval.errors.ScenarioError` for a scenario the testbed
    cannot run (naming the field) and :class:`TestbedError` when this host
    cannot run it; in both cases nothing is left behind.
    """
    sc = load_scenario(scenario)
    p = plan(sc)
    host.check_can_run()
    host.check_algorithms(p.algorithms)
    show = sys.stderr.isatty() if progress is None else progress
    facts = host.facts()
    with (
        _sigterm_as_interrupt(),
        Dumbbell(
            hosts=len(p.flows),
            bottleneck=p.bottleneck,
            reverse_bottleneck=p.reverse_bottleneck,
            tcp_mem_bytes=p.tcp_mem_bytes(),
            rx_path=rx_path,
            napi_priority=napi_priority,
        ) as d,
    ):
        busy0, total0 = host.cpu_times()
        started = time.perf_counter()
        run = _core.TestbedRun(json.dumps(p.run_config(d)))
        try:
            with tqdm(
                total=round(p.duration_s, 1), disable=not show, unit="s", desc=sc.name or "linux"
            ) as bar:
                while not run.wait(WAIT_STEP_S):
                    bar.update(round(min(time.perf_counter() - started, p.duration_s), 1) - bar.n)
        except BaseException:
            run.stop()
            run.finish()
            raise
        raw = json.loads(run.finish())
        wall = time.perf_counter() - started
        busy1, total1 = host.cpu_times()
        facts.update(d.facts)
        facts["cpu_busy_fraction"] = (busy1 - busy0) / max(total1 - total0, 1e-9)
    return to_result(sc, p, raw, wall, facts)


#: numpy types of the engine's column types (``tcpeval results columns``).
_DTYPES = {"f64": np.float64, "u32": np.uint32, "u64": np.uint64}
#: What a JSON null (a non-finite float) stands for, by column: an unset
#: ssthresh is infinite; anything else (a missing srtt) is NaN.
_NULL_MEANS = {"ssthresh": np.inf}


def _series(raw: dict[str, Any], key: str) -> pd.DataFrame:
    """The series table ``key`` of the testbed's output, with the
    simulator's columns and types (one declaration: the engine's schema)."""
    (table,) = [t for t in json.loads(_core.columns()) if t["key"] == key]
    data = raw[key]
    out = {}
    for c in table["columns"]:
        values = data[c["name"]]
        if c["type"] == "f64":
            missing = _NULL_MEANS.get(c["name"], np.nan)
            values = [missing if v is None else v for v in values]
        out[c["name"]] = np.asarray(values, dtype=_DTYPES[c["type"]])
    return pd.DataFrame(out)


def to_result(sc: Scenario, p: Plan, raw: dict[str, Any], wall: float, facts: dict[str, Any]) -> RunResult:
    """The run's tables and summary facts (see the module doc)."""
    fseries = _series(raw, "flow_series")
    flows = pd.DataFrame.from_records(p.sim_tables["flows"])
    flows.insert(0, "flow", np.arange(len(flows), dtype=np.int64))
    errors = []
    for i, t in enumerate(raw["flows"]):
        for col in ("sent", "retransmitted", "timeouts", "delivered_bytes", "data_received", "mss"):
            flows.loc[i, col] = t[col]
        flows.loc[i, "final_cwnd"] = t["final_cwnd"]
        mine = fseries[(fseries["flow"] == i) & (fseries["retransmitted"] > 0)]
        flows.loc[i, "first_loss"] = float(mine["time"].iloc[0]) if len(mine) else None
        if t["stopped_s"] is not None and p.flows[i].stop_s is not None:
            flows.loc[i, "stop"] = t["stopped_s"]
        if t["error"]:
            errors.append(f"flow {i} ({p.flows[i].name}): {t['error']}")
    for col in UNOBSERVED:
        flows[col] = -1
    links = pd.DataFrame.from_records(p.sim_tables["links"])
    links.insert(0, "link", np.arange(len(links), dtype=np.int64))
    for q in raw["queues"]:
        k = q["link"]
        links.loc[k, "arrivals"] = q["packets"] + q["drops"]
        links.loc[k, "drops"] = q["drops"]
        links.loc[k, "departures"] = q["packets"]
        links.loc[k, "bytes_departed"] = q["bytes"]
        links.loc[k, "max_qlen"] = q["max_qlen"]
    wire = raw["wire"] or {}
    links["random_drops"] = [
        wire.get("to_hosts", {}).get("random_drops", 0),
        wire.get("to_router", {}).get("random_drops", 0),
    ]
    facts |= {
        "backend": "linux",
        "mss": sorted({int(t["mss"]) for t in raw["flows"]}),
        "flow_min_rtt_s": [t["min_rtt_s"] for t in raw["flows"]],
        "flow_connected_s": [t["connected_s"] for t in raw["flows"]],
        # Where the kernel's sender was held back other than by cwnd (TCP_INFO).
        "flow_busy_s": [t["busy_s"] for t in raw["flows"]],
        "flow_rwnd_limited_s": [t["rwnd_limited_s"] for t in raw["flows"]],
        "flow_sndbuf_limited_s": [t["sndbuf_limited_s"] for t in raw["flows"]],
        "flow_errors": errors,
        "delay_line": wire,
        "sampler_max_lag_s": raw["max_lag_s"],
        "interrupted": raw["interrupted"],
    }
    return RunResult(
        scenario=sc,
        flow_series=fseries,
        queue_series=_series(raw, "queue_series"),
        flows=flows,
        links=links,
        sim_time_s=float(raw["duration_s"]),
        events=0,
        wall_time_s=wall,
        backend=facts,
    )
