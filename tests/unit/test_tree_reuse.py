"""A raw tree is fetched once, and only what the rules read: stored files stay stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.extract.raw_tree import files_read
from pipeline.fetch import fetch_raw_tree
from pipeline.registry.releases import Release
from pipeline.snapshots import SnapshotStore
from pipeline.source import Source, SourceError
from tests.httpserver import FaultyServer
from tests.unit.test_raw_tree import RUN, TREE

REPO = "inference_results_v9.9"
RELEASE = Release(
    version="v9.9",
    repository=f"mlcommons/{REPO}",
    summary_path="",
    summary_format=None,
    published_date=None,
    ingest=("raw_tree",),
)
# Its bytes are no other file's, so nothing else can stand in for it.
LAST = f"closed/Nosys/results/ghost/resnet50/Offline/{RUN}"


@pytest.fixture
def served(tmp_path: Path):
    root = tmp_path / "mirror" / REPO
    for path, content in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    with FaultyServer(tmp_path / "mirror") as server:
        yield server


def gets(server: FaultyServer) -> list[str]:
    """Files downloaded (the listing call left out), in order."""
    return [
        p.removeprefix(f"/{REPO}/")
        for m, p in server.requests
        if m == "GET" and not p.startswith("/repos/")
    ]


def source(server: FaultyServer) -> Source:
    return Source(base=server.url, backoff_s=0.0, retries=0, tree_api=server.url)


def test_only_the_files_the_rules_read_are_fetched(served: FaultyServer, tmp_path):
    fetch_raw_tree(RELEASE, source(served), SnapshotStore(tmp_path / "data"))
    fetched = sorted(gets(served))
    assert fetched == files_read(sorted(TREE), release="v9.9")
    # Never a compliance run, an accuracy log, a detail log or a measurements file.
    for never in (
        f"closed/Acme/results/box/resnet50/server/TEST04/{RUN}",
        "closed/Acme/results/box/resnet50/server/accuracy/mlperf_log_summary.txt",
        "closed/Acme/results/box/resnet50/server/measurements.json",
        "closed/Acme/results/box/bert-99/Offline/performance/run_1/mlperf_log_detail.txt",
    ):
        assert never not in fetched
    # An endpoints result is read from its result_summary.json (endpoints.toml).
    assert (
        "closed/Acme/results/box/qwen3.6-27b/SingleStream/performance/result_summary.json"
        in fetched
    )
    assert "open/Edgy/model_mapping.json" in fetched


def test_a_rerun_after_a_failed_fetch_downloads_only_what_is_missing(
    served: FaultyServer, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    served.faults[f"/{REPO}/{LAST}"] = ["500"]
    with pytest.raises(SourceError, match="no new tree snapshot stored"):
        fetch_raw_tree(RELEASE, source(served), store)
    first = gets(served)
    assert LAST in first
    served.requests.clear()
    outcome = fetch_raw_tree(RELEASE, source(served), store)
    assert outcome.status == "ingested"
    # What arrived the first time comes from the store: only the rest is fetched.
    again = gets(served)
    assert LAST in again
    assert not set(again) & (set(first) - {LAST})
    assert f"{len(again)} downloaded" in outcome.message
    # Counted as read, so Audit need not parse the snapshot to say how many.
    listed = json.loads(store.read(outcome.snapshot))["files"]
    assert outcome.files_read == len(listed) > 0
    served.requests.clear()
    third = fetch_raw_tree(RELEASE, source(served), store)
    assert (third.downloaded, third.is_new, gets(served)) == (0, False, [])
