"""The model pages' rankings and published accuracy, on every mirrored round.

Concrete values from the upstream summaries: the accuracy text each summary
publishes (``accuracy_upstream``), and DeepSeek-R1's v6.1 Interactive ranking,
first row and the GB300 rack the issue prices.
"""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.render.model_views import ranking_rows
from pipeline.render.site_data import with_accelerators

GB300_X72 = "v6.1:closed/NVIDIA/GB300-NVL72_GB300-288GB_aarch64x72_TRT/deepseek-r1/"
VERA_RUBIN = "v6.1:closed/NVIDIA/VR-NVL72_VR-288GB_aarch64x72_TRT/deepseek-r1/"


@pytest.fixture(scope="module")
def results(full_mirror_attached: pl.DataFrame) -> pl.DataFrame:
    return full_mirror_attached


@pytest.fixture(scope="module")
def deepseek(results: pl.DataFrame) -> pl.DataFrame:
    rows = results.filter(pl.col("benchmark") == "deepseek-r1")
    return ranking_rows(with_accelerators(rows), rows)


def test_every_summary_result_carries_its_published_accuracy_as_text(
    results: pl.DataFrame,
) -> None:
    assert results.schema["accuracy_upstream"] == pl.String
    per_round = dict(
        results.group_by("release")
        .agg(pl.col("accuracy_upstream").is_not_null().sum())
        .iter_rows()
    )
    # Every record of the four summary rounds publishes one; raw-tree rounds none.
    assert per_round == {
        "v0.5": 0, "v1.0": 0, "v2.1": 0,
        "v4.1": 937, "v5.1": 1448, "v6.0": 520, "v6.1": 492,
    }  # fmt: skip
    row = results.filter(pl.col("result_key") == GB300_X72 + "Interactive").row(
        0, named=True
    )
    assert row["accuracy_upstream"] == (
        "exact_match: 81.40382862351869  TOKENS_PER_SAMPLE: 3825.619416590702"
    )
    # Vera Rubin's records give the score alone.
    (bare,) = results.filter(pl.col("result_key") == VERA_RUBIN + "Interactive")[
        "accuracy_upstream"
    ]
    assert bare == "80.62898814949864"


def test_deepseek_r1_v61_interactive_ranks_vera_rubin_first(
    deepseek: pl.DataFrame,
) -> None:
    ranking = deepseek.filter(
        (pl.col("release") == "v6.1")
        & (pl.col("scenario") == "Interactive")
        & (pl.col("division") == "closed")
    ).sort("rank")
    assert ranking["rank"].to_list() == [1, 2, 3, 4, 5, 6]
    first = ranking.row(0, named=True)
    assert first["result_key"] == VERA_RUBIN + "Interactive"
    assert first["total_accelerators"] == 72
    # 652,750.14 tokens/s on 72 Vera Rubin: 10^6 / (3600 × 9,065.97).
    assert first["accelerator_hours_per_million_units"] == pytest.approx(
        0.0306396, abs=1e-7
    )
    assert first["price_key"] == "nvidia-vera-rubin"
    assert (first["ttft_limit_ms"], first["tpot_limit_ms"]) == (1500.0, 15.0)
    assert first["accuracy_published"] == "80.62898814949864"
    gb300 = ranking.filter(pl.col("result_key") == GB300_X72 + "Interactive").row(
        0, named=True
    )
    assert gb300["rank"] == 3
    assert gb300["price_key"] == "nvidia-gb300"
    assert gb300["accelerator_hours_per_million_units"] == pytest.approx(
        0.0788936, abs=1e-7
    )


def test_every_llm_result_is_ranked_once_or_says_why_not(
    deepseek: pl.DataFrame,
) -> None:
    assert deepseek.height == deepseek.select("release", "result_key").n_unique()
    unranked = deepseek.filter(pl.col("rank").is_null())
    assert unranked["accelerator_hours_per_million_units"].is_null().all()
    assert unranked["cost_reason"].is_not_null().all()
