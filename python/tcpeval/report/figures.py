"""The figures of a study report, built from the runs of each experiment.

Each ``[[experiment.figure]]`` of the study file gives one or more figures,
saved as ``FIGDIR/NAME.png``, ``.svg`` and ``.pdf`` with ``NAME`` =
``EXPERIMENT-FIGURE`` or, when the figure is split, ``EXPERIMENT-FIGURE-`` +
``PARAM-VALUE`` for each splitting parameter. A figure is split into one per
combination of the sweep parameters it does not place on an axis, in a
curve group, or fix (``facet`` first, then the rest in sweep order), so a
figure never pools runs of different points. Kinds (optional keys in
brackets; every kind also takes [title], [xlabel], [ylabel]):

``line``
    x (sweep parameter), y (metric), [group] (sweep parameter: one curve per
    value), [logx], [logy]. Each point is the mean over the seeds with its
    95% Student-t band (:func:`tcpeval.plots.plot_metric_curves`). An x that
    is not numeric is spread evenly, labelled by value.
``heatmap``
    x, y (sweep parameters), value (metric), [facet] (sweep parameter): the
    mean of the metric in each cell (:func:`tcpeval.plots.plot_heatmap`).
``bars``
    y (list of metrics, one phase each), [group] (sweep parameter: one bar
    per value in each phase): mean and 95% CI across seeds
    (:func:`tcpeval.plots.plot_phase_bars`).
``timeseries``
    [where] (table: sweep parameter -> value, the points shown), [flows]
    (flow-name selectors, default all), [link] (default ``"R1->R2"``),
    [window] (``[t_start, t_end]``, s): cwnd of the selected flows and queue
    of the link in the first (lowest) seed's run of each point, with their
    power spectra (:func:`tcpeval.plots.plot_timeseries_psd`). Flows whose
    sample times differ (different start or stop) get a row each.

A figure with nothing to draw is not saved: its :class:`FigureOutput` carries
a message saying why, which the page shows instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..metrics.runview import run_flow_trace, run_queue_trace
from ..metrics.stats import nan_mean_ci
from ..plots import (
    Traces,
    plot_heatmap,
    plot_metric_curves,
    plot_phase_bars,
    plot_timeseries_psd,
    save_formats,
)
from ..result import RunResult
from ..store import load_run
from .data import RUN_COLUMNS, StudyResults, Value, canonical, ok_runs, present_values, select
from .saving import FigureSaver

FORMATS = ("png", "svg", "pdf")
"""The formats every figure is saved in, by file extension."""

CONFIDENCE = 0.95
"""Confidence level of every interval in the report."""

DEFAULT_LINK = "R1->R2"
"""The link whose queue a timeseries figure shows unless it names one."""


@dataclass
class FigureOutput:
    """One figure of the report.

    ``name`` is the file stem, ``caption`` the figure's title with its split
    values, ``paths`` the saved file per format (empty when there was nothing
    to draw, and ``message`` then says why), ``notes`` what was left out of a
    drawn figure (a flow or link not found), and ``figure`` the matplotlib
    Figure that was saved.
    """

    experiment: str
    name: str
    caption: str
    paths: dict[str, Path] = field(default_factory=dict)
    message: str | None = None
    notes: list[str] = field(default_factory=list)
    figure: Figure | None = None


def slug(text: str) -> str:
    """``text`` made safe for a file name: runs of characters other than
    letters, digits, dot and underscore become one ``-``."""
    return re.sub(r"[^A-Za-z0-9._]+", "-", text).strip("-")


def label(value: Value) -> str:
    """A sweep value as shown on an axis or in a legend (``100``, ``0.5``, ``cubic``)."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def describe(point: Mapping[str, Value]) -> str:
    """``"algorithm = cubic, buffer = 100"``."""
    return ", ".join(f"{p} = {label(v)}" for p, v in point.items())


def _is_number(value: Value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def _stack(cells: Sequence[Sequence[np.ndarray]]) -> np.ndarray:
    """Samples of a 2-D grid of cells, of unequal counts, as one array of
    shape ``(rows, columns, largest count)``, NaN-padded (NaN = no sample)."""
    width = max((c.size for row in cells for c in row), default=0) or 1
    out = np.full((len(cells), len(cells[0]) if cells else 0, width), np.nan)
    for i, row in enumerate(cells):
        for j, c in enumerate(row):
            out[i, j, : c.size] = c
    return out


class _Context:
    """One ``[[experiment.figure]]`` table with its study and experiment,
    checking the names it refers to."""

    def __init__(self, study: StudyResults, experiment: Mapping[str, Any], spec: Mapping[str, Any]) -> None:
        self.study = study
        self.experiment = experiment
        self.spec = spec
        self.where = f"experiment {experiment.get('name')!r}, figure {spec.get('name')!r}"
        self.params = list(experiment.get("sweep", {}))
        frame = study.runs[experiment["name"]]
        self.metrics = list(frame.columns[len(RUN_COLUMNS) + len(self.params) :])

    def require(self, key: str) -> Any:
        if key not in self.spec:
            raise ValueError(f"{self.where}: missing key {key!r}")
        return self.spec[key]

    def param(self, key: str) -> str:
        name = self.require(key)
        if name not in self.params:
            raise ValueError(f"{self.where}: {key} = {name!r} is not a sweep parameter of the experiment")
        return str(name)

    def optional_param(self, key: str) -> str | None:
        return self.param(key) if key in self.spec else None

    def metric(self, name: str) -> str:
        if name not in self.metrics:
            raise ValueError(f"{self.where}: {name!r} is not a metric of the experiment")
        return name

    def values(self, frame: pd.DataFrame, param: str) -> list[Value]:
        """The values of ``param`` present in ``frame``, in study-file order."""
        present = set(frame[param])
        return [v for v in self.study.values(self.experiment, param) if v in present]

    def groups(self, runs: pd.DataFrame, param: str | None) -> list[tuple[str | None, pd.DataFrame]]:
        """``(legend label, runs)`` per value of ``param``; one unlabelled group without it."""
        if param is None:
            return [(None, runs)]
        return [(label(v), select(runs, {param: v})) for v in self.values(runs, param)]


def _line(ctx: _Context, runs: pd.DataFrame, title: str, notes: list[str]) -> Figure | str:
    x, y, group = ctx.param("x"), ctx.metric(ctx.require("y")), ctx.optional_param("group")
    with_values = runs[~runs[y].isna()]
    if with_values.empty:
        return f"no run has a value of {y}"
    xs = ctx.values(with_values, x)
    groups = [(name, g) for name, g in ctx.groups(runs, group) if g[y].notna().any()]
    samples = _stack([[select(g, {x: v})[y].to_numpy(dtype=float) for v in xs] for _, g in groups])
    curves = {name if name is not None else y: s for (name, _), s in zip(groups, samples)}
    numeric = all(_is_number(v) for v in xs)
    positions = [float(v) for v in xs] if numeric else list(range(len(xs)))
    fig = plot_metric_curves(
        positions,
        curves,
        xlabel=ctx.spec.get("xlabel", x),
        ylabel=ctx.spec.get("ylabel", y),
        logx=bool(ctx.spec.get("logx", False)) and numeric and min(positions) > 0,
        logy=bool(ctx.spec.get("logy", False)),
        title=title,
    )
    ax = fig.axes[0]
    if not numeric:
        ax.set_xticks(positions, [label(v) for v in xs])
    if group is not None:
        ax.get_legend().set_title(group)
    return fig


def _heatmap(ctx: _Context, runs: pd.DataFrame, title: str, notes: list[str]) -> Figure | str:
    x, y, value = ctx.param("x"), ctx.param("y"), ctx.metric(ctx.require("value"))
    xs, ys = ctx.values(runs, x), ctx.values(runs, y)
    cells = [[select(runs, {x: vx, y: vy})[value].to_numpy(dtype=float) for vx in xs] for vy in ys]
    grid, _, _ = nan_mean_ci(_stack(cells), CONFIDENCE)
    if np.all(np.isnan(grid)):
        return f"no run has a value of {value}"
    return plot_heatmap(
        grid,
        xs,
        ys,
        xlabel=ctx.spec.get("xlabel", x),
        ylabel=ctx.spec.get("ylabel", y),
        colorbar_label=value,
        fmt="{:.3g}",
        title=title,
    )


def _bars(ctx: _Context, runs: pd.DataFrame, title: str, notes: list[str]) -> Figure | str:
    phases = ctx.require("y")
    if isinstance(phases, str) or not phases:
        raise ValueError(f"{ctx.where}: y must be a non-empty list of metrics (the phases)")
    phases = [ctx.metric(m) for m in phases]
    groups = ctx.groups(runs, ctx.optional_param("group"))
    samples = _stack([[g[m].to_numpy(dtype=float) for m in phases] for _, g in groups])
    if np.all(np.isnan(samples)):
        return f"no run has a value of {', '.join(phases)}"
    names = [name if name is not None else "all runs" for name, _ in groups]
    return plot_phase_bars(
        samples, names, phases, ylabel=ctx.spec.get("ylabel", ctx.spec["name"]), title=title
    )


def _matches(name: str, selector: str) -> bool:
    """A flow-name selector matches the flow of that name and the copies of a
    flow with ``count`` (``base`` matches ``base.0``, ``base.1``)."""
    return name == selector or name.startswith(f"{selector}.")


def _samples_in(t: np.ndarray, window: tuple[float | None, float | None]) -> int:
    """Samples of ``t`` (s) inside the half-open window ``[t_start, t_end)``."""
    lo, hi = window
    return int(
        np.count_nonzero((t >= (-np.inf if lo is None else lo)) & (t < (np.inf if hi is None else hi)))
    )


def _traces(
    ctx: _Context, result: RunResult, window: tuple[float | None, float | None], notes: list[str]
) -> list[Traces]:
    """The cwnd rows (flows grouped by identical sample times) and the queue
    row of one run; what cannot be shown is added to ``notes``."""
    names = [str(n) for n in result.flows["name"]]
    selectors = ctx.spec.get("flows")
    chosen = names if selectors is None else [n for n in names if any(_matches(n, s) for s in selectors)]
    for s in selectors or []:
        if not any(_matches(n, s) for n in names):
            notes.append(f"no flow matches {s!r} (flows: {', '.join(names)})")
    by_times: dict[bytes, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
    for name in chosen:
        t, cwnd = run_flow_trace(result, name, "cwnd")
        if _samples_in(t, window) < 2:
            notes.append(f"flow {name} has fewer than 2 cwnd samples in the window")
            continue
        by_times.setdefault(t.tobytes(), (t, {}))[1][name] = cwnd
    rows = [Traces("cwnd (packets)", t, series) for t, series in by_times.values()]
    link = str(ctx.spec.get("link", DEFAULT_LINK))
    if link not in set(result.links["name"]):
        notes.append(f"no link named {link!r}")
        return rows
    t, qlen = run_queue_trace(result, link, "qlen")
    if _samples_in(t, window) < 2:
        notes.append(f"link {link} has fewer than 2 queue samples in the window (is it monitored?)")
    else:
        rows.append(Traces("queue (packets)", t, {link: qlen}))
    return rows


def _timeseries(ctx: _Context, runs: pd.DataFrame, title: str, notes: list[str]) -> Figure | str:
    window = ctx.spec.get("window")
    if window is not None and len(window) != 2:
        raise ValueError(f"{ctx.where}: window must be [t_start, t_end] in s")
    bounds = (None, None) if window is None else (float(window[0]), float(window[1]))
    first = runs.sort_values(["seed", "key"], kind="stable").iloc[0]
    run_dir = ctx.study.directory / "runs" / str(first["key"])
    if not (run_dir / "summary.json").exists():
        return f"the tables of run {first['key']} (seed {first['seed']}) are not in runs/"
    rows = _traces(ctx, load_run(run_dir), bounds, notes)
    if not rows:
        return "no cwnd or queue series to show"
    return plot_timeseries_psd(
        rows, t_start=bounds[0], t_end=bounds[1], title=f"{title}, seed {first['seed']}"
    )


Builder = Callable[[_Context, pd.DataFrame, str, list[str]], "Figure | str"]
"""Draws one figure from the ok runs of one split, with its title, adding to
the notes what it leaves out; returns the Figure or why there is none."""


def _layout(ctx: _Context) -> tuple[Builder, list[str], dict[str, Value]]:
    """The builder of the figure's kind, the sweep parameters it splits into
    one figure per combination, and the point it is fixed at (``where``)."""
    kind = ctx.require("kind")
    fixed: dict[str, Value] = {}
    if kind == "line":
        builder: Builder = _line
        placed = [ctx.param("x"), ctx.optional_param("group")]
    elif kind == "heatmap":
        builder, placed = _heatmap, [ctx.param("x"), ctx.param("y")]
    elif kind == "bars":
        builder, placed = _bars, [ctx.optional_param("group")]
    elif kind == "timeseries":
        builder, placed = _timeseries, []
        for param, value in ctx.spec.get("where", {}).items():
            if param not in ctx.params:
                raise ValueError(f"{ctx.where}: where names {param!r}, not a sweep parameter")
            fixed[param] = canonical(value)
    else:
        raise ValueError(f"{ctx.where}: unknown kind {kind!r}; use line, heatmap, bars or timeseries")
    facet = ctx.optional_param("facet")
    first = [facet] if facet is not None else []
    rest = [p for p in ctx.params if p not in placed and p not in fixed and p != facet]
    return builder, first + rest, fixed


def figure_outputs(
    study: StudyResults,
    experiment: Mapping[str, Any],
    spec: Mapping[str, Any],
    directory: Path,
    saver: FigureSaver | None = None,
) -> list[FigureOutput]:
    """Build the figures of one ``[[experiment.figure]]`` table ``spec`` and
    save each under ``directory`` in every format of :data:`FORMATS`, at once
    or, given a ``saver``, through it (the files then exist after its
    :meth:`~tcpeval.report.saving.FigureSaver.wait`).

    Returns one :class:`FigureOutput` per split (see the module docstring),
    in study-file value order. Raises ``ValueError`` naming the experiment
    and figure when ``spec`` names an unknown kind, sweep parameter or metric.
    """
    ctx = _Context(study, experiment, spec)
    base = f"{experiment['name']}-{ctx.require('name')}"
    title = str(spec.get("title", spec["name"]))
    builder, splits, fixed = _layout(ctx)
    scope = select(study.runs[experiment["name"]], fixed)
    points = present_values(study, experiment, scope, splits)
    if not points:
        at = f" at {describe(fixed)}" if fixed else ""
        return [FigureOutput(experiment["name"], slug(base), title, message=f"no runs{at}")]
    outputs = []
    for point in points:
        out = FigureOutput(
            experiment["name"],
            slug("-".join([base, *(f"{p}-{label(v)}" for p, v in point.items())])),
            f"{title} ({describe(point)})" if point else title,
        )
        runs = ok_runs(select(scope, point))
        drawn = builder(ctx, runs, out.caption, out.notes) if len(runs) else "every run failed"
        if isinstance(drawn, str):
            out.message = drawn
        else:
            out.figure = drawn
            out.paths = _save(drawn, directory, out.name, saver)
        outputs.append(out)
    return outputs


def _save(fig: Figure, directory: Path, name: str, saver: FigureSaver | None) -> dict[str, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = {ext: directory / f"{name}.{ext}" for ext in FORMATS}
    if saver is None:
        save_formats(fig, list(paths.values()))
    else:
        saver.submit(fig, list(paths.values()))
    return paths


def experiment_figures(
    study: StudyResults, experiment: Mapping[str, Any], directory: Path, saver: FigureSaver | None = None
) -> list[FigureOutput]:
    """Every figure of ``experiment``, in study-file order (see :func:`figure_outputs`)."""
    return [
        out
        for spec in experiment.get("figure", [])
        for out in figure_outputs(study, experiment, spec, directory, saver)
    ]
