"""MkDocs hooks: the generated pages in the nav, and front matter made inert.

MkDocs has no globbing in ``nav`` and we avoid extra plugins, so ``mkdocs.yml`` names
each generated section by its index page (``generated/releases/index.md``) and
``on_config`` expands it into the index plus one entry per page, in the order
``render_site`` wrote to ``generated/partials/nav.json``.

Material writes a page's front-matter ``title``, ``description`` and ``author`` into
``<title>``, ``<meta>`` attributes and the header without escaping them;
``on_page_markdown`` rewrites them as escaped text without tags, so no page's front
matter can inject markup (``site/overrides/main.html`` does the same for titles
taken from headings).

The Vega bundle (~900 KB) is not in ``extra_javascript`` nor in any page's head:
every chart is shown first as its build-time SVG, and ``site/assets/js/charts.js``
loads the bundle only when a reader reaches for a chart (pointer, touch, keyboard).
``on_post_build`` precompresses every large text file (``<file>.gz``
next to it, byte-identical across builds): a static server that serves those
(nginx ``gzip_static on;``, Caddy ``file_server { precompressed gzip }``) sends a
first visit in a fraction of the bytes; ``python -m http.server`` ignores them.

Large self-contained raw-HTML blocks (the result tables, most of the generated
Markdown's bytes) skip Markdown: ``on_page_markdown`` swaps each for a placeholder
``<div data-ledger-fragment="<sha256 prefix>"></div>`` and ``on_post_page`` puts the
block back, byte for byte, before compacting: the built pages are the same bytes.
Python-Markdown passed them through unchanged anyway, but only after parsing them
with ``html.parser`` (Markdown took 6.3 CPU seconds for the 4-round site, 1.8 now),
and Material's search parsed them again. Search indexes ``page.content`` in between,
so it indexes the pages' prose and headings, not the big tables (the Explorer is
where readers find numbers). The generated Markdown files stay whole pages, as the
render tests read them: only this hook knows about fragments.

Loaded by MkDocs from its file path (``hooks:``), so it imports nothing from the
pipeline but the patches next to it (``patches.py``: every patch of MkDocs' internals,
and the check, in ``on_config``, that MkDocs, Material and Markdown are the pinned
versions those patches were written for).
"""

from __future__ import annotations

import gzip
import hashlib
import html as html_text
import json
import logging
import os
import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape
from mkdocs.exceptions import PluginError

from pipeline.render.mkdocs import patches

log = logging.getLogger("mkdocs.hooks.mlperf_ledger")
NAV_FILE = Path("generated") / "partials" / "nav.json"
#: Front-matter keys Material prints into HTML unescaped.
META_TEXT = ("title", "description", "author")
#: The systems list's filter (``pipeline.render.system_pages``), and its script,
#: relative to the site root: put at the end of that page's article only, where
#: Material's instant navigation runs it again when it swaps the page in.
FILTER_MARK = 'class="ledger-systems__filter"'
FILTER_SCRIPT = "assets/js/systems.js"
#: Material's bundle as its base template loads it, at the end of every page. The
#: page gets it inert instead (``on_post_page``): ``site/assets/js/material.js``
#: loads it on the reader's first move, so a long page is not restyled by it before
#: the reader can tap anything.
MATERIAL_BUNDLE = re.compile(
    r'<script src="([^"<>]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>'
)
#: A table as Material styles and wraps it (``table:not([class])``), nested in none.
_TABLE = re.compile(r"<table(?:\s[^>]*)?>.*?</table>", re.DOTALL)
#: Material's table wrapper, written by its bundle: the build writes it instead, so
#: a page reads the same (sticky headers, sideways scroll) before Material runs.
TABLE_WRAP = (
    '<div class="md-typeset__scrollwrap" data-ledger-wrap>'
    '<div class="md-typeset__table">{}</div></div>'
)
_CLASS_ATTRIBUTE = re.compile(r"\sclass\s*=", re.IGNORECASE)
#: Files precompressed after the build: text a browser loads, from this size on.
COMPRESSED_SUFFIXES = (".html", ".js", ".css", ".json", ".svg", ".xml", ".csv")
COMPRESS_FROM_BYTES = 10_000
#: The page-cache hook as ``mkdocs.yml`` lists it (it keeps gzip output too).
CACHE_HOOK = "pipeline/render/mkdocs/cache.py"
#: Elements whose whitespace is content (or code): left exactly as written.
_VERBATIM = re.compile(
    r"<(pre|code|script|style|textarea)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE
)
#: A run of whitespace holding a line break (template indentation).
_BREAKS = re.compile(r"[ \t]*\n[ \t\n]*")
#: From this size on a self-contained raw-HTML block skips Markdown (a fragment).
FRAGMENT_FROM_CHARS = 1024
#: Hex digits of sha256 naming a fragment in its placeholder.
FRAGMENT_HEX = 24
#: Elements a fragment may be: block-level for Python-Markdown, so the placeholder
#: ``<div>`` standing in for one keeps the page's Markdown meaning.
FRAGMENT_TAGS = ("table", "div", "details", "section", "figure", "ul", "ol", "dl")
#: The only placeholder form ``on_post_page`` replaces. Upstream text cannot forge
#: one: the pipeline HTML-escapes every upstream string before it reaches a page
#: (``pipeline.render.escape``), so upstream text never holds a ``<``; and a page's
#: placeholders are looked up among that page's own fragments only.
FRAGMENT = re.compile(
    rf'<div data-ledger-fragment="([0-9a-f]{{{FRAGMENT_HEX}}})"></div>'
)
_OUTER_TAG = re.compile(r"<([a-z]+)[\s>]")
#: A fenced code block's opening or closing line (backticks or tildes).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: An attribute value (double-quoted, single-quoted or bare), a start tag (its name,
#: its attributes) and one attribute of it, as HTML tokenises them.
_VALUE = r"""(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))"""
_START_TAG = re.compile(
    rf"<([a-zA-Z][^\s/>]*)((?:\s+[^\s=/>]+(?:\s*=\s*{_VALUE})?)*)\s*/?>"
)
_ATTRIBUTE = re.compile(rf"([^\s=/>]+)(?:\s*=\s*{_VALUE})?")


def _expand(item: Any, sections: dict[str, list[dict[str, str]]]) -> Any:
    if isinstance(item, dict) and len(item) == 1:
        ((title, target),) = item.items()
        if isinstance(target, str) and target in sections:
            return {title: [target, *sections[target]]}
        if isinstance(target, list):
            return {title: [_expand(child, sections) for child in target]}
    return item


#: The docs folder of the build in progress: files under it are linked, not copied.
_linked_from: list[Path] = []


def _link_or_copy(source_path: str, output_path: str) -> None:
    """MkDocs' copy of a static file, as a hard link when it is the staged project's.

    The staging project is never written into in place: a file whose bytes change
    gets a new inode (``files.write_file``), so the site can share its files' bytes:
    a build holds thousands of static files (chart data, downloads).
    Theme files and anything on another file system are copied as MkDocs does.
    """
    source = Path(source_path)
    if _linked_from and source.is_relative_to(_linked_from[0]):
        target = Path(output_path)
        if target.is_dir():
            target = target / source.name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.unlink(missing_ok=True)
            os.link(source, target)
            return
        except OSError:
            pass
    patches.original("copy_file")(source_path, output_path)


def on_config(config: Any) -> Any:
    """Expand nav entries whose index page has generated children.

    First checks that MkDocs, Material and Markdown are the versions the patches were
    written for (``patches.install``), and links static files (``_link_or_copy``).
    Without a site URL, instant navigation is off: it reads the sitemap, which then
    names no page.
    """
    patches.install(copy_file=_link_or_copy)
    _linked_from[:] = [Path(config["docs_dir"]).resolve()]
    theme = config.get("theme")
    if not config.get("site_url") and theme is not None:
        features = theme.get("features") or []
        if "navigation.instant" in features:
            features.remove("navigation.instant")
    nav_file = Path(config["docs_dir"]) / NAV_FILE
    if not nav_file.is_file():
        log.warning(
            "%s is missing: run `make site` to render the pages first", nav_file
        )
        return config
    sections = json.loads(nav_file.read_text(encoding="utf-8"))
    if config["nav"]:
        config["nav"] = [_expand(item, sections) for item in config["nav"]]
    return config


def inert(value: object) -> str:
    """Text without tags, HTML-escaped once: safe in element content and attributes.

    Idempotent: already-escaped text ("A &amp; B") comes back unchanged, so a title
    written escaped and one written raw end up the same.
    """
    return str(escape(Markup(str(value)).striptags()))


def _self_contained(block: str) -> bool:
    """A block Python-Markdown would pass through as one raw-HTML block, unchanged.

    It starts at column 0 with a block-level element's start tag and ends with that
    element's end tag, the one closing its outermost start tag, so no Markdown
    before or after it belongs to it.
    """
    match = _OUTER_TAG.match(block)
    if not match or match.group(1) not in FRAGMENT_TAGS:
        return False
    tag = match.group(1)
    if not block.endswith(f"</{tag}>"):
        return False
    depth = 0
    for edge in re.finditer(rf"<(/?){tag}[\s>]", block):
        depth += -1 if edge.group(1) else 1
        if depth == 0:
            return edge.end() == len(block)
    return False


def split_fragments(markdown: str) -> tuple[str, dict[str, str]]:
    """``markdown`` with its large self-contained HTML blocks as placeholders.

    Blocks are runs of lines between blank lines; lines inside fenced code are left
    alone. Returns the new Markdown and ``{sha256 prefix: block}``.
    """
    lines = markdown.split("\n")
    out: list[str] = []
    found: dict[str, str] = {}
    fence = ""
    start = 0

    def flush(end: int) -> None:
        block = "\n".join(lines[start:end])
        if len(block) >= FRAGMENT_FROM_CHARS and _self_contained(block):
            key = hashlib.sha256(block.encode()).hexdigest()[:FRAGMENT_HEX]
            found[key] = block
            out.append(f'<div data-ledger-fragment="{key}"></div>')
        else:
            out.extend(lines[start:end])

    for i, line in enumerate(lines):
        marker = _FENCE.match(line)
        if fence:
            out.append(line)
            closes = marker and marker.group(1).startswith(fence)
            if closes and not line.strip("`~ \t"):
                fence = ""
            start = i + 1
        elif marker or not line.strip():
            flush(i)
            out.append(line)
            fence = marker.group(1) if marker else ""
            start = i + 1
    if not fence:
        flush(len(lines))
    return "\n".join(out), found


def fragment_anchors(fragments: dict[str, str]) -> set[str]:
    """The ids (and ``<a name>``) in the fragments, as MkDocs collects them.

    MkDocs checks ``[text](#anchor)`` links against the anchors it finds in a page's
    raw HTML while converting it; the fragments are not there then, so the hook
    adds theirs (a regular expression, not an HTML parser: that is the point).
    """
    anchors: set[str] = set()
    for fragment in fragments.values():
        for tag in _START_TAG.finditer(fragment):
            attrs = tag.group(2).lower()
            if "id" not in attrs and "name" not in attrs:
                continue
            for attr in _ATTRIBUTE.finditer(tag.group(2)):
                key = attr.group(1).lower()
                if key == "id" or (key == "name" and tag.group(1).lower() == "a"):
                    value = next((v for v in attr.group(2, 3, 4) if v is not None), "")
                    anchors.add(html_text.unescape(value))
    return anchors


def join_fragments(html: str, fragments: dict[str, str], page: str) -> str:
    """``html`` with each placeholder replaced by its fragment.

    Raises:
        PluginError: a placeholder names no fragment of the page, or a fragment's
            placeholder did not reach the HTML (its table would be lost).
    """
    used: set[str] = set()

    def fragment(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in fragments:
            raise PluginError(f"{page}: HTML fragment {key} is missing")
        used.add(key)
        return fragments[key]

    html = FRAGMENT.sub(fragment, html)
    lost = sorted(fragments.keys() - used)
    if lost:
        raise PluginError(f"{page}: HTML fragment {lost[0]} is not in the page's HTML")
    return html


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Make front-matter text inert; set the page's large HTML blocks aside."""
    for key in META_TEXT:
        if page.meta.get(key) not in (None, ""):
            page.meta[key] = inert(page.meta[key])
    # Kept on the page object: one build's pages live from here to on_post_page.
    markdown, page.ledger_fragments = split_fragments(markdown)
    return markdown


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """Count the fragments' anchors as the page's (for MkDocs' link validation)."""
    fragments = getattr(page, "ledger_fragments", {})
    if fragments and getattr(page, "present_anchor_ids", None) is not None:
        page.present_anchor_ids |= fragment_anchors(fragments)
    return html


def compact_html(html: str) -> str:
    """Template indentation removed: each whitespace run with a line break becomes one.

    Browsers render any whitespace run outside preformatted text as one space, so
    the page looks the same; Material's nav alone was ~40 KB of indentation on
    every page. ``<pre>``, ``<code>``, ``<script>``, ``<style>`` and ``<textarea>``
    are left byte for byte.
    """
    out, last = [], 0
    for match in _VERBATIM.finditer(html):
        out += [_BREAKS.sub("\n", html[last : match.start()]), match.group(0)]
        last = match.end()
    out.append(_BREAKS.sub("\n", html[last:]))
    return "".join(out)


def inert_bundle(html: str, page: str, expected: int | None = 1) -> str:
    """Material's bundle tag as an inert one naming its address (``material.js``).

    A page without exactly the ``expected`` number of such tags is an error: a
    Material release that loads its bundle otherwise must be looked at, not
    half-deferred.
    """
    found = MATERIAL_BUNDLE.findall(html)
    if expected is not None and len(found) != expected:
        raise PluginError(
            f"{page}: expected Material's bundle script {expected} time(s), found it "
            f"{len(found)} times (has Material's base template changed?)"
        )
    return MATERIAL_BUNDLE.sub(
        lambda m: (
            f'<script data-ledger-material="{m.group(1)}" type="text/plain"></script>'
        ),
        html,
    )


def _material(config: Any) -> bool:
    """Whether the build uses Material (the site does; some tests build without)."""
    theme = config.get("theme") if hasattr(config, "get") else None
    return getattr(theme, "name", None) == "material"


def wrap_tables(html: str, page: str) -> str:
    """Every table Material would wrap, wrapped at build time as Material wraps it.

    Material's bundle waits for a reader's first move (``material.js``); until then
    the page must lay out as it will after: ``material.js`` removes these wrappers
    once Material has put its own around the same tables.
    """

    def wrap(match: re.Match[str]) -> str:
        table = match.group(0)
        start = table[: table.index(">") + 1]
        if _CLASS_ATTRIBUTE.search(start):
            return table
        if "<table" in table[1:]:
            raise PluginError(f"{page}: a table inside a table (not wrapped)")
        return TABLE_WRAP.format(table)

    return _TABLE.sub(wrap, html)


def on_post_template(output: str, template_name: str, config: Any, **_: Any) -> str:
    """The 404 page, a theme template: Material's bundle inert there too.

    Not counted: built without a site URL the site's 404 is the standalone page
    (``site/overrides/404.html``), which loads no bundle at all.
    """
    if template_name == "404.html" and _material(config):
        return inert_bundle(output, template_name, expected=None)
    return output


def on_post_page(output: str, page: Any, config: Any, **_: Any) -> str:
    """Put the fragments back; compact; Material's bundle inert; the list's filter.

    The filter script goes at the end of the list's article (no other page loads
    it; generated Markdown holds no ``<script>``).
    """
    output = join_fragments(output, getattr(page, "ledger_fragments", {}), page.url)
    output = compact_html(output)
    # A page the page cache reuses renders an empty template (cache.py).
    if output and _material(config):
        output = wrap_tables(inert_bundle(output, page.url), page.url)
    if FILTER_MARK in output and "</article>" in output:
        src = posixpath.relpath(FILTER_SCRIPT, posixpath.dirname(page.url) or ".")
        tag = f'<script defer src="{src}"></script>'
        output = output.replace("</article>", f"{tag}\n</article>", 1)
    return output


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6, mtime=0)


def _write_gzip(data: bytes, target: Path) -> None:
    target.write_bytes(_gzip(data))


def precompress(
    site_dir: Path, write: Callable[[bytes, Path], None] = _write_gzip
) -> list[Path]:
    """Write ``<file>.gz`` next to each large text file of the built site.

    A ``.gz`` already there (the bundle's, copied from the build cache) is kept.
    ``mtime=0`` keeps the bytes identical across builds of identical inputs;
    ``write`` is the page cache's (``cache.py``) when there is one, which
    links the last build's ``.gz`` of identical bytes into place.
    """
    written = []
    for path in sorted(site_dir.rglob("*")):
        if (
            path.suffix not in COMPRESSED_SUFFIXES
            or not path.is_file()
            or path.stat().st_size < COMPRESS_FROM_BYTES
        ):
            continue
        target = path.with_name(path.name + ".gz")
        if target.exists():
            continue
        write(path.read_bytes(), target)
        written.append(target)
    return written


def on_post_build(config: Any, **_: Any) -> None:
    """Precompress the built site (see the module docstring).

    Without a site URL the sitemap would list pages at "None": it is not published.
    """
    site = Path(config["site_dir"])
    if not config.get("site_url"):
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            (site / name).unlink(missing_ok=True)
    cache = config.plugins.get(CACHE_HOOK)
    precompress(site, getattr(cache, "write_gzip", None) or _write_gzip)
