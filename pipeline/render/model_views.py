"""The model pages' rankings: LLM results per round, scenario and division.

Rows and cells the model pages (``model_pages``) lay out: every LLM result (Tokens/s)
with its accelerator-hours per million tokens and latency limits
(``analysis.cost.unit_costs``), ranked by per-accelerator throughput within its
round, benchmark, scenario and division, and the accuracy upstream published
beside it where the results table or the raw tree states one. Dagster-free; no
page module imports another, so these live here.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis.cost import LLM_UNIT, REASON_NOT_MEASURED, unit_costs
from pipeline.render import safe
from pipeline.render.context import chips
from pipeline.render.safe import Md
from pipeline.render.slugs import slug
from pipeline.render.tables import accuracy_cell, badges, external_link, number_cell

#: What a ranking is within: a round's scenario of one benchmark, one division.
RANKED_WITHIN = ("benchmark", "release", "scenario", "division")

#: The derived columns of ``unit_costs`` a ranking row shows.
COST_COLUMNS = (
    "accelerator_hours_per_million_units", "cost_reason", "latency_class",
    "ttft_limit_ms", "tpot_limit_ms", "tokens_per_second_per_user_at_limit",
    "latency_limit_source_url", "kwh_per_million_units", "energy_reason",
)  # fmt: skip

RANKING_COLUMNS = {
    "c_rank": "Rank",
    "c_system": "Submitter · system (upstream result)<br><small>accelerators · "
    "division · availability</small>",
    "c_per_accelerator": "Tokens/s per accelerator<br><small>system result</small>",
    "c_hours": "Accelerator-hours<br>per million tokens",
    "c_price": "$ per<br>million tokens",
    "c_energy": "kWh per million tokens<br><small>measured power only</small>",
    "c_accuracy": "Accuracy (as published)",
}
NUMERIC = ("c_rank", "c_per_accelerator", "c_hours", "c_price", "c_energy")

#: The $ cell before a price is entered (and always without JavaScript).
NO_PRICE = "—"


def llm_benchmarks(results: pl.DataFrame) -> list[str]:
    """Benchmarks with a result in Tokens/s, sorted: one model page each."""
    return sorted(
        results.filter(pl.col("result_unit") == LLM_UNIT)["benchmark"]
        .drop_nulls()
        .unique()
        .to_list()
    )


def price_keys(labels: list[str]) -> dict[str, str]:
    """Accelerator label -> the slug its price goes by in the URL and storage."""
    keys: dict[str, str] = {}
    for label in sorted(labels):
        key = slug(label) or "accelerator"
        while key in keys.values():
            key += "-x"
        keys[label] = key
    return keys


def _accuracy(results: pl.DataFrame, measured: pl.DataFrame | None) -> pl.DataFrame:
    """Each result's ``accuracy_published``: the results table's, else the tree's."""
    own = (
        results["accuracy_upstream"]
        if "accuracy_upstream" in results.columns
        else pl.Series([None] * results.height, dtype=pl.String)
    )
    keyed = results.select("release", "result_key").with_columns(accuracy_published=own)
    if measured is None or measured.height == 0:
        return keyed
    tree = (
        measured.filter(pl.col("accuracy").is_not_null())
        .select(
            "release",
            pl.coalesce("summary_result_key", "result_key").alias("result_key"),
            pl.format("average_accuracy: {}", pl.col("accuracy")).alias("_tree"),
        )
        .unique(["release", "result_key"], keep="first", maintain_order=True)
    )
    return keyed.join(tree, on=["release", "result_key"], how="left").select(
        "release",
        "result_key",
        pl.coalesce("accuracy_published", "_tree").alias("accuracy_published"),
    )


def ranking_rows(
    results: pl.DataFrame,
    canonical: pl.DataFrame,
    measured: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Every LLM result with its cost columns, accuracy and rank.

    Args:
        results: the model's results (display names, accelerator columns).
        canonical: the site data's results, which ``unit_costs`` reads (mixed
            systems marked); joined back by release and result key.
        measured: latency and accuracy as measured (``MEASURED_SCHEMA``) or None.

    ``rank`` orders a ranking by per-accelerator throughput, best first; a result
    with none (mixed accelerators, CPU only) has no rank and comes last.
    """
    llm = results.filter(pl.col("result_unit") == LLM_UNIT)
    keys = ["release", "result_key"]
    costs = (
        unit_costs(canonical.filter(pl.col("result_unit") == LLM_UNIT).lazy())
        .select(*keys, *COST_COLUMNS)
        .collect()
        .unique(keys, keep="first", maintain_order=True)
    )
    accuracy = _accuracy(canonical.filter(pl.col("result_unit") == LLM_UNIT), measured)
    per = pl.col("result_per_accelerator")
    usable = per.is_not_null() & per.is_finite() & (per > 0)
    ranked = (
        llm.join(costs, on=keys, how="left", maintain_order="left")
        .join(
            accuracy.unique(keys, keep="first"),
            on=keys,
            how="left",
            maintain_order="left",
        )
        .with_columns(_usable=usable)
        .sort(
            ["_usable", "result_per_accelerator", "result_key"],
            descending=[True, True, False],
            nulls_last=True,
        )
        .with_columns(
            rank=pl.when("_usable").then(
                pl.int_range(1, pl.len() + 1, dtype=pl.Int32).over(list(RANKED_WITHIN))
            )
        )
        .drop("_usable")
    )
    # Keys from every accelerator of the site, not of this benchmark only: a price
    # entered on one page (or in the Explorer) goes by the same key on every page.
    labels = results["accelerator_label"].drop_nulls().unique().to_list()
    return ranked.with_columns(
        price_key=pl.col("accelerator_label").replace_strict(
            price_keys(labels), default=None, return_dtype=pl.String
        )
    )


def _price_cell() -> safe.MdExpr:
    """The $ cell prices.js fills: its accelerator's key and accelerator-hours."""
    hours = pl.col("accelerator_hours_per_million_units")
    return safe.when(
        hours.is_not_null() & pl.col("price_key").is_not_null(),
        safe.fmt(
            '<span class="ledger-cost" data-price-key="{}" data-hours="{}">{}</span>',
            safe.ident(pl.col("price_key")),
            safe.numeric(hours.cast(pl.String)),
            safe.lit(NO_PRICE),
        ),
        safe.lit(NO_PRICE),
    )


def _energy_cell(rows: pl.DataFrame) -> safe.MdExpr:
    """KWh per million tokens and the span prices.js fills with its electricity cost.

    Only where MLPerf measured the power; otherwise "not measured" (or the reason),
    with a declared design power named as declared where the summary gives one.
    """
    kwh = pl.col("kwh_per_million_units")
    declared = (
        safe.when(
            pl.col("design_power_watts_declared").is_not_null(),
            safe.fmt(
                "<br><small>declared design power {} W: not measured; never used "
                "for energy or performance per watt</small>",
                number_cell(pl.col("design_power_watts_declared")),
            ),
        ).fill_null("")
        if "design_power_watts_declared" in rows.columns
        else safe.lit("")
    )
    return safe.concat(
        safe.when(
            kwh.is_not_null(),
            safe.fmt(
                '{}<br><small class="ledger-energy-cost" data-kwh="{}">{}</small>',
                number_cell(kwh),
                safe.numeric(kwh.cast(pl.String)),
                safe.lit(NO_PRICE),
            ),
            safe.when(
                pl.col("energy_reason").fill_null(REASON_NOT_MEASURED)
                == REASON_NOT_MEASURED,
                safe.lit("not measured"),
                safe.fmt("—<br><small>{}</small>", pl.col("energy_reason")),
            ),
        ),
        declared,
    )


def ranking_cells(rows: pl.DataFrame) -> pl.DataFrame:
    """Reader-facing cells of ``ranking_rows`` (every upstream string escaped)."""
    model = safe.when(
        (pl.col("division") != "closed")
        & (pl.col("model_upstream") != pl.col("benchmark")),
        safe.fmt("<br><small>model: {}</small>", pl.col("model_upstream")),
    )
    hours = pl.col("accelerator_hours_per_million_units")
    return rows.with_columns(
        c_rank=safe.when(
            pl.col("rank").is_not_null(), safe.numeric(pl.col("rank")), "—"
        ).cell(),
        c_system=safe.concat(
            safe.fmt("{} · ", pl.col("submitter")),
            external_link(
                pl.col("system_name"), pl.col("result_url"), pl.col("result_key")
            ),
            badges(
                pl.col("is_preview").fill_null(False),
                pl.col("is_inferred").fill_null(False),
                pl.col("is_inferred_unverified")
                if "is_inferred_unverified" in rows.columns
                else None,
            ),
            model.fill_null(""),
            safe.fmt(
                "<br><small>{} · {} · {}</small>",
                chips("total_accelerators", "accelerator_name", "nodes"),
                safe.when(
                    pl.col("division") == "open",
                    safe.lit("<strong>open</strong>"),
                    safe.text(pl.col("division")),
                ),
                pl.col("availability"),
            ),
        ).cell(),
        c_per_accelerator=safe.fmt(
            "{}<br><small>system {} {}</small>",
            safe.when(
                pl.col("result_per_accelerator").is_not_null(),
                number_cell(pl.col("result_per_accelerator")),
                "—",
            ),
            number_cell(pl.col("result_value")),
            pl.col("result_unit"),
        ).cell(),
        c_hours=safe.when(
            hours.is_not_null(),
            number_cell(hours),
            safe.fmt(
                "—<br><small>{}</small>", pl.col("cost_reason").fill_null("no value")
            ),
        ).cell(),
        c_price=_price_cell().cell(),
        c_energy=_energy_cell(rows).cell(),
        # The same cell as the Explorer's and the release pages' open rows.
        c_accuracy=accuracy_cell(pl.col("accuracy_published")).cell(),
    )


def limits_text(row: dict) -> Md:
    """A scenario's latency class in words, from one of its ranking rows."""
    if row["latency_class"] == "no limit":
        return Md("No latency limit (Offline: every request at once).")
    if row["tpot_limit_ms"] is None:
        return Md("Latency limits: not in the reviewed registry.")
    url = row["latency_limit_source_url"]
    source = Md("; {}").format(safe.link_md("source", url)) if safe.accepts(url) else ""
    return Md(
        "Latency limits (99th percentile): TTFT ≤ {:,.6g} ms, TPOT ≤ {:,.6g} ms: at "
        "least {:,.6g} tokens/s per user at the limit (1000 ÷ TPOT){}."
    ).format(
        row["ttft_limit_ms"],
        row["tpot_limit_ms"],
        row["tokens_per_second_per_user_at_limit"],
        source,
    )
