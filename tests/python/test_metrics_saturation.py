"""Saturation time: measured from series, and the analytic growth helpers."""

import math

import numpy as np
import pytest

from tcpeval.metrics.saturation import (
    additive_increase_time,
    cwnd_equilibrium,
    delay_saturation_time,
    limited_slow_start_time,
    multiplicative_increase_time,
    slow_start_time,
    time_to_buffer_full,
    time_to_first_drop,
)


def test_time_to_first_drop():
    assert time_to_first_drop([5.0, 7.0, 3.0], start=4.0) == 1.0
    assert np.isnan(time_to_first_drop([1.0, 2.0], start=4.0))
    assert np.isnan(time_to_first_drop([]))


def test_time_to_buffer_full_from_queue_series():
    t = np.arange(501) / 100.0
    q = np.minimum(100.0 * t, 250.0)
    assert time_to_buffer_full(t, q, 250.0) == pytest.approx(2.5)
    assert time_to_buffer_full(t, q, 250.0, start=1.0) == pytest.approx(1.5)
    assert np.isnan(time_to_buffer_full(t, q, 300.0))


def test_delay_based_settling_of_a_first_order_approach():
    # FAST-like approach W(1 - exp(-t/tau)) enters the +-5 % band at
    # t = tau ln 20 = 5.9915 s; the first sample after that is 6.00 s.
    tau, w = 2.0, 4166.0
    t = np.arange(6001) / 100.0
    cwnd = w * (1 - np.exp(-t / tau))
    assert cwnd_equilibrium(t, cwnd) == pytest.approx(w, rel=1e-6)
    assert delay_saturation_time(t, cwnd) == pytest.approx(6.00, abs=1e-9)
    assert delay_saturation_time(t, cwnd, band=0.01, equilibrium=w) == pytest.approx(9.22, abs=1e-9)
    # Measured from a later start the same settling instant gives a shorter time.
    assert delay_saturation_time(t, cwnd, start=1.0) == pytest.approx(5.00, abs=1e-9)


def test_unsettled_flow_gives_nan():
    t = np.arange(1000) / 100.0
    cwnd = np.where(t < 9.0, 100.0, 200.0)
    assert np.isnan(delay_saturation_time(t, cwnd, equilibrium=100.0))


def test_slow_start_doubles_per_rtt():
    # IW 10: 10 * 2**10 = 10240 after 10 RTTs.
    assert slow_start_time(10240, 0.1) == pytest.approx(1.0)
    # Half way through the 11th round (10240 -> 20480) at 15360.
    assert slow_start_time(15360, 0.1) == pytest.approx(1.05)
    assert slow_start_time(10 * 1.5**4, 0.1, growth=1.5) == pytest.approx(0.4)
    assert slow_start_time(8, 0.1) == 0.0


def test_limited_slow_start_hand_computed():
    # 10, 20, 40, 80 after 3 RTTs; round 4: 21 ACKs of +1 reach 101, then 59
    # ACKs of +1/2 (K = 2) give 130.5; round 5 has 130 ACKs and needs 39 to
    # reach 150: 4 + 39/130 = 4.3 RTTs.
    assert limited_slow_start_time(150, 0.1) == pytest.approx(0.43)
    # Round 5 continues with K = 3: 150 + 91/3 = 180.33 at its end; round 6
    # (180 ACKs) needs 59 more to reach 200: 5 + 59/180 RTTs.
    assert limited_slow_start_time(200, 1.0) == pytest.approx(5 + 59 / 180)


def test_limited_slow_start_at_exactly_max_ssthresh_is_still_slow_start():
    # IW 25: 25, 50, 100 after 2 RTTs. cwnd = 100 <= max_ssthresh, so the
    # first ACK of round 3 adds 1 (101); 98 more ACKs of +1/2 reach 150:
    # 2 + 99/100 RTTs (2 + 100/100 if K applied at cwnd = 100 already).
    assert limited_slow_start_time(150, 1.0, initial_window=25) == pytest.approx(2.99)


def test_limited_slow_start_is_slow_start_below_max_ssthresh():
    for target in (80, 90, 100):
        assert limited_slow_start_time(target, 0.1) == pytest.approx(slow_start_time(target, 0.1))
    assert limited_slow_start_time(10240, 0.1, max_ssthresh=1e9) == pytest.approx(1.0)


def test_limited_slow_start_grows_between_half_and_full_max_ssthresh_per_rtt():
    # RFC 3742: about max_ssthresh/2 = 50 per RTT, at most 100 with the integer
    # K. A round has floor(cwnd) ACKs, so a fractional cwnd loses under one
    # ACK (1/K < 1/2 packet) per round: growth is at least 49.5 per RTT.
    rtts = limited_slow_start_time(20100, 1.0) - limited_slow_start_time(100, 1.0)
    assert 20000 / 100 <= rtts <= 20000 / 49.5
    assert rtts > 20000 / 51  # and close to 50 per RTT at large windows


def test_multiplicative_and_additive_increase():
    # ln 2 / ln 1.01 = 69.66 RTTs of 100 ms.
    assert multiplicative_increase_time(2000, 1000, 0.1) == pytest.approx(6.9661, abs=1e-4)
    assert multiplicative_increase_time(2000, 1000, 0.1) == pytest.approx(0.1 * math.log(2) / math.log(1.01))
    assert additive_increase_time(150, 50, 0.2) == pytest.approx(20.0)
    assert additive_increase_time(150, 50, 0.2, increase=2.0) == pytest.approx(10.0)
    assert additive_increase_time(40, 50, 0.2) == 0.0


def test_growth_helpers_refuse_nonsense():
    with pytest.raises(ValueError, match="rtt"):
        slow_start_time(100, 0.0)
    with pytest.raises(ValueError, match="growth"):
        slow_start_time(100, 0.1, growth=1.0)
    with pytest.raises(ValueError, match="target"):
        limited_slow_start_time(math.inf, 0.1)
