"""The systems table and a system's description on real data: NVIDIA's GB300 NVL72.

The mirror holds NVIDIA's 72-GPU GB300 NVL72 system in three rounds: v5.1 and v6.0
with their raw trees (system JSONs) and summaries, v6.1 as a summary only.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis import attach_accelerators
from pipeline.extract.raw_tree import system_files
from pipeline.render.explorer_data import explorer_rows
from pipeline.render.site_data import release_order
from pipeline.render.system_ids import keyed_results
from pipeline.render.system_pages import render_family
from pipeline.render.system_views import descriptions, sections
from pipeline.source import Source
from pipeline.transform.systems import (
    read_system_files,
    summary_system_fields,
    systems_table,
)
from tests.analysed import analyse

PLATFORM = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
SYSTEM_ID = "nvidia-gb300-nvl72-gb300-288gb-aarch64x72-trt--e5ca0a56e8"
SUMMARIES = {
    "v4.1": "summary_results.json",
    "v5.1": "summary_results.json",
    "v6.0": "summary_results.json",
    "v6.1": "summary.json",
}
V60_FRAMEWORK = (
    "TensorRT 10.14, CUDA 13.1, cuDNN 9.17, TensorRT-LLM feat/1.2-mlpinf, NVIDIA "
    "Dynamo mlperf-v6.0-dynamo-v0.8.0, vLLM CentML:mlperf-inf-mm-q3vl-v6.0"
)
V61_FRAMEWORK = V60_FRAMEWORK.removesuffix("v6.0") + "v6.1"


@pytest.fixture(scope="module")
def declared(mirror: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    source = Source(base=str(mirror))
    found, refused = [], []
    for release in ("v5.1", "v6.0"):
        repo = f"inference_results_{release}"
        systems = system_files(source.list_tree(repo), release=release)
        fields, quarantined = read_system_files(
            systems,
            lambda path, repo=repo: source.fetch(repo, path).content,
            release=release,
        )
        found.append(fields)
        refused.append(quarantined)
    for release, name in SUMMARIES.items():
        content = (mirror / f"inference_results_{release}" / name).read_bytes()
        found.append(
            summary_system_fields(
                content,
                release=release,
                source_file=name,
                sha256=hashlib.sha256(content).hexdigest(),
            )
        )
    return pl.concat(found), pl.concat(refused)


@pytest.fixture(scope="module")
def results(mirror_results: pl.DataFrame) -> pl.DataFrame:
    return attach_accelerators(mirror_results.lazy()).collect()


@pytest.fixture(scope="module")
def table(declared, results: pl.DataFrame) -> pl.DataFrame:
    return systems_table(declared[0], results)


def test_every_system_file_of_the_trees_is_read(declared) -> None:
    fields, quarantined = declared
    assert quarantined.is_empty()
    files = fields.filter(pl.col("source_kind") == "system_json")
    counts = files.group_by("release").agg(pl.col("source_file").n_unique())
    assert dict(counts.sort("release").iter_rows()) == {"v5.1": 125, "v6.0": 111}


def test_gb300_nvl72_is_one_system_in_three_rounds(table: pl.DataFrame) -> None:
    rows = table.filter(
        (pl.col("submitter") == "NVIDIA") & (pl.col("platform") == PLATFORM)
    ).sort("release")
    assert rows.select(
        "release", "system_id", "total_accelerators", "nodes", "results",
        "description_source", "framework", "accelerator_memory_capacity_bytes",
    ).rows() == [
        ("v5.1", SYSTEM_ID, 72, 18, 4, "system_json", "TensorRT 10.13, CUDA 13.0",
         288 * 10**9),
        ("v6.0", SYSTEM_ID, 72, 18, 15, "system_json", V60_FRAMEWORK, 288 * 10**9),
        ("v6.1", SYSTEM_ID, 72, 18, 11, "summary", V61_FRAMEWORK, None),
    ]  # fmt: skip
    # Upstream's name varies; the identity holds.
    assert rows["system_names"].to_list() == [
        ["(72x GB300-288GB_aarch64, TensorRT)"],
        ["NVIDIA GB300 NVL72 (72x GB300-288GB_aarch64, TensorRT)"],
        ["NVIDIA GB300 NVL72 (72x GB300-288GB_aarch64, TensorRT)"],
    ]
    assert rows["source_file"].to_list() == [
        f"closed/NVIDIA/systems/{PLATFORM}.json",
        f"closed/NVIDIA/systems/{PLATFORM}.json",
        "summary.json",
    ]
    # The 288-GPU system of the same name is another system.
    larger = table.filter(
        (pl.col("submitter") == "NVIDIA")
        & (pl.col("platform") == "GB300-NVL72_GB300-288GB_aarch64x288_TRT")
    )
    assert set(larger["system_id"]) != {SYSTEM_ID}


def test_gb300_nvl72_description_gain_chain_and_changes(
    declared, results: pl.DataFrame, table: pl.DataFrame
) -> None:
    gains = analyse(results).software_gains
    releases = release_order(results["release"].unique())
    described = descriptions(table, declared[0], releases).filter(
        pl.col("system_id") == SYSTEM_ID
    )
    # Fields declared with a value: the system JSONs' and the v6.1 summary's.
    counts = described.group_by("release").len().sort("release")
    assert counts.rows() == [("v5.1", 30), ("v6.0", 31), ("v6.1", 10)]
    framework = described.filter(pl.col("changed") & (pl.col("field") == "framework"))
    assert framework.select(
        "previous_release", "release", "previous", "value"
    ).rows() == [
        ("v5.1", "v6.0", "TensorRT 10.13, CUDA 13.0", V60_FRAMEWORK),
        ("v6.0", "v6.1", V60_FRAMEWORK, V61_FRAMEWORK),
    ]
    keyed = keyed_results(results)
    shown = sections(keyed, table, declared[0], gains, releases)
    (system,) = shown.filter(pl.col("system_id") == SYSTEM_ID).to_dicts()
    assert system["releases"] == ["v5.1", "v6.0", "v6.1"]
    assert system["results"] == 30
    family = shown.filter(pl.col("system_page") == system["system_page"])
    page = render_family(
        system["system_page"],
        "NVIDIA · NVIDIA GB300",
        family.drop("system_page"),
        "methodology.md",
    ).files[0]
    assert page.rel == f"systems/{system['system_page']}.md"
    text = page.content.split(f"{{ #{SYSTEM_ID} .ledger-system }}", 1)[1]
    text = text.split("\n## ", 1)[0]
    # The heading is the newest name, the chips and the id; the memory as declared
    # in v5.1 and v6.0 (system JSONs), not in v6.1's summary.
    memory = next(r for r in text.split("<tr>") if ">Accelerator memory<" in r)
    assert (
        '<td data-label="v5.1">288 GB</td><td data-label="v6.0">288 GB</td>'
        '<td data-label="v6.1"></td>'
    ) in memory
    # The chain, each step's ratio: v5.1 -> v6.0 -> v6.1 on deepseek-r1 Offline.
    chain = [r for r in text.split("<tr>") if "deepseek-r1 · Offline" in r]
    assert any("v5.1 → v6.0" in r and ">1.54×<" in r for r in chain)
    assert any("v6.0 → v6.1" in r and ">1.05×<" in r for r in chain)
    assert any("v5.1 → v6.1" in r and "not consecutive" in r for r in chain)
    # Every result links its upstream folder; 30 rows.
    rows = [r for r in text.split("<tr>") if 'data-label="Round"' in r]
    assert len(rows) == 30
    assert '<a href="https://github.com/mlcommons/inference_results_v6.0/tree/' in text
    assert f"closed/NVIDIA/results/{PLATFORM}/deepseek-r1/Offline" in text


def test_the_explorer_filters_gb300_by_memory_and_interconnect(
    results: pl.DataFrame, table: pl.DataFrame
) -> None:
    rows = explorer_rows(results, table).filter(pl.col("system_id") == SYSTEM_ID)
    assert rows.group_by("release").agg(
        pl.col("accelerator_memory_size").unique(),
        pl.col("accelerator_interconnect").unique(),
        pl.col("interconnect_family").unique(),
        pl.col("cooling_kind").unique(),
    ).sort("release").rows() == [
        ("v5.1", ["288 GB"], ["5th-gen NVLink andNVLink Switches"], ["NVLink 5"],
         ["liquid + air"]),
        ("v6.0", ["288 GB"], ["5th-gen NVLink andNVLink Switches"], ["NVLink 5"],
         ["liquid + air"]),
        ("v6.1", [None], [None], [None], [None]),
    ]  # fmt: skip
