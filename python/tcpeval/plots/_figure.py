"""Figure creation, house style and saving (private to the plots package).

Figures are built with the object-oriented API on the Agg canvas, never
through ``pyplot``, so plotting works headless, keeps no global figure state
and never touches the user's backend choice.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import matplotlib as mpl
from matplotlib import cycler
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from tcpeval.errors import StoreError
from tcpeval.files import atomic_path

_TAB20 = list(mpl.colormaps["tab20"].colors)
#: 20 distinct colours: tab10's ten strong ones, then their light partners, so
#: a study with eleven algorithms never repeats a colour.
COLORS = _TAB20[0::2] + _TAB20[1::2]

STYLE: dict[str, object] = {
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


def save(fig: Figure, path: str | Path | None) -> None:
    """Save ``fig`` to ``path`` in the format named by its extension (.png, .svg or .pdf)."""
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
            fig.savefig(tmp, format=fmt, metadata=UNDATED.get(fmt))
    except OSError as e:
        if isinstance(e, StoreError):
            raise
        raise StoreError(target, f"cannot write: {e.strerror or e}") from None


def save_formats(fig: Figure, paths: Sequence[str | Path]) -> None:
    """Save ``fig`` to each of ``paths`` (formats from the extensions), laying
    it out once: the first save computes the constrained layout, which is
    then frozen for the others (a third less time for three formats of a
    many-axes figure). The figure keeps the frozen layout afterwards."""
    for i, path in enumerate(paths):
        save(fig, path)
        if i == 0:
            fig.set_layout_engine("none")
