"""``tcpeval validate``: one scenario on the simulator and on the host's
kernel (``--reps`` times), side by side.

The simulator is matched to the kernel's wire format: Linux sends a
1448-byte MSS (timestamps on) in 1514-byte frames that htb counts whole,
so the simulated run gets ``packet_size = 1488`` (its MSS is then 1448)
and a bottleneck rate scaled by 1488/1514 (a byte buffer too), which
serves the same packets per second as the kernel's link; a buffer given in
packets or BDP gets the kernel's packet count (the BDP resolved once, at
the scenario's packet size, as the testbed does); its platform is
``linux`` unless the scenario names one.

Compared per run: goodput per flow, bottleneck drops, window reductions
and their period (the loss cycle: the mean interval between reductions
after the first, from :data:`MIN_CYCLES` intervals on, so that the two
reductions of a slow-start overflow do not pass for a cycle) from each
flow's ssthresh and retransmission series,
cwnd at the first reduction, the mean queue, and the bottleneck's drop
episodes: how many, how many an emulation stall brought forward
(:func:`drop_episodes`), and the loss cycle between the undisturbed ones.
Kernel values: mean and sample standard deviation over the repetitions.
"""

from __future__ import annotations

import copy
import html
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from tcpeval.result import RunResult
from tcpeval.scenario import Scenario, load_scenario
from tcpeval.testbed.plan import plan

#: Linux's MSS with TCP timestamps, and the frame htb counts for it, bytes.
LINUX_MSS = 1448
LINUX_FRAME = 1514
#: The simulator's packet size that gives Linux's MSS (its headers: 40 bytes).
SIM_PACKET = LINUX_MSS + 40
#: Intervals between window reductions needed for a loss-cycle period.
MIN_CYCLES = 3


def matched_scenario(sc: Scenario) -> Scenario:
    """``sc`` for the simulator, matched to the kernel (see the module doc)."""
    data = copy.deepcopy(sc.data)
    data["packet_size"] = SIM_PACKET
    if data.get("platform") is None:
        data["platform"] = "linux"
    b = data["topology"]["bottleneck"]
    b["rate_mbps"] = b["rate_mbps"] * SIM_PACKET / LINUX_FRAME
    if "bytes" in b["buffer"]:
        b["buffer"] = {"bytes": round(b["buffer"]["bytes"] * SIM_PACKET / LINUX_FRAME)}
    else:
        b["buffer"] = {"packets": plan(sc).bottleneck.buffer_pkts}
    return load_scenario(data)


#: Seconds without a retransmission after which the next one starts a new
#: loss episode: longer than one recovery at the validation set's RTTs
#: (100 ms plus at most a BDP of queue), shorter than any loss cycle there.
EPISODE_GAP_S = 1.0


def reductions(r: RunResult, flow: int) -> pd.Series:
    """Times (s) of flow ``flow``'s window reductions as the probe saw them:
    each change of its ssthresh, and each loss episode that left ssthresh
    where it was (a periodic Reno sets the same ssthresh every cycle, which
    a sampled series cannot tell from no change). An episode starts with a
    retransmission after :data:`EPISODE_GAP_S` without one; it counts only
    if no ssthresh change lies within that gap of it."""
    f = r.flow_series[r.flow_series["flow"] == flow]
    t = f["time"].to_numpy()
    ss = f["ssthresh"].to_numpy()
    changes = t[np.flatnonzero(ss[1:] != ss[:-1]) + 1]
    retx = f["retransmitted"].to_numpy() if "retransmitted" in f else np.zeros(len(f))
    rising = t[np.flatnonzero(retx[1:] > retx[:-1]) + 1]
    starts = rising[np.diff(rising, prepend=-np.inf) >= EPISODE_GAP_S]
    alone = [e for e in starts if not np.any(np.abs(changes - e) < EPISODE_GAP_S)]
    return pd.Series(np.sort(np.concatenate([changes, alone])), dtype=float)


def loss_cycle(reductions_s: pd.Series) -> float:
    """Mean interval (s) between window reductions after the first
    interval; NaN below :data:`MIN_CYCLES` intervals in all. The first is
    left out because a slow-start overflow often ends in two reductions a
    fraction of a second apart (a recovery and a second loss). The mean,
    not the median: CUBIC's fast convergence alternates long and short
    cycles."""
    gaps = np.diff(reductions_s.to_numpy())
    return float(gaps[1:].mean()) if len(gaps) >= MIN_CYCLES else math.nan


#: A drop episode at the bottleneck is *disturbed* when, just before its
#: first drop, the forward flows' packets outside the queue (their summed
#: cwnd minus the bottleneck queue, the "pipe") fell below the run's
#: median by more than this share of the buffer. While cwnd-limited flows
#: grow steadily the pipe stays at the path's BDP (the simulator's varies
#: by a packet); a link or delay-line stall empties part of the pipe into
#: the queue (or releases a held ACK clock as a burst into it), so the
#: buffer overflows that many packets early, at that much smaller a cwnd.
DISTURBED_DIP = 0.01


def _forward_flows(r: RunResult) -> list[int]:
    """Indices of the flows that send through the forward bottleneck."""
    specs = r.scenario.data["flows"]
    return [
        int(i)
        for i, spec in zip(r.flows["flow"], r.flows["spec"], strict=True)
        if specs[int(spec)].get("direction", "forward") == "forward"
    ]


def pipe_series(r: RunResult) -> pd.Series:
    """The forward flows' summed cwnd minus the forward bottleneck's queue,
    packets, indexed by the probe times both series share."""
    f = r.flow_series[r.flow_series["flow"].isin(_forward_flows(r))]
    q = r.queue_series[r.queue_series["link"] == 0].set_index("time")["qlen"]
    return (f.groupby("time")["cwnd"].sum() - q).dropna()


def lookback_s(r: RunResult) -> float:
    """How far before a drop episode its cause is looked for, s: one
    largest base RTT (a stall's burst reaches the queue within it) plus two
    queue-probe periods (the drop lies within the period before its sample)."""
    return float(r.flows["base_rtt"].max()) + 2 * r.scenario.data["probes"]["queue_period_ms"] / 1e3


def drop_episodes(r: RunResult) -> pd.DataFrame:
    """The bottleneck's (link 0's) drop episodes, from the queue probe.

    One row per episode: ``time`` (s, the sample at which the drop counter
    first rose; the drop lies within the probe period before it), ``drops``
    (in the episode), ``pipe_dip`` (packets: the run's median pipe after
    the first episode minus the lowest pipe within one largest base RTT
    plus two probe periods before the episode, see :data:`DISTURBED_DIP`)
    and ``disturbed``. An episode ends when :data:`EPISODE_GAP_S` pass
    without a drop."""
    q = r.queue_series[r.queue_series["link"] == 0]
    cols = ["time", "drops", "pipe_dip", "disturbed"]
    t = q["time"].to_numpy()
    d = q["drops"].to_numpy()
    rise = np.flatnonzero(d[1:] > d[:-1]) + 1
    if not len(rise):
        return pd.DataFrame(columns=cols)
    first = rise[np.diff(t[rise], prepend=-np.inf) >= EPISODE_GAP_S]
    ends = np.append(first[1:], len(t))
    pipe = pipe_series(r)
    after = pipe[pipe.index > t[first[0]]]
    median = float(after.median()) if len(after) else math.nan
    window = lookback_s(r)
    buffer = float(r.links["buffer"].iloc[0])
    rows = []
    for i, nxt in zip(first, ends, strict=True):
        last = rise[(rise >= i) & (rise < nxt)].max()
        w = pipe[(pipe.index >= t[i] - window) & (pipe.index <= t[i])]
        dip = max(0.0, median - float(w.min())) if len(w) else math.nan
        rows.append({"time": float(t[i]), "drops": float(d[last] - d[i - 1]), "pipe_dip": dip,
                     "disturbed": bool(dip > DISTURBED_DIP * buffer)})  # fmt: skip
    return pd.DataFrame(rows, columns=cols)


def undisturbed_cycle(episodes: pd.DataFrame) -> float:
    """Mean interval (s) between consecutive drop episodes after the first
    (slow start's) where neither is disturbed: the loss cycle of the flows'
    own growth, with the cycles a stall cut short left out; NaN without one.
    The gap from the first episode is left out as :func:`loss_cycle` leaves
    out its first: a kernel's slow-start overflow can end in a second
    episode a few seconds later (seen: 4.0 s, Reno at 50 Mbit/s), which is
    no cycle."""
    e = episodes.iloc[1:]
    t, bad = e["time"].to_numpy(), e["disturbed"].to_numpy(dtype=bool)
    gaps = [b - a for a, b, x, y in zip(t, t[1:], bad, bad[1:], strict=False) if not x and not y]
    return float(np.mean(gaps)) if gaps else math.nan


def late_spells(r: RunResult) -> pd.DataFrame:
    """The delay line's stalls in a linux run (``at_s``, ``worst_us``,
    ``frames``, ``direction``); empty for a simulated run."""
    wire = r.backend.get("delay_line") or {}
    rows = [
        {**s, "direction": d}
        for d in ("to_hosts", "to_router")
        for s in (wire.get(d) or {}).get("late_spells", [])
    ]
    return pd.DataFrame(rows, columns=["at_s", "worst_us", "frames", "direction"])


def stall_before(spells: pd.DataFrame, t: float, window_s: float) -> pd.Series | None:
    """The worst stall that began within ``window_s`` before ``t`` (s), or None."""
    w = spells[(spells["at_s"] <= t) & (spells["at_s"] >= t - window_s)]
    return None if w.empty else w.iloc[int(w["worst_us"].to_numpy().argmax())]


def run_metrics(r: RunResult) -> dict[str, float]:
    """The compared numbers of one run (flow-indexed names for per-flow ones)."""
    out: dict[str, float] = {}
    goodput = r.summary()["goodput_mbps"].to_numpy()
    for i in range(len(r.flows)):
        out[f"goodput_mbps[{i}]"] = float(goodput[i])
        red = reductions(r, i)
        out[f"window_reductions[{i}]"] = float(len(red))
        out[f"loss_cycle_s[{i}]"] = loss_cycle(red)
        f = r.flow_series[r.flow_series["flow"] == i]
        if len(red):
            before = f[f["time"] < red.iloc[0]]
            out[f"cwnd_at_first_reduction[{i}]"] = float(before["cwnd"].iloc[-1]) if len(before) else math.nan
        else:
            out[f"cwnd_at_first_reduction[{i}]"] = math.nan
    out["drops"] = float(r.links["drops"].loc[0])
    ep = drop_episodes(r)
    out["drop_episodes"] = float(len(ep))
    out["disturbed_drop_episodes"] = float(ep["disturbed"].iloc[1:].sum()) if len(ep) > 1 else 0.0
    out["loss_cycle_undisturbed_s"] = undisturbed_cycle(ep)
    q = r.queue_series[r.queue_series["link"] == 0]
    out["mean_queue_pkts"] = float(q["qlen"].mean()) if len(q) else math.nan
    return out


@dataclass
class Validation:
    """Both backends' runs and their comparison."""

    scenario: Scenario
    sim: RunResult
    kernel: list[RunResult]

    def table(self) -> pd.DataFrame:
        """metric, sim, kernel_mean, kernel_sd, diff_pct (sim vs kernel mean)."""
        s = run_metrics(self.sim)
        k = pd.DataFrame([run_metrics(r) for r in self.kernel])
        rows = []
        for m, v in s.items():
            col = k[m] if m in k else pd.Series(dtype=float)
            mean = float(col.mean())
            sd = float(col.std(ddof=1)) if len(col) > 1 else math.nan
            diff = (v - mean) / mean * 100 if mean and not math.isnan(mean) else math.nan
            rows.append({"metric": m, "sim": v, "kernel_mean": mean, "kernel_sd": sd, "diff_pct": diff})
        return pd.DataFrame(rows)


def stored_kernel_runs(out: Path, sc: Scenario) -> list[RunResult]:
    """The kernel runs a previous ``write_report`` stored under ``out/runs``
    (``kernel-1``, ``kernel-2`` ...); :class:`ValueError` if there are none
    or one is of another scenario (its hash differs)."""
    from tcpeval.store import load_run

    dirs = sorted((out / "runs").glob("kernel-*"), key=lambda d: int(d.name.split("-")[1]))
    if not dirs:
        raise ValueError(f"--reuse-kernel: no stored kernel runs in {out / 'runs'}")
    runs = [load_run(d) for d in dirs]
    for d, r in zip(dirs, runs, strict=True):
        if r.scenario.hash != sc.hash:
            raise ValueError(
                f"--reuse-kernel: {d} is a run of another scenario (hash {r.scenario.hash[:12]}, not {sc.hash[:12]})"
            )
    return runs


def validate(
    scenario: str | Path | Scenario,
    reps: int,
    *,
    progress: bool | None = None,
    run_kernel: Callable[..., RunResult] | None = None,
    kernel_runs: list[RunResult] | None = None,
) -> Validation:
    """Runs ``scenario`` once on the matched simulator and ``reps`` times on
    the kernel (or takes ``kernel_runs``, already run)."""
    from tcpeval.simulate import run
    from tcpeval.testbed.run import run_linux

    if reps < 1:
        raise ValueError(f"--reps: {reps} is not a number of repetitions >= 1")
    sc = load_scenario(scenario)
    kernel_run = run_kernel or run_linux
    kernel = (
        kernel_runs if kernel_runs is not None else [kernel_run(sc, progress=progress) for _ in range(reps)]
    )
    sim = run(matched_scenario(sc), progress=progress)
    return Validation(sc, sim, kernel)


def held_back(kernel: list[RunResult]) -> dict[str, float]:
    """Largest share of a kernel sender's busy time spent limited by the
    receiver's window (``rwnd``) or its send buffer (``sndbuf``), over all
    flows and repetitions (TCP_INFO; 0 where the kernel does not report it)."""
    worst = {"rwnd": 0.0, "sndbuf": 0.0}
    for r in kernel:
        f = r.backend
        for i, busy in enumerate(f.get("flow_busy_s", [])):
            if busy > 0:
                worst["rwnd"] = max(worst["rwnd"], f["flow_rwnd_limited_s"][i] / busy)
                worst["sndbuf"] = max(worst["sndbuf"], f["flow_sndbuf_limited_s"][i] / busy)
    return worst


def disturbed_drops(v: Validation) -> pd.DataFrame:
    """Every disturbed drop episode after the first of every run (see
    :func:`drop_episodes`) with the worst delay-line stall that began within
    one largest base RTT plus two queue-probe periods before it; a dip
    without such a stall was the bottleneck's own (htb held up)."""
    rows = []
    for name, r in [("simulator", v.sim)] + [(f"kernel {k}", x) for k, x in enumerate(v.kernel, start=1)]:
        ep = drop_episodes(r).iloc[1:]
        spells = late_spells(r)
        window = lookback_s(r)
        d = ep[ep["disturbed"].astype(bool)]
        for t, drops, dip in zip(
            d["time"].to_numpy(float), d["drops"].to_numpy(float), d["pipe_dip"].to_numpy(float), strict=True
        ):
            st = stall_before(spells, float(t), window)
            rows.append({
                "run": name,
                "time_s": float(t),
                "drops": float(drops),
                "pipe_dip_pkts": float(dip),
                "stall_ms": math.nan if st is None else st["worst_us"] / 1e3,
                "stall_at_s": math.nan if st is None else st["at_s"],
                "stall_direction": "" if st is None else st["direction"],
            })  # fmt: skip
    return pd.DataFrame(
        rows, columns=["run", "time_s", "drops", "pipe_dip_pkts", "stall_ms", "stall_at_s", "stall_direction"]
    )


def _html_table(t: pd.DataFrame) -> str:
    """``t`` as the rows of an HTML table (numbers to 4 significant digits)."""
    return "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(x if isinstance(x, str) else f'{x:.4g}')}</td>" for x in row)
        + "</tr>"
        for row in t.itertuples(index=False)
    )


def plot_cwnd(v: Validation, path: Path) -> None:
    """cwnd of every flow: the simulator's and each kernel repetition's."""
    from tcpeval.plots._figure import new_figure, save

    fig = new_figure(8, 3.5)
    ax = fig.add_subplot()
    for i in range(len(v.sim.flows)):
        f = v.sim.flow_series[v.sim.flow_series["flow"] == i]
        ax.plot(f["time"], f["cwnd"], color=f"C{2 * i}", linestyle="-", label=f"simulator, flow {i}")
        for k, r in enumerate(v.kernel):
            g = r.flow_series[r.flow_series["flow"] == i]
            label = f"kernel, flow {i} ({len(v.kernel)} runs)" if k == 0 else None
            ax.plot(g["time"], g["cwnd"], color=f"C{2 * i + 1}", linestyle="--", alpha=0.7, label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (packets)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, path)


def plot_pipe(v: Validation, path: Path) -> None:
    """The pipe (forward flows' summed cwnd minus the bottleneck queue) of
    the simulator and each kernel repetition, after the first drop episode
    (slow start's; the pipe means nothing before it), with every disturbed
    episode marked: a dip before a loss is a stall that brought it forward."""
    from tcpeval.plots._figure import new_figure, save

    fig = new_figure(8, 3.5)
    ax = fig.add_subplot()
    # The kernel's runs first, the simulator's on top of them.
    runs = [(f"kernel {j}", x, f"C{j}") for j, x in enumerate(v.kernel, start=1)]
    for name, r, color in [*runs, ("simulator", v.sim, "black")]:
        ep = drop_episodes(r)
        p = pipe_series(r)
        if len(ep):
            p = p[p.index > float(ep["time"].iloc[0]) + EPISODE_GAP_S]
        ax.plot(p.index, p.to_numpy(), color=color, linewidth=0.8, label=name)
        bad = ep.iloc[1:][ep["disturbed"].iloc[1:].astype(bool)]
        if len(bad):
            at = p.reindex(bad["time"].to_numpy(float), method="nearest")
            ax.plot(at.index, at.to_numpy(), "x", color=color, markersize=8)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("summed cwnd - bottleneck queue (packets)")
    ax.set_title("pipe; x: a drop episode a stall brought forward", fontsize=9)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    save(fig, path)


def write_report(v: Validation, out: Path) -> Path:
    """``out/validation.csv``, ``out/disturbed_drops.csv``, ``out/cwnd.png``,
    ``out/pipe.png``, ``out/index.html`` and every
    run's tables under ``out/runs/`` (``sim``, ``kernel-1`` ...); the page's path."""
    from tcpeval.store import save_run

    out.mkdir(parents=True, exist_ok=True)
    save_run(v.sim, out / "runs" / "sim")
    for k, r in enumerate(v.kernel, start=1):
        save_run(r, out / "runs" / f"kernel-{k}")
    t = v.table()
    per_rep = pd.DataFrame([run_metrics(r) for r in v.kernel]).T
    per_rep.columns = [f"kernel_{k}" for k in range(1, len(v.kernel) + 1)]
    t = t.merge(per_rep, left_on="metric", right_index=True, how="left")
    t.to_csv(out / "validation.csv", index=False)
    plot_cwnd(v, out / "cwnd.png")
    plot_pipe(v, out / "pipe.png")
    heads = "".join(f"<th>kernel {k}</th>" for k in range(1, len(v.kernel) + 1))
    facts = v.kernel[0].backend
    late = facts.get("delay_line", {}).get("lateness", {})
    held = held_back(v.kernel)
    rows = _html_table(t)
    disturbed = disturbed_drops(v)
    disturbed.to_csv(out / "disturbed_drops.csv", index=False)
    disturbed_rows = _html_table(disturbed) or '<tr><td colspan="7">none</td></tr>'
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>validation: {html.escape(v.scenario.name)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}td,th{{padding:.2em .6em;text-align:right}}
td:first-child{{text-align:left}}</style></head><body>
<h1>{html.escape(v.scenario.name or "scenario")}: simulator vs Linux {html.escape(str(facts.get("kernel", "")))}</h1>
<p>{len(v.kernel)} kernel repetition(s) of {v.scenario.duration_s:g} s; simulator matched to the kernel
(packet size {SIM_PACKET}, MSS {LINUX_MSS}, bottleneck rate x {SIM_PACKET}/{LINUX_FRAME}).
Delay-line lateness (first repetition): p50 {late.get("p50_us", 0):.0f} us, p99 {late.get("p99_us", 0):.0f} us,
max {late.get("max_us", 0):.0f} us; CPU busy {facts.get("cpu_busy_fraction", 0):.0%}.
Kernel senders held back by the receive window for at most {held["rwnd"]:.1%} of their busy time,
by the send buffer for at most {held["sndbuf"]:.1%} (worst flow and repetition; the simulator has neither limit).</p>
<table><tr><th>metric</th><th>simulator</th><th>kernel mean</th><th>kernel sd</th><th>diff %</th>{heads}</tr>{rows}</table>
<p><img src="cwnd.png" alt="cwnd of the simulator and the kernel" style="max-width:100%"></p>
<h2>Drop episodes an emulation stall brought forward</h2>
<p>The pipe is the forward flows' summed cwnd minus the bottleneck queue: the path's BDP while they
grow steadily. A stall of the bottleneck or of the delay line empties part of it into the queue (or
releases the held ACK clock as a burst), and the buffer overflows that many packets early. After the
first (slow start's), an episode is disturbed when the pipe fell more than {DISTURBED_DIP:.0%} of the
buffer below its median within one base RTT plus two probe periods before the first drop. Beside each,
the worst delay-line stall (frames held 1 ms or more) in that time; none means the bottleneck's own.
<code>loss_cycle_undisturbed_s</code> above leaves out every cycle a disturbed episode begins or ends.</p>
<p><img src="pipe.png" alt="the pipe of the simulator and the kernel, disturbed episodes marked" style="max-width:100%"></p>
<table><tr><th>run</th><th>time (s)</th><th>drops</th><th>pipe dip (packets)</th><th>worst stall (ms)</th>
<th>stall at (s)</th><th>direction</th></tr>{disturbed_rows}</table>
</body></html>
"""
    (out / "index.html").write_text(page)
    return out / "index.html"
