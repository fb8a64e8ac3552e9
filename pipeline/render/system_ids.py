"""A result's system identity as pages link it: ids, family pages, the link.

Every table that shows a result links its system's section on the system's family
page (``system_pages``): ``generated/systems/<family>.md#<system id>``. The ids and
the family pages are computed once per render (``prepare.build_model``) from the
canonical columns, the ids exactly as ``out_mlperf__systems`` computes them, and
travel with the rows (``system_id``, ``system_page``), so a cached page's links are
part of its inputs.

A family is a submitter's systems: one page per submitter, unless its systems weigh
more than ``FAMILY_WEIGHT`` (``weight``: a page near the 300 KB HTML budget); then
one page per submitter and accelerator, and past that again one per submitter,
accelerator and platform. The systems list (``PAGE``) keeps one row per system, its
id the system id, so an old address ``systems.html#<id>`` still finds the system.
"""

from __future__ import annotations

import polars as pl

from pipeline.render.context import SYSTEMS_HREF

# Functions of the layer, not the layer: the ids and page names are slugs of ours,
# so this is not one of the page modules the hostile tests walk.
from pipeline.render.safe import MdExpr, fmt, ident, lit, when
from pipeline.render.site_data import with_accelerators
from pipeline.render.slugs import unique_slugs
from pipeline.render.tables import relative
from pipeline.transform.systems import with_system_id

#: The systems list under ``generated/``.
PAGE = "systems.md"
#: The family pages' folder under ``generated/`` (also their page-index kind).
FOLDER = "systems"
#: What a family page may weigh before it is split (see the module docstring), in
#: results: measured on the full history, a result's row is ~0.52 KB of the page's
#: HTML, a system's heading and description ~3 KB (``SYSTEM_WEIGHT`` results), the
#: page around them ~16 KB; 400 keep a page near 225 KB of the 300 KB budget.
FAMILY_WEIGHT = 400
SYSTEM_WEIGHT = 6
#: Separates the parts of a split family's title ("NVIDIA · NVIDIA H100 SXM").
TITLE_SEPARATOR = " · "


def link_of(page: str, system_id: str, family: str) -> str:
    """The link from ``page`` (docs-relative) to one system's section."""
    target = f"generated/{FOLDER}/{family}.md"
    return f"{relative(page, target)}#{system_id}"


def system_link(suffix: str = "") -> MdExpr:
    """A link to the row's system section ("" where the row has no system id).

    Ids are lower-case letters, digits and hyphens (``transform.systems``), family
    pages slugs (``slugs.unique_slugs``): both kept so. ``SYSTEMS_HREF`` stands for
    the family folder's address until the page is written (``engine.Writer``).
    """
    system_id = pl.col(f"system_id{suffix}")
    family = pl.col(f"system_page{suffix}")
    return when(
        system_id.is_not_null() & family.is_not_null(),
        fmt(
            '<a class="ledger-system-link" href="{}{}.html#{}">system description</a>',
            lit(SYSTEMS_HREF),
            ident(family),
            ident(system_id),
        ),
        "",
    )


def families(keyed: pl.DataFrame) -> pl.DataFrame:
    """Each system's family: ``system_id``, ``family`` (its title), ``system_page``.

    ``keyed``: results with ``system_id`` and ``accelerator_label``. The title is
    upstream text (escaped where shown); ``system_page`` is its unique slug, the
    page's file stem under ``FOLDER``. Order-independent: the same results give the
    same pages whatever order they come in.
    """
    schema = {"system_id": pl.String, "family": pl.String, "system_page": pl.String}
    if "system_id" not in keyed.columns or keyed.height == 0:
        return pl.DataFrame(schema=schema)
    systems = (
        keyed.filter(pl.col("system_id").is_not_null())
        .sort("system_id", "release", "result_key", nulls_last=True)
        .group_by("system_id")
        .agg(
            submitter=pl.col("submitter").first().fill_null(""),
            accelerator=pl.col("accelerator_label").first().fill_null(""),
            platform=pl.coalesce("platform", "system_name").first().fill_null(""),
            weight=pl.len() + SYSTEM_WEIGHT,
        )
    )
    by_submitter = pl.col("weight").sum().over("submitter")
    by_accelerator = pl.col("weight").sum().over("submitter", "accelerator")
    sep = pl.lit(TITLE_SEPARATOR)
    titled = systems.with_columns(
        family=pl.when(by_submitter <= FAMILY_WEIGHT)
        .then(pl.col("submitter"))
        .when(by_accelerator <= FAMILY_WEIGHT)
        .then(pl.concat_str("submitter", sep, "accelerator"))
        .otherwise(pl.concat_str("submitter", sep, "accelerator", sep, "platform"))
    )
    slugs = unique_slugs(titled["family"].to_list())
    return titled.select(
        "system_id",
        "family",
        system_page=pl.col("family").replace_strict(slugs, return_dtype=pl.String),
    ).sort("system_id")


def with_system_ids(
    frame: pl.DataFrame, keyed: pl.DataFrame, *, suffix: str = ""
) -> pl.DataFrame:
    """``frame`` with ``system_id<suffix>`` and ``system_page<suffix>``.

    Found by its end's round and result key. ``keyed``: results with ``system_id``
    and ``system_page`` (``keyed_results``).
    """
    release, key = f"release{suffix}", f"result_key{suffix}"
    if not {release, key} <= set(frame.columns) or "system_id" not in keyed.columns:
        return frame
    ids = keyed.select(
        pl.col("release").alias(release),
        pl.col("result_key").alias(key),
        pl.col("system_id").alias(f"system_id{suffix}"),
        pl.col("system_page").alias(f"system_page{suffix}"),
    ).unique([release, key], keep="first")
    return frame.drop(f"system_id{suffix}", f"system_page{suffix}", strict=False).join(
        ids, on=[release, key], how="left", nulls_equal=True, maintain_order="left"
    )


def keyed_results(results: pl.DataFrame) -> pl.DataFrame:
    """Results with ``system_id`` (one identity across rounds), labels and family.

    The id is computed from the canonical columns before any page default fills
    them in, exactly as ``out_mlperf__systems`` computes it; ``system_page`` is its
    family page's stem (``families``).
    """
    keyed = with_accelerators(with_system_id(results))
    pages = families(keyed).select("system_id", "system_page")
    return keyed.drop("system_page", strict=False).join(
        pages, on="system_id", how="left", maintain_order="left"
    )
