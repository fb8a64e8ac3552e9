"""Plausibility flags on derived pairs, from reviewed rules (``plausibility.toml``).

A ratio can be computed correctly and still mislead: a "scaling" step between two
submitters' different systems, a 46× "software gain" whose newer end was a CPU run.
Such pairs are not dropped (the numbers are what upstream published); they get the ids
of the rules they trip (``flags``) and the reasons (``flag_reasons``), and pages keep
them out of headlines. What belongs here: loading and validating the rules, and one
lazy Polars pass that attaches flags to pair tables. What does not: pairing
(``pairs``, ``gains``, ``generations``, ``scaling``), rendering, Dagster.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import polars as pl

from pipeline.analysis.accelerators import ensure_attached
from pipeline.analysis.pairing import (
    IDENTITY_LEVELS,
    KINDS,
    PAIR_SCHEMA,
    cited_keys,
    kept_pairs,
)
from pipeline.registry import RegistryError, Table, load_registry

REGISTRY_FILE = "plausibility.toml"
TESTS = (
    "above", "either_end", "ends_differ", "declared_differ", "identity_level",
    "outlier_end",
)  # fmt: skip
#: Pair columns an ``above`` rule may test.
ABOVE_FIELDS = ("ratio", "efficiency")
#: Per-end fields an ``either_end`` / ``ends_differ`` rule may test; the last two are
#: looked up in the results table by each end's key.
END_FIELDS = (
    "is_preview", "is_inferred", "is_inferred_unverified", "submitter",
    "is_mixed_accelerators", "has_unit_correction", "weight_precision",
)  # fmt: skip
_KEYS = frozenset(
    {"id", "role", "why", "test", "field", "threshold", "factor", "min_class_size",
     "kinds", "levels", "reason", "evidence"}
)  # fmt: skip
#: What a flag does: a label discloses and never excludes; a warning keeps a pair out
#: of headlines and top-N lists (plausibility.toml says which rule is which, and why).
ROLES = ("label", "warning")
#: What ``_end_attributes`` gives per result key, besides the key.
ATTRIBUTE_COLUMNS = (
    "is_mixed_accelerators", "has_unit_correction", "times_worse", "class_size",
)  # fmt: skip
#: The class an end is compared with by ``outlier_end``.
CLASS_KEYS = ("release", "benchmark", "scenario", "division", "result_unit")


class PlausibilityRulesError(RegistryError):
    """The rules file is malformed; the message names the rule and the field."""


@dataclass(frozen=True)
class FlagRule:
    """One reviewed plausibility rule."""

    id: str
    test: str
    kinds: tuple[str, ...]
    reason: str
    evidence: str
    role: str = "warning"
    why: str = ""
    field: str | None = None
    threshold: float | None = None
    factor: float | None = None
    min_class_size: int | None = None
    levels: tuple[str, ...] = ()


def _rule(entry: Table) -> FlagRule:
    if isinstance(entry.get("id"), str):
        entry = entry.named(entry.get("id"))
    entry.only(_KEYS)
    ident = entry.string("id")
    test = entry.choice("test", TESTS)
    reason = entry.string("reason")
    evidence = entry.string("evidence")
    role = entry.choice("role", ROLES)
    why = entry.string("why")
    kinds = entry.strings("kinds", default=list(KINDS), non_empty=True, allowed=KINDS)
    known_levels = sorted({lv for k in kinds for lv in IDENTITY_LEVELS[k]})
    levels = entry.strings("levels", default=[], allowed=known_levels)
    needs = {
        "above": ("field", "threshold"),
        "either_end": ("field",),
        "ends_differ": ("field",),
        "declared_differ": ("field",),
        "identity_level": ("levels",),
        "outlier_end": ("factor", "min_class_size"),
    }[test]
    for key in needs:
        if not entry.get(key, None):
            raise entry.fail(key, f"is required by test {test!r}")
    field = None
    if "field" in needs:
        field = entry.choice("field", ABOVE_FIELDS if test == "above" else END_FIELDS)
    return FlagRule(
        id=ident,
        test=test,
        kinds=kinds,
        reason=reason,
        evidence=evidence,
        role=role,
        why=why,
        field=field,
        threshold=entry.optional_number("threshold", positive=True),
        factor=entry.optional_number("factor", positive=True),
        min_class_size=entry.integer("min_class_size", minimum=1)
        if "min_class_size" in entry
        else None,
        levels=levels,
    )


def parse_plausibility_rules(
    document: Mapping, source: str = REGISTRY_FILE
) -> tuple[FlagRule, ...]:
    """Validate a parsed rules document.

    Raises:
        PlausibilityRulesError: an unknown field or test, a missing parameter, or an
            id listed twice; the message names the rule.
    """
    root = Table.document(document, source, PlausibilityRulesError)
    root.only(("flag",))
    rules: list[FlagRule] = []
    for entry in root.tables("flag"):
        rule = _rule(entry)
        if rule.id in (r.id for r in rules):
            raise entry.named(rule.id).fail("id", f"{rule.id!r} is listed twice")
        rules.append(rule)
    return tuple(rules)


@cache
def _default_rules() -> tuple[FlagRule, ...]:
    return load_registry(
        REGISTRY_FILE, parse_plausibility_rules, PlausibilityRulesError
    )


def load_plausibility_rules(path: Path | None = None) -> tuple[FlagRule, ...]:
    """The committed rules (cached), or another file (tests, a rule under review)."""
    if path is None:
        return _default_rules()
    return load_registry(path, parse_plausibility_rules, PlausibilityRulesError)


def _end_attributes(results: pl.LazyFrame, cited: pl.LazyFrame) -> pl.LazyFrame:
    """Per cited result key: what the rules look up beyond the pair's own columns.

    Class medians come from every result; the other attributes only for ``cited``
    (one ``result_key`` column): windowing over every row, then deduplicating every
    key to look up a few, would cost more.
    """
    results = ensure_attached(results)
    throughput = pl.col("is_higher_better").fill_null(True)
    value = pl.when(throughput).then("result_per_accelerator").otherwise("result_value")
    group = [*CLASS_KEYS, "is_higher_better"]
    valued = results.with_columns(_value=value)
    classes = valued.group_by(group).agg(
        _median=pl.col("_value").median(), class_size=pl.col("_value").count()
    )
    ends = (
        valued.join(cited, on="result_key", how="semi", maintain_order="left")
        .unique("result_key", keep="first", maintain_order=True)
        .join(classes, on=group, how="left", nulls_equal=True, maintain_order="left")
    )
    # How many times worse than its class median an end is (> 1 means worse).
    worse = (
        pl.when(throughput)
        .then(pl.col("_median") / pl.col("_value"))
        .otherwise(pl.col("_value") / pl.col("_median"))
    )
    return ends.select(
        "result_key",
        pl.col("is_mixed_accelerators").fill_null(False),
        pl.col("unit_correction").is_not_null().alias("has_unit_correction"),
        worse.alias("times_worse"),
        "class_size",
    )


def _applies(rule: FlagRule) -> pl.Expr:
    applies = pl.col("kind").is_in(list(rule.kinds))
    if rule.levels:
        applies = applies & pl.col("identity_level").is_in(list(rule.levels))
    return applies


def _number(expr: pl.Expr) -> pl.Expr:
    return expr.round(3).cast(pl.String)


def _check(rule: FlagRule) -> tuple[pl.Expr, pl.Expr]:
    """(trips, reason) of one rule on a pair row with its ends' attributes."""
    if rule.test == "above":
        value = pl.col(str(rule.field))
        trips = (value > rule.threshold).fill_null(False)
        if rule.field == "efficiency":
            # As pages show it, a percentage; two decimals, so a step just above
            # the threshold never reads as equal to it ("100.02% > 100%").
            assert rule.threshold is not None
            return trips, pl.format(
                f"{rule.reason} (efficiency {{}}% > {rule.threshold * 100:g}%)",
                (value * 100).round(2).cast(pl.String),
            )
        return trips, pl.format(
            f"{rule.reason} ({rule.field} {{}} > {rule.threshold:g})", _number(value)
        )
    if rule.test == "identity_level":
        return pl.lit(True), pl.lit(rule.reason)
    if rule.test == "either_end":
        old, new = pl.col(f"{rule.field}_old"), pl.col(f"{rule.field}_new")
        which = (
            pl.when(old.fill_null(False) & new.fill_null(False))
            .then(pl.lit("both ends"))
            .when(old.fill_null(False))
            .then(pl.format("{} end", "release_old"))
            .otherwise(pl.format("{} end", "release_new"))
        )
        return (old.fill_null(False) | new.fill_null(False)), pl.format(
            f"{rule.reason} ({{}})", which
        )
    if rule.test == "ends_differ":
        old, new = pl.col(f"{rule.field}_old"), pl.col(f"{rule.field}_new")
        return (~old.eq_missing(new)), pl.format(
            f"{rule.reason} ({{}} vs {{}})", old.fill_null("?"), new.fill_null("?")
        )
    if rule.test == "declared_differ":
        # An end that declares nothing is no evidence of a change.
        old, new = pl.col(f"{rule.field}_old"), pl.col(f"{rule.field}_new")
        return (old != new).fill_null(False), pl.format(
            f"{rule.reason} ({{}} → {{}})", old, new
        )
    # outlier_end
    assert rule.factor is not None and rule.min_class_size is not None

    def off(end: str) -> pl.Expr:
        return (
            (pl.col(f"times_worse_{end}") > rule.factor)
            & (pl.col(f"class_size_{end}") >= rule.min_class_size)
        ).fill_null(False)

    def detail(end: str) -> pl.Expr:
        return pl.when(off(end)).then(
            pl.format(
                "{} end {}x worse than the median of its {} results",
                f"release_{end}",
                _number(pl.col(f"times_worse_{end}")),
                f"class_size_{end}",
            )
        )

    return off("old") | off("new"), pl.format(
        f"{rule.reason} ({{}})",
        pl.concat_str(
            [detail("old"), detail("new")], separator="; ", ignore_nulls=True
        ),
    )


def flag_pairs(
    pairs: pl.LazyFrame,
    results: pl.LazyFrame,
    rules: Sequence[FlagRule] | None = None,
) -> pl.LazyFrame:
    """Pairs (``UNFLAGGED_PAIR_SCHEMA``) with ``flags`` and ``flag_reasons`` added.

    Args:
        pairs: Reported pairs of any kind.
        results: The results table the pairs cite (with or without the accelerator
            columns), for what an end's own columns do not say: its class median, a
            mixed system, a unit correction.
        rules: Rules other than the committed ones (tests).

    Returns:
        ``PAIR_SCHEMA`` rows in the same order; ``flags`` lists the ids of the rules
        a pair trips in rule order (empty when none), ``flag_reasons`` their reasons
        joined by "; " (null when none).
    """
    rules = load_plausibility_rules() if rules is None else rules
    attributes = _end_attributes(results, cited_keys(pairs))
    with_ends = pairs
    for end in ("old", "new"):
        with_ends = with_ends.join(
            attributes.rename({c: f"{c}_{end}" for c in ATTRIBUTE_COLUMNS}),
            left_on=f"result_key_{end}",
            right_on="result_key",
            how="left",
            maintain_order="left",
        )
    checks = [(rule, *_check(rule)) for rule in rules]
    trips = [
        (_applies(rule) & trip).alias(f"_trip_{i}")
        for i, (rule, trip, _) in enumerate(checks)
    ]
    flagged = with_ends.with_columns(trips).with_columns(
        flags=pl.concat_list(
            [
                pl.when(pl.col(f"_trip_{i}"))
                .then(pl.lit([rule.id], dtype=pl.List(pl.String)))
                .otherwise(pl.lit([], dtype=pl.List(pl.String)))
                for i, (rule, _, _) in enumerate(checks)
            ]
        )
        if checks
        else pl.lit([], dtype=pl.List(pl.String)),
        flag_reasons=pl.concat_str(
            [
                pl.when(pl.col(f"_trip_{i}")).then(reason)
                for i, (_, _, reason) in enumerate(checks)
            ],
            separator="; ",
            ignore_nulls=True,
        )
        if checks
        else pl.lit(None, dtype=pl.String),
    )
    return (
        flagged.with_columns(
            flag_reasons=pl.when(pl.col("flag_reasons") != "").then("flag_reasons")
        )
        .select(list(PAIR_SCHEMA))
        .cast(PAIR_SCHEMA)
    )


def reported_pairs(candidates: pl.LazyFrame, results: pl.LazyFrame) -> pl.LazyFrame:
    """The published pairs of an analysis: kept candidates, flagged."""
    return flag_pairs(kept_pairs(candidates), results)


def warning_ids(rules: Sequence[FlagRule] | None = None) -> list[str]:
    """The ids of the rules whose role is ``warning``."""
    return [r.id for r in (rules or load_plausibility_rules()) if r.role == "warning"]


def warned(rules: Sequence[FlagRule] | None = None) -> pl.Expr:
    """Pairs a warning rule flagged: drawn faint, kept out of headlines and top-N."""
    ids = pl.lit(warning_ids(rules), dtype=pl.List(pl.String))
    return pl.col("flags").list.set_intersection(ids).list.len().fill_null(0) > 0


def unflagged() -> pl.Expr:
    """Pairs without a warning (labels allowed): what headlines and top-N may use."""
    return ~warned()


#: The strictest identity level of each kind: where a pair compares most like for like.
STRICTEST_LEVEL = {
    "software_gain": "system",
    "generation_ratio": "same_submitter",
    "scaling": "same_submitter",
}


def headline_pairs(pairs: pl.DataFrame) -> pl.DataFrame:
    """What a headline or top-N may cite.

    Pairs at the strictest level and at one scale (never a per-accelerator ratio of
    two system sizes: a 36-GPU system against a 72-GPU one is a looser reading),
    without a warning, between consecutive appearances (a system's gain since its
    previous round, never across one it also has).
    """
    strictest = pl.col("identity_level") == pl.col("kind").replace_strict(
        STRICTEST_LEVEL, default=None
    )
    one_scale = ~pl.col("is_per_accelerator").fill_null(False)
    consecutive = pl.col("is_consecutive").fill_null(True)
    return pairs.filter(
        strictest.fill_null(False) & one_scale & unflagged() & consecutive
    )
