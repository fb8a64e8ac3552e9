"""Markdown pages, chart specs and downloads of the website, from ``SiteData``.

``render_site`` owns ``site/generated/``: it empties it (except the cached JavaScript
bundle) and writes every generated page there, so the page of a release or benchmark
that disappeared does not linger. Hand-written pages (``site/index.md``,
``site/methodology.md``) include or link to these files; ``mkdocs build`` turns both
into the website.

Numbers are computed with Polars over whole frames; Python loops only walk pages,
benchmarks and table groups. Every upstream string goes through ``escape``, every
upstream URL through ``safe_url`` (via ``tables``). Small tables that link to other
pages are Markdown (MkDocs checks those links); large tables are raw HTML (fast to
build, see ``tables.html_table``).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import altair as alt
import polars as pl

from pipeline.analysis.plausibility import STRICTEST_LEVEL, headline_pairs
from pipeline.labels import NO_NAME
from pipeline.manifest import release_for
from pipeline.render import charts, history_page
from pipeline.render.bundle import write_bundle
from pipeline.render.coverage import (
    NOT_IN_SOURCE,
    STATUS_SCHEMA,
    round_status,
    skip_note,
    skip_note_expr,
)
from pipeline.render.downloads import Download, write_downloads
from pipeline.render.escape import escape, safe_url
from pipeline.render.flags_section import flagged_pairs, flags_section
from pipeline.render.site_data import (
    SiteData,
    release_order,
    vendor_of,
    with_accelerators,
    with_names,
)
from pipeline.render.slugs import capped, name_hash, slug, unique_slugs
from pipeline.render.tables import (
    DERIVED_NOTICE,
    external_link,
    html_table,
    markdown_table,
    number,
    percent,
    ratio,
    relative,
    result_cell,
    stringify,
)
from pipeline.transform.results import DIVISIONS, SCENARIOS

#: The generated folder's name inside docs_dir; mkdocs.yml and the hook expect it.
GENERATED = "generated"
#: Entity kind -> entity name -> its page under GENERATED (``slugs.page_problems``).
PAGE_INDEX = "partials/pages.json"
METHODOLOGY = "methodology.md"
#: Rows of each headline table on the home page.
HEADLINE_ROWS = 5
#: Rows per benchmark, scenario and division on the "Latest release" digest.
LATEST_TOP_N = 3
#: Software-gain identity levels shown on the page; the per-accelerator level (any
#: scale) is in the download, where it cannot be mistaken for a like-for-like pair.
PAGE_GAIN_LEVELS = ("system", "hardware")
GROUP = ["benchmark", "scenario", "division"]


@dataclass
class _Site:
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

    def page_of(self, kind: str, name: str) -> str:
        """The page of one release or benchmark, under ``generated/`` (unique)."""
        return f"{kind}/{self.slugs[kind][name]}.md"

    def entity_slug(self, kind: str, name: str) -> str:
        """The unique slug of an entity, for anchors and chart names."""
        return self.slugs[kind][name]

    def write_page(self, rel: str, text: str) -> str:
        """Write ``generated/<rel>``; returns its docs-relative path."""
        path = self.out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.written.append(path)
        return f"{GENERATED}/{rel}"

    def chart(
        self,
        page: str,
        built: tuple[alt.TopLevelMixin, pl.DataFrame],
        name: str,
        caption: str,
        *,
        svg: bool = False,
    ) -> str:
        """Write a chart's files; returns the container ``<div>`` for ``page``."""
        chart, frame = built
        name = capped(name)
        if name in self.chart_names:
            # Two upstream spellings with one slug ("Offline", "offline"): the
            # caption names them exactly, so its hash tells the charts apart.
            name = f"{name}--{name_hash(caption)}"
        if name in self.chart_names:
            raise ValueError(f"two charts of one build are both named {name!r}")
        self.chart_names.add(name)
        files = charts.write_chart(chart, frame, self.out_dir / "charts", name, svg=svg)
        self.written += [p for p in (files.spec, files.data, files.svg) if p]
        spec = relative(page, f"{GENERATED}/charts/{files.spec.name}")
        label = escape(caption)
        if files.svg:
            src = relative(page, f"{GENERATED}/charts/{files.svg.name}")
            fallback = f'<img class="vega-fallback" src="{src}" alt="{label}">'
        else:
            fallback = "Charts need JavaScript; the table lists the same numbers."
        return (
            f'\n<div class="vega-chart" data-spec="{spec}" role="figure" '
            f'aria-label="{label}"><noscript>{fallback}</noscript></div>\n'
            f'<p class="ledger-chart-source"><a href="{spec}">Chart as Vega-Lite '
            "JSON</a></p>\n"
        )


def _notice(page: str) -> str:
    return DERIVED_NOTICE.format(methodology=relative(page, METHODOLOGY))


def _page_link(page: str, rel: str) -> str:
    return relative(page, f"{GENERATED}/{rel}")


def _release_index(releases: list[str]) -> pl.Expr:
    order = {r: i for i, r in enumerate(releases)}
    return pl.col("release").replace_strict(order, default=None, return_dtype=pl.Int32)


def _sorted_groups(
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


def _numbers_block(items: Iterable[tuple[int, str]]) -> str:
    cells = "".join(f"<div><strong>{n:,}</strong>{label}</div>" for n, label in items)
    return f'\n<div class="ledger-numbers">{cells}</div>\n'


# --- cells -------------------------------------------------------------------------


def _chips(total: str, name: str, nodes: str) -> pl.Expr:
    """The chip count every comparison states: "8 × AMD Instinct MI300X · 1 node"."""
    count = pl.col(nodes).fill_null(1)
    return pl.format(
        "{} × {} · {} {}",
        pl.col(total).cast(pl.String).fill_null("?"),
        escape(pl.col(name).fill_null("CPU only")),
        count.cast(pl.String),
        pl.when(count == 1).then(pl.lit("node")).otherwise(pl.lit("nodes")),
    )


def _end_cell(suffix: str) -> pl.Expr:
    """One end of a pair in one cell: release, linked value, system, chips, key."""

    def col(name: str) -> pl.Expr:
        return pl.col(f"{name}{suffix}")

    per_accelerator = (
        pl.when(
            pl.col("is_per_accelerator") & col("result_per_accelerator").is_not_null()
        )
        .then(pl.format(" ({} per accelerator)", number(col("result_per_accelerator"))))
        .otherwise(pl.lit(""))
    )
    value = result_cell(
        col("result_value"),
        col("result_url"),
        None,
        col("is_preview"),
        col("is_inferred"),
    )
    return pl.concat_str(
        pl.format("<b>{}</b> ", escape(col("release"))),
        value.fill_null("—"),
        pl.format(" {}", escape(pl.col("result_unit"))),
        per_accelerator,
        pl.format("<br>{} · {}", escape(col("submitter")), escape(col("system_name"))),
        pl.format(
            "<br>{}",
            _chips(
                f"total_accelerators{suffix}",
                f"accelerator_name{suffix}",
                f"nodes{suffix}",
            ),
        ),
        pl.format(
            "<br>software: {} · {}",
            escape(col("software").fill_null("not stated")),
            escape(col("availability")),
        ),
        pl.format("<br><code>{}</code>", escape(col("result_key"))),
    )


def _flag_cell() -> pl.Expr:
    """Badges naming a pair's plausibility flags, then their reasons ("" if none)."""
    badges = (
        pl.col("flags")
        .fill_null([])
        .list.eval(
            pl.format(
                '<span class="ledger-badge ledger-badge--flag">{}</span>',
                escape(pl.element().str.replace_all("_", " ", literal=True)),
            )
        )
        .list.join(" ")
    )
    return (
        pl.when(pl.col("flags").list.len().fill_null(0) > 0)
        .then(
            pl.format(
                '<br>{}<br><small class="ledger-flag-reason">{}</small>',
                badges,
                escape(pl.col("flag_reasons").fill_null("")),
            )
        )
        .otherwise(pl.lit(""))
    )


def _pair_cells(
    pairs: pl.DataFrame, rounds: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Display cells of pair rows, computed once per page for all its tables.

    With ``rounds`` (``coverage.round_status``), a pair whose releases are not
    adjacent names the rounds it skips ("skips v3.0, v3.1, v4.0: not in source").
    """
    skipped = (
        skip_note_expr(pl.col("release_old"), pl.col("release_new"), rounds)
        if rounds is not None
        else pl.lit("")
    )
    efficiency = percent(pl.col("efficiency")).fill_null("—")
    return pairs.with_columns(
        c_ratio=ratio(pl.col("ratio")).fill_null("—"),
        c_efficiency=efficiency,
        c_comparison=pl.format(
            "{} · {}<br><small>{} · {}{}</small>",
            escape(pl.col("benchmark")),
            escape(pl.col("scenario")),
            escape(pl.col("division")),
            escape(charts.reading_label(pl.col("identity_level"), pl.col("kind"))),
            pl.when(pl.col("is_per_accelerator"))
            .then(pl.lit(" · per accelerator"))
            .otherwise(pl.lit("")),
        )
        + pl.when(skipped != "")
        .then(pl.format("<br><small>{}</small>", escape(skipped)))
        .otherwise(pl.lit(""))
        + _flag_cell(),
        c_old=_end_cell("_old"),
        c_new=_end_cell("_new"),
    )


def _pair_table(
    cells: pl.DataFrame,
    ends: tuple[str, str],
    *,
    with_efficiency: bool = False,
    efficiency_title: str = "Efficiency",
    limit: int | None = None,
) -> str:
    """A sortable table of pairs (from ``_pair_cells``), best ratio first."""
    if cells.height == 0:
        return "_No pairs._\n"
    shown = cells.sort("ratio", descending=True, nulls_last=True)
    if limit is not None:
        shown = shown.head(limit)
    columns = {"c_ratio": "Ratio"}
    if with_efficiency:
        columns["c_efficiency"] = efficiency_title
    columns |= {"c_comparison": "Compared", "c_old": ends[0], "c_new": ends[1]}
    return html_table(
        shown,
        columns,
        numeric=("c_ratio", "c_efficiency"),
        wide=("c_old", "c_new"),
        searchable=False,
    )


RESULT_COLUMNS = {
    "c_rank": "#",
    "c_submitter": "Submitter",
    "c_system": "System",
    "c_chips": "Accelerators",
    "c_result": "Result",
    "c_per_accelerator": "Per accelerator",
    "c_software": "Software",
    "c_availability": "Availability",
}


def _result_cells(frame: pl.DataFrame) -> pl.DataFrame:
    """Display cells of ranked canonical results, computed once per page."""
    return frame.with_columns(
        c_rank=pl.col("rank").cast(pl.String),
        c_submitter=escape(pl.col("submitter")),
        c_system=pl.format(
            "{}<br><small>{}</small>",
            escape(pl.col("system_name")),
            escape(pl.col("platform")),
        ),
        c_chips=_chips("total_accelerators", "accelerator_name", "nodes"),
        c_result=result_cell(
            pl.col("result_value"),
            pl.col("result_url"),
            pl.col("result_key"),
            pl.col("is_preview"),
            pl.col("is_inferred"),
        ),
        c_per_accelerator=number(pl.col("result_per_accelerator")).fill_null("—"),
        c_software=escape(pl.col("software").fill_null("not stated")),
        c_availability=escape(pl.col("availability")),
    )


def _result_table(cells: pl.DataFrame) -> str:
    """Ranked canonical results (from ``_result_cells``) as a sortable table."""
    return html_table(
        cells, RESULT_COLUMNS, numeric=("c_rank", "c_result", "c_per_accelerator")
    )


# --- pair pages --------------------------------------------------------------------


def _with_vendor(pairs: pl.DataFrame, results: pl.DataFrame) -> pl.DataFrame:
    """Add the newer end's vendor and each end's canonical chip name (``chip_*``).

    Charts colour and label chips by their registry name ("NVIDIA H200 SXM"), so
    upstream's spellings of one chip share a colour.
    """
    names = (
        results.select("accelerator_id", "accelerator_vendor", "accelerator_label")
        .drop_nulls("accelerator_id")
        .sort("accelerator_id")
        .unique(subset="accelerator_id", keep="first", maintain_order=True)
    )
    for end in ("old", "new"):
        pairs = pairs.join(
            names.select(
                pl.col("accelerator_id").alias(f"accelerator_id_{end}"),
                pl.col("accelerator_label").alias(f"chip_{end}"),
                *(
                    [pl.col("accelerator_vendor").alias("vendor")]
                    if end == "new"
                    else []
                ),
            ),
            on=f"accelerator_id_{end}",
            how="left",
            maintain_order="left",
        ).with_columns(
            pl.coalesce(
                f"chip_{end}", f"accelerator_name_{end}", pl.lit("CPU only")
            ).alias(f"chip_{end}")
        )
    return pairs.with_columns(
        vendor=pl.coalesce("vendor", vendor_of(pl.col("accelerator_name_new")))
    )


def _merge_levels(pairs: pl.DataFrame) -> pl.DataFrame:
    """One row per pair of results, listing every identity level it qualifies at.

    The analyses report a pair once per reading ("best_of_any" and "same_submitter"
    often pick the same two results, with and without per-accelerator normalisation).
    Two ends reported as an equal-count pair have equal counts, so normalising does
    not change their ratio: pages show the pair once, name all its levels, and call it
    per accelerator only when no reading compared the raw results.

    Levels are listed strictest first. Its flags are those of its strictest reading
    (a scaling pair of one system family is not a size comparison because it is also
    the best at both sizes);
    ``is_strict`` says whether it qualifies at the strictest level of its kind and
    ``is_headline`` whether that reading is unflagged (``headline_pairs``): only
    those enter headlines, summaries and top-N lists.
    """
    keys = ["result_key_old", "result_key_new"]
    indexed = pairs.with_row_index("_row")
    chosen = headline_pairs(indexed)["_row"]
    strictest = pl.col("kind").replace_strict(STRICTEST_LEVEL, default=None)
    marked = indexed.with_columns(
        _strict=(pl.col("identity_level") == strictest).fill_null(False),
        _headline=pl.col("_row").is_in(chosen.implode()),
    ).with_columns(_rank=pl.when("_strict").then(0).otherwise(1))
    merged_apart = [*keys, "identity_level", "is_per_accelerator"]
    helpers = ["_row", "_strict", "_headline", "_rank"]
    merged = marked.group_by(keys, maintain_order=True).agg(
        pl.exclude([*merged_apart, *helpers])
        .sort_by("_rank", maintain_order=True)
        .first(),
        pl.col("identity_level")
        .sort_by("_rank", maintain_order=True)
        .unique(maintain_order=True)
        .str.join(", "),
        pl.col("is_per_accelerator").all(),
        pl.col("_strict").any().alias("is_strict"),
        pl.col("_headline").any().alias("is_headline"),
    )
    return merged


def _latest(pairs: pl.DataFrame) -> pl.DataFrame:
    """Pairs whose newer end is in the newest release that has any pairs."""
    present = release_order(pairs["release_new"].unique())
    return pairs.filter(pl.col("release_new") == present[-1]) if present else pairs


def _pair_label() -> pl.Expr:
    # Scenario first: a label shortened on the axis keeps what tells rows apart; the
    # chips are the colour (generations) and every name is whole in the tooltip.
    return pl.format(
        "{} · {} · {}",
        pl.col("scenario"),
        pl.col("submitter_new"),
        pl.col("system_name_new"),
    )


@dataclass(frozen=True)
class _PairPage:
    """What differs between the software-gains, generations and scaling pages."""

    rel: str
    title: str
    kind: str
    intro: str
    ends: tuple[str, str]
    #: What a headline counts ("software gains").
    noun: str
    #: One line saying what a headline or summary of this page counts.
    definition: str
    #: Sub-sections within a benchmark (gains: one per release pair).
    sections: tuple[str, ...] = ()

    @property
    def stem(self) -> str:
        return self.rel.removesuffix(".md")


#: Unflagged pairs only, at the strictest identity level of each kind
#: (``pipeline.analysis.plausibility.headline_pairs``); Methodology repeats these.
HEADLINE_DEFINITIONS = {
    "gains": "software-only gain of one submitter's same system (same accelerator, "
    "accelerator count and nodes) between two rounds, newer ÷ older result; "
    "unflagged pairs only.",
    "generations": "successor ÷ predecessor accelerator, both results from one "
    "submitter in the same round, benchmark, scenario and division; unflagged pairs "
    "only.",
    "scaling": "one submitter's one system family (same accelerator, accelerators per "
    "node and software) at two accelerator counts in one round; efficiency = "
    "throughput ratio ÷ count ratio (100% = linear); unflagged pairs only, never a "
    "size comparison.",
}

GAINS = _PairPage(
    rel="software-gains.md",
    title="Software gains",
    kind="gains",
    ends=("Older result", "Newer result"),
    noun="software gains",
    definition=HEADLINE_DEFINITIONS["gains"],
    sections=("release_old", "release_new"),
    intro="""
A software gain divides a result by the result of the *same* hardware in an earlier
release: what newer software, drivers and tuning bought without new chips. This page
shows two identity levels: **system** (same submitter and system) and **hardware** (same
accelerator model, accelerator count and node count, best result of any submitter).
A third, looser level (same accelerator at any scale, compared per accelerator) is in
the `software_gains` download on the [Data](data.md) page. A ratio above 1× means the
newer result is better, for latency benchmarks too. Charts put ratios on a log axis
with a dashed line at 1× (no change), colour the accelerator, and draw flagged pairs
faint.
""",
)
GENERATIONS = _PairPage(
    rel="generations.md",
    title="Hardware generations",
    kind="generations",
    ends=("Predecessor", "Successor"),
    noun="generation ratios",
    definition=HEADLINE_DEFINITIONS["generations"],
    intro="""
A generation ratio divides the result of an accelerator by the result of its
predecessor (for example H200 over H100) on the same benchmark, scenario and division
of one release. **same_submitter** pairs come from one submitter's systems;
**best_of_any** pairs take the best result of each accelerator, whoever submitted it.
Rows marked *per accelerator* compare results divided by accelerator count, which
mixes system sizes; the others compare systems with equal counts. A ratio above 1×
means the successor is better. Charts put ratios on a log axis with a dashed line at
1×, colour each predecessor → successor pair, and draw flagged pairs faint.
""",
)
SCALING = _PairPage(
    rel="scaling.md",
    title="Scaling",
    kind="scaling",
    ends=("Smaller system", "Larger system"),
    noun="scaling pairs",
    definition=HEADLINE_DEFINITIONS["scaling"],
    intro="""
Scaling compares one submitter's one system family (the same accelerator,
accelerators per node and software stack) at two accelerator counts on the same
benchmark, scenario and division of one release: only the count changes. The ratio
divides the larger system's throughput by the smaller's; efficiency divides that ratio
by the growth in accelerator count (100% is perfectly linear). Each chart shows one
scenario and unit; the dashed segment from each smaller system is linear scaling, and
an axis title says "log scale" where the axis is one. The best results at two sizes
from any submitters are **size comparisons**: listed under each scenario, never called
scaling and never counted in a summary.
""",
)


def _compare(kind: str) -> tuple[pl.Expr, str]:
    """What a pair chart's colour tells apart, and the legend's title."""
    if kind == "generations":
        return (
            pl.format("{} → {}", pl.col("chip_old"), pl.col("chip_new")),
            "predecessor → successor",
        )
    if kind == "scaling":
        return pl.format("{} · {}", pl.col("submitter_new"), pl.col("chip_new")), (
            "system family"
        )
    return pl.col("chip_new"), "accelerator"


def _pair_chart(
    spec: _PairPage, pairs: pl.DataFrame, title: str
) -> tuple[alt.TopLevelMixin, pl.DataFrame]:
    compare, compare_title = _compare(spec.kind)
    if spec.kind == "scaling":
        return charts.scaling_chart(pairs, title=title, compare=compare)
    return charts.pair_ratio_chart(
        pairs,
        title=title,
        label=_pair_label(),
        ends=(spec.ends[0].lower(), spec.ends[1].lower()),
        compare=compare,
        compare_title=compare_title,
    )


def _ratio_text(value: float | None) -> str:
    return pl.select(ratio(pl.lit(value, dtype=pl.Float64))).item() or "—"


def _percent(value: float | None) -> str:
    return pl.select(percent(pl.lit(value, dtype=pl.Float64))).item() or "—"


def _headline_numbers(kind: str, shown: pl.DataFrame) -> str:
    """Median and largest ratio of headline pairs (scaling: median efficiency)."""
    if kind == "scaling":
        top = shown.sort("ratio", descending=True, nulls_last=True).row(0, named=True)
        median = shown["efficiency"].median()
        return (
            f"median efficiency **{_percent(median)}**, largest "
            f"**{_ratio_text(top['ratio'])}** at "
            f"{_percent(top['efficiency'])} efficiency"
        )
    return (
        f"median **{_ratio_text(shown['ratio'].median())}**, "
        f"largest **{_ratio_text(shown['ratio'].max())}**"
    )


def _definition(spec: _PairPage) -> str:
    return (
        f'<p class="ledger-definition"><b>Definition:</b> {escape(spec.definition)}'
        "</p>\n"
    )


def _flagged(pairs: pl.DataFrame) -> pl.Expr:
    return pl.col("flags").list.len().fill_null(0) > 0


def _page_summary(page: str, spec: _PairPage, pairs: pl.DataFrame) -> list[str]:
    """The page's headline sentence, its definition, and the flag count."""
    shown = pairs.filter("is_headline")
    flagged = pairs.filter(_flagged(pairs)).height
    if shown.height:
        rounds = release_order(shown["release_new"].unique())
        scope = rounds[0] if len(rounds) == 1 else f"{rounds[0]} to {rounds[-1]}"
        sentence = (
            f"**{shown.height:,} {spec.noun}** ({escape(scope)}): "
            f"{_headline_numbers(spec.kind, shown)}.\n"
        )
    else:
        sentence = f"No {spec.noun} at the strictest reading is unflagged.\n"
    return [
        sentence,
        _definition(spec),
        f"{flagged:,} of the {pairs.height:,} pairs below carry a plausibility flag "
        f"(see [Methodology]({relative(page, METHODOLOGY)})): they keep their place "
        "in the tables, with a badge and the reason, and never enter a summary, a "
        "headline or a top-N list.\n",
    ]


def _summary_table(
    spec: _PairPage, pairs: pl.DataFrame, anchors: dict[str, str]
) -> str:
    """Per benchmark: every pair, the flagged ones, and the headline numbers."""
    headline = pl.col("is_headline")
    summary = (
        pairs.group_by("benchmark")
        .agg(
            pl.len().alias("pairs"),
            _flagged(pairs).sum().alias("flagged"),
            headline.sum().alias("headline"),
            pl.col("ratio").filter(headline).median().alias("median"),
            pl.col("ratio").filter(headline).min().alias("min"),
            pl.col("ratio").filter(headline).max().alias("max"),
            pl.col("efficiency").filter(headline).median().alias("efficiency"),
        )
        .sort("benchmark")
        .with_columns(
            c_benchmark=pl.format(
                "[{}](#{})",
                escape(pl.col("benchmark")),
                pl.col("benchmark").replace_strict(anchors),
            ),
            c_pairs=pl.col("pairs").cast(pl.String),
            c_flagged=pl.col("flagged").cast(pl.String),
            c_headline=pl.col("headline").cast(pl.String),
            c_median=ratio(pl.col("median")).fill_null("—"),
            c_range=pl.format(
                "{} – {}", ratio(pl.col("min")), ratio(pl.col("max"))
            ).fill_null("—"),
            c_efficiency=percent(pl.col("efficiency")).fill_null("—"),
        )
    )
    strict = "Scaling, unflagged" if spec.kind == "scaling" else "Strictest, unflagged"
    columns = {
        "c_benchmark": "Benchmark",
        "c_pairs": "Pairs",
        "c_flagged": "Flagged",
        "c_headline": strict,
        "c_median": "Median ratio",
        "c_range": "Range",
    }
    if spec.kind == "scaling":
        columns["c_efficiency"] = "Median efficiency"
    return (
        "Medians and ranges count the strictest, unflagged pairs only (the "
        "definition above); *Pairs* counts every row of the tables.\n\n"
        + markdown_table(
            summary,
            columns,
            numeric=("c_pairs", "c_flagged", "c_headline", "c_median", "c_efficiency"),
        )  # fmt: skip
    )


def _size_comparisons(pairs: pl.DataFrame, ends: tuple[str, str]) -> str:
    """Best results at two sizes from any submitter, folded away: not scaling."""
    return (
        f"\n<details><summary>{pairs.height:,} size comparison(s): the best result at "
        "each size from any submitter; not scaling, never in a summary</summary>\n\n"
        + _pair_table(
            pairs, ends, with_efficiency=True, efficiency_title="Ratio ÷ count growth"
        )
        + "</details>\n"
    )


def _scaling_sections(
    site: _Site, page: str, spec: _PairPage, benchmark: str, pairs: pl.DataFrame
) -> list[str]:
    """Per scenario and unit: a chart and table of scaling, then size comparisons."""
    parts = []
    for scenario, unit, part in charts.split_by_unit(pairs):
        parts.append(f"\n### {escape(scenario)} · {escape(unit)}\n")
        strict = part.filter("is_strict")
        if strict.height:
            name = "-".join(
                [
                    spec.stem,
                    site.entity_slug("benchmarks", benchmark),
                    slug(scenario),
                    slug(unit),
                ]
            )
            built = _pair_chart(spec, strict, f"{benchmark} · {scenario} · {unit}")
            caption = f"Scaling: {benchmark} {scenario} ({unit})"
            parts.append(site.chart(page, built, name, caption))
            parts.append(_pair_table(strict, spec.ends, with_efficiency=True))
        else:
            parts.append(
                "No scaling pair: no submitter ran one system family at two sizes "
                "here.\n"
            )
        sizes = part.filter(~pl.col("is_strict"))
        if sizes.height:
            parts.append(_size_comparisons(sizes, spec.ends))
    return parts


def _pairs_page(site: _Site, spec: _PairPage, pairs: pl.DataFrame) -> str:
    """Notice, summary by benchmark, then a chart and a table per benchmark section."""
    page = f"{GENERATED}/{spec.rel}"
    parts = [f"# {spec.title}\n", _notice(page), spec.intro]
    if pairs.height == 0:
        parts.append("\n_No pairs in the current data._\n")
        return site.write_page(spec.rel, "\n".join(parts))
    anchors = {
        b: f"{spec.stem}-{site.entity_slug('benchmarks', b)}"
        for b in pairs["benchmark"].unique()
    }
    parts += [
        "\n## Summary\n",
        *_page_summary(page, spec, pairs),
        _summary_table(spec, pairs, anchors),
    ]
    for (benchmark,), bench_pairs in sorted(
        _pair_cells(pairs, site.rounds).partition_by("benchmark", as_dict=True).items()
    ):
        parts.append(f"\n## {escape(benchmark)} {{ #{anchors[benchmark]} }}\n")
        link = _page_link(page, site.page_of("benchmarks", benchmark))
        parts.append(f"[Best results per accelerator for this benchmark]({link})\n")
        if spec.kind == "scaling":
            parts += _scaling_sections(site, page, spec, benchmark, bench_pairs)
            continue
        sections = (
            _sorted_groups(bench_pairs, list(spec.sections), site.releases)
            if spec.sections
            else [((), bench_pairs)]
        )
        for key, section in sections:
            words = [benchmark, " → ".join(key)] if key else [benchmark]
            if key:
                parts.append(f"\n### {' → '.join(escape(k) for k in key)}\n")
                if note := skip_note(key[0], key[-1], site.rounds):
                    parts.append(f"This pair of releases {escape(note)}.\n")
            name = "-".join(
                [
                    spec.stem,
                    site.entity_slug("benchmarks", benchmark),
                    *(slug(k) for k in key),
                ]
            )
            caption = f"{spec.title}: {' '.join(words)}"
            built = _pair_chart(spec, section, " · ".join(w for w in words if w))
            parts.append(site.chart(page, built, name, caption))
            parts.append(_pair_table(section, spec.ends))
    return site.write_page(spec.rel, "\n".join(parts))


# --- release pages -----------------------------------------------------------------


def _ranked(results: pl.DataFrame) -> pl.DataFrame:
    """Each submitter's best result per accelerator type in every benchmark group.

    One row per (submitter, accelerator) keeps a table readable when a submitter lists
    many near-identical systems, while every submitter and every chip stays visible.
    """
    better_first = (
        pl.when(pl.col("is_higher_better"))
        .then(-pl.col("result_value"))
        .otherwise(pl.col("result_value"))
    )
    return (
        results.sort(better_first, "result_key")
        .unique(
            subset=[*GROUP, "submitter", "accelerator_id"],
            keep="first",
            maintain_order=True,
        )
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over(GROUP))
    )


def _release_stats(results: pl.DataFrame) -> dict[str, int]:
    return results.select(
        results=pl.len(),
        submitters=pl.col("submitter").n_unique(),
        systems=pl.col("system_name").n_unique(),
        accelerators=pl.col("accelerator_id").filter(~pl.col("is_cpu_only")).n_unique(),
        benchmarks=pl.col("benchmark").n_unique(),
        preview=pl.col("is_preview").sum(),
        inferred=pl.col("is_inferred").sum(),
    ).row(0, named=True)


def _new_in(
    site: _Site, release: str, column: str, label: str | None = None
) -> list[str]:
    """Values of ``column`` whose first appearance in the ledger is ``release``."""
    rows = site.results.filter(pl.col(column).is_not_null())
    if column == "accelerator_id":
        rows = rows.filter(~pl.col("is_cpu_only"))
    label = label or column
    firsts = (
        rows.with_columns(index=_release_index(site.releases))
        .group_by(column)
        .agg(pl.col("index").min(), pl.col(label).first().alias("label"))
    )
    position = site.releases.index(release)
    return sorted(firsts.filter(pl.col("index") == position)["label"].to_list())


def _release_page(
    site: _Site,
    release: str,
    rel: str,
    *,
    title: str,
    top_n: int | None,
    notes: Callable[[str, str], str] | None = None,
) -> str:
    page = f"{GENERATED}/{rel}"
    results = site.results.filter(pl.col("release") == release)
    stats = _release_stats(results)
    meta = release_for(release)
    if meta.published_date:
        note = f" ({escape(meta.date_note)})" if meta.date_note else ""
        published = f"published {meta.published_date.isoformat()}{note}"
    else:
        published = "publication date unknown"
    parts = [
        f"# {title}\n",
        f"MLPerf Inference {escape(release)}, {published}. Upstream: "
        f"[{escape(meta.repository)}](https://github.com/{meta.repository}).\n",
        _numbers_block(
            [
                (stats["results"], "results"),
                (stats["submitters"], "submitters"),
                (stats["systems"], "systems"),
                (stats["accelerators"], "accelerator types"),
                (stats["benchmarks"], "benchmarks"),
            ]
        ),
        f"{stats['preview']:,} preview and {stats['inferred']:,} inferred results are "
        "marked with badges.\n",
        notes(release, page) if notes else "",
        "## What's new\n",
    ]
    position = site.releases.index(release)
    if position == 0:
        parts.append(f"{escape(release)} is the oldest release in the ledger.\n")
    else:
        parts.append(
            "First appearances in the ledger (earlier releases: "
            + ", ".join(escape(r) for r in site.releases[:position])
            + "):\n"
        )
        for label, values in (
            (
                "Accelerators",
                _new_in(site, release, "accelerator_id", "accelerator_label"),
            ),
            ("Benchmarks", _new_in(site, release, "benchmark")),
            ("Submitters", _new_in(site, release, "submitter")),
        ):
            listed = ", ".join(escape(v) for v in values) or "none"
            parts.append(f"- **{label}** ({len(values)}): {listed}")
        parts.append("")
    submitters = (
        results.group_by("submitter")
        .agg(
            pl.len().alias("results"),
            pl.col("system_name").n_unique().alias("systems"),
            pl.col("accelerator_label").unique().sort().alias("chips"),
            pl.col("division").unique().sort().alias("divisions"),
        )
        .sort(["results", "submitter"], descending=[True, False])
        .with_columns(
            c_submitter=escape(pl.col("submitter")),
            c_results=pl.col("results").cast(pl.String),
            c_systems=pl.col("systems").cast(pl.String),
            c_chips=pl.col("chips").list.eval(escape(pl.element())).list.join(", "),
            c_divisions=pl.col("divisions")
            .list.eval(escape(pl.element()))
            .list.join(", "),
        )
    )
    parts += [
        f"\n## Submitters\n\n{stats['submitters']:,} organisations submitted "
        "results.\n",
        html_table(
            submitters,
            {
                "c_submitter": "Submitter",
                "c_results": "Results",
                "c_systems": "Systems",
                "c_chips": "Accelerators",
                "c_divisions": "Divisions",
            },
            numeric=("c_results", "c_systems"),
        ),
    ]
    ranked = _ranked(results)
    if top_n is not None:
        ranked = ranked.filter(pl.col("rank") <= top_n)
    ranked = _result_cells(ranked)
    if top_n:
        scope = f"the top {top_n} (best per submitter and accelerator type)"
        full = _page_link(page, site.page_of("releases", release))
        more = f" The [full {escape(release)} page]({full}) lists every submitter."
    else:
        scope = "each submitter's best result per accelerator type"
        more = ""
    parts.append(
        f"\n## Results by benchmark\n\nTables list {scope}, ranked by the MLPerf "
        "metric (higher throughput or lower latency first). Each value links to its "
        f"upstream result folder; hover it for the result key.{more}\n"
    )
    for (benchmark,), bench_rows in sorted(
        ranked.partition_by("benchmark", as_dict=True).items()
    ):
        link = _page_link(page, site.page_of("benchmarks", benchmark))
        parts.append(f"\n### {escape(benchmark)}\n\n[Across releases]({link})\n")
        for (scenario, division), group in _sorted_groups(
            bench_rows, ["scenario", "division"]
        ):
            unit = escape(group["result_unit"].first())
            parts.append(f"\n#### {escape(scenario)} · {escape(division)} · {unit}\n")
            parts.append(_result_table(group))
    return site.write_page(rel, "\n".join(parts))


def _releases_index(site: _Site) -> str:
    page = f"{GENERATED}/releases/index.md"
    rows = []
    rounds = site.rounds
    for release, status in reversed(rounds.select("release", "status").rows()):
        meta = release_for(release)
        date = meta.published_date.isoformat() if meta.published_date else "unknown"
        if release not in site.releases:
            rows.append(
                f"| {escape(release)} | {date} | {escape(status)} | — | — | — | — |"
            )
            continue
        stats = _release_stats(site.results.filter(pl.col("release") == release))
        link = _page_link(page, site.page_of("releases", release))
        rows.append(
            f"| [{escape(release)}]({link}) | {date} | {escape(status)} | "
            f"{stats['results']:,} | {stats['submitters']:,} | {stats['systems']:,} | "
            f"{stats['accelerators']:,} |"
        )
    absent = rounds.filter(~pl.col("has_rows"))["release"].to_list()
    missing = (
        f"Rounds {NOT_IN_SOURCE} ({', '.join(escape(r) for r in absent)}) are listed "
        "so that no gap is silent: the source this build read has no result of "
        "theirs, so cross-round comparisons skip them and say so.\n\n"
        if absent
        else ""
    )
    text = (
        "# Releases\n\nOne page per MLPerf Inference release in the ledger: what was "
        "new, who submitted, and the best results of every benchmark. *Source* says "
        "how a round's rows were read: from its published **summary file**, from its "
        "**raw tree** of submission logs (rounds without a summary), or "
        f"**{NOT_IN_SOURCE}** (a round of the manifest without any row here).\n\n"
        + missing
        + "| Release | Published | Source | Results | Submitters | Systems | "
        "Accelerator types |\n"
        "|---|---|---|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n"
    )
    return site.write_page("releases/index.md", text)


# --- benchmark pages ---------------------------------------------------------------


def _best_per_accelerator(results: pl.DataFrame) -> pl.DataFrame:
    """Best result of every accelerator type per benchmark group and release.

    Throughput is compared per accelerator (systems differ in chip count); latency is
    a property of the whole system and is compared as reported. CPU-only systems have
    no accelerator to divide by, and the open division lets submitters replace the
    model, so neither belongs in a like-for-like view; the release pages list them.
    """
    metric = (
        pl.when(pl.col("is_higher_better"))
        .then(pl.col("result_per_accelerator"))
        .otherwise(pl.col("result_value"))
    )
    return (
        results.filter(~pl.col("is_cpu_only") & (pl.col("division") != "open"))
        .with_columns(metric=metric)
        .with_columns(
            better_first=pl.when(pl.col("is_higher_better"))
            .then(-pl.col("metric"))
            .otherwise(pl.col("metric"))
        )
        .filter(pl.col("metric").is_not_null())
        .sort("better_first", "result_key")
        .unique(
            subset=[*GROUP, "accelerator_id", "release"],
            keep="first",
            maintain_order=True,
        )
    )


def _benchmark_page(site: _Site, benchmark: str, best: pl.DataFrame) -> str:
    rel = site.page_of("benchmarks", benchmark)
    page = f"{GENERATED}/{rel}"
    results = site.results.filter(pl.col("benchmark") == benchmark)
    counts = dict(results.group_by("release").len().iter_rows())
    appearances = ", ".join(
        f"[{escape(r)}]({_page_link(page, site.page_of('releases', r))}) "
        f"({counts[r]:,})"
        for r in site.releases
        if r in counts
    )
    parts = [
        f"# {escape(benchmark)}\n",
        f"Results per release: {appearances}.\n",
        "Each section shows the best result of every accelerator type in each release: "
        "throughput **per accelerator** (the system's result divided by its "
        "accelerator count, a derived normalisation, not an MLPerf metric) and latency "
        "as reported. "
        "Each value links to its upstream result; the submitter and accelerator count "
        "are under it.\n",
    ]
    left_out = results.select(
        cpu=pl.col("is_cpu_only").sum(),
        open=(~pl.col("is_cpu_only") & (pl.col("division") == "open")).sum(),
    ).row(0, named=True)
    reasons = [
        f"{left_out['open']:,} open-division results (the open division lets "
        "submitters replace the model)"
        if left_out["open"]
        else "",
        f"{left_out['cpu']:,} CPU-only results (no accelerator count to divide by)"
        if left_out["cpu"]
        else "",
    ]
    if any(reasons):
        parts.append(
            "Not shown here, listed on the release pages: "
            + " and ".join(r for r in reasons if r)
            + ".\n"
        )
    # One unit per chart: a metric that changed unit (MultiStream samples per query
    # before v2.0, latency from v2.0) gets a section per unit.
    for (scenario, division, unit), group in _sorted_groups(
        best.filter(pl.col("benchmark") == benchmark),
        ["scenario", "division", "result_unit"],
    ):
        higher = bool(group["is_higher_better"].first())
        metric = f"{unit} per accelerator" if higher else f"{unit}, lower is better"
        present = [r for r in site.releases if r in set(group["release"])]
        parts.append(
            f"\n## {escape(scenario)} · {escape(division)} · {escape(str(unit))}\n"
        )
        built = charts.best_per_accelerator_chart(
            group,
            title=f"{benchmark} · {scenario} · {division}",
            metric_title=metric,
            releases=present,
        )
        name = "-".join(
            [
                "benchmark",
                site.entity_slug("benchmarks", benchmark),
                slug(scenario),
                slug(division),
                slug(unit),
            ]
        )
        caption = f"{benchmark} {scenario} {division}: best {metric} by accelerator"
        parts.append(site.chart(page, built, name, caption))
        cells = (
            group.with_columns(
                overall=pl.col("better_first").min().over("accelerator_id"),
                cell=pl.concat_str(
                    result_cell(
                        pl.col("metric"),
                        pl.col("result_url"),
                        pl.col("result_key"),
                        pl.col("is_preview"),
                        pl.col("is_inferred"),
                    ),
                    pl.format(
                        "<br><small>{} · {} ×</small>",
                        escape(pl.col("submitter")),
                        pl.col("total_accelerators").cast(pl.String).fill_null("?"),
                    ),
                ),
            )
            .sort("overall", "accelerator_id")
            .pivot(
                on="release",
                index=["accelerator_id", "accelerator_label", "accelerator_vendor"],
                values="cell",
            )
            .with_columns(
                *[pl.col(r).fill_null("—") for r in present],
                c_accelerator=escape(pl.col("accelerator_label")),
                c_vendor=escape(pl.col("accelerator_vendor")),
            )
        )
        columns = {"c_accelerator": "Accelerator", "c_vendor": "Vendor"}
        columns |= {r: escape(r) for r in present}
        parts.append(f"\n{escape(metric)}, best per accelerator type:\n")
        parts.append(
            html_table(cells, columns, numeric=tuple(present), searchable=False)
        )
    return site.write_page(rel, "\n".join(parts))


def _benchmarks_index(site: _Site, benchmarks: list[str]) -> str:
    page = f"{GENERATED}/benchmarks/index.md"
    links = {b: _page_link(page, site.page_of("benchmarks", b)) for b in benchmarks}
    order = {r: i for i, r in enumerate(site.releases)}
    summary = (
        site.results.with_columns(index=_release_index(site.releases))
        .group_by("benchmark")
        .agg(
            pl.len().alias("results"),
            pl.col("index").unique().sort().alias("indexes"),
            pl.col("scenario").unique().sort().alias("scenarios"),
        )
        .sort("benchmark")
        .with_columns(
            c_benchmark=pl.format(
                "[{}]({})",
                escape(pl.col("benchmark")),
                pl.col("benchmark").replace_strict(links),
            ),
            c_results=pl.col("results").cast(pl.String),
            c_releases=pl.col("indexes")
            .list.eval(pl.element().replace_strict({i: r for r, i in order.items()}))
            .list.eval(escape(pl.element()))
            .list.join(", "),
            c_scenarios=pl.col("scenarios")
            .list.eval(escape(pl.element()))
            .list.join(", "),
        )
    )
    text = (
        "# Benchmarks\n\nOne page per benchmark: the best result of every accelerator "
        "type in every release, with a chart per scenario and division.\n\n"
        + markdown_table(
            summary,
            {
                "c_benchmark": "Benchmark",
                "c_releases": "Releases",
                "c_scenarios": "Scenarios",
                "c_results": "Results",
            },
            numeric=("c_results",),
        )
    )
    return site.write_page("benchmarks/index.md", text)


# --- home --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Headline:
    """One derived metric on the home page."""

    spec: _PairPage
    chart: Callable[[pl.DataFrame], tuple[alt.TopLevelMixin, pl.DataFrame]]
    caption: str


def _strip_chart(kind: str, title: str, ends: tuple[str, str]) -> Callable:
    compare, compare_title = _compare(kind)
    return lambda p: charts.ratio_strip_chart(
        p, title=title, ends=ends, compare=compare, compare_title=compare_title
    )


HEADLINES = (
    _Headline(
        GAINS,
        _strip_chart(
            "gains", "Software gains into the latest release", ("older", "newer")
        ),
        "Software gains into the latest release, by benchmark",
    ),
    _Headline(
        GENERATIONS,
        _strip_chart(
            "generations",
            "Generation ratios in the latest release",
            ("predecessor", "successor"),
        ),
        "Successor over predecessor accelerator in the latest release, by benchmark",
    ),
    _Headline(
        SCALING,
        lambda p: charts.efficiency_chart(
            p,
            title="Scaling efficiency in the latest release",
            compare=_compare("scaling")[0],
        ),
        "Scaling efficiency against the growth in accelerator count",
    ),
)


def _headline(site: _Site, page: str, item: _Headline, pairs: pl.DataFrame) -> str:
    """A sentence, its definition, a chart with a static SVG fallback, the top rows.

    Everything here comes from the strictest, unflagged pairs (``is_headline``) of
    the newest release that has any; the detail page keeps every pair, flagged ones
    with a badge and the reason.
    """
    spec = item.spec
    target = _page_link(page, spec.rel)
    shown = _latest(pairs.filter("is_headline")) if pairs.height else pairs
    parts = [f"\n### {spec.title}\n"]
    if shown.height == 0:
        parts.append(
            f"No {spec.noun} at the strictest reading without a plausibility flag. "
            f"[All pairs]({target})\n"
        )
        return "\n".join(parts)
    release = shown["release_new"].first()
    if spec.kind == "gains":
        olds = ", ".join(release_order(shown["release_old"].unique()))
        scope = f"{olds} → {release}"
    else:
        scope = str(release)
    others = pairs.filter(pl.col("release_new") == release).height - shown.height
    more = (
        f" {others:,} more pair(s) into {escape(str(release))}, at looser readings or "
        "with a plausibility flag, are on the detail page."
        if others
        else ""
    )
    parts += [
        f"{shown.height:,} {spec.noun} ({escape(scope)}): "
        f"{_headline_numbers(spec.kind, shown)}.{more}\n",
        _definition(spec),
        site.chart(
            page, item.chart(shown), f"home-{spec.stem}", item.caption, svg=True
        ),
        f"The {HEADLINE_ROWS} largest:\n",
        _pair_table(
            _pair_cells(shown, site.rounds),
            spec.ends,
            with_efficiency=spec.kind == "scaling",
            limit=HEADLINE_ROWS,
        ),
        f"[All {spec.noun} →]({target})\n",
    ]
    return "\n".join(parts)


def _home(
    site: _Site,
    pairs: dict[str, pl.DataFrame],
    histories: pl.DataFrame | None = None,
) -> str:
    """The home page body; site/index.md includes it with pymdownx.snippets."""
    page = "index.md"
    parts = []
    if site.releases:
        latest = site.releases[-1]
        stats = _release_stats(site.results.filter(pl.col("release") == latest))
        new = _new_in(site, latest, "accelerator_id", "accelerator_label")
        link = _page_link(page, site.page_of("releases", latest))
        parts += [
            f"## Latest release: {escape(latest)}\n",
            _numbers_block(
                [
                    (stats["results"], "results"),
                    (stats["submitters"], "submitters"),
                    (stats["systems"], "systems"),
                    (len(new), "new accelerator types"),
                ]
            ),
            "New accelerators: "
            + (", ".join(escape(a) for a in new) or "none")
            + ".\n",
            f"[Everything in {escape(latest)} →]({link})\n",
        ]
    parts += ["\n## Derived metrics\n", _notice(page)]
    parts += [_headline(site, page, item, pairs[item.spec.kind]) for item in HEADLINES]
    if histories is not None:
        parts.append(history_page.home_block(page, histories))
    return site.write_page("partials/home.md", "\n".join(parts))


# --- data and audit ----------------------------------------------------------------

TABLE_DESCRIPTIONS = {
    "results": "Canonical table: one row per published result, every release.",
    "rejected": "Upstream records that did not become results, with the reason.",
    "software_gains": "Derived, unofficial: same hardware in two releases.",
    "generation_ratios": "Derived, unofficial: successor over predecessor accelerator.",
    "scaling": "Derived, unofficial: larger over smaller system, same accelerator.",
    "snapshots": "Raw upstream snapshots the build read, with checksums.",
    "crosscheck": "Summary values compared with the raw result tree.",
    "accelerator_histories": "Derived, unofficial: best result per accelerator of "
    "one chip per round, with the step ratio to its previous round.",
    "flagged_pairs": "Derived pairs a plausibility rule flagged, with the reasons.",
}


def _size(path: Path) -> str:
    size = float(path.stat().st_size)
    if size < 1024:
        return f"{size:,.0f} B"
    if size < 1024**2:
        return f"{size / 1024:,.1f} KB"
    return f"{size / 1024**2:,.1f} MB"


def _data_page(site: _Site, downloads: list[Download]) -> str:
    page = f"{GENERATED}/data.md"
    rows = []
    for d in downloads:
        files = [
            f"[{path.name}]({_page_link(page, f'downloads/{path.name}')}) · "
            f"{_size(path)}<br><code>sha256:{digest}</code>"
            for path, digest in ((d.csv, d.csv_sha256), (d.parquet, d.parquet_sha256))
        ]
        rows.append(
            f"| **{d.name}** | {escape(d.description)} | {d.rows:,} | "
            f"{files[0]} | {files[1]} |"
        )
    columns = "\n".join(
        f"<details><summary>Columns of <b>{d.name}</b> ({len(d.columns)})</summary>"
        + ", ".join(
            f"<code>{escape(c)}</code> {escape(t)}" for c, t in d.columns.items()
        )
        + "</details>\n"
        for d in downloads
    )
    text = (
        "# Data\n\nEvery table behind this site as CSV and Parquet. The sha256 lets "
        "you "
        "check that a file is the one this build published (pipeline commit "
        f"<code>{escape(site.data.pipeline_commit)}</code>, built "
        f"{escape(site.data.built_at)}).\n\n"
        "In the CSV files, a text cell that starts with `=`, `+`, `-`, `@`, a tab or "
        "a carriage return gets a leading `'` so that spreadsheets show it as text "
        "instead of running it as a formula; numbers are unchanged, and the Parquet "
        "files keep every value exactly as published.\n\n"
        '!!! note "Derived tables are unofficial"\n'
        "    `software_gains`, `generation_ratios` and `scaling` are computed by "
        "mlperf-ledger from MLPerf results; they are not MLPerf results. Each row "
        "carries the result keys and URLs of both results it divides.\n\n"
        "| Table | What | Rows | CSV | Parquet |\n|---|---|---:|---|---|\n"
        + "\n".join(rows)
        + "\n\n## Columns\n\n"
        + columns
    )
    return site.write_page("data.md", text)


_NODE = r"([\w.:-]+)\s*(?:[\[({]+\"?([^\]\")}]*)\"?[\])}]+)?"
_EDGE = re.compile(rf"^\s*{_NODE}\s*[-=.]+>(?:\|[^|]*\|)?\s*{_NODE}")


def lineage_edges(mermaid: str) -> list[tuple[str, str]]:
    """(upstream, downstream) asset names from a Mermaid flowchart's arrows.

    Material for MkDocs renders Mermaid with a script from unpkg.com, and this site
    loads nothing from other hosts, so the Audit page shows the graph as a table.
    """
    labels: dict[str, str] = {}
    edges = []
    for line in mermaid.splitlines():
        match = _EDGE.match(line)
        if not match:
            continue
        source, source_label, target, target_label = match.groups()
        for node, label in ((source, source_label), (target, target_label)):
            if label or node not in labels:
                labels[node] = label or node
        edges.append((source, target))
    return [(labels[s], labels[t]) for s, t in edges]


def _lineage_table(mermaid: str) -> str:
    edges = lineage_edges(mermaid)
    if not edges:
        return "_No lineage was recorded._\n"
    nodes = sorted({n for edge in edges for n in edge})
    # Step = longest path from a source asset: the order in which assets are built.
    step = dict.fromkeys(nodes, 0)
    for _ in nodes:
        for upstream, asset in edges:
            step[asset] = max(step[asset], step[upstream] + 1)
    reads = (
        pl.DataFrame(edges, schema=["upstream", "asset"], orient="row")
        .group_by("asset")
        .agg(pl.col("upstream").unique().sort())
        .join(pl.DataFrame({"asset": nodes}), on="asset", how="right")
        .with_columns(step=pl.col("asset").replace_strict(step, return_dtype=pl.Int32))
        .sort("step", "asset")
        .with_columns(
            c_step=pl.col("step").cast(pl.String),
            c_asset=pl.format("<code>{}</code>", escape(pl.col("asset"))),
            c_reads=pl.col("upstream")
            .list.eval(pl.format("<code>{}</code>", escape(pl.element())))
            .list.join(", ")
            .fill_null("— (source)"),
        )
    )
    return markdown_table(
        reads,
        {"c_step": "Step", "c_asset": "Asset", "c_reads": "Reads"},
        numeric=("c_step",),
    )


def _crosscheck_section(report: pl.DataFrame) -> list[str]:
    """Per release agreement of summary and raw tree, then every exception."""
    per_release = (
        report.group_by("release")
        .agg(
            (pl.col("status").is_in(["agree", "disagree"])).sum().alias("matched"),
            (pl.col("status") == "agree").sum().alias("agree"),
            (pl.col("status") == "disagree").sum().alias("disagree"),
            (pl.col("status") == "summary_only").sum().alias("summary_only"),
            (pl.col("status") == "raw_only").sum().alias("raw_only"),
        )
        .with_columns(
            rate=pl.when(pl.col("matched") > 0).then(
                pl.format("{}%", (100 * pl.col("agree") / pl.col("matched")).round(2))
            )
        )
        .sort("release")
    )
    exceptions = report.filter(pl.col("status") != "agree").sort(
        "release", "status", "submitter", "platform"
    )

    def side(prefix: str) -> pl.Expr:
        value = number(pl.col(f"{prefix}_value"))
        linked = pl.format(
            '<a href="{}">{}</a> {}',
            safe_url(pl.col(f"{prefix}_url")),
            value,
            escape(pl.col(f"{prefix}_unit")),
        )
        return pl.when(pl.col(f"{prefix}_value").is_not_null()).then(linked)

    shown = exceptions.with_columns(
        c_release=escape(pl.col("release")),
        c_status=escape(pl.col("status")),
        c_result=pl.format(
            "{} · {} · {} · {}",
            escape(pl.col("submitter")),
            escape(pl.col("platform")),
            escape(pl.col("benchmark")),
            escape(pl.col("scenario")),
        ),
        c_summary=side("summary").fill_null("—"),
        c_raw=side("raw").fill_null("—"),
    )
    return [
        "## Cross-check with the raw result tree\n",
        "Where a release's raw submission tree is read too, each published summary "
        "value is matched to the metric of its `mlperf_log_summary.txt` (division, "
        "submitter, system, benchmark, scenario); values agree within 0.1%.\n",
        markdown_table(
            per_release.with_columns(pl.all().cast(pl.String).fill_null("—")),
            {
                "release": "Release",
                "matched": "Matched",
                "agree": "Agree",
                "disagree": "Disagree",
                "summary_only": "Summary only",
                "raw_only": "Raw tree only",
                "rate": "Agreement",
            },
        ),
        f"\n{exceptions.height:,} result(s) disagree or appear on one side only"
        + (":\n" if exceptions.height else ".\n"),
        html_table(
            shown,
            {
                "c_release": "Release",
                "c_status": "Status",
                "c_result": "Result",
                "c_summary": "Summary value",
                "c_raw": "Raw-tree value",
            },
            numeric=("c_summary", "c_raw"),
        ),
    ]


def _audit_page(site: _Site, flagged: pl.DataFrame) -> str:
    data = site.data
    extra = stringify(data.snapshots.select("rows", "rejected", "checks"))
    snapshots = data.snapshots.with_columns(
        c_release=escape(pl.col("release")),
        c_file=external_link(escape(pl.col("path")), pl.col("url"), pl.col("url")),
        c_sha=pl.format("<code>{}</code>", escape(pl.col("sha256"))),
        c_bytes=number(pl.col("bytes").cast(pl.Float64), digits=15),
        c_fetched=escape(pl.col("fetched_at").cast(pl.String)),
        c_rows=extra["rows"],
        c_rejected=extra["rejected"],
        c_checks=extra["checks"],
    ).sort("release", "path")
    rejected = (
        data.rejected.group_by("release", "reason")
        .agg(pl.len().alias("records"), pl.col("result_key").first().alias("example"))
        .sort(["records", "release"], descending=[True, False])
        .with_columns(
            c_release=escape(pl.col("release")),
            c_reason=escape(pl.col("reason")),
            c_records=pl.col("records").cast(pl.String),
            c_example=pl.format("<code>{}</code>", escape(pl.col("example"))),
        )
    )
    parts = [
        "# Audit\n",
        "How the numbers on this site were produced, and from which bytes.\n",
        f"- Pipeline commit: <code>{escape(data.pipeline_commit)}</code>",
        f"- Built at: {escape(data.built_at)}",
        f"- Canonical results: {data.results.height:,}; rejected upstream records: "
        f"{data.rejected.height:,}\n",
        "## Lineage\n",
        "Each asset and the assets it reads, in build order. The Mermaid source below "
        "can be pasted into any Mermaid viewer.\n",
        _lineage_table(data.lineage_mermaid),
        "\n<details><summary>Mermaid source</summary><pre><code>"
        + "\n".join(escape(line) for line in data.lineage_mermaid.splitlines())
        + "</code></pre></details>\n",
        "## Raw snapshots\n",
        "Every upstream file the build read, as stored: a new upstream version becomes "
        "a new snapshot next to the old one, never an overwrite.\n",
        html_table(
            snapshots,
            {
                "c_release": "Release",
                "c_file": "Source file",
                "c_sha": "sha256",
                "c_bytes": "Bytes",
                "c_fetched": "Fetched at",
                "c_rows": "Rows",
                "c_rejected": "Rejected",
                "c_checks": "Checks",
            },
            numeric=("c_bytes", "c_rows", "c_rejected"),
        )
        or "_No snapshots were recorded._\n",
        "## Rejected records\n",
        html_table(
            rejected,
            {
                "c_release": "Release",
                "c_reason": "Reason",
                "c_records": "Records",
                "c_example": "Example key",
            },
            numeric=("c_records",),
        )
        or "_No upstream record was rejected._\n",
    ]
    parts += _accelerator_coverage(data.results)
    parts += flags_section(flagged)
    if data.crosscheck is not None:
        parts += _crosscheck_section(data.crosscheck)
    return site.write_page("audit.md", "\n".join(parts))


def _accelerator_coverage(results: pl.DataFrame) -> list[str]:
    """Per release, how result rows are classed by the accelerator registry."""
    if "is_accelerator_mapped" not in results.columns:
        return []
    unclassified = (
        pl.col("is_accelerator_unclassified")
        if "is_accelerator_unclassified" in results.columns
        else pl.lit(False)
    )
    mapped = pl.col("is_accelerator_mapped").fill_null(False)
    cpu, mixed = pl.col("is_cpu_only"), pl.col("is_mixed_accelerators")
    per_release = (
        results.group_by("release")
        .agg(
            pl.len().alias("rows"),
            (mapped & ~cpu & ~mixed & ~unclassified).sum().alias("chip"),
            (mapped & mixed).sum().alias("mixed"),
            (mapped & cpu).sum().alias("cpu"),
            unclassified.fill_null(False).sum().alias("unclassified"),
            (~mapped).sum().alias("unmapped"),
        )
        .with_columns(order=_release_index(release_order(results["release"].unique())))
        .sort("order")
        .with_columns(
            [
                pl.col(c).cast(pl.String).alias(f"c_{c}")
                for c in ("rows", "chip", "mixed", "cpu", "unclassified", "unmapped")
            ],
            c_release=escape(pl.col("release")),
            c_share=pl.format(
                "{}%", (100 * pl.col("unmapped") / pl.col("rows")).round(2)
            ),
        )
    )
    names = (
        results.filter(~mapped)
        .group_by("accelerator_name")
        .agg(
            pl.len().alias("rows"),
            pl.col("release").unique().sort().alias("releases"),
        )
        .sort(["rows", "accelerator_name"], descending=[True, False], nulls_last=True)
        .with_columns(
            c_name=escape(pl.col("accelerator_name").fill_null(NO_NAME)),
            c_rows=pl.col("rows").cast(pl.String),
            c_releases=escape(pl.col("releases").list.join(", ")),
        )
    )
    return [
        "## Accelerator coverage\n",
        "How every result row is classed by the reviewed accelerator registry "
        "(`pipeline/registry/accelerators.toml`): a single chip, a mixed system, a "
        "CPU-only system (classed by host CPU), a name the registry lists as "
        "unclassified with a reason, or unmapped. Only single chips enter generation "
        "ratios and per-accelerator numbers.\n",
        html_table(
            per_release,
            {
                "c_release": "Release",
                "c_rows": "Rows",
                "c_chip": "Single chip",
                "c_mixed": "Mixed",
                "c_cpu": "CPU only",
                "c_unclassified": "Unclassified",
                "c_unmapped": "Unmapped",
                "c_share": "Unmapped share",
            },
            numeric=(
                "c_rows",
                "c_chip",
                "c_mixed",
                "c_cpu",
                "c_unclassified",
                "c_unmapped",
            ),
        ),  # fmt: skip
        "### Unmapped accelerator names\n",
        html_table(
            names,
            {"c_name": "Accelerator name", "c_rows": "Rows", "c_releases": "Releases"},
            numeric=("c_rows",),
        )  # fmt: skip
        or "_Every accelerator name is in the registry._\n",
    ]


# --- entry point -------------------------------------------------------------------


def _clean(out_dir: Path) -> None:
    """Empty the generated folder, keeping the cached JavaScript bundle."""
    if out_dir.name != GENERATED:
        raise ValueError(
            f"render_site writes into a folder named {GENERATED!r}: {out_dir}"
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    for child in out_dir.iterdir():
        if child.name == "assets":
            continue
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()


def render_site(
    data: SiteData,
    out_dir: Path,
    *,
    bundle: bool = True,
    extra_pages: Mapping[str, str] | None = None,
    release_notes: Callable[[str, str], str] | None = None,
    extra_tables: Mapping[str, tuple[pl.DataFrame, str]] | None = None,
) -> list[Path]:
    """Write every generated page, chart, download and script of the website.

    Args:
        data: The frames and facts to show.
        out_dir: The ``generated`` folder inside MkDocs' docs_dir (``site/generated``).
            It is emptied first (except ``assets/``), so it must hold nothing else.
        bundle: Also write the Vega JavaScript bundle (skipped when already current).
        extra_pages: More generated pages, path under ``out_dir`` -> Markdown (for
            example ``{"claims.md": render_claims_page(...)}``). They are written
            after the folder is emptied; list them in ``mkdocs.yml``'s nav.
        release_notes: ``(release, page path) -> Markdown`` added near the top of
            each release page, e.g. links to that release's corrections and claims.
        extra_tables: More downloads on the Data page: name -> (frame, description).

    Returns:
        Every file written.

    Raises:
        ValueError: ``out_dir`` is not named ``generated``.
    """
    _clean(out_dir)
    results = with_names(with_accelerators(data.results))
    site = _Site(
        data=data, results=results, out_dir=out_dir, releases=release_order(
            results["release"].unique()
        )
    )  # fmt: skip
    site.rounds = round_status(site.releases)
    histories = history_page.build_histories(data.results)
    page_gains = data.gains.filter(pl.col("identity_level").is_in(PAGE_GAIN_LEVELS))
    pairs = {
        name: with_names(_merge_levels(_with_vendor(frame, results)))
        for name, frame in (
            ("gains", page_gains),
            ("generations", data.generations),
            ("scaling", data.scaling),
        )
    }
    benchmarks = sorted(results["benchmark"].drop_nulls().unique().to_list())
    site.slugs = {
        "releases": unique_slugs(site.releases),
        # Pair frames may name a benchmark without results (their links then dangle
        # as before); they still need a unique anchor.
        "benchmarks": unique_slugs(
            benchmarks
            + [
                b
                for frame in pairs.values()
                for b in frame["benchmark"].drop_nulls().unique().to_list()
            ]
        ),
    }
    _home(site, pairs, histories)
    if site.releases:
        latest = site.releases[-1]
        _release_page(
            site,
            latest,
            "latest.md",
            title=f"Latest release: {escape(latest)}",
            top_n=LATEST_TOP_N,
            notes=release_notes,
        )
    else:
        site.write_page("latest.md", "# Latest release\n\nNo results yet.\n")
    _pairs_page(site, GAINS, pairs["gains"])
    _pairs_page(site, GENERATIONS, pairs["generations"])
    _pairs_page(site, SCALING, pairs["scaling"])
    release_pages = {
        r: _release_page(
            site,
            r,
            site.page_of("releases", r),
            title=f"MLPerf Inference {escape(r)}",
            top_n=None,
            notes=release_notes,
        )
        for r in reversed(site.releases)
    }
    _releases_index(site)
    best = _best_per_accelerator(results)
    benchmark_pages = {b: _benchmark_page(site, b, best) for b in benchmarks}
    _benchmarks_index(site, benchmarks)
    history_page.render_history_page(site, histories, site.rounds, METHODOLOGY)
    flagged = flagged_pairs((data.gains, data.generations, data.scaling))
    tables = {
        "results": data.results,
        "rejected": data.rejected,
        "software_gains": data.gains,
        "generation_ratios": data.generations,
        "scaling": data.scaling,
        "snapshots": data.snapshots,
        "accelerator_histories": histories,
        "flagged_pairs": flagged,
    }
    if data.crosscheck is not None:
        tables["crosscheck"] = data.crosscheck
    downloads = write_downloads(
        {k: (v, TABLE_DESCRIPTIONS[k]) for k, v in tables.items()}
        | dict(extra_tables or {}),
        out_dir / "downloads",
    )
    site.written += [p for d in downloads for p in (d.csv, d.parquet)]
    _data_page(site, downloads)
    _audit_page(site, flagged)
    nav = {
        f"{GENERATED}/releases/index.md": [
            {escape(r): p} for r, p in release_pages.items()
        ],
        f"{GENERATED}/benchmarks/index.md": [
            {escape(b): p} for b, p in benchmark_pages.items()
        ],
    }
    for rel, text in (extra_pages or {}).items():
        site.write_page(rel, text)
    nav_path = out_dir / "partials" / "nav.json"
    nav_path.write_text(json.dumps(nav, indent=1), encoding="utf-8")
    site.written.append(nav_path)
    index_path = out_dir / PAGE_INDEX
    index_path.write_text(
        json.dumps(
            {
                "releases": {r: site.page_of("releases", r) for r in release_pages},
                "benchmarks": {
                    b: site.page_of("benchmarks", b) for b in benchmark_pages
                },
            },
            indent=1,
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    site.written.append(index_path)
    if bundle:
        site.written.append(write_bundle(out_dir / "assets" / "js"))
    return site.written
