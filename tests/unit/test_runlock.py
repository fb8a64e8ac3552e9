"""One run per data directory (issue 13, row 11): a second run is refused at once,
naming the holder; a lock left by a killed process blocks nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.runlock import LOCK_NAME, hold

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
#: Holds the folder's lock, says who it is, and waits until stdin closes.
HOLDER = """
import sys
from pathlib import Path
from pipeline.runlock import hold
with hold(Path(sys.argv[1])) as me:
    print(me.pid, me.started, flush=True)
    sys.stdin.read()
"""


class Holder:
    """Another process holding ``folder``; ``pid`` and ``started`` as it reported."""

    def __init__(self, folder: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(folder)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()  # returns once the lock is held
        assert line, "the holder process did not get the lock"
        pid, self.started = line.split()
        self.pid = int(pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data dir, mirror and build dir of its own; the CLI's exports are undone."""
    data = tmp_path / "data"
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv("MLPERF_DATA_DIR", str(data))
    monkeypatch.setenv("MLPERF_SOURCE", str(tmp_path / "mirror"))
    monkeypatch.setenv("MLPERF_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setenv("DAGSTER_HOME", str(data / "dagster_home"))
    yield data


@pytest.mark.parametrize(
    "command",
    [["ingest", "--release", "v6.1"], ["site"], ["update"]],
)
def test_a_second_run_is_refused_at_once_naming_the_holder(
    env: Path, capsys: pytest.CaptureFixture, command: list[str]
) -> None:
    holder = Holder(env)
    try:
        assert main([*command, "--data-dir", str(env)]) == 3
    finally:
        holder.stop()
    assert holder.pid != os.getpid()
    captured = capsys.readouterr()
    assert captured.err == (
        f"error: another mlperf-ledger run (pid {holder.pid}, started "
        f"{holder.started}) is using {env.resolve()}; wait for it or stop it\n"
    )
    assert captured.out == ""  # refused before anything started
    assert not (env / "dagster_home").exists()


def test_site_runs_on_two_data_dirs_share_one_build_dir_so_one_waits(
    env: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    build = tmp_path / "build"
    holder = Holder(build)
    try:
        assert main(["site", "--data-dir", str(tmp_path / "other")]) == 3
    finally:
        holder.stop()
    assert capsys.readouterr().err == (
        f"error: another mlperf-ledger run (pid {holder.pid}, started "
        f"{holder.started}) is using {build.resolve()}; wait for it or stop it\n"
    )


def test_a_lock_left_by_a_killed_process_does_not_block(
    env: Path, capsys: pytest.CaptureFixture
) -> None:
    holder = Holder(env)
    holder.stop()  # kill -9: no chance to clean up
    record = json.loads((env / LOCK_NAME).read_text())
    assert record == {"pid": holder.pid, "started": holder.started}  # stale record
    assert main(["status", "--data-dir", str(env)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.startswith("release")  # the status table, not a refusal
    with hold(env) as me:  # taken over, and it excludes others again
        assert json.loads((env / LOCK_NAME).read_text())["pid"] == os.getpid()
        assert main(["update", "--data-dir", str(env)]) == 3
    assert capsys.readouterr().err == (
        f"error: another mlperf-ledger run (pid {os.getpid()}, started {me.started}) "
        f"is using {env.resolve()}; wait for it or stop it\n"
    )
