"""``status``: per round, what is stored and how its last run went.

Read-only over the instance and the snapshot store, so it can run while another
command holds the data folder.
"""

from __future__ import annotations

import dagster as dg

from pipeline import settings
from pipeline.fetch import NOT_IN_SOURCE
from pipeline.instance import latest_metadata
from pipeline.manifest import release_for
from pipeline.runner import failure_message, known_releases
from pipeline.served import not_in_source
from pipeline.snapshots import SnapshotStore


def _last_run(instance: dg.DagsterInstance, version: str) -> dg.DagsterRun | None:
    """The newest run that covered a release: its own run, or a range run.

    A range run only shows in the release's materialization; a failed range run is
    rerun per release, so failures always have a run of their own.
    """
    runs = list(
        instance.get_runs(
            filters=dg.RunsFilter(tags={"dagster/partition": version}), limit=1
        )
    )
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(
            asset_key=dg.AssetKey("raw_mlperf__summary"), asset_partitions=[version]
        ),
        limit=1,
    ).records
    if records:
        ranged = instance.get_run_record_by_id(records[0].run_id)
        if ranged is not None:
            runs.append(ranged.dagster_run)
    if not runs:
        return None
    created = {
        r.run_id: record.create_timestamp
        for r in runs
        if (record := instance.get_run_record_by_id(r.run_id)) is not None
    }
    return max(runs, key=lambda r: created.get(r.run_id, 0) or 0)


def release_status(instance: dg.DagsterInstance) -> list[dict]:
    """Per release: snapshot hash, versions seen, rows, rejected, checks, last run."""
    store = SnapshotStore(settings.data_dir())
    absent = not_in_source(settings.data_dir())
    rows = []
    for version in known_releases(instance):
        path = release_for(version).summary_path
        history = store.history(version, path) if path else []
        raw = latest_metadata(instance, "raw_mlperf__summary", version)
        core = latest_metadata(instance, "core_mlperf__results", version)
        tree = latest_metadata(instance, "raw_mlperf__tree", version)
        tree_rows = latest_metadata(instance, "core_mlperf__tree_results", version)
        last = _last_run(instance, version)
        last_run = "never run"
        if version in absent and last is None:
            last_run = f"none: not in source at {absent[version]}"
        if last is not None:
            last_run = last.status.value.lower()
            if last.status == dg.DagsterRunStatus.FAILURE:
                last_run += f": {failure_message(instance, last.run_id)}"
        rows.append(
            {
                "release": version,
                "status": raw.get(
                    "status", NOT_IN_SOURCE if version in absent else "not ingested"
                ),
                "sha256": str(raw.get("sha256", ""))[:12],
                "fetched_at": raw.get("fetched_at", ""),
                "versions": (
                    f"{len({h['sha256'] for h in history})} "
                    f"(last change seen {history[-1]['seen_at'][:10]})"
                    if history
                    else ""
                ),
                "rows": core.get("rows", ""),
                "rejected": (
                    f"{core['rejected']} ({float(core.get('rejected_share') or 0):.1%})"
                    if core.get("rejected")
                    else core.get("rejected", "")
                ),
                "checks": core.get("checks", ""),
                "raw_tree": (
                    f"{tree_rows.get('rows')} rows"
                    if tree.get("status") == "ingested"
                    else tree.get(
                        "status",
                        NOT_IN_SOURCE
                        if version in absent and release_for(version).reads_raw_tree
                        else "",
                    )
                ),
                "last_run": last_run,
            }
        )
    return rows
