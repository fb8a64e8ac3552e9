"""Every reader: axe-core on the site's pages in both colour schemes, and charts and
tables that fit a 1440 px desktop and a 390 px phone.

axe-core 4.14 (tests/browser/axe.py: pinned, fetched from the npm registry with its
integrity checked) runs on every page of the navigation and a sample of generated
pages (a release, a release's benchmark, a benchmark, an accelerator, the three pair
kinds, an interactivity page), once in the light scheme (WCAG 2.0-2.2 A and AA rules
and best practices) and, in the same visit, once more for contrast in the dark one.
Any serious or critical violation fails, named by rule and target.

The same desktop visit measures its charts (no text outside the chart's SVG, no two
tick labels of an axis touching) and tables (no sideways scroll, the header row
sticky in every table box); a phone visit of one page per chart template does the
same at 390 px and checks that every table there stacks into cards.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.browser.axe import axe_source, describe, run_axe
from tests.browser.conftest import BuiltSite
from tests.browser.pages import (
    empty_search_index,
    open_explorer,
    reach_charts,
    styles_ready,
)
from tests.conftest import ROOT

pytestmark = pytest.mark.browser

#: The pages of mkdocs.yml's nav.
NAV_PAGES = (
    "index.html",
    "generated/latest.html",
    "generated/explorer.html",
    "generated/systems.html",
    "generated/software-gains.html",
    "generated/histories.html",
    "generated/interactivity/index.html",
    "generated/models/index.html",
    "generated/power.html",
    "generated/generations.html",
    "generated/scaling.html",
    "generated/releases/index.html",
    "generated/benchmarks/index.html",
    "generated/claims.html",
    "generated/data.html",
    "methodology.html",
    "generated/audit.html",
    "generated/changes.html",
    "generated/performance.html",
)
#: Generated pages of every other template.
SAMPLE_PAGES = (
    "generated/releases/v6.1.html",
    "generated/releases/v5.1/llama2-70b-99.html",
    "generated/benchmarks/llama2-70b-99.html",
    "generated/accelerators/nvidia-h200-sxm.html",
    "generated/generations/llama2-70b-99.html",
    "generated/scaling/llama2-70b-99.html",
    "generated/software-gains/llama2-70b-99.html",
    "generated/interactivity/llama2-70b-99.html",
    "generated/models/deepseek-r1.html",
    "generated/systems/nvidia-nvidia-gb300.html",
)
#: One page per chart template (and the long tables), visited on a phone.
PHONE_PAGES = (
    "index.html",
    "generated/latest.html",
    "generated/systems.html",
    "generated/histories.html",
    "generated/performance.html",
    "methodology.html",
    *SAMPLE_PAGES[1:],
)

#: Texts of a chart's SVG outside it, and tick labels of one axis closer than 2 px.
CHART_LAYOUT = """() => [...document.querySelectorAll('div.vega-chart svg')].map(svg => {
  const box = svg.getBoundingClientRect();
  const problems = [];
  svg.querySelectorAll('text').forEach(t => {
    const r = t.getBoundingClientRect();
    if (!t.textContent.trim() || r.width === 0) return;
    if (r.left < box.left - 1 || r.right > box.right + 1)
      problems.push('outside the chart: ' + t.textContent.trim());
  });
  svg.querySelectorAll('g.role-axis').forEach(axis => {
    const labels = [...axis.querySelectorAll('g.role-axis-label text')]
      .filter(t => t.textContent.trim() && t.getAttribute('opacity') !== '0')
      .map(t => [t.textContent.trim(), t.getBoundingClientRect()]);
    for (let i = 0; i < labels.length; i++) for (let j = i + 1; j < labels.length; j++) {
      const [a, ra] = labels[i], [b, rb] = labels[j];
      const gap = Math.max(rb.left - ra.right, ra.left - rb.right,
                           rb.top - ra.bottom, ra.top - rb.bottom);
      if (gap < 2) problems.push('tick labels touch: ' + a + ' / ' + b);
    }
  });
  return [svg.closest('div.vega-chart').dataset.spec, problems];
})"""
#: Each chart's text alternative: the figure's name, the description it points to
#: (with its link to the numbers) and the SVG's own label.
CHART_TEXT = """() => [...document.querySelectorAll('div.vega-chart')].map(el => {
  const said = document.getElementById(el.getAttribute('aria-describedby') || '');
  const svg = el.querySelector('[role="graphics-document"]');
  return {spec: el.dataset.spec, role: el.getAttribute('role'),
    name: el.getAttribute('aria-label') || '',
    describedBy: said ? said.textContent : null,
    numbers: said ? (said.querySelector('a') || {}).href || null : null,
    svg: svg ? svg.getAttribute('aria-label') || '' : null};
})"""
#: Tables that scroll sideways, and table boxes whose header row is not sticky.
TABLE_LAYOUT = """() => [...document.querySelectorAll('article table')].map((t, i) => {
  const box = t.closest('.md-typeset__scrollwrap');
  const th = t.querySelector('thead th');
  return {table: i, heads: [...t.querySelectorAll('thead th')].map(h => h.textContent.trim()),
    sideways: box ? box.scrollWidth - box.clientWidth : 0,
    sticky: th ? getComputedStyle(th).position === 'sticky' : null};
})"""
#: Tables of a phone page: stacked (their rows are blocks), and the page's overflow.
PHONE_TABLES = """() => ({
  overflow: document.documentElement.scrollWidth - window.innerWidth,
  tables: [...document.querySelectorAll('article table')].map(t => {
    const row = t.querySelector('tbody tr');
    return [[...t.querySelectorAll('thead th')].map(h => h.textContent.trim()).join(' | '),
            row ? getComputedStyle(row).display : null];
  }),
})"""


NO_TRANSITIONS = "*, *::before, *::after { transition: none !important; }"


@dataclass
class Audit:
    light: dict[str, list[dict]] = field(default_factory=dict)
    dark: dict[str, list[dict]] = field(default_factory=dict)
    charts: dict[str, list] = field(default_factory=dict)
    chart_text: dict[str, list[dict]] = field(default_factory=dict)
    tables: dict[str, list[dict]] = field(default_factory=dict)


def _settle(page, path: str) -> None:  # noqa: ANN001
    styles_ready(page)
    reach_charts(page, timeout=30_000)
    if path == "generated/explorer.html":
        open_explorer(page)


@pytest.fixture(scope="module")
def audit(built_site: BuiltSite, chromium_browser) -> Iterator[Audit]:  # noqa: ANN001
    """One desktop visit (1440 px) per page: axe in light, contrast in dark, layout."""
    source = axe_source()
    context = chromium_browser.new_context(
        viewport={"width": 1440, "height": 900},
        color_scheme="light",
        service_workers="block",
    )
    empty_search_index(context, built_site.root)
    page = context.new_page()
    result = Audit()
    for path in (*NAV_PAGES, *SAMPLE_PAGES):
        assert (built_site.root / path).is_file(), path
        page.goto(built_site.url + path, wait_until="load")
        _settle(page, path)
        result.light[path] = run_axe(page, source)
        result.charts[path] = page.evaluate(CHART_LAYOUT)
        result.chart_text[path] = page.evaluate(CHART_TEXT)
        result.tables[path] = page.evaluate(TABLE_LAYOUT)
        # Material's toggle sets the scheme on the body; the page is the same.
        # Without transitions, or axe reads colours half-way (nav links fade).
        page.add_style_tag(content=NO_TRANSITIONS)
        page.evaluate(
            "() => document.body.setAttribute('data-md-color-scheme', 'slate')"
        )
        result.dark[path] = run_axe(page, source, rules=["color-contrast"])
    context.close()
    yield result


def test_every_page_of_the_navigation_is_audited() -> None:
    """A page added to mkdocs.yml's nav is audited too (Systems came after this test)."""
    text = (ROOT / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1]
    nav = re.findall(r"^\s+- [^:]+: (\S+)\.md$", text, flags=re.M)
    assert sorted(NAV_PAGES) == sorted(
        "index.html" if page == "index" else page + ".html" for page in nav
    )


def test_no_serious_or_critical_axe_violation_in_the_light_scheme(
    audit: Audit,
) -> None:
    found = {p: v for p, v in audit.light.items() if v}
    assert found == {}, describe(found)
    assert len(audit.light) == len(NAV_PAGES) + len(SAMPLE_PAGES)


def test_no_contrast_violation_in_the_dark_scheme(audit: Audit) -> None:
    found = {p: v for p, v in audit.dark.items() if v}
    assert found == {}, describe(found)


def test_every_chart_has_a_text_alternative(audit: Audit) -> None:
    charts = [(p, c) for p, found in audit.chart_text.items() for c in found]
    assert len(charts) > 10
    bad = [
        (p, c)
        for p, c in charts
        if c["role"] != "figure"
        or not c["name"]
        or c["describedBy"]
        != "Every number it plots: data as CSV · chart as Vega-Lite JSON · SVG image"
        or not (c["numbers"] or "").endswith(".csv")
        or not (c["svg"] or "").startswith("Chart: ")
    ]
    assert bad == []


def test_charts_fit_a_desktop(audit: Audit) -> None:
    problems = {
        f"{p} {spec}": found
        for p, charts in audit.charts.items()
        for spec, found in charts
        if found
    }
    assert problems == {}
    assert sum(len(c) for c in audit.charts.values()) > 10


def test_tables_fit_a_desktop_and_keep_their_header(audit: Audit) -> None:
    tables = [(p, t) for p, found in audit.tables.items() for t in found]
    assert len(tables) > 40
    sideways = [(p, t["heads"], t["sideways"]) for p, t in tables if t["sideways"] > 1]
    assert sideways == []
    loose = [(p, t["heads"]) for p, t in tables if t["sticky"] is False]
    assert loose == []
    # Latest's top results list their availability on screen (it was cut off).
    latest = [t["heads"] for t in audit.tables["generated/latest.html"]]
    assert any("Availability" in heads for heads in latest)


@pytest.fixture(scope="module")
def phone(built_site: BuiltSite, chromium_browser) -> dict[str, dict]:  # noqa: ANN001
    """One visit per chart template on a 390 px phone: charts and tables."""
    context = chromium_browser.new_context(
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        service_workers="block",
    )
    empty_search_index(context, built_site.root)
    page = context.new_page()
    seen = {}
    for path in PHONE_PAGES:
        page.goto(built_site.url + path, wait_until="load")
        _settle(page, path)
        seen[path] = {
            "charts": page.evaluate(CHART_LAYOUT),
            **page.evaluate(PHONE_TABLES),
        }
    context.close()
    return seen


def test_charts_fit_a_phone(phone: dict[str, dict]) -> None:
    problems = {
        f"{p} {spec}": found
        for p, seen in phone.items()
        for spec, found in seen["charts"]
        if found
    }
    assert problems == {}
    assert sum(len(s["charts"]) for s in phone.values()) > 10


def test_every_table_is_cards_on_a_phone(phone: dict[str, dict]) -> None:
    assert {p: s["overflow"] for p, s in phone.items() if s["overflow"] > 0} == {}
    tables = [
        (p, heads, display) for p, s in phone.items() for heads, display in s["tables"]
    ]
    assert len(tables) > 20
    # Hand-written tables (Methodology, the Performance page) too.
    assert any(p == "methodology.html" for p, _, _ in tables)
    assert [(p, h, d) for p, h, d in tables if d != "block"] == []
