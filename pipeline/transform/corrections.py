"""Diff consecutive snapshots of one release: what upstream corrected after publishing.

Records are matched by result key (the same key the canonical table uses), and compared
field by field on every field upstream wrote, not only the canonical ones, so a changed
note or a renamed system shows up too.
"""

from __future__ import annotations

import polars as pl

from pipeline.extract.summary import parse_summary, summary_tables

CORRECTIONS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "result_key": pl.String,
    "change": pl.String,  # added | removed | changed
    "field": pl.String,
    "old_value": pl.String,
    "new_value": pl.String,
    "old_sha256": pl.String,
    "new_sha256": pl.String,
    "seen_at": pl.String,
    "result_url": pl.String,
}


def _fields_by_key(
    content: bytes,
    *,
    release: str,
    repository: str,
    path: str,
    commit: str | None = None,
) -> pl.LazyFrame:
    """Every upstream field of every record, long: (result_key, field, value)."""
    results, rejected, _ = summary_tables(
        content,
        release=release,
        repository=repository,
        source_file=path,
        sha256="",
        commit=commit,
    )
    keys = pl.concat(
        [
            results.select("source_record", "result_key", "result_url"),
            rejected.select(
                "source_record",
                "result_key",
                pl.lit(None, pl.String).alias("result_url"),
            ),
        ]
    )
    raw = parse_summary(
        content, release=release, file=path, all_fields=True
    ).frame.drop("record_json")
    return (
        raw.lazy()
        .join(keys.lazy(), on="source_record", how="left")
        .drop("source_record")
        .unpivot(
            index=["result_key", "result_url"],
            variable_name="field",
            value_name="value",
        )
    )


def diff_snapshots(
    old: bytes,
    new: bytes,
    *,
    release: str,
    repository: str,
    path: str,
    old_sha256: str,
    new_sha256: str,
    seen_at: str,
    old_commit: str | None = None,
    new_commit: str | None = None,
) -> pl.DataFrame:
    """Rows added, removed and changed (one row per changed field) from old to new.

    Links name the commit of the side that has the result: a removed result's link
    points at the old commit, where it still exists.
    """
    args = {"release": release, "repository": repository, "path": path}
    before = _fields_by_key(old, **args, commit=old_commit)
    after = _fields_by_key(new, **args, commit=new_commit)
    old_keys = before.select("result_key", "result_url").unique("result_key")
    new_keys = after.select("result_key", "result_url").unique("result_key")
    added = new_keys.join(old_keys, on="result_key", how="anti").with_columns(
        change=pl.lit("added")
    )
    removed = old_keys.join(new_keys, on="result_key", how="anti").with_columns(
        change=pl.lit("removed")
    )
    changed = (
        before.join(
            after,
            on=["result_key", "field"],
            how="inner",
            suffix="_new",
            nulls_equal=True,
        )
        .filter(pl.col("value").ne_missing(pl.col("value_new")))
        .select(
            "result_key",
            pl.coalesce("result_url_new", "result_url").alias("result_url"),
            pl.lit("changed").alias("change"),
            "field",
            pl.col("value").alias("old_value"),
            pl.col("value_new").alias("new_value"),
        )
    )
    whole = pl.concat([added, removed], how="diagonal").with_columns(
        field=pl.lit(None, pl.String),
        old_value=pl.lit(None, pl.String),
        new_value=pl.lit(None, pl.String),
    )
    return (
        pl.concat([whole, changed], how="diagonal_relaxed")
        .with_columns(
            release=pl.lit(release),
            old_sha256=pl.lit(old_sha256),
            new_sha256=pl.lit(new_sha256),
            seen_at=pl.lit(seen_at),
        )
        .select(list(CORRECTIONS_SCHEMA))
        .cast(CORRECTIONS_SCHEMA)
        .sort("result_key", "field", nulls_last=True)
        .collect()
    )


def switched_source(before: dict, after: dict) -> bool:
    """Whether two consecutive history lines were read from different sources.

    The data folder was moved to another source (``--switch-source``,
    ``pipeline.origin``): what differs is the sources, not an upstream correction.
    Lines written before sources were recorded name none and count as one source.
    """
    old, new = before.get("source"), after.get("source")
    return bool(old and new and old != new)


def empty_corrections() -> pl.DataFrame:
    """No corrections (a release with a single snapshot)."""
    return pl.DataFrame(schema=CORRECTIONS_SCHEMA)
