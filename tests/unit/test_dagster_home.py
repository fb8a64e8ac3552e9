"""The local instance: a fresh DAGSTER_HOME starts from the machine cache's empty
storage (``instance._seed_home``), and its event log keeps its connections."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import dagster as dg
import pytest

from pipeline import instance as home_module
from pipeline.instance import POOLED_SHARDS, PooledSqliteEventLogStorage


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("MLPERF_CACHE_DIR", str(folder))
    return folder


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> Path:
    home = tmp_path / name
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    return home


def _tables(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("select name from sqlite_master")}


@dg.asset
def one() -> int:
    return 1


def test_two_fresh_homes_share_one_template_and_record_runs_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: Path
) -> None:
    first = _home(tmp_path, monkeypatch, "first")
    instance = home_module.get_instance()
    (template,) = (cache / "dagster-home").iterdir()
    assert template.name == (
        f"dagster-{dg.__version__}-sqlalchemy-{__import__('sqlalchemy').__version__}"
    )
    assert sorted(p.name for p in template.iterdir()) == ["history", "schedules"]
    # The template is an empty storage: tables, no run.
    assert {"runs", "run_tags"} <= _tables(template / "history" / "runs.db")
    assert "event_logs" in _tables(template / "history" / "runs" / "index.db")
    assert dg.materialize([one], instance=instance).success
    instance.dispose()

    second = _home(tmp_path, monkeypatch, "second")
    other = home_module.get_instance()
    assert other.get_runs() == []  # a copy of the empty template, not of first's
    assert len(dg.DagsterInstance.from_config(str(first)).get_runs()) == 1
    assert dg.materialize([one], instance=other).success
    assert len(other.get_runs()) == 1
    # The IO manager's outputs ("storage") are the run's, in its own home.
    assert sorted(p.name for p in second.iterdir()) == [
        "dagster.yaml", "history", "schedules", "storage",
    ]  # fmt: skip
    # The template itself is still empty.
    with sqlite3.connect(template / "history" / "runs.db") as conn:
        assert conn.execute("select count(*) from runs").fetchone() == (0,)


def test_a_used_or_otherwise_configured_home_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: Path
) -> None:
    used = _home(tmp_path, monkeypatch, "used")
    (used / "history").mkdir(parents=True)
    home_module._seed_home(home_module.ensure_dagster_home())
    assert list((used / "history").iterdir()) == []
    assert not (cache / "dagster-home").exists()  # not even looked up

    configured = _home(tmp_path, monkeypatch, "configured")
    configured.mkdir()
    (configured / "dagster.yaml").write_text("telemetry:\n  enabled: true\n")
    home_module._seed_home(home_module.ensure_dagster_home())
    assert sorted(p.name for p in configured.iterdir()) == ["dagster.yaml"]


def test_without_a_writable_cache_dagster_initialises_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("MLPERF_CACHE_DIR", str(blocked))
    home = _home(tmp_path, monkeypatch, "home")
    instance = home_module.get_instance()
    assert dg.materialize([one], instance=instance).success
    assert (home / "history" / "runs.db").is_file()


def test_the_pooled_event_log_writes_what_dagsters_own_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: Path
) -> None:
    """Same files, same rows: ``make ui`` (Dagster's own storage) sees every run."""
    home = _home(tmp_path, monkeypatch, "home")
    instance = home_module.get_instance()
    assert type(instance.event_log_storage) is PooledSqliteEventLogStorage
    for _ in range(POOLED_SHARDS + 2):
        assert dg.materialize([one], instance=instance).success
    # One open file per recent run, not one per run ever made (``watch`` runs for days).
    assert len(instance.event_log_storage._engines) == POOLED_SHARDS
    plain = dg.DagsterInstance.from_config(str(home))
    assert type(plain.event_log_storage).__name__ == "SqliteEventLogStorage"
    assert len(plain.get_runs()) == POOLED_SHARDS + 2
    latest = plain.get_latest_materialization_event(dg.AssetKey("one"))
    assert latest is not None and latest.run_id == instance.get_runs(limit=1)[0].run_id
    for run in plain.get_runs():
        events = plain.all_logs(run.run_id)
        assert [e.dagster_event_type for e in events if e.is_dagster_event][-1] == (
            dg.DagsterEventType.RUN_SUCCESS
        )
    instance.dispose()
    assert instance.event_log_storage._engines == {}


def test_a_home_configured_otherwise_keeps_its_own_storage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: Path
) -> None:
    configured = _home(tmp_path, monkeypatch, "configured")
    configured.mkdir()
    (configured / "dagster.yaml").write_text("telemetry:\n  enabled: true\n")
    instance = home_module.get_instance()
    assert type(instance.event_log_storage).__name__ == "SqliteEventLogStorage"
