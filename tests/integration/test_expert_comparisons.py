"""Only comparisons an expert would sign, on the full history of the real mirror.

Open-division pairs need one model as run at both ends; one name per accelerator; the
counts pages share are one definition. (Upstream's `inferred` mark is
tests/integration/test_inferred_real.py.)
"""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.analysis import pair_candidates
from pipeline.analysis.benchmarks import evidence
from pipeline.render.grid import round_grid
from pipeline.render.release_views import release_stats
from pipeline.render.site_data import with_accelerators


@pytest.fixture(scope="module")
def attached(full_mirror_attached: pl.DataFrame) -> pl.DataFrame:
    return full_mirror_attached


@pytest.fixture(scope="module")
def candidates(attached: pl.DataFrame) -> pl.DataFrame:
    return pair_candidates(attached)


def test_no_open_division_pair_joins_two_models_as_run(candidates) -> None:
    kept = candidates.filter(
        (pl.col("division") == "open") & pl.col("exclusion_reason").is_null()
    )
    assert kept.height > 0  # Krai's v1.0 -> v2.1 ArmNN/TFLite upgrades, among others
    for field in ("model_upstream", "weight_data_types", "submitter", "model_lineage"):
        differs = kept.filter(
            evidence(field, "_old").ne_missing(evidence(field, "_new"))
        )
        assert differs.height == 0, (field, differs.head(3))
    assert set(kept["kind"]) == {"software_gain", "generation_ratio", "scaling"}


def test_the_28x_pair_of_two_models_is_excluded_with_both_ends_evidence(
    candidates,
) -> None:
    # v4.1 llama2-70b-99 Offline: NeuralMagic's GPTQ run on 4 x H100 against
    # NVIDIA's depth-pruned model on 1 x H200, both UsedModel "llama2-70b-99".
    pair = candidates.filter(
        (pl.col("kind") == "generation_ratio")
        & (pl.col("release_old") == "v4.1")
        & (pl.col("benchmark") == "llama2-70b-99")
        & (pl.col("scenario") == "Offline")
        & (pl.col("division") == "open")
        & pl.col("platform_old").str.contains("GPTQ")
        & (pl.col("platform_new") == "H200-SXM-141GBx1_TRT_DepthPruned")
    )
    assert pair.height >= 1
    assert set(pair["exclusion_reason"]) == {
        "open division: weight data types differ (int4 vs fp16), so the models as "
        "run differ"
    }


def test_a_reviewed_same_model_entry_keeps_krais_h100_to_h200_ratio(
    candidates,
) -> None:
    # benchmarks.toml [[same_model]]: Krai's llama3_1-70b-fp8_dyn under vLLM v0.9.2.
    kept = candidates.filter(
        (pl.col("kind") == "generation_ratio")
        & (pl.col("division") == "open")
        & pl.col("exclusion_reason").is_null()
        & (pl.col("identity_level") == "same_submitter")
        & ~pl.col("is_per_accelerator")
        & (pl.col("scenario") == "Offline")
    )
    row = kept.row(0, named=True)
    assert kept.height == 1
    assert (row["platform_old"], row["platform_new"]) == (
        "xe9680_h100_x8_vllm_092",
        "xd670_h200_x8_vllm_092",
    )
    assert round(row["ratio"], 3) == 1.354


def test_one_name_per_accelerator(attached: pl.DataFrame) -> None:
    mapped = attached.filter(pl.col("is_accelerator_mapped") & ~pl.col("is_cpu_only"))
    names = mapped.group_by("accelerator_id").agg(pl.col("accelerator_name").n_unique())
    assert names.filter(pl.col("accelerator_name") > 1).height == 0
    rubin = attached.filter(pl.col("accelerator_id") == "nvidia-vera-rubin")
    assert set(rubin["accelerator_name"]) == {"NVIDIA Vera Rubin"}
    # Upstream's spellings stay as aliases: Nebius's "NVIDIA VR200" among them.
    assert set(rubin["accelerator_name_upstream"]) == {
        "NVIDIA Vera Rubin",
        "NVIDIA VR200",
    }


def test_the_grid_and_the_pages_count_the_same_systems(attached) -> None:
    v61 = with_accelerators(attached.filter(pl.col("release") == "v6.1"))
    stats = release_stats(v61)
    assert stats["systems"] == round_grid(v61).height == 119
    # A mixed system ("NVIDIA + AMD ...") is no accelerator type of its own.
    mixed = v61.filter(pl.col("is_mixed_accelerators"))
    assert mixed.height > 0
    assert stats["accelerators"] == (
        v61.filter(~pl.col("is_cpu_only") & ~pl.col("is_mixed_accelerators"))[
            "accelerator_id"
        ].n_unique()
    )
