"""Accelerator histories: one accelerator's best result per round, round after round.

A software gain compares two releases; a history follows one *line* through every
round it appears in: one canonical accelerator (single chip: not mixed, not CPU-only,
not unclassified) on one benchmark, scenario, division and result unit (and, in the
open division, one submitted model). Each point is the best result per accelerator
(``result_per_accelerator``) of that round, whoever submitted it and at whatever chip
count; each step divides a point by the previous point of its line (> 1 = better).

Only throughput (higher-is-better units) takes part: a latency is a property of the
whole system, is not divided per accelerator, and would mix chip counts in one line.

A step is only chained when the compatibility rules (``benchmarks.comparable``: same
unit, registry rules such as the MultiStream redefinition in v2.0 or the 3D U-Net
dataset change) allow its two ends to be compared. A step they forbid breaks the line:
the later point starts a new *segment*, carries the reason in ``break_reason`` and has
no step ratio. Segments are numbered per line from 0.

Every point keeps the cited result (key, URL, submitter, system, chip count,
availability, preview/inferred flags), and the key and URL of the previous point.
These are derived, unofficial numbers.
Dagster wiring and page layout do not belong here.
"""

from __future__ import annotations

from typing import Unpack

import polars as pl

from pipeline.analysis.benchmarks import comparable, model_label
from pipeline.analysis.pairing import (
    AnalysisOptions,
    Options,
    best_per_group,
    prepare,
    single_accelerator,
)
from pipeline.registry.benchmarks import MATCHABLE_FIELDS

#: What identifies a line (besides its segment): one accelerator on one measurement.
LINE_KEYS = (
    "accelerator_id", "benchmark", "scenario", "division", "result_unit", "line_model",
)  # fmt: skip

#: One row per point of a line segment, oldest round first within each segment.
HISTORY_SCHEMA: dict[str, pl.DataType] = {
    "accelerator_id": pl.String,
    "accelerator_vendor": pl.String,
    "accelerator_model": pl.String,
    "benchmark": pl.String,
    "scenario": pl.String,
    "division": pl.String,
    "result_unit": pl.String,
    # The open-division submitted model the line follows ("" where no rule asks).
    "line_model": pl.String,
    "segment": pl.Int32,
    # Points in this segment, and this point's 1-based position in it.
    "segment_rounds": pl.Int32,
    "step": pl.Int32,
    "release": pl.String,
    # The best result per accelerator of this round: the line's value.
    "value": pl.Float64,
    "result_value": pl.Float64,
    "total_accelerators": pl.Int32,
    "nodes": pl.Int32,
    "result_key": pl.String,
    "result_url": pl.String,
    "submitter": pl.String,
    "system_name": pl.String,
    "platform": pl.String,
    "accelerator_name": pl.String,
    "software": pl.String,
    "availability": pl.String,
    "is_preview": pl.Boolean,
    "is_inferred": pl.Boolean,
    # The previous point of the line (also across a break), null on its first point.
    "release_prev": pl.String,
    "value_prev": pl.Float64,
    "result_key_prev": pl.String,
    # Its upstream result, so a step links both of the results it divides.
    "result_url_prev": pl.String,
    # value / value_prev within a segment; null on a segment's first point.
    "step_ratio": pl.Float64,
    # value / the segment's first value.
    "cumulative_ratio": pl.Float64,
    # Why this point is not chained to release_prev (the segment starts here).
    "break_reason": pl.String,
}


def accelerator_histories(
    results: pl.LazyFrame, **options: Unpack[AnalysisOptions]
) -> pl.LazyFrame:
    """Each accelerator's best result per accelerator per round, chained in order.

    Args:
        results: the canonical results table (``RESULTS_SCHEMA``), lazily, any releases.
        include_preview: use preview results (flagged in ``is_preview`` either way).
        include_inferred: use inferred results (flagged in ``is_inferred``).
        rules: compatibility rules other than the committed ones (tests).
        registry: an accelerator registry other than the committed one (tests).

    Returns:
        ``HISTORY_SCHEMA`` rows, one per (line, segment, release), sorted by line,
        segment and release order. Lines with a single point are kept (their
        ``segment_rounds`` is 1); callers choose what to show.
    """
    settings = Options(**options)
    line = list(LINE_KEYS)
    rows = (
        prepare(results, settings)
        .filter(
            single_accelerator()
            & ~pl.col("is_cpu_only")
            & pl.col("is_higher_better")
            & (pl.col("total_accelerators") > 0)
            & pl.col("result_per_accelerator").is_finite()
            & (pl.col("result_per_accelerator") > 0)
        )
        .with_columns(
            line_model=pl.when(pl.col("_model_key") != "")
            .then(model_label())
            .otherwise(pl.lit(""))
        )
    )
    best = best_per_group(
        rows, [*line, "release"], is_per_accelerator=True
    ).with_columns(value=pl.col("result_per_accelerator"))

    def previous(column: str) -> pl.Expr:
        return pl.col(column).shift(1).over(line, order_by="_order")

    steps = best.with_columns(
        release_prev=previous("release"),
        value_prev=previous("value"),
        result_key_prev=previous("result_key"),
        result_url_prev=previous("result_url"),
    )
    # comparable() reads a pair's ends as *_old / *_new.
    flagged = comparable(
        steps.with_columns(
            release_old=pl.col("release_prev"),
            release_new=pl.col("release"),
            **{f"{f}_old": previous(f) for f in MATCHABLE_FIELDS},
            **{f"{f}_new": pl.col(f) for f in MATCHABLE_FIELDS},
        ),
        settings.rules,
    )
    chained = pl.col("release_prev").is_not_null() & pl.col("is_comparable")
    segment_keys = [*line, "segment"]
    return (
        flagged.with_columns(
            break_reason=pl.when(pl.col("release_prev").is_not_null()).then(
                pl.col("incompatibility_reason")
            ),
            step_ratio=pl.when(chained).then(pl.col("value") / pl.col("value_prev")),
        )
        .with_columns(
            segment=pl.col("break_reason")
            .is_not_null()
            .cast(pl.Int32)
            .cum_sum()
            .over(line, order_by="_order")
        )
        .with_columns(
            segment_rounds=pl.len().over(segment_keys),
            step=pl.int_range(1, pl.len() + 1).over(segment_keys, order_by="_order"),
            cumulative_ratio=pl.col("value")
            / pl.col("value").sort_by("_order").first().over(segment_keys),
        )
        .sort([*line, "segment", "_order"])
        .select(list(HISTORY_SCHEMA))
        .cast(HISTORY_SCHEMA)
    )
