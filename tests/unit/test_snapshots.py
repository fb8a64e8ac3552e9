import datetime as dt
import json
import os
from pathlib import Path

import pytest

from pipeline.snapshots import SnapshotStore, sha256_hex
from pipeline.source import Fetched


def fetched(content: bytes, day: int) -> Fetched:
    return Fetched(
        url="https://example.test/inference_results_v6.1/summary.json",
        content=content,
        fetched_at=dt.datetime(2026, 11, day, tzinfo=dt.UTC),
        etag='"e1"',
    )


def test_snapshot_is_content_addressed_with_a_sidecar(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    snap, is_new = store.put("v6.1", "summary.json", fetched(b"A", 1))
    assert is_new
    assert snap.sha256 == sha256_hex(b"A")
    blob = tmp_path / snap.blob
    assert blob.name == f"{snap.sha256}.json"
    assert blob.read_bytes() == b"A"
    sidecar = json.loads(blob.with_name(f"{snap.sha256}.meta.json").read_text())
    assert sidecar["url"] == "https://example.test/inference_results_v6.1/summary.json"
    assert sidecar["fetched_at"] == "2026-11-01T00:00:00+00:00"
    assert (sidecar["bytes"], sidecar["etag"]) == (1, '"e1"')
    assert "upstream_commit" in sidecar and "licence" in sidecar


def test_identical_content_adds_nothing(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    first, _ = store.put("v6.1", "summary.json", fetched(b"A", 1))
    files_before = sorted(p.name for p in tmp_path.rglob("*"))
    again, is_new = store.put("v6.1", "summary.json", fetched(b"A", 2))
    assert not is_new
    assert again == first  # the first sighting's sidecar, untouched
    assert sorted(p.name for p in tmp_path.rglob("*")) == files_before


def test_changed_content_adds_a_version_and_keeps_the_old(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    a, _ = store.put("v6.1", "summary.json", fetched(b"A", 1))
    b, is_new = store.put("v6.1", "summary.json", fetched(b"B", 2))
    assert is_new
    assert [s.sha256 for s in store.versions("v6.1", "summary.json")] == [
        a.sha256,
        b.sha256,
    ]
    assert store.latest("v6.1", "summary.json") == b
    assert store.read(a) == b"A"


def test_content_that_changes_back_becomes_current_again(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    a, _ = store.put("v6.1", "summary.json", fetched(b"A", 1))
    store.put("v6.1", "summary.json", fetched(b"B", 2))
    back, is_new = store.put("v6.1", "summary.json", fetched(b"A", 3))
    assert is_new and back.sha256 == a.sha256
    assert store.latest("v6.1", "summary.json").sha256 == a.sha256
    assert len(store.versions("v6.1", "summary.json")) == 2
    assert [h["seen_at"][:10] for h in store.history("v6.1", "summary.json")] == [
        "2026-11-01",
        "2026-11-02",
        "2026-11-03",
    ]


def test_a_corrupted_blob_is_detected(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    snap, _ = store.put("v6.1", "summary.json", fetched(b"A", 1))
    (tmp_path / snap.blob).write_bytes(b"tampered")
    with pytest.raises(ValueError, match="is corrupt: its sha256 no longer matches"):
        store.read(snap)


def test_a_snapshot_stored_in_the_second_the_command_started_is_this_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # seen_at keeps whole seconds; the command's start has a fraction. Compared
    # as is, a release fetched in that same second was reported "unchanged" after
    # a failed range run (test_one_run.py saw it about one run in a few).
    from pipeline import runner
    from pipeline.manifest import release_for

    monkeypatch.setenv("MLPERF_DATA_DIR", str(tmp_path))
    second = dt.datetime(2026, 11, 1, 12, 0, 5, tzinfo=dt.UTC)
    SnapshotStore(tmp_path).put(
        "v6.1",
        release_for("v6.1").summary_path,
        Fetched(url="https://example.test/s.json", content=b"A", fetched_at=second),
    )
    assert runner._stored_since("v6.1", second.timestamp() + 0.9) is True
    assert runner._stored_since("v6.1", second.timestamp() + 1.0) is False


def test_a_raw_tree_blob_that_fails_mid_write_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk half way through a pack: nothing stored, no scratch file left."""
    from pipeline.snapshots import StoreError

    real_write = os.write

    def full_disk(descriptor: int, data: bytes) -> int:
        real_write(descriptor, bytes(data[:3]))
        raise OSError(28, "No space left on device")

    store = SnapshotStore(tmp_path)
    monkeypatch.setattr("pipeline.blobs.os.write", full_disk)
    with pytest.raises(StoreError) as info:
        store.blobs.put(b"mlperf_log_summary")
    assert str(info.value) == (
        f"cannot write snapshot under {tmp_path}: the disk is full (No space left on "
        "device)"
    )
    assert not store.blobs.has(sha256_hex(b"mlperf_log_summary"))
    assert [p.name for p in (tmp_path / "raw" / "blobs").rglob("*")] == ["packs"]
    monkeypatch.undo()
    assert store.blobs.put(b"mlperf_log_summary") == sha256_hex(b"mlperf_log_summary")
    assert SnapshotStore(tmp_path).blobs.get(sha256_hex(b"mlperf_log_summary")) == (
        b"mlperf_log_summary"
    )


def test_a_pack_whose_index_cannot_be_written_is_removed_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills after the pack, at its index: no pack is left without one."""
    from pipeline.snapshots import StoreError

    real_write, calls = os.write, []

    def full_at_the_index(descriptor: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 2:  # the pack went through whole; this is its index
            raise OSError(28, "No space left on device")
        return real_write(descriptor, data)

    store = SnapshotStore(tmp_path)
    monkeypatch.setattr("pipeline.blobs.os.write", full_at_the_index)
    with pytest.raises(StoreError, match="No space left on device"):
        store.blobs.put(b"mlperf_log_summary")
    assert list((tmp_path / "raw" / "blobs" / "packs").iterdir()) == []
    assert not SnapshotStore(tmp_path).blobs.has(sha256_hex(b"mlperf_log_summary"))


def test_a_rounds_files_are_one_pack_read_back_by_hash_from_a_new_process(
    tmp_path: Path,
) -> None:
    """Thousands of small files a round: one pack and its index, not a file each."""
    files = [f"mlperf_log_summary {n}".encode() for n in range(500)]
    store = SnapshotStore(tmp_path)
    with store.blobs.pack():
        hashes = [store.blobs.put(content) for content in files + files[:10]]
        # Readable before the pack is written: the scan reads what it just put.
        assert store.blobs.get(hashes[7]) == files[7]
    packs = sorted(p.name for p in (tmp_path / "raw" / "blobs" / "packs").iterdir())
    assert [Path(p).suffix for p in packs] == [".idx", ".pack"]
    fresh = SnapshotStore(tmp_path).blobs
    assert [fresh.get(h) for h in hashes[:500]] == files
    assert fresh.has(sha256_hex(b"mlperf_log_summary 499"))
    assert not fresh.has(sha256_hex(b"never stored"))


def test_a_pack_whose_bytes_changed_is_refused_not_served(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    digest = store.blobs.put(b"mlperf_log_summary")
    (pack,) = (tmp_path / "raw" / "blobs" / "packs").glob("*.pack")
    pack.write_bytes(b"MLPERF_LOG_SUMMARY")
    with pytest.raises(ValueError) as info:
        SnapshotStore(tmp_path).blobs.get(digest)
    assert str(info.value) == (
        f"blob {digest} is corrupt: its sha256 no longer matches"
    )


def test_a_store_of_loose_blobs_from_before_packs_is_still_read(tmp_path: Path) -> None:
    digest = sha256_hex(b"mlperf_log_summary")
    loose = tmp_path / "raw" / "blobs" / digest[:2] / digest
    loose.parent.mkdir(parents=True)
    loose.write_bytes(b"mlperf_log_summary")
    store = SnapshotStore(tmp_path)
    assert store.blobs.has(digest)
    assert store.blobs.get(digest) == b"mlperf_log_summary"
