"""Metric-versus-parameter curves with confidence bands across replications."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter
from numpy.typing import ArrayLike

from ..metrics.stats import nan_mean_ci
from ._figure import house_style, new_figure, place_legend, save, series_style

# Labels that fit side by side under a 3.5-inch-wide figure's axis at the house font size.
MAX_X_LABELS = 6


def _thinned_labels(xs: np.ndarray) -> list[str]:
    """Tick labels for the parameter values ``xs``: every k-th value labelled
    (the first included), the others blank, so that at most ``MAX_X_LABELS``
    are shown."""
    step = -(-len(xs) // MAX_X_LABELS)
    return [f"{v:g}" if i % step == 0 else "" for i, v in enumerate(xs)]


def plot_metric_curves(
    x: ArrayLike,
    samples: Mapping[str, ArrayLike],
    *,
    xlabel: str,
    ylabel: str,
    confidence: float = 0.95,
    logx: bool = False,
    logy: bool = False,
    title: str | None = None,
    path: str | Path | None = None,
) -> Figure:
    """Plot one curve per algorithm: the mean metric at each parameter value with its CI band.

    ``x`` holds the parameter values (e.g. RTT in ms, buffer in packets);
    ``samples`` maps each curve's label to an array of shape ``(len(x),
    replications)`` (or ``(len(x),)`` for a single run). Each curve is the mean
    over replications with a shaded band of the Student-t ``confidence``
    interval (:func:`tcpeval.metrics.mean_ci`); a single replication has no
    band. A NaN sample is a missing replication and is left out of its
    point (a point with no sample is a gap in the curve). With ``logx`` the
    x ticks sit at the parameter values (a doubling RTT grid, a
    loss-probability sweep), at most ``MAX_X_LABELS`` of them labelled so
    that labels never run into each other. The figure is saved to ``path``
    if given (.png, .svg, .pdf).

    Returns the Figure: one axes with one line and one band collection per
    curve.
    """
    xs = np.asarray(x, dtype=float)
    if not samples:
        raise ValueError("nothing to plot: no curves")
    with house_style():
        fig = new_figure(3.5, 2.6)
        ax = fig.add_subplot()
        for index, (label, values) in enumerate(samples.items()):
            arr = np.asarray(values, dtype=float)
            if arr.ndim == 1:
                arr = arr[:, None]
            if arr.shape[0] != xs.size:
                raise ValueError(f"curve {label!r} has {arr.shape[0]} points for {xs.size} x values")
            mean, half, _ = nan_mean_ci(arr, confidence)
            # Told apart by line style and marker as well as colour.
            (line,) = ax.plot(xs, mean, label=label, **series_style(index))
            ax.fill_between(xs, mean - half, mean + half, color=line.get_color(), alpha=0.2, linewidth=0)
        if logx:
            ax.set_xscale("log")
            ax.set_xticks(xs, _thinned_labels(xs))
            ax.xaxis.set_minor_formatter(NullFormatter())
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title:
            ax.set_title(title)
        place_legend(ax)
    save(fig, path)
    return fig
