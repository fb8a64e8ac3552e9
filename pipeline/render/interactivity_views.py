"""The interactivity pages' tables: each round's latency limits and its systems.

Cells and tables of one interactive benchmark's rounds; the pages
(``interactivity_page``) lay them out per benchmark.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis.benchmarks import release_order
from pipeline.analysis.interactivity import (
    BEST_FIRST,
    SCENARIO_PREFIXES,
)
from pipeline.labels import display_name
from pipeline.render import safe
from pipeline.render.context import (
    chips,
)
from pipeline.render.safe import MdExpr
from pipeline.render.tables import (
    badges,
    external_link,
    html_table,
    number_cell,
    percent_cell,
)

#: Systems per chart: the ones with the most scenarios, best Interactive first.
CHART_SYSTEMS = 10
NOT_REGISTERED = "not in the registry"


def limits_table(
    page: str,
    registry: pl.DataFrame,
    table: pl.DataFrame,
    bounded: pl.DataFrame | None = None,
) -> str:
    """Every round and LLM benchmark: its Server and Interactive limits and source.

    A scenario with results but no registered limit says so; "—" means the round
    has neither a limit nor a result for that scenario. ``bounded``: the systems of
    benchmarks bounded by end-to-end latency (``latency_bounded_systems``), which
    ``table`` (Tokens/s results) does not hold.
    """
    keys = ["release", "benchmark"]

    def side(scenario: str) -> pl.DataFrame:
        prefix = SCENARIO_PREFIXES[scenario]
        return registry.filter(pl.col("scenario") == scenario).select(
            *keys,
            pl.col("ttft_ms").alias(f"{prefix}_ttft"),
            pl.col("tpot_ms").alias(f"{prefix}_tpot"),
            pl.col("latency_ms").alias(f"{prefix}_latency"),
            pl.col("source_url").alias(f"{prefix}_url"),
            pl.col("source_path").alias(f"{prefix}_path"),
            pl.col("source_commit").alias(f"{prefix}_commit"),
        )

    seen = table.group_by(keys).agg(
        pl.col("server_value").is_not_null().any().alias("has_server"),
        pl.col("interactive_value").is_not_null().any().alias("has_interactive"),
        pl.len().alias("systems"),
    )
    if bounded is not None:
        # A round counted from its Tokens/s results already is not counted again.
        extra = bounded.select(seen.columns).cast(seen.schema)
        seen = pl.concat([seen, extra.join(seen, on=keys, how="anti")])
    rows = (
        side("Server")
        .join(side("Interactive"), on=keys, how="full", coalesce=True)
        .join(seen, on=keys, how="full", coalesce=True)
        .with_columns(_order=release_order(pl.col("release")))
        .sort(["_order", "benchmark"], descending=[True, False], nulls_last=True)
    )

    def limit(prefix: str) -> MdExpr:
        return safe.choose(
            [
                (
                    pl.col(f"{prefix}_tpot").is_not_null(),
                    # The limits link the checker that states them.
                    external_link(
                        safe.fmt(
                            "{} ms · {} ms",
                            number_cell(pl.col(f"{prefix}_ttft")),
                            number_cell(pl.col(f"{prefix}_tpot")),
                        ),
                        pl.col(f"{prefix}_url"),
                    ),
                ),
                (
                    # A benchmark answered whole (qwen3-vl-235b-a22b) is bounded
                    # by its end-to-end query latency instead.
                    pl.col(f"{prefix}_latency").is_not_null(),
                    external_link(
                        safe.fmt(
                            "end-to-end {} ms",
                            number_cell(pl.col(f"{prefix}_latency")),
                        ),
                        pl.col(f"{prefix}_url"),
                    ),
                ),
                (pl.col(f"has_{prefix}").fill_null(False), NOT_REGISTERED),
            ],
            "—",
        )

    def source(prefix: str) -> MdExpr:
        return safe.when(
            pl.col(f"{prefix}_url").is_not_null(),
            external_link(
                safe.fmt(
                    "{} @ {}",
                    pl.col(f"{prefix}_path"),
                    pl.col(f"{prefix}_commit").str.slice(0, 7),
                ),
                pl.col(f"{prefix}_url"),
            ),
        )

    cells = rows.with_columns(
        c_release=pl.col("release"),
        c_benchmark=display_name(pl.col("benchmark")),
        c_server=limit("server").cell(),
        c_interactive=limit("interactive").cell(),
        c_source=safe.coalesce(source("server"), source("interactive"), "—").cell(),
        c_systems=pl.when(pl.col("systems").is_not_null())
        .then(pl.col("systems").cast(pl.String))
        .otherwise(pl.lit("none in the ledger")),
    )
    return html_table(
        cells,
        {
            "c_release": "Round",
            "c_benchmark": "Benchmark",
            "c_server": "Server limit",
            "c_interactive": "Interactive limit",
            "c_source": "Source",
            "c_systems": "Systems",
        },
    )


def _scenario_cell(prefix: str) -> MdExpr:
    """Per-accelerator throughput linked to its result, the system result below."""
    per = pl.col(f"{prefix}_per_accelerator")
    system = pl.col(f"{prefix}_value")
    url = pl.col(f"{prefix}_result_url")
    key = pl.col(f"{prefix}_result_key")
    flagged = badges(pl.lit(False), pl.col(f"{prefix}_is_inferred").fill_null(False))
    return safe.choose(
        [
            (system.is_null(), "—"),
            (
                per.is_not_null(),
                safe.fmt(
                    "{}{}<br><small>system {}</small>",
                    external_link(number_cell(per), url, title=key),
                    flagged,
                    number_cell(system),
                ),
            ),
        ],
        safe.fmt(
            "{}{}<br><small>system result; mixed accelerators: none per "
            "accelerator</small>",
            external_link(number_cell(system), url, title=key),
            flagged,
        ),
    )


def _ratio_cell(column: str) -> MdExpr:
    return safe.when(pl.col(column).is_not_null(), percent_cell(pl.col(column)), "—")


SYSTEM_COLUMNS = {
    "c_system": "System",
    "c_offline": "Offline",
    "c_server": "Server",
    "c_interactive": "Interactive",
    "c_server_ratio": "Server ÷ Offline",
    "c_interactive_ratio": "Interactive ÷ Offline",
}


def system_cells(table: pl.DataFrame) -> pl.DataFrame:
    """Reader-facing cells of ``interactivity`` rows (every upstream string escaped)."""
    model = safe.when(
        (pl.col("division") != "closed")
        & (pl.col("model_upstream") != pl.col("benchmark")),
        safe.fmt(" · model {}", pl.col("model_upstream")),
    )
    extra = safe.when(
        pl.col("extra_results") > 0,
        safe.fmt(
            "<br><small>{} more result(s) for a scenario; the best is shown</small>",
            safe.numeric(pl.col("extra_results")),
        ),
    )
    return table.with_columns(
        c_system=safe.concat(
            safe.fmt(
                "{} · {}<br><small>{} · {}{}</small>",
                pl.col("submitter"),
                pl.col("system_name"),
                chips("total_accelerators", "accelerator_name", "nodes"),
                pl.col("division"),
                model.fill_null(""),
            ),
            badges(pl.col("is_preview").fill_null(False), pl.lit(False)),
            extra.fill_null(""),
        ).cell(),
        c_offline=_scenario_cell("offline").cell(),
        c_server=_scenario_cell("server").cell(),
        c_interactive=_scenario_cell("interactive").cell(),
        c_server_ratio=_ratio_cell("server_vs_offline").cell(),
        c_interactive_ratio=_ratio_cell("interactive_vs_offline").cell(),
    )


def chosen_systems(group: pl.DataFrame) -> pl.DataFrame:
    """The systems a round's chart shows: most charted scenarios, best Interactive."""
    charted = sum(
        (
            pl.col(f"{p}_per_accelerator").is_not_null()
            & (pl.lit(True) if p == "offline" else pl.col(f"{p}_tpot_ms").is_not_null())
        ).cast(pl.Int32)
        for p in SCENARIO_PREFIXES.values()
    )
    return (
        group.with_columns(_charted=charted)
        .filter(pl.col("_charted") >= 2)
        .sort(
            ["_charted", *BEST_FIRST],
            descending=[True, True, True, True, False, False, False, False, False],
            nulls_last=True,
        )  # fmt: skip
        .head(CHART_SYSTEMS)
    )


#: The limit numbers a round states, formatted over whole frames.
LIMIT_TEXTS = ("ttft", "tpot", "target")


def with_limit_texts(cells: pl.DataFrame) -> pl.DataFrame:
    """Each row's latency limits as text: one ``number`` per column, not per round."""
    return cells.with_columns(
        number_cell(expr).cell(f"_{prefix}_{name}")
        for prefix in ("server", "interactive")
        for name, expr in zip(
            LIMIT_TEXTS,
            (
                pl.col(f"{prefix}_ttft_ms"),
                pl.col(f"{prefix}_tpot_ms"),
                1000.0 / pl.col(f"{prefix}_tpot_ms"),
            ),
            strict=True,
        )
    )
