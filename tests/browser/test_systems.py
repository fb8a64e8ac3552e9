"""The system family pages, the systems list and the Explorer's system links.

On the shared browser-test site (the mirror's summaries, v6.0's raw tree and one
hostile v6.1 record; tests/browser/conftest.py ``built_site``), with its site URL
set, so Material's instant navigation is on as on the published site.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import MALICIOUS_SUBMITTER, MALICIOUS_SYSTEM, BuiltSite
from tests.browser.pages import open_explorer

pytestmark = pytest.mark.browser

GB300 = "nvidia-gb300-nvl72-gb300-288gb-aarch64x72-trt--e5ca0a56e8"
PHONE = {"width": 390, "height": 844}
#: The elements of one system's section: from its heading to the next one.
SECTION = """id => {
  const out = [];
  for (let el = document.getElementById(id).nextElementSibling;
       el && el.tagName !== 'H2'; el = el.nextElementSibling) out.push(el);
  return out;
}"""


def _family_page(site: BuiltSite, system_id: str) -> str:
    """The family page (site-relative) whose section has the id ``system_id``."""
    folder = site.root / "generated" / "systems"
    (page,) = [p for p in folder.glob("*.html") if f'id="{system_id}"' in p.read_text()]
    return f"generated/systems/{page.name}"


#: What a reader would see, when a system's heading is not where the address points.
WHERE = """id => ({
  top: document.getElementById(id)?.getBoundingClientRect().top,
  scrollY: window.scrollY,
  height: document.scrollingElement.scrollHeight,
  readyState: document.readyState,
  material: typeof window.document$ !== 'undefined',
  hash: location.hash,
  styled: [...document.querySelectorAll('link[rel=stylesheet]')]
    .map(link => [link.href.split('/').pop(), link.sheet?.cssRules.length ?? null]),
})"""


def _wait_in_view(page, target: str) -> None:  # noqa: ANN001
    """Wait for the browser to scroll to ``target``; if it never does, say where the
    page stands (a loaded machine can take a moment to lay the page out)."""
    try:
        page.wait_for_function(
            f"document.getElementById('{target}')?.getBoundingClientRect().top < "
            f"{PHONE['height']}",
            timeout=10_000,
        )
    except PlaywrightTimeout as error:
        raise AssertionError(page.evaluate(WHERE, target)) from error


def _largest_family_page(site: BuiltSite) -> Path:
    pages = (site.root / "generated" / "systems").glob("*.html")
    return max(pages, key=lambda p: p.stat().st_size)


@pytest.fixture(scope="module")
def context(chromium_browser) -> Iterator[object]:  # noqa: ANN001
    made = []

    def new(**options: object) -> object:
        made.append(chromium_browser.new_context(**options))
        tab = made[-1].new_page()
        tab.errors, tab.dialogs = [], []
        tab.on("pageerror", lambda error: tab.errors.append(str(error)))
        tab.on(
            "console",
            lambda m: tab.errors.append(m.text) if m.type == "error" else None,
        )
        tab.on("dialog", lambda d: (tab.dialogs.append(d.message), d.dismiss()))
        return tab

    yield new
    for made_context in made:
        made_context.close()


@pytest.fixture(scope="module")
def page(context) -> object:  # noqa: ANN001
    return context(viewport={"width": 1280, "height": 900})


def _section_tables(page, system_id: str) -> list[list[list[str]]]:  # noqa: ANN001
    """Each table of the section: its rows (header row first) as cell texts.

    ``textContent``: a long table off screen is not rendered yet (``ledger-deferred``),
    and ``innerText`` reads only what is rendered.
    """
    return page.evaluate(
        f"""({SECTION})('{system_id}').flatMap(el =>
          el.tagName === 'TABLE' ? [el] : [...el.querySelectorAll('table')])
          .map(t => [...t.rows].map(r => [...r.cells].map(c => c.textContent.trim())))"""
    )


def test_gb300_nvl72_reads_without_javascript(context, built_site: BuiltSite) -> None:  # noqa: ANN001
    page = context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    family = _family_page(built_site, GB300)
    page.goto(f"{built_site.url}{family}#{GB300}")
    heading = page.locator(f"h2#{GB300}")
    assert heading.inner_text().startswith(
        "NVIDIA GB300 NVL72 (72x GB300-288GB_aarch64, TensorRT) · 72 × NVIDIA GB300"
    )
    described, changes, chain, results = _section_tables(page, GB300)
    assert described[0] == ["Field", "v5.1", "v6.0", "v6.1"]
    framework = next(r for r in described if r[0] == "Framework")
    assert framework[1] == "TensorRT 10.13, CUDA 13.0"
    assert framework[2].endswith("vLLM CentML:mlperf-inf-mm-q3vl-v6.0 (changed)")
    assert framework[3].endswith("vLLM CentML:mlperf-inf-mm-q3vl-v6.1 (changed)")
    assert changes[0] == ["Rounds", "Field", "Before", "After"]
    assert ["v5.1 → v6.0", "Framework", "TensorRT 10.13, CUDA 13.0"] in [
        r[:3] for r in changes
    ]
    steps = [r[:3] for r in chain[1:]]
    assert ["deepseek-r1 · Offlineclosed", "v5.1 → v6.0", "1.54×"] in steps
    assert ["deepseek-r1 · Offlineclosed", "v6.0 → v6.1", "1.05×"] in steps
    assert results[0] == ["Round", "Benchmark · scenario", "Result", "Software"]
    assert len(results) > 10
    # Every result links its upstream folder.
    links = page.evaluate(
        f"""({SECTION})('{GB300}').flatMap(el => [...el.querySelectorAll(
          'td[data-label=Result] a')].map(a => a.href))"""
    )
    assert len(links) == len(results) - 1
    assert all(
        link.startswith("https://github.com/mlcommons/inference_results_v")
        for link in links
    )
    text = page.locator("article").inner_text()
    assert "The description is the submitter's declaration" in text


def test_the_list_filters_and_takes_old_addresses_on(page, built_site) -> None:  # noqa: ANN001
    page.goto(f"{built_site.url}generated/systems.html")
    rows = page.locator(".ledger-systems__index tbody tr")
    total = rows.count()
    assert total > 100
    page.fill("#ledger-systems-filter", "gb300 nvl72")
    visible = page.locator(".ledger-systems__index tbody tr:not([hidden])")
    assert 0 < visible.count() < 30
    assert page.locator(".ledger-systems__filter output").inner_text() == (
        f"{visible.count()} of {total:,} systems"
    )
    assert visible.filter(has_text="GB300").count() == visible.count()
    # Each submitter's systems are folded under its name: the filter opens those
    # holding a match and hides the rest; clearing it folds them again.
    groups = page.locator("details.ledger-systems__group")
    opened = page.locator("details.ledger-systems__group[open]")
    assert 0 < opened.count() < groups.count()
    assert page.locator("details.ledger-systems__group:not([hidden])").count() == (
        opened.count()
    )
    assert visible.first.is_visible()
    page.fill("#ledger-systems-filter", "")
    assert opened.count() == 0
    assert page.locator("details.ledger-systems__group[hidden]").count() == 0
    # The address system links had before the family pages lands on the section.
    page.goto("about:blank")
    page.goto(f"{built_site.url}generated/systems.html#{GB300}")
    family = _family_page(built_site, GB300)
    page.wait_for_url(f"{built_site.url}{family}#{GB300}")
    assert page.locator(f"h2#{GB300}").is_visible()
    assert page.errors == []


def test_the_list_is_whole_without_javascript(context, built_site) -> None:  # noqa: ANN001
    page = context(java_script_enabled=False)
    page.goto(f"{built_site.url}generated/systems.html")
    assert page.locator(".ledger-systems__filter").is_hidden()
    rows = page.locator(".ledger-systems__index tbody tr")
    assert rows.count() > 100
    # Every submitter's name shows; a reader unfolds one to see its systems.
    names = page.locator("details.ledger-systems__group > summary")
    assert names.count() > 10 and names.last.is_visible()
    names.last.click()
    assert rows.nth(rows.count() - 1).is_visible()


def test_only_the_list_loads_the_filter_script(page, built_site) -> None:  # noqa: ANN001
    scripts = (
        "[...document.scripts].map(s => s.src).filter(s => s.includes('systems.js'))"
    )
    page.goto(f"{built_site.url}generated/systems.html")
    assert len(page.evaluate(scripts)) == 1
    for other in ("index.html", _family_page(built_site, GB300)):
        page.goto(f"{built_site.url}{other}")
        assert page.evaluate(scripts) == [], other


def test_a_hostile_system_is_shown_as_text(page, built_site: BuiltSite) -> None:  # noqa: ANN001
    page.goto(f"{built_site.url}generated/systems.html")
    page.fill("#ledger-systems-filter", "evil-platform")
    row = page.locator(".ledger-systems__index tr", has_text="evil-platform")
    system_id = row.get_attribute("id")
    # The submitter names the row's folded table, as text.
    group = row.locator("xpath=ancestor::details")
    assert MALICIOUS_SUBMITTER in group.locator("summary").inner_text()
    row.locator("a").click()
    page.wait_for_url(f"**#{system_id}")
    heading = page.locator(f"h2#{system_id}")
    assert MALICIOUS_SYSTEM in heading.inner_text()
    assert MALICIOUS_SUBMITTER in page.locator("article").inner_text()
    assert page.locator("article script, article img").count() == 0
    assert page.dialogs == [] and page.errors == []


def test_the_largest_family_page_fits_a_phone_and_clears_the_header(
    context,  # noqa: ANN001
    built_site: BuiltSite,
) -> None:
    page = context(viewport=PHONE)
    largest = _largest_family_page(built_site)
    path = f"generated/systems/{largest.name}"
    page.goto(f"{built_site.url}{path}")
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= PHONE["width"], (path, width)
    # A system further down, reached by its address: below the sticky header.
    ids = page.evaluate(
        "[...document.querySelectorAll('h2.ledger-system')].map(h => h.id)"
    )
    assert len(ids) >= 1
    target = ids[len(ids) // 2]
    page.goto("about:blank")
    page.goto(f"{built_site.url}{path}#{target}")
    # The browser scrolls to the anchor once the page is laid out (its styles and
    # the off-screen tables' held heights); a loaded machine can take a moment.
    _wait_in_view(page, target)
    # The browser's own scroll to the anchor is not a reader's move: Material has not
    # started (it moved the heading as the page settled, material.js).
    assert page.evaluate("typeof window.document$") == "undefined"
    header = page.evaluate(
        "document.querySelector('.md-header').getBoundingClientRect().bottom"
    )
    top = page.evaluate(
        f"document.getElementById('{target}').getBoundingClientRect().top"
    )
    assert header <= top < PHONE["height"], (target, header, top)
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    # Reached by a link from the list (Material's instant navigation): the same.
    page.goto(f"{built_site.url}generated/systems.html")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    link = page.locator(f'.ledger-systems__index a[href$="#{target}"]').first
    # Folded under its submitter's name: the reader unfolds it first.
    link.evaluate("a => { a.closest('details').open = true; }")
    # As a reader does: scroll to the link, then choose it. Material records the
    # scroll offset 100 ms after scrolling stops (history.replaceState); a click
    # within that time has its new page restore the list's offset instead of
    # going to the anchor (Material's race, not the page's).
    link.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    link.click()
    page.wait_for_url(f"**#{target}")
    _wait_in_view(page, target)
    top = page.evaluate(
        f"document.getElementById('{target}').getBoundingClientRect().top"
    )
    assert header <= top < PHONE["height"], (target, header, top)
    assert page.errors == []


def test_explorer_description_columns_are_off_until_asked_and_filter(
    page,
    built_site: BuiltSite,  # noqa: ANN001
) -> None:
    page.goto(f"{built_site.url}generated/explorer.html")
    open_explorer(page)
    header = page.locator(".tabulator-col[tabulator-field=accelerator_memory_gb]")
    assert header.is_hidden()
    page.click("[data-action=describe]")
    assert header.is_visible()
    for field in (
        "accelerator_interconnect", "interconnect_family", "cooling", "cooling_kind",
        "framework", "host_cpu_name",
    ):  # fmt: skip
        assert page.locator(f".tabulator-col[tabulator-field={field}]").is_visible()
    excluded = page.locator(".ledger-explorer__excluded")
    assert excluded.is_hidden()
    page.select_option("select[data-filter=accelerator_memory_size]", "288 GB")
    # The filters offer the normalised family; the declared text is the cell's title.
    page.select_option("select[data-filter=interconnect_family]", "NVLink 5")
    page.wait_for_function(
        "document.getElementById('ledger-explorer').getAttribute('data-matching')"
        " !== null"
    )
    link = page.locator(".tabulator-cell[tabulator-field=system_name] a").first
    href = link.get_attribute("href")
    # The system's section on its family page, as every other page links it.
    system_id = href.rsplit("#", 1)[1]
    assert href == f"{built_site.url}{_family_page(built_site, system_id)}#{system_id}"
    matching = int(page.get_attribute("#ledger-explorer", "data-matching"))
    assert matching > 0
    memory = page.locator(
        ".tabulator-row .tabulator-cell[tabulator-field=accelerator_memory_gb]"
    ).all_inner_texts()
    assert set(memory) == {"288"}
    family = page.locator(
        ".tabulator-row .tabulator-cell[tabulator-field=interconnect_family]"
    ).first
    assert family.inner_text() == "NVLink 5"
    assert family.get_attribute("title").startswith("Declared: ")
    # v6.1's summary declares no description: the filter says it leaves it out.
    assert excluded.is_visible()
    assert "v6.1" in excluded.inner_text()
    assert "filtering by interconnect excludes" in excluded.inner_text()
    link.click()
    page.wait_for_url(href)
    page.wait_for_selector(f"h2#{system_id}", state="visible")
    assert page.errors == []
