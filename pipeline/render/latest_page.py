"""The Latest page: the newest round's top rows and what's new in it.

Laid out as a release page (``release_views``), with the newest round's "What's new"
(``whats_new``) after its numbers. It is its own entry of ``pages.PAGE_MODULES``,
built before the pair pages (chart names are given in build order).
"""

from __future__ import annotations

import polars as pl

from pipeline.render.model import Model
from pipeline.render.release_views import (
    LATEST_TOP_N,
    ranked,
    release_facts,
    release_page,
    result_cells,
)
from pipeline.render.safe import Md
from pipeline.render.spec import GENERATED, Draft, PageSpec, Rendered
from pipeline.render.whats_new import whats_new

PAGE = "latest.md"


def render(model: Model) -> Rendered:
    """The "Latest release" digest: the top rows of the newest release."""
    draft = Draft()
    if not model.releases:
        draft.page(PAGE, "# Latest release\n\nNo results yet.\n")
        return draft.done()
    latest = model.releases[-1]
    results = model.results.filter(pl.col("release") == latest)
    cells = result_cells(ranked(results))
    page = f"{GENERATED}/{PAGE}"
    release_page(
        draft,
        release_facts(model, latest, page, cells),
        PAGE,
        title=Md("Latest release: {}").format(latest),
        results=results,
        cells=cells,
        top_n=LATEST_TOP_N,
        lead=whats_new(model, draft, page, latest, "latest-whats-new"),
    )
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Latest page: it reads the whole model (the newest round, its pairs)."""
    return [PageSpec("latest", render, {"model": model})]
