"""Snapshot provenance: the upstream address and commit, never a local path as a link."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.registry.releases import load_manifest
from pipeline.registry.upstream_commits import (
    ProvenanceError,
    load_commits,
    parse_commits,
)
from pipeline.render.site_data import SNAPSHOT_SCHEMA
from pipeline.transform.provenance import with_upstream

MIRROR = "/tmp/pytest-of-root/pytest-7/mirror0/mlperf-mirror"
V41_SHA = "8ec7a5b032f7d51c57de04bc04b7e9c94bdc8cd707ab4f4b84f921263e38f51a"


def snapshot(release: str, path: str, url: str, sha256: str = "cd" * 32) -> dict:
    return {
        "release": release,
        "path": path,
        "url": url,
        "sha256": sha256,
        "bytes": 10,
        "fetched_at": "2026-01-02T03:04:05+00:00",
        "rows": 1,
        "rejected": 0,
        "checks": "",
    }


SNAPSHOTS = pl.DataFrame(
    [
        # The mirror's v4.1 summary: the bytes recorded for commit 4a0c8741.
        snapshot(
            "v4.1",
            "summary_results.json",
            f"{MIRROR}/inference_results_v4.1/summary_results.json",
            V41_SHA,
        ),
        # Other bytes under the same name: a later upstream version, commit unknown.
        snapshot(
            "v5.1",
            "summary_results.json",
            f"{MIRROR}/inference_results_v5.1/summary_results.json",
        ),
        snapshot("v2.1", "tree.json", f"{MIRROR}/inference_results_v2.1"),
        snapshot(
            "v1.0",
            "tree.json",
            "https://raw.githubusercontent.com/mlcommons/inference_results_v1.0/",
        ),
        snapshot(
            "v5.0",
            "summary_results.json",
            "http://127.0.0.1:8000/inference_results_v5.0/summary_results.json",
        ),
    ],
    schema=SNAPSHOT_SCHEMA,
)


def test_every_snapshot_gets_its_upstream_address_and_known_commit() -> None:
    out = with_upstream(SNAPSHOTS)
    assert out.select(
        "release", "upstream_url", "upstream_commit", "commit_basis", "read_from"
    ).rows() == [
        (
            "v4.1",
            "https://github.com/mlcommons/inference_results_v4.1/blob/4a0c8741/"
            "summary_results.json",
            "4a0c8741",
            "sha256 matches the file at this commit (mlperf-mirror/README.md: "
            '"mlcommons/inference_results_v4.1, commit 4a0c8741 ("Fixed links in '
            'summary_results")")',
            "local mirror: inference_results_v4.1/summary_results.json",
        ),
        (
            "v5.1",
            "https://github.com/mlcommons/inference_results_v5.1/blob/HEAD/"
            "summary_results.json",
            None,
            "not recorded: these bytes are not the file at 965182b0",
            "local mirror: inference_results_v5.1/summary_results.json",
        ),
        (
            "v2.1",
            "https://github.com/mlcommons/inference_results_v2.1/tree/91f7859b",
            "91f7859b",
            "stated by the mirror, not checked file by file (mlperf-mirror/README.md: "
            '"mlcommons/inference_results_v2.1, commit 91f7859b")',
            "local mirror: inference_results_v2.1/",
        ),
        (
            "v1.0",
            "https://github.com/mlcommons/inference_results_v1.0/tree/HEAD",
            None,
            "not recorded: read from upstream's HEAD",
            "upstream: https://raw.githubusercontent.com/mlcommons/"
            "inference_results_v1.0/",
        ),
        (
            "v5.0",
            "https://github.com/mlcommons/inference_results_v5.0/blob/HEAD/"
            "summary_results.json",
            None,
            "not recorded",
            "HTTP mirror: http://127.0.0.1:8000/inference_results_v5.0/"
            "summary_results.json",
        ),
    ]
    # The build machine's folder appears nowhere, not even in the note.
    for column in ("upstream_url", "read_from"):
        assert not out[column].str.contains(MIRROR, literal=True).any()


def test_the_registry_names_only_manifest_rounds_with_evidence() -> None:
    commits = load_commits()
    assert set(commits) <= {r.version for r in load_manifest()}
    assert sorted(commits) == ["v0.5", "v1.0", "v2.1", "v4.1", "v5.1", "v6.0", "v6.1"]
    assert "v5.0" not in commits


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"release": "v4.1", "commit": "HEAD", "evidence": "x"},
            "upstream_commits.toml: [round 1 (v4.1)] commit: expected 7 to 40 "
            "lower-case hex digits, got 'HEAD'",
        ),
        (
            {"release": "v4.1", "commit": "4a0c8741", "evidence": " "},
            "upstream_commits.toml: [round 1 (v4.1)] evidence: expected a non-empty "
            "string, got ' '",
        ),
        (
            {
                "release": "v4.1",
                "commit": "4a0c8741",
                "evidence": "x",
                "files": {"summary_results.json": "abc"},
            },
            "upstream_commits.toml: [round 1 (v4.1)] files: expected a table of paths "
            "to sha256 hex digests, got {'summary_results.json': 'abc'}",
        ),
    ],
)
def test_a_bad_registry_entry_is_named_in_the_registry_format(
    entry: dict, message: str
) -> None:
    with pytest.raises(ProvenanceError) as caught:
        parse_commits({"round": [entry]})
    assert str(caught.value) == message
