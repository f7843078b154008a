"""Heat maps of a metric over a grid of two parameters, with annotated cells."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ._figure import house_style, new_figure, save


def _tick(value: object) -> str:
    return f"{value:g}" if isinstance(value, (int, float, np.number)) else str(value)


def plot_heatmap(
    values: ArrayLike,
    x_values: Sequence[object],
    y_values: Sequence[object],
    *,
    xlabel: str,
    ylabel: str,
    colorbar_label: str,
    fmt: str = "{:.2f}",
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    annotate: bool = True,
    title: str | None = None,
    path: str | Path | None = None,
) -> Figure:
    """Plot ``values[i, j]`` (row ``i`` = ``y_values[i]``, column ``j`` = ``x_values[j]``) as colored cells.

    The grid is categorical: cells are equally sized whatever the spacing of
    the parameter values (the ``yeah`` study's RTT grid 15..480 ms doubles at
    each step), and the axes are labelled with the values. With ``annotate``
    each finite cell shows its value formatted by ``fmt``, in black or white
    for contrast with the cell color; NaN cells stay blank. The color scale
    spans ``[vmin, vmax]`` (data range by default). Saved to ``path`` if given.

    Returns the Figure: the heat-map axes (one mesh collection, one text per
    annotated cell) and the colorbar axes.
    """
    grid = np.ma.masked_invalid(np.asarray(values, dtype=float))
    if grid.ndim != 2 or grid.shape != (len(y_values), len(x_values)):
        raise ValueError(f"values must have shape ({len(y_values)}, {len(x_values)}), got {np.shape(values)}")
    colors = colormaps[cmap]
    rows, cols = grid.shape
    with house_style():
        fig = new_figure(0.55 * cols + 1.8, 0.45 * rows + 1.2)
        ax = fig.add_subplot()
        mesh = ax.pcolormesh(
            np.arange(cols + 1) - 0.5,
            np.arange(rows + 1) - 0.5,
            grid,
            cmap=colors,
            vmin=vmin,
            vmax=vmax,
            edgecolors="white",
            linewidth=0.5,
        )
        if annotate:
            for i, j in zip(*np.nonzero(~np.ma.getmaskarray(grid)), strict=True):
                red, green, blue, _ = colors(mesh.norm(grid[i, j]))
                luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
                ax.text(
                    j,
                    i,
                    fmt.format(grid[i, j]),
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="black" if luminance > 0.5 else "white",
                )
        ax.set_xticks(np.arange(cols), [_tick(v) for v in x_values])
        ax.set_yticks(np.arange(rows), [_tick(v) for v in y_values])
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(visible=False)
        ax.spines[:].set_visible(False)
        fig.colorbar(mesh, ax=ax, label=colorbar_label)
        if title:
            ax.set_title(title)
    save(fig, path)
    return fig
