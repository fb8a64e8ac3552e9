"""Byte-reproducible builds (issue 13, row 10): identical inputs, identical outputs.

Two cold builds of the same small mirror, in separate data and build folders, at
different times. Every table, download and page must have the same sha256; the only
generated file allowed to differ is build-info.json, which exists to hold the times.
Raw snapshot records and sidecars are inputs' provenance (they say when a file was
fetched) and Dagster's own JSON outputs name their folders, so they are not compared.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

import pytest

from pipeline import runner


def _build(mirror: Path, work: Path) -> Path:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_SOURCE", str(mirror))
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        env.delenv("SOURCE_DATE_EPOCH", raising=False)
        outcomes = runner.ingest(
            runner.get_instance(), ["v4.1", "v6.1"], progress=print, site=True
        )
    assert all(o.success for o in outcomes), [o.message for o in outcomes]
    return work


def _digests(work: Path) -> dict[str, str]:
    site = (work / "build" / "site").resolve()
    files = {f"site/{p.relative_to(site)}": p for p in site.rglob("*") if p.is_file()}
    tables = work / "data" / "assets"
    files |= {f"tables/{p.relative_to(tables)}": p for p in tables.rglob("*.parquet")}
    return {
        name: hashlib.sha256(path.read_bytes()).hexdigest()
        for name, path in sorted(files.items())
    }


@pytest.fixture(scope="module")
def two_builds(mirror: Path, tmp_path_factory: pytest.TempPathFactory):
    upstream = tmp_path_factory.mktemp("upstream")
    for release in ("v4.1", "v6.1"):
        shutil.copytree(
            mirror / f"inference_results_{release}",
            upstream / f"inference_results_{release}",
        )
    first = _build(upstream, tmp_path_factory.mktemp("first"))
    time.sleep(1.1)  # a different second: any timestamp in an output would show
    second = _build(upstream, tmp_path_factory.mktemp("second"))
    return _digests(first), _digests(second), first, second


def test_two_cold_builds_give_identical_tables_downloads_and_pages(two_builds):
    first, second, _, _ = two_builds
    assert first.keys() == second.keys()
    differ = sorted(name for name in first if first[name] != second[name])
    assert differ == ["site/generated/downloads/build-info.json"]
    assert any(name.startswith("tables/core_mlperf__all_results") for name in first)
    assert "site/generated/downloads/results.csv" in first


def test_build_info_holds_the_times_that_differ(two_builds):
    _, _, first, second = two_builds
    infos = [
        json.loads(
            (
                w / "build" / "site" / "generated" / "downloads" / "build-info.json"
            ).read_text()
        )
        for w in (first, second)
    ]
    assert infos[0]["built_at"] != infos[1]["built_at"]
    assert [s["release"] for s in infos[0]["snapshots_fetched_at"]] == ["v4.1", "v6.1"]
