"""The Audit page: lineage, raw snapshots, rejected records, coverage, cross-check."""

from __future__ import annotations

import polars as pl

from pipeline.render import safe
from pipeline.render.audit_sections import (
    accelerator_count_notes,
    accelerator_coverage,
    crosscheck_section,
    descriptions_section,
    lineage_table,
    lookalike_section,
    loss_table,
    rejection_summary,
    rounds_section,
    submitter_section,
    vocabulary_section,
)
from pipeline.render.flags_section import flags_section
from pipeline.render.model import Model
from pipeline.render.safe import Md, md_join
from pipeline.render.site_data import SiteData
from pipeline.render.spec import Draft, PageSpec, Rendered
from pipeline.render.tables import (
    external_link,
    html_table,
    number_cell,
    stringify,
)
from pipeline.transform.provenance import NOT_RECORDED, with_upstream


def audit_page(data: SiteData, flagged: pl.DataFrame) -> str:
    """Lineage, snapshots, rejections, coverage, flags and cross-check of a build."""
    extra = stringify(data.snapshots.select("rows", "rejected", "checks"))
    # Linked upstream (at the commit where known); where it was read is the tooltip.
    snapshots = (
        with_upstream(data.snapshots)
        .with_columns(
            c_release=pl.col("release"),
            c_file=external_link(
                pl.col("path"), pl.col("upstream_url"), pl.col("read_from")
            ).cell(),
            # A full git commit is 40 characters: shown as 12, the whole in the title.
            c_commit=safe.when(
                pl.col("upstream_commit").is_not_null(),
                safe.fmt(
                    '<code title="{}">{}</code>',
                    pl.col("upstream_commit"),
                    pl.col("upstream_commit").str.slice(0, 12),
                ),
                NOT_RECORDED,
            ).cell(),
            c_sha=safe.fmt("<code>{}</code>", pl.col("sha256")).cell(),
            c_bytes=number_cell(pl.col("bytes").cast(pl.Float64), digits=15).cell(),
            c_rows=extra["rows"],
            c_rejected=extra["rejected"],
            c_checks=extra["checks"],
        )
        .sort("release", "path")
    )
    rejected = rejection_summary(data.rejected).with_columns(
        c_release=pl.col("release"),
        c_reason=pl.col("reason"),
        c_records=pl.col("records"),
        c_example=safe.fmt("<code>{}</code>", pl.col("example")).cell(),
    )
    parts = [
        "# Audit\n",
        "How the numbers on this site were produced, and from which bytes.\n",
        Md("- Pipeline commit: <code>{}</code>").format(data.pipeline_commit),
        "- Build and fetch times: in [build-info.json](downloads/build-info.json), the "
        "one file that differs between two builds of identical inputs",
        Md("- Canonical results: {:,}; rejected upstream records: {:,}\n").format(
            data.results.height, data.rejected.height
        ),
        "## Lineage\n",
        "Each asset and the assets it reads, in build order. The Mermaid source below "
        "can be pasted into any Mermaid viewer.\n",
        lineage_table(data.lineage_mermaid),
        Md(
            "\n<details><summary>Mermaid source</summary><pre><code>{}</code></pre>"
            "</details>\n"
        ).format(md_join("\n", data.lineage_mermaid.splitlines())),
        "## Raw snapshots\n",
        "Every upstream file the build read, as stored: a new upstream version becomes "
        "a new snapshot next to the old one, never an overwrite.\n",
        html_table(
            snapshots,
            {
                "c_release": "Release",
                "c_file": "Source file",
                "c_commit": "Commit",
                "c_sha": "sha256",
                "c_bytes": "Bytes",
                "c_rows": "Rows",
                "c_rejected": "Rejected",
                "c_checks": "Checks",
            },
            numeric=("c_bytes", "c_rows", "c_rejected"),
        )
        or "_No snapshots were recorded._\n",
        "## Rejected records\n",
        *loss_table(data.results, data.rejected),
        html_table(
            rejected,
            {
                "c_release": "Release",
                "c_reason": "Reason",
                "c_records": "Records",
                "c_example": "Example key",
            },
            numeric=("c_records",),
        )
        or "_No upstream record was rejected._\n",
    ]
    if data.rounds is not None:
        parts += rounds_section(data.rounds)
    parts += vocabulary_section(data.results)
    parts += descriptions_section(data.system_fields)
    parts += lookalike_section(data.results)
    if data.submitter_check is not None and data.submitter_check.height:
        parts += submitter_section(data.submitter_check)
    parts += accelerator_coverage(data.results)
    parts += accelerator_count_notes(data.results)
    parts += flags_section(flagged)
    if data.crosscheck is not None:
        parts += crosscheck_section(data.crosscheck)
    return "\n".join(parts)


def render(data: SiteData, flagged: pl.DataFrame) -> Rendered:
    """The Audit page."""
    draft = Draft()
    draft.page("audit.md", audit_page(data, flagged))
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Audit page: the build's data and the pairs a rule flagged."""
    return [PageSpec("audit", render, {"data": model.data, "flagged": model.flagged})]
