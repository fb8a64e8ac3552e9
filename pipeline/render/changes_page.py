"""The Changes page: corrections upstream made to releases after publishing them.

Rows come from ``out_mlperf__corrections`` (one per changed field, or per added or
removed result). Cells are built with Polars: plain columns, which the table escapes,
or ``safe`` fragments; prose through ``safe.Md``.
"""

from __future__ import annotations

import polars as pl

from pipeline.render import safe
from pipeline.render.change_notes import PAGE, anchor
from pipeline.render.model import Model
from pipeline.render.safe import Md
from pipeline.render.site_data import release_order
from pipeline.render.spec import Draft, PageSpec, Rendered
from pipeline.render.tables import external_link, html_table
from pipeline.transform.corrections import CORRECTIONS_SCHEMA

#: Path under the generated folder, and the docs-relative path links resolve against.
INTRO = (
    "MLCommons sometimes corrects a published release. mlperf-ledger keeps every "
    "version of each release's summary file (content-addressed by sha256) and lists "
    "here what changed between consecutive versions: results added, removed, and "
    "changed field by field with the old and the new value. Dates are when the "
    "pipeline first saw the new version.\n"
)


def _cells(frame: pl.DataFrame) -> pl.DataFrame:
    # The key stays when its URL is refused (a Location with U+00A0): the one link
    # helper falls back to the text, where a formatted <a> would turn the cell null.
    return frame.with_columns(
        c_seen=pl.col("seen_at").str.slice(0, 10),
        c_key=external_link(pl.col("result_key"), pl.col("result_url")).cell(),
        c_change=pl.col("change"),
        c_field=pl.col("field"),
        c_old=pl.col("old_value"),
        c_new=pl.col("new_value"),
        c_versions=safe.fmt(
            "<code>{}</code> → <code>{}</code>",
            pl.col("old_sha256").str.slice(0, 12),
            pl.col("new_sha256").str.slice(0, 12),
        ).cell(),
    )


COLUMNS = {
    "c_seen": "Seen",
    "c_key": "Result",
    "c_change": "Change",
    "c_field": "Field",
    "c_old": "Old value",
    "c_new": "New value",
    "c_versions": "Snapshots (sha256)",
}


def render_changes_page(corrections: pl.DataFrame) -> str:
    """Markdown of the Changes page, newest release first."""
    parts = ["# Changes\n", INTRO]
    if corrections.is_empty():
        parts.append("No release has changed since the pipeline first stored it.\n")
        return "\n".join(parts)
    for release in reversed(release_order(corrections["release"].unique())):
        rows = corrections.filter(pl.col("release") == release).sort(
            "seen_at", "result_key", "field", nulls_last=True
        )
        records = rows.select("result_key").n_unique()
        parts.append(
            Md("## {} {{#{}}}\n\n{} result(s) changed in {} field change(s).\n").format(
                release, anchor(release), records, rows.height
            )
        )
        parts.append(html_table(_cells(rows), COLUMNS, wide=("c_old", "c_new")))
    return "\n".join(parts)


def render(corrections: pl.DataFrame | None) -> Rendered:
    """The Changes page (none known: it says so)."""
    if corrections is None:
        corrections = pl.DataFrame(schema=CORRECTIONS_SCHEMA)
    draft = Draft()
    draft.page(PAGE, render_changes_page(corrections))
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Changes page, from the corrections upstream made after publication."""
    return [PageSpec("changes", render, {"corrections": model.data.corrections})]
