"""Scenarios: load a TOML file or a dict, validate it in the engine, and keep
the normalized form (every default filled in) with a stable hash.

Validation lives in one place, the engine, so the CLI, the Python API and
study sweeps give the same errors, each naming the field and the allowed
values. Before the engine sees a scenario, :mod:`tcpeval.scenario_checks`
catches what it cannot (deep nesting, NaN, arrays for tables, unreadable
input files) and :mod:`tcpeval.memory` refuses a run that would not fit in
memory (the engine builds the run to validate it).

A scenario's hash covers its normalized data and the contents of every file
it reads (an RTT CDF), so editing such a file changes the run key.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tcpeval import _core
from tcpeval.errors import ScenarioError
from tcpeval.memory import check_budget
from tcpeval.scenario_checks import check_shape, check_toml_file, input_files, read_input_file


class Scenario:
    """A validated scenario. ``data`` is the normalized dict (do not mutate);
    ``inputs`` maps the field of each file it reads to the SHA-256 of the
    file's contents (read from the files when not given)."""

    def __init__(self, data: dict[str, Any], inputs: dict[str, str] | None = None) -> None:
        self.data = data
        self._inputs = inputs

    @property
    def inputs(self) -> dict[str, str]:
        """Field of each file the scenario reads -> SHA-256 of its contents."""
        if self._inputs is None:
            self._inputs = _input_digests(self.data)
        return self._inputs

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
        """SHA-256 of the canonical JSON and of the contents of the files the
        scenario reads: equal hashes mean identical runs. A scenario that reads
        no file hashes its JSON alone (as before files were hashed)."""
        text = self.to_json()
        if self.inputs:
            text += "\n" + json.dumps(sorted(self.inputs.items()))
        return hashlib.sha256(text.encode()).hexdigest()

    def replace(self, **fields: Any) -> Scenario:
        """A validated copy with top-level fields replaced (``seed=3``, ``duration_s=10``)."""
        data = copy.deepcopy(self.data)
        data.update(fields)
        return load_scenario(data)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, duration_s={self.duration_s}, hash={self.hash[:12]})"


def _input_digests(data: Mapping[str, Any]) -> dict[str, str]:
    """SHA-256 of each file the scenario reads, by field (:func:`input_files`)."""
    return {
        field: hashlib.sha256(read_input_file(field, file)).hexdigest() for field, file in input_files(data)
    }


def read_toml(path: Path, what: str = "scenario") -> dict[str, Any]:
    """A TOML file's tables; :class:`ScenarioError` (naming the file) when it
    is missing, not a regular file, not UTF-8 text, not TOML, or nested too deeply."""
    try:
        check_toml_file(path)
    except ScenarioError as e:
        raise ScenarioError("", f"{what} {e.message}") from None
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError("", f"{path}: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise ScenarioError("", f"{path}: not a TOML text file (not UTF-8 at byte {e.start})") from None
    except RecursionError:
        raise ScenarioError("", f"{path}: tables or arrays nested too deeply") from None
    except OSError as e:
        raise ScenarioError("", f"cannot read {path}: {e.strerror or e}") from None


def load_scenario(
    source: str | Path | Mapping[str, Any] | Scenario, time_scale: float | None = None
) -> Scenario:
    """Loads and validates a scenario from a TOML path, a dict or a Scenario.

    ``time_scale`` (0 < value <= 1) shrinks the run's time axis first: the
    duration, start and stop times of flows and traffic generators, and link
    schedules (a study's quick mode; the engine knows which fields are times).
    Raises :class:`ScenarioError` naming the offending field.
    """
    if isinstance(source, Scenario):
        if time_scale is None:
            return source
        source = source.data
    path = None
    if isinstance(source, (str, Path)):
        path = Path(source)
        data: Mapping[str, Any] = read_toml(path)
    elif isinstance(source, Mapping):
        data = source
    else:
        raise TypeError(f"cannot load a scenario from {type(source).__name__}")
    try:
        check_shape(data)
        try:
            json.dumps(data, allow_nan=False)  # the hash covers the JSON form
        except (TypeError, ValueError) as e:
            raise ScenarioError("", f"scenario is not plain data: {e}") from None
        # The engine builds the run to validate it: refuse what would not fit first.
        check_budget(data)
        inputs = _input_digests(data)
        try:
            normalized = _core.validate(data, time_scale)
        except _core.ScenarioError as e:
            _, field, message = e.args
            raise _named(field, message) from None
    except ScenarioError as e:
        if path is None or not e.field:
            raise
        raise _located(e, path) from None
    return Scenario(json.loads(normalized), inputs)


_TOP_LEVEL_FIELD = re.compile(r"^(?:missing|unknown) field `([^`]+)`")


def _named(field: str, message: str) -> ScenarioError:
    """The engine's error, naming the field of a top-level one (serde
    reports an unknown or missing top-level key at the root)."""
    if not field and (m := _TOP_LEVEL_FIELD.match(message)):
        field = m.group(1)
    return ScenarioError(field, message)


def _located(e: ScenarioError, path: Path) -> ScenarioError:
    """``e`` with the file and line where its field (or the nearest part of
    it that the file writes) is written; the file alone when none is."""
    try:
        line = _core.toml_line(path.read_text(encoding="utf-8"), e.field)
    except (OSError, UnicodeDecodeError):
        line = None
    return ScenarioError(e.field, e.message, f"{path}:{line}" if line else str(path))
