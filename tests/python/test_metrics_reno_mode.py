"""Fraction of time below HSTCP's Low_W."""

import numpy as np
import pytest

from tcpeval.metrics.reno_mode import reno_mode_fraction

TIME = np.arange(100) / 10.0
CWND = np.where(TIME < 4.0, 30.0, 50.0)


def test_fraction_below_low_window():
    assert reno_mode_fraction(TIME, CWND) == pytest.approx(0.4)
    assert reno_mode_fraction(TIME, CWND, t_start=2.0) == pytest.approx(0.25)
    assert reno_mode_fraction(TIME, CWND, low_window=30.0) == 0.0
    assert reno_mode_fraction(TIME, np.full(100, 38.0)) == 0.0  # strictly below


def test_empty_window_is_nan():
    assert np.isnan(reno_mode_fraction(TIME, CWND, t_start=20.0, t_end=30.0))
