"""Checks of ``[[experiment.figure]]`` tables (docs/report.md, "Figures").

One checker serves both readers of a study file: :mod:`tcpeval.study`
when it loads the file (so a typo stops the study before it runs) and
:mod:`tcpeval.report.figures` when it draws (the report reads the copy
stored with the results). A problem raises :class:`FigureSpecError`
naming the figure, the key and what is allowed. It imports no plotting
library.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

COMMON_KEYS = ("name", "kind", "title", "xlabel", "ylabel", "facet")
"""Keys every figure kind takes."""

KIND_KEYS: dict[str, tuple[str, ...]] = {
    "line": ("x", "y", "group", "logx", "logy", "ylim", "x_factor"),
    "heatmap": ("x", "y", "value"),
    "bars": ("y", "group", "labels", "logy"),
    "timeseries": (
        "where",
        "flows",
        "aggregate",
        "secondary_axis",
        "link",
        "links",
        "window",
        "psd_window",
        "marks",
        "freq_marks",
    ),
    "throughput": ("where", "flows", "window", "interval", "cumulative_share", "marks"),
}
"""The keys of each figure kind besides :data:`COMMON_KEYS`."""

REQUIRED_KEYS: dict[str, tuple[str, ...]] = {
    "line": ("x", "y"),
    "heatmap": ("x", "y", "value"),
    "bars": ("y",),
    "timeseries": (),
    "throughput": ("interval",),
}
"""The keys each kind cannot do without."""


class FigureSpecError(ValueError):
    """A figure table names an unknown kind or key, or a key has a bad value.

    ``figure`` is the figure's name, ``key`` the offending key (``"kind"``
    for an unknown kind) and ``message`` what is wrong and what is allowed.
    """

    def __init__(self, figure: str, key: str, message: str) -> None:
        self.figure = figure
        self.key = key
        self.message = message
        super().__init__(f"figure {figure!r}, {key}: {message}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Checker:
    def __init__(self, spec: Mapping[str, Any], experiment: Mapping[str, Any], metrics: Collection[str]):
        self.spec = spec
        self.name = str(spec.get("name", "?"))
        self.sweep = experiment.get("sweep", {}) or {}
        self.quick = experiment.get("quick", {}) or {}
        self.metrics = metrics

    def fail(self, key: str, message: str) -> FigureSpecError:
        return FigureSpecError(self.name, key, message)

    def param(self, key: str) -> None:
        """``key``, when given, names a sweep parameter."""
        if key not in self.spec:
            return
        value = self.spec[key]
        if value not in self.sweep:
            raise self.fail(
                key,
                f"{key} = {value!r} is not a sweep parameter of the experiment;"
                f" parameters: {sorted(self.sweep)}",
            )

    def metric(self, key: str, value: Any) -> None:
        if value not in self.metrics:
            raise self.fail(
                key, f"{value!r} is not a metric of the experiment; metrics: {sorted(self.metrics)}"
            )

    def boolean(self, key: str) -> None:
        if not isinstance(self.spec[key], bool):
            raise self.fail(key, f"must be true or false, got {self.spec[key]!r}")

    def strings(self, key: str) -> list[str]:
        """A non-empty list of non-empty strings (flow-name selectors, link names)."""
        value = self.spec[key]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            example = '["first", "second"]'
            raise self.fail(key, f"must be a non-empty list of names such as {example}, got {value!r}")
        return value

    def window(self, key: str) -> None:
        """``[t_start, t_end]`` in s, ``0 <= t_start < t_end``."""
        value = self.spec[key]
        ok = (
            isinstance(value, list)
            and len(value) == 2
            and all(_is_number(v) for v in value)
            and 0 <= value[0] < value[1]
        )
        if not ok:
            raise self.fail(key, f"must be [t_start, t_end] in s with 0 <= t_start < t_end, got {value!r}")

    def limits(self, key: str) -> None:
        """``[lo, hi]``, two numbers with lo < hi (an axis range)."""
        value = self.spec[key]
        ok = isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value)
        if not ok or not value[0] < value[1]:
            raise self.fail(key, f"must be [low, high] with low < high, got {value!r}")

    def positive(self, key: str, unit: str = "s") -> None:
        value = self.spec[key]
        if not _is_number(value) or not value > 0:
            what = f"a number > 0 ({unit})" if unit else "a number > 0"
            raise self.fail(key, f"must be {what}, got {value!r}")

    def marks(self, key: str, position: str, unit: str, positive: bool) -> None:
        """A list of ``{ POSITION = number, label = "text" }`` tables."""
        value = self.spec[key]
        example = f'[{{ {position} = 1.5, label = "eq (5)" }}]'
        if not isinstance(value, list) or not value:
            raise self.fail(key, f"must be a non-empty list of tables such as {example}, got {value!r}")
        for i, mark in enumerate(value):
            at = f"{key}[{i}]"
            if not isinstance(mark, dict) or set(mark) != {position, "label"}:
                keys = sorted(mark) if isinstance(mark, dict) else mark
                raise self.fail(at, f"must have exactly the keys {position} ({unit}) and label, got {keys!r}")
            if not _is_number(mark[position]) or (positive and not mark[position] > 0):
                bound = "> 0" if positive else ""
                raise self.fail(
                    f"{at}.{position}", f"must be a number {bound} ({unit}), got {mark[position]!r}"
                )
            if not isinstance(mark["label"], str) or not mark["label"].strip():
                raise self.fail(f"{at}.label", "must be a non-empty string naming the mark in the legend")

    def where(self) -> None:
        value = self.spec["where"]
        if not isinstance(value, dict):
            raise self.fail("where", f"must be a table of sweep parameter = value, got {value!r}")
        for param, v in value.items():
            if param not in self.sweep:
                raise self.fail(
                    f"where.{param}",
                    f"not a sweep parameter of the experiment; parameters: {sorted(self.sweep)}",
                )
            allowed = list(self.sweep[param].get("values", []))
            allowed += [q for q in self.quick.get(param, []) if q not in allowed]
            if v not in allowed:
                raise self.fail(f"where.{param}", f"{v!r} is not one of its values {allowed}")


def check_figure(spec: Mapping[str, Any], experiment: Mapping[str, Any], metrics: Collection[str]) -> None:
    """Check one ``[[experiment.figure]]`` table against its experiment.

    ``experiment`` is the experiment's table as written in the study file
    (its ``sweep`` and ``quick`` tables are read) and ``metrics`` the names
    of its metrics and derived metrics. Raises :class:`FigureSpecError` for
    an unknown kind or key, a missing required key, a name that is not a
    sweep parameter or metric, a ``where`` value the sweep does not have, or
    a malformed value; returns None when the table is sound.
    """
    c = _Checker(spec, experiment, metrics)
    kind = spec.get("kind")
    if kind not in KIND_KEYS:
        raise c.fail("kind", f"unknown kind {kind!r}; use {', '.join(KIND_KEYS)}")
    allowed = COMMON_KEYS + KIND_KEYS[kind]
    unknown = sorted(set(spec) - set(allowed))
    if unknown:
        raise c.fail(unknown[0], f"unknown key for a {kind} figure; allowed: {', '.join(allowed)}")
    for key in ("title", "xlabel", "ylabel"):
        if key in spec and not isinstance(spec[key], str):
            raise c.fail(key, f"must be a string, got {spec[key]!r}")
    c.param("facet")
    _CHECKS[kind](c)
    for key in REQUIRED_KEYS[kind]:
        if key not in spec:
            raise c.fail(key, f"missing (a {kind} figure needs {', '.join(REQUIRED_KEYS[kind])})")


def _line(c: _Checker) -> None:
    c.param("x")
    if "y" in c.spec:
        c.metric("y", c.spec["y"])
    c.param("group")
    for key in ("logx", "logy"):
        if key in c.spec:
            c.boolean(key)
    if "ylim" in c.spec:
        c.limits("ylim")
    if "x_factor" in c.spec:
        c.positive("x_factor", unit="")


def _heatmap(c: _Checker) -> None:
    c.param("x")
    c.param("y")
    if "value" in c.spec:
        c.metric("value", c.spec["value"])


def _bars(c: _Checker) -> None:
    c.param("group")
    if "y" not in c.spec:
        return
    phases = c.spec["y"]
    if not isinstance(phases, list) or not phases:
        raise c.fail("y", f"must be a non-empty list of metrics (the phases), got {phases!r}")
    for m in phases:
        c.metric("y", m)
    if "labels" in c.spec:
        labels = c.strings("labels")
        if len(labels) != len(phases):
            raise c.fail("labels", f"must give one label per metric of y ({len(phases)}), got {len(labels)}")
    if "logy" in c.spec:
        c.boolean("logy")


def _selectors(c: _Checker) -> None:
    if "where" in c.spec:
        c.where()
    if "flows" in c.spec:
        c.strings("flows")
    if "window" in c.spec:
        c.window("window")
    if "marks" in c.spec:
        c.marks("marks", "x", "s", positive=False)


def _timeseries(c: _Checker) -> None:
    _selectors(c)
    if "link" in c.spec and "links" in c.spec:
        raise c.fail("links", "give either link (one queue row) or links (a row per link), not both")
    if "link" in c.spec and not (isinstance(c.spec["link"], str) and c.spec["link"]):
        raise c.fail("link", f'must be a link name such as "R1->R2", got {c.spec["link"]!r}')
    if "links" in c.spec:
        c.strings("links")
    if "psd_window" in c.spec:
        c.window("psd_window")
    if "freq_marks" in c.spec:
        c.marks("freq_marks", "hz", "Hz", positive=True)
    aggregates = c.strings("aggregate") if "aggregate" in c.spec else []
    if "secondary_axis" in c.spec:
        flows: Sequence[str] | None = c.spec.get("flows")
        for s in c.strings("secondary_axis"):
            drawn = s in aggregates or flows is None or any(s == f or s.startswith(f"{f}.") for f in flows)
            if not drawn:
                raise c.fail(
                    "secondary_axis",
                    f"{s!r} is neither an aggregate nor one of the flows drawn; "
                    f"aggregate: {aggregates}, flows: {list(flows or [])}",
                )


def _throughput(c: _Checker) -> None:
    _selectors(c)
    if "interval" in c.spec:
        c.positive("interval")
    if "cumulative_share" in c.spec:
        c.boolean("cumulative_share")


_CHECKS = {
    "line": _line,
    "heatmap": _heatmap,
    "bars": _bars,
    "timeseries": _timeseries,
    "throughput": _throughput,
}
