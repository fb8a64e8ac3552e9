"""Caps before memory (issue 33, item 3): every read path refuses a file over the cap
while reading it, and a raw tree names the refused file and reads the rest.

The cap is the source's ``max_bytes`` (``DEFAULT_MAX_BYTES``, 64 MB): set small here
to prove the mechanism cheaply, and kept real where a sparse or zero-filled file just
over it costs nothing to make.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from pipeline.extract.raw_tree import scan_raw_tree
from pipeline.fetch import fetch_raw_tree, over_cap_note, stored_tree
from pipeline.gitsource import GitSource
from pipeline.snapshots import SnapshotStore
from pipeline.source import DEFAULT_MAX_BYTES, Source, TooLarge, cap_text
from tests.gitserver import GitServer, commit_folder
from tests.httpserver import FaultyServer
from tests.unit.test_raw_tree import TREE
from tests.unit.test_tree_reuse import LAST, RELEASE, REPO

#: A cap every file of TREE fits under, and a file over it.
CAP = 4096
HUGE = b"x" * (CAP + 1)


def test_the_cap_is_64_mb_and_said_so() -> None:
    assert DEFAULT_MAX_BYTES == 64 * 1024 * 1024
    assert cap_text(DEFAULT_MAX_BYTES) == "64 MB"
    assert cap_text(CAP) == "4096-byte"
    assert over_cap_note(["a/b.txt"], DEFAULT_MAX_BYTES) == (
        "1 file over the 64 MB cap: a/b.txt"
    )
    assert over_cap_note(["a", "b", "c", "d", "e"], CAP) == (
        "5 files over the 4096-byte cap: a, b, c and 2 more"
    )


def test_a_mirror_file_over_the_cap_is_refused_before_it_is_opened(
    tmp_path: Path,
) -> None:
    folder = tmp_path / REPO
    folder.mkdir()
    with (folder / "big.txt").open("wb") as handle:  # sparse: no disk, no memory
        handle.truncate(DEFAULT_MAX_BYTES + 1)
    source = Source(str(tmp_path))
    with pytest.raises(TooLarge) as refused:
        source.fetch(REPO, "big.txt")
    assert str(refused.value) == (
        f"{folder / 'big.txt'}: 67108865 bytes exceeds the cap of 67108864 bytes "
        "(64 MB); not read"
    )


def test_a_mirror_file_that_grows_after_its_stat_is_read_only_to_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / REPO
    folder.mkdir()
    (folder / "log.txt").write_bytes(b"small")
    source = Source(str(tmp_path), max_bytes=CAP)
    real_fstat = os.fstat

    def grown(descriptor: int) -> os.stat_result:
        stat = real_fstat(descriptor)  # it grows between the stat and the read
        (folder / "log.txt").write_bytes(HUGE * 100)
        return stat

    monkeypatch.setattr("pipeline.source.folder.os.fstat", grown)
    with pytest.raises(TooLarge, match=r"the file \(it grew while read\) exceeds"):
        source.fetch(REPO, "log.txt")


def test_over_http_a_declared_length_is_refused_before_the_body(tmp_path: Path) -> None:
    read: list[int] = []

    def serve(request: httpx.Request) -> httpx.Response:
        def body():  # noqa: ANN202
            read.append(1)
            yield HUGE

        headers = {"Content-Length": str(len(HUGE))}
        return httpx.Response(200, headers=headers, content=body())

    source = Source(
        "http://mirror.test", transport=httpx.MockTransport(serve), max_bytes=CAP
    )
    with pytest.raises(TooLarge) as refused:
        source.fetch(REPO, "big.txt")
    assert str(refused.value) == (
        f"http://mirror.test/{REPO}/big.txt: 4097 bytes exceeds the cap of 4096 "
        "bytes; not read"
    )


def test_over_http_a_body_without_length_stops_one_chunk_past_the_cap() -> None:
    sent: list[int] = []

    def serve(request: httpx.Request) -> httpx.Response:
        def body():  # noqa: ANN202
            for _ in range(1000):
                sent.append(1)
                yield b"x" * 1024

        return httpx.Response(200, content=body())

    source = Source(
        "http://mirror.test", transport=httpx.MockTransport(serve), max_bytes=CAP
    )
    with pytest.raises(TooLarge, match=r"big.txt: the body exceeds the cap of 4096"):
        source.fetch(REPO, "big.txt")
    assert len(sent) == 5  # 5 KiB read of the 1000 offered


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "mirror" / REPO
    for path, content in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    assert all(len(c) <= CAP for c in TREE.values())
    return root


def _read_the_rest(
    source: Source | GitSource, store: SnapshotStore, reason: str
) -> None:
    """One named rejection in the outcome and the snapshot; every other file read."""
    outcome = fetch_raw_tree(RELEASE, source, store)
    assert outcome.over_cap == (LAST,)
    assert outcome.over_cap_note == f"1 file over the 4096-byte cap: {LAST}"
    assert outcome.message.endswith(f"; 1 file over the 4096-byte cap: {LAST}")
    assert outcome.to_json()["over_cap_note"] == outcome.over_cap_note
    assert outcome.files_read == len(
        [p for p in json.loads(store.read(outcome.snapshot))["files"]]
    )
    paths, read = stored_tree(store, outcome.snapshot)
    assert json.loads(store.read(outcome.snapshot))["unread"] == {LAST: reason}
    results, rejected = scan_raw_tree(paths, read, release="v9.9", repository=REPO)
    (row,) = rejected.filter(rejected["source_file"] == LAST).rows(named=True)
    # LAST is a run of a system without its JSON: both reasons, the cap first.
    assert row["reason"] == (
        f"v9.9 {LAST}: unreadable ({reason}); missing system JSON "
        "closed/Nosys/systems/ghost.json"
    )
    assert results.height > 0  # the rest of the round is read


def test_a_tree_file_over_the_cap_on_a_folder_is_one_named_rejection(
    tree: Path, tmp_path: Path
) -> None:
    (tree / LAST).write_bytes(HUGE)
    source = Source(str(tree.parent), max_bytes=CAP)
    _read_the_rest(
        source,
        SnapshotStore(tmp_path / "data"),
        f"{tree / LAST}: 4097 bytes exceeds the cap of 4096 bytes; not read",
    )


def test_a_tree_file_over_the_cap_over_http_is_one_named_rejection(
    tree: Path, tmp_path: Path
) -> None:
    (tree / LAST).write_bytes(HUGE)
    with FaultyServer(tree.parent) as server:
        source = Source(server.url, tree_api=server.url, max_bytes=CAP, retries=0)
        _read_the_rest(
            source,
            SnapshotStore(tmp_path / "data"),
            f"{server.url}/{REPO}/{LAST}: 4097 bytes exceeds the cap of 4096 bytes; "
            "not read",
        )


@pytest.mark.slow
def test_a_blob_over_the_cap_is_sized_on_disk_and_never_read(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Git: the blob's size comes from ``cat-file --batch-check`` of the fetched
    pack, so its bytes are never read into this process."""
    (tree / LAST).write_bytes(HUGE)
    commit_folder(tmp_path / "srv" / "mlcommons" / f"{REPO}.git", tree, "r")
    batches: list[bytes] = []
    run = GitSource._run

    def recorded(self, args, **kwargs):  # noqa: ANN001, ANN202
        out = run(self, args, **kwargs)
        if args[-1] == "--batch":
            batches.append(out)
        return out

    monkeypatch.setattr(GitSource, "_run", recorded)
    with GitServer(tmp_path / "srv") as server:
        source = GitSource(
            base=f"git+{server.url}", cache=tmp_path / "clones", max_bytes=CAP
        )
        remote = f"{server.url}/mlcommons/{REPO}.git"
        commit = source.commit(f"mlcommons/{REPO}")
        _read_the_rest(
            source,
            SnapshotStore(tmp_path / "data"),
            f"git+{remote}@{commit}:{LAST}: 4097 bytes exceeds the cap of 4096 bytes; "
            "not read",
        )
    assert batches and all(HUGE not in out for out in batches)
    assert list(source._oversized.values()) == [len(HUGE)]


@pytest.mark.slow
def test_the_real_cap_over_git_with_a_zero_filled_file_just_over_it(
    tree: Path, tmp_path: Path
) -> None:
    """64 MB of zeros packs to a few kB: the real cap, still cheap."""
    extra = {LAST: bytes(DEFAULT_MAX_BYTES + 1)}
    commit_folder(
        tmp_path / "srv" / "mlcommons" / f"{REPO}.git", tree, "r", extra=extra
    )
    del extra
    with GitServer(tmp_path / "srv") as server:
        source = GitSource(base=f"git+{server.url}", cache=tmp_path / "clones")
        outcome = fetch_raw_tree(RELEASE, source, SnapshotStore(tmp_path / "data"))
    assert outcome.over_cap_note == f"1 file over the 64 MB cap: {LAST}"
    assert source._blobs and all(len(b) <= CAP for b in source._blobs.values())


def test_a_tree_whose_source_failed_says_why_in_the_line_and_on_audit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It used to say "source error" on Audit and nothing in the release line."""
    from pipeline import runner
    from pipeline.defs.website import tree_state

    message = (
        "v6.0 raw tree not refreshed: git+http://h/x.git@abc:a/b.txt: the server did "
        "not send this file; no new tree snapshot stored"
    )
    metadata = {
        "raw_mlperf__summary": {"status": "ingested", "sha256": "a" * 64},
        "core_mlperf__results": {"rows": 520, "rejected": 0, "checks": "7/7 passed"},
        "raw_mlperf__tree": {"status": "source error", "message": message},
    }
    monkeypatch.setattr(
        runner, "latest_metadata", lambda instance, key, version=None: metadata[key]
    )
    line = runner.describe_release(None, runner.RunOutcome("v6.0", True, "r", ""))
    assert line == (
        "v6.0: 520 rows, 0 rejected, checks 7/7 passed, sha256 aaaaaaaaaaaa "
        "(unchanged); raw tree not refreshed: git+http://h/x.git@abc:a/b.txt: the "
        "server did not send this file; no new tree snapshot stored"
    )
    assert tree_state({"status": "source error", "message": message}) == (
        f"source error: {message}"
    )
    assert tree_state({"status": "ingested"}) == "ingested"
