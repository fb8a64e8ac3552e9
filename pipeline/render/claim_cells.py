"""The Claims page's cells: computed values, cited ends, readings tables, scopes.

Every claim text is registry input and every result field upstream input: both
reach the page through the ``safe`` layer; the Claims page (``claims_page``) lays
out one card per claim from these.
"""

from __future__ import annotations

import polars as pl

from pipeline.registry.claims import Claim
from pipeline.render import safe
from pipeline.render.claim_notes import (
    verdict_badge,
)
from pipeline.render.safe import Md, MdExpr, md_join
from pipeline.render.tables import (
    FIXED_LIMIT,
    external_link,
    joined,
    markdown_table,
    number,
)

PREVIEW_BADGE = Md(
    '<span class="ledger-badge ledger-badge--preview" title="Preview: the system was '
    'not yet available when the result was published">preview</span>'
)


INFERRED_BADGE = Md(
    '<span class="ledger-badge ledger-badge--inferred" title="Inferred: upstream '
    'marks this result as inferred">inferred</span>'
)


_KIND_TEXT = {
    "software_gain": "software gain",
    "generation_ratio": "generation ratio",
    "scaling_efficiency": "scaling efficiency",
    "absolute_result": "absolute result",
}


def _fixed(expr: pl.Expr, places: int, *, grouped: bool = False) -> pl.Expr:
    """A float with exactly ``places`` decimals (optionally 1,234 grouping), as text.

    Polars has no printf-style float formatting, so the value is scaled to an integer
    and split; grouping reverses the integer part to insert commas every three digits.
    """
    factor = 10**places
    rounded = (expr.cast(pl.Float64) * factor).round(0)
    # A value too large for fixed point is written by ``number`` ("1e+20") instead:
    # strict=False because the cast is evaluated for every row, also those.
    fits = rounded.abs() < FIXED_LIMIT
    scaled = rounded.cast(pl.Int64, strict=False)
    integer = (scaled // factor).cast(pl.String)
    if grouped:
        integer = (
            integer.str.reverse()
            .str.replace_all(r"(\d{3})", "${1},")
            .str.strip_suffix(",")
            .str.reverse()
        )
    if places == 0:
        return pl.when(fits).then(integer).otherwise(number(expr))
    fraction = (scaled % factor).cast(pl.String).str.zfill(places)
    fixed = pl.format("{}.{}", integer, fraction)
    return pl.when(fits).then(fixed).otherwise(number(expr))


def value_text(claim: Claim, expr: pl.Expr) -> MdExpr:
    """Computed values as ``Claim.format_value`` writes them, vectorised."""
    if claim.kind == "absolute_result":
        return safe.numeric(_fixed(expr, max(0, claim.decimals + 1), grouped=True))
    if claim.kind == "scaling_efficiency":
        return safe.fmt("{}%", safe.numeric(_fixed(expr, claim.decimals + 2)))
    return safe.fmt("{}×", safe.numeric(_fixed(expr, max(3, claim.decimals + 2))))


def _end_cell(end: str) -> MdExpr:
    """One cited result: release, submitter and system linked upstream, then badges."""
    text = safe.fmt(
        "{} {} {}",
        pl.col(f"release_{end}"),
        pl.col(f"submitter_{end}"),
        pl.col(f"platform_{end}"),
    )
    linked = external_link(
        text, pl.col(f"result_url_{end}"), title=pl.col(f"result_key_{end}")
    )
    details = safe.fmt(
        " · {} accelerators · {}",
        pl.col(f"total_accelerators_{end}").cast(pl.String).fill_null("?"),
        safe.numeric(_fixed(pl.col(f"result_value_{end}"), 1, grouped=True)).fill_null(
            "?"
        ),
    )
    badges = safe.concat(
        safe.when(
            pl.col(f"is_preview_{end}").fill_null(False),
            safe.lit(" ") + PREVIEW_BADGE,
            "",
        ),
        safe.when(
            pl.col(f"is_inferred_{end}").fill_null(False),
            safe.lit(" ") + INFERRED_BADGE,
            "",
        ),
    )
    return safe.when(
        pl.col(f"result_key_{end}").is_null(),
        "—",
        safe.concat(linked, details, badges),
    )


#: Columns of a readings table: a claim about one result, or a ratio of two.
ONE_END_COLUMNS = {
    "reading": "Reading",
    "verdict": "Verdict",
    "value": "Value",
    "new": "Result",
    "reason": "Why",
    "caveats": "Caveats",
}


TWO_END_COLUMNS = {
    "reading": "Reading",
    "verdict": "Verdict",
    "value": "Computed",
    "old": "Older / smaller result",
    "new": "Newer / larger result",
    "reason": "Why",
    "caveats": "Caveats",
}


def reading_cells(evaluations: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Each claim's readings with their cells, in one query for every claim.

    The value cell depends on the claim's kind and decimals, so it is left to
    ``readings_table``; the rest (badges, cited ends, caveats) is the same for all.
    """
    cells = evaluations.select(
        "claim_id",
        safe.fmt(
            "{}<br><small>{}</small>",
            pl.col("reading"),
            pl.when(pl.col("mixes").list.len() > 0)
            .then(pl.format("{}: {}", "grade", pl.col("mixes").list.join(", ")))
            .otherwise(pl.col("grade")),
        ).cell("reading"),
        pl.col("reading").alias("_reading"),
        verdict_badge(pl.col("verdict")).cell("verdict"),
        pl.col("value").alias("_value"),
        _end_cell("old").cell("old"),
        _end_cell("new").cell("new"),
        pl.col("reason"),
        joined("caveats", "<br>").cell("caveats"),
    )
    return {
        key[0]: part
        for key, part in cells.partition_by(
            "claim_id", as_dict=True, maintain_order=True
        ).items()
    }


def readings_table(claim: Claim, cells: dict[str, pl.DataFrame]) -> Md:
    """The Markdown table of one claim's readings (from ``reading_cells``)."""
    rows = cells.get(claim.id)
    if rows is None:
        return Md("*Not evaluated.*")
    one_end = claim.ends == 1
    shown = rows.select(
        "reading",
        "verdict",
        safe.when(
            pl.col("_value").is_null(), "—", value_text(claim, pl.col("_value"))
        ).cell("value"),
        "old",
        "new",
        "reason",
        "caveats",
    )
    columns = ONE_END_COLUMNS if one_end else TWO_END_COLUMNS
    # The card puts its own line break after the table.
    return markdown_table(shown, columns, numeric=("value",)).removesuffix("\n")


def scope(claim: Claim) -> Md:
    """What the claim is about, in one line of escaped text."""
    releases = " → ".join(claim.releases)
    kind = _KIND_TEXT[claim.kind] + (
        " per accelerator" if claim.per_accelerator else ""
    )
    parts = [
        Md("{} {}").format(claim.stated, kind),
        Md("{} {} ({})").format(
            claim.benchmark, " / ".join(claim.scenarios), claim.division
        ),
        Md.escape(releases),
    ]
    if claim.accelerators:
        parts.append(Md.escape(" vs ".join(claim.accelerators)))
    if claim.total_accelerators:
        counts = " → ".join(str(c) for c in claim.total_accelerators)
        parts.append(Md("{} accelerators").format(counts))
    return md_join(" · ", parts)
