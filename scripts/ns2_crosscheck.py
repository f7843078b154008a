"""Runs a study's scenario in ns-2.35 itself and sets it beside tcpeval's
results and the paper's values: where tcpeval and a paper differ, this says
whether ns-2 on the paper's stated settings sides with the paper or with
tcpeval.

* `linux-variants`: experiment 2 (Table 3) with TCP-Linux, the platform the
  paper names (scripts/ns2/linux_variants_exp2.tcl).
* `reverse`: scenario A's timeouts per phase (Table I) and A's and B's
  goodput over C per phase (Sec. III-A's utilization) with ns-2.35's own
  agents and TCP-Linux modules (scripts/ns2/reverse_scenario_a.tcl; the
  paper ran ns-2.28 with third-party modules, which ns-2.35 does not ship).

Needs the `ns` binary of ns-2.35 (Debian: `apt install ns2`). Each ns-2 run's
output is kept in OUT (one file per cell), so an interrupted sweep resumes.

Usage:
  python scripts/ns2_crosscheck.py linux-variants --tcpeval RESULTS_DIR
      [--out DIR] [--senders 4] [--buffers 100 250 ...] [--algorithms cubic ...]
  python scripts/ns2_crosscheck.py reverse --tcpeval RESULTS_DIR [--out DIR]
      [--delays 15 75] [--algorithms scalable htcp ...] [--seed 1]

RESULTS_DIR is the study's `tcpeval reproduce` output (its tables/*.csv).
Writes OUT/crosscheck.csv and prints the table.
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

TCL_DIR = Path(__file__).with_name("ns2")
#: ns-2.35's TCP-Linux modules under the study's algorithm names (Africa and
#: Fusion have none in ns-2.35; see the study file).
NS2_MODULE = {
    "scalable": "scalable",
    "highspeed": "highspeed",
    "bic": "bic",
    "htcp": "htcp",
    "cubic": "cubic",
    "compound": "compound",
    "reno": "reno",
    "illinois": "illinois",
    "yeah": "yeah",
}
BUFFERS = [100, 250, 500, 1000, 2500, 5000]
PACKET_PAYLOAD_BYTES = 1000  # Table 2: packetSize_ 1000
DURATION_S = 100.0  # Table 2


#: The reverse study's stacks in ns-2.35: Agent/TCP/Sack1 for SACK, Sack1 with
#: ns-2's built-in HighSpeed TCP, TCP-Linux modules for the rest (FAST has
#: no ns-2.35 implementation).
NS2_REVERSE_STACK = {
    "reno": "sack",
    "highspeed": "highspeed",
    "htcp": "htcp",
    "bic": "bic",
    "scalable": "scalable",
    "westwood": "westwood",
}
#: Sec. III-A: one-way bottleneck delay (ms) -> buffer = BDP in packets.
REVERSE_BUFFER = {15: 833, 75: 3333}
REVERSE_DURATION_S = 1000.0
#: Sec. III-A: the three phases (C and D send in the second), s.
REVERSE_PHASES_S = [(0.0, 333.0), (333.0, 666.0), (666.0, 1000.0)]
REVERSE_RATE_BPS = 250e6
REVERSE_PAYLOAD_BYTES = 1500  # the script's packetSize_
NS2_HEADER_BYTES = 40  # ns-2's useHeaders_ adds them on the wire


def run_ns(path: Path, script: str, args: list[str]) -> str:
    """ns-2's output of `script` with `args`, from `path` if it ran before."""
    if path.exists():
        return path.read_text()
    cmd = ["ns", str(TCL_DIR / script), *args]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(done.stdout)
    tmp.replace(path)
    return done.stdout


def parse(text: str, duration_s: float) -> dict[str, float]:
    """Throughput (Mbit/s of 1000-byte segments acknowledged), loss in percent
    of data packets sent (Table 3's definition), Jain's index over the flows."""
    flows = [dict(re.findall(r"(\w+)=(\S+)", line)) for line in text.splitlines() if line.startswith("flow=")]
    total = next(
        dict(re.findall(r"(\w+)=(\S+)", line)) for line in text.splitlines() if line.startswith("total ")
    )
    acked = [float(f["acked"]) for f in flows]
    jain = sum(acked) ** 2 / (len(acked) * sum(a * a for a in acked)) if any(acked) else math.nan
    return {
        "throughput_mbps": float(total["acked"]) * PACKET_PAYLOAD_BYTES * 8 / duration_s / 1e6,
        "loss_pct": 100.0 * float(total["drops"]) / float(total["sent"]),
        "intra_fairness": jain,
        "drops": float(total["drops"]),
    }


def run_cell(out: Path, algorithm: str, senders: int, buffer: int, duration_s: float) -> str:
    """ns-2's output for one linux-variants cell."""
    path = out / f"{algorithm}-n{senders}-b{buffer}-{duration_s:g}s.txt"
    args = [NS2_MODULE[algorithm], str(senders), str(buffer), f"{duration_s:g}"]
    return run_ns(path, "linux_variants_exp2.tcl", args)


def phase_timeouts(text: str) -> list[int]:
    """Timeouts of flows A and B together in each of the three phases, from
    the counters printed at the phase ends."""
    at = {}
    for line in text.splitlines():
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        if kv.get("flow") in ("A", "B"):
            at[int(kv["t"])] = at.get(int(kv["t"]), 0) + int(kv["timeouts"])
    return [at[1], at[2] - at[1], at[3] - at[2]]


def phase_utilization(text: str) -> list[float]:
    """A's and B's packets acknowledged in each phase over the packets of
    1540 bytes (packetSize_ 1500 plus ns-2's 40 header bytes) that C carries
    in it: the study's `goodput_utilization` on ns-2's counters."""
    acked: dict[int, int] = {0: 0}
    for line in text.splitlines():
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        if kv.get("flow") in ("A", "B"):
            acked[int(kv["t"])] = acked.get(int(kv["t"]), 0) + int(kv["acked"])
    wire_bits = (REVERSE_PAYLOAD_BYTES + NS2_HEADER_BYTES) * 8
    return [
        (acked[k] - acked[k - 1]) * wire_bits / (REVERSE_RATE_BPS * (hi - lo))
        for k, (lo, hi) in enumerate(REVERSE_PHASES_S, start=1)
    ]


def paper_values(scorecard: Path) -> dict[tuple[str, str, int], float]:
    """Table 3's values from the study's claims: (metric, algorithm, buffer) ->
    value (loss in percent, as Table 3 prints it)."""
    card = pd.read_csv(scorecard)
    out = {}
    kinds = {"t3-thr": "throughput_mbps", "t3-loss": "loss_pct", "t3-intra": "intra_fairness"}
    for row in card.itertuples():
        m = re.fullmatch(r"(t3-thr|t3-loss|t3-intra)-(\w+)-(\d+)", row.id)
        if not m:
            continue
        value = float(str(row.paper).split()[0])
        if m.group(1) == "t3-loss":
            value *= 100.0  # the claim holds a fraction
        out[(kinds[m.group(1)], m.group(2), int(m.group(3)))] = value
    return out


def linux_variants(args: argparse.Namespace) -> pd.DataFrame | None:
    """Table 3's cells: ns-2, tcpeval and the paper side by side."""
    table = args.tcpeval / "tables" / "exp2-table3.csv"
    if not table.exists():
        print(
            f"ns2_crosscheck: {table} not found: run `tcpeval reproduce linux-variants` first",
            file=sys.stderr,
        )
        return None
    ours = pd.read_csv(table).set_index(["senders", "buffer", "algorithm"])
    paper = paper_values(args.tcpeval / "tables" / "scorecard.csv")
    rows = []
    for algorithm in args.algorithms:
        for buffer in args.buffers:
            ns2 = parse(run_cell(args.out, algorithm, args.senders, buffer, args.duration_s), args.duration_s)
            row = {"algorithm": algorithm, "buffer": buffer}
            for metric in ("throughput_mbps", "loss_pct", "intra_fairness"):
                key = (args.senders, buffer, algorithm)
                row[f"{metric}_ns2"] = ns2[metric]
                row[f"{metric}_tcpeval"] = ours.loc[key, f"{metric}_mean"] if key in ours.index else math.nan
                row[f"{metric}_paper"] = paper.get((metric, algorithm, buffer), math.nan)
            rows.append(row)
            print(
                f"{algorithm:>9} {buffer:>5}: ns-2 {ns2['throughput_mbps']:7.1f} Mbit/s {ns2['loss_pct']:.4f} %",
                flush=True,
            )
    return pd.DataFrame(rows)


def reverse(args: argparse.Namespace) -> pd.DataFrame | None:
    """Table I's timeouts of A and B per phase, and their goodput over C per
    phase: ns-2 (one seed), tcpeval (the mean over the results' seeds) and,
    for the timeouts, the paper (its utilization claims are in the
    scorecard)."""
    card_path = args.tcpeval / "tables" / "scorecard.csv"
    phases_path = args.tcpeval / "tables" / "scenario-a-phases.csv"
    if not card_path.exists() or not phases_path.exists():
        print(
            f"ns2_crosscheck: {card_path.parent} lacks the scorecard or scenario A's phases: run `tcpeval reproduce reverse` first",
            file=sys.stderr,
        )
        return None
    card = pd.read_csv(card_path).set_index("id")
    phases = pd.read_csv(phases_path).set_index(["algorithm", "bottleneck_delay_ms"])
    rows = []
    for algorithm in args.algorithms:
        for delay in args.delays:
            stack = NS2_REVERSE_STACK[algorithm]
            path = args.out / f"reverse-{stack}-{delay}ms-seed{args.seed}.txt"
            run_args = [
                stack,
                str(delay),
                str(REVERSE_BUFFER[delay]),
                f"{REVERSE_DURATION_S:g}",
                str(args.seed),
            ]
            text = run_ns(path, "reverse_scenario_a.tcl", run_args)
            ns2, util = phase_timeouts(text), phase_utilization(text)
            rtt = 2 * (2.5 + delay + 2.5)
            for phase in (1, 2, 3):
                claim = f"t1-{algorithm}-rtt{rtt:g}-phase{phase}"
                paper = card.loc[claim, "paper"] if claim in card.index else math.nan
                ours = card.loc[claim, "tcpeval"] if claim in card.index else math.nan
                key = (algorithm, delay)
                rows.append(
                    {
                        "algorithm": algorithm,
                        "rtt_ms": rtt,
                        "phase": phase,
                        "timeouts_ns2": ns2[phase - 1],
                        "timeouts_tcpeval": ours,
                        "timeouts_paper": str(paper).split()[0],
                        "utilization_ns2": util[phase - 1],
                        "utilization_tcpeval": (
                            phases.loc[key, f"util_phase{phase}_mean"] if key in phases.index else math.nan
                        ),
                    }
                )
            shown = ", ".join(f"{u:.3f}" for u in util)
            print(
                f"{algorithm:>9} {rtt:g} ms: ns-2 timeouts per phase {ns2}, utilization {shown}", flush=True
            )
    return pd.DataFrame(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="study", required=True)
    lv = sub.add_parser("linux-variants", help="experiment 2 / Table 3")
    lv.add_argument("--senders", type=int, default=4)
    lv.add_argument("--buffers", type=int, nargs="+", default=BUFFERS)
    lv.add_argument("--algorithms", nargs="+", default=list(NS2_MODULE), choices=list(NS2_MODULE))
    lv.add_argument("--duration-s", type=float, default=DURATION_S)
    rv = sub.add_parser("reverse", help="scenario A: Table I timeouts, utilization per phase")
    rv.add_argument("--delays", type=int, nargs="+", default=[15, 75], choices=list(REVERSE_BUFFER))
    rv.add_argument(
        "--algorithms", nargs="+", default=list(NS2_REVERSE_STACK), choices=list(NS2_REVERSE_STACK)
    )
    rv.add_argument("--seed", type=int, default=1)
    for p in (lv, rv):
        p.add_argument("--tcpeval", type=Path, required=True, help="the study's tcpeval results directory")
        p.add_argument("--out", type=Path, default=Path("ns2-crosscheck"))
    args = ap.parse_args()
    if shutil.which("ns") is None:
        print(
            "ns2_crosscheck: the ns-2 binary `ns` is not on PATH (Debian: apt install ns2)", file=sys.stderr
        )
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    result = linux_variants(args) if args.study == "linux-variants" else reverse(args)
    if result is None:
        return 2
    result.to_csv(args.out / f"crosscheck-{args.study}.csv", index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(result.round(4).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
