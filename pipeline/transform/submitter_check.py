"""Every row of the submitters' own summary tables against the result from the logs.

Rows agree within 0.1% (the summary cross-check's tolerance), are explained by a
reviewed rule (``registry/submitter_summaries.toml``), disagree (both values shown),
or name a result the logs do not give. Values always come from the logs; this only
says how far the nearest thing to an official table for a pre-v4.1 round bears them
out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

import polars as pl

from pipeline.registry.submitter_summaries import Explanation, load_explanations
from pipeline.transform.crosscheck import TOLERANCE

CHECK_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "csv_file": pl.String,
    "csv_row": pl.Int64,
    "platform": pl.String,
    "model": pl.String,
    "scenario": pl.String,
    "metric": pl.String,
    "csv_value": pl.Float64,
    "log_value": pl.Float64,
    "result_key": pl.String,
    "result_url": pl.String,
    #: "agree", "explained", "disagree", "no log result" or "unreadable".
    "status": pl.String,
    #: The explaining rule, or why the row could not be compared.
    "note": pl.String,
}
STATUSES = ("agree", "explained", "disagree", "no log result", "unreadable")


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def log_line_value(text: str, line: str) -> float | None:
    """The number after ``<line> :`` in a loadgen summary, or None."""
    found = re.search(rf"^{re.escape(line)}\s*:\s*(\S+)", text, re.M)
    try:
        return float(found.group(1)) if found else None
    except ValueError:
        return None


def submitter_check(
    rows: pl.DataFrame,
    results: pl.DataFrame,
    *,
    release: str,
    read: Callable[[str], bytes],
    explanations: tuple[Explanation, ...] | None = None,
    paths: Collection[str] = (),
) -> pl.DataFrame:
    """Compare each CSV row (``CSV_SCHEMA``) with the result the logs gave.

    A "loadgen" row holds the log's value in the log's unit (compared with
    ``result_value_upstream``), a "checker" row the checker's value (latencies in
    ms: compared with ``result_value``). ``read`` returns a stored file's bytes, for
    the explanations that name another line of the same log; ``paths`` is the
    listing, for those that say a result was never published.
    """
    explanations = load_explanations() if explanations is None else explanations
    ours = results.select(
        "division",
        "submitter",
        "platform",
        pl.col("model_upstream").alias("model"),
        "scenario",
        "result_value",
        "result_value_upstream",
        "result_key",
        "result_url",
        "source_file",
    ).unique(["division", "submitter", "platform", "model", "scenario"])
    value = pl.col("value_text").cast(pl.Float64, strict=False)
    joined = (
        rows.lazy()
        .join(
            ours.lazy(),
            on=["division", "submitter", "platform", "model", "scenario"],
            how="left",
            nulls_equal=True,
        )
        .with_columns(
            csv_value=value,
            log_value=pl.when(pl.col("layout") == "loadgen")
            .then("result_value_upstream")
            .otherwise("result_value"),
        )
        .with_columns(
            agrees=(pl.col("log_value") - pl.col("csv_value")).abs()
            <= TOLERANCE * pl.col("csv_value").abs()
        )
        .collect()
    )
    explained = _explained(joined, release, read, explanations, paths)
    return (
        joined.join(explained, on=["csv_file", "csv_row"], how="left")
        .with_columns(
            status=pl.when(pl.col("problem").is_not_null())
            .then(pl.lit("unreadable"))
            .when(pl.col("csv_value").is_null())
            .then(pl.lit("unreadable"))
            .when(pl.col("log_value").is_null() & pl.col("rule").is_not_null())
            .then(pl.lit("explained"))
            .when(pl.col("log_value").is_null())
            .then(pl.lit("no log result"))
            .when("agrees")
            .then(pl.lit("agree"))
            .when(pl.col("rule").is_not_null())
            .then(pl.lit("explained"))
            .otherwise(pl.lit("disagree")),
        )
        .with_columns(
            note=pl.when(pl.col("status") == "unreadable")
            .then(
                pl.coalesce(
                    "problem", pl.format("value is not a number: '{}'", "value_text")
                )
            )
            .when(pl.col("status") == "no log result")
            .then(
                pl.lit(
                    "no result read from the logs for this system, benchmark "
                    "and scenario (no such folder, or rejected)"
                )
            )  # fmt: skip
            .when(pl.col("status") == "explained")
            .then("rule"),
            release=pl.lit(release),
        )
        .select(list(CHECK_SCHEMA))
        .cast(CHECK_SCHEMA)
        .sort("csv_file", "csv_row")
    )


def _explained(
    joined: pl.DataFrame,
    release: str,
    read: Callable[[str], bytes],
    explanations: tuple[Explanation, ...],
    paths: Collection[str],
) -> pl.DataFrame:
    """(csv_file, csv_row, rule) for each disagreeing row a rule explains, checked."""
    out: list[dict[str, object]] = []
    rules = [e for e in explanations if e.release == release and (e.line or e.stale)]
    absent = [e for e in explanations if e.release == release and e.not_published]
    if absent and paths:
        # Scenario folders, compared lower-cased (v0.5 trees write "offline/").
        folders = {
            p.split("/performance/", 1)[0].lower() for p in paths if "/results/" in p
        }
        missing = joined.filter(
            pl.col("log_value").is_null() & pl.col("csv_value").is_not_null()
        )
        for row in missing.iter_rows(named=True):
            folder = "/".join(
                (row["division"], row["submitter"], "results", row["platform"],
                 row["model"], row["scenario"])
            ).lower()  # fmt: skip
            rule = next((e for e in absent if e.file == row["csv_file"]), None)
            if rule is not None and folder not in folders:
                out.append(
                    {"csv_file": row["csv_file"], "csv_row": row["csv_row"],
                     "rule": rule.name}
                )  # fmt: skip
    candidates = joined.filter(
        ~pl.col("agrees").fill_null(True) & pl.col("source_file").is_not_null()
    )
    # A handful of rows per round: each explanation is checked against its own log.
    for row in candidates.iter_rows(named=True):
        for rule in rules:
            if rule.file != row["csv_file"] or (
                rule.metric and rule.metric != row["metric"]
            ):
                continue
            try:
                text = read(row["source_file"]).decode("utf-8", "replace")
            except (OSError, ValueError, RuntimeError):
                continue
            if rule.stale:
                numbers = [float(n) for n in _NUMBER.findall(text)]
                holds = not any(
                    abs(n - row["csv_value"]) <= TOLERANCE * abs(row["csv_value"])
                    for n in numbers
                )
            else:
                logged = log_line_value(text, rule.line or "")
                holds = logged is not None and abs(
                    logged - row["csv_value"]
                ) <= TOLERANCE * abs(row["csv_value"])
            if holds:
                out.append(
                    {"csv_file": row["csv_file"], "csv_row": row["csv_row"],
                     "rule": rule.name}
                )  # fmt: skip
                break
    return pl.DataFrame(
        out, schema={"csv_file": pl.String, "csv_row": pl.Int64, "rule": pl.String}
    )


def agreement(check: pl.DataFrame) -> pl.DataFrame:
    """Per round: rows, and how many agree, are explained, disagree or are missing."""
    return (
        check.group_by("release")
        .agg(
            pl.len().alias("rows"),
            *[
                (pl.col("status") == s).sum().alias(s.replace(" ", "_"))
                for s in STATUSES
            ],
        )
        .with_columns(
            share=((pl.col("agree") + pl.col("explained")) / pl.col("rows")).round(4)
        )
        .sort("release")
    )
