"""Sensors and schedules: discover new rounds and changed files, request the runs.

Belongs here: turning ``pipeline.discovery.discover`` into a sensor (cursor = what
candidate rounds looked like at the last tick) and ``verify_known`` into a daily
re-check by content. Discovery rules and probing
live in ``pipeline.discovery``; downstream cross-release assets follow by their eager
automation conditions.
"""

import json

import dagster as dg

from pipeline.defs.partitions import RELEASES, release_partitions
from pipeline.defs.resources import DataDirResource, SourceResource
from pipeline.discovery import Discovery, cursor_validators, discover, verify_known
from pipeline.manifest import is_version, release_for
from pipeline.registry.releases import load_manifest, version_key
from pipeline.served import ever_served, forget_not_in_source, not_in_source
from pipeline.snapshots import SnapshotStore

#: Assets materialized per release partition; everything else follows downstream.
PER_RELEASE = [
    "raw_mlperf__summary",
    "raw_mlperf__tree",
    "core_mlperf__tree_results",
    "core_mlperf__tree_rejected",
    "core_mlperf__submitter_check",
    "core_mlperf__results",
    "core_mlperf__rejected",
]
PER_RELEASE_KEYS = [dg.AssetKey(k) for k in PER_RELEASE]


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
    source: SourceResource,
    data_dir: DataDirResource,
    thorough: bool = False,
) -> dg.SensorResult:
    """One discovery tick: partitions to add, runs to request, the next cursor.

    ``thorough``: known rounds are compared by content, whatever validators say.
    """
    existing = set(instance.get_dynamic_partitions(RELEASES))
    store = data_dir.store()
    known = known_releases(instance, store)
    found = discover(
        source.get(),
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
                asset_selection=PER_RELEASE_KEYS,
                tags={"mlperf-ledger/reason": reason},
            )
            for version, reason in [
                *((v, "new release") for v in found.new_releases),
                *((v, found.reasons[v]) for v in found.changed_releases),
            ]
        ],
        dynamic_partitions_requests=(
            [release_partitions.build_add_request(to_add)] if to_add else []
        ),
        cursor=json.dumps(validators, sort_keys=True),
    )


@dg.sensor(
    name="release_discovery",
    minimum_interval_seconds=3600,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description=(
        "Hourly: probes for the next minor and major round after the newest known one "
        "and verifies every known round against what the store recorded when it was "
        "read (conditional requests, ls-remote, listing fingerprints; the content's "
        "hash where validators differ); requests a run for each new, changed or lost "
        "release. A quiet tick downloads nothing."
    ),
)
def release_discovery(
    context: dg.SensorEvaluationContext,
    source: SourceResource,
    data_dir: DataDirResource,
) -> dg.SensorResult:
    """Discover new and corrected releases."""
    return discovery_tick(context.instance, context.cursor, source, data_dir)


@dg.schedule(
    name="daily_full_check",
    cron_schedule="0 6 * * *",
    target=dg.AssetSelection.assets(*PER_RELEASE_KEYS),
    default_status=dg.DefaultScheduleStatus.RUNNING,
    description=(
        "Daily, on by default: verifies every stored round against the source by "
        "content (each summary's sha256, each raw tree's blob ids or file hashes; "
        "over git the commit), whatever a server's validators say, and requests a "
        "run only for a round whose content changed or that the source lost."
    ),
)
def daily_full_check(
    context: dg.ScheduleEvaluationContext,
    source: SourceResource,
    data_dir: DataDirResource,
) -> list[dg.RunRequest]:
    """One run per known release whose source no longer matches the store.

    A round recorded as not in the source has no partition yet; when the check finds
    it upstream, the partition is added here, because a schedule's result cannot
    carry partition requests the way a sensor's does.
    """
    store = data_dir.store()
    existing = set(context.instance.get_dynamic_partitions(RELEASES))
    absent = set(not_in_source(data_dir.root))
    found = Discovery()
    known = [
        v
        for v in known_releases(context.instance, store)
        if v in existing or v in absent
    ]
    verify_known(
        source.get(), [release_for(v) for v in known], store, found, thorough=True
    )
    appeared = [v for v in found.changed_releases if v not in existing]
    if appeared:
        context.instance.add_dynamic_partitions(RELEASES, appeared)
        forget_not_in_source(data_dir.root, appeared)
    return [
        dg.RunRequest(
            partition_key=v,
            tags={"mlperf-ledger/reason": f"daily check: {found.reasons[v]}"},
        )
        for v in found.changed_releases
    ]
