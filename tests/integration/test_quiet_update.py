"""A quiet ``update`` needs no Dagster (issue 14: no-op update near the floor).

After one full tick has recorded the validators and the known releases, a tick that
finds nothing is decided by plain probes: no Dagster import, no instance, no run,
and on a folder source neither Polars nor httpx (it parses nothing, fetches nothing).
Anything it cannot vouch for goes through the full tick.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import runner
from pipeline.discovery import quiet_tick
from pipeline.source import Source
from pipeline.update import update
from tests.conftest import MIRROR_ALT

PROBE = (
    "import sys\n"
    "from pipeline.cli import main\n"
    "code = main(['update'])\n"
    "print('dagster imported:', 'dagster' in sys.modules)\n"
    "print('loaded:', [m for m in ('polars', 'httpx') if m in sys.modules])\n"
    "sys.exit(code)\n"
)


@pytest.fixture(scope="module")
def built(mirror: Path, tmp_path_factory: pytest.TempPathFactory):
    tmp_path = tmp_path_factory.mktemp("quiet")
    upstream = tmp_path / "upstream" / "inference_results_v6.1"
    upstream.mkdir(parents=True)
    shutil.copy(mirror / upstream.name / "summary.json", upstream)
    env = {
        "MLPERF_SOURCE": str(tmp_path / "upstream"),
        "MLPERF_DATA_DIR": str(tmp_path / "data"),
        "DAGSTER_HOME": str(tmp_path / "data" / "dagster_home"),
        "MLPERF_BUILD_DIR": str(tmp_path / "build"),
    }
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        instance = runner.get_instance()
        assert all(o.success for o in runner.ingest(instance, ["v6.1"], print))
        update(instance, print)  # records validators and known releases
    return env, tmp_path


def _update(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parents[2],
    )


def test_a_quiet_tick_answers_without_starting_dagster(built):
    env, _ = built
    done = _update(env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "nothing new or changed upstream: no run requested",
        "dagster imported: False",
        # Nor what it does not use on a folder source (~0.17 s of a 0.33 s tick).
        "loaded: []",
    ]


def test_without_recorded_state_the_full_tick_runs(tmp_path: Path):
    assert not quiet_tick(Source(str(tmp_path)), tmp_path / "data")


def test_an_unreachable_source_is_an_error_message_not_a_traceback(built):
    env, root = built
    # A data folder of its own: the module's is read from its mirror only
    # (pipeline.origin refuses another source there).
    other = root / "other-data"
    done = _update(
        env
        | {
            "MLPERF_DATA_DIR": str(other),
            "DAGSTER_HOME": str(other / "dagster_home"),
            "MLPERF_SOURCE": "http://127.0.0.1:9",
            "MLPERF_HTTP_TIMEOUT_S": "0.5",
            "MLPERF_HTTP_DEADLINE_S": "2",
        }
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(
        "error: the source could not be read: http://127.0.0.1:9/"
    )


def test_without_a_cursor_the_store_decides_and_dagster_stays_asleep(built):
    """What ``ingest`` leaves (no cursor) is what ``update`` compares with."""
    env, root = built
    (root / "data" / "discovery_cursor.json").unlink()
    done = _update(env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "nothing new or changed upstream: no run requested",
        "dagster imported: False",
        "loaded: []",
    ]


def test_a_changed_file_is_not_quiet_and_a_touched_one_is(built):
    # Last: it changes the module's mirror.
    env, root = built
    summary = root / "upstream" / "inference_results_v6.1" / "summary.json"
    os.utime(summary, (1_900_000_000, 1_900_000_000))  # a new Last-Modified
    # The same bytes: the content's hash decides, and no run is needed.
    assert quiet_tick(Source(env["MLPERF_SOURCE"]), root / "data")
    summary.chmod(0o644)  # copied from the read-only mirror
    summary.write_bytes(
        (MIRROR_ALT / "inference_results_v6.1" / "summary.json").read_bytes()
    )
    assert not quiet_tick(Source(env["MLPERF_SOURCE"]), root / "data")
