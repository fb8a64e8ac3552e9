"""One step for many release partitions: the wiring that lets a run cover a range.

A cold build materialises every release in one Dagster run over a partition range
(instead of one run per release, whose bookkeeping dominated the build). A step then
receives several partitions at once; per release it still computes exactly what a
one-partition run computes, and Dagster still records one materialisation per
partition. What Dagster cannot record per partition in a range step (metadata and data
versions) is kept here: metadata goes under ``by_partition`` (read back per partition by
``pipeline.instance.latest_metadata``), and the data version is a hash over the
partitions' own versions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import dagster as dg

#: Metadata key holding each partition's own metadata in a range step.
BY_PARTITION = "by_partition"


class PerPartition(dict):
    """Outputs keyed by partition: the IO manager writes one file per key.

    Annotate a partitioned input with this type to receive every partition of a range
    step's input as one mapping.
    """


@dataclass
class Part:
    """What one partition produced: output values by name, metadata, data version."""

    values: dict[str, Any]
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)
    data_version: str | None = None


def _plain(value: Any) -> Any:
    """Metadata values as JSON-able Python (MetadataValue objects unwrapped)."""
    value = getattr(value, "value", value)
    return json.loads(json.dumps(value, default=str))


def outputs(
    keys: list[str], parts: Mapping[str, Part], names: list[str]
) -> Iterator[dg.Output]:
    """One Output per output name, for one partition or a range of them."""
    for name in names:
        if len(keys) == 1:
            part = parts[keys[0]]
            yield dg.Output(
                part.values[name],
                output_name=name,
                metadata=part.metadata.get(name, {}),
                data_version=(
                    dg.DataVersion(part.data_version) if part.data_version else None
                ),
            )
            continue
        by_partition = {
            key: {k: _plain(v) for k, v in parts[key].metadata.get(name, {}).items()}
            for key in keys
        }
        versions = [parts[key].data_version or "" for key in keys]
        digest = hashlib.sha256("\n".join(versions).encode()).hexdigest()[:16]
        yield dg.Output(
            PerPartition({key: parts[key].values[name] for key in keys}),
            output_name=name,
            metadata={
                "partitions": len(keys),
                BY_PARTITION: dg.MetadataValue.json(by_partition),
            },
            data_version=dg.DataVersion(digest) if any(versions) else None,
        )


def each_partition(
    context: dg.AssetExecutionContext, compute: Callable[[str], Part]
) -> tuple[list[str], dict[str, Part]]:
    """Run ``compute`` for every partition of this step, in key order."""
    keys = list(context.partition_keys)
    return keys, {key: compute(key) for key in keys}
