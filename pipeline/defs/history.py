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
    return {k: getattr(v, "value", v) for k, v in metadata.items()}
