"""Lint gates that are cheap enough for the default run.

`cargo fmt --check` and `cargo clippy --workspace --all-targets -- -D warnings`
run here, so CI (which runs the README's test command) enforces both. Clippy
compiles the workspace once more (about 1-2 min on a fresh 2-core machine).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
