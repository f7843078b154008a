"""Figure creation, house style and saving (private to the plots package).

Figures are built with the object-oriented API on the Agg canvas, never
through ``pyplot``, so plotting works headless, keeps no global figure state
and never touches the user's backend choice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.rcsetup import cycler
from matplotlib.transforms import Bbox

from tcpeval.errors import StoreError
from tcpeval.files import atomic_path

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

_TAB20_MAP = mpl.colormaps["tab20"]
assert isinstance(_TAB20_MAP, ListedColormap)  # a fixed list of colours, not a gradient
_TAB20 = list(cast("Sequence[tuple[float, float, float]]", _TAB20_MAP.colors))
#: 20 distinct colours: tab10's ten strong ones, then their light partners, so
#: a study with eleven algorithms never repeats a colour.
COLORS = _TAB20[0::2] + _TAB20[1::2]

STYLE: dict[RcKeyType, Any] = {
    "axes.prop_cycle": cycler(color=COLORS),
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.2,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "savefig.dpi": 300,
    "savefig.bbox": "tight",
    "pdf.fonttype": 42,
    "svg.fonttype": "none",
    "svg.hashsalt": "tcpeval",
}
"""rcParams applied while a figure is built and saved: fonts sized for a
journal column, light grids, 300 dpi raster output, TrueType fonts in PDF and
real text in SVG so the files stay editable, and SVG element ids derived from
a fixed salt rather than object addresses."""

UNDATED = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}
"""File metadata left out so that saving the same figure twice gives the same
bytes (a report rebuilt from the same runs is byte-identical)."""

FORMATS = (".png", ".svg", ".pdf")


LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def series_style(index: int) -> dict[str, Any]:
    """Line style and marker of the ``index``-th series of an axes, so that
    series stay apart in grey-scale print and for colour-blind readers (the
    colour still comes from the cycle): four dash patterns times eight open
    markers. Place the markers with :func:`marker_indices`."""
    return {
        "linestyle": LINESTYLES[index % len(LINESTYLES)],
        "marker": MARKERS[index % len(MARKERS)],
        "markersize": 3.5,
        "markerfacecolor": "none",
    }


def marker_indices(x: np.ndarray, index: int, count: int = 10, log: bool = False) -> list[int]:
    """Indices of the samples of ``x`` (ascending: times, frequencies) nearest
    to ``count`` evenly spaced positions over its range (log-spaced when
    ``log``), for ``markevery``: a few markers per line whatever its number of
    samples or its wiggles. The ``index``-th series is offset by a different
    fraction of a spacing so markers of different series do not coincide."""
    x = np.asarray(x, dtype=float)
    keep = np.isfinite(x) & ((x > 0) if log else True)
    if not keep.any():
        return []
    lo, hi = float(x[keep].min()), float(x[keep].max())
    if log:
        lo, hi = np.log10(lo), np.log10(hi)
    offset = (0.5 + 0.618 * index) % 1.0
    targets = lo + (np.arange(count) + offset) * (hi - lo) / count
    if log:
        targets = 10.0**targets
    picked = np.clip(np.searchsorted(x, targets), 0, x.size - 1)
    return sorted({int(i) for i in picked})


MARK_STYLES = (
    ("black", (0, (5, 2))),
    ("dimgray", (0, (1, 1.5))),
    ("black", (0, (6, 2, 1, 2))),
    ("gray", (0, (3, 1, 1, 1, 1, 1))),
)
"""Colour and dash pattern of the analytic marks (:func:`draw_marks`): neutral
greys, so they never look like a series, each mark its own pattern."""


def draw_marks(
    ax: Axes, marks: Sequence[tuple[float, str]], *, lo: float, hi: float, legend: bool
) -> list[Line2D]:
    """Draw a vertical line at each ``(position, label)`` of ``marks`` that
    lies within ``[lo, hi]`` (axis units: s on a time axis, Hz on a spectrum),
    labelled for the legend when ``legend`` (else hidden from it); marks
    outside are left out so they never stretch the axis. Returns the lines."""
    lines = []
    for i, (position, text) in enumerate(marks):
        if not lo <= position <= hi:
            continue
        color, dashes = MARK_STYLES[i % len(MARK_STYLES)]
        lines.append(
            ax.axvline(
                position, color=color, linestyle=dashes, linewidth=1.0, label=text if legend else "_nolegend_"
            )
        )
    return lines


def place_legend(ax: Axes) -> None:
    """Puts the legend beside the axes (right, top-aligned) so it never covers data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


@contextmanager
def house_style() -> Iterator[None]:
    """Apply :data:`STYLE` for the duration of the block."""
    with mpl.rc_context(STYLE):
        yield


def new_figure(width: float, height: float) -> Figure:
    """Return an empty Figure of ``width`` x ``height`` inches on an Agg canvas."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, path: str | Path | None, bbox_inches: Bbox | None = None) -> None:
    """Save ``fig`` to ``path`` in the format named by its extension (.png,
    .svg or .pdf), cropped to ``bbox_inches`` (figure inches), or to the
    figure's tight bounding box when None."""
    if path is None:
        return
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"unsupported figure format {target.suffix!r}; use one of {FORMATS}")
    fmt = suffix.lstrip(".")
    # Written to a temporary file and renamed: a full disk leaves the old
    # file or none, never a truncated one.
    try:
        with house_style(), atomic_path(target) as tmp:
            fig.savefig(
                tmp,
                format=fmt,
                metadata=UNDATED.get(fmt),
                bbox_inches="tight" if bbox_inches is None else bbox_inches,
            )
    except OSError as e:
        if isinstance(e, StoreError):
            raise
        raise StoreError(target, f"cannot write: {e.strerror or e}") from None


def save_formats(fig: Figure, paths: Sequence[str | Path]) -> None:
    """Save ``fig`` to each of ``paths`` (formats from the extensions),
    laying it out and measuring its tight bounding box once, so that each
    file costs one drawing of the figure instead of two (a save cropped to
    "tight" draws the figure once to measure it, then again to write it).
    The figure keeps the frozen layout afterwards."""
    if not paths:
        return
    dpi = fig.dpi
    with house_style():
        # Laid out and measured at the resolution of a PNG save, as a
        # single save of the first file would.
        fig.set_dpi(mpl.rcParams["savefig.dpi"])
        try:
            fig.draw_without_rendering()  # runs the constrained layout
            bbox = fig.get_tightbbox().padded(mpl.rcParams["savefig.pad_inches"])
        finally:
            fig.set_dpi(dpi)
    fig.set_layout_engine(None)
    for path in paths:
        save(fig, path, bbox)
