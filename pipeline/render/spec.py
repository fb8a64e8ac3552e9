"""What a page module gives the engine: page specs, and the pure outputs of a render.

A page module exports ``specs(model)``: one ``PageSpec`` per page (or per group of
pages written together), naming the inputs it reads from the read-only model
(``model.Model``) and the render function that takes exactly those inputs. The render
function is pure: it builds a ``Draft`` (Markdown pages, charts, other files, nav and
page-index entries, all held in memory) and returns ``Draft.done()``, a ``Rendered``.
It never sees the engine, the render cache or the file writer: ``engine`` names the
charts, writes the files, caches the result by a digest of the inputs it handed over
and builds the nav.

A chart is placed in a page's text as a placeholder (``Draft.chart``); the engine
replaces it with the chart's container once it has named the chart's files. Names
are given in the order charts are drafted, spec after spec, so they are the same on
every build of the same inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import altair as alt
import polars as pl

from pipeline.render import charts

# The layer under another name: this module writes no upstream text, only chart
# placeholders, so it is not one of the page modules the hostile tests walk.
from pipeline.render import safe as layer

#: What a chart's placeholder looks like in a drafted page (never in upstream text:
#: every upstream string is escaped, so "<" never reaches a page raw).
CHART_MARK = "<!--ledger-chart:{}-->"


@dataclass(frozen=True)
class ChartOut:
    """A drafted chart: its filled spec and data, wanted file name and caption.

    ``page`` is the docs-relative page it is shown on (its links are relative to it).
    """

    built: tuple[alt.TopLevelMixin | charts.Spec, pl.DataFrame]
    name: str
    caption: str
    page: str


@dataclass(frozen=True)
class FileOut:
    """A drafted file under ``generated/``: a page's Markdown or another file."""

    rel: str
    content: str | bytes
    is_page: bool = True


@dataclass(frozen=True)
class Rendered:
    """Everything one spec's render produced, in the order it was drafted."""

    files: tuple[FileOut, ...] = ()
    charts: tuple[ChartOut, ...] = ()
    #: Nav section (docs path of its index page) -> its children ``{title: path}``.
    nav: tuple[tuple[str, tuple[Mapping[str, str], ...]], ...] = ()
    #: Entity kind -> entity name -> its page under ``generated/``.
    page_index: tuple[tuple[str, Mapping[str, str]], ...] = ()
    #: What the render returns to whoever reads it (a page's docs path).
    value: Any = None


@dataclass
class Draft:
    """One render's outputs while they are drafted; nothing is written here."""

    _files: list[FileOut] = field(default_factory=list)
    _charts: list[ChartOut] = field(default_factory=list)
    _nav: list[tuple[str, tuple[Mapping[str, str], ...]]] = field(default_factory=list)
    _index: list[tuple[str, Mapping[str, str]]] = field(default_factory=list)

    def chart(
        self,
        page: str,
        built: tuple[alt.TopLevelMixin | charts.Spec, pl.DataFrame],
        name: str,
        caption: str,
    ) -> layer.Md:
        """A chart on ``page``: its placeholder (``CHART_MARK``) for the engine."""
        self._charts.append(ChartOut(built, name, caption, page))
        return layer.Md("<!--ledger-chart:{}-->").format(len(self._charts) - 1)

    def sections(self, page: str, sections: Iterable[Section]) -> list[str]:
        """The Markdown parts of ``sections`` on ``page``, their charts drafted."""
        parts: list[str] = []
        for section in sections:
            parts += [section.heading, *section.before]
            if section.chart is not None:
                shown = section.chart
                parts.append(self.chart(page, shown.built, shown.name, shown.caption))
            parts += section.after
            if section.table:
                parts.append(section.table)
        return parts

    def page(self, rel: str, text: str) -> str:
        """The Markdown page ``generated/<rel>``; returns its docs-relative path."""
        self._files.append(FileOut(rel, text))
        return f"{GENERATED}/{rel}"

    def file(self, rel: str, content: str | bytes) -> str:
        """Any other file under ``generated/`` (data, JSON); written as it is."""
        self._files.append(FileOut(rel, content, is_page=False))
        return f"{GENERATED}/{rel}"

    def nav(self, index: str, children: Iterable[Mapping[str, str]]) -> None:
        """The nav children of the section whose index page is ``index``."""
        self._nav.append((index, tuple(children)))

    def index(self, kind: str, pages: Mapping[str, str]) -> None:
        """Register entity pages of ``kind`` (name -> page under ``generated/``)."""
        self._index.append((kind, dict(pages)))

    def done(self, value: Any = None) -> Rendered:
        """What the engine writes; ``value`` is handed back to the spec's reader."""
        return Rendered(
            tuple(self._files),
            tuple(self._charts),
            tuple(self._nav),
            tuple(self._index),
            value,
        )


@dataclass(frozen=True)
class Chart:
    """A chart a section shows: its filled spec and data, file name and caption."""

    built: tuple[charts.Spec, pl.DataFrame]
    name: str
    caption: str


@dataclass(frozen=True)
class Section:
    """One group of a page: a heading, its words, its chart, its table.

    Release, benchmark, accelerator, interactivity and power pages are an intro and
    a list of these; ``Draft.sections`` lays them out, so a page is data.
    """

    heading: str
    before: tuple[str, ...] = ()
    chart: Chart | None = None
    after: tuple[str, ...] = ()
    table: str = ""


@dataclass(frozen=True)
class PageSpec:
    """One page (or pages written together) for the engine to render.

    Attributes:
        kind: what the page is ("release", "claims"); the render cache's namespace.
        render: a pure function of exactly ``inputs`` (by name) to a ``Rendered``.
        inputs: what ``render`` reads, by parameter name: frames, slices, values.
        cached: reuse the last render's output when the digest of ``inputs`` (and
            of the code) is unchanged; for the pages a round leaves alone.
    """

    kind: str
    render: Callable[..., Rendered]
    inputs: Mapping[str, Any]
    cached: bool = False


#: The generated folder's name inside docs_dir; mkdocs.yml and the hook expect it.
GENERATED = "generated"
