"""Run the asset graph through Dagster from plain Python (the CLI and tests use this).

Runs go through Dagster so they are recorded in the local instance (``DAGSTER_HOME``)
and visible in ``make ui``; this module only chooses partitions and selections and
turns Dagster's events into short human-readable outcomes. The commands built on it
live apart: ``pipeline.update`` (discovery ticks), ``pipeline.status`` and
``pipeline.forget``.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import dagster as dg

from pipeline import runlock, settings
from pipeline.assets import PER_RELEASE, RELEASES
from pipeline.discovery import KNOWN_FILE
from pipeline.fetch import NOT_IN_SOURCE, SOURCE_ERROR
from pipeline.instance import get_instance, latest_metadata, storage_failure
from pipeline.manifest import is_version, release_for, unreviewed_note
from pipeline.redact import redact_url
from pipeline.registry.releases import load_manifest, version_key
from pipeline.served import forget_not_in_source, record_not_in_source
from pipeline.validate import LOSS_LIMIT

#: Quiet Dagster's console logger: the CLI prints its own progress lines.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
#: Tags on every run this module starts, so a later start can tell its own runs that a
#: killed process left behind from runs the Dagster daemon (``make ui``) is running.
RUNNER_TAG = "mlperf-ledger/runner"
PID_TAG = "mlperf-ledger/pid"
#: Dagster's run tags for a run over a partition range.
RANGE_START = "dagster/asset_partition_range_start"
RANGE_END = "dagster/asset_partition_range_end"
#: Statuses of a run that has not finished.
UNFINISHED = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]
ORPHAN_MESSAGE = (
    "marked failed: its process ended without finishing (found at the next start)"
)
#: Exceptions whose message is already the whole user-facing sentence.
PLAIN_ERRORS = {"DataWriteError", "StoreError"}


@dataclass(frozen=True)
class RunOutcome:
    """One Dagster run, summarised for a terminal."""

    label: str
    success: bool
    run_id: str
    message: str


@functools.cache
def load_defs() -> dg.Definitions:
    """The project's Definitions, loaded the way ``dagster dev`` loads them.

    Loaded once per process: loading walks the defs folder (about 0.6 s), and the
    definitions do not change while a command runs.
    """
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
    found = set(filter(is_version, instance.get_dynamic_partitions(RELEASES)))
    found |= {r.version for r in load_manifest()}
    return sorted(found, key=version_key)


def drop_invalid_partitions(
    instance: dg.DagsterInstance, progress: Callable[[str], None] = print
) -> list[str]:
    """Remove release partitions that are not ``vX.Y`` (older versions let them in)."""
    invalid = [
        p for p in instance.get_dynamic_partitions(RELEASES) if not is_version(p)
    ]
    delete_partitions(
        instance,
        invalid,
        progress,
        f"removed release partition(s) {', '.join(map(repr, invalid))}: "
        "not a version like v6.1",
    )
    return invalid


def delete_partitions(
    instance: dg.DagsterInstance,
    keys: Sequence[str],
    progress: Callable[[str], None],
    said: str,
) -> None:
    """Remove release partitions, keep the plain-file copy in step, say why once."""
    for key in keys:
        instance.delete_dynamic_partition(RELEASES, key)
    if keys:
        remember_partitions(instance)
        progress(said)


def _process_gone(pid_tag: str) -> bool:
    """Whether the process that started a run has ended.

    This process counts as ended (it is between runs); a live other process is given
    the benefit of the doubt.
    """
    if not pid_tag.isdigit() or int(pid_tag) in (0, os.getpid()):
        return True
    try:
        os.kill(int(pid_tag), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's live process
        return False
    return False


def fail_orphaned_runs(
    instance: dg.DagsterInstance, progress: Callable[[str], None] = print
) -> list[str]:
    """Mark failed the unfinished runs whose process is gone (e.g. ``kill -9``).

    Call it while holding the data directory's lock: no other mlperf-ledger run is
    going on then, so an unfinished run this module started belongs to a process that
    ended without finishing it. Runs of the Dagster daemon carry no runner tag and are
    left alone. Returns the run ids marked failed.
    """
    runs = instance.get_runs(
        filters=dg.RunsFilter(statuses=UNFINISHED, tags={RUNNER_TAG: "cli"})
    )
    orphans = [run for run in runs if _process_gone(run.tags.get(PID_TAG, ""))]
    for run in orphans:
        instance.report_run_failed(run, message=ORPHAN_MESSAGE)
    if orphans:
        names = ", ".join(
            f"{run.run_id[:8]} ({run.tags.get('dagster/partition', 'all')})"
            for run in orphans
        )
        progress(
            f"marked {len(orphans)} unfinished run(s) failed, their process ended "
            f"without finishing: {names}"
        )
    return [run.run_id for run in orphans]


@contextmanager
def exclusive(
    progress: Callable[[str], None] = print,
    data_shown: str | None = None,
    build: bool = False,
) -> Iterator[dg.DagsterInstance]:
    """Hold the data directory (and the build directory) for one run, then clean up.

    A second run on the same folder fails at once with ``runlock.BusyError``. Once
    held, runs a killed process left unfinished are marked failed and invalid release
    partitions removed, so what follows starts from a consistent instance.
    """
    with ExitStack() as stack:
        stack.enter_context(runlock.hold(settings.data_dir(), data_shown))
        if build and settings.build_dir() != settings.data_dir():
            folder = settings.build_dir()
            stack.enter_context(
                runlock.hold(folder, f"build directory {str(folder)!r}")
            )
        instance = get_instance()
        # Closes the event log's kept connections (``instance.get_instance``).
        stack.callback(instance.dispose)
        fail_orphaned_runs(instance, progress)
        drop_invalid_partitions(instance, progress)
        yield instance


def register_releases(instance: dg.DagsterInstance, versions: Sequence[str]) -> None:
    """Add release partitions the instance does not know yet."""
    existing = set(instance.get_dynamic_partitions(RELEASES))
    missing = [v for v in versions if v not in existing]
    if missing:
        instance.add_dynamic_partitions(RELEASES, missing)
        forget_not_in_source(settings.data_dir(), missing)
        remember_partitions(instance)


def absent_rounds(
    instance: dg.DagsterInstance,
    versions: Sequence[str],
    progress: Callable[[str], None] = print,
) -> list[str]:
    """Requested rounds the source does not have at all, recorded once as such.

    They get no release partition: no run, and none of the ~14 Dagster events per
    asset and round a run of nothing would cost (a cold build of the shared mirror
    ran 7 such rounds, a one-round test source 13). Asked only where the source
    can say cheaply (a folder: one stat; git: ``ls-remote``), and only for rounds
    without a partition: a round the source lost is its run's to report. A round
    releases.toml does not list leaves no trace (``drop_unconfirmed``).
    """
    from pipeline.snapshots import SnapshotStore
    from pipeline.source import SourceError

    existing = set(instance.get_dynamic_partitions(RELEASES))
    asked = [v for v in versions if v not in existing]
    if not asked:
        return []
    source = settings.open_source()
    absent = []
    for version in asked:
        try:
            has = source.has_round(release_for(version).repository)
        except SourceError:
            has = None  # the run says what went wrong, with its usual wording
        if has is False:
            absent.append(version)
    listed = {r.version for r in load_manifest()}
    kept = [v for v in absent if v in listed]
    if kept:
        store = SnapshotStore(settings.data_dir())
        record_not_in_source(
            store,
            settings.data_dir(),
            [release_for(v) for v in kept],
            source.pins_commits,
        )
        where = "repository" if source.pins_commits else "folder"
        progress(
            f"{', '.join(kept)}: not in source (no {where} of that round at "
            f"{redact_url(settings.source_base())}): no release partition made, "
            "nothing run; every update looks for them again"
        )
    typos = [v for v in absent if v not in listed]
    if typos:
        progress(
            f"{', '.join(typos)}: no valid file in the source and not listed in "
            "releases.toml: not kept as a release (no trace left)"
        )
    return absent


def remember_partitions(instance: dg.DagsterInstance) -> None:
    """Keep the rounds a tick verifies in a plain file for ``quiet_tick``.

    The release partitions and every listed round: one the source does not have
    has no partition until it appears (``absent_rounds``), and a quiet tick must
    probe it as the full tick does.
    """
    partitions = set(filter(is_version, instance.get_dynamic_partitions(RELEASES)))
    listed = {r.version for r in load_manifest()}
    known = sorted(partitions | listed, key=version_key)
    path = settings.data_dir() / KNOWN_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(known, sort_keys=True) + "\n")


def _failed_checks(instance: dg.DagsterInstance, run_id: str) -> str:
    """Each failed check of a run with what it names (entity, record, file)."""
    said = []
    for entry in instance.all_logs(
        run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION
    ):
        evaluation = entry.dagster_event.event_specific_data
        if evaluation.passed:
            continue
        description = evaluation.description or "failed"
        said.append(
            f"blocking check {evaluation.asset_key.to_user_string()}:"
            f"{evaluation.check_name} failed: {description}"
        )
    return "; ".join(said)


def failure_message(instance: dg.DagsterInstance, run_id: str) -> str:
    """The first step failure of a run, as the user-facing description."""
    for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.STEP_FAILURE):
        data = entry.dagster_event.step_failure_data
        if data.user_failure_data and data.user_failure_data.description:
            return data.user_failure_data.description
        if data.error:
            error = data.error
            if "AssetCheck" in error.cls_name:  # a blocking check: say which, and why
                failed = _failed_checks(instance, run_id)
                if failed:
                    return failed
            while error.cause is not None:  # the user code's exception, not Dagster's
                error = error.cause
            # The message starts with the (qualified) class name already.
            text = re.sub(
                rf"^([\w.]*\.)?{re.escape(error.cls_name)}: ",
                "",
                error.message.strip(),
            )
            if error.cls_name in PLAIN_ERRORS:
                return text
            if text.startswith("(sqlite3."):  # Dagster's storage, through SQLAlchemy
                return storage_failure(text)
            return f"{error.cls_name}: {text}"
    for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.RUN_FAILURE):
        if entry.dagster_event.message == ORPHAN_MESSAGE:
            return ORPHAN_MESSAGE
    return "run failed (see `make ui` for the event log)"


def run_assets(
    instance: dg.DagsterInstance,
    selection: Sequence[str],
    partition: str | None = None,
    label: str = "",
    partitions: Sequence[str] = (),
) -> RunOutcome:
    """Materialize a selection as one run: one partition, a range, or unpartitioned."""
    defs = load_defs()
    job = defs.resolve_implicit_global_asset_job_def()
    tags = {RUNNER_TAG: "cli", PID_TAG: str(os.getpid())}
    if partitions:
        tags |= {RANGE_START: partitions[0], RANGE_END: partitions[-1]}
    result = job.execute_in_process(
        instance=instance,
        partition_key=partition,
        asset_selection=[dg.AssetKey(k) for k in selection],
        run_config=QUIET,
        raise_on_error=False,
        tags=tags,
    )
    message = "" if result.success else failure_message(instance, result.run_id)
    return RunOutcome(
        label or partition or "all", result.success, result.run_id, message
    )


def drop_unconfirmed(
    instance: dg.DagsterInstance,
    versions: Sequence[str],
    progress: Callable[[str], None] = print,
) -> list[str]:
    """Forget partitions of rounds neither listed in releases.toml nor ever served.

    A typo (``ingest --release v99.99``) or a server that answers 200 for anything
    must leave no trace: a phantom round would become the discovery frontier, and
    the next real round would never be probed.
    """
    from pipeline.served import ever_served
    from pipeline.snapshots import SnapshotStore

    store = SnapshotStore(settings.data_dir())
    listed = {r.version for r in load_manifest()}
    existing = set(instance.get_dynamic_partitions(RELEASES))
    dropped = [
        v
        for v in versions
        if v in existing and v not in listed and not ever_served(store, v)
    ]
    delete_partitions(
        instance,
        dropped,
        progress,
        f"{', '.join(dropped)}: no valid file in the source and not listed in "
        "releases.toml: not kept as a release (no trace left)",
    )
    return dropped


def nothing_downstream(outcomes: Sequence[RunOutcome]) -> str | None:
    """Why the cross-release assets need no run, or None when a reviewed round updated.

    Unreviewed rounds are not read downstream (see ``LedgerIOManager``), so only a
    reviewed release that materialized makes the combined tables and the site stale.
    """
    if not any(o.success for o in outcomes):
        return "no release updated: cross-release tables and site left unchanged"
    if not any(o.success and release_for(o.label).reviewed for o in outcomes):
        return (
            "only unreviewed releases updated: cross-release tables and site left "
            "unchanged"
        )
    return None


def ingest(
    instance: dg.DagsterInstance,
    versions: Sequence[str],
    progress: Callable[[str], None] = print,
    site: bool = False,
) -> list[RunOutcome]:
    """Materialize each release's partition, then the cross-release assets.

    With ``site`` the website is rendered, built and published too.
    """
    absent = absent_rounds(instance, versions, progress)
    versions = [v for v in versions if v not in absent]
    register_releases(instance, versions)
    remember_partitions(instance)
    outcomes = run_releases(instance, versions, progress)
    dropped = drop_unconfirmed(instance, versions, progress)
    for version in unreviewed(versions):
        if version not in dropped:
            progress(unreviewed_note(version))
    skip = nothing_downstream(outcomes) if outcomes else None
    if skip:
        progress(skip)
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


def contiguous_blocks(order: Sequence[str], wanted: Sequence[str]) -> list[list[str]]:
    """``wanted`` split into runs of neighbours in the instance's partition order.

    A Dagster run covers a partition range (start to end in that order), so releases
    that are not neighbours there need separate runs; a cold build is one block.
    """
    chosen = set(wanted)
    blocks: list[list[str]] = []
    current: list[str] = []
    for key in order:
        if key in chosen:
            current.append(key)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def run_releases(
    instance: dg.DagsterInstance,
    versions: Sequence[str],
    progress: Callable[[str], None] = print,
    reasons: dict[str, str] | None = None,
) -> list[RunOutcome]:
    """Materialize the releases' partitions: one run per block of neighbours.

    If a run over several releases fails, each of them is run again on its own, so
    one bad release fails alone with its own message and the others still publish
    (the per-release behaviour, paid for only when something fails).
    """
    order = instance.get_dynamic_partitions(RELEASES)
    started = time.time()
    outcomes: dict[str, RunOutcome] = {}
    for block in contiguous_blocks(order, versions):
        if len(block) == 1:
            outcomes[block[0]] = run_assets(instance, PER_RELEASE, partition=block[0])
            continue
        progress(f"{len(block)} releases, {block[0]} to {block[-1]}, in one run ...")
        ranged = run_assets(
            instance, PER_RELEASE, label=f"{block[0]}..{block[-1]}", partitions=block
        )
        if ranged.success:
            outcomes |= {v: RunOutcome(v, True, ranged.run_id, "") for v in block}
            continue
        # Named here: the reruns may all succeed, and then nothing below would.
        progress(
            f"one run for {block[0]} to {block[-1]} failed (run {ranged.run_id[:8]}): "
            f"{ranged.message}; running each release on its own so the others "
            "still publish"
        )
        for version in block:
            outcomes[version] = run_assets(instance, PER_RELEASE, partition=version)
        if all(outcomes[v].success for v in block):
            progress(
                f"each of {block[0]} to {block[-1]} succeeded on its own: the failure "
                f"of their one run (run {ranged.run_id[:8]}, above) was no release's"
            )
    shown = [v for v in versions if v in outcomes]
    for index, version in enumerate(shown, start=1):
        why = f"{reasons[version]}: " if reasons and version in reasons else ""
        line = describe_release(instance, outcomes[version], since=started)
        progress(f"[{index}/{len(shown)}] {why}{line}")
    return [outcomes[v] for v in shown]


def unreviewed(versions: Sequence[str]) -> list[str]:
    """The versions the manifest does not list (cross-release assets leave them out)."""
    return [v for v in versions if not release_for(v).reviewed]


def _stored_since(version: str, since: float | None) -> bool:
    """Whether the release's current summary snapshot was stored after ``since``."""
    from pipeline.snapshots import SnapshotStore

    path = release_for(version).summary_path
    if since is None or not path:
        return False
    history = SnapshotStore(settings.data_dir()).history(version, path)
    if not history:
        return False
    # ``seen_at`` is kept to the whole second: a snapshot stored in the second the
    # command started in is this command's (compared with the fraction, it read as
    # older and the line said "unchanged" about one time in a few).
    seen = dt.datetime.fromisoformat(history[-1]["seen_at"]).timestamp()
    return seen >= math.floor(since)


def describe_release(
    instance: dg.DagsterInstance, outcome: RunOutcome, since: float | None = None
) -> str:
    """One progress line for a release run.

    ``since``: when the command started. A snapshot stored since then is "new" even
    when a failed range run stored it and the release's own rerun then found it
    unchanged: a release seen for the first time is never called "unchanged".
    """
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
            + (f", {tree['over_cap']}" if tree.get("over_cap") else "")
        )
    elif tree.get("status") == SOURCE_ERROR:
        # Its message says why ("v6.0 raw tree not refreshed: <url>: <cause>").
        tree_note = "; " + str(tree.get("message", SOURCE_ERROR)).removeprefix(
            f"{version} "
        )
    loss = ""
    if core.get("rejected"):
        share = float(core.get("rejected_share") or 0.0)
        loud = "LOSS: " if share > LOSS_LIMIT else ""
        loss = (
            f"; {loud}{core.get('rejected')} rejected ({share:.1%}): "
            f"{core.get('top_rejections') or 'see core_mlperf__rejected'}"
        )
    if raw.get("status") != "ingested" and not raw.get("sha256"):
        message = str(raw.get("message") or f"{version}: {raw.get('status')}")
        return (
            message + (tree_note or f"; raw tree: {tree.get('status', 'n/a')}") + loss
        )
    if raw.get("status") == NOT_IN_SOURCE:
        # The source lost the file and a kept snapshot stands in: never "unchanged".
        return (
            f"{raw.get('message')}: {core.get('rows')} rows, {core.get('rejected')} "
            f"rejected, checks {core.get('checks')}" + tree_note + loss
        )
    is_new = bool(raw.get("is_new")) or _stored_since(version, since)
    state = "new snapshot" if is_new else "unchanged"
    return (
        f"{version}: {core.get('rows')} rows, {core.get('rejected')} rejected, "
        f"checks {core.get('checks')}, sha256 {str(raw.get('sha256'))[:12]} ({state})"
        + tree_note
        + loss
    )
