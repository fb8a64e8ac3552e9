"""Chart files: a spec template with named slots, filled per chart, written as JSON.

Each chart kind's spec is authored once, with Altair, as a template with named slots
(``slot``, ``fill``); a chart fills in its data-dependent parts. Building and
validating an Altair chart per chart cost most of a render's time (deep copies and
JSON-schema checks of every channel); the unit tests validate every kind's filled spec
against the Vega-Lite schema instead.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import altair as alt
import polars as pl

from pipeline.files import write_file
from pipeline.render.bundle import cached_svg
from pipeline.settings import cache_dir

#: JSON bytes of chart data kept inside the spec; larger data gets its own file.
INLINE_LIMIT = 20_000
#: Width of static SVG fallbacks (the browser uses the container width instead).
SVG_WIDTH = 720
#: Width (px) of a chart's phone picture: a 390 px screen's content column.
SVG_NARROW_WIDTH = 358
DATA_NAME = "table"


@dataclass(frozen=True)
class ChartFile:
    """Files written for one chart, relative paths included for page links."""

    name: str
    spec: Path
    data: Path | None
    svg: Path | None
    #: The phone's picture (``SVG_NARROW_WIDTH``), beside ``svg``.
    svg_narrow: Path | None = None


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


#: Characters of a chart title line (subtitle line: ``SUBTITLE_CHARS``): a title
#: wider than a 390 px phone's chart was cut at the edge; lines are broken at spaces.
TITLE_CHARS = 44
SUBTITLE_CHARS = 52
#: What every chart shares for readers of any device and of screen readers: rules
#: (reference lines) are decoration, with no ARIA role of their own (axe-core's
#: svg-img-alt: a role with no name); tick labels keep a gap, or two abutting ones
#: read as one number ("2.22.4" on a phone); titles start at the left edge.
#: No label is cut by Vega (its defaults cut axis labels at 180 px and legend labels
#: at 160 px, "NVIDIA GB300 → NVIDIA Vera …" on a phone): a label the chart must
#: keep short is shortened by us, whole in its tooltip and in the table beside it.
#: A legend label limit no label reaches (Vega reads a legend's 0 as its default).
NO_LABEL_LIMIT = 10_000
ACCESSIBLE_CONFIG: dict[str, Any] = {
    "rule": {"aria": False},
    "axis": {"labelSeparation": 6, "labelOverlap": True, "labelLimit": 0},
    "legend": {"labelLimit": NO_LABEL_LIMIT},
    # From the chart's left edge: centred over the plot, a line could start or end
    # outside a narrow chart.
    "title": {"anchor": "start", "frame": "bounds"},
}


def wrap(text: str, chars: int) -> list[str]:
    """``text`` in lines of at most ``chars`` characters, broken at spaces."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= chars:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def accessible(spec: Spec) -> Spec:
    """``spec`` with wrapped title lines, a description and ``ACCESSIBLE_CONFIG``.

    The description (Vega's ``aria-label`` of the chart's SVG) is its title and
    subtitle: what the chart shows, in words.
    """
    out = dict(spec)
    title = out.get("title")
    if isinstance(title, str):
        title = {"text": title}
    if isinstance(title, Mapping) and isinstance(title.get("text"), str):
        text, subtitle = title["text"], title.get("subtitle")
        title = {**title, "text": wrap(text, TITLE_CHARS)}
        if isinstance(subtitle, str):
            title["subtitle"] = wrap(subtitle, SUBTITLE_CHARS)
        out["title"] = title
        words = text + (f" ({subtitle})" if isinstance(subtitle, str) else "")
        out.setdefault("description", f"Chart: {words}.")
    config = dict(out.get("config", {}))
    for key, value in ACCESSIBLE_CONFIG.items():
        config[key] = {**value, **config.get(key, {})}
    out["config"] = config
    return out


_SVG_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"')


def svg_size(path: Path) -> tuple[int, int]:
    """The pixel width and height vl-convert wrote on an SVG's root element.

    A page gives them to its ``<img>``, so the image holds its place before it loads
    (no layout shift).
    """
    head = path.read_text(encoding="utf-8")[:2000]
    found = _SVG_SIZE.search(head)
    if found is None:
        raise ValueError(f"{path}: no width and height on the SVG's root element")
    return round(float(found[1])), round(float(found[2]))


def write_chart(
    chart: alt.TopLevelMixin | Spec,
    data: pl.DataFrame,
    charts_dir: Path,
    name: str,
    *,
    svg: bool = True,
) -> ChartFile:
    """Write a chart's Vega-Lite spec (and data file, and SVG) under ``charts_dir``.

    Args:
        chart: A chart (Altair, or a filled template spec) on
            ``alt.NamedData(DATA_NAME)``; its data is attached here.
        data: The rows to plot.
        charts_dir: Folder of chart specs; data files go to ``charts_dir/data``.
        name: File stem, unique per site build.
        svg: Also render the static SVG a page shows first (tests that build
            charts vl-convert cannot draw turn it off).

    Returns:
        The paths written.
    """
    # Schema validation is slow per chart; the unit tests validate every chart kind
    # once, so builds skip it.
    spec = accessible(
        dict(chart) if isinstance(chart, Mapping) else chart.to_dict(validate=False)
    )
    rows_json = data.write_json()
    data_path = None
    if len(rows_json.encode()) <= INLINE_LIMIT:
        spec["data"] = {"values": json.loads(rows_json)}
    else:
        data_path = write_file(
            charts_dir / "data" / f"{name}.json", html_safe_json(rows_json)
        )
        # Resolved against the spec's folder: charts.js gives vega that base URL.
        spec["data"] = {"url": f"data/{name}.json", "format": {"type": "json"}}
    spec_path = write_file(
        charts_dir / f"{name}.json",
        html_safe_json(json.dumps(spec, separators=(",", ":"), ensure_ascii=False)),
    )
    svg_path = narrow_path = None
    if svg:
        values = {"values": json.loads(rows_json)}
        static = {**spec, "data": values, "width": SVG_WIDTH}
        # Slow to render; the machine cache keeps them by spec and versions.
        svg_path = write_file(
            charts_dir / f"{name}.svg", cached_svg(static, cache_dir())
        )
        # A phone's picture, drawn at its width: the desktop one scaled down to a
        # phone was unreadable (6 px text).
        narrow = fit_to_width({**spec, "data": values}, SVG_NARROW_WIDTH)
        narrow_path = write_file(
            charts_dir / f"{name}.narrow.svg", cached_svg(narrow, cache_dir())
        )
    return ChartFile(
        name=name, spec=spec_path, data=data_path, svg=svg_path, svg_narrow=narrow_path
    )


def fit_to_width(spec: dict, width: int) -> dict:
    """``spec`` drawn ``width`` px wide, long names fitted as ``charts.js`` fits them.

    Names on a y axis get at most 45% of the width and legend labels what is left
    beside the plot's start; Vega ends a shortened label with "…" (the table under
    the chart and the data links hold every name whole). The same rule as
    ``fitToWidth`` in ``site/assets/js/charts.js``, for the phone's picture.
    """
    out = copy.deepcopy(spec)
    out["width"] = width
    # The whole picture that wide, axis names and legend included (Vega's default
    # made the plot alone that wide: a 440 px picture for a 358 px column).
    out.setdefault("autosize", {"type": "fit-x", "contains": "padding"})
    names = round(width * 0.45)
    named_y = False

    def walk(node: Any, channel: str | None, visit: Callable[..., bool]) -> None:
        if isinstance(node, list):
            for child in node:
                walk(child, channel, visit)
            return
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if key in ("data", "datasets", "values"):
                continue
            if isinstance(value, dict) and visit(key, value, channel):
                continue
            walk(value, key if key in ("x", "y") else channel, visit)

    def axis(key: str, value: dict, channel: str | None) -> bool:
        nonlocal named_y
        if key != "axis" or channel != "y" or "labelLimit" not in value:
            return False
        if not value["labelLimit"] or value["labelLimit"] > names:
            value["labelLimit"] = names
        named_y = True
        return True

    walk(out, None, axis)
    most = (width - names if named_y else width - 60) - 40

    def legend(key: str, value: dict, channel: str | None) -> bool:
        if key != "legend":
            return False
        if not value.get("labelLimit") or value["labelLimit"] > most:
            value["labelLimit"] = most
        return True

    walk(out, None, legend)
    return out
