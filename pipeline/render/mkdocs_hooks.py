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

The Vega bundle (~900 KB) is not in ``extra_javascript``: ``on_post_page`` puts a
deferred ``<script>`` for it in the head of pages that hold a chart only, and
``site/assets/js/charts.js`` loads it on demand when instant navigation swaps in a
chart page. ``on_post_build`` precompresses every large text file (``<file>.gz``
next to it, byte-identical across builds): a static server that serves those
(nginx ``gzip_static on;``, Caddy ``file_server { precompressed gzip }``) sends a
first visit in a fraction of the bytes; ``python -m http.server`` ignores them.

Loaded by MkDocs from its file path (``hooks:``), so it imports nothing from the
pipeline.
"""

from __future__ import annotations

import gzip
import json
import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

log = logging.getLogger("mkdocs.hooks.mlperf_ledger")
NAV_FILE = Path("generated") / "partials" / "nav.json"
#: Front-matter keys Material prints into HTML unescaped.
META_TEXT = ("title", "description", "author")
#: The Vega bundle (``pipeline.render.bundle``), relative to the site root.
VEGA_BUNDLE = "generated/assets/js/vega-bundle.js"
#: What marks a page with a chart (``pipeline.render.site.Site.chart``).
CHART_MARK = 'class="vega-chart"'
#: Files precompressed after the build: text a browser loads, from this size on.
COMPRESSED_SUFFIXES = (".html", ".js", ".css", ".json", ".svg", ".xml")
COMPRESS_FROM_BYTES = 10_000
#: Elements whose whitespace is content (or code): left exactly as written.
_VERBATIM = re.compile(
    r"<(pre|code|script|style|textarea)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE
)
#: A run of whitespace holding a line break (template indentation).
_BREAKS = re.compile(r"[ \t]*\n[ \t\n]*")


def _expand(item: Any, sections: dict[str, list[dict[str, str]]]) -> Any:
    if isinstance(item, dict) and len(item) == 1:
        ((title, target),) = item.items()
        if isinstance(target, str) and target in sections:
            return {title: [target, *sections[target]]}
        if isinstance(target, list):
            return {title: [_expand(child, sections) for child in target]}
    return item


def on_config(config: Any) -> Any:
    """Expand nav entries whose index page has generated children."""
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


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Make the page's front-matter title, description and author inert text."""
    for key in META_TEXT:
        if page.meta.get(key) not in (None, ""):
            page.meta[key] = inert(page.meta[key])
    return markdown


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


def on_post_page(output: str, page: Any, config: Any, **_: Any) -> str:
    """Compact the page; load the Vega bundle (deferred) where it holds a chart."""
    output = compact_html(output)
    if CHART_MARK not in output:
        return output
    src = posixpath.relpath(VEGA_BUNDLE, posixpath.dirname(page.url) or ".")
    tag = f'<script defer src="{src}"></script>'
    return output.replace("</head>", f"{tag}\n</head>", 1)


def precompress(site_dir: Path) -> list[Path]:
    """Write ``<file>.gz`` next to each large text file of the built site.

    A ``.gz`` already there (the bundle's, copied from the build cache) is kept.
    ``mtime=0`` keeps the bytes identical across builds of identical inputs.
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
        target.write_bytes(gzip.compress(path.read_bytes(), compresslevel=6, mtime=0))
        written.append(target)
    return written


def on_post_build(config: Any, **_: Any) -> None:
    """Precompress the built site (see the module docstring)."""
    precompress(Path(config["site_dir"]))
