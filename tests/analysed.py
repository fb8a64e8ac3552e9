"""The three pair tables and the exclusion counts of a results table, as the assets
make them: candidates paired once, flagged in one pass, cut per kind."""

from __future__ import annotations

from typing import NamedTuple

import polars as pl

from pipeline.analysis import KINDS, count_exclusions, pair_candidates, reported_pairs


class Tables(NamedTuple):
    software_gains: pl.DataFrame
    generation_ratios: pl.DataFrame
    scaling: pl.DataFrame
    exclusions: pl.DataFrame


def analyse(results: pl.LazyFrame | pl.DataFrame, **options) -> Tables:
    candidates = pair_candidates(results, **options).lazy()
    everything = reported_pairs(candidates, results.lazy()).collect()
    gains, generations, scaling = (
        everything.filter(pl.col("kind") == kind) for kind in KINDS
    )
    return Tables(gains, generations, scaling, count_exclusions(candidates).collect())
