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
from pipeline.registry import RegistryError, Table, load_registry
from pipeline.registry.releases import version_key

REGISTRY_FILE = "benchmarks.toml"
SCENARIOS = ("Offline", "Server", "SingleStream", "MultiStream", "Interactive")
DIVISIONS = ("closed", "open", "network")
#: Per-result evidence of the model as run that a ``match`` rule may require equal on
#: both ends; candidate pair frames carry them as ``<field>_old`` / ``<field>_new``.
#: ``model_lineage`` is derived (``model_lineage``); the others are result columns.
MATCHABLE_FIELDS = ("model_upstream", "weight_data_types", "submitter", "model_lineage")
#: How a reason quotes an end that declares nothing.
NOT_DECLARED = "not declared"
#: What a ``match`` rule's reason may quote: both ends' values of its one field.
EVIDENCE_PLACEHOLDERS = ("{old}", "{new}")
_FIELDS = (
    "benchmark", "scenario", "division", "reason", "evidence",
    "incompatible_between", "releases", "match",
)  # fmt: skip
_LINEAGE_FIELDS = ("lineage", "submitter", "releases", "platforms", "evidence")
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


def system_family(platform: pl.Expr) -> pl.Expr:
    """The platform name without its counts, so two sizes of one system match.

    "GB300-NVL72_..._aarch64x72_TRT" and "..._aarch64x288_TRT" are one family;
    "DGX-Station-A100_...x4" and "DGX-A100_...x8" are not. Count tokens are "x" and
    digits before "_", "-" or the end.
    """
    return platform.str.replace_all(r"(?i)x\d+([_\-]|$)", "$1").fill_null("")


def evidence(field: str, suffix: str = "") -> pl.Expr:
    """A match field as rules compare it: weight data types without case or "UNSET".

    v5.1 writes "UNSET" where a submitter declared nothing: that is no evidence, and
    it must not match a declared precision or differ from another "UNSET" by case.
    """
    column = pl.col(f"{field}{suffix}")
    if field != "weight_data_types":
        return column
    text = column.cast(pl.String).str.strip_chars().str.to_lowercase()
    return pl.when(text.is_in(["", "unset", "n/a", "none"])).then(None).otherwise(text)


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
            evidence(f, "_old").ne_missing(evidence(f, "_new")) for f in self.match
        )

    def reason_expr(self) -> pl.Expr:
        """The reason a reader is told, quoting both ends' values where it asks to."""
        if self.match is None or "{old}" not in self.reason:
            return pl.lit(self.reason)
        (field,) = self.match  # guaranteed by parse_compatibility
        template = self.reason.replace("{old}", "{}").replace("{new}", "{}")
        return pl.format(
            template,
            *(
                evidence(field, end).cast(pl.String).fill_null(NOT_DECLARED)
                for end in ("_old", "_new")
            ),
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


@dataclass(frozen=True)
class SameModel:
    """One ``[[same_model]]`` entry: platforms a reviewer found to run one model."""

    lineage: str
    submitter: str
    releases: tuple[str, ...]
    platforms: tuple[str, ...]
    evidence: str

    def applies(self) -> pl.Expr:
        """True on the results this entry covers."""
        return (
            (pl.col("submitter") == self.submitter)
            & pl.col("release").is_in(list(self.releases))
            & pl.col("platform").is_in(list(self.platforms))
        )


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


def model_lineage(entries: Sequence[SameModel] | None = None) -> pl.Expr:
    """Per result, the lineage of the model as run that open-division pairs require.

    By default one submitter's one system family at any size and software version
    (``system_family`` without version tokens: Krai's
    "xavier-power.0-fan.cool-tflite-v2.4.1-ruy" of v1.0 and "...-v2.7.1-ruy" of
    v2.1 are one system, upgraded), which is what makes a software gain or a scaling
    step one system; a reviewed ``[[same_model]]`` entry joins platforms of different
    chips, the only way an open-division generation ratio is formed.
    """
    family = system_family(pl.col("platform")).str.replace_all(
        r"(?i)[-_.]?v\d+(\.\d+)+", ""
    )
    expr: pl.Expr = pl.concat_str(
        [pl.col("submitter").cast(pl.String).fill_null(""), family], separator="/"
    )
    for entry in reversed(load_same_model() if entries is None else tuple(entries)):
        expr = pl.when(entry.applies()).then(pl.lit(entry.lineage)).otherwise(expr)
    return expr


def _rules(rules: Sequence[CompatibilityRule] | None) -> tuple[CompatibilityRule, ...]:
    return load_compatibility() if rules is None else tuple(rules)


def match_key(rules: Sequence[CompatibilityRule] | None = None) -> pl.Expr:
    """Per-result key of the fields that ``match`` rules require equal ("" elsewhere).

    Analyses pick the best result per group; adding this key to the group keeps one
    best result per submitted model in the open division instead of letting a pruned
    model's number stand for the reference one.
    """
    # Every applicable rule's fields, in file order: the open division needs the same
    # model, weight types, submitter and lineage at once, each its own rule.
    parts = [
        pl.when(rule.applies()).then(
            pl.concat_str(
                [evidence(f).cast(pl.String).fill_null("") for f in rule.match],
                separator="\x1f",
            )
        )
        for rule in _rules(rules)
        if rule.match is not None
    ]
    if not parts:
        return pl.lit("")
    return pl.concat_str(parts, separator="\x1e", ignore_nulls=True)


def model_label() -> pl.Expr:
    """The model as run, as a line or row names it (rows a ``match`` rule covers).

    Model, declared weight types and lineage, joined by " · ", so two open-division
    lines of one model name but two submitters never share a label.
    """
    return pl.concat_str(
        [
            pl.col("model_upstream"),
            evidence("weight_data_types"),
            pl.col("model_lineage"),
        ],
        separator=" · ",
        ignore_nulls=True,
    )


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
            rule.reason_expr()
        )
        for rule in rules
    ]
    reason = pl.coalesce(reasons)
    return pairs.with_columns(
        is_comparable=reason.is_null(), incompatibility_reason=reason
    )
