"""SiteData from the real mirror for the browser test, without Dagster.

THE SWITCH: ``pair_tables`` uses ``pipeline.analysis`` when it is importable and falls
back to ``fallback_pairs`` otherwise. The fallback is a deliberately simple stand-in
(system-level gains between consecutive releases, a hand-written list of accelerator
successors, same-submitter scaling) built from real rows, so every link it cites is a
real upstream result. Delete it once ``pipeline.analysis`` has landed.
"""

from __future__ import annotations

import polars as pl

from pipeline.render.site_data import (
    PAIR_END_SCHEMA,
    PAIR_SCHEMA,
    SiteData,
    release_order,
    with_accelerators,
)

MALICIOUS_SYSTEM = (
    "<script>alert(1)</script> [click](javascript:alert(1)) *bold* | pipe"
)
MALICIOUS_SUBMITTER = "Evil_Corp <img src=x onerror=alert(2)>"

LINEAGE = """flowchart LR
  raw_mlperf__summary["raw_mlperf__summary"] --> core_mlperf__results["core_mlperf__results"]
  core_mlperf__results --> out_mlperf__software_gains["out_mlperf__software_gains"]
  core_mlperf__results --> out_mlperf__generation_ratios
  core_mlperf__results --> out_mlperf__scaling
  out_mlperf__software_gains --> out_site
  out_mlperf__generation_ratios --> out_site
  out_mlperf__scaling --> out_site
"""

#: Successor of each accelerator, for the fallback generation ratios only.
SUCCESSORS = {
    "NVIDIA H100-SXM-80GB": "NVIDIA H200-SXM-141GB",
    "NVIDIA H200-SXM-141GB": "NVIDIA B200-SXM-180GB",
    "NVIDIA B200-SXM-180GB": "NVIDIA B300-SXM-270GB",
    "NVIDIA GB200": "NVIDIA GB300",
    "AMD Instinct MI300X 192GB HBM3": "AMD Instinct MI325X 256GB HBM3e",
    "AMD Instinct MI325X 256GB HBM3e": "AMD Instinct MI355X 288GB HBM3e",
}


def _ends(frame: pl.DataFrame, keys: list[str], suffix: str) -> pl.DataFrame:
    return frame.select(
        *keys, *[pl.col(c).alias(f"{c}{suffix}") for c in PAIR_END_SCHEMA]
    )


def _best(frame: pl.DataFrame, subset: list[str]) -> pl.DataFrame:
    better_first = (
        pl.when(pl.col("is_higher_better"))
        .then(-pl.col("result_value"))
        .otherwise(pl.col("result_value"))
    )
    return frame.sort(better_first, "result_key").unique(
        subset=subset, keep="first", maintain_order=True
    )


def _finish(pairs: pl.DataFrame, kind: str, level: str, per_acc: bool) -> pl.DataFrame:
    value = "result_per_accelerator" if per_acc else "result_value"
    ratio = (
        pl.when(pl.col("is_higher_better"))
        .then(pl.col(f"{value}_new") / pl.col(f"{value}_old"))
        .otherwise(pl.col(f"{value}_old") / pl.col(f"{value}_new"))
    )
    growth = pl.col("total_accelerators_new") / pl.col("total_accelerators_old")
    return (
        pairs.with_columns(
            kind=pl.lit(kind),
            identity_level=pl.lit(level),
            is_per_accelerator=pl.lit(per_acc),
            ratio=ratio,
        )
        .with_columns(
            efficiency=(pl.col("ratio") / growth)
            if kind == "scaling"
            else pl.lit(None),
            has_preview=pl.col("is_preview_old") | pl.col("is_preview_new"),
            has_inferred=pl.col("is_inferred_old") | pl.col("is_inferred_new"),
        )
        .filter(pl.col("ratio").is_finite())
        .select(list(PAIR_SCHEMA))
        .cast(PAIR_SCHEMA)
    )


def fallback_pairs(results: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Simple pair tables from real rows (see the module docstring)."""
    rows = with_accelerators(results).filter(
        (pl.col("division") == "closed") & ~pl.col("is_cpu_only")
    )
    releases = release_order(rows["release"].unique())
    nxt = dict(zip(releases, releases[1:], strict=False))
    group = ["benchmark", "scenario", "division", "result_unit", "is_higher_better"]

    system = [*group, "submitter", "system_name", "total_accelerators"]
    best = _best(rows, [*system, "release"]).with_columns(
        next_release=pl.col("release").replace_strict(nxt, default=None)
    )
    old = _ends(best, [*system, "next_release"], "_old")
    new = _ends(best, system, "_new").rename({"release_new": "next_release"})
    gains = old.join(new, on=[*system, "next_release"]).with_columns(
        release_new=pl.col("next_release")
    )

    same = [*group, "release", "submitter"]
    best_acc = _best(rows, [*same, "accelerator_id"]).with_columns(
        successor=pl.col("accelerator_id").replace_strict(SUCCESSORS, default=None)
    )
    generations = (
        _ends(best_acc, [*same, "successor"], "_old")
        .join(
            _ends(best_acc, same, "_new"),
            left_on=[*same, "successor"],
            right_on=[*same, "accelerator_id_new"],
        )
        .with_columns(
            accelerator_id_new=pl.col("successor"), release_old=pl.col("release")
        )
    )
    generations = generations.with_columns(release_new=pl.col("release"))

    scale_keys = [*same, "accelerator_id"]
    best_count = _best(rows, [*scale_keys, "total_accelerators"])
    scaling = (
        _ends(best_count, scale_keys, "_old")
        .join(_ends(best_count, scale_keys, "_new"), on=scale_keys)
        .filter(
            pl.col("is_higher_better")
            & (pl.col("total_accelerators_new") > pl.col("total_accelerators_old"))
        )
        .with_columns(accelerator_id_old=pl.col("accelerator_id"))
    )
    return {
        "gains": _finish(gains, "software_gain", "system", per_acc=False),
        "generations": _finish(generations, "generation_ratio", "same_submitter", True),
        "scaling": _finish(scaling, "scaling", "same_submitter", per_acc=False),
    }


def pair_tables(results: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """(results with accelerator columns, pair tables): the analysis module's if present."""
    try:
        from pipeline.analysis.accelerators import attach_accelerators
        from pipeline.analysis.gains import software_gains
        from pipeline.analysis.generations import generation_ratios
        from pipeline.analysis.scaling import scaling
    except ImportError:
        return results, fallback_pairs(results)

    def collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
        return frame.collect() if isinstance(frame, pl.LazyFrame) else frame

    enriched = collect(attach_accelerators(results.lazy()))
    lazy = enriched.lazy()
    return enriched, {
        "gains": collect(software_gains(lazy)),
        "generations": collect(generation_ratios(lazy)),
        "scaling": collect(scaling(lazy)),
    }


def with_malicious_row(results: pl.DataFrame) -> pl.DataFrame:
    """Append one copy of a real v6.1 result whose names try to inject script."""
    template = results.filter(pl.col("release") == "v6.1").head(1)
    evil = template.with_columns(
        system_name=pl.lit(MALICIOUS_SYSTEM),
        submitter=pl.lit(MALICIOUS_SUBMITTER),
        software=pl.lit("`rm -rf` [x](javascript:alert(3))"),
        result_key=pl.lit("v6.1:closed/<evil>/x/y/z"),
        result_url=pl.lit("javascript:alert(4)"),
    )
    return pl.concat([results, evil])


def snapshots_frame(results: pl.DataFrame) -> pl.DataFrame:
    """One snapshot row per release, from the checksums the results carry."""
    return (
        results.group_by("release", "source_file", "snapshot_sha256")
        .agg(pl.len().alias("rows"))
        .select(
            "release",
            pl.col("source_file").alias("path"),
            pl.format(
                "https://raw.githubusercontent.com/mlcommons/inference_results_{}/HEAD/{}",
                pl.col("release"),
                pl.col("source_file"),
            ).alias("url"),
            pl.col("snapshot_sha256").alias("sha256"),
            pl.lit(0, dtype=pl.Int64).alias("bytes"),
            pl.lit("2026-01-01T00:00:00+00:00").alias("fetched_at"),
            "rows",
            pl.lit(0, dtype=pl.Int64).alias("rejected"),
            pl.lit("all passed").alias("checks"),
        )
        .sort("release")
    )


def site_data(results: pl.DataFrame) -> SiteData:
    """SiteData over real results plus one malicious row."""
    from pipeline.transform.results import empty_rejected

    enriched, pairs = pair_tables(with_malicious_row(results))
    return SiteData(
        results=enriched,
        rejected=empty_rejected(),
        gains=pairs["gains"],
        generations=pairs["generations"],
        scaling=pairs["scaling"],
        snapshots=snapshots_frame(results),
        lineage_mermaid=LINEAGE,
        pipeline_commit="0123456789abcdef0123456789abcdef01234567",
        built_at="2026-01-01T00:00:00+00:00",
    )
