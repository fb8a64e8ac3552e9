"""MkDocs hook: list the generated per-release and per-benchmark pages in the nav.

MkDocs has no globbing in ``nav`` and we avoid extra plugins, so ``mkdocs.yml`` names
each generated section by its index page (``generated/releases/index.md``) and this hook
expands it into the index plus one entry per page, in the order ``render_site`` wrote
to ``generated/partials/nav.json``. Loaded by MkDocs from its file path (``hooks:``), so
it imports nothing from the pipeline.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

log = logging.getLogger("mkdocs.hooks.mlperf_ledger")
NAV_FILE = Path("generated") / "partials" / "nav.json"


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
