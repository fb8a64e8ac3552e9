"""The site served under a path, as GitHub Pages serves a project site.

The shared site (``built_site``) is served at ``SITE_PREFIX`` (``/sub/path/``) and
nothing is served at the root, with its site URL set to that address as the
publishing workflow sets it; so every page visit of test_page_checks_*.py already runs
there. This file checks what a project site's reader meets beyond one page: no
request leaves the path and none fails, styles and scripts load, search finds pages
and links into the path, every page names the feed relative to itself, and a missing
address gets a 404 page that works, with a site URL (Material's page, nav and
search) and without one (self-contained; it finds the site's root by itself).
"""

from __future__ import annotations

import contextlib
import json
import posixpath
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlparse

import polars as pl
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import BuiltSite
from tests.browser.pages import reach_charts, start_material
from tests.browser.server import SITE_PREFIX, serve

pytestmark = pytest.mark.browser

#: A page at the root, one two folders down, and one with charts (Vega, charts.js).
PAGES = (
    "index.html",
    "generated/releases/v5.1/llama2-70b-99.html",
    "generated/benchmarks/llama2-70b-99.html",
)
MISSING = "generated/releases/no-such-round/page.html"
FEED_LINK = re.compile(
    r'<link rel="alternate" type="application/atom\+xml" [^>]*href="([^"]+)"'
)
#: What proves Material's stylesheet and bundle and the site's own CSS are applied.
STYLED = """() => ({
  header: getComputedStyle(document.querySelector('.md-header')).position,
  ledger: [...document.styleSheets].some(s => (s.href || '').endsWith('/assets/css/ledger.css')
    && s.cssRules.length > 0),
  material: typeof window.document$ !== 'undefined',
})"""
STYLED_OK = {"header": "sticky", "ledger": True, "material": True}
#: Every stylesheet of the page and its rule count, to say what a failure saw.
SHEETS = """() => [...document.styleSheets].map(s => [s.href, s.ownerNode?.outerHTML,
  s.cssRules.length])"""


def _styled(page) -> tuple[dict, list]:  # noqa: ANN001
    """``STYLED`` once it reads ``STYLED_OK`` (a loaded machine applies a sheet a
    moment after ``load``), or as it stands after 20 s, with every stylesheet."""
    ok = json.dumps(json.dumps(STYLED_OK, separators=(",", ":")))
    with contextlib.suppress(PlaywrightTimeout):  # the caller's assertion says what
        page.wait_for_function(f"JSON.stringify(({STYLED})()) === {ok}", timeout=20_000)
    return page.evaluate(STYLED), page.evaluate(SHEETS)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (loopback)
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


class Recorder:
    """One browser tab that records every response and failed request it sees."""

    def __init__(self, browser) -> None:  # noqa: ANN001
        self.context = browser.new_context(
            viewport={"width": 1280, "height": 900}, service_workers="block"
        )
        self.responses: list[tuple[str, str, int]] = []
        self.failed: list[str] = []
        self.context.on(
            "response",
            lambda r: self.responses.append((r.request.method, r.url, r.status)),
        )
        # A load the next page's navigation cancelled (Material's search worker is
        # still starting when the test moves on) is not a failure to load from
        # under the path: Chromium reports it as net::ERR_ABORTED.
        self.context.on(
            "requestfailed",
            lambda r: r.failure == "net::ERR_ABORTED" or self.failed.append(r.url),
        )
        self.page = self.context.new_page()

    def paths(self) -> list[str]:
        return [urlparse(url).path for _, url, _ in self.responses]


@pytest.fixture
def recorder(chromium_browser) -> Iterator[Recorder]:  # noqa: ANN001
    tab = Recorder(chromium_browser)
    yield tab
    tab.context.close()


def test_the_site_is_served_under_a_path_and_not_at_its_root(
    built_site: BuiltSite,
) -> None:
    url = urlparse(built_site.url)
    assert url.path == SITE_PREFIX
    assert _status(built_site.url + "index.html") == 200
    # A root-absolute link or asset would fail: nothing is served outside the path.
    assert _status(f"{url.scheme}://{url.netloc}/index.html") == 404
    assert _status(f"{url.scheme}://{url.netloc}/assets/css/ledger.css") == 404


def test_pages_load_every_asset_from_under_the_path(
    built_site: BuiltSite, recorder: Recorder
) -> None:
    page = recorder.page
    for path in PAGES:
        page.goto(built_site.url + path, wait_until="load")
        reach_charts(page, timeout=20_000)
        start_material(page)  # the reader's first move (material.js)
        styled, sheets = _styled(page)
        assert styled == STYLED_OK, (path, sheets)
    charts = page.evaluate(
        "() => [...document.querySelectorAll('div.vega-chart')].map(e => e.dataset.state)"
    )
    assert charts and set(charts) == {"rendered"}
    assert recorder.failed == []
    assert [r for r in recorder.responses if r[2] >= 400] == []
    own = [p for p in recorder.paths() if not p.startswith(SITE_PREFIX)]
    assert own == []
    # Measured, not vacuous: the stylesheets, Material's bundle, the Vega bundle and
    # the search index were all among them.
    requested = set(recorder.paths())
    for asset in (
        "assets/css/ledger.css",
        "assets/js/charts.js",
        "generated/assets/js/vega-bundle.js",
        "search/search_index.json",
    ):
        assert SITE_PREFIX + asset in requested, asset


def _search(page, query: str) -> list[str]:  # noqa: ANN001 (playwright Page)
    """The result links Material's search lists for ``query`` on the open page.

    Typed once the search worker has read the index (Material says "Initializing
    search" until then).
    """
    page.locator(".md-search__input").click()
    page.wait_for_function(
        """() => { const meta = document.querySelector('.md-search-result__meta');
          return meta && meta.textContent && !/Initializing/.test(meta.textContent); }""",
        timeout=60_000,
    )
    # Typed key by key: Material reads the query on keyup, not on input events.
    page.locator(".md-search__input").press_sequentially(query)
    page.wait_for_selector(".md-search-result__link", timeout=30_000)
    return page.eval_on_selector_all(
        ".md-search-result__link", "links => links.map(a => a.href)"
    )


def test_search_finds_pages_and_links_under_the_path(
    built_site: BuiltSite, recorder: Recorder
) -> None:
    page = recorder.page
    page.goto(built_site.url + "generated/releases/v5.1.html", wait_until="load")
    links = _search(page, "llama2")
    assert links and all(link.startswith(built_site.url) for link in links)
    assert any("llama2-70b-99" in link for link in links)
    assert {_status(link.split("#")[0]) for link in links} == {200}


def test_every_page_names_the_feed_relative_to_itself(built_site: BuiltSite) -> None:
    pages = sorted(built_site.root.rglob("*.html"))
    assert len(pages) > 100
    for path in pages:
        rel = path.relative_to(built_site.root).as_posix()
        (href,) = FEED_LINK.findall(path.read_text(encoding="utf-8"))
        if rel == "404.html":  # served at any depth: absolute from the site URL
            assert href == SITE_PREFIX + "generated/feed.xml"
            continue
        assert "//" not in href and not href.startswith("/"), rel
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), href))
        assert target == "generated/feed.xml", rel
    with urllib.request.urlopen(built_site.url + "generated/feed.xml") as response:  # noqa: S310
        feed = response.read().decode()
    assert feed.startswith('<?xml version="1.0" encoding="utf-8"?>\n<feed ')
    # The feed's own links point into the path (the site URL includes it).
    assert f'href="{built_site.url}generated/feed.xml"' in feed


def test_a_missing_address_gets_a_working_404_page(
    built_site: BuiltSite, recorder: Recorder
) -> None:
    page = recorder.page
    response = page.goto(built_site.url + MISSING, wait_until="load")
    assert response.status == 404
    assert page.title() == "Page not found - mlperf-ledger"
    start_material(page)  # the reader's first move (material.js)
    styled, sheets = _styled(page)
    assert styled == STYLED_OK, sheets
    # Only the address itself is missing: every asset came from under the path.
    assert [r for r in recorder.responses if r[2] >= 400] == [
        ("GET", built_site.url + MISSING, 404)
    ]
    assert [p for p in recorder.paths() if not p.startswith(SITE_PREFIX)] == []
    links = page.eval_on_selector_all(
        "[data-ledger-links] a", "links => links.map(a => a.href)"
    )
    assert links[0] == built_site.url + "index.html" and len(links) == 4
    assert {_status(link) for link in links} == {200}
    assert page.locator("[data-ledger-links]").is_visible()
    # Material's nav and search work there too.
    nav = page.eval_on_selector_all(
        ".md-nav a[href]", "links => links.map(a => a.href)"
    )
    assert nav and all(link.startswith(built_site.url) for link in nav)
    assert all(link.startswith(built_site.url) for link in _search(page, "llama2"))


@pytest.fixture(scope="module")
def site_without_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A small site built without MLPERF_LEDGER_SITE_URL, served under the path.

    ``make site`` builds this way by default; a site copied under any path must
    still answer a missing address readably. Two results are enough: what is
    checked is the 404 page, which does not depend on the data.
    """
    from pipeline.publish import mkdocs_build, stage_project
    from pipeline.render.pages import render_site
    from pipeline.render.site_data import SNAPSHOT_SCHEMA, SiteData
    from pipeline.transform.results import empty_rejected
    from tests.unit.render.conftest import AMD_V51, AMD_V60, LINEAGE, frame, pairs

    root = tmp_path_factory.mktemp("no-site-url")
    project = stage_project(root / "project")
    data = SiteData(
        results=frame(AMD_V51, AMD_V60),
        rejected=empty_rejected(),
        gains=pairs(),
        generations=pairs(),
        scaling=pairs(),
        snapshots=pl.DataFrame(schema=SNAPSHOT_SCHEMA),
        lineage_mermaid=LINEAGE,
        pipeline_commit="0" * 40,
        built_at="2026-01-02T03:04:05+00:00",
    )
    render_site(data, project / "site" / "generated", bundle=False)
    ok, problems = mkdocs_build(project, root / "site", "")
    assert ok, problems
    with serve(root / "site", SITE_PREFIX) as url:
        yield url


def test_without_a_site_url_the_404_page_stands_alone_and_finds_the_site(
    site_without_url: str, recorder: Recorder
) -> None:
    url = site_without_url
    page = recorder.page
    response = page.goto(url + MISSING, wait_until="load")
    assert response.status == 404
    assert page.title() == "Page not found - mlperf-ledger"
    # Styled by itself: its only stylesheet is inline, so nothing can miss.
    header = page.evaluate(
        "() => getComputedStyle(document.querySelector('header')).backgroundColor"
    )
    assert header == "rgb(64, 81, 181)"
    assert (
        page.evaluate("() => document.querySelectorAll('link[rel=stylesheet]').length")
        == 0
    )
    # Its links show once its script found the site's root, and they work.
    page.locator("[data-ledger-links]").wait_for(state="visible", timeout=10_000)
    links = page.eval_on_selector_all(
        "[data-ledger-links] a", "links => links.map(a => a.href)"
    )
    assert links == [
        url + "index.html",
        url + "generated/latest.html",
        url + "generated/releases/index.html",
        url + "generated/explorer.html",
    ]
    assert {_status(link) for link in links} == {200}
    # What it asked for: the address, then the site's stylesheet, one folder up at a
    # time (deepest first) until found. Nothing outside the path, nothing else.
    probes = [(m, urlparse(u).path, s) for m, u, s in recorder.responses[1:]]
    marker = "assets/css/ledger.css"
    assert probes == [
        ("HEAD", SITE_PREFIX + "generated/releases/no-such-round/" + marker, 404),
        ("HEAD", SITE_PREFIX + "generated/releases/" + marker, 404),
        ("HEAD", SITE_PREFIX + "generated/" + marker, 404),
        ("HEAD", SITE_PREFIX + marker, 200),
    ]
