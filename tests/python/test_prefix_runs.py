"""Runs that differ only in their duration are taken from one simulation as
long as the longest (``simulate.run_prefixes``, the runner's prefix
families), with exactly the tables each would have alone."""

from __future__ import annotations

import pytest

from tcpeval import runner, simulate
from tcpeval.results_db import results
from tcpeval.runner import run_study
from tcpeval.simulate import prefix_key, run, run_prefixes
from tcpeval.store import encode_run
from tcpeval.study import expand, parse_study


def dumbbell(duration_s: float, **extra: object) -> dict[str, object]:
    return {
        "duration_s": duration_s,
        "seed": 5,
        "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": 20, "delay_ms": 5, "loss": 0.001}},
        "flows": [
            {"algorithm": "cubic", "rtt_ms": 30},
            {"algorithm": "reno", "rtt_ms": 60, "start_s": 1.0},
        ],
        "probes": {"flow_period_ms": 50, "queue_period_ms": 50},
        **extra,
    }


def tables(result: object) -> dict[str, bytes]:
    """A run's encoded files but its summary (which holds the wall time)."""
    return {k: v for k, v in encode_run(result).items() if k != "summary.json"}  # type: ignore[arg-type]


def test_each_duration_gets_the_tables_of_its_own_run() -> None:
    durations = [6.0, 2.0, 4.35]  # unordered, one off the sampling grid
    shared = run_prefixes([dumbbell(d) for d in durations])
    assert [r.sim_time_s for r in shared] == durations
    for d, r in zip(durations, shared, strict=True):
        alone = run(dumbbell(d), progress=False)
        assert r.random_draws > 0 and r.events == alone.events
        assert tables(r) == tables(alone), d
        assert r.wall_time_s > 0


def test_only_runs_that_differ_in_their_duration_alone_share_a_prefix() -> None:
    assert prefix_key(dumbbell(2.0)) == prefix_key(dumbbell(9.0))
    assert prefix_key(dumbbell(2.0)) != prefix_key(dumbbell(2.0, seed=6))
    with pytest.raises(ValueError, match="differ only in duration_s and names"):
        run_prefixes([dumbbell(2.0), dumbbell(4.0, seed=6)])


def named(duration_s: float, first: str, second: str, **extra: object) -> dict[str, object]:
    sc = dumbbell(duration_s, **extra)
    sc["flows"] = [dict(f, name=n) for f, n in zip(sc["flows"], (first, second), strict=True)]  # type: ignore[call-overload]
    return sc


def test_runs_that_differ_in_their_flows_names_share_a_run_and_keep_their_own_names() -> None:
    # Two experiments through one scenario with their flows named apart (the
    # background study's utilization and intra grids for Reno), one of them
    # shorter; bulk traffic adds classes whose names do not change.
    bulk = {"bulk": [{"count": 2, "direction": "both"}]}
    scenarios = [named(4.0, "tested", "sack", traffic=bulk), named(4.0, "first", "second", traffic=bulk)]
    scenarios.append(named(2.5, "a", "b", traffic=bulk))
    assert len({prefix_key(s) for s in scenarios}) == 1
    assert prefix_key(scenarios[0]) != prefix_key(named(4.0, "a", "b"))  # the traffic differs
    shared = run_prefixes(scenarios)
    for sc, r in zip(scenarios, shared, strict=True):
        alone = run(sc, progress=False)
        assert list(r.flows["name"][:2]) == [f["name"] for f in sc["flows"]]  # type: ignore[index]
        assert list(r.classes["name"]) == list(alone.classes["name"])
        assert tables(r) == tables(alone)


def test_generated_traffic_shares_a_prefix_unless_its_event_falls_on_the_cut(monkeypatch) -> None:
    # Web transfers arrive at random times; the constant-rate UDP source
    # sends every 1.2 ms from 0, so exactly at 2.4 s, which a 2.4 s run does
    # not do (its sources stop at its end): that run is simulated alone.
    traffic = {
        "web": [{"load_mbps": 2, "direction": "forward"}],
        "udp": [{"rate_mbps": 1.0, "direction": "reverse"}],
    }
    durations = [2.4, 3.1, 4.0]
    alone_runs: list[float] = []

    def counting(scenario, progress=None):
        alone_runs.append(scenario.data["duration_s"])
        return run(scenario, progress=progress)

    monkeypatch.setattr(simulate, "run", counting)
    shared = run_prefixes([dumbbell(d, traffic=traffic) for d in durations])
    monkeypatch.undo()
    assert alone_runs == [2.4]
    for d, r in zip(durations, shared, strict=True):
        alone = run(dumbbell(d, traffic=traffic), progress=False)
        assert len(r.transfers) > 0
        assert tables(r) == tables(alone), d


DURATIONS = """
name = "durations"
replications = 2
[defaults]
duration_s = 2.0
probes = { flow_period_ms = 50, queue_period_ms = 50 }
[[experiment]]
name = "growth"
[experiment.scenario]
topology = { kind = "dumbbell", bottleneck = { rate_mbps = 20, delay_ms = 5, loss = 0.001 } }
flows = [{ name = "a", algorithm = "reno", rtt_ms = 20 }, { name = "b", algorithm = "cubic", rtt_ms = 40 }]
[experiment.sweep]
duration = { path = "duration_s", values = [2, 3.5, 5] }
[[experiment.metric]]
name = "goodput"
fn = "goodput_mbps"
agg = "sum"
"""


def count_families(monkeypatch) -> list[list[float]]:
    """The durations of each family the runner simulates from now on (the
    runner must run in-process for the patch to reach it)."""
    simulated: list[list[float]] = []
    real = runner.run_prefixes

    def counting(scenarios):
        simulated.append([s["duration_s"] for s in scenarios])
        return real(scenarios)

    monkeypatch.setattr(runner, "run_prefixes", counting)
    return simulated


def test_a_duration_sweep_is_simulated_once_per_seed_with_each_runs_own_results(
    tmp_path, monkeypatch
) -> None:
    study = parse_study(DURATIONS)
    simulated = count_families(monkeypatch)
    monkeypatch.setattr(runner, "run", lambda *a, **k: pytest.fail("a family member was run alone"))
    monkeypatch.setattr(runner, "local_pool", runner._ThreadPool)  # in-process, so the patches apply
    summary = run_study(study, tmp_path, workers=2, progress=False)
    assert summary.ok == 6 and not summary.failed
    assert sorted(simulated) == [[2, 3.5, 5], [2, 3.5, 5]]
    monkeypatch.undo()
    df = results(tmp_path).set_index("key")
    db = runner.ResultsDB(tmp_path)
    for spec in expand(study):
        alone = runner.execute(spec, [("goodput", "goodput_mbps", {"agg": "sum"})])
        assert alone.record.status == "ok" and alone.files is not None
        assert df.loc[spec.key, "goodput"] == alone.record.metrics["goodput"]
        for name, data in alone.files.items():
            if name != "summary.json":
                assert (db.run_dir(spec.key) / name).read_bytes() == data, (spec.point, name)
    assert df["goodput"].nunique() == 6
    db.close()


def test_a_failed_family_records_every_member_and_a_rerun_completes_it(tmp_path, monkeypatch) -> None:
    study = parse_study(DURATIONS)

    def broken(scenarios):
        raise RuntimeError("engine gone")

    monkeypatch.setattr(runner, "run_prefixes", broken)
    monkeypatch.setattr(runner, "local_pool", runner._ThreadPool)
    first = run_study(study, tmp_path, workers=1, progress=False)
    assert first.ok == 0 and len(first.failed) == 6
    assert all("engine gone" in (r.error or "") for r in first.failed)
    monkeypatch.undo()
    second = run_study(study, tmp_path, workers=1, progress=False)
    assert second.ok == 6 and not second.failed
    assert (results(tmp_path)["status"] == "ok").all()


def test_a_family_on_a_dask_cluster_stores_what_local_workers_store(tmp_path) -> None:
    distributed = pytest.importorskip("distributed")
    study = parse_study(DURATIONS)
    run_study(study, tmp_path / "local", workers=1, progress=False)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        summary = run_study(study, tmp_path / "dask", scheduler=cluster.scheduler_address, progress=False)
    assert summary.ok == 6 and not summary.failed
    local = results(tmp_path / "local").set_index("key")["goodput"].sort_index()
    dask = results(tmp_path / "dask").set_index("key")["goodput"].sort_index()
    assert local.to_dict() == dask.to_dict()


def test_a_family_that_draws_nothing_gives_its_later_seeds_as_twins(tmp_path, monkeypatch) -> None:
    # Without random loss the runs draw no random number: seed 1's family is
    # simulated once, and every seed 2 is stored from its seed-1 twin.
    study = parse_study(DURATIONS.replace(", loss = 0.001", ""))
    simulated = count_families(monkeypatch)
    monkeypatch.setattr(runner, "local_pool", runner._ThreadPool)
    summary = run_study(study, tmp_path, workers=1, progress=False)
    assert summary.ok == 6 and summary.reused == 3 and simulated == [[2, 3.5, 5]]
    df = results(tmp_path)
    assert df.groupby("duration")["goodput"].nunique().eq(1).all()


def test_a_family_over_the_memory_budget_runs_its_members_one_by_one(monkeypatch) -> None:
    from tcpeval import memory

    each = memory.estimate(dumbbell(4.0)).total
    monkeypatch.setenv(memory.BUDGET_ENV, str(1.5 * each / 1e6))  # one run fits, not two
    alone: list[float] = []
    real = simulate.run

    def counting(scenario, progress=None):
        alone.append(scenario.data["duration_s"])
        return real(scenario, progress=progress)

    monkeypatch.setattr(simulate, "run", counting)
    shared = run_prefixes([dumbbell(2.0), dumbbell(4.0)])
    assert alone == [2.0, 4.0] and [r.sim_time_s for r in shared] == [2.0, 4.0]


def test_results_are_read_at_planned_times_only() -> None:
    # Senders that take their ACKs ahead of the clock may have run past an
    # unplanned stop (10 ms samples here): the engine refuses to report
    # there rather than give a later state, and says how to plan it.
    from tcpeval import _core
    from tcpeval.scenario import load_scenario

    data = load_scenario(dumbbell(3.0, probes={"flow_period_ms": 10})).data
    sim = _core.Simulation(data)
    sim.advance(1.005)
    assert not sim.can_report_now and sim.snapshot() is None
    with pytest.raises(RuntimeError, match="plan_snapshots"):
        sim.finish()
    with pytest.raises(RuntimeError, match="before the first advance"):
        sim.plan_snapshots([2.0])
    planned = _core.Simulation(data)
    with pytest.raises(ValueError, match=r"times_s\[1\] = NaN"):
        planned.plan_snapshots([1.0, float("nan")])
    planned.plan_snapshots([1.005])
    planned.advance(1.005)
    assert planned.can_report_now
    assert planned.snapshot() is not None
