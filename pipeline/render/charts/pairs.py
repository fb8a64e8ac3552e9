"""Charts of pairs: ratios per pair, ratios per benchmark, scaling, efficiency.

Ratios always sit on a log axis with a dashed rule at 1×; tooltips cite the upstream
result keys of both ends, with units and plausibility flags (flagged pairs are drawn
faint). Measured values are split by scenario and unit (``split_by_unit``), so one
axis holds one unit.
"""

from __future__ import annotations

import functools
import hashlib

import altair as alt
import polars as pl

from pipeline.analysis.plausibility import warned
from pipeline.render.charts.spec import OMIT, Spec, fill, slot
from pipeline.render.charts.style import (
    FLAGGED,
    RATIO_TITLE,
    REFERENCE_COLOUR,
    UNFLAGGED,
    axis_title,
    chart_title,
    chart_url,
    compare_colour,
    compare_scale_spec,
    layered,
    needs_log,
    parity_rule,
    ratio_scale,
    reading_label,
    rows_height,
    shorten,
    status_opacity,
    value_scale,
)
from pipeline.render.site_data import system_label
from pipeline.render.tables import number
from pipeline.transform.results import SCENARIOS

#: Pairs per chart that get a labelled row each; more are grouped (pair_ratio_chart).
MAX_LABELLED_ROWS = 40


def _end_tooltips(suffix: str, label: str) -> list[alt.Tooltip]:
    return [
        alt.Tooltip(f"result_key{suffix}:N", title=f"{label} result key"),
        alt.Tooltip(f"release{suffix}:N", title=f"{label} release"),
        alt.Tooltip(f"system{suffix}:N", title=f"{label} submitter · system"),
        alt.Tooltip(f"chips{suffix}:N", title=f"{label} accelerators"),
        alt.Tooltip(f"value{suffix}:N", title=f"{label} result"),
    ]


def _flag_tooltips() -> list[alt.Tooltip]:
    return [
        alt.Tooltip("reading:N", title="reading"),
        alt.Tooltip("flags:N", title="plausibility flags"),
    ]


def _rows_column(label: pl.Expr, compare: pl.Expr | None) -> str:
    """The column ``with_pair_rows`` stores chart rows in, named by both expressions.

    Named by content, so rows prepared with another label or colour are never used.
    """
    digest = hashlib.sha256(label.meta.serialize())
    digest.update(b"\x00" + (b"" if compare is None else compare.meta.serialize()))
    return f"_pair_rows_{digest.hexdigest()[:16]}"


def with_pair_rows(
    pairs: pl.DataFrame, label: pl.Expr, compare: pl.Expr | None = None
) -> pl.DataFrame:
    """``pairs`` with their chart rows for ``label``/``compare`` in a struct column.

    A page that charts many parts of one frame prepares the rows once: formatting a
    number costs several milliseconds per query however few the rows. The pair
    charts take the prepared rows of the parts they get (same label and colour only).
    """
    rows = _pair_rows(pairs, label, compare)
    return pairs.with_columns(rows.to_struct(_rows_column(label, compare)))


def scaling_label() -> pl.Expr:
    """A scaling pair's name in charts: the larger system and its scenario."""
    return pl.format(
        "{} · {} ({})",
        pl.col("submitter_new"),
        system_label("_new"),
        pl.col("scenario"),
    )


def _pair_frame(
    pairs: pl.DataFrame, label: pl.Expr, compare: pl.Expr | None = None
) -> pl.DataFrame:
    """The columns pair charts need, with a unique y label per pair.

    ``label`` is the full name of a pair (in tooltips); ``short`` is at most
    ``LABEL_CHARS`` characters (on the axis), numbered where two pairs would read
    alike. ``compare`` is what the colour tells apart; ``status`` and ``flags`` come
    from the plausibility flags. Rows from ``with_pair_rows`` are used when present.
    """
    prepared = _rows_column(label, compare)
    if prepared in pairs.columns:
        frame = pairs.select(pl.col(prepared).struct.unnest())
    else:
        frame = _pair_rows(pairs, label, compare)
    # A chart mixing rounds marks each row with its round ("v6.0 · …", or
    # "v5.1→v6.0 · …" for pairs across two): a v5.1 and a v6.0 pair of one system
    # would read alike.
    rounds = (
        pl.when(pl.col("release_old") == pl.col("release_new"))
        .then(pl.col("release_new"))
        .otherwise(pl.format("{}→{}", pl.col("release_old"), pl.col("release_new")))
    )
    if frame.select(rounds.n_unique()).item() > 1:
        frame = frame.with_columns(
            label=pl.format("{} · {}", rounds, pl.col("label")),
            short=pl.format("{} · {}", rounds, pl.col("short")),
        )
    # Two pairs can share a label (same system, two scenarios); number the repeats.
    repeat = pl.col("short").cum_count().over("short")
    suffix = pl.when(repeat > 1).then(pl.format(" #{}", repeat)).otherwise(pl.lit(""))
    return frame.with_columns(
        label=pl.concat_str("label", suffix), short=pl.concat_str("short", suffix)
    )


def _pair_rows(
    pairs: pl.DataFrame, label: pl.Expr, compare: pl.Expr | None
) -> pl.DataFrame:
    """``_pair_frame`` before repeats are numbered: row by row, so it can be shared."""
    unit = pl.col("result_unit").fill_null("")
    ends = []
    for suffix in ("_old", "_new"):
        ends += [
            pl.col(f"result_key{suffix}"),
            pl.col(f"release{suffix}"),
            pl.format(
                "{} · {}", pl.col(f"submitter{suffix}"), system_label(suffix)
            ).alias(f"system{suffix}"),
            pl.format(
                "{} × {}",
                pl.col(f"total_accelerators{suffix}"),
                pl.col(f"accelerator_name{suffix}").fill_null("CPU"),
            ).alias(f"chips{suffix}"),
            pl.col(f"total_accelerators{suffix}"),
            pl.col(f"result_value{suffix}").round_sig_figs(6),
            pl.format("{} {}", number(pl.col(f"result_value{suffix}")), unit).alias(
                f"value{suffix}"
            ),
        ]
    flagged = warned()
    # Rounded to what the tooltips show: chart data is the bulk of a pair page's bytes.
    return pairs.select(
        label.alias("label"),
        "benchmark",
        "scenario",
        reading_label(
            pl.col("identity_level").str.split(", ").list.first(), pl.col("kind")
        ).alias("reading"),
        "result_unit",
        pl.col("ratio").round(4),
        pl.col("efficiency").round(4),
        (compare if compare is not None else pl.lit("")).alias("compare"),
        pl.when(flagged)
        .then(pl.lit(FLAGGED))
        .otherwise(pl.lit(UNFLAGGED))
        .alias("status"),
        pl.col("flag_reasons").fill_null("none").alias("flags"),
        chart_url("result_url_new").alias("url"),
        *ends,
    ).with_columns(short=shorten(pl.col("label")))


#: The shape channel of pair charts mixing identity levels.
_READING_SHAPE = alt.Shape(
    "reading:N",
    legend=alt.Legend(orient="top", direction="horizontal", title="level"),
).to_dict(validate=False)


@functools.cache
def _pair_ratio_template() -> Spec:
    """Dot plot of ratios with the 1× rule; slots for rows, colours and words."""
    tooltip = [
        alt.Tooltip("label:N", title="pair"),
        alt.Tooltip("compare:N", title=slot("compare_title")),
        alt.Tooltip("ratio:Q", title="ratio, × better (derived)", format=".3~f"),
        alt.Tooltip("scenario:N"),
        *_flag_tooltips(),
        *_end_tooltips("_old", slot("end_old")),
        *_end_tooltips("_new", slot("end_new")),
    ]
    points = (
        alt.Chart()
        .mark_point(filled=True, size=80)
        .encode(
            x=alt.X("ratio:Q", scale=ratio_scale(), title=RATIO_TITLE),
            y=alt.Y("short:N", sort="-x", title=None, axis=alt.Axis(labelLimit=0)),
            color=compare_colour(),
            opacity=status_opacity(),
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
    )
    spec = layered(parity_rule(), points)
    encoding = spec["layer"][1]["encoding"]
    encoding["y"]["field"] = slot("y_field")
    encoding["shape"] = slot("shape")
    return spec


def pair_ratio_chart(
    pairs: pl.DataFrame,
    *,
    title: str,
    label: pl.Expr,
    ends: tuple[str, str],
    compare: pl.Expr,
    compare_title: str,
) -> tuple[Spec, pl.DataFrame]:
    """Dot plot of pair ratios on a log axis with a dashed rule at 1×.

    Up to ``MAX_LABELLED_ROWS`` pairs get one labelled row each; beyond that the rows
    would make the chart taller than a screen, so pairs are grouped by scenario and
    identity level and told apart by their tooltips (the table lists every pair).

    Args:
        pairs: Rows in the pair schema.
        title: Chart title.
        label: Expression naming a pair on the y axis (shortened there, whole in the
            tooltip).
        ends: Words for the two ends in tooltips, e.g. ("older", "newer").
        compare: What the colour tells apart (e.g. the accelerator).
        compare_title: The colour legend's title.

    Returns:
        The spec (on named data) and the data frame to attach to it.
    """
    frame = _pair_frame(pairs, label, compare).with_columns(
        group=pl.format("{} · {}", pl.col("scenario"), pl.col("reading"))
    )
    y_field = "short" if frame.height <= MAX_LABELLED_ROWS else "group"
    spec = fill(
        _pair_ratio_template(),
        {
            "y_field": y_field,
            "compare_scale": compare_scale_spec(frame["compare"]),
            "compare_title": compare_title,
            "end_old": ends[0],
            "end_new": ends[1],
            "shape": _READING_SHAPE if frame["reading"].n_unique() > 1 else OMIT,
            "height": rows_height(frame[y_field].n_unique()),
            "title": chart_title(title, frame),
        },
    )
    return spec, frame


@functools.cache
def _ratio_strip_template() -> Spec:
    """Ratios per benchmark with the 1× rule; slots for colours, words, height."""
    tooltip = [
        alt.Tooltip("benchmark:N"),
        alt.Tooltip("scenario:N"),
        alt.Tooltip("compare:N", title=slot("compare_title")),
        alt.Tooltip("ratio:Q", title="ratio, × better (derived)", format=".3~f"),
        *_flag_tooltips(),
        *_end_tooltips("_old", slot("end_old")),
        *_end_tooltips("_new", slot("end_new")),
    ]
    points = (
        alt.Chart()
        .mark_point(filled=True, size=70)
        .encode(
            x=alt.X("ratio:Q", scale=ratio_scale(), title=RATIO_TITLE),
            y=alt.Y("benchmark:N", title=None, axis=alt.Axis(labelLimit=0)),
            color=compare_colour(),
            # Which dot is Offline, Server or Interactive: a shape per scenario, with
            # its legend (colour already tells the compared things apart).
            shape=alt.Shape(
                "scenario:N",
                scale=slot("scenario_scale"),
                legend=alt.Legend(
                    orient="top", direction="horizontal", columns=3, title=None
                ),
            ),
            opacity=status_opacity(),
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
    )
    return layered(parity_rule(), points)


#: Point shapes of the scenarios, in MLPerf's scenario order (``SCENARIOS``).
SCENARIO_SHAPES = ("circle", "square", "triangle-up", "diamond", "cross")


def scenario_scale_spec(values: pl.Series) -> dict:
    """A fixed shape per scenario; only the scenarios present are in the legend."""
    present = {str(v) for v in values.drop_nulls().to_list()}
    known = [s for s in SCENARIOS if s in present]
    others = sorted(present - set(SCENARIOS))
    shapes = [SCENARIO_SHAPES[SCENARIOS.index(s) % len(SCENARIO_SHAPES)] for s in known]
    shapes += [SCENARIO_SHAPES[i % len(SCENARIO_SHAPES)] for i in range(len(others))]
    return {"domain": known + others, "range": shapes}


def ratio_strip_chart(
    pairs: pl.DataFrame,
    *,
    title: str,
    ends: tuple[str, str],
    compare: pl.Expr,
    compare_title: str,
) -> tuple[Spec, pl.DataFrame]:
    """Ratios grouped by benchmark on a log axis: the headline view of many pairs."""
    frame = _pair_frame(
        pairs,
        pl.format("{} · {}", pl.col("submitter_new"), system_label("_new")),
        compare,
    )
    spec = fill(
        _ratio_strip_template(),
        {
            "compare_scale": compare_scale_spec(frame["compare"]),
            "compare_title": compare_title,
            "scenario_scale": scenario_scale_spec(frame["scenario"]),
            "end_old": ends[0],
            "end_new": ends[1],
            "height": rows_height(frame["benchmark"].n_unique()),
            "title": chart_title(title, frame),
        },
    )
    return spec, frame


def system_family_label() -> pl.Expr:
    """What a scaling chart tells apart: one submitter's systems of one accelerator."""
    return pl.format(
        "{} · {}",
        pl.col("submitter_new"),
        pl.col("accelerator_name_new").fill_null("CPU"),
    )


def _scaling_tooltips() -> list[alt.Tooltip]:
    return [
        alt.Tooltip("label:N", title="pair"),
        alt.Tooltip("compare:N", title="system family"),
        alt.Tooltip("efficiency:Q", title="scaling efficiency (derived)", format=".1%"),
        alt.Tooltip("ratio:Q", title="throughput ratio (derived)", format=".3~f"),
        alt.Tooltip("growth:Q", title="accelerator count ratio", format=".3~f"),
        *_flag_tooltips(),
        *_end_tooltips("_old", "smaller"),
        *_end_tooltips("_new", "larger"),
    ]


def _single_unit(pairs: pl.DataFrame) -> str:
    units = sorted(pairs["result_unit"].drop_nulls().unique().to_list())
    if len(units) > 1:
        raise ValueError(
            f"a chart axis holds one unit, these pairs have {', '.join(units)}: "
            "split them by unit (split_by_unit) first"
        )
    return units[0] if units else "result"


def split_by_unit(pairs: pl.DataFrame) -> list[tuple[str, str, pl.DataFrame]]:
    """(scenario, unit, pairs) per scenario and unit, in MLPerf's scenario order.

    A chart of measured values takes one part: Samples/s and Queries/s never share an
    axis, nor do two scenarios' different metrics.
    """
    if pairs.height == 0:
        return []
    parts = pairs.partition_by(["scenario", "result_unit"], as_dict=True)
    order = {s: i for i, s in enumerate(SCENARIOS)}
    return [
        (str(scenario), str(unit), part)
        for (scenario, unit), part in sorted(
            parts.items(),
            key=lambda item: (
                order.get(item[0][0], len(order)),
                str(item[0][0]),
                str(item[0][1]),
            ),
        )
    ]


@functools.cache
def _scaling_template() -> Spec:
    """Linear-scaling rules, measured segments and both ends; slots for the axes."""
    tooltip = _scaling_tooltips()
    x_scale, y_scale = slot("x_scale"), slot("y_scale")
    x_title, y_title = slot("x_title"), slot("y_title")
    linear = (
        alt.Chart()
        .mark_rule(strokeDash=[4, 4], color=REFERENCE_COLOUR, strokeWidth=1.5)
        .encode(
            x=alt.X("total_accelerators_old:Q", scale=x_scale, title=x_title),
            x2=alt.X2("total_accelerators_new:Q"),
            y=alt.Y("result_value_old:Q", scale=y_scale, title=y_title),
            y2=alt.Y2("linear:Q"),
            tooltip=tooltip,
        )
    )
    segment = (
        alt.Chart()
        .mark_rule(strokeWidth=2.5)
        .encode(
            x=alt.X("total_accelerators_old:Q", scale=x_scale, title=x_title),
            x2=alt.X2("total_accelerators_new:Q"),
            y=alt.Y("result_value_old:Q", scale=y_scale, title=y_title),
            y2=alt.Y2("result_value_new:Q"),
            color=compare_colour(),
            opacity=status_opacity(),
            tooltip=tooltip,
        )
    )
    points = [
        alt.Chart()
        .mark_point(filled=True, size=60)
        .encode(
            x=alt.X(f"total_accelerators{s}:Q", scale=x_scale, title=x_title),
            y=alt.Y(f"result_value{s}:Q", scale=y_scale, title=y_title),
            color=compare_colour(),
            opacity=status_opacity(),
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
        for s in ("_old", "_new")
    ]
    return layered(linear, segment, *points)


def scaling_chart(
    pairs: pl.DataFrame, *, title: str, compare: pl.Expr | None = None
) -> tuple[Spec, pl.DataFrame]:
    """Segments from the smaller to the larger system, one unit on the y axis.

    The dashed segment from each smaller system is linear scaling (its result times
    the growth in accelerator count): a solid segment under it lost efficiency. Axes
    are logarithmic where the values span orders of magnitude, and say so.

    ``compare`` names what the colour tells apart (default: submitter and
    accelerator, ``system_family_label``).

    Raises:
        ValueError: the pairs hold more than one unit (``split_by_unit`` first).
    """
    unit = _single_unit(pairs)
    frame = _scaling_frame(pairs, compare)
    frame = frame.with_columns(
        linear=(pl.col("result_value_old") * pl.col("growth")).round_sig_figs(6)
    )
    counts = pl.concat(
        [frame["total_accelerators_old"], frame["total_accelerators_new"]]
    )
    values = pl.concat(
        [frame["result_value_old"], frame["result_value_new"], frame["linear"]]
    )
    x_scale = {"type": "log", "base": 2} if needs_log(counts, 4) else {"zero": True}
    y_scale = value_scale(values)
    spec = fill(
        _scaling_template(),
        {
            "x_scale": x_scale,
            "y_scale": y_scale,
            "x_title": axis_title("accelerators", x_scale),
            "y_title": axis_title(unit, y_scale),
            "compare_scale": compare_scale_spec(frame["compare"]),
            "compare_title": "system family",
            "height": 280,
            "title": chart_title(
                title, frame, "dashed: linear scaling from the smaller system"
            ),
        },
    )
    return spec, frame


def _scaling_frame(pairs: pl.DataFrame, compare: pl.Expr | None) -> pl.DataFrame:
    """Chart rows of scaling pairs, labelled by system, with the count growth."""
    return _pair_frame(
        pairs,
        scaling_label(),
        system_family_label() if compare is None else compare,
    ).with_columns(
        growth=(
            pl.col("total_accelerators_new") / pl.col("total_accelerators_old")
        ).round(4)
    )


@functools.cache
def _efficiency_template() -> Spec:
    """Efficiency against count growth with the 100% rule; colour and title slots."""
    x_scale = alt.Scale(type="log", base=2)
    points = (
        alt.Chart()
        .mark_point(filled=True, size=70)
        .encode(
            x=alt.X(
                "growth:Q",
                scale=x_scale,
                title=axis_title("accelerator count growth, ×", x_scale),
            ),
            y=alt.Y(
                "efficiency:Q",
                scale=alt.Scale(zero=True, nice=True),
                axis=alt.Axis(format="%"),
                title="scaling efficiency (100% = linear)",
            ),
            color=compare_colour(),
            opacity=status_opacity(),
            tooltip=[alt.Tooltip("benchmark:N"), *_scaling_tooltips()],
            href=alt.Href("url:N"),
        )
    )
    linear = (
        alt.Chart()
        .mark_rule(strokeDash=[4, 4], color=REFERENCE_COLOUR)
        .encode(y=alt.YDatum(1))
    )
    return layered(linear, points)


def efficiency_chart(
    pairs: pl.DataFrame, *, title: str, compare: pl.Expr | None = None
) -> tuple[Spec, pl.DataFrame]:
    """Scaling efficiency against the growth in chip count, with linear scaling at 100%.

    Efficiency is unitless, so pairs of any unit share the y axis.
    """
    frame = _scaling_frame(pairs, compare)
    spec = fill(
        _efficiency_template(),
        {
            "compare_scale": compare_scale_spec(frame["compare"]),
            "compare_title": "system family",
            "height": 260,
            "title": chart_title(title, frame, "dashed: linear scaling (100%)"),
        },
    )
    return spec, frame
