"""MkDocs hooks: the generated pages in the nav, and front matter made inert.

MkDocs has no globbing in ``nav`` and we avoid extra plugins, so ``mkdocs.yml`` names
each generated section by its index page (``generated/releases/index.md``) and
``on_config`` expands it into the index plus one entry per page, in the order
``render_site`` wrote to ``generated/partials/nav.json``.

Material writes a page's front-matter ``title``, ``description`` and ``author`` into
``<title>``, ``<meta>`` attributes and the header without escaping them;
``on_page_markdown`` rewrites them as escaped text without tags, so no page's front
matter can inject markup (``site/overrides/main.html`` does the same for titles
taken from headings). Loaded by MkDocs from its file path (``hooks:``), so it
imports nothing from the pipeline.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from markupsafe import Markup, escape

log = logging.getLogger("mkdocs.hooks.mlperf_ledger")
NAV_FILE = Path("generated") / "partials" / "nav.json"
#: Front-matter keys Material prints into HTML unescaped.
META_TEXT = ("title", "description", "author")


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
