"""The model of one render, built once from the site's data (``model.Model``).

What pages share is computed here, from the tables, with the layouts that define
it (system ids, the pair display model, histories, What's new's successors): the
model itself (``model``) imports none of them, so every layout can name its type.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis.cost import with_break_even
from pipeline.claims import VERDICT_SCHEMA, claim_verdicts
from pipeline.render import history_views, pair_views, system_ids, whats_new
from pipeline.render.coverage import round_status
from pipeline.render.flags_section import flagged_pairs
from pipeline.render.model import Model, frozen
from pipeline.render.site_data import SiteData, release_order, with_names
from pipeline.render.slugs import unique_slugs

#: Software-gain identity levels shown on the page; the per-accelerator level (any
#: scale) is in the download, where it cannot be mistaken for a like-for-like pair.
PAGE_GAIN_LEVELS = ("system", "hardware")


def build_model(data: SiteData) -> Model:
    """The model of one render: names, pairs, histories, slugs, verdicts."""
    # Each result's system id (its description on the Systems page), computed from
    # the canonical columns before the pages' placeholder names fill them in.
    results = with_names(system_ids.keyed_results(data.results))
    releases = tuple(release_order(results["release"].unique()))
    rounds = round_status(list(releases))
    page_gains = data.gains.filter(pl.col("identity_level").is_in(PAGE_GAIN_LEVELS))
    # Each pair's display cells (``pair_views.pair_cells``) are computed here, once
    # per kind: the pair pages, What's new, the home page and the accelerator pages
    # all show slices of these frames, and the cells cost the same fixed ~25 ms per
    # query however few rows a slice has.
    pairs = {
        name: pair_views.pair_cells(
            with_names(
                system_ids.with_system_ids(
                    system_ids.with_system_ids(
                        pair_views.merge_levels(pair_views.with_vendor(frame, results)),
                        results,
                        suffix="_old",
                    ),
                    results,
                    suffix="_new",
                )
            ),
            rounds,
        )
        for name, frame in (
            ("gains", page_gains),
            # Each generation pair's break-even price ratio (its ratio): a column
            # of its tables and What's new's sentences.
            ("generations", with_break_even(data.generations)),
            ("scaling", data.scaling),
        )
    }
    benchmarks = tuple(sorted(results["benchmark"].drop_nulls().unique().to_list()))
    slugs = {
        "releases": unique_slugs(list(releases)),
        # Pair frames may name a benchmark without results (their links then dangle
        # as before); they still need a unique anchor.
        "benchmarks": unique_slugs(
            list(benchmarks)
            + [
                b
                for frame in pairs.values()
                for b in frame["benchmark"].drop_nulls().unique().to_list()
            ]
        ),
    }
    successors = {r: whats_new.successors_of(pairs, r) for r in releases}
    histories = history_views.build_histories(data.results)
    points = history_views.accelerator_points(histories, results, releases, rounds)
    return Model(
        data=data,
        results=results,
        releases=releases,
        rounds=rounds,
        slugs=frozen({k: frozen(v) for k, v in slugs.items()}),
        pairs=frozen(pairs),
        histories=histories,
        benchmarks=benchmarks,
        flagged=flagged_pairs((data.gains, data.generations, data.scaling)),
        verdicts=(
            claim_verdicts(data.claim_evaluations)
            if data.claim_evaluations is not None
            else pl.DataFrame(schema=VERDICT_SCHEMA)
        ),
        successors=frozen(successors),
        accelerator_points=points,
        accelerator_pages=frozen(history_views.accelerator_pages(histories, points)),
    )
