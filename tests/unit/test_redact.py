"""Issue 56 A: a URL's credentials are masked wherever a URL is kept or shown."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from pipeline.redact import redact_text, redact_url
from pipeline.settings import SettingError, check_source
from pipeline.source.common import Fetched, SourceError
from pipeline.transform.provenance import with_upstream


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("http://user:pass@host/x", "http://user:***@host/x"),
        ("git+http://u:p@127.0.0.1:9/m", "git+http://u:***@127.0.0.1:9/m"),
        ("https://ghp_TOKEN@github.com/a", "https://***@github.com/a"),
        ("http://:only@host", "http://:***@host"),
        ("http://host/a@b", "http://host/a@b"),  # an @ in the path is no user
        ("/mirror/folder", "/mirror/folder"),
        (
            "GET http://a:b@h/1 failed, then http://c:d@h/2",
            "GET http://a:***@h/1 failed, then http://c:***@h/2",
        ),
    ],
)
def test_redact(given: str, kept: str) -> None:
    assert redact_text(given) == kept
    assert redact_url(given) == kept


def test_what_a_source_returns_and_raises_holds_no_password() -> None:
    at = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    assert Fetched("http://u:pw@h/f", b"", at).url == "http://u:***@h/f"
    assert str(SourceError("http://u:pw@h/f: HTTP 500")) == "http://u:***@h/f: HTTP 500"


def test_a_refused_source_is_named_without_its_password() -> None:
    with pytest.raises(SettingError) as caught:
        check_source("MLPERF_SOURCE", "git+ftp://u:pw@host/x")
    assert str(caught.value) == (
        "MLPERF_SOURCE 'git+ftp://u:***@host/x': expected git+https://host[/path] "
        "(or git+http://, git+file://, git+ssh://)"
    )


def test_read_from_of_an_old_sidecar_is_redacted() -> None:
    snapshots = pl.DataFrame(
        {
            "release": ["v6.1", "v6.1"],
            "path": ["summary.json", "tree.json"],
            "sha256": ["0" * 64, "1" * 64],
            "url": [
                "http://u:pw@127.0.0.1:8/inference_results_v6.1/summary.json",
                "git+http://tok@127.0.0.1:9/mlcommons/inference_results_v6.1.git",
            ],
        }
    )
    shown = with_upstream(snapshots, commits={}, manifest=[])
    assert shown["read_from"].to_list() == [
        "HTTP mirror: http://u:***@127.0.0.1:8/inference_results_v6.1/summary.json",
        "git: http://***@127.0.0.1:9/mlcommons/inference_results_v6.1.git",
    ]
    assert "pw" not in shown.write_csv() and "tok" not in shown.write_csv()
