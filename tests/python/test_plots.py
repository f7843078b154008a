"""Every plot renders without a warning, has the expected artists, and saves by extension."""

import warnings

import numpy as np
import pytest
from matplotlib.collections import PolyCollection, QuadMesh
from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from tcpeval.metrics.stats import mean_ci
from tcpeval.plots import (
    Mark,
    Traces,
    plot_goodput,
    plot_heatmap,
    plot_metric_curves,
    plot_phase_bars,
    plot_timeseries_psd,
    save_figure,
    save_formats,
)
from tcpeval.plots._figure import marker_indices

RTTS = [15, 30, 60, 120, 240, 480]


@pytest.fixture(autouse=True)
def warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def render(fig: Figure) -> Figure:
    fig.canvas.draw()
    return fig


def traces():
    t = np.arange(6000) / 100.0
    cwnd = Traces(
        "cwnd (packets)",
        t,
        {
            "flow 1": 50 + 10 * ((t % 2.5) / 2.5),
            "flow 2": 80 + 5 * np.sin(2 * np.pi * 0.25 * t),
        },
    )
    queue = Traces("queue (packets)", t, {"bottleneck": 40 + 30 * ((t % 2.5) / 2.5)})
    return [cwnd, queue]


@pytest.mark.parametrize("method", ["periodogram", "welch"])
def test_timeseries_with_psd(method):
    fig = render(plot_timeseries_psd(traces(), method=method, t_start=10.0, max_frequency=20.0))
    assert len(fig.axes) == 4
    # Left: one line per series; right: one PSD line and one peak marker per series.
    assert [len(ax.lines) for ax in fig.axes] == [2, 4, 1, 2]
    assert fig.axes[0].lines[0].get_xdata()[0] == pytest.approx(10.0)
    assert fig.axes[1].get_yscale() == "log"
    assert fig.axes[1].get_ylabel() == "PSD (packets$^2$/Hz)"
    # Every row names its series, the lone queue too.
    legends = [[t.get_text() for t in fig.axes[i].get_legend().get_texts()] for i in (0, 2)]
    assert legends == [["flow 1", "flow 2"], ["bottleneck"]]
    peak_marker = fig.axes[3].lines[1]
    assert peak_marker.get_xdata()[0] == pytest.approx(0.4, abs=0.02)


def test_timeseries_flat_series_keeps_linear_psd_axis():
    t = np.arange(1000) / 100.0
    fig = render(plot_timeseries_psd([Traces("cwnd", t, {"idle": np.full(t.size, 2.0)})]))
    assert len(fig.axes) == 2
    assert [len(ax.lines) for ax in fig.axes] == [1, 1]
    assert fig.axes[1].get_yscale() == "linear"
    assert fig.axes[1].get_ylabel() == "PSD (unit$^2$/Hz)"


def test_metric_curves_with_bands():
    rng = np.random.default_rng(7)
    samples = {
        "reno": 0.8 + rng.normal(0, 0.02, (6, 5)),
        "cubic": 0.9 + rng.normal(0, 0.02, (6, 5)),
    }
    fig = render(plot_metric_curves(RTTS, samples, xlabel="RTT (ms)", ylabel="utilization", logx=True))
    (ax,) = fig.axes
    assert len(ax.lines) == 2
    assert len([c for c in ax.collections if isinstance(c, PolyCollection)]) == 2
    np.testing.assert_allclose(ax.lines[0].get_ydata(), samples["reno"].mean(axis=1))


def test_metric_curves_label_at_most_six_log_x_ticks():
    # A loss sweep of nine values over four decades: every other value is
    # labelled (9 labels would overlap on a 3.5-inch axis); all keep a tick.
    losses = [1e-8, 3e-8, 1e-7, 3e-7, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4]
    curve = {"reno": np.linspace(1, 0.1, 9)}
    fig = render(plot_metric_curves(losses, curve, xlabel="loss", ylabel="u", logx=True))
    (ax,) = fig.axes
    np.testing.assert_allclose(ax.get_xticks(), losses)
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["1e-08", "", "1e-07", "", "1e-06", "", "1e-05", "", "0.0001"]
    # Six RTTs are all labelled.
    curve = {"reno": np.linspace(0.5, 1, 6)}
    fig = render(plot_metric_curves(RTTS, curve, xlabel="x", ylabel="y", logx=True))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == [f"{v}" for v in RTTS]


def test_metric_curves_single_replication():
    fig = render(plot_metric_curves(RTTS, {"reno": np.linspace(0.5, 1, 6)}, xlabel="x", ylabel="y"))
    (ax,) = fig.axes
    assert len(ax.lines) == 1 and len(ax.collections) == 1


def test_metric_curves_leave_missing_replications_out():
    samples = np.array([[1.0, 2.0, 3.0], [4.0, np.nan, 6.0], [np.nan, np.nan, 9.0], [np.nan] * 3])
    fig = render(plot_metric_curves([1, 2, 3, 4], {"a": samples}, xlabel="x", ylabel="y"))
    (ax,) = fig.axes
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [2.0, 5.0, 9.0, np.nan])
    (band,) = [c for c in ax.collections if isinstance(c, PolyCollection)]
    top = band.get_paths()[0].vertices[:, 1].max()
    assert top == pytest.approx(5.0 + mean_ci([4.0, 6.0]).half_width)


def test_phase_bars_with_error_bars():
    rng = np.random.default_rng(1)
    samples = rng.uniform(50, 100, (2, 3, 4))
    fig = render(plot_phase_bars(samples, ["A", "B"], ["I", "II", "III"], ylabel="goodput (Mbit/s)"))
    (ax,) = fig.axes
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 2 and len(ax.patches) == 6
    np.testing.assert_allclose([p.get_height() for p in bars[1]], samples[1].mean(axis=-1))
    errors = bars[0].errorbar.lines[2][0].get_segments()
    half = mean_ci(samples[0]).half_width
    np.testing.assert_allclose([seg[1, 1] - seg[0, 1] for seg in errors], 2 * half)


def test_phase_bars_take_tick_labels_and_a_log_axis():
    samples = np.array([[1e-4, 1e-3], [1e-2, 1e-1]])
    fig = render(plot_phase_bars(samples, ["a", "b"], ["[0, 333) s", "[333, 666) s"], ylabel="y", logy=True))
    (ax,) = fig.axes
    assert ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["[0, 333) s", "[333, 666) s"]
    lo, hi = ax.get_ylim()
    assert lo <= 1e-4 and hi >= 1e-1  # four decades shown


def test_phase_bars_single_run_has_no_error_bars():
    fig = render(plot_phase_bars(np.ones((3, 2)), ["a", "b", "c"], ["p", "q"], ylabel="y"))
    bars = [c for c in fig.axes[0].containers if isinstance(c, BarContainer)]
    assert len(bars) == 3 and all(b.errorbar is None for b in bars)


def test_phase_bars_leave_missing_replications_out():
    samples = np.array([[[10.0, 20.0, np.nan], [5.0, np.nan, np.nan]]])
    fig = render(plot_phase_bars(samples, ["a"], ["p", "q"], ylabel="y"))
    (bars,) = [c for c in fig.axes[0].containers if isinstance(c, BarContainer)]
    assert [p.get_height() for p in bars] == [15.0, 5.0]
    (segment, _) = bars.errorbar.lines[2][0].get_segments()
    assert segment[1, 1] - segment[0, 1] == pytest.approx(2 * mean_ci([10.0, 20.0]).half_width)


def test_heatmap_annotates_finite_cells():
    values = np.linspace(0.1, 1.0, 36).reshape(6, 6)
    values[0, 0] = np.nan
    fig = render(
        plot_heatmap(
            values,
            RTTS,
            RTTS,
            xlabel="RTT1 (ms)",
            ylabel="RTT2 (ms)",
            colorbar_label="utilization",
        )
    )
    assert len(fig.axes) == 2  # heat map and colorbar
    ax = fig.axes[0]
    assert len([c for c in ax.collections if isinstance(c, QuadMesh)]) == 1
    assert len(ax.texts) == 35
    assert ax.texts[-1].get_text() == "1.00"
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(v) for v in RTTS]


@pytest.mark.parametrize(("suffix", "magic"), [(".png", b"\x89PNG"), (".pdf", b"%PDF"), (".svg", b"<?xml")])
def test_saved_in_the_format_of_the_extension(tmp_path, suffix, magic):
    path = tmp_path / f"figure{suffix}"
    plot_heatmap(np.eye(2), [1, 2], [1, 2], xlabel="x", ylabel="y", colorbar_label="z", path=path)
    assert path.read_bytes().startswith(magic)


def test_save_formats_lays_out_once_and_keeps_the_constrained_layout(tmp_path):
    fig = plot_timeseries_psd(traces(), t_start=10.0)
    save_figure(fig, tmp_path / "single.png")  # constrained layout, computed while saving
    constrained = [ax.get_position().bounds for ax in fig.axes]
    paths = [tmp_path / f"f.{ext}" for ext in ("png", "svg", "pdf")]
    save_formats(fig, paths)
    assert [p.read_bytes()[:4] for p in paths] == [b"\x89PNG", b"<?xm", b"%PDF"]
    assert type(fig.get_layout_engine()).__name__ in ("NoneType", "PlaceHolderLayoutEngine")
    np.testing.assert_allclose([ax.get_position().bounds for ax in fig.axes], constrained, rtol=1e-9)


def test_save_formats_draws_each_file_once_and_writes_the_png_a_single_save_writes(tmp_path, monkeypatch):
    # One drawing lays the figure out and measures it, then one per file;
    # a save cropped to "tight" would draw twice per file.
    single = plot_timeseries_psd(traces(), t_start=10.0)
    save_figure(single, tmp_path / "single.png")
    fig = plot_timeseries_psd(traces(), t_start=10.0)
    draws = 0
    draw = fig.draw

    def counted(renderer):
        nonlocal draws
        draws += 1
        draw(renderer)

    monkeypatch.setattr(fig, "draw", counted)
    paths = [tmp_path / f"f.{ext}" for ext in ("png", "svg", "pdf")]
    save_formats(fig, paths)
    assert draws == 1 + len(paths)
    assert paths[0].read_bytes() == (tmp_path / "single.png").read_bytes()


def test_unknown_extension_and_bad_shapes_are_refused(tmp_path):
    with pytest.raises(ValueError, match="format"):
        plot_phase_bars(np.ones((1, 1)), ["a"], ["p"], ylabel="y", path=tmp_path / "f.jpg")
    with pytest.raises(ValueError, match="shape"):
        plot_heatmap(np.ones((2, 3)), [1, 2], [1, 2], xlabel="x", ylabel="y", colorbar_label="z")
    with pytest.raises(ValueError, match="points"):
        plot_metric_curves([1, 2], {"a": [1, 2, 3]}, xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match="method"):
        plot_timeseries_psd(traces(), method="fft")


def test_envelope_keeps_each_slices_lowest_and_highest_sample_in_time_order():
    from tcpeval.plots.timeseries import envelope

    rng = np.random.default_rng(7)
    t = np.arange(10_007) * 0.01
    v = rng.normal(size=t.size)
    v[5000:5003] = np.nan
    et, ev = envelope(t, v, buckets=100)
    assert np.all(np.diff(et) > 0)  # time order, no repeats
    size = -(-t.size // 100)  # 101 samples per slice
    for start in range(0, t.size, size):
        chunk = v[start : start + size]
        inside = (et >= t[start]) & (et <= t[min(start + size, t.size) - 1])
        assert np.nanmin(chunk) in ev[inside] and np.nanmax(chunk) in ev[inside]
    assert ev.size <= 200 and not np.isnan(ev).any()
    short_t, short_v = envelope(t[:200], v[:200], buckets=100)
    assert np.array_equal(short_t, t[:200])
    assert np.array_equal(short_v, v[:200])


def test_long_series_is_drawn_as_its_envelope_and_its_psd_from_every_sample():
    from tcpeval.plots.timeseries import ENVELOPE_BUCKETS

    t = np.arange(100_000) / 100.0
    saw = 50 + 10 * ((t % 2.5) / 2.5)
    fig = plot_timeseries_psd([Traces("cwnd (packets)", t, {"f": saw})])
    drawn = fig.axes[0].lines[0].get_ydata()
    assert len(drawn) <= 2 * ENVELOPE_BUCKETS
    assert drawn.min() == saw.min() and drawn.max() == saw.max()
    assert fig.axes[1].lines[1].get_xdata()[0] == pytest.approx(0.4, abs=1e-3)  # 1 / 2.5 s


def test_saving_the_same_figure_twice_gives_the_same_bytes(tmp_path):
    for ext in ("png", "svg", "pdf"):
        first, second = (tmp_path / f"{name}.{ext}" for name in ("first", "second"))
        save_figure(plot_timeseries_psd(traces()), first)
        save_figure(plot_timeseries_psd(traces()), second)
        assert first.read_bytes() == second.read_bytes(), ext


def ramp_then_sawtooth():
    """100 s at 100 Hz: a slow-start ramp to 20 s, then a 2.5 s sawtooth (0.4 Hz)."""
    t = np.arange(10000) / 100.0
    return t, np.where(t < 20, 5 * t, 60 + 40 * ((t % 2.5) / 2.5))


def test_psd_window_spectrum_of_the_equilibrium_beside_the_whole_run():
    t, cwnd = ramp_then_sawtooth()
    fig = render(plot_timeseries_psd([Traces("cwnd (packets)", t, {"f": cwnd})], psd_window=(20.0, 100.0)))
    left, right = fig.axes
    assert left.lines[0].get_xdata()[0] == 0.0  # the time plot keeps the ramp
    psd_line, peak = right.lines
    # The spectrum of [20, 100) s alone: bins of 1/80 Hz, the first shown is 1/T.
    assert psd_line.get_xdata()[0] == pytest.approx(1 / 80)
    assert peak.get_xdata()[0] == pytest.approx(0.4)
    # Over the whole run the ramp dominates the low bins: another spectrum.
    whole = render(plot_timeseries_psd([Traces("cwnd (packets)", t, {"f": cwnd})]))
    assert whole.axes[1].lines[0].get_xdata()[0] == pytest.approx(1 / 100)


def test_series_with_their_own_times_and_a_secondary_axis_share_a_row():
    t, cwnd = ramp_then_sawtooth()
    late_t = t[t >= 50]
    row = Traces(
        "cwnd (packets)",
        t,
        {"ten: sum of 10 flows": 10 * cwnd, "late": cwnd[t >= 50]},
        times={"late": late_t},
        secondary=["late"],
        secondary_label="cwnd of late (packets)",
    )
    fig = render(plot_timeseries_psd([row], psd_window=(50.0, 100.0)))
    left, right, twin = fig.axes
    assert [line.get_label() for line in left.lines] == ["ten: sum of 10 flows"]
    assert [line.get_label() for line in twin.lines] == ["late (right axis)"]
    assert twin.lines[0].get_xdata()[0] == 50.0
    assert twin.get_ylabel() == "cwnd of late (packets)" and left.get_ylabel() == "cwnd (packets)"
    legend = [t.get_text() for t in twin.get_legend().get_texts()]
    assert legend == ["ten: sum of 10 flows", "late (right axis)"]
    # Each series its colour, dash and marker, in the time plot and the spectrum.
    ten, late = left.lines[0], twin.lines[0]
    assert ten.get_color() != late.get_color()
    assert ten.get_linestyle() != late.get_linestyle() and ten.get_marker() != late.get_marker()
    assert [line.get_color() for line in right.lines[::2]] == [ten.get_color(), late.get_color()]


def test_marks_on_time_axes_and_freq_marks_on_spectra_are_labelled():
    rows = traces()
    fig = render(
        plot_timeseries_psd(
            rows,
            marks=[Mark(26.05, "t_sat, eq. (5)"), Mark(500.0, "beyond the run")],
            freq_marks=[Mark(0.4, "cycle, sec. 5.2")],
        )
    )
    cwnd_ax, cwnd_psd, queue_ax, queue_psd = fig.axes
    for ax in (cwnd_ax, queue_ax):
        (_mark,) = [line for line in ax.lines if list(line.get_xdata()) == [26.05, 26.05]]  # exactly one
    assert max(cwnd_ax.get_xlim()) < 100  # the mark beyond the run is left out
    legend = [x.get_text() for x in cwnd_ax.get_legend().get_texts()]
    assert legend == ["flow 1", "flow 2", "t_sat, eq. (5)"]
    assert [x.get_text() for x in queue_ax.get_legend().get_texts()] == ["bottleneck"]  # once
    assert [x.get_text() for x in cwnd_psd.get_legend().get_texts()] == ["cycle, sec. 5.2"]
    assert any(list(line.get_xdata()) == [0.4, 0.4] for line in queue_psd.lines)


def test_goodput_steps_and_cumulative_shares():
    begin = np.arange(10.0)
    goodput = {"first": np.full(10, 800.0), "second": np.r_[np.zeros(5), np.full(5, 200.0)]}
    shares = {"first": np.full(10, 0.9), "second": np.full(10, 0.1)}
    fig = render(plot_goodput(begin, 1.0, goodput, shares=shares, marks=[Mark(5.0, "second enters")]))
    top, bottom = fig.axes
    first, second, mark = top.lines
    assert list(first.get_xdata()) == list(range(11)) and first.get_drawstyle() == "steps-post"
    assert list(second.get_ydata()[:6]) == [0, 0, 0, 0, 0, 200]
    assert first.get_linestyle() != second.get_linestyle() and first.get_marker() != second.get_marker()
    assert top.get_ylabel() == "goodput (Mbit/s)" and bottom.get_xlabel() == "time (s)"
    assert bottom.get_ylim() == (0, 1) and "fraction" in bottom.get_ylabel()
    assert list(bottom.lines[0].get_xdata()) == list(range(1, 11))  # at each interval's end
    assert [t.get_text() for t in top.get_legend().get_texts()] == ["first", "second", "second enters"]
    assert list(mark.get_xdata()) == [5.0, 5.0]
    assert len(render(plot_goodput(begin, 1.0, goodput)).axes) == 1


def test_marker_indices_spread_evenly_and_apart_per_series():
    x = np.linspace(0, 100, 10001)
    a, b = marker_indices(x, 0), marker_indices(x, 1)
    assert len(a) == 10 and not set(a) & set(b)
    assert np.allclose(np.diff(x[a]), 10.0, atol=0.02)
    f = np.geomspace(0.01, 100, 1000)
    logs = np.log10(f[marker_indices(f, 0, log=True)])
    assert np.allclose(np.diff(logs), 0.4, atol=0.01)  # 4 decades, 10 markers


def test_metric_curves_differ_by_line_style_and_marker_not_colour_alone() -> None:
    from tcpeval.plots.curves import plot_metric_curves

    fig = plot_metric_curves(
        [1, 2, 3], {"a": [1, 2, 3], "b": [2, 3, 4], "c": [3, 4, 5]}, xlabel="x (s)", ylabel="y (s)"
    )
    lines = fig.axes[0].get_lines()
    styles = {(ln.get_linestyle(), ln.get_marker()) for ln in lines}
    assert len(styles) == 3
