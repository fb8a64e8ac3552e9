"""The read-only model every page reads: what pages share, computed once per render.

``prepare.build_model`` turns the site's data (``site_data.SiteData``) into
``Model``: the results with their system ids and display names, the releases in
order with their round status, the unique slugs of releases and benchmarks, each
pair kind's display frame (levels merged, cells formatted), the accelerator
histories and pages, the claim verdicts and the flagged pairs. It is frozen: no page
writes to it, so no page depends on another having run first. A page spec
(``spec.PageSpec``) names the parts it reads; the engine digests exactly those parts
for the render cache.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import polars as pl

from pipeline.claims import VERDICT_SCHEMA
from pipeline.render.coverage import STATUS_SCHEMA
from pipeline.render.site_data import SiteData
from pipeline.render.spec import GENERATED


def frozen(mapping: Mapping) -> Mapping:
    """A read-only copy of ``mapping``."""
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
            frozen(
                {
                    kind: frozen(
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
        return self.names.page_of(kind, name)

    def entity_slug(self, kind: str, name: str) -> str:
        """The unique slug of an entity, for anchors and chart names."""
        return self.names.entity_slug(kind, name)

    @property
    def names(self) -> Slugs:
        """``slugs`` as a value pages are handed (``Slugs.only`` for a page's share)."""
        return Slugs(self.slugs)


__all__ = ["GENERATED", "Model", "Slugs"]
