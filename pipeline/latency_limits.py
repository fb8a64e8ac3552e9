"""LLM latency limits as one typed frame for the analyses and the Interactivity page.

The limits themselves are reviewed data, read by ``pipeline.registry.latency_limits``
(``pipeline/registry/latency_limits.toml``).
"""

from __future__ import annotations

import polars as pl

from pipeline.registry.latency_limits import LatencyLimit, load_latency_limits

#: One row per limit, with its source spelled out (``limits_frame``).
LIMITS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "benchmark": pl.String,
    "scenario": pl.String,
    "ttft_ms": pl.Float64,
    "tpot_ms": pl.Float64,
    # A benchmark answered whole (qwen3-vl): its end-to-end query latency bound;
    # null where the bounds are TTFT and TPOT.
    "latency_ms": pl.Float64,
    "source_id": pl.String,
    "source_repository": pl.String,
    "source_path": pl.String,
    "source_commit": pl.String,
    "source_symbol": pl.String,
    # The file at that commit on GitHub.
    "source_url": pl.String,
}


def limits_frame(limits: tuple[LatencyLimit, ...] | None = None) -> pl.DataFrame:
    """The limits as one typed row per round, benchmark and scenario.

    Args:
        limits: Parsed limits; the committed ones when None.
    """
    rows = [
        {
            "release": x.release,
            "benchmark": x.benchmark,
            "scenario": x.scenario,
            "ttft_ms": x.ttft_ms,
            "tpot_ms": x.tpot_ms,
            "latency_ms": x.latency_ms,
            "source_id": x.source.id,
            "source_repository": x.source.repository,
            "source_path": x.source.path,
            "source_commit": x.source.commit,
            "source_symbol": x.source.symbol,
            "source_url": x.source.url,
        }
        for x in (load_latency_limits() if limits is None else limits)
    ]
    return pl.DataFrame(rows, schema=LIMITS_SCHEMA)


def limit_columns(source: str = "limit_source_url") -> list[pl.Expr]:
    """``limits_frame``'s key and limits, named as they sit beside a result.

    The key (release, benchmark, scenario) joins a result; the limits become
    ``ttft_limit_ms``, ``tpot_limit_ms`` and ``latency_limit_ms``, the source
    ``source``. One naming for every table that carries a result's limits.
    """
    return [
        pl.col("release"),
        pl.col("benchmark"),
        pl.col("scenario"),
        pl.col("ttft_ms").alias("ttft_limit_ms"),
        pl.col("tpot_ms").alias("tpot_limit_ms"),
        pl.col("latency_ms").alias("latency_limit_ms"),
        pl.col("source_url").alias(source),
    ]


def latency_bounded(limits: pl.DataFrame | None = None) -> pl.Series:
    """Benchmarks a round of the registry bounds by end-to-end latency.

    Any round: such a benchmark (answered whole, in queries or samples, not Tokens/s)
    is treated as an LLM's in every round, its unreviewed rounds included.
    """
    table = limits if limits is not None else limits_frame()
    return table.filter(pl.col("latency_ms").is_not_null())["benchmark"].unique().sort()
