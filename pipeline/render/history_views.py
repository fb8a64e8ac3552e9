"""The "Accelerator histories" page: one accelerator's best result, round after round.

The numbers come from ``pipeline.analysis.history.accelerator_histories`` (pure
Polars); this module only lays them out: the most-covered lines as log-scale charts
(one unit per chart), an overview of every line, a compact table per line whose values
link to their upstream results, and the lines a compatibility rule broke. Cells are
Polars expressions over the whole frame; Python loops walk charts and tables only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from pipeline.analysis.history import HISTORY_SCHEMA, LINE_KEYS, accelerator_histories
from pipeline.labels import display_name
from pipeline.render import charts, safe
from pipeline.render.context import (
    chips,
    mlperf_ranks,
    notice,
)
from pipeline.render.coverage import NOT_IN_SOURCE, skip_note_expr
from pipeline.render.safe import Md, md_join
from pipeline.render.site_data import OTHER_VENDOR
from pipeline.render.slugs import anchor_of, anchor_text, unique_slugs
from pipeline.render.spec import GENERATED, Draft
from pipeline.render.system_ids import system_link, with_system_ids
from pipeline.render.tables import (
    external_link,
    html_table,
    joined,
    markdown_table,
    number_cell,
    ratio_cell,
    ratio_md,
    relative,
    result_cell,
)
from pipeline.transform.results import RESULTS_SCHEMA, SCENARIOS

PAGE = "histories.md"
TITLE = "Accelerator histories"
#: A line (segment) is shown when it has at least this many rounds.
MIN_ROUNDS = 2
#: Lines per chart: the most-covered lines of one unit.
CHART_LINES = 8
#: What a history note says of a skipped round the ledger holds.
IN_SOURCE_NOTE = "in source, no result on this line"
SEGMENT = [*LINE_KEYS, "segment"]
#: Line keys printed on the page (a missing one reads ``labels.NO_NAME``).
NAMED = ["benchmark", "scenario", "division", "result_unit"]

INTRO = """
A history follows one accelerator (one canonical chip of the accelerator registry;
mixed, CPU-only and unclassified systems are left out) on one benchmark, scenario and
division through every round it appears in. Each point is the best result **per
accelerator** of that round (the system's result divided by its accelerator count, a
derived normalisation, not an MLPerf metric), whoever submitted it and at whatever
scale. Each value links to its upstream result, and its row states the release,
division, availability, chip count and software of that result.

A **step** divides a point by the previous point of its line: above 1× the chip did
more per accelerator than in the earlier round. On unchanged silicon that is mostly
software, but the two results can come from different submitters, hosts and system
sizes, so a step is an upper-level view, not a like-for-like software gain (the
[Software gains](software-gains.md) page has those). **Since first** divides a point
by the first point of its line.

Only throughput is shown. Latency results (SingleStream, and MultiStream from v2.0)
are a property of the whole system and are not divided per accelerator; the benchmark
pages show them as reported. Steps obey the
[compatibility rules]({methodology}#compatibility-rules):
both ends have the same unit, and a step across a boundary a rule forbids (a metric
redefined, a dataset changed) is not chained: the line starts again, and the break is
listed at the end of this page. Preview and inferred results are included and marked.
"""


def _anchor(*parts: str) -> str:
    text = "-".join(p for p in parts if p)
    return "history-" + (anchor_text(text) or "x")


def _complete(results: pl.DataFrame) -> pl.DataFrame:
    """Results with every canonical column (null where a caller passed a subset)."""
    missing = [c for c in RESULTS_SCHEMA if c not in results.columns]
    return results.with_columns(
        pl.lit(None, dtype=RESULTS_SCHEMA[c]).alias(c) for c in missing
    )


def build_histories(results: pl.DataFrame) -> pl.DataFrame:
    """The page's data: ``accelerator_histories`` of the canonical results."""
    return accelerator_histories(_complete(results).lazy()).collect()


def labelled(
    histories: pl.DataFrame, status: pl.DataFrame, min_rounds: int = MIN_ROUNDS
) -> pl.DataFrame:
    """Shown segments with reader-facing labels, anchors and skip notes.

    Args:
        histories: ``HISTORY_SCHEMA`` rows (names already made displayable).
        status: ``coverage.round_status`` of the ledger's releases.
        min_rounds: Segments with fewer rounds are left out (1: every point).
    """
    label = pl.coalesce(
        pl.format("{} {}", pl.col("accelerator_vendor"), pl.col("accelerator_model")),
        pl.col("accelerator_id"),
    )
    what = pl.format(
        "{} · {} · {}", pl.col("benchmark"), pl.col("scenario"), pl.col("division")
    )
    model = pl.when(pl.col("line_model") != "").then(
        pl.format(" · model {}", pl.col("line_model"))
    )
    first = pl.col("release").first().over(SEGMENT)
    last = pl.col("release").last().over(SEGMENT)
    return (
        histories.filter(pl.col("segment_rounds") >= min_rounds)
        .with_columns(
            accelerator_label=label,
            line_label=pl.concat_str(what, model.fill_null("")),
            span=pl.format("{} → {}", first, last),
            first_release=first,
            skip=pl.when(pl.col("release_prev").is_not_null())
            .then(
                skip_note_expr(
                    pl.col("release_prev"),
                    pl.col("release"),
                    status,
                    in_source=IN_SOURCE_NOTE,
                )
            )
            .otherwise(pl.lit("")),
        )
        .with_columns(
            chart_label=pl.format(
                "{} · {} {}",
                pl.col("accelerator_label"),
                pl.col("benchmark"),
                pl.col("scenario"),
            ),
            anchor=pl.concat_str(
                pl.lit("history-"),
                pl.concat_str(
                    [
                        pl.col("accelerator_id"),
                        pl.col("benchmark"),
                        pl.col("scenario"),
                        pl.col("division"),
                        pl.col("line_model"),
                        pl.format("from-{}", first),
                    ],
                    separator="-",
                ).pipe(anchor_of),
            ),
        )
    )


def line_cells(shown: pl.DataFrame) -> pl.DataFrame:
    """Each point's table cells: its round, value, step and submission."""
    counts = chips("total_accelerators", "accelerator_name", "nodes")
    first = pl.col("step") == 1
    previous = external_link(
        pl.col("release_prev"),
        pl.col("result_url_prev"),
        title=pl.col("result_key_prev"),
    )
    return shown.with_columns(
        c_round=safe.concat(
            safe.fmt("<b>{}</b>", pl.col("release")),
            safe.when(
                pl.col("skip") != "",
                safe.fmt("<br><small>{}</small>", pl.col("skip")),
                "",
            ),
        ).cell(),
        c_value=safe.fmt(
            "{} {}",
            result_cell(
                pl.col("value"),
                pl.col("result_url"),
                pl.col("result_key"),
                pl.col("is_preview"),
                pl.col("is_inferred"),
            ),
            pl.col("result_unit"),
        ).cell(),
        c_result=safe.fmt(
            "{} · {}{}<br><small>{} · system result {} {}<br>{} · {} · software: "
            "{}</small>",
            pl.col("submitter"),
            pl.col("system_name"),
            safe.fmt(" <small>({})</small>", system_link())
            if "system_id" in shown.columns
            else "",
            counts,
            number_cell(pl.col("result_value")),
            pl.col("result_unit"),
            pl.col("division"),
            pl.col("availability"),
            pl.col("software").fill_null("not stated"),
        ).cell(),
        c_step=safe.choose(
            [
                (
                    pl.col("break_reason").is_not_null(),
                    safe.fmt(
                        "not chained<br><small>to {}: {}</small>",
                        previous,
                        pl.col("break_reason"),
                    ),
                ),
                (first, "—"),
            ],
            safe.fmt(
                "{}<br><small>vs {}</small>", ratio_cell(pl.col("step_ratio")), previous
            ),
        ).cell(),
        c_since=safe.when(first, "—", ratio_cell(pl.col("cumulative_ratio"))).cell(),
    )


LINE_COLUMNS = {
    "c_round": "Round",
    "c_value": "Best per accelerator",
    "c_step": "Step",
    "c_since": "Since first",
    "c_result": "Submission",
}


def _lines(shown: pl.DataFrame) -> pl.DataFrame:
    """One row per shown segment: its label, span, rounds and overall ratio."""
    return (
        shown.group_by(SEGMENT, maintain_order=True)
        .agg(
            pl.col("accelerator_label").first(),
            pl.col("accelerator_vendor").first(),
            pl.col("line_label").first(),
            pl.col("chart_label").first(),
            pl.col("anchor").first(),
            pl.col("span").first(),
            pl.col("first_release").first(),
            pl.col("segment_rounds").first().alias("rounds"),
            pl.col("cumulative_ratio").last().alias("overall"),
            pl.col("release").alias("releases"),
        )
        .with_columns(
            **mlperf_ranks(),
        )
    )


def lines_chart(
    points: pl.DataFrame,
    kind: str,
    *,
    title: str,
    unit: str,
    releases: list[str],
    labels: tuple[pl.Expr, ...] = (),
) -> tuple[charts.Spec, pl.DataFrame]:
    """History points of one unit as a ``charts.LINES[kind]`` chart on a log axis.

    Each point carries the cited result and its step from the line's last round;
    ``labels`` are the kind's extra columns (before the line's own label).
    """
    frame = points.select(
        "release",
        pl.lit(unit).alias("result_unit"),
        *labels,
        pl.col("line_label").alias("line"),
        "value",
        "step_ratio",
        "result_value",
        "total_accelerators",
        "submitter",
        "system_name",
        "availability",
        "result_key",
        "is_preview",
        "is_inferred",
        safe.chart_url(pl.col("result_url")).alias("url"),
    )
    colours = (
        charts.accelerator_scale_spec(frame)
        if "accelerator" in frame.columns
        else {"scheme": "tableau20"}
    )
    return charts.release_lines_chart(
        frame,
        kind,
        title=title,
        y_title=charts.axis_title(f"{unit} per accelerator", charts.LOG10),
        y_scale=charts.LOG10,
        colour_scale=colours,
        releases=releases,
        unit=unit,
    )


def history_chart(
    points: pl.DataFrame, *, title: str, unit: str, releases: list[str]
) -> tuple[charts.Spec, pl.DataFrame]:
    """One line per history segment across rounds, in each accelerator's hue.

    ``points``: labelled history rows (``_labelled``) of one unit.
    """
    labels = (
        pl.col("chart_label").alias("accelerator"),
        pl.col("accelerator_vendor").fill_null(OTHER_VENDOR).alias("vendor"),
    )
    return lines_chart(
        points, "histories", title=title, unit=unit, releases=releases, labels=labels
    )


def _chart_lines(lines: pl.DataFrame, status: pl.DataFrame) -> pl.DataFrame:
    """The most-covered segments of each unit.

    Most rounds first; among equals, the longest span of known rounds (a line from
    v2.1 to v4.1 spans more time than one from v5.1 to v6.0), then by name.
    """
    index = {r: i for i, r in enumerate(status["release"].to_list())}

    def position(release: pl.Expr) -> pl.Expr:
        return release.replace_strict(index, default=None, return_dtype=pl.Int32)

    span = position(pl.col("releases").list.last()) - position(
        pl.col("releases").list.first()
    )
    return (
        lines.with_columns(span=span)
        .sort(
            ["result_unit", "rounds", "span", "chart_label", "line_label"],
            descending=[False, True, True, False, False],
            nulls_last=True,
        )
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over("result_unit"))
        .filter(pl.col("rank") <= CHART_LINES)
    )


def _coverage_text(status: pl.DataFrame) -> Md:
    held = status.filter(pl.col("has_rows"))
    absent = status.filter(~pl.col("has_rows"))["release"].to_list()
    listed = md_join(
        ", ",
        (Md("{} ({})").format(*row) for row in held.select("release", "status").rows()),
    )
    text = Md("Rounds in the ledger: {}.").format(listed)
    if absent:
        text += Md(" Rounds {}: {}; a step that jumps over rounds names them.").format(
            NOT_IN_SOURCE, md_join(", ", absent)
        )
    return text + Md("\n")


def _broken(histories: pl.DataFrame, status: pl.DataFrame) -> str:
    breaks = histories.filter(pl.col("break_reason").is_not_null())
    if breaks.height == 0:
        return "No line was broken by a compatibility rule.\n"
    cells = (
        breaks.with_columns(
            label=pl.coalesce(
                pl.format(
                    "{} {}", pl.col("accelerator_vendor"), pl.col("accelerator_model")
                ),
                pl.col("accelerator_id"),
            ),
            skip=skip_note_expr(
                pl.col("release_prev"),
                pl.col("release"),
                status,
                in_source=IN_SOURCE_NOTE,
            ),
        )
        .sort("label", "benchmark", "scenario", "division", "release")
        .with_columns(
            c_accelerator=pl.col("label"),
            c_line=safe.fmt(
                "{} · {} · {}",
                pl.col("benchmark"),
                pl.col("scenario"),
                pl.col("division"),
            ).cell(),
            c_step=(
                safe.fmt("{} → {}", pl.col("release_prev"), pl.col("release"))
                + safe.when(
                    pl.col("skip") != "",
                    safe.fmt("<br><small>{}</small>", pl.col("skip")),
                    "",
                )
            ).cell(),
            c_reason=pl.col("break_reason"),
        )
    )
    return Md(
        "{:,} step(s) were not chained because a compatibility rule forbids "
        "comparing their two rounds; the points on either side start or end "
        "separate lines (shown above when they have two rounds or more).\n\n"
    ).format(breaks.height) + html_table(
        cells,
        {
            "c_accelerator": "Accelerator",
            "c_line": "Benchmark · scenario · division",
            "c_step": "Not chained",
            "c_reason": "Rule",
        },
    )


def line_anchors(histories: pl.DataFrame) -> pl.DataFrame:
    """A distinct anchor per line of each accelerator (``LINE_KEYS`` + ``line_anchor``).

    The anchor folds case and punctuation ("line-llama2-70b-99-offline-closed-
    tokens-s"); lines of one accelerator that fold alike (an upstream "Offline" and
    "offline") get "-2", "-3", … in the order of their exact names, so every line
    keeps its own target.
    """
    keys = list(LINE_KEYS)
    base = pl.concat_str(
        pl.lit("line-"),
        pl.concat_str(
            [
                pl.col(c).cast(pl.String).fill_null("")
                for c in ("benchmark", "scenario", "division", "result_unit",
                          "line_model")
            ],
            separator="-",
        )
        .pipe(anchor_of),
    )  # fmt: skip
    return (
        histories.select(keys)
        .unique(maintain_order=True)
        .sort(keys, nulls_last=True)
        .with_columns(_base=base)
        .with_columns(
            _n=pl.int_range(1, pl.len() + 1).over(["accelerator_id", "_base"]),
            _of=pl.len().over(["accelerator_id", "_base"]),
        )
        .with_columns(
            line_anchor=pl.when(pl.col("_of") == 1)
            .then(pl.col("_base"))
            .otherwise(pl.format("{}-{}", pl.col("_base"), pl.col("_n")))
        )
        .drop("_base", "_n", "_of")
    )


def _count(n: int, noun: str) -> str:
    """A count and its noun, plural when it is not 1 ("37 accelerators")."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _accelerator_index(
    page: str, histories: pl.DataFrame, accelerator_pages: Mapping[str, str]
) -> str:
    """One row per accelerator page: name, rounds, lines and steps, linked."""
    label = pl.coalesce(
        pl.format("{} {}", pl.col("accelerator_vendor"), pl.col("accelerator_model")),
        pl.col("accelerator_id"),
    )
    index = (
        histories.filter(pl.col("accelerator_id").is_in(list(accelerator_pages)))
        .group_by("accelerator_id")
        .agg(
            label.first().alias("label"),
            pl.col("accelerator_vendor").first(),
            pl.col("release").unique().alias("releases"),
            pl.struct(LINE_KEYS).n_unique().alias("lines"),
            pl.col("step_ratio").is_not_null().sum().alias("steps"),
        )
        .with_columns(
            target=pl.col("accelerator_id").replace_strict(
                {k: relative(page, v) for k, v in accelerator_pages.items()},
                return_dtype=pl.String,
            ),
            c_rounds=pl.col("releases").list.len(),
        )
        .sort(["accelerator_vendor", "label"], nulls_last=True)
        .with_columns(
            c_accelerator=safe.fmt(
                "[{}]({})", pl.col("label"), safe.href(pl.col("target"))
            ).cell(),
            c_lines=pl.col("lines"),
            c_steps=pl.col("steps"),
            c_rounds=pl.col("c_rounds"),
        )
    )
    return markdown_table(
        index,
        {
            "c_accelerator": "Accelerator",
            "c_rounds": "Rounds",
            "c_lines": "Lines",
            "c_steps": "Steps",
        },
        numeric=("c_rounds", "c_lines", "c_steps"),
    )


def render_history_page(
    draft: Draft,
    releases: Sequence[str],
    histories: pl.DataFrame,
    status: pl.DataFrame,
    methodology: str,
    accelerator_pages: Mapping[str, str] | None = None,
) -> str:
    """Write the page into the site; returns its docs-relative path.

    Args:
        draft: Where the page and its charts are drafted.
        releases: The ledger's releases, in order.
        histories: ``accelerator_histories`` output (``HISTORY_SCHEMA``).
        status: ``coverage.round_status`` of the ledger's releases.
        methodology: Docs-relative path of the methodology page.
        accelerator_pages: Accelerator id -> its page (docs-relative), when one page
            per accelerator is written (``accelerator_pages``): the page is then an
            index linking them, and each line's table is on its accelerator's page.
            Without it, every line's table is on this page.
    """
    page = f"generated/{PAGE}"
    # Upstream may leave a name empty: show it as NO_NAME rather than lose a line.
    histories = histories.select(list(HISTORY_SCHEMA)).with_columns(
        display_name(pl.col(c)).alias(c) for c in NAMED
    )
    shown = labelled(histories, status)
    lines = _lines(shown)
    parts = [
        Md("# {}\n").format(TITLE),
        notice(page),
        INTRO.format(methodology=relative(page, methodology)),
        _coverage_text(status),
    ]
    if accelerator_pages:
        parts += [
            "\n## Accelerator pages { #accelerator-pages }\n",
            Md(
                "Each accelerator below has a page of its own ({} in all): every line "
                "with its best result per round (one round or more), a chart per unit "
                "and every step between consecutive rounds.\n"
            ).format(_count(len(accelerator_pages), "accelerator")),
            _accelerator_index(page, histories, accelerator_pages),
        ]
    if lines.height == 0:
        parts.append(
            Md("\n_No accelerator appears in {} rounds or more._\n").format(MIN_ROUNDS)
        )
        parts += ["\n## Broken lines\n", _broken(histories, status)]
        return draft.page(PAGE, "\n".join(parts))
    accelerators = lines["accelerator_id"].n_unique()
    where = (
        Md("its accelerator's page has its table")
        if accelerator_pages
        else Md("every one has a table below")
    )
    parts.append(
        Md(
            "\n{:,} lines of {:,} accelerators appear in {} rounds or more; {}. The "
            "charts show, per unit, the {} lines with the most rounds (ties: the "
            "longest span of rounds, then by name).\n"
        ).format(lines.height, accelerators, MIN_ROUNDS, where, CHART_LINES)
    )
    chosen = _chart_lines(lines, status)
    parts.append("\n## Most-covered lines\n")
    for (unit,), group in sorted(
        chosen.partition_by("result_unit", as_dict=True).items()
    ):
        keys = group.select(SEGMENT)
        points = shown.join(keys, on=SEGMENT, how="semi", nulls_equal=True)
        present = [r for r in releases if r in set(points["release"])]
        title = f"Best {unit} per accelerator, by round"
        built = history_chart(points, title=title, unit=unit, releases=present)
        name = "histories-" + anchor_text(unit)
        parts.append(Md("\n### {}\n").format(unit))
        parts.append(draft.chart(page, built, name, title))
    if accelerator_pages:
        targets = lines.join(
            line_anchors(histories), on=list(LINE_KEYS), how="left", nulls_equal=True
        ).with_columns(
            target=pl.format(
                "{}#{}",
                pl.col("accelerator_id").replace_strict(
                    {k: relative(page, v) for k, v in accelerator_pages.items()},
                    default=None,
                    return_dtype=pl.String,
                ),
                pl.col("line_anchor"),
            )
        )
    else:
        targets = lines.with_columns(target=pl.format("#{}", pl.col("anchor")))
    overview = targets.sort(
        ["rounds", "overall", "accelerator_label", "line_label"],
        descending=[True, True, False, False],
        nulls_last=True,
    ).with_columns(
        c_accelerator=pl.col("accelerator_label"),
        c_line=safe.when(
            pl.col("target").is_not_null(),
            safe.fmt("[{}]({})", pl.col("line_label"), safe.href(pl.col("target"))),
            pl.col("line_label"),
        ).cell(),
        c_rounds=joined("releases", " → ").cell(),
        c_overall=ratio_cell(pl.col("overall")).cell(),
    )
    parts += [
        "\n## All lines\n",
        "Most rounds first, then the largest change from the first to the last "
        "round (per accelerator).\n",
        markdown_table(
            overview,
            {
                "c_accelerator": "Accelerator",
                "c_line": "Benchmark · scenario · division",
                "c_rounds": "Rounds",
                "c_overall": "Last ÷ first",
            },
            numeric=("c_overall",),
        ),
    ]
    if not accelerator_pages:
        parts += _line_tables(shown, lines)
    parts += ["\n## Broken lines\n", _broken(histories, status)]
    return draft.page(PAGE, "\n".join(parts))


def _line_tables(shown: pl.DataFrame, lines: pl.DataFrame) -> list[str]:
    """Every shown segment's table, grouped by accelerator (the single-page layout)."""
    parts = []
    tables = line_cells(shown).partition_by(SEGMENT, as_dict=True, maintain_order=True)
    order = lines.sort(
        "accelerator_vendor",
        "accelerator_label",
        "benchmark",
        "scenario_rank",
        "division_rank",
        "line_model",
        "first_release",
    )
    current = None
    for line in order.iter_rows(named=True):
        if line["accelerator_id"] != current:
            current = line["accelerator_id"]
            anchor = _anchor(current)
            parts.append(
                Md("\n## {} {{ {} }}\n").format(
                    line["accelerator_label"], safe.path("#" + anchor)
                )
            )
        parts.append(
            Md("\n### {} {{ {} }}\n\n{} per accelerator, {}, {} rounds.\n").format(
                line["line_label"],
                safe.path("#" + line["anchor"]),
                line["result_unit"],
                line["span"],
                line["rounds"],
            )
        )
        parts.append(
            html_table(
                tables[tuple(line[k] for k in SEGMENT)],
                LINE_COLUMNS,
                numeric=("c_step", "c_since"),
                searchable=False,
            )
        )
    return parts


def home_block(page: str, histories: pl.DataFrame) -> str:
    """A short home-page paragraph: how many lines, the longest one, and a link."""
    target = relative(page, f"generated/{PAGE}")
    shown = histories.filter(pl.col("segment_rounds") >= MIN_ROUNDS)
    parts = [Md("\n### {}\n").format(TITLE)]
    if shown.height == 0:
        parts.append(
            Md("No accelerator appears in two rounds yet. [Details]({})\n").format(
                target
            )
        )
        return "\n".join(parts)
    lines = shown.unique(SEGMENT).height
    longest = (
        shown.sort(["segment_rounds", "release"], descending=[True, False])
        .filter(pl.col("segment_rounds") == pl.col("segment_rounds").max())
        .group_by(SEGMENT, maintain_order=True)
        .agg(
            pl.col("accelerator_vendor").first(),
            pl.col("accelerator_model").first(),
            pl.col("release").first().alias("first"),
            pl.col("release").last().alias("last"),
            pl.col("cumulative_ratio").last(),
            pl.len().alias("rounds"),
        )
        .sort(["cumulative_ratio"], descending=True, nulls_last=True)
        .row(0, named=True)
    )
    name = " ".join(
        v for v in (longest["accelerator_vendor"], longest["accelerator_model"]) if v
    ) or str(longest["accelerator_id"])
    overall = (
        ratio_md(longest["cumulative_ratio"]) if longest["cumulative_ratio"] else "—"
    )
    parts.append(
        Md(
            "{:,} lines follow one chip's best result per accelerator, round after "
            "round, through two rounds or more. The longest include {} on {} {} "
            "({} → {}, {} rounds, **{}** per accelerator).\n"
        ).format(
            lines,
            name,
            longest["benchmark"],
            longest["scenario"],
            longest["first"],
            longest["last"],
            longest["rounds"],
            overall,
        )
    )
    parts.append(Md("[All accelerator histories →]({})\n").format(target))
    return "\n".join(parts)


def accelerator_label(row: Mapping[str, object]) -> str:
    """An accelerator as pages name it: vendor and model, else its registry id."""
    parts = [row.get("accelerator_vendor"), row.get("accelerator_model")]
    named = " ".join(str(p) for p in parts if p)
    return named or str(row["accelerator_id"])


LINE = list(LINE_KEYS)
#: The accelerator pages' folder under ``generated/`` (also the entity kind of
#: ``slugs.page_problems``).
ACCELERATOR_FOLDER = "accelerators"


def accelerator_slugs(histories: pl.DataFrame) -> dict[str, str]:
    """Accelerator id -> a unique page slug (``slugs.unique_slugs``)."""
    ids = histories["accelerator_id"].drop_nulls().unique().to_list()
    return unique_slugs(ids)


def accelerator_points(
    histories: pl.DataFrame,
    results: pl.DataFrame,
    releases: Sequence[str],
    status: pl.DataFrame,
) -> pl.DataFrame:
    """Every line point of every accelerator, as its page shows them, in order.

    One round or more (``min_rounds=1``), with system ids, display names, the line
    anchors, the release's position (``_order``) and the scenario's rank.
    """
    histories = with_system_ids(
        histories.select(list(HISTORY_SCHEMA)), results
    ).with_columns(display_name(pl.col(c)).alias(c) for c in NAMED)
    order = {r: i for i, r in enumerate(releases)}
    return (
        labelled(histories, status, min_rounds=1)
        .join(line_anchors(histories), on=LINE, how="left", nulls_equal=True)
        .with_columns(
            _order=pl.col("release").replace_strict(
                order, default=len(order), return_dtype=pl.Int32
            ),
            scenario_rank=pl.col("scenario").replace_strict(
                {s: i for i, s in enumerate(SCENARIOS)},
                default=len(SCENARIOS),
                return_dtype=pl.Int32,
            ),
        )
        .sort([*LINE, "_order"], nulls_last=True)
    )


def accelerator_pages(
    histories: pl.DataFrame | None, points: pl.DataFrame | None
) -> dict[str, str]:
    """Accelerator id -> its page (``generated/accelerators/<slug>.md``), in order."""
    if histories is None or points is None:
        return {}
    slugs = accelerator_slugs(histories)
    ids = sorted(
        {a for a in points["accelerator_id"].unique().to_list() if a is not None},
        key=str,
    )
    return {a: f"{GENERATED}/{ACCELERATOR_FOLDER}/{slugs[a]}.md" for a in ids}
