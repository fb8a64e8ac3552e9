"""Read a round's raw submission tree into canonical result rows, without a summary.

What belongs here: parsing loadgen ``mlperf_log_summary.txt`` files and
``systems/<system>.json`` descriptions, and turning a listing of a round's files into
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
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import polars as pl

from pipeline.registry import benchmark_aliases
from pipeline.source import SourceError
from pipeline.transform.results import (
    AVAILABILITIES,
    REJECTED_SCHEMA,
    RESULTS_SCHEMA,
    SCENARIOS,
    strip_count_prefix,
    strip_count_suffix,
)

#: Reason given for results of the endpoints harness (v6.1 on), which we cannot read.
UNSUPPORTED_ENDPOINTS = "unsupported: endpoints harness result_summary.json"
#: Placeholders submitters write for "no accelerator" in ``accelerator_model_name``.
NO_ACCELERATOR = ("", "n/a", "na", "none", "-", "null")
#: MultiStream results inferred from a SingleStream run assume 8 samples per query, as
#: the submission checker does (``get_inferred_result`` in mlcommons/inference).
MULTISTREAM_SAMPLES_PER_QUERY = 8

_RESULT_PATH = re.compile(
    r"^(?P<division>[^/]+)/(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/"
    r"(?P<benchmark>[^/]+)/(?P<scenario>[^/]+)/performance/(?P<rest>.+)$"
)
_LOADGEN_LOG = "run_1/mlperf_log_summary.txt"
# The endpoints harness writes performance/result_summary.json (submission checker,
# parsers/endpoints_parser.py); run_1/ is accepted too in case a submitter nests it.
_ENDPOINTS_FILES = ("result_summary.json", "run_1/result_summary.json")

_SCENARIO_KINDS = {s.lower(): s for s in SCENARIOS}
_NUMBER = r"(\S+)"
_LINE = {
    "scenario": re.compile(r"^Scenario\s*:\s*(.*?)\s*$", re.M),
    "result": re.compile(r"^Result is\s*:\s*(\S*)", re.M),
    "mean": re.compile(r"^Mean latency \(ns\)\s*:\s*" + _NUMBER, re.M),
    "headline": re.compile(
        r"^(\d+(?:\.\d+)?)th percentile latency \(ns\)\s*:\s*(\S+)", re.M
    ),
    "legacy_multistream": re.compile(r"^Samples per query\s*:", re.M),
}
_ESTIMATE = re.compile(
    r"^\s*\*\s*Early stopping (\d+(?:\.\d+)?)th percentile estimate\s*:\s*(\S+)"
)
#: Throughput lines per logged scenario, most specific first, with the unit they carry.
#: LLM benchmarks print tokens and samples; the tokens line is the reported metric
#: (checker RESULT_FIELD_BENCHMARK_OVERWRITE: result_tokens_per_second /
#: result_completed_tokens_per_second), and only token-based runs print it.
_THROUGHPUT: dict[str, tuple[tuple[str, str], ...]] = {
    "Offline": (("Tokens per second", "tokens/s"), ("Samples per second", "samples/s")),
    "Server": (
        ("Completed tokens per second", "tokens/s"),
        ("Completed samples per second", "samples/s"),
    ),
}
_THROUGHPUT["Interactive"] = _THROUGHPUT["Server"]

#: System description fields kept, as the canonical table needs them.
SYSTEM_FIELDS = (
    "division",
    "submitter",
    "system_name",
    "status",
    "system_type",
    "number_of_nodes",
    "accelerators_per_node",
    "accelerator_model_name",
    "host_processor_model_name",
    "host_processors_per_node",
    "framework",
    "operating_system",
    "other_software_stack",
)


class LogSummaryError(ValueError):
    """A loadgen summary log cannot give a result; the message says where and why."""


class SystemJsonError(ValueError):
    """A system description cannot be read; the message says where and why."""


@dataclass(frozen=True)
class LogSummary:
    """What one ``mlperf_log_summary.txt`` reports, before any normalisation.

    Attributes:
        scenario: The scenario loadgen ran, in canonical spelling ("Multi Stream" in
            v0.5 logs reads as "MultiStream"). It can differ from the folder: edge
            submitters may put a SingleStream run under Offline/ and MultiStream/.
        metric_name: The log line holding the reported metric, as written upstream.
        metric_value: That line's number as logged (latencies in ns).
        metric_unit: ``"ns"``, ``"tokens/s"`` or ``"samples/s"``.
        result_valid: Whether loadgen wrote ``Result is : VALID``.
        mean_latency_ns: ``Mean latency (ns)``; an Offline result inferred from a
            SingleStream run is its reciprocal.
        early_stopping_ns: Early-stopping estimates of the whole-query latency by
            percentile ("90.0", "99.0"), from the ``Early Stopping Result:`` block.
    """

    scenario: str
    metric_name: str
    metric_value: float
    metric_unit: str
    result_valid: bool
    mean_latency_ns: float | None = None
    early_stopping_ns: Mapping[str, float] = field(default_factory=dict)


def _number(raw: str, name: str, where: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise LogSummaryError(f"{where}: {name!r} is not a number: {raw!r}") from None


def _results_section(text: str) -> str:
    """The part of the log before "Additional Stats", where loadgen prints results.

    Restricting the search matters: newer logs repeat names such as "Scheduled
    samples per second" and percentile latencies among the additional statistics.
    """
    return text.split("Additional Stats", 1)[0]


def _early_stopping_blocks(section: str, where: str) -> dict[str, dict[str, float]]:
    """Estimates per block: "query" (Early Stopping Result), "ttft", "tpot"."""
    blocks: dict[str, dict[str, float]] = {}
    current: str | None = None
    for line in section.splitlines():
        header = line.strip()
        if header.endswith("Early Stopping Result:"):
            prefix = header.removesuffix("Early Stopping Result:").strip().lower()
            current = prefix or "query"
            blocks.setdefault(current, {})
            continue
        match = _ESTIMATE.match(line)
        if match and current is not None:
            name = f"Early stopping {match.group(1)}th percentile estimate"
            blocks[current].setdefault(
                match.group(1), _number(match.group(2), name, where)
            )
    return blocks


def _latency_metric(
    section: str, kind: str, blocks: dict[str, dict[str, float]], where: str
) -> tuple[str, float]:
    """The reported latency of a SingleStream or MultiStream run, in ns.

    The headline line ("90.0th percentile latency (ns)", 99.0th for MultiStream,
    99.9th for pointpainting) names the target percentile. Since v2.0 the reported
    value is loadgen's early-stopping estimate *at that percentile*. LLM SingleStream
    runs (llama3.1-8b-edge) only estimate TTFT and TPOT, so they report the headline
    percentile itself, as the checker's override for that benchmark does
    (``result_90.00_percentile_latency_ns``); logs from before early stopping also
    report the headline.
    """
    headline = _LINE["headline"].search(section)
    if headline is None:
        if _LINE["legacy_multistream"].search(section):
            raise LogSummaryError(
                f"{where}: legacy MultiStream metric 'Samples per query' "
                "(rounds before v2.0) is not supported"
            )
        raise LogSummaryError(
            f"{where}: missing metric line for {kind}: "
            "expected 'NN.Nth percentile latency (ns)'"
        )
    percentile, raw = headline.groups()
    headline_name = f"{percentile}th percentile latency (ns)"
    if "query" in blocks:
        estimate_name = f"Early stopping {percentile}th percentile estimate"
        if percentile not in blocks["query"]:
            raise LogSummaryError(
                f"{where}: missing metric line for {kind}: expected {estimate_name!r}"
            )
        return estimate_name, blocks["query"][percentile]
    return headline_name, _number(raw, headline_name, where)


def parse_log_summary(text: str, *, where: str) -> LogSummary:
    """Read the reported metric of one loadgen ``mlperf_log_summary.txt``.

    Which line is *the* metric depends on the scenario loadgen ran (checked against
    every v5.1 and v6.0 summary record): Offline reports ``Tokens per second`` when
    present (LLMs, whisper) else ``Samples per second``; Server reports ``Completed
    tokens per second`` else ``Completed samples per second`` (an Interactive folder
    holds a Server run); SingleStream and MultiStream report the early-stopping
    estimate at the headline percentile (see ``_latency_metric``).

    Args:
        text: The whole file.
        where: Release and path, for messages.

    Returns:
        The metric as logged, plus the inputs for results inferred from it.

    Raises:
        LogSummaryError: no scenario or result line, an unknown scenario, a missing
            or non-numeric metric line.
    """
    if not text.strip():
        raise LogSummaryError(f"{where}: empty log summary")
    scenario_line = _LINE["scenario"].search(text)
    if scenario_line is None:
        raise LogSummaryError(
            f"{where}: no 'Scenario :' line; not a loadgen mlperf_log_summary.txt"
        )
    logged = scenario_line.group(1)
    kind = _SCENARIO_KINDS.get(logged.replace(" ", "").lower())
    if kind is None:
        raise LogSummaryError(
            f"{where}: unknown scenario {logged!r} in 'Scenario :' line"
        )
    result_line = _LINE["result"].search(text)
    if result_line is None:
        raise LogSummaryError(f"{where}: no 'Result is :' line")
    verdict = result_line.group(1)
    if verdict not in ("VALID", "INVALID"):
        raise LogSummaryError(
            f"{where}: 'Result is :' must be VALID or INVALID, got {verdict!r}"
        )
    section = _results_section(text)
    blocks = _early_stopping_blocks(section, where)
    if kind in _THROUGHPUT:
        for name, line_unit in _THROUGHPUT[kind]:
            line = re.search(rf"^{name}\s*:\s*(\S+)", section, re.M)
            if line:
                value, unit = _number(line.group(1), name, where), line_unit
                break
        else:
            expected = " or ".join(repr(name) for name, _ in _THROUGHPUT[kind])
            raise LogSummaryError(
                f"{where}: missing metric line for {kind}: expected {expected}"
            )
    else:
        name, value = _latency_metric(section, kind, blocks, where)
        unit = "ns"
    mean = _LINE["mean"].search(text)
    return LogSummary(
        scenario=kind,
        metric_name=name,
        metric_value=value,
        metric_unit=unit,
        result_valid=verdict == "VALID",
        mean_latency_ns=_number(mean.group(1), "Mean latency (ns)", where)
        if mean
        else None,
        early_stopping_ns=blocks.get("query", {}),
    )


def _as_text(value: object) -> str | None:
    """One system field as a trimmed string; structured values as sorted JSON."""
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True)
    text = str(value).strip()
    return text or None


def parse_system_json(text: str | bytes, *, where: str) -> dict[str, str | None]:
    """Read one ``systems/<system>.json`` into the fields we keep, all as strings.

    Types vary by round and submitter (``accelerators_per_node`` is 8 or "8",
    ``number_of_nodes`` may be null, ``other_software_stack`` an object, v0.5 has no
    ``system_type``) and key spelling varies in case and spaces. As for summaries,
    nothing is cast here: values become strings (null when absent or blank) and the
    Polars step casts and validates them, so a bad count is a rejected row with a
    reason, not a crash.

    Raises:
        SystemJsonError: not UTF-8, empty, invalid JSON or not a JSON object.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SystemJsonError(f"{where}: not UTF-8 text ({exc.reason})") from None
    if not text.strip():
        raise SystemJsonError(f"{where}: empty file")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SystemJsonError(
            f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(document, dict):
        kind = "list" if isinstance(document, list) else type(document).__name__
        raise SystemJsonError(f"{where}: expected a JSON object, got a JSON {kind}")
    fields = {str(k).strip().lower().replace(" ", "_"): v for k, v in document.items()}
    return {name: _as_text(fields.get(name)) for name in SYSTEM_FIELDS}


# -- scanning ----------------------------------------------------------------------

#: One row per scenario folder, as the Python loop stages it (all decisions pending).
_STAGED_SCHEMA: dict[str, pl.DataType] = {
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
    "early_stopping_p99_ns": pl.Float64,
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
    release: str
    systems: dict[str, tuple[dict[str, str | None] | None, str | None]] = field(
        default_factory=dict
    )
    mappings: dict[str, tuple[dict[str, str], str | None]] = field(default_factory=dict)

    def system(self, path: str) -> tuple[dict[str, str | None] | None, str | None]:
        if path not in self.systems:
            try:
                fields = parse_system_json(
                    self.read(path), where=f"{self.release} {path}"
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
            where = f"{self.release} {path}"
            try:
                document = json.loads(self.read(path))
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
        system_file = f"{division}/{submitter}/systems/{system}.json"
        row: dict[str, object] = dict.fromkeys(_STAGED_SCHEMA)
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
        if "endpoints" in files and "loadgen" not in files:
            row.update(harness="endpoints", source_file=files["endpoints"])
            return row
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
        return row

    def _read_log(self, row: dict[str, object], path: str) -> None:
        where = f"{self.release} {path}"
        try:
            content = self.read(path)
        except (OSError, SourceError) as exc:
            row["log_error"] = f"{where}: unreadable ({_read_error(exc)})"
            return
        row["snapshot_sha256"] = hashlib.sha256(content).hexdigest()
        text = content.decode("utf-8", errors="replace")
        row["log_head"] = text[:400]
        try:
            log = parse_log_summary(text, where=where)
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
            early_stopping_p99_ns=log.early_stopping_ns.get("99.0"),
        )


def stage_raw_tree(
    paths: list[str], read: Callable[[str], bytes], *, release: str
) -> pl.DataFrame:
    """One row per scenario folder of the listing, every file parsed, nothing decided.

    A scenario folder is any ``results/{system}/{benchmark}/{scenario}`` with a file
    under ``performance/``; one without a loadgen log or endpoints summary becomes a
    row too, so the transform can reject it rather than lose it.
    """
    folders: dict[tuple[str, ...], dict[str, str]] = {}
    for path in sorted(paths):
        match = _RESULT_PATH.match(path)
        if match is None:
            continue
        key = match.group("division", "submitter", "system", "benchmark", "scenario")
        files = folders.setdefault(key, {})
        rest = match.group("rest")
        if rest == _LOADGEN_LOG:
            files["loadgen"] = path
        elif rest in _ENDPOINTS_FILES:
            files.setdefault("endpoints", path)
    stager = _Stager(paths=set(paths), read=read, release=release)
    rows = [stager.row(key, files) for key, files in folders.items()]
    return (
        pl.from_dicts(rows, schema=_STAGED_SCHEMA)
        if rows
        else pl.DataFrame(schema=_STAGED_SCHEMA)
    )


# -- normalisation (Polars) ----------------------------------------------------------


def _count(name: str) -> pl.Expr:
    """A count written as 8, "8", "8.0"; placeholders such as "N/A" become null."""
    text = pl.col(name).str.strip_chars()
    placeholder = text.str.to_lowercase().is_in(NO_ACCELERATOR)
    return (
        pl.when(placeholder)
        .then(None)
        .otherwise(text.cast(pl.Float64, strict=False))
        .round(0)
        .cast(pl.Int32, strict=False)
    )


def _is_bad_count(name: str) -> pl.Expr:
    text = pl.col(name).str.strip_chars()
    placeholder = text.str.to_lowercase().is_in(NO_ACCELERATOR)
    number = text.cast(pl.Float64, strict=False)
    return text.is_not_null() & ~placeholder & (number.is_null() | (number < 0))


def _reason(condition: pl.Expr, message: pl.Expr | str) -> pl.Expr:
    text = pl.lit(message) if isinstance(message, str) else message
    return pl.when(condition).then(text)


def normalise_raw_tree(
    staged: pl.LazyFrame, *, release: str, repository: str
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Staged scenario folders to (canonical results, rejected folders), lazily."""
    scenario = (
        pl.col("scenario_dir")
        .str.to_lowercase()
        .replace_strict(_SCENARIO_KINDS, default=None)
    )
    logged = pl.col("logged_scenario")
    location = pl.concat_str(
        "division",
        "submitter",
        pl.lit("results"),
        "system_dir",
        "benchmark_dir",
        "scenario_dir",
        separator="/",
    )
    accelerator = pl.col("sys_accelerator_model_name")
    status = pl.col("sys_status").str.strip_chars().str.to_lowercase()
    staged = staged.with_columns(
        scenario=scenario,
        location=location,
        availability=status.replace(
            {
                "research, development, or internal": "rdi",
                "research, development, or internal (rdi)": "rdi",
            }
        ),
        accelerator_upstream=pl.when(
            accelerator.str.to_lowercase().is_in(NO_ACCELERATOR)
        )
        .then(None)
        .otherwise(accelerator),
        benchmark_upstream=pl.coalesce("benchmark_mapped", "benchmark_dir"),
    ).with_columns(
        # An Interactive folder holds a loadgen Server run with tighter TTFT/TPOT
        # limits; loadgen has no Interactive mode.
        is_direct=(logged == pl.col("scenario"))
        | ((pl.col("scenario") == "Interactive") & (logged == "Server")),
        # Edge submitters may run SingleStream only and let the checker infer Offline
        # (1 / mean latency) and MultiStream (8 x the 99th percentile early-stopping
        # estimate); the summary marks these inferred=1.
        is_offline_inferred=(pl.col("scenario") == "Offline")
        & (logged == "SingleStream"),
        is_multistream_inferred=(pl.col("scenario") == "MultiStream")
        & (logged == "SingleStream"),
        nodes=_count("sys_number_of_nodes").fill_null(1),
        apn_count=_count("sys_accelerators_per_node"),
    )
    value_upstream = (
        pl.when("is_direct")
        .then(pl.col("metric_value"))
        .when("is_offline_inferred")
        .then(1e9 / pl.col("mean_latency_ns"))
        .when("is_multistream_inferred")
        .then(MULTISTREAM_SAMPLES_PER_QUERY * pl.col("early_stopping_p99_ns"))
    )
    unit_upstream = (
        pl.when("is_direct")
        .then(pl.col("metric_name"))
        .when("is_offline_inferred")
        .then(pl.lit("1e9 / Mean latency (ns) of a SingleStream run"))
        .when("is_multistream_inferred")
        .then(
            pl.lit(
                f"{MULTISTREAM_SAMPLES_PER_QUERY} x Early stopping 99.0th percentile "
                "estimate (ns) of a SingleStream run"
            )
        )
    )
    latency = pl.col("is_multistream_inferred") | (
        pl.col("is_direct") & (pl.col("metric_unit") == "ns")
    )
    result_unit = (
        pl.when(latency)
        .then(pl.lit("Latency (ms)"))
        .when(pl.col("is_offline_inferred"))
        .then(pl.lit("Samples/s"))
        .when(pl.col("metric_unit") == "tokens/s")
        .then(pl.lit("Tokens/s"))
        .when(pl.col("scenario") == "Offline")
        .then(pl.lit("Samples/s"))
        .otherwise(pl.lit("Queries/s"))
    )
    staged = staged.with_columns(
        result_value_upstream=value_upstream,
        result_unit_upstream=unit_upstream,
        result_unit=result_unit,
        is_higher_better=~latency,
    ).with_columns(
        result_value=pl.when(latency)
        .then(pl.col("result_value_upstream") / 1e6)
        .otherwise(pl.col("result_value_upstream")),
        result_key=pl.format(
            "{}:{}/{}/{}/{}/{}",
            pl.lit(release),
            "division",
            "submitter",
            "system_dir",
            "benchmark_dir",
            pl.coalesce("scenario", "scenario_dir"),
        ),
    )
    has_run = pl.col("logged_scenario").is_not_null() & pl.col("scenario").is_not_null()
    value = pl.col("result_value_upstream")
    checks = [
        _reason(
            pl.col("harness").is_null(),
            pl.format(
                "no mlperf_log_summary.txt under {}/performance/run_1", "location"
            ),
        ),
        pl.col("log_error"),
        _reason(
            pl.col("is_result_valid").not_(), "INVALID result ('Result is : INVALID')"
        ),
        _reason(
            pl.col("scenario").is_null(),
            pl.format("unknown scenario directory '{}'", "scenario_dir"),
        ),
        _reason(
            has_run
            & ~pl.col("is_direct")
            & ~pl.col("is_offline_inferred")
            & ~pl.col("is_multistream_inferred"),
            pl.format(
                "{} directory holds a {} run; no rule infers {} from {}",
                "scenario",
                "logged_scenario",
                "scenario",
                "logged_scenario",
            ),
        ),
        _reason(
            pl.col("is_offline_inferred") & pl.col("mean_latency_ns").is_null(),
            "cannot infer Offline from SingleStream: no 'Mean latency (ns)' line",
        ),
        _reason(
            pl.col("is_multistream_inferred")
            & pl.col("early_stopping_p99_ns").is_null(),
            "cannot infer MultiStream from SingleStream: "
            "no 'Early stopping 99.0th percentile estimate' line",
        ),
        _reason(
            value.is_not_null() & (~value.is_finite() | (value <= 0)),
            pl.format("metric must be a positive number, got {}", value),
        ),
        _reason(
            pl.col("harness").is_not_null() & ~pl.col("has_system_file"),
            pl.format("missing system JSON {}", "system_file"),
        ),
        _reason(
            pl.col("system_error").is_not_null(),
            pl.format("unreadable system JSON: {}", "system_error"),
        ),
        _reason(
            pl.col("mapping_error").is_not_null(),
            pl.format("unreadable model mapping: {}", "mapping_error"),
        ),
        _reason(
            pl.col("has_system_file")
            & pl.col("system_error").is_null()
            & pl.col("availability").is_null(),
            pl.format("missing field 'status' in {}", "system_file"),
        ),
        _reason(
            pl.col("availability").is_not_null()
            & ~pl.col("availability").is_in(AVAILABILITIES),
            pl.format("unknown status '{}' in {}", "sys_status", "system_file"),
        ),
        *[
            _reason(
                _is_bad_count(f"sys_{name}"),
                pl.format(
                    f"{name} is not a count: '{{}}' in {{}}",
                    f"sys_{name}",
                    "system_file",
                ),
            )
            for name in ("number_of_nodes", "accelerators_per_node")
        ],
    ]
    staged = (
        staged.with_columns(
            reason=pl.when(pl.col("harness") == "endpoints")
            .then(pl.lit(UNSUPPORTED_ENDPOINTS))
            .otherwise(pl.concat_str(checks, separator="; ", ignore_nulls=True))
        )
        .with_columns(reason=pl.when(pl.col("reason") != "").then("reason"))
        .with_columns(
            # Folders whose names differ only in case ("Offline", "offline") share a
            # key; the first in path order stands, as in the summary transform.
            first_file=pl.col("source_file").min().over("result_key")
        )
        .with_columns(
            reason=pl.coalesce(
                "reason",
                _reason(
                    pl.col("source_file") != pl.col("first_file"),
                    pl.format(
                        "duplicate result key {} (first seen in {})",
                        "result_key",
                        "first_file",
                    ),
                ),
            )
        )
    )
    accepted = staged.filter(pl.col("reason").is_null()).with_columns(
        apn=pl.when(
            pl.col("apn_count").is_null() & pl.col("accelerator_upstream").is_null()
        )
        .then(pl.lit(0, dtype=pl.Int32))
        .otherwise("apn_count"),
    )
    total = pl.col("nodes") * pl.col("apn")
    results = accepted.select(
        pl.lit(release).alias("release"),
        "result_key",
        pl.lit(None, dtype=pl.String).alias("result_id"),
        "submitter",
        "division",
        pl.col("sys_system_type")
        .str.to_lowercase()
        .str.replace_all(" ", "")
        .alias("category"),
        "availability",
        (pl.col("availability") == "preview").alias("is_preview"),
        pl.col("sys_system_name").alias("system_name"),
        pl.col("system_dir").alias("platform"),
        pl.col("benchmark_upstream").replace(benchmark_aliases()).alias("benchmark"),
        "benchmark_upstream",
        pl.col("benchmark_dir").alias("model_upstream"),
        "scenario",
        "result_value",
        "result_unit",
        "result_value_upstream",
        "result_unit_upstream",
        # The log names its own metric, so no summary unit correction applies.
        pl.lit(None, dtype=pl.String).alias("unit_correction"),
        "is_higher_better",
        pl.when(pl.col("is_higher_better") & (total > 0))
        .then(pl.col("result_value") / total)
        .alias("result_per_accelerator"),
        pl.lit(None, dtype=pl.Float64).alias("power_value"),
        pl.lit(None, dtype=pl.String).alias("power_unit"),
        "nodes",
        pl.col("apn").alias("accelerators_per_node"),
        total.alias("total_accelerators"),
        pl.lit(True).alias("is_total_accelerators_derived"),
        strip_count_suffix(pl.col("accelerator_upstream")).alias("accelerator_name"),
        "accelerator_upstream",
        strip_count_prefix(pl.col("sys_host_processor_model_name")).alias(
            "host_cpu_name"
        ),
        pl.col("sys_framework").alias("software"),
        # weight_data_types lives in measurements files, which are not read here.
        pl.lit(None, dtype=pl.String).alias("weight_data_types"),
        (pl.col("is_offline_inferred") | pl.col("is_multistream_inferred")).alias(
            "is_inferred"
        ),
        "location",
        pl.format(
            "https://github.com/{}/tree/main/{}", pl.lit(repository), "location"
        ).alias("result_url"),
        "source_file",
        # The record of a raw result is its system description, the second file read.
        pl.col("system_file").alias("source_record"),
        "snapshot_sha256",
    ).cast(RESULTS_SCHEMA)
    rejected = (
        staged.filter(pl.col("reason").is_not_null())
        .select(
            pl.lit(release).alias("release"),
            "source_file",
            pl.col("system_file").alias("source_record"),
            "result_key",
            "reason",
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
            .alias("record_json"),
            "snapshot_sha256",
        )
        .cast(REJECTED_SCHEMA)
    )
    return results, rejected


def scan_raw_tree(
    paths: list[str],
    read: Callable[[str], bytes],
    *,
    release: str,
    repository: str,
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
    """
    staged = stage_raw_tree(paths, read, release=release)
    results, rejected = normalise_raw_tree(
        staged.lazy(), release=release, repository=repository
    )
    results_df, rejected_df = pl.collect_all([results, rejected])
    return results_df, rejected_df
