"""The claims scorecard of a study report.

Every ``[[claim]]`` of the study file (:mod:`tcpeval.claims`) gets its
verdict from the stored runs; the page shows claim | paper | tcpeval |
verdict | note with the pass count, and ``TABLEDIR/scorecard.csv`` holds the
same rows. Verdicts from quick mode are marked indicative: quick runs are
shorter and fewer than the paper's.
"""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..claims import Verdict, claims_with_notes, expected_text, verdict
from ..files import write_text_atomic
from .data import StudyResults

CAUSES = {
    "a": "an error of ours, fixed",
    "b": "the claim read the paper more strictly than the paper states it, corrected",
    "c": "a genuine difference whose cause is shown",
    "d": "cause not found; the note says what was ruled out",
}
"""The cause categories a miss's note names as ``(a)`` .. ``(d)``
(docs/scorecard-misses.md groups the misses by them)."""

_CAUSE_MARK = re.compile(r"(?:^|\s)\(([abcd])\)(?!\w)")


def cause(note: str) -> str:
    """The first cause category (``"a"`` .. ``"d"``) that ``note`` names, or
    ``""`` when it names none: ``"(c) ..."`` and ``"... Cause (d), ..."`` do;
    a figure panel such as ``"Fig. 8(a)"`` does not."""
    m = _CAUSE_MARK.search(note)
    return m.group(1) if m else ""


@dataclass(frozen=True)
class Scorecard:
    """The verdicts of a study's claims, in study-file order."""

    verdicts: list[Verdict]
    quick: bool
    partial: bool = False
    """The study has not finished: the verdicts read the runs stored so far."""

    @property
    def passed(self) -> int:
        return sum(v.verdict == "pass" for v in self.verdicts)

    @property
    def measured(self) -> int:
        """Claims with a verdict (pass or miss): their point is in this mode's grid."""
        return sum(v.verdict != "n/a" for v in self.verdicts)

    def misses_by_cause(self) -> dict[str, int]:
        """How many misses name each cause category; ``""`` counts those
        whose note names none (not yet investigated)."""
        counts: dict[str, int] = {}
        for v in self.verdicts:
            if v.verdict == "miss":
                key = cause(str(v.claim.get("note", "")))
                counts[key] = counts.get(key, 0) + 1
        return counts

    def summary(self) -> str:
        """``"12 of 15 claims reproduced (2 not measured in quick mode; indicative only)"``."""
        total = len(self.verdicts)
        text = f"{self.passed} of {total} claims reproduced"
        unmeasured = total - self.measured
        extra = []
        if unmeasured:
            extra.append(f"{unmeasured} not measured in this mode")
        if self.quick:
            extra.append("quick mode: indicative only")
        if self.partial:
            extra.append("the study has not finished: from the runs stored so far")
        return text + (f" ({'; '.join(extra)})" if extra else "")


def scorecard(study: StudyResults) -> Scorecard:
    """Every claim of the study file, judged on its stored runs."""
    quick = study.mode == "quick"
    out = []
    for claim in claims_with_notes(study.spec):
        out.append(verdict(claim, study.runs, quick))
    return Scorecard(out, quick, partial=not study.complete)


COLUMNS = (
    "id",
    "source",
    "claim",
    "experiment",
    "metric",
    "paper",
    "tcpeval",
    "verdict",
    "indicative",
    "cause",
    "note",
)
"""Columns of ``scorecard.csv``."""


def rows(card: Scorecard) -> list[dict[str, str]]:
    """The scorecard as rows of text (the CSV's and the page's)."""
    return [
        {
            "id": v.id,
            "source": str(v.claim.get("source", "")),
            "claim": str(v.claim.get("text", "")),
            "experiment": str(v.claim["experiment"]),
            "metric": str(v.claim["metric"]),
            "paper": expected_text(v.claim),
            "tcpeval": v.measured,
            "verdict": v.verdict,
            "indicative": "yes" if v.indicative else "no",
            "cause": cause(str(v.claim.get("note", ""))) if v.verdict == "miss" else "",
            "note": str(v.claim.get("note", "")),
        }
        for v in card.verdicts
    ]


def write_csv(card: Scorecard, directory: Path) -> Path:
    """Writes ``directory/scorecard.csv`` atomically and returns its path."""
    directory.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows(card))
    path = directory / "scorecard.csv"
    write_text_atomic(path, buf.getvalue())
    return path


def esc(value: object) -> str:
    """``value`` as HTML-escaped text."""
    return html.escape(str(value), quote=True)


def _cause_tag(row: dict[str, str]) -> str:
    """Under a miss's verdict: the cause category its note names (the
    category's meaning on hover), or that it names none."""
    if row["verdict"] != "miss":
        return ""
    if not row["cause"]:
        return "<br><small>no cause named</small>"
    return f"<br><small title='{esc(CAUSES[row['cause']])}'>({esc(row['cause'])})</small>"


def scorecard_html(card: Scorecard) -> str:
    """The page's scorecard section."""
    if not card.verdicts:
        return (
            "<section id='scorecard'><h2>Claims scorecard</h2>"
            "<p>The study file lists no claims.</p></section>"
        )
    body: Sequence[str] = [
        f"<tr class='{esc(r['verdict'].replace('/', ''))}'>"
        f"<td class='text'><strong>{esc(r['claim'])}</strong><br><small>{esc(r['source'])}; "
        f"{esc(r['experiment'])}: {esc(r['metric'])} ({esc(r['id'])})</small></td>"
        f"<td>{esc(r['paper'])}</td><td>{esc(r['tcpeval'])}</td>"
        f"<td class='verdict'>{esc(r['verdict'])}{'*' if r['indicative'] == 'yes' else ''}"
        f"{_cause_tag(r)}</td>"
        f"<td class='text'>{esc(r['note'])}</td></tr>"
        for r in rows(card)
    ]
    causes = card.misses_by_cause()
    by_cause = "; ".join(f"{causes[k]} {esc(CAUSES[k])} ({k})" for k in sorted(CAUSES) if causes.get(k))
    if causes.get(""):
        by_cause += ("; " if by_cause else "") + f"{causes['']} with no cause named yet"
    cause_line = f"<p class='causes'>Misses by cause: {by_cause}.</p>" if causes else ""
    legend = (
        "<p class='legend'>* from quick mode: shorter runs and fewer seeds than the paper, "
        "indicative only; run the full mode for the verdict.</p>"
        if card.quick
        else ""
    )
    return (
        "<section id='scorecard'><h2>Claims scorecard</h2>"
        f"<p class='score'>{esc(card.summary())}. A miss is reported as measured, with the "
        "investigated cause in its note (scorecard.csv has the same rows).</p>"
        + cause_line
        + "<table class='scorecard'><thead><tr><th>claim</th><th>paper</th><th>tcpeval</th>"
        "<th>verdict</th><th>note</th></tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
        + legend
        + "</section>"
    )
