"""``update`` and ``watch``: one discovery tick and the runs it asks for.

The daemon does the same through the sensor and the eager automation conditions;
this is the one-shot path for the CLI and tests, with the cursor kept in the data
folder between ticks.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import dagster as dg
from sqlalchemy.exc import SQLAlchemyError

from pipeline import pending, settings
from pipeline.discovery import CURSOR_FILE
from pipeline.discovery_tick import discovery_tick
from pipeline.instance import storage_failure
from pipeline.manifest import release_for, unreviewed_note
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
from pipeline.snapshots import SnapshotStore, StoreError

#: The label of the cross-release run (tables and site) among a tick's outcomes.
DOWNSTREAM = "downstream"


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
    retry: dict[str, str] | None = None,
) -> list[RunOutcome]:
    """Do what a sensor tick asked: add partitions, run each request, then downstream.

    The daemon does the same through the sensor and the eager automation conditions;
    this is the one-shot path for the CLI and tests. ``retry``: pending rounds
    (``pipeline.pending``) run again whatever the tick found, with why.
    """
    for request in tick.dynamic_partitions_requests or []:
        register_releases(instance, list(request.partition_keys))
        progress(f"new release partition(s): {', '.join(request.partition_keys)}")
        for version in unreviewed(list(request.partition_keys)):
            progress(unreviewed_note(version))
    reasons = requested(tick)
    if retry:
        # A pending new round whose partition a failed run dropped comes back.
        register_releases(instance, [v for v in retry if v not in reasons])
        reasons |= {v: why for v, why in retry.items() if v not in reasons}
    if not reasons:
        progress("nothing new or changed upstream: no run requested")
        return []
    outcomes = run_releases(instance, list(reasons), progress, reasons)
    drop_unconfirmed(instance, list(reasons), progress)
    skip = nothing_downstream(outcomes)
    if skip:
        # Nothing downstream is stale: the published tables and site stay exactly as
        # they are (as with the daemon's eager rule).
        progress(skip)
        return outcomes
    downstream = run_assets(instance, downstream_keys(), label=DOWNSTREAM)
    progress(
        "cross-release tables and site: "
        + ("rebuilt" if downstream.success else f"FAILED: {downstream.message}")
    )
    return [*outcomes, downstream]


def requested(tick: dg.SensorResult) -> dict[str, str]:
    """The rounds a tick asks runs for, with why."""
    return {
        r.partition_key: r.tags.get("mlperf-ledger/reason", "requested")
        for r in tick.run_requests or []
    }


def update(
    instance: dg.DagsterInstance,
    progress: Callable[[str], None] = print,
    thorough: bool = False,
) -> list[RunOutcome]:
    """One discovery tick and whatever it requests; the cursor is saved afterwards.

    At least once: every round the tick asks for is recorded as pending before any
    run starts and stays so until the site that reads it is published; a pending
    round from an earlier tick (a failed or killed one) is run again here.
    """
    data = settings.data_dir()
    tick = evaluate_discovery(instance, thorough=thorough)
    seen = requested(tick)
    waiting = pending.record_seen(data, seen)
    try:
        outcomes = apply_tick(
            instance, tick, progress, retry=pending.retries(waiting, list(seen))
        )
    except (sqlite3.Error, SQLAlchemyError, OSError) as exc:
        # A write outside any step (Dagster's run records, the files beside them)
        # failed: the runs' outcome is unknown, so every round of the tick stays
        # pending with why, and the command ends with that sentence, no traceback.
        message = bookkeeping_failure(exc)
        pending.settle(data, dict.fromkeys(waiting, message), [])
        raise StoreError(message) from None
    settle(data, outcomes)
    if tick.cursor is not None:
        cursor_path().parent.mkdir(parents=True, exist_ok=True)
        cursor_path().write_text(tick.cursor)
    remember_partitions(instance)
    return outcomes


def bookkeeping_failure(exc: BaseException) -> str:
    """A failed write of a run's records as one sentence naming where it went.

    SQLite errors are Dagster's storage under ``DAGSTER_HOME``; an OS error names
    its own file when it has one.
    """
    if isinstance(exc, OSError):
        where = exc.filename or settings.data_dir()
        return f"cannot write {where}: {pending.disk_cause(exc)}"
    cause = getattr(exc, "orig", None) or exc  # SQLAlchemy wraps sqlite3's error
    return storage_failure(str(cause) or type(cause).__name__)


def settle(data: Path, outcomes: list[RunOutcome]) -> None:
    """Pending rounds whose site is published leave; the others keep the failure.

    A round is published once its run succeeded and the site was rebuilt and
    swapped in; an unreviewed round never reaches the site, so its run is enough.
    """
    downstream = next((o for o in outcomes if o.label == DOWNSTREAM), None)
    runs = [o for o in outcomes if o.label != DOWNSTREAM]
    failed = {o.label: o.message or "the run failed" for o in runs if not o.success}
    published = []
    for outcome in (o for o in runs if o.success):
        if downstream is not None and downstream.success:
            published.append(outcome.label)
        elif downstream is not None:
            why = downstream.message or "the run failed"
            failed[outcome.label] = (
                why
                if why.startswith("site not published")
                else f"site not published: {why}"
            )
        elif not release_for(outcome.label).reviewed:
            published.append(outcome.label)
    pending.settle(data, failed, published)
