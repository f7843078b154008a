"""The command line, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tcpeval import ScenarioError, load_scenario


def tcpeval_run(path: Path):  # type: ignore[no-untyped-def]
    import tcpeval as api

    sc = load_scenario(path).replace(duration_s=6.0)
    return api.run(sc, progress=False)


def tcpeval(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tcpeval.cli", *args], check=False, capture_output=True, text=True, timeout=300
    )


def test_run_prints_a_summary_and_writes_results(examples, tmp_path) -> None:
    out = tmp_path / "res"
    p = tcpeval("run", str(examples / "dumbbell-reno.toml"), "--out", str(out), "--duration", "5")
    assert p.returncode == 0, p.stderr
    assert "goodput_mbps" in p.stdout and "R1->R2" in p.stdout
    assert "100%" in p.stderr  # progress bar
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scenario"]["duration_s"] == 5.0
    assert len(summary["scenario_hash"]) == 64
    assert {f["flow"] for f in summary["flows"]} == {"A", "B"}


def test_invalid_scenario_is_a_clear_error_not_a_traceback(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'duration_s = 5\n[topology]\nkind = "dumbbell"\n'
        "bottleneck = { rate_mbps = 0, delay_ms = 1 }\n"
        '[[flows]]\nalgorithm = "reno"\n'
    )
    p = tcpeval("run", str(bad))
    assert p.returncode == 2
    assert f"{bad}:4: topology.bottleneck.rate_mbps: 0 is out of range" in p.stderr
    assert "Traceback" not in p.stderr


def test_an_unknown_figure_format_is_refused_by_name(tmp_path) -> None:
    p = tcpeval("report", str(tmp_path), "--figure-formats", "png,jpg")
    assert p.returncode == 2
    assert "--figure-formats: figure formats: jpg not among png, svg, pdf" in p.stderr
    assert "Traceback" not in p.stderr


def test_results_columns_describes_every_column_a_run_has(examples) -> None:
    from tcpeval.store import TABLES

    p = tcpeval("results", "columns", "--json")
    assert p.returncode == 0, p.stderr
    listed = {t["key"]: t for t in json.loads(p.stdout)}
    assert set(listed) == set(TABLES)
    r = tcpeval_run(examples / "dumbbell-reno.toml")
    for key in TABLES:
        assert [c["name"] for c in listed[key]["columns"]] == list(getattr(r, key).columns), key
        assert all(c["doc"] for c in listed[key]["columns"]), key
    text = tcpeval("results", "columns", "flow_series").stdout
    assert "srtt" in text and "Smoothed RTT, s" in text and "flows:" not in text
    p = tcpeval("results", "columns", "nope")
    assert p.returncode == 2 and "tables: flow_series" in p.stderr


def test_algorithms_list_every_parameter_with_type_range_unit_doc_and_source() -> None:
    p = tcpeval("algorithms")
    assert p.returncode == 0, p.stderr
    assert "reno:" in p.stdout
    assert "    beta = 0.5    # f64 fraction, (0.0, 1.0]" in p.stdout
    assert "source: RFC 5681 section 3.1" in p.stdout
    # A bound that is another parameter is shown by its name.
    assert "high_window = 83000.0    # f64 packets, (low_window, 1e12]" in p.stdout
    data = {a["name"]: a for a in json.loads(tcpeval("algorithms", "--json").stdout)}
    beta = data["reno"]["params"][0]
    assert beta == {
        "name": "beta",
        "type": "f64",
        "default": 0.5,
        "range": {"kind": "open_low", "lo": "0.0", "hi": "1.0", "text": "(0.0, 1.0]"},
        "unit": "fraction",
        "doc": beta["doc"],
        "source": beta["source"],
    }
    assert "Linux tcp_reno_ssthresh" in beta["source"] and "cwnd" in beta["doc"]
    growth = data["reno"]["params"][1]
    assert growth["range"]["kind"] == "unchecked" and growth["range"]["lo"] is None
    assert growth["default"] == "linux" and growth["unit"] == ""
    for a in data.values():
        assert sorted(q["name"] for q in a["params"]) == sorted(a["defaults"]), a["name"]
        for q in a["params"]:
            assert q["default"] == a["defaults"][q["name"]]
            assert q["doc"] and q["source"] and q["range"]["text"], (a["name"], q["name"])
    # The listed range is the one validation enforces: just past the upper
    # bound is rejected with the field and range named.
    delay_shift = next(q for q in data["cubic"]["params"] if q["name"] == "delay_min_shift")
    assert delay_shift["range"] == {"kind": "closed", "lo": "0.0", "hi": "16.0", "text": "[0.0, 16.0]"}
    flows = [{"algorithm": "cubic", "params": {"delay_min_shift": 17}}]
    sc = {"duration_s": 1, "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": 10, "delay_ms": 10}}}
    with pytest.raises(ScenarioError, match=r"flows\[0\].params.delay_min_shift.*allowed 0 \.\.= 16"):
        load_scenario({**sc, "flows": flows})


def test_platforms_list_every_setting_with_its_source() -> None:
    p = tcpeval("platforms")
    assert p.returncode == 0, p.stderr
    assert "ns2:" in p.stdout and 'tcp.lss = "ns2"' in p.stdout
    data = {d["name"]: d for d in json.loads(tcpeval("platforms", "--json").stdout)}
    assert list(data) == ["linux", "linux-2.6.13", "linux-2.6.16", "ns2", "ns2-tcp-linux"]
    assert data["linux"]["settings"] == []
    assert all(s["source"] for d in data.values() for s in d["settings"])


def test_tcp_options_list_every_option_with_default_range_and_source() -> None:
    p = tcpeval("tcp-options")
    assert p.returncode == 0, p.stderr
    assert "dupthresh = 3    # u32 packets, allowed 1 ..= 100" in p.stdout
    data = {d["name"]: d for d in json.loads(tcpeval("tcp-options", "--json").stdout)}
    assert data["delack_timeout_ms"]["default"] == 40.0 and data["delack_timeout_ms"]["unit"] == "ms"
    assert data["recovery"]["default"] == "prr" and data["recovery"]["range"] is None
    assert data["rto_min_ms"]["range"] == [1.0, 60000.0]
    assert all(d["source"] and d["doc"] for d in data.values())
    # Every listed option is one a scenario accepts, at its default (the
    # unlimited ones, infinity and 2**64 - 1, are no value a scenario writes).
    finite = {n: d["default"] for n, d in data.items() if d["default"] not in (None, 2**64 - 1)}
    load_scenario(
        {
            "duration_s": 1,
            "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": 10, "delay_ms": 10}},
            "flows": [{"algorithm": "reno", "tcp": finite}],
        }
    )


def test_queues_list_every_discipline_with_defaults_ranges_and_sources() -> None:
    p = tcpeval("queues")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("droptail: ")
    assert "    max_p = 0.1    # " in p.stdout and "allowed 1e-09 ..= 1" in p.stdout
    data = {d["name"]: d for d in json.loads(tcpeval("queues", "--json").stdout)}
    assert list(data) == ["droptail", "red", "step", "pie", "codel", "fq_codel"]
    assert data["droptail"]["params"] == []
    red = {q["name"]: q for q in data["red"]["params"]}
    assert red["min_th"]["default"] == 5.0 and red["max_th"]["default"] == 15.0
    assert red["mode"]["default"] == "packets" and red["mode"]["range"] is None
    fq_codel = {q["name"]: q for q in data["fq_codel"]["params"]}
    assert fq_codel["target_ms"]["default"] == 5.0 and fq_codel["quantum"]["default"] == 1514
    for kind, d in data.items():
        params = {q["name"]: q for q in d["params"]}
        assert all(q["source"] and q["doc"] for q in params.values()), kind
        # The listed defaults are a queue table a scenario accepts.
        queue = {"kind": kind, **{n: q["default"] for n, q in params.items()}}
        load_scenario(
            {
                "duration_s": 1,
                "topology": {
                    "kind": "dumbbell",
                    "bottleneck": {"rate_mbps": 10, "delay_ms": 10, "queue": queue},
                },
                "flows": [{"algorithm": "reno"}],
            }
        )


def test_readme_table_names_every_declared_tcp_option() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## TCP options", 1)[1].split("\n## ", 1)[0]
    data = json.loads(tcpeval("tcp-options", "--json").stdout)
    missing = [d["name"] for d in data if f"`{d['name']}`" not in section]
    assert not missing, f"README's TCP options table lacks {missing}"


def test_bench_quick_reports_rates() -> None:
    p = tcpeval("bench", "--quick", "--case", "reno-2flows-500M-60ms-60s")
    assert p.returncode == 0, p.stderr
    assert "packets/s" in p.stdout and "peak MiB" in p.stdout and "reno-2flows-500M-60ms-60s" in p.stdout
    # It says which build of the engine it measured (scripts/build_pgo.sh's or the plain one),
    # as --version does.
    from tcpeval import __version__, _core

    assert _core.engine_build() in ("plain", "profile-guided", "instrumented")
    assert f"{_core.engine_build()} build" in p.stdout
    v = tcpeval("--version")
    assert v.stdout.strip() == f"tcpeval {__version__} ({_core.engine_build()} build)"


def test_bench_json_gives_each_case_its_own_process_and_memory() -> None:
    small, many = "reno-2flows-ackeach-nosack-60s", "cubic-1000flows-1G-100ms-30s"
    p = tcpeval("bench", "--quick", "--json", "--case", small, "--case", many)
    assert p.returncode == 0, p.stderr
    rows = {r["name"]: r for r in json.loads(p.stdout)}
    assert set(rows) == {small, many}
    for r in rows.values():
        assert r["packets"] > 0 and r["events"] > r["packets"] and r["wall_s"] > 0
    # Peak memory is per case (a fresh process each): 1000 flows need more than 2.
    assert rows[many]["peak_rss_mib"] > rows[small]["peak_rss_mib"]


def test_every_bench_case_is_a_valid_scenario_at_full_and_quick_length() -> None:
    from tcpeval.bench import CASES
    from tcpeval.scenario import load_scenario

    for case in CASES:
        for scale in (1.0, 0.1):  # `tcpeval bench` and `tcpeval bench --quick`
            duration = case.scenario["duration_s"] * scale
            sc = load_scenario(dict(case.scenario, duration_s=duration, probes=case.probes))
            assert sc.data["duration_s"] == duration, case.name


def test_bench_unknown_case_lists_the_cases() -> None:
    p = tcpeval("bench", "--case", "nope")
    assert p.returncode == 2
    assert "unknown 'nope'" in p.stderr and "cubic-10000flows-1G-100ms-10s" in p.stderr


def test_plan_counts_runs_and_simulated_seconds_and_runs_nothing(tmp_path) -> None:
    out = tmp_path / "never"
    p = tcpeval("reproduce", "linux-variants", "--quick", "--plan", "--out", str(out))
    assert p.returncode == 0, p.stderr
    total = next(line.split() for line in p.stdout.splitlines() if line.startswith("total"))
    # exp1: 11 variants; exp2: 11 variants x 6 buffers at N = 4; 100 s each.
    assert total == ["total", "77", "0", "0", "7,700"]  # one seed per point: no twins
    assert not out.exists()


def test_report_rebuilds_a_study_page_with_a_figure_progress_bar(fake_study_dir, tmp_path) -> None:
    import shutil

    study = tmp_path / "study"
    shutil.copytree(fake_study_dir, study, ignore=shutil.ignore_patterns("figures", "tables", "report.html"))
    p = tcpeval("report", str(study), "--workers", "1")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(study / "report.html")
    assert "figure" in p.stderr and "100%" in p.stderr  # the bar over the figures
    assert len(list((study / "figures").glob("*.png"))) >= 5


def test_workers_must_be_a_whole_number_of_at_least_one(tmp_path) -> None:
    for bad in ("0", "-2", "two"):
        p = tcpeval("report", str(tmp_path), "--workers", bad)
        assert p.returncode == 2
        assert "--workers" in p.stderr and ">= 1" in p.stderr and "Traceback" not in p.stderr


def test_plan_on_the_linux_backend_says_what_the_host_cannot_run(tmp_path) -> None:
    # The shipped studies set simulator TCP options and platform presets, so
    # none of their runs maps onto the kernel: the plan says why, grouped.
    p = tcpeval(
        "reproduce", "linux-variants", "--quick", "--plan", "--backend", "linux", "--out", str(tmp_path / "x")
    )
    assert p.returncode == 0, p.stderr
    assert "on --backend linux: 0 runs can run here" in p.stdout
    assert "77 runs cannot: platform: the linux backend does not support platform" in p.stdout
    assert not (tmp_path / "x").exists()


def test_linux_backend_refuses_a_dask_scheduler(tmp_path) -> None:
    p = tcpeval(
        "reproduce", "linux-variants", "--quick", "--backend", "linux", "--scheduler", "tcp://nowhere:1",
        "--out", str(tmp_path / "x"),
    )  # fmt: skip
    assert p.returncode == 2
    assert "linux backend" in p.stderr and "Dask" in p.stderr
    assert not (tmp_path / "x").exists()


def _state_and_parent(pid: int) -> tuple[str, int] | None:
    """A process's state letter and parent pid (from /proc), None if it is gone."""
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[1])


def _children(pid: int) -> list[int]:
    """The live pool workers whose parent is ``pid`` (multiprocessing's
    resource tracker, also a child, is not one)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            info = _state_and_parent(int(entry.name))
            if info is not None and info[1] == pid and info[0] != "Z" and _is_worker(int(entry.name)):
                found.append(int(entry.name))
    return found


def _is_worker(pid: int) -> bool:
    try:
        return b"spawn_main" in (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False


def _alive(pid: int) -> bool:
    info = _state_and_parent(pid)
    return info is not None and info[0] != "Z"


SWEEP_ARGS = [
    sys.executable,
    "-m",
    "tcpeval.cli",
    "reproduce",
    "yeah",
    "--quick",
    "--quiet",
    "--no-report",
    "--workers",
    "2",
]


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_an_interrupted_or_killed_sweep_leaves_no_worker_process(tmp_path, how) -> None:
    # Two local workers are processes: Ctrl-C (SIGINT to the whole process
    # group, as a terminal sends it) and SIGKILL of the sweep alone must
    # both end them, not leave them simulating or idle as orphans.
    import os
    import signal
    import time

    p = subprocess.Popen(
        [*SWEEP_ARGS, "--out", str(tmp_path / "out")],
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_children(p.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)  # the workers take their first runs
        workers = _children(p.pid)
        assert len(workers) >= 2, workers
        if how == "ctrl-c":
            os.killpg(p.pid, signal.SIGINT)
        else:
            os.kill(p.pid, signal.SIGKILL)
        _, err = p.communicate(timeout=30)  # until every holder of its stderr, workers too, is gone
        assert p.returncode == (130 if how == "ctrl-c" else -signal.SIGKILL)
        if how == "ctrl-c":  # one line, no warning (after a SIGKILL the tracker warns, rightly)
            assert (
                err.strip() == "tcpeval: interrupted; finished runs are stored, the same command resumes"
            ), err
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [w for w in workers if _alive(w)]
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_a_sweep_on_worker_processes_ends_without_a_leaked_semaphore(tmp_path) -> None:
    # A spawned worker's default start method is spawn, so a lock made there
    # (tqdm's, made even for a hidden bar) is a named semaphore that only the
    # worker's exit handlers unlink; the pool ends its workers by SIGTERM, and
    # multiprocessing's resource tracker then warned of leaked semaphores at
    # the end of every sweep.
    from test_study import TINY_LOSSY

    study = tmp_path / "tiny.toml"
    study.write_text(TINY_LOSSY)
    p = tcpeval(
        "study", "run", str(study), "--workers", "2", "--quiet", "--no-report", "--out", str(tmp_path / "o")
    )
    assert p.returncode == 0, p.stderr
    assert "8 done now" in p.stdout
    assert "leaked" not in p.stderr and "resource_tracker" not in p.stderr, p.stderr
