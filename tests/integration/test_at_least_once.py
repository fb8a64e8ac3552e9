"""At-least-once publishing (issue 56 E): a change seen upstream stays pending.

A round ``update`` asks a run for is recorded as pending before the run starts and
leaves only once the site that reads it is swapped in. Here a full disk while the
snapshot is written, and a failed swap, each leave the round pending (``status``
says so, with the failure) and the next ``update`` publishes the change.
"""

from __future__ import annotations

import errno
import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline import snapshots
from pipeline.cli import main
from pipeline.defs import website
from pipeline.publish import site_tree_digest
from tests.conftest import MIRROR, MIRROR_ALT

ROUND = "inference_results_v6.1"
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
