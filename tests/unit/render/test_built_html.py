"""Hostile upstream names stay text in the built HTML, in every HTML context.

Page bodies were escaped, but Material's ``<title>{{ page.title | striptags }}``
turned the entities back into characters: ``Model =
</title><script>alert(document.domain)</script>`` ran in Chromium. This test renders
one small table with a payload in every upstream field that reaches a page title,
heading, attribute, tooltip or chart label, builds it with the project's own MkDocs
build (``publish.stage_project`` + ``publish.mkdocs_build``), and parses the HTML.
"""

from __future__ import annotations

import json
import posixpath
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest

from pipeline.publish import mkdocs_build, stage_project
from pipeline.render.mkdocs.hooks import compact_html, split_fragments, wrap_tables
from pipeline.render.pages import render_site
from pipeline.render.site_data import SNAPSHOT_SCHEMA, SiteData
from pipeline.transform.results import empty_rejected
from tests.unit.render.conftest import LINEAGE, frame, pair, pairs, result

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

#: Closes <title>, opens a script, an image with a handler, and breaks out of double-
#: and single-quoted attributes.
PAYLOAD = (
    "</title><script>alert(document.domain)</script><img src=x onerror=alert(1)>"
    "\" onmouseover=\"alert(2)' onfocus='alert(3)"
)
BENCHMARK = "bench" + PAYLOAD
SITE_NAME = "mlperf-ledger"
#: A generated page with front matter: Material prints its title and description
#: unescaped unless the hook makes them inert.
FRONT_MATTER_PAGE = (
    "---\n"
    "title: >-\n  front</title><script>alert(document.domain)</script>\n"
    'description: >-\n  "><script>alert(4)</script>\n'
    "---\n\n# Front matter\n"
)


def hostile(**overrides: object) -> dict:
    """A result whose every displayed upstream string carries the payload."""
    fields: dict[str, object] = {
        "benchmark": BENCHMARK,
        "submitter": "submitter" + PAYLOAD,
        "system_name": "system" + PAYLOAD,
        "platform": "platform" + PAYLOAD,
        "accelerator_name": "accelerator" + PAYLOAD,
        "host_cpu_name": "cpu" + PAYLOAD,
        "software": "software" + PAYLOAD,
        "result_unit": "unit" + PAYLOAD,
        "result_key": "key" + PAYLOAD,
        "scenario": "scenario" + PAYLOAD,
        "division": "division" + PAYLOAD,
        "availability": "availability" + PAYLOAD,
    }
    return result(**(fields | overrides))


OLD = hostile()
NEW = hostile(
    release="v6.0",
    result_id="6.0-0004",
    result_key="key2" + PAYLOAD,
    result_value=34754.9,
    result_per_accelerator=34754.9 / 8,
)


class _Page(HTMLParser):
    """Script elements, every attribute, and the <title> text of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self.titles: list[str] = []
        self.description: str | None = None
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            self.attributes.append((tag, name, value or ""))
        if tag == "meta" and dict(attrs).get("name") == "description":
            self.description = dict(attrs).get("content")
        if tag == "script":
            self.scripts.append(dict(attrs).get("src") or "inline")
        if tag == "title":
            self._in_title = True
            self.titles.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.titles[-1] += data
        if self.lasttag == "script" and "alert" in data:
            self.scripts.append("inline with alert")


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of one hostile software gain, built as ``out_site__published`` does."""
    root = tmp_path_factory.mktemp("hostile-html")
    project = stage_project(root / "project")
    data = SiteData(
        results=frame(OLD, NEW),
        rejected=empty_rejected(),
        gains=pairs(pair(OLD, NEW)),
        generations=pairs(),
        scaling=pairs(),
        snapshots=pl.DataFrame(schema=SNAPSHOT_SCHEMA),
        lineage_mermaid=LINEAGE,
        pipeline_commit="0" * 40,
        built_at="2026-01-02T03:04:05+00:00",
    )
    generated = project / "site" / "generated"
    render_site(data, generated, bundle=False)
    (generated / "front.md").write_text(FRONT_MATTER_PAGE, encoding="utf-8")
    ok, problems = mkdocs_build(project, root / "out", "http://127.0.0.1:8000/")
    assert ok, problems
    return root / "out"


def _own_scripts(site: Path, page: Path, scripts: list[str]) -> list[str]:
    """Script sources as site paths (the same on every page), "inline" for the rest."""
    base = posixpath.dirname(page.relative_to(site).as_posix())
    return [
        s
        if s.startswith("inline")
        # 404.html links from the site root (site_url is http://127.0.0.1:8000/).
        else s.removeprefix("/")
        if s.startswith("/")
        else posixpath.normpath(posixpath.join(base, s))
        for s in scripts
    ]


def test_pages_run_only_the_sites_own_scripts(built: Path) -> None:
    own = _own_scripts(
        built, built / "methodology.html", _parse(built / "methodology.html").scripts
    )
    assert "assets/js/charts.js" in own
    # No page loads the ~900 KB Vega bundle: charts.js does, for a chart a reader
    # reaches for.
    bundle = "generated/assets/js/vega-bundle.js"
    assert bundle not in own and "assets/js/systems.js" not in own
    # Nor Material's bundle: material.js loads it on the reader's first move, from
    # the inert tag naming it.
    assert "assets/js/material.js" in own
    assert [s for s in own if "javascripts/bundle" in s] == []
    pages = sorted(built.rglob("*.html"))
    assert len(pages) > 10
    with_charts = 0
    for path in pages:
        page = _parse(path)
        scripts = _own_scripts(built, path, page.scripts)
        if 'class="vega-chart"' in path.read_text(encoding="utf-8"):
            with_charts += 1
        # The systems list alone loads its filter, at the end of its article.
        listed = path == built / "generated" / "systems.html"
        assert scripts.count("assets/js/systems.js") == listed, path
        if listed:
            scripts.remove("assets/js/systems.js")
        assert scripts == own, path
        assert 'data-ledger-material="' in path.read_text(encoding="utf-8"), path
        injected = [
            (tag, name)
            for tag, name, value in page.attributes
            if name.startswith("on") or (tag == "img" and value == "x")
        ]
        assert injected == [], path
    assert 0 < with_charts < len(pages)


def test_the_title_shows_the_hostile_name_as_text(built: Path) -> None:
    (path,) = [
        p
        for p in (built / "generated" / "benchmarks").glob("*.html")
        if p.name != "index.html"
    ]
    raw = path.read_text(encoding="utf-8")
    head = raw[raw.index("<title>") + len("<title>") : raw.index("</title>")]
    assert "<" not in head and ">" not in head
    assert _parse(path).titles == [f"{BENCHMARK} - {SITE_NAME}"]


def test_front_matter_title_and_description_are_text(built: Path) -> None:
    page = _parse(built / "generated" / "front.html")
    assert page.titles == [f"frontalert(document.domain) - {SITE_NAME}"]
    assert page.description == '">alert(4)'


def test_search_index_holds_the_names_escaped(built: Path) -> None:
    docs = json.loads((built / "search" / "search_index.json").read_text())["docs"]
    titles = [d["title"] for d in docs if d["title"].startswith("bench")]
    assert titles and all(
        t.startswith("bench&lt;/title&gt;&lt;script&gt;") for t in titles
    )
    assert not [d for d in docs if "<script" in d["title"] + d["text"]]


def _strings(value: object) -> set[str]:
    """Every string value in a JSON document."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*map(_strings, value.values()))
    if isinstance(value, list):
        return set().union(*map(_strings, value))
    return set()


def test_chart_specs_cannot_close_a_script_element(built: Path) -> None:
    charts = built / "generated" / "charts"
    files = sorted(charts.rglob("*.json"))
    assert files
    labelled = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert "<" not in text and ">" not in text, path
        if BENCHMARK in _strings(json.loads(text)):
            labelled.append(path.relative_to(charts).as_posix())
    # The payload is still there, as JSON text that Vega draws as text.
    assert "home-software-gains.json" in labelled


def _tooltip_keys(value: object) -> set[str]:
    """The key each tooltip entry of a Vega-Lite spec shows (its title or field)."""
    keys: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "tooltip" and isinstance(item, list):
                keys |= {t.get("title", t.get("field")) for t in item}
            keys |= _tooltip_keys(item)
    elif isinstance(value, list):
        for item in value:
            keys |= _tooltip_keys(item)
    return keys


def test_tooltips_show_every_value_as_text(built: Path) -> None:
    """vega-tooltip escapes values (& and <) into table cells, except an "image"
    entry, which goes into an <img src> attribute: no chart may have one."""
    keys = set().union(
        *(
            _tooltip_keys(json.loads(path.read_text(encoding="utf-8")))
            for path in (built / "generated" / "charts").glob("*.json")
        )
    )
    assert {"pair", "older result key", "newer result"} <= keys
    assert "image" not in keys


def test_static_chart_fallbacks_hold_the_names_as_text(built: Path) -> None:
    svg = ET.parse(built / "generated" / "charts" / "home-software-gains.svg")
    tags = {element.tag.rsplit("}", 1)[-1] for element in svg.iter()}
    assert "script" not in tags and "img" not in tags and "foreignObject" not in tags
    handlers = [
        name
        for element in svg.iter()
        for name in element.attrib
        if name.startswith("on")
    ]
    assert handlers == []
    texts = [element.text or "" for element in svg.iter()]
    assert any(text.startswith("bench</title><script>") for text in texts)


def test_tables_set_aside_from_markdown_are_back_in_the_pages(built: Path) -> None:
    """``mkdocs_hooks`` swaps large tables for placeholders around Markdown; each
    must be back in its page, as the build's compacted HTML (its tables wrapped as
    Material wraps them)."""
    docs = built.parent / "project" / "site"
    restored = 0
    for source in sorted((docs / "generated").rglob("*.md")):
        if "partials" in source.parts:
            continue
        page = built / source.relative_to(docs).with_suffix(".html")
        html = page.read_text(encoding="utf-8")
        assert "data-ledger-fragment" not in html, page
        _, fragments = split_fragments(source.read_text(encoding="utf-8"))
        for fragment in fragments.values():
            assert wrap_tables(compact_html(fragment), "") in html, page
            restored += 1
    assert restored >= 5
