"""Verdicts: the rounding rules per reading, and one verdict per claim.

Matching and the rounding rules run in Polars; Python only loops over claims and
their few readings, and formats one representative row per reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from pipeline.analysis.accelerators import attach_accelerators
from pipeline.claims.explanation import (
    aggregate_text,
    not_reproducible_reason,
    reading_caveats,
    rule_text,
)
from pipeline.claims.readings import (
    END_COLUMNS,
    END_SCHEMA,
    LIKE_FOR_LIKE,
    LOOSE,
    Reading,
    absolute_matches,
    pair_matches,
    readings_for,
)
from pipeline.registry.accelerators import AcceleratorRegistry, load_accelerators
from pipeline.registry.claims import TOLERANCE, Claim

#: A claim's verdicts. "holds only in a loose reading": no like-for-like reading
#: supports the claim, a loose one does (per accelerator across sizes, another
#: submitter's best, across weight precisions); the page names it and what it mixes.
LOOSE_ONLY = "holds only in a loose reading"
VERDICTS = ("consistent", LOOSE_ONLY, "inconsistent", "not reproducible")
#: A single reading's verdicts; its ``grade`` says whether it compares like for like.
READING_VERDICTS = ("consistent", "inconsistent", "not reproducible")

#: One row per (claim, reading): ``evaluate_claims``' output.
EVALUATION_SCHEMA: dict[str, pl.DataType] = {
    "claim_id": pl.String,
    "title": pl.String,
    "claimant": pl.String,
    "kind": pl.String,
    "releases": pl.List(pl.String),
    "reading": pl.String,
    "identity_level": pl.String,
    "is_per_accelerator": pl.Boolean,
    # LIKE_FOR_LIKE, or LOOSE when ``mixes`` (what its matches mix: sizes per
    # accelerator, submitters, weight precisions) is not empty; null when nothing
    # matched.
    "grade": pl.String,
    "mixes": pl.List(pl.String),
    "verdict": pl.String,
    "value": pl.Float64,
    "figure": pl.Float64,
    "qualifier": pl.String,
    "decimals": pl.Int32,
    "match_rule": pl.String,
    "matches": pl.Int32,
    "benchmark": pl.String,
    "scenario": pl.String,
    "division": pl.String,
    **{f"{name}_old": dtype for name, dtype in END_SCHEMA.items()},
    **{f"{name}_new": dtype for name, dtype in END_SCHEMA.items()},
    "reason": pl.String,
    "caveats": pl.List(pl.String),
}

#: One row per claim: ``claim_verdicts``' output.
VERDICT_SCHEMA: dict[str, pl.DataType] = {
    "claim_id": pl.String,
    "title": pl.String,
    "claimant": pl.String,
    "kind": pl.String,
    "releases": pl.List(pl.String),
    "verdict": pl.String,
    "matching_readings": pl.List(pl.String),
    "readings": pl.List(pl.String),
    "is_per_accelerator_only": pl.Boolean,
    # For LOOSE_ONLY: the loose reading that holds and what it mixes, in words.
    "loose_reading": pl.String,
    "summary": pl.String,
}


def _judged(matches: pl.LazyFrame, claim: Claim) -> pl.LazyFrame:
    """Matches with the rule flags, the representative match first.

    The representative is what the qualifier is about: the maximum for "up to", the
    minimum for "at least"/"over", and for "about"/"exactly" the first match that
    fails (furthest from the figure), else the furthest one.
    """
    places = claim.decimals
    scale = 10.0**places
    target = round(claim.figure * scale)
    value = pl.col("value")
    scaled = value * scale
    slack = TOLERANCE * pl.max_horizontal(pl.lit(1.0), scaled.abs())
    # Polars rounds to decimal places only; a figure in thousands or millions
    # (negative places) is rounded on the scaled value instead.
    rounded = (
        value.round(places, mode="half_to_even")
        if places >= 0
        else scaled.round(0, mode="half_to_even") / scale
    )
    truncated = (scaled + slack).floor() / scale
    rounds = (rounded * scale).round(0) == target
    truncates = (truncated * scale).round(0) == target
    reaches = value >= claim.figure - TOLERANCE * max(1.0, claim.figure)
    passes = {
        "about": rounds,
        "up to": rounds | truncates,
        "exactly": rounds | truncates,
        "at least": reaches,
        "over": reaches,
    }[claim.qualifier]
    flagged = matches.with_columns(
        _precision_change=(
            pl.col("weight_precision_old") != pl.col("weight_precision_new")
        ).fill_null(False),
        _rounded=rounded,
        _truncated=truncated,
        _rounds=rounds,
        _truncates=truncates,
        _passes=passes,
        _distance=(value - claim.figure).abs(),
    )
    keys = ["result_key_old", "result_key_new"]
    if claim.qualifier == "up to":
        order, descending = ["value", *keys], [True, False, False]
    elif claim.qualifier in ("at least", "over"):
        order, descending = ["value", *keys], [False, False, False]
    else:
        order, descending = ["_passes", "_distance", *keys], [False, True, False, False]
    return flagged.sort(order, descending=descending, nulls_last=True)


def mixes(claim: Claim, reading: Reading, judged: pl.DataFrame) -> list[str]:
    """What a reading's matches mix that a like-for-like comparison would not.

    Read from the representative match (the first row), except precision: any match
    that changes weight precision counts, since the verdict rests on every match.
    """
    rep = judged.row(0, named=True)
    out: list[str] = []
    sizes = (rep["total_accelerators_old"], rep["total_accelerators_new"])
    if reading.is_per_accelerator and None not in sizes and sizes[0] != sizes[1]:
        out.append(f"per accelerator, {sizes[0]} vs {sizes[1]} accelerators")
    if not reading.keeps_identity and reading.identity_level != "hardware":
        ends = [e for e in ("old", "new") if rep[f"result_key_{e}"] is not None]
        submitters = {rep[f"submitter_{e}"] for e in ends}
        if len(submitters) > 1:
            out.append("different submitters")
        elif claim.submitters and not submitters <= set(claim.submitters):
            out.append(f"another submitter's result ({', '.join(sorted(submitters))})")
    changed = judged.filter("_precision_change")
    if changed.height:
        first = changed.row(0, named=True)
        out.append(
            f"weights {first['weight_precision_old']} → {first['weight_precision_new']}"
        )
    return out


def _row(claim: Claim, reading: Reading, **values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(EVALUATION_SCHEMA)
    row.update(
        claim_id=claim.id,
        title=claim.display_title,
        claimant=claim.claimant,
        kind=claim.kind,
        releases=list(claim.releases),
        reading=reading.label,
        identity_level=reading.identity_level,
        is_per_accelerator=reading.is_per_accelerator,
        mixes=[],
        figure=claim.figure,
        qualifier=claim.qualifier,
        decimals=claim.decimals,
        benchmark=claim.benchmark,
        division=claim.division,
        matches=0,
        caveats=[],
    )
    row.update(values)
    return row


def _evaluated_row(
    claim: Claim, reading: Reading, judged: pl.DataFrame
) -> dict[str, Any]:
    rep = judged.row(0, named=True)
    rule, match_rule = rule_text(claim, rep)
    mixed = mixes(claim, reading, judged)
    return _row(
        claim,
        reading,
        grade=LOOSE if mixed else LIKE_FOR_LIKE,
        mixes=mixed,
        verdict="consistent" if rep["_passes"] else "inconsistent",
        value=rep["value"],
        match_rule=match_rule,
        matches=judged.height,
        scenario=rep["scenario"],
        **{c: rep[c] for c in END_COLUMNS},
        reason=aggregate_text(claim, judged) + rule,
        caveats=reading_caveats(claim, reading, rep),
    )


def _only_loose(claim: Claim, rows: list[dict[str, Any]]) -> None:
    """Lead the caveats of loose readings that are the only ones a claim holds in.

    A per-accelerator ratio may set an 8-GPU result against a 72-GPU one, a best-of
    reading another submitter's system; when no like-for-like reading agrees with the
    claim, the reader must see that first.
    """
    if any(r["verdict"] == "consistent" and r["grade"] == LIKE_FOR_LIKE for r in rows):
        return
    for row in rows:
        if not (row["grade"] == LOOSE and row["verdict"] == "consistent"):
            continue
        mixed = ", ".join(row["mixes"]) or row["reading"]
        text = f"{LOOSE_ONLY}: {mixed}"
        counts = claim.total_accelerators
        if (
            row["is_per_accelerator"]
            and counts
            and (row["total_accelerators_old"], row["total_accelerators_new"])
            != tuple(counts)
        ):
            text += f"; the claim names {counts[0]} → {counts[1]}"
        row["caveats"] = [
            text,
            *[
                c
                for c in row["caveats"]
                if not c.startswith("compared per accelerator")
            ],
        ]


def evaluate_claims(
    claims: Sequence[Claim],
    results: pl.LazyFrame | pl.DataFrame,
    gains: pl.LazyFrame | pl.DataFrame,
    generations: pl.LazyFrame | pl.DataFrame,
    scaling: pl.LazyFrame | pl.DataFrame,
    *,
    registry: AcceleratorRegistry | None = None,
) -> pl.DataFrame:
    """Check every claim in every applicable reading against the published data.

    The pair tables are the ones the site publishes (``pipeline.analysis``), so a
    claim is judged on exactly the numbers a reader can look up; the results table is
    used for absolute claims and to explain what is missing when nothing matches.
    Matching and the rounding rules run in Polars; Python only loops over claims and
    their few readings, and formats one representative row per reading.

    Args:
        claims: from ``load_claims``.
        results: the canonical results table (``RESULTS_SCHEMA``, accelerator columns
            optional: they are attached here).
        gains: ``software_gains`` output (``PAIR_SCHEMA``).
        generations: ``generation_ratios`` output (``PAIR_SCHEMA``).
        scaling: ``scaling`` output (``PAIR_SCHEMA``).
        registry: accelerator registry other than the committed one (tests).

    Returns:
        ``EVALUATION_SCHEMA``: one row per (claim, reading), in registry order.
    """
    registry = registry or load_accelerators()
    # Only the releases the claims name are needed (absolute claims, diagnostics).
    releases = sorted({r for claim in claims for r in claim.releases})
    attached = attach_accelerators(
        results.lazy().filter(pl.col("release").is_in(releases)), registry
    ).collect()
    tables = {
        "software_gain": gains.lazy(),
        "generation_ratio": generations.lazy(),
        "scaling_efficiency": scaling.lazy(),
        "absolute_result": attached.lazy(),
    }
    plan = [(claim, reading) for claim in claims for reading in readings_for(claim)]
    queries = [
        _judged(
            absolute_matches(tables[claim.kind], claim, reading)
            if claim.kind == "absolute_result"
            else pair_matches(tables[claim.kind], claim, reading),
            claim,
        )
        for claim, reading in plan
    ]
    judged_frames = pl.collect_all(queries) if queries else []
    by_claim: dict[str, list[dict[str, Any]]] = {c.id: [] for c in claims}
    for (claim, reading), judged in zip(plan, judged_frames, strict=True):
        if judged.height:
            row = _evaluated_row(claim, reading, judged)
        else:
            row = _row(
                claim,
                reading,
                verdict="not reproducible",
                reason="not reproducible: "
                + not_reproducible_reason(attached, claim, reading, registry),
            )
        by_claim[claim.id].append(row)
    for claim in claims:
        _only_loose(claim, by_claim[claim.id])
    rows = [row for claim in claims for row in by_claim[claim.id]]
    return pl.DataFrame(rows, schema=EVALUATION_SCHEMA)


def claim_verdicts(evaluations: pl.DataFrame) -> pl.DataFrame:
    """One overall verdict per claim, and which readings agree with it.

    A claim is ``consistent`` if a like-for-like reading is (the same system, or the
    same accelerator at the same count and weight precision), ``LOOSE_ONLY`` if only
    a loose reading is (the verdict names it and what it mixes), ``inconsistent`` if
    it is reproducible in some reading and consistent in none, and ``not
    reproducible`` if no reading finds published results.

    Args:
        evaluations: ``evaluate_claims`` output.

    Returns:
        ``VERDICT_SCHEMA``, one row per claim in the order of ``evaluations``.
    """
    consistent = pl.col("verdict") == "consistent"
    like = pl.col("grade") == LIKE_FOR_LIKE
    reproducible = pl.col("verdict") != "not reproducible"
    per_acc_only = (
        pl.col("is_per_accelerator").filter(consistent).all() & consistent.any()
    )
    verdict = (
        pl.when((consistent & like).any())
        .then(pl.lit("consistent"))
        .when(consistent.any())
        .then(pl.lit(LOOSE_ONLY))
        .when(reproducible.any())
        .then(pl.lit("inconsistent"))
        .otherwise(pl.lit("not reproducible"))
    )
    mixed = pl.col("mixes").list.join(", ")
    loose_text = pl.format(
        "{} ({})",
        pl.col("reading"),
        pl.when(mixed != "").then(mixed).otherwise(pl.lit("best of any submitter")),
    )
    grouped = evaluations.group_by("claim_id", maintain_order=True).agg(
        pl.col("title").first(),
        pl.col("claimant").first(),
        pl.col("kind").first(),
        pl.col("releases").first(),
        verdict.alias("verdict"),
        pl.col("reading").filter(consistent).alias("matching_readings"),
        pl.col("reading").alias("readings"),
        per_acc_only.alias("is_per_accelerator_only"),
        loose_text.filter(consistent & (pl.col("grade") == LOOSE))
        .first()
        .alias("_loose"),
        pl.format("{} {}", pl.col("reading"), pl.col("verdict"))
        .filter(like & reproducible)
        .str.join("; ")
        .alias("_strict"),
        reproducible.sum().alias("_reproducible"),
        pl.col("reason").first().alias("_first_reason"),
    )
    matching = pl.col("matching_readings")
    readings = pl.col("readings").list.len()
    noun = pl.when(readings == 1).then(pl.lit("reading")).otherwise(pl.lit("readings"))
    loose_only = pl.col("verdict") == LOOSE_ONLY
    summary = (
        pl.when(pl.col("verdict") == "consistent")
        .then(
            pl.format(
                "consistent in {} of {} {}: {}",
                matching.list.len(),
                readings,
                noun,
                matching.list.join(", "),
            )
        )
        .when(loose_only)
        .then(
            pl.format("{}: {}", pl.lit(LOOSE_ONLY), "_loose")
            + pl.when(pl.col("_strict") != "")
            .then(pl.format("; like-for-like: {}", "_strict"))
            .otherwise(pl.lit("; no like-for-like reading has published results"))
        )
        .when(pl.col("verdict") == "inconsistent")
        .then(
            pl.format(
                "inconsistent in every reproducible reading ({} of {} {})",
                pl.col("_reproducible"),
                readings,
                noun,
            )
        )
        .otherwise(pl.col("_first_reason"))
    )
    return (
        grouped.with_columns(
            summary.alias("summary"),
            pl.when(loose_only).then(pl.col("_loose")).alias("loose_reading"),
        )
        .select(list(VERDICT_SCHEMA))
        .cast(VERDICT_SCHEMA)
    )
