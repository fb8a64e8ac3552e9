"""Fetch one release's summary file into the snapshot store, validating at the boundary.

A file that is not a readable summary is quarantined and raises :class:`IngestError`;
the store's current version does not move, so the last good snapshot stays in use.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass

from pipeline.extract.raw_tree import stage_raw_tree
from pipeline.extract.summary import SummaryFormatError, parse_summary
from pipeline.manifest import SUMMARY_NAMES, Release
from pipeline.snapshots import Snapshot, SnapshotStore, utc_now_iso
from pipeline.source import Fetched, NotPublished, OutsideSource, Source, SourceError

INGESTED = "ingested"
RAW_TREE_ONLY = "raw tree only"
NOT_IN_SOURCE = "not in source"
#: Summary file names seen upstream, newest layout first; tried for discovered rounds.


class IngestError(RuntimeError):
    """A fetched file was rejected; the message names release, file and reason."""


@dataclass(frozen=True)
class RawOutcome:
    """What the raw step found for one release."""

    release: str
    status: str
    snapshot: Snapshot | None
    is_new: bool
    message: str

    def to_json(self) -> dict:
        """Plain dict, stored by the IO manager and shown by ``status``."""
        return {
            "release": self.release,
            "status": self.status,
            "snapshot": self.snapshot.to_json() if self.snapshot else None,
            "is_new": self.is_new,
            "message": self.message,
        }


def candidate_paths(release: Release) -> list[str]:
    """The manifest's path, then other known names for rounds found by discovery."""
    paths = [release.summary_path]
    if not release.summary_format:  # not reviewed yet: try every known layout
        paths += [name for name in SUMMARY_NAMES if name != release.summary_path]
    return paths


def fetch_release(release: Release, source: Source, store: SnapshotStore) -> RawOutcome:
    """Fetch, validate and store the summary file of one release.

    Raises:
        IngestError: the file exists but is not a readable summary.
        pipeline.source.SourceError: the source failed (after its retries).
    """
    version = release.version
    if not release.has_summary:
        return RawOutcome(
            version,
            RAW_TREE_ONLY,
            None,
            False,
            f"{version}: raw tree only (no summary file upstream)",
        )
    fetched, path = None, release.summary_path
    for path in candidate_paths(release):
        try:
            fetched = source.fetch(release.repo_name, path)
            break
        except NotPublished:
            continue
    if fetched is None:
        kept = store.latest(version, release.summary_path)
        where = source.url_for(release.repo_name, release.summary_path)
        if kept is not None:
            return RawOutcome(
                version,
                NOT_IN_SOURCE,
                kept,
                False,
                f"{version}: {where} is not in the source now; keeping snapshot "
                f"{kept.sha256[:12]} fetched {kept.fetched_at}",
            )
        return RawOutcome(
            version, NOT_IN_SOURCE, None, False, f"{version}: not in source ({where})"
        )
    try:
        parse_summary(fetched.content, release=version, file=path)
    except SummaryFormatError as exc:
        kept_at = store.quarantine(version, path, fetched, str(exc))
        previous = store.latest(version, path)
        stays = (
            f"snapshot {previous.sha256[:12]} of {previous.fetched_at} stays in use"
            if previous
            else "no earlier snapshot exists"
        )
        raise IngestError(f"{exc}; quarantined at {kept_at}; {stays}") from None
    snapshot, is_new = store.put(version, path, fetched)
    state = "new snapshot" if is_new else "unchanged"
    return RawOutcome(
        version,
        INGESTED,
        snapshot,
        is_new,
        f"{version}: {state} {snapshot.sha256[:12]} ({snapshot.bytes} bytes)",
    )


#: The raw tree's snapshot: a JSON listing of paths and the sha256 of each file read.
TREE_FILE = "tree.json"
NOT_REQUESTED = "not requested"


class _TreeFileFailed(Exception):
    """A tree file the source failed to deliver; deliberately not a SourceError.

    The scan turns a SourceError into one rejected folder; a file that failed for
    a reason other than being absent must instead stop the whole tree snapshot.
    """

    def __init__(self, error: SourceError) -> None:
        super().__init__(str(error))
        self.error = error


def fetch_raw_tree(
    release: Release, source: Source, store: SnapshotStore
) -> RawOutcome:
    """List a round's submission tree, fetch the files the scan reads, store them.

    The snapshot is a small JSON listing (every path, and the sha256 of each file the
    scan needs); the files themselves are content-addressed blobs, stored once. A file
    that is listed but absent, or leads outside a mirror, is recorded under
    ``unread`` with the reason, so the scan reports it. Any other failure to fetch a
    file (after the source's retries) stores no tree snapshot at all: a snapshot
    without that file would silently drop its result.

    Raises:
        pipeline.source.SourceError: the listing or a file could not be fetched;
            the message names the file and what happened.
        pipeline.snapshots.StoreError: the data directory cannot be written.
    """
    version = release.version
    if not release.reads_raw_tree:
        return RawOutcome(
            version, NOT_REQUESTED, None, False, f"{version}: raw tree not in manifest"
        )
    try:
        paths = source.list_tree(release.repo_name)
    except NotPublished:
        paths = []
    if not paths:
        kept = store.latest(version, TREE_FILE)
        return RawOutcome(
            version,
            NOT_IN_SOURCE,
            kept,
            False,
            f"{version}: no raw tree in the source"
            + (f"; keeping tree snapshot {kept.sha256[:12]}" if kept else ""),
        )
    files: dict[str, str] = {}
    unread: dict[str, str] = {}

    def read(path: str) -> bytes:
        try:
            content = source.fetch(release.repo_name, path).content
        except (NotPublished, OutsideSource) as exc:
            unread[path] = str(exc)
            raise  # the scan rejects that folder with this reason
        except SourceError as exc:
            raise _TreeFileFailed(exc) from None
        files[path] = store.put_blob(content)
        return content

    # The scan itself decides which files it needs, so exactly those are fetched.
    try:
        stage_raw_tree(paths, read, release=version)
    except _TreeFileFailed as exc:
        raise SourceError(f"{exc}; no new tree snapshot stored") from None
    # "unread" only when there is any, so earlier tree snapshots keep their hash.
    document = {"paths": paths, "files": files} | ({"unread": unread} if unread else {})
    listing = json.dumps(document, sort_keys=True).encode()
    fetched = Fetched(
        url=source.url_for(release.repo_name, ""),
        content=listing,
        fetched_at=dt.datetime.fromisoformat(utc_now_iso()),
    )
    snapshot, is_new = store.put(version, TREE_FILE, fetched)
    return RawOutcome(
        version,
        INGESTED,
        snapshot,
        is_new,
        f"{version}: raw tree of {len(paths)} paths, {len(files)} files read "
        f"({'new snapshot' if is_new else 'unchanged'} {snapshot.sha256[:12]})",
    )


def stored_tree(
    store: SnapshotStore, snapshot: Snapshot
) -> tuple[list[str], Callable[[str], bytes]]:
    """The listing of a stored tree snapshot and a reader of the files it holds.

    A file recorded as unread raises the source's reason again (absent upstream,
    outside the mirror), so the scan's rejected row says what really happened.
    """
    listing = json.loads(store.read(snapshot))
    files: dict[str, str] = listing["files"]
    unread: dict[str, str] = listing.get("unread", {})

    def read(path: str) -> bytes:
        if path in unread:
            raise SourceError(unread[path])
        if path not in files:
            raise FileNotFoundError(f"{path} was not fetched with the tree snapshot")
        return store.read_blob(files[path])

    return listing["paths"], read
