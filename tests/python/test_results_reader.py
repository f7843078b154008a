"""One reader of a results directory: ``tcpeval results query`` and the report
read the same catalog rows and study files through ``ResultsDB`` (issue 16,
part 4)."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
from pathlib import Path

import pytest

from tcpeval.errors import StoreError
from tcpeval.report import experiment_runs, load_results
from tcpeval.results_db import ResultsDB, RunRecord, results


def test_the_report_and_results_query_show_the_same_runs(fake_study_dir: Path) -> None:
    flat = results(fake_study_dir, "grid")
    grid = load_results(fake_study_dir).runs["grid"]
    assert len(grid) == len(flat) == 12
    # The query orders by sweep point and seed, the report by key: the same rows either way.
    assert sorted(flat["key"]) == list(grid["key"])
    by_key = flat.set_index("key")
    for _, row in grid.iterrows():
        other = by_key.loc[row["key"]]
        assert (other["seed"], other["status"], other["algorithm"], other["buffer"]) == (
            row["seed"],
            row["status"],
            row["algorithm"],
            row["buffer"],
        )
        for metric in ("throughput_mbps", "loss_ratio", "convergence_s"):
            a, b = float(other[metric]), float(row[metric])
            assert (math.isnan(a) and math.isnan(b)) or a == b, (row["key"], metric)


def test_records_come_parsed_in_a_fixed_order(tmp_path: Path) -> None:
    db = ResultsDB(tmp_path)
    for key, point, seed in (("c", {"x": 2}, 1), ("a", {"x": 1}, 2), ("b", {"x": 1}, 1)):
        db.record(RunRecord(key, "e", point, seed, "ok", None, 0.5, {"m": float(seed)}))
    db.record(RunRecord("d", "f", {}, 1, "error", "boom", 0.1, {"m": float("nan")}))
    recs = db.records("e")
    db.close()
    assert [(r.key, r.point, r.seed) for r in recs] == [
        ("b", {"x": 1}, 1),
        ("a", {"x": 1}, 2),
        ("c", {"x": 2}, 1),
    ]
    assert recs[0].metrics == {"m": 1.0} and recs[0].experiment == "e" and recs[0].files is None
    ro = ResultsDB(tmp_path, readonly=True)
    (failed,) = ro.records("f")
    ro.close()
    assert failed.metrics == {"m": None}  # NaN is stored as null


@pytest.mark.parametrize("column", ["point", "metrics"])
def test_a_row_that_is_not_a_json_object_is_named_by_both_readers(
    fake_study_dir: Path, tmp_path: Path, column: str
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(fake_study_dir, broken)
    with sqlite3.connect(broken / "catalog.sqlite") as c:
        c.execute(f"UPDATE runs SET {column} = ? WHERE seed = 2", (json.dumps([1, 2]),))
    for read in (results, load_results):
        with pytest.raises(StoreError, match=f"run [0-9a-f]+: {column} is not a JSON object") as info:
            read(broken)
        assert info.value.path == str(broken / "catalog.sqlite")


def test_the_report_needs_the_stored_study_file(fake_study_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(fake_study_dir, copy)
    (copy / "study.toml").unlink()
    with pytest.raises(FileNotFoundError, match=r"study\.toml: missing"):
        load_results(copy)
    assert len(results(copy)) == 12  # the query needs only the catalog


def test_experiment_runs_refuses_another_experiments_rows() -> None:
    rec = RunRecord("k", "other", {}, 1, "ok", None, 0.5, {})
    with pytest.raises(ValueError, match="run k is of experiment 'other', not 'grid'"):
        experiment_runs([rec], {"name": "grid"})
