"""Canonical accelerators: the reviewed registry and its join onto the results table.

Upstream names one chip in many ways ("Nvidia B300-SXM-270GB", "NVIDIA VeraRubin")
and names mixed systems in one string. Every ratio in this package compares
accelerators, so they all go through one committed, human-reviewed mapping
(``pipeline/registry/accelerators.toml``, read by ``pipeline.registry.accelerators``)
instead of string heuristics. What belongs here: attaching its columns to results. What
does not: reading the registry, pairing results (``pairs``, ``gains``,
``generations``, ``scaling``) and Dagster checks.

CPU-only systems (no accelerator, or zero accelerators) are not listed in the registry:
they form one class per host CPU, ``cpu:<slug of host_cpu_name>``, so that
"INTEL(R) XEON(R) 6787P" (v5.1) and "Intel(R) Xeon(R) 6787P" (v6.0) are one class.
"""

from __future__ import annotations

import polars as pl

from pipeline.analysis.benchmarks import release_order
from pipeline.registry.accelerators import (
    AcceleratorRegistry,
    AcceleratorRegistryError,
    load_accelerators,
)

CPU_PREFIX = "cpu:"
#: Columns ``attach_accelerators`` adds to the results table, in order.
ATTACHED_SCHEMA: dict[str, pl.DataType] = {
    "accelerator_id": pl.String,
    "accelerator_vendor": pl.String,
    "accelerator_family": pl.String,
    "accelerator_model": pl.String,
    "accelerator_memory_gb": pl.Float64,
    "is_cpu_only": pl.Boolean,
    "is_mixed_accelerators": pl.Boolean,
    "is_accelerator_mapped": pl.Boolean,
    "is_accelerator_unclassified": pl.Boolean,
    # Upstream's spelling; ``accelerator_name`` becomes the registry's one name
    # (vendor and model) wherever the registry knows the chip.
    "accelerator_name_upstream": pl.String,
}
#: Output of ``unmapped_accelerators`` (one row per raw name the registry lacks).
UNMAPPED_SCHEMA: dict[str, pl.DataType] = {
    "accelerator_name": pl.String,
    "rows": pl.Int64,
    "releases": pl.List(pl.String),
}
#: Host-CPU vendors recognised in CPU-only classes (slug substring -> vendor).
CPU_VENDORS: dict[str, str] = {
    "intel": "Intel",
    "xeon": "Intel",
    "amd": "AMD",
    "epyc": "AMD",
    "ryzen": "AMD",
    "apple": "Apple",
    "nvidia": "NVIDIA",
    "grace": "NVIDIA",
    "ampere": "Ampere",
}


def cpu_class_id(host_cpu_name: pl.Expr) -> pl.Expr:
    """``cpu:<slug>`` for a host CPU name; null when the name is missing.

    The slug drops (R)/(TM) marks and case, because submitters spell one CPU several
    ways across rounds ("INTEL(R) XEON(R) 6787P" in v5.1, "Intel(R) Xeon(R) 6787P"
    later).
    """
    slug = (
        host_cpu_name.str.to_lowercase()
        .str.replace_all(r"\((r|tm)\)", "")
        .str.replace_all(r"[^a-z0-9]+", "-")
        .str.strip_chars("-")
    )
    return pl.when(slug.is_not_null() & (slug != "")).then(pl.lit(CPU_PREFIX) + slug)


def _cpu_vendor(cpu_id: pl.Expr) -> pl.Expr:
    expr: pl.Expr = pl.lit(None, dtype=pl.String)
    for needle, vendor in reversed(CPU_VENDORS.items()):
        expr = (
            pl.when(cpu_id.str.contains(needle, literal=True))
            .then(pl.lit(vendor))
            .otherwise(expr)
        )
    return expr


#: Registry columns a result row takes from its raw accelerator name.
_FROM_REGISTRY = (
    "accelerator_id",
    "accelerator_vendor",
    "accelerator_family",
    "accelerator_model",
    "accelerator_memory_gb",
    "is_mixed_accelerators",
)


def attach_accelerators(
    results: pl.LazyFrame, registry: AcceleratorRegistry | None = None
) -> pl.LazyFrame:
    """Add the canonical accelerator columns (``ATTACHED_SCHEMA``) to every result row.

    Rows are never dropped: an unknown raw name gets ``accelerator_id`` null and
    ``is_accelerator_mapped`` false, so the unmapped-accelerators check can name it and
    the system-level comparison (which does not need the registry) still sees the row.
    A name listed under ``[[unclassified]]`` has no id either (so it never enters a
    ratio) but ``is_accelerator_unclassified`` true: reviewed, not reported as unmapped.

    Args:
        results: the canonical results table (``RESULTS_SCHEMA``), lazily.
        registry: a registry other than the committed one (tests).

    Returns:
        The same rows in the same order with ``ATTACHED_SCHEMA`` columns appended
        (replacing them if already present), and ``result_per_accelerator`` null on
        mixed systems. The distinct host CPU names are read when this is called;
        the rows when the frame is collected.
    """
    registry = registry or load_accelerators()
    existing = results.collect_schema().names()
    # Attaching twice reads upstream's spelling again, not the canonical name.
    if "accelerator_name_upstream" in existing:
        results = results.with_columns(
            accelerator_name=pl.coalesce(
                "accelerator_name_upstream", "accelerator_name"
            )
        )
    results = results.drop([c for c in ATTACHED_SCHEMA if c in existing])
    # Everything the registry says of a raw name, one row per name.
    by_name = (
        registry.names()
        .join(registry.table(), on="accelerator_id", how="left")
        .select(
            "accelerator_name",
            *[pl.col(c).alias(f"_registry_{c}") for c in _FROM_REGISTRY],
        )
        .with_columns(_unclassified=pl.lit(False))
    )
    unclassified = pl.DataFrame(
        {"accelerator_name": sorted(registry.unclassified_names())},
        schema={"accelerator_name": pl.String},
    ).with_columns(_unclassified=pl.lit(True))
    by_name = pl.concat([by_name, unclassified], how="diagonal")
    # The loader refuses a name listed twice; a registry built another way must too,
    # or the join would repeat rows (its own validate="m:1" is not streamed).
    twice = by_name.filter(pl.col("accelerator_name").is_duplicated())
    if not twice.is_empty():
        names = ", ".join(sorted(set(twice["accelerator_name"])))
        raise AcceleratorRegistryError(f"raw accelerator name(s) listed twice: {names}")
    # The CPU class of each distinct host CPU name, found first (one column of the
    # input): the string rules ran on every row before, a second per million rows
    # for a few dozen names.
    cpus = (
        results.select("host_cpu_name")
        .unique()
        .filter(pl.col("host_cpu_name").is_not_null())
        .with_columns(_cpu_id=cpu_class_id(pl.col("host_cpu_name")))
        .with_columns(_cpu_vendor=_cpu_vendor(pl.col("_cpu_id")))
        .collect()
    )
    # Lookups as left joins on the two small tables, rows kept in order. Polars'
    # streaming engine runs a join itself, but hands a ``replace_strict`` with a key
    # table to its in-memory engine, which holds the whole input; joins keep the
    # streamed write small, for the same bytes.
    cpu = pl.col("is_cpu_only")

    def registry_or_cpu(column: str, for_cpu: pl.Expr) -> pl.Expr:
        return pl.when(cpu).then(for_cpu).otherwise(pl.col(f"_registry_{column}"))

    return (
        results.with_columns(
            is_cpu_only=(
                pl.col("accelerator_name").is_null()
                | (pl.col("total_accelerators") == 0)
            ).fill_null(False)
        )
        .join(
            by_name.lazy(),
            on="accelerator_name",
            how="left",
            maintain_order="left",
        )
        .join(cpus.lazy(), on="host_cpu_name", how="left", maintain_order="left")
        .with_columns(
            accelerator_id=registry_or_cpu("accelerator_id", pl.col("_cpu_id"))
        )
        .with_columns(
            accelerator_vendor=registry_or_cpu(
                "accelerator_vendor", pl.col("_cpu_vendor")
            ),
            accelerator_family=registry_or_cpu(
                "accelerator_family",
                pl.when(pl.col("accelerator_id").is_not_null()).then(pl.lit("CPU")),
            ),
            accelerator_model=registry_or_cpu(
                "accelerator_model", pl.col("host_cpu_name")
            ),
            accelerator_memory_gb=registry_or_cpu(
                "accelerator_memory_gb", pl.lit(None)
            ),
            is_mixed_accelerators=pl.col("_registry_is_mixed_accelerators").fill_null(
                False
            )
            & ~cpu,
            is_accelerator_mapped=pl.col("accelerator_id").is_not_null(),
            is_accelerator_unclassified=~cpu & pl.col("_unclassified").fill_null(False),
            accelerator_name_upstream=pl.col("accelerator_name"),
        )
        .with_columns(
            # One name per chip on every page, chart and download ("NVIDIA VR200"
            # and "NVIDIA Vera Rubin" are one accelerator); aliases stay upstream's.
            accelerator_name=pl.when(pl.col("is_accelerator_mapped") & ~cpu)
            .then(canonical_name())
            .otherwise(pl.col("accelerator_name"))
        )
        .select(*[c for c in existing if c not in ATTACHED_SCHEMA], *ATTACHED_SCHEMA)
        .cast(ATTACHED_SCHEMA)
        .with_columns(
            # A system of two kinds of chips has no single accelerator to divide by.
            [
                pl.when(pl.col("is_mixed_accelerators"))
                .then(None)
                .otherwise(pl.col("result_per_accelerator"))
                .alias("result_per_accelerator")
            ]
            if "result_per_accelerator" in existing
            else []
        )
    )


def canonical_name() -> pl.Expr:
    """The registry's one name of an accelerator: vendor and model."""
    return pl.concat_str(
        [pl.col("accelerator_vendor"), pl.col("accelerator_model")],
        separator=" ",
        ignore_nulls=True,
    )


def ensure_attached(
    results: pl.LazyFrame, registry: AcceleratorRegistry | None = None
) -> pl.LazyFrame:
    """Results with the accelerator columns: kept when present, attached otherwise.

    ``out_mlperf__results`` already carries them; attaching again cost about a second
    per million rows in each analysis that read it. A ``registry`` (tests) always
    attaches afresh.
    """
    if registry is None and set(ATTACHED_SCHEMA) <= set(
        results.collect_schema().names()
    ):
        return results
    return attach_accelerators(results, registry)


def unmapped_accelerators(
    results: pl.LazyFrame | pl.DataFrame, registry: AcceleratorRegistry | None = None
) -> pl.DataFrame:
    """Raw accelerator names the registry does not know, for a warning asset check.

    One row per raw name with how many result rows carry it and in which releases
    (ordered by version), most frequent first. A CPU-only row without a host CPU name
    cannot be classed either; it appears with ``accelerator_name`` null. Names listed
    under ``[[unclassified]]`` are known and not reported.
    """
    return (
        ensure_attached(results.lazy(), registry)
        .filter(
            ~pl.col("is_accelerator_mapped") & ~pl.col("is_accelerator_unclassified")
        )
        .group_by("accelerator_name")
        .agg(
            pl.len().alias("rows"),
            pl.col("release")
            .sort_by(release_order(pl.col("release")))
            .unique(maintain_order=True)
            .alias("releases"),
        )
        .sort(["rows", "accelerator_name"], descending=[True, False], nulls_last=True)
        .cast(UNMAPPED_SCHEMA)
        .collect()
    )
