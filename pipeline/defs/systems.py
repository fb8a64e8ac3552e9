"""Systems assets: the declared description of every system, one identity across rounds.

Belongs here: reading the stored snapshots (raw trees' system JSONs, summaries) and
calling ``pipeline.transform.systems``. Field names, units and the identity live
there and in ``registry/system_fields.toml``.
"""

from collections.abc import Iterator

import dagster as dg
import polars as pl

import pipeline.extract.raw_tree as raw_tree_module
import pipeline.transform.systems as systems_module
from pipeline.defs.partitions import FOLLOW_UPSTREAM
from pipeline.defs.resources import DataDirResource
from pipeline.extract.raw_tree import system_files
from pipeline.fetch import stored_tree
from pipeline.lineage import code_version
from pipeline.registry import REGISTRY_DIR
from pipeline.registry.releases import version_key
from pipeline.snapshots import Snapshot, StoreError
from pipeline.transform.systems import (
    DECLARED_SCHEMA,
    QUARANTINE_SCHEMA,
    read_system_files,
    summary_system_fields,
    systems_table,
)

SYSTEMS_VERSION = code_version(
    systems_module,
    raw_tree_module,
    extra=((REGISTRY_DIR / "system_fields.toml").read_text(),),
)


def declared_fields(store: object, raw: dict, tree: dict) -> tuple[pl.DataFrame, ...]:
    """Every round's declared fields (trees, then summaries) and quarantined files."""
    declared, quarantined = [], []
    for release in sorted(set(raw) | set(tree), key=version_key):
        listing = (tree.get(release) or {}).get("snapshot")
        if listing:
            paths, read = stored_tree(store, Snapshot(**listing))
            found, refused = read_system_files(
                system_files(paths, release=release), read, release=release
            )
            declared.append(found)
            quarantined.append(refused)
        summary = (raw.get(release) or {}).get("snapshot")
        if summary:
            snap = Snapshot(**summary)
            try:
                content = store.read(snap)
            except StoreError:
                continue
            declared.append(
                summary_system_fields(
                    content,
                    release=release,
                    source_file=snap.path,
                    sha256=snap.sha256,
                )
            )
    return (
        pl.concat(declared) if declared else pl.DataFrame(schema=DECLARED_SCHEMA),
        pl.concat(quarantined)
        if quarantined
        else pl.DataFrame(schema=QUARANTINE_SCHEMA),
    )


@dg.multi_asset(
    ins={
        "results": dg.AssetIn("out_mlperf__results"),
        "raw": dg.AssetIn("raw_mlperf__summary"),
        "tree": dg.AssetIn("raw_mlperf__tree"),
    },
    outs={
        "out_mlperf__systems": dg.AssetOut(
            automation_condition=FOLLOW_UPSTREAM,
            group_name="out",
            kinds={"polars", "parquet"},
            description=(
                "One row per round × division × submitter × system: the declared "
                "description (system JSON, else the summary's columns), capacities "
                "in bytes where one is stated, the normalised interconnect family, "
                "cooling kind and accelerator memory in GB beside the declared text "
                "(registry/descriptions.toml), and system_id, the one identity of "
                "the system across rounds (submitter, platform, accelerator, count, "
                "nodes). The submitter's declaration, not a measurement."
            ),
        ),
        "out_mlperf__system_fields": dg.AssetOut(
            automation_condition=FOLLOW_UPSTREAM,
            group_name="out",
            kinds={"polars", "parquet"},
            description=(
                "Every declared field of every system as upstream wrote it, with the "
                "canonical name (registry/system_fields.toml; unknown fields kept "
                "under their own), its file and sha256."
            ),
        ),
        "core_mlperf__systems_quarantined": dg.AssetOut(
            automation_condition=FOLLOW_UPSTREAM,
            group_name="core",
            kinds={"polars", "parquet"},
            description=(
                "System files that could not be read (not UTF-8, not JSON, not an "
                "object, not stored), each with the reason. Never dropped silently."
            ),
        ),
    },
    code_version=SYSTEMS_VERSION,
)
def out_mlperf__systems(
    results: pl.LazyFrame, raw: dict, tree: dict, data_dir: DataDirResource
) -> Iterator[dg.Output]:
    """Read every round's declared descriptions and build the systems table."""
    declared, quarantined = declared_fields(data_dir.store(), raw, tree)
    columns = [
        "release", "division", "submitter", "platform", "system_name",
        "accelerator_id", "accelerator_name", "total_accelerators", "nodes",
    ]  # fmt: skip
    table = systems_table(declared, results.select(columns).collect())
    yield dg.Output(
        table,
        output_name="out_mlperf__systems",
        metadata={
            "rows": table.height,
            "systems": table["system_id"].n_unique(),
            "described": table["source_file"].is_not_null().sum(),
        },
    )
    yield dg.Output(
        declared,
        output_name="out_mlperf__system_fields",
        metadata={"rows": declared.height},
    )
    yield dg.Output(
        quarantined,
        output_name="core_mlperf__systems_quarantined",
        metadata={"rows": quarantined.height},
    )
