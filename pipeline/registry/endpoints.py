"""``endpoints.toml``: how a result of the endpoints harness is read, round by round.

``pipeline.extract.endpoints`` asks :func:`endpoint_rules_for` which number of a
``result_summary.json`` is a benchmark's result, in which unit, and what the file must
say to be valid.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pipeline.registry.loader import RegistryError, Table, load_registry
from pipeline.registry.releases import version_key

REGISTRY_FILE = "endpoints.toml"
SCENARIOS = ("Offline", "Server", "Interactive")
RESULT_FIELDS = ("qps", "tps")
DISTRIBUTIONS = ("ttft", "tpot", "latency")
WINDOW_FIELDS = ("duration_ns", "legacy_loadgen_window_duration_ns")
UNITS = ("Tokens/s", "Samples/s", "Queries/s")


class EndpointsRulesError(RegistryError):
    """``endpoints.toml`` is unreadable or breaks its own rules."""


@dataclass(frozen=True)
class ResultField:
    """A benchmark's result: one top-level number, its unit per scenario."""

    since: str
    benchmark: str
    field: str
    units: Mapping[str, str]
    evidence: str


@dataclass(frozen=True)
class Validity:
    """What a ``result_summary.json`` must say to be a valid result."""

    since: str
    state: str
    window: Mapping[str, str]
    early_stopping: Mapping[str, tuple[str, ...]]
    percentile: float
    evidence: str


@dataclass(frozen=True)
class EndpointRules:
    """The rules of one round: results by benchmark folder, and validity."""

    release: str
    results: Mapping[str, ResultField]
    validity: Validity | None


@dataclass(frozen=True)
class EndpointsFile:
    """Every entry of ``endpoints.toml``, in file order."""

    results: tuple[ResultField, ...]
    validity: tuple[Validity, ...]

    def for_round(self, release: str) -> EndpointRules:
        """The rules of ``release``: per key, the latest entry not after it."""
        key = version_key(release)
        results: dict[str, ResultField] = {}
        for entry in self.results:
            if version_key(entry.since) <= key:
                results[entry.benchmark] = entry
        validity = None
        for rule in self.validity:
            if version_key(rule.since) <= key:
                validity = rule
        return EndpointRules(release=release, results=results, validity=validity)


def _since(table: Table) -> str:
    value = table.string("from")
    try:
        version_key(value)
    except ValueError as exc:
        raise table.expected("from", "a round such as 'v6.1'", value) from exc
    return value


def parse_endpoints(document: Mapping, file: str = REGISTRY_FILE) -> EndpointsFile:
    """The ``[[result]]`` and ``[[validity]]`` entries of a parsed document."""
    root = Table.document(document, file, EndpointsRulesError)
    root.only(("result", "validity"))
    results = []
    for entry in root.tables("result", non_empty=True):
        entry.only(("from", "benchmark", "field", "units", "evidence"))
        results.append(
            ResultField(
                since=_since(entry),
                benchmark=entry.string("benchmark"),
                field=entry.choice("field", RESULT_FIELDS),
                units=entry.string_map(
                    "units",
                    keys=SCENARIOS,
                    values=UNITS,
                    expected=f"a table of scenario -> one of {', '.join(UNITS)}",
                ),
                evidence=entry.string("evidence"),
            )
        )
    validity = []
    for entry in root.tables("validity", non_empty=True):
        entry.only(
            ("from", "state", "window", "early_stopping", "percentile", "evidence")
        )
        stopping = entry.table("early_stopping")
        stopping.only(SCENARIOS)
        validity.append(
            Validity(
                since=_since(entry),
                state=entry.string("state"),
                window=entry.string_map("window", keys=SCENARIOS, values=WINDOW_FIELDS),
                early_stopping={
                    s: stopping.strings(s, non_empty=True, allowed=DISTRIBUTIONS)
                    for s in SCENARIOS
                    if s in stopping
                },
                percentile=entry.number("percentile", positive=True),
                evidence=entry.string("evidence"),
            )
        )
    return EndpointsFile(results=tuple(results), validity=tuple(validity))


def load_endpoint_rules(path: Path | None = None) -> EndpointsFile:
    """The committed rules (or those of ``path``), validated."""
    return load_registry(path or REGISTRY_FILE, parse_endpoints, EndpointsRulesError)


@cache
def _committed() -> EndpointsFile:
    return load_endpoint_rules()


def endpoint_rules_for(release: str) -> EndpointRules:
    """The committed rules that apply to one round."""
    return _committed().for_round(release)
