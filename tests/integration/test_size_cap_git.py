"""A file over the 64 MB cap committed upstream, read over git through Dagster.

v6.0 with one ``mlperf_log_summary.txt`` just over the cap (zeros, so the pack is
small): the release line names it, the stored tree outcome carries it, Audit's
rounds table shows it, and every other result of the round is still read.
"""

from __future__ import annotations

import json

import polars as pl
import pytest

from pipeline import runner
from pipeline.defs.website import rounds_table
from pipeline.snapshots import SnapshotStore
from pipeline.source import DEFAULT_MAX_BYTES
from tests.conftest import MIRROR
from tests.gitserver import GitServer, commit_folder

ROUND = MIRROR / "inference_results_v6.0"
LOG = (
    "open/NVIDIA/results/Jetson-Thor/llama3.1-8b-edge/Offline/performance/run_1/"
    "mlperf_log_summary.txt"
)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("capped")
    big = {LOG: (ROUND / LOG).read_bytes() + bytes(DEFAULT_MAX_BYTES)}
    commit_folder(
        root / "srv" / "mlcommons" / f"{ROUND.name}.git", ROUND, "r", extra=big
    )
    del big
    work = root / "work"
    lines: list[str] = []
    with GitServer(root / "srv") as server, pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_SOURCE", f"git+{server.url}")
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        env.setenv("MLPERF_GIT_CACHE_DIR", str(work / "clones"))
        outcomes = runner.ingest(runner.get_instance(), ["v6.0"], progress=lines.append)
        yield {"work": work, "lines": lines, "outcomes": outcomes}


def test_the_release_line_names_the_refused_file(ingested: dict) -> None:
    (release,) = [o for o in ingested["outcomes"] if o.label == "v6.0"]
    assert release.success, release.message
    (line,) = [line for line in ingested["lines"] if line.startswith("[1/1] v6.0: ")]
    assert line.endswith(
        "; raw tree: 519 rows, 2 rejected, 1 file over the 64 MB cap: " + LOG
    )


def test_the_stored_outcome_and_audit_carry_it(ingested: dict) -> None:
    assets = ingested["work"] / "data" / "assets"
    tree = json.loads((assets / "raw_mlperf__tree" / "v6.0.json").read_text())
    assert tree["over_cap"] == [LOG]
    assert tree["over_cap_note"] == f"1 file over the 64 MB cap: {LOG}"
    raw = json.loads((assets / "raw_mlperf__summary" / "v6.0.json").read_text())
    store = SnapshotStore(ingested["work"] / "data")
    audit = rounds_table(store, {"v6.0": raw}, {"v6.0": tree})
    assert audit["raw_tree"].to_list() == [
        f"ingested; 1 file over the 64 MB cap: {LOG}"
    ]


def test_the_rest_of_the_round_is_read(ingested: dict) -> None:
    assets = ingested["work"] / "data" / "assets"
    rejected = pl.read_parquet(assets / "core_mlperf__tree_rejected" / "v6.0.parquet")
    (reason,) = rejected.filter(pl.col("source_file") == LOG)["reason"].to_list()
    assert f"{LOG}: {DEFAULT_MAX_BYTES + len((ROUND / LOG).read_bytes())} bytes " in (
        reason
    )
    assert reason.endswith("exceeds the cap of 67108864 bytes (64 MB); not read)")
    results = pl.read_parquet(assets / "core_mlperf__tree_results" / "v6.0.parquet")
    assert results.height == 519  # 520 without the file: only its result is lost
