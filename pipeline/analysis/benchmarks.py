"""Which results of one benchmark and scenario may be compared, across or within rounds.

The same benchmark name is not always the same measurement: a scenario's latency
constraint can change, the open division lets submitters swap the model, a metric can be
redefined. Those facts live as data in ``[[compatibility]]`` of
``pipeline/registry/benchmarks.toml`` (reviewed, each with a reason and its evidence,
read by ``pipeline.registry.benchmarks``); this module turns them into Polars
expressions and flags candidate pairs. What does not belong here: forming the pairs
(``gains``, ``generations``, ``scaling``) and the benchmark-name aliases (applied by
``pipeline.transform.results``).

Besides the registry rules, one guard is code because it holds for every benchmark: the
two ends must have the same normalised ``result_unit`` (a ratio of tokens to queries is
meaningless).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import polars as pl

from pipeline.labels import display_name
from pipeline.registry.benchmarks import (
    CompatibilityRule,
    SameModel,
    load_compatibility,
    load_same_model,
)
from pipeline.registry.precisions import load_precisions
from pipeline.registry.releases import version_key

#: How a reason quotes an end that declares nothing.
NOT_DECLARED = "not declared"
UNIT_REASON_TEMPLATE = "result units differ: {} vs {}"


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


def weight_precision(column: str = "weight_data_types") -> pl.Expr:
    """The precision of the weights as run, as the precisions registry reads a spelling.

    "INT8" and "int8", "nvfp4" and "fp4" are one precision; an unlisted spelling is kept
    lower-cased (an unreviewed spelling can only make a change appear, never hide one);
    nothing declared ("UNSET", empty) is null.
    """
    return evidence(column).replace(load_precisions())


def precision_change(old: str = "_old", new: str = "_new") -> pl.Expr:
    """The change a reader is shown ("fp16 → fp8"), where both ends declare one."""
    before = pl.col(f"weight_precision{old}")
    after = pl.col(f"weight_precision{new}")
    return (
        pl.when(before.is_not_null() & after.is_not_null() & (before != after))
        .then(pl.format("{} → {}", before, after))
        .otherwise(pl.lit(None, pl.String))
    )


def _order(version: str) -> int:
    major, minor = version_key(version)
    return major * 1000 + minor


def _glob(pattern: str) -> str:
    return "^" + re.escape(pattern).replace(r"\*", ".*") + "$"


def _applies(rule: CompatibilityRule) -> pl.Expr:
    """True on pairs whose benchmark, scenario and division the rule covers."""
    conditions = [pl.lit(True)]
    for column, pattern in (
        ("benchmark", rule.benchmark),
        ("scenario", rule.scenario),
        ("division", rule.division),
    ):
        if pattern == "*":
            continue
        if "*" in pattern:
            conditions.append(pl.col(column).str.contains(_glob(pattern)))
        else:
            conditions.append(pl.col(column) == pattern)
    return pl.all_horizontal(conditions)


def _breaks(rule: CompatibilityRule, order_old: pl.Expr, order_new: pl.Expr) -> pl.Expr:
    """True on pairs the rule forbids (evaluated only where it applies).

    Release rules ignore pairs inside one release: a release is always comparable
    with itself, whatever changed before or after it.
    """
    low = pl.min_horizontal(order_old, order_new)
    high = pl.max_horizontal(order_old, order_new)
    across = pl.col("release_old") != pl.col("release_new")
    if rule.incompatible_between is not None:
        last_old, first_new = (_order(v) for v in rule.incompatible_between)
        return across & (low <= last_old) & (high >= first_new)
    if rule.releases is not None:
        listed = list(rule.releases)
        return across & ~(
            pl.col("release_old").is_in(listed) & pl.col("release_new").is_in(listed)
        )
    assert rule.match is not None  # guaranteed by parse_compatibility
    return pl.any_horizontal(
        evidence(f, "_old").ne_missing(evidence(f, "_new")) for f in rule.match
    )


def _reason(rule: CompatibilityRule) -> pl.Expr:
    """The reason a reader is told, quoting both ends' values where it asks to."""
    if rule.match is None or "{old}" not in rule.reason:
        return pl.lit(rule.reason)
    (field,) = rule.match  # guaranteed by parse_compatibility
    template = rule.reason.replace("{old}", "{}").replace("{new}", "{}")
    return pl.format(
        template,
        *(
            evidence(field, end).cast(pl.String).fill_null(NOT_DECLARED)
            for end in ("_old", "_new")
        ),
    )


def _covers(entry: SameModel) -> pl.Expr:
    """True on the results a ``[[same_model]]`` entry covers."""
    return (
        (pl.col("submitter") == entry.submitter)
        & pl.col("release").is_in(list(entry.releases))
        & pl.col("platform").is_in(list(entry.platforms))
    )


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
        expr = pl.when(_covers(entry)).then(pl.lit(entry.lineage)).otherwise(expr)
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
        pl.when(_applies(rule)).then(
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
        pl.when(_applies(rule) & _breaks(rule, order_old, order_new)).then(
            _reason(rule)
        )
        for rule in rules
    ]
    reason = pl.coalesce(reasons)
    return pairs.with_columns(
        is_comparable=reason.is_null(), incompatibility_reason=reason
    )
