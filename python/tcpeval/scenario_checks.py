"""Checks made on a scenario's raw data before the engine sees it.

The engine (crates/tcpeval-sim/src/scenario.rs) validates every field's type
and range. A few problems cannot be caught there, or only after harm is done,
so they are caught here, each as a :class:`~tcpeval.errors.ScenarioError`
naming the field:

* tables nested deeper than :data:`MAX_DEPTH` (the JSON hand-over would
  raise ``RecursionError``);
* NaN and infinities (JSON has no spelling for them);
* an array where a table is expected (``bottleneck = [20, 10]`` would
  silently mean 20 Mbit/s, 10 ms: serde reads a sequence into a struct);
* keys beside ``kind = "internet"`` in an ``rtt`` table (the engine ignores
  them);
* input files (``rtt = { kind = "cdf", path = ... }``) that are not regular
  files, or larger than :data:`MAX_INPUT_FILE_BYTES` (``/dev/zero`` would be
  read until memory runs out).

:func:`input_files` lists the files a scenario reads, so their contents can
be part of its hash.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tcpeval.errors import ScenarioError

MAX_DEPTH = 32
"""Deepest nesting of tables and arrays a scenario may have (the deepest
shipped scenario uses 6)."""

MAX_INPUT_FILE_BYTES = 16 * 1024 * 1024
"""Largest file a scenario may read (an RTT CDF), bytes: 16 MiB, some
500,000 rows."""

TABLE_FIELDS = frozenset(
    {"topology", "bottleneck", "access", "buffer", "tcp", "probes", "traffic", "rtt", "sizes", "session"}
)
"""Field names whose value must be a table wherever they appear (never inside
``params``, whose keys are the algorithms')."""

TABLE_ARRAY_FIELDS = frozenset({"flows", "web", "bulk", "udp", "links"})
"""Field names whose value must be an array of tables."""


def field_path(parts: tuple[str | int, ...]) -> str:
    """``("flows", 1, "rtt_ms")`` -> ``"flows[1].rtt_ms"``, as the engine names fields."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += f".{p}" if out else p
    return out


def _walk(data: Any) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every (path, value) under ``data``, iteratively (no recursion limit),
    refusing nesting deeper than :data:`MAX_DEPTH`."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if len(path) > MAX_DEPTH:
            raise ScenarioError(
                field_path(path[:MAX_DEPTH]), f"nested deeper than {MAX_DEPTH} levels of tables or arrays"
            )
        yield path, value
        if isinstance(value, Mapping):
            stack.extend(((*path, str(k)), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, (list, tuple)):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(value))))


def check_shape(data: Mapping[str, Any]) -> None:
    """Raises :class:`ScenarioError` for the problems listed in the module doc
    (all but input files: see :func:`input_files`)."""
    for path, value in _walk(data):
        at = field_path(path)
        if isinstance(value, float) and not math.isfinite(value):
            raise ScenarioError(at, f"{value} is not allowed; give a finite number")
        if not path or "params" in path[:-1] or (path and path[-1] == "params"):
            continue
        name = path[-1]
        if name in TABLE_FIELDS and isinstance(value, (list, tuple)):
            raise ScenarioError(at, "must be a table ({ key = value, ... }), not an array")
        if name in TABLE_ARRAY_FIELDS and isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                if isinstance(item, (list, tuple)):
                    raise ScenarioError(
                        field_path((*path, i)), "must be a table ({ key = value, ... }), not an array"
                    )
        if name == "rtt" and isinstance(value, Mapping) and value.get("kind") == "internet":
            extra = sorted(set(value) - {"kind"})
            if extra:
                raise ScenarioError(
                    field_path((*path, extra[0])), 'unknown field; `kind = "internet"` takes no other field'
                )


def input_files(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The files a scenario reads, as (field path, file path), in document
    order: every ``rtt = { kind = "cdf", path = ... }``."""
    found = []
    for path, value in _walk(data):
        if path and path[-1] == "rtt" and isinstance(value, Mapping) and value.get("kind") == "cdf":
            file = value.get("path")
            if isinstance(file, str):
                found.append((field_path((*path, "path")), file))
    return found


def read_input_file(field: str, file: str) -> bytes:
    """The contents of input file ``file`` (named by scenario field ``field``),
    refusing what is not a regular file or is larger than :data:`MAX_INPUT_FILE_BYTES`."""
    p = Path(file)
    try:
        st = p.stat()
    except OSError as e:
        raise ScenarioError(field, f"cannot read '{file}': {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ScenarioError(field, f"'{file}' is not a regular file")
    if st.st_size > MAX_INPUT_FILE_BYTES:
        raise ScenarioError(
            field, f"'{file}' has {st.st_size} bytes; allowed at most {MAX_INPUT_FILE_BYTES} (16 MiB)"
        )
    try:
        with p.open("rb") as f:
            content = f.read(MAX_INPUT_FILE_BYTES + 1)
    except OSError as e:
        raise ScenarioError(field, f"cannot read '{file}': {e.strerror or e}") from None
    if len(content) > MAX_INPUT_FILE_BYTES:
        raise ScenarioError(field, f"'{file}' grew beyond {MAX_INPUT_FILE_BYTES} bytes while being read")
    return content


def check_toml_file(path: Path) -> None:
    """Raises :class:`ScenarioError` (field empty) unless ``path`` is a regular
    file of at most :data:`MAX_INPUT_FILE_BYTES` (a directory, a device or a
    FIFO would give a traceback or block)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ScenarioError("", f"file not found: {path}") from None
    except OSError as e:
        raise ScenarioError("", f"cannot read {path}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ScenarioError("", f"{path} is a directory, not a TOML file")
    if not stat.S_ISREG(st.st_mode):
        raise ScenarioError("", f"{path} is not a regular file")
    if st.st_size > MAX_INPUT_FILE_BYTES:
        raise ScenarioError("", f"{path} has {st.st_size} bytes; allowed at most {MAX_INPUT_FILE_BYTES}")
