"""Lint gates that are cheap enough for the default run.

`cargo fmt --check` runs here; `cargo clippy --workspace --all-targets -- -D
warnings` compiles the workspace a second time, so it is a separate CI step
(see README, Tests).
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
