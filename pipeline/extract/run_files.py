"""One run's files in a raw submission tree: the loadgen summary log and the system.

What belongs here: parsing a loadgen ``mlperf_log_summary.txt`` into its scenario,
metric, validity and latencies (``parse_log_summary``), and a ``systems/<system>.json``
description into the fields the canonical table needs (``parse_system_json``), each
with a clear error naming the file and the field. What does not: walking the tree and
turning parsed values into canonical rows (``pipeline.extract.raw_tree``).

Which metric line a scenario reports, and how, is per-round data
(``pipeline.registry.rounds.ScenarioMetric``), never a branch here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from pipeline.extract.json_values import (
    DuplicateKeys,
    duplicate_problem,
    field_problem,
    json_object,
)
from pipeline.registry.rounds import RoundRules, ScenarioMetric, load_round_rules
from pipeline.transform.results import SCENARIO_SPELLINGS

_PERCENTILE = r"(\d+(?:\.\d+)?)"
_LINE = {
    "scenario": re.compile(r"^Scenario\s*:\s*(.*?)\s*$", re.M),
    "result": re.compile(r"^Result is\s*:\s*(\S*)", re.M),
    "mean": re.compile(r"^Mean latency \(ns\)\s*:\s*(\S+)", re.M),
}


@cache
def _template_regex(template: str) -> re.Pattern[str]:
    """A rules template such as "{p}th percentile latency (ns)" as a line pattern.

    Group 1 is the percentile, group 2 the value after the colon.
    """
    body = re.escape(template).replace(re.escape("{p}"), _PERCENTILE)
    return re.compile("^" + body + r"\s*:\s*(\S+)", re.M)


def _same_percentile(a: str, b: float) -> bool:
    return abs(float(a) - b) < 1e-9


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
#: System fields upstream writes as objects (v5.1 AMD: {"vllm": "0.9", ...}); every
#: other kept field must be text or a number.
STRUCTURED_SYSTEM_FIELDS = frozenset({"other_software_stack"})


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
        metric_unit: The unit the round's rules give that line (``"Tokens/s"``,
            ``"Latency (ns)"``, ...; the vocabulary of ``transform.results.UNITS``).
        result_valid: Whether loadgen wrote ``Result is : VALID``.
        mean_latency_ns: ``Mean latency (ns)``; an Offline result inferred from a
            SingleStream run is its reciprocal.
        early_stopping_ns: Early-stopping estimates of the whole-query latency by
            percentile as logged ("90.0", "99"), from the ``Early Stopping Result:``
            block.
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


def _early_stopping_blocks(
    section: str, estimate: re.Pattern[str] | None, where: str
) -> dict[str, dict[str, float]]:
    """Estimates per block: "query" (Early Stopping Result), "ttft", "tpot"."""
    blocks: dict[str, dict[str, float]] = {}
    if estimate is None:
        return blocks
    current: str | None = None
    for line in section.splitlines():
        header = line.strip()
        if header.endswith("Early Stopping Result:"):
            prefix = header.removesuffix("Early Stopping Result:").strip().lower()
            current = prefix or "query"
            blocks.setdefault(current, {})
            continue
        match = estimate.match(line.lstrip(" *"))
        if match and current is not None:
            name = match.group(0).split(":", 1)[0].strip()
            value = _number(match.group(2), name, where)
            known = blocks[current].setdefault(match.group(1), value)
            if known != value:
                raise LogSummaryError(_two_values(where, name, known, value))
    return blocks


def _two_values(where: str, name: str, first: float, second: float) -> str:
    """Why a log with one metric line twice, with different values, gives no result."""
    return (
        f"{where}: {name!r} appears twice with different values ({first:g} and "
        f"{second:g}); which one loadgen reported is unknown"
    )


def _latency_metric(
    section: str,
    kind: str,
    metric: ScenarioMetric,
    blocks: dict[str, dict[str, float]],
    where: str,
) -> tuple[str, float]:
    """The reported latency of a SingleStream or MultiStream run, in ns.

    The headline line (the rules' ``percentile_line``: "90.0th percentile latency
    (ns)", 99th for MultiStream, 99.9th for pointpainting) names the target
    percentile. From v2.0 the reported value is loadgen's early-stopping estimate
    *at that percentile* (the rules' ``estimate_line``; "99th" and "99.0th" are the
    same percentile). LLM SingleStream runs (llama3.1-8b-edge) only estimate TTFT and
    TPOT, so they report the headline percentile itself, as the checker's override
    for that benchmark does (``result_90.00_percentile_latency_ns``); logs from
    before early stopping also report the headline.
    """
    assert metric.percentile_line is not None
    pattern = _template_regex(metric.percentile_line)
    match = pattern.search(section)
    if match is not None:
        for other in pattern.finditer(section):
            if other.group(1) == match.group(1) and other.group(2) != match.group(2):
                name = metric.percentile_line.replace("{p}", match.group(1))
                raise LogSummaryError(
                    _two_values(
                        where,
                        name,
                        _number(match.group(2), name, where),
                        _number(other.group(2), name, where),
                    )
                )
    if match is None:
        expected = metric.percentile_line.replace("{p}", "NN.N")
        raise LogSummaryError(
            f"{where}: missing metric line for {kind}: expected {expected!r}"
        )
    percentile, raw = match.groups()
    headline_name = metric.percentile_line.replace("{p}", percentile)
    if metric.estimate_line and "query" in blocks:
        estimate_name = metric.estimate_line.replace("{p}", percentile)
        for logged, value in blocks["query"].items():
            if _same_percentile(logged, float(percentile)):
                return estimate_name, value
        raise LogSummaryError(
            f"{where}: missing metric line for {kind}: expected {estimate_name!r}"
        )
    return headline_name, _number(raw, headline_name, where)


def parse_log_summary(
    text: str, *, where: str, rules: RoundRules | None = None
) -> LogSummary:
    """Read the reported metric of one loadgen ``mlperf_log_summary.txt``.

    Which line is *the* metric depends on the round and the scenario loadgen ran, and
    is read from the round's rules (``pipeline/registry/rounds.toml``): e.g. Server
    reports ``Scheduled samples per second`` before v4.1 and ``Completed tokens per
    second`` else ``Completed samples per second`` from v4.1; SingleStream and
    MultiStream report a percentile latency or, from v2.0, its early-stopping
    estimate (see ``_latency_metric``). Only the results section counts: newer logs
    repeat names such as "Scheduled samples per second" among the additional stats.

    Args:
        text: The whole file.
        where: Release and path, for messages.
        rules: The round's rules; the newest reviewed rules by default.

    Returns:
        The metric as logged, plus the inputs for results inferred from it.

    Raises:
        LogSummaryError: no scenario or result line, an unknown scenario, a missing
            or non-numeric metric line.
    """
    rules = rules or load_round_rules().newest()
    if not text.strip():
        raise LogSummaryError(f"{where}: empty log summary")
    scenario_line = _LINE["scenario"].search(text)
    if scenario_line is None:
        raise LogSummaryError(
            f"{where}: no 'Scenario :' line; not a loadgen mlperf_log_summary.txt"
        )
    logged = scenario_line.group(1)
    kind = SCENARIO_SPELLINGS.get(logged.replace(" ", "").lower())
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
    metric = rules.metrics.get(kind)
    if metric is None:
        raise LogSummaryError(
            f"{where}: the {rules.release} rules name no metric for {kind}"
        )
    section = _results_section(text)
    estimate = _template_regex(metric.estimate_line) if metric.estimate_line else None
    blocks = _early_stopping_blocks(section, estimate, where)
    if metric.lines:
        for name, line_unit in metric.lines:
            found = re.findall(rf"^{re.escape(name)}\s*:\s*(\S+)", section, re.M)
            if found:
                values = dict.fromkeys(_number(v, name, where) for v in found)
                if len(values) > 1:
                    # Taking the first would silently pick one of two results.
                    first, second, *_ = values
                    raise LogSummaryError(_two_values(where, name, first, second))
                value, unit = next(iter(values)), line_unit
                break
        else:
            expected = " or ".join(repr(name) for name, _ in metric.lines)
            raise LogSummaryError(
                f"{where}: missing metric line for {kind}: expected {expected}"
            )
    else:
        name, value = _latency_metric(section, kind, metric, blocks, where)
        unit = str(metric.unit)
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
    reason, not a crash. A kept field that cannot be a scalar at all (a list, an
    object, a boolean, NaN, a number beyond 64 bits) makes the file unreadable, with
    the field named, so its results are rejected rather than read from a guess.

    Raises:
        SystemJsonError: not UTF-8, empty, invalid JSON, not a JSON object, or a
            field of the wrong JSON type.
    """
    document = json_object(text, where, SystemJsonError)
    if isinstance(document, DuplicateKeys):
        # Only fields this reader keeps matter: upstream v1.1 Dell repeats the
        # cooling types with different values, which no result depends on; text
        # that is not text elsewhere was replaced (U+FFFD) and is never read.
        kept = {
            k
            for k in document.duplicates
            if str(k).strip().lower().replace(" ", "_") in SYSTEM_FIELDS
        }
        read = DuplicateKeys(document)
        read.duplicates = tuple(k for k in document.duplicates if k in kept)
        read.unencodable = tuple(
            k
            for k in document.unencodable
            if str(k).strip().lower().replace(" ", "_") in SYSTEM_FIELDS
        )
        repeated = duplicate_problem(read, "the system description")
        if repeated:
            raise SystemJsonError(f"{where}: {repeated}")
    fields = {str(k).strip().lower().replace(" ", "_"): v for k, v in document.items()}
    problems = [
        problem
        for name in SYSTEM_FIELDS
        if name not in STRUCTURED_SYSTEM_FIELDS
        and (problem := field_problem(name, fields.get(name)))
    ]
    if problems:
        raise SystemJsonError(f"{where}: {'; '.join(problems)}")
    return {name: _as_text(fields.get(name)) for name in SYSTEM_FIELDS}
