"""Raw and core assets: one partition per release.

Belongs here: fetching through the source resource, storing snapshots, running the
pure normalisation and turning validation outcomes into blocking asset checks.
Does not: parse, normalise or validate (see ``pipeline.fetch``,
``pipeline.transform.results`` and ``pipeline.validate``).
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl

import pipeline.extract.summary as summary_module
import pipeline.fetch as fetch_module
import pipeline.registry.rounds as rounds_module
import pipeline.served as served_module
import pipeline.transform.results as results_module
import pipeline.validate as validate_module
from pipeline.defs.partitions import FOLLOW_UPSTREAM, RELEASES, release_partitions
from pipeline.defs.ranges import Part, PerPartition, each_partition, outputs
from pipeline.defs.resources import DataDirResource, SourceResource
from pipeline.extract.summary import summary_tables
from pipeline.fetch import IngestError, fetch_release
from pipeline.instance import latest_metadata
from pipeline.lineage import code_version
from pipeline.manifest import is_version, release_for, reviewed_versions
from pipeline.redact import redact_url
from pipeline.registry import REGISTRY_DIR
from pipeline.registry.releases import MANIFEST_PATH, version_key
from pipeline.snapshots import Snapshot
from pipeline.source import SourceError
from pipeline.transform.inferred import judge_by_tree
from pipeline.transform.provenance import snapshot_commit
from pipeline.transform.results import UNKNOWN
from pipeline.validate import (
    Outcome,
    check_results,
    loss_outcome,
    summarise_rejections,
    top_reasons,
)

RESULTS = dg.AssetKey("core_mlperf__results")
REJECTED = dg.AssetKey("core_mlperf__rejected")
RESULT_CHECKS = {
    "schema": "Columns and dtypes equal the canonical schema.",
    "keys_not_null": "Key fields (release, result_key, submitter, ...) are set.",
    "results_finite_positive": "Every result is a finite number > 0.",
    "known_scenarios_and_units": "Scenarios and units are from the known lists.",
    "unique_result_keys": "No result key appears twice in a release.",
    "row_count_stable": "Rows fall by at most 20% versus the previous snapshot.",
    "not_all_rejected": "A round that read records kept at least one of them.",
}


@dg.asset(
    partitions_def=release_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
    group_name="raw",
    code_version=code_version(fetch_module, served_module, summary_module),
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
) -> Iterator[dg.Output]:
    """Fetch, validate and store each round's summary file (one or a range)."""
    src = source.get()
    store = data_dir.store()

    def fetch(version: str) -> Part:
        release = release_for(version)
        try:
            outcome = fetch_release(release, src, store)
        except (IngestError, SourceError) as exc:
            raise dg.Failure(
                description=str(exc),
                metadata={"release": release.version, "source": redact_url(src.base)},
            ) from None
        snap = outcome.snapshot
        metadata: dict = {
            "status": outcome.status,
            "message": outcome.message,
            "upstream_commit": outcome.commit or "",
            "disagreement": outcome.disagreement,
        }
        if snap:
            metadata |= {
                "sha256": snap.sha256,
                "url": dg.MetadataValue.url(snap.url) if src.is_http else snap.url,
                "bytes": snap.bytes,
                "fetched_at": snap.fetched_at,
                "is_new": outcome.is_new,
                "blob": snap.blob,
            }
        return Part(
            {"result": outcome.to_json()},
            {"result": metadata},
            snap.sha256 if snap else outcome.status,
        )

    keys, parts = each_partition(context, fetch)
    # One log line per step, not per release: every event is a database write.
    context.log.info("; ".join(parts[k].metadata["result"]["message"] for k in keys))
    yield from outputs(keys, parts, ["result"])


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
    backfill_policy=dg.BackfillPolicy.single_run(),
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
        ),
        dg.AssetCheckSpec(
            "rejected_share_at_most_1pct",
            asset=REJECTED,
            description="Warns, with the top reasons and counts, when a round "
            "rejects more than 1% of its records: a loss a reader must hear of.",
        ),
    ],
    code_version=code_version(
        results_module,
        summary_module,
        rounds_module,
        validate_module,
        extra=(
            (REGISTRY_DIR / "benchmarks.toml").read_text(),
            (REGISTRY_DIR / "vocabulary.toml").read_text(),
            (REGISTRY_DIR / "rounds.toml").read_text(),
        ),
    ),
)
def core_mlperf__results(
    context: dg.AssetExecutionContext,
    raw: PerPartition,
    tree_results: PerPartition,
    tree_rejected: PerPartition,
    data_dir: DataDirResource,
) -> Iterator:
    """Normalise each snapshot; publish only if every blocking check passes.

    Rounds that publish no summary (before v4.1) take their rows from the raw tree.
    In a range step one failing round fails the step; the runner then reruns the
    rounds one by one, so the others still publish and the failure names its round.
    """
    store = data_dir.store()
    checked: dict[str, list[Outcome]] = {}
    rejections: dict[str, list[Outcome]] = {}

    def normalise(version: str) -> Part:
        release = release_for(version)
        raw_value = raw[version]
        snap = Snapshot(**raw_value["snapshot"]) if raw_value.get("snapshot") else None
        if snap is not None:
            results, rejected, layout = summary_tables(
                store.read(snap),
                release=release.version,
                repository=release.repository,
                source_file=snap.path,
                sha256=snap.sha256,
                commit=snapshot_commit(snap),
            )
            # Where the round's raw tree was read too, each result's log decides
            # whether it was inferred, not upstream's mark.
            results = judge_by_tree(results, tree_results[version].collect())
        else:
            # No summary in the source (before v4.1, or one the source lacks):
            # the round's rows are the raw tree's, whatever releases.toml expects.
            results, rejected = pl.collect_all(
                [tree_results[version], tree_rejected[version]]
            )
            layout = "raw tree" if results.height or rejected.height else None
        outcomes = check_results(
            results, version, _previous_rows(context.instance, version), rejected
        )
        checked[version] = outcomes
        loss = loss_outcome(results.height, rejected, version)
        rejections[version] = [summarise_rejections(rejected, version), loss]
        counts = results.group_by("division").len().sort("division")
        return Part(
            {"core_mlperf__results": results, "core_mlperf__rejected": rejected},
            {
                "core_mlperf__results": {
                    "status": raw_value["status"],
                    "layout": layout or "none",
                    "upstream_commit": (snapshot_commit(snap) if snap else None)
                    or raw_value.get("commit")
                    or "",
                    "rows": results.height,
                    "rejected": rejected.height,
                    "snapshot_sha256": snap.sha256 if snap else "",
                    "checks": f"{len(outcomes)}/{len(outcomes)} passed",
                    "by_division": dict(
                        zip(counts["division"], counts["len"], strict=True)
                    ),
                    "rejected_share": loss.metadata["share"],
                    "top_rejections": "; ".join(
                        f"{reason} ({count})" for reason, count in top_reasons(rejected)
                    ),
                    "unknown_availability": results.filter(
                        pl.col("availability") == UNKNOWN
                    ).height,
                },
                "core_mlperf__rejected": {"rows": rejected.height},
            },
        )

    keys, parts = each_partition(context, normalise)
    for outcome in _merged([checked[k] for k in keys], keys):
        yield _check_result(outcome, RESULTS)
    failed = [
        (version, o) for version in keys for o in checked[version] if not o.passed
    ]
    if failed:
        named = len(keys) > 1
        raise dg.Failure(
            description="; ".join(
                (f"{version}: " if named else "") + o.description
                for version, o in failed
            )
            + " (blocking check failed; the previous table stays published)",
            metadata={"failed_checks": sorted({o.name for _, o in failed})},
        )
    yield from outputs(keys, parts, ["core_mlperf__results", "core_mlperf__rejected"])
    for rejection in _merged([rejections[k] for k in keys], keys):
        yield _check_result(rejection, REJECTED, severity=dg.AssetCheckSeverity.WARN)


def _merged(per_release: list[list[Outcome]], keys: list[str]) -> list[Outcome]:
    """One outcome per check over a range of releases (as is, for one release)."""
    if len(keys) == 1:
        return per_release[0]
    merged = []
    for index, first in enumerate(per_release[0]):
        row = [outcomes[index] for outcomes in per_release]
        failing = [(k, o) for k, o in zip(keys, row, strict=True) if not o.passed]
        shown = failing or list(zip(keys, row, strict=True))
        merged.append(
            Outcome(
                name=first.name,
                passed=not failing,
                description="; ".join(f"{k}: {o.description}" for k, o in shown),
                metadata={"releases": len(keys), "failing": [k for k, _ in failing]},
            )
        )
    return merged


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
