"""What every page module shares: the render in progress (``Site``) and small helpers.

``Site`` carries one render's inputs, the pages and charts written so far, and
what the pages register for the navigation and the page index. Page modules
(``home``, ``pairs_pages``, ``release_pages``, ...) each take a ``Site`` and write
their pages through it; ``pages.render_site`` runs them in order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import altair as alt
import polars as pl

from pipeline.claims import VERDICT_SCHEMA
from pipeline.files import write_file
from pipeline.render import charts, safe
from pipeline.render.coverage import (
    STATUS_SCHEMA,
)
from pipeline.render.safe import Md, MdExpr
from pipeline.render.site_data import (
    SiteData,
    is_accelerator_type,
)
from pipeline.render.slugs import capped, name_hash
from pipeline.render.tables import (
    DERIVED_NOTICE,
    relative,
)
from pipeline.transform.results import DIVISIONS, SCENARIOS

if TYPE_CHECKING:
    from pipeline.render.memo import RenderMemo

T = TypeVar("T")

#: The generated folder's name inside docs_dir; mkdocs.yml and the hook expect it.
GENERATED = "generated"
#: Entity kind -> entity name -> its page under GENERATED (``slugs.page_problems``).
PAGE_INDEX = "partials/pages.json"
#: Nav section (its index page) -> its children, read by ``mkdocs_hooks``.
NAV_FILE = "partials/nav.json"
METHODOLOGY = "methodology.md"
#: Why one page per entity (benchmark, accelerator, a benchmark's pairs, a release's
#: benchmark) is linked from its section's index page and not listed in the nav:
#: Material renders every sibling of the page being read, so the 186 benchmark pages
#: carried 186 nav links each, and one new benchmark changed the HTML of all of them
#: (a new round rebuilt 458 of 822 pages for 57 changed ones). The nav keeps the
#: sections whose children are few and bounded: the rounds, the interactive
#: benchmarks.
ENTITY_PAGES = ("benchmarks", "accelerators", "software-gains", "generations",
                "scaling", "releases/<round>")  # fmt: skip
#: Stands for the Systems page's address in cells computed once for pages at
#: several depths (``system_pages.system_link``); ``Site.write_page`` makes it
#: relative to the page it writes.
SYSTEMS_HREF = "ledger:systems-page"
SYSTEMS_PAGE = f"{GENERATED}/systems.html"
GROUP = ["benchmark", "scenario", "division"]


@dataclass
class Site:
    """State shared by one render: the data, the output folder, the files written."""

    data: SiteData
    results: pl.DataFrame
    out_dir: Path
    releases: list[str]
    written: list[Path] = field(default_factory=list)
    #: Every known round with its status (``coverage.round_status``).
    rounds: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema=STATUS_SCHEMA)
    )
    #: Page folder ("releases", "benchmarks") -> entity name -> its unique slug.
    slugs: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Chart file stems written so far: two charts never share a file.
    chart_names: set[str] = field(default_factory=set)
    #: Pair frames shown on the pages ("gains", "generations", "scaling"), one row per
    #: pair of results (``pairs_pages.merge_levels``), with their display cells
    #: (``pairs_pages.pair_cells``): every table of pairs shows a slice of one.
    pairs: dict[str, pl.DataFrame] = field(default_factory=dict)
    #: ``analysis.history.accelerator_histories`` of the results.
    histories: pl.DataFrame | None = None
    #: Accelerator id -> its page (docs-relative), once ``accelerator_pages`` ran.
    accelerator_pages: dict[str, str] = field(default_factory=dict)
    #: Benchmarks with results, sorted: one page each.
    benchmarks: list[str] = field(default_factory=list)
    #: Derived pairs a plausibility rule flagged (``flags_section.flagged_pairs``).
    flagged: pl.DataFrame | None = None
    #: One verdict per registered claim (``pipeline.claims.claim_verdicts``).
    verdicts: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema=VERDICT_SCHEMA)
    )
    #: Nav section (docs path of its index page) -> its children ``{title: path}``,
    #: written to ``NAV_FILE`` for ``mkdocs_hooks``. Only small sections (see
    #: ``ENTITY_PAGES``).
    nav: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    #: Entity kind -> entity name -> its page (``PAGE_INDEX``).
    page_index: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The render cache (``memo.RenderMemo``); None renders every page afresh.
    memo: RenderMemo | None = None
    #: While the render cache records a page: each chart's wanted and taken name.
    chart_log: list[tuple[str, str]] | None = None
    #: Values several pages slice, computed once per render (``once``).
    derived: dict[Hashable, object] = field(default_factory=dict)

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` the first time ``key`` is asked for in this render.

        For frames many pages each take a slice of (a round's generation pairs and
        their cells): one query for all of them instead of one per page. Only for
        row-wise work, so that a page's slice is what computing on it alone gives.
        """
        if key not in self.derived:
            self.derived[key] = compute()
        return self.derived[key]  # type: ignore[return-value]

    def reuse(
        self, kind: str, inputs: Callable[[], list[object]], produce: Callable[[], T]
    ) -> T:
        """``produce()``, or its cached result when ``inputs()`` did not change.

        ``inputs()`` must hold every value the page reads besides the code: the
        entity's name, its slices of the frames, the slugs and rounds it shows
        (called only when there is a cache).
        """
        if self.memo is None:
            return produce()
        return self.memo.run(self, kind, inputs(), produce)

    def page_of(self, kind: str, name: str) -> str:
        """The page of one release or benchmark, under ``generated/`` (unique)."""
        return f"{kind}/{self.slugs[kind][name]}.md"

    def entity_slug(self, kind: str, name: str) -> str:
        """The unique slug of an entity, for anchors and chart names."""
        return self.slugs[kind][name]

    def write_page(self, rel: str, text: str) -> str:
        """Write ``generated/<rel>``; returns its docs-relative path.

        Links to a system's description (``system_pages.system_link``) become
        relative to the page here; a partial is shown on the home page.
        """
        shown = "index.md" if rel.startswith("partials/") else f"{GENERATED}/{rel}"
        text = text.replace(SYSTEMS_HREF, relative(shown, SYSTEMS_PAGE))
        self.written.append(write_file(self.out_dir / rel, text))
        return f"{GENERATED}/{rel}"

    def sections(self, page: str, sections: Iterable[Section]) -> list[str]:
        """The Markdown parts of ``sections`` on ``page``, their charts written."""
        parts: list[str] = []
        for section in sections:
            parts += [section.heading, *section.before]
            if section.chart is not None:
                shown = section.chart
                parts.append(
                    self.chart(
                        page, shown.built, shown.name, shown.caption, svg=shown.svg
                    )
                )
            parts += section.after
            if section.table:
                parts.append(section.table)
        return parts

    def chart(
        self,
        page: str,
        built: tuple[alt.TopLevelMixin | charts.Spec, pl.DataFrame],
        name: str,
        caption: str,
        *,
        svg: bool = False,
    ) -> str:
        """Write a chart's files; returns the container ``<div>`` for ``page``."""
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
        files = charts.write_chart(chart, frame, self.out_dir / "charts", name, svg=svg)
        self.written += [p for p in (files.spec, files.data, files.svg) if p]
        # File names are slugs of ours (``capped``); the caption is escaped.
        spec = relative(page, f"{GENERATED}/charts/{files.spec.name}")
        if files.svg:
            src = relative(page, f"{GENERATED}/charts/{files.svg.name}")
            fallback = Md('<img class="vega-fallback" src="{}" alt="{}">').format(
                src, caption
            )
        else:
            fallback = Md("Charts need JavaScript; the table lists the same numbers.")
        # The text alternative: the figure is named by its caption and described by
        # the line under it, whose link holds every number it plots.
        return Md(
            '\n<div class="vega-chart" data-spec="{spec}" role="figure" '
            'aria-label="{label}" aria-describedby="chart-{name}">'
            "<noscript>{fallback}</noscript></div>\n"
            '<p class="ledger-chart-source" id="chart-{name}">Every number it plots: '
            '<a href="{spec}">chart as Vega-Lite JSON</a></p>\n'
        ).format(spec=spec, label=caption, fallback=fallback, name=name)


@dataclass(frozen=True)
class Chart:
    """A chart a section shows: its filled spec and data, file name and caption."""

    built: tuple[charts.Spec, pl.DataFrame]
    name: str
    caption: str
    svg: bool = False


@dataclass(frozen=True)
class Section:
    """One group of a page: a heading, its words, its chart, its table.

    Release, benchmark, accelerator, interactivity and power pages are an intro and
    a list of these; ``Site.sections`` renders them, so a page is data.
    """

    heading: str
    before: tuple[str, ...] = ()
    chart: Chart | None = None
    after: tuple[str, ...] = ()
    table: str = ""


def notice(page: str) -> str:
    """The "derived, unofficial" notice, linking Methodology from ``page``."""
    return DERIVED_NOTICE.format(methodology=relative(page, METHODOLOGY))


def page_link(page: str, rel: str) -> str:
    """Link from ``page`` to the generated page ``rel``."""
    return relative(page, f"{GENERATED}/{rel}")


def release_index(releases: list[str]) -> pl.Expr:
    """Position of ``release`` in version order (null when not listed)."""
    order = {r: i for i, r in enumerate(releases)}
    return pl.col("release").replace_strict(order, default=None, return_dtype=pl.Int32)


def new_in(
    site: Site, release: str, column: str, label: str | None = None
) -> list[str]:
    """Values of ``column`` whose first appearance in the ledger is ``release``."""
    rows = site.results.filter(pl.col(column).is_not_null())
    if column == "accelerator_id":
        rows = rows.filter(is_accelerator_type())
    label = label or column
    firsts = (
        rows.with_columns(index=release_index(site.releases))
        .group_by(column)
        .agg(pl.col("index").min(), pl.col(label).first().alias("label"))
    )
    position = site.releases.index(release)
    return sorted(firsts.filter(pl.col("index") == position)["label"].to_list())


def sorted_groups(
    frame: pl.DataFrame, by: list[str], releases: list[str] | None = None
) -> list[tuple[tuple, pl.DataFrame]]:
    """Partitions of ``frame`` in reading order.

    Scenarios and divisions follow MLPerf's order, releases their version order, other
    values sort alphabetically.
    """
    if frame.height == 0:
        return []
    known = {"scenario": SCENARIOS, "division": DIVISIONS}

    def rank(column: str, value: object) -> tuple[int, str]:
        listed = known.get(column) or (releases if column.startswith("release") else ())
        if listed and value in listed:
            return (list(listed).index(value), "")
        return (len(listed or ()), str(value))

    parts = frame.partition_by(by, as_dict=True, maintain_order=True)
    return sorted(
        parts.items(),
        key=lambda item: tuple(rank(c, v) for c, v in zip(by, item[0], strict=True)),
    )


def mlperf_ranks() -> dict[str, pl.Expr]:
    """``scenario_rank`` and ``division_rank``: MLPerf's order, unknown values last."""
    return {
        f"{column}_rank": pl.col(column).replace_strict(
            {v: i for i, v in enumerate(order)},
            default=len(order),
            return_dtype=pl.Int32,
        )
        for column, order in (("scenario", SCENARIOS), ("division", DIVISIONS))
    }


def numbers_block(items: Iterable[tuple[int, str | Md]]) -> Md:
    """A row of big numbers with labels ("409 results")."""
    cells = Md("").join(
        Md("<div><strong>{:,}</strong>{}</div>").format(n, label) for n, label in items
    )
    return Md('\n<div class="ledger-numbers">{}</div>\n').format(cells)


def chips(total: str, name: str, nodes: str) -> MdExpr:
    """The chip count every comparison states: "8 × AMD Instinct MI300X · 1 node"."""
    count = pl.col(nodes).fill_null(1)
    return safe.fmt(
        "{} × {} · {} {}",
        pl.col(total).cast(pl.String).fill_null("?"),
        pl.col(name).fill_null("CPU only"),
        count.cast(pl.String),
        pl.when(count == 1).then(pl.lit("node")).otherwise(pl.lit("nodes")),
    )


def output_folder(out_dir: Path) -> Path:
    """The generated folder, made if missing; what it holds is kept until ``prune``.

    Only a folder named ``generated`` is accepted: the render removes whatever it
    did not write there.
    """
    if out_dir.name != GENERATED:
        raise ValueError(
            f"render_site writes into a folder named {GENERATED!r}: {out_dir}"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir
