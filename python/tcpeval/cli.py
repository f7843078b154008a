"""The ``tcpeval`` command line: ``run``, ``algorithms``, ``bench``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from tcpeval import __version__
from tcpeval.errors import ScenarioError


def _cmd_run(args: argparse.Namespace) -> int:
    from tcpeval.scenario import load_scenario
    from tcpeval.simulate import run
    from tcpeval.store import save_run

    sc = load_scenario(args.scenario)
    overrides = {}
    if args.seed is not None:
        overrides["seed"] = args.seed
    if args.duration is not None:
        overrides["duration_s"] = args.duration
    if overrides:
        sc = sc.replace(**overrides)
    result = run(sc, progress=not args.quiet)
    with pd.option_context("display.width", 160, "display.max_columns", 20, "display.precision", 4):
        print(f"scenario {sc.name or args.scenario}  hash {sc.hash[:12]}  seed {sc.seed}")
        print(result.summary().to_string(index=False))
        print()
        print(result.link_summary().to_string(index=False))
    rate = result.packets_delivered / max(result.wall_time_s, 1e-9)
    print(
        f"\n{result.sim_time_s:.1f} simulated s in {result.wall_time_s:.2f} wall s "
        f"({result.packets_delivered} data packets, {rate:,.0f} packets/s, {result.events} events)"
    )
    if args.out:
        out = save_run(result, args.out)
        print(f"results written to {out}")
    return 0


def _cmd_algorithms(args: argparse.Namespace) -> int:
    from tcpeval.catalog import algorithms

    algos = algorithms()
    if args.json:
        print(json.dumps([a.__dict__ for a in algos], indent=2))
        return 0
    for a in algos:
        print(f"{a.name}: {a.summary}")
        for name, default in a.defaults.items():
            print(f"    {name} = {json.dumps(default)}    # {a.docs.get(name, '')}")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from tcpeval.bench import CASES, machine, run_case

    scale = 0.1 if args.quick else 1.0
    print(f"machine: {machine()}")
    print(f"{'case':<30} {'wall s':>8} {'packets/s':>14} {'events/s':>14} {'ev/pkt':>7}")
    for case in CASES:
        r = run_case(case, scale)
        print(
            f"{r.name:<30} {r.wall_s:>8.3f} {r.packets_per_s:>14,.0f} {r.events_per_s:>14,.0f} "
            f"{r.events / max(r.packets, 1):>7.2f}"
        )
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tcpeval", description="Packet-level evaluation of high-speed TCP.")
    p.add_argument("--version", action="version", version=f"tcpeval {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run one scenario file")
    r.add_argument("scenario", type=Path, help="scenario TOML file")
    r.add_argument("--out", type=Path, help="directory for Parquet tables and summary.json")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("--duration", type=float, help="override the scenario's duration_s")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.set_defaults(func=_cmd_run)

    a = sub.add_parser("algorithms", help="list algorithms and their parameters")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.set_defaults(func=_cmd_algorithms)

    b = sub.add_parser("bench", help="measure engine speed (packets/s, events/s)")
    b.add_argument("--quick", action="store_true", help="scenarios at 1/10 of their duration")
    b.set_defaults(func=_cmd_bench)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ScenarioError as e:
        print(f"tcpeval: invalid scenario: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
