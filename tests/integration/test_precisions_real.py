"""Every weight precision the shared mirror declares is a reviewed spelling."""

from __future__ import annotations

import polars as pl

from pipeline.analysis.benchmarks import evidence
from pipeline.registry.precisions import load_precisions


def test_every_declared_spelling_of_the_mirror_is_reviewed(
    mirror_results: pl.DataFrame,
) -> None:
    declared = (
        mirror_results.select(evidence("weight_data_types").alias("text"))
        .drop_nulls()
        .unique()["text"]
        .to_list()
    )
    assert len(declared) >= 30
    # An unreviewed spelling would be compared as written: say so here first.
    assert sorted(set(declared) - set(load_precisions())) == []
