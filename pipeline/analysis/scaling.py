"""Scaling efficiency: one accelerator at two counts within a round.

Does a 288-GPU system deliver four times a 72-GPU one? Within one release, benchmark,
scenario and division, results of the same canonical accelerator at different total
counts M < N are paired and

    efficiency = (result_N / result_M) / (N / M)

is reported next to ``ratio = result_N / result_M`` (1.0 = perfectly linear). Two
readings, labelled in ``identity_level``:

* ``same_submitter`` is scaling: one submitter, one system family (the platform name
  without its counts), the same accelerators per node and the same software stack;
  only the number of nodes, and so of accelerators, changes.
* ``best_of_any`` is a *size comparison*: the best result at each size, any
  submitter and system. It is kept for readers who want it, but the plausibility
  rules flag every such pair (``size_comparison``), so it is never called scaling or
  averaged into a headline.

Every pair of counts is kept, not only neighbouring ones.

Latency results are not scaled: adding accelerators to a SingleStream/MultiStream
system does not aim to lower one query's latency proportionally, so such pairs are
counted as excluded ("latency results are not scaled"). CPU-only (no accelerators),
mixed and unmapped accelerators, and rows without an accelerator count are left out.
Dagster wiring does not belong here; see ``pipeline/defs``.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis import pairing
from pipeline.analysis.benchmarks import system_family

KIND = "scaling"
READINGS = ("same_submitter", "best_of_any")
SCOPE_LATENCY = "latency results are not scaled"
_BASE = ["release", "division", "benchmark", "scenario", "accelerator_id"]


#: What must not change between the two ends of a scaling step (strict reading).
SAME_SYSTEM = ["submitter", "accelerators_per_node", "system_family", "software_key"]


def _reading(
    rows: pl.LazyFrame, reading: str, options: pairing.Options, steps: pl.LazyFrame
) -> pl.LazyFrame:
    keys = [*_BASE, *SAME_SYSTEM] if reading == "same_submitter" else list(_BASE)
    best = pairing.best_per_group(
        rows, [*keys, "total_accelerators"], is_per_accelerator=False
    )
    return pairing.self_pairs(
        best,
        keys,
        pl.col("total_accelerators_old") < pl.col("total_accelerators_new"),
        kind=KIND,
        identity_level=reading,
        is_per_accelerator=False,
        steps=steps,
        scope_reason=pl.when(~pl.col("is_higher_better_old")).then(
            pl.lit(SCOPE_LATENCY)
        ),
        rules=options.rules,
    )


def candidates_from(prepared: pl.DataFrame, settings: pairing.Options) -> pl.LazyFrame:
    """This kind's candidate pairs (``CANDIDATE_SCHEMA``) from the prepared rows."""
    rows = (
        prepared.lazy()
        .filter(
            pairing.single_accelerator()
            & ~pl.col("is_cpu_only")
            & (pl.col("total_accelerators") > 0)
        )
        .with_columns(
            system_family=system_family(pl.col("platform")),
            software_key=pl.col("software").fill_null(""),
        )
        .collect()
        .lazy()
    )  # shared by every reading
    steps = pairing.steps_of(prepared, settings)
    return pairing.one_by_one(
        [_reading(rows, reading, settings, steps) for reading in READINGS]
    )
