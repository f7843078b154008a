"""The HTML page of a study report: one self-contained file.

The page has no script and loads nothing: its CSS is inline and each figure
is inlined as a ``data:`` URI of its SVG or its PNG, whichever file is
smaller (a long time series is lighter as pixels), with links to the saved
PNG, SVG and PDF files next to the page. Every text that comes from the study
file or the catalog is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime, time
from typing import Any

import pandas as pd

from .data import StudyResults, Value, twin_copies
from .figures import FigureOutput, describe, slug
from .scorecard import Scorecard, scorecard_html
from .tables import TableOutput

DISPLAY_SCALE = 1.25
"""Figures are shown at this multiple of their physical size (at 96 CSS px
per inch), capped to the page width."""

PNG_DPI = 300
"""Resolution of the saved PNG files (the plots' house style)."""

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em;
       color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0.2em 1em; }
dl.meta dt { font-weight: bold; }
dl.meta dd { margin: 0; }
pre { background: #f6f6f6; padding: 0.6em; white-space: pre-wrap; font-size: 0.85em; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.9em; color: #444; }
.missing { border: 1px dashed #b00; color: #800; padding: 0.6em; margin: 1em 0; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f0f0f0; }
td.error { text-align: left; }
td.error pre { margin: 0; background: none; padding: 0; white-space: pre-wrap; }
table.scorecard td.text { text-align: left; }
table.scorecard tr.pass td.verdict { background: #dfd; }
table.scorecard tr.miss td.verdict { background: #fdd; }
table.scorecard tr.na td.verdict { background: #eee; }
p.score { font-weight: bold; }
"""


def esc(value: Any) -> str:
    """``value`` as text, HTML-escaped (quotes included)."""
    return html.escape(str(value), quote=True)


def toml_value(value: Any) -> str:
    """A value written as in a TOML file: strings quoted, tables inline."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    return "[" + ", ".join(toml_value(v) for v in value) + "]"


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def flatten(value: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``key.sub[i].leaf = value`` lines, one per leaf of a nested table
    (arrays of tables are indexed; other arrays and empty tables stay inline)."""
    lines = []
    for k, v in value.items():
        path = f"{prefix}{_key(k)}"
        if isinstance(v, Mapping) and v:
            lines += flatten(v, f"{path}.")
        elif isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v):
            for i, item in enumerate(v):
                lines += flatten(item, f"{path}[{i}].")
        else:
            lines.append(f"{path} = {toml_value(v)}")
    return lines


def deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` merged onto ``base``: tables are merged key by key, any other value replaces."""
    merged = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(merged.get(k), Mapping):
            merged[k] = deep_merge(merged[k], v)
        else:
            merged[k] = v
    return merged


def parameters_text(study: StudyResults, experiment: Mapping[str, Any]) -> str:
    """The exact parameters of an experiment as plain text: its scenario with
    the study's ``[defaults]`` merged under it, the per-algorithm settings,
    the sweep (with the values this mode ran), what quick mode changes, and
    the metric definitions."""
    scenario = deep_merge(study.spec.get("defaults", {}), experiment.get("scenario", {}))
    lines = ["# scenario (study [defaults] merged under the experiment's scenario)", *flatten(scenario)]
    settings = deep_merge(study.spec.get("algorithms", {}), experiment.get("algorithms", {}))
    if settings:
        lines += ["", "# per-algorithm settings (study [algorithms] merged with the experiment's)"]
        lines += flatten({"algorithms": settings})
    sweep = experiment.get("sweep", {})
    if sweep:
        lines += ["", "# sweep: every combination of"]
        for param, entry in sweep.items():
            values = toml_value(study.declared_values(experiment, param))
            lines.append(f"{param} (path {toml_value(entry.get('path'))}) = {values}")
    quick = experiment.get("quick", {})
    if study.mode == "quick":
        study_quick = study.spec.get("quick", {})
        lines += ["", "# quick mode (this report)"]
        lines += [f"study.{line}" for line in flatten(study_quick)]
        lines += [f"experiment.{line}" for line in flatten(quick)]
    metrics = experiment.get("metric", [])
    if metrics:
        lines += ["", "# metrics"]
        for m in metrics:
            args = ", ".join(f"{_key(k)} = {toml_value(v)}" for k, v in m.items() if k not in ("name", "fn"))
            lines.append(f"{m.get('name')} = {m.get('fn')}({args})")
    return "\n".join(lines)


def _data_uri(out: FigureOutput) -> tuple[str, float]:
    """The figure's smaller file (SVG, if saved, or PNG) as a data URI, and its width in inches."""
    png = out.paths["png"].read_bytes()
    svg = out.paths["svg"].read_bytes() if "svg" in out.paths else None
    if svg is not None and len(svg) <= len(png):
        match = re.search(rb'<svg[^>]*\swidth="([0-9.]+)pt"', svg)
        width = float(match.group(1)) / 72 if match else 5.0
        return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii"), width
    width = int.from_bytes(png[16:20], "big") / PNG_DPI
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii"), width


def figure_html(out: FigureOutput) -> str:
    """A ``<figure>`` with the inlined image and links to its files, or the
    message saying why there is no figure."""
    notes = "".join(f"<li>{esc(n)}</li>" for n in out.notes)
    notes_html = f"<ul class='notes'>{notes}</ul>" if notes else ""
    if out.message is not None:
        return (
            f"<div class='missing' id='fig-{esc(out.name)}'><strong>{esc(out.caption)}</strong>: "
            f"no figure, {esc(out.message)}.{notes_html}</div>"
        )
    uri, inches = _data_uri(out)
    links = " · ".join(f"<a href='figures/{esc(out.paths[e].name)}'>{e.upper()}</a>" for e in out.paths)
    return (
        f"<figure id='fig-{esc(out.name)}'><img src='{uri}' alt='{esc(out.caption)}' "
        f"width='{round(inches * 96 * DISPLAY_SCALE)}'>"
        f"<figcaption>{esc(out.caption)} ({links}){notes_html}</figcaption></figure>"
    )


def frame_html(frame: pd.DataFrame, css_class: str = "") -> str:
    """A DataFrame of strings as an HTML table, every cell escaped."""
    head = "".join(f"<th>{esc(c)}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False, name=None)
    )
    return f"<table class='{esc(css_class)}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def table_html(out: TableOutput) -> str:
    """A table's title, rows and CSV link, or the message saying why there is none."""
    if out.message is not None:
        return f"<div class='missing'><strong>{esc(out.title)}</strong>: no table, {esc(out.message)}.</div>"
    csv = f"<a href='tables/{esc(out.path.name)}'>CSV</a>" if out.path else ""
    return (
        f"<h4 id='table-{esc(out.name)}'>{esc(out.title)} ({csv})</h4>"
        + frame_html(out.text, "results")
        + "<p class='legend'>mean ± half-width of the 95% Student-t interval over the ok runs of the row (column runs).</p>"
    )


def failed_html(frame: pd.DataFrame, params: Sequence[str]) -> str:
    """The failed runs of an experiment with their errors (empty if none failed)."""
    failed = frame[frame["status"] != "ok"]
    if failed.empty:
        return ""
    rows = []
    for _, run in failed.iterrows():
        point: dict[str, Value] = {p: run[p] for p in params}
        rows.append(
            f"<tr><td>{esc(str(run['key'])[:12])}</td><td>{esc(describe(point))}</td>"
            f"<td>{esc(run['seed'])}</td><td>{esc(run['status'])}</td>"
            f"<td class='error'><pre>{esc(run['error'] or '')}</pre></td></tr>"
        )
    return (
        f"<h3>Failed runs ({len(failed)})</h3><table class='failed'><thead><tr><th>key</th>"
        "<th>point</th><th>seed</th><th>status</th><th>error</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def experiment_html(
    study: StudyResults,
    experiment: Mapping[str, Any],
    figures: Sequence[FigureOutput],
    tables: Sequence[TableOutput],
) -> str:
    """One experiment's section: title, notes, run counts, parameters,
    figures, tables and failed runs."""
    name = experiment["name"]
    frame = study.runs[name]
    ok = int((frame["status"] == "ok").sum())
    seeds = ", ".join(str(s) for s in sorted(set(frame["seed"])))
    parts = [
        f"<section id='exp-{esc(slug(name))}'>",
        f"<h2>{esc(experiment.get('title', name))} <small>({esc(name)})</small></h2>",
    ]
    if experiment.get("notes"):
        parts.append(f"<p class='notes'>{esc(experiment['notes'])}</p>")
    copies = twin_copies(study, frame)
    twins = (
        f" {copies} of them stored from another seed's run: they draw no random number, so every "
        "seed gives the same run (spread between seeds 0)."
        if copies
        else ""
    )
    parts.append(
        f"<p class='counts'>{len(frame)} runs: {ok} ok, {len(frame) - ok} failed; "
        f"seeds {esc(seeds or 'none')}; {frame['wall_s'].sum():.1f} s of wall-clock time.{twins}</p>"
    )
    parts.append(
        f"<details open><summary>Parameters</summary><pre>{esc(parameters_text(study, experiment))}</pre></details>"
    )
    if figures:
        parts.append("<h3>Figures</h3>")
        parts += [figure_html(f) for f in figures]
    if tables:
        parts.append("<h3>Tables</h3>")
        parts += [table_html(t) for t in tables]
    parts.append(failed_html(frame, list(experiment.get("sweep", {}))))
    parts.append("</section>")
    return "\n".join(parts)


def _of_planned(meta: dict[str, Any]) -> str:
    """`` of N planned`` when ``study.json`` records the last sweep's plan."""
    planned = meta.get("planned_runs")
    return "" if planned is None else f" of {int(planned)} planned"


def page_html(study: StudyResults, sections: Sequence[str], tcpeval_version: str, card: Scorecard) -> str:
    """The whole page: a header describing the study and its runs, a table
    of contents, the claims scorecard, and the experiment ``sections`` (from
    :func:`experiment_html`)."""
    spec, meta = study.spec, study.meta
    title = spec.get("title", spec.get("name", study.directory.name))
    frames = list(study.runs.values())
    runs = sum(len(f) for f in frames)
    ok = sum(int((f["status"] == "ok").sum()) for f in frames)
    seeds = sorted({int(s) for f in frames for s in f["seed"]})
    meta_rows = [
        ("study", spec.get("name", "")),
        ("reference", spec.get("reference", "")),
        ("mode", study.mode),
        ("platform", meta.get("platform", "linux")),
        (
            "backend",
            "this host's Linux kernel in network namespaces (real time)"
            if meta.get("backend") == "linux"
            else "the tcpeval simulator",
        ),
        ("claims", card.summary()),
        ("tcpeval version of the runs", meta.get("tcpeval_version", "unknown")),
        ("started", meta.get("started") or "unknown"),
        ("finished", meta.get("finished") or "not finished"),
        ("runs", f"{runs}{_of_planned(meta)} ({ok} ok, {runs - ok} failed)"),
        *(
            [("runs not shown", f"{study.other_settings}: stored under earlier settings of the study file")]
            if study.other_settings
            else []
        ),
        ("seeds used", ", ".join(map(str, seeds)) or "none"),
        ("report built by", f"tcpeval {tcpeval_version}"),
    ]
    meta_html = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in meta_rows)
    toc = "".join(
        f"<li><a href='#exp-{esc(slug(e['name']))}'>{esc(e.get('title', e['name']))}</a></li>"
        for e in study.experiments
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>"
        f"<header><h1>{esc(title)}</h1><dl class='meta'>{meta_html}</dl></header>"
        f"<nav><h2>Experiments</h2><ol><li><a href='#scorecard'>Claims scorecard</a></li>{toc}</ol></nav>"
        + scorecard_html(card)
        + "\n".join(sections)
        + "</body></html>\n"
    )
