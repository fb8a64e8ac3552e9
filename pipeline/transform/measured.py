"""Latency as measured and accuracy, per result, where the raw tree states them.

What belongs here: the schema of the measured-latency table and the one Polars step
from scanned scenario folders (``pipeline.extract.raw_tree.stage_raw_tree``) and the
tree's canonical results to it. What does not: reading files (the extractors), the
latency limits (``pipeline/registry/latency_limits.toml``).

Only results written by the MLPerf endpoints harness state their latency
distributions in a file the scan reads (``performance/result_summary.json``: ``ttft``
and ``tpot`` in nanoseconds, empty in Offline; ``latency``, end to end, the one
qwen3-vl-235b-a22b's limits bound) and their accuracy
(``accuracy/accuracy_results.json``'s ``average_accuracy``). The table holds one row
per such canonical tree result, times in milliseconds (nanoseconds / 1e6), so the
canonical results table keeps its schema and a round read from a summary alone
gains no column. ``result_key`` is the tree result's key; ``summary_result_key``
names the published result the crosscheck paired it with (``with_summary_keys``).
"""

from __future__ import annotations

import polars as pl

#: The distributions and the statistics kept of each (the early-stopping estimate
#: at the percentile ``endpoints.toml`` names is the value the limits bound).
DISTRIBUTIONS = ("ttft", "tpot", "latency")
STATISTICS = ("p50", "p90", "p99", "es")

MEASURED_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "result_key": pl.String,
    "summary_result_key": pl.String,
    "location": pl.String,
    "scenario": pl.String,
    **{f"{d}_{s}_ms": pl.Float64 for d in DISTRIBUTIONS for s in STATISTICS},
    #: The percentile of the early-stopping estimates (``ttft_es_ms``, ``tpot_es_ms``).
    "early_stopping_percentile": pl.Float64,
    #: 1000 / ``tpot_p50_ms``: the median user's output token rate.
    "tokens_per_second_per_user": pl.Float64,
    #: ``average_accuracy`` of the accuracy run (the value summary.json gives as
    #: ``Accuracy`` in v6.1), and the file it was read from.
    "accuracy": pl.Float64,
    "accuracy_file": pl.String,
    "source_file": pl.String,
}


def measured_latency(
    folders: pl.LazyFrame, results: pl.LazyFrame, *, percentile: float | None
) -> pl.LazyFrame:
    """One row per canonical tree result whose folder states latency or accuracy.

    Args:
        folders: ``FOLDER_SCHEMA`` rows of one round.
        results: The round's canonical tree results (``RESULTS_SCHEMA``).
        percentile: The early-stopping percentile the round's rules use, or None.
    """
    location = pl.concat_str(
        "division", "submitter", pl.lit("results"), "system_dir", "benchmark_dir",
        "scenario_dir", separator="/",
    )  # fmt: skip
    stated = [f"{d}_{s}_ns" for d in DISTRIBUTIONS for s in STATISTICS]
    measured = (
        folders.filter(pl.col("harness") == "endpoints")
        .with_columns(location=location)
        .filter(
            pl.any_horizontal(pl.col(stated).is_not_null())
            | pl.col("accuracy").is_not_null()
        )
        .select(
            "location",
            *[
                (pl.col(f"{d}_{s}_ns") / 1e6).alias(f"{d}_{s}_ms")
                for d in DISTRIBUTIONS
                for s in STATISTICS
            ],
            "accuracy",
            "accuracy_file",
        )
    )
    return (
        results.select("release", "result_key", "location", "scenario", "source_file")
        .join(measured, on="location", how="inner")
        .with_columns(
            summary_result_key=pl.lit(None, dtype=pl.String),
            early_stopping_percentile=pl.when(
                pl.col("ttft_es_ms").is_not_null() | pl.col("tpot_es_ms").is_not_null()
            ).then(pl.lit(percentile, dtype=pl.Float64)),
            tokens_per_second_per_user=pl.when(pl.col("tpot_p50_ms") > 0).then(
                1000.0 / pl.col("tpot_p50_ms")
            ),
        )
        .select(list(MEASURED_SCHEMA))
        .cast(MEASURED_SCHEMA)
        .sort("release", "result_key")
    )


def with_summary_keys(
    measured: pl.LazyFrame, crosscheck: pl.LazyFrame, published: pl.LazyFrame
) -> pl.LazyFrame:
    """``summary_result_key``: the published result each row measures, or null.

    The crosscheck's pair where the round has a summary; the tree result's own key
    where the round's published rows are the tree's (no summary in the source).
    """
    pairs = crosscheck.filter(
        pl.col("raw_result_key").is_not_null()
        & pl.col("summary_result_key").is_not_null()
    ).select(
        pl.col("raw_result_key").alias("result_key"),
        pl.col("summary_result_key").alias("_paired"),
    )
    own = published.select(
        pl.col("result_key"), pl.col("result_key").alias("_own")
    ).unique()
    return (
        measured.join(pairs, on="result_key", how="left", maintain_order="left")
        .join(own, on="result_key", how="left", maintain_order="left")
        .with_columns(summary_result_key=pl.coalesce("_paired", "_own"))
        .select(list(MEASURED_SCHEMA))
        .cast(MEASURED_SCHEMA)
    )


def empty_measured() -> pl.DataFrame:
    """The measured-latency table with no rows."""
    return pl.DataFrame(schema=MEASURED_SCHEMA)
