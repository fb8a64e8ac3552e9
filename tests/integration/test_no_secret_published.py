"""Issue 56 A: credentials in the source URL never leave the machine.

A site built from an HTTP mirror given as ``http://reader:<password>@127.0.0.1:…``
sends the credentials to the server, and neither the published site, its downloads
and feed, the data folder's sidecars nor anything printed holds the password.
"""

from __future__ import annotations

import base64
import html
import shutil
from pathlib import Path

import pytest

from pipeline import runner
from pipeline.cli import main
from tests.httpserver import FaultyServer

PASSWORD = "hunter2-s3cret-Pw"


@pytest.fixture(scope="module")
def built(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    served = tmp_path_factory.mktemp("served")
    (served / "inference_results_v6.1").mkdir()
    shutil.copy(
        mirror / "inference_results_v6.1" / "summary.json",
        served / "inference_results_v6.1" / "summary.json",
    )
    work = tmp_path_factory.mktemp("work")
    with FaultyServer(served) as server, pytest.MonkeyPatch.context() as env:
        source = server.url.replace("http://", f"http://reader:{PASSWORD}@")
        env.setenv("MLPERF_SOURCE", source)
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        lines: list[str] = []
        outcomes = runner.ingest(
            runner.get_instance(), ["v6.1"], progress=lines.append, site=True
        )
        yield {
            "work": work,
            "lines": lines,
            "outcomes": outcomes,
            "server": server,
            "source": source,
        }


def test_the_credentials_are_sent_to_the_server(built: dict) -> None:
    assert all(o.success for o in built["outcomes"])
    sent = "Basic " + base64.b64encode(f"reader:{PASSWORD}".encode()).decode()
    assert sent in built["server"].authorizations


def test_no_password_in_the_site_downloads_feed_data_or_lines(built: dict) -> None:
    site = built["work"] / "build" / "site"
    assert (site / "generated" / "feed.xml").is_file()
    assert (site / "generated" / "downloads" / "snapshots.csv").is_file()
    everywhere = [built["work"] / "build", built["work"] / "data"]
    holding = [
        path
        for folder in everywhere
        for path in folder.rglob("*")
        if path.is_file() and PASSWORD.encode() in path.read_bytes()
    ]
    # The Dagster instance's event log is the machine's own record, not published;
    # it still holds no password (metadata carries the redacted source).
    assert holding == []
    assert not any(PASSWORD in line for line in built["lines"])


def test_the_read_from_note_keeps_the_user_and_masks_the_password(built: dict) -> None:
    site = built["work"] / "build" / "site"
    csv = (site / "generated" / "downloads" / "snapshots.csv").read_text()
    host = built["server"].url.removeprefix("http://")
    assert f"HTTP mirror: http://reader:***@{host}/inference_results_v6.1" in csv
    showing = sorted(
        str(page.relative_to(site))
        for page in site.rglob("*.html")
        if f"http://reader:***@{host}/" in html.unescape(page.read_text())
    )
    # Audit (a link's title) and the Releases index say where the round was read.
    assert showing == ["generated/audit.html", "generated/releases/index.html"]


def test_the_terminal_shows_the_source_without_its_password(
    built: dict, capfd: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLPERF_SOURCE", built["source"])
    monkeypatch.setenv("MLPERF_DATA_DIR", str(built["work"] / "data"))
    monkeypatch.setenv("DAGSTER_HOME", str(built["work"] / "data" / "dagster_home"))
    monkeypatch.setenv("MLPERF_BUILD_DIR", str(built["work"] / "build"))
    assert main(["ingest", "--release", "v6.1"]) == 0
    assert main(["status"]) == 0
    out, err = capfd.readouterr()
    host = built["server"].url.removeprefix("http://")
    assert f"source: http://reader:***@{host}\n" in out
    assert PASSWORD not in out + err


def test_a_site_url_with_credentials_is_refused(
    capfd: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MLPERF_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MLPERF_LEDGER_SITE_URL", f"https://me:{PASSWORD}@example.org/")
    assert main(["ingest", "--release", "v6.1"]) == 2
    out, err = capfd.readouterr()
    assert err == (
        "error: MLPERF_LEDGER_SITE_URL 'https://me:***@example.org/': a user name or "
        "password in the site's URL would be published on every page; give the "
        "public address without credentials\n"
    )
    assert PASSWORD not in out
