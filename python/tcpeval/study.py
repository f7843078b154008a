"""Study files: load, validate and expand into runs (docs/study-format.md).

A study is a list of experiments; each experiment is a scenario, a sweep
grid over scenario fields, replications (seeds), named per-run metrics, and
figure/table declarations. :func:`expand` turns a study into validated
:class:`RunSpec` s, each identified by the hash of its full scenario and the
tcpeval version, so a rerun can skip what is already stored.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from tcpeval import __version__
from tcpeval.claims import ClaimError, parse_claims
from tcpeval.derived import FUNCTIONS
from tcpeval.errors import ScenarioError, StudyError
from tcpeval.figure_spec import FigureSpecError, check_figure
from tcpeval.scenario import load_scenario
from tcpeval.scenario_checks import check_toml_file, input_files, read_input_file
from tcpeval.study_checks import check_metric, check_table


@dataclass(frozen=True)
class SweepParam:
    """One sweep dimension: a name, the scenario paths it sets, its values."""

    name: str
    paths: tuple[str, ...]
    values: tuple[Any, ...]


@dataclass(frozen=True)
class MetricSpec:
    """A named per-run metric: ``fn`` with keyword arguments ``args``."""

    name: str
    fn: str
    args: dict[str, Any]


@dataclass
class Experiment:
    """One experiment of a study."""

    name: str
    title: str
    notes: str
    scenario: dict[str, Any]
    sweep: list[SweepParam]
    quick_values: dict[str, list[Any]]
    quick_scenario: dict[str, Any]
    metrics: list[MetricSpec]
    derived: list[dict[str, Any]]
    figures: list[dict[str, Any]]
    tables: list[dict[str, Any]]
    algorithms: dict[str, dict[str, Any]]


@dataclass
class Study:
    """A parsed study file."""

    name: str
    title: str
    reference: str
    replications: int
    quick_replications: int
    duration_scale: float
    defaults: dict[str, Any]
    algorithms: dict[str, dict[str, Any]]
    experiments: list[Experiment]
    source: str = field(repr=False)
    platform: str | None = None
    """Platform preset of every run whose scenario names none (``platform = ...``)."""
    claims: list[dict[str, Any]] = field(default_factory=list)
    """The paper's checkable claims (:mod:`tcpeval.claims`)."""
    skip_tables: tuple[str, ...] = ()
    """Result tables its runs do not store (``skip_tables``, one of
    :data:`SKIPPABLE_TABLES`); the run's metrics are computed before storing."""


SKIPPABLE_TABLES = ("transfers",)
"""Result tables a study may leave unstored: no metric function, figure or
table of the report reads them. ``transfers`` has a row per finite transfer:
17 MB per 1200 s run of the background study's web traffic."""


@dataclass(frozen=True)
class RunSpec:
    """One simulation of a study: its experiment, sweep point, seed and scenario."""

    experiment: str
    point: dict[str, Any]
    seed: int
    scenario: dict[str, Any]
    key: str
    skip_tables: tuple[str, ...] = ()
    """Result tables not to store (the study's ``skip_tables``); not part of the key."""


_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
"""A name of a study, experiment or sweep parameter (matched whole: ``$`` would let a
trailing newline through)."""
_TOKEN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[(\*|\d+)\])?$")


def experiment_time_scale(study_scale: float, sweep_paths: Iterable[str]) -> float:
    """Quick mode's time factor for one experiment: the study's ``duration_scale``, or 1
    for an experiment that sweeps ``duration_s``. There the duration is the variable under
    study (efficiency against run length), so quick mode keeps each swept duration, and
    the run's other times with it, as they are; it still trims the grid and the seeds."""
    return 1.0 if "duration_s" in sweep_paths else study_scale


def sweep_paths(exp: Experiment) -> list[str]:
    """Every scenario path the experiment's sweep sets."""
    return [path for p in exp.sweep for path in p.paths]


def shipped_studies() -> list[str]:
    """Names of the studies shipped with tcpeval."""
    folder = resources.files("tcpeval") / "studies"
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def study_path(name_or_path: str | Path) -> Path:
    """The file of a shipped study name, or the given path. A shipped name wins over a
    directory of the same name (a results directory called ``reverse`` in the working
    directory must not hide the ``reverse`` study)."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.is_file():
        return p
    shipped = shipped_studies()
    if str(name_or_path) in shipped:
        return Path(str(resources.files("tcpeval") / "studies" / f"{name_or_path}.toml"))
    if p.exists():
        return p
    raise StudyError("", f"unknown study '{name_or_path}'; shipped: {', '.join(shipped)}")


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` merged into a copy of ``base``: tables merge key by key, anything else replaces."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Sets ``path`` (``a.b[2].c``, ``flows[*].x``) in ``data``, creating tables on the way."""
    tokens = path.split(".")
    targets: list[Any] = [data]
    for depth, token in enumerate(tokens):
        m = _TOKEN.match(token)
        if not m:
            raise StudyError(path, f"malformed path element '{token}'")
        key, index = m.group(1), m.group(2)
        last = depth == len(tokens) - 1
        nxt: list[Any] = []
        for t in targets:
            if not isinstance(t, dict):
                raise StudyError(path, f"'{key}' is inside a value that is not a table")
            if index is None:
                if last:
                    t[key] = copy.deepcopy(value)
                else:
                    nxt.append(t.setdefault(key, {}))
                continue
            seq = t.get(key)
            if not isinstance(seq, list):
                raise StudyError(path, f"'{key}' is not a list in the scenario")
            idx = range(len(seq)) if index == "*" else [int(index)]
            for i in idx:
                if i >= len(seq):
                    raise StudyError(path, f"index {i} is out of range; '{key}' has {len(seq)} entries")
                if last:
                    raise StudyError(path, "a path must end in a field name, not an index")
                nxt.append(seq[i])
        targets = nxt


def _req(table: dict[str, Any], key: str, at: str, kind: type) -> Any:
    if key not in table:
        raise StudyError(f"{at}.{key}" if at else key, "missing")
    v = table[key]
    if not isinstance(v, kind):
        raise StudyError(f"{at}.{key}" if at else key, f"must be a {kind.__name__}")
    return v


def _sweep(raw: Any, at: str) -> list[SweepParam]:
    if not isinstance(raw, dict):
        raise StudyError(at, "must be a table of parameters")
    out = []
    for name, spec in raw.items():
        f = f"{at}.{name}"
        if not _NAME.fullmatch(name):
            raise StudyError(f, "parameter names use a-z, 0-9, _ and -")
        if not isinstance(spec, dict):
            raise StudyError(f, "must be a table { path = ..., values = [...] }")
        paths = spec.get("path")
        paths = [paths] if isinstance(paths, str) else paths
        if not paths or not all(isinstance(p, str) for p in paths):
            raise StudyError(f"{f}.path", "must be a path string or a list of them")
        values = spec.get("values")
        if not isinstance(values, list) or not values:
            raise StudyError(f"{f}.values", "must be a non-empty list")
        _known_fields(spec, f, {"path", "values"})
        out.append(SweepParam(name, tuple(paths), tuple(values)))
    return out


def _experiment(raw: dict[str, Any], at: str) -> Experiment:
    name = _req(raw, "name", at, str)
    if not _NAME.fullmatch(name):
        raise StudyError(f"{at}.name", "use a-z, 0-9, _ and -")
    allowed = {
        "name",
        "title",
        "notes",
        "scenario",
        "sweep",
        "quick",
        "metric",
        "derived",
        "figure",
        "table",
        "algorithms",
    }
    _known_fields(raw, at, allowed)
    sweep = _sweep(raw.get("sweep", {}), f"{at}.sweep")
    names = {p.name for p in sweep}
    quick = raw.get("quick", {})
    quick_values: dict[str, list[Any]] = {}
    quick_scenario: dict[str, Any] = {}
    for k, v in quick.items():
        if k == "scenario":
            if not isinstance(v, dict):
                raise StudyError(f"{at}.quick.scenario", "must be a table")
            quick_scenario = v
        elif k in names:
            if not isinstance(v, list) or not v:
                raise StudyError(f"{at}.quick.{k}", "must be a non-empty list of values")
            quick_values[k] = v
        else:
            raise StudyError(f"{at}.quick.{k}", f"not a sweep parameter; parameters: {sorted(names)}")
    metrics = []
    seen: set[str] = set()
    for i, m in enumerate(raw.get("metric", [])):
        mat = f"{at}.metric[{i}]"
        mname = _req(m, "name", mat, str)
        fn = _req(m, "fn", mat, str)
        if mname in seen or mname in names:
            raise StudyError(f"{mat}.name", f"'{mname}' is used twice")
        seen.add(mname)
        args = {k: v for k, v in m.items() if k not in ("name", "fn")}
        _checked(check_metric, fn, args, mat)
        metrics.append(MetricSpec(mname, fn, args))
    derived = _derived(raw.get("derived", []), f"{at}.derived", sweep, quick_values, seen)
    values = {p.name: [*p.values, *quick_values.get(p.name, [])] for p in sweep}
    for kind in ("figure", "table"):
        specs = raw.get(kind, [])
        if not isinstance(specs, list):
            raise StudyError(f"{at}.{kind}", f"must be an array of tables ([[experiment.{kind}]])")
        for i, spec in enumerate(specs):
            if not isinstance(spec, dict):
                raise StudyError(f"{at}.{kind}[{i}]", "must be a table")
            _req(spec, "name", f"{at}.{kind}[{i}]", str)
            if kind == "table":
                _checked(check_table, spec, values, set(seen), f"{at}.{kind}[{i}]")
                continue
            try:
                check_figure(spec, raw, seen)
            except FigureSpecError as e:
                raise StudyError(f"{at}.figure[{i}].{e.key}", f"figure {e.figure!r}: {e.message}") from None
    return Experiment(
        name=name,
        title=str(raw.get("title", name)),
        notes=str(raw.get("notes", "")),
        scenario=_req(raw, "scenario", at, dict),
        sweep=sweep,
        quick_values=quick_values,
        quick_scenario=quick_scenario,
        metrics=metrics,
        derived=derived,
        figures=list(raw.get("figure", [])),
        tables=list(raw.get("table", [])),
        algorithms=_algorithms(raw.get("algorithms", {}), f"{at}.algorithms"),
    )


def _checked(check: Any, *args: Any) -> None:
    """Runs a :mod:`tcpeval.study_checks` check, its error as a StudyError."""
    try:
        check(*args)
    except StudyError:
        raise
    except ScenarioError as e:
        raise StudyError(e.field, e.message) from None


def _derived(
    raw: Any, at: str, sweep: list[SweepParam], quick_values: dict[str, list[Any]], names: set[str]
) -> list[dict[str, Any]]:
    """``[[experiment.derived]]`` entries (:mod:`tcpeval.derived`), checked
    against the experiment's sweep and metrics; their names join ``names``."""
    if not isinstance(raw, list):
        raise StudyError(at, "must be an array of tables ([[experiment.derived]])")
    params = {p.name: p for p in sweep}
    metrics = set(names)
    out = []
    for i, d in enumerate(raw):
        dat = f"{at}[{i}]"
        if not isinstance(d, dict):
            raise StudyError(dat, "must be a table")
        _known_fields(d, dat, {"name", "fn", "metric", "baseline"})
        name = _req(d, "name", dat, str)
        if name in names or name in params:
            raise StudyError(f"{dat}.name", f"'{name}' is used twice")
        fn = _req(d, "fn", dat, str)
        if fn not in FUNCTIONS:
            raise StudyError(f"{dat}.fn", f"'{fn}' is not allowed; allowed: {', '.join(FUNCTIONS)}")
        metric = _req(d, "metric", dat, str)
        if metric not in metrics:
            raise StudyError(
                f"{dat}.metric", f"'{metric}' is not a metric of the experiment; metrics: {sorted(metrics)}"
            )
        baseline = _req(d, "baseline", dat, dict)
        if not baseline:
            raise StudyError(f"{dat}.baseline", "give at least one sweep parameter and its baseline value")
        for param, value in baseline.items():
            if param not in params:
                raise StudyError(
                    f"{dat}.baseline.{param}", f"not a sweep parameter; parameters: {sorted(params)}"
                )
            if value not in params[param].values:
                raise StudyError(
                    f"{dat}.baseline.{param}",
                    f"{value!r} is not one of its values {list(params[param].values)}",
                )
            if param in quick_values and value not in quick_values[param]:
                raise StudyError(
                    f"{dat}.baseline.{param}",
                    f"{value!r} is missing from the quick-mode values {quick_values[param]}",
                )
        names.add(name)
        out.append({"name": name, "fn": fn, "metric": metric, "baseline": baseline})
    return out


def _algorithms(raw: Any, at: str) -> dict[str, dict[str, Any]]:
    """``[algorithms.NAME]`` tables: ``params`` and ``tcp`` given to every flow running NAME."""
    if not isinstance(raw, dict):
        raise StudyError(at, "must be a table of algorithm names")
    for name, spec in raw.items():
        if not isinstance(spec, dict) or set(spec) - {"params", "tcp"}:
            raise StudyError(f"{at}.{name}", "must be a table with `params` and/or `tcp` tables")
    return raw


_STUDY_FIELDS = {
    "name",
    "title",
    "reference",
    "replications",
    "platform",
    "quick",
    "defaults",
    "algorithms",
    "experiment",
    "claim",
    "shared_notes",
    "skip_tables",
}
"""A study file's top-level fields (docs/study-format.md)."""
_QUICK_FIELDS = {"replications", "duration_scale"}
"""The study-wide ``[quick]`` table's fields."""


def _known_fields(raw: dict[str, Any], at: str, allowed: set[str]) -> None:
    """Refuses a field not in ``allowed``: a misspelt one (``replicatons``)
    would otherwise leave its default in force without a word."""
    unknown = set(raw) - allowed
    if unknown:
        what = "field(s)" if at else "top-level field(s)"
        raise StudyError(at, f"unknown {what} {sorted(unknown)}; allowed: {', '.join(sorted(allowed))}")


def parse_study(text: str, origin: str = "study") -> Study:
    """Parses study TOML text."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise StudyError("", f"{origin}: not valid TOML: {e}") from None
    except RecursionError:
        raise StudyError("", f"{origin}: tables or arrays nested too deeply") from None
    _known_fields(raw, "", _STUDY_FIELDS)
    name = _req(raw, "name", "", str)
    if not _NAME.fullmatch(name):
        raise StudyError("name", "use a-z, 0-9, _ and -")
    reps = raw.get("replications", 1)
    if not isinstance(reps, int) or not 1 <= reps <= 1000:
        raise StudyError("replications", f"{reps!r} is out of range; allowed 1 ..= 1000")
    quick = raw.get("quick", {})
    if not isinstance(quick, dict):
        raise StudyError("quick", "must be a table (replications, duration_scale)")
    _known_fields(quick, "quick", _QUICK_FIELDS)
    qreps = quick.get("replications", 1)
    if not isinstance(qreps, int) or not 1 <= qreps <= 1000:
        raise StudyError("quick.replications", f"{qreps!r} is out of range; allowed 1 ..= 1000")
    scale = quick.get("duration_scale", 1.0)
    if not isinstance(scale, (int, float)) or not 0 < scale <= 1:
        raise StudyError("quick.duration_scale", f"{scale!r} is out of range; allowed 0 < value <= 1")
    exps = raw.get("experiment", [])
    if not exps:
        raise StudyError("experiment", "a study needs at least one [[experiment]]")
    experiments = [_experiment(e, f"experiment[{i}]") for i, e in enumerate(exps)]
    dup = [e.name for e in experiments if [x.name for x in experiments].count(e.name) > 1]
    if dup:
        raise StudyError("experiment", f"experiment name '{dup[0]}' is used twice")
    platform = raw.get("platform")
    if platform is not None and not isinstance(platform, str):
        raise StudyError("platform", "must be a platform name (see `tcpeval platforms`)")
    skip = raw.get("skip_tables", [])
    if not isinstance(skip, list) or any(t not in SKIPPABLE_TABLES for t in skip):
        raise StudyError(
            "skip_tables", f"{skip!r}: a list of table names; allowed: {', '.join(SKIPPABLE_TABLES)}"
        )
    try:
        claims = parse_claims(
            raw.get("claim"),
            {
                e.name: (
                    {p.name: p.values for p in e.sweep},
                    {m.name for m in e.metrics} | {d["name"] for d in e.derived},
                )
                for e in experiments
            },
            raw.get("shared_notes"),
        )
    except ClaimError as e:
        raise StudyError(e.field, e.message) from None
    return Study(
        name=name,
        title=str(raw.get("title", name)),
        reference=str(raw.get("reference", "")),
        replications=reps,
        quick_replications=qreps,
        duration_scale=float(scale),
        defaults=raw.get("defaults", {}),
        algorithms=_algorithms(raw.get("algorithms", {}), "algorithms"),
        experiments=experiments,
        source=text,
        platform=platform,
        claims=claims,
        skip_tables=tuple(dict.fromkeys(skip)),
    )


def load_study(name_or_path: str | Path) -> Study:
    """Loads a shipped study by name, or a study file by path."""
    p = study_path(name_or_path)
    try:
        check_toml_file(p)
        text = p.read_text(encoding="utf-8")
    except ScenarioError as e:
        raise StudyError("", f"study {e.message}") from None
    except UnicodeDecodeError as e:
        raise StudyError("", f"{p}: not a TOML text file (not UTF-8 at byte {e.start})") from None
    except OSError as e:
        raise StudyError("", f"cannot read {p}: {e.strerror or e}") from None
    return parse_study(text, str(p))


def run_key(experiment: str, scenario_hash: str) -> str:
    """Identity of a run: its experiment, its scenario (seed included) and the tcpeval version.

    The experiment is part of it because two experiments may sweep through the
    same scenario (a pair of identical flows in an intra- and an
    inter-protocol grid) and each keeps its own row.
    """
    return hashlib.sha256(f"{experiment}:{scenario_hash}:{__version__}".encode()).hexdigest()[:24]


def plan_digest(source: str, quick: bool, platform: str | None) -> str:
    """What the run keys a sweep plans depend on: the study file's text, the
    contents of the files it reads (RTT CDFs, which the scenario hashes
    cover), the mode and the ``--platform`` override (and, through the
    keys, this version), as a SHA-256; ``study.json`` keeps the planned keys
    under it, so that a report need not expand the study again."""
    try:
        inputs = [
            hashlib.sha256(read_input_file(f, p)).hexdigest() for f, p in input_files(tomllib.loads(source))
        ]
    except (ScenarioError, tomllib.TOMLDecodeError) as e:
        inputs = [f"unreadable: {e}"]  # matches no sweep's digest: the report expands the study
    text = json.dumps([source, inputs, "quick" if quick else "full", platform, __version__])
    return hashlib.sha256(text.encode()).hexdigest()


def points(exp: Experiment, quick: bool) -> list[dict[str, Any]]:
    """The sweep grid of an experiment: one dict (parameter name -> value) per point."""
    values = [exp.quick_values.get(p.name, list(p.values)) if quick else list(p.values) for p in exp.sweep]
    return [
        dict(zip([p.name for p in exp.sweep], combo, strict=True)) for combo in itertools.product(*values)
    ]


def _apply_algorithm_settings(sc: dict[str, Any], settings: dict[str, dict[str, Any]]) -> None:
    """Gives each flow the study's ``params``/``tcp`` for its algorithm (the flow's own win)."""
    for flow in sc.get("flows", []):
        s = settings.get(flow.get("algorithm", ""), {})
        if "params" in s:
            flow["params"] = deep_merge(s["params"], flow.get("params", {}))
        if "tcp" in s:
            flow["tcp"] = deep_merge(s["tcp"], flow.get("tcp", {}))


def expand(
    study: Study, quick: bool = False, only: list[str] | None = None, platform: str | None = None
) -> list[RunSpec]:
    """Every run of the study (of the experiments named in ``only``, if given), validated.

    Each run's scenario gets the study's ``platform`` unless it names its
    own; ``platform`` (``--platform``) replaces both, so a study can be rerun
    on another sender with its paper's explicit settings kept."""
    reps = study.quick_replications if quick else study.replications
    names = [e.name for e in study.experiments]
    for n in only or []:
        if n not in names:
            raise StudyError("experiment", f"no experiment '{n}'; experiments: {', '.join(names)}")
    specs: list[RunSpec] = []
    for exp in study.experiments:
        if only and exp.name not in only:
            continue
        base = deep_merge(study.defaults, exp.scenario)
        if quick:
            base = deep_merge(base, exp.quick_scenario)
        params = {p.name: p for p in exp.sweep}
        scale = experiment_time_scale(study.duration_scale, sweep_paths(exp)) if quick else None
        for point in points(exp, quick):
            sc = copy.deepcopy(base)
            for pname, value in point.items():
                for path in params[pname].paths:
                    set_path(sc, path, value)
            _apply_algorithm_settings(sc, deep_merge(study.algorithms, exp.algorithms))
            if platform is not None:
                sc["platform"] = platform
            elif study.platform is not None:
                sc.setdefault("platform", study.platform)
            seed0 = int(sc.get("seed", 1))
            for r in range(reps):
                run_sc = dict(sc, seed=seed0 + r)
                try:
                    scenario = load_scenario(run_sc, scale)
                except ScenarioError as e:
                    where = ", ".join(f"{k}={v!r}" for k, v in point.items())
                    raise StudyError(f"experiment {exp.name} ({where}): {e.field}", e.message) from None
                key = run_key(exp.name, scenario.hash)
                specs.append(RunSpec(exp.name, point, seed0 + r, scenario.data, key, study.skip_tables))
    return specs
