"""Altair 6 charts written as Vega-Lite JSON files, one file per chart.

Pages embed the files with vega-embed (``site/assets/js/charts.js``), so a chart is an
artefact that can be diffed, downloaded and opened in any Vega-Lite tool. Design rules
that hold for every chart:

* one fixed colour per accelerator vendor (``VENDOR_COLOURS``), on every page;
* log scales when values span more than ``LOG_SPAN`` (chip counts, tokens/s);
* ``width="container"`` so a chart fits a phone screen;
* tooltips that cite the upstream result keys a mark is computed from;
* data above ``INLINE_LIMIT`` bytes goes to a separate JSON file next to the spec, so
  no page with many charts grows heavy.

Headline charts also get a static SVG (via ``vl_convert``) for readers without
JavaScript and for previews.
"""

from __future__ import annotations

import colorsys
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import altair as alt
import polars as pl
import vl_convert

from pipeline.render.escape import safe_url
from pipeline.render.site_data import CPU_ONLY_VENDOR, OTHER_VENDOR

#: Vendor -> colour, fixed so a vendor looks the same on every chart and page.
VENDOR_COLOURS: dict[str, str] = {
    "NVIDIA": "#76b900",
    "AMD": "#e4002b",
    "Intel": "#0071c5",
    "Google": "#fbbc04",
    "Qualcomm": "#3253dc",
    "UntetherAI": "#8e44ad",
    CPU_ONLY_VENDOR: "#7f7f7f",
    OTHER_VENDOR: "#8c564b",
}
#: Colours for vendors not listed above, picked by a stable hash of the name.
FALLBACK_COLOURS = ("#17becf", "#e377c2", "#bcbd22", "#ff7f0e", "#1f77b4", "#9467bd")
#: Ratio max/min above which an axis switches to a log scale.
LOG_SPAN = 20.0
#: JSON bytes of chart data kept inside the spec; larger data gets its own file.
INLINE_LIMIT = 20_000
#: Width of static SVG fallbacks (the browser uses the container width instead).
SVG_WIDTH = 720
DATA_NAME = "table"
#: Pairs per chart that get a labelled row each; more are grouped (pair_ratio_chart).
MAX_LABELLED_ROWS = 40


@dataclass(frozen=True)
class ChartFile:
    """Files written for one chart, relative paths included for page links."""

    name: str
    spec: Path
    data: Path | None
    svg: Path | None


def _vendor_key(vendor: str) -> str:
    """Normalise a vendor name: "Untether AI" and "UntetherAI" are one vendor."""
    return "".join(vendor.lower().split())


def vendor_colour(vendor: str) -> str:
    """The colour of a vendor: fixed for known vendors, stable hash for the rest."""
    known = {_vendor_key(k): v for k, v in VENDOR_COLOURS.items()}
    if _vendor_key(vendor) in known:
        return known[_vendor_key(vendor)]
    digest = hashlib.sha256(vendor.encode()).digest()
    return FALLBACK_COLOURS[digest[0] % len(FALLBACK_COLOURS)]


def vendor_scale(vendors: pl.Series) -> alt.Scale:
    """A colour scale over the vendors present, in the fixed vendor order."""
    present = [v for v in vendors.unique().drop_nulls().to_list()]
    order = {_vendor_key(v): i for i, v in enumerate(VENDOR_COLOURS)}
    domain = sorted(present, key=lambda v: (order.get(_vendor_key(v), len(order)), v))
    return alt.Scale(domain=domain, range=[vendor_colour(v) for v in domain])


def needs_log(values: pl.Series, span: float = LOG_SPAN) -> bool:
    """Whether positive values span enough orders of magnitude for a log axis."""
    positive = values.drop_nulls().filter(values.drop_nulls() > 0)
    if positive.len() < 2:
        return False
    return float(positive.max()) / float(positive.min()) >= span


def _scale(values: pl.Series, *, base: int = 10) -> alt.Scale:
    if needs_log(values):
        return alt.Scale(type="log", base=base)
    return alt.Scale(zero=False, nice=True)


def _chart_url(column: str) -> pl.Expr:
    """Result URL for a chart's ``href``: checked like page links, no HTML entities."""
    return safe_url(pl.col(column), html=False)


def _end_tooltips(suffix: str, label: str) -> list[alt.Tooltip]:
    return [
        alt.Tooltip(f"result_key{suffix}:N", title=f"{label} result key"),
        alt.Tooltip(f"release{suffix}:N", title=f"{label} release"),
        alt.Tooltip(f"system{suffix}:N", title=f"{label} submitter · system"),
        alt.Tooltip(f"chips{suffix}:N", title=f"{label} accelerators"),
        alt.Tooltip(f"result_value{suffix}:Q", title=f"{label} result", format=",.6~g"),
    ]


def _pair_frame(pairs: pl.DataFrame, label: pl.Expr) -> pl.DataFrame:
    """The columns pair charts need, with a unique y label per pair."""
    ends = []
    for suffix in ("_old", "_new"):
        ends += [
            pl.col(f"result_key{suffix}"),
            pl.col(f"release{suffix}"),
            pl.format(
                "{} · {}", pl.col(f"submitter{suffix}"), pl.col(f"system_name{suffix}")
            ).alias(f"system{suffix}"),
            pl.format(
                "{} × {}",
                pl.col(f"total_accelerators{suffix}"),
                pl.col(f"accelerator_name{suffix}").fill_null("CPU"),
            ).alias(f"chips{suffix}"),
            pl.col(f"total_accelerators{suffix}"),
            pl.col(f"result_value{suffix}").round_sig_figs(6),
        ]
    # Rounded to what the tooltips show: chart data is the bulk of a pair page's bytes.
    frame = pairs.select(
        label.alias("label"),
        "benchmark",
        "scenario",
        "identity_level",
        "result_unit",
        pl.col("ratio").round(4),
        pl.col("efficiency").round(4),
        pl.col("vendor"),
        _chart_url("result_url_new").alias("url"),
        *ends,
    )
    # Two pairs can share a label (same system, two scenarios); number the repeats.
    repeat = pl.col("label").cum_count().over("label")
    return frame.with_columns(
        label=pl.when(repeat > 1)
        .then(pl.format("{} #{}", pl.col("label"), repeat))
        .otherwise(pl.col("label"))
    )


def pair_ratio_chart(
    pairs: pl.DataFrame, *, title: str, label: pl.Expr, ends: tuple[str, str]
) -> tuple[alt.LayerChart, pl.DataFrame]:
    """Dot plot of pair ratios with a dashed rule at 1×.

    Up to ``MAX_LABELLED_ROWS`` pairs get one labelled row each; beyond that the rows
    would make the chart taller than a screen, so pairs are grouped by scenario and
    identity level and told apart by their tooltips (the table lists every pair).

    Args:
        pairs: Rows in the pair schema plus a ``vendor`` column.
        title: Chart title.
        label: Expression naming a pair on the y axis.
        ends: Words for the two ends in tooltips, e.g. ("older", "newer").

    Returns:
        The chart (on named data) and the data frame to attach to it.
    """
    frame = _pair_frame(pairs, label).with_columns(
        group=pl.format("{} · {}", pl.col("scenario"), pl.col("identity_level"))
    )
    y_field = "label:N" if frame.height <= MAX_LABELLED_ROWS else "group:N"
    tooltip = [
        alt.Tooltip("label:N", title="pair"),
        alt.Tooltip("ratio:Q", title="ratio (derived)", format=".2f"),
        alt.Tooltip("identity_level:N", title="identity level"),
        alt.Tooltip("scenario:N"),
        *_end_tooltips("_old", ends[0]),
        *_end_tooltips("_new", ends[1]),
    ]
    points = (
        alt.Chart()
        .mark_point(filled=True, size=80, opacity=0.9)
        .encode(
            x=alt.X("ratio:Q", scale=_scale(frame["ratio"]), title="ratio (× better)"),
            y=alt.Y(y_field, sort="-x", title=None, axis=alt.Axis(labelLimit=220)),
            color=alt.Color(
                "vendor:N",
                scale=vendor_scale(frame["vendor"]),
                legend=alt.Legend(orient="bottom", title="vendor"),
            ),
            shape=alt.Shape(
                "identity_level:N", legend=alt.Legend(orient="bottom", title="level")
            ),
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
    )
    parity = (
        alt.Chart().mark_rule(strokeDash=[4, 4], color="#666").encode(x=alt.XDatum(1))
    )
    chart = alt.layer(parity, points, data=alt.NamedData(name=DATA_NAME)).properties(
        width="container", height=alt.Step(18), title=title
    )
    return chart, frame


def ratio_strip_chart(
    pairs: pl.DataFrame, *, title: str, ends: tuple[str, str]
) -> tuple[alt.LayerChart, pl.DataFrame]:
    """Ratios grouped by benchmark: the headline view of many pairs at once."""
    frame = _pair_frame(
        pairs,
        pl.format("{} · {}", pl.col("submitter_new"), pl.col("system_name_new")),
    )
    tooltip = [
        alt.Tooltip("benchmark:N"),
        alt.Tooltip("scenario:N"),
        alt.Tooltip("ratio:Q", title="ratio (derived)", format=".2f"),
        *_end_tooltips("_old", ends[0]),
        *_end_tooltips("_new", ends[1]),
    ]
    points = (
        alt.Chart()
        .mark_point(filled=True, size=70, opacity=0.75)
        .encode(
            x=alt.X("ratio:Q", scale=_scale(frame["ratio"]), title="ratio (× better)"),
            y=alt.Y("benchmark:N", title=None, axis=alt.Axis(labelLimit=200)),
            color=alt.Color(
                "vendor:N",
                scale=vendor_scale(frame["vendor"]),
                legend=alt.Legend(orient="bottom", title="vendor"),
            ),
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
    )
    parity = (
        alt.Chart().mark_rule(strokeDash=[4, 4], color="#666").encode(x=alt.XDatum(1))
    )
    chart = alt.layer(parity, points, data=alt.NamedData(name=DATA_NAME)).properties(
        width="container", height=alt.Step(22), title=title
    )
    return chart, frame


def scaling_chart(
    pairs: pl.DataFrame, *, title: str
) -> tuple[alt.LayerChart, pl.DataFrame]:
    """Segments from the smaller to the larger system on log-log axes.

    On log-log axes perfect linear scaling is a slope of one, so flatter segments show
    efficiency losses at a glance; the tooltip gives the efficiency number.
    """
    frame = _pair_frame(
        pairs,
        pl.format("{} · {}", pl.col("submitter_new"), pl.col("system_name_new")),
    )
    counts = pl.concat(
        [frame["total_accelerators_old"], frame["total_accelerators_new"]]
    )
    values = pl.concat([frame["result_value_old"], frame["result_value_new"]])
    x_scale = alt.Scale(type="log", base=2) if needs_log(counts, 4) else alt.Scale()
    y_scale = _scale(values)
    unit = frame["result_unit"].drop_nulls().first() or "result"
    tooltip = [
        alt.Tooltip("label:N", title="pair"),
        alt.Tooltip("efficiency:Q", title="scaling efficiency (derived)", format=".0%"),
        alt.Tooltip("ratio:Q", title="throughput ratio (derived)", format=".2f"),
        *_end_tooltips("_old", "smaller"),
        *_end_tooltips("_new", "larger"),
    ]
    colour = alt.Color(
        "vendor:N",
        scale=vendor_scale(frame["vendor"]),
        legend=alt.Legend(orient="bottom", title="vendor"),
    )
    segment = (
        alt.Chart()
        .mark_rule(strokeWidth=2)
        .encode(
            x=alt.X("total_accelerators_old:Q", scale=x_scale, title="accelerators"),
            x2=alt.X2("total_accelerators_new:Q"),
            y=alt.Y("result_value_old:Q", scale=y_scale, title=unit),
            y2=alt.Y2("result_value_new:Q"),
            color=colour,
            tooltip=tooltip,
        )
    )
    ends = [
        alt.Chart()
        .mark_point(filled=True, size=60)
        .encode(
            x=alt.X(f"total_accelerators{s}:Q", scale=x_scale),
            y=alt.Y(f"result_value{s}:Q", scale=y_scale),
            color=colour,
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
        for s in ("_old", "_new")
    ]
    chart = alt.layer(segment, *ends, data=alt.NamedData(name=DATA_NAME)).properties(
        width="container", height=280, title=title
    )
    return chart, frame


def efficiency_chart(
    pairs: pl.DataFrame, *, title: str
) -> tuple[alt.Chart, pl.DataFrame]:
    """Scaling efficiency against the growth in chip count (headline view)."""
    frame = _pair_frame(
        pairs,
        pl.format("{} · {}", pl.col("submitter_new"), pl.col("system_name_new")),
    ).with_columns(
        growth=pl.col("total_accelerators_new") / pl.col("total_accelerators_old")
    )
    chart = (
        alt.Chart(alt.NamedData(name=DATA_NAME))
        .mark_point(filled=True, size=70, opacity=0.8)
        .encode(
            x=alt.X(
                "growth:Q",
                scale=alt.Scale(type="log", base=2),
                title="accelerator count growth (×)",
            ),
            y=alt.Y("efficiency:Q", axis=alt.Axis(format="%"), title="efficiency"),
            color=alt.Color(
                "vendor:N",
                scale=vendor_scale(frame["vendor"]),
                legend=alt.Legend(orient="bottom", title="vendor"),
            ),
            tooltip=[
                alt.Tooltip("benchmark:N"),
                alt.Tooltip("label:N", title="pair"),
                alt.Tooltip("efficiency:Q", title="efficiency (derived)", format=".0%"),
                *_end_tooltips("_old", "smaller"),
                *_end_tooltips("_new", "larger"),
            ],
            href=alt.Href("url:N"),
        )
        .properties(width="container", height=260, title=title)
    )
    return chart, frame


def shades(colour: str, count: int) -> list[str]:
    """``count`` colours of one hue, dark to light: one vendor's chips stay related."""
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    hue, lightness, saturation = colorsys.rgb_to_hls(red, green, blue)
    if count == 1:
        return [colour]
    low, high = max(0.22, lightness - 0.2), min(0.72, lightness + 0.2)
    out = []
    for i in range(count):
        level = low + (high - low) * i / (count - 1)
        r, g, b = colorsys.hls_to_rgb(hue, level, saturation)
        out.append(f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}")
    return out


def accelerator_scale(frame: pl.DataFrame) -> alt.Scale:
    """One colour per accelerator: its vendor's hue, in a shade of its own."""
    pairs = frame.select("vendor", "accelerator").unique().sort("accelerator")
    order = {_vendor_key(v): i for i, v in enumerate(VENDOR_COLOURS)}
    domain: list[str] = []
    colours: list[str] = []
    vendors = sorted(
        pairs["vendor"].unique().to_list(),
        key=lambda v: (order.get(_vendor_key(v), len(order)), v),
    )
    for vendor in vendors:
        names = pairs.filter(pl.col("vendor") == vendor)["accelerator"].to_list()
        domain += names
        colours += shades(vendor_colour(vendor), len(names))
    return alt.Scale(domain=domain, range=colours)


def best_per_accelerator_chart(
    best: pl.DataFrame, *, title: str, metric_title: str, releases: list[str]
) -> tuple[alt.Chart, pl.DataFrame]:
    """Best result of each accelerator type, one line per accelerator across releases.

    Lines are coloured in their vendor's hue, one shade per accelerator, so the vendor
    reads at a glance and the legend still tells the chips apart.

    Args:
        best: One row per (accelerator, release) with ``metric`` and citation columns.
        title: Chart title.
        metric_title: Axis title naming the metric and its unit.
        releases: Release order for the x axis.

    Returns:
        The chart (on named data) and its data frame.
    """
    frame = best.select(
        "release",
        pl.col("accelerator_label").alias("accelerator"),
        pl.col("accelerator_vendor").fill_null(OTHER_VENDOR).alias("vendor"),
        "metric",
        "result_value",
        "total_accelerators",
        "submitter",
        "system_name",
        "result_key",
        "is_preview",
        "is_inferred",
        _chart_url("result_url").alias("url"),
    )
    chart = (
        alt.Chart(alt.NamedData(name=DATA_NAME))
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=60), opacity=0.85)
        .encode(
            x=alt.X(
                "release:O", sort=releases, title="release", axis=alt.Axis(labelAngle=0)
            ),
            y=alt.Y("metric:Q", scale=_scale(frame["metric"]), title=metric_title),
            color=alt.Color(
                "accelerator:N",
                scale=accelerator_scale(frame),
                legend=alt.Legend(
                    orient="bottom", title="accelerator", columns=2, labelLimit=240
                ),
            ),
            tooltip=[
                alt.Tooltip("accelerator:N"),
                alt.Tooltip("vendor:N"),
                alt.Tooltip("release:N"),
                alt.Tooltip("metric:Q", title=metric_title, format=",.6~g"),
                alt.Tooltip("result_value:Q", title="system result", format=",.6~g"),
                alt.Tooltip("total_accelerators:Q", title="accelerators"),
                alt.Tooltip("submitter:N"),
                alt.Tooltip("system_name:N", title="system"),
                alt.Tooltip("result_key:N", title="result key"),
                alt.Tooltip("is_preview:N", title="preview"),
                alt.Tooltip("is_inferred:N", title="inferred"),
            ],
            href=alt.Href("url:N"),
        )
        .properties(width="container", height=300, title=title)
    )
    return chart, frame


def write_chart(
    chart: alt.TopLevelMixin,
    data: pl.DataFrame,
    charts_dir: Path,
    name: str,
    *,
    svg: bool = False,
) -> ChartFile:
    """Write a chart's Vega-Lite spec (and data file, and SVG) under ``charts_dir``.

    Args:
        chart: A chart on ``alt.NamedData(DATA_NAME)``; its data is attached here.
        data: The rows to plot.
        charts_dir: Folder of chart specs; data files go to ``charts_dir/data``.
        name: File stem, unique per site build.
        svg: Also render a static SVG fallback.

    Returns:
        The paths written.
    """
    # Schema validation costs ~0.1 s per chart; the unit tests validate every chart
    # kind once, so builds skip it.
    spec = chart.to_dict(validate=False)
    rows_json = data.write_json()
    data_path = None
    if len(rows_json.encode()) <= INLINE_LIMIT:
        spec["data"] = {"values": json.loads(rows_json)}
    else:
        data_path = charts_dir / "data" / f"{name}.json"
        data_path.parent.mkdir(parents=True, exist_ok=True)
        data_path.write_text(rows_json)
        # Resolved against the spec's folder: charts.js gives vega that base URL.
        spec["data"] = {"url": f"data/{name}.json", "format": {"type": "json"}}
    spec_path = charts_dir / f"{name}.json"
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(json.dumps(spec, separators=(",", ":"), ensure_ascii=False))
    svg_path = None
    if svg:
        static = {**spec, "data": {"values": json.loads(rows_json)}, "width": SVG_WIDTH}
        svg_path = charts_dir / f"{name}.svg"
        svg_path.write_text(vl_convert.vegalite_to_svg(static))
    return ChartFile(name=name, spec=spec_path, data=data_path, svg=svg_path)
