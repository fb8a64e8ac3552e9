"""Derived, unofficial cross-round metrics computed from the canonical results table.

Dagster-free on purpose (PUDL style): every function takes and returns Polars frames, so
the same code runs in assets, in the CLI and in unit tests on tiny inline frames.
What belongs here: the shared pair schema, the three analyses behind one façade
(``pair_candidates``, ``pairs``, ``exclusions``) and the pure checks. What does
not: the registries' loaders (``pipeline/registry``), and assets, asset checks,
resources and I/O, which live in ``pipeline/defs``.

Modules:
    accelerators: canonical accelerator per raw name (``attach_accelerators``).
    benchmarks: which benchmark/scenario results are comparable (``comparable``).
    pairing: ``PAIR_SCHEMA``, pairing helpers, check functions.
    gains: software-only gains (same hardware, two releases).
    generations: successor vs predecessor accelerator within a release.
    scaling: one accelerator at two counts within a release.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Unpack

import polars as pl

from pipeline.analysis import gains, generations, scaling
from pipeline.analysis.accelerators import attach_accelerators, unmapped_accelerators
from pipeline.analysis.benchmarks import comparable
from pipeline.analysis.pairing import (
    CANDIDATE_SCHEMA,
    EXCLUSIONS_SCHEMA,
    KINDS,
    PAIR_ORDER,
    PAIR_SCHEMA,
    AnalysisOptions,
    CheckOutcome,
    Options,
    check_no_duplicate_pairs,
    check_no_self_pairs,
    check_ratios_finite_positive,
    check_results_exist,
    cited_keys,
    count_exclusions,
    pairing_rows,
)
from pipeline.analysis.plausibility import (
    flag_pairs,
    headline_pairs,
    reported_pairs,
    unflagged,
)

__all__ = [
    "CANDIDATES",
    "CANDIDATE_SCHEMA",
    "EXCLUSIONS_SCHEMA",
    "KINDS",
    "PAIR_SCHEMA",
    "CheckOutcome",
    "attach_accelerators",
    "check_no_duplicate_pairs",
    "check_no_self_pairs",
    "check_ratios_finite_positive",
    "check_results_exist",
    "cited_keys",
    "comparable",
    "count_exclusions",
    "exclusions",
    "flag_pairs",
    "headline_pairs",
    "pair_candidates",
    "pairs",
    "reported_pairs",
    "unflagged",
    "unmapped_accelerators",
]

#: Each kind of pair and what builds its candidates from the rows ``pairing_rows``
#: prepares: a new kind is a module with ``KIND`` and ``candidates_from``, and a line
#: here.
CANDIDATES: dict[str, Callable[[pl.DataFrame, Options], pl.LazyFrame]] = {
    module.KIND: module.candidates_from for module in (gains, generations, scaling)
}


def pair_candidates(
    results: pl.LazyFrame | pl.DataFrame,
    *kinds: str,
    **options: Unpack[AnalysisOptions],
) -> pl.DataFrame:
    """Every candidate pair of ``kinds`` (default: all), reported or not.

    ``CANDIDATE_SCHEMA`` rows sorted by ``PAIR_ORDER``: each carries
    ``is_comparable``, ``incompatibility_reason`` and ``exclusion_reason``. The rows are
    prepared once for all kinds; the kinds run one after another, since collecting them
    together adds their peak memory.

    Args:
        results: the canonical results table (``RESULTS_SCHEMA``), any releases.
        kinds: some of ``KINDS``.
        include_preview: use preview results (flagged in ``has_preview`` either way).
        include_inferred: use inferred results (flagged in ``has_inferred``).
        rules: compatibility rules other than the committed ones (tests).
        registry: an accelerator registry other than the committed one (tests).
        releases: the known upstream rounds (default: ``releases.toml``).
        source_releases: the rounds the source holds results of (default: the
            releases of ``results``); with ``releases`` they decide
            ``is_consecutive`` and ``rounds_not_in_source``.
    """
    unknown = sorted(set(kinds) - set(CANDIDATES))
    if unknown:
        raise ValueError(
            f"unknown pair kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}"
        )
    settings = Options(**options).held(results.lazy())
    prepared = pairing_rows(results.lazy(), settings)
    return pl.concat(
        [CANDIDATES[kind](prepared, settings).collect() for kind in kinds or KINDS]
    ).sort(PAIR_ORDER, nulls_last=True)


def pairs(
    results: pl.LazyFrame | pl.DataFrame,
    *kinds: str,
    **options: Unpack[AnalysisOptions],
) -> pl.DataFrame:
    """The published pairs of ``kinds`` (``PAIR_SCHEMA``, plausibility flags attached).

    ``ratio > 1`` means the ``_new`` end is better (new/old for throughput, old/new
    for latency). Arguments as for ``pair_candidates``.
    """
    candidates = pair_candidates(results, *kinds, **options)
    return reported_pairs(candidates.lazy(), results.lazy()).collect()


def exclusions(
    results: pl.LazyFrame | pl.DataFrame,
    *kinds: str,
    **options: Unpack[AnalysisOptions],
) -> pl.DataFrame:
    """Candidate pairs of ``kinds`` left out, per reason (``EXCLUSIONS_SCHEMA``).

    Arguments as for ``pair_candidates``.
    """
    return count_exclusions(
        pair_candidates(results, *kinds, **options).lazy()
    ).collect()
