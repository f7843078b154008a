"""The shared part of the diagnostics here: a shipped study's settings with
one experiment of the diagnostic's own, run into a directory and read back.

The settings (platform, sender and algorithm options, defaults) are read from
the shipped study file, never copied, so a diagnostic follows the study as it
is edited.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pandas as pd

from tcpeval.report.data import load_results
from tcpeval.runner import run_study
from tcpeval.study import Study, parse_study, study_path


def variant(shipped: str, edits: Sequence[tuple[str, str]], experiment: str, origin: str) -> Study:
    """Study ``shipped``'s top-level settings (everything before its first
    ``[[experiment]]``) with each ``(old, new)`` of ``edits`` replaced once,
    and ``experiment`` (TOML text) as its only experiment."""
    text = study_path(shipped).read_text(encoding="utf-8")
    head = text[: text.index("[[experiment]]")]
    for old, new in edits:
        if old not in head:
            raise SystemExit(f"the {shipped} study file no longer has {old!r}: update {origin}")
        head = head.replace(old, new, 1)
    return parse_study(head + experiment, origin=origin)


def run_and_read(study: Study, argv: list[str], doc: str | None, experiment: str) -> pd.DataFrame | None:
    """Runs ``study`` into ``argv[1]`` (usage from ``doc`` otherwise) and
    returns ``experiment``'s runs, or None after printing why not."""
    if len(argv) != 2:
        print(doc, file=sys.stderr)
        return None
    summary = run_study(study, argv[1], progress=True)
    if summary.failed:
        print(f"{len(summary.failed)} runs failed", file=sys.stderr)
        return None
    return load_results(argv[1]).runs[experiment]
