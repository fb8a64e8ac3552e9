"""Raw submission tree assets: results rebuilt from logs, and the summary cross-check.

Belongs here: wiring ``pipeline.fetch.fetch_raw_tree``,
``pipeline.extract.raw_tree.scan_raw_tree`` and ``pipeline.transform.crosscheck``
into assets. Parsing and matching rules live in those modules.
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl

import pipeline.extract.raw_tree as raw_tree_module
import pipeline.extract.submitter_csv as submitter_csv_module
import pipeline.registry.rounds as rounds_module
import pipeline.transform.crosscheck as crosscheck_module
import pipeline.transform.measured as measured_module
import pipeline.transform.results as results_module
import pipeline.transform.submitter_check as submitter_check_module
from pipeline.defs.partitions import FOLLOW_UPSTREAM, release_partitions
from pipeline.defs.ranges import Part, PerPartition, each_partition, outputs
from pipeline.defs.resources import DataDirResource, SourceResource
from pipeline.extract.raw_tree import scan_raw_tree_measured
from pipeline.extract.submitter_csv import submitter_rows
from pipeline.fetch import SOURCE_ERROR, RawOutcome, fetch_raw_tree, stored_tree
from pipeline.lineage import code_version
from pipeline.manifest import SUMMARY_NAMES, release_for
from pipeline.registry import REGISTRY_DIR
from pipeline.registry.releases import version_key
from pipeline.served import TREE_FILE
from pipeline.snapshots import Snapshot, StoreError
from pipeline.source import SourceError
from pipeline.transform.crosscheck import cross_check, cross_check_summary
from pipeline.transform.measured import empty_measured
from pipeline.transform.provenance import snapshot_commit
from pipeline.transform.results import empty_rejected, empty_results
from pipeline.transform.submitter_check import (
    CHECK_SCHEMA,
    agreement,
    submitter_check,
)

#: The tree reader's code and everything it reads by round: the rules and aliases.
TREE_READER_VERSION = code_version(
    raw_tree_module,
    results_module,
    measured_module,
    rounds_module,
    submitter_csv_module,
    submitter_check_module,
    extra=tuple(
        (REGISTRY_DIR / name).read_text()
        for name in (
            "rounds.toml",
            "benchmarks.toml",
            "vocabulary.toml",
            "submitter_summaries.toml",
            "endpoints.toml",
        )
    ),
)


@dg.asset(
    partitions_def=release_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
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
) -> Iterator[dg.Output]:
    """List and fetch each round's raw tree (where the manifest asks for it)."""
    store = data_dir.store()
    src = source.get()
    warnings: list[str] = []

    def fetch(version: str) -> Part:
        release = release_for(version)
        try:
            outcome = fetch_raw_tree(release, src, store)
        except StoreError as exc:
            raise dg.Failure(description=f"{release.version} raw tree: {exc}") from None
        except SourceError as exc:
            kept = store.latest(release.version, TREE_FILE)
            if "summary" not in release.ingest:
                stays = (
                    f"; tree snapshot {kept.sha256[:12]} stays in use" if kept else ""
                )
                raise dg.Failure(
                    description=f"{release.version} raw tree: {exc}{stays}"
                ) from None
            # The tree only checks the published summary: a listing GitHub truncates
            # or a flaky fetch must not hold back the summary's own ingestion. Keep
            # the last tree snapshot and say why.
            outcome = RawOutcome(
                release.version,
                SOURCE_ERROR,
                kept,
                False,
                f"{release.version} raw tree not refreshed: {exc}"
                + (f"; keeping tree snapshot {kept.sha256[:12]}" if kept else ""),
            )
            warnings.append(outcome.message)
        snap = outcome.snapshot
        return Part(
            {"result": outcome.to_json()},
            {
                "result": {"status": outcome.status, "message": outcome.message}
                | (
                    {"sha256": snap.sha256, "fetched_at": snap.fetched_at}
                    if snap
                    else {}
                )
                | ({"over_cap": outcome.over_cap_note} if outcome.over_cap else {})
            },
            snap.sha256 if snap else outcome.status,
        )

    keys, parts = each_partition(context, fetch)
    if warnings:
        context.log.warning("; ".join(warnings))
    yield from outputs(keys, parts, ["result"])


@dg.multi_asset(
    partitions_def=release_partitions,
    backfill_policy=dg.BackfillPolicy.single_run(),
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
                "missing metric line, unreadable system JSON, an endpoints-harness "
                "run that is not complete or valid ...)."
            ),
        ),
        "core_mlperf__tree_measured": dg.AssetOut(
            group_name="core",
            kinds={"polars", "parquet"},
            description=(
                "Latency as measured (TTFT and TPOT p50, p90, p99 and the "
                "early-stopping estimate, ms; tokens/s per user) and accuracy of the "
                "tree results whose files state them (endpoints-harness "
                "result_summary.json and accuracy_results.json)."
            ),
        ),
        "core_mlperf__submitter_check": dg.AssetOut(
            group_name="core",
            kinds={"polars", "parquet"},
            description=(
                "Every row of the submitters' own summary tables in the raw tree "
                "(results_summary.csv, summary.csv) against the result read from the "
                "logs: agree within 0.1%, explained by a reviewed rule, disagree "
                "(both values), or no log result. A check, never a source."
            ),
        ),
    },
    code_version=TREE_READER_VERSION,
)
def core_mlperf__tree_results(
    context: dg.AssetExecutionContext, tree: PerPartition, data_dir: DataDirResource
) -> Iterator[dg.Output]:
    """Scan the stored raw tree of each round."""
    store = data_dir.store()

    def scan(version: str) -> Part:
        release = release_for(version)
        check = pl.DataFrame(schema=CHECK_SCHEMA)
        if not tree[version].get("snapshot"):
            results, rejected = empty_results(), empty_rejected()
            measured = empty_measured()
        else:
            snapshot = Snapshot(**tree[version]["snapshot"])
            paths, read = stored_tree(store, snapshot)
            results, rejected, measured = scan_raw_tree_measured(
                paths,
                read,
                release=release.version,
                repository=release.repository,
                commit=snapshot_commit(snapshot),
            )
            check = submitter_check(
                submitter_rows(paths, read),
                results,
                release=release.version,
                read=read,
                paths=paths,
            )
        counts = agreement(check).to_dicts()
        return Part(
            {
                "core_mlperf__tree_results": results,
                "core_mlperf__tree_rejected": rejected,
                "core_mlperf__tree_measured": measured,
                "core_mlperf__submitter_check": check,
            },
            {
                "core_mlperf__tree_results": {"rows": results.height},
                "core_mlperf__tree_rejected": {"rows": rejected.height},
                "core_mlperf__tree_measured": {"rows": measured.height},
                "core_mlperf__submitter_check": {"rows": check.height}
                | (counts[0] if counts else {}),
            },
        )

    keys, parts = each_partition(context, scan)
    yield from outputs(
        keys,
        parts,
        [
            "core_mlperf__tree_results",
            "core_mlperf__tree_rejected",
            "core_mlperf__tree_measured",
            "core_mlperf__submitter_check",
        ],
    )


@dg.asset(
    automation_condition=FOLLOW_UPSTREAM,
    group_name="core",
    kinds={"polars", "parquet"},
    code_version=code_version(crosscheck_module),
    ins={
        "summary": dg.AssetIn(key="core_mlperf__all_results"),
        "tree": dg.AssetIn(key="core_mlperf__tree_results"),
        "tree_rejected": dg.AssetIn(key="core_mlperf__tree_rejected"),
    },
    description=(
        "For rounds with both a summary and a raw tree: each published result "
        "matched to the value in its loadgen log (agree within 0.1%, disagree, or "
        "one side only, or no raw file in this source where the source holds only "
        "part of the round's tree)."
    ),
)
def core_mlperf__crosscheck(
    summary: pl.LazyFrame, tree: pl.LazyFrame, tree_rejected: pl.LazyFrame
) -> dg.Output[pl.DataFrame]:
    """Cross-check the published table against the raw tree, release by release."""
    scanned = tree.select("release").unique().collect()["release"].to_list()
    # Rounds whose published rows came from a summary file (the source decides).
    from_summary = (
        summary.filter(pl.col("source_file").is_in(SUMMARY_NAMES))
        .select("release")
        .unique()
        .collect()["release"]
        .to_list()
    )
    both = sorted(set(scanned) & set(from_summary), key=version_key)
    # Every scenario folder the scan read, a result or not: a published result with
    # none has no raw file in this source.
    scanned = pl.concat([tree.select("result_key"), tree_rejected.select("result_key")])
    report = cross_check(
        summary.filter(pl.col("release").is_in(both)), tree, scanned=scanned
    )
    return dg.Output(report, metadata=cross_check_summary(report) | {"releases": both})
