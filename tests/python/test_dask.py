"""Sweeps on a Dask cluster: workers send each run's tables back and the
client alone writes the results directory, so no shared disk is needed; a
plain install without Dask gets a clear message and nothing is created."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import subprocess_env
from tcpeval.results_db import ResultsDB, results
from tcpeval.runner import run_study
from tcpeval.study import parse_study
from test_study import TINY


def test_workers_in_other_directories_send_their_runs_to_the_client(tmp_path, monkeypatch) -> None:
    distributed = pytest.importorskip("distributed")
    study = parse_study(TINY)
    run_study(study, tmp_path / "local", quick=True, workers=2, progress=False)
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    worker_dirs = [tmp_path / "worker0", tmp_path / "worker1"]
    for d in worker_dirs:
        d.mkdir()
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cl,
        distributed.Client(cl) as client,
    ):
        workers = sorted(client.scheduler_info()["workers"])
        assert len(workers) == 2
        for address, d in zip(workers, worker_dirs, strict=True):
            client.run(os.chdir, str(d), workers=[address])
        cwds = client.run(os.getcwd)
        assert sorted(cwds.values()) == sorted(str(d) for d in worker_dirs)
        assert len({os.getpid(), *client.run(os.getpid).values()}) == 3  # separate processes
        # A relative results directory: a worker writing it would write under its own directory.
        monkeypatch.chdir(client_dir)
        summary = run_study(study, "out", quick=True, scheduler=cl.scheduler_address, progress=False)
    assert summary.ok == 2 and not summary.failed
    for d in worker_dirs:
        assert list(d.iterdir()) == [], "a worker wrote into its working directory"
    cols = ["key", "seed", "algorithm", "rtt", "goodput", "jain"]
    a = results(tmp_path / "local")[cols].sort_values("key").reset_index(drop=True)
    b = results(client_dir / "out")[cols].sort_values("key").reset_index(drop=True)
    assert len(a) == 2 and a.equals(b)
    db = ResultsDB(client_dir / "out")
    assert len(db.done_keys(verify=True)) == 2 and db.damaged() == {}
    db.close()


def test_scheduler_without_dask_is_a_clear_message_and_creates_nothing(tmp_path: Path) -> None:
    study = tmp_path / "tiny.toml"
    study.write_text(TINY)
    out = tmp_path / "out"
    code = (
        "import sys\n"
        "sys.modules['distributed'] = None  # as in an install without the dask extra\n"
        "from tcpeval import cli\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "study",
            "run",
            str(study),
            "--out",
            str(out),
            "--scheduler",
            "tcp://x:1",
        ],
        capture_output=True,
        text=True,
        check=False,
        env=subprocess_env(),
    )
    assert p.returncode == 2
    assert 'pip install "tcpeval[dask]"' in p.stderr and "Traceback" not in p.stderr
    assert not out.exists()
