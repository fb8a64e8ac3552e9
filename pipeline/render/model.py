"""The read-only model every page reads: what pages share, computed once per render.

``build_model`` turns the site's data (``site_data.SiteData``) into ``Model``: the
results with their system ids and display names, the releases in order with their
round status, the unique slugs of releases and benchmarks, each pair kind's display
frame (levels merged, cells formatted), the accelerator histories, the claim
verdicts and the flagged pairs. It is frozen: no page writes to it, so no page
depends on another having run first. A page spec (``spec.PageSpec``) names the parts
it reads; the engine digests exactly those parts for the render cache.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import polars as pl

from pipeline.claims import VERDICT_SCHEMA, claim_verdicts
from pipeline.render.coverage import STATUS_SCHEMA, round_status
from pipeline.render.site_data import SiteData, release_order
from pipeline.render.slugs import unique_slugs
from pipeline.render.spec import GENERATED

#: Software-gain identity levels shown on the page; the per-accelerator level (any
#: scale) is in the download, where it cannot be mistaken for a like-for-like pair.
PAGE_GAIN_LEVELS = ("system", "hardware")


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class Slugs:
    """Page folder ("releases", "benchmarks") -> entity name -> its unique slug."""

    table: Mapping[str, Mapping[str, str]]

    def page_of(self, kind: str, name: str) -> str:
        """The page of one release or benchmark, under ``generated/`` (unique)."""
        return f"{kind}/{self.table[kind][name]}.md"

    def entity_slug(self, kind: str, name: str) -> str:
        """The unique slug of an entity, for anchors and chart names."""
        return self.table[kind][name]

    def only(self, **names: Iterable[str | None]) -> Slugs:
        """The slugs of these entities alone: a page's share, for its cache key."""
        return Slugs(
            _frozen(
                {
                    kind: _frozen(
                        {
                            n: self.table[kind][n]
                            for n in wanted
                            if n in self.table[kind]
                        }
                    )
                    for kind, wanted in names.items()
                }
            )
        )


@dataclass(frozen=True)
class Model:
    """Everything pages share; built once by ``build_model``, never changed."""

    data: SiteData
    #: Results with their system id and display names (``system_pages``' keys).
    results: pl.DataFrame
    #: Releases with results, in version order.
    releases: tuple[str, ...]
    #: Every known round with its status (``coverage.round_status``).
    rounds: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema=STATUS_SCHEMA)
    )
    #: Page folder ("releases", "benchmarks") -> entity name -> its unique slug.
    slugs: Mapping[str, Mapping[str, str]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    #: Pair frames shown on the pages ("gains", "generations", "scaling"), one row
    #: per pair of results with their display cells: every table of pairs is a slice.
    pairs: Mapping[str, pl.DataFrame] = field(
        default_factory=lambda: MappingProxyType({})
    )
    #: ``analysis.history.accelerator_histories`` of the results.
    histories: pl.DataFrame | None = None
    #: Benchmarks with results, sorted: one page each.
    benchmarks: tuple[str, ...] = ()
    #: Derived pairs a plausibility rule flagged (``flags_section.flagged_pairs``).
    flagged: pl.DataFrame | None = None
    #: One verdict per registered claim (``pipeline.claims.claim_verdicts``).
    verdicts: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema=VERDICT_SCHEMA)
    )
    #: Release -> its strict generation pairs (``whats_new.successors``): What's new
    #: and every accelerator page of the round read them.
    successors: Mapping[str, pl.DataFrame] = field(
        default_factory=lambda: MappingProxyType({})
    )
    #: Every line point of every accelerator (``history_views.accelerator_points``).
    accelerator_points: pl.DataFrame | None = None
    #: Accelerator id -> its page (``generated/accelerators/<slug>.md``): declared
    #: here, so the histories page links them whatever the order pages render in.
    accelerator_pages: Mapping[str, str] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def page_of(self, kind: str, name: str) -> str:
        """The page of one release or benchmark, under ``generated/`` (unique)."""
        return f"{kind}/{self.slugs[kind][name]}.md"

    def entity_slug(self, kind: str, name: str) -> str:
        """The unique slug of an entity, for anchors and chart names."""
        return self.slugs[kind][name]

    @property
    def names(self) -> Slugs:
        """``slugs`` as a value pages are handed (``Slugs.only`` for a page's share)."""
        return Slugs(self.slugs)


def build_model(data: SiteData) -> Model:
    """The model of one render: names, pairs, histories, slugs, verdicts."""
    # Imported here: these modules' display helpers read the model's own types.
    from pipeline.render import history_views, pair_views, system_ids, whats_new
    from pipeline.render.flags_section import flagged_pairs
    from pipeline.render.site_data import with_names

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
            ("generations", data.generations),
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
        slugs=_frozen({k: _frozen(v) for k, v in slugs.items()}),
        pairs=_frozen(pairs),
        histories=histories,
        benchmarks=benchmarks,
        flagged=flagged_pairs((data.gains, data.generations, data.scaling)),
        verdicts=(
            claim_verdicts(data.claim_evaluations)
            if data.claim_evaluations is not None
            else pl.DataFrame(schema=VERDICT_SCHEMA)
        ),
        successors=_frozen(successors),
        accelerator_points=points,
        accelerator_pages=_frozen(history_views.accelerator_pages(histories, points)),
    )


__all__ = ["GENERATED", "PAGE_GAIN_LEVELS", "Model", "Slugs", "build_model"]
