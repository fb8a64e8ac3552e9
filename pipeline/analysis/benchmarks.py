"""Which results of one benchmark and scenario may be compared, across or within rounds.

The same benchmark name is not always the same measurement: a scenario's latency
constraint can change, the open division lets submitters swap the model, a metric can be
redefined. Those facts live as data in ``[[compatibility]]`` of
``pipeline/registry/benchmarks.toml`` (reviewed, each with a reason and its evidence);
this module loads them and flags candidate pairs. What does not belong here: forming
the pairs (``gains``, ``generations``, ``scaling``) and the benchmark-name aliases
(applied by ``pipeline.transform.results``).

Besides the registry rules, one guard is code because it holds for every benchmark: the
two ends must have the same normalised ``result_unit`` (a ratio of tokens to queries is
meaningless).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import polars as pl

from pipeline.labels import display_name
from pipeline.manifest import version_key
from pipeline.registry import RegistryError, Table, load_registry

REGISTRY_FILE = "benchmarks.toml"
SCENARIOS = ("Offline", "Server", "SingleStream", "MultiStream", "Interactive")
DIVISIONS = ("closed", "open", "network")
#: Per-result fields a ``match`` rule may require to be equal on both ends; candidate
#: pair frames carry them as ``<field>_old`` / ``<field>_new``.
MATCHABLE_FIELDS = ("model_upstream",)
_FIELDS = (
    "benchmark", "scenario", "division", "reason", "evidence",
    "incompatible_between", "releases", "match",
)  # fmt: skip
_KINDS = ("incompatible_between", "releases", "match")
#: A release as rules name it (``manifest.version_key`` reads the same form).
_VERSION = re.compile(r"v[0-9]+\.[0-9]+")
UNIT_REASON_TEMPLATE = "result units differ: {} vs {}"


class CompatibilityError(RegistryError):
    """The compatibility rules are malformed; the message names the rule and field."""


def release_order(release: pl.Expr) -> pl.Expr:
    """Sortable integer for ``vX.Y`` (v6.1 -> 6001), null for anything else.

    String order would put v10.0 before v6.1; the manifest's ``version_key`` is the same
    ordering in Python.
    """
    parts = release.str.extract_groups(r"^v(\d+)\.(\d+)$")
    major = parts.struct.field("1").cast(pl.Int32)
    minor = parts.struct.field("2").cast(pl.Int32)
    return major * 1000 + minor


def _order(version: str) -> int:
    major, minor = version_key(version)
    return major * 1000 + minor


def _glob(pattern: str) -> str:
    return "^" + re.escape(pattern).replace(r"\*", ".*") + "$"


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

    def applies(self) -> pl.Expr:
        """True on pairs whose benchmark, scenario and division the rule covers."""
        conditions = [pl.lit(True)]
        for column, pattern in (
            ("benchmark", self.benchmark),
            ("scenario", self.scenario),
            ("division", self.division),
        ):
            if pattern == "*":
                continue
            if "*" in pattern:
                conditions.append(pl.col(column).str.contains(_glob(pattern)))
            else:
                conditions.append(pl.col(column) == pattern)
        return pl.all_horizontal(conditions)

    def breaks(self, order_old: pl.Expr, order_new: pl.Expr) -> pl.Expr:
        """True on pairs the rule forbids (evaluated only where it applies).

        Release rules ignore pairs inside one release: a release is always comparable
        with itself, whatever changed before or after it.
        """
        low = pl.min_horizontal(order_old, order_new)
        high = pl.max_horizontal(order_old, order_new)
        across = pl.col("release_old") != pl.col("release_new")
        if self.incompatible_between is not None:
            last_old, first_new = (_order(v) for v in self.incompatible_between)
            return across & (low <= last_old) & (high >= first_new)
        if self.releases is not None:
            listed = list(self.releases)
            return across & ~(
                pl.col("release_old").is_in(listed)
                & pl.col("release_new").is_in(listed)
            )
        assert self.match is not None  # guaranteed by parse_compatibility
        return pl.any_horizontal(
            pl.col(f"{f}_old").ne_missing(pl.col(f"{f}_new")) for f in self.match
        )


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
    else:
        value = entry.strings(
            kind, pattern=_VERSION, expected="a list of vX.Y versions"
        )
        if kind == "incompatible_between":
            if len(value) != 2 or _order(value[0]) >= _order(value[1]):
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


def _rules(rules: Sequence[CompatibilityRule] | None) -> tuple[CompatibilityRule, ...]:
    return load_compatibility() if rules is None else tuple(rules)


def match_key(rules: Sequence[CompatibilityRule] | None = None) -> pl.Expr:
    """Per-result key of the fields that ``match`` rules require equal ("" elsewhere).

    Analyses pick the best result per group; adding this key to the group keeps one
    best result per submitted model in the open division instead of letting a pruned
    model's number stand for the reference one.
    """
    expr: pl.Expr = pl.lit("")
    for rule in reversed(_rules(rules)):
        if rule.match is None:
            continue
        key = pl.concat_str(
            [pl.col(f).fill_null("") for f in rule.match], separator="\x1f"
        )
        expr = pl.when(rule.applies()).then(key).otherwise(expr)
    return expr


def comparable(
    pairs: pl.LazyFrame, rules: Sequence[CompatibilityRule] | None = None
) -> pl.LazyFrame:
    """Flag each pair ``is_comparable`` and give the first ``incompatibility_reason``.

    Works on candidate pairs (with ``result_unit_old``/``result_unit_new``) and on
    finished pair tables (one ``result_unit``). The unit guard comes first, then the
    registry rules in file order; one reason per pair keeps exclusion counts additive.

    Args:
        pairs: needs ``benchmark``, ``scenario``, ``division``, ``release_old``,
            ``release_new``, the unit column(s), and ``<field>_old``/``<field>_new`` for
            every field a ``match`` rule names.
        rules: rules other than the committed ones (tests).

    Returns:
        ``pairs`` with ``is_comparable`` (Boolean) and ``incompatibility_reason``
        (String, null when comparable) appended.

    Raises:
        ValueError: a column the rules need is missing.
    """
    rules = _rules(rules)
    names = set(pairs.collect_schema().names())
    needed = {"benchmark", "scenario", "division", "release_old", "release_new"}
    for rule in rules:
        if rule.match is not None:
            needed |= {f"{f}_{end}" for f in rule.match for end in ("old", "new")}
    if "result_unit_old" in names:
        unit_old, unit_new = pl.col("result_unit_old"), pl.col("result_unit_new")
        needed |= {"result_unit_old", "result_unit_new"}
    else:
        unit_old = unit_new = pl.col("result_unit")
        needed.add("result_unit")
    missing = sorted(needed - names)
    if missing:
        raise ValueError(f"comparable() needs column(s) {', '.join(missing)}")
    order_old = release_order(pl.col("release_old"))
    order_new = release_order(pl.col("release_new"))
    # A missing unit differs from any unit; it is named, since a null reason would
    # let the pair through.
    named_old, named_new = display_name(unit_old), display_name(unit_new)
    reasons = [
        pl.when(unit_old.ne_missing(unit_new)).then(
            pl.format(UNIT_REASON_TEMPLATE, named_old, named_new)
        )
    ]
    reasons += [
        pl.when(rule.applies() & rule.breaks(order_old, order_new)).then(
            pl.lit(rule.reason)
        )
        for rule in rules
    ]
    reason = pl.coalesce(reasons)
    return pairs.with_columns(
        is_comparable=reason.is_null(), incompatibility_reason=reason
    )
