"""The study report: loader, figures, tables and page, on a small made-up study (fake_study.py)."""

from __future__ import annotations

import html
import math
import re
import statistics

import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection, QuadMesh
from matplotlib.container import BarContainer

from fake_study import ALGORITHMS, BUFFERS, ERROR, FAILED, SEEDS, TITLE, loss, run_key, throughput
from tcpeval.report import (
    StudyResults,
    experiment_figures,
    figure_outputs,
    load_results,
    table_output,
)
from tcpeval.report.page import parameters_text
from tcpeval.report.tables import cell_text

# Student-t quantiles t_{0.975, n-1} from a printed table, for the hand computations.
T975 = {2: 12.706204736174694, 3: 4.302652729749462, 5: 2.7764451051977934, 6: 2.5705818356363146}


DRAWN = [
    "grid-throughput-vs-buffer",
    "grid-loss-grid",
    "grid-phases-buffer-20",
    "grid-phases-buffer-60",
    "grid-traces",
    "grid-aggregate",
    "grid-goodput",
]
"""The figures of the fake study that have data: the line, the heat map, the
bars split by buffer, and the timeseries and throughput figures of one point."""


def hand_ci(values: list[float]) -> tuple[float, float]:
    """Mean and 95% half-width computed from the definition."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, T975[n] * sd / math.sqrt(n)


def ok_seeds(algorithm: str, buffer: int) -> list[int]:
    return [s for s in SEEDS if (algorithm, buffer, s) != FAILED]


@pytest.fixture(scope="module")
def study(fake_study_dir) -> StudyResults:
    return load_results(fake_study_dir)


@pytest.fixture(scope="module")
def page(fake_report) -> str:
    return fake_report.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def figures(fake_report_build):
    """The report's figures by file stem, as build_report made them."""
    return fake_report_build[1]


def test_runs_frame_has_one_row_per_run(study):
    grid = study.runs["grid"]
    assert list(grid.columns) == [
        "key", "seed", "status", "error", "wall_s", "algorithm", "buffer",
        "throughput_mbps", "loss_ratio", "convergence_s",
    ]  # fmt: skip
    assert len(grid) == len(ALGORITHMS) * len(BUFFERS) * len(SEEDS)
    failed = grid[grid["status"] == "error"]
    assert len(failed) == 1 and failed.iloc[0]["error"] == ERROR
    assert failed.iloc[0]["key"] == run_key(*FAILED)
    assert math.isnan(failed.iloc[0]["throughput_mbps"])
    row = grid[grid["key"] == run_key("reno", 60, 2)].iloc[0]
    assert (row["algorithm"], row["buffer"], row["seed"]) == ("reno", 60, 2)
    assert row["throughput_mbps"] == pytest.approx(throughput("reno", 60, 2))
    assert math.isnan(row["loss_ratio"]) and grid["convergence_s"].isna().all()
    empty = study.runs["empty"]
    assert empty.empty and list(empty.columns)[5:] == ["rtt", "utilization"]


def test_quick_mode_uses_the_quick_values(study):
    experiment = {**study.experiments[0], "quick": {"buffer": [60, 1000], "scenario": {"duration_s": 1}}}
    quick = StudyResults(study.directory, study.spec, {**study.meta, "mode": "quick"}, study.runs)
    assert quick.declared_values(experiment, "buffer") == [60, 1000]
    assert quick.values(experiment, "buffer") == [60, 1000, 20]  # then what the catalog holds
    assert study.declared_values(experiment, "buffer") == [20, 60]
    text = parameters_text(quick, experiment)
    assert "algorithms.cubic.params.beta = 0.7\nalgorithms.cubic.tcp.sack = true" in text
    assert 'buffer (path "topology.bottleneck.buffer.packets") = [60, 1000]' in text
    assert "study.duration_scale = 0.5" in text and "experiment.scenario.duration_s = 1" in text


def test_every_declared_figure_is_saved_in_three_formats(fake_study_dir, fake_report):
    magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}
    saved = sorted(p.name for p in (fake_study_dir / "figures").iterdir())
    assert saved == sorted(f"{stem}.{ext}" for stem in DRAWN for ext in magic)
    for stem in DRAWN:
        for ext, head in magic.items():
            assert (fake_study_dir / "figures" / f"{stem}.{ext}").read_bytes().startswith(head)


def test_a_quick_study_saves_png_unless_told(tmp_path):
    """Quick mode's report is a first look: PNG alone by default; formats
    asked for still win."""
    from fake_study import write_fake_study
    from tcpeval.report import build, default_formats

    assert default_formats("quick") == ("png",) and default_formats("full") == ("png", "svg", "pdf")
    here = write_fake_study(tmp_path / "quick", mode="quick")
    build(here, workers=1)
    assert {p.suffix for p in (here / "figures").iterdir()} == {".png"}
    build(here, workers=1, formats=["svg"])
    assert {p.suffix for p in (here / "figures").iterdir()} == {".png", ".svg"}
    # Rebuilt PNG alone: the SVGs of the last build go, so none is stale.
    build(here, workers=1)
    assert {p.suffix for p in (here / "figures").iterdir()} == {".png"}


def test_only_the_formats_asked_for_are_saved_and_linked(fake_study_dir, tmp_path):
    """``formats``: PDF asked, PNG saved too (the page inlines it), no SVG;
    the page links what exists. An unknown format is refused by name."""
    import shutil

    from tcpeval.report import build, figure_formats

    here = tmp_path / "pdf-only"
    shutil.copytree(fake_study_dir, here, ignore=shutil.ignore_patterns("figures", "tables", "report.html"))
    report = build(here, workers=1, formats=["pdf"])
    saved = sorted(p.name for p in (here / "figures").iterdir())
    assert saved == sorted(f"{stem}.{ext}" for stem in DRAWN for ext in ("png", "pdf"))
    page = report.page.read_text()
    assert ">PDF</a>" in page and ">PNG</a>" in page and ">SVG</a>" not in page
    assert figure_formats([" SVG", ".pdf", ""]) == ("png", "svg", "pdf")
    with pytest.raises(ValueError, match="figure formats: jpg not among png, svg, pdf"):
        figure_formats(["png", "jpg"])


def test_line_figure_has_a_curve_and_band_per_group(figures):
    (ax,) = figures["grid-throughput-vs-buffer"].figure.axes
    assert [line.get_label() for line in ax.lines] == list(ALGORITHMS)
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 2
    for line, algorithm in zip(ax.lines, ALGORITHMS, strict=True):
        assert list(line.get_xdata()) == list(BUFFERS)
        expected = [
            statistics.mean(throughput(algorithm, b, s) for s in ok_seeds(algorithm, b)) for b in BUFFERS
        ]
        np.testing.assert_allclose(line.get_ydata(), expected)


def test_heatmap_has_a_cell_per_point(figures):
    ax = figures["grid-loss-grid"].figure.axes[0]
    assert len([c for c in ax.collections if isinstance(c, QuadMesh)]) == 1
    assert len(ax.texts) == len(ALGORITHMS) * len(BUFFERS)
    cubic_20 = statistics.mean(loss("cubic", 20, s) for s in SEEDS)
    assert ax.texts[ALGORITHMS.index("cubic") * len(BUFFERS)].get_text() == f"{cubic_20:.3g}"


def test_bars_are_split_by_the_parameter_they_do_not_use(figures):
    for buffer in BUFFERS:
        out = figures[f"grid-phases-buffer-{buffer}"]
        assert out.caption == f"phases (buffer = {buffer})"
        (ax,) = out.figure.axes
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        assert len(bars) == len(ALGORITHMS) and all(len(b) == 2 for b in bars)
        assert bars[0][0].get_height() == pytest.approx(
            statistics.mean(throughput("reno", buffer, s) for s in SEEDS)
        )


def test_timeseries_shows_the_first_seed_of_the_selected_point(figures):
    fig = figures["grid-traces"].figure
    assert len(fig.axes) == 4  # cwnd and queue, each with its spectrum
    assert fig.get_suptitle() == "traces, seed 1"
    cwnd, _, queue, _ = fig.axes
    assert [line.get_label() for line in cwnd.lines] == ["a"]
    assert [line.get_label() for line in queue.lines] == ["R1->R2"]
    assert all(len(ax.lines[0].get_xdata()) > 50 for ax in fig.axes)
    time = cwnd.lines[0].get_xdata()
    assert min(time) == pytest.approx(0.5) and max(time) < 2.0
    # The buffer of the run shown (20 packets) bounds the queue.
    assert 0 < max(queue.lines[0].get_ydata()) <= 20


def test_figure_without_data_is_a_message_not_an_empty_axes(figures, fake_study_dir):
    for algorithm in ALGORITHMS:
        out = figures[f"grid-convergence-algorithm-{algorithm}"]
        assert out.figure is None and out.paths == {}
        assert out.message == "no run has a value of convergence_s"
    assert not list((fake_study_dir / "figures").glob("grid-convergence*"))


def test_categorical_x_and_a_point_whose_runs_all_failed(study, tmp_path):
    frame = study.runs["grid"].copy()
    frame.loc[frame["buffer"] == 60, "status"] = "error"
    broken = StudyResults(study.directory, study.spec, study.meta, {**study.runs, "grid": frame})
    spec = {"name": "by-algorithm", "kind": "line", "x": "algorithm", "y": "throughput_mbps"}
    drawn, failed = figure_outputs(broken, broken.experiments[0], spec, tmp_path)
    assert drawn.name == "grid-by-algorithm-buffer-20" and drawn.message is None
    (ax,) = drawn.figure.axes
    assert [t.get_text() for t in ax.get_xticklabels()] == list(ALGORITHMS)
    assert list(ax.lines[0].get_xdata()) == [0, 1]
    assert (failed.name, failed.message, failed.paths) == (
        "grid-by-algorithm-buffer-60",
        "every run failed",
        {},
    )


def test_experiment_without_runs_gets_messages(study, tmp_path):
    experiment = study.experiments[1]
    (out,) = experiment_figures(study, experiment, tmp_path)
    assert (out.name, out.message, out.paths) == ("empty-util", "no runs", {})
    table = table_output(study, experiment, experiment["table"][0], tmp_path)
    assert table.message == "no runs" and table.path is None
    assert not list(tmp_path.iterdir())


def test_table_rows_and_confidence_intervals(fake_study_dir, page):
    table = pd.read_csv(fake_study_dir / "tables" / "grid-per-point.csv")
    assert list(zip(table["buffer"], table["algorithm"], strict=True)) == [
        (b, a) for b in BUFFERS for a in ALGORITHMS
    ]
    for _, row in table.iterrows():
        seeds = ok_seeds(row["algorithm"], row["buffer"])
        assert row["runs"] == len(seeds)
        mean, half = hand_ci([throughput(row["algorithm"], row["buffer"], s) for s in seeds])
        assert row["throughput_mbps_mean"] == pytest.approx(mean, rel=1e-12)
        assert row["throughput_mbps_ci95"] == pytest.approx(half, rel=1e-9)
        assert f"<td>{mean:.4g} ± {half:.2g}</td>" in page
        losses = [v for s in seeds if (v := loss(row["algorithm"], row["buffer"], s)) is not None]
        assert row["loss_ratio_n"] == len(losses)
        assert row["loss_ratio_ci95"] == pytest.approx(hand_ci(losses)[1], rel=1e-9)
    # reno at buffer 60: 3 ok runs, one without a loss value.
    reno_60 = [loss("reno", 60, s) for s in (1, 3)]
    mean, half = hand_ci(reno_60)
    assert f"<td>{mean:.4g} ± {half:.2g} (n=2)</td>" in page
    pooled = pd.read_csv(fake_study_dir / "tables" / "grid-per-algorithm.csv")
    assert list(pooled["algorithm"]) == list(ALGORITHMS) and list(pooled["runs"]) == [6, 5]
    cubic = [throughput("cubic", b, s) for b in BUFFERS for s in ok_seeds("cubic", b)]
    assert pooled["throughput_mbps_ci95"].iloc[1] == pytest.approx(hand_ci(cubic)[1], rel=1e-9)


def test_cell_text():
    assert cell_text(950.234, 3.14159, 3, 3) == "950.2 ± 3.1"
    assert cell_text(0.5, float("nan"), 1, 1) == "0.5"
    assert cell_text(0.5, float("nan"), 1, 3) == "0.5 (n=1)"
    assert cell_text(float("nan"), float("nan"), 0, 3) == "—"


def test_page_header(page):
    assert "<dt>mode</dt><dd>full</dd>" in page
    assert "<dt>runs</dt><dd>12 (11 ok, 1 failed)</dd>" in page
    assert "<dt>seeds used</dt><dd>1, 2, 3</dd>" in page
    assert "<dd>Doe &amp; Roe, &lt;i&gt;Nowhere&lt;/i&gt; 2024</dd>" in page


def test_failed_runs_are_listed_with_their_error(page):
    failed = page[page.index("<h3>Failed runs (1)</h3>") :]
    assert run_key(*FAILED)[:12] in failed
    assert "algorithm = cubic, buffer = 60" in failed
    assert html.escape(ERROR) in failed and ERROR not in page


def test_text_from_the_study_is_escaped(page):
    assert f"<h1>{html.escape(TITLE)}</h1>" in page
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; co</title>" in page
    assert "<script" not in page
    assert "The buffer is &lt;b&gt;not&lt;/b&gt; stated in the original." in page


def test_page_is_self_contained(page):
    sources = re.findall(r"\ssrc='([^']*)'", page)
    assert len(sources) == len(DRAWN) and all(s.startswith("data:image/") for s in sources)
    links = re.findall(r"\shref='([^']*)'", page)
    assert links and all(re.match(r"(#|figures/|tables/)", link) for link in links)
    assert "http" not in re.sub(r"data:[^']*", "", page)
    assert (
        page.count("class='missing'") == 4
    )  # 2 convergence figures, the empty experiment's figure and table


def test_unknown_names_are_refused(study, tmp_path):
    experiment = study.experiments[0]
    with pytest.raises(ValueError, match="'nope' is not a metric"):
        figure_outputs(study, experiment, {"name": "f", "kind": "line", "x": "buffer", "y": "nope"}, tmp_path)
    with pytest.raises(ValueError, match="x = 'rtt' is not a sweep parameter"):
        figure_outputs(study, experiment, {"name": "f", "kind": "heatmap", "x": "rtt"}, tmp_path)
    with pytest.raises(ValueError, match="unknown kind 'pie'"):
        figure_outputs(study, experiment, {"name": "f", "kind": "pie"}, tmp_path)
    with pytest.raises(ValueError, match="row 'rtt'"):
        table_output(study, experiment, {"name": "t", "rows": ["rtt"]}, tmp_path)


def test_figures_saved_on_worker_processes_are_the_same_files_and_page(fake_study_dir, tmp_path):
    import shutil

    from tcpeval.report import build

    outputs = {}
    for workers in (1, 2):
        here = tmp_path / f"workers-{workers}"
        shutil.copytree(
            fake_study_dir, here, ignore=shutil.ignore_patterns("figures", "tables", "report.html")
        )
        outputs[workers] = build(here, workers=workers)
    one, two = (tmp_path / f"workers-{w}" for w in (1, 2))
    files = sorted(p.name for p in (one / "figures").iterdir())
    assert files and files == sorted(p.name for p in (two / "figures").iterdir())
    for name in files:
        assert (one / "figures" / name).read_bytes() == (two / "figures" / name).read_bytes(), name
    assert (one / "report.html").read_text() == (two / "report.html").read_text().replace(
        "workers-2", "workers-1"
    )
    assert [o.name for o in outputs[2].figures["grid"]] == [o.name for o in outputs[1].figures["grid"]]


def test_a_worker_that_fails_to_save_stops_the_report_with_its_error(tmp_path):
    from tcpeval.plots import plot_heatmap
    from tcpeval.report.saving import FigureSaver

    fig = plot_heatmap(np.eye(2), [1, 2], [1, 2], xlabel="x", ylabel="y", colorbar_label="z")
    with pytest.raises(ValueError, match="unsupported figure format"), FigureSaver(workers=2) as saver:
        saver.submit(fig, [tmp_path / "ok.png", tmp_path / "bad.jpg"])
    with pytest.raises(ValueError, match="workers must be at least 1"):
        FigureSaver(workers=0)


def test_scorecard_judges_each_claim_from_the_stored_runs(fake_study_dir, study, page):
    from tcpeval.report.scorecard import scorecard

    card = scorecard(study)
    got = {v.id: (v.verdict, v.measured) for v in card.verdicts}
    # reno, buffer 20: seeds 1-3 give 12, 13.333, 16 (fake_study.throughput): mean 13.78, within 5 % of 14.
    assert got["reno-throughput"] == ("pass", "13.78")
    # CUBIC's mean at buffer 20 (17.78) is above Reno's: the stated order is missed.
    assert got["reno-beats-cubic"] == ("miss", "13.78 > 17.78")
    # buffer 60: CUBIC's two ok seeds (20, 22) over Reno's three (16, 18, 22) = 1.125 >= 1.1.
    assert got["cubic-over-reno"] == ("pass", "21 / 18.67 = 1.125")
    assert got["never-run"] == ("n/a", "no run")
    assert card.summary() == "2 of 4 claims reproduced (1 not measured in this mode)"
    assert not any(v.indicative for v in card.verdicts)
    rows = pd.read_csv(fake_study_dir / "tables" / "scorecard.csv", keep_default_na=False)
    assert list(rows["verdict"]) == ["pass", "miss", "pass", "n/a"]
    # The miss's note ("Made up: ...") names no cause category: the page says so.
    assert list(rows["cause"]) == ["", "", "", ""]
    assert card.misses_by_cause() == {"": 1}
    assert "Misses by cause: 1 with no cause named yet." in page
    assert "no cause named</small>" in page
    assert "2 of 4 claims reproduced" in page
    assert "Reno outperforms &lt;CUBIC&gt;" in page
    assert "<script>" not in page


@pytest.mark.parametrize(
    ("note", "category"),
    [
        ("(c) Tables I/II timeouts: 4 here", "c"),
        ("'Exactly the same' read as within 5 %. (c) Quick mode on 0.10: ...", "c"),
        ("Cause (d), issue 15: not found.", "d"),
        ("Fig. 8(a) and 8(b) differ; nothing else", ""),
        ("Made up: the fake metrics give CUBIC more.", ""),
        ("(e) is no category", ""),
        ("", ""),
    ],
)
def test_a_misses_cause_category_is_read_from_its_note(note, category):
    # docs/scorecard-misses.md's categories (a)-(d), as the notes write them:
    # at the start, mid-note, or after "Cause"; never a figure panel.
    from tcpeval.report.scorecard import cause

    assert cause(note) == category


def test_the_scorecard_counts_misses_by_cause(tmp_path):
    from fake_study import write_fake_study
    from tcpeval.report.scorecard import scorecard, scorecard_html

    results = load_results(write_fake_study(tmp_path / "full"))
    claims = results.spec["claim"]
    miss = next(c for c in claims if c["id"] == "reno-beats-cubic")
    miss["note"] = "Cause (c): the fake metrics give CUBIC more by construction."
    card = scorecard(results)
    assert card.misses_by_cause() == {"c": 1}
    page = scorecard_html(card)
    assert "Misses by cause: 1 a genuine difference whose cause is shown (c)." in page
    assert "title='a genuine difference whose cause is shown'>(c)</small>" in page


def test_an_unfinished_study_says_its_verdicts_come_from_the_runs_stored_so_far(tmp_path):
    # A sweep in progress or interrupted leaves study.json's "finished" empty;
    # a finished one that stored fewer runs than it planned is not complete either.
    import json

    from fake_study import write_fake_study
    from tcpeval.report.page import page_html
    from tcpeval.report.scorecard import scorecard

    directory = write_fake_study(tmp_path / "running")
    meta_path = directory / "study.json"
    meta = json.loads(meta_path.read_text())
    stored = load_results(directory).stored_runs
    for finished, planned, complete in (
        (meta["finished"], stored, True),
        (None, stored, False),
        (meta["finished"], stored + 5, False),
    ):
        meta_path.write_text(json.dumps({**meta, "finished": finished, "planned_runs": planned}))
        study = load_results(directory)
        assert study.complete is complete
        card = scorecard(study)
        assert card.partial is not complete
        assert ("the study has not finished: from the runs stored so far" in card.summary()) is not complete
        assert f"<dd>{stored} of {planned} planned (" in page_html(study, [], "test", card)


def test_scorecard_from_quick_mode_is_marked_indicative(tmp_path):
    from fake_study import write_fake_study
    from tcpeval.report.scorecard import scorecard

    card = scorecard(load_results(write_fake_study(tmp_path / "quick", mode="quick")))
    assert all(v.indicative for v in card.verdicts)
    assert card.summary().endswith("(1 not measured in this mode; quick mode: indicative only)")


def test_a_claim_can_compare_one_metric_across_two_experiments():
    from tcpeval.claims import verdict

    def frame(values):
        return pd.DataFrame(
            {"status": "ok", "algorithm": [a for a, _ in values], "util": [u for _, u in values]}
        )

    frames = {"bg": frame([("bic", 0.6), ("bic", 0.8), ("reno", 0.5)]), "quiet": frame([("bic", 0.95)])}
    claim = {
        "id": "bg-lowers-bic",
        "experiment": "bg",
        "metric": "util",
        "check": "ratio",
        "numerator": {"algorithm": "bic"},
        "denominator": {"experiment": "quiet", "algorithm": "bic"},
        "max": 0.8,
    }
    v = verdict(claim, frames, quick=False)
    assert (v.verdict, v.measured) == ("pass", "0.7 / 0.95 = 0.7368")
    claim["denominator"] = {"experiment": "missing", "algorithm": "bic"}
    assert verdict(claim, frames, quick=False).verdict == "n/a"


def test_a_top_claim_ranks_one_value_against_all_others():
    from tcpeval.claims import verdict

    runs = pd.DataFrame(
        {
            "status": ["ok"] * 6 + ["failed"],
            "algorithm": ["cubic", "cubic", "bic", "reno", "cubic", "reno", "bic"],
            "buffer": [100, 100, 100, 100, 500, 500, 100],
            "thr": [700.0, 720.0, 690.0, 300.0, 650.0, 800.0, 9999.0],
        }
    )
    claim = {
        "id": "c",
        "experiment": "e",
        "metric": "thr",
        "check": "top",
        "among": "algorithm",
        "item": "cubic",
        "where": {"buffer": 100},
    }
    # buffer 100: cubic 710 (mean of two) > bic 690 (the failed run's 9999 left out) > reno 300.
    v = verdict(claim, {"e": runs}, quick=False)
    assert (v.verdict, v.measured) == ("pass", "cubic 710; best other bic 690")
    # buffer 500: reno 800 beats cubic 650 (bic not run there: ranked among what was).
    v = verdict({**claim, "where": {"buffer": 500}}, {"e": runs}, quick=False)
    assert (v.verdict, v.measured) == ("miss", "cubic 650; best other reno 800")
    # lowest: reno has the lowest at 100.
    v = verdict({**claim, "item": "reno", "direction": "lowest"}, {"e": runs}, quick=False)
    assert (v.verdict, v.measured) == ("pass", "reno 300; best other bic 690")
    # The item not run at that point: not measured.
    assert verdict({**claim, "item": "vegas"}, {"e": runs}, quick=False).verdict == "n/a"
    # A group: every member above every other value, in no order among themselves.
    group = {**claim, "item": ["cubic", "bic"]}
    v = verdict(group, {"e": runs}, quick=False)
    assert (v.verdict, v.measured) == ("pass", "cubic 710, bic 690; best other reno 300")
    v = verdict({**group, "where": {"buffer": 500}}, {"e": runs}, quick=False)
    assert v.verdict == "n/a"  # bic not run at 500
    v = verdict({**group, "item": ["bic", "reno"]}, {"e": runs}, quick=False)
    assert (v.verdict, v.measured) == ("miss", "bic 690, reno 300; best other cubic 710")


def traced_run(fake_study_dir):
    """The tables of the run the timeseries and throughput figures show."""
    from fake_study import TRACED
    from tcpeval.store import load_run

    return load_run(fake_study_dir / "runs" / run_key(*TRACED))


def test_aggregate_secondary_axis_links_psd_window_and_marks(figures, fake_study_dir):
    from tcpeval.metrics.runview import run_flow_trace, run_queue_trace

    out = figures["grid-aggregate"]
    cwnd, cwnd_psd, q1, q1_psd, q2, _q2_psd, twin = out.figure.axes
    result = traced_run(fake_study_dir)
    # The aggregate of the one flow "a" is that flow's cwnd; "b" is on the right axis.
    (a_sum, b_enters) = cwnd.lines
    assert a_sum.get_label() == "a: sum of 1 flow"
    t, a = run_flow_trace(result, "a", "cwnd")
    assert list(a_sum.get_xdata()) == list(t) and list(a_sum.get_ydata()) == list(a)
    assert [line.get_label() for line in twin.lines] == ["b (right axis)"]
    assert twin.lines[0].get_xdata()[0] == pytest.approx(1.0)  # b starts at 1 s
    assert twin.get_ylabel() == "cwnd of b (packets)"
    # One queue row per link named; the missing one is noted.
    assert [ax.lines[0].get_label() for ax in (q1, q2)] == ["R1->R2", "R2->R1"]
    _, q = run_queue_trace(result, "R2->R1", "qlen")
    assert list(q2.lines[0].get_ydata()) == list(q)
    assert any("'R9->R9'" in n for n in out.notes)
    # Time plots over the whole run, spectra over psd_window [1, 2] s: bins of 1 Hz.
    assert min(q1.lines[0].get_xdata()) == 0.0
    assert q1_psd.lines[0].get_xdata()[0] == pytest.approx(1.0)
    assert out.figure.get_suptitle().startswith("aggregate, spectra over [1, 2] s")
    # The mark in the run is drawn and named; the one after it is left out with a note.
    assert list(b_enters.get_xdata()) == [1.0, 1.0]
    assert "b enters" in [t.get_text() for t in twin.get_legend().get_texts()]
    assert any("'after the run' at 7 s is outside" in n for n in out.notes)
    assert [t.get_text() for t in cwnd_psd.get_legend().get_texts()] == ["five hertz"]


def test_throughput_figure_bins_goodput_and_shares_the_data(figures, fake_study_dir):
    from tcpeval.metrics.runview import run_flow_trace

    out = figures["grid-goodput"]
    top, bottom = out.figure.axes
    a, b, mark = top.lines
    assert (a.get_label(), b.get_label(), mark.get_label()) == ("a", "b", "b enters")
    assert top.get_ylabel() == "goodput per 0.25 s (Mbit/s)"
    assert list(a.get_xdata()) == pytest.approx([0.25 * k for k in range(9)])  # 8 intervals of 2 s
    result = traced_run(fake_study_dir)
    t, delivered = run_flow_trace(result, "a", "delivered")
    in_second = (np.interp(1.25, t, delivered) - np.interp(1.0, t, delivered)) * 8 / 0.25 / 1e6
    assert a.get_ydata()[4] == pytest.approx(in_second)
    assert list(b.get_ydata()[:4]) == [0, 0, 0, 0]  # b has not started
    share_a, share_b = bottom.lines[:2]
    assert np.allclose(share_a.get_ydata() + share_b.get_ydata(), 1.0)
    total_a = np.interp(2.0, t, delivered)
    tb, db = run_flow_trace(result, "b", "delivered")
    assert share_a.get_ydata()[-1] == pytest.approx(total_a / (total_a + np.interp(2.0, tb, db)))


def test_summed_series_counts_a_flow_absent_at_a_time_as_zero():
    from tcpeval.report.traces import summed_series

    early = (np.array([0.0, 0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0, 4.0]))
    late = (np.array([0.2, 0.3, 0.4]) + 1e-12, np.array([10.0, 20.0, 30.0]))  # same grid, round-off
    t, total = summed_series([early, late])
    assert list(t) == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    assert list(total) == [1.0, 2.0, 13.0, 24.0, 30.0]
    assert [a.size for a in summed_series([])] == [0, 0]


def test_cumulative_shares_and_goodput_bins():
    from tcpeval.report.traces import cumulative_shares, goodput_bins

    shares = cumulative_shares({"x": np.array([0.0, 3.0, 6.0]), "y": np.array([0.0, 1.0, 6.0])})
    assert np.isnan(shares["x"][0]) and list(shares["x"][1:]) == [0.75, 0.5]
    assert list(shares["y"][1:]) == [0.25, 0.5]
    # 125 000 bytes per s = 1 Mbit/s; the flow starts at 1 s (held at 0 before).
    t = np.array([1.0, 2.0, 3.0])
    begin, mbps = goodput_bins(t, np.array([0.0, 125_000.0, 250_000.0]), 1.0, 0.0, 3.0)
    assert list(begin) == [0.0, 1.0, 2.0] and list(mbps) == pytest.approx([0.0, 1.0, 1.0])


def test_time_marks_move_with_the_quick_mode_time_axis() -> None:
    # Marks are times of the full run; a quick run is the full one shrunk by
    # quick.duration_scale, so a mark at 333 s lands at 83.25 s at 0.25.
    from types import SimpleNamespace

    from tcpeval.report.figures import _marks

    spec = {"marks": [{"x": 333, "label": "C, D start"}], "freq_marks": [{"hz": 0.5, "label": "f"}]}
    for scale, at in ((1.0, 333.0), (0.25, 83.25)):
        ctx = SimpleNamespace(
            spec=spec, experiment={}, study=SimpleNamespace(time_scale=lambda _e, s=scale: s)
        )
        notes: list[str] = []
        (mark,) = _marks(ctx, "marks", "x", 0.0, 1000.0, "s", notes)
        assert (mark.at, mark.label, notes) == (at, "C, D start", [])
        (fmark,) = _marks(ctx, "freq_marks", "hz", 0.0, 10.0, "Hz", notes)
        assert fmark.at == 0.5  # frequencies do not scale


def test_figure_windows_move_with_the_quick_mode_time_axis() -> None:
    # A figure's window and psd_window are written for the full run, like the
    # metrics' windows: a quick run at 0.2 shows [135, 1200] s as [27, 240] s.
    from types import SimpleNamespace

    from tcpeval.report.figures import _window

    spec = {"window": [135, 1200], "psd_window": [300, 600]}
    for scale, window, psd in ((1.0, (135.0, 1200.0), (300.0, 600.0)), (0.2, (27.0, 240.0), (60.0, 120.0))):
        ctx = SimpleNamespace(
            spec=spec, experiment={}, study=SimpleNamespace(time_scale=lambda _e, s=scale: s)
        )
        assert _window(ctx, "window") == pytest.approx(window)
        assert _window(ctx, "psd_window") == pytest.approx(psd)
    assert _window(SimpleNamespace(spec={}, experiment={}, study=None), "window") is None
