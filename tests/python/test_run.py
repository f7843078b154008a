"""Running scenarios through the Python API; results and the run store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

import tcpeval
from conftest import small_dumbbell
from tcpeval.store import TABLES, load_run, save_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_run_returns_tables_with_the_documented_columns() -> None:
    r = tcpeval.run(small_dumbbell(), progress=False)
    assert list(r.flow_series.columns) == [
        "time",
        "flow",
        "flow_name",
        "cwnd",
        "ssthresh",
        "srtt",
        "delivered",
        "sent",
        "retransmitted",
        "timeouts",
    ]
    assert {"qlen", "qbytes", "departed_bytes", "drops"} <= set(r.queue_series.columns)
    assert {"sent", "retransmitted", "timeouts", "delivered_bytes", "first_loss"} <= set(r.flows.columns)
    assert r.sim_time_s == 10.0
    # Conservation for every flow.
    f = r.flows
    assert (f["sent"] == f["data_received"] + f["data_dropped"] + f["data_in_transit"]).all()
    # Flow b starts at 1 s: its series starts there.
    b = r.flow_series[r.flow_series.flow == 1]
    assert b.time.min() == 1.0
    s = r.summary()
    assert s["goodput_mbps"].sum() > 0.8 * 20 * 1460 / 1500
    assert r.link_summary().set_index("link").loc["R1->R2", "utilization"] > 0.85


def test_same_seed_gives_identical_results_and_other_seed_differs() -> None:
    sc = small_dumbbell()
    sc["flows"][0]["start_jitter_s"] = 2.0
    a = tcpeval.run(sc, progress=False)
    b = tcpeval.run(sc, progress=False)
    c = tcpeval.run(dict(sc, seed=99), progress=False)
    assert a.flow_series.equals(b.flow_series)
    assert a.queue_series.equals(b.queue_series)
    assert not a.flow_series.equals(c.flow_series)


def test_progress_bar_is_shown_on_request(capsys) -> None:
    tcpeval.run(small_dumbbell(duration_s=2.0), progress=True)
    err = capsys.readouterr().err
    assert "sim-s" in err and "100%" in err


def test_store_round_trip(tmp_path) -> None:
    r = tcpeval.run(small_dumbbell(duration_s=3.0), progress=False)
    out = save_run(r, tmp_path / "run")
    assert sorted(p.name for p in out.iterdir()) == [
        "aqm_series.parquet",
        "class_series.parquet",
        "classes.parquet",
        "flow_series.parquet",
        "flows.parquet",
        "links.parquet",
        "queue_series.parquet",
        "summary.json",
        "transfers.parquet",
    ]
    back = load_run(out)
    assert back.scenario.hash == r.scenario.hash
    np.testing.assert_array_equal(back.flow_series["cwnd"], r.flow_series["cwnd"])
    # Names ride beside the ids: derived from the flows/links tables, not stored.
    assert list(back.flow_series["flow_name"]) == list(r.flow_series["flow_name"])
    assert list(back.queue_series["link_name"]) == list(r.queue_series["link_name"])
    assert "flow_name" not in pq.read_schema(out / "flow_series.parquet").names
    # Overwriting leaves exactly one complete run and no temporary directories.
    save_run(r, out)
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


def test_stored_tables_are_compact_and_lossless(tmp_path) -> None:
    """Every stored table reads back equal to the run's, bit for bit, from
    zstd-compressed, delta-encoded (integers) and byte-split (floats) files."""
    r = tcpeval.run(EXAMPLES / "web-surge.toml", progress=False)
    out = save_run(r, tmp_path / "run")
    back = load_run(out)
    for name in TABLES:
        stored = pq.ParquetFile(out / f"{name}.parquet").metadata
        if stored.num_rows:
            assert stored.row_group(0).column(0).compression == "ZSTD"
        pd.testing.assert_frame_equal(
            back.stored_table(name).reset_index(drop=True),
            r.stored_table(name).reset_index(drop=True),
            check_exact=True,
        )
    encodings = pq.ParquetFile(out / "flow_series.parquet").metadata.row_group(0)
    by_column = {
        encodings.column(i).path_in_schema: encodings.column(i).encodings
        for i in range(encodings.num_columns)
    }
    assert "DELTA_BINARY_PACKED" in by_column["delivered"]
    assert "BYTE_STREAM_SPLIT" in by_column["cwnd"]


def test_series_name_each_flow_and_link_beside_its_id() -> None:
    sc = small_dumbbell()
    sc["flows"][1]["count"] = 2  # flows 1 and 2 share the entry's name
    r = tcpeval.run(sc, progress=False)
    names = dict(zip(r.flows["flow"], r.flows["name"], strict=True))
    fs = r.flow_series
    assert (fs["flow_name"].astype(str) == fs["flow"].map(names)).all()
    assert set(fs["flow_name"].astype(str)) == set(r.flows["name"])
    links = dict(zip(r.links["link"], r.links["name"], strict=True))
    qs = r.queue_series
    assert (qs["link_name"].astype(str) == qs["link"].map(links)).all()
    assert "R1->R2" in set(qs["link_name"].astype(str))


def test_threads_run_in_parallel_and_agree() -> None:
    from concurrent.futures import ThreadPoolExecutor

    scs = [small_dumbbell(seed=s, duration_s=3.0) for s in (1, 2)]
    with ThreadPoolExecutor(2) as pool:
        par = list(pool.map(lambda s: tcpeval.run(s, progress=False), scs))
    seq = [tcpeval.run(s, progress=False) for s in scs]
    for p, q in zip(par, seq, strict=True):
        assert p.flow_series.equals(q.flow_series)
