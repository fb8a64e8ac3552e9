"""The local Dagster instance: its home, its seeded storage, its event log.

Everything the CLI, the tests and ``make ui`` share lives in ``DAGSTER_HOME``
(``<data dir>/dagster_home`` by default). This module creates that home, seeds a new
one from an empty initialised storage, and opens the instance with an event log that
keeps its SQLite connections (``PooledSqliteEventLogStorage``).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    SQLITE_BUSY_TIMEOUT_SECONDS,
    SqliteEventLogStorage,
)
from dagster._serdes import ConfigurableClassData
from sqlalchemy import Connection, Engine, create_engine

from pipeline import runlock, settings

#: A new home's dagster.yaml: no telemetry (only package registries are reachable).
DAGSTER_YAML = "telemetry:\n  enabled: false\n"
#: Open SQLite files the event log keeps per process: the index, the run being
#: written, and a few recent runs read back (a ``watch`` process runs for days).
POOLED_SHARDS = 4


class PooledSqliteEventLogStorage(SqliteEventLogStorage):
    """Dagster's SQLite event log, with its connections kept between events.

    Dagster's own opens a new SQLAlchemy engine and SQLite connection for every
    read and write, and closes it after (closing the last connection of a WAL
    database checkpoints it). A run stores each of its ~400 events that way: ~2 s
    of a one-round ``site`` (8.5 s) went to opening and closing files. Here an
    engine per shard (the index, each run's file) is kept, at most
    ``POOLED_SHARDS`` of them; every event is still its own committed transaction,
    so another process (``make ui``) sees the same files and the same rows, and the
    file format is Dagster's.
    """

    def __init__(
        self, base_dir: str, inst_data: ConfigurableClassData | None = None
    ) -> None:
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_lock = threading.Lock()
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(
        cls, inst_data: ConfigurableClassData | None, config_value: dict
    ) -> PooledSqliteEventLogStorage:
        """This class, not Dagster's (whose method names its own class)."""
        return cls(inst_data=inst_data, **config_value)

    def _engine(self, shard: str) -> Engine:
        with self._engines_lock:
            engine = self._engines.pop(shard, None)
            if engine is None:
                engine = create_engine(
                    self.conn_string_for_shard(shard),
                    connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS},
                )
            self._engines[shard] = engine
            while len(self._engines) > POOLED_SHARDS:
                _, oldest = self._engines.popitem(last=False)
                oldest.dispose()
            return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def wipe(self) -> None:
        """Files are deleted: their engines go first."""
        self._dispose_engines()
        super().wipe()

    def dispose(self) -> None:
        """Close every kept connection (a closed WAL database is checkpointed)."""
        self._dispose_engines()
        super().dispose()

    def _dispose_engines(self) -> None:
        with self._engines_lock:
            while self._engines:
                _, engine = self._engines.popitem()
                engine.dispose()


def ensure_dagster_home() -> Path:
    """Use ``DAGSTER_HOME`` or ``<data dir>/dagster_home``, creating it if needed."""
    configured = os.environ.get("DAGSTER_HOME")
    home = Path(configured or settings.data_dir() / "dagster_home")
    config = home / "dagster.yaml"
    try:
        home.mkdir(parents=True, exist_ok=True)
        if not config.exists():
            # No telemetry: the pipeline runs where only package registries are
            # reachable.
            config.write_text(DAGSTER_YAML)
    except OSError as exc:
        shown = f"DAGSTER_HOME {configured!r}" if configured else f"{str(home)!r}"
        raise runlock.FolderError(
            f"{shown}: cannot write there ({exc.strerror or type(exc).__name__})"
        ) from None
    os.environ["DAGSTER_HOME"] = str(home.resolve())
    return home


#: Dagster's storage folders in a home, as its SQLite storages create them.
STORAGE_FOLDERS = ("history", "schedules")


def _template_home() -> Path | None:
    """An empty initialised instance's storage in the machine cache, made if missing.

    Creating an instance's SQLite storages (tables, indexes, alembic stamps) costs
    1.6-2.2 s of every cold start on a fresh ``DAGSTER_HOME``; copying the files of
    an empty one costs ~0.05 s. They hold no run, no id and nothing of this machine
    (only the schema, its alembic revision and when each index was made), so one
    copy per Dagster and SQLAlchemy version is kept, as the Vega bundle is. None
    when the cache cannot hold it: the home is then initialised by Dagster itself.
    """
    import sqlalchemy

    key = f"dagster-{dg.__version__}-sqlalchemy-{sqlalchemy.__version__}"
    template = settings.cache_dir() / "dagster-home" / key
    if all((template / folder).is_dir() for folder in STORAGE_FOLDERS):
        return template
    try:
        template.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=template.parent, prefix=".new-"))
    except OSError:
        return None
    try:
        (scratch / "dagster.yaml").write_text(DAGSTER_YAML)
        instance = dg.DagsterInstance.from_config(str(scratch))
        instance.get_runs(limit=1)  # every storage opened once
        instance.dispose()
        (scratch / "dagster.yaml").unlink()
        journals = [p for p in scratch.rglob("*-wal") if p.stat().st_size]
        if journals or sorted(p.name for p in scratch.iterdir()) != sorted(
            STORAGE_FOLDERS
        ):
            return None  # not a quiet, complete storage: let Dagster make its own
        scratch.rename(template)
    except OSError:
        # Another process saved the template first (the rename found it), or the
        # cache is full or read-only: theirs is as good, or there is none.
        pass
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return template if template.is_dir() else None


def _seed_home(home: Path) -> None:
    """Give a home without storage a copy of the empty template's (see above).

    Each folder is copied aside and renamed into place, so a process that finds the
    folder sees the whole of it; a folder already there (another process's, or a
    used home's) is never touched.
    """
    if any((home / folder).exists() for folder in STORAGE_FOLDERS):
        return
    try:
        if (home / "dagster.yaml").read_text() != DAGSTER_YAML:
            return  # a home configured otherwise (another storage) is left as it is
    except OSError:
        return
    template = _template_home()
    if template is None:
        return
    for folder in STORAGE_FOLDERS:
        aside = home / f".{folder}-{os.getpid()}"
        try:
            shutil.copytree(template / folder, aside)
            aside.rename(home / folder)
        except OSError:
            shutil.rmtree(aside, ignore_errors=True)
            return


def get_instance() -> dg.DagsterInstance:
    """The persistent local instance shared with ``dagster dev``.

    A fresh home starts from a copy of an empty initialised storage
    (``_seed_home``) instead of creating its SQLite schema again. A home with the
    default dagster.yaml is opened with the pooled event log; ``dagster dev`` opens
    the same files with Dagster's own. A home configured otherwise (another
    storage) is opened exactly as its dagster.yaml says.
    """
    home = ensure_dagster_home()
    _seed_home(home)
    try:
        default = (home / "dagster.yaml").read_text() == DAGSTER_YAML
    except OSError:
        default = False
    if not default:
        return dg.DagsterInstance.get()
    pooled = {
        "module": __name__,
        "class": PooledSqliteEventLogStorage.__name__,
        "config": {"base_dir": str(home.resolve() / "history" / "runs")},
    }
    ref = InstanceRef.from_dir(
        str(home.resolve()), overrides={"event_log_storage": pooled}
    )
    return dg.DagsterInstance.from_ref(ref)


def storage_failure(cause: str) -> str:
    """A write Dagster's SQLite storage refused, as one sentence naming its folder.

    ``cause`` is SQLite's message, bare or as SQLAlchemy words it
    ("(sqlite3.OperationalError) disk I/O error" and the statement on later lines).
    """
    first = cause.strip().splitlines()[0] if cause.strip() else "unknown error"
    first = re.sub(r"^\(sqlite3\.\w+\) ", "", first)
    if "disk is full" in first:
        first = "the disk is full (SQLite: database or disk is full)"
    home = os.environ.get("DAGSTER_HOME") or str(settings.data_dir() / "dagster_home")
    return f"cannot record the run in Dagster's storage under {home}: {first}"


def latest_metadata(
    instance: dg.DagsterInstance, asset: str, partition: str | None = None
) -> dict:
    """Metadata values of an asset's (partition's) latest materialization, or {}.

    The one reader of the event log every caller shares (the assets, ``runner``,
    ``status``).
    """
    records_filter = dg.AssetRecordsFilter(
        asset_key=dg.AssetKey(asset),
        asset_partitions=[partition] if partition else None,
    )
    records = instance.fetch_materializations(records_filter, limit=1).records
    if not records or records[0].asset_materialization is None:
        return {}
    metadata = records[0].asset_materialization.metadata
    values = {k: getattr(v, "value", v) for k, v in metadata.items()}
    # A range step records each partition's own metadata under one key.
    by_partition = values.get("by_partition")
    if partition and isinstance(by_partition, dict) and partition in by_partition:
        return dict(by_partition[partition])
    return values
