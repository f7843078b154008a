"""Delay-line capacity of the linux testbed: one CUBIC flow at 100 ms RTT
through a one-BDP bottleneck at increasing rates; per rate the bottleneck's
departure rate over the second half of the run, the delay line's lateness
(p50, p99, max), its socket drops and the host's CPU load. The delay line
"holds" a rate when the link runs full (departures >= 95 % of the rate)
with p99 lateness under 0.5 ms and no socket drops.

Usage (root): python scripts/testbed_bench.py [--duration S] [RATE_MBPS ...]
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from tcpeval.testbed.run import run_linux
from tcpeval.testbed.rxpath import NAPI_PRIORITY, RX_PATHS

RTT_MS = 100.0


def one(rate_mbps: float, duration_s: float, rx_path: str, napi_priority: int | None) -> dict[str, Any]:
    sc = {
        "name": f"delay-line-{rate_mbps:g}",
        "duration_s": duration_s,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate_mbps": rate_mbps, "delay_ms": 1, "buffer": {"bdp": 1.0}},
        },
        "flows": [{"algorithm": "cubic", "rtt_ms": RTT_MS}],
        "probes": {"flow_period_ms": 100, "queue_period_ms": 100},
    }
    r = run_linux(sc, progress=False, rx_path=rx_path, napi_priority=napi_priority)
    q = r.queue_series[r.queue_series["link"] == 0]
    half = q[q["time"] >= duration_s / 2]
    span = float(half["time"].iloc[-1] - half["time"].iloc[0])
    departed = int(half["departed_bytes"].iloc[-1]) - int(half["departed_bytes"].iloc[0])
    wire = r.backend["delay_line"]
    late = wire["lateness"]
    return {
        "rate": rate_mbps,
        "departures": departed * 8 / span / 1e6,
        "p50": late["p50_us"],
        "p99": late["p99_us"],
        "max": late["max_us"],
        "frames_per_s": late["frames"] / r.sim_time_s,
        "socket_drops": wire["to_hosts"]["socket_drops"] + wire["to_router"]["socket_drops"],
        "cpu": r.backend["cpu_busy_fraction"],
        "load": os.getloadavg()[0],
        "wire": wire,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rates", nargs="*", type=float, default=[100, 250, 500, 750, 1000, 1500, 2000])
    ap.add_argument("--duration", type=float, default=12.0)
    ap.add_argument(
        "--detail",
        action="store_true",
        help="also print each delay-line direction's round statistics (where the time goes)",
    )
    ap.add_argument("--rx-path", choices=RX_PATHS, default=RX_PATHS[0],
                    help="where the delay line's receiving side runs (default: %(default)s)")  # fmt: skip
    ap.add_argument("--napi-priority", type=int, default=NAPI_PRIORITY,
                    help="SCHED_FIFO priority of the NAPI threads, 0 = the kernel's default policy")  # fmt: skip
    a = ap.parse_args()
    print(f"rx path {a.rx_path}, NAPI priority {a.napi_priority or 'default'}", flush=True)
    print(f"{'Mbit/s':>7} {'departed':>9} {'p50 us':>7} {'p99 us':>7} {'max us':>8} {'frames/s':>9} "
          f"{'sockdrop':>8} {'cpu':>5} {'load1':>6} holds")  # fmt: skip
    for rate in a.rates:
        x = one(rate, a.duration, a.rx_path, a.napi_priority or None)
        holds = x["departures"] >= 0.95 * rate and x["p99"] < 500 and x["socket_drops"] == 0
        print(
            f"{rate:>7g} {x['departures']:>9.1f} {x['p50']:>7.0f} {x['p99']:>7.0f} {x['max']:>8.0f} "
            f"{x['frames_per_s']:>9.0f} {x['socket_drops']:>8} {x['cpu']:>5.0%} {x['load']:>6.1f} "
            f"{'yes' if holds else 'no'}",
            flush=True,
        )
        if a.detail:
            for name in ("to_hosts", "to_router"):
                d = x["wire"][name]
                print(
                    f"        {name:>9}: round-gap max {d['max_round_gap_us']:.0f} us, "
                    f"round max {d.get('max_round_us', 0):.0f} us ({d.get('max_frames_per_round', 0)} frames max), "
                    f"send() max {d.get('max_send_us', 0):.0f} us, wake late max {d.get('max_wake_late_us', 0):.0f} us "
                    f"({d.get('late_wakes', 0)} > 1 ms), socket wait max {d.get('max_queued_us', 0):.0f} us "
                    f"({d.get('unstamped', 0)} unstamped), p99 {d['lateness']['p99_us']:.0f} us",
                    flush=True,
                )


if __name__ == "__main__":
    main()
