"""What's new in a round: the comparisons its readers come for, built from the data.

For any round (Home and Latest show the newest; an accelerator page opens with its own
part): each accelerator against its registered predecessor at the same scale, per
benchmark and scenario; the largest software gains of one system since its previous
round; scaling at the largest size; the benchmarks new in the round with their
leaders. Every number is a pair the analyses published; only pairs without a
plausibility warning are shown (labels such as preview travel with them as badges).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from pipeline.analysis.plausibility import warned
from pipeline.render import charts, claim_notes, safe
from pipeline.render.context import (
    METHODOLOGY,
    new_in,
    notice,
    page_link,
)
from pipeline.render.model import Model
from pipeline.render.pair_views import (
    compare_by,
    headline_numbers,
    one_per_system,
    pair_table,
)
from pipeline.render.safe import Md, md_join
from pipeline.render.site_data import best_results, system_label
from pipeline.render.spec import Chart, Draft, Section
from pipeline.render.system_ids import system_link
from pipeline.render.tables import html_table, name_cell, relative, result_cell

#: Rows of each top list.
TOP = 5


def _in_round(pairs: pl.DataFrame, release: str) -> pl.DataFrame:
    return pairs.filter((pl.col("release_new") == release) & ~warned())


def successors(model: Model, release: str) -> pl.DataFrame:
    """Strict generation pairs of ``release``: one submitter, one scale.

    The strictest reading only (``is_strict``: both chips measured by one submitter
    at the same accelerator count); another submitter's best on the newer chip is a
    looser reading, kept on the generation pages. One per chip pair, benchmark,
    scenario, division, count and submitter: two submitters' pairs are both shown.
    Computed once per render and round (``model.Model.successors``): What's new and
    every accelerator page of the round read it.
    """
    found = model.successors.get(release)
    return found if found is not None else successors_of(model.pairs, release)


def successors_of(pairs: Mapping[str, pl.DataFrame], release: str) -> pl.DataFrame:
    """``successors`` computed from the pair frames (``prepare.build_model`` does)."""
    pairs = _in_round(pairs["generations"], release).filter(
        ~pl.col("is_per_accelerator") & pl.col("is_strict")
    )
    return pairs.sort(
        ["benchmark", "scenario", "result_key_new"],
    ).unique(
        [
            "chip_new", "chip_old", "benchmark", "scenario", "division",
            "total_accelerators_new", "submitter_new",
        ],
        keep="first",
        maintain_order=True,
    ).sort(["chip_new", "benchmark", "scenario", "division"])  # fmt: skip


def _successor_section(
    model: Model,
    page: str,
    release: str,
    pairs: pl.DataFrame,
    stem: str,
    only_new: bool,
) -> Section:
    new = set(new_in(model, release, "accelerator_id"))
    # The id the results carry (``site_data.with_accelerators``: the upstream name
    # where the registry has none).
    first = pl.coalesce("accelerator_id_new", "accelerator_name_new").is_in(list(new))
    ordered = pairs.sort(first, descending=True, maintain_order=True)
    rest = ""
    if only_new and ordered.filter(first).height:
        others = ordered.filter(~first).height
        ordered = ordered.filter(first)
        if others:
            latest = page_link(page, "latest.md")
            rest = Md(
                " The {:,} pairs of accelerators that appeared before {} are on "
                "[Latest release]({})."
            ).format(others, release, latest)
    heading = Md("\n### New accelerators against their predecessors in {}\n").format(
        release
    )
    if ordered.height == 0:
        return Section(
            heading,
            before=(
                Md(
                    "No accelerator in {} was measured at the same scale as its "
                    "registered predecessor in this round.\n"
                ).format(release),
            ),
        )
    names = sorted(set(ordered.filter(first)["chip_new"].to_list()))
    lead = Md("New in {}: {}. ").format(release, md_join(", ", names)) if names else ""
    compare, compare_title = compare_by("generations")
    title = f"Successor over predecessor at the same scale, {release}"
    chart = Chart(
        charts.ratio_strip_chart(
            ordered,
            title=title,
            ends=("predecessor", "successor"),
            compare=compare,
            compare_title=compare_title,
        ),
        f"{stem}-successors",
        title,
    )
    # The numbers first (a reader's first screen), the reading after the chart.
    steps = md_join(
        "; ",
        (
            Md("**{}** over {}").format(new_chip, old_chip)
            for new_chip, old_chip in ordered.select("chip_new", "chip_old")
            .unique(maintain_order=True)
            .iter_rows()
        ),
    )
    return Section(
        heading,
        before=(
            Md("{}: {} ({:,} comparisons).\n").format(
                steps, headline_numbers("generations", ordered), ordered.height
            ),
        ),
        chart=chart,
        after=(
            Md(
                "{}Each accelerator of {} against its registered predecessor on the "
                "same benchmark, scenario and division at the same accelerator count, "
                "both measured by one submitter: above 1× the successor is faster.{}\n"
            ).format(lead, release, rest),
            break_even_sentences(ordered),
        ),
        table=pair_table(ordered, ("Predecessor", "Successor")),
    )


def break_even_prices(pairs: pl.DataFrame) -> pl.DataFrame:
    """The lowest break-even price ratio per chip pair, benchmark and scenario.

    Throughput pairs only (a cost is per unit of work done per hour). Where several
    same-scale pairs (sizes, submitters, divisions) compare the two chips, the lowest
    ratio is the bound every one of them meets; ``pairs`` says how many there were.
    """
    if "break_even_price_ratio" not in pairs.columns:
        return pl.DataFrame()
    return (
        pairs.lazy()
        .filter(
            pl.col("break_even_price_ratio").is_not_null() & pl.col("is_higher_better")
        )
        .group_by("chip_new", "chip_old", "benchmark", "scenario", "result_unit")
        .agg(
            pl.col("break_even_price_ratio").min().alias("ratio"),
            pl.len().alias("pairs"),
        )
        .with_columns(
            unit=pl.col("result_unit")
            .str.strip_suffix("/s")
            .str.to_lowercase()
            .str.replace(r"ies$", "y")
            .str.strip_suffix("s")
        )
        .sort("chip_new", "benchmark", "scenario", "chip_old")
        .collect()
    )


def break_even_sentences(pairs: pl.DataFrame) -> Md:
    """One sentence per chip pair, benchmark and scenario: the break-even price.

    "NVIDIA Vera Rubin is cheaper per qwen3-vl-235b-a22b Interactive query as long
    as it costs less than 3.74× NVIDIA GB300's price per accelerator-hour": cost per
    unit = price per accelerator-hour / work per accelerator-hour, so the bound is
    the per-accelerator ratio. Derived, not an MLPerf result.
    """
    prices = break_even_prices(pairs)
    if prices.is_empty():
        return Md("")
    items = (
        Md(
            "- **{}** is cheaper per {} {} {} as long as it costs less than "
            "**{:.2f}×** {}'s price per accelerator-hour{}\n"
        ).format(
            new,
            benchmark,
            scenario,
            unit,
            ratio,
            old,
            Md("") if n == 1 else Md(" (the lowest of {:,} pairs)").format(n),
        )
        for new, old, benchmark, scenario, unit, ratio, n in prices.select(
            "chip_new", "chip_old", "benchmark", "scenario", "unit", "ratio", "pairs"
        ).iter_rows()
    )
    return Md(
        "\n**Break-even prices** (derived, not an MLPerf result: cost per unit of "
        "work = price per accelerator-hour / work per accelerator-hour, so the "
        "successor is cheaper while its price is below ratio × the predecessor's; "
        "throughput results at the same accelerator count):\n\n{}"
    ).format(md_join("", items))


def _headlines(model: Model, kind: str, release: str) -> pl.DataFrame:
    """The pairs of ``kind`` into ``release`` a headline may cite (``is_headline``)."""
    return model.pairs[kind].filter(
        (pl.col("release_new") == release) & pl.col("is_headline")
    )


def _gains_section(model: Model, release: str) -> Section:
    # Headline gains: one system's own, since its previous round, without a warning.
    best = one_per_system(_headlines(model, "gains", release))
    heading = "\n### Software gains since each system's previous round\n"
    if best.height == 0:
        return Section(
            heading,
            before=(
                Md("No system of {} has a result in an earlier round.\n").format(
                    release
                ),
            ),
        )
    return Section(
        heading,
        before=(
            Md(
                "The {} largest gains into {}, one per system: the same submitter's "
                "same system against its own previous round with a result.\n"
            ).format(min(TOP, best.height), release),
        ),
        table=pair_table(best, ("Older result", "Newer result"), limit=TOP),
    )


def _scaling_section(model: Model, release: str) -> Section:
    # The largest system of each benchmark and scenario, then the TOP largest.
    largest = (
        _headlines(model, "scaling", release)
        .sort(["total_accelerators_new", "ratio"], descending=[True, True])
        .unique(["benchmark", "scenario"], keep="first", maintain_order=True)
        .head(TOP)
    )
    heading = "\n### Scaling at the largest size\n"
    if largest.height == 0:
        return Section(
            heading,
            before=(Md("No system family of {} ran at two sizes.\n").format(release),),
        )
    return Section(
        heading,
        before=(
            "Per benchmark and scenario, the largest system that has a smaller one of "
            "its family in the round: one submitter, one system family, one software "
            "stack at two accelerator counts.\n",
        ),
        table=pair_table(
            largest,
            ("Smaller system", "Larger system"),
            with_efficiency=True,
        ),
    )


def _new_benchmarks_section(model: Model, release: str) -> Section:
    heading = Md("\n### Benchmarks new in {}\n").format(release)
    names = new_in(model, release, "benchmark")
    rows = model.results.filter(
        (pl.col("release") == release) & pl.col("benchmark").is_in(names)
    )
    if rows.height == 0:
        return Section(
            heading, before=(Md("No benchmark is new in {}.\n").format(release),)
        )
    leaders = (
        best_results(rows, ["benchmark", "scenario", "division"])
        .sort("benchmark", "scenario", "division")
        .with_columns(
            c_what=safe.fmt(
                "{} · {}<br><small>{}</small>",
                pl.col("benchmark"),
                pl.col("scenario"),
                pl.col("division"),
            ).cell(),
            c_leader=safe.fmt(
                "{} · {}{}",
                name_cell(pl.col("submitter")),
                name_cell(system_label()),
                safe.fmt("<br><small>{}</small>", system_link())
                if "system_id" in rows.columns
                else "",
            ).cell(),
            c_result=safe.concat(
                result_cell(
                    pl.col("result_value"),
                    pl.col("result_url"),
                    pl.col("result_key"),
                    pl.col("is_preview"),
                    pl.col("is_inferred"),
                    pl.col("is_inferred_unverified"),
                ),
                safe.fmt(" {}", pl.col("result_unit")),
            ).cell(),
        )
    )
    return Section(
        heading,
        before=(
            "The best published result of each new benchmark, per scenario and "
            "division (highest throughput, lowest latency).\n",
        ),
        table=html_table(
            leaders,
            {
                "c_what": "Benchmark · scenario",
                "c_leader": "Leader",
                "c_result": "Result",
            },
            numeric=("c_result",),
            searchable=False,
        ),
    )


def whats_new(
    model: Model,
    draft: Draft,
    page: str,
    release: str,
    stem: str,
    *,
    only_new: bool = False,
    between: Sequence[str] = (),
) -> list[str]:
    """The "What's new" section of ``release`` on ``page`` (docs-relative).

    ``stem`` names its chart files (one set per page); ``only_new``: of the
    generation pairs, show those of accelerators new in the round when it has any.
    ``between``: parts shown after the first comparison (its chart and table) and
    before the others: Home puts the round's numbers there, so its first screen is
    the story, with the notice in one line.
    """
    link = page_link(page, model.page_of("releases", release))
    source = Md(
        "Derived from the published results of [{}]({}); every ratio links both "
        "results it divides.\n"
    ).format(release, link)
    first, *rest = [
        draft.sections(page, [section])
        for section in (
            _successor_section(
                model, page, release, successors(model, release), stem, only_new
            ),
            _gains_section(model, release),
            _scaling_section(model, release),
            _new_benchmarks_section(model, release),
        )
    ]
    lead = [short_notice(page)] if between else [notice(page), source]
    return [
        Md("\n## What's new in {}\n").format(release),
        *lead,
        *first,
        *between,
        *(part for parts in rest for part in parts),
        claim_notes.release_note(model.verdicts, release, page, level=3),
    ]


def short_notice(page: str) -> Md:
    """The "derived, unofficial" notice in one paragraph, for a page's first screen."""
    return Md(
        "**Derived, unofficial — not MLPerf results:** ratios of published results, "
        "each linking both; not verified or endorsed by MLCommons Association "
        "([methodology]({})).\n"
    ).format(relative(page, METHODOLOGY))


def openings(model: Model) -> dict[str, tuple[str, pl.DataFrame]]:
    """Accelerator id -> the round and pairs of its page's opening.

    The strict reading only, as What's new: the round is the newest where the chip
    has such a pair, so the chart is never empty; the pairs are that round's
    ``successors`` of the chip. Accelerators without one are left out.
    """
    if "generations" not in model.pairs:  # a render of accelerator pages alone
        return {}
    strict = model.pairs["generations"].filter(
        ~pl.col("is_per_accelerator") & pl.col("is_strict") & ~warned()
    )
    order = {r: i for i, r in enumerate(model.releases)}
    newest = {
        accelerator: max(rounds, key=order.__getitem__)
        for accelerator, rounds in strict.group_by("accelerator_id_new")
        .agg(pl.col("release_new").unique())
        .iter_rows()
        if accelerator is not None
    }
    by_round = {
        release: successors(model, release).partition_by(
            "accelerator_id_new", as_dict=True
        )
        for release in set(newest.values())
    }
    out = {}
    for accelerator, release in newest.items():
        shown = by_round[release].get((accelerator,))
        if shown is not None and shown.height:
            out[accelerator] = (release, shown)
    return out


def accelerator_opening(
    draft: Draft, release: str | None, shown: pl.DataFrame | None, page: str, stem: str
) -> list[str]:
    """An accelerator page's opening: against its predecessor in its newest round.

    ``release`` and ``shown`` come from ``opening_pairs``; nothing when it has none.
    """
    if release is None or shown is None:
        return []
    predecessor = ", ".join(sorted(set(shown["chip_old"].to_list())))
    return [
        Md("\n## Against its predecessor in {}\n").format(release),
        Md(
            "Against {} at the same accelerator count, per benchmark and scenario "
            "(both chips measured by one submitter); above 1× this accelerator is "
            "faster. Derived, unofficial ratios; both results are linked.\n"
        ).format(predecessor),
        *draft.sections(
            page,
            [
                Section(
                    "",
                    chart=Chart(
                        charts.ratio_strip_chart(
                            shown,
                            title=f"Against {predecessor}, {release}",
                            ends=("predecessor", "this accelerator"),
                            compare=compare_by("generations")[0],
                            compare_title=compare_by("generations")[1],
                        ),
                        f"{stem}-predecessor",
                        f"Against {predecessor}, {release}",
                    ),
                    table=pair_table(shown, ("Predecessor", "Successor")),
                )
            ],
        ),
    ]
