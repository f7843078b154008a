"""Time series (cwnd, queue) with their power spectra beside them."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..metrics._series import window_mask
from ..metrics.spectra import dominant_frequencies, periodogram_psd, welch_psd
from ._figure import draw_marks, house_style, marker_indices, new_figure, save, series_style

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
    series sampled at ``time`` at a fixed period. A series with its own sample
    times (a flow that starts later) gives them in ``times`` under its label;
    they override ``time`` for it. The series named in ``secondary`` are drawn
    on a right-hand y axis labelled ``secondary_label`` (their unit may
    differ in scale, e.g. one flow beside the sum of ten).
    """

    label: str
    time: ArrayLike
    values: Mapping[str, ArrayLike]
    times: Mapping[str, ArrayLike] = field(default_factory=dict)
    secondary: Sequence[str] = ()
    secondary_label: str | None = None

    def series(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """``(label, time in s, values)`` of each series, in ``values`` order."""
        out = []
        for name, v in self.values.items():
            t = np.asarray(self.times.get(name, self.time), dtype=float)
            out.append((name, t, np.asarray(v, dtype=float)))
        return out


@dataclass(frozen=True)
class Mark:
    """An analytic prediction drawn as a labelled vertical line: ``at`` is a
    time in s (on time axes) or a frequency in Hz (on spectra), ``label``
    names it in the legend, e.g. ``Mark(26.05, "t_sat, eq. (5)")``."""

    at: float
    label: str


_ABOVE: dict[str, object] = {"loc": "lower left", "bbox_to_anchor": (0.0, 1.0), "borderaxespad": 0.2}
"""Legend placement just above an axes, left-aligned."""

TITLE_WIDTH = 100
"""Characters per line of a figure title before it wraps (the figure is 7 in wide)."""


def _legend_columns(labels: Sequence[str]) -> int:
    """Columns of a legend above a time axes (about 4.5 in wide at 8 pt):
    three short labels fit side by side, two of up to 30 characters, else one."""
    longest = max((len(x) for x in labels), default=0)
    return max(1, min(len(labels), 3 if longest <= 14 else 2 if longest <= 30 else 1))


def _psd_label(label: str) -> str:
    """PSD axis label in the squared unit of a label such as ``"cwnd (packets)"``."""
    unit = re.search(r"\(([^()]+)\)\s*$", label)
    return f"PSD ({unit.group(1) if unit else 'unit'}$^2$/Hz)"


def _spectrum(
    psd: Callable[..., tuple[np.ndarray, np.ndarray]],
    t: np.ndarray,
    v: np.ndarray,
    window: tuple[float | None, float | None],
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(f in Hz, PSD)`` of the finite samples of ``v`` inside ``window``
    (s), or None when there are fewer than two or they are not evenly spaced."""
    keep = window_mask(t, *window) & np.isfinite(v)
    if np.count_nonzero(keep) < 2:
        return None
    try:
        return psd(t[keep], v[keep])
    except ValueError:  # a gap in the samples: no fixed sampling period
        return None


def _time_range(rows: Sequence[Traces], t_start: float | None, t_end: float | None) -> tuple[float, float]:
    """The span of the time axes, s: the window, or the samples where it is open."""
    times = [t for row in rows for _, t, _ in row.series() if t.size]
    lo = t_start if t_start is not None else min((float(t.min()) for t in times), default=0.0)
    hi = t_end if t_end is not None else max((float(t.max()) for t in times), default=0.0)
    return lo, hi


def plot_timeseries_psd(
    rows: Sequence[Traces],
    *,
    method: str = "periodogram",
    t_start: float | None = None,
    t_end: float | None = None,
    psd_window: tuple[float | None, float | None] | None = None,
    max_frequency: float | None = None,
    marks: Sequence[Mark] = (),
    freq_marks: Sequence[Mark] = (),
    title: str | None = None,
    path: str | Path | None = None,
) -> Figure:
    """Plot each row's series over time (left) and their power spectral density (right).

    For each :class:`Traces` row, the left axes show the series over
    ``[t_start, t_end)`` and the right axes their PSD over ``psd_window``
    (``(start, end)`` in s; default the same window), so a figure can show a
    whole run, slow start included, and the spectrum of its equilibrium
    alone. The PSD (``method`` ``"periodogram"`` or ``"welch"``, see
    :func:`tcpeval.metrics.periodogram_psd` and
    :func:`tcpeval.metrics.welch_psd`) is taken over each series' finite
    samples in that window and drawn on log-log axes spanning
    :data:`DYNAMIC_RANGE` of power, DC left out, up to ``max_frequency`` Hz,
    with the strongest peak of each series (DC and the ``1/T`` bin skipped,
    :func:`tcpeval.metrics.dominant_frequencies`) marked and labelled with its
    frequency; a series with fewer than two evenly spaced samples there has
    no spectrum. ``marks`` (s) are drawn on every time axes and
    ``freq_marks`` (Hz) on every spectrum, as labelled vertical lines named in
    the first row's legends; a mark outside its axis' range is left out.
    This is the figure layout of the ``fairness`` study (Molnar et al.,
    Computer Communications 2009). The figure is saved to ``path`` if given
    (format from the extension: .png, .svg, .pdf).

    Returns the Figure: ``2 * len(rows)`` axes (left, right per row), then one
    right-hand twin axes per row that has ``secondary`` series. Per row the
    left axes hold one line per series (its :func:`envelope` when long), each
    with its own dash pattern and marker, and a legend naming them (even a
    single one; series on the twin axes are marked "(right axis)"), then the
    drawn marks; the right axes one PSD line per series that has a spectrum (empty
    when it has no power, a flat series),
    plus one peak marker line per series that has a peak, then the drawn
    frequency marks.
    """
    if not rows:
        raise ValueError("nothing to plot: no rows")
    estimators: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
        "periodogram": periodogram_psd,
        "welch": welch_psd,
    }
    if method not in estimators:
        raise ValueError(f"method must be one of {sorted(estimators)}, got {method!r}")
    psd = estimators[method]
    spectral = (t_start, t_end) if psd_window is None else psd_window
    time_lo, time_hi = _time_range(rows, t_start, t_end)
    time_marks = [(m.at, m.label) for m in marks]
    hz_marks = [(m.at, m.label) for m in freq_marks]
    labelled_time = labelled_freq = False
    with house_style():
        fig = new_figure(7.0, 2.0 * len(rows) + 0.4)
        grid = fig.subplots(len(rows), 2, squeeze=False, width_ratios=[2.2, 1.0])
        for (left, right), row in zip(grid, rows, strict=True):
            twin = left.twinx() if any(name in row.secondary for name in row.values) else None
            top, f_lo, f_hi = 0.0, np.inf, 0.0
            for i, (name, t, v) in enumerate(row.series()):
                style = series_style(i)
                ax = twin if twin is not None and name in row.secondary else left
                on_twin = ax is not left
                keep = window_mask(t, t_start, t_end)
                shown_name = f"{name} (right axis)" if on_twin else name
                # The colour by position in the row, not by the axes' own cycle,
                # so a series keeps it on the twin axes and in the spectrum.
                drawn_t, drawn_v = envelope(t[keep], v[keep])
                (line,) = ax.plot(
                    drawn_t,
                    drawn_v,
                    label=shown_name,
                    color=f"C{i}",
                    markevery=marker_indices(drawn_t, i),
                    **style,
                )
                spectrum = _spectrum(psd, t, v, spectral)
                if spectrum is None:
                    continue
                f, pxx = spectrum
                band = f <= (np.inf if max_frequency is None else max_frequency)
                shown = band & (f > 0) & (pxx > 0)
                if shown.any():
                    top = max(top, float(pxx[shown].max()))
                    f_lo, f_hi = min(f_lo, float(f[shown].min())), max(f_hi, float(f[shown].max()))
                right.plot(
                    f[shown],
                    pxx[shown],
                    color=line.get_color(),
                    label=name,
                    markevery=marker_indices(f[shown], i, log=True),
                    **style,
                )
                peak_f, peak_p = dominant_frequencies(f[band], pxx[band], count=1)
                if peak_f.size:
                    right.plot(peak_f, peak_p, "o", color=line.get_color(), markersize=4)
                    # In the series' colour, each series' label a line lower
                    # than the one before, so that peaks at about the same
                    # frequency (a synchronised pair) keep legible labels.
                    right.annotate(
                        f"{peak_f[0]:.3g} Hz",
                        (peak_f[0], peak_p[0]),
                        textcoords="offset points",
                        xytext=(4, 2 - 8 * i),
                        fontsize=7,
                        color=line.get_color(),
                    )
            left.set_ylabel(row.label)
            right.set_ylabel(_psd_label(row.label))
            if twin is not None:
                twin.set_ylabel(row.secondary_label or row.label)
                twin.grid(False)
                twin.spines["right"].set_visible(True)
            if top > 0:
                right.set_xscale("log")
                right.set_yscale("log")
                right.set_ylim(bottom=top * DYNAMIC_RANGE)
            drawn = draw_marks(left, time_marks, lo=time_lo, hi=time_hi, legend=not labelled_time)
            labelled_time = labelled_time or bool(drawn)
            if top > 0:
                freq_drawn = draw_marks(right, hz_marks, lo=f_lo, hi=f_hi, legend=not labelled_freq)
                if freq_drawn and not labelled_freq:
                    right.legend(handles=freq_drawn, **_ABOVE, ncols=1, fontsize=7)
                labelled_freq = labelled_freq or bool(freq_drawn)
            # Above the axes, never over the data; names the flow or link even when alone.
            handles, labels = left.get_legend_handles_labels()
            if twin is not None:
                more, more_labels = twin.get_legend_handles_labels()
                handles, labels = handles + more, labels + more_labels
            (twin or left).legend(handles, labels, **_ABOVE, ncols=_legend_columns(labels))
        grid[-1, 0].set_xlabel("time (s)")
        grid[-1, 1].set_xlabel("frequency (Hz)")
        if title:
            fig.suptitle(textwrap.fill(title, TITLE_WIDTH))
    save(fig, path)
    return fig
