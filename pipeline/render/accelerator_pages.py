"""One page per accelerator: its best result per round on every line, and every step.

The numbers are ``pipeline.analysis.history.accelerator_histories`` rows (pure
Polars): per canonical accelerator (registry id) and line (benchmark, scenario,
division, unit and, in the open division, submitted model) the best result per
accelerator of each round, and the step to the previous round where the line has a
result. This module lays them out: a chart per unit, a table of every step between
consecutive rounds (the gains along the way, each citing both results), and a table
per line. Every value links to its upstream result; every upstream string is escaped.
Cells are Polars expressions over whole frames; Python loops walk pages, charts and
tables only.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from pipeline.analysis.history import LINE_KEYS
from pipeline.render import charts, safe, whats_new
from pipeline.render import history_views as hp
from pipeline.render.context import (
    GENERATED,
    METHODOLOGY,
    mlperf_ranks,
    notice,
)
from pipeline.render.model import Model
from pipeline.render.safe import Md, md_join
from pipeline.render.slugs import slug
from pipeline.render.spec import Chart, Draft, PageSpec, Rendered, Section
from pipeline.render.tables import (
    badges,
    external_link,
    html_table,
    joined,
    markdown_table,
    number_cell,
    ratio_cell,
    relative,
)

#: Page folder under ``generated/`` (also the entity kind of ``slugs.page_problems``).
FOLDER = hp.ACCELERATOR_FOLDER
#: Lines per chart: the most-covered lines of one unit on one accelerator.
CHART_LINES = 12
LINE = list(LINE_KEYS)

INTRO = """
Every throughput line of this accelerator: per benchmark, scenario and division, the
best result **per accelerator** of each round (the system's result divided by its
accelerator count, a derived normalisation, not an MLPerf metric), whoever submitted
it and at whatever scale. Each value links to its upstream result, and its row states
the submitter, system, chip count, availability and software of that result.

A **step** divides a round's best by the previous round in which the line has a
result (above 1×: more per accelerator). On unchanged silicon that is mostly
software, but the two results may come from different submitters and system sizes.
A step across a boundary a [compatibility rule]({methodology}#compatibility-rules)
forbids is not chained and names the rule. Latency results (SingleStream, and
MultiStream from v2.0) are not divided per accelerator and are on the benchmark pages.
[All accelerators]({index}#accelerator-pages).
"""


def _step_cells(steps: pl.DataFrame) -> pl.DataFrame:
    """Every step of every line (chained or not), both ends linked."""

    def end(value: str, url: str, key: str, release: str) -> safe.MdExpr:
        return safe.fmt(
            "<b>{}</b> {} {}",
            pl.col(release),
            external_link(number_cell(pl.col(value)), pl.col(url), title=pl.col(key)),
            pl.col("result_unit"),
        )

    return steps.with_columns(
        c_line=safe.fmt(
            '<a href="#{}">{}</a>',
            safe.ident(pl.col("line_anchor")),
            pl.col("line_label"),
        ).cell(),
        c_from=end(
            "value_prev", "result_url_prev", "result_key_prev", "release_prev"
        ).cell(),
        c_to=safe.concat(
            end("value", "result_url", "result_key", "release"),
            badges(
                pl.col("is_preview").fill_null(False),
                pl.col("is_inferred").fill_null(False),
            ),
            safe.when(
                pl.col("skip") != "",
                safe.fmt("<br><small>{}</small>", pl.col("skip")),
                "",
            ),
        ).cell(),
        c_step=safe.when(
            pl.col("break_reason").is_not_null(),
            safe.fmt("not chained<br><small>{}</small>", pl.col("break_reason")),
            ratio_cell(pl.col("step_ratio")),
        ).cell(),
    )


STEP_COLUMNS = {
    "c_line": "Benchmark · scenario · division",
    "c_from": "From (per accelerator)",
    "c_to": "To (per accelerator)",
    "c_step": "Step",
}


def _line_spec(
    points: pl.DataFrame, *, title: str, unit: str, releases: list[str]
) -> tuple[charts.Spec, pl.DataFrame]:
    """One line per benchmark line of one accelerator and unit across rounds."""
    return hp.lines_chart(
        points, "accelerator_lines", title=title, unit=unit, releases=releases
    )


def _ordered_lines(points: pl.DataFrame) -> pl.DataFrame:
    """One row per line of one accelerator, in reading order."""
    return (
        points.group_by(LINE, maintain_order=True)
        .agg(
            pl.col("line_label").first(),
            pl.col("line_anchor").first(),
            pl.col("release").alias("releases"),
            pl.len().alias("rounds"),
            pl.col("step_ratio").is_not_null().sum().alias("steps"),
            pl.col("_order").min().alias("first_order"),
        )
        .with_columns(
            **mlperf_ranks(),
        )
        .sort(
            "benchmark",
            "scenario_rank",
            "division_rank",
            "result_unit",
            "line_model",
            "scenario",
            "division",
        )  # fmt: skip
    )


def _charts(
    draft: Draft,
    releases: Sequence[str],
    page: str,
    name: str,
    label: str,
    points: pl.DataFrame,
) -> list[str]:
    """A chart per unit of the lines with two rounds or more (most rounds first)."""
    sections: list[Section] = []
    multi = points.filter(pl.len().over(LINE) >= hp.MIN_ROUNDS)
    if multi.height == 0:
        return ["\n_No line of this accelerator has two rounds or more yet._\n"]
    for (unit,), group in sorted(
        multi.partition_by("result_unit", as_dict=True).items()
    ):
        ordered = _ordered_lines(group)
        by_rounds = ordered.sort(["rounds", "line_label"], descending=[True, False])
        ranked = by_rounds.head(CHART_LINES)
        shown = group.join(ranked.select(LINE), on=LINE, how="semi", nulls_equal=True)
        present = [r for r in releases if r in set(shown["release"])]
        title = f"{label}: best {unit} per accelerator, by round"
        built = _line_spec(shown, title=title, unit=unit, releases=present)
        lines = ranked.height
        total = ordered.height
        if lines == total:
            note = (
                Md("The one line with two rounds or more.")
                if lines == 1
                else Md("All {} lines with two rounds or more.").format(lines)
            )
        else:
            note = Md(
                "The {} of {} lines with the most rounds; the tables below list "
                "every line."
            ).format(lines, total)
        sections.append(
            Section(
                Md("\n### {}\n").format(unit),
                before=(note + Md("\n"),),
                chart=Chart(built, f"{FOLDER}-{name}-{slug(unit)}", title),
            )
        )
    return draft.sections(page, sections)


def render(
    accelerator: str,
    name: str,
    releases: tuple[str, ...],
    points: pl.DataFrame,
    methodology: str,
    cells: pl.DataFrame,
    step_cells: pl.DataFrame,
    opening: tuple[str | None, pl.DataFrame | None],
) -> Rendered:
    """One accelerator's page.

    ``cells`` (``hp.line_cells``) and ``step_cells`` (``_step_cells`` of the points
    with a previous round) are this accelerator's rows of frames formatted once for
    every accelerator: building those expressions per page cost more than the pages.
    ``opening``: the round and pairs of its opening (``whats_new.opening_pairs``);
    ``releases``: the rounds of its points, in order.
    """
    draft = Draft()
    rel = f"{FOLDER}/{name}.md"
    page = f"generated/{rel}"
    label = hp.accelerator_label(points.row(0, named=True))
    lines = _ordered_lines(points)
    held = [r for r in releases if r in set(points["release"])]
    steps = step_cells.sort("_order", "benchmark", "scenario_rank", "line_label")
    chained = steps.filter(pl.col("step_ratio").is_not_null()).height
    parts = [
        Md("# {}\n").format(label),
        notice(page),
        *whats_new.accelerator_opening(draft, *opening, page, f"{FOLDER}-{name}"),
        INTRO.format(
            methodology=relative(page, methodology),
            index=relative(page, f"generated/{hp.PAGE}"),
        ),
        Md(
            "\n{} (registry id `{}`) has results in {} round(s) ({}) on {:,} line(s); "
            "{:,} step(s) between consecutive rounds compare it with itself.\n"
        ).format(
            label,
            accelerator,
            len(held),
            md_join(", ", held),
            lines.height,
            chained,
        ),
        "\n## Charts\n",
        *_charts(draft, releases, page, name, label, points),
        "\n## Gains along the way { #gains }\n",
    ]
    if steps.height:
        parts += [
            "Every step from a round to the next round where the line has a result, "
            "oldest first. Both values are the best per accelerator of their round, "
            "each linked to its result.\n",
            html_table(
                steps,
                STEP_COLUMNS,
                numeric=("c_step",),
                wide=("c_from", "c_to"),
                searchable=False,
            ),
        ]
    else:
        parts.append("_No line of this accelerator has two rounds yet._\n")
    parts.append("\n## Results by benchmark\n")
    overview = lines.with_columns(
        c_line=safe.fmt(
            "[{}](#{})", pl.col("line_label"), safe.ident(pl.col("line_anchor"))
        ).cell(),
        c_rounds=joined("releases", " → ").cell(),
        c_steps=pl.col("steps"),
    )
    parts.append(
        markdown_table(
            overview,
            {"c_line": "Line", "c_rounds": "Rounds", "c_steps": "Steps"},
            numeric=("c_steps",),
        )
    )
    tables = cells.partition_by(LINE, as_dict=True, maintain_order=True)
    for line in lines.filter(pl.col("rounds") >= hp.MIN_ROUNDS).iter_rows(named=True):
        rounds = line["rounds"]
        parts += [
            Md("\n### {} {{ {} }}\n").format(
                line["line_label"], safe.path("#" + line["line_anchor"])
            ),
            Md("\n{} per accelerator, best per round; {} rounds.\n").format(
                line["result_unit"], rounds
            ),
            html_table(
                tables[tuple(line[k] for k in LINE)],
                hp.LINE_COLUMNS,
                numeric=("c_step", "c_since"),
                searchable=False,
            ),
        ]
    single = lines.filter(pl.col("rounds") < hp.MIN_ROUNDS).select(LINE)
    if single.height:
        # One table for the lines with a single round: a heading each would make
        # an edge chip's open-division page (95 lines) outgrow the page budget.
        rows = cells.join(single, on=LINE, how="semi", nulls_equal=True).with_columns(
            c_line=safe.fmt(
                '<span id="{}"></span>{}<br><small>{} per accelerator</small>',
                safe.ident(pl.col("line_anchor")),
                pl.col("line_label"),
                pl.col("result_unit"),
            ).cell()
        )
        order = lines.select(LINE).with_row_index("_line")
        rows = rows.join(order, on=LINE, how="left", nulls_equal=True).sort("_line")
        parts += [
            "\n### Lines with one round { #single-round-lines }\n",
            Md(
                "\n{:,} line(s) with a result in one round only: nothing to step "
                "from yet.\n"
            ).format(single.height),
            html_table(
                rows,
                {
                    "c_line": "Benchmark · scenario · division",
                    "c_round": "Round",
                    "c_value": "Best per accelerator",
                    "c_result": "Submission",
                },
                wide=("c_line",),
                searchable=False,
            ),
        ]
    return draft.done(draft.page(rel, "\n".join(parts)))


def specs(model: Model) -> list[PageSpec]:
    """One page per accelerator with a history line (``history_page`` indexes them)."""
    if model.histories is None or model.accelerator_points is None:
        return []
    points = model.accelerator_points
    slugs = hp.accelerator_slugs(model.histories)
    by_id = points.partition_by("accelerator_id", as_dict=True, maintain_order=True)
    # Cells are row-wise expressions: formatted once over every accelerator, each
    # page takes its own rows (in the same order as its points).
    cells = hp.line_cells(points).partition_by(
        "accelerator_id", as_dict=True, maintain_order=True
    )
    stepped = _step_cells(points.filter(pl.col("release_prev").is_not_null()))
    steps = stepped.partition_by("accelerator_id", as_dict=True, maintain_order=True)
    opened = whats_new.openings(model)
    out = []
    for accelerator in model.accelerator_pages:
        group = by_id[(accelerator,)]
        held = set(group["release"].to_list())
        inputs = {
            "accelerator": accelerator,
            "name": slugs[accelerator],
            "releases": tuple(r for r in model.releases if r in held),
            "points": group,
            "methodology": METHODOLOGY,
            "cells": cells[(accelerator,)],
            "step_cells": steps.get((accelerator,), stepped.clear()),
            "opening": opened.get(accelerator, (None, None)),
        }
        out.append(PageSpec("accelerator", render, inputs, cached=True))
    index = {
        accelerator: page.removeprefix(f"{GENERATED}/")
        for accelerator, page in model.accelerator_pages.items()
    }
    out.append(PageSpec("accelerators-index", render_index, {"pages": index}))
    return out


def render_index(pages: dict[str, str]) -> Rendered:
    """The accelerator pages in the page index (the histories page lists them)."""
    draft = Draft()
    draft.index(FOLDER, pages)
    return draft.done()
