"""The one engine: runs every page spec over the model, caches, writes, names charts.

``run`` takes the page modules in order (``pages.PAGE_MODULES``); each gives its
specs for the model (``spec.PageSpec``). For each spec the engine calls its render
function with exactly the inputs the spec names, or, for a cached spec, replays the
last render's files when the digest of those inputs and of the code is unchanged
(``memo.RenderMemo``): the key is derived from what the render is handed, so no
input can be left out of it. It then names the drafted charts (in drafting order,
so names are stable), writes their files, puts each chart's container where its
placeholder stands, writes the pages through the one file writer (``files``) and
collects the nav and the page index.

Nothing a page module sees comes from here: pages get their inputs and a ``Draft``.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import altair as alt
import polars as pl

from pipeline.files import write_file
from pipeline.render import charts
from pipeline.render.charts import svg_size
from pipeline.render.context import SYSTEMS_FOLDER, SYSTEMS_HREF
from pipeline.render.downloads import flat_for_csv
from pipeline.render.memo import RenderMemo
from pipeline.render.model import Model
from pipeline.render.safe import Md
from pipeline.render.slugs import capped, name_hash
from pipeline.render.spec import CHART_MARK, GENERATED, PageSpec, Rendered
from pipeline.render.tables import relative


class SpecError(TypeError):
    """A page spec whose inputs are not exactly its render function's parameters."""


@dataclass
class Writer:
    """What one render wrote: files, chart names, the nav and the page index."""

    out_dir: Path
    written: list[Path] = field(default_factory=list)
    #: Chart file stems written so far: two charts never share a file.
    chart_names: set[str] = field(default_factory=set)
    #: Nav section (docs path of its index page) -> its children ``{title: path}``,
    #: written to ``NAV_FILE`` for ``mkdocs.hooks``. Only small sections (see
    #: ``context.ENTITY_PAGES``).
    nav: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    #: Entity kind -> entity name -> its page (``PAGE_INDEX``).
    page_index: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The render cache (``memo.RenderMemo``); None renders every page afresh.
    memo: RenderMemo | None = None
    #: While the render cache records a page: each chart's wanted and taken name.
    chart_log: list[tuple[str, str]] | None = None
    #: Pages that already hold a chart: only a page's first picture loads at once.
    pages_with_charts: set[str] = field(default_factory=set)

    def write_page(self, rel: str, text: str) -> str:
        """Write ``generated/<rel>``; returns its docs-relative path.

        Links to a system's section (``system_ids.system_link``) become relative
        to the page here; a partial is shown on the home page.
        """
        shown = "index.md" if rel.startswith("partials/") else f"{GENERATED}/{rel}"
        if SYSTEMS_HREF in text:
            folder = relative(shown, SYSTEMS_FOLDER)
            text = text.replace(SYSTEMS_HREF, f"{folder}/")
        self.written.append(write_file(self.out_dir / rel, text))
        return f"{GENERATED}/{rel}"

    def chart(
        self,
        page: str,
        built: tuple[alt.TopLevelMixin | charts.Spec, pl.DataFrame],
        name: str,
        caption: str,
    ) -> str:
        """Write a chart's files; returns the container ``<div>`` for ``page``.

        Every chart is shown first as its build-time SVG (no script needed, nothing
        to compile on a phone); ``charts.js`` loads Vega and draws the interactive
        chart over it only when a reader reaches for it (pointer, touch, keyboard).
        Beside the chart: the rows it plots as CSV, its Vega-Lite JSON and the SVG.
        """
        chart, frame = built
        name = wanted = capped(name)
        if name in self.chart_names:
            # Two upstream spellings with one slug ("Offline", "offline"): the
            # caption names them exactly, so its hash tells the charts apart.
            name = f"{name}--{name_hash(caption)}"
        if name in self.chart_names:
            raise ValueError(f"two charts of one build are both named {name!r}")
        self.chart_names.add(name)
        if self.chart_log is not None:
            self.chart_log.append((wanted, name))
        charts_dir = self.out_dir / "charts"
        files = charts.write_chart(chart, frame, charts_dir, name)
        table = write_file(
            charts_dir / f"{name}.csv", flat_for_csv(frame).write_csv().encode()
        )
        self.written += [
            p for p in (files.spec, files.data, files.svg, files.svg_narrow, table) if p
        ]
        # File names are slugs of ours (``capped``); the caption is escaped.
        spec = relative(page, f"{GENERATED}/charts/{files.spec.name}")
        csv = relative(page, f"{GENERATED}/charts/{table.name}")
        if files.svg is not None:
            src = relative(page, f"{GENERATED}/charts/{files.svg.name}")
            width, height = svg_size(files.svg)
            # alt="": the figure is named by its caption and described by the line
            # under it; the image would only say the caption again.
            # A page's first chart is often its first screen: loaded at once.
            lazy = Md(' loading="lazy"') if page in self.pages_with_charts else Md("")
            self.pages_with_charts.add(page)
            # A phone gets the picture drawn at its width (``SVG_NARROW_WIDTH``).
            narrow = Md("")
            if files.svg_narrow is not None:
                small = relative(page, f"{GENERATED}/charts/{files.svg_narrow.name}")
                narrow_width, narrow_height = svg_size(files.svg_narrow)
                narrow = Md(
                    '<source media="(max-width: 600px)" srcset="{}" width="{}" '
                    'height="{}">'
                ).format(small, narrow_width, narrow_height)
            shown = Md(
                '<picture>{narrow}<img class="vega-static" src="{src}" alt="" '
                'width="{w}" height="{h}" decoding="async"{lazy}></picture>'
                '<button type="button" class="vega-activate" hidden>'
                "Interactive chart</button>"
            ).format(narrow=narrow, src=src, w=width, h=height, lazy=lazy)
            image = Md(' · <a href="{}" download>SVG image</a>').format(src)
        else:
            shown = Md(
                "<noscript>Charts need JavaScript; the table lists the same "
                "numbers.</noscript>"
            )
            image = Md("")
        # The text alternative: the figure is named by its caption and described by
        # the line under it, whose first link holds every number it plots.
        return Md(
            '\n<div class="vega-chart" data-spec="{spec}" role="figure" '
            'aria-label="{label}" aria-describedby="chart-{name}">{shown}</div>\n'
            '<p class="ledger-chart-source" id="chart-{name}">Every number it plots: '
            '<a href="{csv}">data as CSV</a> · <a href="{spec}">chart as '
            "Vega-Lite JSON</a>{image}</p>\n"
        ).format(spec=spec, label=caption, shown=shown, name=name, csv=csv, image=image)


def check_spec(spec: PageSpec) -> None:
    """The render function takes exactly the named inputs (so the key holds all)."""
    parameters = inspect.signature(spec.render).parameters
    wanted = [
        name
        for name, p in parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    if sorted(wanted) != sorted(spec.inputs) or len(wanted) != len(parameters):
        raise SpecError(
            f"page spec {spec.kind!r}: {spec.render.__qualname__} takes "
            f"{sorted(wanted)}, the spec hands it {sorted(spec.inputs)}"
        )


def code_version(spec: PageSpec) -> str:
    """The render function's name; its source is in the memo's salt (all code)."""
    return f"{spec.render.__module__}.{spec.render.__qualname__}"


def emit(writer: Writer, rendered: Rendered) -> Any:
    """Write a render's charts, files, nav and page index; return its value."""
    containers = [
        writer.chart(chart.page, chart.built, chart.name, chart.caption)
        for chart in rendered.charts
    ]
    for out in rendered.files:
        content = out.content
        if containers and isinstance(content, str):
            for index, container in enumerate(containers):
                content = content.replace(CHART_MARK.format(index), container)
        if out.is_page:
            assert isinstance(content, str)
            writer.write_page(out.rel, content)
        else:
            writer.written.append(write_file(writer.out_dir / out.rel, content))
    for index, children in rendered.nav:
        writer.nav[index] = [dict(child) for child in children]
    for kind, pages in rendered.page_index:
        writer.page_index[kind] = dict(pages)
    return rendered.value


def render_spec(writer: Writer, spec: PageSpec) -> Any:
    """One spec rendered (or replayed from the cache) and written."""
    check_spec(spec)

    def produce() -> Any:
        return emit(writer, spec.render(**spec.inputs))

    if not spec.cached or writer.memo is None:
        return produce()
    inputs = [code_version(spec), dict(spec.inputs)]
    return writer.memo.run(writer, spec.kind, inputs, produce)


def run(writer: Writer, model: Model, modules: Sequence[ModuleType]) -> None:
    """Every page module's specs, in order: rendered (or replayed) and written."""
    for module in modules:
        for spec in module.specs(model):
            render_spec(writer, spec)


__all__ = ["SpecError", "Writer", "check_spec", "emit", "render_spec", "run"]
