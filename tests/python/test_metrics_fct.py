"""Flow completion time statistics per size bucket."""

import numpy as np
import pytest

from tcpeval.metrics.fct import fct_by_size, flow_completion_times


def test_completion_times():
    np.testing.assert_allclose(flow_completion_times([1.0, 2.0], [1.5, np.nan]), [0.5, np.nan])


def test_buckets():
    sizes = [1, 6, 18, 190, 190, 5000, 100]
    start = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    end = [0.1, 1.3, 2.2, 4.0, np.nan, 9.0, 7.0]
    out = fct_by_size(sizes, start, end, [0, 10, 1000, np.inf], percentiles=(50,))
    np.testing.assert_array_equal(out.lower, [0, 10, 1000])
    np.testing.assert_array_equal(out.upper, [10, 1000, np.inf])
    np.testing.assert_array_equal(out.flows, [2, 4, 1])
    np.testing.assert_array_equal(out.completed, [2, 3, 1])
    # Bucket 1 completed FCTs: 0.2, 1.0, 1.0 (the unfinished 190-packet flow is left out).
    np.testing.assert_allclose(out.mean, [0.2, 2.2 / 3, 4.0])
    np.testing.assert_allclose(out.percentiles[50.0], [0.2, 1.0, 4.0])


def test_empty_bucket_is_nan():
    out = fct_by_size([5], [0.0], [1.0], [0, 10, 20])
    np.testing.assert_array_equal(out.flows, [1, 0])
    assert np.isnan(out.mean[1]) and np.isnan(out.percentiles[99.0][1])


def test_bad_edges():
    with pytest.raises(ValueError, match="edges"):
        fct_by_size([5], [0.0], [1.0], [10, 0])
