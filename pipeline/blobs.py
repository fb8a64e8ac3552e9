"""Raw-tree files stored once each by sha256, a round's new files in one pack.

Layout under ``<data dir>/raw/blobs/``::

    packs/<sha256 of the pack>.pack   the files' bytes, one after the other
    packs/<sha256 of the pack>.idx    JSON: {"blobs": {sha256: [offset, size]}}
    <sha256[:2]>/<sha256>             one file (stores written before packs; read only)

A round's raw tree is ~10,000 small files. Written one file each (a temporary name,
then a rename into place) they were ~1.9 s of a cold build's syscalls; a round's new
files now go into one pack, written once when the round's fetch ends (``pack``). The
index is written after its pack and is what makes it count: a pack without an index
(a crash between the two) is never read, and every file is verified against its
sha256 on every read, so no half-written or damaged file is ever served.

Packs are named by their content, so two processes storing rounds at once (Dagster's
multiprocess executor) never write the same name with different bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: An index entry: the pack's path, the file's offset in it and its size.
Entry = tuple[str, int, int]


def sha256_hex(content: bytes) -> str:
    """Hex sha256 of bytes: the identity of a raw-tree file and of a snapshot."""
    return hashlib.sha256(content).hexdigest()


class BlobStore:
    """Content-addressed raw-tree files below one folder (``raw/blobs``).

    ``cannot_write`` turns an ``OSError`` of a write into the store's own error, which
    names the data directory the user chose rather than a pack's name.
    """

    def __init__(
        self, folder: str, cannot_write: Callable[[OSError], Exception]
    ) -> None:
        self.folder = folder
        self._packs = f"{folder}/packs"
        self._cannot_write = cannot_write
        #: Every file of every indexed pack; None until first needed.
        self._index: dict[str, Entry] | None = None
        #: Files put since the open ``pack()`` began (None: no pack is open).
        self._pending: dict[str, bytes] | None = None
        self._descriptors: dict[str, int] = {}

    def has(self, sha256: str) -> bool:
        """Whether a file with this hash is stored (or waits in the open pack)."""
        if self._pending is not None and sha256 in self._pending:
            return True
        return sha256 in self._indexed() or os.path.isfile(self._loose(sha256))  # noqa: PTH113

    def put(self, content: bytes) -> str:
        """Store one file by content and return its sha256; identical files once.

        Inside ``pack()`` the file waits for the pack; outside, it is a pack of one.
        """
        digest = sha256_hex(content)
        if self._pending is not None:
            if not self.has(digest):
                self._pending[digest] = content
            return digest
        with self.pack():
            self.put(content)
        return digest

    def get(self, sha256: str) -> bytes:
        """A stored file's bytes, verified against its hash.

        Raises:
            FileNotFoundError: nothing is stored under this hash.
            ValueError: the stored bytes no longer match it.
        """
        if self._pending is not None and sha256 in self._pending:
            return self._pending[sha256]
        content = self._packed(sha256)
        if content is None:
            try:
                with open(self._loose(sha256), "rb") as blob:  # noqa: PTH123
                    content = blob.read()
            except FileNotFoundError:
                self._index = None  # another process may have packed it since
                content = self._packed(sha256)
                if content is None:
                    raise
        if sha256_hex(content) != sha256:
            raise ValueError(f"blob {sha256} is corrupt: its sha256 no longer matches")
        return content

    @contextmanager
    def pack(self) -> Iterator[None]:
        """Files put inside go into one pack, written when the block ends.

        Written on an error too: what did arrive is kept (a fetch that fails half
        way reads it from the store next time). A write that fails raises the
        store's error and leaves neither a pack nor a scratch file.
        """
        if self._pending is not None:  # already inside one: that one writes them
            yield
            return
        self._pending = {}
        try:
            yield
        finally:
            pending, self._pending = self._pending, None
            if pending:
                self._write_pack(pending)

    def _write_pack(self, files: dict[str, bytes]) -> None:
        offsets, position = {}, 0
        for sha in sorted(files):
            offsets[sha] = [position, len(files[sha])]
            position += len(files[sha])
        body = b"".join(files[sha] for sha in offsets)
        name = f"{self._packs}/{sha256_hex(body)}"
        index = json.dumps({"blobs": offsets}, sort_keys=True).encode()
        if not os.path.isfile(f"{name}.idx"):  # noqa: PTH113 (else: stored already)
            written: list[str] = []
            try:
                os.makedirs(self._packs, exist_ok=True)  # noqa: PTH103
                write_whole(f"{name}.pack", body)
                written.append(f"{name}.pack")
                write_whole(f"{name}.idx", index)
            except OSError as exc:
                for path in written:  # a pack is never left without its index
                    os.unlink(path)  # noqa: PTH108
                raise self._cannot_write(exc) from None
        if self._index is not None:
            self._index.update(
                (sha, (f"{name}.pack", offset, size))
                for sha, (offset, size) in offsets.items()
            )

    def _indexed(self) -> dict[str, Entry]:
        if self._index is None:
            index: dict[str, Entry] = {}
            try:
                names = sorted(os.listdir(self._packs))  # noqa: PTH208
            except FileNotFoundError:
                names = []
            for name in names:
                if not name.endswith(".idx"):
                    continue
                pack = f"{self._packs}/{name[: -len('.idx')]}.pack"
                try:
                    with open(f"{self._packs}/{name}", "rb") as handle:  # noqa: PTH123
                        blobs = json.loads(handle.read())["blobs"]
                    entries = [
                        (sha, (pack, at, size)) for sha, (at, size) in blobs.items()
                    ]
                except (OSError, ValueError, KeyError, TypeError, AttributeError):
                    continue  # a damaged index: its files are fetched again
                index.update(entries)
            self._index = index
        return self._index

    def _packed(self, sha256: str) -> bytes | None:
        """The file's bytes from its pack (unverified), or None if no pack has it."""
        entry = self._indexed().get(sha256)
        if entry is None:
            return None
        pack, offset, size = entry
        descriptor = self._descriptors.get(pack)
        if descriptor is None:
            descriptor = self._descriptors[pack] = os.open(pack, os.O_RDONLY)
        return os.pread(descriptor, size, offset)

    def _loose(self, sha256: str) -> str:
        return f"{self.folder}/{sha256[:2]}/{sha256}"

    def close(self) -> None:
        """Close the packs opened for reading."""
        for descriptor in self._descriptors.values():
            os.close(descriptor)
        self._descriptors.clear()

    def __del__(self) -> None:
        self.close()


def write_whole(path: str, content: bytes) -> None:
    """``content`` under ``path``, never seen half written (scratch name, rename).

    The scratch file is hidden, in the same folder (which must exist), and named by
    this process, so two processes never share one; a failure (a full disk) leaves
    none behind. Used for packs, their indexes, snapshots and the Vega bundle.
    """
    folder, name = os.path.split(path)
    part = f"{folder}/.{name}.{os.getpid()}.part"
    try:
        descriptor = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(content)
            while view:
                view = view[os.write(descriptor, view) :]
        finally:
            os.close(descriptor)
        os.replace(part, path)  # noqa: PTH105
    except BaseException:
        if os.path.exists(part):  # noqa: PTH110
            os.unlink(part)  # noqa: PTH108
        raise
