"""unit_costs / with_break_even on hand-written rows: each formula and each reason."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.analysis.cost import (
    COST_SCHEMA,
    LIMITED,
    NO_LIMIT,
    NOT_IN_REGISTRY,
    REASON_MIXED,
    REASON_NO_ACCELERATOR,
    REASON_NO_COUNT,
    REASON_NOT_MEASURED,
    unit_costs,
    with_break_even,
)
from pipeline.latency_limits import LIMITS_SCHEMA
from tests.unit.analysis.helpers import frame, row

LIMITS = pl.DataFrame(
    [
        {
            "release": "v5.1",
            "benchmark": "llama2-70b-99",
            "scenario": "Server",
            "ttft_ms": 2000.0,
            "tpot_ms": 200.0,
            "source_url": "https://example.org/checker",
        },
        {
            "release": "v5.1",
            "benchmark": "llama2-70b-99",
            "scenario": "Interactive",
            "ttft_ms": 450.0,
            "tpot_ms": 40.0,
            "source_url": "https://example.org/checker",
        },
        {
            "release": "v6.1",
            "benchmark": "qwen3-vl-235b-a22b",
            "scenario": "Server",
            "latency_ms": 12000.0,
            "source_url": "https://example.org/checker-v6.1",
        },
    ],
    schema={k: v for k, v in LIMITS_SCHEMA.items() if k in {
        "release", "benchmark", "scenario", "ttft_ms", "tpot_ms", "latency_ms",
        "source_url"}},
)  # fmt: skip


def _costs(results: pl.LazyFrame) -> pl.DataFrame:
    return unit_costs(results, limits=LIMITS).collect()


def _one(costs: pl.DataFrame, key: str) -> dict:
    return costs.filter(pl.col("result_key") == key).row(0, named=True)


def test_accelerator_hours_per_million_units_is_a_million_over_hourly_work() -> None:
    # 8 accelerators at 8,000 tokens/s: 1,000 tokens/s each, 3.6 M per hour.
    costs = _costs(frame(row(result_key="a", result_value=8000.0)))
    assert costs.schema == pl.Schema(COST_SCHEMA)
    a = _one(costs, "a")
    assert a["work_unit"] == "tokens"
    assert a["accelerator_hours_per_million_units"] == pytest.approx(1e6 / 3.6e6)
    assert a["cost_reason"] is None


def test_samples_and_queries_are_priced_in_their_own_unit() -> None:
    costs = _costs(
        frame(
            row(
                result_key="s",
                result_unit="Samples/s",
                result_value=3600.0,
                total_accelerators=1,
                benchmark="resnet",
            ),
            row(
                result_key="q",
                result_unit="Queries/s",
                result_value=7200.0,
                total_accelerators=2,
                benchmark="resnet",
                scenario="Server",
            ),
        )  # fmt: skip
    )
    assert costs.select(
        "result_key", "work_unit", "accelerator_hours_per_million_units"
    ).rows() == [("s", "samples", pytest.approx(1e6 / 3600**2)),
                 ("q", "queries", pytest.approx(1e6 / 3600**2))]  # fmt: skip


def test_a_zero_throughput_has_no_cost_and_says_why() -> None:
    a = _one(_costs(frame(row(result_key="z", result_value=0.0))), "z")
    assert a["accelerator_hours_per_million_units"] is None
    assert a["cost_reason"] == "per-accelerator throughput 0.0 is not a positive number"


def test_a_missing_throughput_has_no_cost_and_says_why() -> None:
    rows = frame(row(result_key="m")).with_columns(
        result_value=pl.lit(None, pl.Float64),
        result_per_accelerator=pl.lit(None, pl.Float64),
    )
    a = _one(_costs(rows), "m")
    assert a["accelerator_hours_per_million_units"] is None
    assert (
        a["cost_reason"] == "per-accelerator throughput null is not a positive number"
    )


def test_a_latency_result_has_no_cost_and_says_why() -> None:
    a = _one(
        _costs(
            frame(
                row(
                    result_key="l",
                    scenario="SingleStream",
                    result_unit="Latency (ms)",
                    result_value=2.5,
                )
            )
        ),  # fmt: skip
        "l",
    )
    assert a["work_unit"] is None
    assert a["accelerator_hours_per_million_units"] is None
    assert a["cost_reason"] == (
        "a latency result (Latency (ms)): it times one query at a time, not the work "
        "an hour of the hardware does"
    )


def test_cpu_only_mixed_and_uncounted_systems_name_their_reason() -> None:
    results = frame(
        row(result_key="cpu", total_accelerators=0, accelerator_name=None),
        row(result_key="count", total_accelerators=None),
        row(result_key="mixed"),
    ).with_columns(
        is_mixed_accelerators=pl.col("result_key") == "mixed",
        result_per_accelerator=pl.when(pl.col("result_key") != "mixed").then(
            pl.col("result_per_accelerator")
        ),
    )
    costs = _costs(results)
    assert costs.select("result_key", "cost_reason").rows() == [
        ("cpu", REASON_NO_ACCELERATOR),
        ("count", REASON_NO_COUNT),
        ("mixed", REASON_MIXED),
    ]
    assert costs["accelerator_hours_per_million_units"].null_count() == 3


def test_measured_watts_give_joules_per_unit_and_kwh_per_million() -> None:
    # 6,000 W at 12,000 tokens/s: 0.5 J per token, 10^6 × 0.5 / 3.6e6 kWh a million.
    a = _one(
        _costs(
            frame(
                row(
                    result_key="w",
                    result_value=12000.0,
                    power_value=6000.0,
                    power_unit="Watts",
                )
            )
        ),  # fmt: skip
        "w",
    )
    assert (a["energy_unit"], a["joules_per_unit"], a["energy_reason"]) == (
        "token",
        pytest.approx(0.5),
        None,
    )
    assert a["kwh_per_million_units"] == pytest.approx(0.5e6 / 3.6e6)


def test_measured_millijoules_per_query_give_joules_per_query() -> None:
    a = _one(
        _costs(
            frame(
                row(
                    result_key="mj",
                    scenario="SingleStream",
                    result_unit="Latency (ms)",
                    result_value=2.5,
                    power_value=25.0,
                    power_unit="millijoules",
                )
            )
        ),  # fmt: skip
        "mj",
    )
    assert (a["energy_unit"], a["joules_per_unit"]) == ("query", pytest.approx(0.025))


def test_a_declared_design_power_that_was_not_measured_gives_no_energy() -> None:
    # v6.1's summary declares design_power_watts; MLPerf measured nothing.
    results = frame(row(result_key="d", result_value=12000.0)).with_columns(
        design_power_watts=pl.lit(6000.0)
    )
    a = _one(_costs(results), "d")
    assert a["joules_per_unit"] is None
    assert a["kwh_per_million_units"] is None
    assert a["energy_reason"] == REASON_NOT_MEASURED
    # The cost in accelerator-hours does not need power.
    assert a["accelerator_hours_per_million_units"] is not None


def test_a_power_that_does_not_fit_its_scenario_gives_the_power_pages_reason() -> None:
    a = _one(
        _costs(
            frame(row(result_key="x", power_value=500.0, power_unit="millijoules"))
        ),  # fmt: skip
        "x",
    )
    assert a["joules_per_unit"] is None
    assert a["energy_reason"] == (
        "power unit millijoules does not fit Offline (which reports Watts)"
    )


def test_llm_results_carry_their_scenarios_latency_class() -> None:
    costs = _costs(
        frame(
            row(result_key="off"),
            row(result_key="srv", scenario="Server"),
            row(result_key="int", scenario="Interactive"),
            row(result_key="old", scenario="Server", release="v4.1"),
            row(
                result_key="cv",
                benchmark="resnet",
                result_unit="Samples/s",
                scenario="Server",
            ),
        )  # fmt: skip
    )
    assert costs.select(
        "result_key", "latency_class", "ttft_limit_ms", "tpot_limit_ms",
        "tokens_per_second_per_user_at_limit",
    ).rows() == [
        ("off", NO_LIMIT, None, None, None),
        ("srv", LIMITED, 2000.0, 200.0, 5.0),
        # 1000 / 40 ms: 25 tokens/s a user sees at the bound.
        ("int", LIMITED, 450.0, 40.0, 25.0),
        ("old", NOT_IN_REGISTRY, None, None, None),
        ("cv", None, None, None, None),
    ]  # fmt: skip
    assert _one(costs, "srv")["latency_limit_source_url"] == (
        "https://example.org/checker"
    )


def test_the_break_even_price_ratio_of_a_generation_pair_is_its_ratio() -> None:
    pairs = pl.DataFrame(
        {
            "kind": ["generation_ratio", "generation_ratio", "software_gain",
                     "scaling", "generation_ratio"],
            "ratio": [3.74, 0.8, 1.5, 1.9, None],
        }
    )  # fmt: skip
    assert with_break_even(pairs)["break_even_price_ratio"].to_list() == [
        3.74, 0.8, None, None, None,
    ]  # fmt: skip


def test_a_benchmark_bounded_by_end_to_end_latency_is_limited_by_it() -> None:
    # qwen3-vl-235b-a22b answers in Queries/s; v6.1 bounds its Server run by the
    # 99th-percentile query latency (12 s), not by TTFT and TPOT.
    def qwen(key: str, scenario: str, release: str = "v6.1") -> dict:
        return row(
            result_key=key,
            benchmark="qwen3-vl-235b-a22b",
            result_unit="Queries/s",
            scenario=scenario,
            release=release,
        )

    costs = _costs(
        frame(
            qwen("srv", "Server"),
            qwen("off", "Offline"),
            qwen("int", "Interactive"),
            qwen("old", "Server", release="v6.0"),
            # An edge latency result (ms per query) is not throughput: not classed.
            qwen("edge", "SingleStream"),
        )
    )
    assert costs.select(
        "result_key", "latency_class", "latency_limit_ms", "ttft_limit_ms",
        "tpot_limit_ms", "tokens_per_second_per_user_at_limit",
    ).rows() == [
        ("srv", LIMITED, 12000.0, None, None, None),
        ("off", NO_LIMIT, None, None, None, None),
        # The round bounds the benchmark but lists no Interactive limit here.
        ("int", NOT_IN_REGISTRY, None, None, None, None),
        # A round whose bound is not reviewed yet (v6.0) says so.
        ("old", NOT_IN_REGISTRY, None, None, None, None),
        ("edge", None, None, None, None, None),
    ]  # fmt: skip
    assert _one(costs, "srv")["latency_limit_source_url"] == (
        "https://example.org/checker-v6.1"
    )
