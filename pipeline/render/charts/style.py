"""What every chart shares: colours, scales, titles, reference rules and layout.

Colour tells apart what a chart compares (``compare_scale_spec``: accelerators, chip
pairs, system families) and the accelerators of a history (``accelerator_scale_spec``),
from one colour-blind-safe palette (``SERIES_COLOURS``): one vendor's chips used to be
shades of its hue, and five NVIDIA lines were five near-identical greens. An axis
title says "log scale" exactly when it is one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import altair as alt
import polars as pl

from pipeline.render import safe
from pipeline.render.charts.spec import DATA_NAME, NO_LABEL_LIMIT, Spec, slot
from pipeline.render.site_data import CPU_ONLY_VENDOR, OTHER_VENDOR

#: The order vendors' accelerators are listed in a history's legend; others follow
#: alphabetically.
VENDOR_ORDER = (
    "NVIDIA", "AMD", "Intel", "Google", "Qualcomm", "UntetherAI", CPU_ONLY_VENDOR,
    OTHER_VENDOR,
)  # fmt: skip
#: Series colours, in order: Okabe and Ito's palette for colour-vision deficiency
#: (https://jfly.uni-koeln.de/color/, "Color Universal Design"), its yellow (1.2:1 on
#: the charts' white) swapped for Paul Tol's wine (https://personal.sron.nl/~pault/).
#: Past eight series colours repeat; lines and points then differ by shape too.
SERIES_COLOURS = (
    "#0072b2", "#d55e00", "#009e73", "#cc79a7",
    "#e69f00", "#56b4e9", "#000000", "#882255",
)  # fmt: skip
#: Ratio max/min above which an axis switches to a log scale.
LOG_SPAN = 20.0
#: Characters of a y-axis label; a longer name is shortened with "…" (its tooltip has
#: it whole), so Vega never cuts a label and two rows never read alike.
LABEL_CHARS = 44
#: Height of one labelled row (px).
ROW_HEIGHT = 22
#: Colour of reference lines (1×, linear scaling).
REFERENCE_COLOUR = "#555"
#: A pair's plausibility status in charts (``flags`` empty or not).
UNFLAGGED, FLAGGED = "unflagged", "flagged"


def vendor_key(vendor: str) -> str:
    """Normalise a vendor name: "Untether AI" and "UntetherAI" are one vendor."""
    return "".join(vendor.lower().split())


def needs_log(values: pl.Series, span: float = LOG_SPAN) -> bool:
    """Whether positive values span enough orders of magnitude for a log axis."""
    positive = values.drop_nulls().filter(values.drop_nulls() > 0)
    if positive.len() < 2:
        return False
    return float(positive.max()) / float(positive.min()) >= span


def value_scale(values: pl.Series, *, base: int = 10) -> dict[str, Any]:
    """A log scale when the values span orders of magnitude, else a linear one."""
    if needs_log(values):
        return {"type": "log", "base": base}
    # A linear axis starts at zero: a bar of the round's best sitting on the axis
    # would read as nothing.
    return {"zero": True, "nice": True}


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


def compare_scale_spec(values: pl.Series) -> dict[str, Any]:
    """Colours of what a chart compares (accelerators, chip pairs, system families).

    A categorical scheme, not vendor colours: a chart that only holds one vendor's
    chips still tells them apart.
    """
    domain = sorted({str(v) for v in values.drop_nulls().to_list()})
    return {"domain": domain, "range": series_colours(len(domain))}


def series_colours(count: int) -> list[str]:
    """``count`` colours from ``SERIES_COLOURS``, repeating past its end."""
    return [SERIES_COLOURS[i % len(SERIES_COLOURS)] for i in range(count)]


def compare_colour() -> alt.Color:
    """Template colour channel: slots ``compare_scale`` and ``compare_title``."""
    return alt.Color(
        "compare:N",
        scale=slot("compare_scale"),
        legend=alt.Legend(
            orient="bottom",
            title=slot("compare_title"),
            columns=1,
            labelLimit=NO_LABEL_LIMIT,
            symbolLimit=0,
        ),
    )


def status_opacity() -> dict:
    """Flagged pairs are drawn faint (the subtitle says so, the tooltip says why)."""
    return alt.condition(
        f"datum.status == '{FLAGGED}'", alt.value(0.3), alt.value(0.95)
    )


def chart_title(title: str, frame: pl.DataFrame, note: str | None = None) -> dict:
    """The chart title, with a subtitle for what the marks' styles mean."""
    notes = [note] if note else []
    if FLAGGED in set(frame["status"].to_list()):
        notes.append("faint: pairs with a plausibility warning")
    spec: dict[str, Any] = {"text": title}
    if notes:
        spec["subtitle"] = "; ".join(notes)
    return spec


def chart_url(column: str) -> pl.Expr:
    """Result URL for a chart's ``href``: checked like page links, no HTML entities."""
    return safe.chart_url(pl.col(column))


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


def shorten(label: pl.Expr, chars: int = LABEL_CHARS) -> pl.Expr:
    """A label of at most ``chars`` characters, its middle cut with "…" (never by Vega).

    The middle, not the end: names of one family differ at their ends ("… NVL72 (4x
    GB300)" and "… NVL72 (72x GB300)"), and a cut end made them read alike.
    """
    head = chars * 2 // 5
    tail = chars - 1 - head
    return (
        pl.when(label.str.len_chars() > chars)
        .then(
            pl.concat_str(label.str.slice(0, head), pl.lit("…"), label.str.slice(-tail))
        )
        .otherwise(label)
    )


def parity_rule() -> alt.Chart:
    """The dashed reference at 1×: no change."""
    return (
        alt.Chart()
        .mark_rule(strokeDash=[4, 4], color=REFERENCE_COLOUR)
        .encode(x=alt.XDatum(1))
    )


def rows_height(rows: int) -> int:
    """A fixed height for ``rows`` labelled rows.

    Heights are numbers, not Vega-Lite steps: a step height with
    ``width="container"`` makes Vega drop its "fit" autosize and warn in the console.
    """
    return max(rows, 1) * ROW_HEIGHT


def layered(*layers: alt.Chart) -> Spec:
    """A layer template on the named data, as JSON, with ``height``/``title`` slots."""
    spec = (
        alt.layer(*layers, data=alt.NamedData(name=DATA_NAME))
        .properties(width="container")
        .to_dict(validate=False)
    )
    spec["height"] = slot("height")
    spec["title"] = slot("title")
    return spec


def accelerator_scale_spec(frame: pl.DataFrame) -> dict[str, Any]:
    """One colour per accelerator, listed vendor by vendor (the legend's order)."""
    pairs = frame.select("vendor", "accelerator").unique().sort("accelerator")
    order = {vendor_key(v): i for i, v in enumerate(VENDOR_ORDER)}
    domain: list[str] = []
    vendors = sorted(
        pairs["vendor"].unique().to_list(),
        key=lambda v: (order.get(vendor_key(v), len(order)), v),
    )
    for vendor in vendors:
        names = pairs.filter(pl.col("vendor") == vendor)["accelerator"].to_list()
        domain += names
    return {"domain": domain, "range": series_colours(len(domain))}
