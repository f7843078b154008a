"""Checks of a study's references, made when it is loaded (so also by
``--plan``), before any run: every metric names a known function with
arguments it takes, and every table names sweep parameters and metrics the
experiment has (figures: :mod:`tcpeval.figure_spec`). A misspelling fails
here, naming the field, instead of after the sweep (a metric column of
errors, a figure missing from the report).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any

from tcpeval.errors import ScenarioError
from tcpeval.metrics.named import METRICS

TABLE_KEYS = ("name", "title", "rows", "columns")


def check_metric(fn: str, args: Mapping[str, Any], at: str) -> None:
    """Raises ``ScenarioError`` (``at.fn`` or ``at.ARG``) unless ``fn`` is a metric
    function of :data:`tcpeval.metrics.named.METRICS` taking ``args``."""
    if fn not in METRICS:
        raise ScenarioError(f"{at}.fn", f"unknown metric function '{fn}'; known: {', '.join(METRICS)}")
    params = inspect.signature(METRICS[fn]).parameters
    accepted = list(params)[1:]
    for arg in args:
        if arg not in accepted:
            raise ScenarioError(
                f"{at}.{arg}", f"'{fn}' takes no argument '{arg}'; its arguments: {', '.join(accepted)}"
            )
    missing = [
        p.name
        for p in list(params.values())[1:]
        if p.default is inspect.Parameter.empty and p.kind is not p.VAR_KEYWORD and p.name not in args
    ]
    if missing:
        raise ScenarioError(f"{at}.{missing[0]}", f"missing: '{fn}' needs {', '.join(missing)}")


def _param(value: Any, params: Mapping[str, Sequence[Any]], at: str) -> None:
    if not isinstance(value, str) or value not in params:
        raise ScenarioError(
            at, f"{value!r} is not a sweep parameter of the experiment; parameters: {sorted(params)}"
        )


def _metric(value: Any, metrics: set[str], at: str) -> None:
    if not isinstance(value, str) or value not in metrics:
        raise ScenarioError(at, f"{value!r} is not a metric of the experiment; metrics: {sorted(metrics)}")


def check_table(
    spec: Mapping[str, Any], params: Mapping[str, Sequence[Any]], metrics: set[str], at: str
) -> None:
    """Raises ``ScenarioError`` naming the key of ``spec`` (an ``[[experiment.table]]``)
    that names an unknown sweep parameter or metric."""
    unknown = sorted(set(spec) - set(TABLE_KEYS))
    if unknown:
        raise ScenarioError(f"{at}.{unknown[0]}", f"unknown key; allowed: {', '.join(TABLE_KEYS)}")
    for i, name in enumerate(_list(spec, "rows", at)):
        _param(name, params, f"{at}.rows[{i}]")
    for i, name in enumerate(_list(spec, "columns", at)):
        _metric(name, metrics, f"{at}.columns[{i}]")


def _list(spec: Mapping[str, Any], key: str, at: str) -> list[Any]:
    """``spec[key]`` (empty when absent); raises ``ScenarioError`` unless it is a list."""
    value = spec.get(key, [])
    if not isinstance(value, list):
        raise ScenarioError(f"{at}.{key}", "must be a list")
    return value
