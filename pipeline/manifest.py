"""The release manifest: every known MLPerf Inference round, committed as TOML.

The manifest is the reviewed list of rounds; Dagster's ``release`` partitions are built
from it, and the discovery sensor adds rounds it finds upstream later.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.registry.loader import RegistryError, Table, load_registry

MANIFEST_PATH = Path(__file__).parent / "registry" / "releases.toml"
SUMMARY_FORMATS = ("final_report", "checker")
INGEST_KINDS = ("summary", "raw_tree")
#: ASCII digits, matched in full: "v6.0\n" or "v٦.0" would be phantom partitions;
#: at most six digits each (a 100,000-digit "version" is no round, and no int).
_VERSION = re.compile(r"v([0-9]{1,6})\.([0-9]{1,6})")


class ManifestError(RegistryError):
    """The manifest file is malformed; the message names the entry and field."""


#: The file names upstream has used for a round's summary.
SUMMARY_NAMES = ("summary.json", "summary_results.json")


@dataclass(frozen=True)
class Release:
    """One MLPerf Inference round as listed in the manifest."""

    version: str
    repository: str
    summary_path: str
    summary_format: str | None
    published_date: dt.date | None
    date_note: str = ""
    #: What is ingested: "summary", "raw_tree" or both (then the tree is the check).
    ingest: tuple[str, ...] = ("summary",)
    #: Listed in the manifest; a round only discovery found is not, and stays out of
    #: the combined table and the site until someone reviews it and lists it.
    reviewed: bool = True

    @property
    def repo_name(self) -> str:
        """Repository name without owner, as it appears in source paths."""
        return self.repository.split("/", 1)[1]

    @property
    def has_summary(self) -> bool:
        """Whether the round publishes a summary file (v4.1 and later)."""
        return bool(self.summary_path)

    @property
    def reads_raw_tree(self) -> bool:
        """Whether the raw submission tree is scanned for this round."""
        return "raw_tree" in self.ingest

    @property
    def sort_key(self) -> tuple[int, int]:
        """Numeric ordering: v0.7 < v1.0 < v6.1 < v10.0."""
        return version_key(self.version)


def version_key(version: str) -> tuple[int, int]:
    """Parse ``vX.Y`` into a sortable tuple, rejecting anything else."""
    match = _VERSION.fullmatch(version) if isinstance(version, str) else None
    if not match:
        raise ManifestError(f"release version {version!r} is not of the form vX.Y")
    return int(match.group(1)), int(match.group(2))


def next_versions(version: str) -> list[str]:
    """Candidate successors of a round: the next minor and the next major version."""
    major, minor = version_key(version)
    return [f"v{major}.{minor + 1}", f"v{major + 1}.0"]


def _release_from_entry(entry: Table) -> Release:
    if isinstance(entry.get("version"), str):
        entry = entry.named(entry.get("version"))
    version = entry.string("version")
    try:
        version_key(version)
    except ManifestError:
        raise entry.expected("version", "a round vX.Y", version) from None
    repository = entry.string("repository")
    summary_path = entry.string("summary_path", empty=True)
    fmt = entry.choice("summary_format", SUMMARY_FORMATS) if summary_path else None
    ingest = entry.strings(
        "ingest",
        default=["summary"] if summary_path else ["raw_tree"],
        non_empty=True,
        allowed=INGEST_KINDS,
    )
    if "summary" in ingest and not summary_path:
        raise entry.fail("ingest", "names 'summary' but summary_path is empty")
    return Release(
        version=version,
        repository=repository,
        summary_path=summary_path,
        summary_format=fmt,
        published_date=entry.optional_date("published_date"),
        date_note=entry.string("date_note", default="", empty=True),
        ingest=ingest,
    )


def _parse_manifest(document: Mapping[str, Any], file: str) -> list[Release]:
    seen: set[str] = set()
    releases = []
    for entry in Table.document(document, file, ManifestError).tables("release"):
        release = _release_from_entry(entry)
        if release.version in seen:
            raise entry.named(release.version).fail(
                "version", f"{release.version} is listed twice"
            )
        seen.add(release.version)
        releases.append(release)
    return sorted(releases, key=lambda r: r.sort_key)


def load_manifest(path: Path = MANIFEST_PATH) -> list[Release]:
    """Read and validate the manifest, sorted by version."""
    return load_registry(path, _parse_manifest, ManifestError)


def release_for(version: str, releases: list[Release] | None = None) -> Release:
    """Look a round up by version; rounds found by discovery get manifest defaults."""
    for release in releases if releases is not None else load_manifest():
        if release.version == version:
            return release
    return discovered_release(version)


def discovered_release(version: str) -> Release:
    """A round that is not in the manifest yet: assume the newest summary layout.

    Its repository is named like the newest listed round's, under the same owner
    (so pointing releases.toml at a fork points discovery there too).
    """
    version_key(version)
    newest = max(load_manifest(), key=lambda r: r.sort_key, default=None)
    owner = newest.repository.split("/", 1)[0] if newest else "mlcommons"
    return Release(
        version=version,
        repository=f"{owner}/inference_results_{version}",
        summary_path="summary.json",
        summary_format=None,  # not reviewed: the parser detects the layout
        published_date=None,
        date_note="discovered upstream; not yet in the manifest",
        reviewed=False,
    )


def is_version(text: str) -> bool:
    """Whether ``text`` is exactly ``vX.Y`` (a partition key that may exist)."""
    try:
        version_key(text)
    except ManifestError:
        return False
    return True


def reviewed_versions(path: Path = MANIFEST_PATH) -> frozenset[str]:
    """The rounds listed in the manifest: the only ones cross-release assets read."""
    return frozenset(r.version for r in load_manifest(path))


def unreviewed_note(version: str) -> str:
    """What the CLI says about a round that is not in the manifest yet."""
    return (
        f"{version} is not reviewed in {MANIFEST_PATH.name}: kept out of the combined "
        "table and site until reviewed"
    )
