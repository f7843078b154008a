"""Shared fixtures for the Python tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
