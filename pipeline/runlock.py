"""One mlperf-ledger run per data directory at a time.

Two runs writing the same snapshots, tables and staging folder would clobber each
other, so every writing command holds an exclusive ``flock`` on
``<folder>/.mlperf-ledger.lock``. The operating system drops the lock when its process
ends, however it ends (``kill -9`` included), so a lock left by a dead run never blocks
the next one: there is no stale lock to clean up. The file also records the holder's
pid and start time, only so a refused run can say who holds it.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

LOCK_NAME = ".mlperf-ledger.lock"


class FolderError(RuntimeError):
    """A folder a run needs cannot be used; the message names it and the cause."""


class BusyError(FolderError):
    """Another live mlperf-ledger process holds the folder."""


@dataclass(frozen=True)
class Holder:
    """Who holds (or held) a folder's lock."""

    pid: int
    started: str


def _read_holder(fd: int) -> Holder | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = json.loads(os.read(fd, 4096) or b"null")
        return Holder(int(data["pid"]), str(data["started"]))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _cannot_write(shown: str, exc: OSError) -> FolderError:
    cause = exc.strerror or type(exc).__name__
    return FolderError(f"{shown}: cannot write there ({cause})")


def _open_lock(folder: Path, shown: str) -> int:
    if folder.exists() and not folder.is_dir():
        raise FolderError(f"{shown}: not a directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise _cannot_write(shown, exc) from None


@contextmanager
def hold(folder: Path, shown: str | None = None) -> Iterator[Holder]:
    """Hold ``folder`` for this process, or fail at once if another process does.

    ``shown`` is how the user named the folder (``--data-dir 'x'``) for the messages
    about a folder that cannot be created or written; the busy message names the
    resolved folder, which is what two runs share.
    """
    folder = Path(folder)
    shown = shown or f"data directory {str(folder)!r}"
    fd = _open_lock(folder, shown)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            who = (
                f"pid {holder.pid}, started {holder.started}"
                if holder
                else "pid unknown"
            )
            raise BusyError(
                f"another mlperf-ledger run ({who}) is using {folder.resolve()}; "
                "wait for it or stop it"
            ) from None
        me = Holder(
            os.getpid(),
            dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        )
        record = json.dumps({"pid": me.pid, "started": me.started}).encode()
        try:
            os.pwrite(fd, record, 0)
            os.ftruncate(fd, len(record))
        except OSError as exc:
            raise _cannot_write(shown, exc) from None
        yield me
    finally:
        os.close(fd)  # closing the descriptor releases the flock
