"""Every declared description spelling of the shared mirror's full history is reviewed.

Reads every round's system JSONs (the raw trees the mirror holds: v0.5, v1.0, v2.1,
v5.1, v6.0) and summary columns, as ``out_mlperf__system_fields`` does, and checks
``registry/descriptions.toml`` against them: a spelling that is neither mapped nor
listed as reviewed-unmapped fails here before it reaches a page.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import pytest

from pipeline.extract.raw_tree import system_files
from pipeline.manifest import load_manifest
from pipeline.source import Source
from pipeline.transform.descriptions import (
    MAPPED,
    NOT_REVIEWED,
    spelling_key,
    spellings,
    with_normalised,
)
from pipeline.transform.systems import read_system_files, summary_system_fields


@pytest.fixture(scope="module")
def declared(mirror: Path) -> pl.DataFrame:
    source = Source(base=str(mirror))
    found = []
    for release in load_manifest():
        repo = f"inference_results_{release.version}"
        if not (mirror / repo).is_dir():
            continue
        systems = system_files(source.list_tree(repo), release=release.version)
        if systems:
            fields, quarantined = read_system_files(
                systems,
                lambda path, repo=repo: source.fetch(repo, path).content,
                release=release.version,
            )
            assert quarantined.is_empty()
            found.append(fields)
        if release.has_summary:
            content = (mirror / repo / release.summary_path).read_bytes()
            found.append(
                summary_system_fields(
                    content,
                    release=release.version,
                    source_file=release.summary_path,
                    sha256=hashlib.sha256(content).hexdigest(),
                )
            )
    return pl.concat(found)


@pytest.fixture(scope="module")
def table(declared: pl.DataFrame) -> pl.DataFrame:
    return spellings(declared.lazy()).collect()


def test_every_spelling_the_mirror_declares_is_reviewed(table: pl.DataFrame) -> None:
    unreviewed = table.filter(pl.col("status") == NOT_REVIEWED)
    assert unreviewed.select("field", "spelling", "releases").rows() == []


def test_spellings_before_and_values_after(
    declared: pl.DataFrame, table: pl.DataFrame
) -> None:
    fields = ("accelerator_interconnect", "cooling", "accelerator_memory_capacity")
    raw = {
        f: declared.filter(pl.col("field") == f)["value"].drop_nulls().n_unique()
        for f in fields
    }
    # As written (case and spaces count): what the Explorer offered before.
    assert raw == {
        "accelerator_interconnect": 30, "cooling": 39,
        "accelerator_memory_capacity": 55,
    }  # fmt: skip
    keys = dict(table.group_by("field").len().iter_rows())
    assert keys == {
        "accelerator_interconnect": 28, "cooling": 35,
        "accelerator_memory_capacity": 53,
    }  # fmt: skip
    values = dict(
        table.filter(pl.col("status") == MAPPED)
        .group_by("field")
        .agg(pl.col("normalised").n_unique())
        .iter_rows()
    )
    assert values == {
        "accelerator_interconnect": 8, "cooling": 4,
        "accelerator_memory_capacity": 25,
    }  # fmt: skip
    # Reviewed and given no value: 3 cooling spellings, 5 memory ones, no interconnect.
    reviewed = table.filter(pl.col("status").str.starts_with("reviewed"))
    assert dict(reviewed.group_by("field").len().iter_rows()) == {
        "cooling": 3,
        "accelerator_memory_capacity": 5,
    }


def _system(declared: pl.DataFrame, release: str, submitter: str, platform: str):
    rows = declared.filter(
        (pl.col("release") == release)
        & (pl.col("submitter") == submitter)
        & (pl.col("platform") == platform)
        & (pl.col("source_kind") == "system_json")
    )
    wide = dict(rows.select("field", "value").iter_rows())
    frame = pl.DataFrame(
        [{k: wide.get(k) for k in ("accelerator_interconnect", "cooling",
                                   "accelerator_memory_capacity")}],
        schema=dict.fromkeys(
            ("accelerator_interconnect", "cooling", "accelerator_memory_capacity"),
            pl.String,
        ),
    )  # fmt: skip
    return with_normalised(frame.lazy()).collect().row(0, named=True)


def test_real_systems_map_as_reviewed(declared: pl.DataFrame) -> None:
    gb300 = _system(
        declared, "v6.0", "NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
    )
    assert gb300 == {
        "accelerator_interconnect": "5th-gen NVLink andNVLink Switches",
        "cooling": "Mix of Liquid-cooled (for CPU, GPU, CX7, NVLink Switches) and "
        "Air-cooled (for the rest of the components)",
        "accelerator_memory_capacity": "288 GB",
        "interconnect_family": "NVLink 5",
        "cooling_kind": "liquid + air",
        "accelerator_memory_gb": 288.0,
    }
    # A driver's GiB written as GB, on a 24 GB RTX 4090: 24, not 23.51 or 25.25.
    rtx = declared.filter(
        (pl.col("field") == "accelerator_memory_capacity")
        & (pl.col("value") == "23.5135498046875 GB")
    )
    assert set(rtx["submitter"]) == {"GATEOverflow"}
    assert set(rtx["release"]) == {"v5.1", "v6.0"}
    # 16 GiB (17.18 x 10^9 bytes) is the 16 GB class.
    krai = declared.filter(
        (pl.col("field") == "accelerator_memory_capacity")
        & (spelling_key(pl.col("value")) == "16 gib (shared with host)")
    )
    assert krai["release"].unique().to_list() == ["v2.1"]
    assert (
        with_normalised(krai.select(accelerator_memory_capacity="value").lazy())
        .collect()["accelerator_memory_gb"]
        .unique()
        .to_list()
    ) == [16.0]


def test_v4_1_and_v6_1_declare_none_of_the_three_fields(
    declared: pl.DataFrame,
) -> None:
    fields = ("accelerator_interconnect", "cooling", "accelerator_memory_capacity")
    rounds = declared.filter(pl.col("field").is_in(fields))["release"].unique().sort()
    assert rounds.to_list() == ["v0.5", "v1.0", "v2.1", "v5.1", "v6.0"]
