"""Discovery compares the source with the store, not with its own last look (issue 33).

Every run that reads a file records what the source served (``served.json``);
``verify_known`` probes with those validators and lets the content's hash decide
wherever they differ, and its thorough form (the daily check, ``watch`` once a day)
compares content whatever the validators say.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest

from pipeline.discovery import CHANGED, LOST, RETURNED, Discovery, verify_known
from pipeline.fetch import fetch_raw_tree, fetch_release
from pipeline.manifest import release_for
from pipeline.snapshots import SnapshotStore
from pipeline.source import Source
from tests.conftest import MIRROR, MIRROR_ALT
from tests.httpserver import FaultyServer
from tests.unit.test_raw_tree import TREE
from tests.unit.test_tree_reuse import LAST, RELEASE, REPO

V61 = release_for("v6.1")
OLD = (MIRROR / "inference_results_v6.1" / "summary.json").read_bytes()
NEW = (MIRROR_ALT / "inference_results_v6.1" / "summary.json").read_bytes()


def verify(source: Source, store: SnapshotStore, release=V61, thorough=False) -> dict:
    """What ``verify_known`` finds for one round: {version: reason}."""
    found = Discovery()
    verify_known(source, [release], store, found, thorough=thorough)
    return found.reasons


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    folder = tmp_path / "mirror" / "inference_results_v6.1"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_bytes(OLD)
    return folder / "summary.json"


def test_a_run_records_what_the_source_served(mirror: Path, tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path / "data")
    source = Source(str(mirror.parent.parent))
    fetch_release(V61, source, store)
    stat = mirror.stat()
    assert store.served("v6.1", "summary.json") == {
        "etag": f"{stat.st_mtime_ns}-{stat.st_size}",
        "last_modified": store.latest("v6.1", "summary.json").last_modified,
        "sha256": store.latest("v6.1", "summary.json").sha256,
    }
    assert verify(source, store) == {}  # no cursor: the store is the baseline


def test_a_correction_after_any_run_is_changed_upstream(
    mirror: Path, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    source = Source(str(mirror.parent.parent))
    fetch_release(V61, source, store)
    mirror.write_bytes(NEW)
    assert verify(source, store) == {"v6.1": CHANGED}
    assert verify(source, store) == {"v6.1": CHANGED}  # until a run reads it
    fetch_release(V61, source, store)
    assert verify(source, store) == {}


def test_a_touched_file_is_judged_by_its_hash_and_then_probed_again(
    mirror: Path, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    source = Source(str(mirror.parent.parent))
    fetch_release(V61, source, store)
    os.utime(mirror, ns=(1_900_000_000_000_000_000,) * 2)
    source.request_log.clear()
    assert verify(source, store) == {}
    assert len(source.request_log) == 2  # the stat, then one read to hash it
    assert store.served("v6.1", "summary.json")["etag"].startswith("19000000")
    source.request_log.clear()
    assert verify(source, store) == {}
    assert len(source.request_log) == 1  # the new validators are the baseline


def test_only_the_thorough_check_sees_a_change_that_kept_size_and_time(
    mirror: Path, tmp_path: Path
) -> None:
    """A sync that keeps the time stamp and a same-size edit: validators lie."""
    store = SnapshotStore(tmp_path / "data")
    source = Source(str(mirror.parent.parent))
    fetch_release(V61, source, store)
    stat = mirror.stat()
    edited = OLD.replace(b"Vera Rubin", b"Vera Rub1n", 1)
    assert len(edited) == len(OLD) and edited != OLD
    mirror.write_bytes(edited)
    os.utime(mirror, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert verify(source, store) == {}
    assert verify(source, store, thorough=True) == {"v6.1": CHANGED}


def test_a_lost_file_is_named_then_quiet_and_its_return_is_seen(
    mirror: Path, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    source = Source(str(mirror.parent.parent))
    fetch_release(V61, source, store)
    mirror.unlink()
    assert verify(source, store) == {"v6.1": LOST}
    outcome = fetch_release(V61, source, store)
    assert outcome.status == "not in source"
    assert store.served("v6.1", "summary.json") == {"absent": True}
    assert verify(source, store) == {}
    mirror.write_bytes(OLD)
    assert verify(source, store) == {"v6.1": RETURNED}


def test_a_summary_turned_into_a_link_out_of_the_mirror_is_lost(
    mirror: Path, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    source = Source(str(mirror.parent.parent))
    fetch_release(V61, source, store)
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes(NEW)
    mirror.unlink()
    mirror.symlink_to(outside)
    assert verify(source, store) == {"v6.1": LOST}


def test_over_http_the_probe_is_conditional_on_the_stored_etag(
    mirror: Path, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    with FaultyServer(mirror.parent.parent) as server:
        source = Source(server.url, retries=0)
        fetch_release(V61, source, store)
        server.requests.clear()
        assert verify(source, store) == {}
        assert server.requests == [("HEAD", "/inference_results_v6.1/summary.json")]
        mirror.write_bytes(NEW)
        assert verify(source, store) == {"v6.1": CHANGED}
        assert server.gets("summary.json") == 1  # its hash decided


# -- raw trees -----------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "mirror" / REPO
    for path, content in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content)
    return root


def test_a_tree_edit_on_a_folder_is_changed_and_a_touch_is_not(
    tree: Path, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    source = Source(str(tree.parent))
    fetch_raw_tree(RELEASE, source, store)
    served = store.served("v9.9", "tree.json")
    assert set(served) == {"stamps", "sha256"}
    source.request_log.clear()
    assert verify(source, store, RELEASE) == {}
    assert source.request_log == []  # a stat per file read: no walk, no read
    os.utime(tree / LAST, ns=(1_900_000_000_000_000_000,) * 2)
    assert verify(source, store, RELEASE) == {}  # same bytes: read and hashed
    assert store.served("v9.9", "tree.json")["stamps"] != served["stamps"]
    (tree / LAST).write_bytes((tree / LAST).read_bytes() + b"\n")
    assert verify(source, store, RELEASE) == {"v9.9": CHANGED}


def test_a_tree_file_added_is_seen_by_the_thorough_check_and_a_lost_tree_hourly(
    tree: Path, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    source = Source(str(tree.parent))
    fetch_raw_tree(RELEASE, source, store)
    extra = tree / "closed" / "Acme" / "systems" / "new.json"
    extra.write_text("{}")
    assert verify(source, store, RELEASE) == {}  # the hourly stat: files read only
    assert verify(source, store, RELEASE, thorough=True) == {"v9.9": CHANGED}
    extra.unlink()
    assert verify(source, store, RELEASE, thorough=True) == {}
    for division in ("closed", "open", "network"):
        if (tree / division).is_dir():
            (tree / division).rename(tmp_path / division)
    assert verify(source, store, RELEASE) == {"v9.9": LOST}


def test_over_http_a_tree_is_verified_by_blob_ids_and_its_listing_etag(
    tree: Path, tmp_path: Path
) -> None:
    """GitHub's trees API answers 304 to the stored ETag: nothing downloaded."""
    store = SnapshotStore(tmp_path / "data")
    with FaultyServer(tree.parent) as server:
        listing = httpx.get(
            f"{server.url}/repos/mlcommons/{REPO}/git/trees/HEAD?recursive=1"
        ).content

    def github(request: httpx.Request) -> httpx.Response:
        if request.url.path.startswith("/repos/"):
            if request.headers.get("if-none-match") == '"t1"':
                return httpx.Response(304)
            return httpx.Response(200, content=listing, headers={"ETag": '"t1"'})
        path = request.url.path.removeprefix(f"/{REPO}/")
        return httpx.Response(200, content=(tree / path).read_bytes())

    source = Source(
        "http://mirror.test", transport=httpx.MockTransport(github), retries=0
    )
    fetch_raw_tree(RELEASE, source, store)
    assert store.served("v9.9", "tree.json")["listing_etag"] == '"t1"'
    source.request_log.clear()
    assert verify(source, store, RELEASE) == {}
    assert source.request_log == [
        f"http://mirror.test/repos/mlcommons/{REPO}/git/trees/HEAD?recursive=1"
    ]
    # Thorough: the listing again, unconditionally; blob ids against the store.
    source.request_log.clear()
    assert verify(source, store, RELEASE, thorough=True) == {}
    assert len(source.request_log) == 1
    document = json.loads(listing)
    for entry in document["tree"]:
        if entry["path"] == LAST:
            entry["sha"] = "0" * 40
    listing = json.dumps(document).encode()
    assert verify(source, store, RELEASE, thorough=True) == {"v9.9": CHANGED}


# -- the daily check -----------------------------------------------------------------


def test_the_daily_check_is_on_and_requests_only_a_round_whose_content_changed(
    mirror: Path, tmp_path: Path
) -> None:
    import dagster as dg

    from pipeline.defs.automation import daily_full_check
    from pipeline.defs.resources import DataDirResource, SourceResource

    assert daily_full_check.default_status == dg.DefaultScheduleStatus.RUNNING
    store = SnapshotStore(tmp_path / "data")
    base = str(mirror.parent.parent)
    fetch_release(V61, Source(base), store)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("release", ["v6.1"])
        resources = {
            "source": SourceResource(base=base),
            "data_dir": DataDirResource(path=str(tmp_path / "data")),
        }
        # Entered, so the instance the context opens is closed with it (left open,
        # Dagster's current defs-state storage pointed at it after the test).
        with dg.build_schedule_context(instance=instance, resources=resources) as c:
            assert daily_full_check(c) == []
            # Same size, same time stamp: only content tells it changed.
            stat = mirror.stat()
            mirror.write_bytes(OLD.replace(b"Vera Rubin", b"Vera Rub1n", 1))
            os.utime(mirror, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            (request,) = daily_full_check(c)
    assert request.partition_key == "v6.1"
    assert request.tags == {"mlperf-ledger/reason": "daily check: changed upstream"}


def test_the_daily_check_adds_and_runs_a_round_that_was_not_in_source(
    mirror: Path, tmp_path: Path
) -> None:
    """A round recorded as absent has no partition; the daily check still finds it."""
    import dagster as dg

    from pipeline.defs.automation import daily_full_check
    from pipeline.defs.resources import DataDirResource, SourceResource
    from pipeline.served import not_in_source, record_not_in_source

    data = tmp_path / "data"
    base = str(mirror.parent.parent)
    later = tmp_path / "later.json"
    mirror.rename(later)
    mirror.parent.rmdir()  # the source has no v6.1 folder yet
    record_not_in_source(SnapshotStore(data), data, [V61], pins_commits=False)
    with dg.instance_for_test() as instance:
        resources = {
            "source": SourceResource(base=base),
            "data_dir": DataDirResource(path=str(data)),
        }
        with dg.build_schedule_context(instance=instance, resources=resources) as c:
            assert daily_full_check(c) == []
            assert instance.get_dynamic_partitions("release") == []
            mirror.parent.mkdir()
            later.rename(mirror)  # upstream publishes it
            (request,) = daily_full_check(c)
            assert instance.get_dynamic_partitions("release") == ["v6.1"]
    assert request.partition_key == "v6.1"
    assert not_in_source(data) == {}


def test_over_http_a_listing_without_etag_waits_for_the_thorough_check(
    tree: Path, tmp_path: Path
) -> None:
    """A quiet tick downloads nothing: an unconditional listing is a download."""
    store = SnapshotStore(tmp_path / "data")
    with FaultyServer(tree.parent) as server:  # its trees API sends no ETag
        source = Source(server.url, retries=0, tree_api=server.url)
        fetch_raw_tree(RELEASE, source, store)
        (tree / LAST).write_bytes(b"edited upstream\n")
        server.requests.clear()
        assert verify(source, store, RELEASE) == {}
        assert server.requests == []
        assert verify(source, store, RELEASE, thorough=True) == {"v9.9": CHANGED}
        assert [m for m, p in server.requests if not p.startswith("/repos/")] == []


def test_a_round_folder_with_a_longer_number_is_probed_like_any_new_round(
    mirror: Path, tmp_path: Path
) -> None:
    # v6.10 is no guessed successor of v6.1 (v6.2, v7.0): the mirror's listing
    # finds it (issue 56 F: a round renamed v6.1 -> v6.10 was never probed).
    from pipeline.discovery import discover

    store = SnapshotStore(tmp_path / "data")
    source = Source(str(mirror.parent.parent))
    fetch_release(V61, source, store)
    assert discover(source, [V61], {}, store).new_releases == []
    beside = mirror.parent.parent / "inference_results_v6.10"
    beside.mkdir()
    (beside / "summary.json").write_bytes(NEW)
    (mirror.parent.parent / "inference_results_v6.3").mkdir()  # no summary: not new
    (mirror.parent.parent / "notes").mkdir()  # not a round
    found = discover(source, [V61], {}, store)
    assert found.new_releases == ["v6.10"]
    assert found.changed_releases == []
