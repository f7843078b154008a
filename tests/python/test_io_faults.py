"""I/O faults end in one line naming the path and a non-zero exit, leave no
truncated file, and a rerun recovers: a full disk (RLIMIT_FSIZE makes every
write past the limit fail, as a full disk does), a read-only results
directory, a garbage catalog; and ``results query | head`` stops quietly."""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import subprocess_env
from test_study import TINY


def _env() -> dict[str, str]:
    return subprocess_env()


def _tcpeval(*args: str, prefix: list[str] | None = None, **kw) -> subprocess.CompletedProcess[str]:
    cmd = [*(prefix or []), sys.executable, "-m", "tcpeval.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=600, check=False, **kw)


def _one_line_naming(proc: subprocess.CompletedProcess[str], path: Path) -> None:
    err = proc.stderr.strip()
    assert proc.returncode != 0, proc.stdout
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert err.startswith("tcpeval: ") and str(path) in err, err


def _small_disk() -> None:
    """In the child: writes past 200 KB fail with EFBIG (SIGXFSZ ignored)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))


def test_a_full_disk_while_saving_figures(fake_study_dir: Path, tmp_path: Path) -> None:
    study = tmp_path / "fake"
    shutil.copytree(fake_study_dir, study, ignore=shutil.ignore_patterns("figures", "tables", "report.html"))
    failed = _tcpeval("report", str(study), "--workers", "1", "--quiet", preexec_fn=_small_disk)
    _one_line_naming(failed, study / "figures")
    figures = list((study / "figures").iterdir())
    assert figures, "some figures fit under the limit"
    # Nothing truncated: no temporary file left, every SVG written whole.
    assert not [f.name for f in figures if f.name.startswith(".")]
    assert all(f.read_text().rstrip().endswith("</svg>") for f in figures if f.suffix == ".svg")
    assert not (study / "report.html").exists()
    again = _tcpeval("report", str(study), "--workers", "1", "--quiet")
    assert again.returncode == 0, again.stderr
    assert (study / "report.html").exists()
    assert not [f.name for f in (study / "figures").iterdir() if f.name.startswith(".")]


def _read_only_prefix(path: Path) -> list[str] | None:
    """A command prefix under which ``path`` is read-only (root: a read-only
    bind mount in a private mount namespace), or None if there is none."""
    if os.geteuid() != 0:
        return []
    if shutil.which("unshare") is None:
        return None
    script = f'mount --bind "{path}" "{path}" && mount -o remount,ro,bind "{path}" && exec "$@"'
    prefix = ["unshare", "-m", "sh", "-c", script, "sh"]
    probe = subprocess.run([*prefix, "touch", str(path / ".probe")], capture_output=True, check=False)
    return prefix if probe.returncode != 0 and not (path / ".probe").exists() else None


def test_a_read_only_results_directory(tmp_path: Path) -> None:
    study = tmp_path / "tiny.toml"
    study.write_text(TINY)
    out = tmp_path / "out"
    first = _tcpeval("study", "run", str(study), "--quick", "--out", str(out), "--quiet", "--no-report")
    assert first.returncode == 0, first.stderr
    prefix = _read_only_prefix(out)
    if prefix is None:
        pytest.skip("cannot make a read-only directory here")
    if os.geteuid() != 0:
        for p in [out, *out.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
    try:
        rerun = _tcpeval("study", "run", str(study), "--quick", "--out", str(out), "--quiet", prefix=prefix)
        _one_line_naming(rerun, out)
        report = _tcpeval("report", str(out), "--workers", "1", "--quiet", prefix=prefix)
        _one_line_naming(report, out)
        query = _tcpeval("results", "query", str(out), prefix=prefix)
        assert query.returncode == 0 and "goodput" in query.stdout, query.stderr
    finally:
        for p in [out, *out.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
    again = _tcpeval("study", "run", str(study), "--quick", "--out", str(out), "--quiet")
    assert again.returncode == 0, again.stderr
    assert "2 already stored" in again.stdout


def test_a_garbage_catalog(tmp_path: Path) -> None:
    study = tmp_path / "tiny.toml"
    study.write_text(TINY)
    out = tmp_path / "out"
    out.mkdir()
    catalog = out / "catalog.sqlite"
    catalog.write_bytes(b"this is not a database\n" * 100)
    run = _tcpeval("study", "run", str(study), "--quick", "--out", str(out), "--quiet", "--no-report")
    _one_line_naming(run, catalog)
    assert "move it away" in run.stderr
    _one_line_naming(_tcpeval("results", "query", str(out)), catalog)
    _one_line_naming(_tcpeval("report", str(out)), catalog)
    catalog.rename(out / "catalog.broken")
    again = _tcpeval("study", "run", str(study), "--quick", "--out", str(out), "--quiet", "--no-report")
    assert again.returncode == 0, again.stderr


def test_results_query_into_a_closed_pipe(tmp_path: Path) -> None:
    from tcpeval.results_db import ResultsDB

    ResultsDB(tmp_path).close()
    with sqlite3.connect(tmp_path / "catalog.sqlite") as c:  # one transaction: fast
        c.executemany(
            "INSERT INTO runs (key, experiment, point, seed, status, wall_s, metrics, version, finished)"
            " VALUES (?, 'e', ?, 1, 'ok', 1.0, ?, '0', 0)",
            [(f"k{i:05d}", json.dumps({"x": i}), json.dumps({"m": float(i)})) for i in range(3000)],
        )
    with subprocess.Popen(
        [sys.executable, "-m", "tcpeval.cli", "results", "query", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    ) as proc:  # closes stderr at the end (an unclosed pipe is a ResourceWarning)
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # as `| head -1` does
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0, err
    assert "BrokenPipeError" not in err and "Exception ignored" not in err, err


def test_results_query_shows_errors(tmp_path: Path) -> None:
    from tcpeval.results_db import ResultsDB, RunRecord

    db = ResultsDB(tmp_path)
    db.record(RunRecord("a", "e", {"x": 1}, 1, "ok", None, 1.0, {"m": 1.0}))
    db.record(RunRecord("b", "e", {"x": 2}, 1, "ok", "metric m: no flow named 'z'", 1.0, {"m": None}))
    db.record(RunRecord("c", "e", {"x": 3}, 1, "error", "RuntimeError: boom\ntraceback...", 1.0, {}))
    db.close()
    out = _tcpeval("results", "query", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "metric m: no flow named 'z'" in out.stdout and "RuntimeError: boom" in out.stdout
    assert "traceback..." not in out.stdout and "2 run(s) with errors" in out.stdout
