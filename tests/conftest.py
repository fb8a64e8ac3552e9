"""Shared fixtures: the real mirror in ../shared, read without Dagster."""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest

from pipeline.manifest import load_manifest
from pipeline.snapshots import sha256_hex
from pipeline.transform.results import summary_tables

ROOT = Path(__file__).resolve().parent.parent
MIRROR = Path(
    os.environ.get("MLPERF_TEST_MIRROR", ROOT.parent / "shared" / "mlperf-mirror")
).resolve()
MIRROR_ALT = MIRROR.parent / "mlperf-mirror-alt"
MIRROR_RELEASES = ("v4.1", "v5.1", "v6.0", "v6.1")


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not (MIRROR / "inference_results_v5.1").is_dir():
        pytest.fail(f"the shared mirror is missing at {MIRROR}; tests read real data")
    return MIRROR


@pytest.fixture(scope="session")
def mirror_results(mirror: Path) -> pl.DataFrame:
    """The canonical table of every mirrored release, built with the pure functions."""
    frames = []
    for release in load_manifest():
        if release.version not in MIRROR_RELEASES:
            continue
        content = (mirror / release.repo_name / release.summary_path).read_bytes()
        results, _, _ = summary_tables(
            content,
            release=release.version,
            repository=release.repository,
            source_file=release.summary_path,
            sha256=sha256_hex(content),
        )
        frames.append(results)
    return pl.concat(frames)
