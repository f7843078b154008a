"""A seeded scenario fuzzer: mutated copies of the example scenarios, each
loaded and (if valid) run briefly in a child process under a memory cap and
a time limit. The outcome of a case is one of:

* ``ok``: valid, and the first :data:`SIM_CAP_S` simulated seconds ran;
* ``error``: a :class:`~tcpeval.ScenarioError` (``field``, ``message``);
* ``exception``: any other Python exception (a bug);
* ``abort``: the child died of a signal (a Rust abort, a segfault, the
  memory cap) or exited without reporting (a bug);
* ``hang``: the child outlived :data:`TIME_LIMIT_S` (a bug).

Children are forked from a server that has imported tcpeval once
(``forkserver``), so a case costs milliseconds, not an interpreter start.
"""

from __future__ import annotations

import copy
import json
import multiprocessing as mp
import os
import random
import resource
import tomllib
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

SIM_CAP_S = 0.5
"""Simulated seconds each valid case runs (a full run could take hours)."""

TIME_LIMIT_S = 30.0
"""Wall seconds a case may take (loading, building and SIM_CAP_S of simulation)."""

MEMORY_CAP_BYTES = 3 * 1024**3
"""Address space a case may add to the forked child's, bytes (RLIMIT_AS)."""


@dataclass(frozen=True)
class Outcome:
    """What one case did (see the module doc)."""

    kind: str
    field: str = ""
    message: str = ""
    mutations: tuple[str, ...] = ()


def bases() -> list[dict[str, Any]]:
    """The scenarios mutated: every example file."""
    out = []
    for f in sorted((ROOT / "examples").glob("*.toml")):
        with f.open("rb") as fh:
            out.append(tomllib.load(fh))
    return out


DEEP = "__deep__"
"""``{DEEP: n}`` stands for ``n`` nested tables, built in the child (pickling
them to it would itself hit the recursion limit)."""


def _expand_deep(node: Any) -> Any:
    if isinstance(node, dict):
        if set(node) == {DEEP}:
            deep: Any = 1
            for _ in range(node[DEEP]):
                deep = {"a": deep}
            return deep
        return {k: _expand_deep(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_expand_deep(v) for v in node]
    return node


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value under ``node`` (tables and arrays included)."""
    out = [prefix]
    if isinstance(node, dict) and DEEP in node:
        return out
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, (*prefix, k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, (*prefix, i)))
    return out


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        data = data[p]
    return data


NUMBERS = [0, -1, 1, 0.5, 1e-9, -1e-9, 1e6, 1e7, 1e9, 1e12, 1e300, -1e300, 2**31, 2**32, 2**53, 2**63, 2**64]
SPECIAL = [float("nan"), float("inf"), -float("inf")]
WRONG = ["x", "", [1, 2], [[1, 2]], {}, {"kind": "x"}, True, False, None, [], [{}]]
KEYS = ["count", "duration_s", "flow_period_ms", "queue_period_ms", "rate_mbps", "delay_ms", "rtt_ms", "bdp"]


def mutate(data: dict[str, Any], rng: random.Random) -> tuple[str, ...]:
    """Applies one to three random mutations to ``data`` in place; returns their descriptions."""
    done = []
    for _ in range(rng.randint(1, 3)):
        paths = _paths(data)
        path = rng.choice(paths)
        value = _get(data, path) if path else data
        parent = _get(data, path[:-1]) if path else None
        key = path[-1] if path else None
        op = rng.choice(
            [
                "scale",
                "scale",
                "number",
                "special",
                "wrong",
                "delete",
                "unknown",
                "repeat",
                "nest",
                "count",
                "file",
            ]
        )
        where = ".".join(map(str, path)) or "<root>"
        if parent is None and op not in ("unknown", "count", "file"):
            op = "unknown"
        if op == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool):
            new = value * 10 ** rng.randint(-6, 9)
            new = int(new) if isinstance(value, int) and abs(new) < 2**63 else new
            parent[key] = new
        elif op in ("scale", "number"):
            parent[key] = rng.choice(NUMBERS)
        elif op == "special":
            parent[key] = rng.choice(SPECIAL)
        elif op == "wrong":
            parent[key] = copy.deepcopy(rng.choice(WRONG))
        elif op == "delete":
            if isinstance(parent, dict):
                del parent[key]
            else:
                parent.pop(key)
        elif op == "unknown":
            target = value if isinstance(value, dict) else data
            target[rng.choice(["bogus", "Duration_s", "flows ", "kind"])] = rng.choice([1, "x", {}])
        elif op == "repeat" and isinstance(value, list) and value:
            value.extend(copy.deepcopy(value[0]) for _ in range(rng.choice([10, 200, 2000])))
        elif op == "nest":
            parent[key] = {DEEP: rng.choice([10, 100, 3000])}
        elif op == "count":
            flows = data.get("flows")
            if isinstance(flows, list) and flows and isinstance(flows[0], dict):
                flows[0]["count"] = rng.choice([2, 1000, 10**5, 10**6, 10**7, 2**32])
            data[rng.choice(KEYS)] = rng.choice(NUMBERS)
        elif op == "file":
            flows = data.setdefault("traffic", {}) if isinstance(data.get("traffic", {}), dict) else {}
            bulk = {
                "algorithm": "reno",
                "rtt": {"kind": "cdf", "path": rng.choice(["/dev/zero", "/", "/nope"])},
            }
            if isinstance(flows, dict):
                flows["bulk"] = [bulk]
        done.append(f"{op} {where}")
    return tuple(done)


def cases(seed: int, n: int) -> list[tuple[dict[str, Any], tuple[str, ...]]]:
    """``n`` mutated scenarios, the same for the same ``seed``."""
    rng = random.Random(seed)
    pool = bases()
    out = []
    for _ in range(n):
        data = copy.deepcopy(rng.choice(pool))
        out.append((data, mutate(data, rng)))
    return out


def _child(data: dict[str, Any], conn: Connection) -> None:
    """Runs one case in the forked child and sends (kind, field, message)."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (used + MEMORY_CAP_BYTES, hard))
    from tcpeval import ScenarioError, _core, load_scenario

    try:
        sc = load_scenario(_expand_deep(data))
        sim = _core.Simulation(sc.data)
        stop = min(float(sim.end), SIM_CAP_S)
        sim.plan_snapshots([stop])
        sim.advance(stop)
        sim.finish()
        conn.send(("ok", "", ""))
    except ScenarioError as e:
        conn.send(("error", e.field, e.message))
    except BaseException as e:  # noqa: BLE001 - the fuzzer reports every other exception
        conn.send(("exception", "", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=5)}"))
    finally:
        conn.close()


def context() -> Any:
    """A multiprocessing context whose children start with tcpeval imported."""
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["tcpeval", "tcpeval.scenario", "tcpeval.simulate", "pandas", "numpy"])
    return ctx


def abort_child(data: dict[str, Any], conn: Connection) -> None:
    """A child that aborts (to check that the harness notices)."""
    os.abort()


def sleep_child(data: dict[str, Any], conn: Connection) -> None:
    """A child that hangs (to check that the harness notices)."""
    import time

    time.sleep(3600)


def run_case(
    ctx: Any,
    data: dict[str, Any],
    mutations: tuple[str, ...] = (),
    target: Any = _child,
    time_limit_s: float = TIME_LIMIT_S,
) -> Outcome:
    """One case in a child process running ``target`` (see the module doc)."""
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(data, send))
    proc.start()
    send.close()
    try:
        if not receive.poll(time_limit_s):
            proc.kill()
            proc.join()
            return Outcome("hang", mutations=mutations)
        kind, field, message = receive.recv()
    except EOFError:
        proc.join()
        return Outcome("abort", message=f"exit code {proc.exitcode}", mutations=mutations)
    finally:
        receive.close()
    proc.join(TIME_LIMIT_S)
    if proc.exitcode is None:
        proc.kill()
        proc.join()
        return Outcome("hang", message="did not exit after reporting", mutations=mutations)
    if proc.exitcode != 0:
        return Outcome("abort", message=f"exit code {proc.exitcode} after {kind}", mutations=mutations)
    return Outcome(kind, field, message, mutations)


def names_a_field(outcome: Outcome) -> bool:
    """Whether an error names the field it is about: in ``field``, or, for an
    error about the file or scenario as a whole, in the message."""
    return bool(outcome.field) or "`" in outcome.message or "'" in outcome.message


def summarize(outcomes: list[Outcome]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.kind] = counts.get(o.kind, 0) + 1
    return counts


def main() -> None:  # pragma: no cover - a manual entry point: python fuzz_scenarios.py SEED N
    import sys

    seed, n = int(sys.argv[1]), int(sys.argv[2])
    ctx = context()
    outcomes = []
    for data, muts in cases(seed, n):
        o = run_case(ctx, data, muts)
        outcomes.append(o)
        if o.kind in ("exception", "abort", "hang") or (o.kind == "error" and not names_a_field(o)):
            print(
                json.dumps({"kind": o.kind, "field": o.field, "message": o.message[:300], "mutations": muts})
            )
    print(summarize(outcomes))


if __name__ == "__main__":
    main()
