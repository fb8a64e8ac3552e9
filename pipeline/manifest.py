"""Questions about rounds, answered from the release manifest (``releases.toml``).

The manifest itself (``Release``, ``load_manifest``) is ``pipeline.registry.releases``;
here: looking a round up, rounds discovery found upstream, what comes next.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.registry.releases import (
    MANIFEST_PATH,
    ManifestError,
    Release,
    load_manifest,
    version_key,
)

#: The file names upstream has used for a round's summary.
SUMMARY_NAMES = ("summary.json", "summary_results.json")


def next_versions(version: str) -> list[str]:
    """Candidate successors of a round: the next minor and the next major version."""
    major, minor = version_key(version)
    return [f"v{major}.{minor + 1}", f"v{major + 1}.0"]


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
