"""What the engine registers: its congestion-control algorithms with their
parameters, its platform presets and its TCP options.

(Not to be confused with a results directory's ``catalog.sqlite``, the run
store of :mod:`tcpeval.results_db`.)"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from tcpeval import _core


@dataclass(frozen=True)
class AlgorithmInfo:
    """One algorithm: registry name, summary, default parameters, and per
    parameter (in declaration order) its ``name``, ``type``, ``default``,
    ``range`` (``kind``: closed, open_low, custom or unchecked; ``lo`` and
    ``hi``, the declared bounds, for the first two; ``text``), ``unit``,
    ``doc`` and ``source`` (of the default), from the algorithm's
    ``params!`` declaration."""

    name: str
    summary: str
    defaults: dict[str, object]
    params: list[dict[str, Any]]


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


@dataclass(frozen=True)
class TcpOptionInfo:
    """One TCP option of a scenario's ``tcp`` table: its value type, unit,
    default (JSON; ``None`` for an unlimited value), allowed range
    (inclusive, numeric options only), meaning and source."""

    name: str
    type: str
    unit: str
    default: object
    range: list[float] | None
    doc: str
    source: str


def tcp_options() -> list[TcpOptionInfo]:
    """Every TCP option, in declaration order (crates/tcpeval-sim/src/tcp/config.rs)."""
    return [TcpOptionInfo(**o) for o in json.loads(_core.tcp_options())]


@dataclass(frozen=True)
class QueueInfo:
    """One queue discipline a link's ``queue`` table selects (``kind``):
    its summary and parameters (each with ``name``, ``unit``, ``default``,
    ``range`` (inclusive, numbers only, else ``None``), ``doc``, ``source``)."""

    name: str
    summary: str
    params: list[dict[str, object]]


def queues() -> list[QueueInfo]:
    """Every queue discipline, DropTail first (crates/tcpeval-sim/src/net/queue/)."""
    return [QueueInfo(**q) for q in json.loads(_core.queues())]
