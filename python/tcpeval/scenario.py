"""Scenarios: load a TOML file or a dict, validate it in the engine, and keep
the normalized form (every default filled in) with a stable hash.

Validation lives in one place, the engine, so the CLI, the Python API and
study sweeps give the same errors, each naming the field and the allowed
values.
"""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcpeval import _core
from tcpeval.errors import ScenarioError


class Scenario:
    """A validated scenario. ``data`` is the normalized dict (do not mutate)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    @property
    def name(self) -> str:
        return str(self.data.get("name", ""))

    @property
    def duration_s(self) -> float:
        return float(self.data["duration_s"])

    @property
    def seed(self) -> int:
        return int(self.data["seed"])

    def to_json(self) -> str:
        """Canonical JSON text (sorted keys): what the engine runs and the hash covers."""
        return json.dumps(self.data, sort_keys=True, separators=(",", ":"))

    @property
    def hash(self) -> str:
        """SHA-256 of the canonical JSON: equal hashes mean identical runs."""
        return hashlib.sha256(self.to_json().encode()).hexdigest()

    def replace(self, **fields: Any) -> Scenario:
        """A validated copy with top-level fields replaced (``seed=3``, ``duration_s=10``)."""
        data = copy.deepcopy(self.data)
        data.update(fields)
        return load_scenario(data)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, duration_s={self.duration_s}, hash={self.hash[:12]})"


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ScenarioError("", f"scenario file not found: {path}") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"{path}: not valid TOML: {e}") from None


def load_scenario(source: str | Path | Mapping[str, Any] | Scenario) -> Scenario:
    """Loads and validates a scenario from a TOML path, a dict or a Scenario.

    Raises :class:`ScenarioError` naming the offending field.
    """
    if isinstance(source, Scenario):
        return source
    if isinstance(source, (str, Path)):
        data: Mapping[str, Any] = _read_toml(Path(source))
    elif isinstance(source, Mapping):
        data = source
    else:
        raise TypeError(f"cannot load a scenario from {type(source).__name__}")
    try:
        text = json.dumps(data, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ScenarioError("", f"scenario is not plain data: {e}") from None
    try:
        normalized = _core.validate(text)
    except _core.ScenarioError as e:
        _, field, message = e.args
        raise ScenarioError(field, message) from None
    return Scenario(json.loads(normalized))
