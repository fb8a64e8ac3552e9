"""Find new rounds and changed files upstream, as cheaply as the source allows.

A tick probes the successors of the newest known round (next minor, next major) and
re-probes every known summary file with conditional requests (ETag / Last-Modified), so
a quiet day costs a few HEAD requests and no downloads. The validators from the last
tick are the only state; they live in the sensor cursor or a small JSON file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.extract.summary import SummaryFormatError, parse_summary
from pipeline.ingest import SUMMARY_CHECK, TREE_FILE
from pipeline.manifest import (
    SUMMARY_NAMES,
    ManifestError,
    Release,
    discovered_release,
    next_versions,
    release_for,
)
from pipeline.snapshots import SnapshotStore
from pipeline.source import Probe, Source, SourceError

#: How many unseen rounds one tick may chain through (v6.2 found, then v6.3 ...).
MAX_NEW_PER_TICK = 4


@dataclass
class Discovery:
    """What one tick found; ``validators`` is the state to keep for the next tick."""

    new_releases: list[str] = field(default_factory=list)
    changed_releases: list[str] = field(default_factory=list)
    validators: dict[str, dict] = field(default_factory=dict)
    probes: int = 0

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
    try:
        fetched = source.fetch(release.repository, name)
        parse_summary(fetched.content, release=release.version, file=name)
    except (SourceError, SummaryFormatError):
        return False
    return True


def _probe_new(
    source: Source, newest: str, found: Discovery, validators: dict[str, dict]
) -> None:
    frontier = newest
    # On the git source a round exists when its repository does: one ls-remote.
    names = ("",) if source.pins_commits else SUMMARY_NAMES
    for _ in range(MAX_NEW_PER_TICK):
        hit = None
        for candidate in next_versions(frontier):
            release = discovered_release(candidate)
            for name in names:
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
                hit = candidate
                found.validators[url] = _validators(probe)
                break
            if hit:
                break
        if hit is None:
            return
        found.new_releases.append(hit)
        frontier = hit


def discover(
    source: Source,
    known: list[Release],
    validators: dict[str, dict],
    store: SnapshotStore,
) -> Discovery:
    """Probe for rounds after the newest known one and for changed known files."""
    found = Discovery(validators=dict(validators))
    if known:
        _probe_new(
            source, max(known, key=lambda r: r.sort_key).version, found, validators
        )
    if source.pins_commits:
        _probe_commits(source, known, store, found)
        return found
    for release in known:
        if not release.has_summary:
            continue
        url = source.url_for(release.repository, release.summary_path)
        previous = validators.get(url, {})
        found.probes += 1
        probe = source.probe(
            release.repository,
            release.summary_path,
            etag=previous.get("etag"),
            last_modified=previous.get("last_modified"),
        )
        if not probe.exists or probe.not_modified:
            continue
        found.validators[url] = _validators(probe)
        never_stored = store.latest(release.version, release.summary_path) is None
        if never_stored and not _serves_a_summary(
            source, release, release.summary_path
        ):
            continue  # an error page answering 200 is not a file to run for
        if previous or never_stored:
            found.changed_releases.append(release.version)
    return found


def _probe_commits(
    source: Source, known: list[Release], store: SnapshotStore, found: Discovery
) -> None:
    """The git source: one ``ls-remote`` per round, and nothing else.

    A round whose commit is not the one its files were last read at (or that was
    never read) needs a run; the store says, so a lost cursor costs nothing.
    """
    for release in known:
        found.probes += 1
        probe = source.probe(release.repository)
        if not probe.exists:
            continue
        found.validators[probe.url] = {"commit": probe.etag}
        keys = (
            (SUMMARY_CHECK, TREE_FILE) if release.reads_raw_tree else (SUMMARY_CHECK,)
        )
        read_at = {
            (store.checked(release.version, key) or {}).get("commit") for key in keys
        }
        if read_at != {probe.etag}:
            found.changed_releases.append(release.version)


#: Next to the cursor: the release partitions the Dagster instance knows, written by
#: the runner whenever they change, so a quiet tick can run without Dagster.
KNOWN_FILE = "known_releases.json"
CURSOR_FILE = "discovery_cursor.json"


def quiet_tick(source: Source, data_dir: Path) -> bool:
    """Whether a tick would find nothing to do, decided without starting Dagster.

    A no-op ``update`` is the common case (an hourly tick on a quiet day), and
    importing Dagster and opening its instance cost more than the probes themselves.
    Only a tick that finds no new round, no changed file and no new validators is
    quiet; anything else (or missing state) goes through the full Dagster tick.
    """
    cursor, known = data_dir / CURSOR_FILE, data_dir / KNOWN_FILE
    if not cursor.is_file() or not known.is_file():
        return False
    try:
        validators = json.loads(cursor.read_text())
        versions = json.loads(known.read_text())
        releases = [release_for(v) for v in versions]
    except (OSError, ValueError, ManifestError):
        return False
    found = discover(source, releases, validators, SnapshotStore(data_dir))
    return (
        not found.new_releases
        and not found.changed_releases
        and found.validators == validators
    )
