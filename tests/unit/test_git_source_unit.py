"""The git source against a one-repository git server: what GitHub's answers mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.gitsource import GitSource
from pipeline.source import NotPublished
from tests.gitserver import GitServer, commit_folder

pytestmark = pytest.mark.slow


@pytest.fixture
def served(tmp_path: Path):
    folder = tmp_path / "round"
    (folder / "closed" / "A" / "systems").mkdir(parents=True)
    (folder / "closed" / "A" / "systems" / "s.json").write_text('{"status": "x"}')
    commit = commit_folder(
        tmp_path / "srv" / "mlcommons" / "inference_results_v9.9.git", folder, "r"
    )
    with GitServer(tmp_path / "srv") as server:
        yield server, commit, tmp_path


def source(served) -> GitSource:
    server, _, tmp_path = served
    return GitSource(base=f"git+{server.url}", cache=tmp_path / "clones", backoff_s=0.0)


def test_a_repository_github_hides_behind_401_is_not_published(served) -> None:
    """GitHub answers 401 for a repository that does not exist: a round not yet out."""
    server = served[0]
    server.faults["inference_results_v10.0"] = ["401"] * 8
    probe = source(served).probe("mlcommons/inference_results_v10.0")
    assert not probe.exists
    with pytest.raises(NotPublished, match="not published"):
        source(served).commit("mlcommons/inference_results_v10.0")


def test_the_probe_is_the_commit_and_an_unchanged_one_is_not_modified(served) -> None:
    commit = served[1]
    probe = source(served).probe("mlcommons/inference_results_v9.9")
    assert (probe.exists, probe.etag, probe.not_modified) == (True, commit, False)
    again = source(served).probe("mlcommons/inference_results_v9.9", etag=commit)
    assert again.not_modified


def test_a_file_is_read_at_the_commit_and_named_with_it(served) -> None:
    commit = served[1]
    git = source(served)
    fetched = git.fetch("mlcommons/inference_results_v9.9", "closed/A/systems/s.json")
    assert fetched.content == b'{"status": "x"}'
    assert fetched.url.endswith(
        f"/mlcommons/inference_results_v9.9.git@{commit}:closed/A/systems/s.json"
    )
    with pytest.raises(NotPublished, match="no such file at this commit"):
        git.fetch("mlcommons/inference_results_v9.9", "summary.json")


def test_the_listing_decides_what_a_round_has_and_the_disagreement_is_said(
    tmp_path: Path,
) -> None:
    """releases.toml expects a summary the repository lacks, and the reverse."""
    from pipeline.fetch import NOT_IN_SOURCE, fetch_release
    from pipeline.manifest import release_for
    from pipeline.snapshots import SnapshotStore
    from tests.conftest import MIRROR

    root = tmp_path / "srv" / "mlcommons"
    tree_only = tmp_path / "v5.0"
    (tree_only / "closed" / "A" / "systems").mkdir(parents=True)
    (tree_only / "closed" / "A" / "systems" / "s.json").write_text("{}")
    commit_folder(root / "inference_results_v5.0.git", tree_only, "no summary")
    with_summary = tmp_path / "v0.7"
    with_summary.mkdir()
    (with_summary / "summary.json").write_bytes(
        (MIRROR / "inference_results_v6.1" / "summary.json").read_bytes()
    )
    commit_folder(root / "inference_results_v0.7.git", with_summary, "a summary")
    store = SnapshotStore(tmp_path / "data")
    with GitServer(tmp_path / "srv") as server:
        git = GitSource(base=f"git+{server.url}", cache=tmp_path / "clones")
        missing = fetch_release(release_for("v5.0"), git, store)
        gained = fetch_release(release_for("v0.7"), git, store)
    assert missing.status == NOT_IN_SOURCE
    assert missing.disagreement == (
        f"releases.toml expects summary_results.json, but the source has no summary "
        f"file at {missing.commit[:12]}; rows come from the raw tree"
    )
    assert gained.status == "ingested"
    assert gained.snapshot.path == "summary.json"
    assert gained.disagreement == (
        "releases.toml lists no summary file, but the source has summary.json at "
        f"{gained.commit[:12]}: summary.json is read"
    )


def test_a_commit_already_read_costs_one_ls_remote_and_no_pack(served) -> None:
    from pipeline.fetch import fetch_raw_tree, fetch_release
    from pipeline.registry.releases import Release
    from pipeline.snapshots import SnapshotStore

    server, commit, tmp_path = served
    release = Release(
        version="v9.9",
        repository="mlcommons/inference_results_v9.9",
        summary_path="",
        summary_format=None,
        published_date=None,
        ingest=("raw_tree",),
    )
    store = SnapshotStore(tmp_path / "data")
    first = fetch_raw_tree(release, source(served), store)
    assert first.commit == commit
    fetch_release(release, source(served), store)
    packs, requests = server.packs(), len(server.requests)
    again = fetch_raw_tree(release, source(served), store)
    summary = fetch_release(release, source(served), store)
    assert server.packs() == packs  # nothing fetched: no trees, no files
    assert len(server.requests) - requests == 4  # two ls-remotes, 2 requests each
    assert (
        again.message == f"v9.9: raw tree unchanged at {commit[:12]} (nothing fetched)"
    )
    assert again.snapshot == first.snapshot
    assert again.files_read == first.files_read
    assert summary.message.startswith(f"v9.9: unchanged at {commit[:12]} (")
