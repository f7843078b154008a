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
    (flow-name selectors, default every flow not in an aggregate),
    [aggregate] (selectors: one line each, the summed cwnd of the flows it
    matches), [secondary_axis] (selectors drawn on a right-hand axis),
    [link] (default ``"R1->R2"``) or [links] (a queue row each), [window]
    (``[t_start, t_end]``, s, the time axes), [psd_window] (the spectra's
    window, default ``window``), [marks] (``{x, label}``, s),
    [freq_marks] (``{hz, label}``, Hz): one cwnd row and a queue row per
    link of the first (lowest) seed's run of each point, with their power
    spectra (:func:`tcpeval.plots.plot_timeseries_psd`).
``throughput``
    interval (s), [where], [flows], [window], [cumulative_share] (bool),
    [marks]: each flow's goodput per interval of the lowest seed's run, and
    its share of the data delivered so far (:func:`tcpeval.plots.plot_goodput`).

Every key is checked first (:func:`tcpeval.figure_spec.check_figure`).
A figure with nothing to draw is not saved: its :class:`FigureOutput` carries
a message saying why, which the page shows instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..figure_spec import KIND_KEYS, FigureSpecError, check_figure
from ..metrics._series import cumulative_at
from ..metrics.runview import run_flow_trace, run_queue_trace
from ..metrics.stats import nan_mean_ci
from ..plots import (
    Mark,
    Traces,
    plot_goodput,
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
from .traces import cumulative_shares, goodput_bins, matches, summed_series

FORMATS = ("png", "svg", "pdf")
"""The formats a figure can be saved in, by file extension (all three by default)."""


def figure_formats(asked: Iterable[str]) -> tuple[str, ...]:
    """The formats to save, in :data:`FORMATS` order: those ``asked`` and PNG,
    which the page inlines when no smaller SVG is saved. Raises ``ValueError``
    naming an unknown format and the allowed ones."""
    wanted = {a.strip().lower().lstrip(".") for a in asked if a.strip()}
    unknown = sorted(wanted - set(FORMATS))
    if unknown:
        raise ValueError(f"figure formats: {', '.join(unknown)} not among {', '.join(FORMATS)}")
    return tuple(f for f in FORMATS if f in wanted or f == "png")


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
        try:
            check_figure(spec, experiment, self.metrics)
        except FigureSpecError as e:
            raise ValueError(f"{self.where}: {e.key}: {e.message}") from None

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
    curves = {name if name is not None else y: s for (name, _), s in zip(groups, samples, strict=True)}
    numeric = all(_is_number(v) for v in xs)
    factor = float(ctx.spec.get("x_factor", 1.0))
    positions = [float(v) * factor for v in xs] if numeric else list(range(len(xs)))
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
    if "ylim" in ctx.spec:
        ax.set_ylim(*ctx.spec["ylim"])
    if group is not None:
        legend = ax.get_legend()
        assert legend is not None, "place_legend made one"
        legend.set_title(group)
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
        samples,
        names,
        ctx.spec.get("labels", phases),
        ylabel=ctx.spec.get("ylabel", ctx.spec["name"]),
        logy=bool(ctx.spec.get("logy", False)),
        title=title,
    )


def _samples_in(t: np.ndarray, window: tuple[float | None, float | None]) -> int:
    """Samples of ``t`` (s) inside the half-open window ``[t_start, t_end)``."""
    lo, hi = window
    return int(
        np.count_nonzero((t >= (-np.inf if lo is None else lo)) & (t < (np.inf if hi is None else hi)))
    )


Window = tuple[float | None, float | None]
"""``(t_start, t_end)`` in s; None is open."""


def _window(ctx: _Context, key: str) -> Window | None:
    """The ``[t_start, t_end]`` of ``key`` (s), None when the figure has none.
    Like the metrics' windows and the marks, a window is written for the full
    run and moves with the run's time axis in quick mode
    (``quick.duration_scale``)."""
    value = ctx.spec.get(key)
    if value is None:
        return None
    scale = ctx.study.time_scale(ctx.experiment)
    return (float(value[0]) * scale, float(value[1]) * scale)


def _selected(ctx: _Context, names: list[str], key: str, notes: list[str]) -> list[str]:
    """The flows matched by the selectors under ``key``, in run order; a
    selector that matches none is noted."""
    selectors = ctx.spec.get(key, [])
    for s in selectors:
        if not any(matches(n, s) for n in names):
            notes.append(f"{key}: no flow matches {s!r} (flows: {', '.join(names)})")
    return [n for n in names if any(matches(n, s) for s in selectors)]


def _cwnd_row(
    ctx: _Context, result: RunResult, window: Window, psd_window: Window, notes: list[str]
) -> Traces | None:
    """The cwnd row of one run: each selected flow, each aggregate's summed
    cwnd, the ``secondary_axis`` ones on the right; what cannot be shown is
    added to ``notes``. None when no series has two samples in the window."""
    names = [str(n) for n in result.flows["name"]]
    aggregates = list(ctx.spec.get("aggregate", []))
    if "flows" in ctx.spec:
        chosen = _selected(ctx, names, "flows", notes)
    else:  # every flow that is not part of an aggregate
        chosen = [n for n in names if not any(matches(n, a) for a in aggregates)]
    series: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in chosen:
        series[name] = run_flow_trace(result, name, "cwnd")
    for selector in aggregates:
        members = [n for n in names if matches(n, selector)]
        if not members:
            notes.append(f"aggregate: no flow matches {selector!r} (flows: {', '.join(names)})")
            continue
        label = f"{selector}: sum of {len(members)} flow{'s' if len(members) > 1 else ''}"
        series[label] = summed_series([run_flow_trace(result, n, "cwnd") for n in members])
        aggregates[aggregates.index(selector)] = label
    for name, (t, _) in list(series.items()):
        if _samples_in(t, window) < 2:
            notes.append(f"{name} has fewer than 2 cwnd samples in the window")
            del series[name]
        elif _samples_in(t, psd_window) < 2:
            notes.append(f"{name} has fewer than 2 cwnd samples in the spectrum window: no spectrum")
    if not series:
        return None
    right = ctx.spec.get("secondary_axis", [])
    secondary = [
        label
        for label in series
        if any(matches(label, s) or label.startswith(f"{s}: sum of ") for s in right)
    ]
    if secondary and len(secondary) == len(series):
        notes.append("secondary_axis selects every series: all are drawn on the left axis")
        secondary = []
    on_right = ", ".join(secondary)
    return Traces(
        "cwnd (packets)",
        np.empty(0),
        {name: v for name, (_, v) in series.items()},
        times={name: t for name, (t, _) in series.items()},
        secondary=secondary,
        secondary_label=f"cwnd of {on_right} (packets)" if secondary else None,
    )


def _queue_rows(ctx: _Context, result: RunResult, window: Window, notes: list[str]) -> list[Traces]:
    """One queue row per link of ``links`` (or the one ``link``); a link not
    in the run or without samples in the window is noted."""
    links = ctx.spec.get("links", [ctx.spec.get("link", DEFAULT_LINK)])
    present = set(result.links["name"])
    rows = []
    for link in map(str, links):
        if link not in present:
            notes.append(f"no link named {link!r} (links: {', '.join(sorted(map(str, present)))})")
            continue
        t, qlen = run_queue_trace(result, link, "qlen")
        if _samples_in(t, window) < 2:
            notes.append(f"link {link} has fewer than 2 queue samples in the window (is it monitored?)")
        else:
            rows.append(Traces("queue (packets)", t, {link: qlen}))
    return rows


def _marks(
    ctx: _Context, key: str, position: str, lo: float, hi: float, unit: str, notes: list[str]
) -> list[Mark]:
    """The marks under ``key`` whose ``position`` lies in ``[lo, hi]`` (the
    axis' range in ``unit``); the others are noted as left out. Times (unit
    s) are of the full run: in quick mode they move with the run's time axis
    (``quick.duration_scale``), as flow start times do."""
    shown = []
    scale = ctx.study.time_scale(ctx.experiment) if unit == "s" else 1.0
    for mark in ctx.spec.get(key, []):
        at = float(mark[position]) * scale
        if lo <= at <= hi:
            shown.append(Mark(at, str(mark["label"])))
        else:
            notes.append(
                f"{key}: {mark['label']!r} at {at:g} {unit} is outside the axis ({lo:g} to {hi:g} {unit})"
            )
    return shown


def _first_run(ctx: _Context, runs: pd.DataFrame) -> tuple[pd.Series, RunResult | str]:
    """The lowest seed's run of ``runs`` and its tables, or why they are missing."""
    first = runs.sort_values(["seed", "key"], kind="stable").iloc[0]
    run_dir = ctx.study.directory / "runs" / str(first["key"])
    if not (run_dir / "summary.json").exists():
        return first, f"the tables of run {first['key']} (seed {first['seed']}) are not in runs/"
    return first, load_run(run_dir)


def _span(window: Window, duration: float) -> tuple[float, float]:
    """A window with its open ends at 0 and the run's end, clipped to the run (s)."""
    lo = 0.0 if window[0] is None else window[0]
    hi = duration if window[1] is None else min(window[1], duration)
    return lo, hi


def _frequency_span(rows: list[Traces], psd_window: Window, duration: float) -> tuple[float, float]:
    """The frequencies (Hz) a spectrum of ``psd_window`` can show: from one
    cycle in the window to the Nyquist frequency of the finest sampling."""
    lo, hi = _span(psd_window, duration)
    periods = [float(np.median(np.diff(t))) for row in rows for _, t, _ in row.series() if t.size > 1]
    nyquist = 1.0 / (2.0 * min(periods)) if periods else 0.0
    return (1.0 / (hi - lo) if hi > lo else np.inf), nyquist


def _timeseries(ctx: _Context, runs: pd.DataFrame, title: str, notes: list[str]) -> Figure | str:
    bounds = _window(ctx, "window") or (None, None)
    spectral = _window(ctx, "psd_window") or bounds
    first, result = _first_run(ctx, runs)
    if isinstance(result, str):
        return result
    cwnd = _cwnd_row(ctx, result, bounds, spectral, notes)
    rows = ([cwnd] if cwnd is not None else []) + _queue_rows(ctx, result, bounds, notes)
    if not rows:
        return "no cwnd or queue series to show"
    duration = float(result.duration)
    marks = _marks(ctx, "marks", "x", *_span(bounds, duration), "s", notes)
    freq_marks = _marks(ctx, "freq_marks", "hz", *_frequency_span(rows, spectral, duration), "Hz", notes)
    if "psd_window" in ctx.spec:
        lo, hi = _span(spectral, duration)
        title = f"{title}, spectra over [{lo:g}, {hi:g}] s"
    return plot_timeseries_psd(
        rows,
        t_start=bounds[0],
        t_end=bounds[1],
        psd_window=spectral,
        marks=marks,
        freq_marks=freq_marks,
        title=f"{title}, seed {first['seed']}",
    )


def _throughput(ctx: _Context, runs: pd.DataFrame, title: str, notes: list[str]) -> Figure | str:
    interval = float(ctx.require("interval"))
    first, result = _first_run(ctx, runs)
    if isinstance(result, str):
        return result
    lo, hi = _span(_window(ctx, "window") or (None, None), float(result.duration))
    if hi - lo < interval:
        return f"the window [{lo:g}, {hi:g}] s is shorter than one interval of {interval:g} s"
    names = [str(n) for n in result.flows["name"]]
    chosen = _selected(ctx, names, "flows", notes) if "flows" in ctx.spec else names
    goodput: dict[str, np.ndarray] = {}
    delivered: dict[str, np.ndarray] = {}
    begin = np.empty(0)
    for name in chosen:
        t, d = run_flow_trace(result, name, "delivered")
        if t.size == 0:
            notes.append(f"flow {name} has no delivered-bytes samples")
            continue
        begin, goodput[name] = goodput_bins(t, d, interval, lo, hi)
        delivered[name] = cumulative_at(t, d, begin + interval) - cumulative_at(t, d, [lo])[0]
    if not goodput:
        return "no flow to show"
    return plot_goodput(
        begin,
        interval,
        goodput,
        shares=cumulative_shares(delivered) if ctx.spec.get("cumulative_share", False) else None,
        marks=_marks(ctx, "marks", "x", lo, hi, "s", notes),
        xlabel=ctx.spec.get("xlabel", "time (s)"),
        ylabel=ctx.spec.get("ylabel", f"goodput per {interval:g} s (Mbit/s)"),
        title=f"{title}, seed {first['seed']}",
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
    elif kind in ("timeseries", "throughput"):
        builder, placed = (_timeseries if kind == "timeseries" else _throughput), []
        for param, value in ctx.spec.get("where", {}).items():
            if param not in ctx.params:
                raise ValueError(f"{ctx.where}: where names {param!r}, not a sweep parameter")
            fixed[param] = canonical(value)
    else:
        raise ValueError(f"{ctx.where}: unknown kind {kind!r}; use {', '.join(KIND_KEYS)}")
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
    formats: Sequence[str] = FORMATS,
) -> list[FigureOutput]:
    """Build the figures of one ``[[experiment.figure]]`` table ``spec`` and
    save each under ``directory`` in ``formats`` (extensions, see
    :func:`figure_formats`), at once or, given a ``saver``, through it (the
    files then exist after its :meth:`~tcpeval.report.saving.FigureSaver.wait`).

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
            out.paths = _save(drawn, directory, out.name, saver, formats)
        outputs.append(out)
    return outputs


def _save(
    fig: Figure, directory: Path, name: str, saver: FigureSaver | None, formats: Sequence[str]
) -> dict[str, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    paths = {ext: directory / f"{name}.{ext}" for ext in formats}
    if saver is None:
        save_formats(fig, list(paths.values()))
    else:
        saver.submit(fig, list(paths.values()))
    return paths


def experiment_figures(
    study: StudyResults,
    experiment: Mapping[str, Any],
    directory: Path,
    saver: FigureSaver | None = None,
    formats: Sequence[str] = FORMATS,
) -> list[FigureOutput]:
    """Every figure of ``experiment``, in study-file order (see :func:`figure_outputs`)."""
    return [
        out
        for spec in experiment.get("figure", [])
        for out in figure_outputs(study, experiment, spec, directory, saver, formats)
    ]
