"""Issue 56 C: ``watch`` stops within a second of SIGINT or SIGTERM after a run.

A run may install its own signal handlers (Dagster does while it executes); the
watch puts its own back after every tick. Bounded: every wait has a deadline and
the process is killed if it outlives the test.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def world(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    source = tmp_path_factory.mktemp("mirror")
    (source / "inference_results_v6.1").mkdir()
    shutil.copy(
        mirror / "inference_results_v6.1" / "summary.json",
        source / "inference_results_v6.1" / "summary.json",
    )
    work = tmp_path_factory.mktemp("watch")
    env = os.environ | {
        "MLPERF_SOURCE": str(source),
        "MLPERF_DATA_DIR": str(work / "data"),
        "DAGSTER_HOME": str(work / "data" / "dagster_home"),
        "MLPERF_BUILD_DIR": str(work / "build"),
    }
    return {"env": env, "work": work}


@pytest.mark.parametrize(
    ("signum", "code", "said"),
    [
        (signal.SIGTERM, 143, "stopped (SIGTERM)"),
        (signal.SIGINT, 130, "stopped (Ctrl-C)"),
    ],
    ids=["SIGTERM", "SIGINT"],
)
def test_watch_stops_within_a_second_of_a_signal_after_a_tick(
    world: dict, signum: int, code: int, said: str
) -> None:
    log = world["work"] / f"watch-{signum}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pipeline.cli", "watch", "--interval", "3600"],
            cwd=ROOT, env=world["env"], stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 300
        while "tick done; next in 3600 s" not in log.read_text():
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the first tick did not end"
            time.sleep(0.2)
        sent = time.monotonic()
        proc.send_signal(signum)
        returncode = proc.wait(timeout=5)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert returncode == code
    assert took < 1.0
    assert log.read_text().splitlines()[-1] == said
