"""Time series (cwnd, queue) with their power spectra beside them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..metrics._series import window_mask
from ..metrics.spectra import dominant_frequencies, periodogram_psd, welch_psd
from ._figure import house_style, new_figure, save

DYNAMIC_RANGE = 1e-8
"""Lowest PSD value shown, relative to the highest: 80 dB, which keeps the
peaks and their harmonics readable without plotting the round-off floor."""


ENVELOPE_BUCKETS = 2000
"""Series longer than twice this are drawn as their min/max envelope over this
many equal slices: more slices than the time axes have pixels at 300 dpi
(about 1 400), so the drawing looks the same while a 1 000 s series sampled
every 10 ms saves to SVG/PDF in a tenth of the time."""


def envelope(t: np.ndarray, v: np.ndarray, buckets: int = ENVELOPE_BUCKETS) -> tuple[np.ndarray, np.ndarray]:
    """The samples of ``(t, v)`` that a plot needs at ``buckets`` slices of width.

    Splits the samples into ``buckets`` consecutive slices of equal count and
    keeps each slice's lowest and highest sample, in time order, so every peak
    and trough of the series stays in the drawing. NaN samples are never picked
    over a number (a slice that is all NaN keeps a NaN, drawn as a gap). Series
    of at most ``2 * buckets`` samples come back unchanged.
    """
    n = v.size
    if n <= 2 * buckets:
        return t, v
    size = -(-n // buckets)  # samples per slice, rounded up
    padded = np.pad(v, (0, size * buckets - n), mode="edge").reshape(buckets, size)
    nan = np.isnan(padded)
    offsets = np.arange(buckets)[:, None] * size
    lo = np.argmin(np.where(nan, np.inf, padded), axis=1)[:, None]
    hi = np.argmax(np.where(nan, -np.inf, padded), axis=1)[:, None]
    idx = np.unique(np.minimum(np.hstack([lo, hi]) + offsets, n - 1))
    return t[idx], v[idx]


@dataclass(frozen=True)
class Traces:
    """One row of a time-series figure: series that share a time axis and a unit.

    ``label`` is the y-axis label with its unit (``"cwnd (packets)"``),
    ``time`` the sample times in s, and ``values`` maps each legend label to a
    series sampled at ``time`` at a fixed period.
    """

    label: str
    time: ArrayLike
    values: Mapping[str, ArrayLike]


def _psd_label(label: str) -> str:
    """PSD axis label in the squared unit of a label such as ``"cwnd (packets)"``."""
    unit = re.search(r"\(([^()]+)\)\s*$", label)
    return f"PSD ({unit.group(1) if unit else 'unit'}$^2$/Hz)"


def plot_timeseries_psd(
    rows: Sequence[Traces],
    *,
    method: str = "periodogram",
    t_start: float | None = None,
    t_end: float | None = None,
    max_frequency: float | None = None,
    title: str | None = None,
    path: str | Path | None = None,
) -> Figure:
    """Plot each row's series over time (left) and their power spectral density (right).

    For each :class:`Traces` row, the left axes show the series over
    ``[t_start, t_end)`` and the right axes their PSD over the same window
    (``method`` ``"periodogram"`` or ``"welch"``, see
    :func:`tcpeval.metrics.periodogram_psd` and
    :func:`tcpeval.metrics.welch_psd`) on log-log axes spanning
    :data:`DYNAMIC_RANGE` of power, DC left out, up to ``max_frequency`` Hz,
    with the strongest peak of each series marked and
    labelled with its frequency. This is the figure layout of the ``fairness``
    study (Molnar et al., Computer Networks 2009). The figure is saved to
    ``path`` if given (format from the extension: .png, .svg, .pdf).

    Returns the Figure: ``2 * len(rows)`` axes; per row the left axes hold one
    line per series (its :func:`envelope` when long) and a legend naming them
    (even a single one); the right axes one PSD line per series, computed
    from every sample, plus one marker line per series that has a peak.
    """
    if not rows:
        raise ValueError("nothing to plot: no rows")
    estimators = {"periodogram": periodogram_psd, "welch": welch_psd}
    if method not in estimators:
        raise ValueError(f"method must be one of {sorted(estimators)}, got {method!r}")
    psd = estimators[method]
    with house_style():
        fig = new_figure(7.0, 2.0 * len(rows) + 0.4)
        grid = fig.subplots(len(rows), 2, squeeze=False, width_ratios=[2.2, 1.0])
        for (left, right), row in zip(grid, rows):
            t = np.asarray(row.time, dtype=float)
            keep = window_mask(t, t_start, t_end)
            top = 0.0
            for name, series in row.values.items():
                v = np.asarray(series, dtype=float)
                (line,) = left.plot(*envelope(t[keep], v[keep]), label=name)
                f, pxx = psd(t, v, t_start, t_end)
                band = f <= (np.inf if max_frequency is None else max_frequency)
                shown = band & (f > 0) & (pxx > 0)
                top = max(top, float(pxx[shown].max(initial=0.0)))
                right.plot(f[shown], pxx[shown], color=line.get_color(), label=name)
                peak_f, peak_p = dominant_frequencies(f[band], pxx[band], count=1)
                if peak_f.size:
                    right.plot(peak_f, peak_p, "o", color=line.get_color(), markersize=4)
                    right.annotate(
                        f"{peak_f[0]:.3g} Hz",
                        (peak_f[0], peak_p[0]),
                        textcoords="offset points",
                        xytext=(4, 2),
                        fontsize=7,
                    )
            left.set_ylabel(row.label)
            right.set_ylabel(_psd_label(row.label))
            if top > 0:
                right.set_xscale("log")
                right.set_yscale("log")
                right.set_ylim(bottom=top * DYNAMIC_RANGE)
            left.legend(loc="best")  # names the flow or link even when alone in its row
        grid[-1, 0].set_xlabel("time (s)")
        grid[-1, 1].set_xlabel("frequency (Hz)")
        if title:
            fig.suptitle(title)
    save(fig, path)
    return fig
