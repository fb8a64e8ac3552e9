"""Files of the staged project, written only when their bytes change.

The staged project (``publish.stage_project``) is kept between builds, and MkDocs
hard-links its static files into the published site (``render/mkdocs/hooks``). Two
rules follow, and every writer of the project goes through ``write_file``:

* a file whose bytes did not change is left alone: on a correction or a new round
  ~90% of the ~2,000 generated files come out identical, and creating a file just
  after deleting thousands is the slow path of ext4's inode allocator (``perf``:
  ~10% of an incremental render was ``ext4_create`` when it emptied the folder
  first);
* a file whose bytes changed gets a new inode (unlink, then create), never an
  overwrite in place, so a published site that links the old bytes keeps them.

``prune`` then removes what this build did not write, so the page of a release or
benchmark that disappeared does not linger.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path


def write_file(path: Path, content: str | bytes) -> Path:
    """``content`` (text as UTF-8) at ``path``, unless the file already holds it."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        found = path.lstat()
        if (
            stat.S_ISREG(found.st_mode)
            and found.st_size == len(data)
            and path.read_bytes() == data
        ):
            return path
    except (FileNotFoundError, NotADirectoryError):
        pass
    _make_room(path)
    path.write_bytes(data)
    return path


def remove(path: Path) -> None:
    """Remove a file, a symlink (not what it names) or a folder; nothing if absent."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _make_room(path: Path) -> None:
    """Remove what the last build left at ``path`` or where its folders must be.

    A page that became a folder of pages (or the reverse) between two builds: the
    last build's file or folder goes, as emptying the folder first used to do.
    """
    # A parent that is a file: the folders below make room for it.
    with contextlib.suppress(NotADirectoryError):
        remove(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocking = next(p for p in reversed(path.parents) if p.is_file())
        blocking.unlink()
        path.parent.mkdir(parents=True, exist_ok=True)


def prune(folder: Path, keep: Iterable[Path], *, spare: Iterable[str] = ()) -> int:
    """Remove files under ``folder`` not in ``keep``, then empty folders; how many.

    Top-level entries named in ``spare`` are not touched (the cached JavaScript
    bundle under ``assets/``).
    """
    wanted = {Path(p) for p in keep}
    spared = set(spare)
    removed = 0
    for top in folder.iterdir():
        if top.name in spared:
            continue
        if top.is_symlink() or not top.is_dir():
            if top not in wanted:
                top.unlink()
                removed += 1
            continue
        for root, dirs, names in os.walk(top, topdown=False):
            here = Path(root)
            for name in names:
                if here / name not in wanted:
                    (here / name).unlink()
                    removed += 1
            for name in dirs:
                if not any((here / name).iterdir()):
                    (here / name).rmdir()
        if not any(top.iterdir()):
            top.rmdir()
    return removed


def sync_tree(source: Path, target: Path, *, spare: Iterable[str] = ()) -> None:
    """Make ``target`` hold ``source``'s files, rewriting only the changed ones."""
    spared = set(spare)
    written: list[Path] = []
    target.mkdir(parents=True, exist_ok=True)
    for root, dirs, names in os.walk(source):
        rel = Path(root).relative_to(source)
        if not rel.parts:
            dirs[:] = [d for d in dirs if d not in spared]
        for name in names:
            content = (Path(root) / name).read_bytes()
            written.append(write_file(target / rel / name, content))
    prune(target, written, spare=spared)


__all__ = ["prune", "remove", "sync_tree", "write_file"]
