"""``rounds.toml``: the per-round reading rules as one typed object.

MLPerf changes how a result is reported from round to round: the loadgen line that
holds the metric, percentile spellings, which scenarios may be inferred from which, the
folder layout, the divisions. That knowledge is reviewed data with its evidence, not
code branches; this module validates it and answers "which rules hold for round
X". Both extractors and the shared canonicalisation step take a ``RoundRules``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pipeline.registry.loader import RegistryError, Table, load_registry
from pipeline.registry.releases import ManifestError
from pipeline.registry.releases import version_key as manifest_version_key

REGISTRY_FILE = "rounds.toml"
SCENARIOS = ("Offline", "Server", "SingleStream", "MultiStream", "Interactive")
INFERENCE_METHODS = (
    "reciprocal_mean_latency",
    "queries_of_estimate",
    "samples_over_mean_latency",
)
#: What a round's checker did with a folder holding another scenario's run that no
#: ``infer`` rule covers: reported the run's value under the folder's scenario, or
#: reported nothing.
MISMATCH_POLICIES = ("as_is", "refuse")
_RULE_KEYS = frozenset(
    {
        "from",
        "until",
        "divisions",
        "log_files",
        "runs_as",
        "metric",
        "infer",
        "mismatch",
        "refuse",
        "infer_requires_edge",
        "system_files",
        "inferred_flag",
        "evidence",
    }
)
#: When upstream's ``inferred`` mark on a summary row is not what it says
#: (``[rule.inferred_flag] misread``): a canonical scenario the checker never infers
#: (or marks by mistake), a system that is not an edge system, a scenario folder
#: spelled in lower case.
MISREAD_TESTS = ("scenario", "not_edge", "lower_case_folder")
#: What a misread mark is taken for: a measured result, or a mark that the summary
#: alone cannot confirm or refute.
MISREAD_VERDICTS = ("measured", "unknown")
_FLAG_KEYS = frozenset({"meaning", "misread"})
_MISREAD_KEYS = frozenset({"test", "scenarios", "verdict", "note"})
_METRIC_KEYS = frozenset({"lines", "percentile_line", "estimate_line", "unit"})
_INFER_KEYS = frozenset(
    {"scenario", "source", "method", "unit", "samples_per_query", "percentile",
     "description"}
)  # fmt: skip
_LAYOUT_KEYS = frozenset({"signature", "fields", "evidence"})
_JSON_FILE = re.compile(r".+\.json")
#: Canonical inputs every summary layout maps (``""`` when the layout lacks one).
LAYOUT_FIELDS = (
    "result_id", "submitter", "division", "category", "availability", "system_name",
    "platform", "benchmark_upstream", "model_upstream", "scenario_upstream",
    "value_raw", "unit_raw", "power_raw", "power_unit_raw", "nodes_raw", "apn_raw",
    "total_raw", "accelerator_upstream", "cpu_raw", "software", "weight_data_types",
    "inferred_raw", "location_raw", "accuracy_raw", "design_power_raw",
)  # fmt: skip
#: Inputs a layout may leave out (as if ""): added after the layouts were written.
OPTIONAL_LAYOUT_FIELDS = ("design_power_raw",)


class RoundRulesError(RegistryError):
    """The rules file is malformed; the message names the rule and the key."""


@dataclass(frozen=True)
class ScenarioMetric:
    """Where a log of one scenario keeps its reported metric.

    Either ``lines`` (the first of these lines present is the metric, with its unit)
    or a ``percentile_line`` template (latency at the headline percentile ``{p}``,
    replaced by the early-stopping estimate at that percentile when ``estimate_line``
    is set and the log has a whole-query early-stopping block).
    """

    lines: tuple[tuple[str, str], ...] = ()
    percentile_line: str | None = None
    estimate_line: str | None = None
    unit: str | None = None


@dataclass(frozen=True)
class Inference:
    """A result the checker infers in ``scenario`` from a run of ``source``."""

    scenario: str
    source: str
    method: str
    unit: str
    description: str
    samples_per_query: int | None = None
    percentile: float | None = None


@dataclass(frozen=True)
class Misread:
    """Summary rows whose upstream ``inferred`` mark the round's checker set wrongly.

    ``test`` picks the rows (``MISREAD_TESTS``); ``verdict`` says what they are
    taken for; ``note`` is what a reader is told instead of "inferred".
    """

    test: str
    verdict: str
    note: str
    scenarios: tuple[str, ...] = ()


@dataclass(frozen=True)
class InferredFlag:
    """What upstream's ``inferred`` column means in a round, and where it misleads."""

    meaning: str
    misread: tuple[Misread, ...] = ()


@dataclass(frozen=True)
class Layout:
    """One summary-file layout: its identifying fields and its field map."""

    name: str
    signature: frozenset[str]
    fields: Mapping[str, str | None]

    @property
    def columns(self) -> tuple[str, ...]:
        """Upstream field names the layout reads, in field-map order."""
        return tuple(f for f in self.fields.values() if f)


@dataclass(frozen=True)
class RoundRules:
    """Everything that changes by round, merged for one round."""

    release: str
    divisions: tuple[str, ...]
    log_files: tuple[str, ...]
    runs_as: Mapping[str, str]
    metrics: Mapping[str, ScenarioMetric]
    inferences: tuple[Inference, ...]
    layouts: Mapping[str, Layout]
    system_files: Mapping[str, str] = field(default_factory=dict)
    #: A mismatched folder no inference covers: "as_is" (the checker reported the
    #: run's own value under the folder's scenario) or "refuse" (it reported nothing).
    mismatch: str = "refuse"
    #: (folder scenario, logged scenario) pairs the checker refused under "as_is".
    refused: frozenset[tuple[str, str]] = frozenset()
    #: The checker inferred results for edge systems only (v6.0 on).
    infer_requires_edge: bool = False
    #: The rule that last set one of the three keys above, as messages name it.
    mismatch_rule: str = ""
    #: What the round's summary ``inferred`` column means (None: not reviewed).
    inferred_flag: InferredFlag | None = None
    evidence: tuple[str, ...] = field(default=(), compare=False)


def version_key(version: str) -> tuple[int, int]:
    """Numeric order of ``vX.Y`` (the manifest's), as a rules error."""
    try:
        return manifest_version_key(version)
    except ManifestError:
        raise RoundRulesError(f"not a round version (vX.Y): {version!r}") from None


def _template(table: Table, field: str) -> str:
    value = table.get(field)
    if not isinstance(value, str) or value.count("{p}") != 1:
        raise table.expected(field, "a string with exactly one {p}", value)
    return value


def _metric(table: Table) -> ScenarioMetric:
    table.only(_METRIC_KEYS)
    if "lines" in table:
        if set(table) != {"lines"}:
            extra = sorted(set(table) - {"lines"})[0]
            raise table.fail(extra, "cannot be combined with lines")
        lines = table.get("lines")
        if (
            not isinstance(lines, list)
            or not lines
            or not all(
                isinstance(x, list)
                and len(x) == 2
                and all(isinstance(s, str) and s for s in x)
                for x in lines
            )
        ):
            raise table.expected("lines", "a list of [log line, unit] pairs", lines)
        return ScenarioMetric(lines=tuple((a, b) for a, b in lines))
    if "percentile_line" not in table:
        raise table.fail("lines", "is required (or percentile_line and unit)")
    return ScenarioMetric(
        percentile_line=_template(table, "percentile_line"),
        estimate_line=_template(table, "estimate_line")
        if "estimate_line" in table
        else None,
        unit=table.string("unit"),
    )


def _inference(table: Table) -> Inference:
    table.only(_INFER_KEYS)
    method = table.choice("method", INFERENCE_METHODS)
    needed = method == "queries_of_estimate"
    per_query = needed or method == "samples_over_mean_latency"
    spq = (
        table.integer("samples_per_query", minimum=1)
        if per_query or "samples_per_query" in table
        else None
    )
    percentile = (
        table.number("percentile", positive=True)
        if needed or "percentile" in table
        else None
    )
    return Inference(
        scenario=table.choice("scenario", SCENARIOS),
        source=table.choice("source", SCENARIOS),
        method=method,
        unit=table.string("unit"),
        description=table.string("description"),
        samples_per_query=spq,
        percentile=percentile,
    )


def _misread(table: Table) -> Misread:
    table.only(_MISREAD_KEYS)
    test = table.choice("test", MISREAD_TESTS)
    scenarios: tuple[str, ...] = ()
    if test == "scenario":
        scenarios = table.strings("scenarios", non_empty=True, allowed=SCENARIOS)
    elif "scenarios" in table:
        raise table.fail("scenarios", f'goes only with test = "scenario", not {test!r}')
    return Misread(
        test=test,
        verdict=table.choice("verdict", MISREAD_VERDICTS),
        note=table.string("note"),
        scenarios=scenarios,
    )


def _inferred_flag(table: Table) -> InferredFlag:
    table.only(_FLAG_KEYS)
    return InferredFlag(
        meaning=table.string("meaning"),
        misread=tuple(_misread(t) for t in table.tables("misread"))
        if "misread" in table
        else (),
    )


def _layout(name: str, table: Table) -> Layout:
    table.only(_LAYOUT_KEYS)
    fields = table.string_map(
        "fields",
        keys=LAYOUT_FIELDS,
        expected="a table of strings with a key for each of "
        + ", ".join(LAYOUT_FIELDS),
    )
    missing = [
        f for f in LAYOUT_FIELDS if f not in fields and f not in OPTIONAL_LAYOUT_FIELDS
    ]
    if missing:
        raise table.fail(
            f"fields.{missing[0]}", 'is required ("" when the layout lacks it)'
        )
    return Layout(
        name=name,
        signature=frozenset(table.strings("signature", non_empty=True)),
        fields={k: (fields.get(k) or None) for k in LAYOUT_FIELDS},
    )


def _round(table: Table, field: str) -> tuple[int, int]:
    value = table.get(field)
    if isinstance(value, str):
        try:
            return version_key(value)
        except RoundRulesError:
            pass
    raise table.expected(field, "a round vX.Y", value)


@dataclass(frozen=True)
class RulesFile:
    """The validated rules file: layouts plus the ordered rule cascade."""

    rules: tuple[Mapping[str, object], ...]
    layouts: Mapping[str, Layout]
    source: str = REGISTRY_FILE

    def newest(self) -> RoundRules:
        """The rules of the newest round any rule names (and of every later one)."""
        start = max(rule["_from"] for rule in self.rules)  # type: ignore[type-var]
        return self.for_round(f"v{start[0]}.{start[1]}")  # type: ignore[index]

    def for_round(self, release: str) -> RoundRules:
        """The merged rules of one round (unknown later rounds get the newest)."""
        key = version_key(release)
        merged: dict[str, object] = {"metric": {}, "evidence": []}
        for rule in self.rules:
            if not rule["_from"] <= key <= rule["_until"]:
                continue
            for name, value in rule.items():
                if name == "metric":
                    merged["metric"].update(value)  # type: ignore[union-attr]
                elif name == "evidence":
                    merged["evidence"].append(value)  # type: ignore[union-attr]
                elif not name.startswith("_") or name == "_mismatch_rule":
                    merged[name] = value
        if "divisions" not in merged:
            raise RoundRulesError(
                f"{self.source}: no rule covers {release} (the first rule must start "
                "at or before it)"
            )
        return RoundRules(
            release=release,
            divisions=merged["divisions"],  # type: ignore[arg-type]
            log_files=merged["log_files"],  # type: ignore[arg-type]
            runs_as=merged.get("runs_as", {}),  # type: ignore[arg-type]
            metrics=merged["metric"],  # type: ignore[arg-type]
            inferences=merged.get("infer", ()),  # type: ignore[arg-type]
            system_files=merged.get("system_files", {}),  # type: ignore[arg-type]
            mismatch=merged.get("mismatch", "refuse"),  # type: ignore[arg-type]
            refused=merged.get("refuse", frozenset()),  # type: ignore[arg-type]
            infer_requires_edge=merged.get("infer_requires_edge", False),  # type: ignore[arg-type]
            mismatch_rule=merged.get("_mismatch_rule", ""),  # type: ignore[arg-type]
            inferred_flag=merged.get("inferred_flag"),  # type: ignore[arg-type]
            layouts=self.layouts,
            evidence=tuple(merged["evidence"]),  # type: ignore[arg-type]
        )


def parse_round_rules(document: Mapping, source: str = REGISTRY_FILE) -> RulesFile:
    """Validate a parsed rules document.

    Raises:
        RoundRulesError: an unknown key, a malformed metric or inference, a template
            without ``{p}``, an unknown scenario, or no evidence; the message names
            the rule by its ``from`` round.
    """
    root = Table.document(document, source, RoundRulesError)
    root.only(("layout", "rule"))
    layouts = {
        name: _layout(name, table)
        for name, table in root.subtables("layout", non_empty=True).items()
    }
    rules = []
    entries = [
        entry.named(f"from {entry.get('from')}")
        if isinstance(entry.get("from"), str)
        else entry
        for entry in root.tables("rule", non_empty=True)
    ]
    for entry in entries:
        entry.only(_RULE_KEYS)
        rule: dict[str, object] = {
            "_from": _round(entry, "from"),
            "_until": _round(entry, "until") if "until" in entry else (10**6, 0),
            "evidence": entry.string("evidence"),
        }
        for key in ("divisions", "log_files"):
            if key in entry:
                rule[key] = entry.strings(key, non_empty=True)
        if "runs_as" in entry:
            rule["runs_as"] = entry.string_map(
                "runs_as",
                keys=SCENARIOS,
                values=SCENARIOS,
                expected="a table of scenarios to scenarios",
            )
        if "system_files" in entry:
            files = entry.string_map(
                "system_files",
                pattern=_JSON_FILE,
                expected="a table of result folders to .json paths",
            )
            rule["system_files"] = files
        if "metric" in entry:
            entry.table("metric").only(SCENARIOS)
            rule["metric"] = {
                scenario: _metric(table)
                for scenario, table in entry.subtables("metric").items()
            }
        if "infer" in entry:
            rule["infer"] = tuple(_inference(t) for t in entry.tables("infer"))
        if "mismatch" in entry:
            rule["mismatch"] = entry.choice("mismatch", MISMATCH_POLICIES)
        if "refuse" in entry:
            refused = entry.tables("refuse")
            for table in refused:
                table.only(("scenario", "source"))
            rule["refuse"] = frozenset(
                (t.choice("scenario", SCENARIOS), t.choice("source", SCENARIOS))
                for t in refused
            )
        if "infer_requires_edge" in entry:
            rule["infer_requires_edge"] = entry.boolean("infer_requires_edge")
        if "inferred_flag" in entry:
            rule["inferred_flag"] = _inferred_flag(entry.table("inferred_flag"))
        if {"mismatch", "refuse", "infer_requires_edge"} & set(entry):
            rule["_mismatch_rule"] = f"rounds.toml rule from {entry.string('from')}"
        rules.append(rule)
    for key in ("divisions", "log_files", "metric"):
        if key not in rules[0]:
            raise entries[0].fail(
                key, "is required in the first rule (later ones inherit it)"
            )
    parsed = RulesFile(rules=tuple(rules), layouts=layouts, source=source)
    for rule in rules:
        _check_round(parsed.for_round("v{}.{}".format(*rule["_from"])), source)
    return parsed


def _check_round(rules: RoundRules, source: str) -> None:
    """What only the merged rules of a round can show: an inference without input."""
    for rule in rules.inferences:
        metric = rules.metrics.get(rule.source)
        if rule.method == "queries_of_estimate" and not (
            metric and metric.estimate_line
        ):
            raise RoundRulesError(
                f"{source}: in {rules.release}, inferring {rule.scenario} from "
                f"{rule.source} needs an estimate_line in metric.{rule.source}"
            )


@cache
def _default_rules() -> RulesFile:
    return load_registry(REGISTRY_FILE, parse_round_rules, RoundRulesError)


def load_round_rules(path: Path | None = None) -> RulesFile:
    """The committed rules (cached), or another file (tests, a round under review)."""
    if path is None:
        return _default_rules()
    return load_registry(path, parse_round_rules, RoundRulesError)


def rules_for(release: str, path: Path | None = None) -> RoundRules:
    """The merged rules of one round from the committed file (or ``path``)."""
    return load_round_rules(path).for_round(release)
