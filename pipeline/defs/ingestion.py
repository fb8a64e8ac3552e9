"""Raw and core assets: one partition per release.

Belongs here: fetching through the source resource, storing snapshots, running the
pure normalisation and turning validation outcomes into blocking asset checks.
Does not: parse, normalise or validate (see ``pipeline.ingest``,
``pipeline.transform.results`` and ``pipeline.validate``).
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl

import pipeline.extract.summary as summary_module
import pipeline.ingest as ingest_module
import pipeline.rounds as rounds_module
import pipeline.transform.results as results_module
import pipeline.validate as validate_module
from pipeline.defs.history import latest_metadata
from pipeline.defs.partitions import FOLLOW_UPSTREAM, RELEASES, release_partitions
from pipeline.defs.resources import DataDirResource, SourceResource
from pipeline.ingest import IngestError, fetch_release
from pipeline.lineage import code_version
from pipeline.manifest import (
    MANIFEST_PATH,
    is_version,
    release_for,
    reviewed_versions,
    version_key,
)
from pipeline.registry import REGISTRY_DIR
from pipeline.snapshots import Snapshot
from pipeline.source import SourceError
from pipeline.transform.results import empty_rejected, empty_results, summary_tables
from pipeline.validate import Outcome, check_results, summarise_rejections

RESULTS = dg.AssetKey("core_mlperf__results")
REJECTED = dg.AssetKey("core_mlperf__rejected")
RESULT_CHECKS = {
    "schema": "Columns and dtypes equal the canonical schema.",
    "keys_not_null": "Key fields (release, result_key, submitter, ...) are set.",
    "results_finite_positive": "Every result is a finite number > 0.",
    "known_scenarios_and_units": "Scenarios and units are from the known lists.",
    "unique_result_keys": "No result key appears twice in a release.",
    "row_count_stable": "Rows fall by at most 20% versus the previous snapshot.",
}


@dg.asset(
    partitions_def=release_partitions,
    group_name="raw",
    code_version=code_version(ingest_module, summary_module),
    kinds={"json"},
    description=(
        "The summary file of one MLPerf Inference round, stored immutably by sha256 "
        "with a sidecar (url, fetched_at, bytes, etag). Its data version is the hash, "
        "so an unchanged file causes no downstream work. Rounds without a summary are "
        "reported as 'raw tree only'; a file the source lacks as 'not in source'."
    ),
)
def raw_mlperf__summary(
    context: dg.AssetExecutionContext,
    source: SourceResource,
    data_dir: DataDirResource,
) -> dg.Output[dict]:
    """Fetch, validate and store one round's summary file."""
    release = release_for(context.partition_key)
    src = source.get()
    try:
        outcome = fetch_release(release, src, data_dir.store())
    except (IngestError, SourceError) as exc:
        raise dg.Failure(
            description=str(exc),
            metadata={"release": release.version, "source": src.base},
        ) from None
    context.log.info(outcome.message)
    snap = outcome.snapshot
    metadata: dict = {"status": outcome.status, "message": outcome.message}
    if snap:
        metadata |= {
            "sha256": snap.sha256,
            "url": dg.MetadataValue.url(snap.url) if src.is_http else snap.url,
            "bytes": snap.bytes,
            "fetched_at": snap.fetched_at,
            "is_new": outcome.is_new,
            "blob": snap.blob,
        }
    return dg.Output(
        outcome.to_json(),
        data_version=dg.DataVersion(snap.sha256 if snap else outcome.status),
        metadata=metadata,
    )


def _previous_rows(instance: dg.DagsterInstance, partition: str) -> int | None:
    rows = latest_metadata(instance, RESULTS.to_user_string(), partition).get("rows")
    return int(rows) if rows is not None else None


def _check_result(
    outcome: Outcome, asset: dg.AssetKey, **kwargs
) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        asset_key=asset,
        check_name=outcome.name,
        passed=outcome.passed,
        description=outcome.description,
        metadata=outcome.metadata,
        **kwargs,
    )


@dg.multi_asset(
    partitions_def=release_partitions,
    ins={
        "raw": dg.AssetIn(key="raw_mlperf__summary"),
        "tree_results": dg.AssetIn(key="core_mlperf__tree_results"),
        "tree_rejected": dg.AssetIn(key="core_mlperf__tree_rejected"),
    },
    outs={
        "core_mlperf__results": dg.AssetOut(
            group_name="core",
            kinds={"polars", "parquet"},
            description=(
                "Canonical results of one round in one explicit schema for every "
                "layout (see RESULTS_SCHEMA): canonical benchmark and scenario names, "
                "units normalised, counts trimmed from hardware names, a link to the "
                "upstream result folder and the sha256 of the snapshot it came from."
            ),
        ),
        "core_mlperf__rejected": dg.AssetOut(
            group_name="core",
            kinds={"polars", "parquet"},
            description=(
                "Upstream records that could not become results, each with the reason "
                "and the record as upstream wrote it. Never dropped silently."
            ),
        ),
    },
    check_specs=[
        dg.AssetCheckSpec(name, asset=RESULTS, blocking=True, description=text)
        for name, text in RESULT_CHECKS.items()
    ]
    + [
        dg.AssetCheckSpec(
            "no_rejected_records",
            asset=REJECTED,
            description="Warns with counts by reason when any record was rejected.",
        )
    ],
    code_version=code_version(
        results_module,
        summary_module,
        rounds_module,
        validate_module,
        extra=(
            (REGISTRY_DIR / "benchmarks.toml").read_text(),
            (REGISTRY_DIR / "rounds.toml").read_text(),
        ),
    ),
)
def core_mlperf__results(
    context: dg.AssetExecutionContext,
    raw: dict,
    tree_results: pl.LazyFrame,
    tree_rejected: pl.LazyFrame,
    data_dir: DataDirResource,
) -> Iterator:
    """Normalise one snapshot; publish it only if every blocking check passes.

    Rounds that publish no summary (before v4.1) take their rows from the raw tree.
    """
    release = release_for(context.partition_key)
    snap = Snapshot(**raw["snapshot"]) if raw.get("snapshot") else None
    if "summary" not in release.ingest:
        results, rejected = pl.collect_all([tree_results, tree_rejected])
        layout = "raw tree"
    elif snap is not None:
        content = data_dir.store().read(snap)
        results, rejected, layout = summary_tables(
            content,
            release=release.version,
            repository=release.repository,
            source_file=snap.path,
            sha256=snap.sha256,
        )
    else:
        results, rejected, layout = empty_results(), empty_rejected(), None
    outcomes = check_results(
        results, release.version, _previous_rows(context.instance, release.version)
    )
    for outcome in outcomes:
        yield _check_result(outcome, RESULTS)
    failed = [o for o in outcomes if not o.passed]
    if failed:
        raise dg.Failure(
            description="; ".join(o.description for o in failed)
            + " (blocking check failed; the previous table stays published)",
            metadata={"failed_checks": [o.name for o in failed]},
        )
    counts = results.group_by("division").len().sort("division")
    yield dg.Output(
        results,
        output_name="core_mlperf__results",
        metadata={
            "status": raw["status"],
            "layout": layout or "none",
            "rows": results.height,
            "rejected": rejected.height,
            "snapshot_sha256": snap.sha256 if snap else "",
            "checks": f"{len(outcomes)}/{len(outcomes)} passed",
            "by_division": dict(zip(counts["division"], counts["len"], strict=True)),
        },
    )
    yield dg.Output(
        rejected,
        output_name="core_mlperf__rejected",
        metadata={"rows": rejected.height},
    )
    yield _check_result(
        summarise_rejections(rejected, release.version),
        REJECTED,
        severity=dg.AssetCheckSeverity.WARN,
    )


@dg.asset(
    automation_condition=FOLLOW_UPSTREAM,
    group_name="core",
    kinds={"polars", "parquet"},
    # The manifest decides which rounds are reviewed, hence which rows are in here.
    code_version=code_version(results_module, extra=(MANIFEST_PATH.read_text(),)),
    description=(
        "The canonical results of every reviewed round (listed in releases.toml) in "
        "one table; partitions that were never materialized are absent, and rounds "
        "only discovery found stay out until reviewed (listed in the metadata)."
    ),
)
def core_mlperf__all_results(
    context: dg.AssetExecutionContext, core_mlperf__results: pl.LazyFrame
) -> dg.Output[pl.DataFrame]:
    """Concatenate the per-release tables (already validated by their checks)."""
    frame = core_mlperf__results.collect()
    counts = frame.group_by("release").len().sort("release")
    reviewed = reviewed_versions()
    left_out = sorted(
        (
            v
            for v in context.instance.get_dynamic_partitions(RELEASES)
            if is_version(v) and v not in reviewed
        ),
        key=version_key,
    )
    return dg.Output(
        frame,
        metadata={
            "rows": frame.height,
            "rows_by_release": dict(zip(counts["release"], counts["len"], strict=True)),
            "unreviewed_left_out": left_out,
        },
    )
