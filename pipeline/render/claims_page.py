"""The Claims page: vendor claims next to what the published results support.

One card per claim from ``pipeline/registry/claims.toml``: the quote, who said it and
where, the overall verdict, and one table row per reading with the computed value, the
two official results it rests on (linked to their upstream folders) and the caveats.
The verdicts come from ``pipeline.claims``; this module only lays them out.

Claim text, notes and names are registry input and result fields are upstream input:
every such string reaches the page through the ``safe`` layer (escaped unless it is
markup of ours) and every URL through ``safe.link``. Cells of the readings tables
are built with Polars expressions; Python only loops over claims.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipeline.claims import EVALUATION_SCHEMA
from pipeline.registry.claims import Claim
from pipeline.render import safe
from pipeline.render.claim_cells import reading_cells, readings_table, scope, value_text
from pipeline.render.claim_notes import (
    PAGE,
    badge,
    claim_anchor,
    verdict_badge,
)
from pipeline.render.model import Model
from pipeline.render.safe import Md, md_join
from pipeline.render.spec import Draft, PageSpec, Rendered
from pipeline.render.tables import (
    markdown_table,
)

PAGE_TITLE = "Claims"
NOTICE = (
    '!!! warning "Derived, unofficial — not MLPerf results"\n'
    "    mlperf-ledger checks public statements about MLPerf Inference results "
    "against the published results. The computed values on this page are derived, "
    "unofficial metrics: not MLPerf results, not verified by MLCommons Association, "
    "and not endorsed by it. Each reading links the official results it rests on.\n"
)
HOW_TO_READ = (
    "Each claim is checked in every reading the data offers: **system** (same "
    "submitter and system in both releases), **hardware** (same accelerator and "
    "count, best result of any submitter), **accelerator (normalised per "
    "accelerator)** (any scale, divided by the accelerator count), **same_submitter** "
    "and **best_of_any**. The system, hardware and same_submitter readings compare "
    "*like for like*; the others are *loose* (per accelerator across sizes, another "
    "submitter's best), and so is any reading whose results change weight precision. "
    "A claim is *consistent* only if a like-for-like reading supports it; *holds only "
    "in a loose reading* (never green) if only a loose one does, and the verdict names "
    "that reading and what it mixes; *inconsistent* if the data can be read but no "
    "reading supports it; *not reproducible* if no published result matches it. A "
    "figure stated as 1.5× matches a value that rounds (half to even) or truncates to "
    "1.5; “about” accepts rounding only; “at least” and “over” need the value to "
    "reach the figure; “up to” is checked on the best matching scenario or system."
)


#: Columns of the table of every claim at the top of the page.
INDEX_COLUMNS = {
    "claim": "Claim",
    "claimant": "Claimant",
    "verdict": "Verdict",
    "readings": "Readings that agree",
}


def _reading_note(
    claim: Claim, rows: pl.DataFrame | None, matching: Sequence[str]
) -> str:
    """Which reading carries the verdict, and the strictest reading's value.

    ``rows``: the claim's readings from ``reading_cells`` (None: it has none).
    """
    carried = (
        Md("under the **{}** reading").format(matching[0])
        if matching
        else Md("under no reading")
    )
    valued = None if rows is None else rows.filter(pl.col("_value").is_not_null())
    if valued is None or valued.is_empty():
        return Md("{}; no reading has a value.").format(carried)
    reading, text = valued.select(
        "_reading", value_text(claim, pl.col("_value")).cell("text")
    ).row(0)
    return Md("{}; strictest reading with a value ({}): **{}**.").format(
        carried, reading, safe.cell_value(text)
    )


def _card(claim: Claim, verdicts: pl.DataFrame, cells: dict[str, pl.DataFrame]) -> str:
    found = verdicts.filter(pl.col("claim_id") == claim.id)
    if found.is_empty():
        verdict_line = Md("*Not evaluated.*")
    else:
        verdict, summary, matching = found.select(
            "verdict", "summary", "matching_readings"
        ).row(0)
        note = _reading_note(claim, cells.get(claim.id), matching or [])
        verdict_line = Md("{} {} {}").format(badge(verdict), note, summary)
    source = (
        safe.link_md(claim.source_url, claim.source_url)
        if safe.accepts(claim.source_url)
        else Md("no public source")
    )
    facts = [
        Md("- **Claimant:** {}").format(claim.claimant),
        Md("- **Date:** {}").format(claim.date.isoformat()),
        Md("- **Source:** {}").format(source),
        Md("- **Claim:** {}").format(scope(claim)),
    ]
    if claim.systems:
        facts.append(Md("- **Systems:** {}").format(", ".join(claim.systems)))
    if claim.submitters:
        facts.append(Md("- **Submitters:** {}").format(", ".join(claim.submitters)))
    if claim.identity_level != "any":
        facts.append(
            Md("- **Reading named by the claim:** {}").format(claim.identity_level)
        )
    if claim.note:
        facts.append(Md("- **Note:** {}").format(claim.note))
    return md_join(
        "\n",
        [
            Md("## {} {{{}}}").format(
                claim.display_title, safe.path("#" + claim_anchor(claim.id))
            ),
            Md(""),
            verdict_line,
            Md(""),
            Md("> “{}”").format(claim.quote),
            Md(""),
            *facts,
            Md(""),
            readings_table(claim, cells),
            Md(""),
        ],
    )


def _index(claims: Sequence[Claim], verdicts: pl.DataFrame) -> str:
    """A table of every claim linking to its card."""
    order = pl.DataFrame(
        {
            "claim_id": [c.id for c in claims],
            "_title": [c.display_title for c in claims],
            "_claimant": [c.claimant for c in claims],
            "_anchor": [claim_anchor(c.id) for c in claims],
        },
        schema={
            "claim_id": pl.String,
            "_title": pl.String,
            "_claimant": pl.String,
            "_anchor": pl.String,
        },
    )
    cells = order.join(
        verdicts.select("claim_id", "verdict", "matching_readings"),
        on="claim_id",
        how="left",
        maintain_order="left",
    ).select(
        claim=safe.fmt(
            "[{}](#{})", pl.col("_title"), safe.ident(pl.col("_anchor"))
        ).cell(),
        claimant=pl.col("_claimant"),
        verdict=safe.when(
            pl.col("verdict").is_null(),
            "not evaluated",
            verdict_badge(pl.col("verdict")),
        ).cell(),
        readings=pl.col("matching_readings").list.join(", "),
    )
    # The page puts its own line break after the table.
    return markdown_table(cells, INDEX_COLUMNS).removesuffix("\n")


def render_claims_page(
    claims: Sequence[Claim],
    evaluations: pl.DataFrame,
    verdicts: pl.DataFrame,
) -> str:
    """The Markdown of the Claims page.

    Args:
        claims: the registry (``pipeline.registry.claims.load_claims``), in page order.
        evaluations: ``pipeline.claims.evaluate_claims`` output.
        verdicts: ``pipeline.claims.claim_verdicts`` output.

    Returns:
        The page, starting with its title and the derived-data notice.
    """
    parts = [Md("# {}").format(PAGE_TITLE), "", NOTICE, HOW_TO_READ, ""]
    if not claims:
        parts.append("*No claims are registered yet.*\n")
        return "\n".join(parts)
    parts += [_index(claims, verdicts), ""]
    cells = reading_cells(evaluations)
    parts += [_card(claim, verdicts, cells) for claim in claims]
    return "\n".join(parts)


def render(
    claims: Sequence[Claim], evaluations: pl.DataFrame | None, verdicts: pl.DataFrame
) -> Rendered:
    """The Claims page (no evaluations: every claim says it was not evaluated)."""
    if evaluations is None:
        evaluations = pl.DataFrame(schema=EVALUATION_SCHEMA)
    draft = Draft()
    draft.page(PAGE, render_claims_page(claims, evaluations, verdicts))
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Claims page, from the registry, its evaluations and their verdicts."""
    inputs = {
        "claims": model.data.claims,
        "evaluations": model.data.claim_evaluations,
        "verdicts": model.verdicts,
    }
    return [PageSpec("claims", render, inputs, cached=True)]
