"""The website's generated pages: ``render_site`` runs one builder per page kind.

``render_site`` owns ``site/generated/``: it writes every generated page there (a
file whose bytes did not change is left alone, ``files``) and then removes what it
did not write (except the cached JavaScript bundle), so the page of a release or
benchmark that disappeared does not linger. Hand-written pages (``site/index.md``,
``site/methodology.md``) include or link to these files; ``mkdocs build`` turns both
into the website.

Every page comes from one ``PAGE_MODULES`` entry: a module whose ``specs(model)``
returns its page specs (``spec.PageSpec``): the inputs it reads from the read-only
model (``model.Model``, built once from ``site_data.SiteData``) and a pure render
function of exactly those inputs, which drafts its pages, charts, files, nav and
page-index entries (``spec.Draft``). The engine (``engine``) renders or replays each
spec, names its charts and writes it; no page module imports another one, nor the
engine, the render cache or the file writer (``tests/unit/render/test_layout.py``).
Adding a page kind is one module and one line here, and its page in ``mkdocs.yml``'s
nav when it has one; entity pages register in the page index, nav children only for
a small bounded section (``context.ENTITY_PAGES`` says why).

Numbers are computed with Polars over whole frames; Python loops only walk pages,
benchmarks and table groups. Every upstream string reaches a page through the
``safe`` layer (``safe.Md``, ``safe.fmt``, the ``tables`` helpers), never escaped or
marked safe by a page itself (``tests/unit/render/test_safe.py``). Small tables
that link to other pages are Markdown (MkDocs checks those links); large tables are
raw HTML (fast to build, see ``tables.html_table``).
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from pipeline.files import prune, write_file
from pipeline.render import (
    accelerator_pages,
    audit_page,
    benchmark_pages,
    changes_page,
    claims_page,
    data_page,
    engine,
    explorer,
    feed,
    history_page,
    home,
    interactivity_page,
    latest_page,
    model_pages,
    pairs_pages,
    performance_page,
    power_page,
    release_pages,
    system_pages,
)
from pipeline.render.audit_sections import lineage_edges
from pipeline.render.bundle import write_bundle
from pipeline.render.context import (
    GENERATED,
    NAV_FILE,
    PAGE_INDEX,
    output_folder,
)
from pipeline.render.engine import Writer
from pipeline.render.memo import RenderMemo
from pipeline.render.model import Model
from pipeline.render.pair_views import HEADLINE_DEFINITIONS
from pipeline.render.prepare import build_model
from pipeline.render.site_data import SiteData
from pipeline.settings import cache_dir

__all__ = [
    "GENERATED",
    "HEADLINE_DEFINITIONS",
    "PAGE_INDEX",
    "PAGE_MODULES",
    "Writer",
    "lineage_edges",
    "render_site",
]

#: Every generated page kind, in build order (chart names that collide are told
#: apart in this order). One line per kind: a module with ``specs(model)``.
PAGE_MODULES: list[ModuleType] = [
    home,
    latest_page,
    pairs_pages,
    release_pages,
    benchmark_pages,
    accelerator_pages,
    history_page,
    interactivity_page,
    model_pages,
    power_page,
    explorer,
    system_pages,
    data_page,
    audit_page,
    claims_page,
    changes_page,
    performance_page,
    feed,
]


def write_pages(model: Model, out_dir: Path, modules: list[ModuleType]) -> Writer:
    """Only ``modules``' pages of ``model``, written to ``out_dir`` (tests)."""
    writer = Writer(output_folder(out_dir))
    engine.run(writer, model, modules)
    return writer


def render_only(data: SiteData, out_dir: Path, modules: list[ModuleType]) -> Writer:
    """Only ``modules``' pages, from the full model of ``data`` (tests)."""
    return write_pages(build_model(data), out_dir, modules)


def _write_json(writer: Writer, rel: str, value: object, *, ascii_only: bool) -> None:
    text = json.dumps(value, indent=1, ensure_ascii=ascii_only)
    writer.written.append(write_file(writer.out_dir / rel, text))


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
    model = build_model(data)
    writer = Writer(output_folder(out_dir), memo=memo)
    engine.run(writer, model, PAGE_MODULES)
    if memo is not None:
        memo.finish()
    _write_json(writer, NAV_FILE, writer.nav, ascii_only=True)
    _write_json(writer, PAGE_INDEX, writer.page_index, ascii_only=False)
    if bundle:
        cache = bundle_cache if bundle_cache is not None else cache_dir()
        js = write_bundle(out_dir / "assets" / "js", cache)
        writer.written += [js, js.with_name(js.name + ".gz")]
    prune(out_dir, writer.written, spare=("assets",))
    return writer.written
