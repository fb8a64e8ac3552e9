"""One LLM system's Offline, Server and Interactive throughput, against the limits.

An LLM benchmark's Server and Interactive scenarios only count tokens served while
every request meets a 99th-percentile time-to-first-token (TTFT) and time-per-output-
token (TPOT) bound (``pipeline/registry/latency_limits.toml``); Offline has none. The
same system's three results side by side show what the interactivity target costs:
``server_vs_offline`` and ``interactive_vs_offline`` divide the constrained throughput
by the unconstrained one.

A *system* is one submission line: same round, submitter, division, system name,
platform (upstream's system folder), benchmark and submitted model. Its values are the
system results in Tokens/s and, where the system has one kind of accelerator, the
result per accelerator (a derived normalisation). If one system reports a scenario
twice (upstream never does in the mirrored rounds), the best result is used and
``extra_results`` says how many others there were.

Each row names the limits of its round (null where the registry has none: no source
was found) and the sources they come from. Dagster wiring and page layout do not
belong here.
"""

from __future__ import annotations

from typing import Unpack

import polars as pl

from pipeline.analysis.pairing import AnalysisOptions, Options, prepare
from pipeline.latency_limits import latency_bounded, limits_frame

UNIT = "Tokens/s"
#: The three scenarios shown together, and their column prefixes.
SCENARIO_PREFIXES = {
    "Offline": "offline",
    "Server": "server",
    "Interactive": "interactive",
}
LIMITED = ("Server", "Interactive")
#: What identifies one system (one submission line).
SYSTEM_KEYS = (
    "release", "benchmark", "division", "submitter", "system_name", "platform",
    "model_upstream",
)  # fmt: skip

#: How systems rank within a benchmark: best per accelerator in the most demanding
#: scenario first; ties (CPU systems have no per-accelerator value) end on unique keys,
#: so identical inputs give identical pages.
BEST_FIRST = (
    "interactive_per_accelerator", "server_per_accelerator", "offline_per_accelerator",
    "platform", "submitter", "division", "server_result_key", "interactive_result_key",
)  # fmt: skip

_END: dict[str, pl.DataType] = {
    "value": pl.Float64,
    "per_accelerator": pl.Float64,
    "result_key": pl.String,
    "result_url": pl.String,
    "is_inferred": pl.Boolean,
}
_LIMIT: dict[str, pl.DataType] = {
    "ttft_ms": pl.Float64,
    "tpot_ms": pl.Float64,
    "limit_source_url": pl.String,
}

#: One row per system with a Server or Interactive result on an LLM benchmark.
INTERACTIVITY_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "benchmark": pl.String,
    "division": pl.String,
    "submitter": pl.String,
    "system_name": pl.String,
    "platform": pl.String,
    "model_upstream": pl.String,
    "availability": pl.String,
    "is_preview": pl.Boolean,
    "accelerator_id": pl.String,
    "accelerator_vendor": pl.String,
    "accelerator_model": pl.String,
    "accelerator_name": pl.String,
    "total_accelerators": pl.Int32,
    "nodes": pl.Int32,
    **{
        f"{p}_{name}": t for p in SCENARIO_PREFIXES.values() for name, t in _END.items()
    },
    **{
        f"{p}_{name}": t
        for p in ("server", "interactive")
        for name, t in _LIMIT.items()
    },
    # Constrained ÷ unconstrained throughput of the same system (null without both).
    "server_vs_offline": pl.Float64,
    "interactive_vs_offline": pl.Float64,
    # Results beyond one per scenario (the best is used).
    "extra_results": pl.Int32,
}


def _limits(limits: pl.DataFrame | None) -> pl.LazyFrame:
    """Server and Interactive limits side by side, one row per round and benchmark."""
    table = (limits if limits is not None else limits_frame()).lazy()
    sides = [
        table.filter(pl.col("scenario") == scenario).select(
            "release",
            "benchmark",
            *(
                pl.col(c).alias(f"{SCENARIO_PREFIXES[scenario]}_{c}")
                for c in ("ttft_ms", "tpot_ms")
            ),
            pl.col("source_url").alias(
                f"{SCENARIO_PREFIXES[scenario]}_limit_source_url"
            ),
        )
        for scenario in LIMITED
    ]
    return sides[0].join(
        sides[1], on=["release", "benchmark"], how="full", coalesce=True
    )


def interactivity(
    results: pl.LazyFrame,
    *,
    limits: pl.DataFrame | None = None,
    **options: Unpack[AnalysisOptions],
) -> pl.LazyFrame:
    """Each LLM system's Offline, Server and Interactive throughput, with the limits.

    Args:
        results: the canonical results table (``RESULTS_SCHEMA``), lazily.
        limits: ``latency_limits.limits_frame()`` rows; the committed ones when None.
        include_preview / include_inferred / registry: as for every analysis.

    Returns:
        ``INTERACTIVITY_SCHEMA`` rows: every system with a Tokens/s result in Server or
        Interactive, by round order, benchmark, and Interactive, Server, then Offline
        per-accelerator throughput (best first).
    """
    settings = Options(**options)
    keys = list(SYSTEM_KEYS)
    rows = (
        prepare(results, settings)
        .filter(
            (pl.col("result_unit") == UNIT)
            & pl.col("scenario").is_in(list(SCENARIO_PREFIXES))
            & pl.col("result_value").is_not_null()
        )
        .sort(["result_value", "result_key"], descending=[True, False])
    )

    def best(scenario: str, column: str) -> pl.Expr:
        prefix = SCENARIO_PREFIXES[scenario]
        name = {"result_value": "value", "result_per_accelerator": "per_accelerator"}
        return (
            pl.col(column)
            .filter(pl.col("scenario") == scenario)
            .first()
            .alias(f"{prefix}_{name.get(column, column)}")
        )

    columns = (
        "result_value", "result_per_accelerator", "result_key", "result_url",
        "is_inferred",
    )  # fmt: skip
    systems = (
        rows.group_by(keys, maintain_order=True)
        .agg(
            pl.col("_order").first(),
            pl.col("availability").first(),
            pl.col("is_preview").any(),
            pl.col("accelerator_id").first(),
            pl.col("accelerator_vendor").first(),
            pl.col("accelerator_model").first(),
            pl.col("accelerator_name").first(),
            pl.col("total_accelerators").first(),
            pl.col("nodes").first(),
            *(best(s, c) for s in SCENARIO_PREFIXES for c in columns),
            (pl.len() - pl.col("scenario").n_unique())
            .cast(pl.Int32)
            .alias("extra_results"),
        )
        .filter(
            pl.col("server_value").is_not_null()
            | pl.col("interactive_value").is_not_null()
        )
        .join(_limits(limits), on=["release", "benchmark"], how="left")
        .with_columns(
            server_vs_offline=pl.col("server_value") / pl.col("offline_value"),
            interactive_vs_offline=pl.col("interactive_value")
            / pl.col("offline_value"),
        )
    )
    return (
        systems.sort(
            ["_order", "benchmark", *BEST_FIRST],
            descending=[False, False, True, True, True] + [False] * 5,
            nulls_last=True,
        )  # fmt: skip
        .select(list(INTERACTIVITY_SCHEMA))
        .cast(INTERACTIVITY_SCHEMA)
    )


def interactivity_points(table: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """One row per system and scenario, placed at the scenario's interactivity target.

    The target is the slowest token rate a user may see: 1000 / TPOT limit (ms), in
    tokens/s per user; Offline has no limit and sits at 0. Scenarios without a
    registered limit, or without a per-accelerator value, are left out (a chart
    cannot place them); the table shows them.
    """
    lazy = table.lazy()
    parts = []
    for scenario, prefix in SCENARIO_PREFIXES.items():
        target = (
            pl.lit(0.0)
            if scenario == "Offline"
            else 1000.0 / pl.col(f"{prefix}_tpot_ms")
        )
        tpot = (
            pl.lit(None, dtype=pl.Float64)
            if scenario == "Offline"
            else pl.col(f"{prefix}_tpot_ms")
        )
        parts.append(
            lazy.select(
                *SYSTEM_KEYS,
                "accelerator_id",
                "accelerator_name",
                "total_accelerators",
                pl.lit(scenario).alias("scenario"),
                target.alias("target_tokens_per_user"),
                tpot.alias("tpot_ms"),
                pl.col(f"{prefix}_value").alias("value"),
                pl.col(f"{prefix}_per_accelerator").alias("per_accelerator"),
                pl.col(f"{prefix}_result_key").alias("result_key"),
                pl.col(f"{prefix}_result_url").alias("result_url"),
            ).filter(
                pl.col("per_accelerator").is_not_null()
                & pl.col("target_tokens_per_user").is_not_null()
            )
        )
    return pl.concat(parts)


def latency_bounded_systems(
    results: pl.LazyFrame,
    *,
    limits: pl.DataFrame | None = None,
    **options: Unpack[AnalysisOptions],
) -> pl.LazyFrame:
    """Per round of a benchmark bounded by end-to-end latency: its systems.

    Such a benchmark (qwen3-vl-235b-a22b) answers in queries or samples, not
    Tokens/s, so ``interactivity`` has no row of it; the limits table still counts
    its systems with a Server or Interactive result, as it counts an LLM's.

    Returns:
        release, benchmark, has_server, has_interactive and systems (``SYSTEM_KEYS``)
        of every round with such results.
    """
    rows = prepare(results, Options(**options)).filter(
        pl.col("benchmark").is_in(latency_bounded(limits).implode())
        & pl.col("scenario").is_in(["Server", "Interactive"])
        & pl.col("result_value").is_not_null()
    )
    return (
        rows.group_by("release", "benchmark")
        .agg(
            (pl.col("scenario") == "Server").any().alias("has_server"),
            (pl.col("scenario") == "Interactive").any().alias("has_interactive"),
            pl.struct(SYSTEM_KEYS).n_unique().cast(pl.UInt32).alias("systems"),
        )
        .sort("release", "benchmark")
    )
