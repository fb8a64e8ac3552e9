"""The pair display model: each pair's cells, merged levels, tables, headline numbers.

Software gains, generation ratios and scaling steps come from the analyses
(``pipeline.analysis``); this module lays them out the one way every page shows them:
the end cells (release, linked value, submitter, system, chips, weight precision,
result ID and how to cite), the ratio (per accelerator first across sizes), the
flag and precision badges, the sortable table, the headline numbers and the
definitions each kind states. The pair pages (``pairs_pages``), What's new, Home and
the accelerator pages show slices of the frames built here once per render
(``prepare.build_model``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import polars as pl

from pipeline.analysis.plausibility import (
    STRICTEST_LEVEL,
    headline_pairs,
    warned,
    warning_ids,
)
from pipeline.render import charts, safe
from pipeline.render.cite import cite_rounds, with_citation
from pipeline.render.context import (
    GENERATED,
    METHODOLOGY,
    chips,
)
from pipeline.render.coverage import (
    NOT_IN_SOURCE,
    held_between_expr,
)
from pipeline.render.model import Slugs
from pipeline.render.safe import Md, MdExpr
from pipeline.render.site_data import (
    release_order,
    system_label,
    vendor_of,
)
from pipeline.render.system_ids import system_link
from pipeline.render.tables import (
    html_table,
    markdown_table,
    number_cell,
    page_links,
    percent_cell,
    ratio_cell,
    relative,
    result_cell,
)


def _end_cell(suffix: str, *, linked: bool = False) -> MdExpr:
    """One end of a pair in one cell: release and linked value, then a disclosure.

    The disclosure's summary names the submitter, system and chips; opened, it adds
    the software, availability, the official result ID (the identifier to cite; the
    result key stays the site's own) and the line to cite the result by
    (``citation{suffix}``, from ``cite.with_citation``).
    """

    def col(name: str) -> pl.Expr:
        return pl.col(f"{name}{suffix}")

    per_accelerator = safe.when(
        pl.col("is_per_accelerator") & col("result_per_accelerator").is_not_null(),
        safe.fmt(" ({} per accelerator)", number_cell(col("result_per_accelerator"))),
        "",
    )
    value = result_cell(
        col("result_value"),
        col("result_url"),
        None,
        col("is_preview"),
        col("is_inferred"),
        col("is_inferred_unverified"),
    )
    return safe.concat(
        safe.fmt("<b>{}</b> ", col("release")),
        value.fill_null("—"),
        safe.fmt(" {}", pl.col("result_unit")),
        per_accelerator,
        # Who and on what stays visible as the disclosure's summary; software (often
        # hundreds of characters), availability and the key open on demand, so a row
        # is two lines tall.
        safe.fmt(
            '<details class="ledger-more"><summary>{} · {} · {} · {}</summary>',
            col("submitter"),
            system_label(suffix),
            chips(
                f"total_accelerators{suffix}",
                f"accelerator_name{suffix}",
                f"nodes{suffix}",
            ),
            _precision(suffix),
        ),
        safe.fmt(
            "software: {} · {}<br>weight data types as declared: {}<br>{}"
            "<code>{}</code>{}"
            '<br><small class="ledger-cite">How to cite: {}</small></details>',
            col("software").fill_null("not stated"),
            col("availability"),
            col("weight_data_types").fill_null(NOT_DECLARED),
            safe.when(
                col("result_id").is_not_null(),
                safe.fmt("result ID <b>{}</b> · key ", col("result_id")),
                "no result ID · key ",
            ),
            col("result_key"),
            safe.fmt("<br>{}", system_link(suffix)) if linked else "",
            col("citation"),
        ),
    )


#: An end whose result declares no weight data types (every raw-tree round).
NOT_DECLARED = "not declared"


#: Flags whose badge is the change itself ("fp16 → fp8"), not the rule's id.
PRECISION_FLAGS = ("precision_change", "precision_differs")


def _precision(suffix: str) -> pl.Expr:
    """An end's weight precision as the precisions registry reads it."""
    return pl.format("weights {}", pl.col(f"weight_precision{suffix}")).fill_null(
        "weights " + NOT_DECLARED
    )


def precision_badge() -> MdExpr:
    """The change ("fp16 → fp8") as a badge where the ends declare two precisions.

    Red on a software gain (not software alone, ``precision_change`` is a warning),
    blue elsewhere (a label: a new chip's narrower format).
    """
    return safe.when(
        pl.col("precision_change").is_not_null(),
        safe.fmt(
            '<span class="ledger-badge ledger-badge--{}" title="weight precision'
            ' of the older → newer end">{}</span>',
            safe.when(pl.col("kind") == "software_gain", "flag", "label"),
            pl.col("precision_change"),
        ),
        "",
    )


def _ratio_cell() -> MdExpr:
    """The ratio, labelled per accelerator where the two ends differ in size.

    A per-accelerator pair of a 72-chip rack and an 8-chip server leads with the
    per-accelerator ratio (what the pair compares) and gives the total ratio beside
    it, labelled with both counts, so neither reads as the other. Both are ``> 1``
    when the newer end is better. Pairs of one size show their one ratio (per
    accelerator it is the total ratio).
    """
    old, new = pl.col("total_accelerators_old"), pl.col("total_accelerators_new")
    sized = pl.col("is_per_accelerator") & old.is_not_null() & new.is_not_null()
    total = (
        pl.when(pl.col("is_higher_better"))
        .then(pl.col("result_value_new") / pl.col("result_value_old"))
        .otherwise(pl.col("result_value_old") / pl.col("result_value_new"))
    )
    plain = ratio_cell(pl.col("ratio")).fill_null("—")
    return safe.when(
        sized & (old != new),
        safe.fmt(
            "{} <small>per accelerator</small><br>"
            "<small>total ({} vs {} accelerators): {}</small>",
            plain,
            old,
            new,
            ratio_cell(total).fill_null("—"),
        ),
        plain,
    )


def _flag_cell() -> MdExpr:
    """Badges naming a pair's plausibility flags; the reasons open under them.

    A precision flag is shown as the change itself (``precision_badge``), not here.
    """
    shown = (
        pl.col("flags")
        .fill_null([])
        .list.eval(pl.element().filter(~pl.element().is_in(list(PRECISION_FLAGS))))
    )
    badges = safe.each_of(
        shown,
        safe.fmt(
            '<span class="ledger-badge ledger-badge--{}">{}</span>',
            safe.when(pl.element().is_in(warning_ids()), "flag", "label"),
            pl.element().str.replace_all("_", " ", literal=True),
        ),
        " ",
    )
    return safe.when(
        shown.list.len() > 0,
        safe.fmt(
            '<details class="ledger-more"><summary>{}</summary>'
            '<small class="ledger-flag-reason">{}</small></details>',
            badges,
            pl.col("flag_reasons").fill_null(""),
        ),
        "",
    )


def pair_cells(pairs: pl.DataFrame, rounds: pl.DataFrame | None = None) -> pl.DataFrame:
    """Display cells of pair rows, computed once per page for all its tables.

    A pair names the known upstream rounds between its ends that the source lacks,
    from its own ``rounds_not_in_source`` ("skips v3.0, v3.1, v4.0: not in source"),
    and with ``rounds`` (``coverage.round_status``) the rounds between them that the
    ledger holds ("; v5.1: in source").
    """
    missing = pl.col("rounds_not_in_source")
    parts = [
        pl.when(missing.list.len() > 0).then(
            pl.format("{}: {}", missing.list.join(", "), pl.lit(NOT_IN_SOURCE))
        )
    ]
    if rounds is not None:
        parts.append(
            held_between_expr(pl.col("release_old"), pl.col("release_new"), rounds)
        )
    note = pl.concat_str(parts, separator="; ", ignore_nulls=True).fill_null("")
    skipped = pl.when(note != "").then(pl.lit("skips ") + note).otherwise(pl.lit(""))
    efficiency = percent_cell(pl.col("efficiency")).fill_null("—")
    comparison = safe.fmt(
        "{} · {}<br><small>{} · {}{}</small>",
        pl.col("benchmark"),
        pl.col("scenario"),
        pl.col("division"),
        charts.reading_label(pl.col("identity_level"), pl.col("kind")),
        safe.when(pl.col("is_per_accelerator"), safe.lit(" · per accelerator"), ""),
    )
    cited = with_citation(
        with_citation(pairs.lazy(), cite_rounds(), suffix="_old"),
        cite_rounds(),
        suffix="_new",
    ).collect()
    # Generation pairs carry their break-even price (``cost.with_break_even``).
    break_even = (
        {
            "c_break_even": safe.when(
                pl.col("break_even_price_ratio").is_not_null(),
                safe.fmt(
                    "&lt; {} <small>the predecessor's price per "
                    "accelerator-hour</small>",
                    ratio_cell(pl.col("break_even_price_ratio")),
                ),
                "—",
            ).cell()
        }
        if "break_even_price_ratio" in pairs.columns
        else {}
    )
    return cited.with_columns(
        **break_even,
        c_ratio=_ratio_cell().cell(),
        c_efficiency=efficiency.cell(),
        c_comparison=(
            comparison
            + safe.when(skipped != "", safe.fmt("<br><small>{}</small>", skipped), "")
            + safe.when(
                pl.col("precision_change").is_not_null(),
                safe.fmt(" {}", precision_badge()),
                "",
            )
            + _flag_cell()
        ).cell(),
        c_old=_end_cell("_old", linked="system_id_old" in pairs.columns).cell(),
        c_new=_end_cell("_new", linked="system_id_new" in pairs.columns).cell(),
    )


#: The break-even column's title: derived, and what it bounds.
BREAK_EVEN_TITLE = "Break-even price (derived)"


def pair_table(
    cells: pl.DataFrame,
    ends: tuple[str, str],
    *,
    with_efficiency: bool = False,
    efficiency_title: str = "Efficiency",
    limit: int | None = None,
) -> str:
    """A sortable table of pairs (from ``pair_cells``): headline pairs first.

    Within each group the best ratio leads; a looser reading (another submitter's
    best, per accelerator across sizes) never ranks above a strict pair.
    """
    if cells.height == 0:
        return "_No pairs._\n"
    order = [c for c in ("is_headline", "is_strict") if c in cells.columns]
    shown = cells.sort(
        [*order, "ratio"], descending=True, nulls_last=True, maintain_order=True
    )
    if limit is not None:
        shown = shown.head(limit)
    columns = {"c_ratio": "Ratio"}
    if with_efficiency:
        columns["c_efficiency"] = efficiency_title
    if "c_break_even" in cells.columns:
        columns["c_break_even"] = BREAK_EVEN_TITLE
    columns |= {"c_comparison": "Compared", "c_old": ends[0], "c_new": ends[1]}
    return html_table(
        shown,
        columns,
        numeric=("c_ratio", "c_efficiency", "c_break_even"),
        wide=("c_old", "c_new"),
        searchable=False,
    )


def with_vendor(pairs: pl.DataFrame, results: pl.DataFrame) -> pl.DataFrame:
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


def merge_levels(pairs: pl.DataFrame) -> pl.DataFrame:
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


def latest_pairs(pairs: pl.DataFrame) -> pl.DataFrame:
    """Pairs whose newer end is in the newest release that has any pairs."""
    present = release_order(pairs["release_new"].unique())
    return pairs.filter(pl.col("release_new") == present[-1]) if present else pairs


def pair_label() -> pl.Expr:
    """A pair's name in charts: scenario, newer end's submitter and system."""
    # Scenario first: a label shortened on the axis keeps what tells rows apart; the
    # chips are the colour (generations) and every name is whole in the tooltip.
    return pl.format(
        "{} · {} · {}",
        pl.col("scenario"),
        pl.col("submitter_new"),
        system_label("_new"),
    )


@dataclass(frozen=True)
class PairPage:
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
        """The page name without ``.md``: prefix of its anchors and charts."""
        return self.rel.removesuffix(".md")


#: Unflagged pairs only, at the strictest identity level of each kind
#: (``pipeline.analysis.plausibility.headline_pairs``); Methodology repeats these.
HEADLINE_DEFINITIONS = {
    "gains": "software-only gain of one submitter's same system (same accelerator, "
    "accelerator count and nodes) since its previous round with a result, newer ÷ "
    "older result; pairs without a plausibility warning only.",
    "generations": "successor ÷ predecessor accelerator, both results from one "
    "submitter at the same accelerator count in the same round, benchmark, scenario "
    "and division; pairs without a warning only.",
    "scaling": "one submitter's one system family (same accelerator, accelerators per "
    "node and software) at two accelerator counts in one round; efficiency = "
    "throughput ratio ÷ count ratio (100% = linear); pairs without a warning only, "
    "never a size comparison.",
}


GAINS = PairPage(
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


GENERATIONS = PairPage(
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


SCALING = PairPage(
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


def compare_by(kind: str) -> tuple[pl.Expr, str]:
    """What a pair chart's colour tells apart, and the legend's title."""
    if kind == "generations":
        # "NVIDIA GB300 → Vera Rubin": the vendor once when both chips share it, so
        # the legend fits a phone; tooltips and tables name both chips whole.
        vendor = pl.col("chip_old").str.extract(r"^(\S+ )", 1)
        shared = vendor.is_not_null() & pl.col("chip_new").str.starts_with(
            vendor.fill_null("")
        )
        successor = (
            pl.when(shared)
            .then(pl.col("chip_new").str.slice(vendor.str.len_chars()))
            .otherwise(pl.col("chip_new"))
        )
        return (
            pl.format("{} → {}", pl.col("chip_old"), successor),
            "predecessor → successor",
        )
    if kind == "scaling":
        return pl.format("{} · {}", pl.col("submitter_new"), pl.col("chip_new")), (
            "system family"
        )
    return pl.col("chip_new"), "accelerator"


def pair_chart(
    spec: PairPage, pairs: pl.DataFrame, title: str
) -> tuple[charts.Spec, pl.DataFrame]:
    """The chart of one group of pairs of ``spec``'s kind."""
    compare, compare_title = compare_by(spec.kind)
    if spec.kind == "scaling":
        return charts.scaling_chart(pairs, title=title, compare=compare)
    return charts.pair_ratio_chart(
        pairs,
        title=title,
        label=pair_label(),
        ends=(spec.ends[0].lower(), spec.ends[1].lower()),
        compare=compare,
        compare_title=compare_title,
    )


#: A number and how it is written (``ratio`` or ``percent``).
_Number = tuple[Callable[[pl.Expr], MdExpr], object]


def _formatted(values: list[_Number]) -> list[Md]:
    """The numbers as text ("—" for none): one query per format, not one per number.

    Formatting costs milliseconds per query however few the rows, and a pairs page
    states a handful of numbers for each of its benchmarks.
    """
    texts: list[Md] = [Md("")] * len(values)
    for fmt in (ratio_cell, percent_cell):
        at = [i for i, (f, _) in enumerate(values) if f is fmt]
        if not at:
            continue
        column = pl.Series("v", [values[i][1] for i in at], dtype=pl.Float64)
        formatted = safe.values(pl.DataFrame([column]), fmt(pl.col("v")))
        for i, text in zip(at, formatted, strict=True):
            texts[i] = text or Md("—")
    return texts


def _headline_values(kind: str, shown: pl.DataFrame) -> list[_Number]:
    if kind == "scaling":
        top = shown.sort("ratio", descending=True, nulls_last=True).row(0, named=True)
        return [
            (percent_cell, shown["efficiency"].median()),
            (ratio_cell, top["ratio"]),
            (percent_cell, top["efficiency"]),
        ]
    return [(ratio_cell, shown["ratio"].median()), (ratio_cell, shown["ratio"].max())]


def _headline_sentence(kind: str, texts: list[Md]) -> Md:
    if kind == "scaling":
        return Md("median efficiency **{}**, largest **{}** at {} efficiency").format(
            *texts
        )
    return Md("median **{}**, largest **{}**").format(*texts)


def headline_numbers(kind: str, shown: pl.DataFrame) -> Md:
    """Median and largest ratio of headline pairs (scaling: median efficiency)."""
    return _headline_sentence(kind, _formatted(_headline_values(kind, shown)))


def many_headline_numbers(
    kind: str, shown: Mapping[str, pl.DataFrame]
) -> dict[str, Md]:
    """``headline_numbers`` of several frames (none empty), formatted together."""
    values = {key: _headline_values(kind, frame) for key, frame in shown.items()}
    texts = iter(_formatted([v for numbers in values.values() for v in numbers]))
    return {
        key: _headline_sentence(kind, [next(texts) for _ in numbers])
        for key, numbers in values.items()
    }


def definition_block(spec: PairPage) -> Md:
    """The definition every headline and summary of ``spec`` states."""
    return Md('<p class="ledger-definition"><b>Definition:</b> {}</p>\n').format(
        spec.definition
    )


def one_per_system(pairs: pl.DataFrame) -> pl.DataFrame:
    """Each newer-end system's largest pair only: a top-N names N systems."""
    return pairs.sort(["ratio", "result_key_new"], descending=[True, False]).unique(
        ["submitter_new", "system_name_new"], keep="first", maintain_order=True
    )


def page_summary(page: str, spec: PairPage, pairs: pl.DataFrame) -> list[str]:
    """The page's headline sentence, its definition, and the flag count."""
    shown = pairs.filter("is_headline")
    flagged = pairs.filter(warned()).height
    if shown.height:
        rounds = release_order(shown["release_new"].unique())
        scope = rounds[0] if len(rounds) == 1 else f"{rounds[0]} to {rounds[-1]}"
        sentence = Md("**{:,} {}** ({}): {}.\n").format(
            shown.height, spec.noun, scope, headline_numbers(spec.kind, shown)
        )
    else:
        sentence = Md(
            "No {} at the strictest reading is without a plausibility warning.\n"
        ).format(spec.noun)
    return [
        sentence,
        definition_block(spec),
        Md(
            "{:,} of the {:,} pairs below carry a plausibility warning (see "
            "[Methodology]({})): they keep their place in the tables, with a badge "
            "and the reason, and never enter a summary, a headline or a top-N list.\n"
        ).format(flagged, pairs.height, relative(page, METHODOLOGY)),
    ]


def summary_table(spec: PairPage, pairs: pl.DataFrame, links: dict[str, str]) -> str:
    """Per benchmark: its page, every pair, the flagged ones, the headline numbers."""
    headline = pl.col("is_headline")
    summary = (
        pairs.group_by("benchmark")
        .agg(
            pl.len().alias("pairs"),
            warned().sum().alias("flagged"),
            headline.sum().alias("headline"),
            pl.col("ratio").filter(headline).median().alias("median"),
            pl.col("ratio").filter(headline).min().alias("min"),
            pl.col("ratio").filter(headline).max().alias("max"),
            pl.col("efficiency").filter(headline).median().alias("efficiency"),
        )
        .sort("benchmark")
        .with_columns(
            c_benchmark=page_links(pl.col("benchmark"), links).cell(),
            c_pairs=pl.col("pairs"),
            c_flagged=pl.col("flagged"),
            c_headline=pl.col("headline"),
            c_median=ratio_cell(pl.col("median")).fill_null("—").cell(),
            c_range=safe.fmt(
                "{} – {}", ratio_cell(pl.col("min")), ratio_cell(pl.col("max"))
            )
            .fill_null("—")
            .cell(),
            c_efficiency=percent_cell(pl.col("efficiency")).fill_null("—").cell(),
        )
    )
    strict = (
        "Scaling, no warning" if spec.kind == "scaling" else "Strictest, no warning"
    )
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
    return Md(
        "Medians and ranges count the strictest pairs without a warning only (the "
        "definition above); *Pairs* counts every row of the tables.\n\n"
    ) + markdown_table(
            summary,
            columns,
            numeric=("c_pairs", "c_flagged", "c_headline", "c_median", "c_efficiency"),
        )  # fmt: skip


#: Size comparisons listed on a scaling page per scenario (all are in the download).
SIZE_ROWS_SHOWN = 25


def size_comparisons(page: str, pairs: pl.DataFrame, ends: tuple[str, str]) -> str:
    """Best results at two sizes from any submitter, folded away: not scaling."""
    more = Md("")
    if pairs.height > SIZE_ROWS_SHOWN:
        download = relative(page, f"{GENERATED}/downloads/scaling.csv")
        more = Md(
            "<p>The {} largest are listed; all {:,} are "
            'in the <a href="{}">scaling download</a>.</p>\n\n'
        ).format(SIZE_ROWS_SHOWN, pairs.height, download)
    table = pair_table(
        pairs,
        ends,
        with_efficiency=True,
        efficiency_title="Ratio ÷ count growth",
        limit=SIZE_ROWS_SHOWN,
    )
    return Md(
        "\n<details><summary>{:,} size comparison(s): the best result at each size "
        "from any submitter; not scaling, never in a summary</summary>\n\n"
        "{}{}</details>\n"
    ).format(pairs.height, more, table)


def pair_page_of(slugs: Slugs, spec: PairPage, benchmark: str) -> str:
    """The page of one benchmark's pairs of ``spec``, under ``generated/``."""
    return f"{spec.stem}/{slugs.entity_slug('benchmarks', benchmark)}.md"


def rounds_through(rounds: pl.DataFrame, pairs: pl.DataFrame) -> pl.DataFrame:
    """The rounds a page's skip notes can name: up to the newest round of its pairs.

    A new round changes its own status only, so pages of older pairs keep theirs.
    """
    held = set(pairs["release_old"].to_list()) | set(pairs["release_new"].to_list())
    order = rounds["release"].to_list()
    last = max((order.index(r) for r in held if r in order), default=len(order) - 1)
    return rounds.head(last + 1)
