"""Ingestion through Dagster, over HTTP from 127.0.0.1, on the real mirror files."""

import json
import os
import shutil
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from pipeline import runner
from pipeline.snapshots import SnapshotStore
from pipeline.status import release_status
from tests.conftest import MIRROR_RELEASES
from tests.httpserver import FaultyServer

UPSTREAM_RECORDS = {"v4.1": 937, "v5.1": 1448, "v6.0": 520, "v6.1": 492}
V61 = "/inference_results_v6.1/summary.json"


@pytest.fixture(scope="module")
def work(mirror: Path, tmp_path_factory: pytest.TempPathFactory):
    """A writable copy of the mirror's summary files, served over HTTP."""
    root = tmp_path_factory.mktemp("mirror")
    for release in MIRROR_RELEASES:
        for name in ("summary.json", "summary_results.json"):
            src = mirror / f"inference_results_{release}" / name
            if src.exists():
                (root / src.parent.name).mkdir(exist_ok=True)
                shutil.copy(src, root / src.parent.name / name)
    # v6.0's raw-tree subset too, so the tree listing and file fetches go over HTTP.
    for division in ("closed", "open"):
        shutil.copytree(
            mirror / "inference_results_v6.0" / division,
            root / "inference_results_v6.0" / division,
        )
    with FaultyServer(root) as server:
        yield server


@pytest.fixture(scope="module")
def pipeline_env(work: FaultyServer, tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("data")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MLPERF_SOURCE", work.url)
        mp.setenv("MLPERF_DATA_DIR", str(data))
        mp.setenv("DAGSTER_HOME", str(data / "dagster_home"))
        mp.setenv("MLPERF_HTTP_TIMEOUT_S", "0.5")
        instance = runner.get_instance()
        lines: list[str] = []
        # Every summary round, plus one raw-tree-only round and one the source lacks;
        # the other pre-v4.1 rounds behave exactly like v3.1 and only cost time.
        versions = ["v3.1", "v4.1", "v5.0", "v5.1", "v6.0", "v6.1"]
        outcomes = runner.ingest(instance, versions, progress=lines.append)
        yield {"instance": instance, "data": data, "lines": lines, "outcomes": outcomes}


def results(data: Path, release: str) -> pl.DataFrame:
    return pl.read_parquet(
        data / "assets" / "core_mlperf__results" / f"{release}.parquet"
    )


def test_every_release_is_reported(pipeline_env: dict) -> None:
    assert all(o.success for o in pipeline_env["outcomes"])
    status = {r["release"]: r for r in release_status(pipeline_env["instance"])}
    assert status["v3.1"]["status"] == "raw tree only"
    assert status["v5.0"]["status"] == "not in source"
    for release, count in UPSTREAM_RECORDS.items():
        assert status[release]["status"] == "ingested"
        assert status[release]["rows"] == count  # no record rejected in these files
        assert status[release]["rejected"] == 0
        assert status[release]["checks"] == "7/7 passed"
    lines = pipeline_env["lines"]
    v60 = next(line for line in lines if line.startswith("[5/6] v6.0: "))
    assert v60.startswith("[5/6] v6.0: 520 rows, 0 rejected")
    # The raw tree's rejected folder (v6.0 open/Lattix's non-loadgen log) is counted.
    assert v60.endswith("; raw tree: 520 rows, 1 rejected")
    assert "not in source" in next(line for line in lines if "v5.0" in line)


def test_spot_value_and_provenance(pipeline_env: dict, work: FaultyServer) -> None:
    table = pl.read_parquet(
        pipeline_env["data"] / "assets" / "core_mlperf__all_results" / "_.parquet"
    )
    assert table.height == sum(UPSTREAM_RECORDS.values())
    row = table.filter(
        release="v5.1",
        platform="8xMI300X_2xEPYC_9575F",
        benchmark="llama2-70b-99",
        scenario="Offline",
    ).row(0, named=True)
    assert (row["result_value"], row["result_unit"]) == (27803.9, "Tokens/s")
    assert row["total_accelerators"] == 8
    store = SnapshotStore(pipeline_env["data"])
    snap = store.latest("v5.1", "summary_results.json")
    assert row["snapshot_sha256"] == snap.sha256
    assert snap.url == f"{work.url}/inference_results_v5.1/summary_results.json"
    sidecar = json.loads(
        (pipeline_env["data"] / snap.blob).with_suffix(".meta.json").read_text()
    )
    assert sidecar["bytes"] == (pipeline_env["data"] / snap.blob).stat().st_size


def test_raw_tree_over_http_cross_checks_the_summary(pipeline_env: dict) -> None:
    status = {r["release"]: r for r in release_status(pipeline_env["instance"])}
    assert status["v6.0"]["raw_tree"] == "520 rows"
    assert status["v5.1"]["raw_tree"] == "not in source"  # not copied to this mirror
    meta = runner.latest_metadata(pipeline_env["instance"], "core_mlperf__crosscheck")
    assert (meta["matched"], meta["agree"], meta["disagree"]) == (520, 520, 0)


def test_unchanged_release_adds_no_snapshot(pipeline_env: dict) -> None:
    store = SnapshotStore(pipeline_env["data"])
    before = store.versions("v6.1", "summary.json")
    outcome, *_ = runner.ingest(pipeline_env["instance"], ["v6.1"], progress=print)
    assert outcome.success
    assert store.versions("v6.1", "summary.json") == before
    meta = runner.latest_metadata(
        pipeline_env["instance"], "raw_mlperf__summary", "v6.1"
    )
    assert meta["is_new"] is False


def test_500_then_success_is_retried(pipeline_env: dict, work: FaultyServer) -> None:
    work.faults[V61] = ["500"]
    outcome, *_ = runner.ingest(pipeline_env["instance"], ["v6.1"], progress=print)
    assert outcome.success


def _assert_previous_kept(pipeline_env: dict, before: bytes) -> None:
    store = SnapshotStore(pipeline_env["data"])
    current = store.latest("v6.1", "summary.json")
    assert store.read(current) == before
    assert results(pipeline_env["data"], "v6.1").height == 492


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ("truncate", "truncated response"),
        ("hang", "timed out after 0.5 s"),
        ("html", "v6.1 summary.json: looks like an HTML page, not JSON"),
    ],
)
def test_faults_fail_clearly_and_keep_the_previous_snapshot(
    pipeline_env: dict, work: FaultyServer, fault: str, expected: str
) -> None:
    path = work.root / V61.lstrip("/")
    before = path.read_bytes()
    # A new modification time: the server's validators change, so the conditional
    # request gets a body (a 304 for the stored version would send none to break).
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    work.hang_s = 1.0
    work.faults[V61] = [fault] * 4
    outcome, *_ = runner.ingest(pipeline_env["instance"], ["v6.1"], progress=print)
    work.faults[V61] = []
    assert not outcome.success
    assert expected in outcome.message
    assert outcome.message.startswith(("v6.1 summary.json", f"{work.url}{V61}"))
    _assert_previous_kept(pipeline_env, before)
    status = {r["release"]: r for r in release_status(pipeline_env["instance"])}
    assert status["v6.1"]["last_run"].startswith("failure: ")
    assert status["v6.1"]["rows"] == 492


def test_truncated_file_is_quarantined_with_a_clear_message(
    pipeline_env: dict, work: FaultyServer
) -> None:
    path = work.root / V61.lstrip("/")
    good = path.read_bytes()
    path.write_bytes(good[:5000])
    try:
        outcome, *_ = runner.ingest(pipeline_env["instance"], ["v6.1"], progress=print)
    finally:
        path.write_bytes(good)
    assert not outcome.success
    assert outcome.message.startswith("v6.1 summary.json: invalid JSON at line ")
    assert "(file is 5000 bytes; truncated?)" in outcome.message
    assert "stays in use" in outcome.message
    assert list((pipeline_env["data"] / "quarantine" / "v6.1").glob("*.json"))
    _assert_previous_kept(pipeline_env, good)


def test_sharp_row_drop_blocks_publication(
    pipeline_env: dict, work: FaultyServer
) -> None:
    path = work.root / V61.lstrip("/")
    good = path.read_bytes()
    records = json.loads(good)
    path.write_text(json.dumps({k: records[k] for k in list(records)[:100]}))
    try:
        outcome, *_ = runner.ingest(pipeline_env["instance"], ["v6.1"], progress=print)
    finally:
        path.write_bytes(good)
    assert not outcome.success
    assert "v6.1: rows fell from 492 to 100 (80%)" in outcome.message
    assert results(pipeline_env["data"], "v6.1").height == 492
    # The new bytes are a stored snapshot (it is what upstream served), but the
    # canonical table still holds the last good one.
    assert (
        len(SnapshotStore(pipeline_env["data"]).versions("v6.1", "summary.json")) == 2
    )


def test_bad_records_land_in_the_rejected_table(
    pipeline_env: dict, work: FaultyServer
) -> None:
    path = work.root / V61.lstrip("/")
    good = path.read_bytes()
    records = json.loads(good)
    records["0"]["Result"] = -1
    records["1"]["Units"] = "Furlongs/s"
    path.write_text(json.dumps(records))
    try:
        outcome, *_ = runner.ingest(pipeline_env["instance"], ["v6.1"], progress=print)
        assert outcome.success
        instance = pipeline_env["instance"]
        meta = runner.latest_metadata(instance, "core_mlperf__results", "v6.1")
        assert (meta["rows"], meta["rejected"]) == (490, 2)
        rejected = pl.read_parquet(
            pipeline_env["data"] / "assets" / "core_mlperf__rejected" / "v6.1.parquet"
        )
        assert rejected.select("source_record", "reason").rows() == [
            ("0", "Result must be positive, got -1"),
            ("1", "unknown Units 'Furlongs/s'"),
        ]
        [check] = instance.event_log_storage.get_asset_check_execution_history(
            dg.AssetCheckKey(
                dg.AssetKey("core_mlperf__rejected"), "no_rejected_records"
            ),
            limit=1,
        )
        evaluation = check.event.dagster_event.event_specific_data
        assert evaluation.passed is False
        assert evaluation.severity == dg.AssetCheckSeverity.WARN
    finally:
        path.write_bytes(good)
        runner.ingest(pipeline_env["instance"], ["v6.1"], progress=print)


def test_tree_listing_failure_does_not_block_the_summary(
    pipeline_env: dict, work: FaultyServer
) -> None:
    listing = "/repos/mlcommons/inference_results_v6.0/git/trees/HEAD?recursive=1"
    work.faults[listing] = ["500"] * 4
    outcome, *_ = runner.ingest(pipeline_env["instance"], ["v6.0"], progress=print)
    work.faults[listing] = []
    assert outcome.success
    instance = pipeline_env["instance"]
    tree = runner.latest_metadata(instance, "raw_mlperf__tree", "v6.0")
    assert tree["status"] == "source error"
    assert "HTTP 500" in tree["message"] and "keeping tree snapshot" in tree["message"]
    # The kept tree snapshot still yields its rows; the summary was ingested as usual.
    assert (
        runner.latest_metadata(instance, "core_mlperf__tree_results", "v6.0")["rows"]
        == 520
    )
    assert (
        runner.latest_metadata(instance, "core_mlperf__results", "v6.0")["rows"] == 520
    )
