"""Immutable, content-addressed raw snapshots with OWID-style sidecars.

Layout under ``<data dir>/raw/<release>/<file name>/``::

    <sha256>.<ext>        the bytes exactly as fetched, never rewritten
    <sha256>.meta.json    sidecar: url, fetched_at, sha256, bytes, etag, commit, ...

Identical bytes add nothing; new bytes add a version beside the old ones. Files that
failed validation go to ``quarantine/`` instead, so the last good version stays current.
A write that fails raises :class:`StoreError` naming the data directory and the cause,
never a temporary file's name.
"""

from __future__ import annotations

import datetime as dt
import errno
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from pipeline.blobs import BlobStore, sha256_hex, write_whole
from pipeline.origin import recorded
from pipeline.source import Fetched

LICENCE = "Apache-2.0 (MLCommons inference results repositories)"
#: Quarantined files kept per release (the newest): enough to inspect what went
#: wrong, never a disk filled by a source that serves a broken file every hour.
QUARANTINE_KEEP = 20


@dataclass(frozen=True)
class Snapshot:
    """The sidecar of one stored version of an upstream file."""

    release: str
    path: str
    url: str
    sha256: str
    bytes: int
    fetched_at: str
    blob: str
    etag: str | None = None
    last_modified: str | None = None
    upstream_commit: str | None = None
    #: The commit's date as git states it (the git source only).
    upstream_commit_date: str | None = None
    licence: str = LICENCE

    def to_json(self) -> dict:
        """Plain dict for JSON sidecars and Dagster metadata."""
        return asdict(self)


class StoreError(RuntimeError):
    """The data directory cannot take a write; the message names it and the cause."""


class SnapshotStore:
    """Stores and lists raw snapshots below one root folder."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        #: Raw-tree files, stored once each by sha256 (``pipeline.blobs``).
        self.blobs = BlobStore(f"{self.root}/raw/blobs", self._cannot_write)

    def _write(self, path: Path, content: bytes) -> None:
        """Atomic write; a failure names the data dir the user chose, and why."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_whole(str(path), content)
        except OSError as exc:
            raise self._cannot_write(exc, len(content)) from None

    def _cannot_write(self, exc: OSError, needed: int | None = None) -> StoreError:
        # The OSError's own file name is a temporary or deep internal path; the
        # user set the data directory, so that is what the message names.
        cause = exc.strerror or exc.__class__.__name__
        if exc.errno == errno.ENOSPC:
            cause = "the disk is full (No space left on device)" + (
                f"; {needed} bytes needed" if needed is not None else ""
            )
        return StoreError(f"cannot write snapshot under {self.root}: {cause}")

    def _folder(self, release: str, path: str) -> Path:
        return self.root / "raw" / release / path.replace("/", "__")

    def put(
        self,
        release: str,
        path: str,
        fetched: Fetched,
        commit: str | None = None,
        commit_date: str | None = None,
    ) -> tuple[Snapshot, bool]:
        """Store fetched bytes; returns the snapshot and whether it is new."""
        digest = sha256_hex(fetched.content)
        folder = self._folder(release, path)
        current = self.latest(release, path)
        if current is not None and current.sha256 == digest:
            return current, False
        snapshot = self.get(release, path, digest)
        if snapshot is None:
            suffix = Path(path).suffix or ".bin"
            blob = folder / f"{digest}{suffix}"
            self._write(blob, fetched.content)
            snapshot = Snapshot(
                release=release,
                path=path,
                url=fetched.url,
                sha256=digest,
                bytes=len(fetched.content),
                fetched_at=fetched.fetched_at.isoformat(),
                blob=str(blob.relative_to(self.root)),
                etag=fetched.etag,
                last_modified=fetched.last_modified,
                upstream_commit=commit,
                upstream_commit_date=commit_date,
            )
            sidecar = json.dumps(snapshot.to_json(), indent=2, sort_keys=True).encode()
            self._write(folder / f"{digest}.meta.json", sidecar)
        # The history says which version was current when; content that changes back
        # (A -> B -> A) makes A current again without storing its bytes twice.
        line = {"sha256": digest, "seen_at": fetched.fetched_at.isoformat()}
        # Which source it was read from: a difference between two sources (a data
        # folder switched with --switch-source) is no upstream correction.
        source = recorded(self.root)
        if source is not None:
            line["source"] = source
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with (folder / "history.jsonl").open("a") as handle:
                handle.write(json.dumps(line) + "\n")
        except OSError as exc:
            raise self._cannot_write(exc) from None
        return snapshot, True

    def quarantine(
        self, release: str, path: str, fetched: Fetched, reason: str
    ) -> Path:
        """Keep bytes that failed validation for inspection, out of the version list."""
        digest = sha256_hex(fetched.content)
        target = self.root / "quarantine" / release / f"{digest}{Path(path).suffix}"
        self._write(target, fetched.content)
        note = {
            "release": release,
            "url": fetched.url,
            "sha256": digest,
            "bytes": len(fetched.content),
            "fetched_at": fetched.fetched_at.isoformat(),
            "reason": reason,
        }
        self._write(
            target.with_suffix(".meta.json"), json.dumps(note, indent=2).encode()
        )
        self._prune_quarantine(target.parent)
        return target

    def _prune_quarantine(self, folder: Path) -> None:
        notes = sorted(
            folder.glob("*.meta.json"), key=lambda p: (p.stat().st_mtime_ns, p.name)
        )
        for note in notes[:-QUARANTINE_KEEP]:
            stem = note.name.removesuffix(".meta.json")
            for path in folder.glob(f"{stem}*"):
                path.unlink(missing_ok=True)

    def get(self, release: str, path: str, sha256: str) -> Snapshot | None:
        """The sidecar of one version, or None if that version is not stored."""
        sidecar = self._folder(release, path) / f"{sha256}.meta.json"
        if not sidecar.is_file():
            return None
        return Snapshot(**json.loads(sidecar.read_text()))

    def history(self, release: str, path: str) -> list[dict]:
        """Each change of the current version (sha256, seen_at), oldest first."""
        log = self._folder(release, path) / "history.jsonl"
        if not log.is_file():
            return []
        return [json.loads(line) for line in log.read_text().splitlines() if line]

    def versions(self, release: str, path: str) -> list[Snapshot]:
        """Distinct stored versions of one file, in the order they first appeared."""
        shas = dict.fromkeys(entry["sha256"] for entry in self.history(release, path))
        return [snap for sha in shas if (snap := self.get(release, path, sha))]

    def latest(self, release: str, path: str) -> Snapshot | None:
        """The current version: the one seen most recently as a change, or None."""
        history = self.history(release, path)
        return self.get(release, path, history[-1]["sha256"]) if history else None

    def checked(self, release: str, path: str) -> dict | None:
        """The upstream commit this file was last read at, and what it held then.

        ``{"commit": ..., **facts}``; None when never read at a known commit. An
        unchanged commit means the file is what it was: nothing to fetch.
        """
        note = self._folder(release, path) / "checked.json"
        try:
            value = json.loads(note.read_text())
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) and value.get("commit") else None

    def mark_checked(
        self, release: str, path: str, commit: str, /, **facts: object
    ) -> None:
        """Record that ``path`` was read at ``commit``, with what it held then."""
        note = {"commit": commit, **facts}
        self._write(
            self._folder(release, path) / "checked.json",
            json.dumps(note, sort_keys=True).encode(),
        )

    def served(self, release: str, path: str) -> dict | None:
        """What a folder or HTTP source served for ``path`` when it was last read.

        ``{"etag", "last_modified", "sha256"}`` of a file (``fingerprint`` and
        ``listing_etag`` of a raw tree), or ``{"absent": True}``; None when never
        recorded. Discovery compares the source with this, not with its own last
        look, so a change after any run (``site``, ``ingest``) is never missed.
        """
        note = self._folder(release, path) / "served.json"
        try:
            value = json.loads(note.read_text())
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def mark_served(self, release: str, path: str, /, **facts: object) -> None:
        """Record what the source served for ``path`` (see :meth:`served`)."""
        self._write(
            self._folder(release, path) / "served.json",
            json.dumps(facts, sort_keys=True).encode(),
        )

    def git_objects(self, release: str) -> dict[str, str]:
        """Git blob id -> sha256 of every raw-tree file of a round stored so far.

        The listing gives each file's blob id, so a file stored once (on any
        earlier run, a failed one included) is read from the store, not fetched.
        """
        index = self.root / "raw" / release / "git_objects.json"
        try:
            value = json.loads(index.read_text())
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}

    def save_git_objects(self, release: str, objects: dict[str, str]) -> None:
        """Write the blob id index of a round (see :meth:`git_objects`)."""
        self._write(
            self.root / "raw" / release / "git_objects.json",
            json.dumps(objects, sort_keys=True).encode(),
        )

    def read(self, snapshot: Snapshot) -> bytes:
        """The stored bytes, verified against the recorded hash."""
        content = (self.root / snapshot.blob).read_bytes()
        if sha256_hex(content) != snapshot.sha256:
            raise ValueError(
                f"snapshot {snapshot.blob} is corrupt: its sha256 no longer matches"
            )
        return content


def utc_now_iso() -> str:
    """Current UTC time, second precision, for sidecars and status output."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
