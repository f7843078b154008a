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
