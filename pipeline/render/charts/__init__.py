"""Altair 6 charts written as Vega-Lite JSON files, one file per chart.

Pages embed the files with vega-embed (``site/assets/js/charts.js``), so a chart is an
artefact that can be diffed, downloaded and opened in any Vega-Lite tool. Design rules
that hold for every chart:

* colour tells apart what the chart compares (``compare_scale_spec``: accelerators,
  chip pairs, system families) and the lines of a history, from one
  colour-blind-safe palette (``SERIES_COLOURS``, ``accelerator_scale_spec``);
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

One template per chart kind, filled per chart (``spec``): pair charts in ``pairs``,
line charts in ``lines``, what they share in ``style``. Pages write charts through
``site.Site.chart``; headline charts also get a static SVG (via ``vl_convert``) for
readers without JavaScript and for previews.
"""

from pipeline.render.charts.lines import (
    LINES,
    LOG10,
    Lines,
    cost_chart,
    interactivity_chart,
    release_lines_chart,
)
from pipeline.render.charts.pairs import (
    MAX_LABELLED_ROWS,
    efficiency_chart,
    pair_ratio_chart,
    ratio_strip_chart,
    scaling_chart,
    scaling_label,
    split_by_unit,
    system_family_label,
    with_pair_rows,
)
from pipeline.render.charts.spec import (
    DATA_NAME,
    INLINE_LIMIT,
    OMIT,
    SVG_WIDTH,
    ChartFile,
    Spec,
    fill,
    html_safe_json,
    slot,
    svg_size,
    write_chart,
)
from pipeline.render.charts.style import (
    LABEL_CHARS,
    ROW_HEIGHT,
    SERIES_COLOURS,
    accelerator_scale_spec,
    axis_title,
    compare_scale_spec,
    is_log,
    needs_log,
    reading_label,
    value_scale,
)

__all__ = [
    "DATA_NAME",
    "INLINE_LIMIT",
    "LABEL_CHARS",
    "LINES",
    "LOG10",
    "MAX_LABELLED_ROWS",
    "OMIT",
    "ROW_HEIGHT",
    "SERIES_COLOURS",
    "SVG_WIDTH",
    "ChartFile",
    "Lines",
    "Spec",
    "accelerator_scale_spec",
    "axis_title",
    "compare_scale_spec",
    "cost_chart",
    "efficiency_chart",
    "fill",
    "html_safe_json",
    "interactivity_chart",
    "is_log",
    "needs_log",
    "pair_ratio_chart",
    "ratio_strip_chart",
    "reading_label",
    "release_lines_chart",
    "scaling_chart",
    "scaling_label",
    "slot",
    "split_by_unit",
    "system_family_label",
    "value_scale",
    "with_pair_rows",
    "svg_size",
    "write_chart",
]
