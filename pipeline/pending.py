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
from pathlib import Path

from pipeline.blobs import write_whole
from pipeline.snapshots import StoreError, utc_now_iso

PENDING_FILE = "pending.json"

#: How a retried round's run request is worded (progress lines, status).
RETRY = "retry after a failure ({reason})"


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

    A round already pending keeps when it was first seen and its last failure.
    """
    rounds = pending(data_dir)
    now = utc_now_iso()
    for version, reason in reasons.items():
        if version not in rounds:
            rounds[version] = {"reason": reason, "since": now, "attempts": 0}
    if reasons:
        _write(data_dir, rounds)
    return rounds


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
        line = (
            f"pending: {version} ({entry.get('reason', 'changed upstream')}) since "
            f"{entry.get('since', '?')}, not yet published"
        )
        if entry.get("last_failure"):
            line += (
                f"; {entry.get('attempts', 1)} failed attempt(s), last at "
                f"{entry.get('failed_at', '?')}: {entry['last_failure']}"
            )
        lines.append(line + "; the next update retries it")
    return lines
