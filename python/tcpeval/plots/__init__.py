"""Publication-quality matplotlib figures of tcpeval results.

Every function builds a Figure on the headless Agg canvas, optionally saves it
(PNG, SVG or PDF chosen by the file extension) and returns it;
:func:`save_figure` saves a returned Figure again (another format, or after
adjusting it) in the same house style.
"""

from ._figure import save as save_figure
from ._figure import save_formats
from .bars import plot_phase_bars
from .curves import plot_metric_curves
from .goodput import plot_goodput
from .heatmap import plot_heatmap
from .timeseries import Mark, Traces, plot_timeseries_psd

__all__ = [
    "Mark",
    "Traces",
    "plot_goodput",
    "plot_heatmap",
    "plot_metric_curves",
    "plot_phase_bars",
    "plot_timeseries_psd",
    "save_figure",
    "save_formats",
]
