"""What a unit of work costs: accelerator-hours, measured energy, latency class.

A buyer's question is not "how many tokens per second" but "what does a million
tokens cost me, at the latency my users need". MLPerf publishes no price; what a
result does give, per accelerator, is the work done per second. From it:

``accelerator_hours_per_million_units``
    ``10^6 / (3600 × result_per_accelerator)``: how many accelerator-hours a million
    units of the result's own unit (tokens, samples, queries) take. Multiplied by a
    price per accelerator-hour (the reader's, never built in) it is the price of a
    million units. Throughput results only: a latency result (ms per query, one query
    at a time) says how fast one answer comes back, not how much work an hour of the
    hardware does. Null, with the reason in ``cost_reason``, where the
    per-accelerator throughput is missing, zero or not a throughput.
``joules_per_unit`` and ``kwh_per_million_units``
    Only where MLPerf *measured* system power (``power_value`` / ``power_unit``, the
    power runs of v4.1 and v5.1): average Watts divided by the throughput, or the
    energy per query in millijoules / 1000 (``power.efficiency_exprs``, the Power
    page's definition, inverted). A declared design power (v6.1's
    ``design_power_watts``) is a declaration, not a measurement, and never read here
    (MLCommons' messaging guidelines allow performance per watt only from MLPerf
    measured power). ``kwh_per_million_units = joules_per_unit × 10^6 / 3.6·10^6``.
``latency_class``
    Every LLM result (``Tokens/s``) carries its scenario's limits from the reviewed
    registry (``pipeline/registry/latency_limits.toml``): the 99th-percentile TTFT and
    TPOT bounds and the token rate a user sees at the TPOT bound (``1000 / TPOT ms``,
    tokens/s per user). A benchmark answered whole (qwen3-vl-235b-a22b, Queries/s)
    is bounded by its end-to-end query latency instead (``latency_limit_ms``): its
    results are classed too. Offline has no limit; a Server or Interactive result
    whose round and benchmark the registry does not list says so.

A hardware-generation pair's break-even price ratio (``with_break_even``) is its
ratio: the successor is cheaper per unit of work while its price per
accelerator-hour is below ratio × the predecessor's.

Every number here is derived by mlperf-ledger, not an MLPerf result. Dagster wiring
and page layout do not belong here.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis.power import MILLIJOULES, WATTS, efficiency_exprs
from pipeline.latency_limits import latency_bounded, limit_columns, limits_frame

#: The unit LLM results are published in (``interactivity.UNIT``).
LLM_UNIT = "Tokens/s"
SECONDS_PER_HOUR = 3600.0
JOULES_PER_KWH = 3.6e6
MILLION = 1e6
#: The scenario whose LLM results run without a latency bound.
UNLIMITED_SCENARIO = "Offline"

#: The scenarios a latency-bounded benchmark's results are classed in.
THROUGHPUT_SCENARIOS = ("Offline", "Server", "Interactive")
#: ``latency_class`` values.
NO_LIMIT = "no limit"
LIMITED = "limited"
NOT_IN_REGISTRY = "limit not in the registry"

#: Said wherever one of these numbers is shown or described.
DERIVED = "derived, not an MLPerf result"
COST_FORMULA = "10^6 / (3600 × result_per_accelerator)"
ENERGY_FORMULA = (
    "power_value (W) / result_value for average power; power_value (mJ per query) / "
    "1000 for energy per query"
)
KWH_FORMULA = "joules_per_unit × 10^6 / 3.6e6"
#: The reader's electricity cost (prices.js; never built in): measured power only.
ELECTRICITY_FORMULA = "kwh_per_million_units × price per kWh"
USER_RATE_FORMULA = "1000 / tpot_limit_ms"

#: ``cost_reason`` texts (exact: tests and readers match them).
REASON_LATENCY = (
    "a latency result ({unit}): it times one query at a time, not the work an "
    "hour of the hardware does"
)
REASON_NO_ACCELERATOR = "no accelerator to divide by (CPU-only system)"
REASON_MIXED = "no single accelerator to divide by (two kinds of accelerator)"
REASON_NO_COUNT = "the accelerator count is not published"
REASON_NO_PER_ACCELERATOR = "no per-accelerator throughput"
REASON_NOT_POSITIVE = "per-accelerator throughput {value} is not a positive number"
#: ``energy_reason`` of a result without measured power.
REASON_NOT_MEASURED = (
    "MLPerf measured no power for this result (a declared design power is never used)"
)

#: One row per result: its key and every derived column.
COST_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "result_key": pl.String,
    "benchmark": pl.String,
    "scenario": pl.String,
    "result_value": pl.Float64,
    "result_unit": pl.String,
    "total_accelerators": pl.Int32,
    "result_per_accelerator": pl.Float64,
    # "tokens", "samples", "queries": the unit a million of is priced (null: latency).
    "work_unit": pl.String,
    "accelerator_hours_per_million_units": pl.Float64,
    "cost_reason": pl.String,
    "power_value": pl.Float64,
    "power_unit": pl.String,
    # "token", "sample", "query": what one joule figure is per.
    "energy_unit": pl.String,
    "joules_per_unit": pl.Float64,
    "kwh_per_million_units": pl.Float64,
    "energy_reason": pl.String,
    "latency_class": pl.String,
    "ttft_limit_ms": pl.Float64,
    "tpot_limit_ms": pl.Float64,
    "latency_limit_ms": pl.Float64,
    "tokens_per_second_per_user_at_limit": pl.Float64,
    "latency_limit_source_url": pl.String,
}

#: What each derived column means, for the downloads' descriptions.
COLUMN_DESCRIPTIONS: dict[str, str] = {
    "work_unit": "The unit of work a cost is per: the throughput unit without "
    '"/s", lower case (tokens, samples, queries, tasks); null for a latency result',
    "accelerator_hours_per_million_units": f"Derived, not an MLPerf result: "
    f"accelerator-hours a million units of work take, {COST_FORMULA}; times a price "
    "per accelerator-hour it is the price of a million units. Null with cost_reason "
    "where there is no per-accelerator throughput",
    "cost_reason": "Why accelerator_hours_per_million_units is null (null when it "
    "is not)",
    "energy_unit": "What joules_per_unit is per: the throughput unit's singular "
    "(token, sample, query) for average power, query for energy per query",
    "joules_per_unit": f"Derived, not an MLPerf result: energy per unit of work "
    f"from MLPerf-measured power only, {ENERGY_FORMULA}. Null with energy_reason "
    "where power was not measured; a declared design power is never used",
    "kwh_per_million_units": f"Derived, not an MLPerf result: {KWH_FORMULA}",
    "energy_reason": "Why joules_per_unit is null (null when it is not)",
    "latency_class": f"LLM results (Tokens/s, and results of a benchmark the "
    f"registry bounds by end-to-end latency) only: '{NO_LIMIT}' (Offline), "
    f"'{LIMITED}' (the round's Server or Interactive limits are in the reviewed "
    f"registry) or '{NOT_IN_REGISTRY}'; null for other results",
    "ttft_limit_ms": "The scenario's 99th-percentile time-to-first-token bound in "
    "ms, from pipeline/registry/latency_limits.toml (upstream's submission checker)",
    "tpot_limit_ms": "The scenario's 99th-percentile time-per-output-token bound in "
    "ms, from pipeline/registry/latency_limits.toml",
    "latency_limit_ms": "The scenario's 99th-percentile end-to-end query latency "
    "bound in ms, for a benchmark bounded so instead of by TTFT and TPOT "
    "(qwen3-vl-235b-a22b), from pipeline/registry/latency_limits.toml",
    "tokens_per_second_per_user_at_limit": "Derived: the token rate one user sees "
    f"at the TPOT bound, {USER_RATE_FORMULA}",
    "latency_limit_source_url": "The submission checker file that states the limits",
    "break_even_price_ratio": "Derived, not an MLPerf result: the successor costs "
    "less per unit of work while its price per accelerator-hour is below this × "
    "the predecessor's; equal to ratio (per accelerator; at one accelerator count "
    "the total ratio is the per-accelerator ratio). Generation pairs only",
}


def _cost(mixed: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(work unit, accelerator-hours per million units, reason when null).

    ``mixed`` is true on a system of two kinds of accelerator.
    """
    per = pl.col("result_per_accelerator")
    throughput = pl.col("is_higher_better").fill_null(False)
    usable = throughput & per.is_not_null() & per.is_finite() & (per > 0)
    work_unit = pl.when(throughput).then(
        pl.col("result_unit").str.strip_suffix("/s").str.to_lowercase()
    )
    hours = pl.when(usable).then(MILLION / (SECONDS_PER_HOUR * per))
    total = pl.col("total_accelerators")
    reason = (
        pl.when(usable)
        .then(None)
        .when(~throughput)
        .then(
            pl.format(
                REASON_LATENCY.replace("{unit}", "{}"),
                pl.col("result_unit").fill_null("no unit"),
            )
        )
        .when(per.is_not_null())
        .then(
            pl.format(REASON_NOT_POSITIVE.replace("{value}", "{}"), per.cast(pl.String))
        )
        .when(total.is_null())
        .then(pl.lit(REASON_NO_COUNT))
        .when(total == 0)
        .then(pl.lit(REASON_NO_ACCELERATOR))
        .when(mixed)
        .then(pl.lit(REASON_MIXED))
        .when(pl.col("result_value").is_null() | (pl.col("result_value") <= 0))
        .then(
            pl.format(
                REASON_NOT_POSITIVE.replace("{value}", "{}"),
                pl.col("result_value").cast(pl.String).fill_null("null"),
            )
        )
        .otherwise(pl.lit(REASON_NO_PER_ACCELERATOR))
    )
    return work_unit, hours, reason


def _energy() -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """(energy unit, joules per unit, kWh per million units, reason when null)."""
    efficiency, _, note = efficiency_exprs()
    measured = pl.col("power_value").is_not_null() | pl.col("power_unit").is_not_null()
    joules = pl.when(efficiency > 0).then(1.0 / efficiency)
    unit = (
        pl.when(joules.is_null())
        .then(None)
        .when(pl.col("power_unit") == MILLIJOULES)
        .then(pl.lit("query"))
        .when(pl.col("power_unit") == WATTS)
        .then(
            pl.col("result_unit")
            .str.strip_suffix("/s")
            .str.to_lowercase()
            .str.replace(r"ies$", "y")
            .str.strip_suffix("s")
        )
    )
    reason = (
        pl.when(joules.is_not_null())
        .then(None)
        .when(~measured)
        .then(pl.lit(REASON_NOT_MEASURED))
        .otherwise(note)
    )
    kwh = joules * MILLION / JOULES_PER_KWH
    return unit, joules, kwh, reason


def _limits(limits: pl.DataFrame | None) -> pl.LazyFrame:
    table = limits if limits is not None else limits_frame()
    return table.lazy().select(
        *limit_columns("latency_limit_source_url"), pl.lit(True).alias("_registered")
    )


def _latency_bounded(limits: pl.DataFrame | None) -> pl.LazyFrame:
    """``latency_bounded`` benchmarks, to join a result on.

    A round of such a benchmark whose bound is not reviewed yet says "limit not in
    the registry", as an LLM round does.
    """
    return pl.LazyFrame({"benchmark": latency_bounded(limits)}).with_columns(
        _latency_bounded=pl.lit(True)
    )


def unit_costs(
    results: pl.LazyFrame, *, limits: pl.DataFrame | None = None
) -> pl.LazyFrame:
    """Every result's accelerator-hours, measured energy and latency class.

    Args:
        results: canonical results (``RESULTS_SCHEMA``, with ``attach_accelerators``'
            ``is_mixed_accelerators`` where present), lazily.
        limits: ``latency_limits.limits_frame()`` rows; the committed ones when None.

    Returns:
        ``COST_SCHEMA`` rows, one per result, in the input's order.
    """
    names = set(results.collect_schema().names())
    mixed = (
        pl.col("is_mixed_accelerators").fill_null(False)
        if "is_mixed_accelerators" in names
        else pl.lit(False)
    )
    missing = [
        pl.lit(None, dtype=COST_SCHEMA[c]).alias(c)
        for c in ("power_value", "power_unit")
        if c not in names
    ]
    work_unit, hours, cost_reason = _cost(mixed)
    energy_unit, joules, kwh, energy_reason = _energy()
    # Tokens/s, or a throughput result of a benchmark bounded by end-to-end latency
    # (its Offline too; not an edge SingleStream latency result).
    llm = (pl.col("result_unit") == LLM_UNIT).fill_null(False) | (
        pl.col("_latency_bounded").fill_null(False)
        & pl.col("scenario").is_in(THROUGHPUT_SCENARIOS).fill_null(False)
    )
    latency_class = (
        pl.when(~llm)
        .then(None)
        .when(pl.col("scenario") == UNLIMITED_SCENARIO)
        .then(pl.lit(NO_LIMIT))
        .when(pl.col("_registered").fill_null(False))
        .then(pl.lit(LIMITED))
        .otherwise(pl.lit(NOT_IN_REGISTRY))
    )
    return (
        results.with_columns(missing)
        .join(
            _limits(limits),
            on=["release", "benchmark", "scenario"],
            how="left",
            maintain_order="left",
        )
        .join(
            _latency_bounded(limits),
            on="benchmark",
            how="left",
            maintain_order="left",
        )
        .with_columns(
            work_unit=work_unit,
            accelerator_hours_per_million_units=hours,
            cost_reason=cost_reason,
            energy_unit=energy_unit,
            joules_per_unit=joules,
            kwh_per_million_units=kwh,
            energy_reason=energy_reason,
            latency_class=latency_class,
        )
        .with_columns(
            # Limits belong to LLM results only (a non-LLM row of a listed
            # benchmark and scenario does not exist upstream, but is not labelled).
            [
                pl.when(pl.col("latency_class") == LIMITED).then(pl.col(c)).alias(c)
                for c in (
                    "ttft_limit_ms",
                    "tpot_limit_ms",
                    "latency_limit_ms",
                    "latency_limit_source_url",
                )
            ]
        )
        .with_columns(
            tokens_per_second_per_user_at_limit=1000.0 / pl.col("tpot_limit_ms")
        )
        .select(list(COST_SCHEMA))
        .cast(COST_SCHEMA)
    )


#: The pair kind a break-even price applies to (``generations.KIND``).
GENERATION_KIND = "generation_ratio"


def with_break_even(pairs: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Pair rows with ``break_even_price_ratio``: the ratio, on generation pairs.

    Cost per unit of work is price per accelerator-hour / work per accelerator-hour,
    so the successor is cheaper while price_new / price_old < per-accelerator
    throughput_new / throughput_old, the pair's ratio (a pair at one accelerator
    count has equal total and per-accelerator ratios). A latency pair (one count,
    ratio old/new latency) gives the same bound for work served one query at a time.
    Software gains and scaling steps compare one accelerator with itself: null.
    """
    return (
        pairs.lazy()
        .with_columns(
            break_even_price_ratio=pl.when(
                (pl.col("kind") == GENERATION_KIND)
                & pl.col("ratio").is_finite()
                & (pl.col("ratio") > 0)
            ).then(pl.col("ratio"))
        )
        .collect()
    )
