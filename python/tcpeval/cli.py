"""The ``tcpeval`` command line: ``run`` (``--backend linux`` on the host's kernel),
``algorithms``, ``platforms``, ``tcp-options``, ``queues``, ``bench``, ``reproduce``,
``study run``, ``report``, ``results query``, ``results columns``, ``validate`` and
``testbed cleanup``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcpeval import __version__, _core
from tcpeval.errors import ScenarioError, StoreError, StudyError
from tcpeval.testbed import BACKENDS
from tcpeval.testbed.host import TestbedError

if TYPE_CHECKING:
    from tcpeval.study import Study

# Modules that need pandas, scipy or matplotlib are imported inside the
# command that uses them: `tcpeval algorithms` should not pay 2 s of imports.


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
    if args.backend == "linux":
        from tcpeval.testbed.run import run_linux

        result = run_linux(sc, progress=not args.quiet)
    else:
        result = run(sc, progress=not args.quiet)
    import pandas as pd

    with pd.option_context("display.width", 160, "display.max_columns", 20, "display.precision", 4):
        print(f"scenario {sc.name or args.scenario}  hash {sc.hash[:12]}  seed {sc.seed}")
        print(result.summary().to_string(index=False))
        print()
        print(result.link_summary().to_string(index=False))
    if result.backend:
        _print_backend(result.backend)
    else:
        rate = result.packets_delivered / max(result.wall_time_s, 1e-9)
        print(
            f"\n{result.sim_time_s:.1f} simulated s in {result.wall_time_s:.2f} wall s "
            f"({result.packets_delivered} data packets, {rate:,.0f} packets/s, {result.events} events)"
        )
    if args.out:
        out = save_run(result, args.out)
        print(f"results written to {out}")
    return 0


def _print_backend(facts: dict[str, Any]) -> None:
    """The linux testbed's facts that qualify its numbers."""
    late = facts.get("delay_line", {}).get("lateness", {})
    print(
        f"\nlinux {facts['kernel']}, MSS {facts['mss']}, CPU busy {facts['cpu_busy_fraction']:.0%}; "
        f"delay line lateness p50 {late.get('p50_us', 0):.0f} us, p99 {late.get('p99_us', 0):.0f} us, "
        f"max {late.get('max_us', 0):.0f} us over {late.get('frames', 0)} frames"
    )
    for e in facts.get("flow_errors", []):
        print(f"  error: {e}")


def _cmd_validate(args: argparse.Namespace) -> int:
    from tcpeval.scenario import load_scenario
    from tcpeval.testbed.validate import stored_kernel_runs, validate, write_report

    sc = load_scenario(args.scenario)
    if args.duration is not None:
        sc = sc.replace(duration_s=args.duration)
    out = args.out or Path("tcpeval-results") / f"validate-{sc.name or Path(args.scenario).stem}"
    try:
        kernel = stored_kernel_runs(out, sc) if args.reuse_kernel else None
    except ValueError as e:
        print(f"tcpeval validate: {e}", file=sys.stderr)
        return 2
    v = validate(sc, args.reps, progress=not args.quiet, kernel_runs=kernel)
    page = write_report(v, out)
    import pandas as pd

    with pd.option_context("display.width", 160, "display.precision", 4):
        print(v.table().to_string(index=False))
    print(f"report: {page}")
    return 0


def _cmd_testbed_cleanup(args: argparse.Namespace) -> int:
    from tcpeval.testbed.cleanup import cleanup_stale
    from tcpeval.testbed.host import check_can_run

    check_can_run()
    removed = cleanup_stale()
    print(f"removed {len(removed)} namespace(s) of dead testbed runs" + "".join(f"\n  {n}" for n in removed))
    return 0


def _print_entries(entries: Sequence[Any], as_json: bool, lines: Any) -> int:
    """Prints registry ``entries`` (:mod:`tcpeval.registry`) as JSON, or each
    as ``name: summary`` and its ``lines(entry)`` as ``key = value    # note``."""
    if as_json:
        print(json.dumps([e.__dict__ for e in entries], indent=2))
        return 0
    for e in entries:
        print(f"{e.name}: {e.summary}")
        for key, value, note in lines(e):
            print(f"    {key} = {json.dumps(value)}    # {note}")
    return 0


def _cmd_algorithms(args: argparse.Namespace) -> int:
    from tcpeval.registry import algorithms

    algos = algorithms()
    if args.json:
        print(json.dumps([a.__dict__ for a in algos], indent=2))
        return 0
    for a in algos:
        print(f"{a.name}: {a.summary}")
        for p in a.params:
            kind = f"{p['type']} {p['unit']}".rstrip()
            print(f"    {p['name']} = {json.dumps(p['default'])}    # {kind}, {p['range']['text']}")
            print(f"        {p['doc']}")
            print(f"        source: {p['source']}")
    return 0


def _cmd_platforms(args: argparse.Namespace) -> int:
    from tcpeval.registry import platforms

    return _print_entries(
        platforms(), args.json, lambda p: [(s["key"], s["value"], s["source"]) for s in p.settings]
    )


def _cmd_tcp_options(args: argparse.Namespace) -> int:
    from tcpeval.registry import tcp_options

    options = tcp_options()
    if args.json:
        print(json.dumps([o.__dict__ for o in options], indent=2))
        return 0
    for o in options:
        unit = f" {o.unit}" if o.unit else ""
        allowed = f", allowed {o.range[0]:g} ..= {o.range[1]:g}" if o.range else ""
        print(f"{o.name} = {json.dumps(o.default)}    # {o.type}{unit}{allowed}")
        print(f"    {' '.join(o.doc.split())}")
        print(f"    source: {o.source}")
    return 0


def _queue_param_note(p: dict[str, Any]) -> str:
    """A discipline parameter's note: meaning, unit, allowed range, source."""
    unit = f" [{p['unit']}]" if p["unit"] else ""
    rng = p["range"]
    allowed = f", allowed {rng[0]:g} ..= {rng[1]:g}" if rng else ""
    doc = " ".join(str(p["doc"]).split()).rstrip(".")
    return f"{doc}{unit}{allowed}; source: {p['source']}"


def _cmd_queues(args: argparse.Namespace) -> int:
    from tcpeval.registry import queues

    return _print_entries(
        queues(), args.json, lambda q: [(p["name"], p["default"], _queue_param_note(p)) for p in q.params]
    )


def _cmd_columns(args: argparse.Namespace) -> int:
    from tcpeval.result import columns

    tables = columns()
    if args.table is not None:
        tables = [t for t in tables if t["key"] == args.table]
        if not tables:
            keys = ", ".join(t["key"] for t in columns())
            print(f"tcpeval: no result table {args.table!r}; tables: {keys}", file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(tables, indent=2))
        return 0
    for t in tables:
        print(f"{t['key']}: {' '.join(t['doc'].split())}")
        width = max(len(c["name"]) for c in t["columns"])
        for c in t["columns"]:
            print(f"    {c['name']:<{width}}  {c['type']:<8}  {' '.join(c['doc'].split())}")
        print()
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from tcpeval.bench import CASES, case_named, machine, run_case

    scale = 0.1 if args.quick else 1.0
    try:
        cases = [case_named(n) for n in args.case] if args.case else CASES
    except ValueError as e:
        print(f"tcpeval: {e}", file=sys.stderr)
        return 2
    if not args.json:
        print(f"machine: {machine()}; each case in its own process, durations x {scale:g}")
        print(f"{'case':<32} {'wall s':>8} {'packets/s':>12} {'events/s':>12} {'ev/pkt':>7} {'peak MiB':>9}")
    results = []
    for case in cases:
        r = run_case(case, scale)
        results.append(r)
        if not args.json:
            print(
                f"{r.name:<32} {r.wall_s:>8.3f} {r.packets_per_s:>12,.0f} {r.events_per_s:>12,.0f} "
                f"{r.events_per_packet:>7.2f} {r.peak_rss_mib:>9.0f}",
                flush=True,
            )
    if args.json:
        print(json.dumps([asdict(r) | {"machine": machine(), "scale": scale} for r in results], indent=2))
    return 0


def _run_study(study_ref: str | Path, args: argparse.Namespace) -> int:
    from tcpeval.results_db import results
    from tcpeval.runner import run_study
    from tcpeval.study import load_study

    if args.scheduler and args.backend == "linux":
        print(
            "tcpeval: linux backend: runs on this host only; it cannot use a Dask scheduler", file=sys.stderr
        )
        return 2
    if args.scheduler:
        from tcpeval.runner import dask_missing_message

        if missing := dask_missing_message():
            # Checked before anything is created (the results directory).
            print(f"tcpeval: --scheduler {args.scheduler}: {missing}", file=sys.stderr)
            return 2
    study = load_study(study_ref)
    mode = "quick" if args.quick else "full"
    suffix = f"-{args.platform}" if args.platform else ""
    if args.backend != "sim":
        suffix += f"-{args.backend}"
    out = args.out or Path("tcpeval-results") / f"{study.name}-{mode}{suffix}"
    if args.plan:
        return _print_plan(study, out, args)
    summary = run_study(
        study,
        out,
        quick=args.quick,
        only=args.experiment,
        platform=args.platform,
        scheduler=args.scheduler,
        workers=args.workers,
        progress=not args.quiet,
        backend=args.backend,
    )
    twins = (
        f" ({summary.reused} stored from a seed twin: they draw no random number)" if summary.reused else ""
    )
    print(
        f"{study.name} ({mode}): {summary.total} runs, {summary.skipped} already stored, "
        f"{summary.ok} done now{twins}, {len(summary.failed)} failed"
    )
    for rec in summary.failed:
        print(f"  failed: {rec.experiment} {rec.point} seed {rec.seed}: {(rec.error or '').splitlines()[0]}")
    if summary.metric_failed:
        print(f"{len(summary.metric_failed)} run(s) stored but some of their metrics failed:")
        for rec in summary.metric_failed:
            print(f"  metrics failed: {rec.experiment} {rec.point} seed {rec.seed}: {rec.error}")
    runs = results(out)
    print(f"results in {out} ({len(runs)} runs in the catalog)")
    if not args.no_report:
        from tcpeval.report import build_report

        page = build_report(out, workers=args.workers, progress=not args.quiet, formats=args.figure_formats)
        print(f"report: {page}")
    return 1 if summary.failed or summary.metric_failed else 0


def _print_plan(study: Study, out: Path, args: argparse.Namespace) -> int:
    """``--plan``: what the sweep would run, per experiment, without running it."""
    from tcpeval.plan import calibrate_plans, plan, prefix_shares, remaining_wall_s, twin_runs
    from tcpeval.results_db import ResultsDB
    from tcpeval.study import expand

    specs = expand(study, quick=args.quick, only=args.experiment, platform=args.platform)
    walls: dict[str, float] = {}
    if (out / "catalog.sqlite").exists():
        db = ResultsDB(out)
        try:
            walls = {k: db.wall_s(k) for k in db.done_keys()}
        finally:
            db.close()
    linux = args.backend == "linux"
    shares = {} if linux else prefix_shares(specs)
    plans = plan(specs, walls, set() if linux else twin_runs(specs), prefixes=not linux)
    print(f"{'experiment':<28} {'runs':>6} {'stored':>7} {'twins':>6} {'simulated s':>12}")
    for p in plans:
        print(f"{p.name:<28} {p.runs:>6} {p.stored:>7} {p.twins:>6} {p.simulated_s:>12,.0f}")
    runs, stored = sum(p.runs for p in plans), sum(p.stored for p in plans)
    twins = sum(p.twins for p in plans)
    print(f"{'total':<28} {runs:>6} {stored:>7} {twins:>6} {sum(p.simulated_s for p in plans):>12,.0f}")
    if twins:
        print(
            f"twins: {twins} runs left draw no random number, so each is stored from its point's first "
            "seed, not simulated"
        )
    if shares:
        print(
            f"prefixes: {len(shares)} runs differ from others only in their duration or flow names; each "
            "such family is one run as long as its longest, counted once in simulated s"
        )
    if linux:
        _print_linux_plan(specs)
        print(f"results directory: {out}")
        return 0
    workers = args.workers or os.cpu_count() or 1
    calibrated = calibrate_plans(specs, plans) if stored < runs else {}
    left = remaining_wall_s(plans, workers, calibrated)
    if stored < runs and left is not None:
        minutes = round(left / 60)
        how = "the stored runs' wall time per simulated second" if stored else "a short calibration run"
        print(
            f"the {runs - stored} runs left: about {minutes // 60} h {minutes % 60:02d} min on {workers} "
            f"workers (from {how})"
        )
        if calibrated and stored:
            print(
                f"  from a short calibration run for {', '.join(calibrated)}: none of their runs is stored yet"
            )
        if calibrated:
            print(
                "  a calibration sees only a run's first seconds: where the links fill slowly or flows start "
                "later it runs low (full runs on 0.15.0: background 59 min calibrated, 69 min taken; yeah 51 "
                "and 63 min; fairness 9 and 11 min); the estimate sharpens as runs are stored"
            )
    print(f"results directory: {out}")
    return 0


def _print_linux_plan(specs: Sequence[Any]) -> None:
    """``--plan --backend linux``: the real time the runs take, and which of
    them this host cannot run, grouped by reason."""
    import re

    from tcpeval.testbed.run import refusal

    reasons: dict[str, int] = {}
    real_s = 0.0
    for spec in specs:
        why = refusal(spec.scenario)
        if why is None:
            real_s += float(spec.scenario["duration_s"])
        else:
            why = re.sub(r"\[\d+\]", "[i]", why)  # without the list index, runs group by cause
            reasons[why] = reasons.get(why, 0) + 1
    runnable = len(specs) - sum(reasons.values())
    minutes = round(real_s / 60)
    print(
        f"on --backend linux: {runnable} runs can run here, one at a time in real time: "
        f"{minutes // 60} h {minutes % 60:02d} min of emulation plus set-up"
    )
    for why, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"  {n} runs cannot: {why}")


def _cmd_reproduce(args: argparse.Namespace) -> int:
    return _run_study(args.study, args)


def _cmd_study_run(args: argparse.Namespace) -> int:
    return _run_study(args.file, args)


def _cmd_report(args: argparse.Namespace) -> int:
    from tcpeval.report import build_report

    print(
        build_report(
            args.study_dir, workers=args.workers, progress=not args.quiet, formats=args.figure_formats
        )
    )
    return 0


def _cmd_results(args: argparse.Namespace) -> int:
    from tcpeval.results_db import results

    df = results(args.study_dir, args.experiment)
    if df.empty:
        print("no runs" + (f" in experiment {args.experiment}" if args.experiment else ""))
        return 0
    if args.csv:
        print(df.to_csv(index=False), end="")
        return 0
    shown = df.drop(columns=["key", "error"])
    errors = df["error"].dropna()
    if len(errors):
        # A failed run's error, or a stored run's failed metrics: the first line, shortened.
        shown["error"] = df["error"].map(lambda e: "" if not isinstance(e, str) else _first_line(e, 70))
    import pandas as pd

    with pd.option_context("display.width", 250, "display.max_columns", 40, "display.max_rows", 500):
        print(shown.to_string(index=False))
    if len(errors):
        print(f"\n{len(errors)} run(s) with errors; `--csv` gives the full text")
    return 0


def _first_line(text: str, width: int) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= width else line[: width - 3] + "..."


def _figure_formats(text: str) -> tuple[str, ...]:
    """``--figure-formats``: a comma-separated subset of png, svg, pdf (PNG always saved)."""
    from tcpeval.report.figures import figure_formats

    try:
        return figure_formats(text.split(","))
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _figure_formats_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--figure-formats",
        type=_figure_formats,
        default=None,
        metavar="LIST",
        help="the report's figure files, comma-separated from png,svg,pdf (default: all three for a "
        "full study, png for a quick one; PNG is always saved, the page inlines it)",
    )


def _workers(text: str) -> int:
    """``--workers``: a whole number of at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text!r}")
    return n


def _memory_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--memory-budget",
        type=float,
        metavar="MB",
        help="refuse a run estimated above MB megabytes (default: half of this machine's memory; "
        "also TCPEVAL_MEMORY_BUDGET_MB)",
    )


def _backend_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="sim",
        help="sim: the simulator (default); linux: this host's kernel TCP in network namespaces, "
        "in real time, as root (docs/testbed.md)",
    )


def _sweep_options(p: argparse.ArgumentParser) -> None:
    _memory_option(p)
    _backend_option(p)
    p.add_argument("--quick", action="store_true", help="shorter runs, coarser grids, fewer replications")
    p.add_argument(
        "--out", type=Path, help="results directory (default tcpeval-results/STUDY-MODE[-PLATFORM][-linux])"
    )
    p.add_argument("--experiment", action="append", help="run only this experiment (repeatable)")
    p.add_argument(
        "--platform",
        help="run every scenario on this platform preset instead of the study's "
        "(`tcpeval platforms`; default results directory gets -PLATFORM)",
    )
    p.add_argument("--scheduler", help="Dask scheduler address (tcp://host:8786); default: local pool")
    p.add_argument("--workers", type=_workers, help="local pool size (default: all cores)")
    p.add_argument("--no-report", action="store_true", help="do not build the HTML report")
    _figure_formats_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--plan", action="store_true", help="print the runs and simulated seconds per experiment; run nothing"
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tcpeval", description="Packet-level evaluation of high-speed TCP.")
    p.add_argument(
        "--version", action="version", version=f"tcpeval {__version__} ({_core.engine_build()} build)"
    )
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run one scenario file")
    r.add_argument("scenario", type=Path, help="scenario TOML file")
    r.add_argument("--out", type=Path, help="directory for Parquet tables and summary.json")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("--duration", type=float, help="override the scenario's duration_s")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    _backend_option(r)
    _memory_option(r)
    r.set_defaults(func=_cmd_run)

    va = sub.add_parser(
        "validate", help="one scenario on the simulator and on this host's kernel, side by side"
    )
    va.add_argument("scenario", type=Path, help="scenario TOML file (what --backend linux supports)")
    va.add_argument("--reps", type=_workers, default=3, help="kernel repetitions (default 3)")
    va.add_argument("--duration", type=float, help="override the scenario's duration_s")
    va.add_argument("--out", type=Path, help="report directory (default tcpeval-results/validate-NAME)")
    va.add_argument(
        "--reuse-kernel",
        action="store_true",
        help="take the kernel runs stored in the report directory (runs/kernel-N) instead of "
        "running the kernel again; the simulator runs anew (after an upgrade, or to redo the page)",
    )
    va.add_argument("--quiet", action="store_true", help="no progress bar")
    va.set_defaults(func=_cmd_validate)

    tb = sub.add_parser("testbed", help="the real-Linux testbed (docs/testbed.md)")
    tb_sub = tb.add_subparsers(dest="testbed_command", required=True)
    tc = tb_sub.add_parser("cleanup", help="remove the network namespaces of dead testbed runs")
    tc.set_defaults(func=_cmd_testbed_cleanup)

    a = sub.add_parser("algorithms", help="list algorithms and their parameters")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.set_defaults(func=_cmd_algorithms)

    pl = sub.add_parser("platforms", help="list platform presets, what each sets and its sources")
    pl.add_argument("--json", action="store_true", help="machine-readable output")
    pl.set_defaults(func=_cmd_platforms)

    to = sub.add_parser("tcp-options", help="list the TCP options, their defaults, ranges and sources")
    to.add_argument("--json", action="store_true", help="machine-readable output")
    to.set_defaults(func=_cmd_tcp_options)

    qu = sub.add_parser("queues", help="list the queue disciplines (a link's `queue`) and their parameters")
    qu.add_argument("--json", action="store_true", help="machine-readable output")
    qu.set_defaults(func=_cmd_queues)

    rp = sub.add_parser("reproduce", help="run a shipped study end to end (figures, tables, report)")
    rp.add_argument("study", help="shipped study: fairness, linux-variants, ... (an unknown name lists them)")
    _sweep_options(rp)
    rp.set_defaults(func=_cmd_reproduce)

    st = sub.add_parser("study", help="run your own study file")
    st_sub = st.add_subparsers(dest="study_command", required=True)
    sr = st_sub.add_parser("run", help="run a study file")
    sr.add_argument("file", type=Path, help="study TOML file (docs/study-format.md)")
    _sweep_options(sr)
    sr.set_defaults(func=_cmd_study_run)

    rep = sub.add_parser("report", help="build the HTML report of a study results directory")
    rep.add_argument("study_dir", type=Path)
    rep.add_argument("--workers", type=_workers, help="processes saving figures (default: all cores)")
    rep.add_argument("--quiet", action="store_true", help="no progress bar")
    _figure_formats_option(rep)
    rep.set_defaults(func=_cmd_report)

    res = sub.add_parser("results", help="query stored results")
    res_sub = res.add_subparsers(dest="results_command", required=True)
    q = res_sub.add_parser("query", help="print the run summaries of a study directory")
    q.add_argument("study_dir", type=Path)
    q.add_argument("--experiment", help="only this experiment")
    q.add_argument("--csv", action="store_true", help="CSV output")
    q.set_defaults(func=_cmd_results)
    c = res_sub.add_parser("columns", help="list the result tables and their columns with units")
    c.add_argument("table", nargs="?", help="only this table (flow_series, flows, ...)")
    c.add_argument("--json", action="store_true", help="JSON output")
    c.set_defaults(func=_cmd_columns)

    b = sub.add_parser("bench", help="measure engine speed (packets/s, events/s, events/packet, peak memory)")
    b.add_argument("--quick", action="store_true", help="scenarios at 1/10 of their duration")
    b.add_argument(
        "--case", action="append", help="run only this case (repeatable; an unknown name lists them)"
    )
    b.add_argument("--json", action="store_true", help="JSON output")
    b.set_defaults(func=_cmd_bench)
    return p


def _io_problem(e: OSError) -> str:
    """An I/O error as one line naming the path."""
    if isinstance(e, StoreError):
        return str(e)
    where = f"{e.filename}: " if e.filename else ""
    return f"{where}{e.strerror or e}"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "memory_budget", None) is not None:
        from tcpeval.memory import BUDGET_ENV

        os.environ[BUDGET_ENV] = str(args.memory_budget)  # read by every run of this process
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # The reader went away (`tcpeval results query DIR | head`): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except StudyError as e:
        print(f"tcpeval: invalid study: {e}", file=sys.stderr)
        return 2
    except ScenarioError as e:
        print(f"tcpeval: invalid scenario: {e}", file=sys.stderr)
        return 2
    except TestbedError as e:
        print(f"tcpeval: linux backend: {e}", file=sys.stderr)
        return 2
    except FileNotFoundError as e:
        print(f"tcpeval: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        # A full disk, a read-only directory, a damaged results file: one
        # line naming the path; what was stored stays, and a rerun resumes.
        print(f"tcpeval: {_io_problem(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # The finished runs are stored; runs in progress are abandoned rather
        # than waited for (a worker cannot stop a simulation midway).
        print("\ntcpeval: interrupted; finished runs are stored, the same command resumes", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        if _must_exit_at_once():
            os._exit(130)  # Python's exit would wait for them
        return 130  # exit handlers run (the worker processes are already stopped)


def _must_exit_at_once() -> bool:
    """True while something Python's exit would wait for is still running:
    a thread other than the main one (a run in progress on the in-process
    pool, with one worker or the linux backend) or a child process (a worker
    started just as the Ctrl-C came, before the pool could list it).

    Otherwise an interrupted sweep exits normally: its exit handlers remove
    the process pool's named semaphores, which an immediate exit leaves to
    Python's resource tracker, with a warning."""
    import multiprocessing
    import threading

    main = threading.main_thread()
    threads = [t for t in threading.enumerate() if t is not main and not t.daemon and t.is_alive()]
    return bool(threads or multiprocessing.active_children())


if __name__ == "__main__":
    sys.exit(main())
