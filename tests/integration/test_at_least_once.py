"""At-least-once publishing (issue 56 E): a change seen upstream stays pending.

A round ``update`` asks a run for is recorded as pending before the run starts and
leaves only once the site that reads it is swapped in. Here a full disk while the
snapshot is written, and a failed swap, each leave the round pending (``status``
says so, with the failure) and the next ``update`` publishes the change.
"""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import dagster as dg
import pytest
import sqlalchemy

from pipeline import snapshots
from pipeline.cli import main
from pipeline.defs import resources, website
from pipeline.instance import PooledSqliteEventLogStorage
from pipeline.publish import site_tree_digest
from tests.conftest import MIRROR, MIRROR_ALT

ROUND = "inference_results_v6.1"
ROOT = Path(__file__).resolve().parents[2]
OLD = (MIRROR / ROUND / "summary.json").read_bytes()
NEW = (MIRROR_ALT / ROUND / "summary.json").read_bytes()


def _sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "served" / ROUND
    folder.mkdir(parents=True)
    (folder / "summary.json").write_bytes(OLD)
    work = tmp_path / "work"
    for name, value in {
        "MLPERF_SOURCE": str(tmp_path / "served"),
        "MLPERF_DATA_DIR": str(work / "data"),
        "DAGSTER_HOME": str(work / "data" / "dagster_home"),
        "MLPERF_BUILD_DIR": str(work / "build"),
    }.items():
        monkeypatch.setenv(name, value)
    yield tmp_path


def _run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, list[str]]:
    code = main(list(argv))
    return code, capsys.readouterr().out.splitlines()


def _status(capsys: pytest.CaptureFixture) -> tuple[str, list[str]]:
    code, lines = _run(capsys, "status")
    assert code == 0
    (row,) = [line for line in lines if line.startswith("v6.1 ")]
    return row.split()[2], [line for line in lines if line.startswith("pending: ")]


def _full_disk(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_change_stays_pending_until_published(
    world: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = world / "work" / "data"
    build = world / "work" / "build"
    site = build / "site"
    code, lines = _run(capsys, "site")
    assert code == 0, lines
    published = site_tree_digest(site.resolve())

    # 1. The disk fills while the new snapshot is written.
    (world / "served" / ROUND / "summary.json").write_bytes(NEW)
    with monkeypatch.context() as fault:
        fault.setattr(snapshots, "write_whole", _full_disk)
        code, lines = _run(capsys, "update")
    assert code == 1
    assert (
        f"[1/1] changed upstream: v6.1: FAILED: cannot write snapshot under {data}: "
        f"the disk is full (No space left on device); {len(NEW)} bytes needed"
    ) in lines
    assert site_tree_digest(site.resolve()) == published
    sha, pending = _status(capsys)
    assert sha == _sha(OLD)[:12]
    (line,) = pending
    assert line.startswith("pending: v6.1 (changed upstream) since ")
    assert ", not yet published; 1 failed attempt(s), last at " in line
    assert line.endswith(
        f": cannot write snapshot under {data}: the disk is full (No space left on "
        f"device); {len(NEW)} bytes needed; the next update retries it"
    )
    assert not list((data / "raw").rglob("*.part"))  # nothing half written

    # The next update sees the change still, stores and publishes it.
    code, lines = _run(capsys, "update")
    assert code == 0, lines
    assert "cross-release tables and site: rebuilt" in lines
    sha, pending = _status(capsys)
    assert (sha, pending) == (
        _sha(NEW)[:12],
        ["pending: nothing (every change seen upstream is published)"],
    )
    published = site_tree_digest(site.resolve())
    before = sorted(p.name for p in (build / "published").iterdir())

    # 2. The swap fails (the disk full as the new site is put in place).
    (world / "served" / ROUND / "summary.json").write_bytes(OLD)
    with monkeypatch.context() as fault:
        fault.setattr(website, "publish", _full_disk)
        code, lines = _run(capsys, "update")
    assert code == 1
    said = (
        "site not published, the last good site stays: cannot swap the new site "
        f"into {build}: the disk is full (No space left on device)"
    )
    assert f"cross-release tables and site: FAILED: {said}" in lines
    assert site_tree_digest(site.resolve()) == published
    assert sorted(p.name for p in (build / "published").iterdir()) == before
    sha, pending = _status(capsys)
    (line,) = pending
    assert line.startswith("pending: v6.1 (changed upstream) since ")
    assert line.endswith(f": {said}; the next update retries it")

    # A quiet upstream, yet the next update retries the round and publishes it.
    code, lines = _run(capsys, "update")
    assert code == 0, lines
    (line,) = [line for line in lines if line.startswith("[1/1] ")]
    assert line.startswith("[1/1] retry after a failure (changed upstream): v6.1: ")
    assert "cross-release tables and site: rebuilt" in lines
    sha, pending = _status(capsys)
    assert (sha, pending) == (
        _sha(OLD)[:12],
        ["pending: nothing (every change seen upstream is published)"],
    )
    assert site_tree_digest(site.resolve()) != published
    code, lines = _run(capsys, "update")
    assert (code, lines) == (0, ["nothing new or changed upstream: no run requested"])


# Faults at every other step of a tick (issue 56 E): Dagster's SQLite storage,
# a table's Parquet file, the MkDocs build. One site is built for them all; each
# case changes upstream to the version the site does not show, fails the next
# update at its step, and lets the update after it publish the change.


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("steps")
    (root / "served" / ROUND).mkdir(parents=True)
    (root / "served" / ROUND / "summary.json").write_bytes(OLD)
    work = root / "work"
    with pytest.MonkeyPatch.context() as env:
        for name, value in {
            "MLPERF_SOURCE": str(root / "served"),
            "MLPERF_DATA_DIR": str(work / "data"),
            "DAGSTER_HOME": str(work / "data" / "dagster_home"),
            "MLPERF_BUILD_DIR": str(work / "build"),
        }.items():
            env.setenv(name, value)
        assert main(["site"]) == 0
        yield root


#: The v6.1 system whose name the two upstream versions spell differently.
SPELLINGS = {OLD: "NVIDIA Vera Rubin NVL72", NEW: "NVIDIA VeraRubin NVL72"}


def _shown(site: Path) -> bytes:
    """Which upstream version the served site's v6.1 page shows."""
    page = (site / "generated" / "releases" / "v6.1.html").read_text()
    (version,) = [v for v, name in SPELLINGS.items() if name in page]
    return version


def _sqlite_refuses(when: Callable[[dg.EventLogEntry], bool]) -> Callable:
    """Dagster's event log failing as SQLite does on a full disk, for some events."""
    store_event = PooledSqliteEventLogStorage.store_event

    def refuse(self: PooledSqliteEventLogStorage, event: dg.EventLogEntry) -> None:
        if when(event):
            raise sqlalchemy.exc.OperationalError(
                "INSERT INTO event_logs ...",
                {},
                sqlite3.OperationalError("disk I/O error"),
            )
        store_event(self, event)

    return refuse


def _materializes(asset: str) -> Callable[[dg.EventLogEntry], bool]:
    def when(event: dg.EventLogEntry) -> bool:
        found = event.dagster_event
        return (
            found is not None
            and found.event_type == dg.DagsterEventType.ASSET_MATERIALIZATION
            and found.asset_key == dg.AssetKey(asset)
        )

    return when


def _run_starts(event: dg.EventLogEntry) -> bool:
    found = event.dagster_event
    return found is not None and found.event_type == dg.DagsterEventType.RUN_START


def _table_write_fails(table: str) -> Callable:
    """The disk full as one table's Parquet file is written (the real writer's path)."""
    atomic_write = resources._atomic_write

    def write(path: Path, writer: Callable) -> None:
        if path.parent.name == table:
            writer = _full_disk
        atomic_write(path, writer)

    return write


def _mkdocs_fails(*args: object, **kwargs: object) -> tuple[bool, str]:
    return False, "ERROR    -  Config value 'theme': injected build failure"


#: Where each fault is injected, and the failure ``status`` then shows ({data},
#: {home}: the data folder, Dagster's home).
FAULTS = {
    "sqlite-round-record": (
        (
            PooledSqliteEventLogStorage,
            "store_event",
            _sqlite_refuses(_materializes("raw_mlperf__summary")),
        ),
        "cannot record the run in Dagster's storage under {home}: disk I/O error",
    ),
    "sqlite-run-record": (  # outside any step: the command itself ends with it
        (PooledSqliteEventLogStorage, "store_event", _sqlite_refuses(_run_starts)),
        "cannot record the run in Dagster's storage under {home}: disk I/O error",
    ),
    "round-table": (
        (resources, "_atomic_write", _table_write_fails("core_mlperf__results")),
        "cannot write {data}/assets/core_mlperf__results/v6.1.parquet: "
        "No space left on device",
    ),
    "combined-table": (
        (resources, "_atomic_write", _table_write_fails("out_mlperf__results")),
        "site not published: cannot write {data}/assets/out_mlperf__results/"
        "_.parquet: No space left on device",
    ),
    "mkdocs-build": (
        (website, "mkdocs_build", _mkdocs_fails),
        "site not published, the last good site stays: ERROR    -  Config value "
        "'theme': injected build failure",
    ),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_fault_at_any_step_leaves_the_change_pending_for_the_next_update(
    built: Path,
    fault: str,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = built / "work" / "build" / "site"
    before = _shown(site)
    after = NEW if before == OLD else OLD
    published = site_tree_digest(site.resolve())
    (built / "served" / ROUND / "summary.json").write_bytes(after)

    data = built / "work" / "data"
    injection, failure = FAULTS[fault]
    failure = failure.format(data=data, home=data / "dagster_home")
    with monkeypatch.context() as injected:
        injected.setattr(*injection)
        code = main(["update"])
    said = capsys.readouterr()
    assert code == 1
    lines = said.out.splitlines()
    if lines:  # the run's own failure, in its progress line
        told = failure.removeprefix("site not published: ")  # status adds it
        assert any(line.endswith(f"FAILED: {told}") for line in lines), lines
    else:  # no run got going: the command's one error line, no traceback
        assert said.err.splitlines()[-1] == f"error: {failure}", said.err
    assert site_tree_digest(site.resolve()) == published
    assert _shown(site) == before
    sha, pending = _status(capsys)
    (line,) = pending
    assert line.startswith("pending: v6.1 (changed upstream) since ")
    assert ", not yet published; 1 failed attempt(s), last at " in line
    assert line.endswith(f": {failure}; the next update retries it"), line

    # Nothing to see upstream any more, yet the next update publishes the change.
    code, lines = _run(capsys, "update")
    assert code == 0, lines
    assert "cross-release tables and site: rebuilt" in lines
    assert _shown(site) == after
    sha, pending = _status(capsys)
    assert (sha, pending) == (
        _sha(after)[:12],
        ["pending: nothing (every change seen upstream is published)"],
    )


@pytest.mark.parametrize("delay", [0.0, 2.0], ids=["at-once", "2s-later"])
def test_an_update_killed_after_it_saw_the_change_is_retried_by_the_next(
    built: Path, delay: float, capsys: pytest.CaptureFixture
) -> None:
    """``kill -9`` as soon as, or 2 s after, the update says "changed upstream".

    The round's run is over by then; the cross-release run (tables, MkDocs, the
    swap) is under way, so the kill leaves the site unpublished.
    """
    site = built / "work" / "build" / "site"
    before = _shown(site)
    after = NEW if before == OLD else OLD
    published = site_tree_digest(site.resolve())
    (built / "served" / ROUND / "summary.json").write_bytes(after)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "update"],
        cwd=ROOT, env=os.environ | {"PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    said = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            said.append(line)
            if "changed upstream: v6.1" in line:
                break
        time.sleep(delay)
        assert proc.poll() is None, f"the update ended before the kill: {said}"
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, said
    assert site_tree_digest(site.resolve()) == published
    assert _shown(site) == before

    code, lines = _run(capsys, "status")
    assert code == 0
    (line,) = [line for line in lines if line.startswith("pending: ")]
    assert line.startswith("pending: v6.1 (changed upstream) since ")
    assert line.endswith(
        ": the update running it ended without finishing (killed or crashed); "
        "the next update retries it"
    ), line
    assert ", not yet published; 1 failed attempt(s), last at " in line

    code, lines = _run(capsys, "update")
    assert code == 0, lines
    (line,) = [line for line in lines if line.startswith("[1/1] ")]
    assert line.startswith("[1/1] retry after a failure (changed upstream): v6.1: ")
    assert "cross-release tables and site: rebuilt" in lines
    assert _shown(site) == after
    _, pending = _status(capsys)
    assert pending == ["pending: nothing (every change seen upstream is published)"]
