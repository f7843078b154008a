"""Inputs that used to give tracebacks, silent defaults or aborts: each is now
a ScenarioError naming the field (tcpeval.scenario_checks, tcpeval.memory)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

import tcpeval
from conftest import ROOT, small_dumbbell, subprocess_env
from tcpeval import ScenarioError, load_scenario
from tcpeval.memory import BUDGET_ENV, estimate
from tcpeval.study import StudyError, load_study, parse_study


def _error(source) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario(source)
    return info.value


def test_positional_array_for_a_table_is_refused() -> None:
    sc = small_dumbbell()
    sc["topology"]["bottleneck"] = [20, 10]
    e = _error(sc)
    assert e.field == "topology.bottleneck"
    assert "must be a table" in e.message


def test_array_inside_an_array_of_tables_is_refused() -> None:
    sc = small_dumbbell()
    sc["flows"][1] = ["reno", 40]
    assert _error(sc).field == "flows[1]"


def test_nan_and_inf_name_their_field() -> None:
    for bad in (float("nan"), float("inf"), -float("inf")):
        sc = small_dumbbell()
        sc["flows"][1]["rtt_ms"] = bad
        e = _error(sc)
        assert e.field == "flows[1].rtt_ms"
        assert "finite" in e.message


def test_nan_in_a_toml_file_names_its_field(tmp_path: Path) -> None:
    f = tmp_path / "nan.toml"
    f.write_text(
        'duration_s = nan\n[topology]\nkind = "dumbbell"\nbottleneck = { rate_mbps = 10, delay_ms = 5 }\n'
        '[[flows]]\nalgorithm = "reno"\n'
    )
    assert _error(f).field == "duration_s"


def test_deep_nesting_is_refused_without_recursion_error(tmp_path: Path) -> None:
    sc = small_dumbbell()
    node: dict = {}
    sc["tcp"] = node
    for _ in range(2000):
        node["a"] = {}
        node = node["a"]
    e = _error(sc)
    assert e.field.startswith("tcp.a.a")
    assert "nested deeper" in e.message
    f = tmp_path / "deep.toml"
    f.write_text("x = " + "{a = " * 2000 + "1" + "}" * 2000 + "\n")
    e = _error(f)
    assert str(f) in e.message


def test_binary_file_directory_and_device_as_scenario(tmp_path: Path) -> None:
    binary = tmp_path / "x.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    assert "not a TOML text file" in _error(binary).message
    assert "is a directory" in _error(tmp_path).message
    assert "not a regular file" in _error(Path("/dev/zero")).message


def test_unknown_key_beside_kind_internet() -> None:
    sc = small_dumbbell()
    sc["traffic"] = {"bulk": [{"algorithm": "reno", "rtt": {"kind": "internet", "median_ms": 5}}]}
    e = _error(sc)
    assert e.field == "traffic.bulk[0].rtt.median_ms"


def test_study_name_ending_in_a_newline() -> None:
    text = (ROOT / "python/tcpeval/studies/reverse.toml").read_text()
    text = text.replace('name = "reverse"', 'name = "reverse\\n"', 1)
    with pytest.raises(StudyError) as info:
        parse_study(text)
    assert info.value.field == "name"


def test_study_file_that_is_a_directory(tmp_path: Path) -> None:
    d = tmp_path / "s.toml"
    d.mkdir()
    with pytest.raises(StudyError, match="is a directory"):
        load_study(d)


# --- files a scenario reads -------------------------------------------------


def _cdf_scenario(path: str) -> dict:
    sc = small_dumbbell()
    sc["traffic"] = {"bulk": [{"algorithm": "reno", "count": 2, "rtt": {"kind": "cdf", "path": path}}]}
    return sc


def test_rtt_cdf_contents_are_part_of_the_hash(tmp_path: Path) -> None:
    f = tmp_path / "rtt.csv"
    f.write_text("rtt_ms,cdf\n10,0\n100,1\n")
    a = load_scenario(_cdf_scenario(str(f)))
    f.write_text("rtt_ms,cdf\n10,0\n200,1\n")
    b = load_scenario(_cdf_scenario(str(f)))
    assert a.data == b.data
    assert a.hash != b.hash
    assert list(b.inputs) == ["traffic.bulk[0].rtt.path"]


def test_scenario_without_files_keeps_its_hash() -> None:
    # The hash of a scenario that reads no file is the SHA-256 of its JSON, as before.
    import hashlib

    sc = load_scenario(small_dumbbell())
    assert sc.hash == hashlib.sha256(sc.to_json().encode()).hexdigest()


def test_rtt_cdf_from_a_device_or_too_large(tmp_path: Path) -> None:
    e = _error(_cdf_scenario("/dev/zero"))
    assert e.field == "traffic.bulk[0].rtt.path" and "not a regular file" in e.message
    big = tmp_path / "big.csv"
    with big.open("wb") as f:
        f.truncate(17 * 1024 * 1024)
    e = _error(_cdf_scenario(str(big)))
    assert e.field == "traffic.bulk[0].rtt.path" and "allowed at most" in e.message


# --- memory ------------------------------------------------------------------


def test_a_million_flows_is_refused_naming_the_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUDGET_ENV, "2000")
    sc = small_dumbbell()
    sc["flows"][1]["count"] = 1_000_000
    e = _error(sc)
    # Traced, their samples cost most; the message lists both fields.
    assert e.field == "probes.flow_period_ms"
    assert "flows[1].count: 12.0 GB" in e.message and "2.0 GB" in e.message and BUDGET_ENV in e.message
    sc["flows"][1]["trace"] = False
    assert _error(sc).field == "flows[1].count"


def test_dense_probes_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BUDGET_ENV, "2000")
    sc = small_dumbbell(duration_s=100.0, probes={"flow_period_ms": 0.001})
    e = _error(sc)
    assert e.field == "probes.flow_period_ms"


def test_the_budget_is_settable(monkeypatch: pytest.MonkeyPatch) -> None:
    sc = small_dumbbell()
    sc["flows"][1].update(count=20_000, trace=False)  # about 290 MB estimated
    monkeypatch.setenv(BUDGET_ENV, "100")
    assert _error(copy.deepcopy(sc)).field == "flows[1].count"
    monkeypatch.setenv(BUDGET_ENV, "1000")
    load_scenario(sc)
    for bad in ("lots", "inf", "nan", "-5"):
        monkeypatch.setenv(BUDGET_ENV, bad)
        assert BUDGET_ENV in _error(sc).message


def _peak_rss(sc: dict) -> int:
    """Peak resident memory of a fresh process that runs ``sc``, bytes
    (VmHWM: ru_maxrss would carry over the forking parent's peak)."""
    code = (
        "import json, re, sys, tcpeval\n"
        "tcpeval.run(json.loads(sys.argv[1]), progress=False)\n"
        "status = open('/proc/self/status').read()\n"
        "print(int(re.search(r'VmHWM:\\s+(\\d+) kB', status).group(1)) * 1024)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(sc)],
        capture_output=True,
        text=True,
        check=True,
        env=subprocess_env(),
    )
    return int(out.stdout)


def test_estimate_is_above_what_a_run_uses() -> None:
    """The estimate bounds the peak memory a run adds to a process that ran a
    tiny scenario (building 20,000 flows; a run with 1 ms probes)."""
    baseline = _peak_rss(small_dumbbell(duration_s=2.0))
    many = small_dumbbell(duration_s=1.0)
    many["flows"][1].update(count=20_000, start_s=0.0)
    dense = small_dumbbell(duration_s=200.0, probes={"flow_period_ms": 1, "queue_period_ms": 1})
    for sc in (many, dense):
        used = _peak_rss(sc) - baseline
        estimated = estimate(sc).total
        assert 20e6 < used < estimated, (sc["flows"][1], used, estimated)
        assert estimated < 10 * used  # and not absurdly above it
    assert estimate(small_dumbbell()).total < 100e6


def test_class_series_is_estimated_only_where_the_engine_records_it() -> None:
    """The engine's default: class probes follow the flow period with
    generated traffic and are off when every class is a flow entry."""
    assert "probes.class_period_ms" not in estimate(small_dumbbell()).parts
    asked = small_dumbbell(probes={"class_period_ms": 100})
    assert estimate(asked).parts["probes.class_period_ms"] > 0
    web = small_dumbbell(traffic={"web": [{"name": "web"}]})
    assert estimate(web).parts["probes.class_period_ms"] > 0
    r = tcpeval.run(small_dumbbell(duration_s=1.0), progress=False)
    assert len(r.class_series) == 0 and len(r.flow_series) > 0
    r = tcpeval.run(small_dumbbell(duration_s=1.0, traffic={"web": [{"name": "web"}]}), progress=False)
    assert set(r.class_series["class"]) == {0, 1, 2}


def test_absurd_sizes_do_not_overflow_the_estimate() -> None:
    sc = small_dumbbell(duration_s=1e300, probes={"flow_period_ms": 1e-300})
    sc["flows"][0]["count"] = 1e300
    assert estimate(sc).total > 1e29
    assert _error(sc).field in ("probes.flow_period_ms", "flows[0].count")


def test_memory_budget_option(tmp_path: Path) -> None:
    f = tmp_path / "many.toml"
    f.write_text(
        'duration_s = 1\n[topology]\nkind = "dumbbell"\nbottleneck = { rate_mbps = 10, delay_ms = 5 }\n'
        '[[flows]]\nalgorithm = "reno"\ncount = 20000\ntrace = false\n'
    )
    cmd = [sys.executable, "-m", "tcpeval.cli", "run", str(f), "--quiet", "--memory-budget", "100"]
    env = subprocess_env()
    p = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    assert p.returncode == 2 and "flows[0].count" in p.stderr and "budget is 100 MB" in p.stderr, p.stderr


def test_the_planned_keys_of_a_study_follow_the_contents_of_its_rtt_cdf(tmp_path: Path) -> None:
    # study.json keeps the planned run keys under a digest; editing a CDF the
    # study reads changes every key, so the digest must change too.
    from tcpeval.study import plan_digest

    f = tmp_path / "rtt.csv"
    f.write_text("rtt_ms,cdf\n10,0\n100,1\n")
    source = f"""
name = "cdf"
[[experiment]]
name = "e"
[experiment.scenario]
topology = {{ kind = "dumbbell", bottleneck = {{ rate_mbps = 10, delay_ms = 5 }} }}
flows = []
traffic = {{ bulk = [{{ count = 2, rtt = {{ kind = "cdf", path = "{f}" }} }}] }}
"""
    before = plan_digest(source, False, None)
    assert plan_digest(source, False, None) == before
    f.write_text("rtt_ms,cdf\n10,0\n200,1\n")
    assert plan_digest(source, False, None) != before
    f.unlink()
    assert plan_digest(source, False, None) != before  # unreadable: no stored plan matches
