from pathlib import Path

import pytest

from pipeline.source import NotPublished, Source, SourceError
from tests.httpserver import FaultyServer

REPO = "inference_results_v9.9"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / REPO).mkdir()
    (tmp_path / REPO / "summary.json").write_bytes(b'{"0": {"Organization": "X"}}')
    return tmp_path


@pytest.fixture
def server(tree: Path):
    with FaultyServer(tree) as srv:
        yield srv


def http_source(server: FaultyServer, **kwargs) -> Source:
    kwargs.setdefault("sleep", lambda s: None)
    return Source(base=server.url, **kwargs)


def test_local_folder_reads_the_mirror_layout(tree: Path) -> None:
    fetched = Source(base=str(tree)).fetch(REPO, "summary.json")
    assert fetched.content == b'{"0": {"Organization": "X"}}'
    assert fetched.url == str(tree / REPO / "summary.json")


def test_local_missing_file_is_not_published(tree: Path) -> None:
    with pytest.raises(NotPublished, match=r"summary_results\.json: not published"):
        Source(base=str(tree)).fetch(REPO, "summary_results.json")


def test_repo_placeholder_builds_upstream_style_urls() -> None:
    source = Source(base="https://raw.githubusercontent.com/mlcommons/{repo}/HEAD")
    assert (
        source.url_for("inference_results_v6.1", "summary.json")
        == "https://raw.githubusercontent.com/mlcommons/inference_results_v6.1/HEAD/summary.json"
    )


def test_http_500_then_success_is_retried(server: FaultyServer) -> None:
    server.faults["/" + REPO + "/summary.json"] = ["500", "500"]
    waits: list[float] = []
    fetched = http_source(server, sleep=waits.append).fetch(REPO, "summary.json")
    assert fetched.content.startswith(b'{"0"')
    assert server.gets("summary.json") == 3
    assert waits == [0.5, 1.0]  # exponential backoff between the attempts


def test_http_404_is_not_published_and_not_retried(server: FaultyServer) -> None:
    with pytest.raises(NotPublished) as info:
        http_source(server).fetch(REPO, "nope.json")
    assert str(info.value) == f"{server.url}/{REPO}/nope.json: not published (HTTP 404)"
    assert server.gets("nope.json") == 1


def test_http_persistent_500_names_url_and_status(server: FaultyServer) -> None:
    server.faults["/" + REPO + "/summary.json"] = ["500"] * 4
    with pytest.raises(SourceError) as info:
        http_source(server, retries=3).fetch(REPO, "summary.json")
    assert str(info.value) == (
        f"{server.url}/{REPO}/summary.json: gave up after 4 attempts; last: HTTP 500"
    )


def test_http_truncated_body_is_an_error_not_data(server: FaultyServer) -> None:
    server.faults["/" + REPO + "/summary.json"] = ["truncate"] * 2
    with pytest.raises(SourceError, match=r"gave up after 2 attempts; last: truncated"):
        http_source(server, retries=1).fetch(REPO, "summary.json")


def test_http_hanging_response_times_out(server: FaultyServer) -> None:
    server.hang_s = 1.0
    server.faults["/" + REPO + "/summary.json"] = ["hang"]
    with pytest.raises(SourceError) as info:
        http_source(server, timeout_s=0.2, retries=0).fetch(REPO, "summary.json")
    assert str(info.value).endswith(
        "gave up after 1 attempts; last: timed out after 0.2 s"
    )


def test_http_size_cap(server: FaultyServer) -> None:
    with pytest.raises(SourceError, match=r"exceeds the cap of 10"):
        http_source(server, max_bytes=10).fetch(REPO, "summary.json")


def test_probe_uses_conditional_requests(server: FaultyServer) -> None:
    source = http_source(server)
    first = source.probe(REPO, "summary.json")
    assert first.exists and first.etag and not first.not_modified
    again = source.probe(REPO, "summary.json", etag=first.etag)
    assert again.not_modified
    assert not source.probe(REPO, "missing.json").exists
    assert server.gets("summary.json") == 0  # probing never downloads the body
