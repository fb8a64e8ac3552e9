"""Charts of lines: a value across rounds, across interactivity targets, across rows.

``release_lines_chart`` is one template for every "one line per thing, one point per
round" chart (best per accelerator on a benchmark page, an accelerator's own lines,
the histories index); what differs between them is data, a ``Lines`` entry in
``LINES``. ``interactivity_chart`` and ``cost_chart`` are the other two line kinds.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt
import polars as pl

from pipeline.render.charts.spec import (
    DATA_NAME,
    NO_LABEL_LIMIT,
    OMIT,
    Spec,
    fill,
    slot,
)
from pipeline.render.charts.style import axis_title, chart_url

#: One Vega-Lite tooltip field: (field:type, title or None, d3 format or None).
Tip = tuple[str, str | None, str | None]

#: A history point's tooltip: the cited result and its step from the last round.
POINT_TIPS: tuple[Tip, ...] = (
    ("line:N", None, None),
    ("release:N", None, None),
    ("value:Q", "{{unit}} per accelerator", ",.6~g"),
    ("step_ratio:Q", "step (× previous)", ".2f"),
    ("result_value:Q", "system result", ",.6~g"),
    ("total_accelerators:Q", "accelerators", None),
    ("submitter:N", None, None),
    ("system_name:N", "system", None),
    ("availability:N", None, None),
    ("result_key:N", "result key", None),
    ("is_preview:N", "preview", None),
    ("is_inferred:N", "inferred", None),
)


@dataclass(frozen=True)
class Lines:
    """What one kind of release-lines chart draws and says.

    Attributes:
        value: the plotted column.
        line: the column with one line per value.
        legend: the legend's title, and its number of columns.
        label_limit: legend label width (px), ``NO_LABEL_LIMIT``: none is cut.
        height: chart height (px).
        tips: the tooltip fields; titles may hold ``{{unit}}``/``{{metric}}`` slots.
    """

    value: str
    line: str
    legend: tuple[str, int]
    label_limit: int
    height: int
    tips: tuple[Tip, ...]
    #: A field that splits each line further: only points of equal value are joined
    #: (one system size), so a line never reads a change of scale as a gain.
    detail: str | None = None


LINES: dict[str, Lines] = {
    # Benchmark pages: the best result of each accelerator type, round by round.
    "best_per_accelerator": Lines(
        value="metric",
        line="accelerator",
        legend=("accelerator", 1),
        label_limit=NO_LABEL_LIMIT,
        height=300,
        detail="total_accelerators",
        tips=(
            ("accelerator:N", None, None),
            ("vendor:N", None, None),
            ("release:N", None, None),
            ("metric:Q", "{{metric}}", ",.6~g"),
            ("result_value:Q", "system result", ",.6~g"),
            ("total_accelerators:Q", "accelerators", None),
            ("submitter:N", None, None),
            ("system_name:N", "system", None),
            ("result_key:N", "result key", None),
            ("is_preview:N", "preview", None),
            ("is_inferred:N", "inferred", None),
        ),
    ),
    # An accelerator's own page: one line per benchmark line.
    "accelerator_lines": Lines(
        value="value",
        line="line",
        legend=("line", 1),
        label_limit=NO_LABEL_LIMIT,
        height=320,
        tips=POINT_TIPS,
    ),
    # The histories index: segments of every accelerator, in their vendor's hue.
    "histories": Lines(
        value="value",
        line="accelerator",
        legend=("line", 1),
        label_limit=NO_LABEL_LIMIT,
        height=320,
        tips=(("accelerator:N", "accelerator · benchmark", None), *POINT_TIPS),
    ),
}


def tooltips(tips: Sequence[Tip]) -> list[alt.Tooltip]:
    """Altair tooltips from ``Tip`` rows (for templates, built once)."""
    out = []
    for field, title, fmt in tips:
        given = {"title": title} if title else {}
        if fmt:
            given["format"] = fmt
        out.append(alt.Tooltip(field, **given))
    return out


@functools.cache
def _release_lines_template(kind: str) -> Spec:
    lines = LINES[kind]
    title, columns = lines.legend
    legend = alt.Legend(
        orient="bottom",
        title=title,
        columns=columns,
        labelLimit=lines.label_limit,
        symbolLimit=0,
    )
    # Colour and shape tell the lines apart (one vendor's chips share a hue); both
    # read the same field with one explicit domain (``shape_scale``), so Vega draws
    # one legend of both.
    extra = {
        "shape": alt.Shape(f"{lines.line}:N", legend=legend, scale=slot("shape_scale"))
    }
    if lines.detail:
        extra["detail"] = alt.Detail(f"{lines.detail}:O")
    spec = (
        alt.Chart(alt.NamedData(name=DATA_NAME))
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=60), opacity=0.85)
        .encode(
            x=alt.X(
                "release:O",
                sort=slot("releases"),
                title="release",
                axis=alt.Axis(labelAngle=0, labelOverlap="greedy"),
            ),
            y=alt.Y(f"{lines.value}:Q", scale=slot("y_scale"), title=slot("y_title")),
            color=alt.Color(
                f"{lines.line}:N", scale=slot("colour_scale"), legend=legend
            ),
            tooltip=tooltips(lines.tips),
            href=alt.Href("url:N"),
            **extra,
        )
        .properties(width="container", height=lines.height)
        .to_dict(validate=False)
    )
    spec["title"] = slot("title")
    return spec


def release_lines_chart(
    frame: pl.DataFrame,
    kind: str,
    *,
    title: str,
    y_title: str,
    y_scale: Mapping[str, Any],
    colour_scale: Mapping[str, Any],
    releases: Sequence[str],
    unit: str = "",
    metric: str = "",
) -> tuple[Spec, pl.DataFrame]:
    """One line per ``LINES[kind].line`` across ``releases``.

    Args:
        frame: the rows, with ``release``, ``url`` and the kind's columns.
        kind: a key of ``LINES``.
        title: chart title.
        y_title: axis title (say "log scale" with ``axis_title`` when it is one).
        y_scale: the value axis' scale.
        colour_scale: the lines' colours (a scheme, or a domain and range).
        releases: the x axis order.
        unit: the result unit, for tooltip titles that name it.
        metric: the metric's name, for tooltip titles that name it.
    """
    # Colour and shape list the lines in one explicit order, or Vega-Lite draws a
    # legend for each (side by side: off a phone's screen).
    colours = dict(colour_scale)
    if "domain" not in colours:
        line = LINES[kind].line
        colours["domain"] = sorted(
            str(v) for v in frame[line].drop_nulls().unique().to_list()
        )
    spec = fill(
        _release_lines_template(kind),
        {
            "releases": list(releases),
            "y_scale": dict(y_scale),
            "y_title": y_title,
            "colour_scale": colours,
            "shape_scale": {"domain": list(colours["domain"])},
            "title": title,
            "unit": unit,
            "metric": metric,
        },
    )
    return spec, frame


#: Log axis of per-accelerator values on the history charts.
LOG10 = {"type": "log", "base": 10}


@functools.cache
def _interactivity_template() -> Spec:
    scale = alt.Scale(type="log", base=10)
    return (
        alt.Chart(alt.NamedData(name=DATA_NAME))
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=60), opacity=0.85)
        .encode(
            # Scenarios in the order their latency targets tighten; Offline has
            # none, so it is a point of its own, not a target of zero.
            x=alt.X(
                "scenario:O",
                sort=["Offline", "Server", "Interactive"],
                title="scenario, latency target tightening",
                axis=alt.Axis(labelAngle=0, labelOverlap="greedy"),
            ),
            y=alt.Y(
                "per_accelerator:Q",
                scale=scale,
                title=axis_title("Tokens/s per accelerator", scale),
            ),
            color=alt.Color(
                "system:N",
                scale=alt.Scale(scheme="tableau10"),
                legend=alt.Legend(
                    orient="bottom",
                    title="system",
                    columns=1,
                    labelLimit=NO_LABEL_LIMIT,
                ),
            ),
            order=alt.Order("target_tokens_per_user:Q"),
            shape=alt.Shape("system:N", legend=None),
            tooltip=tooltips(
                [
                    ("system:N", None, None),
                    ("scenario:N", None, None),
                    ("tpot_ms:Q", "TPOT limit (ms)", ",.6~g"),
                    ("target_tokens_per_user:Q", "tokens/s per user", ",.3~g"),
                    ("per_accelerator:Q", "Tokens/s per accelerator", ",.6~g"),
                    ("value:Q", "system result", ",.6~g"),
                    ("total_accelerators:Q", "accelerators", None),
                    ("result_key:N", "result key", None),
                ]
            ),
            href=alt.Href("url:N"),
        )
        .properties(width="container", height=300, title=slot("title"))
        .to_dict(validate=False)
    )


def interactivity_chart(
    points: pl.DataFrame, *, title: str
) -> tuple[Spec, pl.DataFrame]:
    """Per-accelerator throughput against the interactivity target, a line per system.

    ``points``: ``interactivity_points`` rows of one benchmark and round, with a
    ``system`` label column.
    """
    frame = points.select(
        "system",
        "scenario",
        "target_tokens_per_user",
        "tpot_ms",
        "per_accelerator",
        "value",
        "total_accelerators",
        "result_key",
        chart_url("result_url").alias("url"),
        # Only Tokens/s results are compared here (see interactivity_systems).
        pl.lit("Tokens/s").alias("result_unit"),
    )
    return fill(_interactivity_template(), {"title": title}), frame


#: Colours of the cost chart's two series.
_COST_COLOURS = ("#3f51b5", "#9e9e9e")


@functools.cache
def _cost_template() -> tuple[Spec, Spec, Spec]:
    log = alt.Scale(type="log")
    domain = ["measured", slot("reference")]
    lines = (
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=alt.X(
                "rows:Q",
                scale=log,
                title=axis_title("rows analysed", log),
                axis=alt.Axis(format="~s", tickCount=5),
            ),
            y=alt.Y(
                "seconds:Q",
                scale=log,
                title=axis_title("analytics assets, median (s)", log),
                axis=alt.Axis(format="~g", tickCount=5),
            ),
            color=alt.Color(
                "series:N",
                scale=alt.Scale(domain=domain, range=list(_COST_COLOURS)),
                legend=alt.Legend(orient="bottom", title=None),
            ),
            # The same legend as the colour's, so Vega draws one legend of both.
            strokeDash=alt.StrokeDash(
                "series:N",
                scale=alt.Scale(domain=domain, range=[[1, 0], [5, 4]]),
                legend=alt.Legend(orient="bottom", title=None),
            ),
            tooltip=tooltips(
                [
                    ("label:N", "scale", None),
                    ("series:N", None, None),
                    ("rows:Q", None, ",.0f"),
                    ("seconds:Q", "seconds", ",.3f"),
                    ("ratio:Q", "× floor", ",.1f"),
                    ("rss_mb:Q", "peak RSS (MB)", ",.0f"),
                    ("pairs:Q", "pairs found", ",.0f"),
                ]
            ),
        )
    )
    labels = (
        alt.Chart()
        .mark_text(align="left", dx=6, dy=-8)
        .encode(x="rows:Q", y="seconds:Q", text="label:N")
        .transform_filter("datum.series == 'measured'")
    )
    target = dict(color="#e4002b")
    rule = (
        alt.Chart()
        .mark_rule(strokeDash=[2, 3], **target)
        .encode(y=alt.YDatum(slot("target")))
    )
    text = (
        alt.Chart()
        .mark_text(align="left", baseline="bottom", x=4, dy=-2, **target)
        .encode(y=alt.YDatum(slot("target")), text=alt.TextDatum(slot("target_text")))
    )
    spec = (
        alt.layer(lines, labels, rule, text, data=alt.NamedData(name=DATA_NAME))
        .properties(width="container", height=300)
        .to_dict(validate=False)
    )
    spec["title"] = slot("title")
    # The target's two layers are filled apart and left out without a target.
    rule_spec, text_spec = spec["layer"][2], spec["layer"][3]
    spec["layer"][2:] = [slot("rule"), slot("rule_text")]
    return spec, rule_spec, text_spec


def cost_chart(
    points: Sequence[Mapping[str, Any]], *, title: str, target_s: float | None = None
) -> tuple[Spec, pl.DataFrame]:
    """Analytics time against rows on log-log axes, with a linear reference.

    On log-log axes linear growth is a slope of one; the dashed line is linear growth
    from the smallest scale, so points under it grow slower than the rows (fixed costs
    amortised) and points above it faster. The dotted rule is the x100 target, when
    the results give one.
    """
    first = points[0]
    reference = f"linear from {first['scale']}"
    rows = [{**p, "series": "measured", "label": p["scale"]} for p in points] + [
        {
            "rows": p["rows"],
            "seconds": first["seconds"] * p["rows"] / first["rows"],
            "series": reference,
            "label": p["scale"],
        }
        for p in points
    ]
    template, rule, text = _cost_template()
    has_target = target_s is not None and target_s > 0
    values = {
        "reference": reference,
        "title": title,
        "target": target_s,
        "target_text": f"x100 target: {target_s:g} s" if has_target else "",
    }
    spec = fill(
        template,
        {
            **values,
            "rule": fill(rule, values) if has_target else OMIT,
            "rule_text": fill(text, values) if has_target else OMIT,
        },
    )
    frame = pl.DataFrame(
        rows,
        schema={
            "scale": pl.String,
            "rows": pl.Float64,
            "seconds": pl.Float64,
            "ratio": pl.Float64,
            "rss_mb": pl.Float64,
            "pairs": pl.Float64,
            "series": pl.String,
            "label": pl.String,
        },
        strict=False,
    )
    return spec, frame
