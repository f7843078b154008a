"""Adapters from a run result's DataFrames, on a small hand-built fake run."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from tcpeval.metrics.runview import (
    flow_rows,
    flow_series_of,
    flow_start,
    link_named,
    link_queue_series,
    run_drop_probability,
    run_flow_goodputs,
    run_flow_jain,
    run_flow_trace,
    run_link_utilization,
    run_queue_stats,
    run_queue_trace,
    run_window,
    select_flows,
)

DURATION = 10.0


def fake_run():
    t = np.arange(101) / 10.0
    # Flow 1 delivers 1e6 B/s all run; flow 2 0.5e6 B/s from 2 s to 8 s.
    delivered = {1: 1e6 * t, 2: 0.5e6 * np.clip(t, 2.0, 8.0) - 1e6}
    frames = [
        pd.DataFrame(
            {
                "time": t,
                "flow": flow,
                "cwnd": 10.0 * flow + t,
                "ssthresh": np.inf,
                "srtt": 0.05,
                "delivered": delivered[flow].astype(np.int64),
            }
        )
        for flow in (1, 2)
    ]
    flow_series = pd.concat(frames).sample(frac=1.0, random_state=3).reset_index(drop=True)
    queue_series = pd.concat(
        [
            pd.DataFrame({"time": t, "link": 0, "qlen": 50, "qbytes": 75000}),
            pd.DataFrame({"time": t, "link": 1, "qlen": np.arange(101), "qbytes": 0}),
        ]
    ).reset_index(drop=True)
    flows = pd.DataFrame(
        {
            "flow": [1, 2],
            "name": ["A", "B"],
            "algorithm": ["reno", "cubic"],
            "start": [0.0, 2.0],
            "stop": [np.inf, 8.0],
            "sent": [6700, 2010],
            "retransmitted": [30, 10],
            "fast_retransmits": [3, 1],
            "timeouts": [0, 0],
            "delivered_bytes": [10_000_000, 3_000_000],
            "first_loss": [1.5, np.nan],
            "base_rtt": [0.05, 0.05],
        }
    )
    links = pd.DataFrame(
        {
            "link": [0, 1],
            "name": ["bottleneck", "access"],
            "rate_bps": [16e6, 1e9],
            "delay": [0.01, 0.001],
            "buffer": [100, 1000],
            "arrivals": [1000, 0],
            "drops": [10, 0],
            "departures": [990, 0],
            "bytes_departed": [10_000_000, 0],
            "max_qlen": [100, 0],
        }
    )
    return SimpleNamespace(
        flow_series=flow_series,
        queue_series=queue_series,
        flows=flows,
        links=links,
        sim_time_s=DURATION,
    )


def test_goodputs_default_to_each_flow_lifetime():
    g = run_flow_goodputs(fake_run())
    assert list(g.index) == [1, 2]
    assert g[1] == pytest.approx(8e6)
    assert g[2] == pytest.approx(4e6)  # over [2, 8], not diluted by [0, 10]


def test_goodputs_over_a_window_and_selected_flows():
    r = fake_run()
    g = run_flow_goodputs(r, 0.0, 10.0)
    assert g[2] == pytest.approx(0.6 * 4e6)
    g = run_flow_goodputs(r, 4.0, 6.0, flows=["B"])
    assert list(g.index) == [2]
    assert g[2] == pytest.approx(4e6)


def test_flow_jain():
    # Jain(8, 4) = 144 / (2 * 80)
    assert run_flow_jain(fake_run(), 4.0, 6.0) == pytest.approx(0.9)


def test_link_utilization_from_counters_and_from_flows():
    r = fake_run()
    assert run_link_utilization(r, 0) == pytest.approx(8e7 / (16e6 * DURATION))
    assert run_link_utilization(r, "bottleneck") == pytest.approx(0.5)
    assert run_link_utilization(r, 0, 4.0, 6.0, flows=[1, 2]) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="whole run"):
        run_link_utilization(r, 0, 4.0, 6.0)


def test_queue_stats_normalized_to_buffer():
    r = fake_run()
    s = run_queue_stats(r, "bottleneck")
    assert s.mean == pytest.approx(0.5) and s.std == pytest.approx(0.0)
    s = run_queue_stats(r, 1, t_start=5.0, percentiles=(50,))
    assert s.samples == 51
    assert s.mean == pytest.approx(0.075)
    assert s.percentiles[50.0] == pytest.approx(0.075)


def test_drop_probability():
    r = fake_run()
    assert run_drop_probability(r, 0) == pytest.approx(0.01)
    assert np.isnan(run_drop_probability(r, "access"))


def test_traces_are_time_ordered_arrays():
    r = fake_run()
    t, cwnd = run_flow_trace(r, "B")
    np.testing.assert_allclose(t, np.arange(101) / 10.0)
    np.testing.assert_allclose(cwnd, 20.0 + t)
    t, q = run_queue_trace(r, 1)
    np.testing.assert_allclose(q, np.arange(101))
    with pytest.raises(KeyError, match="flow 'C'"):
        run_flow_trace(r, "C")
    with pytest.raises(KeyError, match="column"):
        run_flow_trace(r, 1, "rtt")


def test_study_metric_lookups_select_by_name_and_copies():
    r = fake_run()
    r.flows = pd.concat([r.flows, r.flows.assign(flow=[3, 4], name=["B.0", "B.1"])], ignore_index=True)
    assert select_flows(r, None) == [1, 2, 3, 4]
    assert select_flows(r, ["B", "A"]) == [2, 3, 4, 1]  # selector order; "B" takes its copies B.0, B.1
    with pytest.raises(ValueError, match=r"no flow named 'C'; flows: A, B, B\.0, B\.1"):
        select_flows(r, ["C"])
    assert list(flow_rows(r, [4, 1])["name"]) == ["A", "B.1"]  # table order
    assert flow_start(r, 2) == 2.0
    assert len(flow_series_of(r, 1)) == 101
    assert link_named(r, "access")["link"] == 1
    assert list(link_queue_series(r, "access")["qlen"]) == list(range(101))
    with pytest.raises(ValueError, match="no link named 'x'; links: bottleneck, access"):
        link_named(r, "x")


def test_study_metric_window_is_capped_at_the_run_end():
    r = fake_run()
    assert run_window(r, None) == (0.0, DURATION)
    assert run_window(r, [2, 50]) == (2.0, DURATION)
    with pytest.raises(ValueError, match=r"window \[12, 20\] is empty for a 10.0 s run"):
        run_window(r, [12, 20])
