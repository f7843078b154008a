"""Goodput of each flow over time, and each flow's share of the data delivered."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ._figure import draw_marks, house_style, marker_indices, new_figure, save, series_style
from .timeseries import Mark


def _steps(begin: np.ndarray, interval: float, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points of a step line holding each value over its interval ``[b, b + interval)``."""
    return np.append(begin, begin[-1] + interval), np.append(values, values[-1])


def plot_goodput(
    begin: ArrayLike,
    interval: float,
    goodput_mbps: Mapping[str, ArrayLike],
    *,
    shares: Mapping[str, ArrayLike] | None = None,
    marks: Sequence[Mark] = (),
    xlabel: str = "time (s)",
    ylabel: str = "goodput (Mbit/s)",
    title: str | None = None,
    path: str | Path | None = None,
) -> Figure:
    """Plot each flow's goodput per interval over time, and optionally its share.

    ``begin`` holds the interval start times (s) and ``interval`` their
    length (s); ``goodput_mbps`` maps each flow's legend label to its goodput
    in each interval (Mbit/s), drawn as a step held over the interval. With
    ``shares`` (label -> fraction of the data delivered so far, at each
    interval's end), a second axes below shows them on [0, 1], the bandwidth
    share panels of Molnar et al. (Computer Communications 2009, Figs. 1, 7,
    20, 21, 26). ``marks`` (s) are labelled vertical lines on both time axes,
    named in the top legend; a mark outside the intervals is left out. Each
    flow has its own colour, dash pattern and marker. The figure is saved to
    ``path`` if given (.png, .svg, .pdf).

    Returns the Figure: one axes (goodput) or two (goodput, share), each with
    one line per flow followed by the drawn marks; the legend is beside the
    top axes.
    """
    b = np.asarray(begin, dtype=float)
    if not goodput_mbps:
        raise ValueError("nothing to plot: no flows")
    if b.size == 0 or not interval > 0:
        raise ValueError("need at least one interval of positive length")
    panels = 1 if shares is None else 2
    lo, hi = float(b[0]), float(b[-1] + interval)
    with house_style():
        fig = new_figure(6.0, 1.3 + 1.9 * panels)
        axes = fig.subplots(panels, 1, squeeze=False, sharex=True)[:, 0]
        for i, (name, values) in enumerate(goodput_mbps.items()):
            v = np.asarray(values, dtype=float)
            if v.shape != b.shape:
                raise ValueError(f"flow {name!r} has {v.size} intervals for {b.size} start times")
            style = {"label": name, "color": f"C{i}", **series_style(i)}
            steps_t, steps_v = _steps(b, interval, v)
            steps = {"drawstyle": "steps-post", "markevery": marker_indices(steps_t, i)}
            axes[0].plot(steps_t, steps_v, **steps, **style)
            if shares is not None:
                share = np.asarray(shares[name], dtype=float)
                axes[1].plot(b + interval, share, markevery=marker_indices(b + interval, i), **style)
        axes[0].set_ylabel(ylabel)
        axes[0].set_ylim(bottom=0)
        if shares is not None:
            axes[1].set_ylabel("share of data delivered (fraction)")
            axes[1].set_ylim(0, 1)
        for k, ax in enumerate(axes):
            draw_marks(ax, [(m.at, m.label) for m in marks], lo=lo, hi=hi, legend=k == 0)
        axes[-1].set_xlabel(xlabel)
        axes[0].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
        if title:
            fig.suptitle(textwrap.fill(title, 90))
    save(fig, path)
    return fig
