"""Model pages: every LLM benchmark's systems ranked per round, scenario and division.

One page per benchmark whose results are in Tokens/s (``models/<slug>.md``) and an
index. Each round (newest first) ranks its published results per scenario
(Offline: no limit; Server; Interactive, with the round's limits from the reviewed
registry) and per division (closed first; open rows labelled, with the model
upstream names and the accuracy it published), by per-accelerator throughput. Each
row shows its scale, availability, result, accelerator-hours per million tokens
(``analysis.cost``) and, once the reader enters a price per accelerator-hour
(``site/assets/js/prices.js``), $ per million tokens. Rows come from
``model_views``; every upstream string is escaped by the safe layer.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis.cost import (
    COST_FORMULA,
    DERIVED,
    ELECTRICITY_FORMULA,
    KWH_FORMULA,
)
from pipeline.render import safe
from pipeline.render.context import GENERATED, METHODOLOGY, notice, sorted_groups
from pipeline.render.model import Model
from pipeline.render.model_views import (
    NUMERIC,
    RANKING_COLUMNS,
    limits_text,
    llm_benchmarks,
    ranking_cells,
    ranking_rows,
)
from pipeline.render.safe import Md, md_join
from pipeline.render.slugs import anchor_text, slug, unique_slugs
from pipeline.render.spec import Draft, PageSpec, Rendered, Section
from pipeline.render.tables import html_table, markdown_table, page_links, relative

FOLDER = "models"
INDEX = f"{FOLDER}/index.md"
TITLE = "Models"

#: The strict-reading note every ranking carries (the pair pages' vocabulary).
READING = Md(
    "**How to read a ranking.** Rows are published results of different submitters "
    "at different scales (8 accelerators in one server beside 72 in a rack), "
    "ranked by their per-accelerator throughput: a ranking of published results, "
    "not like-for-like pairs. Per-accelerator throughput divides a system's result "
    "by its accelerator count, a derived normalisation, not an MLPerf metric; it "
    "does not say a system of another size would do as well per accelerator. The "
    "like-for-like readings (same system, or same accelerator at the same scale) "
    "are on [Hardware generations]({generations}) and [Software gains]({gains}). "
    "Open-division rows may change the model (its upstream name is shown) and are "
    "ranked apart, with the accuracy they published."
)

#: Rows per ranking of the older rounds: every row of the newest round is shown, and
#: the older rounds' full rankings (llama2-70b-99.9: 385 rows, 466 KB of HTML) would
#: pass the 300 KB page budget (tests/browser/pages.py HTML_BUDGET).
OLDER_ROWS = 10

#: The price form prices.js enables; hidden (and inert) without JavaScript.
PRICE_FORM = Md(
    '<form class="ledger-prices" data-ledger-prices hidden>\n'
    "<p><strong>Your price per accelerator-hour</strong> (US$; kept in this page's "
    "address, so a link reproduces it, and remembered in this browser). No price is "
    "built in. <code>$ per million tokens = price per accelerator-hour × "
    "accelerator-hours per million tokens</code>: {derived}.</p>\n"
    '<div class="ledger-prices__inputs">\n{inputs}\n</div>\n{electricity}'
    '<p class="ledger-prices__note" role="status" aria-live="polite"></p>\n'
    "</form>\n"
)
#: The electricity price input, on a page with a result whose power MLPerf measured.
ELECTRICITY_INPUT = Md(
    "<p><strong>Your electricity price</strong> (US$ per kWh; kept in the address "
    "and remembered like the prices above). <code>electricity $ per million tokens "
    "= kWh per million tokens × price per kWh</code>, for results with "
    "MLPerf-measured power only: {derived}.</p>\n"
    '<div class="ledger-prices__inputs"><label class="ledger-prices__field">'
    'Electricity <input type="text" inputmode="decimal" autocomplete="off" '
    'name="kwh" data-electricity placeholder="$/kWh"></label></div>\n'
)
NO_SCRIPT = Md(
    "<noscript>Entering a price needs JavaScript; without it, multiply a row's "
    "accelerator-hours per million tokens by your price per accelerator-hour."
    "</noscript>\n"
)


def _price_form(rows: pl.DataFrame) -> Md:
    """One labelled input per accelerator with accelerator-hours on the page."""
    chips = (
        rows.filter(pl.col("accelerator_hours_per_million_units").is_not_null())
        .select("price_key", "accelerator_label")
        .drop_nulls()
        .unique()
        .sort("accelerator_label")
    )
    inputs = md_join(
        "\n",
        (
            Md(
                '<label class="ledger-prices__field">{} <input type="text" '
                'inputmode="decimal" autocomplete="off" name="{}" '
                'data-price-key="{}" placeholder="$/h"></label>'
            ).format(label, safe.path(key), safe.path(key))
            for key, label in chips.iter_rows()
        ),
    )
    measured = rows["kwh_per_million_units"].is_not_null().any()
    electricity = ELECTRICITY_INPUT.format(derived=DERIVED) if measured else Md("")
    return (
        PRICE_FORM.format(derived=DERIVED, inputs=inputs, electricity=electricity)
        + NO_SCRIPT
    )


def _energy_words(cells: pl.DataFrame) -> Md:
    """What the energy column holds, on a page where some power was measured."""
    if not cells["kwh_per_million_units"].is_not_null().any():
        return Md(
            "\n**Energy**: MLPerf measured no power for any result on this page, so "
            "none has kWh per million tokens or an electricity cost (a declared "
            "design power is never used).\n"
        )
    return Md(
        "\n**kWh per million tokens** = <code>{}</code>, joules per token from "
        "MLPerf-measured average power (<code>power (W) / tokens/s</code>) ({}); "
        "with your electricity price, <code>{}</code>. Only a ranking holding such a "
        "result has the column; there a result without measured power says *not "
        "measured*: a declared design power is not a measurement and is never used.\n"
    ).format(KWH_FORMULA, DERIVED, ELECTRICITY_FORMULA)


def _has_energy(cells: pl.DataFrame) -> bool:
    """A result of these rows has measured power or a declared design power.

    A ranking without one has no energy column (it would say "not measured" on
    every row); the page says once in words what the column holds (page weight).
    """
    declared = (
        cells["design_power_watts_declared"].is_not_null().any()
        if "design_power_watts_declared" in cells.columns
        else False
    )
    return bool(cells["kwh_per_million_units"].is_not_null().any() or declared)


def _round_sections(
    page: str, release: str, rows: pl.DataFrame, *, newest: bool
) -> list[Section]:
    """A round: one ranking per scenario and division, in MLPerf's order.

    An older round shows the first ``OLDER_ROWS`` of each ranking.
    """
    anchor = "round-" + anchor_text(slug(release))
    out = [Section(Md("\n## {} {{ {} }}\n").format(release, safe.path("#" + anchor)))]
    for (scenario, division), group in sorted_groups(rows, ["scenario", "division"]):
        first = group.row(0, named=True)
        label = (
            Md("{} · open division (the model may differ)").format(scenario)
            if division == "open"
            else Md("{} · {}").format(scenario, division)
        )
        ranked = group["rank"].is_not_null().sum()
        words = [
            limits_text(first) + Md("\n"),
            Md(
                "\n{:,} result(s), {:,} ranked by tokens/s per accelerator, best "
                "first.\n"
            ).format(group.height, ranked),
        ]
        if not newest and group.height > OLDER_ROWS:
            words.append(
                Md(
                    "The first {} are shown; every result is in the [Explorer]({}) "
                    "and the downloads.\n"
                ).format(OLDER_ROWS, relative(page, f"{GENERATED}/explorer.md"))
            )
            group = group.head(OLDER_ROWS)
        energy = _has_energy(group)
        out.append(
            Section(
                Md("\n### {} {} {{ {} }}\n").format(
                    release,
                    label,
                    safe.path(
                        "#"
                        + anchor_text(
                            "-".join(slug(x) for x in (release, scenario, division))
                        )
                    ),
                ),
                before=tuple(words),
                table=html_table(
                    group,
                    RANKING_COLUMNS
                    if energy
                    else {k: v for k, v in RANKING_COLUMNS.items() if k != "c_energy"},
                    numeric=NUMERIC,
                    wide=("c_system",),
                    searchable=False,
                ),
            )
        )
    return out


def model_page(
    benchmark: str, rel: str, releases: tuple[str, ...], cells: pl.DataFrame
) -> Rendered:
    """One LLM benchmark: per round (newest first), its rankings."""
    draft = Draft()
    page = f"{GENERATED}/{rel}"
    held = set(cells["release"].to_list())
    shown = [r for r in reversed(releases) if r in held]
    parts = [
        Md("# {}: systems ranked\n").format(benchmark),
        notice(page),
        Md(
            "Every published {} result in tokens/s, ranked per round, scenario and "
            "division by throughput per accelerator. Rounds: {}.\n"
        ).format(
            benchmark,
            md_join(
                ", ",
                (Md("[{}](#round-{})").format(r, anchor_text(slug(r))) for r in shown),
            ),
        ),
        READING.format(
            generations=relative(page, f"{GENERATED}/generations.md"),
            gains=relative(page, f"{GENERATED}/software-gains.md"),
        )
        + Md("\n"),
        Md(
            "\n**Accelerator-hours per million tokens** = <code>{}</code> ({}): the "
            "hours of one accelerator a million output tokens take at the published "
            "throughput. "
            "Inputs: the result (tokens/s) and the accelerator count, as published. "
            "A system of two kinds of accelerator or without one has none (the row "
            "says why). **Accuracy (as published)**: upstream's accuracy text of the "
            "result (the summary's `Accuracy`, or `average_accuracy` of the raw "
            "tree's accuracy_results.json), as written.\n"
        ).format(COST_FORMULA, DERIVED),
        _energy_words(cells),
        _price_form(cells),
    ]
    groups = cells.partition_by("release", as_dict=True, maintain_order=True)
    sections: list[Section] = []
    for release in shown:
        sections += _round_sections(
            page,
            release,
            groups[(release,)],
            newest=release == shown[0],
        )
    parts += draft.sections(page, sections)
    return draft.done(draft.page(rel, "\n".join(parts)))


def models_index(pages: dict[str, str], counts: pl.DataFrame) -> Rendered:
    """The Models index: one line per LLM benchmark and its rounds."""
    index = f"{GENERATED}/{INDEX}"
    table = counts.with_columns(
        c_benchmark=page_links(
            pl.col("benchmark"), {b: relative(index, p) for b, p in pages.items()}
        ).cell(),
        c_rounds=pl.col("rounds"),
        c_results=pl.col("results"),
    )
    text = "\n".join(
        [
            Md("# {}\n").format(TITLE),
            notice(index),
            "One page per LLM benchmark (results in tokens/s): its systems ranked "
            "per round, scenario (Offline, Server, Interactive, with the round's "
            "latency limits) and division by throughput per accelerator, with "
            "accelerator-hours per million tokens and, from your price per "
            "accelerator-hour, $ per million tokens (derived, not an MLPerf result). "
            f"See the [methodology]({relative(index, METHODOLOGY)}).\n",
            markdown_table(
                table,
                {
                    "c_benchmark": "Benchmark",
                    "c_rounds": "Rounds",
                    "c_results": "Results",
                },
                numeric=("c_results",),
            )
            or "_No LLM result yet._\n",
        ]
    )
    draft = Draft()
    draft.page(INDEX, text)
    draft.nav(index, [{Md.escape(b): p} for b, p in pages.items()])
    draft.index(FOLDER, {b: p.removeprefix(f"{GENERATED}/") for b, p in pages.items()})
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """One page per LLM benchmark, then the Models index listing them."""
    rows = ranking_rows(model.results, model.data.results, model.data.measured)
    cells = ranking_cells(rows)
    benchmarks = llm_benchmarks(model.results)
    slugs = unique_slugs(benchmarks)
    of = cells.partition_by("benchmark", as_dict=True, maintain_order=True)
    out, pages = [], {}
    for b in benchmarks:
        rel = f"{FOLDER}/{slugs[b]}.md"
        pages[b] = f"{GENERATED}/{rel}"
        inputs = {
            "benchmark": b,
            "rel": rel,
            "releases": model.releases,
            "cells": of[(b,)],
        }
        out.append(PageSpec("model", model_page, inputs, cached=True))
    order = {r: i for i, r in enumerate(model.releases)}
    counts = (
        rows.group_by("benchmark")
        .agg(pl.len().alias("results"), pl.col("release").unique().alias("_r"))
        .with_columns(
            rounds=pl.col("_r")
            .list.eval(pl.element().replace_strict(order, default=-1))
            .list.sort(descending=True)
            .list.eval(
                pl.element().replace_strict(
                    {i: r for r, i in order.items()}, default=""
                )
            )
            .list.join(", ")
        )
        .drop("_r")
        .sort("benchmark")
    )
    out.append(
        PageSpec("models-index", models_index, {"pages": pages, "counts": counts})
    )
    return out
