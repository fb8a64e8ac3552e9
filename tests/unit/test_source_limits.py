"""The HTTP path within GitHub's limits: rate limits, the token, what is not refetched."""

from __future__ import annotations

import json

import httpx
import pytest

from pipeline.source import Source, SourceError

RAW = "https://raw.githubusercontent.com/mlcommons/{repo}/HEAD"
URL = "https://raw.githubusercontent.com/mlcommons/inference_results_v6.1/HEAD/summary.json"


def scripted(replies: list[httpx.Response], **kwargs) -> tuple[Source, list, list]:
    """A source whose server answers ``replies`` in turn; what it sent and slept."""
    sent: list[httpx.Request] = []
    slept: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return replies.pop(0)

    source = Source(
        base=kwargs.pop("base", RAW),
        transport=httpx.MockTransport(handler),
        sleep=slept.append,
        **kwargs,
    )
    return source, sent, slept


def test_429_waits_as_retry_after_says_then_succeeds() -> None:
    source, sent, slept = scripted(
        [
            httpx.Response(429, headers={"Retry-After": "7"}),
            httpx.Response(200, content=b"{}"),
        ]
    )
    assert source.fetch("inference_results_v6.1", "summary.json").content == b"{}"
    assert slept == [7.0]
    assert len(sent) == 2


def test_403_with_exhausted_quota_waits_until_the_reset(monkeypatch) -> None:
    monkeypatch.setattr("time.time", lambda: 1_000_000.0)
    source, sent, slept = scripted(
        [
            httpx.Response(
                403,
                headers={
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": "1000012",
                },
            ),
            httpx.Response(200, content=b"ok"),
        ]
    )
    assert source.fetch("inference_results_v6.1", "summary.json").content == b"ok"
    assert slept == [12.0]


def test_a_wait_past_the_deadline_fails_saying_when_and_how_to_lift_it(
    monkeypatch,
) -> None:
    monkeypatch.setattr("time.time", lambda: 1_780_000_000.0)  # 2026-05-28 20:26:40
    source, sent, slept = scripted(
        [httpx.Response(429, headers={"Retry-After": "3600"})], deadline_s=60
    )
    with pytest.raises(SourceError) as info:
        source.fetch("inference_results_v6.1", "summary.json")
    assert str(info.value) == (
        f"{URL}: rate limited (HTTP 429); retry after 2026-05-28 21:26:40 UTC "
        "(in 3600 s, past the deadline of 60 s); set GITHUB_TOKEN, or read over git "
        "(MLPERF_SOURCE=git+https://github.com), which GitHub's REST limits do not "
        "apply to"
    )
    assert slept == [] and len(sent) == 1


def test_retry_after_as_an_http_date(monkeypatch) -> None:
    monkeypatch.setattr("time.time", lambda: 1_780_000_000.0)
    source, _, slept = scripted(
        [
            httpx.Response(
                429, headers={"Retry-After": "Thu, 28 May 2026 20:26:45 GMT"}
            ),
            httpx.Response(200, content=b"ok"),
        ]
    )
    source.fetch("inference_results_v6.1", "summary.json")
    assert slept == [5.0]


def test_plain_403_is_an_error_not_a_wait() -> None:
    source, sent, slept = scripted([httpx.Response(403)])
    with pytest.raises(SourceError, match=r"summary.json: HTTP 403$"):
        source.fetch("inference_results_v6.1", "summary.json")
    assert slept == [] and len(sent) == 1


def test_token_goes_to_github_hosts_only(monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "s3cret")
    github, sent, _ = scripted([httpx.Response(200, content=b"x")])
    github.fetch("inference_results_v6.1", "summary.json")
    assert sent[0].headers["Authorization"] == "Bearer s3cret"
    mirror, sent, _ = scripted(
        [httpx.Response(200, content=b"x")], base="https://mirror.example/{repo}"
    )
    mirror.fetch("inference_results_v6.1", "summary.json")
    assert "Authorization" not in sent[0].headers
    plain, sent, _ = scripted(
        [httpx.Response(200, content=b"x")],
        base="http://raw.githubusercontent.com/mlcommons/{repo}/HEAD",
    )
    plain.fetch("inference_results_v6.1", "summary.json")
    assert "Authorization" not in sent[0].headers  # never over plain HTTP


def test_a_stored_version_is_not_downloaded_again() -> None:
    source, sent, _ = scripted([httpx.Response(304)])
    fetched = source.fetch(
        "inference_results_v6.1", "summary.json", etag='"abc"', last_modified=None
    )
    assert fetched.not_modified and fetched.content == b""
    assert sent[0].headers["If-None-Match"] == '"abc"'


def test_listing_keeps_blob_ids_and_the_owner_of_the_repository() -> None:
    tree = {
        "truncated": False,
        "tree": [
            {"path": "closed/A/systems/s.json", "type": "blob", "sha": "a" * 40},
            {"path": "closed/A", "type": "tree", "sha": "b" * 40},
            {"path": "code/x.py", "type": "blob", "sha": "c" * 40},
        ],
    }
    source, sent, _ = scripted([httpx.Response(200, content=json.dumps(tree).encode())])
    listing = source.listing("someone/inference_results_v6.1")
    assert listing.paths == ["closed/A/systems/s.json"]
    assert listing.oids == {"closed/A/systems/s.json": "a" * 40}
    assert str(sent[0].url) == (
        "https://api.github.com/repos/someone/inference_results_v6.1/git/trees/HEAD"
        "?recursive=1"
    )
