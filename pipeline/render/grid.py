"""A round's official-style grid: one row per system, a column per benchmark × scenario.

What the MLCommons results table shows for a round, from the canonical rows: each
system (division, submitter, system, accelerator, count, availability) with its best
result of every benchmark and scenario it ran, the unit in the column name. Written
as a CSV and Parquet download per round and linked from the round's page.
"""

from __future__ import annotations

import polars as pl

from pipeline.render.site_data import SYSTEM_IDENTITY, best_results, with_accelerators

#: What identifies one system's row: the one definition every count uses.
SYSTEM = SYSTEM_IDENTITY


def round_grid(results: pl.DataFrame) -> pl.DataFrame:
    """One round's results as a grid (``results``: that round's canonical rows)."""
    rows = with_accelerators(results)
    best = best_results(rows, [*SYSTEM, "benchmark", "scenario"]).with_columns(
        column=pl.format(
            "{} · {} ({})",
            pl.col("benchmark").fill_null("?"),
            pl.col("scenario").fill_null("?"),
            pl.col("result_unit").fill_null("?"),
        )
    )
    if best.height == 0:
        return pl.DataFrame(schema={c: rows.schema[c] for c in SYSTEM})
    grid = best.pivot(
        on="column", index=list(SYSTEM), values="result_value", sort_columns=True
    )
    return grid.rename({"accelerator_label": "accelerator"}).sort(
        ["division", "submitter", "system_name", "accelerator", "total_accelerators"],
        nulls_last=True,
    )
