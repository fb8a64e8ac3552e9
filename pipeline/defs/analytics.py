"""Analytics assets: the enriched results table and the three derived pair tables.

Belongs here: wiring ``pipeline.analysis`` into assets and turning its pure check
functions into blocking asset checks. Pairing, identity and compatibility rules live in
``pipeline.analysis``; the registries in ``pipeline/registry/*.toml``.
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl

import pipeline.analysis.accelerators as accelerators_module
import pipeline.analysis.benchmarks as benchmarks_module
import pipeline.analysis.gains as gains_module
import pipeline.analysis.generations as generations_module
import pipeline.analysis.pairing as pairing_module
import pipeline.analysis.plausibility as plausibility_module
import pipeline.analysis.scaling as scaling_module
from pipeline import analysis
from pipeline.defs.partitions import FOLLOW_UPSTREAM
from pipeline.labels import display_name
from pipeline.lineage import code_version
from pipeline.registry import REGISTRY_DIR

REGISTRIES = tuple(
    (REGISTRY_DIR / name).read_text()
    for name in (
        "accelerators.toml",
        "benchmarks.toml",
        "plausibility.toml",
        "releases.toml",
    )
)
ANALYSIS_VERSION = code_version(
    accelerators_module,
    benchmarks_module,
    pairing_module,
    plausibility_module,
    extra=REGISTRIES,
)
PAIR_CHECKS = {
    "ratios_finite_positive": "Every ratio (and efficiency) is finite and > 0.",
    "no_self_pairs": "No pair compares a result (or an end) with itself.",
    "results_exist": "Both ends cite a result key present in out_mlperf__results.",
    "no_duplicate_pairs": "No pair appears twice.",
}


@dg.asset(
    automation_condition=FOLLOW_UPSTREAM,
    group_name="out",
    kinds={"polars", "parquet"},
    code_version=ANALYSIS_VERSION,
    check_specs=[
        dg.AssetCheckSpec(
            "accelerators_mapped",
            asset="out_mlperf__results",
            description="Lists raw accelerator names missing from accelerators.toml.",
        )
    ],
    description=(
        "The canonical results of every round with the canonical accelerator of each "
        "row (id, vendor, family, model, memory) from the reviewed registry; CPU-only "
        "systems get a class keyed by host CPU. Unmapped names are kept and reported."
    ),
)
def out_mlperf__results(core_mlperf__all_results: pl.LazyFrame) -> Iterator:
    """Attach canonical accelerators; warn about names the registry lacks."""
    # A LazyFrame: the IO manager streams it to its file and reports the rows, so
    # the step never holds the whole enriched table (every lookup is a streamed
    # join); the check attaches again the few columns it reads.
    results = analysis.attach_accelerators(core_mlperf__all_results)
    yield dg.Output(results)
    unmapped = analysis.unmapped_accelerators(results)
    # A CPU-only row without a host CPU is listed under a null name: show it, never
    # let it break the join.
    names = [display_name(name) for name in unmapped["accelerator_name"]]
    yield dg.AssetCheckResult(
        check_name="accelerators_mapped",
        passed=unmapped.is_empty(),
        severity=dg.AssetCheckSeverity.WARN,
        description=(
            "every raw accelerator name is in the registry"
            if unmapped.is_empty()
            else f"{unmapped.height} raw accelerator name(s) not in accelerators.toml: "
            + ", ".join(names[:10])
        ),
        metadata={
            "unmapped": dict(zip(names, unmapped["rows"].to_list(), strict=True))
        },
    )


def _pair_checks(pairs: pl.DataFrame, results: pl.LazyFrame) -> dict:
    """The blocking checks' outcomes; ``results`` needs only the result keys."""
    return {
        "ratios_finite_positive": analysis.check_ratios_finite_positive(pairs),
        "no_self_pairs": analysis.check_no_self_pairs(pairs),
        "results_exist": analysis.check_results_exist(pairs, results),
        "no_duplicate_pairs": analysis.check_no_duplicate_pairs(pairs),
    }


@dg.asset(
    automation_condition=FOLLOW_UPSTREAM,
    group_name="out",
    kinds={"polars", "parquet"},
    code_version=code_version(
        gains_module, generations_module, scaling_module, extra=(ANALYSIS_VERSION,)
    ),
    description=(
        "Every candidate pair of the three analyses, reported or not, with "
        "is_comparable, incompatibility_reason and exclusion_reason: the audit view "
        "the pair tables and the exclusion counts are cut from."
    ),
)
def _out_mlperf__pair_candidates(
    out_mlperf__results: pl.LazyFrame,
) -> dg.Output[pl.DataFrame]:
    """Pair the results once; three pair tables and the exclusions read the outcome."""
    candidates = analysis.pair_candidates(out_mlperf__results)
    counts = candidates.group_by("kind").agg(
        pl.len().alias("candidates"), pl.col("exclusion_reason").is_null().sum()
    )
    return dg.Output(
        candidates,
        metadata={
            "rows": candidates.height,
            "by_kind": {
                kind: {"candidates": int(n), "kept": int(kept)}
                for kind, n, kept in counts.sort("kind").iter_rows()
            },
        },
    )


#: The three pair tables: (asset name, kind, module whose rules shape it, description).
PAIR_TABLES = (
    (
        "out_mlperf__software_gains",
        gains_module.KIND,
        gains_module,
        "Software-only gains: the same hardware in two releases (every ordered pair "
        "of releases), same benchmark, scenario and division; ratio > 1 means faster. "
        "Levels: system (same submitter and platform), hardware (same accelerator, "
        "count and nodes, best of each release), accelerator (normalised per "
        "accelerator).",
    ),
    (
        "out_mlperf__generation_ratios",
        generations_module.KIND,
        generations_module,
        "Hardware-generation ratios within one release: each accelerator against its "
        "predecessor in the lineage at the same total count (best of any submitter, "
        "and same submitter), plus a per-accelerator normalised reading.",
    ),
    (
        "out_mlperf__scaling",
        scaling_module.KIND,
        scaling_module,
        "Scaling efficiency within one release: the same accelerator at two total "
        "counts; efficiency = (result_N / result_M) / (N / M). Throughput results "
        "only.",
    ),
)


def _pair_metadata(pairs: pl.DataFrame, excluded: pl.DataFrame) -> dict:
    levels = pairs.group_by("identity_level").len().sort("identity_level")
    return {
        "rows": pairs.height,
        "excluded_pairs": int(excluded["pairs"].sum()),
        "by_identity_level": dict(
            zip(levels["identity_level"], levels["len"], strict=True)
        ),
        "excluded_by_reason": {
            reason: int(n)
            for reason, n in excluded.group_by("exclusion_reason")
            .agg(pl.col("pairs").sum())
            .sort("exclusion_reason")
            .iter_rows()
        },
    }


@dg.multi_asset(
    name="out_mlperf__pair_tables",
    outs={
        name: dg.AssetOut(
            group_name="out",
            kinds={"polars", "parquet"},
            automation_condition=FOLLOW_UPSTREAM,
            code_version=code_version(
                module, plausibility_module, extra=(ANALYSIS_VERSION,)
            ),
            description=description,
        )
        for name, _, module, description in PAIR_TABLES
    },
    check_specs=[
        dg.AssetCheckSpec(check, asset=name, blocking=True, description=text)
        for name, *_ in PAIR_TABLES
        for check, text in PAIR_CHECKS.items()
    ],
)
def out_mlperf__pair_tables(
    _out_mlperf__pair_candidates: pl.LazyFrame, out_mlperf__results: pl.LazyFrame
) -> Iterator:
    """The three published pair tables, flagged in one pass.

    One step, not three: the flag rules look up every end's class median in the whole
    results table, and doing that once per kind would triple the costliest part of
    the analytics. All three tables are checked before any is written,
    so a failing check leaves the previous three published together.
    """
    reported = analysis.reported_pairs(
        _out_mlperf__pair_candidates, out_mlperf__results
    )
    # Streamed: the class medians over every result would otherwise make this the
    # run's peak memory. The frames are equal either way.
    everything, excluded = pl.collect_all(
        [reported, analysis.count_exclusions(_out_mlperf__pair_candidates)],
        engine="streaming",
    )
    tables = {
        name: (
            everything.filter(pl.col("kind") == kind),
            excluded.filter(pl.col("kind") == kind),
        )
        for name, kind, *_ in PAIR_TABLES
    }
    # The cited keys that exist, found once: each "results exist" check then looks
    # through a few thousand keys, not the million-row results table.
    keys = (
        out_mlperf__results.select("result_key")
        .join(analysis.cited_keys(everything).lazy(), on="result_key", how="semi")
        .unique()
        .collect()
    )
    failed = []
    for name, (pairs, _) in tables.items():
        for check, outcome in _pair_checks(pairs, keys.lazy()).items():
            yield dg.AssetCheckResult(
                asset_key=name,
                check_name=check,
                passed=outcome.passed,
                description=outcome.message,
                metadata=outcome.metadata,
            )
            if not outcome.passed:
                failed.append(f"{name}: {outcome.message}")
    if failed:
        raise dg.Failure(
            description="; ".join(failed)
            + " (blocking check failed; the previous tables stay published)"
        )
    for name, (pairs, kind_excluded) in tables.items():
        yield dg.Output(
            pairs, output_name=name, metadata=_pair_metadata(pairs, kind_excluded)
        )


@dg.asset(
    automation_condition=FOLLOW_UPSTREAM,
    group_name="out",
    kinds={"polars", "parquet"},
    code_version=code_version(pairing_module, extra=(ANALYSIS_VERSION,)),
    description=(
        "Every candidate pair the analyses left out, counted by reason (units differ, "
        "incompatible benchmark versions, mixed or unmapped accelerators, ...)."
    ),
)
def out_mlperf__exclusions(_out_mlperf__pair_candidates: pl.LazyFrame) -> pl.DataFrame:
    """Exclusion counts of all three analyses in one table."""
    return analysis.count_exclusions(_out_mlperf__pair_candidates).collect()
