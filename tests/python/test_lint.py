"""Lint gates that are cheap enough for the default run.

`cargo fmt --check`, `cargo clippy --workspace --all-targets -- -D warnings`,
`ruff check`, `ruff format --check` and `mypy` (configured in pyproject.toml)
run here, so CI (which runs the README's test command) enforces them. Clippy
compiles the workspace once more (about 1-2 min on a fresh 2-core machine);
mypy takes about 30 s without its cache. Ruff and mypy come with the ``test``
extra (``pip install -e ".[test]"``).
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYTHON_TREES = ["python", "tests", "scripts"]
"""The Python code ruff checks and formats (mypy's files are in pyproject.toml)."""


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_rust_code_is_rustfmt_formatted() -> None:
    p = subprocess.run(
        ["cargo", "fmt", "--all", "--check"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if "no such command" in p.stderr or "not installed" in p.stderr:
        pytest.skip("rustfmt is not installed")
    assert p.returncode == 0, f"run `cargo fmt --all`:\n{p.stdout[-2000:]}"


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed")
def test_rust_code_has_no_clippy_warnings() -> None:
    p = subprocess.run(
        ["cargo", "clippy", "--workspace", "--all-targets", "--quiet", "--", "-D", "warnings"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if "no such command" in p.stderr or "not installed" in p.stderr:
        pytest.skip("clippy is not installed")
    assert p.returncode == 0, f"cargo clippy found warnings:\n{p.stderr[-4000:]}"


def _python_tool(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Runs ``python -m MODULE ARGS`` in the repository root; fails (not skips)
    when the tool is missing, since the test extra installs it."""
    assert importlib.util.find_spec(module) is not None, (
        f"{module} is not installed: pip install -e '.[test]' (the lint gates are tests)"
    )
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_python_code_passes_ruff_check() -> None:
    p = _python_tool("ruff", "check", "--no-cache", "--output-format", "concise", *PYTHON_TREES)
    assert p.returncode == 0, (
        f"ruff check found problems (`ruff check --fix` mends some):\n{p.stdout[-4000:]}"
    )


def test_python_code_is_ruff_formatted() -> None:
    p = _python_tool("ruff", "format", "--check", "--no-cache", *PYTHON_TREES)
    assert p.returncode == 0, f"run `ruff format {' '.join(PYTHON_TREES)}`:\n{p.stdout[-4000:]}"


def test_python_package_type_checks_with_mypy() -> None:
    p = _python_tool("mypy")
    assert p.returncode == 0, f"mypy found type errors:\n{p.stdout[-4000:]}"
