"""Raw submission tree assets: results rebuilt from logs, and the summary cross-check.

Belongs here: wiring ``pipeline.ingest.fetch_raw_tree``,
``pipeline.extract.raw_tree.scan_raw_tree`` and ``pipeline.transform.crosscheck``
into assets. Parsing and matching rules live in those modules.
"""

import dagster as dg
import polars as pl

import pipeline.extract.raw_tree as raw_tree_module
import pipeline.rounds as rounds_module
import pipeline.transform.crosscheck as crosscheck_module
import pipeline.transform.results as results_module
from pipeline.defs.partitions import FOLLOW_UPSTREAM, release_partitions
from pipeline.defs.resources import DataDirResource, SourceResource
from pipeline.extract.raw_tree import scan_raw_tree
from pipeline.ingest import TREE_FILE, RawOutcome, fetch_raw_tree, stored_tree
from pipeline.lineage import code_version
from pipeline.manifest import release_for
from pipeline.registry import REGISTRY_DIR
from pipeline.snapshots import Snapshot, StoreError
from pipeline.source import SourceError
from pipeline.transform.crosscheck import cross_check, cross_check_summary
from pipeline.transform.results import empty_rejected, empty_results

#: The tree reader's code and everything it reads by round: the rules and aliases.
TREE_READER_VERSION = code_version(
    raw_tree_module,
    results_module,
    rounds_module,
    extra=tuple(
        (REGISTRY_DIR / name).read_text() for name in ("rounds.toml", "benchmarks.toml")
    ),
)


@dg.asset(
    partitions_def=release_partitions,
    group_name="raw",
    code_version=TREE_READER_VERSION,
    kinds={"json"},
    description=(
        "The raw submission tree of one round: a listing of every path plus the "
        "sha256 of each file the scan reads (system JSONs, mlperf_log_summary.txt); "
        "the files are stored once each as content-addressed blobs."
    ),
)
def raw_mlperf__tree(
    context: dg.AssetExecutionContext, source: SourceResource, data_dir: DataDirResource
) -> dg.Output[dict]:
    """List and fetch one round's raw tree (where the manifest asks for it)."""
    release = release_for(context.partition_key)
    store = data_dir.store()
    try:
        outcome = fetch_raw_tree(release, source.get(), store)
    except StoreError as exc:
        raise dg.Failure(description=f"{release.version} raw tree: {exc}") from None
    except SourceError as exc:
        kept = store.latest(release.version, TREE_FILE)
        if "summary" not in release.ingest:
            stays = f"; tree snapshot {kept.sha256[:12]} stays in use" if kept else ""
            raise dg.Failure(
                description=f"{release.version} raw tree: {exc}{stays}"
            ) from None
        # The tree only checks the published summary: a listing GitHub truncates or a
        # flaky fetch must not hold back the summary's own ingestion. Keep the last
        # tree snapshot and say why.
        outcome = RawOutcome(
            release.version,
            "source error",
            kept,
            False,
            f"{release.version} raw tree not refreshed: {exc}"
            + (f"; keeping tree snapshot {kept.sha256[:12]}" if kept else ""),
        )
        context.log.warning(outcome.message)
    context.log.info(outcome.message)
    snap = outcome.snapshot
    return dg.Output(
        outcome.to_json(),
        data_version=dg.DataVersion(snap.sha256 if snap else outcome.status),
        metadata={"status": outcome.status, "message": outcome.message}
        | ({"sha256": snap.sha256, "fetched_at": snap.fetched_at} if snap else {}),
    )


@dg.multi_asset(
    partitions_def=release_partitions,
    ins={"tree": dg.AssetIn(key="raw_mlperf__tree")},
    outs={
        "core_mlperf__tree_results": dg.AssetOut(
            group_name="core",
            kinds={"polars", "parquet"},
            description=(
                "Results rebuilt from the raw tree's loadgen logs, in the canonical "
                "schema; VALID runs only."
            ),
        ),
        "core_mlperf__tree_rejected": dg.AssetOut(
            group_name="core",
            kinds={"polars", "parquet"},
            description=(
                "Raw-tree result folders that could not become results (INVALID run, "
                "missing metric line, unreadable system JSON, endpoints harness ...)."
            ),
        ),
    },
    code_version=TREE_READER_VERSION,
)
def core_mlperf__tree_results(
    context: dg.AssetExecutionContext, tree: dict, data_dir: DataDirResource
):
    """Scan the stored raw tree of one round."""
    release = release_for(context.partition_key)
    if not tree.get("snapshot"):
        results, rejected = empty_results(), empty_rejected()
    else:
        paths, read = stored_tree(data_dir.store(), Snapshot(**tree["snapshot"]))
        results, rejected = scan_raw_tree(
            paths,
            read,
            release=release.version,
            repository=release.repository,
        )
    yield dg.Output(
        results,
        output_name="core_mlperf__tree_results",
        metadata={"rows": results.height},
    )
    yield dg.Output(
        rejected,
        output_name="core_mlperf__tree_rejected",
        metadata={"rows": rejected.height},
    )


@dg.asset(
    automation_condition=FOLLOW_UPSTREAM,
    group_name="core",
    kinds={"polars", "parquet"},
    code_version=code_version(crosscheck_module),
    ins={
        "summary": dg.AssetIn(key="core_mlperf__all_results"),
        "tree": dg.AssetIn(key="core_mlperf__tree_results"),
    },
    description=(
        "For rounds with both a summary and a raw tree: each published result "
        "matched to the value in its loadgen log (agree within 0.1%, disagree, or "
        "one side only)."
    ),
)
def core_mlperf__crosscheck(
    summary: pl.LazyFrame, tree: pl.LazyFrame
) -> dg.Output[pl.DataFrame]:
    """Cross-check the published table against the raw tree, release by release."""
    scanned = tree.select("release").unique().collect()["release"].to_list()
    both = [v for v in scanned if "summary" in release_for(v).ingest]
    report = cross_check(summary.filter(pl.col("release").is_in(both)), tree)
    return dg.Output(report, metadata=cross_check_summary(report) | {"releases": both})
