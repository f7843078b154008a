"""A study's claims: the checkable statements of its paper, and their verdicts.

A study file lists the paper's claims as ``[[claim]]`` tables
(docs/study-format.md, "Claims"): the values of its numbered tables and the
conclusions its text states, each with the metric that measures it, the
paper's value and what counts as reproducing it. :func:`parse_claims`
checks them against the study's experiments when the file is loaded;
:func:`evaluate` gives each its verdict from a results directory's runs.

Checks (``check``):

* ``value``: the metric's mean at ``where`` is within ``tolerance``
  (``{ rel = r }``: ``|x - paper| <= r |paper|``; ``{ abs = a }``) of ``paper``;
* ``range``: ``min <= x <= max`` (either bound may be left out);
* ``order``: the means at ``where`` overlaid with each entry of ``order``
  strictly decrease (``direction = "descending"``, default) or increase;
* ``ratio``: ``min <= x(numerator) / x(denominator) <= max``;
* ``top``: at ``where``, the value ``item`` of the sweep parameter ``among``
  has the highest (``direction = "highest"``, default) or lowest metric of
  all its values that were run ("CUBIC outperforms all others", "NewReno has
  the lowest loss").

A selection in ``order``, ``numerator`` or ``denominator`` may name another
``experiment`` (``{ experiment = "no-web", algorithm = "bic" }``): the claim
then compares the same metric across experiments (with and without
background traffic, say); such a selection is not overlaid on ``where``.

A note may take a passage shared by several claims from the study's
``[shared_notes]`` table by naming it as ``{shared_notes.KEY}``: a cause that
explains a group of misses is written once (:func:`expand_note`). Every entry
must be named by some note, and every name must have an entry.

A metric is the mean over every ok run that matches the selection (all
seeds). A verdict from quick mode is marked indicative: quick runs are
shorter and fewer than the paper's.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import ScenarioError

CHECKS = ("value", "range", "order", "ratio", "top")
"""The kinds of check a claim may make."""

_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_COMMON = {"id", "source", "text", "experiment", "metric", "where", "check", "note", "paper"}
_BY_CHECK = {
    "value": {"tolerance"},
    "range": {"min", "max"},
    "order": {"order", "direction"},
    "ratio": {"numerator", "denominator", "min", "max"},
    "top": {"among", "item", "direction"},
}


_SHARED = re.compile(r"\{shared_notes\.([^{}]*)\}")
"""A note's reference to a ``[shared_notes]`` entry."""


class ClaimError(ScenarioError):
    """A ``[[claim]]`` field is missing, malformed or refers to nothing."""


@dataclass(frozen=True)
class Verdict:
    """A claim's outcome: ``verdict`` is ``"pass"``, ``"miss"`` or ``"n/a"``
    (no run measures it: its sweep point is not in this mode's grid, or its
    runs failed); ``measured`` is what tcpeval found, as text."""

    claim: Mapping[str, Any]
    verdict: str
    measured: str
    indicative: bool

    @property
    def id(self) -> str:
        return str(self.claim["id"])


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _selector(
    value: Any,
    at: str,
    params: Mapping[str, Sequence[Any]],
    experiments: Mapping[str, tuple[Mapping[str, Sequence[Any]], set[str]]] | None = None,
    metric: str | None = None,
) -> dict[str, Any]:
    """Checks a selection; with ``experiments`` it may name another experiment,
    which must have ``metric``."""
    if not isinstance(value, dict):
        raise ClaimError(at, "must be a table of sweep parameters and values")
    if experiments is not None and "experiment" in value:
        other = value["experiment"]
        if other not in experiments:
            raise ClaimError(
                f"{at}.experiment", f"no experiment '{other}'; experiments: {sorted(experiments)}"
            )
        params, metrics = experiments[other]
        if metric not in metrics:
            raise ClaimError(
                f"{at}.experiment", f"'{metric}' is not a metric of {other}; metrics: {sorted(metrics)}"
            )
        value = {k: v for k, v in value.items() if k != "experiment"}
    for param, v in value.items():
        if param not in params:
            raise ClaimError(f"{at}.{param}", f"not a sweep parameter; parameters: {sorted(params)}")
        if v not in params[param]:
            raise ClaimError(f"{at}.{param}", f"{v!r} is not one of its values {list(params[param])}")
    return value


def parse_shared_notes(raw: Any) -> dict[str, str]:
    """Checks a study's ``[shared_notes]`` table (KEY -> text) and returns it."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ClaimError("shared_notes", 'must be a table of KEY = "text"')
    for key, text in raw.items():
        if not _ID.match(key):
            raise ClaimError(f"shared_notes.{key}", "a key is made of a-z, 0-9, _ and -")
        if not isinstance(text, str) or not text.strip():
            raise ClaimError(f"shared_notes.{key}", "missing text; give a non-empty string")
        if _SHARED.search(text):
            raise ClaimError(f"shared_notes.{key}", "a shared note cannot name another")
    return raw


def expand_note(note: str, shared: Mapping[str, str], at: str = "note") -> str:
    """``note`` with each ``{shared_notes.KEY}`` replaced by ``shared[KEY]``;
    a KEY with no entry is a :class:`ClaimError` at ``at``."""

    def text(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in shared:
            known = ", ".join(sorted(shared)) or "none"
            raise ClaimError(at, f"'{m.group(0)}' names no [shared_notes] entry; entries: {known}")
        return shared[key]

    return _SHARED.sub(text, note)


def claims_with_notes(spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A study file's ``[[claim]]`` tables (as parsed TOML ``spec``), each
    note with its ``[shared_notes]`` passages written out."""
    shared = spec.get("shared_notes", {})
    out = []
    for i, c in enumerate(spec.get("claim", [])):
        if "note" in c:
            c = {**c, "note": expand_note(str(c["note"]), shared, f"claim[{i}].note")}
        out.append(c)
    return out


def parse_claims(
    raw: Any,
    experiments: Mapping[str, tuple[Mapping[str, Sequence[Any]], set[str]]],
    shared_notes: Any = None,
) -> list[dict[str, Any]]:
    """Checks the ``[[claim]]`` array ``raw`` against ``experiments`` (name ->
    (sweep parameter -> values, metric names)) and ``shared_notes`` (the
    study's ``[shared_notes]`` table) and returns its claims, each note with
    its shared passages written out (:func:`expand_note`)."""
    shared = parse_shared_notes(shared_notes)
    if raw is None:
        if shared:
            raise ClaimError(f"shared_notes.{next(iter(shared))}", "no claim's note names it")
        return []
    if not isinstance(raw, list):
        raise ClaimError("claim", "must be an array of tables ([[claim]])")
    seen: set[str] = set()
    for i, c in enumerate(raw):
        at = f"claim[{i}]"
        if not isinstance(c, dict):
            raise ClaimError(at, "must be a table")
        cid = c.get("id")
        if not isinstance(cid, str) or not _ID.match(cid):
            raise ClaimError(f"{at}.id", "missing, or not made of a-z, 0-9, _ and -")
        if cid in seen:
            raise ClaimError(f"{at}.id", f"'{cid}' is used twice")
        seen.add(cid)
        for key in ("source", "text", "experiment", "metric"):
            if not isinstance(c.get(key), str) or not c[key]:
                raise ClaimError(f"{at}.{key}", "missing; give a non-empty string")
        check = c.get("check")
        if check not in CHECKS:
            raise ClaimError(f"{at}.check", f"{check!r} is not allowed; allowed: {', '.join(CHECKS)}")
        unknown = set(c) - _COMMON - _BY_CHECK[check]
        if unknown:
            allowed = sorted(_COMMON | _BY_CHECK[check])
            raise ClaimError(
                at, f"unknown field(s) {sorted(unknown)} for check '{check}'; allowed: {allowed}"
            )
        if c["experiment"] not in experiments:
            raise ClaimError(
                f"{at}.experiment", f"no experiment '{c['experiment']}'; experiments: {sorted(experiments)}"
            )
        params, metrics = experiments[c["experiment"]]
        if c["metric"] not in metrics:
            raise ClaimError(
                f"{at}.metric",
                f"'{c['metric']}' is not a metric of {c['experiment']}; metrics: {sorted(metrics)}",
            )
        _selector(c.get("where", {}), f"{at}.where", params)
        if "paper" in c and not (_number(c["paper"]) or isinstance(c["paper"], str)):
            raise ClaimError(f"{at}.paper", "must be a number or a short text")
        for bound in ("min", "max"):
            if bound in c and not _number(c[bound]):
                raise ClaimError(f"{at}.{bound}", "must be a finite number")
        if check == "value":
            if not _number(c.get("paper")):
                raise ClaimError(f"{at}.paper", "a value check needs the paper's number")
            tol = c.get("tolerance")
            if not (isinstance(tol, dict) and len(tol) == 1 and set(tol) <= {"rel", "abs"}):
                raise ClaimError(f"{at}.tolerance", "give { rel = r } or { abs = a }")
            (v,) = tol.values()
            if not _number(v) or v < 0:
                raise ClaimError(f"{at}.tolerance", f"{v!r} is out of range; allowed a number >= 0")
        elif check == "range":
            if "min" not in c and "max" not in c:
                raise ClaimError(at, "a range check needs min, max or both")
        elif check == "order":
            order = c.get("order")
            if not isinstance(order, list) or len(order) < 2:
                raise ClaimError(f"{at}.order", "give at least two selections")
            for j, sel in enumerate(order):
                _selector(sel, f"{at}.order[{j}]", params, experiments, c["metric"])
            if c.get("direction", "descending") not in ("descending", "ascending"):
                raise ClaimError(f"{at}.direction", "allowed: descending, ascending")
        elif check == "ratio":
            for side in ("numerator", "denominator"):
                _selector(c.get(side), f"{at}.{side}", params, experiments, c["metric"])
            if "min" not in c and "max" not in c:
                raise ClaimError(at, "a ratio check needs min, max or both")
        elif check == "top":
            among = c.get("among")
            if not isinstance(among, str) or among not in params:
                raise ClaimError(
                    f"{at}.among", f"{among!r} is not a sweep parameter; parameters: {sorted(params)}"
                )
            if among in c.get("where", {}):
                raise ClaimError(f"{at}.where", f"fixes '{among}', which the claim ranks over")
            items = c.get("item")
            group = items if isinstance(items, list) and items else [items]
            for item in group:
                if item not in params[among]:
                    raise ClaimError(
                        f"{at}.item", f"{item!r} is not one of {among}'s values {list(params[among])}"
                    )
            if c.get("direction", "highest") not in ("highest", "lowest"):
                raise ClaimError(f"{at}.direction", "allowed: highest, lowest")
        if "min" in c and "max" in c and c["min"] > c["max"]:
            raise ClaimError(f"{at}.min", f"{c['min']} is above max {c['max']}")
        if "note" in c and not isinstance(c["note"], str):
            raise ClaimError(f"{at}.note", "must be a text")
    claims = claims_with_notes({"claim": raw, "shared_notes": shared})
    named = {m.group(1) for c in raw for m in _SHARED.finditer(c.get("note", ""))}
    unused = sorted(set(shared) - named)
    if unused:
        raise ClaimError(f"shared_notes.{unused[0]}", "no claim's note names it; remove it or name it")
    return claims


def _mean(runs: Any, metric: str, selection: Mapping[str, Any]) -> float:
    """Mean of ``metric`` over the ok runs of ``runs`` matching ``selection``
    (NaN when none has a value)."""
    from .report.data import canonical, ok_runs, select

    if runs.empty:
        return math.nan
    frame = select(ok_runs(runs), {k: canonical(v) for k, v in selection.items()})
    values = frame[metric].to_numpy(dtype=float) if metric in frame else np.array([])
    values = values[np.isfinite(values)]
    return float(values.mean()) if len(values) else math.nan


def fmt(x: float) -> str:
    """A measured number in four significant digits."""
    return "n/a" if not math.isfinite(x) else f"{x:.4g}"


def _within(x: float, claim: Mapping[str, Any]) -> bool:
    return claim.get("min", -math.inf) <= x <= claim.get("max", math.inf)


def verdict(claim: Mapping[str, Any], frames: Mapping[str, Any], quick: bool) -> Verdict:
    """The verdict of ``claim`` on the run frames of the study's experiments
    (name -> :func:`tcpeval.report.data.experiment_runs`)."""
    where = dict(claim.get("where", {}))
    metric = claim["metric"]
    check = claim["check"]
    runs = frames.get(claim["experiment"])

    def at(sel: Mapping[str, Any]) -> float:
        """The metric at a selection: overlaid on ``where``, or in another experiment."""
        if "experiment" in sel:
            other = frames.get(sel["experiment"])
            rest = {k: v for k, v in sel.items() if k != "experiment"}
            return math.nan if other is None else _mean(other, metric, rest)
        return math.nan if runs is None else _mean(runs, metric, {**where, **sel})

    if check in ("value", "range"):
        x = at({})
        if not math.isfinite(x):
            return Verdict(claim, "n/a", "no run", quick)
        if check == "value":
            paper = float(claim["paper"])
            tol = claim["tolerance"]
            allowed = tol["abs"] if "abs" in tol else tol["rel"] * abs(paper)
            ok = abs(x - paper) <= allowed
        else:
            ok = _within(x, claim)
        return Verdict(claim, "pass" if ok else "miss", fmt(x), quick)
    if check == "order":
        xs = [at(sel) for sel in claim["order"]]
        text = " > ".join(fmt(x) for x in xs)
        if claim.get("direction", "descending") == "ascending":
            text = text.replace(">", "<")
        if not all(math.isfinite(x) for x in xs):
            return Verdict(claim, "n/a", text, quick)
        pairs = itertools.pairwise(xs)
        if claim.get("direction", "descending") == "descending":
            ok = all(a > b for a, b in pairs)
        else:
            ok = all(a < b for a, b in pairs)
        return Verdict(claim, "pass" if ok else "miss", text, quick)
    if check == "top":
        return _top_verdict(claim, at, runs, quick)
    num = at(claim["numerator"])
    den = at(claim["denominator"])
    if not (math.isfinite(num) and math.isfinite(den)):
        return Verdict(claim, "n/a", f"{fmt(num)} / {fmt(den)}", quick)
    ratio = num / den if den != 0 else (math.inf if num > 0 else math.nan)
    ok = (math.isfinite(ratio) and _within(ratio, claim)) or (ratio == math.inf and "max" not in claim)
    return Verdict(claim, "pass" if ok else "miss", f"{fmt(num)} / {fmt(den)} = {fmt(ratio)}", quick)


def _top_verdict(claim: Mapping[str, Any], at: Any, runs: Any, quick: bool) -> Verdict:
    """``top``: the item's metric (or every item's, for a group) against every other measured
    value of ``among``."""
    from .report.data import canonical, ok_runs, select

    among, item = claim["among"], claim["item"]
    group = [canonical(v) for v in (item if isinstance(item, list) else [item])]
    where = {k: canonical(v) for k, v in claim.get("where", {}).items()}
    present = [] if runs is None or runs.empty else list(dict.fromkeys(select(ok_runs(runs), where)[among]))
    xs = {v: at({among: v}) for v in present}
    xs = {v: x for v, x in xs.items() if math.isfinite(x)}
    mine = {v: xs.pop(v, math.nan) for v in group}
    shown = ", ".join(f"{v} {fmt(x)}" for v, x in mine.items())
    if not all(math.isfinite(x) for x in mine.values()) or not xs:
        return Verdict(claim, "n/a", shown, quick)
    highest = claim.get("direction", "highest") == "highest"
    rival = max(xs, key=lambda k: xs[k]) if highest else min(xs, key=lambda k: xs[k])
    worst = min(mine.values()) if highest else max(mine.values())
    ok = worst > xs[rival] if highest else worst < xs[rival]
    return Verdict(claim, "pass" if ok else "miss", f"{shown}; best other {rival} {fmt(xs[rival])}", quick)


def expected_text(claim: Mapping[str, Any]) -> str:
    """What the paper says, as the scorecard shows it."""
    check = claim["check"]
    paper = claim.get("paper")
    if check == "value":
        tol = claim["tolerance"]
        band = f"± {tol['abs']:g}" if "abs" in tol else f"± {tol['rel'] * 100:g} %"
        return f"{paper:g} {band}"
    bounds = []
    if "min" in claim:
        bounds.append(f">= {claim['min']:g}")
    if "max" in claim:
        bounds.append(f"<= {claim['max']:g}")
    if check == "range":
        shown = f"{paper} " if paper is not None else ""
        return f"{shown}({', '.join(bounds)})"
    if check == "order":
        sign = " > " if claim.get("direction", "descending") == "descending" else " < "
        return sign.join(", ".join(f"{v}" for v in sel.values()) for sel in claim["order"])
    if check == "top":
        word = "highest" if claim.get("direction", "highest") == "highest" else "lowest"
        item = claim["item"]
        if isinstance(item, list):
            return f"{', '.join(str(v) for v in item)}: each {word} of all other {claim['among']}"
        return f"{item} {word} of all {claim['among']}"
    num = ", ".join(f"{v}" for v in claim["numerator"].values())
    den = ", ".join(f"{v}" for v in claim["denominator"].values())
    return f"{num} / {den} {' and '.join(bounds)}"
