"""Loss, drop and retransmission ratios."""

import numpy as np
import pytest

from tcpeval.metrics.loss import (
    drop_probability,
    loss_ratio,
    ratio_in_window,
    retransmission_probability,
)


def test_ratios_of_counters():
    assert drop_probability(5, 1000) == pytest.approx(0.005)
    assert loss_ratio(3, 300) == pytest.approx(0.01)
    assert retransmission_probability(7, 700) == pytest.approx(0.01)


def test_vectorized_and_zero_denominator_is_nan():
    out = drop_probability([1, 2, 0], [10, 0, 5])
    assert out[0] == pytest.approx(0.1)
    assert np.isnan(out[1])
    assert out[2] == 0.0
    assert np.isnan(loss_ratio(0, 0))


def test_ratio_restricted_to_a_window():
    time = np.arange(0, 10.01, 0.5)
    sent = 1000.0 * time
    retransmitted = np.where(time < 5, 0.0, 10.0 * (time - 5))
    assert ratio_in_window(time, retransmitted, sent, 5.0, 10.0) == pytest.approx(0.01)
    assert ratio_in_window(time, retransmitted, sent, 0.0, 5.0) == 0.0
    assert ratio_in_window(time, retransmitted, sent) == pytest.approx(50 / 10000)
    assert np.isnan(ratio_in_window(time, retransmitted, np.zeros_like(time)))
