"""Reading a mirror folder laid out like upstream: ``<base>/<repo>/<path>``.

A mirror folder is untrusted: it is never read outside its root
(:class:`OutsideSource`), a symbolic link is followed only where it stays inside, and
no file over the size cap is read past the cap (``DEFAULT_MAX_BYTES``).
"""

from __future__ import annotations

import datetime as dt
import errno
import os
from collections.abc import Iterator
from pathlib import Path
from stat import S_ISDIR, S_ISREG

from pipeline.source.common import (
    Fetched,
    NotPublished,
    OutsideSource,
    TooLarge,
    now,
    repo_name,
)


def walk_files(top: Path, inside: Path, walked: set[str]) -> Iterator[str]:
    """Every file to list below a mirror folder (``os.scandir``, one pass).

    The entries' types come with the folder listing, so a plain file costs no
    system call of its own (``rglob`` and a check per entry stat-ed each one
    twice: 37.5k folders and files for 12.7k files). Symlinked folders are not
    descended into; a symlink leading out of ``inside`` is listed by its name,
    never stat-ed, so that fetch refuses it and the scan reports it rather than
    losing it; a symlink inside is listed when it names a file. Folders that
    cannot be read are skipped, as ``rglob`` skipped them. Every folder read is
    added to ``walked``: ``top`` is inside the mirror and no symlinked folder is
    descended into, so each of them is a real folder inside it.
    """
    folders = [os.fspath(top)]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except PermissionError:
            continue
        walked.add(folder)
        for entry in listed:
            if entry.is_symlink():
                # Out of the mirror: listed unseen (``or`` stops before the stat).
                leads_out = not Path(entry.path).resolve().is_relative_to(inside)
                if leads_out or entry.is_file():
                    yield entry.path
            elif entry.is_dir(follow_symlinks=False):
                folders.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                yield entry.path


def file_stamp(stat: os.stat_result) -> str:
    """A mirror file's validator: modification time (ns) and size, as probes say."""
    return f"{stat.st_mtime_ns}-{stat.st_size}"


class FolderReads:
    """``Source``'s reads of a mirror folder (mixed into ``pipeline.source.Source``)."""

    def _folder(self, folder: Path) -> Path:
        """``folder.resolve()``, once per folder for the life of this source.

        A raw tree reads thousands of files in a few hundred folders; resolving every
        component of every file's path again was ~0.6 ms a file.
        """
        if folder not in self._folders:
            self._folders[folder] = folder.resolve()
        return self._folders[folder]

    def _resolve(self, path: Path) -> Path:
        """``path.resolve()``: its folder resolved once, the file itself each time."""
        candidate = self._folder(path.parent) / path.name
        if path.name in ("", "..") or candidate.is_symlink():
            return candidate.resolve()
        return candidate

    def _local_root(self, repo: str) -> Path:
        """The folder a mirror may be read in: the base (or ``{repo}``'s folder)."""
        return self._folder(Path(self.base.replace("{repo}", repo_name(repo))))

    def _contained(self, repo: str, path: str, what: str = "file") -> Path:
        """The resolved mirror path of ``path``, refused if it leads out of the root.

        Checked before anything is opened or even stat-ed, so the content (and size
        or date) of a file outside the mirror never reaches a snapshot or a message.
        Callers read the resolved path, so a link swapped after the check is not
        followed either.
        """
        resolved = self._resolve(Path(self.url_for(repo, path)))
        if not resolved.is_relative_to(self._local_root(repo)):
            how = (
                "path leads outside the mirror"
                if ".." in Path(path).parts
                else f"symlink to a {what} outside the mirror"
            )
            verb = "listed" if what == "folder" else "read"
            where = f"{repo_name(repo)}/{path}".rstrip("/")
            raise OutsideSource(
                f"{where}: resolves outside the source root ({how}); not {verb}"
            )
        return resolved

    def _open_local(self, repo: str, path: str, url: str) -> int | None:
        """A read-only descriptor of the mirror file, or None when there is none.

        A file of a folder this source listed (``_walked``) is opened without
        following a symlink in its own name: it is inside the mirror then, with no
        path resolved or stat-ed first (a raw tree is ~10,000 files). A symlink, or
        a path outside what was listed, is resolved and checked by ``_contained``
        before anything is opened. Non-blocking, so a FIFO does not hang the read.
        """
        flags = os.O_RDONLY | os.O_NONBLOCK
        if os.path.dirname(url) in self._walked:  # noqa: PTH120 (10,000 a tree)
            try:
                return os.open(url, flags | os.O_NOFOLLOW)
            except OSError as exc:
                if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                    return None
                if exc.errno != errno.ELOOP:  # a symlink: checked below
                    raise
        file = self._contained(repo, path)
        try:
            return os.open(file, flags)
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _read_local(self, repo: str, path: str) -> Fetched:
        url = self.url_for(repo, path)
        self.request_log.append(url)
        descriptor = self._open_local(repo, path, url)
        if descriptor is None:
            raise NotPublished(f"{url}: not published (no such file in the mirror)")
        # Stat-ed before the descriptor becomes a file object: a folder opens
        # read-only, and reading it raised "IsADirectoryError: [Errno 21] Is a
        # directory: 21", naming the descriptor, not the path.
        try:
            stat = os.fstat(descriptor)
        except OSError:
            os.close(descriptor)
            raise
        if not S_ISREG(stat.st_mode):
            os.close(descriptor)
            kind = "a folder" if S_ISDIR(stat.st_mode) else "not a regular file"
            raise NotPublished(f"{url}: not published ({kind} in the mirror)")
        with open(descriptor, "rb") as handle:  # noqa: PTH123 (a descriptor)
            if stat.st_size > self.max_bytes:
                raise TooLarge(url, f"{stat.st_size} bytes", self.max_bytes)
            # Read with the cap checked as it reads: a file growing after the stat
            # is stopped at one byte past the cap, never read whole.
            content = handle.read(self.max_bytes + 1)
        if len(content) > self.max_bytes:
            raise TooLarge(url, "the file (it grew while read)", self.max_bytes)
        stat_time = dt.datetime.fromtimestamp(stat.st_mtime, dt.UTC)
        return Fetched(
            url=url,
            content=content,
            fetched_at=now(),
            # The probe's validator, so what was read can be compared with it later.
            etag=file_stamp(stat),
            last_modified=stat_time.replace(microsecond=0).isoformat(),
        )

    # -- HTTP ----------------------------------------------------------------------
