"""Validation rules for the canonical results table, as plain functions.

``pipeline.defs`` turns each into a blocking Dagster asset check. Every outcome carries
counts and the offending keys so a failure names release, file and record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from pipeline.transform.results import CANONICAL_UNITS, RESULTS_SCHEMA, SCENARIOS

#: A new snapshot may lose at most this share of the previous snapshot's rows.
MAX_ROW_DROP = 0.2
_SHOWN = 10


@dataclass(frozen=True)
class Outcome:
    """Result of one rule: pass/fail, a sentence for humans, metadata for machines."""

    name: str
    passed: bool
    description: str
    metadata: dict = field(default_factory=dict)


def _offenders(frame: pl.DataFrame, what: str) -> list[str]:
    return (
        frame.select(
            pl.format(
                "{} record {} ({}): {}",
                pl.col("source_file"),
                pl.col("source_record"),
                pl.col("result_key"),
                pl.lit(what),
            )
        )
        .to_series()
        .head(_SHOWN)
        .to_list()
    )


def _outcome(name: str, bad: pl.DataFrame, what: str, release: str) -> Outcome:
    if bad.is_empty():
        return Outcome(
            name, True, f"{release}: no row has {what}", {"offending_rows": 0}
        )
    shown = _offenders(bad, what)
    return Outcome(
        name,
        False,
        f"{release}: {bad.height} row(s) have {what}; first: {shown[0]}",
        {"offending_rows": bad.height, "examples": shown},
    )


def check_schema(results: pl.DataFrame, release: str) -> Outcome:
    """Columns and dtypes are exactly the canonical schema."""
    expected = dict(RESULTS_SCHEMA)
    actual = dict(results.schema)
    if actual == expected:
        return Outcome(
            "schema", True, f"{release}: {len(expected)} columns as declared"
        )
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    wrong = sorted(
        f"{c}: {actual[c]} (expected {expected[c]})"
        for c in set(expected) & set(actual)
        if actual[c] != expected[c]
    )
    return Outcome(
        "schema",
        False,
        f"{release}: schema differs: missing {missing}, extra {extra}, wrong {wrong}",
        {"missing": missing, "extra": extra, "wrong_dtype": wrong},
    )


def check_keys_not_null(results: pl.DataFrame, release: str) -> Outcome:
    """Every row can be identified and compared."""
    keys = ["release", "result_key", "submitter", "division", "benchmark", "scenario"]
    bad = results.filter(pl.any_horizontal(pl.col(keys).is_null()))
    return _outcome("keys_not_null", bad, "a null key field", release)


def check_results_positive(results: pl.DataFrame, release: str) -> Outcome:
    """Ratios of results are meaningless unless every result is finite and > 0."""
    value = pl.col("result_value")
    bad = results.filter(value.is_null() | ~value.is_finite() | (value <= 0))
    return _outcome("results_finite_positive", bad, "a result that is not > 0", release)


def check_known_vocabulary(results: pl.DataFrame, release: str) -> Outcome:
    """Scenarios and units come from the closed lists the analytics understand."""
    units = set(CANONICAL_UNITS)
    bad = results.filter(
        ~pl.col("scenario").is_in(SCENARIOS) | ~pl.col("result_unit").is_in(units)
    )
    return _outcome(
        "known_scenarios_and_units", bad, "an unknown scenario or unit", release
    )


def check_unique_keys(results: pl.DataFrame, release: str) -> Outcome:
    """One row per result key, so joins across rounds cannot fan out."""
    bad = results.filter(pl.col("result_key").is_duplicated())
    return _outcome("unique_result_keys", bad, "a duplicated result key", release)


def check_row_count(current: int, previous: int | None, release: str) -> Outcome:
    """A re-published round should not lose many rows; if it does, a human looks."""
    meta = {"rows": current, "previous_rows": previous, "max_drop": MAX_ROW_DROP}
    if previous is None or previous == 0:
        return Outcome(
            "row_count_stable", True, f"{release}: {current} rows (first)", meta
        )
    drop = (previous - current) / previous
    if drop > MAX_ROW_DROP:
        return Outcome(
            "row_count_stable",
            False,
            f"{release}: rows fell from {previous} to {current} ({drop:.0%}), more "
            "than "
            f"the {MAX_ROW_DROP:.0%} allowed; the previous snapshot stays published",
            meta,
        )
    return Outcome(
        "row_count_stable", True, f"{release}: {previous} -> {current} rows", meta
    )


def check_not_all_rejected(
    current: int, rejected: pl.DataFrame | None, release: str
) -> Outcome:
    """A round that read records and kept none failed, however clean its 0 rows are.

    Without this, 985,000 records all rejected ended "0 rows … checks passed", exit
    0, and the round's empty table replaced its last good one.
    """
    count = 0 if rejected is None else rejected.height
    meta = {"rows": current, "rejected": count}
    if current or not count:
        return Outcome(
            "not_all_rejected", True, f"{release}: {current} rows kept", meta
        )
    reasons = "; ".join(f"{r} ({n})" for r, n in top_reasons(rejected, shown=3))
    return Outcome(
        "not_all_rejected",
        False,
        f"{release}: every one of the {count:,} records read was rejected, none "
        f"kept; top reasons: {reasons}",
        meta | {"top_reasons": reasons},
    )


def check_results(
    results: pl.DataFrame,
    release: str,
    previous_rows: int | None,
    rejected: pl.DataFrame | None = None,
) -> list[Outcome]:
    """Every blocking rule for one release's canonical rows (and what it rejected)."""
    return [
        check_schema(results, release),
        check_keys_not_null(results, release),
        check_results_positive(results, release),
        check_known_vocabulary(results, release),
        check_unique_keys(results, release),
        check_row_count(results.height, previous_rows, release),
        check_not_all_rejected(results.height, rejected, release),
    ]


def summarise_rejections(rejected: pl.DataFrame, release: str) -> Outcome:
    """Rejections are not fatal, but never silent: counts by reason, with examples."""
    if rejected.is_empty():
        return Outcome("no_rejected_records", True, f"{release}: no record rejected")
    by_reason = (
        rejected.group_by("reason").len().sort("len", descending=True).head(_SHOWN)
    )
    examples = (
        rejected.select(
            pl.format("{} record {}: {}", "source_file", "source_record", "reason")
        )
        .to_series()
        .head(_SHOWN)
        .to_list()
    )
    return Outcome(
        "no_rejected_records",
        False,
        f"{release}: {rejected.height} record(s) rejected; first: {examples[0]}",
        {
            "rejected": rejected.height,
            "by_reason": dict(zip(by_reason["reason"], by_reason["len"], strict=True)),
            "examples": examples,
        },
    )


#: A round that loses more than this share of its results to rejection says so loudly.
LOSS_LIMIT = 0.01


def reason_class(reason: pl.Expr) -> pl.Expr:
    """A rejection reason without its particulars (quoted words, paths, numbers).

    So that 230 folders rejected for one rule count as one reason, not 230.
    """
    return (
        reason.str.replace_all(r"'[^']*'", "'…'")
        .str.replace_all(r"\S+/\S+/\S+", "…")
        .str.replace_all(r"\d+(\.\d+)?", "N")
    )


def top_reasons(rejected: pl.DataFrame, shown: int = 3) -> list[tuple[str, int]]:
    """The most frequent reason classes with their counts, most frequent first."""
    if rejected.is_empty():
        return []
    counts = (
        rejected.group_by(reason_class(pl.col("reason")).alias("reason"))
        .len()
        .sort(["len", "reason"], descending=[True, False])
        .head(shown)
    )
    return list(zip(counts["reason"], counts["len"], strict=True))


def loss_outcome(results: int, rejected: pl.DataFrame, release: str) -> Outcome:
    """Warns when a round rejects more than ``LOSS_LIMIT`` of what it read."""
    total = results + rejected.height
    share = rejected.height / total if total else 0.0
    reasons = top_reasons(rejected, shown=5)
    said = "; ".join(f"{reason} ({count})" for reason, count in reasons)
    passed = share <= LOSS_LIMIT
    return Outcome(
        "rejected_share_at_most_1pct",
        passed,
        f"{release}: {rejected.height} of {total} records rejected ({share:.1%})"
        + ("" if passed else f", above {LOSS_LIMIT:.0%}; top reasons: {said}"),
        {
            "rejected": rejected.height,
            "records": total,
            "share": round(share, 4),
            "top_reasons": {reason: count for reason, count in reasons},
        },
    )
