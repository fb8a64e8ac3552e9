"""Altair 6 charts written as Vega-Lite JSON files, one file per chart.

Pages embed the files with vega-embed (``site/assets/js/charts.js``), so a chart is an
artefact that can be diffed, downloaded and opened in any Vega-Lite tool. Design rules
that hold for every chart:

* colour tells apart what the chart compares (``compare_scale``: accelerators, chip
  pairs, system families); accelerator lines keep their vendor's hue
  (``VENDOR_COLOURS``, ``accelerator_scale``);
* one unit per axis: measured values are split by scenario and unit
  (``split_by_unit``); ratios and efficiencies are unitless;
* reference lines: a dashed rule at 1× on ratio axes, linear scaling on scaling
  charts; ratios always on a log axis, measured values when they span more than
  ``LOG_SPAN``, and an axis title says "log scale" exactly when it is one;
* ``width="container"`` so a chart fits a phone screen, with a numeric height (a step
  height makes Vega drop its fit and warn);
* y labels of at most ``LABEL_CHARS`` characters, never cut by Vega, the full name in
  the tooltip;
* tooltips that cite the upstream result keys a mark is computed from, with units and
  plausibility flags (flagged pairs are drawn faint);
* data above ``INLINE_LIMIT`` bytes goes to a separate JSON file next to the spec, so
  no page with many charts grows heavy.

Each chart kind's spec is authored once, with Altair, as a template with named slots
(``slot``, ``fill``); a chart fills in its data-dependent parts (title, scales,
height, tooltip words). Building and validating an Altair chart per chart cost most of
a render's time (deep copies and JSON-schema checks of every channel); the unit tests
validate every kind's filled spec against the Vega-Lite schema instead.

Headline charts also get a static SVG (via ``vl_convert``) for readers without
JavaScript and for previews.
"""

from __future__ import annotations

import colorsys
import functools
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import altair as alt
import polars as pl

from pipeline.render.bundle import cached_svg
from pipeline.render.escape import safe_url
from pipeline.render.site_data import CPU_ONLY_VENDOR, OTHER_VENDOR
from pipeline.render.tables import number
from pipeline.settings import cache_dir
from pipeline.transform.results import SCENARIOS

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
#: Characters of a y-axis label; a longer name is shortened with "…" (its tooltip has
#: it whole), so Vega never cuts a label and two rows never read alike.
LABEL_CHARS = 44
#: Height of one labelled row (px).
ROW_HEIGHT = 22
#: Colour of reference lines (1×, linear scaling).
REFERENCE_COLOUR = "#555"
#: A pair's plausibility status in charts (``flags`` empty or not).
UNFLAGGED, FLAGGED = "unflagged", "flagged"


@dataclass(frozen=True)
class ChartFile:
    """Files written for one chart, relative paths included for page links."""

    name: str
    spec: Path
    data: Path | None
    svg: Path | None


#: A Vega-Lite spec as JSON data (what ``alt.Chart.to_dict`` returns).
Spec = dict[str, Any]
_SLOT = re.compile(r"\{\{(\w+)\}\}")
#: A slot value that removes its key (or list item) from the filled spec.
OMIT: Any = object()


def slot(name: str) -> str:
    """The placeholder of a template slot: ``{{name}}``."""
    return "{{" + name + "}}"


def fill(template: Spec, values: Mapping[str, Any]) -> Spec:
    """A fresh copy of a chart template with every slot filled in.

    A string that is exactly one slot takes the value as is (a number, a scale dict,
    ``OMIT`` to drop it); a slot inside a longer string is replaced by the value's
    text. Values are inserted, never scanned for slots themselves, so upstream text
    cannot fill another slot.

    Raises:
        KeyError: a slot of the template has no value (a programming error).
    """

    def value(name: str) -> Any:
        if name not in values:
            raise KeyError(f"chart template slot {name!r} has no value")
        return values[name]

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, child in node.items():
                filled = walk(child)
                if filled is not OMIT:
                    out[key] = filled
            return out
        if isinstance(node, list):
            return [v for v in map(walk, node) if v is not OMIT]
        if isinstance(node, str) and "{{" in node:
            whole = _SLOT.fullmatch(node)
            if whole:
                return value(whole.group(1))
            return _SLOT.sub(lambda m: str(value(m.group(1))), node)
        return node

    return walk(template)


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


def _scale_spec(values: pl.Series, *, base: int = 10) -> dict[str, Any]:
    """A log scale when the values span orders of magnitude, else a linear one."""
    if needs_log(values):
        return {"type": "log", "base": base}
    return {"zero": False, "nice": True}


def _scale(values: pl.Series, *, base: int = 10) -> alt.Scale:
    return alt.Scale(**_scale_spec(values, base=base))


def is_log(scale: alt.Scale | Mapping[str, Any]) -> bool:
    """Whether a scale (Altair or spec dict) is logarithmic (axis titles say so)."""
    spec = scale if isinstance(scale, Mapping) else scale.to_dict()
    return spec.get("type") == "log"


def axis_title(title: str, scale: alt.Scale | Mapping[str, Any]) -> str:
    """An axis title that says "log scale" exactly when the axis is one."""
    return f"{title} (log scale)" if is_log(scale) else title


def ratio_scale() -> alt.Scale:
    """Ratios always sit on a log axis: 0.5× and 2× are equally far from 1×."""
    return alt.Scale(type="log", base=2)


RATIO_TITLE = "ratio, × better (log scale)"


def _compare_scale_spec(values: pl.Series) -> dict[str, Any]:
    domain = sorted({str(v) for v in values.drop_nulls().to_list()})
    scheme = "tableau10" if len(domain) <= 10 else "tableau20"
    return {"domain": domain, "scheme": scheme}


def compare_scale(values: pl.Series) -> alt.Scale:
    """Colours of what a chart compares (accelerators, chip pairs, system families).

    A categorical scheme, not vendor colours: a chart that only holds one vendor's
    chips still tells them apart.
    """
    return alt.Scale(**_compare_scale_spec(values))


def _compare_colour() -> alt.Color:
    """Template colour channel: slots ``compare_scale`` and ``compare_title``."""
    return alt.Color(
        "compare:N",
        scale=slot("compare_scale"),
        legend=alt.Legend(
            orient="bottom",
            title=slot("compare_title"),
            columns=1,
            labelLimit=280,
            symbolLimit=0,
        ),
    )


def _status_opacity() -> dict:
    """Flagged pairs are drawn faint (the subtitle says so, the tooltip says why)."""
    return alt.condition(
        f"datum.status == '{FLAGGED}'", alt.value(0.3), alt.value(0.95)
    )


def _title(title: str, frame: pl.DataFrame, note: str | None = None) -> dict:
    """The chart title, with a subtitle for what the marks' styles mean."""
    notes = [note] if note else []
    if FLAGGED in set(frame["status"].to_list()):
        notes.append("faint: pairs with a plausibility flag")
    spec: dict[str, Any] = {"text": title}
    if notes:
        spec["subtitle"] = "; ".join(notes)
    return spec


def _chart_url(column: str) -> pl.Expr:
    """Result URL for a chart's ``href``: checked like page links, no HTML entities."""
    return safe_url(pl.col(column), html=False)


def reading_label(levels: pl.Expr, kind: pl.Expr) -> pl.Expr:
    """Identity levels as pages name them.

    A scaling pair of one submitter's system family is *scaling*; the best result at
    each size from any submitter is a *size comparison*, never called scaling. Other
    kinds keep the analysis' level names (the downloads always do).
    """
    renamed = levels.str.replace_all(
        "same_submitter", "scaling", literal=True
    ).str.replace_all("best_of_any", "size comparison", literal=True)
    return pl.when(kind == "scaling").then(renamed).otherwise(levels)


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


def _shorten(label: pl.Expr, chars: int = LABEL_CHARS) -> pl.Expr:
    return (
        pl.when(label.str.len_chars() > chars)
        .then(pl.concat_str(label.str.slice(0, chars - 1), pl.lit("…")))
        .otherwise(label)
    )


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
        pl.col("system_name_new"),
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
                "{} · {}", pl.col(f"submitter{suffix}"), pl.col(f"system_name{suffix}")
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
    flagged = pl.col("flags").list.len().fill_null(0) > 0
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
        _chart_url("result_url_new").alias("url"),
        *ends,
    ).with_columns(short=_shorten(pl.col("label")))


def _parity_rule() -> alt.Chart:
    """The dashed reference at 1×: no change."""
    return (
        alt.Chart()
        .mark_rule(strokeDash=[4, 4], color=REFERENCE_COLOUR)
        .encode(x=alt.XDatum(1))
    )


def _rows_height(rows: int) -> int:
    """A fixed height for ``rows`` labelled rows.

    Heights are numbers, not Vega-Lite steps: a step height with
    ``width="container"`` makes Vega drop its "fit" autosize and warn in the console.
    """
    return max(rows, 1) * ROW_HEIGHT


def _layered(*layers: alt.Chart) -> Spec:
    """A layer template on the named data, as JSON, with ``height``/``title`` slots."""
    spec = (
        alt.layer(*layers, data=alt.NamedData(name=DATA_NAME))
        .properties(width="container")
        .to_dict(validate=False)
    )
    spec["height"] = slot("height")
    spec["title"] = slot("title")
    return spec


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
            color=_compare_colour(),
            opacity=_status_opacity(),
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
    )
    spec = _layered(_parity_rule(), points)
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
            "compare_scale": _compare_scale_spec(frame["compare"]),
            "compare_title": compare_title,
            "end_old": ends[0],
            "end_new": ends[1],
            "shape": _READING_SHAPE if frame["reading"].n_unique() > 1 else OMIT,
            "height": _rows_height(frame[y_field].n_unique()),
            "title": _title(title, frame),
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
            color=_compare_colour(),
            opacity=_status_opacity(),
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
    )
    return _layered(_parity_rule(), points)


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
        pl.format("{} · {}", pl.col("submitter_new"), pl.col("system_name_new")),
        compare,
    )
    spec = fill(
        _ratio_strip_template(),
        {
            "compare_scale": _compare_scale_spec(frame["compare"]),
            "compare_title": compare_title,
            "end_old": ends[0],
            "end_new": ends[1],
            "height": _rows_height(frame["benchmark"].n_unique()),
            "title": _title(title, frame),
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
            color=_compare_colour(),
            opacity=_status_opacity(),
            tooltip=tooltip,
        )
    )
    points = [
        alt.Chart()
        .mark_point(filled=True, size=60)
        .encode(
            x=alt.X(f"total_accelerators{s}:Q", scale=x_scale, title=x_title),
            y=alt.Y(f"result_value{s}:Q", scale=y_scale, title=y_title),
            color=_compare_colour(),
            opacity=_status_opacity(),
            tooltip=tooltip,
            href=alt.Href("url:N"),
        )
        for s in ("_old", "_new")
    ]
    return _layered(linear, segment, *points)


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
    x_scale = {"type": "log", "base": 2} if needs_log(counts, 4) else {"zero": False}
    y_scale = _scale_spec(values)
    spec = fill(
        _scaling_template(),
        {
            "x_scale": x_scale,
            "y_scale": y_scale,
            "x_title": axis_title("accelerators", x_scale),
            "y_title": axis_title(unit, y_scale),
            "compare_scale": _compare_scale_spec(frame["compare"]),
            "compare_title": "system family",
            "height": 280,
            "title": _title(
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
                scale=alt.Scale(zero=False, nice=True),
                axis=alt.Axis(format="%"),
                title="scaling efficiency (100% = linear)",
            ),
            color=_compare_colour(),
            opacity=_status_opacity(),
            tooltip=[alt.Tooltip("benchmark:N"), *_scaling_tooltips()],
            href=alt.Href("url:N"),
        )
    )
    linear = (
        alt.Chart()
        .mark_rule(strokeDash=[4, 4], color=REFERENCE_COLOUR)
        .encode(y=alt.YDatum(1))
    )
    return _layered(linear, points)


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
            "compare_scale": _compare_scale_spec(frame["compare"]),
            "compare_title": "system family",
            "height": 260,
            "title": _title(title, frame, "dashed: linear scaling (100%)"),
        },
    )
    return spec, frame


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


def _accelerator_scale_spec(frame: pl.DataFrame) -> dict[str, Any]:
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
    return {"domain": domain, "range": colours}


def accelerator_scale(frame: pl.DataFrame) -> alt.Scale:
    """One colour per accelerator: its vendor's hue, in a shade of its own."""
    return alt.Scale(**_accelerator_scale_spec(frame))


@functools.cache
def _best_per_accelerator_template() -> Spec:
    """One line per accelerator across releases; slots for axes, colours, titles."""
    spec = (
        alt.Chart(alt.NamedData(name=DATA_NAME))
        .mark_line(point=alt.OverlayMarkDef(filled=True, size=60), opacity=0.85)
        .encode(
            x=alt.X(
                "release:O",
                sort=slot("releases"),
                title="release",
                axis=alt.Axis(labelAngle=0),
            ),
            y=alt.Y("metric:Q", scale=slot("y_scale"), title=slot("y_title")),
            color=alt.Color(
                "accelerator:N",
                scale=slot("colour_scale"),
                legend=alt.Legend(
                    orient="bottom",
                    title="accelerator",
                    columns=2,
                    labelLimit=240,
                    symbolLimit=0,
                ),
            ),
            tooltip=[
                alt.Tooltip("accelerator:N"),
                alt.Tooltip("vendor:N"),
                alt.Tooltip("release:N"),
                alt.Tooltip("metric:Q", title=slot("metric_title"), format=",.6~g"),
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
        .properties(width="container", height=300)
        .to_dict(validate=False)
    )
    spec["title"] = slot("title")
    return spec


def best_per_accelerator_chart(
    best: pl.DataFrame, *, title: str, metric_title: str, releases: list[str]
) -> tuple[Spec, pl.DataFrame]:
    """Best result of each accelerator type, one line per accelerator across releases.

    Lines are coloured in their vendor's hue, one shade per accelerator, so the vendor
    reads at a glance and the legend still tells the chips apart.

    Args:
        best: One row per (accelerator, release) with ``metric`` and citation columns.
        title: Chart title.
        metric_title: Axis title naming the metric and its unit.
        releases: Release order for the x axis.

    Returns:
        The spec (on named data) and its data frame.

    Raises:
        ValueError: ``best`` holds more than one unit.
    """
    frame = best.select(
        "release",
        "result_unit",
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
    _single_unit(frame)
    y_scale = _scale_spec(frame["metric"])
    spec = fill(
        _best_per_accelerator_template(),
        {
            "releases": list(releases),
            "y_scale": y_scale,
            "y_title": axis_title(metric_title, y_scale),
            "colour_scale": _accelerator_scale_spec(frame),
            "metric_title": metric_title,
            "title": title,
        },
    )
    return spec, frame


#: Characters written as JSON escapes in chart files. The JSON stays the same data,
#: but a "</script>" in an upstream name can never close a script element, nor start
#: markup, wherever a spec or its data ends up (inlined in HTML, served as text).
JSON_HTML_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def html_safe_json(text: str) -> str:
    r"""JSON text with ``<``, ``>``, ``&`` and line separators as ``\uXXXX`` escapes.

    Only valid on JSON text: these characters can only occur inside strings there,
    where the escape means the same character.
    """
    for char, escaped in JSON_HTML_ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def write_chart(
    chart: alt.TopLevelMixin | Spec,
    data: pl.DataFrame,
    charts_dir: Path,
    name: str,
    *,
    svg: bool = False,
) -> ChartFile:
    """Write a chart's Vega-Lite spec (and data file, and SVG) under ``charts_dir``.

    Args:
        chart: A chart (Altair, or a filled template spec) on
            ``alt.NamedData(DATA_NAME)``; its data is attached here.
        data: The rows to plot.
        charts_dir: Folder of chart specs; data files go to ``charts_dir/data``.
        name: File stem, unique per site build.
        svg: Also render a static SVG fallback.

    Returns:
        The paths written.
    """
    # Schema validation costs ~0.1 s per chart; the unit tests validate every chart
    # kind once, so builds skip it.
    spec = dict(chart) if isinstance(chart, Mapping) else chart.to_dict(validate=False)
    rows_json = data.write_json()
    data_path = None
    if len(rows_json.encode()) <= INLINE_LIMIT:
        spec["data"] = {"values": json.loads(rows_json)}
    else:
        data_path = charts_dir / "data" / f"{name}.json"
        data_path.parent.mkdir(parents=True, exist_ok=True)
        data_path.write_text(html_safe_json(rows_json), encoding="utf-8")
        # Resolved against the spec's folder: charts.js gives vega that base URL.
        spec["data"] = {"url": f"data/{name}.json", "format": {"type": "json"}}
    spec_path = charts_dir / f"{name}.json"
    spec_path.parent.mkdir(parents=True, exist_ok=True)
    spec_path.write_text(
        html_safe_json(json.dumps(spec, separators=(",", ":"), ensure_ascii=False)),
        encoding="utf-8",
    )
    svg_path = None
    if svg:
        static = {**spec, "data": {"values": json.loads(rows_json)}, "width": SVG_WIDTH}
        svg_path = charts_dir / f"{name}.svg"
        # ~0.7 s each to render; the machine cache keeps them by spec and versions.
        svg_path.write_text(cached_svg(static, cache_dir()))
    return ChartFile(name=name, spec=spec_path, data=data_path, svg=svg_path)
