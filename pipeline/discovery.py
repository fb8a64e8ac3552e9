"""Find new rounds and changed files upstream, as cheaply as the source allows.

A tick probes the successors of the newest known round (next minor, next major) and
verifies every known round against what the store recorded when it was read: over
git its commit, on a folder or HTTP source the summary's validators (a conditional
HEAD or a stat) and the raw tree's listing fingerprint, with the content's hash as
the judge wherever validators differ. So a quiet day costs a few HEAD requests and
no downloads, and a change after any run is seen whoever ran it. The cursor (a
small JSON file, or the sensor's) only remembers what candidate rounds looked like.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.manifest import (
    SUMMARY_NAMES,
    discovered_release,
    is_version,
    next_versions,
    release_for,
)
from pipeline.registry.releases import ManifestError, Release, version_key
from pipeline.served import (
    SUMMARY_CHECK,
    TREE_FILE,
    record_served,
    record_tree_served,
    stored_summary,
)
from pipeline.snapshots import Snapshot, SnapshotStore, sha256_hex
from pipeline.source import (
    DIVISIONS,
    Listing,
    NotPublished,
    OutsideSource,
    Probe,
    Source,
    SourceError,
)

#: How many unseen rounds one tick may chain through (v6.2 found, then v6.3 ...).
MAX_NEW_PER_TICK = 4


@dataclass
class Discovery:
    """What one tick found; ``validators`` is the state to keep for the next tick."""

    new_releases: list[str] = field(default_factory=list)
    changed_releases: list[str] = field(default_factory=list)
    validators: dict[str, dict] = field(default_factory=dict)
    probes: int = 0
    #: Why each changed release needs a run (``CHANGED``, ``LOST``, ``RETURNED``).
    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def releases_to_run(self) -> list[str]:
        """Partitions that need a run: new rounds first, then changed ones."""
        return [*self.new_releases, *self.changed_releases]


def cursor_validators(cursor: str | None) -> dict:
    """The last tick's validators; a damaged cursor counts as none (a full probe).

    The cursor is a cache of what the source said last time: losing it costs one
    ordinary tick, never a failure.
    """
    try:
        value = json.loads(cursor) if cursor else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _validators(probe: Probe) -> dict:
    return {"etag": probe.etag, "last_modified": probe.last_modified}


def _serves_a_summary(source: Source, release: Release, name: str) -> bool:
    """Whether a probed file really is a summary (a server may answer 200 for all).

    The git source's probe is the repository itself, which is fact enough.
    """
    if source.pins_commits:
        return True
    # Here, not at the top: a quiet tick never parses, and Polars costs ~0.1 s.
    from pipeline.extract.summary import SummaryFormatError, parse_summary

    try:
        fetched = source.fetch(release.repository, name)
        parse_summary(fetched.content, release=release.version, file=name)
    except (SourceError, SummaryFormatError):
        return False
    return True


def _probe_new(
    source: Source,
    known: list[str],
    found: Discovery,
    validators: dict[str, dict],
) -> None:
    """New rounds: the successors of the newest known one, and listed folders.

    Successors (next minor, next major) are guessed, chained up to
    ``MAX_NEW_PER_TICK``; a mirror folder is also listed (one ``scandir``), so a
    round named otherwise (``v6.10`` beside ``v6.1``, never a guessed successor)
    is probed like any new round.
    """
    frontier = max(known, key=version_key)
    for _ in range(MAX_NEW_PER_TICK):
        hit = next(
            (
                candidate
                for candidate in next_versions(frontier)
                if _probe_candidate(source, candidate, found, validators)
            ),
            None,
        )
        if hit is None:
            break
        found.new_releases.append(hit)
        frontier = hit
    seen = set(known) | set(found.new_releases)
    for candidate in _listed_rounds(source):
        if len(found.new_releases) >= MAX_NEW_PER_TICK:
            return
        if candidate not in seen and _probe_candidate(
            source, candidate, found, validators
        ):
            found.new_releases.append(candidate)


#: A mirror folder named like a round's repository.
_ROUND_FOLDER = re.compile(r"inference_results_(v\d+\.\d+)")


def _listed_rounds(source: Source) -> list[str]:
    """Versions of the round folders a mirror lists, oldest first ([] if none)."""
    names = getattr(source, "round_folders", lambda: None)() or []
    versions = [m.group(1) for n in names if (m := _ROUND_FOLDER.fullmatch(n))]
    return sorted(filter(is_version, versions), key=version_key)


def _probe_candidate(
    source: Source, candidate: str, found: Discovery, validators: dict[str, dict]
) -> bool:
    """Whether an unknown round serves a summary (its validators are remembered)."""
    release = discovered_release(candidate)
    # On the git source a round exists when its repository does: one ls-remote.
    for name in ("",) if source.pins_commits else SUMMARY_NAMES:
        found.probes += 1
        url = source.url_for(release.repository, name)
        previous = validators.get(url, {})
        probe = source.probe(
            release.repository,
            name,
            etag=previous.get("etag"),
            last_modified=previous.get("last_modified"),
        )
        if not probe.exists:
            continue
        if previous.get("refused") and probe.not_modified:
            found.validators[url] = previous  # still not a summary: no GET
            continue
        if not _serves_a_summary(source, release, name):
            # Remembered, so a quiet tick does not download it again.
            found.validators[url] = _validators(probe) | {"refused": True}
            continue
        found.validators[url] = _validators(probe)
        return True
    return False


#: Why a known round needs a run, as run requests and progress lines say it.
CHANGED = "changed upstream"
LOST = "no longer in the source"
RETURNED = "back in the source"


def discover(
    source: Source,
    known: list[Release],
    validators: dict[str, dict],
    store: SnapshotStore,
    *,
    thorough: bool = False,
) -> Discovery:
    """Probe for rounds after the newest known one, and verify every known one.

    ``validators`` (the cursor) only remember what candidate rounds looked like;
    known rounds are compared with what the store recorded when they were read
    (:func:`verify_known`), so no run, ``site`` and ``ingest`` included, leaves a
    change unseen. ``thorough`` compares content whatever the validators say.
    """
    found = Discovery(validators=dict(validators))
    if known:
        _probe_new(source, [r.version for r in known], found, validators)
    verify_known(source, known, store, found, thorough=thorough)
    return found


def verify_known(
    source: Source,
    known: list[Release],
    store: SnapshotStore,
    found: Discovery,
    *,
    thorough: bool = False,
) -> None:
    """Each known round whose source differs from what is stored, with why.

    Over git one ``ls-remote`` per round (the commit against the one its files
    were read at). On a folder or HTTP source the summary is probed with the
    validators recorded when it was read (a conditional HEAD, or a stat), and the
    raw tree listed and fingerprinted; where validators differ or there are none,
    the content's hash decides, so a touched but unchanged file costs no run.
    """
    for release in known:
        found.probes += 1
        if source.pins_commits:
            reason = _check_commit(source, release, store)
        else:
            reason = _check_summary(source, release, store, found, thorough)
            if reason is None and release.reads_raw_tree:
                found.probes += 1
                reason = _check_tree(source, release, store, thorough)
        if reason is not None:
            found.changed_releases.append(release.version)
            found.reasons[release.version] = reason


def _check_summary(
    source: Source,
    release: Release,
    store: SnapshotStore,
    found: Discovery,
    thorough: bool,
) -> str | None:
    """Why the round's summary needs a run, or None when the source serves it still."""
    version, repo = release.version, release.repository
    stored = stored_summary(store, release)
    path = stored.path if stored else release.summary_path
    if not path:
        return None
    served = store.served(version, path)
    absent = bool((served or {}).get("absent"))
    if stored is None and (served is None or absent):
        return _check_unread(source, release, path, found)
    trusted = {} if thorough or served is None else served
    try:
        probe = source.probe(
            repo,
            path,
            etag=trusted.get("etag"),
            last_modified=trusted.get("last_modified"),
        )
    except OutsideSource:  # now a link out of the mirror: the file is lost
        probe = Probe(url=source.url_for(repo, path), exists=False)
    if not probe.exists:
        return None if absent or stored is None else LOST
    if absent:
        return RETURNED
    if probe.not_modified:
        return None
    # New validators, or none to trust: the content decides.
    try:
        fetched = source.fetch(repo, path)
    except (NotPublished, OutsideSource):
        return LOST if stored is not None else None
    digest = sha256_hex(fetched.content)
    if digest != ((served or {}).get("sha256") or (stored and stored.sha256)):
        return CHANGED
    record_served(store, version, path, fetched)  # the next tick is a probe again
    return None


def _check_unread(
    source: Source, release: Release, path: str, found: Discovery
) -> str | None:
    """A listed round never read from this source: a run once it serves a summary.

    A file that is no summary (a server answering 200 for anything) is remembered
    in the cursor, as for a candidate round, so a quiet tick does not download it.
    """
    url = source.url_for(release.repository, path)
    previous = found.validators.get(url, {})
    try:
        probe = source.probe(
            release.repository,
            path,
            etag=previous.get("etag"),
            last_modified=previous.get("last_modified"),
        )
    except OutsideSource:  # a link out of the mirror is no file of the round
        return None
    if not probe.exists:
        return None
    if previous.get("refused") and probe.not_modified:
        return None
    if _serves_a_summary(source, release, path):
        found.validators.pop(url, None)
        return CHANGED
    found.validators[url] = _validators(probe) | {"refused": True}
    return None


def _check_tree(
    source: Source, release: Release, store: SnapshotStore, thorough: bool
) -> str | None:
    """Why the round's raw tree needs a run, or None when the source holds it still.

    Only a tree read before is verified (a snapshot, or the source's answer that
    it had none); one whose read failed is read again with its round's next run.
    A quiet tick stays cheap: on a folder it stats the files the snapshot read;
    over HTTP it lists the tree only where that can be asked conditionally
    (GitHub's API gives an ETag, and a 304 costs no rate limit). The thorough
    check lists every tree and compares it by content, so it also sees a file
    added on a folder or a tree whose listing has no ETag.
    """
    version, repo = release.version, release.repository
    kept = store.latest(version, TREE_FILE)
    served = store.served(version, TREE_FILE)
    if kept is None and served is None:
        return None
    absent = bool((served or {}).get("absent"))
    listing: Listing | None = None
    if not thorough:
        if absent or kept is None or served is None:
            if source.is_http or not source.has_tree(repo):
                return None  # still nothing there (over HTTP: the daily check)
        elif source.is_http:
            if not served.get("listing_etag"):
                return None
            listing = _listing(source, repo, served["listing_etag"])
            if listing.not_modified or (
                listing.paths and listing.fingerprint() == served.get("fingerprint")
            ):
                return None
        elif source.stamps(repo, _read_files(store, kept)) == served.get("stamps"):
            return None
    if listing is None or listing.not_modified:
        listing = _listing(source, repo, None)
    if not listing.paths:
        return None if absent or kept is None else LOST
    if absent or kept is None:
        return RETURNED if kept is not None else CHANGED
    if not _tree_matches(source, release, listing, store, kept):
        return CHANGED
    record_tree_served(
        store, version, source, repo, listing, _read_files(store, kept), kept
    )
    return None


def _listing(source: Source, repo: str, etag: str | None) -> Listing:
    """The round's tree listing; a source without one lists nothing."""
    try:
        return source.listing(repo, DIVISIONS, etag=etag)
    except (NotPublished, OutsideSource):
        return Listing([])


def _read_files(store: SnapshotStore, kept: Snapshot) -> dict[str, str]:
    """The files a stored tree snapshot read: path -> sha256 ({} if unreadable)."""
    try:
        files = json.loads(store.read(kept)).get("files", {})
    except (OSError, ValueError):
        return {}
    return files if isinstance(files, dict) else {}


def _tree_matches(
    source: Source,
    release: Release,
    listing: Listing,
    store: SnapshotStore,
    kept: Snapshot,
) -> bool:
    """Whether the listed tree holds what the stored tree snapshot holds, by content.

    Same paths, and each file the snapshot read with the same sha256: told by its
    blob id where the listing gives one (nothing downloaded), else read and hashed.
    """
    try:
        document = json.loads(store.read(kept))
    except (OSError, ValueError):
        return False
    if document.get("paths") != listing.paths:
        return False
    if document.get("malformed", []) != listing.malformed:
        return False
    blobs = store.git_objects(release.version)
    for path, sha in document.get("files", {}).items():
        oid = listing.oids.get(path)
        if oid is not None:
            if blobs.get(oid) != sha:
                return False
            continue
        try:
            content = source.fetch(release.repository, path).content
        except SourceError:
            return False
        if sha256_hex(content) != sha:
            return False
    return True


def _check_commit(source: Source, release: Release, store: SnapshotStore) -> str | None:
    """The git source: one ``ls-remote``, and nothing else.

    A round whose commit is not the one its files were last read at (or that was
    never read) needs a run; the store says, so no cursor is needed.
    """
    probe = source.probe(release.repository)
    if not probe.exists:
        return None
    keys = (SUMMARY_CHECK, TREE_FILE) if release.reads_raw_tree else (SUMMARY_CHECK,)
    read_at = {
        (store.checked(release.version, key) or {}).get("commit") for key in keys
    }
    return None if read_at == {probe.etag} else CHANGED


#: Next to the cursor: the release partitions the Dagster instance knows, written by
#: the runner whenever they change, so a quiet tick can run without Dagster.
KNOWN_FILE = "known_releases.json"
CURSOR_FILE = "discovery_cursor.json"


def quiet_tick(source: Source, data_dir: Path, *, thorough: bool = False) -> bool:
    """Whether a tick would find nothing to do, decided without starting Dagster.

    A no-op ``update`` is the common case (an hourly tick on a quiet day), and
    importing Dagster and opening its instance cost more than the probes themselves.
    Only a tick that finds no new round, no changed file and no new validators is
    quiet; anything else (or missing state) goes through the full Dagster tick.
    """
    cursor, known = data_dir / CURSOR_FILE, data_dir / KNOWN_FILE
    if not known.is_file():
        return False
    try:
        # No cursor yet (only ``site`` has run): candidate rounds were never seen,
        # and known ones are compared with the store, which ``site`` filled.
        validators = json.loads(cursor.read_text()) if cursor.is_file() else {}
        versions = json.loads(known.read_text())
        releases = [release_for(v) for v in versions]
    except (OSError, ValueError, ManifestError):
        return False
    if not isinstance(validators, dict):
        return False
    found = discover(
        source, releases, validators, SnapshotStore(data_dir), thorough=thorough
    )
    return (
        not found.new_releases
        and not found.changed_releases
        and found.validators == validators
    )
