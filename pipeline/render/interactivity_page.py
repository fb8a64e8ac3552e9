"""The Interactivity pages: LLM latency limits per round, each system's three scenarios.

The index (``interactivity/index.md``) lists the TTFT and TPOT limits of every LLM
benchmark's Server and Interactive scenario per round, each with its source (the
submission checker at a commit, from ``pipeline/registry/latency_limits.toml``), and
links one page per LLM benchmark. A benchmark page shows, per round, every system's
Offline, Server and Interactive throughput per accelerator side by side, and a chart
placing each scenario at its interactivity target (the slowest token rate a user may
see, 1000 / TPOT limit). Numbers come from ``pipeline.analysis.interactivity`` (pure
Polars); every value links its upstream result; every upstream string is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from pipeline.analysis.benchmarks import release_order
from pipeline.analysis.interactivity import (
    BEST_FIRST,
    INTERACTIVITY_SCHEMA,
    SCENARIO_PREFIXES,
    SYSTEM_KEYS,
    interactivity,
    interactivity_points,
)
from pipeline.labels import display_name
from pipeline.latency_limits import limits_frame
from pipeline.render import charts, safe
from pipeline.render.context import (
    GENERATED,
    METHODOLOGY,
    chips,
    notice,
)
from pipeline.render.model import Model
from pipeline.render.safe import Md, MdExpr, md_join
from pipeline.render.slugs import anchor_text, slug, unique_slugs
from pipeline.render.spec import Chart, Draft, PageSpec, Rendered, Section
from pipeline.render.tables import (
    badges,
    external_link,
    html_table,
    joined,
    markdown_table,
    number_cell,
    page_links,
    percent_cell,
    relative,
)

FOLDER = "interactivity"
INDEX = f"{FOLDER}/index.md"
TITLE = "Interactivity"
#: Systems per chart: the ones with the most scenarios, best Interactive first.
CHART_SYSTEMS = 10
NAMED = ("release", "benchmark", "division", "submitter", "system_name", "platform")
NOT_REGISTERED = "not in the registry"

INTRO = """
MLPerf's LLM benchmarks measure throughput three ways. **Offline** hands the system
every request at once: tokens per second with no latency bound. **Server** and
**Interactive** send requests as a Poisson stream, and a run only counts if the 99th
percentile of its **time to first token** (TTFT) and of its **time per output token**
(TPOT) stay within the round's limits; Interactive's limits are tighter. A TPOT limit
of 40 ms means every user sees at least 1000 ÷ 40 = 25 tokens per second: the
*interactivity target* the charts place each scenario at (Offline at 0: no target).

The limits are upstream rules, entered as reviewed data with their sources
(`pipeline/registry/latency_limits.toml`: the submission checker's
`LLM_LATENCY_LIMITS` at a named commit); a round whose limits no source gives says
"{not_registered}" rather than a guess. Per-accelerator values divide a system's
result by its accelerator count (a derived normalisation, not an MLPerf metric);
**Server ÷ Offline** and **Interactive ÷ Offline** divide one system's constrained
throughput by its unconstrained one: what the latency target costs that system.
See the [methodology]({methodology}).
"""


def limits_table(page: str, registry: pl.DataFrame, table: pl.DataFrame) -> str:
    """Every round and LLM benchmark: its Server and Interactive limits and source.

    A scenario with results but no registered limit says so; "—" means the round
    has neither a limit nor a result for that scenario.
    """
    keys = ["release", "benchmark"]

    def side(scenario: str) -> pl.DataFrame:
        prefix = SCENARIO_PREFIXES[scenario]
        return registry.filter(pl.col("scenario") == scenario).select(
            *keys,
            pl.col("ttft_ms").alias(f"{prefix}_ttft"),
            pl.col("tpot_ms").alias(f"{prefix}_tpot"),
            pl.col("source_url").alias(f"{prefix}_url"),
            pl.col("source_path").alias(f"{prefix}_path"),
            pl.col("source_commit").alias(f"{prefix}_commit"),
        )

    seen = table.group_by(keys).agg(
        pl.col("server_value").is_not_null().any().alias("has_server"),
        pl.col("interactive_value").is_not_null().any().alias("has_interactive"),
        pl.len().alias("systems"),
    )
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
            "c_server": "Server TTFT · TPOT",
            "c_interactive": "Interactive TTFT · TPOT",
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


def _chosen_systems(group: pl.DataFrame) -> pl.DataFrame:
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


def _with_limit_texts(cells: pl.DataFrame) -> pl.DataFrame:
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


def _round_section(
    name: str,
    benchmark: str,
    release: str,
    group: pl.DataFrame,
    cells: pl.DataFrame,
) -> Section:
    """One round of a benchmark; ``cells``: its rows of ``_with_limit_texts``."""
    first = group.row(0, named=True)
    texts = cells.row(0, named=True)
    anchor = "round-" + anchor_text(slug(release))
    words = []
    limits = []
    for scenario, prefix in (("Server", "server"), ("Interactive", "interactive")):
        if first[f"{prefix}_tpot_ms"] is None:
            if group[f"{prefix}_value"].is_not_null().any():
                limits.append(Md("{}: limits {}").format(scenario, NOT_REGISTERED))
            continue
        ttft, tpot, target = (
            safe.cell_value(texts[f"_{prefix}_{k}"]) for k in LIMIT_TEXTS
        )
        url = first[f"{prefix}_limit_source_url"]
        cited = (
            Md("; {}").format(safe.link_md("source", url)) if safe.accepts(url) else ""
        )
        limits.append(
            Md(
                "{}: TTFT ≤ {} ms, TPOT ≤ {} ms (at least {} tokens/s per user{})"
            ).format(scenario, ttft, tpot, target, cited)
        )
    if limits:
        words.append(
            Md("Limits (99th percentile): {}.\n").format(md_join("; ", limits))
        )
    systems = group.height
    words.append(
        Md(
            "\n{:,} system(s) with a Server or Interactive result, best Interactive "
            "per accelerator first.\n"
        ).format(systems)
    )
    chosen = _chosen_systems(group)
    chart = None
    if chosen.height:
        keys = list(SYSTEM_KEYS)
        points = (
            interactivity_points(chosen)
            .collect()
            .join(
                chosen.select(
                    *keys,
                    pl.format(
                        "{} · {}", pl.col("submitter"), pl.col("system_name")
                    ).alias("system"),
                ),
                on=keys,
                how="left",
                nulls_equal=True,
            )
        )
        title = f"{benchmark} {release}: Tokens/s per accelerator by interactivity"
        note = (
            Md(
                "The chart shows the {} systems with the most scenarios it can place "
                "(best Interactive first); the table lists every system."
            ).format(chosen.height)
            if chosen.height < systems
            else Md("The chart shows every system with two scenarios it can place.")
        )
        words.append(note + Md("\n"))
        chart = Chart(
            charts.interactivity_chart(points, title=title),
            f"{FOLDER}-{name}-{slug(release)}",
            title,
        )
    return Section(
        Md("\n## {} {{ {} }}\n").format(release, safe.path("#" + anchor)),
        before=tuple(words),
        chart=chart,
        table=html_table(
            cells,
            SYSTEM_COLUMNS,
            numeric=(
                "c_offline",
                "c_server",
                "c_interactive",
                "c_server_ratio",
                "c_interactive_ratio",
            ),  # fmt: skip
            wide=("c_system",),
            searchable=False,
        ),
    )


def benchmark_page(
    model: Model,
    draft: Draft,
    benchmark: str,
    name: str,
    table: pl.DataFrame,
    cells: Mapping[tuple[object, ...], pl.DataFrame],
) -> str:
    """One LLM benchmark: per round (newest first) its limits, chart and systems.

    ``cells``: ``system_cells`` by (benchmark, release), formatted once for every
    page (building the cell expressions per round cost more than the tables).
    """
    rel = f"{FOLDER}/{name}.md"
    page = f"{GENERATED}/{rel}"
    index = relative(page, f"{GENERATED}/{INDEX}")
    parts = [
        Md("# {}: {}\n").format(TITLE, benchmark),
        notice(page),
        Md(
            "Offline, Server and Interactive throughput of every {} system, per "
            "round, against the round's latency limits. [All LLM benchmarks and "
            "their limits]({}).\n"
        ).format(benchmark, index),
    ]
    order = {r: i for i, r in enumerate(model.releases)}
    rounds = sorted(
        table.partition_by("release", as_dict=True, maintain_order=True).items(),
        key=lambda kv: -order.get(kv[0][0], -1),
    )
    parts += draft.sections(
        page,
        [
            _round_section(name, benchmark, release, group, cells[(benchmark, release)])
            for (release,), group in rounds
        ],
    )
    return draft.page(rel, "\n".join(parts))


def _draft(model: Model, draft: Draft) -> None:
    """The Interactivity index and one page per LLM benchmark."""
    registry = limits_frame()
    table = (
        interactivity(model.data.results.lazy(), limits=registry)
        .collect()
        .select(list(INTERACTIVITY_SCHEMA))
        .with_columns(display_name(pl.col(c)).alias(c) for c in NAMED)
    )
    benchmarks = sorted(table["benchmark"].unique().to_list())
    slugs = unique_slugs(benchmarks)
    # Row-wise cells, formatted once; each round's table takes its rows in order.
    cells = _with_limit_texts(system_cells(table)).partition_by(
        "benchmark", "release", as_dict=True, maintain_order=True
    )
    pages = {
        b: benchmark_page(
            model, draft, b, slugs[b], table.filter(pl.col("benchmark") == b), cells
        )
        for b in benchmarks
    }
    index = f"{GENERATED}/{INDEX}"
    counts = (
        table.group_by("benchmark")
        .agg(
            pl.len().alias("systems"),
            pl.col("release").unique().sort().alias("releases"),
        )
        .sort("benchmark")
        .with_columns(
            c_benchmark=page_links(
                pl.col("benchmark"), {b: relative(index, p) for b, p in pages.items()}
            ).cell(),
            c_rounds=joined("releases").cell(),
            c_systems=pl.col("systems"),
        )
    )
    text = "\n".join(
        [
            Md("# {}\n").format(TITLE),
            notice(index),
            INTRO.format(
                methodology=relative(index, METHODOLOGY),
                not_registered=NOT_REGISTERED,
            ),
            "\n## Latency limits per round\n",
            "TTFT and TPOT limits (99th percentile) of each LLM benchmark's Server and "
            "Interactive scenarios, newest round first; — where the scenario does not "
            "exist in that round. Rounds with LLM results whose limits no reviewed "
            f'source gives say "{NOT_REGISTERED}".\n',
            limits_table(index, registry, table),
            "\n## Systems per benchmark\n",
            "Every system with a Server or Interactive result in Tokens/s, by "
            "benchmark; each page shows them round by round.\n",
            markdown_table(
                counts,
                {
                    "c_benchmark": "Benchmark",
                    "c_rounds": "Rounds",
                    "c_systems": "Systems",
                },
                numeric=("c_systems",),
            )
            or "_No LLM system has a Server or Interactive result yet._\n",
        ]
    )
    draft.page(INDEX, text)
    draft.nav(index, [{Md.escape(b): p} for b, p in pages.items()])
    draft.index(FOLDER, {b: p.removeprefix(f"{GENERATED}/") for b, p in pages.items()})


def render(model: Model) -> Rendered:
    """The interactivity pages: one per interactive benchmark, and their index."""
    draft = Draft()
    _draft(model, draft)
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The interactivity pages: one per interactive benchmark, and their index."""
    return [PageSpec("interactivity", render, {"model": model})]
