"""Queue statistics and queueing delay."""

import math

import numpy as np
import pytest

from tcpeval.metrics.queue import queue_stats, queueing_delay, queueing_delay_packets

TIME = np.arange(101) / 100.0  # 100 Hz
QLEN = np.arange(101.0)  # 0 .. 100 packets


def test_stats_of_a_ramp():
    s = queue_stats(QLEN, TIME)
    assert s.mean == pytest.approx(50.0)
    assert s.std == pytest.approx(math.sqrt((101**2 - 1) / 12))
    assert s.max == 100.0
    assert s.percentiles == pytest.approx({50.0: 50.0, 90.0: 90.0, 99.0: 99.0})
    assert s.samples == 101


def test_normalized_to_buffer():
    s = queue_stats(QLEN, buffer=200.0, percentiles=(90,))
    assert s.mean == pytest.approx(0.25)
    assert s.max == pytest.approx(0.5)
    assert s.percentiles == pytest.approx({90.0: 0.45})


def test_window_is_half_open():
    s = queue_stats(QLEN, TIME, 0.2, 0.5)
    assert s.samples == 30
    assert s.mean == pytest.approx(34.5)


def test_empty_window_gives_nan():
    s = queue_stats(QLEN, TIME, 2.0, 3.0)
    assert s.samples == 0
    assert np.isnan(s.mean) and np.isnan(s.percentiles[50.0])


def test_window_without_times_is_refused():
    with pytest.raises(ValueError, match="sample times"):
        queue_stats(QLEN, t_start=1.0)


def test_queueing_delay_is_drain_time():
    assert queueing_delay(1500, 12e6) == pytest.approx(1e-3)
    np.testing.assert_allclose(queueing_delay_packets([0, 100, 8333], 1e9), [0, 1.2e-3, 0.099996])
