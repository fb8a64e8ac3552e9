"""Hardware-generation ratios: each accelerator against its predecessor, within a round.

How much faster is a B300 than a B200 on the same benchmark? Only results of one
release are compared (same rules, same round of software maturity), of one benchmark,
scenario and division, and each accelerator is paired with the ``predecessor`` the
reviewed registry gives it (``pipeline/registry/accelerators.toml``). Two readings are
kept and labelled in ``identity_level``:

``best_of_any``
    The best result of each accelerator, whoever submitted it: the state of the art.
``same_submitter``
    Both results from one submitter: one team's software on both chips, which removes
    most of the "who tuned better" noise but exists for fewer pairs.

Each reading comes twice. With ``is_per_accelerator`` false both ends have the same
total accelerator count and the raw results are compared. With ``is_per_accelerator``
true the counts may differ and the best result *per accelerator* of each chip is
compared; that reading mixes scales (a 72-GPU rack against an 8-GPU node) and is marked
so. Per-accelerator pairs are throughput only; latency pairs are counted as excluded.

CPU-only classes have no lineage; mixed and unmapped accelerators are left out.
Dagster wiring does not belong here; see ``pipeline/defs``.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis import pairing
from pipeline.registry.accelerators import load_accelerators

KIND = "generation_ratio"
READINGS = ("best_of_any", "same_submitter")
_BASE = ["release", "division", "benchmark", "scenario"]


def _reading(
    rows: pl.LazyFrame,
    reading: str,
    per_accelerator: bool,
    options: pairing.Options,
    steps: pl.LazyFrame,
) -> pl.LazyFrame:
    keys = list(_BASE)
    if reading == "same_submitter":
        keys.append("submitter")
    if not per_accelerator:
        keys.append("total_accelerators")
    best = pairing.best_per_group(
        rows, [*keys, "accelerator_id"], is_per_accelerator=per_accelerator
    )
    old = pairing.side(best, "old", keys).with_columns(
        _link=pl.col("accelerator_id_old")
    )
    new = pairing.side(best, "new", keys, extra=["predecessor_id"]).with_columns(
        _link=pl.col("predecessor_id_new")
    )
    joined = pairing.join_ends(old, new, [*keys, "_link"], pl.lit(True))
    scope = (
        pl.when(~pl.col("is_higher_better_old")).then(
            pl.lit(pairing.SCOPE_LATENCY_PER_ACCELERATOR)
        )
        if per_accelerator
        else None
    )
    return pairing.finish_candidates(
        joined,
        kind=KIND,
        identity_level=reading,
        is_per_accelerator=per_accelerator,
        steps=steps,
        scope_reason=scope,
        rules=options.rules,
    )


def candidates_from(prepared: pl.DataFrame, settings: pairing.Options) -> pl.LazyFrame:
    """This kind's candidate pairs (``CANDIDATE_SCHEMA``) from the prepared rows."""
    # The lineage takes the rows' id type (pairing_rows makes it categorical).
    dtype = prepared.schema["accelerator_id"]
    lineage = (
        (settings.registry or load_accelerators())
        .table()
        .lazy()
        .select(pl.col("accelerator_id", "predecessor_id").cast(dtype))
    )
    rows = (
        prepared.lazy()
        .filter(
            pairing.single_accelerator()
            & ~pl.col("is_cpu_only")
            & pl.col("total_accelerators").is_not_null()
        )
        .join(lineage, on="accelerator_id", how="left")
        .collect()
        .lazy()  # shared by every reading
    )
    steps = pairing.steps_of(prepared, settings)
    return pairing.one_by_one(
        [
            _reading(rows, reading, per_accelerator, settings, steps)
            for reading in READINGS
            for per_accelerator in (False, True)
        ]
    )
