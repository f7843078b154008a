"""Convergence time on two crafted ramps, exact to the sampling period."""

import math

import numpy as np
import pytest

from tcpeval.metrics.convergence import convergence_time

R = 1e6  # first flow's rate before the second starts, B/s
A = 5e4  # second flow's rate ramp, B/s^2
C = 2e4  # first flow's rate decline after the second starts, B/s^2
T2 = 30.0


def ramps(dt):
    t = np.round(np.arange(0, 80 + dt / 2, dt), 9)
    s = np.clip(t - T2, 0, None)
    first = R * t - C * s**2 / 2
    second = A * s**2 / 2
    return t, first, second


def expected(fraction, dt):
    # For s = t - T2 >= 1 the trailing 1 s averages are A(s - 1/2) and
    # R - C(s - 1/2); they cross at s* = 1/2 + fR / (A + fC). The metric must
    # return the first sample at or after the crossing.
    crossing = 0.5 + fraction * R / (A + fraction * C)
    return crossing, math.ceil(crossing / dt) * dt


@pytest.mark.parametrize(("fraction", "dt"), [(0.8, 0.01), (0.8, 0.1), (0.5, 0.01)])
def test_two_ramps(fraction, dt):
    t, first, second = ramps(dt)
    crossing, answer = expected(fraction, dt)
    got = convergence_time(t, first, second, T2, fraction=fraction)
    assert got == pytest.approx(answer, abs=1e-9)
    assert got - dt < crossing <= got


def test_hand_value():
    t, first, second = ramps(0.01)
    # s* = 0.5 + 0.8e6 / 6.6e4 = 12.6212...
    assert convergence_time(t, first, second, T2) == pytest.approx(12.63, abs=1e-9)


def test_never_converging_flow_gives_nan():
    t = np.arange(0, 60.001, 0.01)
    first = 1e6 * t
    second = 0.5e6 * np.clip(t - 10, 0, None)
    assert np.isnan(convergence_time(t, first, second, 10.0))
    # 0.5e6 * s >= 0.4123e6 first holds at s = 0.8246, so at the 0.83 s sample.
    assert convergence_time(t, first, second, 10.0, fraction=0.4123) == pytest.approx(0.83, abs=1e-9)
