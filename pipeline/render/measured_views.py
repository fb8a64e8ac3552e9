"""Latency as measured, beside the round's limits: the interactivity pages' tables.

Rows of ``transform.measured.MEASURED_SCHEMA`` (results written by the MLPerf
endpoints harness, whose ``result_summary.json`` states the TTFT and TPOT
distributions) joined to the published results they measure and to the round's
latency limits (``latency_limits.toml``). Every upstream string is escaped; every
value links its upstream result.
"""

from __future__ import annotations

import polars as pl

from pipeline.latency_limits import limit_columns
from pipeline.render import safe
from pipeline.render.safe import Md, MdExpr, md_join
from pipeline.render.tables import external_link, html_table, number_cell

#: Milliseconds are shown to two decimals (the files give nanoseconds).
MS_DECIMALS = 2
STATISTICS = (("p50", "p50"), ("p90", "p90"), ("p99", "p99"), ("es", "early stopping"))

MEASURED_COLUMNS = {
    "c_system": "System",
    "c_scenario": "Scenario",
    "c_ttft": "TTFT (ms)",
    "c_tpot": "TPOT (ms)",
    "c_latency": "End-to-end latency (ms)",
    "c_user": "Tokens/s per user",
    "c_accuracy": "Accuracy",
}


def measured_rows(
    measured: pl.DataFrame | None, results: pl.DataFrame, limits: pl.DataFrame
) -> pl.DataFrame:
    """Measured rows with their published result's names and the scenario's limits.

    Only rows paired with a published result (``summary_result_key``) are shown.
    """
    if measured is None or measured.height == 0:
        return pl.DataFrame()
    named = results.select(
        pl.col("result_key").alias("summary_result_key"),
        "benchmark",
        "submitter",
        "system_name",
        "result_url",
    )
    return (
        measured.join(named, on="summary_result_key", how="inner")
        .join(
            limits.select(limit_columns()),
            on=["release", "benchmark", "scenario"],
            how="left",
        )
        .filter(
            pl.col("ttft_p50_ms").is_not_null() | pl.col("tpot_p50_ms").is_not_null()
        )
        .sort("release", "benchmark", "submitter", "system_name", "scenario")
    )


def _ms(expr: pl.Expr) -> MdExpr:
    return number_cell(expr.round(MS_DECIMALS))


def _distribution(dist: str) -> MdExpr:
    """p50, p90, p99 and the early-stopping estimate, then the limit it must meet.

    A benchmark bounded end to end (qwen3-vl-235b-a22b) has no TTFT or TPOT limit,
    and one bounded by TTFT and TPOT no end-to-end limit: each says so, rather
    than "not in the registry".
    """
    stats = safe.fmt(
        "p50 {} · p90 {} · p99 {}<br><small>early stopping (p{}) {}</small>",
        _ms(pl.col(f"{dist}_p50_ms")),
        _ms(pl.col(f"{dist}_p90_ms")),
        _ms(pl.col(f"{dist}_p99_ms")),
        number_cell(pl.col("early_stopping_percentile")),
        _ms(pl.col(f"{dist}_es_ms")),
    )
    limit = pl.col(f"{dist}_limit_ms")
    other = (
        pl.col("tpot_limit_ms").is_not_null()
        if dist == "latency"
        else pl.col("latency_limit_ms").is_not_null()
    )
    return safe.concat(
        stats,
        safe.choose(
            [
                (
                    limit.is_not_null(),
                    safe.fmt("<br><small>limit ≤ {}</small>", _ms(limit)),
                ),
                (
                    other,
                    Md("<br><small>no limit on it</small>")
                    if dist == "latency"
                    else Md(
                        "<br><small>no limit: end-to-end latency is bounded</small>"
                    ),
                ),
            ],
            Md("<br><small>limit not in the registry</small>"),
        ),
    )


def measured_cells(rows: pl.DataFrame) -> pl.DataFrame:
    """Reader-facing cells of ``measured_rows`` (every upstream string escaped)."""
    target = 1000.0 / pl.col("tpot_limit_ms")
    return rows.with_columns(
        c_system=external_link(
            safe.fmt("{} · {}", pl.col("submitter"), pl.col("system_name")),
            pl.col("result_url"),
            title=pl.col("summary_result_key"),
        ).cell(),
        c_scenario=safe.fmt("{}", pl.col("scenario")).cell(),
        c_ttft=_distribution("ttft").cell(),
        c_tpot=_distribution("tpot").cell(),
        c_latency=_distribution("latency").cell(),
        c_user=safe.concat(
            number_cell(pl.col("tokens_per_second_per_user").round(1)),
            safe.when(
                target.is_not_null(),
                safe.fmt(
                    "<br><small>target ≥ {}</small>", number_cell(target.round(1))
                ),
                Md(""),
            ),
        ).cell(),
        c_accuracy=safe.choose(
            [(pl.col("accuracy").is_null(), "—")], number_cell(pl.col("accuracy"))
        ).cell(),
    )


def measured_table(cells: pl.DataFrame) -> Md:
    """One round's measured latency of one benchmark, as an HTML table."""
    if cells.height == 0:
        return Md("")
    # The end-to-end latency is shown where a limit bounds it (qwen3-vl-235b-a22b);
    # it is in the downloads for every result.
    columns = (
        MEASURED_COLUMNS
        if cells["latency_limit_ms"].is_not_null().any()
        else {k: v for k, v in MEASURED_COLUMNS.items() if k != "c_latency"}
    )
    intro = Md(
        "\n**Latency as measured** (results whose files state their TTFT and TPOT "
        "distributions: the MLPerf endpoints harness's `result_summary.json`, "
        "nanoseconds shown in ms). The early-stopping estimate is the value the "
        "limits bound; tokens/s per user is 1000 ÷ TPOT p50.\n\n"
    )
    return intro + html_table(
        cells,
        columns,
        numeric=("c_ttft", "c_tpot", "c_latency", "c_user", "c_accuracy"),
        wide=("c_system", "c_ttft", "c_tpot", "c_latency"),
        searchable=False,
    )


def latency_limits_sentence(rows: pl.DataFrame) -> Md:
    """The end-to-end latency limits of one round's measured rows, with a source.

    "" where no row has one (a benchmark bounded by TTFT and TPOT says its limits
    in its round's own sentence).
    """
    limits = (
        rows.filter(pl.col("latency_limit_ms").is_not_null())
        .select("scenario", "latency_limit_ms", "limit_source_url")
        .unique()
        .sort("scenario", descending=True)  # Server before Interactive
    )
    if limits.height == 0:
        return Md("")
    parts = [
        Md("{}: end-to-end query latency ≤ {:,.0f} ms{}").format(
            scenario,
            limit,
            Md("; {}").format(safe.link_md("source", url)) if safe.accepts(url) else "",
        )
        for scenario, limit, url in limits.iter_rows()
    ]
    return Md("Limits (99th percentile): {}.\n").format(md_join("; ", parts))
