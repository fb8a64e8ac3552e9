"""Resources, declared in one place: the upstream source, data dir and IO manager."""

import json
import os
import re
import tempfile
from pathlib import Path

import dagster as dg
import polars as pl

from pipeline import settings
from pipeline.defs.ranges import PerPartition
from pipeline.gitsource import GitSource
from pipeline.manifest import reviewed_versions
from pipeline.snapshots import SnapshotStore
from pipeline.source import Source


class SourceResource(dg.ConfigurableResource):
    """Where upstream files come from: git, a mirror folder or an HTTP base URL."""

    base: str = ""
    timeout_s: float = 0.0
    deadline_s: float = 0.0
    retries: int = 3

    def get(self) -> Source | GitSource:
        """A source for this run; unset fields come from the environment."""
        return settings.open_source(
            self.base,
            timeout_s=self.timeout_s,
            deadline_s=self.deadline_s,
            retries=self.retries,
        )


class DataDirResource(dg.ConfigurableResource):
    """The data directory holding snapshots and asset files."""

    path: str = ""

    @property
    def root(self) -> Path:
        """The folder; empty ``path`` means ``MLPERF_DATA_DIR`` or ``data/``."""
        return Path(self.path).resolve() if self.path else settings.data_dir()

    def store(self) -> SnapshotStore:
        """The content-addressed snapshot store below the data directory."""
        return SnapshotStore(self.root)


class DataWriteError(OSError):
    """An output could not be written; the message names the file and the cause."""


def _cause(exc: OSError) -> str:
    """The OS's reason without the path it failed on (which may be a temp file)."""
    if exc.strerror:
        return exc.strerror
    text = str(exc)
    match = re.match(r"(.+?) \(os error \d+\)", text)  # Polars' spelling
    return match.group(1) if match else type(exc).__name__


def _atomic_write(path: Path, write) -> None:
    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
        os.close(fd)
        tmp = Path(name)
        write(tmp)
        tmp.replace(path)
    except OSError as exc:
        # Name the file the user would look for, not the temp file or a /proc path.
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise DataWriteError(f"cannot write {path}: {_cause(exc)}") from None


#: Rows per Parquet row group of every table written, streamed or not. A quarter
#: of Polars' default for DataFrames (512**2): a streamed reader decodes a whole row
#: group at a time, so smaller groups keep streamed steps (out_mlperf__results, the
#: pairing that reads it) lower in memory at no cost in time. Tables under 65,536
#: rows (every real one) are one row group either way, so their bytes do not change.
ROW_GROUP_ROWS = 65536


class LedgerIOManager(dg.ConfigurableIOManager):
    """Polars frames as Parquet, everything else as JSON, one file per partition.

    A partitioned input read by an unpartitioned asset arrives as one LazyFrame over
    every stored partition (frames) or a dict keyed by partition (JSON values). Only
    rounds listed in ``releases.toml`` are read that way: a round discovery found but
    nobody reviewed keeps its own tables (to be reviewed) and stays out of every
    cross-release table and the site until it is listed.
    """

    path: str = ""

    def _root(self) -> Path:
        root = Path(self.path).resolve() if self.path else settings.data_dir()
        return root / "assets"

    def _file(self, key: dg.AssetKey, partition: str | None, ext: str) -> Path:
        name = partition if partition is not None else "_"
        return self._root() / "/".join(key.path) / f"{name}.{ext}"

    def handle_output(self, context: dg.OutputContext, obj: object) -> None:
        """Write atomically so a failed run never leaves half a file behind."""
        if obj is None:
            return
        if isinstance(obj, PerPartition):  # a range step: one file per partition
            for key, value in obj.items():
                self._write(context, key, value)
            return
        partition = context.partition_key if context.has_partition_key else None
        written = self._write(context, partition, obj)
        if written is not None:
            context.add_output_metadata(written)

    def _write(
        self, context: dg.OutputContext, partition: str | None, obj: object
    ) -> dict | None:
        if isinstance(obj, pl.LazyFrame):
            # Streamed to the file: a million-row table never sits in memory whole.
            # A fixed row-group size keeps the bytes independent of the thread count
            # (without it, 1 and 2 threads wrote different files).
            target = self._file(context.asset_key, partition, "parquet")
            _atomic_write(
                target, lambda tmp: obj.sink_parquet(tmp, row_group_size=ROW_GROUP_ROWS)
            )
            rows = pl.scan_parquet(target).select(pl.len()).collect().item()
            return {"rows": rows, "path": str(target)}
        if isinstance(obj, pl.DataFrame):
            target = self._file(context.asset_key, partition, "parquet")
            _atomic_write(
                target,
                lambda tmp: obj.write_parquet(tmp, row_group_size=ROW_GROUP_ROWS),
            )
            return {"rows": obj.height, "path": str(target)}
        target = self._file(context.asset_key, partition, "json")
        text = json.dumps(obj, indent=2, sort_keys=True, default=str)
        _atomic_write(target, lambda p: p.write_text(text))
        return None

    def load_input(self, context: dg.InputContext) -> object:
        """Read one partition, or every stored partition of a partitioned upstream."""
        key = context.asset_key
        partitions = (
            list(context.asset_partition_keys)
            if context.has_asset_partitions
            else [None]
        )
        single = len(partitions) == 1 and (
            partitions == [None] or context.has_partition_key
        )
        if context.dagster_type.typing_type is PerPartition:
            # A range step reading its own partitions of an upstream: one value each.
            return PerPartition(
                {p: self._read_one(key, p) for p in partitions if p is not None}
            )
        if not single:
            reviewed = reviewed_versions()
            partitions = [p for p in partitions if p in reviewed]
        frames = [
            f for p in partitions if (f := self._file(key, p, "parquet")).exists()
        ]
        jsons = {p: f for p in partitions if (f := self._file(key, p, "json")).exists()}
        if not frames and not jsons:
            raise FileNotFoundError(
                f"{'/'.join(key.path)} has no stored output for "
                f"{partitions if len(partitions) > 1 else partitions[0]}; "
                "materialize it first"
            )
        if frames:
            return pl.scan_parquet(frames)
        values = {p: json.loads(f.read_text()) for p, f in jsons.items()}
        return next(iter(values.values())) if single else values

    def _read_one(self, key: dg.AssetKey, partition: str) -> object:
        frame = self._file(key, partition, "parquet")
        if frame.exists():
            return pl.scan_parquet(frame)
        value = self._file(key, partition, "json")
        if value.exists():
            return json.loads(value.read_text())
        raise FileNotFoundError(
            f"{'/'.join(key.path)} has no stored output for {partition}; "
            "materialize it first"
        )


@dg.definitions
def resources() -> dg.Definitions:
    """Default resources; tests override them with a temporary data dir and source."""
    return dg.Definitions(
        resources={
            "source": SourceResource(),
            "data_dir": DataDirResource(),
            "io_manager": LedgerIOManager(),
        }
    )
