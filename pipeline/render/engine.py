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

Page modules still written against the render in progress (``context.Site``) run
as they are, in the same order, while they move to specs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from pipeline.render.context import Site
from pipeline.render.files import write_file
from pipeline.render.memo import RenderMemo
from pipeline.render.model import Model
from pipeline.render.spec import CHART_MARK, PageSpec, Rendered

#: A page module: its specs for a model (or, until it moves, a builder of a Site).
SpecsOf = Callable[[Model], Sequence[PageSpec]]


class SpecError(TypeError):
    """A page spec whose inputs are not exactly its render function's parameters."""


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


def code_version(render: Callable[..., Any]) -> str:
    """The render function's name; its source is in the memo's salt (all code)."""
    return f"{render.__module__}.{render.__qualname__}"


def emit(site: Site, rendered: Rendered) -> Any:
    """Write a render's charts, files, nav and page index; return its value."""
    containers = [
        site.chart(chart.page, chart.built, chart.name, chart.caption, svg=chart.svg)
        for chart in rendered.charts
    ]
    for out in rendered.files:
        content = out.content
        if isinstance(content, str) and "<!--ledger-chart:" in content:
            for index, container in enumerate(containers):
                content = content.replace(CHART_MARK.format(index), container)
        if out.is_page:
            assert isinstance(content, str)
            site.write_page(out.rel, content)
        else:
            site.written.append(write_file(site.out_dir / out.rel, content))
    for index, children in rendered.nav:
        site.nav[index] = [dict(child) for child in children]
    for kind, pages in rendered.page_index:
        site.page_index[kind] = dict(pages)
    return rendered.value


def render_spec(site: Site, spec: PageSpec) -> Any:
    """One spec rendered (or replayed from the cache) and written."""
    check_spec(spec)

    def produce() -> Any:
        return emit(site, spec.render(**spec.inputs))

    if not spec.cached or site.memo is None:
        return produce()
    inputs = [code_version(spec.render), dict(spec.inputs)]
    return site.memo.run(site, spec.kind, inputs, produce)


def run(site: Site, model: Model, modules: Sequence[object]) -> None:
    """Every page module in order: its specs rendered, or its legacy builder run."""
    for module in modules:
        specs = getattr(module, "specs", None)
        if specs is None:
            module.build(site)  # type: ignore[attr-defined]
            continue
        for spec in specs(model):
            render_spec(site, spec)


__all__ = ["RenderMemo", "SpecError", "check_spec", "emit", "render_spec", "run"]
