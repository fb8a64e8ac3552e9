"""The Claims page: vendor claims next to what the published results support.

One card per claim from ``pipeline/registry/claims.toml``: the quote, who said it and
where, the overall verdict, and one table row per reading with the computed value, the
two official results it rests on (linked to their upstream folders) and the caveats.
The verdicts come from ``pipeline.claims``; this module only lays them out.

Claim text, notes and names are registry input and result fields are upstream input:
every such string reaches the page through ``escape`` and every URL through
``safe_url``. Cells of the readings tables are built with Polars expressions; Python
only loops over claims.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import polars as pl

from pipeline.claims import EVALUATION_SCHEMA, Claim
from pipeline.render.escape import escape, safe_url
from pipeline.render.site import GENERATED, Site
from pipeline.render.tables import (
    FIXED_LIMIT,
    external_link,
    joined,
    markdown_table,
    number,
    relative,
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
    "and **best_of_any**. A claim is *consistent* if at least one reading supports "
    "it, *inconsistent* if the data can be read but no reading supports it, and *not "
    "reproducible* if no published result matches it. A figure stated as 1.5× matches "
    "a value that rounds (half to even) or truncates to 1.5; “about” accepts rounding "
    "only; “at least” and “over” need the value to reach the figure; “up to” is "
    "checked on the best matching scenario or system."
)
PREVIEW_BADGE = (
    '<span class="ledger-badge ledger-badge--preview" title="Preview: the system was '
    'not yet available when the result was published">preview</span>'
)
INFERRED_BADGE = (
    '<span class="ledger-badge ledger-badge--inferred" title="Inferred: upstream '
    'marks this result as inferred">inferred</span>'
)
_KIND_TEXT = {
    "software_gain": "software gain",
    "generation_ratio": "generation ratio",
    "scaling_efficiency": "scaling efficiency",
    "absolute_result": "absolute result",
}


def claim_anchor(claim_id: str) -> str:
    """The id of a claim's card, for links such as ``claims.md#claim-<id>``.

    Registry ids are validated slugs already; the substitution keeps the anchor safe
    for a ``Claim`` built by other code.
    """
    return "claim-" + re.sub(r"[^a-z0-9-]", "-", claim_id.lower())


def verdict_badge(verdict: pl.Expr) -> pl.Expr:
    """An HTML badge per verdict, styled by ``ledger-badge--<verdict>``."""
    slug = verdict.fill_null("").str.replace_all(r"[^a-z]+", "-")
    return pl.format(
        '<span class="ledger-badge ledger-badge--{}">{}</span>',
        slug,
        escape(verdict),
    )


def _badge(verdict: str) -> str:
    return pl.select(verdict_badge(pl.lit(verdict, pl.String))).item()


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


def _value_text(claim: Claim, expr: pl.Expr) -> pl.Expr:
    """Computed values as ``Claim.format_value`` writes them, vectorised."""
    if claim.kind == "absolute_result":
        return _fixed(expr, max(0, claim.decimals + 1), grouped=True)
    if claim.kind == "scaling_efficiency":
        return _fixed(expr, claim.decimals + 2) + "%"
    return _fixed(expr, max(3, claim.decimals + 2)) + "×"


def _end_cell(end: str) -> pl.Expr:
    """One cited result: release, submitter and system linked upstream, then badges."""
    text = pl.format(
        "{} {} {}",
        escape(pl.col(f"release_{end}")),
        escape(pl.col(f"submitter_{end}")),
        escape(pl.col(f"platform_{end}")),
    )
    linked = external_link(
        text, pl.col(f"result_url_{end}"), title=pl.col(f"result_key_{end}")
    )
    details = pl.format(
        " · {} accelerators · {}",
        pl.col(f"total_accelerators_{end}").cast(pl.String).fill_null("?"),
        _fixed(pl.col(f"result_value_{end}"), 1, grouped=True).fill_null("?"),
    )
    badges = pl.concat_str(
        pl.when(pl.col(f"is_preview_{end}").fill_null(False))
        .then(pl.lit(" " + PREVIEW_BADGE))
        .otherwise(pl.lit("")),
        pl.when(pl.col(f"is_inferred_{end}").fill_null(False))
        .then(pl.lit(" " + INFERRED_BADGE))
        .otherwise(pl.lit("")),
    )
    return (
        pl.when(pl.col(f"result_key_{end}").is_null())
        .then(pl.lit("—"))
        .otherwise(pl.concat_str(linked, details, badges))
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
#: Columns of the table of every claim at the top of the page.
INDEX_COLUMNS = {
    "claim": "Claim",
    "claimant": "Claimant",
    "verdict": "Verdict",
    "readings": "Readings that agree",
}


def _readings_table(claim: Claim, evaluations: pl.DataFrame) -> str:
    """The Markdown table of one claim's readings (empty string if none)."""
    rows = evaluations.filter(pl.col("claim_id") == claim.id)
    if rows.is_empty():
        return "*Not evaluated.*"
    one_end = claim.ends == 1
    value = pl.when(pl.col("value").is_null()).then(pl.lit("—"))
    cells = rows.select(
        escape(pl.col("reading")).alias("reading"),
        verdict_badge(pl.col("verdict")).alias("verdict"),
        value.otherwise(_value_text(claim, pl.col("value"))).alias("value"),
        _end_cell("old").alias("old"),
        _end_cell("new").alias("new"),
        escape(pl.col("reason")).alias("reason"),
        joined("caveats", "<br>").alias("caveats"),
    )
    columns = ONE_END_COLUMNS if one_end else TWO_END_COLUMNS
    # The card puts its own line break after the table.
    return markdown_table(cells, columns, numeric=("value",)).removesuffix("\n")


def _scope(claim: Claim) -> str:
    """What the claim is about, in one line of escaped text."""
    releases = " → ".join(claim.releases)
    kind = _KIND_TEXT[claim.kind] + (
        " per accelerator" if claim.per_accelerator else ""
    )
    parts = [
        f"{escape(claim.stated)} {kind}",
        f"{escape(claim.benchmark)} {escape(' / '.join(claim.scenarios))} "
        f"({escape(claim.division)})",
        escape(releases),
    ]
    if claim.accelerators:
        parts.append(escape(" vs ".join(claim.accelerators)))
    if claim.total_accelerators:
        counts = " → ".join(str(c) for c in claim.total_accelerators)
        parts.append(f"{counts} accelerators")
    return " · ".join(parts)


def _reading_note(
    claim: Claim, evaluations: pl.DataFrame, matching: Sequence[str]
) -> str:
    """Which reading carries the verdict, and the strictest reading's value."""
    carried = (
        f"under the **{escape(matching[0])}** reading"
        if matching
        else "under no reading"
    )
    valued = evaluations.filter(
        (pl.col("claim_id") == claim.id) & pl.col("value").is_not_null()
    )
    if valued.is_empty():
        return f"{carried}; no reading has a value."
    reading, text = valued.select(
        "reading", _value_text(claim, pl.col("value")).alias("text")
    ).row(0)
    return f"{carried}; strictest reading with a value ({escape(reading)}): **{text}**."


def _card(claim: Claim, evaluations: pl.DataFrame, verdicts: pl.DataFrame) -> str:
    found = verdicts.filter(pl.col("claim_id") == claim.id)
    if found.is_empty():
        verdict_line = "*Not evaluated.*"
    else:
        verdict, summary, matching = found.select(
            "verdict", "summary", "matching_readings"
        ).row(0)
        note = _reading_note(claim, evaluations, matching or [])
        verdict_line = f"{_badge(verdict)} {note} {escape(summary)}"
    href = safe_url(claim.source_url)
    source = (
        f'<a href="{href}">{escape(claim.source_url)}</a>'
        if href
        else "no public source"
    )
    facts = [
        f"- **Claimant:** {escape(claim.claimant)}",
        f"- **Date:** {claim.date.isoformat()}",
        f"- **Source:** {source}",
        f"- **Claim:** {_scope(claim)}",
    ]
    if claim.systems:
        facts.append(f"- **Systems:** {escape(', '.join(claim.systems))}")
    if claim.submitters:
        facts.append(f"- **Submitters:** {escape(', '.join(claim.submitters))}")
    if claim.identity_level != "any":
        facts.append(
            f"- **Reading named by the claim:** {escape(claim.identity_level)}"
        )
    if claim.note:
        facts.append(f"- **Note:** {escape(claim.note)}")
    return "\n".join(
        [
            f"## {escape(claim.display_title)} {{#{claim_anchor(claim.id)}}}",
            "",
            verdict_line,
            "",
            f"> “{escape(claim.quote)}”",
            "",
            *facts,
            "",
            _readings_table(claim, evaluations),
            "",
        ]
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
        claim=pl.format("[{}](#{})", escape(pl.col("_title")), pl.col("_anchor")),
        claimant=escape(pl.col("_claimant")),
        verdict=pl.when(pl.col("verdict").is_null())
        .then(pl.lit("not evaluated"))
        .otherwise(verdict_badge(pl.col("verdict"))),
        readings=escape(pl.col("matching_readings").list.join(", ")),
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
        claims: the registry (``pipeline.claims.load_claims``), in page order.
        evaluations: ``pipeline.claims.evaluate_claims`` output.
        verdicts: ``pipeline.claims.claim_verdicts`` output.

    Returns:
        The page, starting with its title and the derived-data notice.
    """
    parts = [f"# {PAGE_TITLE}", "", NOTICE, HOW_TO_READ, ""]
    if not claims:
        parts.append("*No claims are registered yet.*\n")
        return "\n".join(parts)
    parts += [_index(claims, verdicts), ""]
    parts += [_card(claim, evaluations, verdicts) for claim in claims]
    return "\n".join(parts)


def claims_for_release(
    verdicts: pl.DataFrame, release: str
) -> list[tuple[str, str, str]]:
    """Claims that cite a release, so its page can link to them.

    Args:
        verdicts: ``pipeline.claims.claim_verdicts`` output.
        release: a release version such as ``"v6.0"``.

    Returns:
        ``(claim id, title, verdict)`` for every claim whose releases include
        ``release``, in registry order. The strings are raw: escape them when
        rendering, and link with ``claim_anchor(claim_id)``.
    """
    return [
        (claim_id, title, verdict)
        for claim_id, title, verdict in verdicts.filter(
            pl.col("releases").list.contains(release)
        )
        .select("claim_id", "title", "verdict")
        .iter_rows()
    ]


#: The page under ``generated/``.
PAGE = "claims.md"


def build(site: Site) -> None:
    """The Claims page, from the registry and its evaluations in ``site.data``."""
    evaluations = site.data.claim_evaluations
    if evaluations is None:
        evaluations = pl.DataFrame(schema=EVALUATION_SCHEMA)
    site.write_page(
        PAGE, render_claims_page(site.data.claims, evaluations, site.verdicts)
    )


def release_note(site: Site, release: str, page: str) -> str:
    """Links from a release page to the claims that cite the release, or ""."""
    claims = claims_for_release(site.verdicts, release)
    if not claims:
        return ""
    link = relative(page, f"{GENERATED}/{PAGE}")
    items = "\n".join(
        f"- [{escape(title)}]({link}#{claim_anchor(claim_id)}): {escape(verdict)}"
        for claim_id, title, verdict in claims
    )
    return f"\n## Claims about this release\n\n{items}\n"
