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

from pipeline.analysis.interactivity import (
    INTERACTIVITY_SCHEMA,
    SYSTEM_KEYS,
    UNIT,
    interactivity,
    interactivity_points,
    latency_bounded_systems,
)
from pipeline.labels import display_name
from pipeline.latency_limits import limits_frame
from pipeline.render import charts, safe
from pipeline.render.context import (
    GENERATED,
    METHODOLOGY,
    notice,
)
from pipeline.render.interactivity_views import (
    LIMIT_TEXTS,
    NOT_REGISTERED,
    SYSTEM_COLUMNS,
    chosen_systems,
    limits_table,
    system_cells,
    with_limit_texts,
)
from pipeline.render.measured_views import (
    latency_limits_sentence,
    measured_cells,
    measured_rows,
    measured_table,
)
from pipeline.render.model import Model
from pipeline.render.safe import Md, md_join
from pipeline.render.slugs import anchor_text, slug, unique_slugs
from pipeline.render.spec import Chart, Draft, PageSpec, Rendered, Section
from pipeline.render.tables import (
    html_table,
    joined,
    markdown_table,
    page_links,
    relative,
)

FOLDER = "interactivity"
INDEX = f"{FOLDER}/index.md"
TITLE = "Interactivity"
NAMED = ("release", "benchmark", "division", "submitter", "system_name", "platform")

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


def _round_section(
    name: str,
    benchmark: str,
    release: str,
    group: pl.DataFrame,
    cells: pl.DataFrame,
) -> Section:
    """One round of a benchmark; ``cells``: its rows of ``with_limit_texts``."""
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
    chosen = chosen_systems(group)
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
    measured: Mapping[tuple[object, ...], pl.DataFrame],
) -> str:
    """One LLM benchmark: per round (newest first) its limits, chart and systems.

    ``cells``: ``system_cells`` by (benchmark, release), formatted once for every
    page (building the cell expressions per round cost more than the tables);
    ``measured``: ``measured_cells`` by (benchmark, release), the latency as
    measured of the results whose files state it, after the round's systems.
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
    groups = table.partition_by("release", as_dict=True, maintain_order=True)
    releases = {r for (b, r) in measured if b == benchmark} | {r for (r,) in groups}
    sections = []
    for release in sorted(releases, key=lambda r: -order.get(r, -1)):
        group = groups.get((release,))
        if group is not None:
            sections.append(
                _round_section(
                    name, benchmark, release, group, cells[(benchmark, release)]
                )
            )
        extra = measured.get((benchmark, release))
        if extra is not None:
            if group is None:
                anchor = "round-" + anchor_text(slug(release))
                sections.append(
                    Section(
                        Md("\n## {} {{ {} }}\n").format(
                            release, safe.path("#" + anchor)
                        ),
                        before=(
                            Md(
                                "No Server or Interactive result of {} in {} this "
                                "round (its results are in another unit): only the "
                                "latency as measured is shown.\n"
                            ).format(benchmark, UNIT),
                            latency_limits_sentence(extra),
                        ),
                    )
                )
            sections.append(Section(Md(""), table=measured_table(extra)))
    parts += draft.sections(page, sections)
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
    benchmarks = table["benchmark"].unique().to_list()
    # Row-wise cells, formatted once; each round's table takes its rows in order.
    cells = with_limit_texts(system_cells(table)).partition_by(
        "benchmark", "release", as_dict=True, maintain_order=True
    )
    rows = measured_rows(model.data.measured, model.data.results, registry)
    measured = (
        measured_cells(rows).partition_by(
            "benchmark", "release", as_dict=True, maintain_order=True
        )
        if rows.height
        else {}
    )
    # A benchmark whose results are not in Tokens/s (qwen3-vl-235b-a22b: Queries/s)
    # has a page where a result states its latency as measured.
    benchmarks = sorted({*benchmarks, *(b for b, _ in measured)})
    slugs = unique_slugs(benchmarks)
    pages = {
        b: benchmark_page(
            model,
            draft,
            b,
            slugs[b],
            table.filter(pl.col("benchmark") == b),
            cells,
            measured,
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
            'TTFT and TPOT limits (99th percentile, "TTFT · TPOT") of each LLM '
            "benchmark's Server and "
            "Interactive scenarios, newest round first (a benchmark answered whole, "
            "qwen3-vl-235b-a22b, is bounded by its end-to-end query latency "
            "instead); — where the scenario does not "
            "exist in that round. Rounds with LLM results whose limits no reviewed "
            f'source gives say "{NOT_REGISTERED}".\n',
            limits_table(
                index,
                registry,
                table,
                latency_bounded_systems(model.data.results.lazy(), limits=registry)
                .collect()
                .with_columns(
                    display_name(pl.col(c)).alias(c) for c in ("release", "benchmark")
                ),
            ),
            *(
                [
                    Md(
                        "\nLatency as measured (TTFT and TPOT percentiles of the "
                        "results whose files state them, beside the limits): {}.\n"
                    ).format(
                        md_join(
                            ", ",
                            [
                                Md("[{}]({})").format(b, relative(index, pages[b]))
                                for b in sorted({b for b, _ in measured})
                            ],
                        )
                    )
                ]
                if measured
                else []
            ),
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
