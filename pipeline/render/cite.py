"""How to cite one published result: the line the site and the Explorer show.

MLCommons' messaging guidelines ask a citation of an MLPerf result to carry the
round, the division, the category (availability), the result ID, the date and the
source. ``citation`` builds exactly that line as a Polars expression (plain text:
callers escape it for their context); ``cite_rounds`` gives the per-round facts it
needs (publication date, whether that date is approximate, whether the round has a
summary file) from the reviewed manifest, ``pipeline/registry/releases.toml``.

Result IDs are upstream's (``result_id``: v4.1 to v6.0 summaries publish one; v6.1's
summary, in the submission checker's layout, has none, and rounds read from the raw
tree have none either). The result key stays the site's identifier of a row; the ID
is what a citation names, and where there is none the line says why.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipeline.registry.releases import Release, load_manifest

#: One row per manifest round: what a citation needs of the round.
CITE_ROUNDS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String(),
    "published_date": pl.Date(),
    "date_approximate": pl.Boolean(),
    "has_summary": pl.Boolean(),
}

#: The category words of MLPerf results tables, by canonical availability.
AVAILABILITY_WORDS = {"available": "Available", "preview": "Preview", "rdi": "RDI"}

#: Closes every citation: who published the result, and what the site's own numbers are.
RETRIEVED = (
    "Published by MLCommons. Derived figures on this site are not MLPerf results."
)


def cite_rounds(manifest: Sequence[Release] | None = None) -> pl.DataFrame:
    """The manifest's rounds as ``CITE_ROUNDS_SCHEMA`` rows (committed by default)."""
    releases = list(load_manifest() if manifest is None else manifest)
    return pl.DataFrame(
        {
            "release": [r.version for r in releases],
            "published_date": [r.published_date for r in releases],
            "date_approximate": [r.date_approximate for r in releases],
            "has_summary": [r.has_summary for r in releases],
        },
        schema=CITE_ROUNDS_SCHEMA,
    )


def _capitalised(word: pl.Expr) -> pl.Expr:
    return word.str.slice(0, 1).str.to_uppercase() + word.str.slice(1)


def citation(
    *,
    release: pl.Expr,
    division: pl.Expr,
    availability: pl.Expr,
    result_id: pl.Expr,
    url: pl.Expr,
    published_date: pl.Expr,
    date_approximate: pl.Expr,
    has_summary: pl.Expr,
) -> pl.Expr:
    """The "how to cite" line of a result, as plain (unescaped) text.

    "MLPerf Inference v5.1, Closed division, Available, result 5.1-0001, published
    2025-09-09; source: <url>. Published by MLCommons. Derived figures on this
    site are not MLPerf results." Without an ID the line says why ("no result ID
    (v6.1's summary publishes none)"); an approximate date says "(approximate)".
    """
    word = availability.replace_strict(
        AVAILABILITY_WORDS, default=None, return_dtype=pl.String
    )
    category = pl.coalesce(
        word, pl.format("availability {}", availability.fill_null("unknown"))
    )
    identifier = (
        pl.when(result_id.is_not_null())
        .then(pl.format("result {}", result_id))
        .when(has_summary.fill_null(False))
        .then(pl.format("no result ID ({}'s summary publishes none)", release))
        .otherwise(pl.format("no result ID ({}'s repository publishes none)", release))
    )
    date = (
        pl.when(published_date.is_null())
        .then(pl.lit("publication date not listed"))
        .otherwise(
            pl.format("published {}", published_date.dt.to_string("%Y-%m-%d"))
            + pl.when(date_approximate.fill_null(False))
            .then(pl.lit(" (approximate)"))
            .otherwise(pl.lit(""))
        )
    )
    return pl.format(
        "MLPerf Inference {}, {} division, {}, {}, {}; source: {}. {}",
        release,
        _capitalised(division.fill_null("unknown")),
        category,
        identifier,
        date,
        url.fill_null("no upstream link"),
        pl.lit(RETRIEVED),
    )


def with_citation(
    frame: pl.LazyFrame,
    rounds: pl.DataFrame,
    *,
    suffix: str = "",
    division: str = "division",
) -> pl.LazyFrame:
    """``frame`` with ``citation{suffix}``, the line of its ``*{suffix}`` result.

    Reads ``release``, ``availability``, ``result_id`` and ``result_url`` with the
    suffix (pair ends are ``_old`` / ``_new``) and ``division`` as named; the round
    facts come from ``rounds`` (``cite_rounds``). A round the manifest does not list
    gets no date and the raw-tree wording.
    """
    facts = rounds.lazy().rename({c: f"_cite_{c}" for c in rounds.columns})
    return (
        frame.join(
            facts,
            left_on=f"release{suffix}",
            right_on="_cite_release",
            how="left",
            maintain_order="left",
        )
        .with_columns(
            citation(
                release=pl.col(f"release{suffix}"),
                division=pl.col(division),
                availability=pl.col(f"availability{suffix}"),
                result_id=pl.col(f"result_id{suffix}"),
                url=pl.col(f"result_url{suffix}"),
                published_date=pl.col("_cite_published_date"),
                date_approximate=pl.col("_cite_date_approximate"),
                has_summary=pl.col("_cite_has_summary"),
            ).alias(f"citation{suffix}")
        )
        .drop("_cite_published_date", "_cite_date_approximate", "_cite_has_summary")
    )
