"""Readings of a claim, and the queries that find the published data each is about.

A claim rarely says at which identity level it was measured, so each kind has several
readings (``READINGS``); for each, a lazy Polars filter picks the pairs of an analysis
table, or the results of the canonical table, the reading is about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from pipeline.analysis.benchmarks import weight_precision
from pipeline.registry.claims import ANY_LEVEL, Claim


@dataclass(frozen=True)
class Reading:
    """One way of reading a claim against the data.

    Attributes:
        label: what the page and the evaluation table call it.
        identity_level: the analysis table's ``identity_level`` it reads.
        is_per_accelerator: compares results divided by their accelerator counts.
        keeps_identity: applies the claim's submitters and systems.
        keeps_scale: applies the claim's accelerator counts.
    """

    label: str
    identity_level: str
    is_per_accelerator: bool = False
    keeps_identity: bool = False
    keeps_scale: bool = True


#: A reading's grade, as the pages and the evaluation table write it: like-for-like
#: when its matches compare one system, or one accelerator at one count, division and
#: weight precision; loose when they mix sizes (per accelerator), submitters (a best-of
#: reading) or weight precisions (``evaluation.mixes`` says which).
LIKE_FOR_LIKE = "like-for-like"
LOOSE = "loose"


PER_ACCELERATOR = " (normalised per accelerator)"
#: Every reading of each kind, strictest first.
READINGS: dict[str, tuple[Reading, ...]] = {
    "software_gain": (
        Reading("system", "system", keeps_identity=True),
        Reading("hardware", "hardware"),
        Reading(
            "accelerator" + PER_ACCELERATOR,
            "accelerator",
            is_per_accelerator=True,
            keeps_scale=False,
        ),
    ),
    "generation_ratio": (
        Reading(
            "same_submitter",
            "same_submitter",
            keeps_identity=True,
        ),
        Reading("best_of_any", "best_of_any"),
        Reading(
            "same_submitter" + PER_ACCELERATOR,
            "same_submitter",
            is_per_accelerator=True,
            keeps_identity=True,
            keeps_scale=False,
        ),
        Reading(
            "best_of_any" + PER_ACCELERATOR,
            "best_of_any",
            is_per_accelerator=True,
            keeps_scale=False,
        ),
    ),
    "scaling_efficiency": (
        Reading(
            "same_submitter",
            "same_submitter",
            keeps_identity=True,
        ),
        Reading("best_of_any", "best_of_any"),
    ),
    "absolute_result": (
        Reading(
            "same_submitter",
            "same_submitter",
            keeps_identity=True,
        ),
        Reading("best_of_any", "best_of_any"),
    ),
}


def readings_for(claim: Claim) -> tuple[Reading, ...]:
    """The readings a claim is evaluated in (all of its kind for ``"any"``)."""
    every = READINGS[claim.kind]
    if claim.identity_level == ANY_LEVEL:
        return every
    return tuple(r for r in every if r.identity_level == claim.identity_level)


#: What one end of an evaluation cites, each as ``<name>_old`` and ``<name>_new``.
END_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "result_key": pl.String,
    "result_url": pl.String,
    "submitter": pl.String,
    "platform": pl.String,
    "accelerator_id": pl.String,
    "total_accelerators": pl.Int32,
    "weight_precision": pl.String,
    "result_value": pl.Float64,
    "availability": pl.String,
    "is_preview": pl.Boolean,
    "is_inferred": pl.Boolean,
    "is_inferred_unverified": pl.Boolean,
}
END_COLUMNS = [f"{name}_{end}" for end in ("old", "new") for name in END_SCHEMA]


# --------------------------------------------------------------------------------------
# Matching: which published pairs or results a claim's reading is about
# --------------------------------------------------------------------------------------


def is_in(column: str, values: Sequence[str]) -> pl.Expr:
    """Membership that is False, not null, for a null cell."""
    return pl.col(column).is_in(list(values)).fill_null(False)


def _pair_filter(claim: Claim, reading: Reading) -> pl.Expr:
    """The rows of a pair table one reading of a claim is about."""
    cond = (
        (pl.col("benchmark") == claim.benchmark)
        & is_in("scenario", claim.scenarios)
        & (pl.col("division") == claim.division)
        & (pl.col("identity_level") == reading.identity_level)
        & (pl.col("is_per_accelerator") == reading.is_per_accelerator)
    )
    old_release, new_release = (
        claim.releases if claim.kind == "software_gain" else claim.releases * 2
    )
    cond &= (pl.col("release_old") == old_release) & (
        pl.col("release_new") == new_release
    )
    accs = claim.accelerators
    if claim.kind == "generation_ratio":
        cond &= (pl.col("accelerator_id_old") == accs[0]) & (
            pl.col("accelerator_id_new") == accs[1]
        )
    elif accs:
        cond &= is_in("accelerator_id_old", accs) & is_in("accelerator_id_new", accs)
    if reading.keeps_scale and claim.total_accelerators:
        old_count, new_count = claim.total_accelerators
        cond &= (pl.col("total_accelerators_old") == old_count) & (
            pl.col("total_accelerators_new") == new_count
        )
    if reading.keeps_identity:
        if claim.submitters:
            cond &= is_in("submitter_old", claim.submitters) & is_in(
                "submitter_new", claim.submitters
            )
        if claim.systems:
            cond &= is_in("platform_old", claim.systems) & is_in(
                "platform_new", claim.systems
            )
    return cond


def pair_matches(table: pl.LazyFrame, claim: Claim, reading: Reading) -> pl.LazyFrame:
    """Pairs one reading of a claim is about, with the value the claim states."""
    # Scaling efficiency is a fraction of linear in the pair table; claims state it in
    # percent ("96% scaling efficiency").
    value = (
        pl.col("efficiency") * 100.0
        if claim.kind == "scaling_efficiency"
        else pl.col("ratio")
    )
    return table.filter(_pair_filter(claim, reading)).select(
        "scenario", value.alias("value"), *END_COLUMNS
    )


def _result_filter(claim: Claim, reading: Reading) -> pl.Expr:
    cond = (
        (pl.col("release") == claim.releases[0])
        & (pl.col("benchmark") == claim.benchmark)
        & is_in("scenario", claim.scenarios)
        & (pl.col("division") == claim.division)
        & pl.col("result_value").is_not_null()
    )
    if claim.per_accelerator:
        cond &= pl.col("result_per_accelerator").is_not_null()
    if claim.accelerators:
        cond &= is_in("accelerator_id", claim.accelerators)
    if reading.keeps_scale and claim.total_accelerators:
        cond &= pl.col("total_accelerators") == claim.total_accelerators[0]
    if reading.keeps_identity:
        if claim.submitters:
            cond &= is_in("submitter", claim.submitters)
        if claim.systems:
            cond &= is_in("platform", claim.systems)
    return cond


def latency_checkable(claim: Claim) -> bool:
    """An absolute claim whose qualifier reads the same for a latency."""
    return claim.qualifier in ("exactly", "about")


def absolute_matches(
    results: pl.LazyFrame, claim: Claim, reading: Reading
) -> pl.LazyFrame:
    """Results an absolute claim is about, as the ``_new`` end (``_old`` is null).

    A latency is checked only when stated "exactly" or "about" ("21 seconds per
    request"): "at least" or "up to" a latency would mean the opposite of what the
    qualifier says of a throughput; its best result is the lowest. A per-accelerator
    claim is compared (and its best result chosen) on each result per accelerator.
    """
    value = "result_per_accelerator" if claim.per_accelerator else "result_value"
    rows = results.filter(
        _result_filter(claim, reading)
        & (pl.col("is_higher_better") | pl.lit(latency_checkable(claim)))
    )
    if not reading.keeps_identity:
        score = (
            pl.when(pl.col("is_higher_better"))
            .then(pl.col(value))
            .otherwise(-pl.col(value))
        )
        rows = rows.sort([score, "result_key"], descending=[True, False]).unique(
            subset=["scenario"], keep="first", maintain_order=True
        )
    return rows.with_columns(weight_precision=weight_precision()).select(
        "scenario",
        pl.col(value).alias("value"),
        *[pl.lit(None, dtype).alias(f"{n}_old") for n, dtype in END_SCHEMA.items()],
        *[pl.col(n).alias(f"{n}_new") for n in END_SCHEMA],
    )
