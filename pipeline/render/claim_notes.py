"""Claim verdicts as other pages cite them: anchors, badges, notes for a round.

The Claims page (``claims_page``) and the pages that point at it (release pages,
What's new, the feed) say the same words: the verdict badge of ``verdict_badge``,
"holds only in a loose reading" included.
"""

from __future__ import annotations

import re

import polars as pl

from pipeline.render import safe
from pipeline.render.safe import Md, MdExpr, md_join
from pipeline.render.spec import GENERATED
from pipeline.render.tables import relative

#: The page under ``generated/``.
PAGE = "claims.md"


def claim_anchor(claim_id: str) -> str:
    """The id of a claim's card, for links such as ``claims.md#claim-<id>``.

    Registry ids are validated slugs already; the substitution keeps the anchor safe
    for a ``Claim`` built by other code.
    """
    return "claim-" + re.sub(r"[^a-z0-9-]", "-", claim_id.lower())


def verdict_badge(verdict: pl.Expr) -> MdExpr:
    """An HTML badge per verdict, styled by ``ledger-badge--<verdict>``."""
    slug = verdict.fill_null("").str.replace_all(r"[^a-z]+", "-")
    return safe.fmt(
        '<span class="ledger-badge ledger-badge--{}">{}</span>',
        safe.ident(slug),
        verdict,
    )


def badge(verdict: str) -> Md:
    """One verdict's badge, as markup."""
    return safe.values(pl.DataFrame({"v": [verdict]}), verdict_badge(pl.col("v")))[0]


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


def release_note(
    verdicts: pl.DataFrame, release: str, page: str, *, level: int = 2
) -> Md:
    """Links from a page to the claims that cite ``release``, with their verdicts.

    The release pages, What's new and the feed (``feed_claims``) say the same words
    as the Claims page: its verdict badges, "holds only in a loose reading" included.
    """
    claims = claims_for_release(verdicts, release)
    if not claims:
        return Md("")
    link = relative(page, f"{GENERATED}/{PAGE}")
    items = md_join(
        "\n",
        (
            Md("- {}: {}").format(
                safe.page_link(title, f"{link}#{claim_anchor(claim_id)}"),
                badge(verdict),
            )
            for claim_id, title, verdict in claims
        ),
    )
    heading = (
        Md("\n### Claims about this release\n\n{}\n")
        if level == 3
        else Md("\n## Claims about this release\n\n{}\n")
    )
    return heading.format(items)


def feed_claims(verdicts: pl.DataFrame, release: str) -> Md:
    """The claims citing ``release`` as one HTML paragraph of a feed entry, or ""."""
    claims = claims_for_release(verdicts, release)
    if not claims:
        return Md("")
    items = md_join(
        "; ",
        (
            Md('<a href="{}#{}">{}</a>: {}').format(
                safe.path(PAGE.removesuffix(".md") + ".html"),
                safe.path(claim_anchor(claim_id)),
                title,
                verdict,
            )
            for claim_id, title, verdict in claims
        ),
    )
    return Md("<p>Claims about this round: {}.</p>").format(items)
