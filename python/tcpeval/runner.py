"""Running a study's runs: locally on a pool of worker processes (one run
per process at a time; a single worker runs in this process, on a thread)
or on a Dask distributed cluster, through the same function
:func:`execute`, with a progress bar over runs and resumption.

Processes rather than threads: the engine releases the GIL, but a run's
Python part (its tables, files and metrics, a fifth of a short run) does
not, and on threads those parts queue behind each other and behind the
storing here (two threads kept 1.67 of 2 cores busy in quick fairness,
BENCHMARKS.md). A worker process imports tcpeval once and sends back
only the encoded files.

Each run is simulated and its metrics computed where it ran (a worker, or
a Dask worker anywhere); its tables come back encoded in memory
(:class:`Outcome`) and the coordinator alone writes them atomically under
``runs/KEY`` and records them in the catalog, so a cluster needs no shared
disk. At most a window of runs is in flight (the pool size, twice the
cluster's threads), each under its claim, so several sweeps can share one
results directory (:mod:`tcpeval.results_db`). A run that fails is recorded with its
error and does not stop the others; a rerun retries it and skips every run
already stored. Runs start in turn from each experiment (round robin in
study order; each experiment's first seed of every sweep point, in sweep
order, before any second seed), so that the progress bar's rate, and so its
ETA, is a fair mix of cheap and costly experiments from the start.

A run whose simulation drew no random number (``random_draws`` 0 in its
summary: no random loss, jitter, generated traffic, random AQM drop or
seeded algorithm) gives the same tables for every seed. A later seed of the
same sweep point is then not simulated: its run is stored from that twin's
tables, with its own scenario and seed in its summary and ``reused_from``
naming the twin (:func:`reuse_seed_twin`). A later seed whose twin is still
running waits for it while other runs can start.

Runs that differ only in their duration and names (a sweep over
``duration_s``; two experiments through one scenario with their flows named
apart) form a prefix family (:func:`prefix_families`): the members still to
do are simulated as one run as long as the longest, each shorter one a
snapshot of it, each with its own names, with exactly its own tables
(:func:`execute_prefixes`, :func:`tcpeval.simulate.run_prefixes`).

When an experiment's metric declarations changed since its stored runs were
measured (``study.json`` keeps a digest per experiment), those runs are
re-measured from their stored tables, without simulating.

With ``backend="linux"`` the same sweep runs each scenario on this host's
kernel instead (:func:`tcpeval.testbed.run.run_linux`): one run at a time,
in real time, into a results directory of its own (``study.json`` names the
backend, and a directory of the other backend is refused). A run the host
cannot do (an algorithm its kernel lacks, a feature the testbed does not
build) is recorded as failed with the reason, like any failed run.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from tqdm import tqdm

from tcpeval import __version__
from tcpeval.errors import StoreError
from tcpeval.metrics.named import compute
from tcpeval.result import RunResult
from tcpeval.results_db import Claim, ResultsDB, RunRecord
from tcpeval.scenario import Scenario
from tcpeval.simulate import prefix_key, run, run_prefixes
from tcpeval.store import SUMMARY, encode_run, read_summary, store_run
from tcpeval.study import RunSpec, Study, expand, experiment_time_scale, plan_digest, sweep_paths
from tcpeval.testbed import BACKENDS


@dataclass(frozen=True)
class Outcome:
    """What running one spec gives back to the process that stores it: the
    catalog record (its ``files`` not yet known) and the run's files encoded
    in memory (None when the run failed). It travels through Dask as is, so
    workers need no access to the results directory."""

    record: RunRecord
    files: dict[str, bytes] | None
    version: str = __version__
    """The tcpeval version that simulated the run (a cluster worker's may differ)."""


def execute(spec: RunSpec, metrics: list[tuple[str, str, dict[str, Any]]], backend: str = "sim") -> Outcome:
    """Runs one spec (simulated, or on this host's kernel with ``backend =
    "linux"``), encodes its tables and computes its metrics; writes nothing.

    Never raises: a failure becomes a record with status ``error``.
    """
    started = time.perf_counter()

    def result() -> RunResult:
        if backend == "linux":
            from tcpeval.testbed.run import run_linux

            return run_linux(spec.scenario, progress=False)
        return run(spec.scenario, progress=False)

    return _outcome(spec, metrics, result, started)


def execute_prefixes(
    specs: list[RunSpec], metrics: list[list[tuple[str, str, dict[str, Any]]]]
) -> list[Outcome]:
    """Runs specs whose scenarios differ only in their duration and names
    (one :func:`tcpeval.simulate.prefix_key`) as one simulation, as long as the
    longest, the shorter ones snapshots of it (:func:`run_prefixes`: their
    tables are those of running each alone); ``metrics[i]`` are
    ``specs[i]``'s. An outcome per spec, in order, each with the wall time
    of its part of the run. Never raises: if the run fails, every spec's
    record carries the error."""
    started = time.perf_counter()
    try:
        results = run_prefixes([s.scenario for s in specs])
    except Exception as e:  # noqa: BLE001 - recorded on every spec below, as execute does
        failure = e

        def fail() -> RunResult:
            raise failure

        return [_outcome(s, m, fail, started) for s, m in zip(specs, metrics, strict=True)]
    return [
        _outcome(s, m, r, time.perf_counter() - r.wall_time_s)
        for s, m, r in zip(specs, metrics, results, strict=True)
    ]


def _outcome(
    spec: RunSpec,
    metrics: list[tuple[str, str, dict[str, Any]]],
    result: RunResult | Callable[[], RunResult],
    started: float,
) -> Outcome:
    """The outcome of ``spec`` from its run's ``result`` (a function is
    called here, so that its failure is recorded too): files encoded,
    metrics computed, the wall time counted from ``started``."""
    files = None
    try:
        res = result() if callable(result) else result
        files = encode_run(res, spec.skip_tables)
        values, error = measure(res, metrics)
        status = "ok"
    except Exception as e:  # noqa: BLE001 - a run must not stop the sweep: its error is recorded
        status, error, values = "error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}", {}
        files = None
    record = RunRecord(
        key=spec.key,
        experiment=spec.experiment,
        point=spec.point,
        seed=spec.seed,
        status=status,
        error=error,
        wall_s=time.perf_counter() - started,
        metrics=values,
    )
    return Outcome(record, files)


def measure(
    result: RunResult, metrics: list[tuple[str, str, dict[str, Any]]]
) -> tuple[dict[str, float | None], str | None]:
    """The named metrics of one run, and the errors of those that failed
    (their value is None), or None when all succeeded."""
    values: dict[str, float | None] = {}
    errors = []
    for name, fn, args in metrics:
        try:
            values[name] = compute(result, fn, args)
        except (ValueError, KeyError, IndexError) as e:
            values[name] = None
            errors.append(f"metric {name}: {e}")
    return values, "; ".join(errors) if errors else None


def metrics_digest(metrics: list[tuple[str, str, dict[str, Any]]]) -> str:
    """Identity of an experiment's metric declarations, as run."""
    return hashlib.sha256(json.dumps(metrics, sort_keys=True).encode()).hexdigest()[:16]


def _remeasure(
    db: ResultsDB,
    specs: list[RunSpec],
    metric_specs: dict[str, list[Any]],
    stale: set[str],
    show: bool | None,
    damaged: set[str],
) -> None:
    """Recomputes the metrics of the stored runs of the ``stale`` experiments
    from their stored tables (no simulation): their metric declarations
    changed since those runs were measured. ``damaged`` runs are left to be
    simulated again."""
    stored = db.done_keys() - damaged
    redo = [s for s in specs if s.experiment in stale and s.key in stored]
    for spec in tqdm(redo, unit="run", desc="re-measuring", disable=show):
        values, error = measure(db.load_run(spec.key), metric_specs[spec.experiment])
        db.record(
            RunRecord(
                spec.key, spec.experiment, spec.point, spec.seed, "ok", error, db.wall_s(spec.key), values
            )
        )


def scaled_args(args: dict[str, Any], scale: float) -> dict[str, Any]:
    """Metric arguments for runs whose duration was scaled: time windows scale alike."""
    if "window" not in args or scale == 1.0:
        return args
    return dict(args, window=[float(w) * scale for w in args["window"]])


@dataclass(frozen=True)
class SweepSummary:
    """What a call to :func:`run_study` did.

    ``skipped``: runs stored before, or by another process during, this
    sweep; ``ok``: runs stored now, ``reused`` of them from a seed twin's
    tables instead of simulated (see the module doc); ``failed``: runs that
    raised; ``metric_failed``: runs stored whose metrics (some of them) could
    not be computed; ``repaired``: stored runs found damaged and simulated
    again."""

    total: int
    skipped: int
    ok: int
    failed: list[RunRecord]
    metric_failed: list[RunRecord] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    reused: int = 0


def point_id(spec: RunSpec) -> tuple[str, str]:
    """The experiment and sweep point of a run: the same for all its seeds."""
    return spec.experiment, json.dumps(spec.point, sort_keys=True)


def interleave(specs: list[RunSpec]) -> list[RunSpec]:
    """``specs`` reordered round robin over their experiments: the first run
    of each experiment (in order of first appearance), then the second of
    each, and so on. Within an experiment, the first seed of every sweep
    point comes before any point's second seed (otherwise in sweep order),
    so that a seed twin is usually stored before its later seeds start."""
    by_exp: dict[str, list[RunSpec]] = {}
    for s in specs:
        by_exp.setdefault(s.experiment, []).append(s)
    queues = []
    for q in by_exp.values():
        seen: dict[tuple[str, str], int] = {}
        ranks = []
        for s in q:
            pid = point_id(s)
            ranks.append(seen.get(pid, 0))
            seen[pid] = ranks[-1] + 1
        queues.append([s for _, s in sorted(zip(ranks, q, strict=True), key=lambda rs: rs[0])])
    longest = max((len(q) for q in queues), default=0)
    return [q[i] for i in range(longest) for q in queues if i < len(q)]


def reuse_seed_twin(db: ResultsDB, spec: RunSpec, twins: list[RunSpec]) -> Outcome | None:
    """The outcome of ``spec`` taken from a stored run of another seed of its
    sweep point (one of ``twins``) whose simulation drew no random number, so
    that its tables are exactly what simulating ``spec`` would give; None
    when there is no such twin (then ``spec`` is simulated).

    A twin qualifies when it is stored intact by this tcpeval version, its
    summary says ``random_draws`` 0, and its scenario is ``spec``'s but for
    the seed. The outcome has the twin's tables byte for byte and metrics
    (they read the tables, never the seed), and a summary with ``spec``'s
    scenario, hash and seed and ``reused_from`` naming the twin's key."""
    started = time.perf_counter()
    mine = dict(spec.scenario, seed=None)
    for twin in twins:
        status = db.status(twin.key) if twin.key != spec.key else None
        if status is None or status[0] != "ok":
            continue
        try:
            summary = read_summary(db.run_dir(twin.key) / SUMMARY)
        except StoreError:
            continue  # unreadable: simulate instead
        if (
            summary.get("random_draws") != 0
            or summary.get("tcpeval_version") != __version__
            or dict(summary["scenario"], seed=None) != mine
            or not db.stored_ok(twin.key)  # last: it reads every file of the twin
        ):
            continue
        stored = db.records_of([twin.key])
        if not stored:
            continue
        try:
            files = {p.name: p.read_bytes() for p in db.run_dir(twin.key).iterdir() if p.name != SUMMARY}
        except OSError:
            continue  # unreadable: simulate instead
        summary.update(
            seed=spec.seed,
            scenario=spec.scenario,
            scenario_hash=Scenario(spec.scenario).hash,
            reused_from=twin.key,
        )
        files[SUMMARY] = json.dumps(summary, indent=2, default=float).encode()
        record = replace(
            stored[0], key=spec.key, seed=spec.seed, wall_s=time.perf_counter() - started, files=None
        )
        return Outcome(record, files)
    return None


ExecutorT = TypeVar("ExecutorT", bound=Executor)


class _LocalPool(Generic[ExecutorT]):
    """Runs :func:`execute` on a local executor's ``workers`` workers."""

    def __init__(self, executor: ExecutorT, workers: int, backend: str) -> None:
        self._executor = executor
        self.window = workers
        self._backend = backend
        self.prefixes = backend == "sim"
        """Runs sharing a prefix may go as one (:meth:`submit_prefixes`): simulated runs only."""

    def submit(self, spec: RunSpec, metrics: list[Any]) -> Future[Outcome]:
        return self._submit(execute, spec, metrics, self._backend)

    def submit_prefixes(self, specs: list[RunSpec], metrics: list[list[Any]]) -> Future[list[Outcome]]:
        return self._submit(execute_prefixes, specs, metrics)

    def _submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        return self._executor.submit(fn, *args)

    def wait(self, futures: list[Any], timeout: float) -> set[Any]:
        done, _ = futures_wait(futures, timeout=timeout, return_when=FIRST_COMPLETED)
        return done

    def close(self) -> None:
        # Runs not started are cancelled; a run in progress cannot be stopped
        # midway, its result is dropped (its claim is released, a rerun redoes it).
        self._executor.shutdown(wait=False, cancel_futures=True)


class _ThreadPool(_LocalPool[ThreadPoolExecutor]):
    """Runs :func:`execute` on local threads (the engine releases the GIL)."""

    def __init__(self, workers: int, backend: str = "sim") -> None:
        super().__init__(ThreadPoolExecutor(max_workers=workers), workers, backend)


class _ProcessPool(_LocalPool[ProcessPoolExecutor]):
    """Runs :func:`execute` on ``workers`` local processes (spawned, so that
    no lock of this process's threads is inherited). A worker ends with the
    sweep: :meth:`close` stops the workers, and a worker whose parent is
    gone (killed) exits by itself (:func:`_init_worker`)."""

    def __init__(self, workers: int) -> None:
        context = multiprocessing.get_context("spawn")
        executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_init_worker, initargs=(os.getpid(),)
        )
        super().__init__(executor, workers, "sim")

    def _submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        # The pool starts its workers inside submit, and a process started
        # from a thread that blocks SIGINT keeps it blocked: the workers never
        # receive the terminal's Ctrl-C (sent to the whole process group),
        # which this process handles by stopping them, where each would
        # otherwise print a traceback. (Another thread of this process can
        # still take the signal, so the KeyboardInterrupt may come inside
        # submit; the CLI then exits at once, see cli._must_exit_at_once.)
        if not hasattr(signal, "pthread_sigmask"):
            return super()._submit(fn, *args)
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return super()._submit(fn, *args)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)

    def close(self) -> None:
        """Cancels the runs not started and stops those in progress (a pool's
        own shutdown would let them run to their end, or after an
        interruption leave idle workers behind), then waits for the pool's
        manager thread. The pool has no public handle on its processes or
        queues before Python 3.14, hence the private names.

        - This process's end of the result pipe is closed first: a worker
          stopped while sending its result left the manager thread waiting
          for the rest of the message, for ever (this process still held a
          writer), and Python's exit waited for that thread.
        - The manager thread, which ends once it sees the workers gone, is
          waited for: at exit Python wakes each running manager thread
          without a lock, and one closing its wake-up pipe meanwhile printed
          a traceback.
        """
        ex = self._executor
        workers = list(ex._processes.values())
        manager: threading.Thread | None = getattr(
            ex, "_executor_manager_thread", None
        )  # typeshed mistypes it
        results = getattr(ex, "_result_queue", None)
        super().close()
        if results is not None:
            results._writer.close()
        for w in workers:
            w.terminate()
        for w in workers:
            w.join()
        if manager is not None:
            manager.join(timeout=10.0)


def _init_worker(parent: int) -> None:
    """A worker process's initializer.

    - A thread ends the worker once ``parent`` (the sweep's process) is gone,
      so that no simulation runs on for a killed sweep. The engine releases
      the GIL, so the thread runs during a simulation too.
    - tqdm's bars in the worker (hidden ones too) share a thread lock instead
      of tqdm's default process lock. In a spawned process that lock would be
      a named semaphore, which only the worker's exit handlers remove; the
      pool ends its workers by SIGTERM, and Python's resource tracker then
      warned of leaked semaphores at the end of every sweep.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()
    tqdm.set_lock(threading.RLock())


def local_pool(workers: int) -> _LocalPool[Any]:
    """The pool of ``workers`` local workers: processes, or this process
    alone (on one thread) for a single worker."""
    return _ProcessPool(workers) if workers > 1 else _ThreadPool(1)


class _DaskPool:
    """Runs :func:`execute` on a Dask cluster; outcomes come back to this process."""

    def __init__(self, scheduler: str) -> None:
        from distributed import Client

        self._client = Client(scheduler)
        threads = sum(self._client.nthreads().values())
        self.window = max(2 * threads, 2)
        self.prefixes = True

    def submit(self, spec: RunSpec, metrics: list[Any]) -> Any:
        return self._client.submit(execute, spec, metrics, pure=False)

    def submit_prefixes(self, specs: list[RunSpec], metrics: list[list[Any]]) -> Any:
        return self._client.submit(execute_prefixes, specs, metrics, pure=False)

    def wait(self, futures: list[Any], timeout: float) -> set[Any]:
        from distributed import wait

        try:
            done, _ = wait(futures, timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set()
        return set(done)

    def close(self) -> None:
        self._client.close()


def dask_missing_message() -> str | None:
    """Why ``--scheduler`` cannot work in this install, or None when Dask is there."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        return 'running on a Dask cluster needs Dask: pip install "tcpeval[dask]"'
    return None


@dataclass
class _Tally:
    """What :func:`_sweep` did, as it goes."""

    ok: int = 0
    elsewhere: int = 0
    reused: int = 0
    failed: list[RunRecord] = field(default_factory=list)
    metric_failed: list[RunRecord] = field(default_factory=list)


def _store(db: ResultsDB, spec: RunSpec, outcome: Outcome, tally: _Tally, bar: Any) -> None:
    """Stores one outcome (under ``spec``'s claim, held by the caller) and counts it."""
    rec = outcome.record
    if outcome.version != __version__:
        # Its key says this version: results of another must not be stored under it.
        rec = replace(
            rec,
            status="error",
            metrics={},
            error=f"the worker runs tcpeval {outcome.version}, this process "
            f"{__version__}: install the same version on every worker",
        )
        outcome = Outcome(rec, None)
    if outcome.files is not None:
        rec = replace(rec, files=store_run(outcome.files, db.run_dir(spec.key)))
    db.record(rec)
    if rec.status == "ok":
        tally.ok += 1
        if rec.error:
            tally.metric_failed.append(rec)
            bar.write(f"metrics failed: {_where(rec)}: {rec.error}")
    else:
        tally.failed.append(rec)
        bar.write(f"run failed: {_where(rec)}: {(rec.error or '').splitlines()[0]}")
    bar.update(1)


def prefix_families(specs: list[RunSpec]) -> dict[str, list[RunSpec]]:
    """The specs whose scenarios differ only in their duration and names
    (:func:`tcpeval.simulate.prefix_key`; a sweep over ``duration_s``, or two
    experiments through the same scenario with their flows named apart), by
    key of each member: families of two or more runs, longest last, that one
    simulation as long as the longest gives (:func:`execute_prefixes`)."""
    groups: dict[str, list[RunSpec]] = {}
    for spec in specs:
        groups.setdefault(prefix_key(spec.scenario), []).append(spec)
    family: dict[str, list[RunSpec]] = {}
    for members in groups.values():
        if len(members) > 1:
            members.sort(key=lambda s: float(s.scenario["duration_s"]))
            family.update((m.key, members) for m in members)
    return family


def _sweep(
    db: ResultsDB,
    todo: list[RunSpec],
    metric_specs: dict[str, list[Any]],
    pool: _LocalPool[Any] | _DaskPool,
    bar: Any,
    started_at: float,
    every: list[RunSpec],
) -> _Tally:
    """Runs ``todo`` on ``pool``, at most ``pool.window`` at a time, each under
    its claim, storing a later seed from its seed twin (among ``every`` run
    of the sweep, stored or not) where it can, and running the members of a
    prefix family still to do as one simulation (see the module doc)."""
    pending = deque(todo)
    waiting: list[RunSpec] = []
    running: dict[Any, list[tuple[RunSpec, Claim]]] = {}
    twins: dict[tuple[str, str], list[RunSpec]] = {}
    for spec in every:
        twins.setdefault(point_id(spec), []).append(spec)
    family = prefix_families(todo) if pool.prefixes else {}
    in_flight: dict[tuple[str, str], int] = {}
    tally = _Tally()

    def take(spec: RunSpec) -> Claim | None:
        """Claims ``spec`` to simulate it; None when it is not to be
        simulated here (another process holds it: it waits; stored
        meanwhile; or stored now from its seed twin)."""
        claim = db.claim(spec.key)
        if claim is None:  # another process is running it
            waiting.append(spec)
            return None
        status = db.status(spec.key)
        if status is not None and (
            (status[0] == "ok" and db.stored_ok(spec.key)) or (status[0] != "ok" and status[1] >= started_at)
        ):
            # Stored (or tried) by another process since this sweep began.
            claim.release()
            tally.elsewhere += 1
            bar.update(1)
            return None
        db.remove_partial_runs(spec.key)
        try:
            reused = reuse_seed_twin(db, spec, twins[point_id(spec)])
            if reused is not None:
                _store(db, spec, reused, tally, bar)
        except BaseException:
            claim.release()
            raise
        if reused is not None:
            claim.release()
            tally.reused += 1
            return None
        return claim

    try:
        while pending or running or waiting:
            passed = 0  # specs put back since the last one started
            while pending and len(running) < pool.window and passed < len(pending):
                spec = pending.popleft()
                pid = point_id(spec)
                if in_flight.get(pid) and len(twins[pid]) > 1:
                    # Its twin may draw nothing: let other runs go first.
                    pending.append(spec)
                    passed += 1
                    continue
                passed = 0
                # The spec and the rest of its prefix family not yet started.
                # (A member whose seed twin is running waits for it, as above.)
                others = {
                    m.key
                    for m in family.get(spec.key, [])
                    if not (in_flight.get(point_id(m)) and len(twins[point_id(m)]) > 1)
                } - {spec.key}
                group = [spec]
                if others:
                    group += [m for m in pending if m.key in others]
                    pending = deque(m for m in pending if m.key not in others)
                taken: list[tuple[RunSpec, Claim]] = []
                try:
                    for m in group:
                        claim = take(m)
                        if claim is not None:
                            taken.append((m, claim))
                except BaseException:
                    for _, claim in taken:
                        claim.release()
                    raise
                if not taken:
                    continue
                taken.sort(key=lambda mc: float(mc[0].scenario["duration_s"]))
                specs = [m for m, _ in taken]
                try:
                    if len(specs) == 1:
                        future = pool.submit(specs[0], metric_specs[specs[0].experiment])
                    else:
                        future = pool.submit_prefixes(specs, [metric_specs[m.experiment] for m in specs])
                except BaseException:
                    for _, claim in taken:
                        claim.release()
                    raise
                running[future] = taken
                for m in specs:
                    in_flight[point_id(m)] = in_flight.get(point_id(m), 0) + 1
            if running:
                for future in pool.wait(list(running), timeout=0.5):
                    members = running.pop(future)
                    try:
                        result = future.result()
                        outcomes = [result] if isinstance(result, Outcome) else result
                        for (m, _), outcome in zip(members, outcomes, strict=True):
                            in_flight[point_id(m)] -= 1
                            _store(db, m, outcome, tally, bar)
                    finally:
                        for _, claim in members:
                            claim.release()
            elif waiting:
                time.sleep(0.2)
                free = []
                for spec in waiting:
                    claim = db.claim(spec.key)
                    if claim is not None:
                        claim.release()
                        free.append(spec)
                waiting = [s for s in waiting if s not in free]
                pending.extend(free)
    finally:
        pool.close()
        for members in running.values():
            for _, claim in members:
                claim.release()
    return tally


def _where(rec: RunRecord) -> str:
    return f"{rec.experiment} {rec.point} seed {rec.seed}"


def run_study(
    study: Study,
    out_dir: str | Path,
    *,
    quick: bool = False,
    only: list[str] | None = None,
    platform: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    backend: str = "sim",
) -> SweepSummary:
    """Runs every run of ``study`` not yet stored in ``out_dir``.

    ``scheduler``: address of a Dask scheduler (``tcp://host:8786``) to run
    on a cluster (workers send each run's tables back; only this process
    writes ``out_dir``); otherwise a local pool of ``workers`` processes
    (default: all cores; one worker runs in this process). ``platform`` runs
    every scenario on that platform preset instead of the study's
    (:func:`tcpeval.study.expand`). Other
    processes may run the same study into ``out_dir`` at the same time
    (:mod:`tcpeval.results_db`). Stored runs whose files are damaged are
    simulated again. Raises :class:`~tcpeval.errors.StoreError` when
    ``out_dir`` cannot be written (the runs stored so far stay) or holds
    runs of the other ``backend``.

    ``backend = "linux"`` runs each scenario on this host's kernel, one at a
    time (``workers`` and ``scheduler`` do not apply: the runs are real time
    and need this host's namespaces); raises
    :class:`~tcpeval.testbed.host.TestbedError` before creating anything when
    this host cannot run the testbed at all.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend: {backend!r} is not one of {', '.join(BACKENDS)}")
    if backend == "linux":
        from tcpeval.testbed.host import TestbedError, check_can_run

        if scheduler:
            raise TestbedError("the linux backend runs on this host only; it cannot use a Dask scheduler")
        check_can_run()
    if scheduler and (missing := dask_missing_message()):
        raise ImportError(missing)
    specs = expand(study, quick=quick, only=only, platform=platform)
    started_at = time.time()
    db = ResultsDB(out_dir)
    try:
        stored_backend = db.study_info().get("backend", "sim")
        if db.done_keys() and stored_backend != backend:
            raise StoreError(
                out_dir,
                f"holds runs of the {stored_backend} backend; runs of the {backend} backend go to "
                "another results directory (--out)",
            )
        previous = db.study_info()
        info: dict[str, Any] = {
            "name": study.name,
            "mode": "quick" if quick else "full",
            "platform": platform or study.platform or "linux",
            "platform_override": platform,
            "backend": backend,
            "tcpeval_version": __version__,
            "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "finished": None,
            "planned_runs": len(specs),
        }
        if db.done_keys() and previous.get("started") and previous.get("mode") == info["mode"]:
            info["started"] = previous["started"]  # the study's first sweep here, not this resumption
        info["last_sweep"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        digest = plan_digest(study.source, quick, platform)
        if only is None:
            info["planned_keys"] = {"digest": digest, "keys": sorted(s.key for s in specs)}
        elif (previous.get("planned_keys") or {}).get("digest") == digest:
            info["planned_keys"] = previous["planned_keys"]  # a partial sweep of the same plan
        scales = {
            e.name: experiment_time_scale(study.duration_scale, sweep_paths(e)) if quick else 1.0
            for e in study.experiments
        }
        metric_specs = {
            e.name: [(m.name, m.fn, scaled_args(m.args, scales[e.name])) for m in e.metrics]
            for e in study.experiments
        }
        info["metrics"] = {name: metrics_digest(m) for name, m in metric_specs.items()}
        measured = previous.get("metrics", {})
        show = None if progress is None else not progress
        db.remove_partial_runs()
        wanted = {s.key for s in specs}
        damaged = db.damaged(wanted)
        for key, problems in sorted(damaged.items()):
            for problem in problems:
                print(
                    f"tcpeval: stored run {key} is damaged: {problem}; simulating it again", file=sys.stderr
                )
        stale = {n for n, d in info["metrics"].items() if measured.get(n) != d}
        _remeasure(db, specs, metric_specs, stale, show, set(damaged))
        db.write_study(study.source, info)
        done = db.done_keys() - set(damaged)
        todo = interleave([s for s in specs if s.key not in done])
        pool: _LocalPool[Any] | _DaskPool
        if backend == "linux":
            pool = _ThreadPool(1, backend)  # real time: one testbed at a time
        elif scheduler:
            pool = _DaskPool(scheduler)
        else:
            pool = local_pool(workers or os.cpu_count() or 1)
        with tqdm(total=len(todo), unit="run", desc=study.name, disable=show) as bar:
            tally = _sweep(db, todo, metric_specs, pool, bar, started_at, specs)
        info["finished"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        db.write_study(study.source, info)
    finally:
        db.close()
    return SweepSummary(
        total=len(specs),
        skipped=len(specs) - len(todo) + tally.elsewhere,
        ok=tally.ok,
        failed=tally.failed,
        metric_failed=tally.metric_failed,
        repaired=sorted(damaged),
        reused=tally.reused,
    )
