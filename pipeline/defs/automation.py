"""Sensors and schedules: discover new rounds and changed files, request the runs.

Belongs here: turning ``pipeline.discovery.discover`` into a sensor (cursor = the
validators of the last tick) and a daily full re-check. Discovery rules and probing
live in ``pipeline.discovery``; downstream cross-release assets follow by their eager
automation conditions.
"""

import json

import dagster as dg

from pipeline.defs.partitions import RELEASES, release_partitions
from pipeline.defs.resources import DataDirResource, SourceResource
from pipeline.discovery import cursor_validators, discover
from pipeline.ingest import ever_served
from pipeline.manifest import is_version, load_manifest, release_for, version_key

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


def discovery_tick(
    instance: dg.DagsterInstance,
    cursor: str | None,
    source: SourceResource,
    data_dir: DataDirResource,
) -> dg.SensorResult:
    """One discovery tick: partitions to add, runs to request, the next cursor."""
    manifest = [r.version for r in load_manifest()]
    existing = set(instance.get_dynamic_partitions(RELEASES))
    # A malformed key an older version let in (e.g. "v6.0\n") is not a round, and
    # neither is a partition the source never served a file for (a typo given to
    # `ingest --release`): it must not become the frontier new rounds are probed from.
    store = data_dir.store()
    served = {v for v in filter(is_version, existing) if ever_served(store, v)}
    known = sorted(served | set(manifest), key=version_key)
    found = discover(
        source.get(), [release_for(v) for v in known], cursor_validators(cursor), store
    )
    to_add = [v for v in [*known, *found.new_releases] if v not in existing]
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
                *((v, "changed upstream") for v in found.changed_releases),
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
        "and re-probes known summary files with conditional requests; requests a run "
        "for each new or changed release. A quiet tick downloads nothing."
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
    default_status=dg.DefaultScheduleStatus.STOPPED,
    description=(
        "Daily: re-fetch every known release (content hashes decide whether anything "
        "changed), in case a server's validators missed a change."
    ),
)
def daily_full_check(context: dg.ScheduleEvaluationContext) -> list[dg.RunRequest]:
    """One run per known release partition."""
    return [
        dg.RunRequest(partition_key=v, tags={"mlperf-ledger/reason": "daily check"})
        for v in context.instance.get_dynamic_partitions(RELEASES)
    ]
