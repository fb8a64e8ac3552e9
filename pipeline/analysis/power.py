"""Power results, performance per watt, and its change across rounds for one system.

MLPerf power results come in two kinds, set by the scenario (upstream's submission
checker, ``get_power_metric`` in ``mlcommons/inference``
``tools/submission/submission_checker.py``):

* Offline and Server: the **average power** of the run in Watts; the efficiency is the
  result divided by it (throughput per watt: Samples/s per W is samples per joule).
* SingleStream and MultiStream: the **energy per query** in millijoules; the result is
  a latency, so it is not divided by anything. The efficiency is queries per joule
  (1000 / mJ per query); a MultiStream query carries 8 samples.

A row whose power unit does not fit its scenario's kind, or that lacks a positive
power value, keeps its place with ``efficiency`` null and the reason in
``efficiency_note``: nothing is dropped silently.

Gains follow one system (same submitter, system name, accelerator and accelerator
count) on one benchmark, scenario, division and unit from one round where it has power
to the next one where it has power again. A step the compatibility rules forbid
(``benchmarks.comparable``) keeps its row, with no ratio and the rule's reason. These
are derived, unofficial numbers. Dagster wiring and page layout do not belong here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

import polars as pl

from pipeline.analysis.benchmarks import comparable, release_order
from pipeline.analysis.pairing import END_SCHEMA, AnalysisOptions, Options, prepare
from pipeline.registry.benchmarks import MATCHABLE_FIELDS, CompatibilityRule

WATTS = "Watts"
MILLIJOULES = "millijoules"
#: Which scenarios report which power unit (upstream's POWER_UNIT_DICT).
POWER_UNITS = {
    "Offline": WATTS,
    "Server": WATTS,
    "Interactive": WATTS,
    "SingleStream": MILLIJOULES,
    "MultiStream": MILLIJOULES,
}
#: What each power unit measures, as readers are told.
POWER_KINDS = {WATTS: "average power", MILLIJOULES: "energy per query"}
QUERIES_PER_JOULE = "queries/J"

#: One row per result that reports power.
POWER_SCHEMA: dict[str, pl.DataType] = {
    **{
        c: END_SCHEMA[c]
        for c in ("release", "result_key", "result_url", "submitter", "system_name")
    },
    "platform": pl.String,
    "division": pl.String,
    "availability": pl.String,
    "is_preview": pl.Boolean,
    "is_inferred": pl.Boolean,
    "benchmark": pl.String,
    "model_upstream": pl.String,
    "weight_data_types": pl.String,
    "model_lineage": pl.String,
    "scenario": pl.String,
    "result_value": pl.Float64,
    "result_unit": pl.String,
    "power_value": pl.Float64,
    "power_unit": pl.String,
    # "average power" or "energy per query" (null: a unit we cannot read).
    "power_kind": pl.String,
    "accelerator_id": pl.String,
    "accelerator_name": pl.String,
    "total_accelerators": pl.Int32,
    # Throughput per watt, or queries per joule; null with a reason otherwise.
    "efficiency": pl.Float64,
    "efficiency_unit": pl.String,
    "efficiency_note": pl.String,
}

#: What identifies one system's line across rounds. The efficiency unit is not a key:
#: the scenario and the result unit decide it (``efficiency_exprs``).
SYSTEM_KEYS = (
    "submitter", "system_name", "accelerator_key", "total_accelerators",
    "benchmark", "scenario", "division", "result_unit",
)  # fmt: skip

#: One row per step of a system's power line: a round and the previous one with power.
POWER_GAIN_SCHEMA: dict[str, pl.DataType] = {
    "submitter": pl.String,
    "system_name": pl.String,
    "accelerator_id": pl.String,
    "accelerator_name": pl.String,
    "total_accelerators": pl.Int32,
    "benchmark": pl.String,
    "scenario": pl.String,
    "division": pl.String,
    "result_unit": pl.String,
    "efficiency_unit": pl.String,
    **{
        f"{name}_{end}": dtype
        for end in ("old", "new")
        for name, dtype in {
            "release": pl.String,
            "result_key": pl.String,
            "result_url": pl.String,
            "result_value": pl.Float64,
            "power_value": pl.Float64,
            "efficiency": pl.Float64,
        }.items()
    },
    # efficiency_new / efficiency_old (> 1: more work per energy); null when a
    # compatibility rule forbids comparing the two rounds.
    "ratio": pl.Float64,
    "incompatibility_reason": pl.String,
}


def efficiency_exprs() -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(value, unit, note) of a result's efficiency, by its power unit and scenario."""
    unit = pl.col("power_unit")
    expected = pl.col("scenario").replace_strict(
        POWER_UNITS, default=None, return_dtype=pl.String
    )
    value = pl.col("power_value")
    usable = value.is_not_null() & value.is_finite() & (value > 0)
    watts = usable & (unit == WATTS) & (expected == WATTS) & pl.col("is_higher_better")
    energy = usable & (unit == MILLIJOULES) & (expected == MILLIJOULES)
    efficiency = (
        pl.when(watts)
        .then(pl.col("result_value") / value)
        .when(energy)
        .then(1000.0 / value)
    )
    efficiency_unit = (
        pl.when(watts)
        .then(pl.format("{} per W", pl.col("result_unit")))
        .when(energy)
        .then(pl.lit(QUERIES_PER_JOULE))
    )
    note = (
        pl.when(watts | energy)
        .then(None)
        .when(~usable)
        .then(
            pl.format(
                "power value {} is not a positive number",
                value.cast(pl.String).fill_null("null"),
            )
        )
        .when(expected.is_null())
        .then(
            pl.format(
                "scenario {} has no power metric",
                pl.col("scenario").fill_null("(none)"),
            )
        )
        .when(unit.is_null() | (unit != expected))
        .then(
            pl.format(
                "power unit {} does not fit {} (which reports {})",
                unit.fill_null("(none)"),
                pl.col("scenario"),
                expected,
            )
        )
        .otherwise(
            pl.format("result unit {} is not a throughput", pl.col("result_unit"))
        )
    )
    return efficiency, efficiency_unit, note


def power_results(
    results: pl.LazyFrame, **options: Unpack[AnalysisOptions]
) -> pl.LazyFrame:
    """Every result that reports power, with its kind and efficiency.

    Args:
        results: the canonical results table (``RESULTS_SCHEMA``), lazily.
        include_preview / include_inferred / registry: as for every analysis.

    Returns:
        ``POWER_SCHEMA`` rows, one per result with a power value or unit, by release
        order, benchmark, scenario and best efficiency first.
    """
    settings = Options(**options)
    efficiency, efficiency_unit, note = efficiency_exprs()
    return (
        prepare(results, settings)
        .filter(
            pl.col("power_value").is_not_null() | pl.col("power_unit").is_not_null()
        )
        .with_columns(
            power_kind=pl.col("power_unit").replace_strict(
                POWER_KINDS, default=None, return_dtype=pl.String
            ),
            efficiency=efficiency,
            efficiency_unit=efficiency_unit,
            efficiency_note=note,
        )
        .sort(
            ["_order", "benchmark", "scenario", "efficiency", "result_key"],
            descending=[False, False, False, True, False],
            nulls_last=True,
        )
        .select(list(POWER_SCHEMA))
        .cast(POWER_SCHEMA)
    )


def power_gains(
    power: pl.LazyFrame, rules: Sequence[CompatibilityRule] | None = None
) -> pl.LazyFrame:
    """Each system's efficiency from one round with power to the next one with power.

    Args:
        power: ``power_results`` output (rows without an efficiency take no part).
        rules: compatibility rules other than the committed ones (tests).

    Returns:
        ``POWER_GAIN_SCHEMA`` rows, one per consecutive pair of rounds of a system's
        line; empty when no system reports power in two rounds. Within a round a line
        has one point: the best efficiency (ties: the smaller result key).
    """
    line = list(SYSTEM_KEYS)
    points = (
        power.filter(pl.col("efficiency").is_not_null())
        .with_columns(
            accelerator_key=pl.coalesce("accelerator_id", "accelerator_name").fill_null(
                ""
            ),
            _order=release_order(pl.col("release")),
        )
        .sort(["efficiency", "result_key"], descending=[True, False])
        .unique([*line, "release"], keep="first", maintain_order=True)
    )
    ends = ["release", "result_key", "result_url", "result_value", "power_value"]
    # The compatibility rules read these ends too; a line key is equal on both.
    evidence = [f for f in MATCHABLE_FIELDS if f not in line]
    previous = {
        f"{c}_old": pl.col(c).shift(1).over(line, order_by="_order")
        for c in [*ends, "efficiency", *evidence]
    }
    steps = (
        points.with_columns(**previous)
        .filter(pl.col("release_old").is_not_null())
        .rename({c: f"{c}_new" for c in [*ends, "efficiency", *evidence]})
        .with_columns(
            **{
                f"{f}_{end}": pl.col(f)
                for f in MATCHABLE_FIELDS
                if f in line
                for end in ("old", "new")
            }
        )
    )
    flagged = comparable(steps, rules)
    return (
        flagged.with_columns(
            ratio=pl.when(pl.col("is_comparable")).then(
                pl.col("efficiency_new") / pl.col("efficiency_old")
            )
        )
        .sort([*line, "_order"])
        .select(list(POWER_GAIN_SCHEMA))
        .cast(POWER_GAIN_SCHEMA)
    )
