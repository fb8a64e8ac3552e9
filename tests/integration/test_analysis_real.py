"""The analytics layer on the real mirror (all four mirrored releases), without Dagster."""

from __future__ import annotations

import csv
import json

import polars as pl
import pytest

from pipeline.analysis import (
    PAIR_SCHEMA,
    attach_accelerators,
    check_no_duplicate_pairs,
    check_no_self_pairs,
    check_ratios_finite_positive,
    check_results_exist,
    unmapped_accelerators,
)
from pipeline.analysis.pairing import EXCLUSIONS_SCHEMA
from pipeline.extract.summary import summary_tables
from pipeline.manifest import release_for
from pipeline.render.datapackage import write_datapackage
from pipeline.render.downloads import write_downloads
from pipeline.snapshots import sha256_hex
from tests.analysed import analyse
from tests.conftest import MIRROR_ALT

GB300_RACK = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"


@pytest.fixture(scope="module")
def tables(mirror_results: pl.DataFrame):
    return analyse(mirror_results)


@pytest.fixture(scope="module")
def alt_v61() -> pl.DataFrame:
    """v6.1 as the other upstream version has it ("NVIDIA VeraRubin")."""
    release = release_for("v6.1")
    content = (MIRROR_ALT / release.repo_name / release.summary_path).read_bytes()
    results, _, _ = summary_tables(
        content,
        release="v6.1",
        repository=release.repository,
        source_file=release.summary_path,
        sha256=sha256_hex(content),
    )
    return results


def pick(frame: pl.DataFrame, **where: object) -> dict[str, object]:
    for name, value in where.items():
        frame = frame.filter(pl.col(name) == value)
    assert frame.height == 1, frame
    return frame.row(0, named=True)


def test_every_upstream_accelerator_name_is_in_the_registry(mirror_results, alt_v61):
    report = unmapped_accelerators(pl.concat([mirror_results, alt_v61]))
    assert report.height == 0, report


def test_both_upstream_spellings_of_vera_rubin_are_one_accelerator(
    mirror_results, alt_v61
):
    both = pl.concat(
        [mirror_results.filter(pl.col("release") == "v6.1"), alt_v61]
    ).filter(pl.col("accelerator_name").str.contains("Vera"))
    attached = attach_accelerators(both.lazy()).collect()
    # One name on every page; upstream's two spellings stay as aliases.
    assert set(attached["accelerator_name"]) == {"NVIDIA Vera Rubin"}
    assert set(attached["accelerator_name_upstream"]) == {
        "NVIDIA Vera Rubin",
        "NVIDIA VeraRubin",
    }
    assert set(attached["accelerator_id"]) == {"nvidia-vera-rubin"}


def test_outputs_conform_to_the_pair_schema(tables):
    for frame in (tables.software_gains, tables.generation_ratios, tables.scaling):
        assert frame.schema == pl.Schema(PAIR_SCHEMA)
        assert frame.height > 100
    assert tables.exclusions.schema == pl.Schema(EXCLUSIONS_SCHEMA)


def test_system_level_software_gain_of_nvidia_gb300_rack(tables):
    gains = tables.software_gains.filter(
        (pl.col("identity_level") == "system")
        & (pl.col("submitter_old") == "NVIDIA")
        & (pl.col("platform_old") == GB300_RACK)
        & (pl.col("benchmark") == "deepseek-r1")
        & (pl.col("release_old") == "v5.1")
        & (pl.col("release_new") == "v6.0")
    )
    offline = pick(gains, scenario="Offline")
    assert (offline["result_value_old"], offline["result_value_new"]) == (
        420659.0, 647076.0,
    )  # fmt: skip
    assert offline["result_unit"] == "Tokens/s"
    assert offline["ratio"] == pytest.approx(1.538, abs=5e-4)
    server = pick(gains, scenario="Server")
    assert (server["result_value_old"], server["result_value_new"]) == (
        209328.0, 400437.0,
    )  # fmt: skip
    assert server["ratio"] == pytest.approx(1.913, abs=5e-4)


def test_the_pair_downloads_cite_both_result_ids(tables, tmp_path):
    """The software gains CSV and Parquet name each end's official result ID."""
    out = tmp_path / "downloads"
    downloads = write_downloads(
        {"software_gains": (tables.software_gains, "Derived.")}, out
    )
    package = json.loads(
        write_datapackage(
            downloads, ["mlcommons/inference_results_v6.0"], out
        ).read_text()
    )
    with (out / "software_gains.csv").open(newline="", encoding="utf-8") as f:
        rows = [
            r
            for r in csv.DictReader(f)
            if r["identity_level"] == "system"
            and r["platform_old"] == GB300_RACK
            and r["submitter_old"] == "NVIDIA"
            and r["benchmark"] == "deepseek-r1"
            and r["scenario"] == "Offline"
            and (r["release_old"], r["release_new"]) == ("v5.1", "v6.0")
        ]
    ((row),) = rows
    assert (row["result_id_old"], row["result_id_new"]) == ("5.1-0072", "6.0-0078")
    assert (row["result_value_old"], row["result_value_new"]) == (
        "420659.0",
        "647076.0",
    )
    parquet = pl.read_parquet(out / "software_gains.parquet")
    # v6.1's summary publishes no ID: its end is null, never a made-up one.
    into_v61 = parquet.filter(
        pl.col("identity_level") == "system",
        pl.col("platform_old") == GB300_RACK,
        pl.col("benchmark") == "deepseek-r1",
        pl.col("scenario") == "Offline",
        pl.col("submitter_old") == "NVIDIA",
        pl.col("release_old") == "v6.0",
        pl.col("release_new") == "v6.1",
    )
    assert into_v61["result_id_old"].to_list() == ["6.0-0078"]
    assert into_v61["result_id_new"].to_list() == [None]
    fields = {
        f["name"]: f["description"]
        for r in package["resources"]
        for f in r["schema"]["fields"]
    }
    assert fields["result_id_old"].startswith(
        "Older (or baseline) end: The official MLPerf result ID as upstream "
        "publishes it (e.g. 5.1-0001)"
    )
    assert "v6.1's summary" in fields["result_id_new"]


def test_scaling_of_nvidia_gb300_from_72_to_288(tables):
    steps = tables.scaling.filter(
        (pl.col("release_old") == "v6.0")
        & (pl.col("accelerator_id_old") == "nvidia-gb300")
        & (pl.col("benchmark") == "deepseek-r1")
        & (pl.col("scenario") == "Offline")
        & (pl.col("division") == "closed")
        & (pl.col("total_accelerators_old") == 72)
        & (pl.col("total_accelerators_new") == 288)
    )
    nvidia = pick(steps, identity_level="same_submitter")
    assert nvidia["submitter_old"] == nvidia["submitter_new"] == "NVIDIA"
    assert nvidia["efficiency"] == pytest.approx((2494310 / 647076) / 4)
    assert nvidia["efficiency"] == pytest.approx(0.964, abs=5e-4)
    # Best of any submitter: Nebius' 72-GPU rack (673936) beats NVIDIA's.
    best = pick(steps, identity_level="best_of_any")
    assert best["submitter_old"] == "Nebius"
    assert best["efficiency"] == pytest.approx((2494310 / 673936) / 4)


def test_a_latency_gain_counts_the_lower_result_as_better(tables):
    pair = pick(
        tables.software_gains,
        identity_level="system",
        submitter_old="NVIDIA",
        platform_old="B300-SXM-270GBx8_TRT",
        benchmark="wan-2.2-t2v-a14b",
        scenario="SingleStream",
    )
    # v6.0 reported 23.778912625 s, v6.1 17.977183307 s (normalised to ms).
    assert pair["result_unit"] == "Latency (ms)"
    assert pair["is_higher_better"] is False
    assert (pair["release_old"], pair["release_new"]) == ("v6.0", "v6.1")
    assert pair["result_value_new"] < pair["result_value_old"]
    assert pair["ratio"] == pytest.approx(23778.912625 / 17977.183307)
    assert pair["ratio"] > 1


def test_generation_ratio_gb300_over_gb200_in_both_readings(tables):
    pairs = tables.generation_ratios.filter(
        (pl.col("release_old") == "v6.0")
        & (pl.col("benchmark") == "deepseek-r1")
        & (pl.col("scenario") == "Offline")
        & (pl.col("accelerator_id_new") == "nvidia-gb300")
        & ~pl.col("is_per_accelerator")
    )
    same = pick(pairs, identity_level="same_submitter")
    assert same["accelerator_id_old"] == "nvidia-gb200"
    assert (same["total_accelerators_old"], same["total_accelerators_new"]) == (72, 72)
    assert same["ratio"] == pytest.approx(647076 / 486141)
    best = pick(pairs, identity_level="best_of_any")
    assert best["submitter_new"] == "Nebius"
    assert best["ratio"] == pytest.approx(673936 / 486141)


def test_corrected_llama31_8b_interactive_units_now_pair_across_rounds(tables):
    # v5.1's summary says "Queries/s" for tokens per second; the reviewed unit
    # correction in benchmarks.toml fixes it, so these gains exist and none is
    # excluded for differing units any more.
    assert not tables.exclusions.filter(
        pl.col("exclusion_reason").str.starts_with("result units differ")
        & pl.col("example_result_key_old").str.contains("llama3.1-8b")
    ).height
    pairs = tables.software_gains.filter(
        benchmark="llama3.1-8b", scenario="Interactive", release_old="v5.1"
    )
    assert pairs.height > 0
    assert set(pairs["result_unit"]) == {"Tokens/s"}


def test_checks_pass_on_the_real_outputs(tables, mirror_results):
    for frame in (tables.software_gains, tables.generation_ratios, tables.scaling):
        for outcome in (
            check_ratios_finite_positive(frame),
            check_no_self_pairs(frame),
            check_results_exist(frame, mirror_results),
            check_no_duplicate_pairs(frame),
        ):
            assert outcome.passed, outcome.message


def test_shared_pair_candidates_equal_each_analysis_on_its_own(mirror_results):
    """The assets pair once for all three analyses (rows prepared once, ~25 columns
    kept); every candidate must be what each analysis finds alone."""
    from pipeline.analysis import KINDS, pair_candidates
    from pipeline.analysis.pairing import PAIR_ORDER

    lazy = mirror_results.lazy()
    shared = pair_candidates(lazy)
    alone = pl.concat([pair_candidates(lazy, kind) for kind in KINDS]).sort(
        PAIR_ORDER, nulls_last=True
    )
    assert shared.height > 1000
    assert set(shared["kind"]) == {"software_gain", "generation_ratio", "scaling"}
    assert shared.equals(alone)


def test_declared_accelerator_counts_stand_and_name_disagreements_are_noted(
    mirror_results,
):
    noted = mirror_results.filter(pl.col("accelerator_count_note").is_not_null())
    # AMD's two v6.0 MI355X clusters: 11 x 8 and 12 x 8 declared (summary and
    # system JSON agree), "(x87)" and "(x94)" in the accelerator and folder names.
    by_system = (
        noted.group_by("release", "platform", "total_accelerators")
        .len()
        .sort("platform")
        .rows()
    )
    assert by_system == [
        ("v6.0", "87xMI355X_22xEPYC_9575F", 88, 6),
        ("v6.0", "94xMI355X_24xEPYC_9575F", 96, 2),
    ]
    assert set(noted["accelerator_count_note"]) == {
        "declared 88 accelerators (11 nodes × 8 per node), but the accelerator name "
        "'AMD Instinct MI355X 288GB HBM3e (x87)' states 87; the declared count is used",
        "declared 96 accelerators (12 nodes × 8 per node), but the accelerator name "
        "'AMD Instinct MI355X 288GB HBM3e (x94)' states 94; the declared count is used",
    }
    # Mixed systems whose named counts add up ("(x2x8) and (x2x8)" = 32) are not.
    mixed = mirror_results.filter(pl.col("platform") == "2x8xMI355X_2x8xMI300X")
    assert mixed.height > 0 and mixed["accelerator_count_note"].is_null().all()
