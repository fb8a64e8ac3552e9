"""``benchmarks.toml``: benchmark aliases, unit corrections, compatibility, same model.

One file holds what is reviewed about benchmarks as such; its four tables are parsed
here into plain records, and the analyses and the canonicalisation step apply them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pipeline.registry.loader import RegistryError, Table, load_registry
from pipeline.registry.releases import version_key

REGISTRY_FILE = "benchmarks.toml"
SCENARIOS = ("Offline", "Server", "SingleStream", "MultiStream", "Interactive")
DIVISIONS = ("closed", "open", "network")
#: Per-result evidence of the model as run that a ``match`` rule may require equal on
#: both ends; candidate pair frames carry them as ``<field>_old`` / ``<field>_new``.
#: ``model_lineage`` is derived (``model_lineage``); the others are result columns.
MATCHABLE_FIELDS = ("model_upstream", "weight_data_types", "submitter", "model_lineage")
#: What a ``match`` rule's reason may quote: both ends' values of its one field.
EVIDENCE_PLACEHOLDERS = ("{old}", "{new}")
_FIELDS = (
    "benchmark", "scenario", "division", "reason", "evidence",
    "incompatible_between", "releases", "match",
)  # fmt: skip
_LINEAGE_FIELDS = ("lineage", "submitter", "releases", "platforms", "evidence")
_KINDS = ("incompatible_between", "releases", "match")
#: A release as rules name it (``version_key`` reads the same form).
_VERSION = re.compile(r"v[0-9]+\.[0-9]+")
_UNIT_CORRECTION_FIELDS = (
    "benchmark", "scenario", "releases", "upstream_unit", "unit", "reason", "evidence",
)  # fmt: skip


class CompatibilityError(RegistryError):
    """The compatibility rules are malformed; the message names the rule and field."""


# ---- aliases and unit corrections (applied by ``pipeline.transform.results``) ------


def parse_aliases(document: Mapping[str, Any], file: str) -> dict[str, str]:
    """``[aliases]``: upstream benchmark spellings mapped to canonical names."""
    return Table.document(document, file).string_map(
        "aliases", default={}, expected="a table of benchmark names"
    )


def parse_unit_corrections(
    document: Mapping[str, Any], file: str
) -> list[dict[str, Any]]:
    """``[[unit_correction]]``: units upstream summaries state wrongly, reviewed."""
    out = []
    for entry in Table.document(document, file).tables("unit_correction"):
        entry.only(_UNIT_CORRECTION_FIELDS)
        out.append(
            {
                "benchmark": entry.string("benchmark"),
                "scenario": entry.string("scenario"),
                "releases": list(entry.strings("releases", non_empty=True)),
                "upstream_unit": entry.string("upstream_unit"),
                "unit": entry.string("unit"),
                "reason": entry.string("reason"),
                "evidence": entry.string("evidence", default=""),
            }
        )
    return out


def _aliases_and_corrections(
    document: Mapping[str, Any], file: str
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    return parse_aliases(document, file), parse_unit_corrections(document, file)


@cache
def _committed_aliases_and_corrections() -> tuple[dict[str, str], list[dict[str, Any]]]:
    return load_registry(REGISTRY_FILE, _aliases_and_corrections, RegistryError)


def benchmark_aliases() -> dict[str, str]:
    """Upstream benchmark spellings mapped to canonical names."""
    return dict(_committed_aliases_and_corrections()[0])


def unit_corrections() -> list[dict[str, Any]]:
    """Reviewed corrections of units that upstream summaries state wrongly."""
    return [dict(c) for c in _committed_aliases_and_corrections()[1]]


# ---- [[compatibility]] (applied by ``pipeline.analysis.benchmarks``) ---------------


@dataclass(frozen=True)
class CompatibilityRule:
    """One ``[[compatibility]]`` entry: where it applies and what it forbids."""

    benchmark: str
    scenario: str
    division: str
    reason: str
    evidence: str = ""
    incompatible_between: tuple[str, str] | None = None
    releases: tuple[str, ...] | None = None
    match: tuple[str, ...] | None = None


def _rule(entry: Table) -> CompatibilityRule:
    entry.only(_FIELDS)
    benchmark = entry.string("benchmark")
    scenario = entry.choice("scenario", ("*", *SCENARIOS))
    division = entry.choice("division", ("*", *DIVISIONS), default="*")
    reason = entry.string("reason")
    evidence = entry.string("evidence", default="", empty=True)
    kinds = [k for k in _KINDS if k in entry]
    if len(kinds) != 1:
        raise entry.fail(
            None, f"needs exactly one of {', '.join(_KINDS)}, got {len(kinds)}"
        )
    kind = kinds[0]
    between = releases = match = None
    if kind == "match":
        match = entry.strings("match", non_empty=True, allowed=MATCHABLE_FIELDS)
        quoted = [p for p in EVIDENCE_PLACEHOLDERS if p in reason]
        if quoted and (len(match) != 1 or len(quoted) != 2):
            raise entry.expected(
                "reason",
                "{old} and {new} both, in a rule that matches one field",
                reason,
            )
    else:
        if any(p in reason for p in EVIDENCE_PLACEHOLDERS):
            raise entry.expected(
                "reason", "no {old}/{new}: only match rules quote values", reason
            )
        value = entry.strings(
            kind, pattern=_VERSION, expected="a list of vX.Y versions"
        )
        if kind == "incompatible_between":
            if len(value) != 2 or version_key(value[0]) >= version_key(value[1]):
                raise entry.expected(
                    kind, "[last_old, first_new], oldest first", list(value)
                )
            between = (value[0], value[1])
        else:
            if len(value) < 2:
                raise entry.expected(kind, "two or more releases", list(value))
            releases = value
    return CompatibilityRule(
        benchmark=benchmark,
        scenario=scenario,
        division=division,
        reason=reason,
        evidence=evidence,
        incompatible_between=between,
        releases=releases,
        match=match,
    )


def parse_compatibility(
    document: Mapping, source: str = REGISTRY_FILE
) -> tuple[CompatibilityRule, ...]:
    """Validate the ``[[compatibility]]`` array of a parsed registry document.

    Raises:
        CompatibilityError: a rule has an unknown field, no or several kinds, a bad
            release or scenario; the message names the rule's position and field in
            the registry format (``pipeline.registry.loader``).
    """
    root = Table.document(document, source, CompatibilityError)
    return tuple(_rule(entry) for entry in root.tables("compatibility"))


@cache
def load_compatibility() -> tuple[CompatibilityRule, ...]:
    """The committed rules, parsed and validated once per process."""
    return load_registry(REGISTRY_FILE, parse_compatibility, CompatibilityError)


# ---- [[same_model]] (applied by ``pipeline.analysis.benchmarks.model_lineage``) -----


@dataclass(frozen=True)
class SameModel:
    """One ``[[same_model]]`` entry: platforms a reviewer found to run one model."""

    lineage: str
    submitter: str
    releases: tuple[str, ...]
    platforms: tuple[str, ...]
    evidence: str


def _same_model(entry: Table) -> SameModel:
    entry.only(_LINEAGE_FIELDS)
    platforms = entry.strings("platforms", non_empty=True)
    if len(platforms) < 2:
        raise entry.expected("platforms", "two or more platform folders", platforms)
    return SameModel(
        lineage=entry.string("lineage"),
        submitter=entry.string("submitter"),
        releases=entry.strings(
            "releases", non_empty=True, pattern=_VERSION, expected="vX.Y versions"
        ),
        platforms=platforms,
        evidence=entry.string("evidence"),
    )


def parse_same_model(
    document: Mapping, source: str = REGISTRY_FILE
) -> tuple[SameModel, ...]:
    """Validate the ``[[same_model]]`` array of a parsed registry document.

    Raises:
        CompatibilityError: an entry has an unknown or missing field, or fewer than
            two platforms; the message names the entry and field.
    """
    root = Table.document(document, source, CompatibilityError)
    entries = tuple(_same_model(entry) for entry in root.tables("same_model"))
    names = [e.lineage for e in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CompatibilityError(
            f"{source}: [[same_model]] lineage listed twice: {', '.join(twice)}"
        )
    return entries


@cache
def load_same_model() -> tuple[SameModel, ...]:
    """The committed ``[[same_model]]`` entries, parsed and validated once."""
    return load_registry(REGISTRY_FILE, parse_same_model, CompatibilityError)
