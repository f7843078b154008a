"""Coefficient of variation of throughput."""

import numpy as np
import pytest

from tcpeval.metrics.stability import coefficient_of_variation, throughput_cov


def test_cov_of_a_constant_is_zero():
    assert coefficient_of_variation(np.full(50, 3.7e8)) == 0.0


def test_cov_known_values():
    assert coefficient_of_variation([1.0, 3.0]) == pytest.approx(0.5)
    np.testing.assert_allclose(coefficient_of_variation([[2, 2], [1, 3]]), [0.0, 0.5])
    assert np.isnan(coefficient_of_variation([0.0, 0.0]))
    assert np.isnan(coefficient_of_variation([]))


def test_throughput_cov_skips_warm_up_and_uses_fixed_intervals():
    time = np.arange(0, 400.01, 0.1)
    # Wild first 200 s, then 10 s at 1e6 B/s and 10 s at 3e6 B/s alternately.
    rate = np.where(time < 200, 1e8 * (1 + np.sin(time)), np.where((time // 10) % 2 == 0, 1e6, 3e6))
    cum = np.concatenate([[0.0], np.cumsum(rate[:-1] * 0.1)])
    assert throughput_cov(time, cum) == pytest.approx(0.5, rel=1e-9)
    constant = 4e6 * time
    assert throughput_cov(time, constant) == pytest.approx(0.0, abs=1e-12)
