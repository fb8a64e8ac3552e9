"""Faults around a run, through the CLI and Dagster (issue 13, rows 12, 13, 15).

A run killed with ``kill -9`` is marked failed at the next start; a round discovery
found but nobody reviewed stays out of the combined table; an unwritable folder is
named in the message, not a temp file.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from pipeline import runner
from pipeline.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data dir and Dagster home of this test's own; the CLI's exports are undone."""
    folder = tmp_path / "data"
    monkeypatch.setenv("MLPERF_DATA_DIR", str(folder))
    monkeypatch.setenv("DAGSTER_HOME", str(folder / "dagster_home"))
    monkeypatch.setenv("MLPERF_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setenv("MLPERF_SOURCE", str(tmp_path))
    return folder


def _accept_while_alive(listener: socket.socket, proc: subprocess.Popen) -> None:
    """Wait for the CLI's first request; fail (not hang) if the CLI exits instead."""
    listener.settimeout(1.0)
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            assert proc.poll() is None, "the CLI ended before it fetched anything"
            continue
        conn.recv(4096)  # the request line: the run is executing its first step
        conn.close()
        return


def test_a_killed_run_is_marked_failed_at_the_next_start(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = os.environ | {
        "MLPERF_DATA_DIR": str(data),
        "DAGSTER_HOME": str(data / "dagster_home"),
        "MLPERF_SOURCE": url,
        "MLPERF_HTTP_TIMEOUT_S": "600",  # the request never gets an answer
    }
    log = (tmp_path / "cli.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline.cli", "ingest", "--release", "v6.1"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        _accept_while_alive(listener, proc)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        listener.close()
        log.close()
    assert proc.returncode == -signal.SIGKILL
    instance = runner.get_instance()
    [run] = instance.get_runs()
    assert run.status == dg.DagsterRunStatus.STARTED  # what kill -9 leaves behind

    assert main(["status"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "marked 1 unfinished run(s) failed, their process ended without finishing: "
        f"{run.run_id[:8]} (v6.1)"
    )
    [v61] = [line for line in out if line.startswith("v6.1 ")]
    assert v61.endswith(
        "failure: marked failed: its process ended without finishing "
        "(found at the next start)"
    )
    run = instance.get_run_by_id(run.run_id)
    assert run.status == dg.DagsterRunStatus.FAILURE
    # Settled once: the next start has nothing left to mark.
    assert main(["status"]) == 0
    assert not capsys.readouterr().out.startswith("marked")


def test_a_phantom_partition_from_an_older_version_is_removed(
    data: Path, capsys: pytest.CaptureFixture
) -> None:
    instance = runner.get_instance()
    instance.add_dynamic_partitions("release", ["v6.0\n", "v6.0"])
    assert main(["status"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "removed release partition(s) 'v6.0\\n': not a version like v6.1"
    assert instance.get_dynamic_partitions("release") == ["v6.0"]


def test_an_unreviewed_round_stays_out_of_the_combined_table(
    data: Path, mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    source = tmp_path / "upstream"
    for release, name, into in [
        ("v6.0", "summary_results.json", "v6.0"),
        ("v6.1", "summary.json", "v9.9"),  # a round discovery would find upstream
    ]:
        folder = source / f"inference_results_{into}"
        folder.mkdir(parents=True)
        shutil.copy(mirror / f"inference_results_{release}" / name, folder / name)
    argv = ["ingest", "--release", "v6.0", "--release", "v9.9"]
    assert main([*argv, "--source", str(source)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [
        "v9.9 is not reviewed in releases.toml: kept out of the combined table and "
        "site until reviewed",
        "combined table: 520 rows; analytics, claims and corrections built",
    ]
    assets = data / "assets"
    # Its own tables are built, so a reviewer can look at them ...
    assert (
        pl.read_parquet(assets / "core_mlperf__results" / "v9.9.parquet").height == 492
    )
    # ... but nothing cross-release reads them.
    for table in ("core_mlperf__all_results", "out_mlperf__results"):
        combined = pl.read_parquet(assets / table / "_.parquet")
        assert combined["release"].unique().to_list() == ["v6.0"], table
        assert combined.height == 520
    meta = runner.latest_metadata(runner.get_instance(), "core_mlperf__all_results")
    assert meta["unreviewed_left_out"] == ["v9.9"]


def test_only_an_unreviewed_round_leaves_the_published_tables_alone(
    data: Path, mirror: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    folder = tmp_path / "upstream" / "inference_results_v9.9"
    folder.mkdir(parents=True)
    shutil.copy(mirror / "inference_results_v6.1" / "summary.json", folder)
    argv = ["ingest", "--release", "v9.9", "--source", str(tmp_path / "upstream")]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-2:] == [
        "v9.9 is not reviewed in releases.toml: kept out of the combined table and "
        "site until reviewed",
        "only unreviewed releases updated: cross-release tables and site left "
        "unchanged",
    ]
    assert not (data / "assets" / "core_mlperf__all_results").exists()


def test_an_unwritable_assets_folder_names_the_file_not_a_temp_file(
    data: Path, mirror: Path, tmp_path: Path
) -> None:
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: permissions are not enforced")
    # Root without CAP_DAC_OVERRIDE obeys the permission bits like anyone else.
    prefix = (
        ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
        if os.geteuid() == 0
        else []
    )
    source = tmp_path / "upstream" / "inference_results_v6.1"
    source.mkdir(parents=True)
    shutil.copy(mirror / "inference_results_v6.1" / "summary.json", source)
    locked = data / "assets" / "raw_mlperf__summary"
    locked.mkdir(parents=True)
    locked.chmod(0o555)
    env = os.environ | {"DAGSTER_HOME": str(data / "dagster_home")}
    command = [sys.executable, "-m", "pipeline.cli", "ingest", "--release", "v6.1"]
    try:
        done = subprocess.run(
            [*prefix, *command, "--data-dir", str(data),
             "--source", str(tmp_path / "upstream")],
            cwd=ROOT, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
    finally:
        locked.chmod(0o755)
    assert done.returncode == 1
    assert done.stdout.splitlines()[2:] == [
        f"[1/1] v6.1: FAILED: cannot write {locked}/v6.1.json: Permission denied",
        "no release updated: cross-release tables and site left unchanged",
    ]
    assert done.stderr == "1 run(s) failed: v6.1\n"
