import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from pipeline import ALLOCATOR_CONF
from pipeline.analysis.pairing import PAIR_SCHEMA
from pipeline.cli import main

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _restore_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # main() exports --data-dir/--source (and the Dagster home) as environment
    # variables for the resources; setting then deleting records the originals, so
    # monkeypatch puts them back afterwards (delenv alone records nothing when unset).
    for name in (
        "MLPERF_DATA_DIR",
        "MLPERF_SOURCE",
        "MLPERF_BUILD_DIR",
        "DAGSTER_HOME",
    ):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


@pytest.mark.parametrize(
    ("command", "value", "shown"),
    [
        ("ingest", "6.1", "'6.1'"),
        # A trailing newline once became a phantom partition and "v6.0\n.parquet".
        ("ingest", "v6.0\n", "'v6.0\\n'"),
        ("ingest", " v6.0", "' v6.0'"),
        ("ingest", "v6", "'v6'"),
        ("ingest", "v\u0666.0", "'v\u0666.0'"),  # an Arabic-Indic digit six
        ("gains", "v6.0\n", "'v6.0\\n'"),
        ("scaling", "latest", "'latest'"),
    ],
)
def test_bad_release_version_is_a_usage_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    command: str,
    value: str,
    shown: str,
) -> None:
    # An empty mirror and data dir: if the value were accepted, nothing real is hit.
    argv = [command, "--release", value, "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "--source", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"error: --release {shown}: expected a version like v6.1\n"
    assert captured.out == ""
    assert not (tmp_path / "data").exists()  # refused before anything was created


def test_top_must_be_positive(capsys: pytest.CaptureFixture) -> None:
    assert main(["gains", "--top", "0"]) == 2
    assert capsys.readouterr().err == "error: --top 0: expected a whole number >= 1\n"


@pytest.mark.parametrize(
    ("source", "cause"),
    [
        ("missing", "no such directory (expected a mirror folder or an http(s):// URL)"),
        ("file.txt", "not a directory"),
        ("missing/{repo}", "no such directory (expected a mirror folder or an "
         "http(s):// URL)"),
    ],
)  # fmt: skip
def test_source_folder_is_checked_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture, source: str, cause: str
) -> None:
    (tmp_path / "file.txt").write_text("not a mirror")
    given = str(tmp_path / source)
    argv = ["ingest", "--source", given, "--data-dir", str(tmp_path / "data")]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"error: --source {given!r}: {cause}\n"
    assert not (tmp_path / "data").exists()


def test_source_url_without_host_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLPERF_SOURCE", "http:///inference")
    assert main(["update", "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        "error: MLPERF_SOURCE 'http:///inference': no host in the URL\n"
    )


@pytest.mark.parametrize(
    ("value", "cause"),
    [
        ("git+", "expected git+https://host[/path] (or git+http://, git+file://, "
         "git+ssh://)"),
        ("git+https:///x", "no host in the URL"),
    ],
)  # fmt: skip
def test_git_source_url_is_checked(
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    value: str,
    cause: str,
) -> None:
    monkeypatch.setenv("MLPERF_SOURCE", value)
    assert main(["ingest", "--data-dir", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err == f"error: MLPERF_SOURCE {value!r}: {cause}\n"
    assert not (tmp_path / "data").exists()


def test_git_source_without_git_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no git on it
    monkeypatch.delenv("MLPERF_SOURCE", raising=False)
    assert main(["site", "--data-dir", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err == (
        "error: the default source 'git+https://github.com': the git source needs "
        "the git command line (2.25 or newer), and none is on PATH: install git "
        "(e.g. apt-get install git) or point MLPERF_SOURCE at a mirror folder or an "
        "http(s):// mirror\n"
    )


def test_git_older_than_2_25_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "git"
    old.write_text("#!/bin/sh\necho 'git version 2.20.1'\n")
    old.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("MLPERF_SOURCE", "git+http://127.0.0.1:9")
    assert main(["ingest", "--data-dir", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err == (
        "error: MLPERF_SOURCE 'git+http://127.0.0.1:9': the git source needs git 2.25 "
        f"or newer for partial clone and sparse fetch; {old} is git version 2.20.1\n"
    )


def test_data_dir_that_is_a_file_is_named_as_given(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLPERF_DATA_DIR", "data")  # relative, as the user typed it
    assert main(["ingest", "--release", "v6.1", "--source", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "error: MLPERF_DATA_DIR 'data': not a directory\n"


def _without_write_permission() -> list[str]:
    """A command prefix under which a mode-555 folder really is unwritable."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("running as root without setpriv: permissions are not enforced")
    # Root without CAP_DAC_OVERRIDE obeys the permission bits like anyone else.
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def test_unwritable_data_dir_names_the_path_and_the_cause(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    given = str(locked / "data")
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    command = [sys.executable, "-m", "pipeline.cli", "ingest", "--release", "v6.1"]
    done = subprocess.run(
        [*_without_write_permission(), *command, "--data-dir", given,
         "--source", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    locked.chmod(0o755)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"error: --data-dir {given!r}: cannot write there (Permission denied)\n"
    )


def test_gains_before_any_build_says_what_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["gains", "--data-dir", str(tmp_path)]) == 1
    assert (
        "out_mlperf__software_gains has not been built yet" in capsys.readouterr().err
    )


def test_gains_top_n_cites_both_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    row = dict.fromkeys(PAIR_SCHEMA) | {
        "identity_level": "system",
        "benchmark": "deepseek-r1",
        "scenario": "Offline",
        "division": "closed",
        "release_old": "v5.1",
        "release_new": "v6.0",
        "platform_old": "GB300-NVL72",
        "platform_new": "GB300-NVL72",
        "total_accelerators_old": 72,
        "total_accelerators_new": 72,
        "result_key_old": "5.1-0072:deepseek-r1:Offline",
        "result_key_new": "6.0-0078:deepseek-r1:Offline",
        "ratio": 647076 / 420659,
    }
    other = row | {"release_new": "v6.1", "ratio": 9.0}
    folder = tmp_path / "assets" / "out_mlperf__software_gains"
    folder.mkdir(parents=True)
    pl.DataFrame([row, other], schema=PAIR_SCHEMA).write_parquet(folder / "_.parquet")
    assert main(["gains", "--data-dir", str(tmp_path), "--release", "v6.0"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "software-only gains (derived, unofficial; not MLPerf results)"
    assert len(out) == 3  # header line, column names, one row (v6.1 filtered out)
    assert "1.538" in out[2]
    assert "5.1-0072:deepseek-r1:Offline -> 6.0-0078:deepseek-r1:Offline" in out[2]
    assert "v5.1 GB300-NVL72 (72 chips)" in out[2]


def test_top_n_leaves_out_flagged_pairs_unless_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    base = dict.fromkeys(PAIR_SCHEMA) | {
        "identity_level": "system", "benchmark": "yolo-95", "scenario": "Offline",
        "division": "closed", "release_old": "v6.0", "release_new": "v6.1",
        "platform_old": "GB10", "platform_new": "GB10", "total_accelerators_old": 1,
        "total_accelerators_new": 1, "result_key_old": "a", "result_key_new": "b",
    }  # fmt: skip
    rows = [
        base | {"ratio": 1.2, "flags": []},
        base | {"ratio": 46.5, "flags": ["large_software_gain", "outlier_end"],
                "result_key_new": "c"},
    ]  # fmt: skip
    folder = tmp_path / "assets" / "out_mlperf__software_gains"
    folder.mkdir(parents=True)
    pl.DataFrame(rows, schema=PAIR_SCHEMA).write_parquet(folder / "_.parquet")
    assert main(["gains", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1.2" in out and "46.5" not in out
    assert main(["gains", "--data-dir", str(tmp_path), "--include-flagged"]) == 0
    out = capsys.readouterr().out
    assert "46.5" in out and "large_software_gain, outlier_end" in out


ALLOCATOR = """import os
import pipeline.cli
import polars
print(os.environ["_RJEM_MALLOC_CONF"])"""


@pytest.mark.parametrize(
    ("given", "last_option"),
    [(None, "muzzy_decay_ms:0"), ("narenas:2", "narenas:2")],
)
def test_the_command_configures_polars_allocator_unless_the_user_did(
    given: str | None, last_option: str
) -> None:
    # Polars appends the variable to its own defaults and jemalloc keeps the last
    # value of each option: the pipeline's setting (background purging, which kept
    # the analytics at 100x the real data under 1 GB) applies unless a user set one.
    env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
    if given is not None:
        env["_RJEM_MALLOC_CONF"] = given
    shown = subprocess.run(
        [sys.executable, "-c", ALLOCATOR],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    options = shown.split(",")
    assert options[-1] == last_option
    assert ("background_thread:true" in options) == (given is None)
    if given is None:
        assert shown.endswith(ALLOCATOR_CONF)


@pytest.mark.parametrize("value", ["abc", "-1", "0", "nan", "inf"])
def test_a_bad_timeout_names_the_variable(
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    value: str,
) -> None:
    monkeypatch.setenv("MLPERF_SOURCE", str(tmp_path))
    monkeypatch.setenv("MLPERF_HTTP_TIMEOUT_S", value)
    assert main(["ingest", "--data-dir", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err == (
        f"error: MLPERF_HTTP_TIMEOUT_S {value!r}: expected a number of seconds above "
        "0 (default 30)\n"
    )


def test_absurd_arguments_are_named_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLPERF_SOURCE", str(tmp_path))
    huge = "v" + "1" * 100_000 + ".1"
    assert main(["ingest", "--release", huge]) == 2
    assert capsys.readouterr().err == (
        f"error: --release {huge[:40]!r}… (100003 characters): expected a version "
        "like v6.1\n"
    )
    deep = str(tmp_path / ("a" * 5000))
    assert main(["ingest", "--data-dir", deep]) == 2
    assert capsys.readouterr().err == (
        f"error: --data-dir {deep[:60]!r}…: a folder name longer than 255 bytes, "
        "which no file system takes\n"
    )
    monkeypatch.setenv("MLPERF_SOURCE", "http://[::1")
    assert main(["ingest", "--data-dir", str(tmp_path / "d")]) == 2
    assert capsys.readouterr().err == (
        "error: MLPERF_SOURCE 'http://[::1': not a URL (Invalid IPv6 URL)\n"
    )


def test_terminal_output_shows_control_characters_as_question_marks() -> None:
    from pipeline.cli import printable

    assert printable("NVIDIA\x1b[2J\x1b]0;owned\x07 H100\x9b") == (
        "NVIDIA?[2J?]0;owned? H100?"
    )


def test_a_damaged_discovery_cursor_counts_as_none() -> None:
    from pipeline.discovery import cursor_validators

    assert cursor_validators('{"a":') == {}
    assert cursor_validators("[1, 2]") == {}
    assert cursor_validators('{"u": {"etag": "x"}}') == {"u": {"etag": "x"}}


def test_a_cache_folder_that_cannot_be_written_is_refused_at_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MLPERF_SOURCE", str(tmp_path))
    monkeypatch.setenv("MLPERF_CACHE_DIR", str(blocker / "cache"))
    assert main(["ingest", "--data-dir", str(tmp_path / "data")]) == 2
    assert capsys.readouterr().err == (
        "error: the cache folder (MLPERF_CACHE_DIR) "
        f"{str(blocker / 'cache')!r}: cannot write there (Not a directory)\n"
    )
    assert not (tmp_path / "data").exists()


def test_release_lines_reach_the_terminal_without_control_characters(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Progress lines carry upstream names: the CLI prints them through printable."""
    from pipeline import runner

    def ingest(instance, versions, progress=print, site=False):  # noqa: ANN001, ANN202
        progress("[1/1] v6.1: system NVIDIA\x1b[2J\x1b]0;owned\x07 read")
        return []

    monkeypatch.setattr(runner, "ingest", ingest)
    monkeypatch.setenv("MLPERF_SOURCE", str(tmp_path))
    assert main(["ingest", "--data-dir", str(tmp_path / "data")]) == 0
    assert "[1/1] v6.1: system NVIDIA?[2J?]0;owned? read\n" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("MLPERF_LEDGER_SITE_URL",
         'https://ex.com/"><script>alert(document.domain)</script>',
         "MLPERF_LEDGER_SITE_URL 'https://ex.com/\"><script>alert(document.domain)"
         "</script>': character 16 ('\"') is not allowed in a URL (expected an "
         "absolute http:// or https:// URL without quotes, angle brackets, "
         "whitespace or control characters; percent-encode others)"),
        ("MLPERF_LEDGER_SITE_URL", "https://ex.com/" + "x" * 10_000,
         "MLPERF_LEDGER_SITE_URL: a URL of 10015 characters is too long (at most "
         "2000)"),
        ("MLPERF_TREE_API", "file:///etc",
         "MLPERF_TREE_API 'file:///etc': expected an absolute http:// or https:// "
         "URL"),
        ("MLPERF_BUILD_DIR", "build\n", None),  # stripped: a good value
        ("MLPERF_GIT_CACHE_DIR", "/tmp/x\x1b[2Jy",
         "MLPERF_GIT_CACHE_DIR '/tmp/x\\x1b[2Jy': a control character in a folder "
         "path"),
    ],
)  # fmt: skip
def test_a_bad_variable_is_refused_before_anything_is_built(
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    message: str | None,
) -> None:
    """Exit 2 naming the variable, and no data, build or Dagster folder made."""
    source = tmp_path / "mirror"
    source.mkdir()
    monkeypatch.setenv("MLPERF_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setenv(variable, value)
    if message is None:  # the control: the same command with a good value runs
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr("pipeline.runner.ingest", lambda *a, **k: [])
    code = main(["site", "--source", str(source), "--data-dir", str(tmp_path / "d")])
    err = capsys.readouterr().err
    if message is None:
        assert (code, err) == (0, "")
        return
    assert (code, err) == (2, f"error: {message}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mirror"]


def test_watch_verifies_stored_rounds_by_content_on_its_first_tick_then_daily(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextlib
    import types

    from pipeline import cli, runner
    from pipeline import update as update_module

    clock = iter([0.0, 0.0, 3600.0, 90_000.0, 90_000.0])
    asked: list[bool] = []

    def sleep(seconds: int) -> None:
        if len(asked) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(
        cli,
        "time",
        types.SimpleNamespace(
            monotonic=lambda: next(clock), sleep=sleep, strftime=lambda _: "now"
        ),
    )
    monkeypatch.setattr(
        runner, "exclusive", lambda **_: contextlib.nullcontext("instance")
    )
    monkeypatch.setattr(
        update_module,
        "update",
        lambda instance, progress, thorough: asked.append(thorough),
    )
    monkeypatch.setenv("MLPERF_SOURCE", str(tmp_path))
    assert main(["watch", "--data-dir", str(tmp_path / "data")]) == 130
    assert asked == [True, False, True]
    assert capsys.readouterr().out.splitlines() == [
        "watching every 3600 s (Ctrl-C to stop)",
        "now tick (verifying stored rounds by content)",
        "tick done; next in 3600 s",
        "now tick",
        "tick done; next in 3600 s",
        "now tick (verifying stored rounds by content)",
        "tick done; next in 3600 s",
    ]


def test_update_full_compares_stored_rounds_by_content(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import contextlib

    from pipeline import discovery, origin, runner
    from pipeline import update as update_module

    asked: list[tuple[str, bool]] = []

    def quiet(source, data, *, thorough):  # noqa: ANN001, ANN202
        asked.append(("quiet_tick", thorough))
        return False

    def update(instance, progress, thorough):  # noqa: ANN001, ANN202
        asked.append(("update", thorough))
        return []

    monkeypatch.setattr(discovery, "quiet_tick", quiet)
    monkeypatch.setattr(update_module, "update", update)
    monkeypatch.setattr(runner, "exclusive", lambda **_: contextlib.nullcontext())
    monkeypatch.setenv("MLPERF_SOURCE", str(tmp_path))
    # A folder read from this source before (a new one is never a quiet tick).
    origin.claim(tmp_path / "data", str(tmp_path))
    assert main(["update", "--full", "--data-dir", str(tmp_path / "data")]) == 0
    assert main(["update", "--data-dir", str(tmp_path / "data")]) == 0
    assert asked == [
        ("quiet_tick", True), ("update", True), ("quiet_tick", False),
        ("update", False),
    ]  # fmt: skip


def test_the_console_script_ends_without_teardown_but_runs_exit_handlers(
    tmp_path: Path,
) -> None:
    """main() without argv ends the process (no teardown): exit handlers still run,
    buffered output still reaches the pipe, the exit code is the command's."""
    marker = tmp_path / "atexit-ran"
    script = (
        "import atexit, pathlib, sys\n"
        f"atexit.register(pathlib.Path({str(marker)!r}).write_text, 'yes')\n"
        "print('buffered before main', end='')\n"
        "sys.argv = ['mlperf-ledger', 'ingest', '--release', 'bogus']\n"
        "from pipeline.cli import main\n"
        "main()\n"
        "print('never reached')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert done.stdout == "buffered before main"
    assert done.stderr == "error: --release 'bogus': expected a version like v6.1\n"
    assert marker.read_text() == "yes"


def test_a_source_date_epoch_out_of_range_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "999999999999")
    monkeypatch.setenv("MLPERF_DATA_DIR", str(tmp_path / "data"))
    assert main(["site", "--source", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        "error: SOURCE_DATE_EPOCH 999999999999: after the latest date a build can "
        "carry, 4294967295 (2106-02-07T06:28:15Z: the sitemap's gzip header holds "
        "32 bits)\n"
    )
    assert not (tmp_path / "data").exists()


def test_an_os_error_of_a_command_names_its_path(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    from pipeline import cli

    cursor = tmp_path / "data" / "discovery_cursor.json"

    def full(args: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", str(cursor))

    monkeypatch.setattr(cli, "cmd_status", full)
    assert main(["status", "--data-dir", str(tmp_path / "data")]) == 1
    assert capsys.readouterr().err == (
        f"error: {cursor}: the disk is full (No space left on device)\n"
    )
