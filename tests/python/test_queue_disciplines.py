"""PIE, CoDel and FQ-CoDel on real runs (issue 20): each example scenario
runs, each discipline holds the queue delay near its target where DropTail
fills the buffer, and bad parameters name their field and range."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import tcpeval
from tcpeval.errors import ScenarioError
from tcpeval.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WARMUP_S = 5.0


def _example(name: str, duration_s: float) -> dict:
    data = copy.deepcopy(load_scenario(EXAMPLES / name).data)
    data["duration_s"] = duration_s
    return data


def _with_queue(data: dict, queue: dict | None) -> dict:
    data = copy.deepcopy(data)
    if queue is None:
        del data["topology"]["bottleneck"]["queue"]
    else:
        data["topology"]["bottleneck"]["queue"] = queue
    return data


def _bottleneck(r: tcpeval.RunResult) -> tuple[float, int, int]:
    """Mean packets waiting at R1->R2 after the warm-up, the most ever
    waiting, and the drops there."""
    link = int(r.links.index[r.links["name"] == "R1->R2"][0])
    q = r.queue_series[(r.queue_series["link"] == link) & (r.queue_series["time"] > WARMUP_S)]
    row = r.links.loc[link]
    return float(q["qlen"].mean()), int(row["max_qlen"]), int(row["drops"])


def test_pie_holds_the_queue_delay_near_its_target_where_droptail_fills_the_buffer() -> None:
    data = _example("pie-dumbbell.toml", 30.0)
    pie, dt = tcpeval.run(data, progress=False), tcpeval.run(_with_queue(data, None), progress=False)
    pie_mean, pie_max, pie_drops = _bottleneck(pie)
    dt_mean, dt_max, _ = _bottleneck(dt)
    assert dt_max == 1000 and dt_mean > 500, (dt_mean, dt_max)
    # 10 Mbit/s: a 1500-byte packet waits 1.2 ms per packet ahead of it, so
    # a 15 ms target is ~12.5 packets.
    assert 6 < pie_mean < 25 and pie_max < 1000 and pie_drops > 0, (pie_mean, pie_max, pie_drops)
    aqm = pie.aqm_series[pie.aqm_series["link_name"] == "R1->R2"]
    settled = aqm[aqm["time"] > WARMUP_S]
    assert 0.010 < settled["delay"].mean() < 0.020, settled["delay"].mean()
    assert 0 < settled["drop_prob"].mean() < 0.1
    last = aqm.iloc[-1]
    assert last["early_drops"] > 0 and last["early_drops"] <= pie_drops
    assert last["forced_drops"] == 0 and aqm["avg_queue"].isna().all()


def _utilization(r: tcpeval.RunResult, duration_s: float, rate_bps: float = 10e6) -> float:
    row = r.links[r.links["name"] == "R1->R2"].iloc[0]
    return float(row["bytes_departed"]) * 8 / duration_s / rate_bps


def test_codel_holds_the_sojourn_time_near_its_target_at_full_utilization() -> None:
    data = _example("codel-dumbbell.toml", 30.0)
    codel, dt = tcpeval.run(data, progress=False), tcpeval.run(_with_queue(data, None), progress=False)
    codel_mean, codel_max, codel_drops = _bottleneck(codel)
    dt_mean, dt_max, _ = _bottleneck(dt)
    assert dt_max == 1000 and dt_mean > 500, (dt_mean, dt_max)
    # 5 ms at 10 Mbit/s is ~4 full packets waiting.
    assert 2 < codel_mean < 10 and codel_max < 1000 and codel_drops > 0, (codel_mean, codel_max)
    assert _utilization(codel, 30.0) > 0.9 and _utilization(dt, 30.0) > 0.9
    aqm = codel.aqm_series[codel.aqm_series["link_name"] == "R1->R2"]
    settled = aqm[aqm["time"] > WARMUP_S]
    assert 0.003 < settled["delay"].mean() < 0.010, settled["delay"].mean()
    # It spends some of the time dropping, most of it not.
    assert 0 < settled["dropping"].mean() < 0.5
    last = aqm.iloc[-1]
    # With a 1000-packet buffer every drop is CoDel's own.
    assert last["early_drops"] == codel_drops and last["forced_drops"] == 0
    assert aqm["drop_prob"].isna().all() and (aqm["flow_queues"] == 0).all()


def _settled_goodputs(r: tcpeval.RunResult, since_s: float = 10.0) -> list[float]:
    """Each flow's goodput (Mbit/s) from ``since_s`` to the end."""
    out = []
    for f in sorted(r.flow_series["flow"].unique()):
        s = r.flow_series[r.flow_series["flow"] == f]
        a, b = s[s["time"] >= since_s].iloc[0], s.iloc[-1]
        out.append(float(b["delivered"] - a["delivered"]) * 8 / float(b["time"] - a["time"]) / 1e6)
    return out


def _jain(x: list[float]) -> float:
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x))


def test_fq_codel_shares_the_link_between_a_20_ms_and_a_200_ms_flow() -> None:
    data = _example("fq-codel-dumbbell.toml", 30.0)
    fq, dt = tcpeval.run(data, progress=False), tcpeval.run(_with_queue(data, None), progress=False)
    fq_share, dt_share = _settled_goodputs(fq), _settled_goodputs(dt)
    # DropTail: the 20 ms flow takes most of the link.
    assert dt_share[0] > 2 * dt_share[1] and _jain(dt_share) < 0.85, dt_share
    # FQ-CoDel: near-equal shares, the link still full.
    assert max(fq_share) < 1.4 * min(fq_share) and _jain(fq_share) > 0.97, fq_share
    assert sum(fq_share) > 9.0, fq_share
    aqm = fq.aqm_series[fq.aqm_series["link_name"] == "R1->R2"]
    settled = aqm[aqm["time"] > WARMUP_S]
    assert 0.003 < settled["delay"].mean() < 0.010, settled["delay"].mean()
    # Two flows, two flow queues at most holding packets.
    assert settled["flow_queues"].max() == 2 and settled["flow_queues"].mean() > 1.0
    assert 0 < settled["dropping"].mean() < 0.5 and settled["dropping"].max() <= 2
    last = aqm.iloc[-1]
    assert last["early_drops"] > 0 and last["forced_drops"] == 0


def test_fq_codel_drops_from_the_fattest_queue_at_the_buffer_limit() -> None:
    # A 20-packet buffer: the slow-start overshoot takes FQ-CoDel over its
    # limit, which it meets by dropping from the fattest flow queue.
    data = _example("fq-codel-dumbbell.toml", 10.0)
    data["topology"]["bottleneck"]["buffer"] = {"packets": 20}
    r = tcpeval.run(data, progress=False)
    last = r.aqm_series[r.aqm_series["link_name"] == "R1->R2"].iloc[-1]
    link = r.links[r.links["name"] == "R1->R2"].iloc[0]
    assert last["forced_drops"] > 0 and link["max_qlen"] == 20
    assert last["early_drops"] + last["forced_drops"] == link["drops"]


@pytest.mark.parametrize("name", ["pie-dumbbell.toml", "codel-dumbbell.toml", "fq-codel-dumbbell.toml"])
def test_runs_are_deterministic(name: str) -> None:
    data = _example(name, 5.0)
    a, b = tcpeval.run(data, progress=False), tcpeval.run(data, progress=False)
    assert a.links.equals(b.links) and a.aqm_series.equals(b.aqm_series)
    assert a.queue_series.equals(b.queue_series)


@pytest.mark.parametrize(
    ("queue", "field"),
    [
        ({"kind": "pie", "target_ms": 0}, "target_ms"),
        ({"kind": "pie", "alpha": 3}, "alpha"),
        ({"kind": "pie", "t_update": 3}, "t_update"),
        ({"kind": "codel", "target_ms": -5}, "target_ms"),
        ({"kind": "codel", "interval_ms": "x"}, "interval_ms"),
        ({"kind": "fq_codel", "quantum": 100}, "quantum"),
        ({"kind": "fq_codel", "flows": 1.5}, "flows"),
        ({"kind": "fq_codel", "flows": 70000}, "flows"),
    ],
)
def test_a_bad_queue_parameter_names_its_field(queue: dict, field: str) -> None:
    data = _with_queue(_example("pie-dumbbell.toml", 1.0), queue)
    with pytest.raises(ScenarioError, match=rf"topology\.bottleneck\.queue\.{field}"):
        tcpeval.run(data, progress=False)


@pytest.mark.parametrize("name", ["pie-dumbbell.toml", "codel-dumbbell.toml", "fq-codel-dumbbell.toml"])
def test_each_discipline_example_runs(name: str) -> None:
    r = tcpeval.run(_example(name, 2.0), progress=False)
    assert not r.aqm_series.empty and r.links["departures"].sum() > 0


def test_tcpeval_queues_lists_every_discipline() -> None:
    from tcpeval.registry import queues

    kinds = [q.name for q in queues()]
    assert kinds == ["droptail", "red", "step", "pie", "codel", "fq_codel"], kinds
