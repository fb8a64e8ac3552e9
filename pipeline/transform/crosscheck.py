"""Compare the official summary of a round with what its raw submission tree says.

What belongs here: pairing canonical rows from the two sources and judging each pair.
What does not: reading either source (``pipeline.transform.results`` for summaries,
``pipeline.extract.raw_tree`` for the tree), Dagster checks built on the report.

The summary is a derived file that MLCommons regenerates by script; the raw tree is
what submitters published and auditors reviewed. Agreement between them is evidence
that our parsing of both is right; every disagreement is either our bug or an
upstream quirk worth a comment, so each one is listed with both values and links.
"""

from __future__ import annotations

import polars as pl

#: Largest relative difference still counted as agreement: 0.1%.
TOLERANCE = 0.001

#: Columns identifying one result in both sources. ``model_upstream`` is the
#: submitter's model folder (summary ``UsedModel``): in the open division several
#: folders map to one benchmark, so the canonical benchmark name is not unique.
MATCH_KEYS = (
    "release",
    "division",
    "submitter",
    "platform",
    "model_upstream",
    "scenario",
)
#: ``not_in_source``: a published result the raw tree read has no folder for (the
#: source holds only part of the round's tree); not an error, counted apart.
STATUSES = ("agree", "disagree", "summary_only", "raw_only", "not_in_source")
#: A result's location ``{division}/{submitter}/results/{system}/{model}/{scenario}``.
_MODEL_FOLDER = r"^[^/]+/[^/]+/results/[^/]+/([^/]+)/[^/]+$"

REPORT_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "division": pl.String,
    "submitter": pl.String,
    "platform": pl.String,
    "benchmark": pl.String,
    "model_upstream": pl.String,
    "scenario": pl.String,
    "status": pl.String,
    "summary_value": pl.Float64,
    "summary_unit": pl.String,
    "raw_value": pl.Float64,
    "raw_unit": pl.String,
    "relative_difference": pl.Float64,
    "has_unit_mismatch": pl.Boolean,
    "summary_is_inferred": pl.Boolean,
    "raw_is_inferred": pl.Boolean,
    "summary_total_accelerators": pl.Int32,
    "raw_total_accelerators": pl.Int32,
    "summary_result_key": pl.String,
    "raw_result_key": pl.String,
    "summary_location": pl.String,
    "raw_location": pl.String,
    "summary_url": pl.String,
    "raw_url": pl.String,
    "raw_source_file": pl.String,
}

_SIDE_COLUMNS = {
    "result_value": "value",
    "result_unit": "unit",
    "is_inferred": "is_inferred",
    "total_accelerators": "total_accelerators",
    "result_key": "result_key",
    "location": "location",
    "result_url": "url",
    "benchmark": "benchmark",
}


def _side(
    frame: pl.LazyFrame, prefix: str, extra: tuple[str, ...] = ()
) -> pl.LazyFrame:
    return frame.select(
        *MATCH_KEYS,
        *[pl.col(c).alias(f"{prefix}_{n}") for c, n in _SIDE_COLUMNS.items()],
        *[pl.col(c).alias(f"{prefix}_{c}") for c in extra],
    ).with_columns(
        # The model folder of the result's location names the model on both sides:
        # v6.1's summary gives MlperfModel "VLM" for the qwen3-vl-235b-a22b folder.
        # Else v4.1-v6.0 summaries fill UsedModel; last, the benchmark.
        model_upstream=pl.coalesce(
            pl.col(f"{prefix}_location").str.extract(_MODEL_FOLDER, 1),
            "model_upstream",
            f"{prefix}_benchmark",
        ),
        **{f"{prefix}_present": pl.lit(True)},
    )


def cross_check(
    summary: pl.LazyFrame,
    raw: pl.LazyFrame,
    tolerance: float = TOLERANCE,
    scanned: pl.LazyFrame | None = None,
) -> pl.DataFrame:
    """Pair summary and raw-tree rows of the same result and judge each pair.

    Both inputs are canonical results (``RESULTS_SCHEMA``), so values are already in
    one unit per kind (latencies in ms). A pair agrees when the relative difference
    ``|raw - summary| / |summary|`` is at most ``tolerance``; units are compared
    separately (``has_unit_mismatch``) because upstream summaries mislabel some
    units while carrying the right number, and a value check should not hide that
    nor be hidden by it.

    Args:
        summary: Canonical rows from the round's summary file.
        raw: Canonical rows from ``scan_raw_tree`` for the same round(s).
        tolerance: Largest relative difference still counted as agreement.
        scanned: ``result_key`` of every scenario folder the tree scan read, results
            and rejected ones (``release:division/submitter/system/model/scenario``).
            A published result of a scanned round with no such folder is
            ``not_in_source`` rather than ``summary_only``: the source has no raw
            file for it. None: every one-sided published result is ``summary_only``.

    Returns:
        One row per result in either source (``REPORT_SCHEMA``), with ``status`` one
        of ``STATUSES``.
    """
    left = _side(summary, "summary")
    right = _side(raw, "raw", extra=("source_file",))
    joined = left.join(right, on=list(MATCH_KEYS), how="full", coalesce=True)
    both = pl.col("summary_present") & pl.col("raw_present")
    difference = (pl.col("raw_value") - pl.col("summary_value")).abs() / pl.col(
        "summary_value"
    ).abs()
    if scanned is None:
        folder = pl.lit(True)
    else:
        keys = scanned.select("result_key").unique().collect()["result_key"]
        rounds = keys.str.extract(r"^([^:]+):", 1).unique()
        folder = pl.format("{}:{}/{}/{}/{}/{}", *MATCH_KEYS).is_in(
            keys.implode()
        ) | ~pl.col("release").is_in(rounds.implode())
    return (
        joined.with_columns(
            pl.col("summary_present", "raw_present").fill_null(False),
        )
        .with_columns(relative_difference=pl.when(both).then(difference))
        .with_columns(
            status=pl.when(both & (pl.col("relative_difference") <= tolerance))
            .then(pl.lit("agree"))
            .when(both)
            .then(pl.lit("disagree"))
            .when(pl.col("summary_present") & folder)
            .then(pl.lit("summary_only"))
            .when(pl.col("summary_present"))
            .then(pl.lit("not_in_source"))
            .otherwise(pl.lit("raw_only")),
            has_unit_mismatch=pl.when(both).then(
                pl.col("summary_unit") != pl.col("raw_unit")
            ),
            benchmark=pl.coalesce("summary_benchmark", "raw_benchmark"),
        )
        .select(*REPORT_SCHEMA)
        .cast(REPORT_SCHEMA)
        .sort(
            "release", "division", "submitter", "platform", "model_upstream", "scenario"
        )
        .collect()
    )


def cross_check_summary(report: pl.DataFrame) -> dict[str, int | float | None]:
    """Counts of a cross-check report, for logs, asset metadata and tests.

    ``agreement_rate`` is ``agree / matched`` (None when nothing matched): only
    results present in both sources can agree, one-sided ones are counted apart.
    """
    counts = dict(report.group_by("status").len().iter_rows())
    matched = counts.get("agree", 0) + counts.get("disagree", 0)
    return {
        "matched": matched,
        "agree": counts.get("agree", 0),
        "disagree": counts.get("disagree", 0),
        "summary_only": counts.get("summary_only", 0),
        "raw_only": counts.get("raw_only", 0),
        "not_in_source": counts.get("not_in_source", 0),
        "unit_mismatch": int(report["has_unit_mismatch"].fill_null(False).sum()),
        "agreement_rate": counts.get("agree", 0) / matched if matched else None,
    }
