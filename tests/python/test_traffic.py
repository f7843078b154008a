"""Generated traffic through the Python API: offered load against target,
Kolmogorov-Smirnov tests of the realized sizes, inter-arrival times and
per-flow RTTs against the configured distributions (fixed seeds), and the
new result tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

import tcpeval
from tcpeval.store import load_run, save_run

ROOT = Path(__file__).resolve().parents[2]
INTERNET_RTT = ROOT / "crates" / "tcpeval-sim" / "data" / "internet-rtt.csv"
PACKET = 1500
MSS = 1460
#: p-value below which a KS or chi-square test fails.
ALPHA = 0.01


def scenario(traffic: dict[str, Any], duration_s: float = 300.0, seed: int = 11) -> dict[str, Any]:
    """An uncongested 10 Gbit/s dumbbell with 1 ms of core delay and no probes but the class series."""
    return {
        "name": "traffic",
        "duration_s": duration_s,
        "seed": seed,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate_mbps": 10000, "delay_ms": 1.0, "buffer": {"packets": 100000}},
        },
        "flows": [],
        "traffic": traffic,
        "probes": {"flow_period_ms": 0, "queue_period_ms": 0, "class_period_ms": 1000},
    }


def offered_error(r: tcpeval.RunResult, cls: int) -> float:
    """Relative error of the offered load of class ``cls`` against its target."""
    t = r.transfers[r.transfers["class"] == cls]
    offered = (t["size_pkts"] * PACKET * 8).sum() / r.sim_time_s
    return float(offered / r.classes.loc[cls, "target_bps"] - 1.0)


def gaps(r: tcpeval.RunResult, cls: int) -> np.ndarray:
    return np.diff(np.sort(r.transfers.loc[r.transfers["class"] == cls, "start"].to_numpy()))


def lognormal_pareto_cdf(
    x: np.ndarray,
    mu: float = 9.357,
    sigma: float = 1.318,
    cut: float = 133_000.0,
    alpha: float = 1.1,
    top: float = 1e7,
) -> np.ndarray:
    """CDF of the spliced lognormal body / truncated Pareto tail (the engine's ``lognormal_pareto``)."""
    body = stats.lognorm(s=sigma, scale=np.exp(mu))
    at_cut = body.cdf(cut)
    tail = (1 - (cut / np.maximum(x, cut)) ** alpha) / (1 - (cut / top) ** alpha)
    return np.where(x <= cut, body.cdf(x), at_cut + (1 - at_cut) * np.clip(tail, 0, 1))


def test_reverse_preset_targets_5_8_mbps_with_50_ms_gaps() -> None:
    r = tcpeval.run(scenario({"web": [{"direction": "both"}]}, duration_s=20), progress=False)
    c = r.classes
    assert list(c["name"]) == ["web0.fwd", "web0.rev"]
    assert list(c["direction"]) == ["forward", "reverse"]
    # 24.3 packets x 1500 B x 8 every 50 ms.
    np.testing.assert_allclose(c["target_bps"], 5.832e6)
    assert set(r.transfers["size_pkts"]) == {1, 6, 18, 190}


def test_empirical_model_load_sizes_and_poisson_arrivals() -> None:
    # The reverse study's mix at 40 Mbit/s per direction (137 transfers/s):
    # the offered load's relative standard deviation over 300 s is 1.2%.
    r = tcpeval.run(
        scenario({"web": [{"name": "web", "direction": "both", "load_mbps": 40}]}), progress=False
    )
    mean_gap = 24.3 * PACKET * 8 / 40e6
    for cls in (0, 1):
        err = offered_error(r, cls)
        assert abs(err) < 0.05, f"class {cls}: offered load off by {err:.2%}"
        g = gaps(r, cls)
        p = stats.kstest(g, "expon", args=(0, mean_gap)).pvalue
        assert p > ALPHA, f"class {cls}: inter-arrivals not exponential (p = {p:.3g})"
        sizes = r.transfers.loc[r.transfers["class"] == cls, "size_pkts"]
        counts = [int((sizes == s).sum()) for s in (1, 6, 18, 190)]
        expected = np.array([0.5, 0.2, 0.2, 0.1]) * len(sizes)
        p = stats.chisquare(counts, expected).pvalue
        assert p > ALPHA, f"class {cls}: size mix off (p = {p:.3g}, {counts})"
    # Every transfer on the uncongested link completes, except a few at the very end.
    t = r.transfers
    assert (
        t["end"].isna().sum() <= 5
        and (t.loc[t["start"] < 299, "end"] > t.loc[t["start"] < 299, "start"]).all()
    )


def test_lognormal_pareto_model_load_and_sizes() -> None:
    # SURGE's file sizes (alpha = 1.1, truncated at 10 MB; size CV about 5):
    # at 120 Mbit/s, 300 s hold about 120 000 transfers (offered load sd 1.5%).
    web = {"name": "bg", "sizes": {"kind": "lognormal_pareto"}, "load_mbps": 120}
    r = tcpeval.run(scenario({"web": [web]}), progress=False)
    err = offered_error(r, 0)
    assert abs(err) < 0.05, f"offered load off by {err:.2%}"
    sizes = r.transfers["size_bytes"].to_numpy()
    p = stats.kstest(sizes, lognormal_pareto_cdf).pvalue
    assert p > ALPHA, f"sizes (p = {p:.3g})"
    np.testing.assert_array_equal(r.transfers["size_pkts"], np.maximum(1, np.ceil(sizes / MSS)))
    # The engine's rate: E[packets] = 1 + sum_k P(size > k mss), exactly.
    k = np.arange(1, int(np.ceil(1e7 / MSS)))
    mean_pkts = 1 + (1 - lognormal_pareto_cdf(k * float(MSS))).sum()
    mean_gap = mean_pkts * PACKET * 8 / 120e6
    p = stats.kstest(gaps(r, 0), "expon", args=(0, mean_gap)).pvalue
    assert p > ALPHA, f"inter-arrivals (p = {p:.3g})"


def test_surge_model_load_and_sizes() -> None:
    # Sessions add page-level bursts to the size variance; 120 Mbit/s keeps
    # the offered load's sd near 2% over 300 s.
    web = {"name": "surge", "model": "surge", "direction": "reverse", "load_mbps": 120}
    r = tcpeval.run(scenario({"web": [web]}), progress=False)
    assert r.classes.loc[0, "direction"] == "reverse"
    err = offered_error(r, 0)
    assert abs(err) < 0.05, f"offered load off by {err:.2%}"
    p = stats.kstest(r.transfers["size_bytes"].to_numpy(), lognormal_pareto_cdf).pvalue
    assert p > ALPHA, f"sizes (p = {p:.3g})"


def test_per_flow_rtts_follow_their_distributions() -> None:
    one_packet = {"kind": "empirical", "pkts": [1], "probs": [1.0]}
    web = [
        {"name": "internet", "mean_interarrival_ms": 5, "sizes": one_packet, "rtt": {"kind": "internet"}},
        {
            "name": "lognormal",
            "mean_interarrival_ms": 5,
            "sizes": one_packet,
            "rtt": {"kind": "lognormal", "median_ms": 60, "sigma": 0.6},
        },
        {
            "name": "uniform",
            "mean_interarrival_ms": 5,
            "sizes": one_packet,
            "rtt": {"kind": "uniform", "min_ms": 10, "max_ms": 300},
        },
        {
            "name": "file",
            "mean_interarrival_ms": 5,
            "sizes": one_packet,
            "rtt": {"kind": "cdf", "path": str(INTERNET_RTT)},
        },
    ]
    r = tcpeval.run(scenario({"web": web}, duration_s=60, seed=13), progress=False)
    table = np.loadtxt(INTERNET_RTT, delimiter=",", comments="#", skiprows=6)

    def internet_cdf(x: np.ndarray) -> np.ndarray:
        return np.interp(x, table[:, 0], table[:, 1])

    dists = [
        internet_cdf,
        stats.lognorm(s=0.6, scale=60).cdf,
        stats.uniform(10, 290).cdf,
        internet_cdf,
    ]
    t = r.transfers
    for cls, cdf in enumerate(dists):
        rtt_ms = t.loc[t["class"] == cls, "rtt"].to_numpy() * 1e3
        # The lognormal can fall below the path's own 2 ms: those are raised to it.
        rtt_ms = rtt_ms[rtt_ms > 2.0 + 1e-9]
        assert len(rtt_ms) > 10_000
        p = stats.kstest(rtt_ms, cdf).pvalue
        assert p > ALPHA, f"class {cls}: RTTs (p = {p:.3g})"
    # A 1-packet transfer completes one RTT (plus microseconds of serialization) after it starts.
    done = t.dropna(subset=["end"])
    fct = done["end"] - done["start"]
    assert ((fct >= done["rtt"]) & (fct - done["rtt"] < 1e-4)).all()


def test_new_tables_are_stored(tmp_path) -> None:
    traffic = {
        "web": [{"name": "w", "mean_interarrival_ms": 100}],
        "bulk": [{"name": "bg", "count": 2, "direction": "both"}],
        "udp": [{"name": "u", "rate_mbps": 5, "direction": "reverse"}],
    }
    r = tcpeval.run(scenario(traffic, duration_s=5), progress=False)
    assert list(r.transfers.columns) == ["class", "flow", "size_pkts", "size_bytes", "start", "end", "rtt"]
    assert list(r.class_series.columns) == ["time", "class", "delivered", "offered", "sent", "active"]
    assert list(r.classes["name"]) == ["bg.fwd", "bg.rev", "w", "u"]
    c = r.classes
    assert (c["sent"] == c["received"] + c["dropped"] + c["in_transit"]).all()
    s = r.class_summary().set_index("class")
    assert s.loc["u", "carried_mbps"] == pytest.approx(5, rel=0.01)
    assert np.isnan(s.loc["bg.fwd", "target_mbps"])
    back = load_run(save_run(r, tmp_path / "run"))
    assert back.transfers.equals(r.transfers)
    assert back.classes.equals(r.classes)
    np.testing.assert_array_equal(back.class_series["delivered"], r.class_series["delivered"])


def test_traffic_errors_name_the_field() -> None:
    bad = scenario({"web": [{"model": "surge", "mean_interarrival_ms": 50}]})
    with pytest.raises(tcpeval.ScenarioError) as e:
        tcpeval.run(bad, progress=False)
    assert e.value.field == "traffic.web[0].mean_interarrival_ms"
    bad = scenario({"bulk": [{"count": 0}]})
    with pytest.raises(tcpeval.ScenarioError) as e:
        tcpeval.run(bad, progress=False)
    assert e.value.field == "traffic.bulk[0].count"
    assert "allowed 1" in str(e.value)


def test_a_run_of_generated_transfers_alone_has_an_empty_flows_table_that_stores(tmp_path) -> None:
    # Web transfers and a UDP source only: no entry of the flows table. The
    # empty table keeps its declared columns, so summaries and storage work.
    traffic = {"web": [{"name": "w", "mean_interarrival_ms": 100}], "udp": [{"name": "u", "rate_mbps": 5}]}
    r = tcpeval.run(scenario(traffic, duration_s=3), progress=False)
    declared = next(t for t in tcpeval.result.columns() if t["key"] == "flows")
    names = [c["name"] for c in declared["columns"] if c["name"] in r.flows.columns]
    assert len(r.flows) == 0 and names == list(r.flows.columns) and "completed" in names
    assert r.flows["sent"].dtype == np.int64
    assert len(r.summary()) == 0 and len(r.transfers) > 0
    back = load_run(save_run(r, tmp_path / "run"))
    assert len(back.flows) == 0 and list(back.flows.columns) == list(r.flows.columns)
    assert back.transfers.equals(r.transfers)
