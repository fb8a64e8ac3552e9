"""v6.1 read in full: the main mirror's summary plus the endpoints-harness files.

The combined mirror is assembled at test time (tmp_path): the main mirror's v6.1
``summary.json`` with ``../shared/mlperf-mirror-endpoints``'s v6.1 files overlaid
(NVIDIA's Vera Rubin NVL72, six results written by the endpoints harness; that
folder's README.md documents them). Nothing is copied into the repository.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis import attach_accelerators
from pipeline.extract.raw_tree import scan_raw_tree, system_files
from pipeline.source import Source
from pipeline.transform.crosscheck import cross_check, cross_check_summary
from pipeline.transform.systems import (
    read_system_files,
    summary_system_fields,
    systems_table,
)

REPO = "inference_results_v6.1"
PLATFORM = "VR-NVL72_VR-288GB_aarch64x72_TRT"
FOLDER = f"closed/NVIDIA/results/{PLATFORM}"
#: summary.json's Result of each VR NVL72 result and the result_summary.json field
#: it equals (README.md of the endpoints mirror, "The six results").
SIX = {
    ("deepseek-r1", "Offline"): (1183326.8540322022, "Tokens/s"),
    ("deepseek-r1", "Server"): (1175890.2208168241, "Tokens/s"),
    ("deepseek-r1", "Interactive"): (652750.1447708113, "Tokens/s"),
    ("qwen3-vl-235b-a22b", "Offline"): (2392.6979194587702, "Samples/s"),
    ("qwen3-vl-235b-a22b", "Server"): (2323.2698417825063, "Queries/s"),
    ("qwen3-vl-235b-a22b", "Interactive"): (1306.6078446834506, "Queries/s"),
}


@pytest.fixture(scope="module")
def combined(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    endpoints = mirror.parent / "mlperf-mirror-endpoints" / REPO
    if not endpoints.is_dir():
        pytest.fail(f"the endpoints mirror is missing at {endpoints}")
    root = tmp_path_factory.mktemp("combined")
    shutil.copytree(endpoints, root / REPO)
    shutil.copyfile(mirror / REPO / "summary.json", root / REPO / "summary.json")
    return root


@pytest.fixture(scope="module")
def tree(combined: Path) -> tuple[pl.DataFrame, pl.DataFrame, list[str], Source]:
    source = Source(base=str(combined))
    paths = source.list_tree(REPO)
    results, rejected = scan_raw_tree(
        paths,
        lambda path: source.fetch(REPO, path).content,
        release="v6.1",
        repository=f"mlcommons/{REPO}",
    )
    return results, rejected, paths, source


def test_the_six_results_are_read_from_result_summary_json(tree) -> None:
    results, rejected, _, _ = tree
    assert rejected.is_empty()
    assert {
        (r["benchmark"], r["scenario"]): (r["result_value"], r["result_unit"])
        for r in results.iter_rows(named=True)
    } == SIX
    assert sorted(results["source_file"]) == sorted(
        f"{FOLDER}/{b}/{s}/performance/result_summary.json" for b, s in SIX
    )
    assert set(results["total_accelerators"]) == {72}
    assert set(results["availability"]) == {"preview"}


def test_crosscheck_agrees_on_all_six(tree, mirror_results: pl.DataFrame) -> None:
    summary = mirror_results.filter(pl.col("release") == "v6.1")
    report = cross_check(summary.lazy(), tree[0].lazy())
    counts = cross_check_summary(report)
    assert (counts["agree"], counts["disagree"], counts["raw_only"]) == (6, 0, 0)
    assert counts["unit_mismatch"] == 0
    # Every other v6.1 result has no raw file in this source.
    assert counts["summary_only"] == summary.height - 6
    vr = report.filter(pl.col("status") == "agree").sort("model_upstream", "scenario")
    assert vr.select(
        "benchmark", "scenario", "summary_value", "raw_source_file"
    ).rows() == sorted(
        (
            b,
            s,
            pytest.approx(v, rel=1e-12),
            f"{FOLDER}/{b}/{s}/performance/result_summary.json",
        )
        for (b, s), (v, _) in SIX.items()
    )
    assert vr["relative_difference"].max() < 1e-13


def test_links_open_the_existing_scenario_folder(
    tree, combined: Path, mirror_results: pl.DataFrame
) -> None:
    summary = mirror_results.filter(
        (pl.col("release") == "v6.1") & (pl.col("platform") == PLATFORM)
    )
    # summary.json says .../performance/run_1, which does not exist.
    assert not (
        combined / REPO / FOLDER / "deepseek-r1/Server/performance/run_1"
    ).exists()
    for frame in (summary, tree[0]):
        assert frame.height == 6
        for url in frame["result_url"]:
            path = url.split("/tree/", 1)[1].split("/", 1)[1]
            assert (combined / REPO / path).is_dir(), url
            assert path.startswith(FOLDER) and not path.endswith("run_1")


def test_the_system_json_gives_memory_and_interconnect(
    tree, combined: Path, mirror_results: pl.DataFrame
) -> None:
    _, _, paths, source = tree
    files = system_files(paths, release="v6.1")
    assert files == {
        ("closed", "NVIDIA", PLATFORM): f"closed/NVIDIA/systems/{PLATFORM}.json"
    }
    declared, quarantined = read_system_files(
        files, lambda path: source.fetch(REPO, path).content, release="v6.1"
    )
    assert quarantined.is_empty()
    declared_values = dict(declared.select("field", "value").iter_rows())
    assert declared_values["accelerator_memory_capacity"] == "288 GB"
    assert declared_values["accelerator_memory_configuration"] == "HBM4"
    assert declared_values["accelerator_interconnect"] == (
        "6th-gen NVLink andNVLink Switches"
    )
    assert declared_values["accelerator_host_interconnect"] == "NVLink-C2C"
    content = (combined / REPO / "summary.json").read_bytes()
    fields = pl.concat(
        [
            declared,
            summary_system_fields(
                content,
                release="v6.1",
                source_file="summary.json",
                sha256=hashlib.sha256(content).hexdigest(),
            ),
        ]
    )
    results = attach_accelerators(mirror_results.lazy()).collect()
    row = (
        systems_table(fields, results)
        .filter((pl.col("release") == "v6.1") & (pl.col("platform") == PLATFORM))
        .row(0, named=True)
    )
    assert row["description_source"] == "system_json"
    assert row["accelerator_memory_capacity_bytes"] == 288 * 10**9
    assert row["source_file"] == f"closed/NVIDIA/systems/{PLATFORM}.json"
