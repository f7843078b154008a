"""Throughput, goodput and utilization on counters with hand-computable rates."""

import numpy as np
import pytest

from tcpeval.metrics.throughput import (
    goodput,
    link_utilization,
    phase_throughput,
    sliding_throughput,
    throughput,
    throughput_series,
    utilization,
)

DT = 0.1
TIME = np.arange(101) * DT  # 0 .. 10 s
# 1e6 B/s before 5 s, 3e6 B/s after: 8 Mbit/s then 24 Mbit/s.
BYTES = np.where(TIME < 5, 1e6 * TIME, 5e6 + 3e6 * (TIME - 5))


def test_whole_run_rate_is_total_bits_over_duration():
    assert throughput(TIME, BYTES) == pytest.approx(8 * 20e6 / 10)


def test_window_between_samples_is_read_by_interpolation():
    assert throughput(TIME, BYTES, 1.05, 3.37) == pytest.approx(8e6)
    assert goodput(TIME, BYTES, 6.01, 9.99) == pytest.approx(24e6)
    assert goodput(TIME, BYTES, 4.0, 6.0) == pytest.approx(16e6)


def test_rate_series_over_whole_intervals_drops_the_partial_one():
    begin, rate = throughput_series(TIME, BYTES, 1.0, t_end=9.5)
    np.testing.assert_allclose(begin, np.arange(9.0))
    np.testing.assert_allclose(rate, [8e6] * 5 + [24e6] * 4)


def test_sliding_rate_uses_the_trailing_window():
    rate = sliding_throughput(TIME, BYTES, 1.0)
    assert rate[55] == pytest.approx(16e6)  # t = 5.5: half at each rate
    assert rate[5] == pytest.approx(4e6)  # t = 0.5: counter flat before t = 0
    assert rate[100] == pytest.approx(24e6)


def test_phase_rates():
    np.testing.assert_allclose(phase_throughput(TIME, BYTES, [0, 5, 10]), [8e6, 24e6])
    np.testing.assert_allclose(phase_throughput(TIME, BYTES, [2, 4, 6]), [8e6, 16e6])


def test_utilization():
    assert link_utilization(8e9, 1e9, 10.0) == pytest.approx(0.8)
    np.testing.assert_allclose(link_utilization([5e8, 1e9], 1e8, 10.0), [0.5, 1.0])
    assert utilization(TIME, BYTES, 32e6) == pytest.approx(0.5)
    assert utilization(TIME, BYTES, 32e6, 5.0, 10.0) == pytest.approx(0.75)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="empty time window"):
        throughput(TIME, BYTES, 5.0, 5.0)
    with pytest.raises(ValueError, match="interval"):
        throughput_series(TIME, BYTES, 0.0)
    with pytest.raises(ValueError, match="samples"):
        throughput(TIME, BYTES[:-1])
    with pytest.raises(ValueError, match="non-decreasing"):
        throughput(TIME[::-1], BYTES)
