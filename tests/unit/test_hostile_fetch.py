"""Issue 13, the fetch side: a hostile mirror or server never leaks, hangs or drops.

Rows 2 (symlink out of a mirror), 3 (redirect to another host), 8 (slow drip),
9 (one raw-tree file fails) and the snapshot half of 15 (unwritable data dir).
"""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import dagster as dg
import pytest

from pipeline.defs.raw_tree import raw_mlperf__tree
from pipeline.defs.resources import DataDirResource, LedgerIOManager, SourceResource
from pipeline.extract.raw_tree import scan_raw_tree
from pipeline.fetch import fetch_raw_tree, stored_tree
from pipeline.manifest import release_for
from pipeline.served import TREE_FILE
from pipeline.snapshots import SnapshotStore, StoreError
from pipeline.source import (
    Fetched,
    NotPublished,
    OutsideSource,
    Source,
    SourceError,
)
from tests.httpserver import FaultyServer

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

SECRET = "TOP-SECRET-TOKEN-42 do not publish"
RELEASE = release_for("v3.1")  # a raw-tree-only round
REPO = RELEASE.repo_name
LOG = (
    "closed/Acme/results/box/resnet50/Offline/performance/run_1/mlperf_log_summary.txt"
)
SYSTEM = "closed/Acme/systems/box.json"
GOOD_LOG = (
    "MLPerf Results Summary\n"
    "SUT name : PySUT\n"
    "Scenario : Offline\n"
    "Mode     : PerformanceOnly\n"
    "Samples per second: 2961.06\n"
    "Result is : VALID\n"
)
GOOD_SYSTEM = (
    '{"division": "closed", "submitter": "Acme", "system_name": "Acme Box", '
    '"status": "available", "system_type": "datacenter", "number_of_nodes": 1, '
    '"accelerators_per_node": "1", "accelerator_model_name": "Acme X1", '
    '"host_processor_model_name": "Acme CPU", "framework": "AcmeRT 1.0"}'
)


def write_tree(mirror: Path) -> Path:
    """A one-result raw tree of v3.1 under ``mirror``; returns the repository folder."""
    repo = mirror / REPO
    for path, text in ((SYSTEM, GOOD_SYSTEM), (LOG, GOOD_LOG)):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    return repo


def every_stored_byte(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


# -- row 2: a local source never reads outside its root ------------------------------


@pytest.fixture
def hostile_mirror(tmp_path: Path) -> Path:
    """A mirror whose only log is a symlink to a secret file outside the mirror."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    mirror = tmp_path / "mirror"
    repo = write_tree(mirror)
    (repo / LOG).unlink()
    (repo / LOG).symlink_to(outside / "secret.txt")
    return mirror


def test_symlink_out_of_the_mirror_is_refused_by_name(hostile_mirror: Path) -> None:
    with pytest.raises(OutsideSource) as info:
        Source(base=str(hostile_mirror)).fetch(REPO, LOG)
    assert str(info.value) == (
        f"{REPO}/{LOG}: resolves outside the source root "
        "(symlink to a file outside the mirror); not read"
    )


def test_dotdot_path_out_of_the_mirror_is_refused(hostile_mirror: Path) -> None:
    with pytest.raises(OutsideSource) as info:
        Source(base=str(hostile_mirror)).fetch(REPO, "../../outside/secret.txt")
    assert str(info.value) == (
        f"{REPO}/../../outside/secret.txt: resolves outside the source root "
        "(path leads outside the mirror); not read"
    )


def test_symlink_within_the_mirror_is_still_read(tmp_path: Path) -> None:
    repo = write_tree(tmp_path / "mirror")
    (repo / "closed/Acme/systems/alias.json").symlink_to(repo / SYSTEM)
    source = Source(base=str(tmp_path / "mirror"))
    assert "closed/Acme/systems/alias.json" in source.list_tree(REPO)
    fetched = source.fetch(REPO, "closed/Acme/systems/alias.json")
    assert fetched.content == GOOD_SYSTEM.encode()


def test_a_fifo_in_a_listed_folder_is_not_published_and_does_not_hang(
    tmp_path: Path,
) -> None:
    # Files of listed folders are opened before they are stat-ed; opening a FIFO
    # for reading would wait for a writer forever without O_NONBLOCK. A listing
    # leaves it out (not a file), a fetch by name gets a clear answer.
    repo = write_tree(tmp_path / "mirror")
    os.mkfifo(repo / "closed/Acme/systems/pipe.json")
    source = Source(base=str(tmp_path / "mirror"))
    assert source.list_tree(REPO)[-1] == "closed/Acme/systems/box.json"
    with pytest.raises(NotPublished) as info:
        source.fetch(REPO, "closed/Acme/systems/pipe.json")
    assert str(info.value).endswith(
        "closed/Acme/systems/pipe.json: not published (not a regular file in the "
        "mirror)"
    )


def test_a_folder_named_like_a_file_is_named_by_its_path(tmp_path: Path) -> None:
    # It opens read-only like a file; reading it said "IsADirectoryError: [Errno
    # 21] Is a directory: 21" (the descriptor), not which path (issue 56 F).
    (tmp_path / "mirror" / "inference_results_v6.1" / "summary.json").mkdir(
        parents=True
    )
    source = Source(base=str(tmp_path / "mirror"))
    with pytest.raises(NotPublished) as info:
        source.fetch("mlcommons/inference_results_v6.1", "summary.json")
    assert str(info.value) == (
        f"{tmp_path}/mirror/inference_results_v6.1/summary.json: not published (a "
        "folder in the mirror)"
    )


def test_symlinked_division_folder_is_not_listed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "A" / "systems").mkdir(parents=True)
    (outside / "A" / "systems" / "s.json").write_text(SECRET)
    mirror = tmp_path / "mirror"
    (mirror / REPO).mkdir(parents=True)
    (mirror / REPO / "closed").symlink_to(outside)
    with pytest.raises(OutsideSource) as info:
        Source(base=str(mirror)).list_tree(REPO)
    assert str(info.value) == (
        f"{REPO}/closed: resolves outside the source root "
        "(symlink to a folder outside the mirror); not listed"
    )


def test_escaping_log_is_rejected_with_the_reason_and_never_stored(
    hostile_mirror: Path, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    outcome = fetch_raw_tree(RELEASE, Source(base=str(hostile_mirror)), store)
    assert outcome.status == "ingested"
    paths, read = stored_tree(store, outcome.snapshot)
    assert paths == [LOG, SYSTEM]  # listed, so it is reported rather than lost
    results, rejected = scan_raw_tree(
        paths, read, release="v3.1", repository=RELEASE.repository
    )
    assert results.height == 0
    assert rejected["reason"].to_list() == [
        f"v3.1 {LOG}: unreadable ({REPO}/{LOG}: resolves outside the source root "
        "(symlink to a file outside the mirror); not read)"
    ]
    assert SECRET.encode() not in every_stored_byte(tmp_path / "data")
    assert SECRET not in rejected.write_csv()


# -- row 3: redirects ------------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path):
    write_tree(tmp_path / "site")
    (tmp_path / "site" / REPO / "summary.json").write_text('{"0": {"a": "ours"}}')
    with FaultyServer(tmp_path / "site") as server:
        yield server


def test_redirect_to_another_host_is_not_followed(
    served: FaultyServer, tmp_path: Path
) -> None:
    (tmp_path / "evil" / REPO).mkdir(parents=True)
    (tmp_path / "evil" / REPO / "summary.json").write_text(SECRET)
    with FaultyServer(tmp_path / "evil") as other:
        # Same address, other port: another origin all the same.
        target = f"{other.url}/{REPO}/summary.json"
        served.faults[f"/{REPO}/summary.json"] = [f"redirect:{target}"]
        source = Source(base=served.url, sleep=lambda s: None)
        with pytest.raises(SourceError) as info:
            source.fetch(REPO, "summary.json")
        assert other.requests == []
    assert str(info.value) == (
        f"{served.url}/{REPO}/summary.json: redirected (HTTP 302) to another host "
        f"{target}; not followed"
    )


def test_redirect_to_localhost_is_another_host(served: FaultyServer) -> None:
    target = served.url.replace("127.0.0.1", "localhost") + f"/{REPO}/summary.json"
    served.faults[f"/{REPO}/old.json"] = [f"redirect:{target}"]
    with pytest.raises(SourceError) as info:
        Source(base=served.url).fetch(REPO, "old.json")
    assert str(info.value) == (
        f"{served.url}/{REPO}/old.json: redirected (HTTP 302) to another host "
        f"{target}; not followed"
    )
    assert served.gets("summary.json") == 0


def test_same_host_redirect_is_followed_and_the_sidecar_names_the_url_read(
    served: FaultyServer, tmp_path: Path
) -> None:
    served.faults[f"/{REPO}/old.json"] = [f"redirect:/{REPO}/summary.json"]
    fetched = Source(base=served.url).fetch(REPO, "old.json")
    assert fetched.content == b'{"0": {"a": "ours"}}'
    assert fetched.url == f"{served.url}/{REPO}/summary.json"
    snapshot, _ = SnapshotStore(tmp_path / "data").put("v3.1", "old.json", fetched)
    assert snapshot.url == f"{served.url}/{REPO}/summary.json"


def test_endless_same_host_redirects_stop(served: FaultyServer) -> None:
    served.faults[f"/{REPO}/loop.json"] = [f"redirect:/{REPO}/loop.json"] * 10
    with pytest.raises(SourceError) as info:
        Source(base=served.url, retries=0).fetch(REPO, "loop.json")
    assert str(info.value) == (
        f"{served.url}/{REPO}/loop.json: more than 5 redirects; not followed"
    )


# -- row 8: an overall deadline per download -------------------------------------------


def test_slow_drip_stops_at_the_overall_deadline(served: FaultyServer) -> None:
    served.drip_s = 0.2  # each byte well inside the 30 s read timeout
    served.faults[f"/{REPO}/summary.json"] = ["drip"]
    source = Source(base=served.url, deadline_s=0.5, sleep=lambda s: None)
    with pytest.raises(SourceError) as info:
        source.fetch(REPO, "summary.json")
    assert str(info.value) == (
        f"{served.url}/{REPO}/summary.json: not finished within the overall deadline "
        "of 0.5 s; gave up"
    )
    # A deadline is not retried. On a loaded machine the client can give up before
    # the server's thread has even read the request line: wait for that first.
    waited = time.monotonic() + 5
    while served.gets("summary.json") == 0 and time.monotonic() < waited:
        time.sleep(0.05)
    assert served.gets("summary.json") == 1


def test_a_refused_connection_is_named_and_no_retry_waits_past_the_deadline() -> None:
    # Port 9 (discard) refuses at once: the retries back off 0.5 s, 1 s, 2 s, and
    # with a 2 s deadline the third retry could only start past it.
    naps: list[float] = []
    source = Source(base="http://127.0.0.1:9", deadline_s=2.0, sleep=naps.append)
    with pytest.raises(SourceError) as info:
        source.fetch(REPO, "summary.json")
    assert naps == [0.5, 1.0]
    assert str(info.value) == (
        f"http://127.0.0.1:9/{REPO}/summary.json: not finished within the overall "
        "deadline of 2 s; gave up (last attempt: connection failed (ConnectError: "
        "[Errno 111] Connection refused))"
    )


def test_deadline_is_configured_like_the_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert Source(base="x").deadline_s == 300.0
    monkeypatch.setenv("MLPERF_HTTP_DEADLINE_S", "7.5")
    assert SourceResource(base="http://127.0.0.1:1").get().deadline_s == 7.5


# -- row 9: a raw-tree file that fails fails the tree snapshot --------------------------


def test_a_tree_file_that_fails_keeps_the_last_tree_snapshot(
    served: FaultyServer, tmp_path: Path
) -> None:
    store = SnapshotStore(tmp_path / "data")
    source = Source(base=served.url, sleep=lambda s: None)
    good = fetch_raw_tree(RELEASE, source, store).snapshot
    (Path(served.root) / REPO / LOG).write_text(GOOD_LOG.replace("2961", "3000"))
    served.faults[f"/{REPO}/{LOG}"] = ["500"] * 4
    with pytest.raises(SourceError) as info:
        fetch_raw_tree(RELEASE, source, store)
    assert str(info.value) == (
        f"{served.url}/{REPO}/{LOG}: gave up after 4 attempts; last: HTTP 500; "
        "no new tree snapshot stored"
    )
    assert store.latest("v3.1", TREE_FILE) == good
    assert len(store.versions("v3.1", TREE_FILE)) == 1


def test_tree_asset_fails_with_the_file_and_keeps_its_last_output(
    served: FaultyServer, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    resources = {
        "source": SourceResource(base=served.url, retries=0),
        "data_dir": DataDirResource(path=str(data)),
        "io_manager": LedgerIOManager(path=str(data)),
    }
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("release", ["v3.1"])

    def run() -> dg.ExecuteInJobResult:
        return dg.materialize(
            [raw_mlperf__tree],
            partition_key="v3.1",
            resources=resources,
            instance=instance,
            raise_on_error=False,
        )

    assert run().success
    stored = data / "assets" / "raw_mlperf__tree" / "v3.1.json"
    before = stored.read_bytes()
    kept = SnapshotStore(data).latest("v3.1", TREE_FILE)
    # A changed log (a new blob id): a stored, unchanged file is never fetched again.
    (Path(served.root) / REPO / LOG).write_text(GOOD_LOG.replace("2961", "3000"))
    served.faults[f"/{REPO}/{LOG}"] = ["500"]
    result = run()
    assert not result.success
    failure = result.get_step_failure_events()[0].step_failure_data
    assert failure.user_failure_data.description == (
        f"v3.1 raw tree: {served.url}/{REPO}/{LOG}: gave up after 1 attempts; "
        f"last: HTTP 500; no new tree snapshot stored; tree snapshot "
        f"{kept.sha256[:12]} stays in use"
    )
    assert stored.read_bytes() == before
    assert SnapshotStore(data).latest("v3.1", TREE_FILE) == kept


# -- row 15: an unwritable data directory ---------------------------------------------


def _fetched() -> Fetched:
    return Fetched(
        url="https://example.test/summary.json",
        content=b"{}",
        fetched_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
    )


def test_data_dir_under_a_file_names_the_data_dir_and_cause(tmp_path: Path) -> None:
    (tmp_path / "plain-file").write_text("not a folder")
    root = tmp_path / "plain-file" / "data"
    with pytest.raises(StoreError) as info:
        SnapshotStore(root).put("v6.1", "summary.json", _fetched())
    assert str(info.value) == f"cannot write snapshot under {root}: Not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_data_dir_names_the_data_dir_and_cause(tmp_path: Path) -> None:
    root = tmp_path / "data"
    root.mkdir()
    root.chmod(0o500)
    try:
        with pytest.raises(StoreError) as info:
            SnapshotStore(root).blobs.put(b"log")
    finally:
        root.chmod(0o700)
    assert str(info.value) == f"cannot write snapshot under {root}: Permission denied"


def test_unwritable_store_fails_the_tree_fetch_rather_than_rejecting_rows(
    tmp_path: Path,
) -> None:
    """A blob that cannot be written is the data dir's fault, not an unreadable log."""
    write_tree(tmp_path / "mirror")
    (tmp_path / "plain-file").write_text("")
    store = SnapshotStore(tmp_path / "plain-file")
    with pytest.raises(StoreError) as info:
        fetch_raw_tree(RELEASE, Source(base=str(tmp_path / "mirror")), store)
    assert str(info.value) == (
        f"cannot write snapshot under {tmp_path / 'plain-file'}: Not a directory"
    )
