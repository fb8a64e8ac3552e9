"""Run the asset graph through Dagster from plain Python (the CLI and tests use this).

Runs go through Dagster so they are recorded in the local instance (``DAGSTER_HOME``)
and visible in ``make ui``; this module only chooses partitions and selections and
turns Dagster's events into short human-readable outcomes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

from pipeline import settings
from pipeline.defs.automation import PER_RELEASE
from pipeline.defs.history import latest_metadata
from pipeline.manifest import load_manifest, version_key

RELEASES = "release"
#: Quiet Dagster's console logger: the CLI prints its own progress lines.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass(frozen=True)
class RunOutcome:
    """One Dagster run, summarised for a terminal."""

    label: str
    success: bool
    run_id: str
    message: str


def ensure_dagster_home() -> Path:
    """Use ``DAGSTER_HOME`` or ``<data dir>/dagster_home``, creating it if needed."""
    home = Path(os.environ.get("DAGSTER_HOME") or settings.data_dir() / "dagster_home")
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists():
        # No telemetry: the pipeline runs where only package registries are reachable.
        config.write_text("telemetry:\n  enabled: false\n")
    os.environ["DAGSTER_HOME"] = str(home.resolve())
    return home


def get_instance() -> dg.DagsterInstance:
    """The persistent local instance shared with ``dagster dev``."""
    ensure_dagster_home()
    return dg.DagsterInstance.get()


def load_defs() -> dg.Definitions:
    """The project's Definitions, loaded the way ``dagster dev`` loads them."""
    from pipeline.definitions import defs

    return defs()


SITE_GROUP = "site"


def downstream_keys(site: bool = True) -> list[str]:
    """Every unpartitioned asset: cross-release tables, analytics, maybe the site."""
    graph = load_defs().resolve_asset_graph()
    return sorted(
        key.to_user_string()
        for key in graph.materializable_asset_keys
        if graph.get(key).partitions_def is None
        and (site or graph.get(key).group_name != SITE_GROUP)
    )


def known_releases(instance: dg.DagsterInstance) -> list[str]:
    """Manifest rounds plus any added by discovery, in version order."""
    found = set(instance.get_dynamic_partitions(RELEASES))
    found |= {r.version for r in load_manifest()}
    return sorted(found, key=version_key)


def register_releases(instance: dg.DagsterInstance, versions: Sequence[str]) -> None:
    """Add release partitions the instance does not know yet."""
    existing = set(instance.get_dynamic_partitions(RELEASES))
    missing = [v for v in versions if v not in existing]
    if missing:
        instance.add_dynamic_partitions(RELEASES, missing)


def failure_message(instance: dg.DagsterInstance, run_id: str) -> str:
    """The first step failure of a run, as the user-facing description."""
    for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_FAILURE):
        data = entry.dagster_event.step_failure_data
        if data.user_failure_data and data.user_failure_data.description:
            return data.user_failure_data.description
        if data.error:
            error = data.error
            while error.cause is not None:  # the user code's exception, not Dagster's
                error = error.cause
            return f"{error.cls_name}: {error.message.strip()}"
    return "run failed (see `make ui` for the event log)"


def run_assets(
    instance: dg.DagsterInstance,
    selection: Sequence[str],
    partition: str | None = None,
    label: str = "",
) -> RunOutcome:
    """Materialize a selection (one partition, or unpartitioned assets) as one run."""
    defs = load_defs()
    job = defs.resolve_implicit_global_asset_job_def()
    result = job.execute_in_process(
        instance=instance,
        partition_key=partition,
        asset_selection=[dg.AssetKey(k) for k in selection],
        run_config=QUIET,
        raise_on_error=False,
    )
    message = "" if result.success else failure_message(instance, result.run_id)
    return RunOutcome(
        label or partition or "all", result.success, result.run_id, message
    )


def ingest(
    instance: dg.DagsterInstance,
    versions: Sequence[str],
    progress: Callable[[str], None] = print,
    site: bool = False,
) -> list[RunOutcome]:
    """Materialize each release's partition, then the cross-release assets.

    With ``site`` the website is rendered, built and published too.
    """
    register_releases(instance, versions)
    outcomes = []
    for index, version in enumerate(versions, start=1):
        outcome = run_assets(instance, PER_RELEASE, partition=version)
        progress(f"[{index}/{len(versions)}] {describe_release(instance, outcome)}")
        outcomes.append(outcome)
    if outcomes and not any(o.success for o in outcomes):
        progress("no release updated: cross-release tables and site left unchanged")
        return outcomes
    combined = run_assets(instance, downstream_keys(site), label="all releases")
    if not combined.success:
        progress(f"cross-release assets: FAILED: {combined.message}")
    else:
        rows = latest_metadata(instance, "core_mlperf__all_results").get("rows")
        progress(
            f"combined table: {rows} rows; analytics, claims and corrections built"
        )
        if site:
            built = latest_metadata(instance, "out_site__published")
            progress(
                f"site: {built.get('pages')} pages published at {built.get('site')}"
            )
    return [*outcomes, combined]


def describe_release(instance: dg.DagsterInstance, outcome: RunOutcome) -> str:
    """One progress line for a release run."""
    version = outcome.label
    if not outcome.success:
        return f"{version}: FAILED: {outcome.message}"
    raw = latest_metadata(instance, "raw_mlperf__summary", version)
    core = latest_metadata(instance, "core_mlperf__results", version)
    tree = latest_metadata(instance, "raw_mlperf__tree", version)
    tree_note = ""
    if tree.get("status") == "ingested":
        rows = latest_metadata(instance, "core_mlperf__tree_results", version)
        rejected = latest_metadata(instance, "core_mlperf__tree_rejected", version)
        tree_note = (
            f"; raw tree: {rows.get('rows')} rows, {rejected.get('rows')} rejected"
        )
    if raw.get("status") != "ingested" and not raw.get("sha256"):
        message = str(raw.get("message") or f"{version}: {raw.get('status')}")
        return message + (tree_note or f"; raw tree: {tree.get('status', 'n/a')}")
    state = "new snapshot" if raw.get("is_new") else "unchanged"
    return (
        f"{version}: {core.get('rows')} rows, {core.get('rejected')} rejected, "
        f"checks {core.get('checks')}, sha256 {str(raw.get('sha256'))[:12]} ({state})"
        + tree_note
    )


def release_status(instance: dg.DagsterInstance) -> list[dict]:
    """Per release: snapshot hash, versions seen, rows, rejected, checks, last run."""
    from pipeline.manifest import release_for
    from pipeline.snapshots import SnapshotStore

    store = SnapshotStore(settings.data_dir())
    rows = []
    for version in known_releases(instance):
        path = release_for(version).summary_path
        history = store.history(version, path) if path else []
        raw = latest_metadata(instance, "raw_mlperf__summary", version)
        core = latest_metadata(instance, "core_mlperf__results", version)
        tree = latest_metadata(instance, "raw_mlperf__tree", version)
        tree_rows = latest_metadata(instance, "core_mlperf__tree_results", version)
        runs = instance.get_runs(
            filters=dg.RunsFilter(tags={"dagster/partition": version}), limit=1
        )
        last = runs[0] if runs else None
        last_run = "never run"
        if last is not None:
            last_run = last.status.value.lower()
            if last.status == dg.DagsterRunStatus.FAILURE:
                last_run += f": {failure_message(instance, last.run_id)}"
        rows.append(
            {
                "release": version,
                "status": raw.get("status", "not ingested"),
                "sha256": str(raw.get("sha256", ""))[:12],
                "fetched_at": raw.get("fetched_at", ""),
                "versions": (
                    f"{len({h['sha256'] for h in history})} "
                    f"(last change seen {history[-1]['seen_at'][:10]})"
                    if history
                    else ""
                ),
                "rows": core.get("rows", ""),
                "rejected": core.get("rejected", ""),
                "checks": core.get("checks", ""),
                "raw_tree": (
                    f"{tree_rows.get('rows')} rows"
                    if tree.get("status") == "ingested"
                    else tree.get("status", "")
                ),
                "last_run": last_run,
            }
        )
    return rows


def cursor_path() -> Path:
    """Where the CLI keeps the discovery validators between ticks."""
    return settings.data_dir() / "discovery_cursor.json"


def evaluate_discovery(instance: dg.DagsterInstance) -> dg.SensorResult:
    """Evaluate the discovery sensor once, with the CLI's stored cursor."""
    from pipeline.defs.automation import release_discovery
    from pipeline.defs.resources import DataDirResource, SourceResource

    path = cursor_path()
    context = dg.build_sensor_context(
        instance=instance,
        cursor=path.read_text() if path.exists() else None,
        resources={"source": SourceResource(), "data_dir": DataDirResource()},
    )
    return release_discovery(context)


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
    requests = tick.run_requests or []
    if not requests:
        progress("nothing new or changed upstream: no run requested")
        return []
    outcomes = []
    for index, request in enumerate(requests, start=1):
        reason = request.tags.get("mlperf-ledger/reason", "requested")
        outcome = run_assets(instance, PER_RELEASE, partition=request.partition_key)
        progress(
            f"[{index}/{len(requests)}] {reason}: {describe_release(instance, outcome)}"
        )
        outcomes.append(outcome)
    if not any(o.success for o in outcomes):
        # Nothing new was materialized, so nothing downstream is stale: the published
        # tables and site stay exactly as they are (as with the daemon's eager rule).
        progress("no release updated: cross-release tables and site left unchanged")
        return outcomes
    downstream = run_assets(instance, downstream_keys(), label="downstream")
    progress(
        "cross-release tables and site: "
        + ("rebuilt" if downstream.success else f"FAILED: {downstream.message}")
    )
    return [*outcomes, downstream]


def update(
    instance: dg.DagsterInstance, progress: Callable[[str], None] = print
) -> list[RunOutcome]:
    """One discovery tick and whatever it requests; the cursor is saved afterwards."""
    tick = evaluate_discovery(instance)
    outcomes = apply_tick(instance, tick, progress)
    if tick.cursor is not None:
        cursor_path().parent.mkdir(parents=True, exist_ok=True)
        cursor_path().write_text(tick.cursor)
    return outcomes
