"""Grouped bar charts of per-phase metrics with confidence-interval error bars."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..metrics.stats import nan_mean_ci
from ._figure import house_style, new_figure, place_legend, save


def plot_phase_bars(
    samples: ArrayLike,
    groups: Sequence[str],
    phases: Sequence[str],
    *,
    ylabel: str,
    logy: bool = False,
    confidence: float = 0.95,
    title: str | None = None,
    path: str | Path | None = None,
) -> Figure:
    """Plot bars of a metric for each group (flow, algorithm) in each phase, with CI error bars.

    ``samples`` has shape ``(len(groups), len(phases), replications)`` (or
    ``(len(groups), len(phases))`` for a single run). Phases are clusters
    along the x axis, one bar per group inside each; the bar is the mean over
    replications and the error bar the Student-t ``confidence`` half-width
    (:func:`tcpeval.metrics.mean_ci`; none for a single replication). A NaN
    sample is a missing replication and is left out of its bar. This is
    the per-phase report of the ``reverse`` study (goodput of flows A and B in
    each of its three phases). ``phases`` are the tick labels of the
    clusters. ``logy`` draws the y axis logarithmic (bars whose values span
    orders of magnitude; a zero bar is then not drawn). The figure is saved to
    ``path`` if given.

    Returns the Figure: one axes with one bar container of ``len(phases)``
    bars per group.
    """
    arr = np.asarray(samples, dtype=float)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3 or arr.shape[:2] != (len(groups), len(phases)):
        raise ValueError(
            f"samples must have shape ({len(groups)}, {len(phases)}[, replications]), got {np.shape(samples)}"
        )
    mean, half, _ = nan_mean_ci(arr, confidence)
    has_error = bool(np.any(~np.isnan(half)))
    positions = np.arange(len(phases), dtype=float)
    width = 0.8 / len(groups)
    with house_style():
        fig = new_figure(max(3.5, 0.9 * len(phases) * len(groups) ** 0.5 + 1.5), 2.6)
        ax = fig.add_subplot()
        for i, group in enumerate(groups):
            ax.bar(
                positions + (i - (len(groups) - 1) / 2) * width,
                mean[i],
                width,
                yerr=half[i] if has_error else None,
                capsize=2.5,
                label=group,
                error_kw={"elinewidth": 0.8, "capthick": 0.8},
            )
        ax.set_xticks(positions, list(phases))
        ax.set_ylabel(ylabel)
        if logy:
            ax.set_yscale("log")
        ax.grid(axis="x", visible=False)
        if title:
            ax.set_title(title)
        place_legend(ax)
    save(fig, path)
    return fig
