"""The real-Linux testbed (tcpeval.testbed, crates/tcpeval-testbed).

Tests that build namespaces need root and ``ip netns``; without them they
skip, saying so (CI runs as root, so they run there). Real-time emulation
in this file's default tests: about 20 s (about 35 s of wall time with set-up).
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import subprocess_env
from tcpeval.errors import ScenarioError
from tcpeval.scenario import load_scenario
from tcpeval.testbed import host, names
from tcpeval.testbed.host import TestbedError


def _testbed_unavailable() -> str | None:
    if sys.platform != "linux":
        return "the testbed needs Linux"
    if os.geteuid() != 0:
        return "the testbed needs root (network namespaces)"
    if shutil.which("ip") is None or shutil.which("tc") is None:
        return "the testbed needs iproute2 (ip, tc)"
    if subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return "`ip netns` does not work here"
    return None


needs_testbed = pytest.mark.skipif(_testbed_unavailable() is not None, reason=str(_testbed_unavailable()))

RATE_MBPS = 100.0
RTT_MS = 40.0


def transfer(**overrides: Any) -> dict[str, Any]:
    """One CUBIC flow over 100 Mbit/s, 40 ms RTT, a BDP of buffer; it stops
    at 5 s and the run ends at 6 s, so everything in flight arrives."""
    sc: dict[str, Any] = {
        "name": "testbed-transfer",
        "duration_s": 6.0,
        "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": RATE_MBPS, "delay_ms": 5}},
        "flows": [{"name": "a", "algorithm": "cubic", "rtt_ms": RTT_MS, "stop_s": 5.0}],
        "probes": {"flow_period_ms": 10, "queue_period_ms": 10},
    }
    sc.update(overrides)
    return sc


def _ours(pid: int) -> list[str]:
    return [n for n in names.namespaces() if n.startswith(f"tcpeval{pid}-")]


# ---------------------------------------------------------------- no root needed


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            {
                "topology": {"kind": "parking_lot", "links": [{"rate_mbps": 10, "delay_ms": 5}] * 2},
                "flows": [{"algorithm": "cubic", "from": 0, "to": 2}],
            },
            "topology.kind",
        ),
        ({"flows": [{"algorithm": "cubic", "rtt_ms": 40, "size_pkts": 100}]}, "flows[0].size_pkts"),
        ({"flows": [{"algorithm": "cubic", "rtt_ms": 40, "params": {"beta": 0.5}}]}, "flows[0].params"),
        ({"tcp": {"sack": False}}, "tcp.sack"),
        ({"platform": "ns2"}, "platform"),
        ({"traffic": {"udp": [{"name": "u", "rate_mbps": 1}]}}, "traffic"),
    ],
)
def test_unsupported_features_are_refused_by_field(change: dict[str, Any], field: str) -> None:
    from tcpeval.testbed.plan import plan

    with pytest.raises(ScenarioError) as e:
        plan(load_scenario(transfer(**change)))
    assert e.value.field == field
    assert "the linux backend does not support" in e.value.message


def test_plan_takes_rtt_and_buffer_from_the_simulators_resolution() -> None:
    from tcpeval.testbed.plan import plan

    sc = transfer(
        flows=[
            {"algorithm": "cubic", "rtt_ms": 40},
            {"algorithm": "cubic", "rtt_ms": 40},
            {"algorithm": "reno", "direction": "reverse"},  # access delay 1 ms: RTT 2 * (5 + 2 * 1) = 14 ms
        ]
    )
    p = plan(load_scenario(sc))
    assert [f.rtt_s for f in p.flows] == pytest.approx([0.040, 0.040, 0.014])
    assert [f.reverse for f in p.flows] == [False, False, True]
    # BDP buffers from the smallest RTT of the flows crossing the bottleneck
    # (either way), in 1500-byte packets: 100 Mbit/s x 14 ms = 116.7 -> 117.
    assert (p.bottleneck.buffer_pkts, p.reverse_bottleneck.buffer_pkts) == (117, 117)
    assert p.bottleneck.buffer_bytes is None
    # `count` expands into one kernel flow each.
    p = plan(load_scenario(transfer(flows=[{"algorithm": "cubic", "rtt_ms": 40, "count": 3}])))
    assert [f.index for f in p.flows] == [0, 1, 2]


def test_missing_privilege_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "_effective_caps", lambda: 0)
    with pytest.raises(TestbedError, match=r"needs root \(or CAP_NET_ADMIN and CAP_SYS_ADMIN\)"):
        host.check_can_run()


def test_unavailable_algorithm_lists_the_kernels() -> None:
    have = host.available_congestion_control()
    with pytest.raises(TestbedError) as e:
        host.check_algorithms({"flows[1].algorithm": "no-such-cc"})
    assert str(e.value).startswith("flows[1].algorithm: the kernel offers no congestion control 'no-such-cc'")
    assert f"available: {', '.join(have)}" in str(e.value)


# ---------------------------------------------------------------- as root


@needs_testbed
def test_transfer_reaches_the_rate_and_drops_match_the_receiver(tmp_path: Path) -> None:
    from tcpeval.store import save_run
    from tcpeval.testbed.run import run_linux

    before = set(names.namespaces())
    r = run_linux(transfer(), progress=False)
    assert set(names.namespaces()) == before, "namespaces left after a normal end"
    facts = r.backend
    assert facts["flow_errors"] == []
    wire = facts["delay_line"]
    assert wire["to_hosts"]["socket_drops"] == 0 and wire["to_hosts"]["send_errors"] == 0

    # Rate: the bottleneck's departures (htb counts whole frames) between 2 s
    # and 5 s, while the queue is never empty for long, within 5 %.
    q = r.queue_series[r.queue_series["link"] == 0].set_index("time")
    rate = (int(q.loc[5.0, "departed_bytes"]) - int(q.loc[2.0, "departed_bytes"])) * 8 / 3.0
    assert rate == pytest.approx(RATE_MBPS * 1e6, rel=0.05)
    # ... and the receiving application's goodput: the same rate times the
    # payload share of a frame (MSS 1448 of 1514 bytes), within 5 %.
    f = r.flow_series[r.flow_series["flow"] == 0].set_index("time")
    goodput = (int(f.loc[5.0 - 0.01, "delivered"]) - int(f.loc[2.0, "delivered"])) * 8 / 2.99
    assert facts["mss"] == [1448]
    assert goodput == pytest.approx(RATE_MBPS * 1e6 * 1448 / 1514, rel=0.05)

    # Drops: every data segment the sender sent either was dropped by the
    # bottleneck fifo or reached the receiver's TCP.
    flow = r.flows.iloc[0]
    drops = int(r.links.loc[0, "drops"])
    assert drops > 0, "a one-BDP buffer overflows in slow start"
    assert int(flow["sent"]) - drops == int(flow["data_received"])
    assert int(flow["retransmitted"]) >= drops - 1  # a drop at the very end may go unrepaired

    # Delay line: the smallest RTT the kernel saw is the configured one plus
    # at most both directions' lateness and the bottleneck's serialization.
    min_rtt = facts["flow_min_rtt_s"][0]
    late_s = wire["lateness"]["max_us"] / 1e6
    serialization = 1514 * 8 / (RATE_MBPS * 1e6)
    assert RTT_MS / 1e3 <= min_rtt <= RTT_MS / 1e3 + 2 * late_s + serialization + 1e-4
    assert wire["lateness"]["p99_us"] < 2000
    # Stalls: runs of frames 1 ms or more late, in time order, none worse
    # than the worst frame, within the run.
    for d in ("to_hosts", "to_router"):
        sp = wire[d]["late_spells"]
        assert [s["at_s"] for s in sp] == sorted(s["at_s"] for s in sp)
        assert all(1000 <= s["worst_us"] <= wire[d]["lateness"]["max_us"] and s["frames"] >= 1 for s in sp)
        assert all(-1.0 < s["at_s"] < r.sim_time_s + 1.0 for s in sp)

    # The receive buffer's maximum is above BDP + buffer (dumbbell.py) and
    # autotuning grows it in time, so the kernel's sender is held back by its
    # cwnd, not by the receiver's window, as in the simulator, whose receive
    # window is unlimited (TCP_INFO's busy and receive-window-limited times).
    busy, rwnd_limited = facts["flow_busy_s"][0], facts["flow_rwnd_limited_s"][0]
    assert 0 < busy <= r.sim_time_s
    assert rwnd_limited <= 0.02 * busy

    out = save_run(r, tmp_path / "run")
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert summary["backend"]["kernel"] == os.uname().release
    assert summary["flows"][0]["goodput_mbps"] > 0


@needs_testbed
def test_random_loss_and_a_reverse_flow() -> None:
    """Forward: 1 % random loss on the wire. Every data segment sent was
    dropped by the fifo, dropped by the loss or received (a dropped frame
    may also be one of the flow's few non-data frames: SYN, FIN, ACK of
    the receiver's FIN). Reverse: a flow whose data crosses R2->R1."""
    from tcpeval.testbed.run import run_linux

    p = 0.01
    sc = transfer(
        duration_s=4.0,
        topology={"kind": "dumbbell", "bottleneck": {"rate_mbps": 20, "delay_ms": 5, "loss": p}},
        flows=[{"algorithm": "reno", "rtt_ms": 30, "stop_s": 3.0}],
    )
    r = run_linux(sc, progress=False)
    wire = r.backend["delay_line"]["to_hosts"]
    random_drops = int(wire["random_drops"])
    n = wire["forwarded"] + random_drops
    assert abs(random_drops - n * p) < 4 * (n * p * (1 - p)) ** 0.5
    flow = r.flows.iloc[0]
    expected = int(flow["sent"]) - int(r.links.loc[0, "drops"]) - random_drops
    assert expected <= int(flow["data_received"]) <= expected + 3
    assert int(r.links.loc[0, "random_drops"]) == random_drops

    rev = run_linux(
        transfer(duration_s=3.0, flows=[{"algorithm": "cubic", "rtt_ms": 30, "direction": "reverse"}]),
        progress=False,
    )
    assert rev.backend["flow_errors"] == []
    assert int(rev.flows.loc[0, "delivered_bytes"]) * 8 / 3.0 > 0.3 * RATE_MBPS * 1e6
    assert int(rev.links.loc[1, "bytes_departed"]) > 10 * int(rev.links.loc[0, "bytes_departed"])
    # The reverse data enters the router on right0, whose GRO is on (for its
    # NAPI thread) but must merge nothing: R2->R1 still serves whole frames.
    assert int(rev.links.loc[1, "bytes_departed"]) <= 1514 * int(rev.links.loc[1, "departures"])


@needs_testbed
def test_napi_threads_belong_to_the_run_and_end_with_it() -> None:
    """The veths the delay line sends into get a real-time NAPI thread
    whose GRO merges nothing; the threads go when the namespaces go, and
    the softirq path sets none."""
    from tcpeval.testbed import iproute
    from tcpeval.testbed.dumbbell import Bottleneck, Dumbbell
    from tcpeval.testbed.rxpath import NAPI_PRIORITY, napi_threads

    with Dumbbell(hosts=1, bottleneck=Bottleneck(rate_bps=1e7, buffer_pkts=10)) as d:
        napi = d.facts["napi"]
        assert [(n["netns"], n["dev"]) for n in napi] == [("router", "right0"), ("right", "eth0")]
        assert d.facts["offloads_still_on"] == []
        pids = []
        for n, role in zip(napi, ("router", "right"), strict=True):
            (t,) = n["napi_threads"]
            assert napi_threads(n["dev"])[t["pid"]] == t["name"]
            assert os.sched_getscheduler(t["pid"]) == os.SCHED_FIFO
            assert os.sched_getparam(t["pid"]).sched_priority == NAPI_PRIORITY
            out = iproute.run(
                ["ip", "netns", "exec", d.ns(role), "cat", f"/sys/class/net/{n['dev']}/threaded"]
            )
            assert out.strip() == "1"
            assert "gro_max_size 0 " in iproute.ip(d.ns(role), "-d", "link", "show", n["dev"])
            pids.append(t["pid"])
    deadline = time.monotonic() + 5
    while any(Path(f"/proc/{p}").exists() for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(Path(f"/proc/{p}").exists() for p in pids), "a NAPI thread outlived its run"

    with Dumbbell(hosts=1, bottleneck=Bottleneck(rate_bps=1e7, buffer_pkts=10), rx_path="softirq") as d:
        assert d.facts["napi"] == [] and d.facts["rx_path"] == "softirq"
        out = iproute.run(["ip", "netns", "exec", d.ns("router"), "cat", "/sys/class/net/right0/threaded"])
        assert out.strip() == "0"


def test_an_unknown_receive_path_is_refused_before_anything_is_built() -> None:
    from tcpeval.testbed.dumbbell import Bottleneck, Dumbbell

    d = Dumbbell(hosts=1, bottleneck=Bottleneck(rate_bps=1e7, buffer_pkts=10), rx_path="busy-poll")
    with pytest.raises(TestbedError, match="unknown receive path 'busy-poll'; one of napi-threads, softirq"):
        d.__enter__()
    assert d._made == []


@needs_testbed
def test_cleanup_after_an_exception_while_building(monkeypatch: pytest.MonkeyPatch) -> None:
    from tcpeval.testbed.dumbbell import Bottleneck, Dumbbell

    def broken(self: Dumbbell, ns: str, dev: str, b: Bottleneck) -> None:
        raise TestbedError("injected failure")

    monkeypatch.setattr(Dumbbell, "_bottleneck_qdisc", broken)
    before = set(names.namespaces())
    d = Dumbbell(hosts=2, bottleneck=Bottleneck(rate_bps=1e7, buffer_pkts=10))
    with pytest.raises(TestbedError, match="injected failure"):
        d.__enter__()
    assert set(names.namespaces()) == before
    assert not names.is_alive(d.prefix)


@needs_testbed
def test_cleanup_after_an_exception_inside_the_run() -> None:
    from tcpeval.testbed.dumbbell import Bottleneck, Dumbbell

    before = set(names.namespaces())
    with (
        pytest.raises(RuntimeError, match="boom"),
        Dumbbell(hosts=1, bottleneck=Bottleneck(rate_bps=1e7, buffer_bytes=30000)) as d,
    ):
        assert len(set(names.namespaces()) - before) == 4
        raise RuntimeError("boom")
    assert set(names.namespaces()) == before
    assert not (names.LOCK_DIR / f"{d.prefix}.lock").exists()


def _start_cli_run(tmp_path: Path, duration_s: float) -> subprocess.Popen[str]:
    """A CLI run with a flow from the start and one that starts near the end."""
    sc = tmp_path / "long.toml"
    sc.write_text(
        f'duration_s = {duration_s}\n[topology]\nkind = "dumbbell"\n'
        'bottleneck = { rate_mbps = 20, delay_ms = 5 }\n[[flows]]\nalgorithm = "reno"\nrtt_ms = 30\n'
        f'[[flows]]\nalgorithm = "cubic"\nrtt_ms = 30\nstart_s = {duration_s - 2}\n'
    )
    return subprocess.Popen(
        [sys.executable, "-m", "tcpeval.cli", "run", str(sc), "--backend", "linux", "--quiet"],
        env=subprocess_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a test runner started in the background of a
        # non-interactive shell ignores SIGINT, and a child inherits that.
        preexec_fn=_sigint_default,
    )


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_namespaces(p: subprocess.Popen[str]) -> list[str]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and p.poll() is None:
        if len(ours := _ours(p.pid)) == 4:
            time.sleep(1.5)  # the run's threads are inside them by now
            return ours
        time.sleep(0.05)
    _out, err = p.communicate(timeout=10)
    raise AssertionError(f"the run did not build its namespaces: {err}")


@needs_testbed
def test_sigint_of_a_run_tears_the_testbed_down(tmp_path: Path) -> None:
    p = _start_cli_run(tmp_path, 30.0)
    _wait_for_namespaces(p)
    p.send_signal(signal.SIGINT)
    sent = time.monotonic()
    _, err = p.communicate(timeout=30)
    # Promptly, although the second flow's start is 28 s away.
    assert time.monotonic() - sent < 5, "the run did not stop promptly"
    assert p.returncode == 130, err
    assert _ours(p.pid) == []


@needs_testbed
def test_sigkill_of_a_run_then_cleanup_command(tmp_path: Path) -> None:
    p = _start_cli_run(tmp_path, 30.0)
    left = _wait_for_namespaces(p)
    p.kill()
    p.communicate(timeout=10)  # waits, and closes its pipes (an open one is a ResourceWarning)
    assert sorted(_ours(p.pid)) == sorted(left), "SIGKILL leaves the namespaces (bind mounts) behind"
    prefix = names.prefix_of(left[0])
    assert prefix is not None and not names.is_alive(prefix)
    c = subprocess.run(
        [sys.executable, "-m", "tcpeval.cli", "testbed", "cleanup"],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert c.returncode == 0, c.stderr
    assert "removed 4 namespace(s)" in c.stdout or "removed" in c.stdout
    for ns in left:
        assert ns in c.stdout
    assert _ours(p.pid) == []
    with pytest.raises(ProcessLookupError):
        os.kill(p.pid, 0)


@needs_testbed
def test_without_privilege_the_cli_says_so_and_creates_nothing(tmp_path: Path) -> None:
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to drop root for this test")
    sc = tmp_path / "s.toml"
    sc.write_text(
        'duration_s = 5\n[topology]\nkind = "dumbbell"\nbottleneck = { rate_mbps = 20, delay_ms = 5 }\n'
        '[[flows]]\nalgorithm = "reno"\nrtt_ms = 30\n'
    )
    before = set(names.namespaces())
    c = subprocess.run(
        # Root without CAP_NET_ADMIN and CAP_SYS_ADMIN (dropped from the bounding
        # set, so the child cannot regain them): files stay readable.
        [
            "setpriv",
            "--bounding-set=-net_admin,-sys_admin",
            "--inh-caps=-net_admin,-sys_admin",
            sys.executable,
            "-m",
            "tcpeval.cli",
            "run",
            str(sc),
            "--backend",
            "linux",
            "--quiet",
        ],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert c.returncode == 2, c.stderr
    lines = c.stderr.strip().splitlines()
    assert lines == [
        "tcpeval: linux backend: the linux backend needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) "
        "to build network namespaces; run it as root"
    ]
    assert set(names.namespaces()) == before


@needs_testbed
def test_unavailable_algorithm_creates_nothing() -> None:
    from tcpeval.testbed.run import run_linux

    missing = next(
        a for a in ("vegas", "htcp", "bic", "illinois") if a not in host.available_congestion_control()
    )
    before = set(names.namespaces())
    with pytest.raises(
        TestbedError, match=rf"flows\[0\].algorithm: the kernel offers no congestion control '{missing}'"
    ):
        run_linux(transfer(flows=[{"algorithm": missing, "rtt_ms": 40}]), progress=False)
    assert set(names.namespaces()) == before


# ---------------------------------------------------------------- tcpeval validate


def test_matched_scenario_serves_linux_frames_at_the_same_packet_rate() -> None:
    from tcpeval.testbed.validate import matched_scenario

    sc = load_scenario(transfer(topology={"kind": "dumbbell", "bottleneck": {
        "rate_mbps": 100, "delay_ms": 5, "buffer": {"bytes": 151400}}}))  # fmt: skip
    m = matched_scenario(sc)
    assert m.data["packet_size"] == 1488 and m.data["platform"] == "linux"
    b = m.data["topology"]["bottleneck"]
    # 100 Mbit/s of 1514-byte frames = 8256.3 frames/s = the simulator's 1488-byte packets at 98.28 Mbit/s.
    assert b["rate_mbps"] * 1e6 / (8 * 1488) == pytest.approx(100e6 / (8 * 1514))
    assert b["buffer"] == {"bytes": 148800}  # 100 frames of 1514 bytes -> 100 packets of 1488


def test_matched_scenario_gives_the_kernels_packet_buffer() -> None:
    """A BDP buffer is resolved once, at the scenario's packet size, as the
    testbed does (50 Mbit/s x 100 ms / 1500 B = 416.7 -> 417 packets); the
    matched simulator gets that count, not its own BDP of 1488-byte packets
    at the scaled rate (413), which would shorten every Reno cycle."""
    from tcpeval.testbed.plan import plan
    from tcpeval.testbed.validate import matched_scenario

    sc = load_scenario(transfer(topology={"kind": "dumbbell", "bottleneck": {
        "rate_mbps": 50, "delay_ms": 10, "buffer": {"bdp": 1.0}}},
        flows=[{"algorithm": "reno", "rtt_ms": 100}]))  # fmt: skip
    assert plan(sc).bottleneck.buffer_pkts == 417
    assert matched_scenario(sc).data["topology"]["bottleneck"]["buffer"] == {"packets": 417}


def _queue_run(
    cwnd: list[int], qlen: list[int], drops: list[int], backend: dict[str, Any] | None = None
) -> Any:
    """A stand-in run of one forward flow, sampled every 0.1 s, base RTT
    0.1 s, a 100-packet buffer (window before an episode: 0.1 s + two
    10-ms probe periods, so two samples)."""
    import pandas as pd

    n = len(qlen)
    time = [round(0.1 * i, 1) for i in range(n)]

    class R:
        queue_series = pd.DataFrame({"time": time, "link": [0] * n, "qlen": qlen, "drops": drops})
        flow_series = pd.DataFrame({"time": time, "flow": [0] * n, "cwnd": cwnd})
        links = pd.DataFrame({"buffer": [100], "buffer_bytes": [None]})
        flows = pd.DataFrame({"flow": [0], "spec": [0], "base_rtt": [0.1]})
        scenario = load_scenario(transfer())

    R.backend = backend or {}
    return R()


def _episodes_case() -> tuple[list[int], list[int], list[int]]:
    """Slow start's overflow at 0.2 s, then drops at 1.4 s (pipe steady at
    200), 2.6 s (the pipe fell to 150 at 2.5 s: a stall), 3.8 s and 5.0 s."""
    cwnd, qlen, drops = [], [], []
    for i in range(51):
        c = 210 + i
        q = c - 200
        if i == 25:
            q += 50  # 50 packets moved from the pipe into the queue
        cwnd.append(c)
        qlen.append(q)
        drops.append(sum(1 for k in (2, 14, 26, 38, 50) if i >= k) * 3)
    return cwnd, qlen, drops


def test_drop_episodes_tell_steady_growth_from_a_stall() -> None:
    """Episodes start after a quiet second; one is disturbed when the pipe
    (cwnd minus queue) fell more than 1 % of the buffer below its median
    just before the first drop."""
    from tcpeval.testbed.validate import drop_episodes, undisturbed_cycle

    ep = drop_episodes(_queue_run(*_episodes_case()))
    assert list(ep["time"]) == [0.2, 1.4, 2.6, 3.8, 5.0]
    assert list(ep["drops"]) == [3.0] * 5
    assert list(ep["pipe_dip"]) == [0.0, 0.0, 50.0, 0.0, 0.0]
    assert list(ep["disturbed"]) == [False, False, True, False, False]
    # After the first: 1.4 -> 2.6 and 2.6 -> 3.8 touch the disturbed one;
    # 3.8 -> 5.0 is the only cycle of the flow's own growth.
    assert undisturbed_cycle(ep) == pytest.approx(1.2)
    assert math.isnan(undisturbed_cycle(ep.iloc[:3]))
    cwnd, qlen, _ = _episodes_case()
    assert drop_episodes(_queue_run(cwnd, qlen, [0] * len(qlen))).empty


def test_disturbed_drops_name_the_stall_before_them() -> None:
    """The page's table: each disturbed episode after the first with the
    worst delay-line stall within one base RTT plus two probe periods
    before it (none: the bottleneck stalled)."""
    from tcpeval.testbed.validate import Validation, disturbed_drops

    spells = {
        "to_hosts": {"late_spells": [{"at_s": 2.65, "worst_us": 4000.0, "frames": 9}]},
        "to_router": {"late_spells": [{"at_s": 2.7, "worst_us": 18000.0, "frames": 40},
                                      {"at_s": 1.0, "worst_us": 30000.0, "frames": 90}]},
    }  # fmt: skip
    kernel = _queue_run(*_episodes_case(), backend={"delay_line": spells})
    sim = _queue_run(*_episodes_case())
    t = disturbed_drops(Validation(kernel.scenario, sim, [kernel]))
    assert list(t["run"]) == ["simulator", "kernel 1"]
    k = t.iloc[1]
    assert (k["time_s"], k["drops"], k["pipe_dip_pkts"]) == (2.6, 3.0, 50.0)
    # Spells at 2.65 and 2.7 s lie after the 2.6 s sample, the one at 1.0 s too long before.
    assert math.isnan(k["stall_ms"])
    spells["to_router"]["late_spells"][0]["at_s"] = 2.5
    k = disturbed_drops(Validation(kernel.scenario, sim, [kernel])).iloc[1]
    assert (k["stall_ms"], k["stall_at_s"], k["stall_direction"]) == (18.0, 2.5, "to_router")


def test_validate_against_itself_shows_no_difference(tmp_path: Path) -> None:
    """With the simulator standing in for the kernel, every metric agrees
    exactly and the repetitions have no spread: the comparison's plumbing."""
    from tcpeval.simulate import run
    from tcpeval.testbed.validate import matched_scenario, validate, write_report

    sc = load_scenario(transfer(duration_s=20.0, flows=[{"algorithm": "reno", "rtt_ms": 40, "count": 2}]))
    v = validate(
        sc, 2, progress=False, run_kernel=lambda s, progress: run(matched_scenario(s), progress=False)
    )
    t = v.table().set_index("metric")
    assert set(t.index) >= {
        "goodput_mbps[0]",
        "goodput_mbps[1]",
        "window_reductions[1]",
        "drops",
        "mean_queue_pkts",
    }
    assert t.loc["window_reductions[0]", "sim"] > 0 and t.loc["drops", "sim"] > 0
    assert (t["kernel_sd"].dropna() == 0).all()
    assert (t["diff_pct"].dropna() == 0).all()
    page = write_report(v, tmp_path / "v")
    assert page.exists() and (tmp_path / "v" / "cwnd.png").stat().st_size > 0
    assert (tmp_path / "v" / "pipe.png").stat().st_size > 0 and 'src="pipe.png"' in page.read_text()
    assert "window_reductions[0]" in page.read_text()
    # --reuse-kernel: the stored kernel runs come back, for this scenario only.
    from tcpeval.testbed.validate import stored_kernel_runs

    # (The stand-in "kernel" ran the matched scenario.)
    again = stored_kernel_runs(tmp_path / "v", matched_scenario(sc))
    assert [r.links["drops"].iloc[0] for r in again] == [r.links["drops"].iloc[0] for r in v.kernel]
    with pytest.raises(ValueError, match=r"--reuse-kernel: .*kernel-1 is a run of another scenario"):
        stored_kernel_runs(tmp_path / "v", sc)
    with pytest.raises(ValueError, match="--reuse-kernel: no stored kernel runs"):
        stored_kernel_runs(tmp_path / "nothing", sc)


def test_held_back_is_the_worst_share_of_busy_time() -> None:
    """The validation page's receive-window and send-buffer shares: the
    largest over flows and repetitions, idle flows skipped."""
    from tcpeval.testbed.validate import held_back

    class R:
        def __init__(self, busy: list[float], rwnd: list[float], sndbuf: list[float]) -> None:
            self.backend = {"flow_busy_s": busy, "flow_rwnd_limited_s": rwnd, "flow_sndbuf_limited_s": sndbuf}

    runs = [R([10.0, 0.0], [1.0, 0.0], [0.0, 0.0]), R([20.0, 5.0], [0.0, 1.0], [0.5, 0.0])]
    assert held_back(runs) == {"rwnd": 0.2, "sndbuf": 0.025}  # type: ignore[arg-type]


def test_loss_cycle_leaves_out_the_first_gap_and_needs_three() -> None:
    import pandas as pd

    from tcpeval.testbed.validate import loss_cycle

    # A slow-start overflow's two reductions 0.6 s apart, then cycles of 60 s.
    assert loss_cycle(pd.Series([1.0, 1.6, 61.6, 121.6, 181.6])) == 60.0
    # CUBIC's alternating cycles (fast convergence): their mean.
    assert loss_cycle(pd.Series([1.0, 3.0, 25.0, 35.0, 57.0])) == pytest.approx(18.0)
    # Two gaps (0.6 s and one cycle) say nothing about the period.
    assert math.isnan(loss_cycle(pd.Series([1.0, 1.6, 61.6])))


def test_reductions_are_the_ssthresh_changes() -> None:
    import numpy as np
    import pandas as pd

    from tcpeval.testbed.validate import reductions

    class R:
        flow_series = pd.DataFrame(
            {
                "time": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5],
                "flow": [0, 0, 0, 0, 0, 0],
                "ssthresh": [np.inf, np.inf, 50.0, 50.0, 35.0, 35.0],
            }
        )

    assert list(reductions(R(), 0)) == [0.2, 0.4]  # type: ignore[arg-type]


def test_reductions_count_loss_episodes_that_keep_ssthresh() -> None:
    """A periodic Reno sets the same ssthresh at every loss: the episodes,
    told apart by retransmissions after a quiet second, are reductions too;
    retransmissions next to an ssthresh change are the same reduction."""
    import numpy as np
    import pandas as pd

    from tcpeval.testbed.validate import reductions

    class R:
        flow_series = pd.DataFrame(
            {
                "time": [0.0, 1.0, 1.1, 1.2, 5.0, 5.1, 9.0, 9.1],
                "flow": [0] * 8,
                "ssthresh": [np.inf, np.inf, 40.0, 40.0, 40.0, 40.0, 40.0, 40.0],
                "retransmitted": [0, 1, 3, 3, 4, 5, 5, 6],
            }
        )

    # 1.0-1.1: the first loss with its ssthresh change (one reduction, at the
    # change); 5.0 and 9.1: episodes that left ssthresh at 40.
    assert list(reductions(R(), 0)) == [1.1, 5.0, 9.1]  # type: ignore[arg-type]


LINUX_STUDY = """
name = "tiny-linux"
replications = 1
[defaults]
duration_s = 3.0
probes = { flow_period_ms = 50, queue_period_ms = 50 }
[[experiment]]
name = "one-flow"
[experiment.scenario]
topology = { kind = "dumbbell", bottleneck = { rate_mbps = 20, delay_ms = 5 } }
flows = [{ name = "a", algorithm = "cubic", rtt_ms = 20 }]
[experiment.sweep]
algorithm = { path = "flows[0].algorithm", values = ["cubic", "htcp"] }
[[experiment.metric]]
name = "goodput"
fn = "goodput_mbps"
"""


@needs_testbed
def test_a_study_runs_on_the_kernel_and_refuses_what_it_lacks(tmp_path: Path) -> None:
    # About 3 s of emulation: the CUBIC point runs on the kernel; the H-TCP
    # point (no such module here) is recorded as failed with the reason, and a
    # results directory of one backend refuses runs of the other.
    from tcpeval.errors import StoreError
    from tcpeval.results_db import ResultsDB, results
    from tcpeval.runner import run_study
    from tcpeval.study import parse_study

    if "htcp" in host.available_congestion_control():
        pytest.skip("this kernel offers htcp, so nothing is refused")
    study = parse_study(LINUX_STUDY)
    out = tmp_path / "linux"
    summary = run_study(study, out, progress=False, backend="linux")
    assert (summary.total, summary.ok, len(summary.failed)) == (2, 1, 1)
    (refused,) = summary.failed
    assert refused.point == {"algorithm": "htcp"}
    assert "no congestion control 'htcp'" in (refused.error or "")
    db = ResultsDB(out)
    try:
        assert db.study_info()["backend"] == "linux"
        (key,) = db.done_keys()
        run = db.load_run(key)
    finally:
        db.close()
    assert run.backend["backend"] == "linux" and run.backend["kernel"]
    # The kernel's CUBIC filled most of the 20 Mbit/s over 3 s.
    (row,) = [r for r in results(out).itertuples() if r.status == "ok"]
    assert 10.0 < row.goodput < 20.0
    # Rerun: the stored run is skipped (the refused one is tried again, quickly).
    again = run_study(study, out, progress=False, backend="linux")
    assert (again.skipped, again.ok) == (1, 0)
    with pytest.raises(StoreError, match="holds runs of the linux backend"):
        run_study(study, out, progress=False)
