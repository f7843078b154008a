"""BBR from the user's side (issue 20): listed with its parameters, the
``pacing`` TCP option, and the ``examples/bbr-vs-cubic.toml`` scenario."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import tcpeval
from conftest import subprocess_env
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
