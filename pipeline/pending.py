"""Rounds seen changed upstream and not yet published: at-least-once publishing.

``update`` writes a round here the moment discovery asks for its run, before any
run starts, and removes it only once its snapshot is stored and the site that reads
it is swapped into place. A failure anywhere between (a full disk, a killed process,
a failed MkDocs build) leaves it here with the failure, and the next ``update`` or
``watch`` tick runs it again, whatever discovery says then. ``status`` lists it.

Plain JSON in the data folder, written whole (scratch file, rename): no Dagster.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

from pipeline.blobs import write_whole
from pipeline.snapshots import StoreError, utc_now_iso

PENDING_FILE = "pending.json"

#: How a retried round's run request is worded (progress lines, status).
RETRY = "retry after a failure ({reason})"
#: The failure of an attempt whose process ended before it could say how it went.
ABANDONED = "the update running it ended without finishing (killed or crashed)"


def pending(data_dir: Path) -> dict[str, dict]:
    """Version -> {reason, since, attempts, last_failure}; {} if none or unreadable."""
    try:
        value = json.loads((data_dir / PENDING_FILE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(value, dict):
        return {}
    return {v: w for v, w in value.items() if isinstance(w, dict)}


def _write(data_dir: Path, rounds: dict[str, dict]) -> None:
    path = data_dir / PENDING_FILE
    try:
        if not rounds:
            path.unlink(missing_ok=True)
            return
        data_dir.mkdir(parents=True, exist_ok=True)
        text = json.dumps(dict(sorted(rounds.items())), indent=1, sort_keys=True)
        write_whole(str(path), (text + "\n").encode())
    except OSError as exc:
        raise StoreError(
            f"cannot record pending rounds in {data_dir}: {disk_cause(exc)}"
        ) from None


def disk_cause(exc: OSError, needed: int | None = None) -> str:
    """The OS's reason in words; a full disk says so, and how much was needed."""
    if exc.errno == errno.ENOSPC:
        return "the disk is full (No space left on device)" + (
            f"; {needed} bytes needed" if needed is not None else ""
        )
    return exc.strerror or type(exc).__name__


def record_seen(data_dir: Path, reasons: dict[str, str]) -> dict[str, dict]:
    """Add the rounds a tick asked runs for; returns every pending round.

    A round already pending keeps when it was first seen and its last failure. An
    attempt a killed process left open (``kill -9`` mid-run) counts as failed here.
    Every returned round is marked as being attempted by this process, so a process
    killed before :func:`settle` leaves a trace that ``status`` and the next tick
    read as a failed attempt.
    """
    rounds = {v: _abandoned(w) for v, w in pending(data_dir).items()}
    now = utc_now_iso()
    for version, reason in reasons.items():
        if version not in rounds:
            rounds[version] = {"reason": reason, "since": now, "attempts": 0}
    if rounds:
        for entry in rounds.values():
            entry["running"] = {"pid": os.getpid(), "started_at": now}
        _write(data_dir, rounds)
    return rounds


def _alive(pid: object) -> bool:
    """Whether ``pid`` is a live process that may still be running its attempt.

    This process counts as gone: it is between ticks whenever it reads this (an
    attempt of its own still marked is one an exception cut short).
    """
    if not isinstance(pid, int) or pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _abandoned(entry: dict) -> dict:
    """An entry whose attempt's process is gone, counted as a failed attempt."""
    running = entry.get("running")
    if not isinstance(running, dict) or _alive(running.get("pid")):
        return entry
    entry = {k: v for k, v in entry.items() if k != "running"}
    entry["attempts"] = int(entry.get("attempts", 0)) + 1
    entry["last_failure"] = ABANDONED
    entry["failed_at"] = running.get("started_at", "?")
    return entry


def retries(rounds: dict[str, dict], requested: list[str]) -> dict[str, str]:
    """Pending rounds this tick did not ask for, with the reason their run says."""
    return {
        v: RETRY.format(reason=w.get("reason", "changed upstream"))
        for v, w in sorted(rounds.items())
        if v not in requested
    }


def settle(data_dir: Path, failed: dict[str, str], published: list[str]) -> None:
    """After a tick: published rounds leave, failed ones keep their failure."""
    rounds = pending(data_dir)
    if not rounds:
        return
    for version in published:
        rounds.pop(version, None)
    for entry in rounds.values():
        entry.pop("running", None)  # this attempt is over, whatever its outcome
    for version, message in failed.items():
        if version in rounds:
            entry = rounds[version]
            entry["attempts"] = int(entry.get("attempts", 0)) + 1
            entry["last_failure"] = message
            entry["failed_at"] = utc_now_iso()
    _write(data_dir, rounds)


def status_lines(data_dir: Path) -> list[str]:
    """What ``status`` says about pending rounds (one line each, or that none is)."""
    rounds = pending(data_dir)
    if not rounds:
        return ["pending: nothing (every change seen upstream is published)"]
    lines = []
    for version, entry in sorted(rounds.items()):
        entry = _abandoned(entry)
        running = entry.get("running")
        line = (
            f"pending: {version} ({entry.get('reason', 'changed upstream')}) since "
            f"{entry.get('since', '?')}, not yet published"
        )
        if entry.get("last_failure"):
            line += (
                f"; {entry.get('attempts', 1)} failed attempt(s), last at "
                f"{entry.get('failed_at', '?')}: {entry['last_failure']}"
            )
        if running:
            line += (
                f"; being attempted by process {running.get('pid')} since "
                f"{running.get('started_at', '?')}"
            )
            lines.append(line)
            continue
        lines.append(line + "; the next update retries it")
    return lines
