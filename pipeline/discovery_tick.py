"""One discovery tick, as the sensor and ``update`` both make it.

``pipeline.discovery`` decides what is new or changed upstream; this module turns its
answer into what Dagster acts on (partitions to add, runs to request, the next
cursor). The ``release_discovery`` sensor (``pipeline/defs/automation.py``) and the
CLI's ``update`` (``pipeline/update.py``) call the same function, so a tick means the
same whichever runs it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import dagster as dg

from pipeline.assets import PER_RELEASE, RELEASES
from pipeline.discovery import cursor_validators, discover
from pipeline.gitsource import GitSource
from pipeline.manifest import is_version, release_for
from pipeline.registry.releases import load_manifest, version_key
from pipeline.served import ever_served
from pipeline.snapshots import SnapshotStore
from pipeline.source import Source


def known_releases(instance: dg.DagsterInstance, store: SnapshotStore) -> list[str]:
    """The rounds to verify: the manifest's, and partitions the source served.

    A malformed key an older version let in (e.g. "v6.0" and a newline) is not a
    round, and neither is a partition the source never served a file for (a typo
    given to `ingest --release`): it must not become the frontier new rounds are
    probed from.
    """
    manifest = [r.version for r in load_manifest()]
    existing = instance.get_dynamic_partitions(RELEASES)
    served = {v for v in filter(is_version, existing) if ever_served(store, v)}
    return sorted(served | set(manifest), key=version_key)


def discovery_tick(
    instance: dg.DagsterInstance,
    cursor: str | None,
    open_source: Callable[[], Source | GitSource],
    store: SnapshotStore,
    thorough: bool = False,
) -> dg.SensorResult:
    """One discovery tick: partitions to add, runs to request, the next cursor.

    ``open_source`` is called once the known rounds are read. ``thorough``: known
    rounds are compared by content, whatever validators say.
    """
    existing = set(instance.get_dynamic_partitions(RELEASES))
    known = known_releases(instance, store)
    found = discover(
        open_source(),
        [release_for(v) for v in known],
        cursor_validators(cursor),
        store,
        thorough=thorough,
    )
    # A partition comes with the round's first run: a listed round the source
    # does not have gets none (``runner.absent_rounds``), and its appearance
    # upstream is a requested run like any change.
    to_add = [v for v in found.releases_to_run if v not in existing]
    validators = found.validators
    return dg.SensorResult(
        run_requests=[
            dg.RunRequest(
                partition_key=version,
                asset_selection=[dg.AssetKey(k) for k in PER_RELEASE],
                tags={"mlperf-ledger/reason": reason},
            )
            for version, reason in [
                *((v, "new release") for v in found.new_releases),
                *((v, found.reasons[v]) for v in found.changed_releases),
            ]
        ],
        dynamic_partitions_requests=(
            [dg.AddDynamicPartitionsRequest(RELEASES, to_add)] if to_add else []
        ),
        cursor=json.dumps(validators, sort_keys=True),
    )
