"""The claims asset: every registered vendor claim checked against the derived tables.

Belongs here: loading the registry and calling ``pipeline.claims.evaluate_claims``;
reading rules and verdict logic live in the ``pipeline.claims`` package.
"""

import dagster as dg
import polars as pl

import pipeline.claims as claims_package
from pipeline.claims import (
    claim_verdicts,
    evaluate_claims,
    evaluation,
    explanation,
    readings,
)
from pipeline.defs.analytics import ANALYSIS_VERSION
from pipeline.defs.partitions import FOLLOW_UPSTREAM
from pipeline.lineage import code_version
from pipeline.registry import claims as claims_registry
from pipeline.registry.claims import claims_path, load_claims


@dg.asset(
    group_name="out",
    kinds={"polars", "parquet"},
    automation_condition=FOLLOW_UPSTREAM,
    code_version=code_version(
        claims_package,
        claims_registry,
        readings,
        evaluation,
        explanation,
        extra=(claims_path().read_text(), ANALYSIS_VERSION),
    ),
    description=(
        "Each claim of claims.toml evaluated under every reasonable reading (own "
        "system, best of any submitter, per accelerator): computed value, both cited "
        "results, grade (like-for-like / loose, and what it mixes), verdict "
        "(consistent / inconsistent / not reproducible) and caveats."
    ),
)
def out_mlperf__claims(
    out_mlperf__results: pl.LazyFrame,
    out_mlperf__software_gains: pl.LazyFrame,
    out_mlperf__generation_ratios: pl.LazyFrame,
    out_mlperf__scaling: pl.LazyFrame,
) -> dg.Output[pl.DataFrame]:
    """Evaluate the claims registry; a malformed registry fails naming the field."""
    evaluations = evaluate_claims(
        load_claims(),
        out_mlperf__results,
        out_mlperf__software_gains,
        out_mlperf__generation_ratios,
        out_mlperf__scaling,
    )
    verdicts = claim_verdicts(evaluations)
    counts = verdicts.group_by("verdict").len()
    return dg.Output(
        evaluations,
        metadata={
            "rows": evaluations.height,
            "claims": verdicts.height,
            "verdicts": dict(zip(counts["verdict"], counts["len"], strict=True)),
        },
    )
