"""Student-t confidence intervals over replications."""

import math

import numpy as np
import pytest
from scipy import stats

from tcpeval.metrics.stats import mean_ci, nan_mean_ci

SAMPLES = np.array([1.0, 2.0, 3.0, 4.0, 5.0])


def test_known_samples_by_hand():
    ci = mean_ci(SAMPLES)
    # s = sqrt(2.5), t_{0.975, 4} = 2.776445105: half = t s / sqrt(5).
    assert ci.mean == 3.0
    assert ci.n == 5
    assert ci.half_width == pytest.approx(2.776445105 * math.sqrt(2.5) / math.sqrt(5), rel=1e-9)


def test_matches_scipy_interval():
    for confidence in (0.9, 0.95, 0.99):
        low, high = stats.t.interval(
            confidence,
            df=SAMPLES.size - 1,
            loc=SAMPLES.mean(),
            scale=stats.sem(SAMPLES),
        )
        ci = mean_ci(SAMPLES, confidence)
        assert ci.low == pytest.approx(low)
        assert ci.high == pytest.approx(high)


def test_vectorized_over_points():
    data = np.array([[1.0, 2.0, 3.0], [10.0, 10.0, 10.0]])
    ci = mean_ci(data)
    np.testing.assert_allclose(ci.mean, [2.0, 10.0])
    np.testing.assert_allclose(ci.half_width, [stats.t.ppf(0.975, 2) / math.sqrt(3), 0.0])


def test_single_replication_has_nan_half_width():
    ci = mean_ci([4.2])
    assert ci.mean == 4.2 and ci.n == 1
    assert math.isnan(ci.half_width)
    assert np.all(np.isnan(mean_ci([[1.0], [2.0]]).half_width))


def test_invalid_confidence():
    with pytest.raises(ValueError, match="confidence"):
        mean_ci(SAMPLES, 1.0)


def test_nan_samples_are_left_out_per_entry():
    data = np.array([[1.0, 2.0, 3.0], [4.0, np.nan, 6.0], [np.nan, 7.0, np.nan], [np.nan] * 3])
    mean, half, n = nan_mean_ci(data)
    np.testing.assert_allclose(mean, [2.0, 5.0, 7.0, np.nan])
    np.testing.assert_array_equal(n, [3, 2, 1, 0])
    assert half[0] == pytest.approx(stats.t.ppf(0.975, 2) / math.sqrt(3))
    assert half[1] == pytest.approx(stats.t.ppf(0.975, 1) * math.sqrt(2) / math.sqrt(2))
    assert np.isnan(half[2]) and np.isnan(half[3])
