"""Fetch one release's summary file into the snapshot store, validating at the boundary.

A file that is not a readable summary is quarantined and raises :class:`IngestError`;
the store's current version does not move, so the last good snapshot stays in use.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass

from pipeline.extract.raw_tree import files_read, stage_raw_tree
from pipeline.extract.submitter_csv import is_submitter_csv
from pipeline.extract.summary import SummaryFormatError, parse_summary
from pipeline.registry.releases import Release
from pipeline.served import (
    SUMMARY_CHECK,
    TREE_FILE,
    candidate_paths,
    record_served,
    record_tree_served,
    stored_summary,
)
from pipeline.snapshots import Snapshot, SnapshotStore, utc_now_iso
from pipeline.source import (
    DIVISIONS,
    Fetched,
    Listing,
    NotPublished,
    OutsideSource,
    Source,
    SourceError,
    TooLarge,
    cap_text,
)

INGESTED = "ingested"
RAW_TREE_ONLY = "raw tree only"
NOT_IN_SOURCE = "not in source"
#: A raw tree whose source failed while its round's summary went on alone.
SOURCE_ERROR = "source error"


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
    #: The upstream commit read (the git source), else None.
    commit: str | None = None
    #: Where the registry's expectation and the source disagree, what each says.
    disagreement: str = ""
    #: Files fetched from the source in this run (not read from the store).
    downloaded: int = 0
    #: Files the raw tree snapshot holds (None: not a tree, or not known).
    files_read: int | None = None
    #: Raw-tree files refused for their size, and how that reads ("1 file over the
    #: 64 MB cap: <path>"); the rest of the tree is read.
    over_cap: tuple[str, ...] = ()
    over_cap_note: str = ""

    def to_json(self) -> dict:
        """Plain dict, stored by the IO manager and shown by ``status``."""
        return {
            "release": self.release,
            "status": self.status,
            "snapshot": self.snapshot.to_json() if self.snapshot else None,
            "is_new": self.is_new,
            "message": self.message,
            "commit": self.commit,
            "disagreement": self.disagreement,
            "downloaded": self.downloaded,
            "files_read": self.files_read,
            **(
                {"over_cap": list(self.over_cap), "over_cap_note": self.over_cap_note}
                if self.over_cap
                else {}
            ),
        }


def _at(commit: str | None) -> str:
    return f" at {commit[:12]}" if commit else ""


def _find_summary(
    release: Release,
    source: Source,
    listing: Listing | None,
    kept: Snapshot | None,
) -> tuple[Fetched | None, str, dict[str, str]]:
    """The round's summary file (fetched) and its path, or (None, manifest path).

    With a listing (the git source) only the names it has are read; otherwise each
    name is asked for, conditionally where a version of it is stored. The third
    value says why each name asked for was not read: a file that became a link
    (out of the mirror, or a git symlink) is no file of the round, so it is lost
    like a deleted one, and the outcome says which it was.
    """
    names = candidate_paths(release)
    if listing is not None:
        listed = set(listing.paths)
        names = [name for name in names if name in listed]
    why: dict[str, str] = {}
    for path in names:
        same = kept if kept is not None and kept.path == path else None
        try:
            fetched = source.fetch(
                release.repository,
                path,
                etag=same.etag if same else None,
                last_modified=same.last_modified if same else None,
            )
        except (NotPublished, OutsideSource) as exc:
            why[path] = str(exc)
            continue
        return fetched, path, why
    return None, release.summary_path, why


def fetch_release(release: Release, source: Source, store: SnapshotStore) -> RawOutcome:
    """Fetch, validate and store the summary file of one release.

    On the git source, a commit already read costs one ``ls-remote`` and nothing
    else. Whether the round has a summary is what the source shows; where the
    manifest expects otherwise, the outcome says so (``disagreement``).

    Raises:
        IngestError: the file exists but is not a readable summary.
        pipeline.source.SourceError: the source failed (after its retries).
    """
    version = release.version
    previous = stored_summary(store, release)
    try:
        commit = source.commit(release.repository)
    except NotPublished as exc:
        kept = previous
        return RawOutcome(
            version,
            NOT_IN_SOURCE,
            kept,
            False,
            f"{version}: not in source ({exc})"
            + (f"; keeping snapshot {kept.sha256[:12]}" if kept else ""),
        )
    checked = store.checked(version, SUMMARY_CHECK) if commit else None
    if checked is not None and checked["commit"] == commit:
        kept = store.latest(version, checked["path"]) if checked.get("path") else None
        status = INGESTED if kept else checked.get("status", RAW_TREE_ONLY)
        what = f"snapshot {kept.sha256[:12]}" if kept else status
        return RawOutcome(
            version,
            status,
            kept,
            False,
            f"{version}: unchanged{_at(commit)} ({what}; nothing fetched)",
            commit=commit,
            disagreement=checked.get("disagreement", ""),
        )
    # On the git source the listing at the commit says which files the round has;
    # only its summary names are asked for (a root file is its own prefix).
    names = tuple(candidate_paths(release))
    listing = source.listing(release.repository, names) if commit else None
    fetched, path, why = _find_summary(release, source, listing, previous)
    where = source.url_for(release.repository, release.summary_path or "")
    if fetched is None:
        rows_from = (
            f"the kept snapshot {previous.sha256[:12]}" if previous else "the raw tree"
        )
        disagreement = (
            f"releases.toml expects {release.summary_path}, but the source has no "
            f"summary file{_at(commit)}; rows come from {rows_from}"
            if release.has_summary
            else ""
        )
        status = NOT_IN_SOURCE if release.has_summary else RAW_TREE_ONLY
        if not commit and (previous or release.has_summary):
            record_served(store, version, previous.path if previous else path, None)
        if commit:
            store.mark_checked(
                version,
                SUMMARY_CHECK,
                commit,
                path=None,
                status=status,
                disagreement=disagreement,
            )
        if not release.has_summary:
            return RawOutcome(
                version,
                RAW_TREE_ONLY,
                None,
                False,
                f"{version}: raw tree only (no summary file upstream{_at(commit)})",
                commit=commit,
            )
        if previous is not None:
            # Lost content is said as lost, with where the rows come from now.
            reason = why.get(previous.path) or (
                f"{source.url_for(release.repository, previous.path)}: not in the "
                f"source{_at(commit)}"
            )
            return RawOutcome(
                version,
                NOT_IN_SOURCE,
                previous,
                False,
                f"{version}: {previous.path} lost upstream ({reason}); rows from "
                f"the kept snapshot {previous.sha256[:12]} fetched "
                f"{previous.fetched_at}",
                commit=commit,
                disagreement=disagreement,
            )
        return RawOutcome(
            version,
            NOT_IN_SOURCE,
            None,
            False,
            f"{version}: not in source ({where}); {disagreement}",
            commit=commit,
            disagreement=disagreement,
        )
    disagreement = (
        f"releases.toml lists {release.summary_path or 'no summary file'}, but the "
        f"source has {path}{_at(commit)}: {path} is read"
        if path != release.summary_path
        else ""
    )
    if fetched.not_modified and previous is not None:
        if not commit:
            store.mark_served(
                version,
                path,
                etag=fetched.etag,
                last_modified=fetched.last_modified,
                sha256=previous.sha256,
            )
        return RawOutcome(
            version,
            INGESTED,
            previous,
            False,
            f"{version}: unchanged {previous.sha256[:12]} (not modified; nothing "
            "downloaded)",
            disagreement=disagreement,
        )
    try:
        parse_summary(fetched.content, release=version, file=path)
    except SummaryFormatError as exc:
        kept_at = store.quarantine(version, path, fetched, str(exc))
        if not commit:
            # Once quarantined: a refused file is what the source serves too, so
            # discovery does not ask for it again until it changes.
            record_served(store, version, path, fetched)
        stays = (
            f"snapshot {previous.sha256[:12]} of {previous.fetched_at} stays in use"
            if previous
            else "no earlier snapshot exists"
        )
        raise IngestError(f"{exc}; quarantined at {kept_at}; {stays}") from None
    snapshot, is_new = store.put(
        version,
        path,
        fetched,
        commit=commit,
        commit_date=listing.commit_date if listing else None,
    )
    if not commit:
        # Only once the snapshot is stored: a failure before leaves the note as it
        # was, so the next tick still sees the change (at least once).
        record_served(store, version, path, fetched)
    if commit:
        store.mark_checked(
            version,
            SUMMARY_CHECK,
            commit,
            path=path,
            sha256=snapshot.sha256,
            disagreement=disagreement,
        )
    state = "new snapshot" if is_new else "unchanged"
    return RawOutcome(
        version,
        INGESTED,
        snapshot,
        is_new,
        f"{version}: {state} {snapshot.sha256[:12]} ({snapshot.bytes} bytes)"
        f"{_at(commit)}" + (f"; note: {disagreement}" if disagreement else ""),
        commit=commit,
        disagreement=disagreement,
        downloaded=1,
    )


#: The raw tree's snapshot: a JSON listing of paths and the sha256 of each file read.
NOT_REQUESTED = "not requested"


class _TreeFileFailed(Exception):
    """A tree file the source failed to deliver; deliberately not a SourceError.

    The scan turns a SourceError into one rejected folder; a file that failed for
    a reason other than being absent must instead stop the whole tree snapshot.
    """

    def __init__(self, error: SourceError) -> None:
        super().__init__(str(error))
        self.error = error


#: Paths an over-cap note names before it says how many more there are.
OVER_CAP_SHOWN = 3


def over_cap_note(paths: list[str], max_bytes: int) -> str:
    """What a run line and Audit say of refused files: "1 file over the 64 MB cap: a".

    The cap is the source's (``DEFAULT_MAX_BYTES``, 64 MB, unless set smaller).
    """
    shown = ", ".join(paths[:OVER_CAP_SHOWN])
    more = len(paths) - OVER_CAP_SHOWN
    files = "1 file" if len(paths) == 1 else f"{len(paths)} files"
    return f"{files} over the {cap_text(max_bytes)} cap: {shown}" + (
        f" and {more} more" if more > 0 else ""
    )


def fetch_raw_tree(
    release: Release, source: Source, store: SnapshotStore
) -> RawOutcome:
    """List a round's submission tree, fetch the files the scan reads, store them.

    The snapshot is a small JSON listing (every path, and the sha256 of each file the
    scan needs); the files themselves are content-addressed blobs, stored once. A
    file whose git blob id the listing gives and whose bytes are stored already is
    read from the store, never fetched again; the rest are fetched in one batch
    where the source can (git). A file that is listed but absent, or leads outside
    a mirror, is recorded under ``unread`` with the reason, so the scan reports it.
    Any other failure to fetch a file (after the source's retries) stores no tree
    snapshot at all: a snapshot without that file would silently drop its result.

    Raises:
        pipeline.source.SourceError: the listing or a file could not be fetched;
            the message names the file and what happened.
        pipeline.snapshots.StoreError: the data directory cannot be written.
    """
    version = release.version
    repo = release.repository
    if not release.reads_raw_tree:
        return RawOutcome(
            version, NOT_REQUESTED, None, False, f"{version}: raw tree not in manifest"
        )
    kept = store.latest(version, TREE_FILE)
    try:
        commit = source.commit(repo)
        checked = store.checked(version, TREE_FILE) if commit else None
        if checked is not None and checked["commit"] == commit:
            return RawOutcome(
                version,
                INGESTED if kept else NOT_IN_SOURCE,
                kept,
                False,
                f"{version}: raw tree unchanged{_at(commit)} (nothing fetched)",
                commit=commit,
                files_read=checked.get("files"),
                over_cap=tuple(checked.get("over_cap", ())),
                over_cap_note=checked.get("over_cap_note", ""),
            )
        listing = source.listing(repo, DIVISIONS)
    except NotPublished:
        commit, listing = None, Listing([])
    paths = listing.paths
    if not paths:
        if commit:
            store.mark_checked(version, TREE_FILE, commit, sha256=None)
        elif not source.pins_commits:
            store.mark_served(version, TREE_FILE, absent=True)
        return RawOutcome(
            version,
            NOT_IN_SOURCE,
            kept,
            False,
            f"{version}: no raw tree in the source{_at(commit)}"
            + (f"; keeping tree snapshot {kept.sha256[:12]}" if kept else ""),
            commit=commit,
        )
    known = store.git_objects(version)
    stored = {
        path: known[oid]
        for path, oid in listing.oids.items()
        if oid in known and store.blobs.has(known[oid])
    }
    wanted = files_read(paths, release=version)
    source.prefetch(
        repo, [p for p in wanted if p not in stored and p not in listing.unread]
    )
    files: dict[str, str] = {}
    unread: dict[str, str] = {}
    over_cap: list[str] = []
    downloaded = 0

    def read(path: str) -> bytes:
        nonlocal downloaded
        if path in listing.unread:
            unread[path] = listing.unread[path]
            raise NotPublished(listing.unread[path])
        if path in stored:
            files[path] = stored[path]
            return store.blobs.get(stored[path])
        try:
            content = source.fetch(repo, path).content
        except TooLarge as exc:
            # Refused while reading: one named rejection, the rest is read.
            unread[path] = str(exc)
            if path not in over_cap:
                over_cap.append(path)
            raise  # the scan rejects what needed it, with this reason
        except (NotPublished, OutsideSource) as exc:
            unread[path] = str(exc)
            raise  # the scan rejects that folder with this reason
        except SourceError as exc:
            raise _TreeFileFailed(exc) from None
        downloaded += 1
        files[path] = store.blobs.put(content)
        if path in listing.oids:
            known[listing.oids[path]] = files[path]
        return content

    # The scan itself decides which files it needs, so exactly those are read; the
    # submitters' own summary tables besides, to check the logs against.
    # The round's new files go into one pack, written when the scan ends, a failed
    # scan included (``BlobStore.pack``).
    try:
        with store.blobs.pack():
            stage_raw_tree(paths, read, release=version)
            for path in wanted:
                if is_submitter_csv(path):
                    with contextlib.suppress(NotPublished, OutsideSource, TooLarge):
                        read(path)  # recorded under "unread" with the reason
    except _TreeFileFailed as exc:
        if downloaded:
            store.save_git_objects(version, known)  # what did arrive is kept
        raise SourceError(f"{exc}; no new tree snapshot stored") from None
    if downloaded:
        store.save_git_objects(version, known)
    # "unread" only when there is any, so earlier tree snapshots keep their hash.
    document = (
        {"paths": paths, "files": files}
        | ({"unread": unread} if unread else {})
        | ({"malformed": listing.malformed} if listing.malformed else {})
    )
    content = json.dumps(document, sort_keys=True).encode()
    fetched = Fetched(
        url=source.url_for(repo, ""),
        content=content,
        fetched_at=dt.datetime.fromisoformat(utc_now_iso()),
    )
    snapshot, is_new = store.put(
        version, TREE_FILE, fetched, commit=commit, commit_date=listing.commit_date
    )
    note = over_cap_note(over_cap, source.max_bytes) if over_cap else ""
    if commit:
        store.mark_checked(
            version,
            TREE_FILE,
            commit,
            sha256=snapshot.sha256,
            files=len(files),
            **({"over_cap": over_cap, "over_cap_note": note} if over_cap else {}),
        )
    else:
        record_tree_served(store, version, source, repo, listing, files, snapshot)
    return RawOutcome(
        version,
        INGESTED,
        snapshot,
        is_new,
        f"{version}: raw tree of {len(paths)} paths, {len(files)} files read, "
        f"{downloaded} downloaded{_at(commit)} "
        f"({'new snapshot' if is_new else 'unchanged'} {snapshot.sha256[:12]})"
        + (f"; {note}" if note else "")
        + (
            f"; {len(listing.malformed)} listing entries name no file (kept in the "
            f"snapshot): {listing.malformed[0]}"
            if listing.malformed
            else ""
        ),
        commit=commit,
        downloaded=downloaded,
        files_read=len(files),
        over_cap=tuple(over_cap),
        over_cap_note=note,
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
        return store.blobs.get(files[path])

    return listing["paths"], read
