"""Benchmark pages: the best result of every accelerator type, release after release."""

from __future__ import annotations

import polars as pl

from pipeline.registry.benchmark_tasks import load_tasks
from pipeline.render import charts, safe
from pipeline.render.context import (
    GENERATED,
    GROUP,
    page_link,
    release_index,
    sorted_groups,
)
from pipeline.render.model import Model, Slugs
from pipeline.render.safe import Md, MdExpr, md_join
from pipeline.render.site_data import OTHER_VENDOR
from pipeline.render.slugs import slug
from pipeline.render.spec import Chart, Draft, PageSpec, Rendered, Section
from pipeline.render.tables import (
    html_table,
    joined,
    markdown_table,
    page_links,
    result_cell,
)


def _task_line(benchmark: str) -> Md:
    """What the benchmark asks a system to do, from the reviewed registry, or ""."""
    task = load_tasks().get(benchmark)
    if task is None:
        return Md("")
    return Md(
        "**Task:** {} (reference application <code>{}</code>, dataset {}; {}).\n"
    ).format(
        task.task,
        task.reference,
        task.dataset,
        safe.link_md("MLCommons inference README", task.source_url),
    )


def _best_chart(
    best: pl.DataFrame, *, title: str, metric: str, releases: list[str]
) -> tuple[charts.Spec, pl.DataFrame]:
    """The best result of each accelerator type, one line per accelerator by round.

    Lines are coloured in their vendor's hue, one shade per accelerator, so the vendor
    reads at a glance and the legend still tells the chips apart. ``best`` holds one
    unit (the page makes a section per unit).
    """
    frame = best.select(
        "release",
        "result_unit",
        pl.col("accelerator_label").alias("accelerator"),
        pl.col("accelerator_vendor").fill_null(OTHER_VENDOR).alias("vendor"),
        "metric",
        "result_value",
        "total_accelerators",
        "submitter",
        "system_name",
        "result_key",
        "is_preview",
        "is_inferred",
        safe.chart_url(pl.col("result_url")).alias("url"),
    )
    y_scale = charts.value_scale(frame["metric"])
    return charts.release_lines_chart(
        frame,
        "best_per_accelerator",
        title=title,
        y_title=charts.axis_title(metric, y_scale),
        y_scale=y_scale,
        colour_scale=charts.accelerator_scale_spec(frame),
        releases=releases,
        metric=metric,
    )


def best_per_accelerator(results: pl.DataFrame) -> pl.DataFrame:
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


def _cell() -> MdExpr:
    """A best result's cell: the value linked, submitter and chip count under it."""
    return safe.concat(
        result_cell(
            pl.col("metric"),
            pl.col("result_url"),
            pl.col("result_key"),
            pl.col("is_preview"),
            pl.col("is_inferred"),
            pl.col("is_inferred_unverified"),
        ),
        safe.fmt(
            "<br><small>{} · {} ×</small>",
            pl.col("submitter"),
            pl.col("total_accelerators").cast(pl.String).fill_null("?"),
        ),
    )


def benchmark_page(
    benchmark: str,
    slugs: Slugs,
    releases: tuple[str, ...],
    best: pl.DataFrame,
    results: pl.DataFrame,
) -> Rendered:
    """A chart and table per scenario, division and unit of one benchmark.

    ``results``: the benchmark's rows of the model's results; ``best`` carries each
    row's ``cell`` (``_cell``); ``releases``: the releases of ``results``, in order;
    ``slugs``: the benchmark's and those releases'.
    """
    draft = Draft()
    rel = slugs.page_of("benchmarks", benchmark)
    page = f"{GENERATED}/{rel}"
    counts = dict(results.group_by("release").len().iter_rows())
    appearances = md_join(
        ", ",
        (
            Md("[{}]({}) ({:,})").format(
                r, page_link(page, slugs.page_of("releases", r)), counts[r]
            )
            for r in releases
            if r in counts
        ),
    )
    parts = [
        Md("# {}\n").format(benchmark),
        _task_line(benchmark),
        Md("Results per release: {}.\n").format(appearances),
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
        Md(
            "{:,} open-division results (the open division lets submitters replace "
            "the model)"
        ).format(left_out["open"])
        if left_out["open"]
        else "",
        Md("{:,} CPU-only results (no accelerator count to divide by)").format(
            left_out["cpu"]
        )
        if left_out["cpu"]
        else "",
    ]
    if any(reasons):
        parts.append(
            Md("Not shown here, listed on the release pages: {}.\n").format(
                md_join(" and ", (r for r in reasons if r))
            )
        )
    # One unit per chart: a metric that changed unit (MultiStream samples per query
    # before v2.0, latency from v2.0) gets a section per unit.
    sections = []
    for (scenario, division, unit), group in sorted_groups(
        best.filter(pl.col("benchmark") == benchmark),
        ["scenario", "division", "result_unit"],
    ):
        higher = bool(group["is_higher_better"].first())
        metric = f"{unit} per accelerator" if higher else f"{unit}, lower is better"
        present = [r for r in releases if r in set(group["release"])]
        built = _best_chart(
            group,
            title=f"{benchmark} · {scenario} · {division}",
            metric=metric,
            releases=present,
        )
        name = "-".join(
            [
                "benchmark",
                slugs.entity_slug("benchmarks", benchmark),
                slug(scenario),
                slug(division),
                slug(unit),
            ]
        )
        caption = f"{benchmark} {scenario} {division}: best {metric} by accelerator"
        cells = (
            group.with_columns(
                overall=pl.col("better_first").min().over("accelerator_id"),
            )
            .sort("overall", "accelerator_id")
            .pivot(
                on="release",
                index=["accelerator_id", "accelerator_label", "accelerator_vendor"],
                values="cell",
            )
            .with_columns(
                *[safe.col(r).fill_null("—").cell(r) for r in present],
                c_accelerator=pl.col("accelerator_label"),
                c_vendor=pl.col("accelerator_vendor"),
            )
        )
        columns = {"c_accelerator": "Accelerator", "c_vendor": "Vendor"}
        columns |= {r: Md.escape(r) for r in present}
        sections.append(
            Section(
                Md("\n## {} · {} · {}\n").format(scenario, division, str(unit)),
                chart=Chart(built, name, caption),
                after=(Md("\n{}, best per accelerator type:\n").format(metric),),
                table=html_table(
                    cells, columns, numeric=tuple(present), searchable=False
                ),
            )
        )
    parts += draft.sections(page, sections)
    return draft.done(draft.page(rel, "\n".join(parts)))


def benchmarks_index(model: Model) -> Rendered:
    """The Benchmarks index: releases, scenarios and result counts per benchmark."""
    page = f"{GENERATED}/benchmarks/index.md"
    links = {
        b: page_link(page, model.page_of("benchmarks", b)) for b in model.benchmarks
    }
    order = {r: i for i, r in enumerate(model.releases)}
    summary = (
        model.results.with_columns(index=release_index(list(model.releases)))
        .group_by("benchmark")
        .agg(
            pl.len().alias("results"),
            pl.col("index").unique().sort().alias("indexes"),
            pl.col("scenario").unique().sort().alias("scenarios"),
        )
        .sort("benchmark")
        .with_columns(
            c_benchmark=page_links(pl.col("benchmark"), links).cell(),
            c_results=pl.col("results"),
            c_releases=pl.col("indexes").list.eval(
                pl.element().replace_strict({i: r for r, i in order.items()})
            ),
        )
        .with_columns(
            c_releases=joined("c_releases").cell(),
            c_scenarios=joined("scenarios").cell(),
        )
    )
    text = Md(
        "# Benchmarks\n\nOne page per benchmark: the best result of every accelerator "
        "type in every release, with a chart per scenario and division.\n\n"
    ) + markdown_table(
        summary,
        {
            "c_benchmark": "Benchmark",
            "c_releases": "Releases",
            "c_scenarios": "Scenarios",
            "c_results": "Results",
        },
        numeric=("c_results",),
    )
    draft = Draft()
    draft.page("benchmarks/index.md", text)
    draft.index(
        "benchmarks", {b: model.page_of("benchmarks", b) for b in model.benchmarks}
    )
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """One page per benchmark, then the Benchmarks index listing them."""
    # Cells are row-wise: formatted once; each page takes its benchmark's rows.
    best = best_per_accelerator(model.results).with_columns(cell=_cell().cell())
    best_of = best.partition_by("benchmark", as_dict=True, maintain_order=True)
    results_of = model.results.partition_by(
        "benchmark", as_dict=True, maintain_order=True
    )
    out = []
    for b in model.benchmarks:
        rows = results_of.get((b,), model.results.clear())
        held = set(rows["release"].to_list())
        releases = tuple(r for r in model.releases if r in held)
        inputs = {
            "benchmark": b,
            "slugs": model.names.only(benchmarks=[b], releases=releases),
            "releases": releases,
            "best": best_of.get((b,), best.clear()),
            "results": rows,
        }
        out.append(PageSpec("benchmark", benchmark_page, inputs, cached=True))
    out.append(PageSpec("benchmarks-index", benchmarks_index, {"model": model}))
    return out
