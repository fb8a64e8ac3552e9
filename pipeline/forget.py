"""``forget`` and the no-trace rule: what a round leaves behind when it goes.

Apart from the runner because removing stored data is its own, rarer job: it
touches the data folder, the discovery cursor and the release partitions, never a
run.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import dagster as dg

from pipeline import settings
from pipeline.assets import RELEASES
from pipeline.discovery import CURSOR_FILE, cursor_validators
from pipeline.manifest import release_for
from pipeline.registry.releases import load_manifest
from pipeline.runner import remember_partitions


def forget(
    instance: dg.DagsterInstance, version: str, progress: Callable[[str], None] = print
) -> list[Path]:
    """Remove everything stored for one round; what was removed, as paths.

    Its snapshots and per-release tables go; content-addressed raw-tree blobs stay
    (other rounds may share them; they are never listed without a snapshot). A round
    listed in releases.toml keeps its partition, and the next run reads it afresh.
    """
    data = settings.data_dir()
    removed = [
        path
        for path in (
            data / "raw" / version,
            data / "quarantine" / version,
            *sorted((data / "assets").glob(f"*/{version}.*")),
        )
        if path.exists()
    ]
    for path in removed:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    cursor = data / CURSOR_FILE
    if cursor.is_file():
        validators = cursor_validators(cursor.read_text())
        # Keys are the round's URLs: its repository, then "/" or ".git" (v6.1 is
        # not v6.10).
        own = re.compile(re.escape(release_for(version).repository) + r"(/|\.git|$)")
        kept = {k: v for k, v in validators.items() if not own.search(k)}
        if kept != validators:
            cursor.write_text(json.dumps(kept, sort_keys=True))
            removed.append(cursor)
    listed = version in {r.version for r in load_manifest()}
    if version in instance.get_dynamic_partitions(RELEASES) and not listed:
        instance.delete_dynamic_partition(RELEASES, version)
        remember_partitions(instance)
        progress(f"{version}: release partition removed")
    for path in removed:
        progress(f"{version}: removed {path}")
    if listed:
        progress(f"{version}: listed in releases.toml, so its partition stays")
    if not removed and not listed:
        progress(f"{version}: nothing stored")
    return removed
