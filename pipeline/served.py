"""What the source served for each stored round: the notes discovery compares with.

Every run that reads a round leaves these notes (validators, content hashes, the
tree's stamps or fingerprint) in the snapshot store, and an ``update`` tick compares
the source with them. Plain functions over the store: a quiet tick reads them without
importing the parsers (Polars) or Dagster.
"""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.manifest import SUMMARY_NAMES
from pipeline.registry.releases import Release
from pipeline.snapshots import Snapshot, SnapshotStore, sha256_hex, utc_now_iso
from pipeline.source import Fetched, Listing, Source

#: Key of the note saying at which commit a round's summary was last looked for.
SUMMARY_CHECK = "summary"


#: The raw tree's snapshot path: our listing of the tree, not an upstream file.
TREE_FILE = "tree.json"


def candidate_paths(release: Release) -> list[str]:
    """The manifest's summary path first, then every other name upstream has used.

    What a round has is read from the source, not taken from the manifest: a
    round listed as raw-tree-only whose repository gained a summary file is read
    with it, and the disagreement is reported.
    """
    paths = [release.summary_path] if release.summary_path else []
    return paths + [name for name in SUMMARY_NAMES if name not in paths]


def stored_summary(store: SnapshotStore, release: Release) -> Snapshot | None:
    """The round's stored summary under any name it has used (the manifest's first).

    Kept when the source no longer has the round, compared with when it does.
    """
    names = candidate_paths(release)
    return next((s for n in names if (s := store.latest(release.version, n))), None)


def record_served(
    store: SnapshotStore, version: str, path: str, fetched: Fetched | None
) -> None:
    """Note what a folder or HTTP source served for a file (None: nothing there).

    Discovery compares the source with this note, so every run that reads a file
    leaves the state ``update`` needs; the git source needs none (its commit).
    """
    if fetched is None:
        store.mark_served(version, path, absent=True)
        return
    store.mark_served(
        version,
        path,
        etag=fetched.etag,
        last_modified=fetched.last_modified,
        sha256=sha256_hex(fetched.content),
    )


def record_tree_served(
    store: SnapshotStore,
    version: str,
    source: Source,
    repo: str,
    listing: Listing,
    files: dict[str, str],
    snapshot: Snapshot,
) -> None:
    """Note what a folder or HTTP source served for a raw tree (see ``served``).

    Over HTTP the listing's ETag and fingerprint (blob ids); on a folder the
    stamps of the files the snapshot read, which an hourly tick stats.
    """
    store.mark_served(
        version,
        TREE_FILE,
        sha256=snapshot.sha256,
        **(
            {"listing_etag": listing.etag, "fingerprint": listing.fingerprint()}
            if source.is_http
            else {"stamps": source.stamps(repo, files)}
        ),
    )


def ever_served(store: SnapshotStore, version: str) -> bool:
    """Whether the source ever served a valid file for a round: a stored snapshot.

    The only fact that makes a round not in releases.toml a release at all.
    """
    return any(store.latest(version, name) for name in (*SUMMARY_NAMES, TREE_FILE))


#: Listed rounds a run found absent from the source (no folder, no repository), by
#: version, with when: they get no release partition, so no run and no Dagster
#: event (14 assets' worth each), until ``update`` finds them (see ``absent_here``).
NOT_IN_SOURCE_FILE = "not_in_source.json"


def not_in_source(data_dir: Path) -> dict[str, str]:
    """The rounds recorded as not in the source, with when that was found."""
    try:
        value = json.loads((data_dir / NOT_IN_SOURCE_FILE).read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _write_not_in_source(data_dir: Path, rounds: dict[str, str]) -> None:
    path = data_dir / NOT_IN_SOURCE_FILE
    if not rounds:
        path.unlink(missing_ok=True)
        return
    data_dir.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".tmp")
    scratch.write_text(json.dumps(dict(sorted(rounds.items())), indent=1) + "\n")
    scratch.replace(path)


def record_not_in_source(
    store: SnapshotStore, data_dir: Path, releases: list[Release], pins_commits: bool
) -> None:
    """Record rounds the source does not have, once, as a run of them would have.

    A folder or HTTP source gets the same "absent" notes a run leaves for each file
    (every summary name, the raw tree), so discovery probes them as it probes
    any round read before and requests a run when one appears; over git the
    repository's ``ls-remote`` is the check and needs no note.
    """
    if not pins_commits:
        for release in releases:
            for path in candidate_paths(release):
                store.mark_served(release.version, path, absent=True)
            if release.reads_raw_tree:
                store.mark_served(release.version, TREE_FILE, absent=True)
    now = utc_now_iso()
    _write_not_in_source(
        data_dir, not_in_source(data_dir) | {r.version: now for r in releases}
    )


def forget_not_in_source(data_dir: Path, versions: list[str]) -> None:
    """Rounds that now have a partition (the source has them) are no longer absent."""
    rounds = not_in_source(data_dir)
    if any(v in rounds for v in versions):
        _write_not_in_source(
            data_dir, {v: t for v, t in rounds.items() if v not in versions}
        )
