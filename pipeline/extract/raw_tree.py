"""Read a round's raw submission tree into canonical result rows, without a summary.

What belongs here: walking a round's files (each run's log and system description is
parsed by ``pipeline.extract.run_files``) and turning a listing of a round's files into
the canonical results table plus a rejected table (``RESULTS_SCHEMA``,
``REJECTED_SCHEMA``). What does not: fetching and listing (``pipeline.source``),
comparing with the official summary (``pipeline.transform.crosscheck``), Dagster.

The raw tree is the only record of rounds before v4.1, and the authority behind every
summary, so it is read independently of the summary and never trusts it.

Layout read (the same for this purpose in v0.5, seen upstream, and v5.1/v6.0)::

    {division}/{submitter}/systems/{system}.json
    {division}/{submitter}/results/{system}/{benchmark}/{scenario}/performance/run_1/
        mlperf_log_summary.txt

v6.0 moved the compliance runs (TEST01, TEST04, ...) and ``measurements.json`` *into*
the scenario folder (upstream ``tools/submission/restructure_v5.1_to_v6.0.py`` in
mlcommons/inference; ``compliance/`` and ``measurements/`` are gone, ``code/`` became
``src/``). A compliance log now sits at ``.../{scenario}/TEST04/performance/run_1/``,
so only the exact depth above counts as a result; accuracy and compliance logs never
match it. Only ``run_1`` is read, as the submission checker does
(``PERFORMANCE_SUMMARY_PATH``); v0.5 Server folders also hold run_2..run_5.

Parsing is a Python loop over files (I/O bound); every decision that turns parsed
values into canonical ones (scenario spelling, units, inferred scenarios, benchmark
names, availability, counts, keys, rejection reasons) is one lazy Polars plan.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from pipeline.extract.accuracy_txt import (
    ACCURACY_TXT,
    AccuracyTextError,
    parse_accuracy_txt,
)
from pipeline.extract.endpoints import (
    DISTRIBUTIONS,
    PERCENTILES,
    EndpointsFileError,
    parse_accuracy,
    parse_result_summary,
)
from pipeline.extract.json_values import (
    loads,
)
from pipeline.extract.run_files import (
    SYSTEM_FIELDS,
    LogSummaryError,
    SystemJsonError,
    parse_log_summary,
    parse_system_json,
)
from pipeline.extract.submitter_csv import is_submitter_csv
from pipeline.registry.accuracy import AccuracyRule, accuracy_rule_for
from pipeline.registry.endpoints import EndpointRules, endpoint_rules_for
from pipeline.registry.rounds import Inference, RoundRules, rules_for
from pipeline.source import SourceError
from pipeline.transform.measured import measured_latency
from pipeline.transform.results import (
    SCENARIO_SPELLINGS,
    STAGED_SCHEMA,
    canonicalise,
    reason_when,
)

#: Where an endpoints result's accuracy run sits in its scenario folder.
ENDPOINTS_ACCURACY = "accuracy/accuracy_results.json"

_RESULT_PATH = re.compile(
    r"^(?P<division>[^/]+)/(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/"
    r"(?P<benchmark>[^/]+)/(?P<scenario>[^/]+)/performance/(?P<rest>.+)$"
)
# The endpoints harness writes performance/result_summary.json (submission checker,
# parsers/endpoints_parser.py); run_1/ is accepted too in case a submitter nests it.
_ENDPOINTS_FILES = ("result_summary.json", "run_1/result_summary.json")

#: Raw-tree field names as messages name them (the system JSON's own keys).
FIELD_NAMES = {
    "submitter": "submitter folder",
    "division": "division folder",
    "platform": "system folder",
    "benchmark_upstream": "benchmark folder",
    "scenario_upstream": "scenario directory",
    "value_text": "metric",
    "unit_raw": "metric unit",
    "availability": "status",
    "nodes_raw": "number_of_nodes",
    "apn_raw": "accelerators_per_node",
    "total_raw": "total_accelerators",
}
#: Fields read from the system description (messages name that file).
SYSTEM_SOURCED = frozenset({"availability", "nodes_raw", "apn_raw", "total_raw"})


# -- scanning ----------------------------------------------------------------------

#: One row per scenario folder, as the Python loop reads it (all decisions pending).
FOLDER_SCHEMA: dict[str, pl.DataType] = {
    "division": pl.String,
    "submitter": pl.String,
    "system_dir": pl.String,
    "benchmark_dir": pl.String,
    "scenario_dir": pl.String,
    "harness": pl.String,
    "source_file": pl.String,
    "snapshot_sha256": pl.String,
    "log_head": pl.String,
    "log_error": pl.String,
    "logged_scenario": pl.String,
    "metric_name": pl.String,
    "metric_value": pl.Float64,
    "metric_unit": pl.String,
    "is_result_valid": pl.Boolean,
    "mean_latency_ns": pl.Float64,
    "early_stopping_ns": pl.List(
        pl.Struct({"percentile": pl.Float64, "value": pl.Float64})
    ),
    # The endpoints harness (pipeline.extract.endpoints.parse_result_summary).
    "ep_complete": pl.Boolean,
    "ep_state": pl.String,
    "ep_failed": pl.Int64,
    "ep_completed": pl.Int64,
    "ep_qps": pl.Float64,
    "ep_tps": pl.Float64,
    "ep_duration_ns": pl.Float64,
    "ep_window_ns": pl.Float64,
    **{
        f"{d}_{p}_ns": pl.Float64
        for d in DISTRIBUTIONS
        for p in (*(f"p{q:g}" for q in PERCENTILES), "es")
    },
    "accuracy_file": pl.String,
    "accuracy": pl.Float64,
    "accuracy_error": pl.String,
    # A loadgen result's accuracy/accuracy.txt, read by the round's checker patterns
    # (registry/accuracy.toml) where the round lists them: "F1: 90.874", or why not.
    "accuracy_text": pl.String,
    "accuracy_text_error": pl.String,
    "system_file": pl.String,
    "has_system_file": pl.Boolean,
    "system_error": pl.String,
    **{f"sys_{name}": pl.String for name in SYSTEM_FIELDS},
    "benchmark_mapped": pl.String,
    "mapping_error": pl.String,
}


def _read_error(exc: Exception) -> str:
    return (
        str(exc) if isinstance(exc, SourceError) else f"{exc.__class__.__name__}: {exc}"
    )


@dataclass
class _Stager:
    """Reads each file once; system descriptions and model mappings are shared."""

    paths: set[str]
    read: Callable[[str], bytes]
    rules: RoundRules
    endpoints: EndpointRules
    accuracy: AccuracyRule | None = None
    systems: dict[str, tuple[dict[str, str | None] | None, str | None]] = field(
        default_factory=dict
    )
    mappings: dict[str, tuple[dict[str, str], str | None]] = field(default_factory=dict)

    def system(self, path: str) -> tuple[dict[str, str | None] | None, str | None]:
        if path not in self.systems:
            try:
                fields = parse_system_json(
                    self.read(path), where=f"{self.rules.release} {path}"
                )
                self.systems[path] = (fields, None)
            except SystemJsonError as exc:
                self.systems[path] = (None, str(exc))
            except (OSError, SourceError) as exc:
                self.systems[path] = (None, _read_error(exc))
        return self.systems[path]

    def mapping(self, path: str) -> tuple[dict[str, str], str | None]:
        """Open-division ``model_mapping.json``: submitter model name -> benchmark."""
        if path not in self.paths:
            return {}, None
        if path not in self.mappings:
            where = f"{self.rules.release} {path}"
            try:
                document = loads(self.read(path))
                if not isinstance(document, dict):
                    raise ValueError("expected a JSON object")
                self.mappings[path] = (
                    {str(k): str(v) for k, v in document.items()},
                    None,
                )
            except (OSError, SourceError) as exc:
                self.mappings[path] = ({}, f"{where}: {_read_error(exc)}")
            except ValueError as exc:
                self.mappings[path] = ({}, f"{where}: {exc}")
        return self.mappings[path]

    def row(self, key: tuple[str, ...], files: dict[str, str]) -> dict[str, object]:
        division, submitter, system, benchmark, scenario = key
        folder = "/".join((division, submitter, "results", system, benchmark, scenario))
        system_file = _system_file(self.rules, division, submitter, system)
        row: dict[str, object] = dict.fromkeys(FOLDER_SCHEMA)
        row.update(
            division=division,
            submitter=submitter,
            system_dir=system,
            benchmark_dir=benchmark,
            scenario_dir=scenario,
            system_file=system_file,
            has_system_file=system_file in self.paths,
            source_file=f"{folder}/performance",
        )
        if row["has_system_file"]:
            fields, error = self.system(system_file)
            row["system_error"] = error
            row.update({f"sys_{k}": v for k, v in (fields or {}).items()})
        mapping, row["mapping_error"] = self.mapping(
            f"{division}/{submitter}/model_mapping.json"
        )
        row["benchmark_mapped"] = mapping.get(benchmark)
        if "loadgen" in files:
            row.update(harness="loadgen", source_file=files["loadgen"])
            self._read_log(row, files["loadgen"])
            self._read_accuracy_txt(row, folder, mapping.get(benchmark, benchmark))
        elif "endpoints" in files:
            row.update(harness="endpoints", source_file=files["endpoints"])
            self._read_endpoints(row, files["endpoints"], folder)
        return row

    def _read_endpoints(self, row: dict[str, object], path: str, folder: str) -> None:
        where = f"{self.rules.release} {path}"
        try:
            content = self.read(path)
        except (OSError, SourceError) as exc:
            row["log_error"] = f"{where}: unreadable ({_read_error(exc)})"
            return
        row["snapshot_sha256"] = hashlib.sha256(content).hexdigest()
        row["log_head"] = content[:400].decode("utf-8", errors="replace")
        validity = self.endpoints.validity
        try:
            row.update(
                parse_result_summary(
                    content,
                    where=where,
                    percentile=validity.percentile if validity else 99.0,
                )
            )
        except EndpointsFileError as exc:
            row["log_error"] = str(exc)
        accuracy = f"{folder}/{ENDPOINTS_ACCURACY}"
        if accuracy not in self.paths:
            return
        row["accuracy_file"] = accuracy
        where = f"{self.rules.release} {accuracy}"
        try:
            row["accuracy"] = parse_accuracy(self.read(accuracy), where=where)
        except (OSError, SourceError) as exc:
            row["accuracy_error"] = f"{where}: unreadable ({_read_error(exc)})"
        except EndpointsFileError as exc:
            row["accuracy_error"] = str(exc)

    def _read_accuracy_txt(
        self, row: dict[str, object], folder: str, model: str
    ) -> None:
        """The folder's accuracy.txt, where the round's checker patterns are known.

        A file not in the listing leaves both columns null (the mirror holds none).
        """
        path = f"{folder}/{ACCURACY_TXT}"
        if self.accuracy is None or path not in self.paths:
            return
        where = f"{self.rules.release} {path}"
        try:
            row["accuracy_text"] = parse_accuracy_txt(
                self.read(path), rule=self.accuracy, model=model, where=where
            )
        except (OSError, SourceError) as exc:
            row["accuracy_text_error"] = f"{where}: unreadable ({_read_error(exc)})"
        except AccuracyTextError as exc:
            row["accuracy_text_error"] = str(exc)

    def _read_log(self, row: dict[str, object], path: str) -> None:
        where = f"{self.rules.release} {path}"
        try:
            content = self.read(path)
        except (OSError, SourceError) as exc:
            row["log_error"] = f"{where}: unreadable ({_read_error(exc)})"
            return
        row["snapshot_sha256"] = hashlib.sha256(content).hexdigest()
        text = content.decode("utf-8", errors="replace")
        row["log_head"] = text[:400]
        try:
            log = parse_log_summary(text, where=where, rules=self.rules)
        except LogSummaryError as exc:
            row["log_error"] = str(exc)
            return
        row.update(
            logged_scenario=log.scenario,
            metric_name=log.metric_name,
            metric_value=log.metric_value,
            metric_unit=log.metric_unit,
            is_result_valid=log.result_valid,
            mean_latency_ns=log.mean_latency_ns,
            early_stopping_ns=[
                {"percentile": float(p), "value": v}
                for p, v in log.early_stopping_ns.items()
            ],
        )


def _scenario_folders(
    paths: list[str], rules: RoundRules
) -> dict[tuple[str, ...], dict[str, str]]:
    """Each scenario folder of the listing, with the log file the round reads in it."""
    folders: dict[tuple[str, ...], dict[str, str]] = {}
    for path in sorted(paths):
        match = _RESULT_PATH.match(path)
        if match is None:
            continue
        key = match.group("division", "submitter", "system", "benchmark", "scenario")
        files = folders.setdefault(key, {})
        rest = match.group("rest")
        if rest in rules.log_files:
            # The round's preferred log file wins (v0.5: run_1/ over a bare log).
            known = files.get("loadgen")
            if known is None or rules.log_files.index(rest) < rules.log_files.index(
                known.split("/performance/", 1)[1]
            ):
                files["loadgen"] = path
        elif rest in _ENDPOINTS_FILES:
            files.setdefault("endpoints", path)
    return folders


def _system_file(rules: RoundRules, division: str, submitter: str, system: str) -> str:
    return rules.system_files.get(
        f"{division}/{submitter}/{system}",
        f"{division}/{submitter}/systems/{system}.json",
    )


def files_read(
    paths: list[str], *, release: str, rules: RoundRules | None = None
) -> list[str]:
    """Exactly the listed files :func:`stage_raw_tree` reads, for one batched fetch.

    Per scenario folder: its loadgen log (and ``accuracy/accuracy.txt`` in a round
    whose checker patterns ``registry/accuracy.toml`` lists; or, for an endpoints
    result, its ``result_summary.json`` and ``accuracy/accuracy_results.json``), the
    system description and the division's ``model_mapping.json``, where listed; and
    the submitters' own summary CSVs (``extract.submitter_csv``). Never code,
    compliance runs, accuracy logs or anything else.
    """
    rules = rules or rules_for(release)
    reads_accuracy = accuracy_rule_for(rules.release) is not None
    listed = set(paths)
    wanted: set[str] = set()
    for key, files in _scenario_folders(paths, rules).items():
        division, submitter, system, _, _ = key
        wanted.add(_system_file(rules, division, submitter, system))
        wanted.add(f"{division}/{submitter}/model_mapping.json")
        if "loadgen" in files:
            wanted.add(files["loadgen"])
            if reads_accuracy:
                folder = "/".join((division, submitter, "results", *key[2:]))
                wanted.add(f"{folder}/{ACCURACY_TXT}")
        elif "endpoints" in files:
            folder = "/".join((division, submitter, "results", *key[2:]))
            wanted.update((files["endpoints"], f"{folder}/{ENDPOINTS_ACCURACY}"))
    # The submitters' own summary tables: read to check the logs against.
    wanted.update(p for p in listed if is_submitter_csv(p))
    return sorted(wanted & listed)


def stage_raw_tree(
    paths: list[str],
    read: Callable[[str], bytes],
    *,
    release: str,
    rules: RoundRules | None = None,
) -> pl.DataFrame:
    """One row per scenario folder of the listing, every file parsed, nothing decided.

    A scenario folder is any ``results/{system}/{benchmark}/{scenario}`` with a file
    under ``performance/``; one without a loadgen log (at one of the round's
    ``log_files``) or an endpoints summary becomes a row too, so the transform can
    reject it rather than lose it.
    """
    rules = rules or rules_for(release)
    folders = _scenario_folders(paths, rules)
    stager = _Stager(
        paths=set(paths),
        read=read,
        rules=rules,
        endpoints=endpoint_rules_for(release),
        accuracy=accuracy_rule_for(rules.release),
    )
    rows = [stager.row(key, files) for key, files in folders.items()]
    return (
        pl.from_dicts(rows, schema=FOLDER_SCHEMA)
        if rows
        else pl.DataFrame(schema=FOLDER_SCHEMA)
    )


# -- from folders to staged rows (Polars) ---------------------------------------------


def _estimate_at(percentile: float) -> pl.Expr:
    """The logged early-stopping estimate at one percentile (99 and 99.0 are one)."""
    return (
        pl.col("early_stopping_ns")
        .list.eval(
            pl.element()
            .filter((pl.element().struct.field("percentile") - percentile).abs() < 1e-9)
            .struct.field("value")
        )
        .list.first()
    )


def _inferred_value(rule: Inference, rules: RoundRules) -> tuple[pl.Expr, pl.Expr]:
    """(value, reason it cannot be computed) of one inference rule, as the checker."""
    if rule.method in ("reciprocal_mean_latency", "samples_over_mean_latency"):
        per_query = rule.samples_per_query or 1
        return per_query * 1e9 / pl.col("mean_latency_ns"), reason_when(
            pl.col("mean_latency_ns").is_null(),
            f"cannot infer {rule.scenario} from {rule.source}: "
            "no 'Mean latency (ns)' line",
        )
    assert rule.percentile is not None and rule.samples_per_query is not None
    estimate = _estimate_at(rule.percentile)
    # The rules loader guarantees the source scenario names its estimate line.
    template = rules.metrics[rule.source].estimate_line or ""
    line = template.replace("{p}", f"{rule.percentile:g}")
    return rule.samples_per_query * estimate, reason_when(
        estimate.is_null(),
        f"cannot infer {rule.scenario} from {rule.source}: no {line!r} line",
    )


def _mismatch_reason(
    rules: RoundRules, inferable: pl.Expr, refused: pl.Expr, edge: pl.Expr
) -> pl.Expr:
    """Why a folder holding another scenario's run is no result, naming the rule."""
    held = pl.format("{} directory holds a {} run", "scenario", "logged_scenario")
    rule = rules.mismatch_rule
    if not rule:  # the rules say nothing of this round's checker
        return pl.format(
            "{}; no rule infers {} from {}", held, "scenario", "logged_scenario"
        )
    checker = f"the {rules.release} submission checker"
    return (
        pl.when(inferable & ~edge & pl.lit(rules.infer_requires_edge))
        .then(
            pl.format(
                "{}; {} infers {} from {} for edge systems only, and system_type is "
                "'{}' ({})",
                held,
                pl.lit(checker),
                "scenario",
                "logged_scenario",
                pl.col("sys_system_type").fill_null(""),
                pl.lit(rule),
            )
        )
        .when(refused)
        .then(pl.format("{}; {} refused it ({})", held, pl.lit(checker), pl.lit(rule)))
        .otherwise(
            pl.format(
                "{}; {} reports no such result ({})",
                held,
                pl.lit(checker),
                pl.lit(rule),
            )
        )
    )


_WINDOW_COLUMNS = {
    "duration_ns": "ep_duration_ns",
    "legacy_loadgen_window_duration_ns": "ep_window_ns",
}


def _endpoints_result(endpoints: EndpointRules) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(value, unit, upstream unit) of an endpoints result, by ``endpoints.toml``."""
    field = pl.col("benchmark_dir").replace_strict(
        {b: r.field for b, r in endpoints.results.items()},
        default=None,
        return_dtype=pl.String,
    )
    units = {
        f"{b}/{s}": u
        for b, r in sorted(endpoints.results.items())
        for s, u in sorted(r.units.items())
    }
    unit = pl.concat_str("benchmark_dir", "scenario", separator="/").replace_strict(
        units, default=None, return_dtype=pl.String
    )
    value = (
        pl.when(field == "tps")
        .then(pl.col("ep_tps"))
        .when(field == "qps")
        .then(pl.col("ep_qps"))
    )
    return value, unit, pl.format("{} of result_summary.json", field)


def _endpoints_problems(endpoints: EndpointRules) -> list[pl.Expr]:
    """Why an endpoints result is no valid result, each check by ``endpoints.toml``."""
    release = endpoints.release
    known = pl.col("benchmark_dir").is_in(sorted(endpoints.results))
    checks = [
        pl.col("log_error"),
        reason_when(
            ~known,
            pl.format(
                f"no rule names the result field of benchmark '{{}}' in {release} "
                "endpoints results (endpoints.toml)",
                "benchmark_dir",
            ),
        ),
        reason_when(
            pl.col("log_error").is_null()
            & (pl.col("ep_complete").is_null() | ~pl.col("ep_complete")),
            pl.format(
                "incomplete run: result_summary.json says complete = {}",
                pl.col("ep_complete").cast(pl.String).fill_null("(absent)"),
            ),
        ),
        reason_when(
            pl.col("log_error").is_null()
            & (pl.col("ep_failed").is_null() | (pl.col("ep_failed") != 0)),
            pl.format(
                "failed samples: result_summary.json says n_samples_failed = {}",
                pl.col("ep_failed").cast(pl.String).fill_null("(absent)"),
            ),
        ),
        pl.col("accuracy_error"),
        reason_when(
            pl.col("log_error").is_null() & pl.col("accuracy_file").is_null(),
            pl.format("no {} in {}", pl.lit(ENDPOINTS_ACCURACY), "location"),
        ),
    ]
    rule = endpoints.validity
    if rule is None:
        checks.append(pl.lit(f"no endpoints validity rule for {release}"))
        return checks
    checks.append(
        reason_when(
            pl.col("log_error").is_null()
            & pl.col("ep_state").fill_null("").ne(rule.state),
            pl.format(
                f"result_summary.json says state = {{}}, not '{rule.state}'",
                pl.col("ep_state").fill_null("(absent)"),
            ),
        )
    )
    for scenario, window in sorted(rule.window.items()):
        column = pl.col(_WINDOW_COLUMNS[window])
        checks.append(
            reason_when(
                pl.col("log_error").is_null()
                & (pl.col("scenario") == scenario)
                & (column.is_null() | (column <= 0)),
                f"a {scenario} result needs a positive {window} in result_summary.json",
            )
        )
    for scenario, dists in sorted(rule.early_stopping.items()):
        for dist in dists:
            checks.append(
                reason_when(
                    pl.col("log_error").is_null()
                    & (pl.col("scenario") == scenario)
                    & pl.col(f"{dist}_es_ns").is_null(),
                    f"a {scenario} result needs {dist}.early_stopping_percentiles "
                    f"at {rule.percentile:g} in result_summary.json",
                )
            )
    return checks


def folders_to_staged(
    folders: pl.LazyFrame,
    *,
    rules: RoundRules,
    endpoints: EndpointRules | None = None,
) -> pl.LazyFrame:
    """Scenario folders to staged rows (``STAGED_SCHEMA``), by the round's rules.

    Decides what a folder reports: its own run, the run loadgen makes for it
    (``runs_as``: an Interactive folder holds a Server run), or a result the checker
    infers from another scenario's run (``infer``); and every reason only the raw
    tree can have (no log, an unreadable log or system description, an INVALID run,
    an unknown scenario folder, no inference rule). Field validation, units and keys
    are left to ``canonicalise``. An endpoints-harness folder reports the field
    ``endpoints.toml`` names, if its ``result_summary.json`` says the run is valid.
    """
    endpoints = endpoints or endpoint_rules_for(rules.release)
    scenario = (
        pl.col("scenario_dir")
        .str.to_lowercase()
        .replace_strict(SCENARIO_SPELLINGS, default=None)
    )
    logged = pl.col("logged_scenario")
    runs_as = pl.col("scenario").replace(dict(rules.runs_as))
    location = pl.concat_str(
        "division", "submitter", pl.lit("results"), "system_dir", "benchmark_dir",
        "scenario_dir", separator="/",
    )  # fmt: skip
    folders = folders.with_columns(scenario=scenario, location=location).with_columns(
        is_direct=logged == runs_as
    )
    is_endpoints = pl.col("harness") == "endpoints"
    ep_value, ep_unit, ep_upstream = _endpoints_result(endpoints)
    value: pl.Expr = (
        pl.when(is_endpoints).then(ep_value).when("is_direct").then("metric_value")
    )
    unit: pl.Expr = (
        pl.when(is_endpoints).then(ep_unit).when("is_direct").then("metric_unit")
    )
    unit_upstream: pl.Expr = (
        pl.when(is_endpoints).then(ep_upstream).when("is_direct").then("metric_name")
    )
    inferred: pl.Expr = pl.lit(False)
    missing_inputs: list[pl.Expr] = []
    edge = (
        pl.col("sys_system_type").fill_null("").str.to_lowercase().str.contains("edge")
    )
    inferable = pl.lit(False)
    for rule in rules.inferences:
        pair = (pl.col("scenario") == rule.scenario) & (logged == rule.source)
        inferable = inferable | pair
        applies = ~pl.col("is_direct") & pair
        if rules.infer_requires_edge:
            applies = applies & edge
        rule_value, rule_missing = _inferred_value(rule, rules)
        value = value.when(applies).then(rule_value)
        unit = unit.when(applies).then(pl.lit(rule.unit))
        unit_upstream = unit_upstream.when(applies).then(pl.lit(rule.description))
        inferred = inferred | applies
        missing_inputs.append(pl.when(applies).then(rule_missing))
    has_run = logged.is_not_null() & pl.col("scenario").is_not_null()
    refused = pl.lit(False)
    for folder, source in sorted(rules.refused):
        refused = refused | ((pl.col("scenario") == folder) & (logged == source))
    # What the round's checker did with any other mismatch: reported the run's own
    # value under the folder's scenario ("as_is"), or nothing ("refuse").
    as_is = (
        ~pl.col("is_direct")
        & has_run
        & ~inferred.fill_null(False)
        & ~inferable.fill_null(False)
        & ~refused.fill_null(False)
        & pl.lit(rules.mismatch == "as_is")
    )
    value = value.when(as_is).then(pl.col("metric_value"))
    unit = unit.when(as_is).then(pl.col("metric_unit"))
    unit_upstream = unit_upstream.when(as_is).then(
        pl.format(
            "{} of a {} run, reported as {} as the {} checker did",
            "metric_name",
            "logged_scenario",
            "scenario",
            pl.lit(rules.release),
        )
    )
    inferred = inferred | as_is
    mismatch_reason = _mismatch_reason(rules, inferable, refused, edge)
    first_log = rules.log_files[0]
    log_dir = first_log.rsplit("/", 1)[0] if "/" in first_log else ""
    log_name = first_log.rsplit("/", 1)[-1]
    unknown_scenario = reason_when(
        pl.col("scenario").is_null(),
        pl.format("unknown scenario directory '{}'", "scenario_dir"),
    )
    system_checks = [
        reason_when(
            pl.col("harness").is_not_null() & ~pl.col("has_system_file"),
            pl.format("missing system JSON {}", "system_file"),
        ),
        reason_when(
            pl.col("system_error").is_not_null(),
            pl.format("unreadable system JSON: {}", "system_error"),
        ),
        reason_when(
            pl.col("mapping_error").is_not_null(),
            pl.format("unreadable model mapping: {}", "mapping_error"),
        ),
    ]
    checks = [
        reason_when(
            pl.col("harness").is_null(),
            pl.format(
                f"no {log_name} under {{}}/performance"
                + (f"/{log_dir}" if log_dir else ""),
                "location",
            ),
        ),
        pl.col("log_error"),
        reason_when(
            pl.col("is_result_valid").not_(), "INVALID result ('Result is : INVALID')"
        ),
        unknown_scenario,
        pl.when(has_run & ~pl.col("is_direct") & ~pl.col("is_inferred")).then(
            mismatch_reason
        ),
        *missing_inputs,
        *system_checks,
    ]
    folders = folders.with_columns(is_inferred=inferred.fill_null(False)).with_columns(
        value=value,
        unit_raw=unit,
        unit_upstream=unit_upstream,
        problem=pl.when(is_endpoints)
        .then(
            pl.concat_str(
                [
                    *_endpoints_problems(endpoints),
                    unknown_scenario,
                    *system_checks,
                ],
                separator="; ",
                ignore_nulls=True,
            )
        )
        .otherwise(pl.concat_str(checks, separator="; ", ignore_nulls=True)),
    )
    readable_system = pl.col("has_system_file") & pl.col("system_error").is_null()
    return (
        folders.sort("source_file")
        .select(
            "source_file",
            pl.col("system_file").alias("source_record"),
            pl.int_range(pl.len(), dtype=pl.Int64).alias("record_order"),
            pl.col("source_file").alias("record_label"),
            pl.struct(
                "location",
                "system_file",
                "harness",
                "logged_scenario",
                "metric_name",
                "metric_value",
                "log_head",
            )
            .struct.json_encode()
            .alias("record_json"),  # fmt: skip
            "snapshot_sha256",
            pl.when(pl.col("problem") != "").then("problem").alias("problem"),
            pl.when(readable_system).then(pl.col("system_file")).alias("field_source"),
            pl.lit(None, dtype=pl.String).alias("result_id"),
            pl.col("benchmark_dir").alias("key_model"),
            "submitter",
            "division",
            pl.col("sys_system_type").alias("category"),
            pl.col("sys_status").alias("availability"),
            pl.col("sys_system_name").alias("system_name"),
            pl.col("system_dir").alias("platform"),
            pl.coalesce("benchmark_mapped", "benchmark_dir").alias(
                "benchmark_upstream"
            ),
            pl.col("benchmark_dir").alias("model_upstream"),
            pl.coalesce("scenario", "scenario_dir").alias("scenario_upstream"),
            "value",
            pl.col("value").cast(pl.String).alias("value_text"),
            "unit_raw",
            "unit_upstream",
            "is_inferred",
            pl.lit(None, dtype=pl.String).alias("power_raw"),
            pl.lit(None, dtype=pl.String).alias("power_unit_raw"),
            pl.col("sys_number_of_nodes").alias("nodes_raw"),
            pl.col("sys_accelerators_per_node").alias("apn_raw"),
            pl.lit(None, dtype=pl.String).alias("total_raw"),
            pl.col("sys_accelerator_model_name").alias("accelerator_upstream"),
            pl.col("sys_host_processor_model_name").alias("cpu_raw"),
            pl.col("sys_framework").alias("software"),
            # weight_data_types lives in measurements files, which are not read here.
            pl.lit(None, dtype=pl.String).alias("weight_data_types"),
            # accuracy.txt as the round's checker reads it, where the registry
            # lists its patterns (the endpoints harness's accuracy is in
            # transform/measured.py).
            pl.col("accuracy_text").alias("accuracy_upstream"),
            pl.col("accuracy_text_error").alias("accuracy_note"),
            # No raw tree declares a design power where this scan reads.
            pl.lit(None, dtype=pl.String).alias("design_power_raw"),
            "location",
        )
        .cast(STAGED_SCHEMA)
    )


def scan_raw_tree(
    paths: list[str],
    read: Callable[[str], bytes],
    *,
    release: str,
    repository: str,
    rules: RoundRules | None = None,
    commit: str | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Turn a round's file listing into (canonical results, rejected folders).

    Every scenario folder under ``results/`` ends up as exactly one result or one
    rejected row with a reason: an INVALID run, a log without its metric line, a
    missing or unreadable system description, an unknown scenario spelling, or an
    endpoints-harness result we cannot read yet. Result rows carry ``result_id``
    null (the raw tree has no IDs) and a key built like the summary's fallback key
    but with the submitter's model folder, because several open-division models map
    to one benchmark and would collide.

    Args:
        paths: Repository-relative paths, e.g. from ``Source.list_tree``.
        read: Returns the bytes of one path (``Source.fetch(...).content``).
        release: Round, e.g. ``"v5.1"``.
        repository: ``owner/name`` on GitHub, for result links.
        rules: The round's rules; ``rounds.toml``'s for ``release`` by default.
        commit: The upstream commit the tree was read at, named in result links.
    """
    results, rejected, _ = scan_raw_tree_measured(
        paths, read, release=release, repository=repository, rules=rules, commit=commit
    )
    return results, rejected


def scan_raw_tree_measured(
    paths: list[str],
    read: Callable[[str], bytes],
    *,
    release: str,
    repository: str,
    rules: RoundRules | None = None,
    commit: str | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """``scan_raw_tree``'s two tables and the results' measured latency and accuracy.

    The third table is ``pipeline.transform.measured.MEASURED_SCHEMA``: one row per
    tree result whose files state its latency distributions or accuracy (results of
    the endpoints harness), times in milliseconds.
    """
    rules = rules or rules_for(release)
    endpoints = endpoint_rules_for(release)
    folders = stage_raw_tree(paths, read, release=release, rules=rules).lazy()
    staged = folders_to_staged(folders, rules=rules, endpoints=endpoints)
    results, rejected = canonicalise(
        staged,
        rules=rules,
        repository=repository,
        names=FIELD_NAMES,
        sourced=SYSTEM_SOURCED,
        commit=commit,
        division_is_folder=True,
    )
    validity = endpoints.validity
    measured = measured_latency(
        folders, results, percentile=validity.percentile if validity else None
    )
    results_df, rejected_df, measured_df = pl.collect_all([results, rejected, measured])
    return results_df, rejected_df, measured_df


def system_files(
    paths: list[str], *, release: str, rules: RoundRules | None = None
) -> dict[tuple[str, str, str], str]:
    """(division, submitter, system folder) -> the system file the scan reads for it.

    The systems table (``pipeline.transform.systems``) describes exactly the systems
    that have results, from the files the scan read; a listed file that is not there
    becomes a quarantined row there, not a gap.
    """
    rules = rules or rules_for(release)
    return {
        (division, submitter, system): _system_file(rules, division, submitter, system)
        for (division, submitter, system, _, _), files in _scenario_folders(
            paths, rules
        ).items()
        if "loadgen" in files or "endpoints" in files
    }
