"""The Performance page: what the pipeline costs, from committed ``make bench`` results.

What belongs here: reading the committed results file (``RESULTS_FILE``, written by
``benchmarks/bench.py`` and committed deliberately with the machine and date it
describes) and turning it into Markdown (targets with pass/fail marks, every
measurement, the cost-against-rows chart, raw-tree throughput, page weights, where the
time goes, the machine). What does not: measuring (``benchmarks/bench.py``).

The page never reads ``build/bench/``: the site must not change with whether someone
ran ``make bench`` on the machine that builds it. Without a committed file the page
says so plainly.

The results file is edited by hand as easily as by the harness, so every string from
it goes through ``escape`` and every number through ``float``/``int`` before it
reaches the page, like upstream data on the other pages; a file that cannot be read is
named on the page with the reason, never a traceback that stops the site.

The cost chart is a chart like every other page's (``Site.chart``): a Vega-Lite
file with a static SVG fallback.
"""

from __future__ import annotations

from pipeline.render import charts
from pipeline.render.context import GENERATED
from pipeline.render.model import Model
from pipeline.render.performance_sections import (
    RESULTS_FILE,
    cost_points,
    floors,
    intro,
    machine,
    measurements,
    page_weights,
    profiles,
    raw_tree,
    scaling,
    targets,
    x100_limit,
)
from pipeline.render.safe import Md
from pipeline.render.spec import Draft, PageSpec, Rendered

PAGE = "performance.md"
#: The layout of the results file this page reads (``benchmarks/bench.py`` writes it).
CHART_NAME = "performance-analytics-cost"
CHART_CAPTION = "Analytics time against rows analysed (log-log)"


def render_performance_page(
    results: dict | None, problem: str | None = None, *, chart: str = ""
) -> str:
    """Markdown of the Performance page; says plainly when there is nothing to show.

    ``chart`` is the cost chart's container (``build`` writes it through
    ``Site.chart``), placed in the analytics section.
    """
    if problem:
        return Md(
            "# Performance\n\nThe committed benchmark results file `{}` cannot be "
            "shown: {}. This page has no figures until it is fixed.\n"
        ).format(RESULTS_FILE, problem)
    if not results:
        return (
            "# Performance\n\nNo benchmark results are committed: "
            f"`{RESULTS_FILE}` is not in this checkout, so this page shows no "
            "figures. To publish them, run `make bench` (it measures the cold build, "
            "a no-op update, one new release and the analytics at 10x and 100x "
            "against their floors) and commit the file it writes, which records the "
            "machine and the date.\n"
        )
    sections = [
        Md("# Performance\n\n") + intro(results),
        targets(results),
        measurements(results),
        floors(results),
        scaling(results, chart),
        raw_tree(results),
        page_weights(results),
        profiles(results),
        machine(results),
    ]
    return "\n".join(s for s in sections if s)


def _draft(model: Model, draft: Draft) -> None:
    """The Performance page from ``model.data.bench``, its chart through the site."""
    results, problem = model.data.bench, model.data.bench_problem
    points = cost_points(results) if results and not problem else []
    chart = ""
    if points:
        built = charts.cost_chart(
            points, title=CHART_CAPTION, target_s=x100_limit(results)
        )
        chart = draft.chart(f"{GENERATED}/{PAGE}", built, CHART_NAME, CHART_CAPTION)
    draft.page(PAGE, render_performance_page(results, problem, chart=chart))


def render(model: Model) -> Rendered:
    """The Performance page, from the committed bench results and its cost chart."""
    draft = Draft()
    _draft(model, draft)
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Performance page, from the committed bench results and its cost chart."""
    return [PageSpec("performance", render, {"model": model})]
