"""The render cache: a page whose inputs did not change is copied, not rendered.

A correction or a new round changes a small slice of the tables, yet every page was
rendered again (12,000 small Polars queries, most of ``out_site__pages``). Page specs
that write one page per entity (a release's benchmark pages, an accelerator, a
benchmark's pairs) are cached: their inputs are the entity's own slice of the frames
and every other value the page reads; ``RenderMemo`` keys the page by a digest of
those inputs and of the salt (all of the pipeline's source and registry files, and the
Polars and Altair versions) and keeps what the page wrote: its files, the chart
names it took and its return value. Unchanged inputs replay those; anything else
renders.

The engine (``engine``) keys each cached page spec by the digest of exactly the
inputs it hands the render function, so no input can be left out by hand.
``verify=True`` (``MLPERF_LEDGER_RENDER_CACHE_VERIFY=1``) renders every page anyway,
counts a page whose cached copy matches as reused and raises ``StaleRender`` when it
differs: the tests that build incrementally (a new round, a correction) run so.

Entries that this render did not use are removed by ``finish``: the cache holds one
render. Deleting the folder is always safe.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import json
from array import array
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import polars as pl

from pipeline.files import write_file
from pipeline.settings import PROJECT_ROOT

#: ``engine.Writer`` (not imported: ``engine`` imports this module).
Site = Any

T = TypeVar("T")
#: Sources whose change may change any page (read once per render): all of the
#: pipeline's code and registry, since pages call helpers outside ``render`` too
#: (plausibility warnings, the manifest, claim verdicts).
SALT_SOURCES = ("pipeline",)
#: ICU too: its confusable data decides which names Audit lists as look-alikes.
SALT_PACKAGES = ("polars", "altair", "pyicu-wheels")


class StaleRender(RuntimeError):
    """A cached page differs from the same page rendered afresh (verify mode)."""


def digest(value: object) -> str:
    """sha256 of a page input: frames by schema and row hashes, the rest as JSON.

    Fed part by part, each tagged and length-prefixed (unambiguous): a page's key
    holds several frame slices, and nesting their encodings as JSON text escaped
    every inner encoding again at each level.
    """
    sink = hashlib.sha256()
    _feed(sink, value)
    return sink.hexdigest()


def _part(sink: Any, tag: bytes, data: bytes) -> None:
    sink.update(b"%s%d:" % (tag, len(data)))
    sink.update(data)


def _feed(sink: Any, value: object) -> None:
    if isinstance(value, pl.DataFrame):
        schema = [(name, str(dtype)) for name, dtype in value.schema.items()]
        _part(sink, b"F", json.dumps(schema).encode())
        rows = value.hash_rows(seed=0).to_list() if value.height else []
        _part(sink, b"R", array("Q", rows).tobytes())
    elif isinstance(value, Mapping):
        # Keys in any order: each entry as the digest of its key and value.
        entries = sorted(digest([k, v]) for k, v in value.items())
        _part(sink, b"D", "".join(entries).encode())
    elif isinstance(value, list | tuple):
        _part(sink, b"L", b"%d" % len(value))
        for item in value:
            _feed(sink, item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        # Field by field: a frame inside is digested by its rows, never its repr.
        _part(sink, b"C", type(value).__qualname__.encode())
        _feed(sink, {f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    elif value is None or isinstance(value, str | int | float | bool | dt.date):
        _part(sink, b"V", json.dumps([type(value).__name__, str(value)]).encode())
    else:
        # A value whose text may not hold all of it (an object's repr): refuse, so a
        # page's input can never be keyed by less than it is.
        raise TypeError(f"render cache: cannot digest a {type(value).__name__}")


def salt(root: Path = PROJECT_ROOT) -> str:
    """What every page's key holds: the render code, the registry, the versions."""
    files: list[Path] = []
    for name in SALT_SOURCES:
        path = root / name
        if path.is_dir():
            files += sorted(path.rglob("*.py")) + sorted(path.rglob("*.toml"))
        else:
            files.append(path)
    parts = [(p.relative_to(root).as_posix(), p.read_bytes().hex()) for p in files]
    return digest([parts, [(n, metadata.version(n)) for n in SALT_PACKAGES]])


class RenderMemo:
    """One render's view of the cache folder."""

    def __init__(self, folder: Path, *, verify: bool = False) -> None:
        self.folder, self.verify = folder, verify
        self.salt = salt()
        self.used: set[Path] = set()
        self.reused = 0
        self.rendered = 0

    def run(
        self, site: Site, kind: str, inputs: Iterable[object], produce: Callable[[], T]
    ) -> T:
        """``produce()``'s result, replayed from the cache when ``inputs`` match."""
        key = digest([self.salt, kind, list(inputs)])
        path = self.folder / kind / f"{key}.json"
        self.used.add(path)
        entry = self._load(path)
        if entry is not None and not self.verify and self._replay(site, entry):
            self.reused += 1
            return entry["value"]
        fresh, value = self._record(site, produce)
        fresh = json.loads(json.dumps(fresh))  # as stored: tuples become lists
        if entry is not None and self.verify and entry == fresh:
            self.reused += 1  # a reuse, rendered again and found right
        else:
            self.rendered += 1
        if entry is not None and self.verify and entry != fresh:
            changed = sorted(
                name
                for name in entry["files"].keys() | fresh["files"].keys()
                if entry["files"].get(name) != fresh["files"].get(name)
            )
            raise StaleRender(
                f"render cache: {kind} page differs from its cached copy "
                f"(files {changed[:5]}); its key misses an input"
            )
        if entry is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_text(json.dumps(fresh), encoding="utf-8")
            temporary.replace(path)
        return value

    @staticmethod
    def _load(path: Path) -> dict | None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    @staticmethod
    def _record(site: Site, produce: Callable[[], T]) -> tuple[dict, T]:
        start = len(site.written)
        site.chart_log = []
        try:
            value = produce()
            charts = site.chart_log
        finally:
            site.chart_log = None
        files = {
            path.relative_to(site.out_dir).as_posix(): path.read_text(encoding="utf-8")
            for path in site.written[start:]
        }
        return {"files": files, "charts": charts, "value": value}, value

    @staticmethod
    def _replay(site: Site, entry: dict) -> bool:
        """Write a cached page's files; False when its chart names are not free.

        A chart takes its name, or the name with a hash when the name is taken
        (``Site.chart``): the replay is valid only if the same choice would be made.
        """
        for wanted, taken in entry["charts"]:
            if taken in site.chart_names or (wanted in site.chart_names) != (
                wanted != taken
            ):
                return False
        site.chart_names.update(taken for _, taken in entry["charts"])
        for rel, text in entry["files"].items():
            site.written.append(write_file(site.out_dir / rel, text))
        return True

    def finish(self) -> None:
        """Remove the entries this render did not use."""
        for path in self.folder.glob("*/*.json"):
            if path not in self.used:
                path.unlink(missing_ok=True)
