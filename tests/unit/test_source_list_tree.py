"""Source.list_tree: walking a local mirror, and GitHub's git trees API (mocked)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from pipeline.source import NotPublished, Source, SourceError

REPO = "inference_results_v9.9"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / REPO
    for path in (
        "summary_results.json",
        "closed/A/systems/s.json",
        "closed/A/results/s/resnet50/Offline/performance/run_1/mlperf_log_summary.txt",
        "open/B/systems/t.json",
        "tools/readme.md",
    ):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x")
    return tmp_path


def test_local_listing_keeps_only_the_division_folders(tree: Path) -> None:
    assert Source(base=str(tree)).list_tree(REPO) == [
        "closed/A/results/s/resnet50/Offline/performance/run_1/mlperf_log_summary.txt",
        "closed/A/systems/s.json",
        "open/B/systems/t.json",
    ]


def test_local_listing_of_links_folders_and_special_files(
    tree: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """One scandir pass lists what rglob listed: a link out by its name, a link to a
    file inside; never a link to a folder (nor below it), a dangling link or a FIFO."""
    import os

    root = tree / REPO
    outside = tmp_path_factory.mktemp("outside")  # not below the mirror (tree)
    (outside / "deep").mkdir()
    (outside / "secret.txt").write_text("s")
    (outside / "deep" / "more.txt").write_text("m")
    closed = root / "closed" / "A"
    (closed / "alias.json").symlink_to(closed / "systems" / "s.json")
    (closed / "out.txt").symlink_to(outside / "secret.txt")
    (closed / "out-folder").symlink_to(outside / "deep")
    (closed / "in-folder").symlink_to(closed / "systems")
    (closed / "dangling.json").symlink_to(closed / "missing.json")
    (closed / "empty").mkdir()
    os.mkfifo(closed / "pipe")
    assert Source(base=str(tree)).list_tree(REPO) == [
        "closed/A/alias.json",
        "closed/A/out-folder",
        "closed/A/out.txt",
        "closed/A/results/s/resnet50/Offline/performance/run_1/mlperf_log_summary.txt",
        "closed/A/systems/s.json",
        "open/B/systems/t.json",
    ]


def test_local_listing_honours_prefixes(tree: Path) -> None:
    assert Source(base=str(tree)).list_tree(REPO, prefixes=("open",)) == [
        "open/B/systems/t.json"
    ]


def test_local_missing_repository_is_not_published(tree: Path) -> None:
    with pytest.raises(NotPublished, match="not published"):
        Source(base=str(tree)).list_tree("inference_results_v0.1")


def github(listing: dict | None, status: int = 200) -> tuple[Source, list[str]]:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        body = json.dumps(listing).encode() if listing is not None else b""
        return httpx.Response(status, content=body)

    source = Source(
        base="https://raw.githubusercontent.com/mlcommons/{repo}/HEAD",
        transport=httpx.MockTransport(handler),
        sleep=lambda s: None,
    )
    return source, seen


def test_http_listing_uses_the_git_trees_api_and_keeps_blobs() -> None:
    source, seen = github(
        {
            "sha": "abc",
            "truncated": False,
            "tree": [
                {"path": "closed", "type": "tree"},
                {"path": "closed/A/systems/s.json", "type": "blob"},
                {"path": "open/B/systems/t.json", "type": "blob"},
                {"path": "summary_results.json", "type": "blob"},
                {"path": "closedish/x.json", "type": "blob"},
            ],
        }
    )
    paths = source.list_tree(REPO, api_base="http://127.0.0.1:9")
    assert paths == ["closed/A/systems/s.json", "open/B/systems/t.json"]
    assert seen == [
        f"http://127.0.0.1:9/repos/mlcommons/{REPO}/git/trees/HEAD?recursive=1"
    ]


def test_http_truncated_listing_is_refused() -> None:
    source, _ = github(
        {"truncated": True, "tree": [{"path": "closed/a", "type": "blob"}]}
    )
    with pytest.raises(SourceError) as info:
        source.list_tree(REPO)
    assert str(info.value) == (
        f"https://api.github.com/repos/mlcommons/{REPO}/git/trees/HEAD?recursive=1: "
        "GitHub truncated the listing (1 entries; it lists at most 100,000 entries "
        "or 7 MB); refusing an incomplete tree; read over git "
        "(MLPERF_SOURCE=git+https://github.com), which GitHub's REST limits do not "
        "apply to"
    )


def test_http_unknown_repository_is_not_published() -> None:
    source, _ = github(None, status=404)
    with pytest.raises(NotPublished, match=r"HTTP 404"):
        source.list_tree(REPO)


def test_http_listing_that_is_not_a_tree_is_an_error() -> None:
    source, _ = github({"message": "API rate limit exceeded"})
    with pytest.raises(SourceError, match=r"not a git trees listing \(KeyError"):
        source.list_tree(REPO)
