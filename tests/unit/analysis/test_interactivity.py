"""interactivity() on hand-written rows: one system's three scenarios and its limits."""

from __future__ import annotations

import polars as pl

from pipeline.analysis.interactivity import (
    INTERACTIVITY_SCHEMA,
    interactivity,
    interactivity_points,
    latency_bounded_systems,
)
from pipeline.latency_limits import LIMITS_SCHEMA
from tests.unit.analysis.helpers import MIXED, frame, row

URL = "https://github.com/mlcommons/inference/blob/abc/constants.py"
LIMITS = pl.DataFrame(
    [
        {
            "release": "v5.1",
            "benchmark": "llama2-70b-99",
            "scenario": "Server",
            "ttft_ms": 2000.0,
            "tpot_ms": 200.0,
            "source_url": URL,
        },
        {
            "release": "v5.1",
            "benchmark": "llama2-70b-99",
            "scenario": "Interactive",
            "ttft_ms": 450.0,
            "tpot_ms": 40.0,
            "source_url": URL,
        },
    ],  # fmt: skip
    schema={
        k: LIMITS_SCHEMA[k]
        for k in (
            "release",
            "benchmark",
            "scenario",
            "ttft_ms",
            "tpot_ms",
            "source_url",
        )
    },  # fmt: skip
)


def _table(*rows: dict) -> pl.DataFrame:
    return interactivity(frame(*rows), limits=LIMITS).collect()


def test_one_system_three_scenarios_side_by_side_with_its_limits() -> None:
    table = _table(
        row(result_key="o", scenario="Offline", result_value=8000.0),
        row(result_key="s", scenario="Server", result_value=6000.0),
        row(result_key="i", scenario="Interactive", result_value=4000.0),
        # Another submission line of the same submitter (other platform).
        row(result_key="x", platform="other", scenario="Offline", result_value=1.0),
    )
    assert table.schema == pl.Schema(INTERACTIVITY_SCHEMA)
    # The other platform has no Server/Interactive result: not an LLM latency row.
    assert table.height == 1
    got = table.row(0, named=True)
    assert (got["offline_value"], got["server_value"], got["interactive_value"]) == (
        8000.0, 6000.0, 4000.0,
    )  # fmt: skip
    assert (got["offline_per_accelerator"], got["interactive_per_accelerator"]) == (
        1000.0, 500.0,
    )  # fmt: skip
    assert (got["server_vs_offline"], got["interactive_vs_offline"]) == (0.75, 0.5)
    assert (got["server_tpot_ms"], got["interactive_tpot_ms"]) == (200.0, 40.0)
    assert (got["server_ttft_ms"], got["interactive_ttft_ms"]) == (2000.0, 450.0)
    assert got["interactive_limit_source_url"] == URL
    assert got["offline_result_url"] == "https://example.org/o"
    assert got["extra_results"] == 0


def test_round_without_registered_limits_keeps_its_rows_with_null_limits() -> None:
    table = _table(
        row(release="v6.1", result_key="s", scenario="Server", result_value=6000.0),
    )
    got = table.row(0, named=True)
    assert (got["server_value"], got["server_tpot_ms"], got["offline_value"]) == (
        6000.0, None, None,
    )  # fmt: skip
    assert got["server_vs_offline"] is None


def test_duplicate_scenario_uses_the_best_and_counts_the_other() -> None:
    table = _table(
        row(result_key="s1", scenario="Server", result_value=5000.0),
        row(result_key="s2", scenario="Server", result_value=7000.0),
    )
    got = table.row(0, named=True)
    assert (got["server_result_key"], got["extra_results"]) == ("s2", 1)


def test_latency_units_and_open_models_never_mix_into_a_system() -> None:
    table = _table(
        row(result_key="s", scenario="Server", result_value=6000.0),
        row(
            result_key="o-open",
            division="open",
            model_upstream="llama3_1-70b",
            scenario="Offline",
            result_value=9000.0,
        ),  # fmt: skip
        row(
            result_key="ss",
            scenario="SingleStream",
            result_unit="Latency (ms)",
            result_value=20.0,
        ),  # fmt: skip
    )
    assert table.select("server_result_key").rows() == [("s",)]
    assert table["offline_value"].to_list() == [None]


def test_points_sit_at_the_token_rate_per_user_and_skip_mixed_systems() -> None:
    table = _table(
        row(result_key="o", scenario="Offline", result_value=8000.0),
        row(result_key="s", scenario="Server", result_value=6000.0),
        row(result_key="i", scenario="Interactive", result_value=4000.0),
        row(
            result_key="m",
            platform="mixed",
            accelerator_name=MIXED,
            scenario="Server",
            result_value=1e6,
        ),  # fmt: skip
    )
    points = interactivity_points(table).collect().sort("target_tokens_per_user")
    # 200 ms per token: 5 tokens/s per user; 40 ms: 25; Offline: no limit, at 0.
    assert points.select(
        "scenario", "target_tokens_per_user", "per_accelerator", "result_key"
    ).rows() == [
        ("Offline", 0.0, 1000.0, "o"),
        ("Server", 5.0, 750.0, "s"),
        ("Interactive", 25.0, 500.0, "i"),
    ]


def test_a_benchmark_bounded_end_to_end_counts_its_systems_in_queries() -> None:
    # qwen3-vl-235b-a22b answers in Queries/s, so interactivity() has no row of it;
    # the limits table counted "none in the ledger" for 47 real v6.1 results.
    bounded = pl.DataFrame(
        {"release": ["v6.1"], "benchmark": ["qwen3"], "scenario": ["Server"],
         "latency_ms": [12000.0]},
        schema={k: LIMITS_SCHEMA[k] for k in
                ("release", "benchmark", "scenario", "latency_ms")},
    )  # fmt: skip
    qwen = {"benchmark": "qwen3", "model_upstream": "qwen3", "result_unit": "Queries/s"}
    results = frame(
        row(release="v6.1", scenario="Offline", **qwen),
        row(release="v6.1", scenario="Server", **qwen),
        row(release="v6.1", scenario="Interactive", **qwen),
        row(release="v6.1", scenario="Server", platform="other", **qwen),
        row(release="v6.0", scenario="Server", **qwen),  # a round not registered
        row(release="v6.1", scenario="Server"),  # a Tokens/s benchmark: not here
    )
    got = latency_bounded_systems(results, limits=bounded).collect()
    assert got.rows() == [
        ("v6.0", "qwen3", True, False, 1),
        ("v6.1", "qwen3", True, True, 2),
    ]
