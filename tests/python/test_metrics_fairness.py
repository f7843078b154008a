"""Fairness indices, shares and the Fair-to-Reno ratio."""

import numpy as np
import pytest

from tcpeval.metrics.fairness import (
    bandwidth_shares,
    fair_to_reno,
    intra_group_fairness,
    jain_index,
    min_max_ratio,
    rtt_fairness,
    tcp_friendliness,
    throughput_ratio,
)


@pytest.mark.parametrize("n", [2, 3, 10])
def test_jain_is_one_for_equal_shares_and_one_over_n_for_a_hog(n):
    assert jain_index(np.full(n, 7.5)) == pytest.approx(1.0)
    hog = np.zeros(n)
    hog[0] = 100.0
    assert jain_index(hog) == pytest.approx(1.0 / n)


def test_jain_known_value_and_axis():
    assert jain_index([1, 2, 3]) == pytest.approx(36 / 42)
    np.testing.assert_allclose(jain_index([[1, 1], [1, 0]]), [1.0, 0.5])
    np.testing.assert_allclose(jain_index([[1, 1], [1, 0]], axis=0), [1.0, 0.5])
    assert np.isnan(jain_index([0, 0]))


def test_shares_and_ratios():
    np.testing.assert_allclose(bandwidth_shares([1, 3]), [0.25, 0.75])
    assert throughput_ratio(2.0, 4.0) == 0.5
    assert np.isnan(throughput_ratio(1.0, 0.0))
    assert min_max_ratio([2, 4, 8]) == 0.25


def test_group_fairness():
    x = [1, 1, 1, 3]
    groups = ["short", "short", "long", "long"]
    assert intra_group_fairness(x, groups) == pytest.approx({"short": 1.0, "long": 16 / 20})
    # Group means 1 and 2: Jain = 9 / (2 * 5).
    assert rtt_fairness(x, groups) == pytest.approx(0.9)
    # Group size does not weigh in: three flows at 1 against one at 2 is
    # still means 1 and 2 (summing the groups would give 3 and 2).
    assert rtt_fairness([1, 1, 1, 2], ["a", "a", "a", "b"]) == pytest.approx(0.9)
    with pytest.raises(ValueError, match="labels"):
        rtt_fairness(x, groups[:3])


def test_tcp_friendliness_is_jain_of_the_pair():
    assert tcp_friendliness([5.0], [5.0]) == pytest.approx(1.0)
    assert tcp_friendliness([3.0], [1.0]) == pytest.approx(0.8)


def test_fair_to_reno():
    reno = np.array([12.0, 9.5, 11.0, 10.25])
    assert fair_to_reno(reno, reno) == pytest.approx(1.0)
    assert fair_to_reno([10, 10], [5, 5]) == pytest.approx(2.0)
    per_replication = fair_to_reno([[10, 10], [8, 8]], [[5, 5], [8, 8]])
    np.testing.assert_allclose(per_replication, [2.0, 1.0])
