"""Software-only gains: the same hardware measured in two releases.

MLPerf rounds mostly show new chips; this analysis isolates what new software
(compilers, runtimes, quantisation recipes) brought on unchanged hardware. Every ordered
pair of releases (old before new, consecutive or not) of one benchmark, scenario and
division is compared at three identity levels, all kept and labelled. A gain is
``is_consecutive`` only when its two rounds are adjacent upstream (no round of
``releases.toml`` between them, in the source or not) and the old end is the
system's previous appearance; ``rounds_not_in_source`` names the rounds between them
that the source holds no result of.

``system``
    Same submitter and same platform (upstream's system folder name) in both releases.
    The strictest reading, and the only level that needs no accelerator registry, so it
    also covers mixed, unmapped and CPU-only systems. A platform whose accelerator or
    accelerator/node count changed between releases is excluded and counted
    ("system hardware changed between releases").
``hardware``
    Same canonical accelerator, total accelerator count and node count; the best result
    of each release, whichever submitter ran it. Mixed and unmapped accelerators are
    left out (their id hides the composition or is unknown). CPU-only systems take part
    as their host-CPU class; the canonical table does not record sockets per node, so a
    one- and a two-socket system of one CPU model can meet here.
``accelerator``
    Same canonical accelerator at any scale, compared per accelerator
    (result / total_accelerators, ``is_per_accelerator`` true), best of each release.
    Throughput only: latency results are counted as excluded. CPU-only, mixed and
    unmapped are left out (no accelerator to divide by, or no single one).

Dagster wiring does not belong here; see ``pipeline/defs``.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis import pairing

KIND = "software_gain"
LEVELS = ("system", "hardware", "accelerator")
SCOPE_SYSTEM_CHANGED = "system hardware changed between releases"
_BASE = ["division", "benchmark", "scenario"]


def _hardware_key(suffix: str) -> pl.Expr:
    # The registry id when known, else the raw name: the system level must still notice
    # a changed accelerator on systems the registry does not cover.
    return pl.coalesce(
        pl.col(f"accelerator_id_{suffix}"), pl.col(f"accelerator_name_{suffix}")
    )


def _level(
    rows: pl.LazyFrame, level: str, options: pairing.Options, steps: pl.LazyFrame
) -> pl.LazyFrame:
    per_accelerator = level == "accelerator"
    if level == "system":
        keys = [*_BASE, "submitter", "platform"]
        scope = pl.when(
            _hardware_key("old").ne_missing(_hardware_key("new"))
            | pl.col("total_accelerators_old").ne_missing(
                pl.col("total_accelerators_new")
            )
            | pl.col("nodes_old").ne_missing(pl.col("nodes_new"))
        ).then(pl.lit(SCOPE_SYSTEM_CHANGED))
    elif level == "hardware":
        keys = [*_BASE, "accelerator_id", "total_accelerators", "nodes"]
        rows = rows.filter(
            pairing.single_accelerator() & pl.col("total_accelerators").is_not_null()
        )
        scope = None
    else:
        keys = [*_BASE, "accelerator_id"]
        rows = rows.filter(pairing.single_accelerator() & ~pl.col("is_cpu_only"))
        scope = pl.when(~pl.col("is_higher_better_old")).then(
            pl.lit(pairing.SCOPE_LATENCY_PER_ACCELERATOR)
        )
    best = pairing.best_per_group(
        rows, [*keys, "release"], is_per_accelerator=per_accelerator
    )
    # Each group's previous round with a result: a gain from it is consecutive when
    # the two rounds are also adjacent upstream (``pairing.finish_candidates``).
    window = [*keys, "result_unit", "_model_key"]
    best = best.with_columns(
        _previous_order=pl.col("_order").shift(1).over(window, order_by="_order")
    )
    return pairing.self_pairs(
        best,
        keys,
        pl.col("_order_old") < pl.col("_order_new"),
        kind=KIND,
        identity_level=level,
        is_per_accelerator=per_accelerator,
        steps=steps,
        scope_reason=scope,
        rules=options.rules,
    )


def candidates_from(prepared: pl.DataFrame, settings: pairing.Options) -> pl.LazyFrame:
    """This kind's candidate pairs (``CANDIDATE_SCHEMA``) from the prepared rows."""
    rows = prepared.lazy()
    steps = pairing.steps_of(prepared, settings)
    return pairing.one_by_one(
        [_level(rows, level, settings, steps) for level in LEVELS]
    )
