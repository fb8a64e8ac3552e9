"""Release pages: one per round, one per benchmark of a round, and the Releases index.

Each round's page and its benchmark pages are a function of the round's own rows and
its ``release_views.ReleaseFacts``, so a new round or a correction re-renders only the
rounds it touches (the render cache keys each on exactly those inputs). The index
lists every known round with its status (``coverage.round_status``); each round's
official-style grid is a download. The layout is ``release_views``'.
"""

from __future__ import annotations

import polars as pl

from pipeline.render.downloads import make_downloads
from pipeline.render.grid import round_grid
from pipeline.render.model import Model, Slugs
from pipeline.render.release_views import (
    GRIDS,
    ReleaseFacts,
    ranked,
    release_benchmark_pages,
    release_facts,
    release_page,
    releases_index,
    result_cells,
)
from pipeline.render.safe import Md
from pipeline.render.spec import GENERATED, Draft, PageSpec, Rendered


def render_release(
    facts: ReleaseFacts, results: pl.DataFrame, cells: pl.DataFrame
) -> Rendered:
    """One round's page."""
    draft = Draft()
    release = facts.release
    value = release_page(
        draft,
        facts,
        facts.slugs.page_of("releases", release),
        title=Md("MLPerf Inference {}").format(release),
        results=results,
        cells=cells,
    )
    return draft.done(value)


def render_grids(grids: dict[str, tuple[pl.DataFrame, str]]) -> Rendered:
    """Each round's official-style grid, as CSV and Parquet downloads."""
    draft = Draft()
    for d in make_downloads(grids):
        draft.file(f"{GRIDS}/{d.csv.name}", d.csv_bytes)
        draft.file(f"{GRIDS}/{d.parquet.name}", d.parquet_bytes)
    return draft.done()


def render_benchmarks(release: str, slugs: Slugs, cells: pl.DataFrame) -> Rendered:
    """Every submitter's best result per accelerator type, one page per benchmark."""
    draft = Draft()
    pages = release_benchmark_pages(draft, slugs, release, cells)
    # Entity pages of their own folder: the one-page-per-entity check covers them.
    draft.index(f"releases/{slugs.entity_slug('releases', release)}", pages)
    return draft.done(pages)


def render_index(model: Model) -> Rendered:
    """The Releases index, the rounds' nav entries and their page index."""
    draft = Draft()
    draft.page("releases/index.md", releases_index(model))
    # The per-benchmark pages stay out of the nav (each release page links them):
    # every page carries the nav, so a hundred more entries would weigh on all.
    newest_first = list(reversed(model.releases))
    draft.nav(
        f"{GENERATED}/releases/index.md",
        [
            {Md.escape(r): f"{GENERATED}/{model.page_of('releases', r)}"}
            for r in newest_first
        ],
    )
    draft.index("releases", {r: model.page_of("releases", r) for r in newest_first})
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """Every round's page, its grid, its benchmark pages, then the Releases index."""
    # Split once, rank per release, format the cells of every release in one go
    # (row by row, so each release keeps exactly its own cells).
    results = model.results.partition_by("release", as_dict=True, maintain_order=True)
    done = [ranked(results[(r,)]) for r in model.releases if (r,) in results]
    cells = (
        result_cells(pl.concat(done)).partition_by(
            "release", as_dict=True, maintain_order=True
        )
        if done
        else {}
    )
    newest_first = list(reversed(model.releases))
    out = []
    for r in newest_first:
        page = f"{GENERATED}/{model.page_of('releases', r)}"
        facts = release_facts(model, r, page, cells[(r,)])
        inputs = {"facts": facts, "results": results[(r,)], "cells": cells[(r,)]}
        out.append(PageSpec("release", render_release, inputs, cached=True))
    grids = {
        model.entity_slug("releases", r): (
            round_grid(model.data.results.filter(pl.col("release") == r)),
            f"MLPerf Inference {r}: one row per system, a column per benchmark × "
            "scenario (best result, unit in the column name).",
        )
        for r in model.releases
    }
    out.append(PageSpec("release-grids", render_grids, {"grids": grids}))
    for r in newest_first:
        rows = cells[(r,)]
        slugs = model.names.only(releases=[r], benchmarks=rows["benchmark"].to_list())
        inputs = {"release": r, "slugs": slugs, "cells": rows}
        out.append(
            PageSpec("release-benchmarks", render_benchmarks, inputs, cached=True)
        )
    out.append(PageSpec("releases-index", render_index, {"model": model}))
    return out
