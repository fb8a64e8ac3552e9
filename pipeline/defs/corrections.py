"""The corrections asset: what changed between consecutive snapshots of each release.

Belongs here: reading snapshot history from the store and calling
``pipeline.transform.corrections.diff_snapshots``; the diff rules live there.
"""

import dagster as dg
import polars as pl

import pipeline.transform.corrections as corrections_module
from pipeline.defs.partitions import FOLLOW_UPSTREAM
from pipeline.defs.resources import DataDirResource
from pipeline.lineage import code_version
from pipeline.manifest import release_for
from pipeline.transform.corrections import (
    diff_snapshots,
    empty_corrections,
    switched_source,
)
from pipeline.transform.provenance import snapshot_commit


@dg.asset(
    group_name="out",
    kinds={"polars", "parquet"},
    automation_condition=FOLLOW_UPSTREAM,
    code_version=code_version(corrections_module),
    description=(
        "Upstream corrections: for every release with more than one stored snapshot, "
        "the results added, removed and changed (field by field, old and new value) "
        "between consecutive snapshots, with the date the change was seen."
    ),
)
def out_mlperf__corrections(
    raw_mlperf__summary: dict, data_dir: DataDirResource
) -> dg.Output[pl.DataFrame]:
    """Diff consecutive versions in each release's snapshot history."""
    store = data_dir.store()
    frames = [empty_corrections()]
    for version, raw in sorted(raw_mlperf__summary.items()):
        snapshot = raw.get("snapshot")
        if not snapshot:
            continue
        release = release_for(version)
        path = snapshot["path"]
        history = store.history(version, path)
        for before, after in zip(history, history[1:], strict=False):
            if switched_source(before, after):
                continue
            old = store.get(version, path, before["sha256"])
            new = store.get(version, path, after["sha256"])
            frames.append(
                diff_snapshots(
                    store.read(old),
                    store.read(new),
                    release=version,
                    repository=release.repository,
                    path=path,
                    old_sha256=old.sha256,
                    new_sha256=new.sha256,
                    seen_at=after["seen_at"],
                    old_commit=snapshot_commit(old),
                    new_commit=snapshot_commit(new),
                )
            )
    table = pl.concat(frames)
    return dg.Output(
        table,
        metadata={
            "rows": table.height,
            "records": table.select("release", "result_key").unique().height,
            "releases": sorted(table["release"].unique().to_list()),
        },
    )
