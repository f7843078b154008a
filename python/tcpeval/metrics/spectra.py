"""Power spectra of cwnd and queue series, their dominant frequencies, and loss-cycle periods.

A loss-based flow in equilibrium is a sawtooth: cwnd climbs, a loss cuts it,
and the cycle repeats. Its period (the "main operating frequency" of the
``fairness`` study, Molnar, Sonkoly, Trinh, Computer Networks 2009) shows as
the strongest non-DC peak of the power spectral density, and equally as the
spacing of the drops or of the cwnd peaks. Series are sampled at a fixed
period; the sampling frequency is taken from ``time``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._series import as_1d, paired, sample_period, window_mask


def _windowed(
    time: ArrayLike, x: ArrayLike, t_start: float | None, t_end: float | None
) -> tuple[NDArray[np.float64], float]:
    """The samples of ``x`` in ``[t_start, t_end)`` (floats) and their sampling frequency, Hz."""
    t, v = paired(time, x, "x")
    keep = window_mask(t, t_start, t_end)
    t, v = t[keep], v[keep]
    return v, 1.0 / sample_period(t)


def periodogram_psd(
    time: ArrayLike,
    x: ArrayLike,
    t_start: float | None = None,
    t_end: float | None = None,
    window: str = "boxcar",
    detrend: Literal["constant", "linear"] = "constant",
) -> tuple[np.ndarray, np.ndarray]:
    """One-sided periodogram of a sampled series over ``[t_start, t_end)``.

    Returns ``(f, pxx)``: frequencies in Hz (0 to the Nyquist frequency, step
    ``1/T`` for a window of ``T`` seconds) and the power spectral density in
    unit^2/Hz (unit of ``x``, e.g. packets). The mean is removed first
    (``detrend='constant'``) so the DC bin carries no power.

    Source: the periodogram (squared magnitude of the DFT, A. Schuster 1898) as
    computed by ``scipy.signal.periodogram``; the ``fairness`` study uses it on
    cwnd and queue series.
    """
    v, fs = _windowed(time, x, t_start, t_end)
    # scipy-stubs 1.17 spell detrend "linear" as "literal", so no overload matches.
    from scipy import signal  # 1 s to import: only where a spectrum is taken

    f, pxx = signal.periodogram(  # type: ignore[call-overload]
        v, fs=fs, window=window, detrend=detrend, scaling="density"
    )
    return f, pxx


def welch_psd(
    time: ArrayLike,
    x: ArrayLike,
    t_start: float | None = None,
    t_end: float | None = None,
    nperseg: int | None = None,
    window: str = "hann",
    detrend: Literal["constant", "linear"] = "constant",
) -> tuple[np.ndarray, np.ndarray]:
    """Welch estimate of the power spectral density over ``[t_start, t_end)``.

    Averages the periodograms of overlapping (50 %) windowed segments of
    ``nperseg`` samples; the default is a quarter of the series, which keeps a
    resolution of ``4/T`` Hz (fine enough for loss cycles of seconds in runs of
    minutes) while averaging seven segments. Returns ``(f, pxx)`` in Hz and
    unit^2/Hz.

    Source: P. D. Welch, "The use of fast Fourier transform for the estimation
    of power spectra", IEEE Trans. Audio and Electroacoustics 15(2), 1967;
    ``scipy.signal.welch``.
    """
    v, fs = _windowed(time, x, t_start, t_end)
    segment = max(v.size // 4, 1) if nperseg is None else int(nperseg)
    from scipy import signal  # 1 s to import: only where a spectrum is taken

    f, pxx = signal.welch(  # type: ignore[call-overload]  # detrend, as in periodogram_psd
        v, fs=fs, window=window, nperseg=segment, detrend=detrend, scaling="density"
    )
    return f, pxx


def dominant_frequencies(
    f: ArrayLike, pxx: ArrayLike, count: int = 3, min_cycles: float = 2.0
) -> tuple[np.ndarray, np.ndarray]:
    """Return the ``count`` strongest spectral peaks of at least ``min_cycles`` cycles, strongest first.

    A peak is a local maximum of ``pxx`` (``scipy.signal.find_peaks``; a flat
    top counts once, at its middle) at a frequency of at least ``min_cycles``
    bins (``min_cycles / T`` Hz for a window of ``T`` seconds, the bin step
    being ``f[1]``). The default 2 leaves out the DC bin and the ``1/T`` bin:
    what fits once in the window is a trend (a slow-start ramp, a drift), not
    an operating frequency. Returns ``(frequencies, powers)`` in the units of
    ``f`` and ``pxx``; fewer than ``count`` (possibly none) if the spectrum has
    fewer peaks.

    Source: the "dominant peaks" / main operating frequencies of Molnar et al.
    2009.
    """
    freq = as_1d(f, "f")
    power = as_1d(pxx, "pxx")
    if freq.shape != power.shape:
        raise ValueError("f and pxx must have the same length")
    from scipy import signal  # 1 s to import: only where a spectrum is taken

    peaks, _ = signal.find_peaks(power)
    step = freq[1] - freq[0] if freq.size > 1 else 0.0
    peaks = peaks[freq[peaks] >= max(min_cycles * step, np.finfo(float).tiny)]
    order = peaks[np.argsort(power[peaks], kind="stable")[::-1]][: max(count, 0)]
    return freq[order], power[order]


def cycle_period_from_spectrum(f: ArrayLike, pxx: ArrayLike) -> float:
    """Period (s) of the strongest non-DC spectral peak: ``1 / f_peak``; NaN if there is no peak.

    For a sawtooth the fundamental carries the most power (harmonic ``k`` has
    ``1/k^2`` of it), so this is the loss-cycle period. Its resolution is that
    of the spectrum: ``1/T`` Hz for a periodogram of ``T`` seconds.
    """
    freqs, _ = dominant_frequencies(f, pxx, count=1)
    return float(1.0 / freqs[0]) if freqs.size else float("nan")


def sawtooth_peak_times(time: ArrayLike, x: ArrayLike, prominence: float = 0.1) -> np.ndarray:
    """Return the times (s) of a sawtooth's tops: local maxima prominent by ``prominence``.

    A sample is a top if it is a local maximum whose topographic prominence
    (``scipy.signal.find_peaks``) is at least ``prominence * (max(x) - min(x))``,
    which ignores the small ripples of a rising cwnd. Use the result with
    :func:`cycle_period_from_events`.
    """
    t, v = paired(time, x, "x")
    span = float(v.max() - v.min()) if v.size else 0.0
    if span == 0:
        return np.empty(0)
    from scipy import signal  # 1 s to import: only where a spectrum is taken

    peaks, _ = signal.find_peaks(v, prominence=prominence * span)
    return t[peaks]


def cycle_period_from_events(event_times: ArrayLike, min_gap: float = 0.0) -> float:
    """Loss-cycle period (s): the median spacing of loss events.

    ``event_times`` (s) are drop times or sawtooth tops. Events closer than
    ``min_gap`` seconds to the previous one belong to the same congestion
    episode (a burst of drops from one overflowing window) and are merged into
    the first. The median of the spacings of the episodes is returned; it is
    robust to an occasional missed or extra episode. NaN with fewer than two
    episodes.
    """
    events = np.sort(as_1d(event_times, "event_times"))
    if events.size < 2:
        return float("nan")
    gaps = np.diff(events)
    starts = np.concatenate([events[:1], events[1:][gaps >= min_gap]])
    if starts.size < 2:
        return float("nan")
    return float(np.median(np.diff(starts)))
