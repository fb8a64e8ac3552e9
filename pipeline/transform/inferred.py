"""Whether a result was inferred from another scenario's run, as upstream meant it.

Upstream's summary column ``inferred`` does not mean the same in every round
(``[rule.inferred_flag]`` in ``pipeline/registry/rounds.toml``): through v5.1 it is
set when the checker derived a result from a run of another scenario; from v6.0 a
case-sensitive string comparison also marks every Interactive result and every folder
spelled in lower case, which are measured. This module turns upstream's mark into the
project's judgement: the result's own log where the raw tree is read, else the mark
unless the round's registry says it misleads for that row. Upstream's value is kept
as ``is_inferred_upstream``; a mark not taken gets ``inferred_note`` saying what is
known. Dagster wiring does not belong here.
"""

from __future__ import annotations

import polars as pl

from pipeline.registry.rounds import InferredFlag, Misread

#: What a reader is told of a marked result whose own log shows its folder's scenario.
LOG_SAYS_MEASURED = (
    "marked inferred upstream; its log in the raw tree is a run of its own scenario"
)


def _folder() -> pl.Expr:
    """The result folder's scenario as upstream wrote it (the Location's last part)."""
    return pl.col("location").str.extract(r"([^/]+)/*$")


def _selects(misread: Misread) -> pl.Expr:
    if misread.test == "scenario":
        return pl.col("scenario").is_in(list(misread.scenarios))
    if misread.test == "not_edge":
        return ~pl.col("category").fill_null("").str.contains("edge")
    folder = _folder()
    return folder.is_not_null() & (folder == folder.str.to_lowercase())


def judge_summary(results: pl.LazyFrame, flag: InferredFlag | None) -> pl.LazyFrame:
    """Summary rows with upstream's mark kept and judged by the round's registry.

    A marked row that a ``misread`` entry selects (first match wins) is not called
    inferred: "measured" rows are known not to be, "unknown" rows keep a badge
    (``is_inferred_unverified``); both say why in ``inferred_note``.
    """
    marked = pl.col("is_inferred").fill_null(False)
    verdict: pl.Expr = pl.lit(None, pl.String)
    note: pl.Expr = pl.lit(None, pl.String)
    for misread in reversed(flag.misread if flag else ()):
        hit = marked & _selects(misread)
        verdict = pl.when(hit).then(pl.lit(misread.verdict)).otherwise(verdict)
        note = pl.when(hit).then(pl.lit(misread.note)).otherwise(note)
    return (
        results.with_columns(_verdict=verdict, inferred_note=note)
        .with_columns(
            is_inferred_upstream=marked,
            is_inferred=marked & pl.col("_verdict").is_null(),
            is_inferred_unverified=(pl.col("_verdict") == "unknown").fill_null(False),
        )
        .drop("_verdict")
    )


def judge_by_tree(results: pl.DataFrame, tree: pl.DataFrame) -> pl.DataFrame:
    """Summary rows whose result folder the raw tree read take the log's verdict.

    The tree decides from the log's scenario against the folder's (case-insensitively,
    an Interactive folder holding a Server run being measured). Folders are matched
    without case: v6.0's summary and tree spell them alike, but a later round may not.
    """
    if tree.is_empty():
        return results
    key = pl.col("location").str.to_lowercase().str.strip_chars_end("/")
    verdicts = (
        tree.lazy()
        .select(_location=key, _log_inferred=pl.col("is_inferred"))
        .unique("_location", keep="first")
    )
    measured = pl.col("_log_inferred").not_() & pl.col("is_inferred_upstream")
    return (
        results.lazy()
        .with_columns(_location=key)
        .join(verdicts, on="_location", how="left", maintain_order="left")
        .with_columns(
            is_inferred=pl.coalesce("_log_inferred", "is_inferred"),
            is_inferred_unverified=pl.when(pl.col("_log_inferred").is_not_null())
            .then(False)
            .otherwise(pl.col("is_inferred_unverified")),
            inferred_note=pl.when(pl.col("_log_inferred").is_not_null())
            .then(pl.when(measured).then(pl.lit(LOG_SAYS_MEASURED)))
            .otherwise(pl.col("inferred_note")),
        )
        .drop("_location", "_log_inferred")
        .collect()
    )
