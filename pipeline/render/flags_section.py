"""The Audit page's plausibility section and the download of every flagged pair.

The rules live in ``pipeline/registry/plausibility.toml``; this module only shows
them (reason and evidence, escaped) with how many pairs each one flagged, and builds
the table of flagged pairs the Data and Audit pages offer for download.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipeline.analysis.plausibility import FlagRule, load_plausibility_rules
from pipeline.render import safe
from pipeline.render.safe import Md, md_join
from pipeline.render.tables import html_table

#: Columns of the flagged-pairs download, in order.
FLAGGED_COLUMNS = (
    "kind", "identity_level", "is_per_accelerator", "benchmark", "scenario",
    "division", "result_unit",
    "release_old", "release_new", "is_consecutive", "rounds_not_in_source",
    "submitter_old", "submitter_new", "platform_old",
    "platform_new", "total_accelerators_old", "total_accelerators_new", "ratio",
    "efficiency", "flags", "flag_reasons", "result_key_old", "result_key_new",
    "result_id_old", "result_id_new", "result_url_old", "result_url_new",
)  # fmt: skip


def flagged_pairs(frames: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Every pair of every kind that a plausibility rule flagged.

    Args:
        frames: Pair tables in ``PAIR_SCHEMA`` (``SiteData`` guarantees it).
    """
    return (
        pl.concat([f.select(FLAGGED_COLUMNS) for f in frames])
        .filter(pl.col("flags").list.len().fill_null(0) > 0)
        .sort(
            "kind",
            "identity_level",
            "benchmark",
            "scenario",
            "release_new",
            "result_key_old",
            "result_key_new",
        )  # fmt: skip
    )


def flags_section(
    flagged: pl.DataFrame, rules: Sequence[FlagRule] | None = None
) -> list[str]:
    """Markdown parts: each rule, its evidence and how many pairs it flagged."""
    rules = load_plausibility_rules() if rules is None else rules
    counts = (
        flagged.explode("flags").group_by("flags", "kind").len()
        if flagged.height
        else pl.DataFrame(
            schema={"flags": pl.String, "kind": pl.String, "len": pl.UInt32}
        )
    )
    rows = pl.DataFrame(
        [
            safe.series("c_id", (Md("<code>{}</code>").format(r.id) for r in rules)),
            safe.series(
                "c_role",
                (
                    Md("<b>{}</b><br><small>{}</small>").format(r.role, r.why)
                    for r in rules
                ),
            ),
            safe.series("c_reason", (r.reason for r in rules)),
            safe.series(
                "c_pairs",
                (
                    md_join(
                        ", ",
                        (
                            Md("{} {:,}").format(kind, n)
                            for kind, n in counts.filter(pl.col("flags") == r.id)
                            .sort("kind")
                            .select("kind", "len")
                            .iter_rows()
                        ),
                    )
                    or "none"
                    for r in rules
                ),
            ),
            safe.series("c_evidence", (r.evidence for r in rules)),
        ]
    )
    return [
        "## Plausibility flags\n",
        Md(
            "Every derived pair is checked against the reviewed rules in "
            "`pipeline/registry/plausibility.toml`. A flagged pair stays in its table "
            "with a badge and the reason. A **label** discloses (preview hardware, an "
            "inferred result, two submitters) and never keeps a pair out of anything; "
            "a **warning** doubts the number: the pair is drawn faint and never "
            'enters a headline, a "what\'s new" section or a top-N list. '
            "Flagged pairs: **{:,}**. Every one of them, with its reasons and both "
            "cited results, is in the [flagged pairs download]"
            "(downloads/flagged_pairs.csv).\n"
        ).format(flagged.height),
        html_table(
            rows,
            {
                "c_id": "Flag",
                "c_role": "Role",
                "c_reason": "What it tells a reader",
                "c_pairs": "Pairs flagged",
                "c_evidence": "Why",
            },
        ),
    ]
