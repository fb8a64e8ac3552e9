"""Reading the Dagster instance's event log: the one helper every caller shares."""

import dagster as dg


def latest_metadata(
    instance: dg.DagsterInstance, asset: str, partition: str | None = None
) -> dict:
    """Metadata values of an asset's (partition's) latest materialization, or {}."""
    records_filter = dg.AssetRecordsFilter(
        asset_key=dg.AssetKey(asset),
        asset_partitions=[partition] if partition else None,
    )
    records = instance.fetch_materializations(records_filter, limit=1).records
    if not records or records[0].asset_materialization is None:
        return {}
    metadata = records[0].asset_materialization.metadata
    values = {k: getattr(v, "value", v) for k, v in metadata.items()}
    # A range step records each partition's own metadata under one key.
    by_partition = values.get("by_partition")
    if partition and isinstance(by_partition, dict) and partition in by_partition:
        return dict(by_partition[partition])
    return values
