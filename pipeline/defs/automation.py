"""Sensors and schedules: discover new rounds and changed files, request the runs.

Belongs here: turning ``pipeline.discovery_tick`` into a sensor (cursor = what
candidate rounds looked like at the last tick) and ``verify_known`` into a daily
re-check by content. Discovery rules and probing
live in ``pipeline.discovery``; downstream cross-release assets follow by their eager
automation conditions.
"""

import dagster as dg

from pipeline.assets import PER_RELEASE, RELEASES
from pipeline.defs.resources import DataDirResource, SourceResource
from pipeline.discovery import Discovery, verify_known
from pipeline.discovery_tick import discovery_tick, known_releases
from pipeline.manifest import release_for
from pipeline.served import forget_not_in_source, not_in_source

PER_RELEASE_KEYS = [dg.AssetKey(k) for k in PER_RELEASE]


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
    return discovery_tick(
        context.instance, context.cursor, source.get, data_dir.store()
    )


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
