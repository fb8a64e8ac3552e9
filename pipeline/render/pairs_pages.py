"""The derived pair pages: software gains, hardware generations and scaling.

One page per benchmark of each kind (a chart and a table per release pair or
scenario) and one index per kind; the pairs' cells, tables, charts and headline
numbers are the pair display model's (``pair_views``), which What's new, Home and
the accelerator pages show slices of too.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis.plausibility import (
    warned,
)
from pipeline.render import charts
from pipeline.render.context import (
    GENERATED,
    notice,
    page_link,
    sorted_groups,
)
from pipeline.render.coverage import (
    skip_note,
)
from pipeline.render.model import Model, Slugs
from pipeline.render.pair_views import (
    GAINS,
    GENERATIONS,
    SCALING,
    PairPage,
    compare_by,
    definition_block,
    many_headline_numbers,
    page_summary,
    pair_chart,
    pair_label,
    pair_page_of,
    pair_table,
    rounds_through,
    size_comparisons,
    summary_table,
)
from pipeline.render.safe import Md, md_join
from pipeline.render.slugs import slug
from pipeline.render.spec import Draft, PageSpec, Rendered


def _scaling_sections(
    draft: Draft,
    slugs: Slugs,
    page: str,
    spec: PairPage,
    benchmark: str,
    pairs: pl.DataFrame,
) -> list[str]:
    """Per scenario and unit: a chart and table of scaling, then size comparisons."""
    parts = []
    for scenario, unit, part in charts.split_by_unit(pairs):
        parts.append(Md("\n## {} · {}\n").format(scenario, unit))
        strict = part.filter("is_strict")
        if strict.height:
            name = "-".join(
                [
                    spec.stem,
                    slugs.entity_slug("benchmarks", benchmark),
                    slug(scenario),
                    slug(unit),
                ]
            )
            built = pair_chart(spec, strict, f"{benchmark} · {scenario} · {unit}")
            caption = f"Scaling: {benchmark} {scenario} ({unit})"
            parts.append(draft.chart(page, built, name, caption))
            parts.append(pair_table(strict, spec.ends, with_efficiency=True))
        else:
            parts.append(
                "No scaling pair: no submitter ran one system family at two sizes "
                "here.\n"
            )
        sizes = part.filter(~pl.col("is_strict"))
        if sizes.height:
            parts.append(size_comparisons(page, sizes, spec.ends))
    return parts


def _benchmark_summary(pairs: pl.DataFrame, headline: str | None) -> str:
    """One sentence: this benchmark's pairs, headline numbers, flags.

    ``headline``: ``headline_numbers`` of the headline pairs (None: there are none).
    """
    shown = pairs.filter("is_headline")
    flagged = pairs.filter(warned()).height
    numbers = (
        Md("{:,} at the strictest reading without a warning: {}").format(
            shown.height, headline
        )
        if shown.height
        else "none at the strictest reading without a warning"
    )
    return Md(
        "**{:,} pairs** ({}); {:,} carry a plausibility warning, shown with a badge "
        "and the reason.\n"
    ).format(pairs.height, numbers, flagged)


def render_benchmark(
    spec: PairPage,
    benchmark: str,
    slugs: Slugs,
    releases: tuple[str, ...],
    rounds: pl.DataFrame,
    pairs: pl.DataFrame,
    headline: str | None,
) -> Rendered:
    """One benchmark's pairs: a chart and a table per release pair or scenario.

    ``headline``: ``headline_numbers`` of its headline pairs (None: there are none);
    ``releases``: the releases of its pairs, in order; ``rounds``: the rounds its
    skip notes can name (``rounds_through``); ``slugs``: the benchmark's.
    """
    draft = Draft()
    rel = pair_page_of(slugs, spec, benchmark)
    page = f"{GENERATED}/{rel}"
    index = page_link(page, spec.rel)
    best = page_link(page, slugs.page_of("benchmarks", benchmark))
    parts = [
        Md("# {}: {}\n").format(spec.title, benchmark),
        notice(page),
        definition_block(spec),
        _benchmark_summary(pairs, headline),
        Md(
            "[All benchmarks]({}) · [Best results per accelerator for this "
            "benchmark]({})\n"
        ).format(index, best),
    ]
    if spec.kind == "scaling":
        parts += _scaling_sections(draft, slugs, page, spec, benchmark, pairs)
        return draft.done(draft.page(rel, "\n".join(parts)))
    sections = (
        sorted_groups(pairs, list(spec.sections), list(releases))
        if spec.sections
        else [((), pairs)]
    )
    for key, section in sections:
        words = [benchmark, " → ".join(key)] if key else [benchmark]
        if key:
            parts.append(Md("\n## {}\n").format(md_join(" → ", key)))
            if note := skip_note(key[0], key[-1], rounds):
                parts.append(Md("This pair of releases {}.\n").format(note))
        name = "-".join(
            [
                spec.stem,
                slugs.entity_slug("benchmarks", benchmark),
                *(slug(k) for k in key),
            ]
        )
        caption = f"{spec.title}: {' '.join(words)}"
        changed = pl.col("precision_change").is_not_null()
        apart = spec.kind == "gains" and section.filter(changed).height > 0
        main = section.filter(~changed) if apart else section
        if main.height:
            built = pair_chart(spec, main, " · ".join(w for w in words if w))
            parts.append(draft.chart(page, built, name, caption))
        parts.append(pair_table(main, spec.ends))
        if apart:
            parts.append(PRECISION_CHANGE_HEADING)
            parts.append(pair_table(section.filter(changed), spec.ends))
    return draft.done(draft.page(rel, "\n".join(parts)))


#: Software gains whose ends declare different weight precisions, listed apart.
PRECISION_CHANGE_HEADING = Md(
    "\n### With a weight-precision change: not software alone\n\n"
    "The two rounds declare different weight precisions (the badge names them). Both "
    "results are valid MLPerf results; the ratio mixes the narrower format's gain "
    "into the software's, so these pairs are not counted as software-only gains.\n"
)


def render_index(spec: PairPage, pairs: pl.DataFrame, slugs: Slugs) -> Rendered:
    """The index of one kind (summary by benchmark), linking its benchmark pages.

    Registers the benchmark pages as entity pages of the folder ``spec.stem``
    (``slugs.page_problems`` checks them); the index links them, the nav does not
    (``context.ENTITY_PAGES``).
    """
    draft = Draft()
    page = f"{GENERATED}/{spec.rel}"
    parts = [Md("# {}\n").format(spec.title), notice(page), spec.intro]
    if pairs.height == 0:
        parts.append("\n_No pairs in the current data._\n")
        draft.index(spec.stem, {})
        return draft.done(draft.page(spec.rel, "\n".join(parts)))
    benchmarks = sorted(pairs["benchmark"].unique().to_list())
    links = {b: page_link(page, pair_page_of(slugs, spec, b)) for b in benchmarks}
    parts += [
        "\n## Summary\n",
        *page_summary(page, spec, pairs),
        "One page per benchmark: follow its name for the charts and every pair.\n",
        summary_table(spec, pairs, links),
    ]
    draft.index(spec.stem, {b: pair_page_of(slugs, spec, b) for b in benchmarks})
    return draft.done(draft.page(spec.rel, "\n".join(parts)))


def kind_specs(model: Model, spec: PairPage) -> list[PageSpec]:
    """One page per benchmark of one kind, then the kind's index."""
    pairs = model.pairs[spec.kind]
    out = []
    if pairs.height:
        # Chart rows are prepared once for the kind, each chart takes its part's rows.
        compare = compare_by(spec.kind)[0]
        label = charts.scaling_label() if spec.kind == "scaling" else pair_label()
        cells = charts.with_pair_rows(pairs, label, compare)
        by_benchmark = cells.partition_by("benchmark", as_dict=True)
        shown = cells.filter("is_headline").partition_by("benchmark", as_dict=True)
        headlines = many_headline_numbers(
            spec.kind, {benchmark: rows for (benchmark,), rows in shown.items()}
        )
        for (benchmark,), bench_pairs in sorted(by_benchmark.items()):
            held = set(bench_pairs["release_old"].to_list()) | set(
                bench_pairs["release_new"].to_list()
            )
            inputs = {
                "spec": spec,
                "benchmark": benchmark,
                "slugs": model.names.only(benchmarks=[benchmark]),
                "releases": tuple(r for r in model.releases if r in held),
                "rounds": rounds_through(model.rounds, bench_pairs),
                "pairs": bench_pairs,
                "headline": headlines.get(benchmark),
            }
            kind = f"pairs-{spec.kind}"
            out.append(PageSpec(kind, render_benchmark, inputs, cached=True))
    index = {"spec": spec, "pairs": pairs, "slugs": model.names}
    out.append(PageSpec(f"pairs-{spec.kind}-index", render_index, index))
    return out


def specs(model: Model) -> list[PageSpec]:
    """The software-gains, generations and scaling pages."""
    kinds = (GAINS, GENERATIONS, SCALING)
    return [page for spec in kinds for page in kind_specs(model, spec)]
