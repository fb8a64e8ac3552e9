"""Per-round reading rules (``pipeline/registry/rounds.toml``) as one typed object.

MLPerf changes how a result is reported from round to round: the loadgen line that
holds the metric, percentile spellings, which scenarios may be inferred from which, the
folder layout, the divisions. That knowledge is reviewed data with its evidence, not
code branches; this module only validates it and answers "which rules hold for round
X". Both extractors and the shared canonicalisation step take a ``RoundRules``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from pipeline.manifest import ManifestError
from pipeline.manifest import version_key as manifest_version_key
from pipeline.registry import REGISTRY_DIR, load_toml

REGISTRY_FILE = "rounds.toml"
SCENARIOS = ("Offline", "Server", "SingleStream", "MultiStream", "Interactive")
INFERENCE_METHODS = ("reciprocal_mean_latency", "queries_of_estimate")
_RULE_KEYS = frozenset(
    {
        "from",
        "until",
        "divisions",
        "log_files",
        "runs_as",
        "metric",
        "infer",
        "system_files",
        "evidence",
    }
)
_METRIC_KEYS = frozenset({"lines", "percentile_line", "estimate_line", "unit"})
_INFER_KEYS = frozenset(
    {"scenario", "source", "method", "unit", "samples_per_query", "percentile",
     "description"}
)  # fmt: skip
_LAYOUT_KEYS = frozenset({"signature", "fields", "evidence"})
#: Canonical inputs every summary layout maps (``""`` when the layout lacks one).
LAYOUT_FIELDS = (
    "result_id", "submitter", "division", "category", "availability", "system_name",
    "platform", "benchmark_upstream", "model_upstream", "scenario_upstream",
    "value_raw", "unit_raw", "power_raw", "power_unit_raw", "nodes_raw", "apn_raw",
    "total_raw", "accelerator_upstream", "cpu_raw", "software", "weight_data_types",
    "inferred_raw", "location_raw",
)  # fmt: skip


class RoundRulesError(ValueError):
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
    evidence: tuple[str, ...] = field(default=(), compare=False)


def version_key(version: str) -> tuple[int, int]:
    """Numeric order of ``vX.Y`` (the manifest's), as a rules error."""
    try:
        return manifest_version_key(version)
    except ManifestError:
        raise RoundRulesError(f"not a round version (vX.Y): {version!r}") from None


def _fail(where: str, message: str) -> RoundRulesError:
    return RoundRulesError(f"{where}: {message}")


def _strings(value: object, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, str) and v.strip() for v in value
    ):
        raise _fail(where, f"{key} must be a list of non-empty strings")
    return tuple(value)


def _template(value: object, where: str, key: str) -> str:
    if not isinstance(value, str) or value.count("{p}") != 1:
        raise _fail(where, f"{key} must be a string with exactly one {{p}}")
    return value


def _metric(value: object, where: str) -> ScenarioMetric:
    if not isinstance(value, Mapping):
        raise _fail(where, "must be a table")
    unknown = sorted(set(value) - _METRIC_KEYS)
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(unknown)}")
    if "lines" in value:
        if set(value) != {"lines"}:
            raise _fail(where, "lines cannot be combined with a percentile metric")
        lines = value["lines"]
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
            raise _fail(where, "lines must be a list of [log line, unit] pairs")
        return ScenarioMetric(lines=tuple((a, b) for a, b in lines))
    if "percentile_line" not in value or "unit" not in value:
        raise _fail(where, "needs either lines or percentile_line and unit")
    estimate = value.get("estimate_line")
    return ScenarioMetric(
        percentile_line=_template(value["percentile_line"], where, "percentile_line"),
        estimate_line=None
        if estimate is None
        else _template(estimate, where, "estimate_line"),
        unit=str(value["unit"]),
    )


def _inference(value: object, where: str) -> Inference:
    if not isinstance(value, Mapping):
        raise _fail(where, "must be a table")
    unknown = sorted(set(value) - _INFER_KEYS)
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(unknown)}")
    for key in ("scenario", "source", "method", "unit", "description"):
        if not isinstance(value.get(key), str) or not value[key]:
            raise _fail(where, f"{key} is missing or not a non-empty string")
    for key in ("scenario", "source"):
        if value[key] not in SCENARIOS:
            raise _fail(where, f"unknown {key} scenario {value[key]!r}")
    if value["method"] not in INFERENCE_METHODS:
        raise _fail(
            where,
            f"unknown method {value['method']!r} "
            f"(known: {', '.join(INFERENCE_METHODS)})",
        )
    spq, percentile = value.get("samples_per_query"), value.get("percentile")
    if value["method"] == "queries_of_estimate" and not (
        isinstance(spq, int) and spq > 0 and isinstance(percentile, int | float)
    ):
        raise _fail(where, "queries_of_estimate needs samples_per_query and percentile")
    return Inference(
        scenario=value["scenario"],
        source=value["source"],
        method=value["method"],
        unit=value["unit"],
        description=value["description"],
        samples_per_query=spq,
        percentile=float(percentile) if percentile is not None else None,
    )


def _layout(name: str, value: object, source: str) -> Layout:
    where = f"{source} layout {name!r}"
    if not isinstance(value, Mapping):
        raise _fail(where, "must be a table")
    unknown = sorted(set(value) - _LAYOUT_KEYS)
    if unknown:
        raise _fail(where, f"unknown key(s) {', '.join(unknown)}")
    fields = value.get("fields")
    if not isinstance(fields, Mapping) or set(fields) != set(LAYOUT_FIELDS):
        missing = sorted(set(LAYOUT_FIELDS) - set(fields or {}))
        extra = sorted(set(fields or {}) - set(LAYOUT_FIELDS))
        raise _fail(where, f"fields must map exactly the canonical inputs "
                    f"(missing: {missing}, unknown: {extra})")  # fmt: skip
    return Layout(
        name=name,
        signature=frozenset(_strings(value.get("signature"), where, "signature")),
        fields={k: (fields[k] or None) for k in LAYOUT_FIELDS},
    )


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
                elif not name.startswith("_"):
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
            layouts=self.layouts,
            evidence=tuple(merged["evidence"]),  # type: ignore[arg-type]
        )


def parse_rules(document: Mapping, source: str = REGISTRY_FILE) -> RulesFile:
    """Validate a parsed rules document.

    Raises:
        RoundRulesError: an unknown key, a malformed metric or inference, a template
            without ``{p}``, an unknown scenario, or no evidence; the message names
            the rule by its ``from`` round.
    """
    layouts_doc = document.get("layout", {})
    if not isinstance(layouts_doc, Mapping) or not layouts_doc:
        raise RoundRulesError(f"{source}: [layout.<name>] tables are required")
    layouts = {name: _layout(name, v, source) for name, v in layouts_doc.items()}
    entries = document.get("rule", [])
    if not isinstance(entries, list) or not entries:
        raise RoundRulesError(f"{source}: [[rule]] must be a non-empty array")
    rules = []
    for index, entry in enumerate(entries):
        where = f"{source} rule {index + 1}"
        if not isinstance(entry, Mapping):
            raise _fail(where, "is not a table")
        if isinstance(entry.get("from"), str):
            where = f"{where} (from {entry['from']})"
        unknown = sorted(set(entry) - _RULE_KEYS)
        if unknown:
            raise _fail(where, f"unknown key(s) {', '.join(unknown)}")
        if not isinstance(entry.get("evidence"), str) or not entry["evidence"].strip():
            raise _fail(where, "evidence is required")
        try:
            start = version_key(str(entry.get("from")))
            end = version_key(entry["until"]) if "until" in entry else (10**6, 0)
        except RoundRulesError as exc:
            raise _fail(where, str(exc)) from None
        rule: dict[str, object] = {"_from": start, "_until": end}
        rule["evidence"] = entry["evidence"].strip()
        if "divisions" in entry:
            rule["divisions"] = _strings(entry["divisions"], where, "divisions")
        if "log_files" in entry:
            rule["log_files"] = _strings(entry["log_files"], where, "log_files")
        if "runs_as" in entry:
            runs_as = entry["runs_as"]
            if not isinstance(runs_as, Mapping) or not all(
                k in SCENARIOS and v in SCENARIOS for k, v in runs_as.items()
            ):
                raise _fail(where, "runs_as must map scenarios to scenarios")
            rule["runs_as"] = dict(runs_as)
        if "system_files" in entry:
            files = entry["system_files"]
            if not isinstance(files, Mapping) or not all(
                isinstance(v, str) and v.endswith(".json") for v in files.values()
            ):
                raise _fail(
                    where, "system_files must map result folders to .json paths"
                )
            rule["system_files"] = dict(files)
        if "metric" in entry:
            metric = entry["metric"]
            if not isinstance(metric, Mapping):
                raise _fail(where, "metric must be a table of scenarios")
            for scenario in metric:
                if scenario not in SCENARIOS:
                    raise _fail(where, f"unknown metric scenario {scenario!r}")
            rule["metric"] = {
                s: _metric(v, f"{where} metric.{s}") for s, v in metric.items()
            }
        if "infer" in entry:
            if not isinstance(entry["infer"], list):
                raise _fail(where, "infer must be an array of tables")
            rule["infer"] = tuple(
                _inference(v, f"{where} infer {i + 1}")
                for i, v in enumerate(entry["infer"])
            )
        rules.append(rule)
    first = rules[0]
    for key in ("divisions", "log_files", "metric"):
        if key not in first:
            raise RoundRulesError(
                f"{source} rule 1: the first rule must set {key} "
                "(later rules inherit it)"
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
    return parse_rules(load_toml(REGISTRY_FILE), REGISTRY_FILE)


def load_rules(path: Path | None = None) -> RulesFile:
    """The committed rules (cached), or another file (tests, a round under review)."""
    if path is None:
        return _default_rules()
    return parse_rules(tomllib.loads(path.read_text()), path.name)


def rules_for(release: str, path: Path | None = None) -> RoundRules:
    """The merged rules of one round from the committed file (or ``path``)."""
    return load_rules(path).for_round(release)


def registry_path() -> Path:
    """Where the committed rules live (for code versions and messages)."""
    return REGISTRY_DIR / REGISTRY_FILE
