"""A small study results directory, laid out as docs/study-format.md says, for the report tests.

Experiment ``grid`` sweeps algorithm x buffer (2 x 2) with seeds 1..3: 12
runs, one of which (cubic, buffer 60, seed 3) failed. Its metrics are made up
(:func:`throughput`, :func:`loss`); the run :data:`TRACED` also has real
run tables under ``runs/KEY/``, from a tiny simulation, for the timeseries
and throughput figures. Experiment ``empty`` has no runs.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import tcpeval
from conftest import small_dumbbell
from tcpeval.store import save_run

TITLE = "<script>alert(1)</script> & co"
ERROR = 'engine failed: <buffer> & "queue" overflow'

STUDY_TOML = f"""
name = "fake"
title = {json.dumps(TITLE)}
reference = "Doe & Roe, <i>Nowhere</i> 2024"
replications = 3

[quick]
replications = 1
duration_scale = 0.5

[defaults]
packet_size = 1500

[algorithms.cubic]
params = {{ beta = 0.7 }}

[[experiment]]
name = "grid"
title = "Two algorithms, two buffers"
notes = "The buffer is <b>not</b> stated in the original."

[experiment.scenario]
duration_s = 2
topology = {{ kind = "dumbbell", bottleneck = {{ rate_mbps = 20, delay_ms = 10 }} }}
flows = [ {{ name = "a", algorithm = "reno", rtt_ms = 40 }}, {{ name = "b", algorithm = "reno", rtt_ms = 80 }} ]

[experiment.sweep]
algorithm = {{ path = "flows[*].algorithm", values = ["reno", "cubic"] }}
buffer = {{ path = "topology.bottleneck.buffer.packets", values = [20, 60] }}

[[experiment.metric]]
name = "throughput_mbps"
fn = "goodput_mbps"
agg = "mean"

[[experiment.metric]]
name = "loss_ratio"
fn = "loss_ratio"

[[experiment.metric]]
name = "convergence_s"
fn = "convergence_s"
flows = ["a", "b"]

[experiment.algorithms.cubic]
tcp = {{ sack = true }}

[[experiment.figure]]
name = "throughput-vs-buffer"
kind = "line"
x = "buffer"
y = "throughput_mbps"
group = "algorithm"

[[experiment.figure]]
name = "loss-grid"
kind = "heatmap"
x = "buffer"
y = "algorithm"
value = "loss_ratio"

[[experiment.figure]]
name = "phases"
kind = "bars"
y = ["throughput_mbps", "loss_ratio"]
group = "algorithm"

[[experiment.figure]]
name = "traces"
kind = "timeseries"
where = {{ algorithm = "reno", buffer = 20 }}
flows = ["a"]
link = "R1->R2"
window = [0.5, 2.0]

[[experiment.figure]]
name = "aggregate"
kind = "timeseries"
where = {{ algorithm = "reno", buffer = 20 }}
aggregate = ["a"]
flows = ["b"]
secondary_axis = ["b"]
links = ["R1->R2", "R2->R1", "R9->R9"]
psd_window = [1.0, 2.0]
marks = [{{ x = 1.0, label = "b enters" }}, {{ x = 7.0, label = "after the run" }}]
freq_marks = [{{ hz = 5.0, label = "five hertz" }}]

[[experiment.figure]]
name = "goodput"
kind = "throughput"
where = {{ algorithm = "reno", buffer = 20 }}
interval = 0.25
cumulative_share = true
marks = [{{ x = 1.0, label = "b enters" }}]

[[experiment.figure]]
name = "convergence"
kind = "line"
x = "buffer"
y = "convergence_s"

[[experiment.table]]
name = "per-point"
rows = ["buffer", "algorithm"]
columns = ["throughput_mbps", "loss_ratio"]

[[experiment.table]]
name = "per-algorithm"
rows = ["algorithm"]
columns = ["throughput_mbps"]

[[claim]]
id = "reno-throughput"
source = "Table 1"
text = "Reno gets about 14 Mbit/s with a 20-packet buffer"
experiment = "grid"
metric = "throughput_mbps"
where = {{ algorithm = "reno", buffer = 20 }}
check = "value"
paper = 14
tolerance = {{ rel = 0.05 }}

[[claim]]
id = "reno-beats-cubic"
source = "Section 4"
text = "Reno outperforms <CUBIC> with a 20-packet buffer"
experiment = "grid"
metric = "throughput_mbps"
where = {{ buffer = 20 }}
check = "order"
order = [{{ algorithm = "reno" }}, {{ algorithm = "cubic" }}]
note = "Made up: the fake metrics give CUBIC more."

[[claim]]
id = "cubic-over-reno"
source = "Fig. 2"
text = "CUBIC gets at least 10 % more than Reno with a 60-packet buffer"
experiment = "grid"
metric = "throughput_mbps"
where = {{ buffer = 60 }}
check = "ratio"
numerator = {{ algorithm = "cubic" }}
denominator = {{ algorithm = "reno" }}
min = 1.1

[[claim]]
id = "never-run"
source = "Fig. 3"
text = "Utilization stays above 90 %"
experiment = "empty"
metric = "utilization"
check = "range"
min = 0.9

[[experiment]]
name = "empty"
title = "Never run"

[experiment.scenario]
duration_s = 1

[experiment.sweep]
rtt = {{ path = "flows[0].rtt_ms", values = [10, 20] }}

[[experiment.metric]]
name = "utilization"
fn = "utilization"

[[experiment.figure]]
name = "util"
kind = "line"
x = "rtt"
y = "utilization"

[[experiment.table]]
name = "util"
rows = ["rtt"]
columns = ["utilization"]
"""

ALGORITHMS = ("reno", "cubic")
BUFFERS = (20, 60)
SEEDS = (1, 2, 3)
FAILED = ("cubic", 60, 3)
"""The point and seed of the failed run."""
TRACED = ("reno", 20, 1)
"""The point and seed of the run with tables (the timeseries figure's)."""


def throughput(algorithm: str, buffer: int, seed: int) -> float:
    """The made-up throughput of a run, Mbit/s: a distinct spread per point."""
    return (
        {"reno": 10.0, "cubic": 14.0}[algorithm] + buffer / 10 + [0.0, 1.0, 3.0][seed - 1] * (1 + buffer / 60)
    )


def loss(algorithm: str, buffer: int, seed: int) -> float | None:
    """The made-up loss ratio of a run; None (no value) for reno, buffer 60, seed 2."""
    if (algorithm, buffer, seed) == ("reno", 60, 2):
        return None
    return 0.01 * seed / buffer + (0.002 if algorithm == "cubic" else 0.0)


def run_key(algorithm: str, buffer: int, seed: int) -> str:
    return hashlib.sha256(f"{algorithm}/{buffer}/{seed}".encode()).hexdigest()


def write_fake_study(directory: Path, mode: str = "full") -> Path:
    """Write the study results directory described in the module docstring; return it."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.toml").write_text(STUDY_TOML)
    meta = {
        "name": "fake",
        "mode": mode,
        "tcpeval_version": tcpeval.__version__,
        "started": "2024-05-01T10:00:00Z",
        "finished": "2024-05-01T10:05:00Z",
    }
    (directory / "study.json").write_text(json.dumps(meta))
    db = sqlite3.connect(directory / "catalog.sqlite")
    db.execute(
        "CREATE TABLE runs (key TEXT PRIMARY KEY, experiment TEXT, point TEXT, seed INTEGER,"
        " status TEXT, error TEXT, wall_s REAL, metrics TEXT)"
    )
    rows: list[tuple[Any, ...]] = []
    for algorithm in ALGORITHMS:
        for buffer in BUFFERS:
            for seed in SEEDS:
                key = run_key(algorithm, buffer, seed)
                point = json.dumps({"algorithm": algorithm, "buffer": buffer})
                if (algorithm, buffer, seed) == FAILED:
                    rows.append((key, "grid", point, seed, "error", ERROR, 0.1, json.dumps({})))
                    continue
                metrics = {
                    "throughput_mbps": throughput(algorithm, buffer, seed),
                    "loss_ratio": loss(algorithm, buffer, seed),
                    "convergence_s": None,
                }
                rows.append((key, "grid", point, seed, "ok", None, 0.5, json.dumps(metrics)))
                if (algorithm, buffer, seed) == TRACED:
                    scenario = small_dumbbell(duration_s=2.0, seed=seed)
                    scenario["topology"]["bottleneck"]["buffer"] = {"packets": buffer}
                    save_run(tcpeval.run(scenario, progress=False), directory / "runs" / key)
    db.executemany("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    db.close()
    return directory
