"""Power spectra, dominant peaks and loss-cycle periods on synthetic series."""

import numpy as np
import pytest

from tcpeval.metrics.spectra import (
    cycle_period_from_events,
    cycle_period_from_spectrum,
    dominant_frequencies,
    periodogram_psd,
    sawtooth_peak_times,
    welch_psd,
)

FS = 100.0
TIME = np.arange(20000) / FS  # 200 s at 100 Hz: periodogram bins every 0.005 Hz


def sinusoid(freq, amplitude=3.0, offset=100.0):
    return offset + amplitude * np.sin(2 * np.pi * freq * TIME)


def sawtooth(period, low=50.0, high=100.0):
    phase = (TIME % period) / period
    return low + (high - low) * phase


@pytest.mark.parametrize("estimator", [periodogram_psd, welch_psd])
@pytest.mark.parametrize("freq", [0.5, 2.0, 7.3])  # on both estimators' bin grids
def test_sinusoid_peak_at_its_frequency(estimator, freq):
    f, pxx = estimator(TIME, sinusoid(freq))
    peaks, _ = dominant_frequencies(f, pxx, count=1)
    assert peaks[0] == pytest.approx(freq)


def test_periodogram_density_integrates_to_the_variance():
    f, pxx = periodogram_psd(TIME, sinusoid(0.5, amplitude=3.0))
    assert np.sum(pxx) * (f[1] - f[0]) == pytest.approx(3.0**2 / 2, rel=1e-6)


def test_peaks_sorted_by_power_and_dc_excluded():
    x = sinusoid(0.5, amplitude=1.0) + 3.0 * np.sin(2 * np.pi * 2.0 * TIME)
    f, pxx = periodogram_psd(TIME, x, detrend=False)
    assert pxx[0] > pxx.max() / 2  # the undetrended mean dominates the DC bin
    freqs, powers = dominant_frequencies(f, pxx, count=2)
    np.testing.assert_allclose(freqs, [2.0, 0.5])
    assert powers[0] > powers[1]


def test_welch_resolution_follows_nperseg():
    f, _ = welch_psd(TIME, sinusoid(0.5))
    assert f[1] == pytest.approx(4 / 200.0)
    f, _ = welch_psd(TIME, sinusoid(0.5), nperseg=1000)
    assert f[1] == pytest.approx(0.1)


def test_window_restricts_the_series():
    x = np.where(TIME < 100, sinusoid(0.5), sinusoid(2.0))
    f, pxx = periodogram_psd(TIME, x, t_start=100.0)
    assert f[1] == pytest.approx(1 / 100.0)
    assert dominant_frequencies(f, pxx, 1)[0][0] == pytest.approx(2.0)


@pytest.mark.parametrize("estimator", [periodogram_psd, welch_psd])
def test_sawtooth_period_from_spectrum(estimator):
    f, pxx = estimator(TIME, sawtooth(2.5))
    assert cycle_period_from_spectrum(f, pxx) == pytest.approx(2.5)


def test_sawtooth_period_from_peak_times():
    tops = sawtooth_peak_times(TIME, sawtooth(2.5))
    assert tops.size == 79
    np.testing.assert_allclose(np.diff(tops), 2.5, atol=1.5 / FS)
    assert cycle_period_from_events(tops) == pytest.approx(2.5, abs=1 / FS)


def test_period_from_bursts_of_drops():
    episodes = 3.0 + 4.2 * np.arange(20)
    drops = np.concatenate([episodes, episodes + 0.001, episodes + 0.004])
    assert cycle_period_from_events(drops, min_gap=0.1) == pytest.approx(4.2)
    # Unmerged, the median spacing is the within-burst 3 ms gap.
    assert cycle_period_from_events(drops) == pytest.approx(0.003)
    assert np.isnan(cycle_period_from_events([1.0]))


def test_flat_series_has_no_peak():
    f, pxx = periodogram_psd(TIME, np.full(TIME.size, 5.0))
    assert dominant_frequencies(f, pxx)[0].size == 0
    assert np.isnan(cycle_period_from_spectrum(f, pxx))
    assert sawtooth_peak_times(TIME, np.full(TIME.size, 5.0)).size == 0


def test_irregular_sampling_is_refused():
    t = np.sort(np.random.default_rng(0).uniform(0, 10, 500))
    with pytest.raises(ValueError, match="fixed period"):
        periodogram_psd(t, np.sin(t))


def test_peak_search_skips_the_one_cycle_bin_of_a_slow_start_ramp() -> None:
    # 100 s at 10 ms: a ramp from 0 to 1000 packets over the first 30 s
    # (slow start and LSS), then a sawtooth of period 8 s between 875 and
    # 1000 packets (Scalable's b = 0.125). The ramp puts most of the power in
    # the 1/T = 0.01 Hz bin; the cycle is at 0.125 Hz (bins every 0.01 Hz).
    t = np.arange(0.0, 100.0, 0.01)
    saw = 875.0 + 125.0 * ((t - 30.0) % 8.0) / 8.0
    cwnd = np.where(t < 30.0, 1000.0 * t / 30.0, saw)
    f, p = periodogram_psd(t, cwnd)
    assert f[np.argmax(p)] == pytest.approx(0.01)  # what a plain argmax would report
    peak = dominant_frequencies(f, p, count=1)[0][0]
    assert peak == pytest.approx(1 / 8.0, abs=0.01)
    # min_cycles=1 keeps the 1/T bin and so finds the ramp, not the cycle.
    assert dominant_frequencies(f, p, count=1, min_cycles=1)[0][0] == pytest.approx(0.01)
