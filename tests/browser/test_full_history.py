"""The site readers get: the full-history build, as `make site` makes it.

Every round of the shared mirror (v0.5 to v6.1, raw trees and summaries), built with
no site URL configured, as `make site` does by default. The other browser tests visit
every page of a smaller build; this file checks what only the full history shows: the
page budgets, no loopback address anywhere, the newest round's "what's new" on Home,
the Explorer's compare link and its key columns on a phone.
"""

from __future__ import annotations

import csv
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlparse

import pytest

from pipeline.registry.releases import load_manifest
from pipeline.render.charts.spec import NO_LABEL_LIMIT
from tests.browser.conftest import BuiltSite
from tests.browser.pages import (
    FIRST_VISIT_BUDGET,
    HTML_BUDGET,
    Visitor,
    open_explorer,
    site_pages,
    start_material,
)
from tests.browser.server import serve

#: The newest round of the mirror, whose story Home must tell.
NEWEST = "v6.1"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def full_site(
    tmp_path_factory: pytest.TempPathFactory, mirror: Path
) -> Iterator[BuiltSite]:
    """Every manifest round read from the mirror; no MLPERF_LEDGER_SITE_URL."""
    from pipeline import runner

    work = tmp_path_factory.mktemp("full-history")
    started = time.monotonic()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_SOURCE", str(mirror))
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        env.delenv("MLPERF_LEDGER_SITE_URL", raising=False)
        (work / "build").mkdir()
        outcomes = runner.ingest(
            runner.get_instance(),
            [r.version for r in load_manifest()],
            progress=lambda _: None,
            site=True,
        )
    assert all(o.success for o in outcomes), [o.message for o in outcomes]
    root = (work / "build" / "site").resolve()
    with serve(root) as url:
        yield BuiltSite(root, url, time.monotonic() - started)


@pytest.fixture(scope="module")
def visitor(chromium_browser, full_site: BuiltSite) -> Iterator[Visitor]:  # noqa: ANN001
    visitor = Visitor(chromium_browser, full_site)
    yield visitor
    visitor.close()


def test_every_round_of_the_mirror_is_built(full_site: BuiltSite) -> None:
    releases = (full_site.root / "generated" / "releases").glob("v*.html")
    assert sorted(p.stem for p in releases) == [
        "v0.5", "v1.0", "v2.1", "v4.1", "v5.1", "v6.0", "v6.1",
    ]  # fmt: skip


def test_no_html_page_over_300_kb(full_site: BuiltSite) -> None:
    pages = site_pages(full_site.root)
    assert len(pages) > 700
    sizes = {p: (full_site.root / p).stat().st_size for p in pages}
    assert {p: s for p, s in sizes.items() if s > HTML_BUDGET} == {}


def test_no_address_of_this_machine_without_a_site_url(full_site: BuiltSite) -> None:
    # No canonical link, no sitemap: nothing names 127.0.0.1 or localhost.
    assert not (full_site.root / "sitemap.xml").exists()
    home = (full_site.root / "index.html").read_text()
    assert 'rel="canonical"' not in home
    named = [
        p
        for p in full_site.root.rglob("*")
        if p.suffix in {".html", ".json", ".xml", ".csv"}
        and (
            "127.0.0.1" in (text := p.read_text(errors="replace"))
            or "localhost" in text
        )
    ]
    assert named == []


def test_first_visits_stay_under_1_5_mb(full_site: BuiltSite, visitor: Visitor) -> None:
    heaviest = sorted(
        site_pages(full_site.root),
        key=lambda p: (full_site.root / p).stat().st_size,
        reverse=True,
    )[:3]
    pages = ["index.html", "generated/latest.html", "generated/audit.html",
             "generated/explorer.html", *heaviest]  # fmt: skip
    visits = [visitor.visit(p) for p in dict.fromkeys(pages)]
    assert {v.path: v.console_errors for v in visits if v.console_errors} == {}
    weights = {v.path: v.total_bytes for v in visits}
    assert {p: w for p, w in weights.items() if w > FIRST_VISIT_BUDGET} == {}
    assert min(weights.values()) > 20_000  # the visits were counted


def test_home_opens_with_the_newest_rounds_comparisons(
    full_site: BuiltSite, visitor: Visitor
) -> None:
    visit = visitor.visit("index.html")
    page = visitor.page
    heading = page.locator("h2", has_text=f"What's new in {NEWEST}")
    assert heading.count() == 1
    section = page.locator(
        "h3", has_text=f"New accelerators against their predecessors in {NEWEST}"
    )
    assert section.count() == 1
    # The successor chart rendered, and its table names the new chip and a ratio.
    charts = {c["spec"]: c for c in visit.charts}
    successors = charts["generated/charts/home-whats-new-successors.json"]
    assert successors["state"] == "rendered" and successors["marks"] > 3
    table = page.locator("h3:has-text('New accelerators') ~ div table").first
    text = table.inner_text()
    assert "NVIDIA Vera Rubin" in text and "×" in text
    # Before the older headlines: a reader sees it without a click.
    order = page.evaluate(
        """() => [...document.querySelectorAll('article h2')]
          .map(h => h.firstChild.textContent.trim())"""
    )
    assert order.index(f"What's new in {NEWEST}") < order.index("Derived metrics")
    assert "rounds are in the source" in page.locator("article").inner_text()


def _explorer_rows(full_site: BuiltSite) -> list[dict]:
    import gzip

    path = full_site.root / "generated" / "explorer" / "results.json.gz"
    return json.loads(gzip.decompress(path.read_bytes()))["data"]


def test_compare_link_round_trips(
    chromium_browser,
    full_site: BuiltSite,  # noqa: ANN001
) -> None:
    rows = _explorer_rows(full_site)

    def pick(release: str) -> dict:
        return next(
            r for r in rows
            if r["release"] == release and r["benchmark"] == "llama2-70b-99"
            and r["scenario"] == "Offline" and r["division"] == "closed"
        )  # fmt: skip

    old, new = pick("v5.1"), pick("v6.0")
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    explorer = full_site.url + "generated/explorer.html"
    page.goto(explorer + "?find=" + quote(old["result_key"]))
    open_explorer(page)
    page.locator(".ledger-explorer__pick").first.evaluate("b => b.click()")
    page.fill("input[name=find]", new["result_key"])
    # The search runs 200 ms after the last key: wait till it lists B first (a
    # fixed pause was waited in full, and could end before the search under load).
    page.wait_for_function(
        "key => document.querySelector('.ledger-explorer__pick')?.dataset.key === key",
        arg=new["result_key"],
    )
    page.locator(".ledger-explorer__pick").first.evaluate("b => b.click()")
    shared = page.url
    assert "compare=" in shared
    verdict = page.inner_text(".ledger-explorer__verdict")
    ratio = new["result_value"] / old["result_value"]
    per = new["result_per_accelerator"] / old["result_per_accelerator"]
    # v5.1's first closed result ran on 8 GPUs, v6.0's on 88: per accelerator first.
    assert (old["total_accelerators"], new["total_accelerators"]) == (8, 88)
    assert verdict.startswith(
        f"Per accelerator: B is {per:.2f}× A · Total (8 vs 88 accelerators): "
        f"B is {ratio:.2f}× A"
    )
    assert verdict.startswith("Per accelerator: B is 3.41× A · ")
    # The link alone restores the pair.
    again = context.new_page()
    again.goto(shared)
    open_explorer(again)
    assert again.inner_text(".ledger-explorer__verdict") == verdict
    # Two results that cannot be divided say why, with no ratio.
    other = next(r for r in rows if r["benchmark"] != old["benchmark"])
    again.goto(
        explorer + "?compare=" + quote(old["result_key"] + "," + other["result_key"])
    )
    open_explorer(again)
    text = again.inner_text(".ledger-explorer__verdict")
    assert text.startswith("Not comparable: different benchmarks")
    # Two open-division runs of llama2-70b-99 in v4.1 by different submitters (GPTQ
    # int4 on H100, depth-pruned fp16 on H200): not one model as run.
    gptq, pruned = (
        next(
            r for r in rows
            if r["release"] == "v4.1" and r["division"] == "open"
            and r["benchmark"] == "llama2-70b-99" and r["scenario"] == "Offline"
            and needle in (r["platform"] or "")
        )
        for needle in ("GPTQ", "DepthPruned")
    )  # fmt: skip
    again.goto(
        explorer + "?compare=" + quote(gptq["result_key"] + "," + pruned["result_key"])
    )
    open_explorer(again)
    text = again.inner_text(".ledger-explorer__verdict")
    assert text.startswith(
        "Not comparable: open division: the models as run are not shown to be the same"
    )
    # Keys from the address are looked up in a Map: the prototype is no result.
    again.goto(explorer + "?compare=__proto__,constructor")
    open_explorer(again)
    assert again.locator(".ledger-explorer__verdict").count() == 0
    assert "NaN" not in again.inner_text("#ledger-explorer")
    context.close()


def test_a_text_filter_link_is_not_taken_by_materials_search(
    chromium_browser,
    full_site: BuiltSite,  # noqa: ANN001
) -> None:
    """The Explorer's text filter is ``find`` in its address. Material's search owns
    ``q``: as the Explorer's name it opened Material's search over the Explorer on
    a reader's first move, took their typing and dropped the filter when closed.
    A link made with ``q`` still works, rewritten before Material starts."""
    key = next(r for r in _explorer_rows(full_site) if r["release"] == "v6.0")
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    explorer = full_site.url + "generated/explorer.html"
    page.goto(explorer + "?q=" + quote(key["result_key"]))
    open_explorer(page)
    assert parse_qs(urlparse(page.url).query) == {"find": [key["result_key"]]}
    assert page.input_value("input[name=find]") == key["result_key"]
    start_material(page)  # the reader's first move
    search = "document.querySelector('[data-md-toggle=search]').checked"
    assert page.evaluate(search) is False
    # The reader types into the Explorer, not into Material's search.
    page.fill("input[name=find]", "v6.0 llama2-70b-99")
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('find') === 'v6.0 llama2-70b-99'"
    )
    assert page.evaluate(search) is False
    assert page.input_value(".md-search__input") == ""
    context.close()


def test_explorer_shows_result_submitter_and_system_together_on_a_phone(
    chromium_browser,
    full_site: BuiltSite,  # noqa: ANN001
) -> None:
    context = chromium_browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(full_site.url + "generated/explorer.html")
    open_explorer(page)
    boxes = page.evaluate(
        """() => Object.fromEntries([...document.querySelector('.tabulator-row')
          .querySelectorAll('.tabulator-cell')].map(c => [c.getAttribute('tabulator-field'),
          [c.getBoundingClientRect().left, c.getBoundingClientRect().right]]))"""
    )
    for field in ("_compare", "result_value", "submitter", "system_name"):
        left, right = boxes[field]
        assert left >= 0 and right <= PHONE["width"], (field, left, right)
    # Benchmark, scenario and round stand under the result, on screen with it.
    what = page.locator(".tabulator-row").first.locator(".ledger-explorer__what")
    box = what.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    assert re.fullmatch(r".+ · .+ · v\d+\.\d+", what.inner_text())
    # The compare button fits its narrow column: it is not clipped.
    button = page.locator(".tabulator-row").first.locator(".ledger-explorer__pick")
    cell = page.locator(".tabulator-row").first.locator('[tabulator-field="_compare"]')
    b, c = button.bounding_box(), cell.bounding_box()
    assert c["x"] <= b["x"] and b["x"] + b["width"] <= c["x"] + c["width"], (b, c)
    context.close()


def test_the_explorer_shows_a_rounds_official_style_grid(
    chromium_browser,  # noqa: ANN001
    full_site: BuiltSite,
) -> None:
    rows = [r for r in _explorer_rows(full_site) if r["release"] == NEWEST]
    systems = {
        (r["division"], r["submitter"], r["system_name"], r["accelerator"],
         r["total_accelerators"])
        for r in rows
    }  # fmt: skip
    columns = {(r["benchmark"], r["scenario"], r["result_unit"]) for r in rows}
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(full_site.url + f"generated/explorer.html?release={NEWEST}&view=grid")
    open_explorer(page)
    grid = page.locator(".ledger-explorer__grid")
    assert grid.locator("tbody tr").count() == len(systems)
    assert grid.locator("thead th").count() == 5 + len(columns)
    assert "view=grid" in page.url and f"release={NEWEST}" in page.url
    # Toggled off, the result table is back and the address forgets the grid.
    page.click("button[data-action=grid]")
    assert grid.is_hidden() and "view=grid" not in page.url
    context.close()


def _numbers(html: str) -> dict[str, int]:
    """The figures of a page's first numbers block ("492 results", ...)."""
    import re

    block = html.split('class="ledger-numbers"', 1)[1].split("</div></div>", 1)[0]
    return {
        label.strip(): int(value.replace(",", ""))
        for value, label in re.findall(r"<strong>([\d,]+)</strong>([^<]+)", block)
    }


def test_grid_latest_and_home_count_the_same_systems(full_site: BuiltSite) -> None:
    generated = full_site.root / "generated"
    home = _numbers((full_site.root / "index.html").read_text())
    latest = _numbers((generated / "latest.html").read_text())
    grid = (generated / "downloads" / "grids" / f"{NEWEST}.csv").read_text()
    rows = len(grid.strip().splitlines()) - 1
    assert home["systems"] == latest["systems"] == rows == 119
    # New accelerator types: mixed systems are none; the list names each one.
    listed = (
        (full_site.root / "index.html")
        .read_text()
        .split("New accelerators: ", 1)[1]
        .split(".", 1)[0]
    )
    assert listed == "AMD Instinct MI350P, AMD Radeon 8060S Graphics, NVIDIA Vera Rubin"
    assert home["new accelerator types"] == 3


def test_headlines_come_from_strict_unwarned_pairs(full_site: BuiltSite) -> None:
    generated = full_site.root / "generated"
    index = generated / "generations.html"
    text = index.read_text()
    largest = text.split("largest <strong>", 1)[1].split("×", 1)[0]
    # RedHat's 6.14x H200 -> B200 (v6.0 qwen3-vl Server) is warned above 5x.
    assert float(largest) <= 5.0
    # The open-division 28.38x of two models (v4.1 llama2-70b-99) is on no page.
    page = (generated / "generations" / "llama2-70b-99.html").read_text()
    assert "28.38×" not in page
    assert "H200-SXM-141GBx1_TRT_DepthPruned" not in page or "GPTQ" not in page
    # One name per chip: Nebius's "NVIDIA VR200" appears only inside system names.
    rubin = (generated / "accelerators" / "nvidia-vera-rubin.html").read_text()
    assert "× NVIDIA VR200" not in rubin and "36 × NVIDIA Vera Rubin" in rubin


def test_strict_by_default_on_the_full_history(full_site: BuiltSite) -> None:
    """Issue 51: no green tick for a loose-only claim; precision changes badged."""
    generated = full_site.root / "generated"
    claims = (generated / "claims.html").read_text()
    card = claims.split('id="claim-nvidia-gb300-dsr1-server-2-77x-v51-v60"', 1)[1]
    card = card.split("<h2", 1)[0]
    # NVIDIA's "2.77x, same chips": 1.91x for the same system; 2.77x only per GPU
    # between a 72-GPU and an 8-GPU system of two submitters.
    assert (
        '<span class="ledger-badge ledger-badge--holds-only-in-a-loose-reading">'
        "holds only in a loose reading</span>"
    ) in card
    assert "ledger-badge--consistent" not in card.split("</p>", 1)[0]
    assert "per accelerator, 72 vs 8 accelerators, different submitters" in card
    # Dell's XE9680 with 8 MI300X, llama2-70b-99 Offline, v4.1 fp16 -> v5.1 fp8: badged
    # and listed apart from the software-only gains.
    gains = (generated / "software-gains" / "llama2-70b-99.html").read_text()
    rows = [r for r in gains.split("<tr>") if "XE9680_MI300X_192GBx8" in r]
    row = next(r for r in rows if ">1.20×<" in r and "Offline" in r)
    assert ">fp16 → fp8</span>" in row
    assert "weights fp16" in row and "weights fp8" in row
    at = gains.index(row)
    section = gains.rindex("<h2", 0, at)
    assert "v4.1 → v5.1" in gains[section : gains.index("</h2>", section)]
    assert gains.rindex("<h3", 0, at) > section  # under "With a weight-precision…"
    assert "With a weight-precision change" in gains[gains.rindex("<h3", 0, at) : at]


DESKTOP = {"width": 1440, "height": 900}
#: The numeric cells and headers (right-aligned) with a line break inside a word: a
#: number or unit broken mid-value ("2,901,⏎950", "Sampl⏎es/s"). A header or a note
#: may wrap between words, and a ``<br>`` between two lines is not a break.
WRAPPED_NUMBERS = r"""() => {
  const wrapped = [];
  const top = (node, i) => {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    const rects = [...range.getClientRects()].filter(r => r.width > 0);
    return rects.length ? Math.round(rects[0].top) : null;
  };
  const cells = document.querySelectorAll(
    'article :is(td, th)[style*="text-align: right"]');
  for (const cell of cells) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent;
      let broken = false;
      for (let i = 1; i < text.length && !broken; i++) {
        if (/\s/.test(text[i - 1]) || /\s/.test(text[i])) continue;
        const before = top(node, i - 1), after = top(node, i);
        broken = before !== null && after !== null && before !== after;
      }
      if (broken) { wrapped.push(cell.innerText.slice(0, 60)); break; }
    }
  }
  return wrapped;
}"""


def test_no_number_wraps_on_a_desktop(chromium_browser, full_site: BuiltSite) -> None:  # noqa: ANN001
    """Home, Latest and every interactivity page at 1440 px: numbers stay whole."""
    interactivity = sorted(
        p.relative_to(full_site.root).as_posix()
        for p in (full_site.root / "generated" / "interactivity").glob("*.html")
    )
    assert len(interactivity) >= 5
    context = chromium_browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    wrapped = {}
    for path in ["index.html", "generated/latest.html", *interactivity]:
        page.goto(full_site.url + path)
        counted = page.evaluate(
            "() => document.querySelectorAll("
            "'article :is(td, th)[style*=\"text-align: right\"]').length"
        )
        assert counted > 0, path
        if found := page.evaluate(WRAPPED_NUMBERS):
            wrapped[path] = found
    context.close()
    assert wrapped == {}


def _limits(node: object) -> list[object]:
    """Every ``labelLimit`` of a Vega-Lite spec, however deep."""
    if isinstance(node, dict):
        found = [node["labelLimit"]] if "labelLimit" in node else []
        return found + [x for v in node.values() for x in _limits(v)]
    if isinstance(node, list):
        return [x for v in node for x in _limits(v)]
    return []


def test_no_chart_cuts_a_label(full_site: BuiltSite) -> None:
    """Vega cuts axis labels at 180 px and legend labels at 160 px unless told not
    (an axis takes 0 for no limit; a legend reads 0 as its default)."""
    specs = sorted((full_site.root / "generated" / "charts").glob("*.json"))
    assert len(specs) > 100
    cutting = {
        p.name: limits
        for p in specs
        if (
            limits := [
                x
                for x in _limits(json.loads(p.read_text()))
                if x not in (0, NO_LABEL_LIMIT)
            ]
        )
    }
    assert cutting == {}
    home = json.loads(
        (full_site.root / "generated/charts/home-whats-new-successors.json").read_text()
    )
    assert home["config"]["legend"]["labelLimit"] == NO_LABEL_LIMIT


def test_the_description_toggle_is_in_the_address_and_the_csv_keeps_one_schema(
    chromium_browser,  # noqa: ANN001
    full_site: BuiltSite,
) -> None:
    context = chromium_browser.new_context(viewport=DESKTOP, accept_downloads=True)
    page = context.new_page()
    page.goto(full_site.url + "generated/explorer.html?release=v6.1")
    open_explorer(page)

    def csv_header() -> list[str]:
        with page.expect_download() as download:
            page.click("button[data-action=download]")
        text = Path(download.value.path()).read_text(encoding="utf-8")
        return next(csv.reader(text.splitlines()))

    plain = csv_header()
    page.click("button[data-action=describe]")
    assert "describe=1" in page.url
    assert csv_header() == plain  # one schema, shown or not
    assert "cooling" in plain and "accelerator_interconnect" in plain
    # The address brings the columns back.
    again = context.new_page()
    again.goto(page.url)
    open_explorer(again)
    assert again.get_attribute("button[data-action=describe]", "aria-pressed") == "true"
    context.close()


#: DeepSeek-R1's v6.1 Interactive results the issue prices (result keys).
GB300_INTERACTIVE = (
    "v6.1:closed/NVIDIA/GB300-NVL72_GB300-288GB_aarch64x72_TRT/deepseek-r1/Interactive"
)
VERA_RUBIN_INTERACTIVE = (
    "v6.1:closed/NVIDIA/VR-NVL72_VR-288GB_aarch64x72_TRT/deepseek-r1/Interactive"
)
#: Each row of a model page's ranking: its result key and its $ cell.
RANKING_ROWS = """id => {
  let el = document.getElementById(id).nextElementSibling;
  while (el && el.tagName !== 'TABLE' && !el.querySelector('table'))
    el = el.nextElementSibling;
  const table = el.tagName === 'TABLE' ? el : el.querySelector('table');
  return [...table.tBodies[0].rows].map(r => {
    const cost = r.querySelector('.ledger-cost');
    return {key: r.querySelector('a[title]').title, text: cost.textContent,
            hours: parseFloat(cost.dataset.hours)};
  });
}"""


def _open_priced(page, url: str) -> None:  # noqa: ANN001
    """Load a page with a price form and wait until prices.js has shown it."""
    page.goto(url)
    page.wait_for_selector("form[data-ledger-prices]:not([hidden])")


def test_prices_in_the_address_give_dollars_per_million_tokens(
    chromium_browser,
    full_site: BuiltSite,  # noqa: ANN001
) -> None:
    context = chromium_browser.new_context()
    page = context.new_page()
    model = full_site.url + "generated/models/deepseek-r1.html"
    _open_priced(page, model + "?price=nvidia-gb300:10.5;nvidia-vera-rubin:30")
    rows = {r["key"]: r for r in page.evaluate(RANKING_ROWS, "v6-1-interactive-closed")}
    gb300, rubin = rows[GB300_INTERACTIVE], rows[VERA_RUBIN_INTERACTIVE]
    # $ per million tokens = price × accelerator-hours per million tokens.
    assert gb300["hours"] == pytest.approx(0.0788936, abs=1e-7)
    assert gb300["text"] == "$0.828383"  # 10.5 × 0.0788936
    assert rubin["hours"] == pytest.approx(0.0306396, abs=1e-7)
    assert rubin["text"] == "$0.919188"  # 30 × 0.0306396
    assert float(gb300["text"][1:]) == pytest.approx(10.5 * gb300["hours"], rel=1e-5)
    # Other accelerators have no price: no cost.
    others = [r for k, r in rows.items() if k not in (GB300_INTERACTIVE,)]
    assert {r["text"] for r in others if "GB200" in r["key"]} == {"—"}
    assert page.input_value("input[data-price-key=nvidia-gb300]") == "10.5"
    # An entered price goes into the address (a link reproduces it) and storage.
    page.fill("input[data-price-key=nvidia-gb300]", "12")
    page.dispatch_event("input[data-price-key=nvidia-gb300]", "change")
    assert "price=nvidia-gb300%3A12%3Bnvidia-vera-rubin%3A30" in page.url
    rows = {r["key"]: r for r in page.evaluate(RANKING_ROWS, "v6-1-interactive-closed")}
    assert rows[GB300_INTERACTIVE]["text"] == "$0.946723"  # 12 × 0.0788936
    _open_priced(page, model)
    rows = {r["key"]: r for r in page.evaluate(RANKING_ROWS, "v6-1-interactive-closed")}
    assert rows[GB300_INTERACTIVE]["text"] == "$0.946723"
    context.close()


def test_bad_prices_in_the_address_are_ignored_and_said(
    chromium_browser,
    full_site: BuiltSite,  # noqa: ANN001
) -> None:
    context = chromium_browser.new_context()
    page = context.new_page()
    _open_priced(
        page,
        full_site.url + "generated/models/deepseek-r1.html"
        "?price=nvidia-gb300:-3;nvidia-vera-rubin:abc;nope:5;nvidia-gb200:Infinity",
    )
    assert page.inner_text(".ledger-prices__note") == (
        "Ignored from the address: nvidia-gb300:-3 (not a positive number); "
        "nvidia-vera-rubin:abc (not a positive number); nope:5 (no such accelerator "
        "on this page); nvidia-gb200:Infinity (not a positive number)."
    )
    costs = page.evaluate(
        "() => [...document.querySelectorAll('.ledger-cost')].map(c => c.textContent)"
    )
    assert len(costs) > 100 and set(costs) == {"—"}
    # A bad entry is refused where it is typed, and the address keeps no price.
    page.fill("input[data-price-key=nvidia-gb300]", "0")
    page.dispatch_event("input[data-price-key=nvidia-gb300]", "change")
    assert page.inner_text(".ledger-prices__note") == (
        "Ignored: “0” is not a positive number."
    )
    assert "nvidia-gb300" in page.url  # the address is left as it was
    context.close()


ENERGY_CELLS = """() => [...document.querySelectorAll('.ledger-energy-cost')].map(
  c => ({text: c.textContent, kwh: parseFloat(c.dataset.kwh)}))"""


def test_an_electricity_price_costs_measured_results_only(
    chromium_browser,
    full_site: BuiltSite,  # noqa: ANN001
) -> None:
    context = chromium_browser.new_context()
    page = context.new_page()
    model = full_site.url + "generated/models/llama3.1-405b.html"
    _open_priced(page, model + "?kwh=0.2")
    cells = page.evaluate(ENERGY_CELLS)
    # 5.1-0062's Server run: 7.658828 J per token measured, 2.127452 kWh per million.
    assert [c["kwh"] for c in cells] == [pytest.approx(2.1274521806766487)]
    assert cells[0]["text"] == "$0.42549 electricity"  # 0.2 × 2.12745
    # Only results with measured power carry an energy cell.
    assert page.locator("td:has-text('not measured')").count() > 0
    page.fill("input[data-electricity]", "0.1")
    page.dispatch_event("input[data-electricity]", "change")
    assert "kwh=0.1" in page.url
    assert page.evaluate(ENERGY_CELLS)[0]["text"] == "$0.212745 electricity"
    # Remembered in this browser; an accelerator price keeps kwh= in the address.
    _open_priced(page, model)
    assert page.input_value("input[data-electricity]") == "0.1"
    assert page.evaluate(ENERGY_CELLS)[0]["text"] == "$0.212745 electricity"
    _open_priced(page, model + "?kwh=-1")
    assert page.inner_text(".ledger-prices__note") == (
        "Ignored from the address: kwh=-1 (not a positive number)."
    )
    context.close()


#: One explorer row's data as the table holds it.
EXPLORER_ROW = """key => document.getElementById('ledger-explorer').__table.getData()
  .filter(r => r.result_key === key).map(r => ({cost: r._cost,
    energy: r._energy_cost, hours: r.accelerator_hours_per_million_units,
    kwh: r.kwh_per_million_units}))[0]"""


def test_the_explorer_prices_from_the_same_address_as_the_model_pages(
    chromium_browser,  # noqa: ANN001
    full_site: BuiltSite,
) -> None:
    context = chromium_browser.new_context(viewport=DESKTOP, accept_downloads=True)
    page = context.new_page()
    page.goto(
        full_site.url + "generated/explorer.html"
        "?price=nvidia-gb300:10.5;nvidia-vera-rubin:30&kwh=0.2"
    )
    open_explorer(page)
    gb300 = page.evaluate(EXPLORER_ROW, GB300_INTERACTIVE)
    rubin = page.evaluate(EXPLORER_ROW, VERA_RUBIN_INTERACTIVE)
    # The model page's numbers: $0.828383 and $0.919188 per million tokens.
    assert gb300["cost"] == pytest.approx(10.5 * 0.0788936, rel=1e-6)
    assert rubin["cost"] == pytest.approx(30 * 0.0306396, rel=1e-6)
    # No measured power in v6.1: no electricity cost, whatever the price.
    assert (gb300["kwh"], gb300["energy"]) == (None, None)
    measured = page.evaluate(EXPLORER_ROW, "5.1-0062:llama3.1-405b:Server")
    assert measured["energy"] == pytest.approx(0.2 * measured["kwh"])
    assert measured["cost"] is None  # its accelerator has no price here
    said = page.inner_text(".ledger-explorer__priced")
    assert said == (
        "Priced: NVIDIA GB300 $10.5/h; NVIDIA Vera Rubin $30/h; electricity $0.2/kWh."
    )
    # The table keeps the prices in the address as it writes its view.
    page.select_option("select[data-filter=release]", "v6.1")
    page.wait_for_function("() => location.search.includes('release=v6.1')")
    assert "price=nvidia-gb300%3A10.5%3Bnvidia-vera-rubin%3A30" in page.url
    assert "kwh=0.2" in page.url
    # A price entered here goes into the address; the CSV has no $ column.
    page.select_option("select[data-price=accelerator]", "nvidia-gb300")
    assert page.input_value("input[data-price=hour]") == "10.5"
    page.fill("input[data-price=hour]", "12")
    page.dispatch_event("input[data-price=hour]", "change")
    assert "nvidia-gb300%3A12" in page.url
    assert page.evaluate(EXPLORER_ROW, GB300_INTERACTIVE)["cost"] == pytest.approx(
        12 * 0.0788936, rel=1e-6
    )
    with page.expect_download() as download:
        page.click("button[data-action=download]")
    header = next(
        csv.reader(Path(download.value.path()).read_text(encoding="utf-8").splitlines())
    )
    assert "_cost" not in header and "_energy_cost" not in header
    assert "accelerator_hours_per_million_units" in header
    context.close()


def test_the_largest_system_family_page_fits_a_phone(
    chromium_browser,  # noqa: ANN001
    full_site: BuiltSite,
) -> None:
    pages = sorted(
        (full_site.root / "generated" / "systems").glob("*.html"),
        key=lambda p: p.stat().st_size,
    )
    # One page per family, each under the HTML budget: the list's 705 systems.
    assert 100 < len(pages) < 300
    largest = pages[-1]
    assert largest.stat().st_size < HTML_BUDGET
    context = chromium_browser.new_context(viewport=PHONE)
    page = context.new_page()
    path = f"generated/systems/{largest.name}"
    page.goto(full_site.url + path)
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE["width"], (path, width)
    ids = page.evaluate(
        "[...document.querySelectorAll('h2.ledger-system')].map(h => h.id)"
    )
    target = ids[-1]
    page.goto("about:blank")
    page.goto(f"{full_site.url}{path}#{target}")
    header = page.evaluate(
        "document.querySelector('.md-header').getBoundingClientRect().bottom"
    )
    top = page.evaluate(
        f"document.getElementById('{target}').getBoundingClientRect().top"
    )
    assert header <= top < PHONE["height"], (target, header, top)
    # NVIDIA's systems: one page per accelerator, each system a section.
    nvidia = full_site.root / "generated" / "systems" / "nvidia-nvidia-h100-sxm.html"
    text = nvidia.read_text()
    assert text.count('class="ledger-system"') >= 2
    context.close()


#: A v6.1 open-division result (HPE's 16-GPU DeepSeek-R1 Offline) and the accuracy
#: its summary publishes; a v2.1 open-division result, read from the raw tree, whose
#: accuracy.txt the mirror does not hold.
HPE_X16_OPEN = (
    "v6.1:open/HPE/HPE_GB200-NVL72_GB200-186GB_aarch64x16_TRT/deepseek-r1/Offline"
)
HPE_X16_ACCURACY = (
    "exact_match: 81.38103919781221  TOKENS_PER_SAMPLE: 3823.224020054695"
)
#: One open-division row's accuracy cell: its text and its title.
ACCURACY_CELL = """key => {
  const table = document.getElementById('ledger-explorer').__table;
  const row = table.getRows('active').find(r => r.getData().result_key === key);
  const cell = row.getCell('accuracy_upstream').getElement();
  return [cell.textContent, cell.title || cell.firstChild.title || ''];
}"""


def test_open_division_results_show_their_accuracy_or_say_none(
    chromium_browser,  # noqa: ANN001
    full_site: BuiltSite,
) -> None:
    rows = {r["result_key"]: r for r in _explorer_rows(full_site)}
    assert rows[HPE_X16_OPEN]["accuracy_upstream"] == HPE_X16_ACCURACY
    v21_open = sorted(
        k for k, r in rows.items() if r["release"] == "v2.1" and r["division"] == "open"
    )
    assert {rows[k]["accuracy_upstream"] for k in v21_open} == {None}
    context = chromium_browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(
        full_site.url
        + "generated/explorer.html?release=v6.1&division=open&find=x16_trt"
    )
    open_explorer(page)
    assert page.evaluate(ACCURACY_CELL, HPE_X16_OPEN) == [
        HPE_X16_ACCURACY,
        HPE_X16_ACCURACY,
    ]
    page.goto(
        full_site.url
        + "generated/explorer.html?release=v2.1&division=open&find="
        + quote(v21_open[0].split(":", 1)[1])
    )
    open_explorer(page)
    text, title = page.evaluate(ACCURACY_CELL, v21_open[0])
    assert text == "not in the source this site read"
    assert title.startswith("The source of v2.1 that this site read publishes no")
    context.close()
    # The release's benchmark page shows it in the open-division table.
    html = (
        full_site.root / "generated" / "releases" / "v6.1" / "deepseek-r1.html"
    ).read_text()
    assert "exact&#95;match&#58; 81.70009115770283" in html.split(">Offline · open")[1]
