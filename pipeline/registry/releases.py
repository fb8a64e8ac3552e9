"""``releases.toml``, the release manifest: every reviewed round as a ``Release``.

Dagster's ``release`` partitions are built from it; ``pipeline.manifest`` answers
questions about rounds (a round discovery found, the next version to look for).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.registry.loader import RegistryError, Table, load_registry

MANIFEST_PATH = Path(__file__).parent / "releases.toml"
SUMMARY_FORMATS = ("final_report", "checker")
INGEST_KINDS = ("summary", "raw_tree")
#: ASCII digits, matched in full: "v6.0\n" or "v٦.0" would be phantom partitions;
#: at most six digits each (a 100,000-digit "version" is no round, and no int).
_VERSION = re.compile(r"v([0-9]{1,6})\.([0-9]{1,6})")


class ManifestError(RegistryError):
    """The manifest file is malformed; the message names the entry and field."""


@dataclass(frozen=True)
class Release:
    """One MLPerf Inference round as listed in the manifest."""

    version: str
    repository: str
    summary_path: str
    summary_format: str | None
    published_date: dt.date | None
    date_note: str = ""
    #: ``published_date`` is not the day itself (``date_note`` says why).
    date_approximate: bool = False
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
        date_approximate=entry.boolean("date_approximate", default=False),
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
