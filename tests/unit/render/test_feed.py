"""The Atom feed: one entry per round, one per upstream correction, valid and inert.

Corrections are the real ones: the mirror's v6.1 summary against the later one
upstream published (``../shared/mlperf-mirror-alt``), diffed by the pipeline's own
``diff_snapshots``. The feed is read back with a real feed parser (feedparser) and,
for the elements RFC 4287 requires, with a strict XML parser.
"""

from __future__ import annotations

import dataclasses
import hashlib
import xml.etree.ElementTree as ET
from pathlib import Path

import feedparser
import polars as pl
import pytest

from pipeline.render import feed
from pipeline.render.feed import FEED
from pipeline.render.pages import render_only, render_site
from pipeline.render.site_data import ROUNDS_SCHEMA, SiteData
from pipeline.transform.corrections import CORRECTIONS_SCHEMA, diff_snapshots
from tests.conftest import MIRROR, MIRROR_ALT
from tests.unit.render.conftest import EVIL, frame, result

#: Renders sites and reads the mirror: left out of test-fast.
pytestmark = pytest.mark.slow

ATOM = "{http://www.w3.org/2005/Atom}"
ROUND = "inference_results_v6.1/summary.json"
SEEN = "2026-09-20T08:30:00.123456+00:00"
SITE_URL = "https://ledger.example/mlperf/"
V61 = result(
    release="v6.1",
    result_key="6.1-0001:llama2-70b-99:Offline",
    result_id="6.1-0001",
    result_url="https://github.com/mlcommons/inference_results_v6.1/tree/main/x",
)


@pytest.fixture(scope="module")
def corrections() -> pl.DataFrame:
    old, new = (MIRROR / ROUND).read_bytes(), (MIRROR_ALT / ROUND).read_bytes()
    return diff_snapshots(
        old,
        new,
        release="v6.1",
        repository="mlcommons/inference_results_v6.1",
        path="summary.json",
        old_sha256=hashlib.sha256(old).hexdigest(),
        new_sha256=hashlib.sha256(new).hexdigest(),
        seen_at=SEEN,
    )


@pytest.fixture(scope="module")
def data(site_data: SiteData, corrections: pl.DataFrame) -> SiteData:
    rounds = pl.DataFrame(
        [
            {
                "release": "v6.0",
                "repository": "mlcommons/inference_results_v6.0",
                "commit": "0123abcd",
                # Upstream's commit after the round's publication day: the newer date.
                "commit_date": "2026-04-02T10:00:00-07:00",
            }
        ],
        schema=ROUNDS_SCHEMA,
    )
    return dataclasses.replace(
        site_data,
        results=pl.concat([site_data.results, frame(V61)]),
        corrections=corrections,
        rounds=rounds,
    )


def _feed(data: SiteData, folder: Path) -> str:
    """The feed as the site build writes it (every page rendered)."""
    written = render_site(data, folder / "generated", bundle=False)
    assert folder / "generated" / FEED in written
    return (folder / "generated" / FEED).read_text(encoding="utf-8")


def _feed_only(data: SiteData, folder: Path) -> str:
    """The feed alone, from the model every page reads (faster)."""
    render_only(data, folder / "generated", [feed])
    return (folder / "generated" / FEED).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def feed_text(data: SiteData, tmp_path_factory: pytest.TempPathFactory) -> str:
    with pytest.MonkeyPatch.context() as env:
        env.delenv("MLPERF_LEDGER_SITE_URL", raising=False)
        return _feed(data, tmp_path_factory.mktemp("feed"))


@pytest.fixture(scope="module")
def parsed(feed_text: str) -> feedparser.FeedParserDict:
    return feedparser.parse(
        feed_text,
        response_headers={
            "content-location": SITE_URL + "generated/feed.xml",
            "content-type": "application/atom+xml",
        },
    )


XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"


def test_the_feed_is_valid_atom(parsed: feedparser.FeedParserDict) -> None:
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert parsed.feed.id.startswith("urn:uuid:")
    assert parsed.feed.title.startswith("mlperf-ledger")
    assert parsed.feed.author == "mlperf-ledger"
    links = {link.rel: link.href for link in parsed.feed.links}
    assert links == {
        "self": SITE_URL + "generated/feed.xml",
        "alternate": SITE_URL + "index.html",
    }


def test_required_elements_per_rfc_4287(feed_text: str) -> None:
    root = ET.fromstring(feed_text.encode())
    assert root.tag == ATOM + "feed"
    for name in ("id", "title", "updated", "author"):
        assert root.find(ATOM + name) is not None, name
    entries = root.findall(ATOM + "entry")
    ids = [e.findtext(ATOM + "id") for e in entries]
    assert len(set(ids)) == len(ids) == 4
    for entry in entries:
        for name in ("id", "title", "updated", "content"):
            assert (entry.findtext(ATOM + name) or "").strip(), name
        rels = [link.get("rel") for link in entry.findall(ATOM + "link")]
        assert "alternate" in rels
    # The feed's date is its newest entry's.
    assert root.findtext(ATOM + "updated") == max(
        e.findtext(ATOM + "updated") for e in entries
    )


def test_one_entry_per_round_dated_from_the_data(
    parsed: feedparser.FeedParserDict,
) -> None:
    rounds = {e.title: e for e in parsed.entries if e.title.endswith(" published")}
    assert sorted(rounds) == [
        f"MLPerf Inference {r} published" for r in ("v5.1", "v6.0", "v6.1")
    ]
    v51 = rounds["MLPerf Inference v5.1 published"]
    # releases.toml's publication date, not the build's clock (built_at is 2026-01).
    assert v51.published == v51.updated == "2025-09-09T00:00:00Z"
    assert v51.link == SITE_URL + "generated/releases/v5.1.html"
    assert "4 results from 3 submitters in 2 benchmarks" in v51.summary
    v60 = rounds["MLPerf Inference v6.0 published"]
    assert v60.published == "2026-03-26T00:00:00Z"
    assert v60.updated == "2026-04-02T17:00:00Z"  # the round's commit, in UTC
    assert "inference_results_v6.0/tree/0123abcd" in v60.summary
    # releases.toml gives v6.1's day as approximate: no exact instant, said in words.
    v61 = rounds["MLPerf Inference v6.1 published"]
    assert "published" not in v61
    assert "MLPerf Inference v6.1 on 2026-09-01 (approximate):" in v61.summary


def test_a_correction_entry_says_what_changed_and_links_changes_and_release(
    parsed: feedparser.FeedParserDict, corrections: pl.DataFrame
) -> None:
    (entry,) = [e for e in parsed.entries if "corrected upstream" in e.title]
    assert entry.title == "MLPerf Inference v6.1 corrected upstream: 6 results changed"
    assert entry.updated == "2026-09-20T08:30:00Z"  # when the pipeline saw it
    links = {link.rel: link.href for link in entry.links}
    assert links == {
        "alternate": SITE_URL + "generated/changes.html#changes-v6-1",
        "related": SITE_URL + "generated/releases/v6.1.html",
    }
    assert corrections.height == 18
    assert "6 results changed in 18 field changes, 0 added, 0 removed" in entry.summary
    # The real correction: "Vera Rubin" became "VeraRubin" in the system names.
    assert "Vera Rubin" in entry.summary and "VeraRubin" in entry.summary
    assert "and 8 more" in entry.summary
    # Newest first: the correction is the latest event.
    assert parsed.entries[0] is entry


def test_without_a_site_url_links_are_relative_to_the_feed(feed_text: str) -> None:
    assert "ledger.example" not in feed_text and "127.0.0.1" not in feed_text
    root = ET.fromstring(feed_text.encode())
    hrefs = [link.get("href") for link in root.iter(ATOM + "link")]
    assert "releases/v5.1.html" in hrefs and "../index.html" in hrefs
    assert "changes.html#changes-v6-1" in hrefs
    # No base to name: the feed says its links are relative to its own address.
    assert XML_BASE not in root.attrib
    assert "every link is relative to this feed's own address" in feed_text


def test_with_a_site_url_links_are_absolute(
    data: SiteData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLPERF_LEDGER_SITE_URL", SITE_URL)
    parsed = feedparser.parse(_feed_only(data, tmp_path))
    assert parsed.bozo == 0
    hrefs = {link.href for e in parsed.entries for link in e.links}
    assert SITE_URL + "generated/releases/v6.1.html" in hrefs
    assert all(h.startswith(SITE_URL) for h in hrefs)
    (self_link,) = [link.href for link in parsed.feed.links if link.rel == "self"]
    assert self_link == SITE_URL + "generated/feed.xml"
    (entry,) = [e for e in parsed.entries if "corrected" in e.title]
    assert f'href="{SITE_URL}generated/changes.html#changes-v6-1"' in entry.summary
    # xml:base names the folder of the links, for readers showing entries alone.
    root = ET.fromstring(_feed_only(data, tmp_path).encode())
    assert root.get(XML_BASE) == SITE_URL + "generated/"


def test_identical_inputs_give_identical_bytes_whatever_the_clock(
    data: SiteData, feed_text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MLPERF_LEDGER_SITE_URL", raising=False)
    later = dataclasses.replace(data, built_at="2030-12-31T23:59:59+00:00")
    assert _feed(later, tmp_path) == feed_text


def test_hostile_correction_values_stay_text(
    data: SiteData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MLPERF_LEDGER_SITE_URL", raising=False)
    hostile = pl.DataFrame(
        [
            {
                "release": "v6.1",
                "result_key": "key\x00\x1b</content><script>alert(1)</script>",
                "change": "changed",
                "field": "SystemName]]>",
                "old_value": EVIL,
                "new_value": '"><img src=x onerror=alert(2)>',
                "old_sha256": "a" * 64,
                "new_sha256": "b" * 64,
                "seen_at": "2026-10-01T00:00:00+00:00",
                "result_url": "javascript:alert(3)",
            }
        ],
        schema=CORRECTIONS_SCHEMA,
    )
    text = _feed_only(dataclasses.replace(data, corrections=hostile), tmp_path)
    root = ET.fromstring(text.encode())  # well-formed: no NUL or ESC left
    (entry,) = [
        e
        for e in root.findall(ATOM + "entry")
        if "corrected" in e.findtext(ATOM + "title")
    ]
    html = entry.findtext(ATOM + "content")
    assert "<script" not in html and "<img" not in html and "javascript:" not in html
    assert "&lt;script&gt;" in html and "\ufffd" in html
    parsed = feedparser.parse(text)
    assert parsed.bozo == 0
    assert "<script" not in parsed.entries[0].summary


def test_an_empty_sitemap_sits_next_to_the_feed(
    data: SiteData, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Material fetches sitemap.xml next to every <link rel="alternate">: without
    # this file every page load requested a missing generated/sitemap.xml.
    monkeypatch.setenv("MLPERF_LEDGER_SITE_URL", SITE_URL)
    _feed_only(data, tmp_path)
    stub = ET.parse(tmp_path / "generated" / "sitemap.xml").getroot()
    assert stub.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}urlset"
    assert list(stub) == []  # names no page, with or without a site URL
