"""The Latest page: the newest round's results and what's new in it.

Its builder still lives with the release pages (``release_pages.build_latest``),
which lay out both; it is its own entry of ``pages.PAGE_MODULES`` because it is built
before the pair pages (chart names are given in build order).
"""

from __future__ import annotations

from pipeline.render.release_pages import build_latest as build

__all__ = ["build"]
