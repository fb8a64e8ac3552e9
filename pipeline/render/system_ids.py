"""A result's system identity as pages link it: ids, and the link to a description.

Every table that shows a result links its system's description on the Systems page
(``system_pages``); the ids are computed once per render (``prepare.build_model``)
from the canonical columns, exactly as ``out_mlperf__systems`` computes them.
"""

from __future__ import annotations

import polars as pl

from pipeline.render.context import SYSTEMS_HREF

# Functions of the layer, not the layer: the ids are slugs of ours, so this is not
# one of the page modules the hostile tests walk (they write upstream text).
from pipeline.render.safe import MdExpr, fmt, ident, lit, when
from pipeline.render.site_data import with_accelerators
from pipeline.render.tables import relative
from pipeline.transform.systems import with_system_id

#: The Systems page under ``generated/``.
PAGE = "systems.md"


def link_of(page: str, system_id: str) -> str:
    """The link from ``page`` (docs-relative) to one system's description."""
    return f"{relative(page, f'generated/{PAGE}')}#{system_id}"


def system_link(suffix: str = "") -> MdExpr:
    """A link to the row's system description ("" where the row has no system id).

    Ids are lower-case letters, digits and hyphens (``transform.systems``), kept so.
    """
    system_id = pl.col(f"system_id{suffix}")
    return when(
        system_id.is_not_null(),
        fmt(
            '<a class="ledger-system-link" href="{}#{}">system description</a>',
            lit(SYSTEMS_HREF),
            ident(system_id),
        ),
        "",
    )


def with_system_ids(
    frame: pl.DataFrame, keyed: pl.DataFrame, *, suffix: str = ""
) -> pl.DataFrame:
    """``frame`` with ``system_id<suffix>``, found by its end's round and result key.

    ``keyed``: results with ``system_id`` (``keyed_results``).
    """
    release, key = f"release{suffix}", f"result_key{suffix}"
    if not {release, key} <= set(frame.columns) or "system_id" not in keyed.columns:
        return frame
    ids = keyed.select(
        pl.col("release").alias(release),
        pl.col("result_key").alias(key),
        pl.col("system_id").alias(f"system_id{suffix}"),
    ).unique([release, key], keep="first")
    return frame.drop(f"system_id{suffix}", strict=False).join(
        ids, on=[release, key], how="left", nulls_equal=True, maintain_order="left"
    )


def keyed_results(results: pl.DataFrame) -> pl.DataFrame:
    """Results with ``system_id`` (one identity across rounds) and labels.

    The id is computed from the canonical columns before any page default fills
    them in, exactly as ``out_mlperf__systems`` computes it.
    """
    return with_accelerators(with_system_id(results))
