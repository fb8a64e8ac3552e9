"""What a unit of work costs, on every mirrored round (issue 54).

Concrete values from the upstream summaries and raw trees: accelerator-hours per
million tokens of a v6.1 GB300 rack, the 55 results with MLPerf-measured power, the
latency class of every LLM result, and the break-even price of every generation pair.
"""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.analysis.cost import (
    LIMITED,
    NO_LIMIT,
    NOT_IN_REGISTRY,
    REASON_MIXED,
    REASON_NO_ACCELERATOR,
    REASON_NOT_MEASURED,
    unit_costs,
    with_break_even,
)
from tests.analysed import analyse

GB300_X72 = "v6.1:closed/NVIDIA/GB300-NVL72_GB300-288GB_aarch64x72_TRT/deepseek-r1/"


@pytest.fixture(scope="module")
def results(full_mirror_attached: pl.DataFrame) -> pl.DataFrame:
    return full_mirror_attached


@pytest.fixture(scope="module")
def costs(results: pl.DataFrame) -> pl.DataFrame:
    return unit_costs(results.lazy()).collect()


def _one(costs: pl.DataFrame, key: str) -> dict:
    return costs.filter(pl.col("result_key") == key).row(0, named=True)


def test_one_cost_row_per_result(results: pl.DataFrame, costs: pl.DataFrame) -> None:
    assert costs.height == results.height
    assert costs.select("release", "result_key").equals(
        results.select("release", "result_key")
    )


def test_every_llm_result_on_one_kind_of_accelerator_has_its_accelerator_hours(
    costs: pl.DataFrame,
) -> None:
    llm = costs.filter(pl.col("result_unit") == "Tokens/s")
    assert llm.height == 1580
    assert llm["accelerator_hours_per_million_units"].is_not_null().sum() == 1478
    # The others say why: CPU-only systems and systems of two kinds of chip.
    assert llm.filter(pl.col("accelerator_hours_per_million_units").is_null()).group_by(
        "cost_reason"
    ).len().sort("cost_reason").rows() == [
        (REASON_NO_ACCELERATOR, 80),
        (REASON_MIXED, 22),
    ]
    assert llm["cost_reason"].is_null().sum() == 1478
    assert (llm["work_unit"] == "tokens").all()


def test_a_v61_gb300_rack_takes_0_079_accelerator_hours_per_million_tokens(
    costs: pl.DataFrame,
) -> None:
    # 253,506 tokens/s on 72 GB300s at TTFT ≤ 1.5 s, TPOT ≤ 15 ms: 3,520.9 each.
    interactive = _one(costs, GB300_X72 + "Interactive")
    assert interactive["accelerator_hours_per_million_units"] == pytest.approx(
        1e6 / (3600 * 253506.0 / 72)
    )
    assert interactive["accelerator_hours_per_million_units"] == pytest.approx(
        0.0788936, abs=1e-7
    )
    assert (
        interactive["latency_class"],
        interactive["ttft_limit_ms"],
        interactive["tpot_limit_ms"],
    ) == (LIMITED, 1500.0, 15.0)
    assert interactive["tokens_per_second_per_user_at_limit"] == pytest.approx(
        66.666667
    )
    # v6.1 measured no power; the cost does not need it.
    assert interactive["energy_reason"] == REASON_NOT_MEASURED
    offline = _one(costs, GB300_X72 + "Offline")
    assert offline["accelerator_hours_per_million_units"] == pytest.approx(
        0.0294230, abs=1e-7
    )
    assert offline["latency_class"] == NO_LIMIT
    assert offline["tpot_limit_ms"] is None


def test_only_the_55_results_with_measured_power_have_joules_per_unit(
    costs: pl.DataFrame,
) -> None:
    measured = costs.filter(pl.col("joules_per_unit").is_not_null())
    assert measured.height == 55
    assert sorted(measured["release"].unique()) == ["v4.1", "v5.1"]
    # Per query: 9 Server results in Queries/s at average power, and the 10
    # SingleStream / MultiStream energy-per-query results.
    assert measured.group_by("energy_unit", "power_unit").len().sort(
        "energy_unit", "power_unit"
    ).rows() == [
        ("query", "Watts", 9),
        ("query", "millijoules", 10),
        ("sample", "Watts", 17),
        ("token", "Watts", 19),
    ]
    # Lenovo, v5.1: 10,400.999 W at 102,909 tokens/s, 0.101 J a token.
    lenovo = _one(costs, "5.1-0061:llama2-70b-99:Offline")
    assert lenovo["joules_per_unit"] == pytest.approx(1 / 9.894145859816245)
    assert lenovo["kwh_per_million_units"] == pytest.approx(
        1e6 / 9.894145859816245 / 3.6e6
    )
    assert costs["kwh_per_million_units"].is_not_null().sum() == 55


def test_every_llm_result_carries_its_scenarios_latency_class(
    costs: pl.DataFrame,
) -> None:
    llm = costs.filter(pl.col("result_unit") == "Tokens/s")
    assert llm["latency_class"].null_count() == 0
    assert llm.group_by("scenario", "latency_class").len().sort(
        "scenario", "latency_class"
    ).rows() == [
        ("Interactive", LIMITED, 155),
        ("Offline", NO_LIMIT, 781),
        ("Server", NOT_IN_REGISTRY, 67),
        ("Server", LIMITED, 577),
    ]
    # The registry holds no TTFT/TPOT limit for GPT-J (v4.1's checker has none).
    unknown = llm.filter(pl.col("latency_class") == NOT_IN_REGISTRY)
    assert sorted(unknown["benchmark"].unique()) == ["gptj-99", "gptj-99.9"]
    # Only LLM results carry a class, and the 63 Offline, Server and Interactive
    # results of qwen3-vl-235b-a22b (bounded by end-to-end latency; below).
    others = costs.filter(pl.col("result_unit") != "Tokens/s")
    classed = others.filter(pl.col("latency_class").is_not_null())
    assert classed.height == 63
    assert set(classed["benchmark"]) == {"qwen3-vl-235b-a22b"}


def test_every_generation_pair_has_a_break_even_price_equal_to_its_ratio(
    mirror_results: pl.DataFrame,
) -> None:
    generations = with_break_even(analyse(mirror_results).generation_ratios)
    assert generations.height == 751
    assert generations["break_even_price_ratio"].null_count() == 0
    assert (generations["break_even_price_ratio"] == generations["ratio"]).all()
    rubin = generations.filter(
        (pl.col("release_new") == "v6.1")
        & (pl.col("benchmark") == "qwen3-vl-235b-a22b")
        & (pl.col("scenario") == "Interactive")
        & ~pl.col("is_per_accelerator")
        & (pl.col("identity_level") == "same_submitter")
    )
    assert rubin.select(
        "accelerator_name_old", "accelerator_name_new", "total_accelerators_new"
    ).rows() == [("NVIDIA GB300", "NVIDIA Vera Rubin", 72)]
    assert rubin["break_even_price_ratio"][0] == pytest.approx(3.74073, abs=1e-5)


def test_qwen3_vl_results_take_the_end_to_end_latency_limit(
    costs: pl.DataFrame,
) -> None:
    # qwen3-vl-235b-a22b (Queries/s) is bounded by its 99th-percentile query latency
    # in v6.1 (Server 12 s, Interactive 1.5 s); v6.0's bound is not reviewed yet.
    qwen = costs.filter(pl.col("benchmark") == "qwen3-vl-235b-a22b")
    classes = (
        qwen.group_by("release", "scenario", "latency_class", "latency_limit_ms")
        .len()
        .sort("release", "scenario")
        .rows()
    )
    assert classes == [
        ("v6.0", "Offline", NO_LIMIT, None, 8),
        ("v6.0", "Server", NOT_IN_REGISTRY, None, 8),
        ("v6.1", "Interactive", LIMITED, 1500.0, 9),
        ("v6.1", "Offline", NO_LIMIT, None, 20),
        ("v6.1", "Server", LIMITED, 12000.0, 18),
    ]
    assert qwen["ttft_limit_ms"].is_null().all()
