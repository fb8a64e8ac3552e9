"""What every source shares: the errors, what a read returns, limits and names.

Every source (a mirror folder, HTTP, git: ``pipeline.gitsource``) maps
``(repository name, path)`` to bytes. A missing file is :class:`NotPublished`
(upstream has not published it; never retried); anything else that goes wrong is a
:class:`SourceError` whose message names the URL and what happened.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field

from pipeline.redact import redact_text, redact_url

#: Larger than any summary file upstream has published (v5.1's is about 2.5 MB).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: GitHub REST API root; tests point ``list_tree`` at a loopback server instead.
GITHUB_API = "https://api.github.com"
#: Overall time allowed for one download, retries included. A per-read timeout alone
#: never trips on a server that sends one byte every few seconds.
DEFAULT_DEADLINE_S = 300.0
#: Same-origin redirects followed per request; upstream needs at most one.
MAX_REDIRECTS = 5
#: Hosts that may receive ``GITHUB_TOKEN`` (HTTPS only); never a mirror.
GITHUB_TOKEN_HOSTS = frozenset({"api.github.com", "raw.githubusercontent.com"})
#: The advice every rate-limit or truncation message ends with.
LIFT_LIMIT = (
    "set GITHUB_TOKEN, or read over git (MLPERF_SOURCE=git+https://github.com), "
    "which GitHub's REST limits do not apply to"
)
#: The top-level folders of a raw submission tree.
DIVISIONS = ("closed", "open", "network")


class SourceError(RuntimeError):
    """The source could not deliver a file; the message says which and why.

    A URL's credentials never reach the message (``pipeline.redact``).
    """

    def __init__(self, message: object = "", *args: object) -> None:
        super().__init__(redact_text(str(message)), *args)


class NotPublished(SourceError):
    """The file does not exist at the source (HTTP 404 or no such local file)."""


class OutsideSource(SourceError):
    """A mirror path resolves outside the mirror (symlink or ``..``); never read."""


def cap_text(max_bytes: int) -> str:
    """The size cap as a run line says it: "64 MB" (MiB, as the constant is written).

    A cap that is no whole number of MB (a test's) is said in bytes: "1000-byte".
    """
    mib = 1024 * 1024
    if max_bytes >= mib and max_bytes % mib == 0:
        return f"{max_bytes // mib} MB"
    return f"{max_bytes}-byte"


class TooLarge(SourceError):
    """A file over the size cap, refused while reading: never held whole in memory.

    Every source raises it with the same words (the file, its size where known,
    the cap), so a raw tree names it as one refused file and reads the rest.
    """

    def __init__(self, url: str, what: str, max_bytes: int) -> None:
        short = cap_text(max_bytes)
        super().__init__(
            f"{url}: {what} exceeds the cap of {max_bytes} bytes"
            + ("" if short.endswith("-byte") else f" ({short})")
            + "; not read"
        )
        self.max_bytes = max_bytes


@dataclass(frozen=True)
class Fetched:
    """Bytes of one upstream file and what the source said about them."""

    url: str
    content: bytes
    fetched_at: dt.datetime
    etag: str | None = None
    last_modified: str | None = None
    #: The server said the stored version is current (HTTP 304); ``content`` is empty.
    not_modified: bool = False

    def __post_init__(self) -> None:
        # Stored in sidecars and served.json, shown on Audit: never a password.
        object.__setattr__(self, "url", redact_url(self.url))


@dataclass(frozen=True)
class Listing:
    """The files of one round's repository, as the source lists them.

    ``oids`` holds each file's git blob id where the source gives it (git and
    GitHub's trees API do), so a file whose blob is already stored is not fetched
    again; ``commit`` is the upstream commit the listing is of, where known.
    """

    paths: list[str]
    oids: dict[str, str] = field(default_factory=dict)
    commit: str | None = None
    commit_date: str | None = None
    #: Listed paths that must not be read, with the reason (e.g. a symbolic link).
    unread: dict[str, str] = field(default_factory=dict)
    #: Listing entries that name no file (not an object, no path): each described.
    malformed: list[str] = field(default_factory=list)
    #: The listing's HTTP validator, and whether the server said it is unchanged
    #: since the one sent (then ``paths`` is empty: nothing was downloaded).
    etag: str | None = None
    not_modified: bool = False

    def fingerprint(self) -> str:
        """One hash of every path with its blob id, the unread and the malformed.

        Stored with the tree snapshot, so discovery tells an unchanged tree from a
        changed one by listing it, without reading a file (blob ids are content).
        """
        entries = [[p, self.oids.get(p, "")] for p in self.paths]
        document = [entries, sorted(self.unread), self.malformed]
        return hashlib.sha256(json.dumps(document).encode()).hexdigest()


@dataclass(frozen=True)
class Probe:
    """Whether a file exists, learnt as cheaply as the source allows."""

    url: str
    exists: bool
    etag: str | None = None
    last_modified: str | None = None
    not_modified: bool = False


def now() -> dt.datetime:
    """The current UTC time to the second, as sources stamp what they fetched."""
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def repo_name(repository: str) -> str:
    """``owner/name`` (or a bare name) to the name, as mirror folders are named."""
    return repository.rsplit("/", 1)[-1]


def owner_of(repository: str, default: str = "mlcommons") -> str:
    """The owner of ``owner/name``; ``default`` for a bare name."""
    return repository.split("/", 1)[0] if "/" in repository else default
