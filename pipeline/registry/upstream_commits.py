"""``upstream_commits.toml``: the upstream commit each round's files were taken at.

A summary file gets its commit only when its bytes are the ones recorded here;
``pipeline.transform.provenance`` applies it to the snapshot table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pipeline.registry.loader import RegistryError, Table, load_registry

REGISTRY_FILE = "upstream_commits.toml"
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class ProvenanceError(RegistryError):
    """The commit registry is malformed; the message names the entry and the field."""


@dataclass(frozen=True)
class RoundCommit:
    """The upstream commit a round's files were taken at, and the evidence for it."""

    release: str
    commit: str
    evidence: str
    files: Mapping[str, str] = field(default_factory=dict)
    raw_tree: bool = False


def parse_commits(
    document: Mapping[str, Any], name: str = REGISTRY_FILE
) -> dict[str, RoundCommit]:
    """Typed registry entries by release; a bad entry raises ``ProvenanceError``."""
    root = Table.document(document, name, ProvenanceError)
    root.only(("round",))
    out: dict[str, RoundCommit] = {}
    for entry in root.tables("round"):
        entry.only(("release", "commit", "evidence", "files", "raw_tree"))
        release = entry.string("release")
        entry = entry.named(release)
        commit = entry.string(
            "commit", pattern=_COMMIT, expected="7 to 40 lower-case hex digits"
        )
        evidence = entry.string("evidence")
        files = entry.string_map(
            "files",
            default={},
            pattern=_SHA256,
            expected="a table of paths to sha256 hex digests",
        )
        raw_tree = entry.boolean("raw_tree", default=False)
        if release in out:
            raise entry.fail("release", f"{release} is listed twice")
        out[release] = RoundCommit(release, commit, evidence, files, raw_tree)
    return out


@cache
def load_commits(path: str | Path = REGISTRY_FILE) -> dict[str, RoundCommit]:
    """The registry of upstream commits (the committed one unless ``path``), cached."""
    return load_registry(path, parse_commits, ProvenanceError)
