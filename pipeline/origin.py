"""One data folder, one source: the source a data folder is read from, recorded.

Every stored round is compared with the source on each ``update``, so reading one
data folder from two sources (the mirror, then a copy elsewhere, then the mirror
again) would record every difference between them as an upstream correction, for
good, on the Changes page and in the feed. The first writing command records the
source in ``<data dir>/source.json`` (a folder by its absolute path, a URL without
its credentials); a later command given another source is refused before any work,
unless ``--switch-source`` asks for the switch. Each snapshot's history line names
the source it was read from (``SnapshotStore.put``), and a difference between two
sources is never counted as a correction (``out_mlperf__corrections``).

Plain JSON, no Dagster.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from pipeline.blobs import write_whole
from pipeline.redact import redact_url

SOURCE_FILE = "source.json"
#: The flag that lets a data folder move to another source.
SWITCH_FLAG = "--switch-source"


class OtherSource(ValueError):
    """The data folder was built from another source; the message says both."""


def identity(base: str) -> str:
    """How a source base is recorded and compared.

    A folder by its absolute, resolved path (so ``../shared/mirror`` and its
    absolute spelling are one source); a URL as given, without credentials (a
    rotated token is the same source) and without a trailing slash.
    """
    if "://" in base:
        return redact_url(base).rstrip("/")
    return str(Path(base).expanduser().resolve())


def recorded(data_dir: Path) -> str | None:
    """The source the data folder was built from, or None (new or older folder)."""
    try:
        value = json.loads((data_dir / SOURCE_FILE).read_text())
    except (OSError, ValueError):
        return None
    source = value.get("source") if isinstance(value, dict) else None
    return source if isinstance(source, str) and source else None


def _record(data_dir: Path, source: str, previous: str | None) -> None:
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
    note: dict[str, str] = {"source": source, "recorded_at": now}
    if previous is not None:
        note["switched_from"] = previous
    data_dir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(note, indent=1, sort_keys=True) + "\n"
    write_whole(str(data_dir / SOURCE_FILE), text.encode())


def check(data_dir: Path, base: str, *, switch: bool = False) -> str:
    """Refuse ``base`` if the data folder was built from another source.

    Read only, so the CLI asks it before any work (:class:`OtherSource`); a folder
    without a record (new, or built before records existed) takes any source.
    Returns the source's identity.
    """
    source = identity(base)
    before = recorded(data_dir)
    if before is not None and before != source and not switch:
        raise OtherSource(
            f"the data folder {data_dir} was built from the source {before}; "
            f"this command reads {source}. One data folder reads one source, or "
            "every difference between the two would be recorded as an upstream "
            f"correction. Read {before} again, give another data folder "
            f"(--data-dir), or pass {SWITCH_FLAG} to read {source} from now on "
            "(its differences are then not counted as corrections)"
        )
    return source


def claim(data_dir: Path, base: str, *, switch: bool = False) -> str:
    """:func:`check`, then record ``base`` as the data folder's source.

    Called with the data folder held (``runner.exclusive``). A switch is recorded
    with the source it left, and the next snapshot of each round, read from the new
    source, is not a correction. A failed write raises the ``OSError``.
    """
    source = check(data_dir, base, switch=switch)
    before = recorded(data_dir)
    if before != source:
        _record(data_dir, source, before)
    return source
