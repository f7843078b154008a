"""ECN (RFC 3168) and DCTCP from Python: the scenario option, the step
discipline, the counters, and ``examples/dctcp-dumbbell.toml`` (issue 20)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

import tcpeval
from tcpeval.errors import ScenarioError
from tcpeval.registry import algorithms, queues, tcp_options
from tcpeval.scenario import load_scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dctcp-dumbbell.toml"
WARMUP_S = 1.0


def _example(duration_s: float) -> dict:
    data = copy.deepcopy(load_scenario(EXAMPLE).data)
    data["duration_s"] = duration_s
    return data


def _bottleneck(r: tcpeval.RunResult) -> int:
    return int(r.links.index[r.links["name"] == "R1->R2"][0])


def test_the_dctcp_example_keeps_the_queue_near_k_without_loss() -> None:
    data = _example(5.0)
    k = data["topology"]["bottleneck"]["queue"]["mark_threshold"]
    r = tcpeval.run(data, progress=False)
    link = _bottleneck(r)
    q = r.queue_series[(r.queue_series["link"] == link) & (r.queue_series["time"] > WARMUP_S)]
    mean = float(q["qlen"].mean())
    assert 0.5 * k <= mean <= 1.25 * k, mean
    assert int(r.links.loc[link, "drops"]) == 0
    assert (r.flows["retransmitted"] == 0).all()
    # Every flow saw marks and reduced for them; the queue's marks arrived,
    # but for those still on their way when the run ended.
    assert (r.flows["ece_reductions"] > 0).all() and (r.flows["ce_received"] > 0).all()
    aqm = r.aqm_series[r.aqm_series["link"] == link]
    unseen = int(aqm["marks"].iloc[-1]) - int(r.flows["ce_received"].sum())
    assert 0 <= unseen <= int(r.flows["data_in_transit"].sum()), unseen
    assert (aqm["early_drops"] == 0).all() and (aqm["forced_drops"] == 0).all()


def test_ecn_off_by_default_leaves_the_scenario_and_the_counters_alone() -> None:
    base = {
        "duration_s": 3,
        "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": 10, "delay_ms": 10}},
        "flows": [{"algorithm": "reno", "rtt_ms": 40}],
    }
    plain = load_scenario(base)
    assert "ecn" not in plain.to_json()
    on = load_scenario({**base, "tcp": {"ecn": True}})
    assert '"ecn":true' in on.to_json() and on.hash != plain.hash
    r = tcpeval.run(plain, progress=False)
    assert (r.flows["ece_reductions"] == 0).all() and (r.flows["ce_received"] == 0).all()


def test_a_bad_step_threshold_names_its_field_and_range() -> None:
    data = _example(1.0)
    data["topology"]["bottleneck"]["queue"]["mark_threshold"] = 0
    with pytest.raises(ScenarioError, match=r"topology\.bottleneck\.queue\.mark_threshold.*allowed"):
        tcpeval.run(data, progress=False)
    data["topology"]["bottleneck"]["queue"] = {"kind": "red", "ecn": "yes"}
    with pytest.raises(ScenarioError, match=r"topology\.bottleneck\.queue\.ecn"):
        tcpeval.run(data, progress=False)


def test_dctcp_the_ecn_option_and_the_step_discipline_are_listed() -> None:
    dctcp = {a.name: a for a in algorithms()}["dctcp"]
    params = {p["name"]: p for p in dctcp.params}
    assert params["shift_g"]["default"] == 4 and params["alpha_on_init"]["default"] == 1024
    assert all(p["source"] for p in params.values())
    ecn = {o.name: o for o in tcp_options()}["ecn"]
    assert ecn.default is False and "RFC 3168" in ecn.source
    step = {q.name: q for q in queues()}["step"]
    assert [p["name"] for p in step.params] == ["mark_threshold"]
    red = {p["name"] for p in {q.name: q for q in queues()}["red"].params}
    assert {"ecn", "harddrop"} <= red
