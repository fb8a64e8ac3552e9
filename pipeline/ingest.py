"""Fetch one release's summary file into the snapshot store, validating at the boundary.

A file that is not a readable summary is quarantined and raises :class:`IngestError`;
the store's current version does not move, so the last good snapshot stays in use.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from pipeline.extract.raw_tree import stage_raw_tree
from pipeline.extract.summary import SummaryFormatError, parse_summary
from pipeline.manifest import Release
from pipeline.snapshots import Snapshot, SnapshotStore, utc_now_iso
from pipeline.source import Fetched, NotPublished, Source

INGESTED = "ingested"
RAW_TREE_ONLY = "raw tree only"
NOT_IN_SOURCE = "not in source"
#: Summary file names seen upstream, newest layout first; tried for discovered rounds.
SUMMARY_NAMES = ("summary.json", "summary_results.json")


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


def fetch_raw_tree(
    release: Release, source: Source, store: SnapshotStore
) -> RawOutcome:
    """List a round's submission tree, fetch the files the scan reads, store them.

    The snapshot is a small JSON listing (every path, and the sha256 of each file the
    scan needs); the files themselves are content-addressed blobs, stored once.
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

    def read(path: str) -> bytes:
        content = source.fetch(release.repo_name, path).content
        files[path] = store.put_blob(content)
        return content

    # The scan itself decides which files it needs, so exactly those are fetched.
    stage_raw_tree(paths, read, release=version)
    listing = json.dumps({"paths": paths, "files": files}, sort_keys=True).encode()
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
