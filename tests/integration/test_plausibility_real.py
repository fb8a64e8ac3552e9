"""Plausibility flags on the real pairs of every mirrored round, plus two planted ones.

A broken result (an end ten times below its class) and a "scaling" step between two
submitters' systems are added to the real table; both must come out flagged, with
reasons a reader can check, and stay out of everything a headline may cite.
"""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.analysis import headline_pairs
from pipeline.analysis.plausibility import warned
from pipeline.transform.results import RESULTS_SCHEMA
from tests.analysed import analyse

GB300_RACK = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"


@pytest.fixture(scope="module")
def planted(full_mirror_results: pl.DataFrame) -> pl.DataFrame:
    rack = full_mirror_results.filter(
        pl.col("result_key") == "6.0-0078:deepseek-r1:Offline"
    )
    assert rack["platform"].to_list() == [GB300_RACK]

    def copy(key: str, **values: object) -> pl.DataFrame:
        return rack.with_columns(
            result_key=pl.lit(key), result_id=pl.lit(None, pl.String),
            **{k: pl.lit(v) for k, v in values.items()},
        )  # fmt: skip

    # Anomaly Inc: its v5.1 run did a fortieth of NVIDIA's rack, per accelerator.
    broken = copy(
        "planted:v5.1", release="v5.1", submitter="Anomaly Inc",
        platform="anomaly_x72", result_value=420659.0 / 40,
    )  # fmt: skip
    fixed = copy(
        "planted:v6.0", submitter="Anomaly Inc", platform="anomaly_x72",
        result_value=647076.0,
    )  # fmt: skip
    # Tiny Co: one 4-GPU GB300 tray, set against other submitters' 72-GPU racks.
    tray = copy(
        "planted:tray", submitter="Tiny Co", platform="tray_x4",
        total_accelerators=4, nodes=1, accelerators_per_node=4, result_value=8000.0,
    )  # fmt: skip
    planted = pl.concat([broken, fixed, tray]).with_columns(
        result_per_accelerator=pl.col("result_value") / pl.col("total_accelerators")
    )
    return pl.concat([full_mirror_results, planted.cast(RESULTS_SCHEMA)])


@pytest.fixture(scope="module")
def tables(planted: pl.DataFrame):
    return analyse(planted)


def test_the_broken_end_is_flagged_and_explained(tables) -> None:
    gain = tables.software_gains.filter(
        (pl.col("identity_level") == "system")
        & (pl.col("result_key_old") == "planted:v5.1")
    )
    assert gain.height == 1
    assert gain["ratio"][0] == pytest.approx(647076.0 / (420659.0 / 40))
    assert gain["flags"].to_list() == [["large_software_gain", "outlier_end"]]
    reasons = gain["flag_reasons"][0]
    assert (
        "software-only gain above 3x on the same hardware (ratio 61.53 > 3)" in reasons
    )
    assert "v5.1 end" in reasons and "worse than the median of its" in reasons


def test_the_cross_submitter_size_step_is_flagged_and_never_scaling(tables) -> None:
    steps = tables.scaling.filter(pl.col("result_key_old") == "planted:tray")
    assert steps.height > 0
    assert set(steps["identity_level"]) == {"best_of_any"}
    for flags in steps["flags"].to_list():
        assert {
            "size_comparison",
            "different_submitters",
            "superlinear_scaling",
        } <= set(flags)


def test_planted_pairs_never_reach_a_headline(tables) -> None:
    for pairs in (tables.software_gains, tables.generation_ratios, tables.scaling):
        cited = headline_pairs(pairs)
        keys = set(cited["result_key_old"]) | set(cited["result_key_new"])
        assert not keys & {"planted:v5.1", "planted:v6.0", "planted:tray"}
        # Labels (preview, inferred) may travel with a headline; warnings never.
        assert not cited.select(warned()).to_series().any()


def test_no_unflagged_pair_scales_better_than_linear(tables) -> None:
    unflagged = tables.scaling.filter(pl.col("flags").list.len() == 0)
    assert unflagged.height > 0
    # Every step above 100% carries a flag (a label up to 105%, a warning above).
    assert unflagged["efficiency"].max() <= 1.0
    # Only the strict reading survives unflagged: one system family at two sizes.
    assert set(unflagged["identity_level"]) == {"same_submitter"}
    above = tables.scaling.filter(pl.col("efficiency") > 1.0)
    assert all("efficiency_above_100" in f for f in above["flags"].to_list())


def test_oracles_gpt_oss_step_at_101_percent_is_labelled(tables) -> None:
    oracle = tables.scaling.filter(
        (pl.col("identity_level") == "same_submitter")
        & (pl.col("submitter_old") == "Oracle") & (pl.col("release_old") == "v6.1")
        & (pl.col("benchmark") == "gpt-oss-120b") & (pl.col("efficiency") > 1.01)
    )  # fmt: skip
    assert oracle["efficiency"].to_list() == [pytest.approx(1.0117, abs=5e-4)]
    assert oracle["flags"].to_list() == [["efficiency_above_100"]]
    assert "(efficiency 101.17% > 100%)" in oracle["flag_reasons"][0]


def test_no_gain_across_a_round_missing_from_the_source_is_consecutive(tables):
    gains = tables.software_gains
    # The mirror holds v1.0 and v2.1 but not v1.1 or v2.0, which exist upstream.
    v10_v21 = gains.filter(
        (pl.col("release_old") == "v1.0") & (pl.col("release_new") == "v2.1")
    )
    assert v10_v21.height == 582
    assert not v10_v21["is_consecutive"].any()
    assert set(v10_v21["rounds_not_in_source"].list.join(",")) == {"v1.1,v2.0"}
    v21_v41 = gains.filter(
        (pl.col("release_old") == "v2.1") & (pl.col("release_new") == "v4.1")
    )
    assert set(v21_v41["rounds_not_in_source"].list.join(",")) == {"v3.0,v3.1,v4.0"}
    assert not v21_v41["is_consecutive"].any()
    # Only steps between adjacent rounds upstream remain consecutive.
    steps = gains.filter(pl.col("is_consecutive")).select("release_old", "release_new")
    assert set(steps.unique().rows()) == {("v5.1", "v6.0"), ("v6.0", "v6.1")}
    assert set(headline_pairs(gains)["release_old"]) == {"v5.1", "v6.0"}


def test_the_reproduced_figures_stay_and_are_headline_material(tables) -> None:
    cited = headline_pairs(tables.software_gains)
    gb300 = cited.filter(
        (pl.col("submitter_old") == "NVIDIA") & (pl.col("platform_old") == GB300_RACK)
        & (pl.col("benchmark") == "deepseek-r1") & (pl.col("release_old") == "v5.1")
        & (pl.col("release_new") == "v6.0") & (pl.col("scenario") == "Offline")
    )  # fmt: skip
    assert gb300["ratio"].to_list() == [pytest.approx(1.538, abs=5e-4)]
    scaling = headline_pairs(tables.scaling).filter(
        (pl.col("platform_old") == GB300_RACK) & (pl.col("release_old") == "v6.0") & (pl.col("total_accelerators_new") == 288)
        & (pl.col("benchmark") == "deepseek-r1") & (pl.col("scenario") == "Offline")
    )  # fmt: skip
    assert scaling["efficiency"].to_list() == [pytest.approx(0.964, abs=5e-4)]


def test_the_dell_gb10_yolo_gain_is_flagged(tables) -> None:
    dell = tables.software_gains.filter(
        (pl.col("platform_new") == "Dell_Pro_Max_GB10x1")
        & pl.col("benchmark").str.starts_with("yolo")
        & (pl.col("ratio") > 40)
    )
    assert dell.height > 0
    assert all("large_software_gain" in f for f in dell["flags"].to_list())
