"""List a results directory's scorecard misses whose note names no cause.

Usage: python scripts/miss_causes.py RESULTS_DIR [STUDY_FILE]

Judges the stored runs with STUDY_FILE (default: the copy stored with the
results) and prints every miss, flagging those whose note names none of the
cause categories (a)-(d) of docs/scorecard-misses.md (the report's
`scorecard.cause`). Exits 1 when a miss has no cause, so it can gate a full
run's notes.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import replace

from tcpeval.report.data import load_results
from tcpeval.report.scorecard import rows, scorecard


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
        has_cause = bool(row["cause"])
        missing += not has_cause
        flag = "  " if has_cause else "NO CAUSE "
        print(f"{flag}{row['id']} ({row['cause'] or '-'}) | paper {row['paper']} | tcpeval {row['tcpeval']}")
    print(f"misses without a cause: {missing}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
