"""The workload a profile-guided build of the engine learns from
(``scripts/build_pgo.sh`` runs it on an instrumented build).

Profile-guided optimization lays out and inlines the code by how often each
branch ran here, and treats what never ran as cold. So the workload is the
engine's real use, not the benchmark: every example, the first quick-mode
run of each experiment of each shipped study (``sample_runs.py``), and each
registered algorithm on a dumbbell, once with delayed ACKs and once with an
ACK per packet, so that no algorithm's code is left cold. Every run is cut
to ``--duration`` simulated seconds (default 100: long enough that
the steady state outweighs the start, as in the studies' runs of 100-1800 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator

from sample_runs import capped, example_runs, study_first_runs

import tcpeval
from tcpeval.registry import algorithms
from tcpeval.study import shipped_studies


def algorithm_runs(duration_s: float) -> Iterator[tuple[str, tcpeval.Scenario]]:
    """Each registered algorithm, two flows (the second from 1 s, or from
    half the run if shorter) on a 100 Mbit/s, 40 ms dumbbell with a BDP of
    buffer, with delayed ACKs and with an ACK per packet."""
    for a in algorithms():
        for label, tcp in (("delack", {}), ("ackeach", {"delayed_ack": False})):
            yield (
                f"algorithm/{a.name}/{label}",
                tcpeval.load_scenario(
                    {
                        "duration_s": duration_s,
                        "tcp": tcp,
                        "topology": {
                            "kind": "dumbbell",
                            "bottleneck": {"rate_mbps": 100, "delay_ms": 10, "buffer": {"bdp": 1.0}},
                        },
                        "flows": [
                            {"algorithm": a.name, "rtt_ms": 40},
                            {"algorithm": a.name, "rtt_ms": 40, "start_s": min(1.0, duration_s / 2)},
                        ],
                    }
                ),
            )


def training_runs(duration_s: float) -> Iterator[tuple[str, tcpeval.Scenario]]:
    """The whole workload, each run cut to ``duration_s``."""
    for label, sc in example_runs():
        yield label, capped(sc, duration_s)
    for study_name in shipped_studies():
        yield from study_first_runs(study_name, duration_s)
    yield from algorithm_runs(duration_s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=100.0, help="cap on each run's simulated seconds")
    ap.add_argument("--list", action="store_true", help="print the runs' labels without running them")
    args = ap.parse_args()
    runs = list(training_runs(args.duration))
    if args.list:
        print("\n".join(label for label, _ in runs))
        return
    t0 = time.perf_counter()
    for i, (label, sc) in enumerate(runs, 1):
        t = time.perf_counter()
        tcpeval.run(sc, progress=False)
        print(f"[{i}/{len(runs)}] {label}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    print(f"{len(runs)} training runs in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
