"""The Explorer page in headless Chromium at 1440 and 390 px, on the real mirror.

The page and its data file are rendered by ``pipeline.render.explorer`` from the
canonical table of the four mirrored summary rounds plus one hostile row, built by
MkDocs with the site's theme (Material, instant navigation) into a folder served by
``http.server`` on 127.0.0.1, and driven with Debian's Chromium (tests/browser/
conftest.py). Building only this page keeps the test well under a minute and lets it
feed the widget rows the pipeline never writes (a ``javascript:`` result URL, a
formula-leading system name); test_site.py visits the page in the full site.
"""

from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import polars as pl
import pytest

from pipeline.render.explorer import DATA_FILE, PAGE, explorer_files
from pipeline.render.vendor import TABULATOR
from tests.browser.conftest import SCREENSHOTS
from tests.browser.pages import EXPLORER_SETTLED
from tests.browser.server import serve
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

URL_PATH = PAGE.replace(".md", ".html")
PAGE_HTML_BUDGET = 300_000

FORMULA_SYSTEM = '=HYPERLINK("https://evil.example/","click")'
EVIL_SUBMITTER = "Evil <img src=x onerror=alert(2)>"
EVIL_KEY = "v6.0:closed/Evil/evil-platform/llama2-70b-99/Offline"
EVIL_ACCURACY = "<img src=y onerror=alert(3)>  ROUGE1: [x](javascript:alert(4))"
#: A v6.1 open-division result and the accuracy its summary publishes (a bare score).
KRAI_QWEN = "v6.1:open/Krai/h200/qwen3-vl-235b-a22b/Offline"
KRAI_QWEN_ACCURACY = "0.7878368975913989"
#: Fields the search box reads (the script's SEARCHED, minus the derived label, which
#: equals ``accelerator_name`` without the analysis module's identities).
SEARCHED = (
    "release", "benchmark", "scenario", "result_unit", "submitter", "system_name",
    "platform", "division", "category", "availability", "accelerator_name",
    "host_cpu_name", "software", "result_key",
)  # fmt: skip


@dataclass(frozen=True)
class ExplorerSite:
    root: Path
    url: str
    results: pl.DataFrame


def _results(mirror_results: pl.DataFrame) -> pl.DataFrame:
    """The real rows plus one hostile v6.0 llama2-70b-99 Offline row."""
    template = mirror_results.filter(
        pl.col("release") == "v6.0",
        pl.col("benchmark") == "llama2-70b-99",
        pl.col("scenario") == "Offline",
    ).head(1)
    evil = template.with_columns(
        system_name=pl.lit(FORMULA_SYSTEM),
        submitter=pl.lit(EVIL_SUBMITTER),
        software=pl.lit("@SUM(1+1)"),
        result_key=pl.lit(EVIL_KEY),
        result_url=pl.lit("javascript:alert(1)"),
        result_value=pl.lit(1.5),
        accuracy_upstream=pl.lit(EVIL_ACCURACY),
    )
    return pl.concat([mirror_results, evil])


def _mkdocs_build(docs: Path, site: Path, url: str) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = docs.parent / "mkdocs.yml"
    config.write_text(
        f"site_name: explorer test\nsite_url: {url}\ndocs_dir: {docs}\n"
        f"site_dir: {site}\nuse_directory_urls: false\nstrict: true\n"
        "theme:\n  name: material\n  font: false\n"
        "  features: [navigation.instant]\n"
        # material.js and text.js first, as mkdocs.yml has them: the Explorer runs
        # through ledgerOnPage and shows text through text.js. No hook here: Material
        # loads its bundle as usual and ledgerOnPage follows its document$.
        "extra_javascript: [{path: assets/js/material.js, defer: true}, "
        "{path: assets/js/text.js, defer: true}, "
        "{path: assets/js/explorer.js, defer: true}]\n"
        f"nav:\n  - Home: index.md\n  - Explorer: generated/{PAGE}\n"
        "markdown_extensions: [tables, attr_list]\n"
    )
    build(load_config(str(config)))


@pytest.fixture(scope="module")
def explorer_site(
    tmp_path_factory: pytest.TempPathFactory, mirror_results: pl.DataFrame
) -> Iterator[ExplorerSite]:
    work = tmp_path_factory.mktemp("explorer")
    docs, site = work / "docs", work / "site"
    for rel in (
        "assets/js/material.js",
        "assets/js/text.js",
        "assets/js/explorer.js",
        "assets/css/explorer.css",
        f"assets/vendor/{TABULATOR.name}",
    ):
        source, target = ROOT / "site" / rel, docs / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
    (docs / "index.md").write_text("# Home\n\n[Explorer](generated/explorer.md)\n")
    (docs / "generated" / "data.md").parent.mkdir(parents=True)
    (docs / "generated" / "data.md").write_text("# Data\n")
    # The Explorer links each system's description on the Systems page.
    (docs / "generated" / "systems.md").write_text("# Systems\n")
    (docs / "generated" / "audit.md").write_text("# Audit\n")
    # The coverage sentence links the Releases index.
    (docs / "generated" / "releases").mkdir()
    (docs / "generated" / "releases" / "index.md").write_text("# Releases\n")
    results = _results(mirror_results)
    text, data = explorer_files(results)
    (docs / "generated" / DATA_FILE).parent.mkdir(parents=True, exist_ok=True)
    (docs / "generated" / DATA_FILE).write_bytes(data)
    (docs / "generated" / PAGE).write_text(text, encoding="utf-8")
    site.mkdir()
    with serve(site) as url:
        _mkdocs_build(docs, site, url)
        yield ExplorerSite(root=site, url=url, results=results)


@dataclass
class Browser:
    browser: object
    dialogs: list[str]
    hosts: set[str]
    errors: list[str]

    def page(self, width: int):  # noqa: ANN201 (playwright Page)
        context = self.browser.new_context(  # type: ignore[attr-defined]
            viewport={"width": width, "height": 900 if width > 500 else 844},
            is_mobile=width < 500,
            service_workers="block",
            accept_downloads=True,
        )
        page = context.new_page()
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: self.hosts.add(urlparse(r.url).netloc))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" else None,
        )
        return page


@pytest.fixture(scope="module")
def chromium(chromium_browser: object) -> Browser:
    """The shared Chromium, with what this module's pages did recorded."""
    return Browser(browser=chromium_browser, dialogs=[], hosts=set(), errors=[])


def _open(page, url: str) -> None:  # noqa: ANN001
    page.goto(url, wait_until="load")
    page.wait_for_function(EXPLORER_SETTLED, timeout=20_000)
    if page.locator("#ledger-explorer").get_attribute("data-state") == "static":
        page.locator("#ledger-explorer [data-action=load]").click()
    page.wait_for_function(
        "() => ['ready', 'failed'].includes("
        "document.getElementById('ledger-explorer').dataset.state)",
        timeout=20_000,
    )
    assert page.locator("#ledger-explorer").get_attribute("data-state") == "ready", (
        page.locator(".ledger-explorer__status").inner_text()
    )


def _matching(page) -> int:  # noqa: ANN001
    return int(page.locator("#ledger-explorer").get_attribute("data-matching"))


def _wait_matching(page, count: int) -> None:  # noqa: ANN001
    page.wait_for_function(
        f"() => document.getElementById('ledger-explorer').dataset.matching === '{count}'",
        timeout=10_000,
    )


def _column(page, field: str) -> list[str]:  # noqa: ANN001
    return page.locator(
        f'.tabulator-row .tabulator-cell[tabulator-field="{field}"]'
    ).all_inner_texts()


def _visible_keys(page) -> list[str]:  # noqa: ANN001
    return page.evaluate(
        "() => document.getElementById('ledger-explorer').__table"
        ".getRows('visible').map(r => r.getData().result_key)"
    )


def _v60_llama(results: pl.DataFrame) -> pl.DataFrame:
    return results.filter(
        pl.col("release") == "v6.0", pl.col("benchmark") == "llama2-70b-99"
    )


@pytest.mark.parametrize("width", [1440, 390])
def test_filter_by_round_and_benchmark(
    explorer_site: ExplorerSite, chromium: Browser, width: int
) -> None:
    page = chromium.page(width)
    _open(page, explorer_site.url + "generated/" + URL_PATH)
    total = explorer_site.results.height
    assert total == 3398
    assert _matching(page) == total
    expected = _v60_llama(explorer_site.results)
    assert expected.height == 102  # 101 real results + the hostile row
    page.select_option('select[name="release"]', "v6.0")
    page.select_option('select[name="benchmark"]', "llama2-70b-99")
    _wait_matching(page, 102)
    assert page.locator(".ledger-explorer__status").inner_text() == (
        "102 of 3,398 results match."
    )
    assert set(_column(page, "release")) == {"v6.0"}
    assert set(_column(page, "benchmark")) == {"llama2-70b-99"}
    assert len(_column(page, "release")) == 25  # first page of 25
    query = parse_qs(urlparse(page.url).query)
    assert query == {"release": ["v6.0"], "benchmark": ["llama2-70b-99"]}
    # The value column is on screen (at 390 px too: it is frozen on the left).
    cell = page.locator(
        '.tabulator-row .tabulator-cell[tabulator-field="result_value"]'
    ).first
    # To the middle of the screen: scrolled only just into view, it sat under
    # Material's sticky header.
    cell.evaluate("el => el.scrollIntoView({block: 'center'})")
    # On a phone the first scroll makes Tabulator lay its columns out once more
    # (the rows are redrawn for a moment): measured once that is done.
    from playwright.sync_api import expect

    expect(cell).to_be_in_viewport(ratio=1)
    box = cell.bounding_box()
    assert box is not None and box["width"] > 40
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    # Nothing covers it: the element at its centre is the cell or inside it.
    assert cell.evaluate(
        """el => { const r = el.getBoundingClientRect();
          return el.contains(document.elementFromPoint(r.x + r.width / 2,
                                                       r.y + r.height / 2)); }"""
    )
    assert (
        cell.locator("a").first.inner_text().replace(",", "").replace(".", "").isdigit()
    )
    page.screenshot(path=SCREENSHOTS / f"explorer-{width}.png")
    page.context.close()


def test_text_search_matches_every_field(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    page = chromium.page(1440)
    _open(page, explorer_site.url + "generated/" + URL_PATH)
    page.fill('input[name="find"]', "mi300x  Server")
    words = ("mi300x", "server")
    text = pl.concat_str(
        [pl.col(c).fill_null("") for c in SEARCHED], separator=" "
    ).str.to_lowercase()
    expected = explorer_site.results.filter(
        pl.all_horizontal(text.str.contains(w, literal=True) for w in words)
    )
    assert 0 < expected.height < 200
    _wait_matching(page, expected.height)
    assert parse_qs(urlparse(page.url).query) == {"find": ["mi300x  Server"]}
    assert set(_column(page, "scenario")) == {"Server"}
    page.context.close()


def test_sort_by_value_and_url_round_trip(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    page = chromium.page(1440)
    _open(page, explorer_site.url + "generated/" + URL_PATH)
    page.select_option('select[name="release"]', "v6.0")
    page.select_option('select[name="benchmark"]', "llama2-70b-99")
    page.select_option('select[name="scenario"]', "Offline")
    _wait_matching(page, 43)
    header = page.locator('.tabulator-col[tabulator-field="result_value"]')
    header.click()  # ascending
    header.click()  # descending
    page.wait_for_url("**sort=result_value%3Adesc**")
    first = page.locator(
        '.tabulator-row .tabulator-cell[tabulator-field="result_value"] a'
    ).first
    # NVIDIA's GB300 NVL72 leads v6.0 llama2-70b-99 Offline.
    assert first.inner_text() == "1,126,850"
    assert first.get_attribute("href") == (
        "https://github.com/mlcommons/inference_results_v6.0/tree/ab33b21/closed/NVIDIA/"
        "results/GB300-NVL72_GB300-288GB_aarch64x72_TRT/llama2-70b-99/Offline"
    )
    # Then every scenario again, searched for NVIDIA, on the second page.
    page.select_option('select[name="scenario"]', "")
    page.fill('input[name="find"]', "nvidia")
    text = pl.concat_str(
        [pl.col(c).fill_null("") for c in SEARCHED], separator=" "
    ).str.to_lowercase()
    expected_nvidia = (
        _v60_llama(explorer_site.results)
        .filter(text.str.contains("nvidia", literal=True))
        .height
    )
    assert expected_nvidia > 25
    _wait_matching(page, expected_nvidia)
    page.locator(".tabulator-page[data-page='2']").click()
    page.wait_for_url("**page=2**")
    keys = _visible_keys(page)
    values = [
        float(v.split()[0].replace(",", "")) for v in _column(page, "result_value")
    ]
    assert values == sorted(values, reverse=True)
    shared = page.url
    assert parse_qs(urlparse(shared).query) == {
        "release": ["v6.0"],
        "benchmark": ["llama2-70b-99"],
        "find": ["nvidia"],
        "sort": ["result_value:desc"],
        "page": ["2"],
    }
    page.context.close()
    # A reader opening the shared link sees the same rows, form and sort.
    other = chromium.page(390)
    _open(other, shared)
    assert _matching(other) == expected_nvidia
    assert _visible_keys(other) == keys
    assert other.locator('select[name="release"]').input_value() == "v6.0"
    assert other.locator('select[name="scenario"]').input_value() == ""
    assert other.locator('input[name="find"]').input_value() == "nvidia"
    assert (
        other.locator('.tabulator-col[tabulator-field="result_value"]').get_attribute(
            "aria-sort"
        )
        == "descending"
    )
    assert other.url == shared
    other.context.close()


def test_csv_download_holds_the_filtered_rows(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    page = chromium.page(1440)
    _open(page, explorer_site.url + "generated/" + URL_PATH)
    page.select_option('select[name="release"]', "v6.0")
    page.select_option('select[name="benchmark"]', "llama2-70b-99")
    _wait_matching(page, 102)
    with page.expect_download() as download:
        page.click('button[data-action="download"]')
    body = Path(download.value.path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == 102
    assert {r["result_key"] for r in rows} == set(
        _v60_llama(explorer_site.results)["result_key"]
    )
    # The table's order: the result, who ran it and on what first.
    assert list(rows[0])[:5] == [
        "result_value", "submitter", "system_name", "result_unit", "release"
    ]  # fmt: skip
    # Display-only columns (per joule, the compare button) are not in the CSV.
    assert "_per_joule" not in rows[0] and "_compare" not in rows[0]
    # The derived cost columns are (issue 54), with the reason where one is null.
    assert {
        "accelerator_hours_per_million_units", "cost_reason", "joules_per_unit",
        "kwh_per_million_units", "latency_class", "tpot_limit_ms",
        "accuracy_upstream", "accuracy_note",
    } <= set(rows[0])  # fmt: skip
    assert {r["latency_class"] for r in rows} == {"no limit", "limited"}
    evil = next(r for r in rows if r["result_key"] == EVIL_KEY)
    # Formula-leading text is neutralised as in the site's CSV files; the rest stays.
    assert evil["system_name"] == "'" + FORMULA_SYSTEM
    assert evil["software"] == "'@SUM(1+1)"
    assert evil["submitter"] == EVIL_SUBMITTER
    assert evil["result_value"] == "1.5"
    assert evil["result_url"] == ""  # a javascript: URL never ships
    assert evil["accuracy_upstream"] == EVIL_ACCURACY  # as upstream wrote it
    page.context.close()


def test_accuracy_as_published_stands_beside_each_result_as_text(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    page = chromium.page(1440)
    # A v6.1 open-division result: its accuracy exactly as the summary writes it.
    _open(
        page,
        explorer_site.url + "generated/" + URL_PATH + "?release=v6.1&division=open"
        "&find=qwen3-vl",
    )
    _wait_matching(page, 1)
    assert _visible_keys(page) == [KRAI_QWEN]
    cell = page.locator(
        '.tabulator-row .tabulator-cell[tabulator-field="accuracy_upstream"]'
    )
    assert cell.text_content() == KRAI_QWEN_ACCURACY
    assert (
        page.locator('.tabulator-col[tabulator-field="accuracy_upstream"]')
        .inner_text()
        .strip()
        == "Accuracy (as published)"
    )
    # Hostile text stays text (through ledgerText.show, as textContent).
    page.goto(explorer_site.url + "generated/" + URL_PATH + "?q=evil-platform")
    page.wait_for_selector("#ledger-explorer[data-state=ready]", timeout=20_000)
    _wait_matching(page, 1)
    assert cell.text_content() == EVIL_ACCURACY
    assert page.locator('img[src="y"], a[href^="javascript:" i]').count() == 0
    assert chromium.dialogs == []
    page.context.close()


def test_hostile_row_renders_as_text_and_unlinked(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    page = chromium.page(1440)
    _open(
        page,
        explorer_site.url + "generated/" + URL_PATH + "?find=" + "evil-platform",
    )
    _wait_matching(page, 1)
    assert _column(page, "submitter") == [EVIL_SUBMITTER]
    assert _column(page, "system_name") == [FORMULA_SYSTEM]
    value = page.locator(
        '.tabulator-row .tabulator-cell[tabulator-field="result_value"]'
    )
    assert value.inner_text() == "1.5"
    assert value.locator("a").count() == 0
    assert page.locator('img[src="x"], a[href^="javascript:" i]').count() == 0
    assert chromium.dialogs == []
    page.context.close()


def test_page_is_small_self_hosted_and_error_free(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    html = explorer_site.root / "generated" / URL_PATH
    assert html.stat().st_size < PAGE_HTML_BUDGET
    assert (explorer_site.root / "generated" / DATA_FILE).stat().st_size < 300_000
    page = chromium.page(1440)
    _open(page, explorer_site.url + "generated/" + URL_PATH)
    page.context.close()
    assert chromium.hosts == {urlparse(explorer_site.url).netloc}
    assert chromium.errors == []


@pytest.mark.parametrize("width", [1440, 390])
def test_first_rows_show_at_once_and_the_data_waits_for_the_reader(
    explorer_site: ExplorerSite, chromium: Browser, width: int
) -> None:
    # The first page of rows is in the page itself: no data file, no table library
    # until the reader reaches for the table (here: focus on the search box).
    page = chromium.page(width)
    requested: list[str] = []
    page.on("request", lambda r: requested.append(urlparse(r.url).path))
    page.goto(explorer_site.url + "generated/" + URL_PATH, wait_until="load")
    page.wait_for_function(EXPLORER_SETTLED, timeout=20_000)
    root = page.locator("#ledger-explorer")
    assert root.get_attribute("data-state") == "static"
    first = page.locator(".ledger-explorer__first tbody tr")
    assert first.count() == 25
    # Newest round first, as the interactive table's first page; values linked.
    assert first.first.locator("td").first.inner_text() == "v6.1"
    assert first.first.locator("a").first.get_attribute("href").startswith("https://")
    assert not [p for p in requested if p.endswith((DATA_FILE, "tabulator.min.js"))]
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert (
        page.locator(".ledger-explorer__status")
        .inner_text()
        .startswith("The first 25 of 3,398 results, newest round first.")
    )
    page.locator('input[name="find"]').focus()
    page.wait_for_selector("#ledger-explorer[data-state=ready]", timeout=20_000)
    assert [p for p in requested if p.endswith(DATA_FILE)] != []
    assert page.locator(".ledger-explorer__first").count() == 0
    assert _matching(page) == 3398
    page.context.close()


def test_instant_navigation_mounts_the_explorer(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    page = chromium.page(1440)
    # Material intercepts a click only once it has fetched sitemap.xml (the pages
    # it may load in place); on a busy machine a click at "load" can come first.
    page.goto(explorer_site.url + "index.html", wait_until="networkidle")
    page.evaluate("() => { window.__sameDocument = true; }")
    page.locator("article a", has_text="Explorer").click()
    page.wait_for_url("**/explorer.html")
    page.wait_for_function(
        "() => document.getElementById('ledger-explorer')?.dataset.state === 'static'",
        timeout=20_000,
    )
    page.locator("#ledger-explorer [data-action=load]").click()
    page.wait_for_function(
        "() => document.getElementById('ledger-explorer')?.dataset.state === 'ready'",
        timeout=20_000,
    )
    assert page.evaluate("() => window.__sameDocument === true")
    assert _matching(page) == explorer_site.results.height
    page.context.close()


def _one_round_pair(results: pl.DataFrame) -> tuple[str, str]:
    """Two closed v6.1 Offline results of one benchmark: different chips, one count."""
    rows = (
        results.filter(
            pl.col("release") == "v6.1",
            pl.col("scenario") == "Offline",
            pl.col("division") == "closed",
            pl.col("total_accelerators") == 8,
            pl.col("accelerator_name").is_not_null(),
        )
        .sort("benchmark", "result_key")
        .unique(["benchmark", "accelerator_name"], keep="first", maintain_order=True)
        .filter(pl.len().over("benchmark") >= 2)
    )
    assert rows.height >= 2
    return rows["result_key"][0], rows["result_key"][1]


def test_compare_leads_each_row_and_names_the_pair(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    page = chromium.page(1440)
    _open(page, explorer_site.url + "generated/" + URL_PATH + "?release=v6.1")
    # The first column of every row, on screen without a sideways scroll.
    first = page.evaluate(
        """() => [...document.querySelectorAll('.tabulator-row')].map(r =>
          r.querySelector('.tabulator-cell').getAttribute('tabulator-field'))"""
    )
    assert set(first) == {"_compare"} and len(first) == 25
    button = page.locator(".ledger-explorer__pick").first
    box = button.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1440
    # By keyboard: the button takes focus and Enter picks its result.
    key = button.get_attribute("data-key")
    assert button.get_attribute("aria-label") == f"compare {key}"
    button.focus()
    page.keyboard.press("Enter")
    assert button.get_attribute("aria-pressed") == "true"
    assert page.inner_text(".ledger-explorer__compare h2").startswith(
        "Pick a second result"
    )
    # A sortable header is a focus stop; Enter sorts as a click does.
    header = page.locator('.tabulator-col[tabulator-field="result_value"]')
    header.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**sort=result_value%3Aasc**")
    # An empty cell says why: v6.1's source has no power at all.
    cell = page.locator(
        '.tabulator-row .tabulator-cell[tabulator-field="_per_joule"] span'
    ).first
    assert cell.inner_text() == "none in v6.1"
    assert cell.get_attribute("title") == "No v6.1 result in the source has this value."
    # Two results of one round: the note says so and names the rule, and never
    # speaks of pairing "across rounds".
    a, b = _one_round_pair(explorer_site.results)
    _open(page, explorer_site.url + "generated/" + URL_PATH + f"?compare={a},{b}")
    verdict = page.inner_text(".ledger-explorer__verdict")
    assert verdict.startswith("B is ") and "across rounds" not in verdict
    # One count: the total ratio alone, unlabelled, as before.
    assert "Per accelerator" not in verdict and "Total (" not in verdict
    assert verdict.endswith(
        "Both are from v6.1, different accelerators at one count: the site pairs a "
        "chip with its registered predecessor only (Methodology: hardware "
        "generations)."
    )
    # v5.1 has power results: its unmeasured rows say "not measured".
    _open(page, explorer_site.url + "generated/" + URL_PATH + "?release=v5.1&power=no")
    assert set(_column(page, "_per_joule")) == {"not measured"}
    page.context.close()


#: v6.1 Qwen3-VL Offline on NVIDIA's 8-GPU B300 server and its 72-GPU GB300 rack.
B300_8 = "v6.1:closed/NVIDIA/B300-SXM-270GBx8_TRT/qwen3-vl-235b-a22b/Offline"
GB300_72 = "v6.1:closed/NVIDIA/GB300-NVL72_GB300-288GB_aarch64x72_TRT/qwen3-vl-235b-a22b/Offline"


def test_compare_across_sizes_leads_per_accelerator_and_cites_each_result(
    explorer_site: ExplorerSite, chromium: Browser
) -> None:
    rows = explorer_site.results.filter(pl.col("result_key").is_in([B300_8, GB300_72]))
    value = dict(zip(rows["result_key"], rows["result_value"], strict=True))
    assert value[B300_8] == pytest.approx(129.358392, abs=1e-6)
    assert value[GB300_72] == pytest.approx(1304.985263, abs=1e-6)
    page = chromium.page(1440)
    _open(page, explorer_site.url + "generated/" + URL_PATH + "?compare="
          + B300_8 + "," + GB300_72)  # fmt: skip
    verdict = page.inner_text(".ledger-explorer__verdict")
    # (1304.985263 / 72) / (129.358392 / 8) = 1.1209; 1304.985263 / 129.358392 = 10.088.
    assert verdict.startswith(
        "Per accelerator: B is 1.12× A · Total (8 vs 72 accelerators): B is 10.09× A "
        "(above 1×: B is better; higher is better). A derived, unofficial ratio"
    )
    panel = page.inner_text(".ledger-explorer__compare table")
    assert "Result ID\tnone published (see How to cite)" in panel
    assert (
        "How to cite\tMLPerf Inference v6.1, Closed division, Available, no result ID "
        "(v6.1's summary publishes none), published 2026-09-01 (approximate); source: "
        "https://github.com/mlcommons/inference_results_v6.1/tree/"
    ) in panel
    # The wording itself, as the page's script exposes it: equal counts give the
    # total alone; a latency (lower is better) has no per-accelerator value.
    wording = page.evaluate(
        """() => [
          window.ledgerExplorer.ratioWording(
            {is_higher_better: true, result_value: 100, total_accelerators: 8,
             result_per_accelerator: 12.5},
            {is_higher_better: true, result_value: 150, total_accelerators: 8,
             result_per_accelerator: 18.75}),
          window.ledgerExplorer.ratioWording(
            {is_higher_better: false, result_value: 30, total_accelerators: 8,
             result_per_accelerator: null},
            {is_higher_better: false, result_value: 20, total_accelerators: 72,
             result_per_accelerator: null})]"""
    )
    assert wording == [
        "B is 1.50× A",
        "Total (8 vs 72 accelerators): B is 1.50× A (a latency is not divided by the "
        "accelerator count)",
    ]
    # A v5.1 result's official ID is a column of the table, and the CSV's too.
    _open(page, explorer_site.url + "generated/" + URL_PATH + "?release=v5.1")
    ids = _column(page, "result_id")
    assert ids and all(i.startswith("5.1-") for i in ids), ids
    _open(page, explorer_site.url + "generated/" + URL_PATH + "?release=v6.1")
    assert set(_column(page, "result_id")) == {"none in v6.1"}
    page.context.close()
