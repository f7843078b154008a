"""Scenario loading and validation: every error names the field and the allowed values."""

from __future__ import annotations

import copy

import pytest

import tcpeval
from conftest import small_dumbbell
from tcpeval import ScenarioError, load_scenario


def test_defaults_are_filled_in_and_hash_is_stable() -> None:
    a = load_scenario(small_dumbbell())
    b = load_scenario(small_dumbbell())
    assert a.data["packet_size"] == 1500
    assert a.data["probes"]["flow_period_ms"] == 10.0
    assert a.hash == b.hash
    assert a.replace(seed=4).hash != a.hash


def test_examples_all_validate(examples) -> None:
    files = sorted(examples.glob("*.toml"))
    assert len(files) >= 4
    for f in files:
        assert load_scenario(f).duration_s > 0


def _error(sc: dict) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario(sc)
    return info.value


def test_unknown_algorithm_lists_the_known_ones() -> None:
    sc = small_dumbbell()
    sc["flows"][1]["algorithm"] = "cubik"
    e = _error(sc)
    assert e.field == "flows[1].algorithm"
    assert "unknown algorithm 'cubik'" in e.message and "reno" in e.message


def test_negative_rate() -> None:
    sc = small_dumbbell()
    sc["topology"]["bottleneck"]["rate_mbps"] = -5
    e = _error(sc)
    assert e.field == "topology.bottleneck.rate_mbps"
    assert "allowed 0 < value" in e.message


def test_zero_buffer() -> None:
    sc = small_dumbbell()
    sc["topology"]["bottleneck"]["buffer"] = {"packets": 0}
    e = _error(sc)
    assert e.field == "topology.bottleneck.buffer.packets"
    assert "allowed 1" in e.message


def test_flow_on_a_missing_node() -> None:
    sc = {
        "duration_s": 1,
        "topology": {
            "kind": "graph",
            "nodes": ["a", "b"],
            "links": [{"from": "a", "to": "b", "rate_mbps": 10, "delay_ms": 1}],
        },
        "flows": [{"algorithm": "reno", "path": ["a", "c"]}],
    }
    e = _error(sc)
    assert e.field == "flows[0].path"
    assert "unknown node 'c'" in e.message


def test_unknown_field_and_bad_param() -> None:
    sc = small_dumbbell()
    sc["flows"][0]["rtt"] = 5
    e = _error(sc)
    assert e.field.startswith("flows[0]") and "unknown field `rtt`" in e.message
    sc = small_dumbbell()
    sc["flows"][0]["params"] = {"beta": 2.0}
    e = _error(sc)
    assert e.field == "flows[0].params.beta"
    assert "allowed" in e.message


def test_errors_inside_a_topology_name_the_full_path() -> None:
    # The topology is a table tagged by `kind`: errors inside it keep their path.
    sc = small_dumbbell()
    sc["topology"]["bottleneck"]["delay_ms"] = "ten"
    e = _error(sc)
    assert e.field == "topology.bottleneck.delay_ms"
    assert e.message == 'invalid type: string "ten", expected f64'
    sc = small_dumbbell()
    sc["topology"]["bottleneck"]["buffer_pkts"] = 5
    e = _error(sc)
    assert e.field == "topology.bottleneck.buffer_pkts"
    assert e.message.startswith("unknown field `buffer_pkts`, expected one of `rate_mbps`")
    sc = small_dumbbell()
    sc["topology"]["kind"] = "star"
    assert _error(sc).field == "topology.kind"


def test_an_error_in_a_file_names_the_file_and_line(tmp_path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        "duration_s = 5\n"
        "[topology]\n"
        'kind = "dumbbell"\n'
        "[topology.bottleneck]\n"
        "rate_mbps = 10\n"
        "delay_ms = -3\n"
        "[[flows]]\n"
        'algorithm = "reno"\n'
    )
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    e = info.value
    assert (e.field, e.location) == ("topology.bottleneck.delay_ms", f"{path}:6")
    assert str(e).startswith(f"{path}:6: topology.bottleneck.delay_ms: -3 is out of range")
    # A field the file does not write points at the nearest part it does
    # (the flow's table header); a missing top-level field at the file.
    path.write_text(path.read_text().replace("delay_ms = -3", "delay_ms = 3") + "params = { beta = 3 }\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert (info.value.field, info.value.location) == ("flows[0].params.beta", f"{path}:9")
    path.write_text(path.read_text().replace("duration_s = 5\n", ""))
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert (info.value.field, info.value.location) == ("duration_s", str(path))


def test_rtt_shorter_than_the_core_path() -> None:
    sc = small_dumbbell()
    sc["flows"][0]["rtt_ms"] = 5
    e = _error(sc)
    assert e.field == "flows[0].rtt_ms" and "allowed >= 20" in e.message


def test_non_finite_values_and_bad_toml(tmp_path) -> None:
    sc = small_dumbbell(duration_s=float("inf"))
    e = _error(sc)
    assert e.field == "duration_s" and "finite" in e.message
    bad = tmp_path / "bad.toml"
    bad.write_text("duration_s = = 3")
    with pytest.raises(ScenarioError, match="not valid TOML"):
        load_scenario(bad)
    with pytest.raises(ScenarioError, match="not found"):
        load_scenario(tmp_path / "missing.toml")


def test_input_dict_is_not_mutated() -> None:
    sc = small_dumbbell()
    before = copy.deepcopy(sc)
    load_scenario(sc)
    assert sc == before


def test_algorithm_catalog_documents_every_parameter() -> None:
    algos = {a.name: a for a in tcpeval.algorithms()}
    assert "reno" in algos
    for a in algos.values():
        assert a.summary
        assert set(a.defaults) == set(a.docs), a.name
