"""The website's generated pages: ``render_site`` runs one builder per page kind.

``render_site`` owns ``site/generated/``: it writes every generated page there (a
file whose bytes did not change is left alone, ``files``) and then removes what it
did not write (except the cached JavaScript bundle), so the page of a release or
benchmark that disappeared does not linger. Hand-written pages (``site/index.md``,
``site/methodology.md``) include or link to these files; ``mkdocs build`` turns both
into the website.

Every page comes from one ``PAGE_BUILDERS`` entry: a module's ``build`` taking the
render in progress (``site.Site``), whose ``data`` holds everything the site shows
(``site_data.SiteData``). Adding a page kind is one line there: the builder writes
its pages with ``site.write_page``, pages that are an intro and groups describe each
group as a ``site.Section`` and render them with ``site.sections``, every chart goes
through ``site.chart`` (``charts`` has one template per kind), and the builder
registers entity pages (``site.page_index``) when it has any, nav children
(``site.nav``) only for a small bounded section (``context.ENTITY_PAGES`` says why);
list its page in ``mkdocs.yml``'s nav.

Numbers are computed with Polars over whole frames; Python loops only walk pages,
benchmarks and table groups. Page code never escapes or marks text safe itself:
it writes Markdown and HTML through the ``safe`` layer (``safe.Md`` templates, Polars
``safe.MdExpr`` cells, ``safe.link``/``link_md`` for URLs), which escapes every value
it did not build, and tables (``tables``) escape every column that is not a typed
cell; ``tests/unit/render/test_safe.py`` checks that no page module imports
``escape`` or calls ``Md`` on anything but a literal template. Small tables that link
to other pages are Markdown (MkDocs checks those links); large tables are raw HTML
(fast to build, see ``tables.html_table``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl

from pipeline.claims import claim_verdicts
from pipeline.files import prune, write_file
from pipeline.render import (
    accelerator_pages,
    audit_page,
    benchmark_pages,
    changes_page,
    claims_page,
    data_page,
    explorer,
    feed,
    history_page,
    home,
    interactivity_page,
    pairs_pages,
    performance_page,
    power_page,
    release_pages,
    system_pages,
)
from pipeline.render.audit_page import lineage_edges
from pipeline.render.bundle import write_bundle
from pipeline.render.context import (
    GENERATED,
    NAV_FILE,
    PAGE_INDEX,
    Site,
    output_folder,
)
from pipeline.render.coverage import round_status
from pipeline.render.flags_section import flagged_pairs
from pipeline.render.memo import RenderMemo
from pipeline.render.pairs_pages import HEADLINE_DEFINITIONS
from pipeline.render.site_data import (
    SiteData,
    release_order,
    with_names,
)
from pipeline.render.slugs import unique_slugs
from pipeline.settings import cache_dir

__all__ = [
    "GENERATED",
    "HEADLINE_DEFINITIONS",
    "PAGE_BUILDERS",
    "PAGE_INDEX",
    "PageBuilder",
    "Site",
    "lineage_edges",
    "render_site",
]

#: Software-gain identity levels shown on the page; the per-accelerator level (any
#: scale) is in the download, where it cannot be mistaken for a like-for-like pair.
PAGE_GAIN_LEVELS = ("system", "hardware")

#: Writes one kind of page into the render in progress.
PageBuilder = Callable[[Site], None]


#: Every generated page kind, in build order (chart names that collide are told
#: apart in this order). One line per kind.
PAGE_BUILDERS: list[PageBuilder] = [
    home.build,
    release_pages.build_latest,
    pairs_pages.build,
    release_pages.build,
    benchmark_pages.build,
    accelerator_pages.build,
    history_page.build,
    interactivity_page.build,
    power_page.build,
    explorer.build,
    system_pages.build,
    data_page.build,
    audit_page.build,
    claims_page.build,
    changes_page.build,
    performance_page.build,
    feed.build,
]


def _prepare(data: SiteData, out_dir: Path) -> Site:
    """The render state every builder reads: names, pairs, histories, slugs."""
    # Each result's system id (its description on the Systems page), computed from
    # the canonical columns before the pages' placeholder names fill them in.
    results = with_names(system_pages.keyed_results(data.results))
    site = Site(
        data=data,
        results=results,
        out_dir=out_dir,
        releases=release_order(results["release"].unique()),
    )
    if data.claim_evaluations is not None:
        site.verdicts = claim_verdicts(data.claim_evaluations)
    site.rounds = round_status(site.releases)
    site.histories = history_page.build_histories(data.results)
    page_gains = data.gains.filter(pl.col("identity_level").is_in(PAGE_GAIN_LEVELS))
    # Each pair's display cells (``pairs_pages.pair_cells``) are computed here, once
    # per kind: the pair pages, What's new, the home page and the accelerator pages
    # all show slices of these frames, and the cells cost the same fixed ~25 ms per
    # query however few rows a slice has.
    site.pairs = {
        name: pairs_pages.pair_cells(
            with_names(
                system_pages.with_system_ids(
                    system_pages.with_system_ids(
                        pairs_pages.merge_levels(
                            pairs_pages.with_vendor(frame, results)
                        ),
                        results,
                        suffix="_old",
                    ),
                    results,
                    suffix="_new",
                )
            ),
            site.rounds,
        )
        for name, frame in (
            ("gains", page_gains),
            ("generations", data.generations),
            ("scaling", data.scaling),
        )
    }
    site.benchmarks = sorted(results["benchmark"].drop_nulls().unique().to_list())
    site.slugs = {
        "releases": unique_slugs(site.releases),
        # Pair frames may name a benchmark without results (their links then dangle
        # as before); they still need a unique anchor.
        "benchmarks": unique_slugs(
            site.benchmarks
            + [
                b
                for frame in site.pairs.values()
                for b in frame["benchmark"].drop_nulls().unique().to_list()
            ]
        ),
    }
    site.flagged = flagged_pairs((data.gains, data.generations, data.scaling))
    return site


def _write_json(site: Site, rel: str, value: object, *, ascii_only: bool) -> None:
    text = json.dumps(value, indent=1, ensure_ascii=ascii_only)
    site.written.append(write_file(site.out_dir / rel, text))


def render_site(
    data: SiteData,
    out_dir: Path,
    *,
    bundle: bool = True,
    bundle_cache: Path | None = None,
    memo: RenderMemo | None = None,
) -> list[Path]:
    """Write every generated page, chart, download and script of the website.

    Args:
        data: The frames and facts to show.
        out_dir: The ``generated`` folder inside MkDocs' docs_dir (``site/generated``).
            Files whose bytes did not change are left as they are (``files``);
            whatever the render did not write is removed at the end (except
            ``assets/``), so it must hold nothing else.
        bundle: Also write the Vega JavaScript bundle (skipped when already current).
        bundle_cache: Where the bundle is cached between builds; default
            ``settings.cache_dir()`` (``MLPERF_CACHE_DIR``), shared by every build
            folder of the machine because the bundle only changes with vl-convert.
        memo: The render cache (``memo.RenderMemo``): pages whose inputs did not
            change since the last render are copied from it. None renders all.

    Returns:
        Every file written.

    Raises:
        ValueError: ``out_dir`` is not named ``generated``.
    """
    site = _prepare(data, output_folder(out_dir))
    site.memo = memo
    for build in PAGE_BUILDERS:
        build(site)
    if memo is not None:
        memo.finish()
    _write_json(site, NAV_FILE, site.nav, ascii_only=True)
    _write_json(site, PAGE_INDEX, site.page_index, ascii_only=False)
    if bundle:
        cache = bundle_cache if bundle_cache is not None else cache_dir()
        js = write_bundle(out_dir / "assets" / "js", cache)
        site.written += [js, js.with_name(js.name + ".gz")]
    prune(out_dir, site.written, spare=("assets",))
    return site.written
