"""``update`` and ``watch``: one discovery tick and the runs it asks for.

The daemon does the same through the sensor and the eager automation conditions;
this is the one-shot path for the CLI and tests, with the cursor kept in the data
folder between ticks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import dagster as dg

from pipeline import settings
from pipeline.discovery import CURSOR_FILE
from pipeline.discovery_tick import discovery_tick
from pipeline.manifest import unreviewed_note
from pipeline.runner import (
    RunOutcome,
    downstream_keys,
    drop_unconfirmed,
    nothing_downstream,
    register_releases,
    remember_partitions,
    run_assets,
    run_releases,
    unreviewed,
)
from pipeline.snapshots import SnapshotStore


def cursor_path() -> Path:
    """Where the CLI keeps the discovery validators between ticks."""
    return settings.data_dir() / CURSOR_FILE


def evaluate_discovery(
    instance: dg.DagsterInstance, thorough: bool = False
) -> dg.SensorResult:
    """One discovery tick as the sensor does it, with the CLI's stored cursor.

    ``thorough`` (``watch``'s daily tick): stored rounds compared by content.
    """
    path = cursor_path()
    cursor = path.read_text() if path.exists() else None
    store = SnapshotStore(settings.data_dir())
    return discovery_tick(
        instance, cursor, settings.open_source, store, thorough=thorough
    )


def apply_tick(
    instance: dg.DagsterInstance,
    tick: dg.SensorResult,
    progress: Callable[[str], None] = print,
) -> list[RunOutcome]:
    """Do what a sensor tick asked: add partitions, run each request, then downstream.

    The daemon does the same through the sensor and the eager automation conditions;
    this is the one-shot path for the CLI and tests.
    """
    for request in tick.dynamic_partitions_requests or []:
        register_releases(instance, list(request.partition_keys))
        progress(f"new release partition(s): {', '.join(request.partition_keys)}")
        for version in unreviewed(list(request.partition_keys)):
            progress(unreviewed_note(version))
    requests = tick.run_requests or []
    if not requests:
        progress("nothing new or changed upstream: no run requested")
        return []
    reasons = {
        r.partition_key: r.tags.get("mlperf-ledger/reason", "requested")
        for r in requests
    }
    outcomes = run_releases(instance, list(reasons), progress, reasons)
    drop_unconfirmed(instance, list(reasons), progress)
    skip = nothing_downstream(outcomes)
    if skip:
        # Nothing downstream is stale: the published tables and site stay exactly as
        # they are (as with the daemon's eager rule).
        progress(skip)
        return outcomes
    downstream = run_assets(instance, downstream_keys(), label="downstream")
    progress(
        "cross-release tables and site: "
        + ("rebuilt" if downstream.success else f"FAILED: {downstream.message}")
    )
    return [*outcomes, downstream]


def update(
    instance: dg.DagsterInstance,
    progress: Callable[[str], None] = print,
    thorough: bool = False,
) -> list[RunOutcome]:
    """One discovery tick and whatever it requests; the cursor is saved afterwards."""
    tick = evaluate_discovery(instance, thorough=thorough)
    outcomes = apply_tick(instance, tick, progress)
    if tick.cursor is not None:
        cursor_path().parent.mkdir(parents=True, exist_ok=True)
        cursor_path().write_text(tick.cursor)
    remember_partitions(instance)
    return outcomes
