"""A results directory under stress: concurrent sweeps, damaged files, broken
catalogs and summaries (tcpeval.results_db, tcpeval.store)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import subprocess_env
from tcpeval.errors import StoreError
from tcpeval.report import check_runs
from tcpeval.results_db import ResultsDB, results
from tcpeval.runner import run_study
from tcpeval.store import load_run
from tcpeval.study import expand, parse_study
from test_study import TINY, TINY_LOSSY

# Runs a sweep through the CLI, logging every simulation it makes (one line:
# the scenario's seed and sweep point) to the file named in argv[1].
SWEEP = """
import json, os, sys
from tcpeval import cli, runner
log, args = sys.argv[1], sys.argv[2:]
real = runner.run
def logged(scenario, progress=False):
    with open(log, "a") as f:
        f.write(json.dumps(scenario, sort_keys=True) + "\\n")
    return real(scenario, progress=progress)
runner.run = logged
sys.exit(cli.main(args))
"""


def _sweep_cmd(study: Path, out: Path, log: Path) -> list[str]:
    args = ["study", "run", str(study), "--out", str(out), "--workers", "1", "--no-report", "--quiet"]
    return [sys.executable, "-c", SWEEP, str(log), *args]


def _env() -> dict[str, str]:
    return subprocess_env()


def _catalog(out: Path) -> pd.DataFrame:
    cols = [
        "key",
        "experiment",
        "seed",
        "status",
        "error",
        "algorithm",
        "rtt",
        "goodput",
        "jain",
        "reno_over",
    ]
    return results(out)[cols].sort_values("key").reset_index(drop=True)


def _tables(out: Path) -> dict[str, pd.DataFrame]:
    return {
        f"{d.name}/{f.name}": pd.read_parquet(f)
        for d in sorted((out / "runs").iterdir())
        for f in sorted(d.glob("*.parquet"))
    }


@pytest.mark.parametrize("text", [TINY_LOSSY, TINY], ids=["random", "seed-twins"])
def test_three_concurrent_sweeps_equal_one_sweep(tmp_path: Path, text: str) -> None:
    study = tmp_path / "tiny.toml"
    study.write_text(text)
    alone, log_alone = tmp_path / "alone", tmp_path / "alone.log"
    subprocess.run(_sweep_cmd(study, alone, log_alone), check=True, env=_env(), capture_output=True)
    shared, log = tmp_path / "shared", tmp_path / "shared.log"
    procs = []
    for _ in range(3):
        procs.append(
            subprocess.Popen(
                _sweep_cmd(study, shared, log), env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        )
        time.sleep(0.3)
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    # Each run simulated at most once, by one of the three: every run when
    # each draws random numbers; without them, a seed 2 whose twin was
    # stored when it came up is not simulated (one sweep: all four of them).
    lines = log.read_text().splitlines()
    assert len(lines) == len(set(lines))
    if text == TINY_LOSSY:
        assert len(lines) == 8 == len(log_alone.read_text().splitlines())
    else:
        assert 4 <= len(lines) <= 8 and len(log_alone.read_text().splitlines()) == 4
    # The same catalog and the same files as one sweep.
    pd.testing.assert_frame_equal(_catalog(shared), _catalog(alone))
    assert sorted(p.name for p in (shared / "runs").iterdir()) == sorted(_catalog(alone)["key"])
    a, b = _tables(alone), _tables(shared)
    assert a.keys() == b.keys()
    for name in a:
        pd.testing.assert_frame_equal(a[name], b[name])
    # No temporary directory left; every stored file matches its checksum.
    db = ResultsDB(shared)
    assert db.damaged() == {} and len(db.done_keys(verify=True)) == 8
    db.close()


def test_temp_dirs_of_live_writers_are_kept_and_stale_ones_removed(tmp_path: Path) -> None:
    db = ResultsDB(tmp_path)
    live = tmp_path / "runs" / ".aaa.tmp-1-x"
    stale = tmp_path / "runs" / ".bbb.tmp-2-y"
    live.mkdir()
    stale.mkdir()
    # Another process (here: another open file description) holds aaa's claim.
    other = ResultsDB(tmp_path)
    claim = other.claim("aaa")
    assert claim is not None and db.claim("aaa") is None
    assert db.remove_partial_runs() == 1
    assert live.exists() and not stale.exists()
    claim.release()
    assert db.remove_partial_runs() == 1 and not live.exists()


def test_a_catalog_row_is_never_replaced_by_a_worse_one(tmp_path: Path) -> None:
    from tcpeval.results_db import RunRecord

    db = ResultsDB(tmp_path)
    good = RunRecord("k", "e", {"x": 1}, 1, "ok", None, 1.0, {"m": 2.0}, {"summary.json": "ab"})
    bad = RunRecord("k", "e", {"x": 1}, 1, "error", "boom", 0.1, {})
    db.record(good)
    db.record(bad)
    row = db.runs().iloc[0]
    assert row["status"] == "ok" and row["m"] == 2.0
    # A re-measured ok row (no files of its own) keeps the recorded checksums.
    db.record(RunRecord("k", "e", {"x": 1}, 1, "ok", None, 1.0, {"m": 3.0}))
    assert db.stored_files() == {"k": {"summary.json": "ab"}}
    db.close()


def _tiny_quick(tmp_path: Path) -> tuple[Path, list[str]]:
    study = parse_study(TINY)
    out = tmp_path / "out"
    run_study(study, out, quick=True, workers=1, progress=False)
    return out, sorted(s.key for s in expand(study, quick=True))


def test_damaged_runs_are_resimulated_on_resume_and_named_by_the_report(tmp_path, capsys) -> None:
    out, keys = _tiny_quick(tmp_path)
    before = _catalog(out)
    table = out / "runs" / keys[0] / "flow_series.parquet"
    table.write_bytes(table.read_bytes()[:-100])  # truncated
    with pytest.raises(StoreError) as info:
        check_runs(out)
    assert keys[0] in str(info.value) and "flow_series.parquet" in str(info.value)
    capsys.readouterr()
    summary = run_study(parse_study(TINY), out, quick=True, workers=1, progress=False)
    assert summary.repaired == [keys[0]] and summary.ok == 1 and summary.skipped == 1
    assert "flow_series.parquet" in capsys.readouterr().err
    check_runs(out)
    pd.testing.assert_frame_equal(_catalog(out), before)
    load_run(out / "runs" / keys[0])


def test_flipped_bits_in_parquet_data_are_errors_not_values(tmp_path: Path) -> None:
    out, keys = _tiny_quick(tmp_path)
    run = out / "runs" / keys[0]
    table = run / "flow_series.parquet"
    original = table.read_bytes()
    reference = load_run(run).flow_series
    footer = int.from_bytes(original[-8:-4], "little") + 8
    errors = 0
    flips = range(8, len(original) - footer, max(1, (len(original) - footer) // 300))
    for i, pos in enumerate(flips):
        damaged = bytearray(original)
        damaged[pos] ^= 1 << (i % 8)
        table.write_bytes(bytes(damaged))
        try:
            values = load_run(run).flow_series
        except StoreError as e:
            assert "flow_series.parquet" in str(e)
            errors += 1
        else:
            # Page checksums cover page data; a flip in a page header field
            # that decoding does not use (statistics) reads back the same values.
            pd.testing.assert_frame_equal(values, reference)
    assert errors > len(flips) * 0.8
    # The catalog's SHA-256 catches every flip.
    assert ResultsDB(out, readonly=True).damaged() == {
        keys[0]: [f"{table}: damaged (checksum differs from the one recorded when it was written)"]
    }
    table.write_bytes(original)


def test_empty_summary_and_garbage_catalog_name_the_file(tmp_path: Path) -> None:
    out, keys = _tiny_quick(tmp_path)
    summary = out / "runs" / keys[1] / "summary.json"
    summary.write_text("")
    with pytest.raises(StoreError) as info:
        load_run(summary.parent)
    assert info.value.path == str(summary)
    (out / "catalog.sqlite").write_bytes(b"garbage" * 1000)
    with pytest.raises(StoreError) as info:
        results(out)
    assert info.value.path == str(out / "catalog.sqlite")
    with pytest.raises(StoreError):
        ResultsDB(out)


def test_an_old_catalog_without_checksums_is_upgraded(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "catalog.sqlite")
    db.execute(
        "CREATE TABLE runs (key TEXT PRIMARY KEY, experiment TEXT NOT NULL, point TEXT NOT NULL,"
        " seed INTEGER NOT NULL, status TEXT NOT NULL, error TEXT, wall_s REAL, metrics TEXT,"
        " version TEXT NOT NULL, finished REAL NOT NULL)"
    )
    db.execute("INSERT INTO runs VALUES ('k', 'e', '{}', 1, 'ok', NULL, 1.0, ?, '0', 0)", (json.dumps({}),))
    db.commit()
    db.close()
    assert ResultsDB(tmp_path, readonly=True).damaged() == {}
    rdb = ResultsDB(tmp_path)
    assert rdb.stored_files() == {"k": None}
    rdb.close()
