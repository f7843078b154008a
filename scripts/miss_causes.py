"""List a results directory's scorecard misses whose note names no cause.

Usage: python scripts/miss_causes.py RESULTS_DIR [STUDY_FILE]

Judges the stored runs with STUDY_FILE (default: the copy stored with the
results) and prints every miss, flagging those whose note has none of the
cause categories of docs/scorecard-misses.md: (a) an error of ours, fixed;
(b) a stricter reading than the paper's, corrected; (c) a genuine difference
whose cause is shown; (d) cause not found, with what was ruled out. Exits 1
when a miss has no cause, so it can gate a full run's notes.
"""

from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import replace

from tcpeval.report.data import load_results
from tcpeval.report.scorecard import rows, scorecard

CAUSE = re.compile(r"\((a|b|c|d)\)")


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    study = load_results(argv[1])
    if len(argv) == 3:
        with open(argv[2], "rb") as f:
            study = replace(study, spec=tomllib.load(f))
    card = scorecard(study)
    print(card.summary())
    missing = 0
    for row in rows(card):
        if row["verdict"] != "miss":
            continue
        has_cause = CAUSE.search(row["note"]) is not None
        missing += not has_cause
        flag = "  " if has_cause else "NO CAUSE "
        print(f"{flag}{row['id']} | paper {row['paper']} | tcpeval {row['tcpeval']}")
    print(f"misses without a cause: {missing}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
