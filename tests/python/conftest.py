"""Shared fixtures for the Python tests."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import tcpeval

ROOT = Path(__file__).resolve().parents[2]


def subprocess_env() -> dict[str, str]:
    """The environment for a ``python -m tcpeval...`` child process: the tcpeval this test
    process imported (an installed wheel in CI, the source tree with its built core in an
    editable install), then the test helpers. Never the source tree alone: without an
    editable install it has no compiled ``tcpeval._core``."""
    package_root = Path(tcpeval.__file__).resolve().parents[1]
    return dict(os.environ, PYTHONPATH=f"{package_root}{os.pathsep}{ROOT / 'tests/python'}")


def load_script(name: str) -> ModuleType:
    """``scripts/NAME.py``, imported by path (scripts are not a package); the
    scripts directory goes on ``sys.path`` so that a script finds its
    neighbours (``pgo_training`` imports ``sample_runs``)."""
    scripts = str(ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def examples() -> Path:
    return ROOT / "examples"


def small_dumbbell(**overrides: Any) -> dict[str, Any]:
    """A 10-second, 20 Mbit/s dumbbell with two Reno flows."""
    sc: dict[str, Any] = {
        "name": "small",
        "duration_s": 10.0,
        "seed": 3,
        "topology": {"kind": "dumbbell", "bottleneck": {"rate_mbps": 20, "delay_ms": 10}},
        "flows": [
            {"name": "a", "algorithm": "reno", "rtt_ms": 40},
            {"name": "b", "algorithm": "reno", "rtt_ms": 80, "start_s": 1.0},
        ],
    }
    sc.update(overrides)
    return sc


@pytest.fixture(scope="session")
def fake_study_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results directory of a small made-up study (see fake_study.py), written once."""
    from fake_study import write_fake_study

    return write_fake_study(tmp_path_factory.mktemp("study") / "fake")


@pytest.fixture(scope="session")
def fake_report_build(fake_study_dir: Path) -> tuple[Path, dict[str, Any]]:
    """Build the report of :func:`fake_study_dir` once: the path of its page
    and its figures (``FigureOutput`` by name, with their matplotlib Figures),
    recorded while ``build_report`` makes them."""
    from tcpeval import report

    figures: dict[str, Any] = {}
    real = report.experiment_figures

    def recording(*args: Any, **kwargs: Any) -> Any:
        outputs = real(*args, **kwargs)
        figures.update((out.name, out) for out in outputs)
        return outputs

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(report, "experiment_figures", recording)
        page = report.build_report(fake_study_dir)
    return page, figures


@pytest.fixture(scope="session")
def fake_report(fake_report_build: tuple[Path, dict[str, Any]]) -> Path:
    """The report.html of :func:`fake_study_dir`."""
    return fake_report_build[0]
