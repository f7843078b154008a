"""BBR from the user's side (issue 20): listed with its parameters, the
``pacing`` TCP option, and the ``examples/bbr-vs-cubic.toml`` scenario."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import tcpeval
from conftest import load_script, subprocess_env
from tcpeval import ScenarioError, load_scenario
from tcpeval.registry import tcp_options

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bbr-vs-cubic.toml"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcpeval.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=subprocess_env(),
    )


def test_algorithms_lists_bbr_with_linux_constants() -> None:
    p = cli("algorithms", "--json")
    assert p.returncode == 0, p.stderr
    bbr = {a["name"]: a for a in json.loads(p.stdout)}["bbr"]
    params = {q["name"]: q for q in bbr["params"]}
    # Gains in 1/256 as tcp_bbr.c holds them: 2/ln2 rounded up, 5/4, 3/4, 2.
    assert {
        k: params[k]["default"] for k in ("high_gain", "probe_up_gain", "probe_down_gain", "cwnd_gain")
    } == {
        "high_gain": 739,
        "probe_up_gain": 320,
        "probe_down_gain": 192,
        "cwnd_gain": 512,
    }
    assert params["probe_rtt_mode_ms"]["default"] == 200
    assert params["min_rtt_win_ms"]["default"] == 10_000
    assert all("tcp_bbr.c" in q["source"] or "sk_pacing_shift" in q["source"] for q in bbr["params"])


def test_pacing_is_a_tcp_option_off_by_default_with_linux_ratios() -> None:
    opts = {o.name: o for o in tcp_options()}
    assert opts["pacing"].default is False
    assert (opts["pacing_ss_ratio"].default, opts["pacing_ca_ratio"].default) == (200, 120)
    with pytest.raises(ScenarioError, match=r"tcp\.pacing_ca_ratio.*allowed"):
        load_scenario(EXAMPLE).replace(tcp={"pacing_ca_ratio": 0})


def test_the_bbr_vs_cubic_example_runs_and_bbr_alone_keeps_the_queue_small() -> None:
    r = tcpeval.run(load_scenario(EXAMPLE).replace(duration_s=45.0), progress=False)
    bdp = 100e6 * 0.1 / 12_000
    q = r.queue_series
    core = q[q.link == q.link.min()]
    alone = core[(core.time >= 5) & (core.time < 30)].qlen.mean()
    shared = core[core.time >= 35].qlen.mean()
    # BBR alone paces at the bottleneck rate: well under one BDP queued;
    # with CUBIC in the 10-BDP buffer the queue is CUBIC's.
    assert alone < bdp, alone
    assert shared > 2 * bdp, shared
    goodput = r.summary().set_index("flow")["goodput_mbps"]
    assert goodput["bbr"] > 50 and goodput["cubic"] > 20, goodput


def test_probe_rtt_entries_count_from_the_filters_last_refresh() -> None:
    # Synthetic kernel samples (time s, cwnd, mrtt ms): a lower sample at 3 s
    # restarts the 10 s window, so PROBE_RTT comes at 13 s, 13 s after the
    # start; it ends at 13.3 s, which stamps the filter again (tcp_bbr.c
    # bbr_update_min_rtt), and the next entry comes 10 s after that end.
    rows = [(0.1 * k, 100, 100.2) for k in range(0, 30)]
    rows += [(3.0 + 0.1 * k, 100, 100.1) for k in range(0, 100)]
    rows += [(13.0 + 0.1 * k, 4, 100.1) for k in range(0, 3)]
    rows += [(13.3 + 0.1 * k, 100, 100.1) for k in range(0, 100)]
    rows += [(23.3, 4, 100.1)]
    entries = load_script("bbr_probe_rtt").probe_rtt_entries(rows)
    assert [round(t, 6) for t, _, _ in entries] == [13.0, 23.3]
    assert entries[0][1] is None and entries[0][2] == pytest.approx(10.0)
    assert entries[1][1] == pytest.approx(10.3) and entries[1][2] == pytest.approx(10.0)


def test_simulated_bbr_enters_probe_rtt_ten_seconds_after_the_filter_refresh() -> None:
    # The rule the kernel was measured to follow (BENCHMARKS.md, 2026-11-28:
    # 9.96-10.02 s after the last refresh, at a 20 ms sampling step): on an
    # exact-RTT path the refresh is PROBE_RTT's own end, so every period is
    # 10 s plus the 200 ms probe and its round (tcp_bbr.c bbr_min_rtt_win_sec,
    # bbr_probe_rtt_mode_ms).
    scenario = Path(__file__).resolve().parents[2] / "examples" / "validation" / "bbr-1flow-50mbps.toml"
    fs = tcpeval.run(scenario).flow_series
    rows = [(float(t), int(c), 100.0) for t, c in zip(fs["time"], fs["cwnd"], strict=True)]
    entries = load_script("bbr_probe_rtt").probe_rtt_entries(rows)
    assert len(entries) == 5
    for _, since_prev, since_refresh in entries[1:]:
        assert since_refresh == pytest.approx(10.0, abs=0.011)
        assert since_prev == pytest.approx(10.3, abs=0.011)
