"""The congestion-control algorithms the engine knows, with their parameters."""

from __future__ import annotations

import json
from dataclasses import dataclass

from tcpeval import _core


@dataclass(frozen=True)
class AlgorithmInfo:
    """One algorithm: registry name, summary, default parameters and their docs."""

    name: str
    summary: str
    defaults: dict[str, object]
    docs: dict[str, str]


def algorithms() -> list[AlgorithmInfo]:
    """Every registered algorithm, in registry order."""
    return [AlgorithmInfo(**a) for a in json.loads(_core.algorithms())]


@dataclass(frozen=True)
class PlatformInfo:
    """One platform preset: name, summary and its settings (``key``,
    ``value``, ``source``), ``tcp.OPTION`` or ``ALGORITHM.PARAMETER``."""

    name: str
    summary: str
    settings: list[dict[str, object]]


def platforms() -> list[PlatformInfo]:
    """Every platform preset (crates/tcpeval-sim/src/platform.rs), in listing order."""
    return [PlatformInfo(**p) for p in json.loads(_core.platforms())]
