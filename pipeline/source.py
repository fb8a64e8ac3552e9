"""Reading upstream files: the public raw-file host, any HTTP mirror, or a local folder.

Every source maps ``(repository name, path)`` to bytes. A missing file is
:class:`NotPublished` (upstream has not published it; never retried); anything else that
goes wrong is a :class:`SourceError` whose message names the URL and what happened.

A source is untrusted: a mirror folder is never read outside its root
(:class:`OutsideSource`), HTTP never follows a redirect to another origin, and every
download has an overall deadline besides the per-read timeout.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import errno
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING

# httpx is imported where an HTTP source uses it: a folder or git source (and a
# quiet tick on one) never does, and the import costs ~70 ms.
if TYPE_CHECKING:
    import httpx


#: Larger than any summary file upstream has published (v5.1's is about 2.5 MB).
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
#: GitHub REST API root; tests point ``list_tree`` at a loopback server instead.
GITHUB_API = "https://api.github.com"
#: Overall time allowed for one download, retries included. A per-read timeout alone
#: never trips on a server that sends one byte every few seconds.
DEFAULT_DEADLINE_S = 300.0
#: Same-origin redirects followed per request; upstream needs at most one.
MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
#: Hosts that may receive ``GITHUB_TOKEN`` (HTTPS only); never a mirror.
GITHUB_TOKEN_HOSTS = frozenset({"api.github.com", "raw.githubusercontent.com"})
#: Statuses that mean "too many requests": wait as the server says, then retry.
_RATE_LIMITED = frozenset({403, 429})
#: The advice every rate-limit or truncation message ends with.
LIFT_LIMIT = (
    "set GITHUB_TOKEN, or read over git (MLPERF_SOURCE=git+https://github.com), "
    "which GitHub's REST limits do not apply to"
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
#: The top-level folders of a raw submission tree.
DIVISIONS = ("closed", "open", "network")


class SourceError(RuntimeError):
    """The source could not deliver a file; the message says which and why."""


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


@dataclass(frozen=True)
class _Reply:
    status_code: int
    headers: httpx.Headers
    body: bytes
    #: The URL that answered, after any same-origin redirects.
    url: str


def _walk_files(top: Path, inside: Path, walked: set[str]) -> Iterator[str]:
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


def _stamp(stat: os.stat_result) -> str:
    """A mirror file's validator: modification time (ns) and size, as probes say."""
    return f"{stat.st_mtime_ns}-{stat.st_size}"


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def repo_name(repository: str) -> str:
    """``owner/name`` (or a bare name) to the name, as mirror folders are named."""
    return repository.rsplit("/", 1)[-1]


def _owner(repository: str, default: str = "mlcommons") -> str:
    return repository.split("/", 1)[0] if "/" in repository else default


def _wait_s(headers: httpx.Headers, now: float) -> float | None:
    """Seconds a rate-limited reply asks us to wait, or None when it does not say.

    ``Retry-After`` is seconds or an HTTP date; GitHub's ``X-RateLimit-Reset`` is
    the epoch second the quota refills (sent with ``X-RateLimit-Remaining: 0``).
    """
    after = headers.get("retry-after", "").strip()
    if after:
        if after.isdigit():
            return float(after)
        try:
            when = email.utils.parsedate_to_datetime(after)
        except (TypeError, ValueError):
            when = None
        if when is not None:
            return max(0.0, when.timestamp() - now)
    reset = headers.get("x-ratelimit-reset", "").strip()
    if reset.isdigit() and headers.get("x-ratelimit-remaining", "").strip() == "0":
        return max(0.0, float(reset) - now)
    return None


def _utc(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass
class Source:
    """Reads ``<base>/<repo>/<path>`` from a folder or an HTTP(S) base URL.

    ``base`` may contain ``{repo}``; otherwise the repository name is appended as a
    path segment, which is the layout of ``../shared/mlperf-mirror``.
    """

    base: str
    timeout_s: float = 30.0
    #: Overall limit per download (all attempts, redirects and bytes), in seconds.
    deadline_s: float = DEFAULT_DEADLINE_S
    retries: int = 3
    backoff_s: float = 0.5
    max_bytes: int = DEFAULT_MAX_BYTES
    transport: httpx.BaseTransport | None = None
    #: Base of the git trees API; empty: derived from ``base`` (see tree_api_base).
    tree_api: str = ""
    #: Every URL requested, in order; lets tests prove what was (not) re-fetched.
    request_log: list[str] = field(default_factory=list)
    sleep: Callable[[float], None] = time.sleep
    _http: httpx.Client | None = field(default=None, init=False, repr=False)
    #: Mirror folders already resolved (symlinks followed), by their given path.
    _folders: dict[Path, Path] = field(default_factory=dict, init=False, repr=False)
    #: Each repository's resolved mirror folder (``url_for``).
    _roots: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    #: Folders this source's listings walked: real folders inside the mirror, so a
    #: file in one that is not itself a symlink is inside too (``_read_local``).
    _walked: set[str] = field(default_factory=set, init=False, repr=False)

    def tree_api_base(self) -> str:
        """Where trees are listed: GitHub's API for upstream, else the mirror's origin.

        A plain HTTP mirror cannot list folders; one that serves the same
        ``/repos/...`` path as GitHub's API (our test server does) can.
        """
        import httpx

        if self.tree_api:
            return self.tree_api
        if "raw.githubusercontent.com" in self.base:
            return GITHUB_API
        return str(httpx.URL(self.base.replace("{repo}", "x")).copy_with(path="/"))

    #: Whether reads are pinned to an upstream commit (the git source is).
    pins_commits = False

    @property
    def is_http(self) -> bool:
        """Whether the base is a URL rather than a folder."""
        return self.base.startswith(("http://", "https://"))

    def url_for(self, repo: str, path: str) -> str:
        """The address of one file, as recorded in snapshot sidecars."""
        repo = repo_name(repo)
        base = self.base.rstrip("/")
        root = base.replace("{repo}", repo) if "{repo}" in base else f"{base}/{repo}"
        if self.is_http:
            return f"{root}/{path.lstrip('/')}"
        if repo not in self._roots:
            self._roots[repo] = str(self._folder(Path(root)))
        return str(Path(self._roots[repo]) / path) if path else self._roots[repo]

    # -- local folder ---------------------------------------------------------------
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
        with open(descriptor, "rb") as handle:  # noqa: PTH123 (a descriptor)
            stat = os.fstat(descriptor)
            if not S_ISREG(stat.st_mode):
                raise NotPublished(
                    f"{url}: not published (no such file in the mirror)"
                )
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
            fetched_at=_now(),
            # The probe's validator, so what was read can be compared with it later.
            etag=_stamp(stat),
            last_modified=stat_time.replace(microsecond=0).isoformat(),
        )

    # -- HTTP ----------------------------------------------------------------------
    def _client(self) -> httpx.Client:
        import httpx

        # One client per source: a raw tree is hundreds of files, and a fresh
        # connection per file would dominate the cost. Redirects are followed by
        # hand (_attempt), so that none leads to another origin.
        if self._http is None:
            self._http = httpx.Client(
                timeout=httpx.Timeout(self.timeout_s),
                follow_redirects=False,
                transport=self.transport,
                headers={"User-Agent": "mlperf-ledger"},
            )
        return self._http

    def close(self) -> None:
        """Release the HTTP connection pool (also done when the source is collected)."""
        if self._http is not None:
            self._http.close()
            self._http = None

    def __del__(self) -> None:
        self.close()

    def _auth(self, url: str, headers: dict[str, str]) -> dict[str, str]:
        """``headers`` plus ``GITHUB_TOKEN`` when the URL is one of GitHub's hosts.

        Only over HTTPS to GitHub's API and raw-file host: a mirror, a local server
        or a redirect target never sees the token.
        """
        import httpx

        token = os.environ.get("GITHUB_TOKEN", "").strip()
        target = httpx.URL(url)
        if token and target.scheme == "https" and target.host in GITHUB_TOKEN_HOSTS:
            return headers | {"Authorization": f"Bearer {token}"}
        return headers

    def _request(self, method: str, url: str, headers: dict[str, str]) -> _Reply:
        """One request with bounded retries on 5xx, timeouts and connection errors.

        A rate-limited reply (429, or 403 with ``Retry-After`` or an exhausted
        ``X-RateLimit-Remaining``) is retried after the wait the server asks for,
        when that wait ends before the deadline; otherwise it fails saying when to
        retry. The whole download, retries included, ends at ``deadline_s``.
        """
        import httpx

        deadline = time.monotonic() + self.deadline_s
        headers = self._auth(url, headers)
        last_problem = ""
        waited = False  # a rate-limit wait replaces the backoff before a retry
        for attempt in range(self.retries + 1):
            if attempt and not waited:
                backoff = self.backoff_s * 2 ** (attempt - 1)
                # A retry that could only start past the deadline is not waited for.
                if time.monotonic() + backoff >= deadline:
                    raise self._past_deadline(url, last_problem)
                self.sleep(backoff)
            if attempt and time.monotonic() >= deadline:
                raise self._past_deadline(url, last_problem)
            waited = False
            self.request_log.append(url)
            try:
                reply = self._within_deadline(method, url, headers, deadline)
                if reply.status_code >= 500:
                    last_problem = f"HTTP {reply.status_code}"
                    continue
                if reply.status_code in _RATE_LIMITED:
                    wait = _wait_s(reply.headers, time.time())
                    if wait is None and reply.status_code == 403:
                        return reply  # a plain "forbidden": not a rate limit
                    if wait is None or time.monotonic() + wait >= deadline:
                        raise self._rate_limited(url, reply.status_code, wait)
                    last_problem = f"HTTP {reply.status_code} (rate limited)"
                    self.sleep(wait)
                    waited = True
                    continue
                return reply
            except httpx.TimeoutException:
                last_problem = f"timed out after {self.timeout_s:g} s"
            except httpx.RemoteProtocolError as exc:
                # A body shorter than its Content-Length: the connection was cut.
                last_problem = f"truncated response ({exc})"
            except httpx.DecodingError as exc:
                # A body its Content-Encoding does not describe (say "gzip, gzip"
                # over a body gzipped once): the server's error, not worth a retry.
                raise SourceError(
                    f"{url}: the response body does not decode as its "
                    f"Content-Encoding says ({exc})"
                ) from None
            except httpx.TransportError as exc:
                last_problem = f"connection failed ({exc.__class__.__name__}: {exc})"
        raise SourceError(
            f"{url}: gave up after {self.retries + 1} attempts; last: {last_problem}"
        )

    def _within_deadline(
        self, method: str, url: str, headers: dict[str, str], deadline: float
    ) -> _Reply:
        """Run one attempt, abandoning it at the deadline wherever it is blocked.

        The attempt checks the deadline between chunks itself; a server dripping its
        status line or headers blocks inside httpx, so the attempt runs in a worker
        thread and the connection pool is closed under it when time is up.
        """
        outcome: dict[str, object] = {}

        def attempt() -> None:
            try:
                outcome["reply"] = self._attempt(method, url, headers, deadline)
            except BaseException as exc:  # handed to the caller below
                outcome["error"] = exc

        worker = threading.Thread(target=attempt, name="mlperf-fetch", daemon=True)
        worker.start()
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            self.close()  # drops the stalled connection; the worker then ends
            raise self._past_deadline(url)
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["reply"]  # type: ignore[return-value]

    def _attempt(
        self, method: str, url: str, headers: dict[str, str], deadline: float
    ) -> _Reply:
        """One request, following same-origin redirects only, body capped in size."""
        import httpx

        current = httpx.URL(url)
        for _ in range(MAX_REDIRECTS + 1):
            with self._client().stream(method, current, headers=headers) as response:
                location = response.headers.get("location")
                if response.status_code in _REDIRECTS and location:
                    target = current.join(location)
                    if _origin(target) != _origin(current):
                        raise SourceError(
                            f"{url}: redirected (HTTP {response.status_code}) to "
                            f"another host {target}; not followed"
                        )
                    current = target
                    continue
                if response.status_code >= 500:
                    return _Reply(response.status_code, response.headers, b"", url)
                declared = int(response.headers.get("content-length") or 0)
                if declared > self.max_bytes:
                    raise TooLarge(url, f"{declared} bytes", self.max_bytes)
                body = bytearray()
                for chunk in response.iter_bytes():
                    body.extend(chunk)
                    if len(body) > self.max_bytes:
                        raise TooLarge(url, "the body", self.max_bytes)
                    if time.monotonic() >= deadline:
                        raise self._past_deadline(url)
                return _Reply(
                    response.status_code, response.headers, bytes(body), str(current)
                )
        raise SourceError(f"{url}: more than {MAX_REDIRECTS} redirects; not followed")

    def _rate_limited(self, url: str, status: int, wait: float | None) -> SourceError:
        when = (
            f"retry after {_utc(time.time() + wait)} (in {wait:.0f} s, past the "
            f"deadline of {self.deadline_s:g} s)"
            if wait is not None
            else "the server gave no time to retry"
        )
        return SourceError(f"{url}: rate limited (HTTP {status}); {when}; {LIFT_LIMIT}")

    def _past_deadline(self, url: str, last_problem: str = "") -> SourceError:
        """Named with what the last attempt met: "refused" is not "slow"."""
        last = f" (last attempt: {last_problem})" if last_problem else ""
        return SourceError(
            f"{url}: not finished within the overall deadline of "
            f"{self.deadline_s:g} s; gave up{last}"
        )

    def _check_status(self, url: str, response: _Reply) -> None:
        if response.status_code == 404:
            raise NotPublished(f"{url}: not published (HTTP 404)")
        if response.status_code >= 400:
            raise SourceError(f"{url}: HTTP {response.status_code}")

    # -- public API ----------------------------------------------------------------
    def fetch(
        self,
        repo: str,
        path: str,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> Fetched:
        """Read one file completely, or raise NotPublished / SourceError.

        Over HTTP, the validators of a stored version make the request conditional:
        a 304 answer comes back as ``not_modified`` with no content downloaded.
        """
        if not self.is_http:
            return self._read_local(repo, path)
        url = self.url_for(repo, path)
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        response = self._request("GET", url, headers)
        if response.status_code == 304 and headers:
            return Fetched(
                url=response.url,
                content=b"",
                fetched_at=_now(),
                etag=etag,
                last_modified=last_modified,
                not_modified=True,
            )
        self._check_status(url, response)
        return Fetched(
            url=response.url,
            content=response.body,
            fetched_at=_now(),
            etag=response.headers.get("etag"),
            last_modified=response.headers.get("last-modified"),
        )

    def probe(
        self,
        repo: str,
        path: str,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> Probe:
        """Ask whether a file exists (and changed) without downloading it if possible.

        HTTP sources send a conditional HEAD request, so a quiet day costs a few
        hundred bytes; a 304 answer means unchanged since the given validators.
        """
        url = self.url_for(repo, path)
        if not self.is_http:
            self.request_log.append(url)
            file = self._contained(repo, path)
            if not file.is_file():
                return Probe(url=url, exists=False)
            stamp = _stamp(file.stat())
            return Probe(url=url, exists=True, etag=stamp, not_modified=stamp == etag)
        headers = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        response = self._request("HEAD", url, headers)
        if response.status_code == 404:
            return Probe(url=url, exists=False)
        if response.status_code == 304:
            return Probe(url=url, exists=True, etag=etag, not_modified=True)
        self._check_status(url, response)
        return Probe(
            url=url,
            exists=True,
            etag=response.headers.get("etag"),
            last_modified=response.headers.get("last-modified"),
        )

    def stamps(self, repo: str, paths: Iterable[str]) -> str:
        """One hash of the files' modification times and sizes (a mirror folder).

        What discovery compares hourly for a raw tree: a stat per file the tree
        snapshot read, far cheaper than walking the tree. ``lstat``, so nothing
        outside the mirror is looked at; a missing file counts as "absent".
        """
        root = Path(self.url_for(repo, ""))
        entries = []
        for path in sorted(paths):
            try:
                entries.append([path, _stamp((root / path).lstat())])
            except OSError:
                entries.append([path, "absent"])
        return hashlib.sha256(json.dumps(entries).encode()).hexdigest()

    def has_round(self, repo: str) -> bool | None:
        """Whether the source has the round's repository at all (None: cannot say).

        A mirror folder answers with one stat. An HTTP mirror cannot tell a missing
        repository from a missing file without the downloads a run makes anyway.
        """
        if self.is_http:
            return None
        return Path(self.url_for(repo, "")).is_dir()

    def has_tree(self, repo: str) -> bool:
        """Whether a mirror folder holds any division folder (no walk, no listing)."""
        root = Path(self.url_for(repo, ""))
        return any((root / division).is_dir() for division in DIVISIONS)

    def commit(self, repository: str) -> str | None:
        """The upstream commit a read would be of; unknown for folders and HTTP."""
        return None

    def prefetch(self, repository: str, paths: object) -> None:
        """Nothing to batch: a folder or HTTP mirror is read file by file."""

    def list_tree(
        self,
        repo: str,
        prefixes: tuple[str, ...] = DIVISIONS,
        *,
        api_base: str | None = None,
        owner: str | None = None,
    ) -> list[str]:
        """Repository-relative paths of every file under the given top-level folders.

        See :meth:`listing`; this is its ``paths``.
        """
        return self.listing(repo, prefixes, api_base=api_base, owner=owner).paths

    def listing(
        self,
        repo: str,
        prefixes: tuple[str, ...] = DIVISIONS,
        *,
        api_base: str | None = None,
        owner: str | None = None,
        etag: str | None = None,
    ) -> Listing:
        """Every file under the given top-level folders, with blob ids where known.

        The raw submission tree has no index file, so scanning it starts from a
        listing. A local mirror is walked; over HTTP one call to GitHub's git trees
        API (``/repos/{owner}/{repo}/git/trees/HEAD?recursive=1``) lists the whole
        repository, because raw-file hosts cannot list folders. A listing GitHub
        marks as truncated is refused rather than returned: a partial listing would
        silently drop results.

        Args:
            repo: ``owner/name`` (or the name alone), e.g.
                ``mlcommons/inference_results_v5.1``.
            prefixes: Top-level folders to keep (the divisions).
            api_base: Root of the GitHub REST API (HTTP sources only).
            owner: Repository owner on GitHub (HTTP sources only); by default the
                owner in ``repo``, else ``mlcommons``.
            etag: The validator of a listing read before (HTTP sources only): a
                304 answer comes back as ``not_modified`` with no paths.

        Raises:
            NotPublished: no such repository folder or repository (HTTP 404).
            SourceError: the listing could not be fetched, decoded, or is truncated.
        """
        wanted = tuple(p.strip("/") for p in prefixes)
        if not self.is_http:
            root = Path(self.url_for(repo, ""))
            self.request_log.append(str(root))
            if not root.is_dir():
                raise NotPublished(
                    f"{root}: not published (no such folder in the mirror)"
                )
            # A division folder leading out of the mirror is refused, not walked;
            # below it, see _walk_files.
            inside = self._local_root(repo)
            self._contained(repo, "", "folder")
            for prefix in wanted:
                self._contained(repo, prefix, "folder")
            start = len(os.fspath(root)) + 1
            return Listing(
                sorted(
                    path[start:].replace(os.sep, "/")
                    for prefix in wanted
                    if (root / prefix).is_dir()
                    for path in _walk_files(root / prefix, inside, self._walked)
                )
            )
        api = (api_base or self.tree_api_base()).rstrip("/")
        who = owner or _owner(repo)
        url = f"{api}/repos/{who}/{repo_name(repo)}/git/trees/HEAD?recursive=1"
        headers = {"Accept": "application/vnd.github+json"}
        if etag:
            headers["If-None-Match"] = etag
        response = self._request("GET", url, headers)
        if response.status_code == 304 and etag:
            return Listing([], etag=etag, not_modified=True)
        self._check_status(url, response)
        try:
            listing = json.loads(response.body)
            entries = listing["tree"]
            if not isinstance(entries, list):
                raise TypeError("'tree' is not a list")
        except (ValueError, KeyError, TypeError) as exc:
            raise SourceError(
                f"{url}: not a git trees listing ({exc.__class__.__name__}: {exc})"
            ) from None
        if listing.get("truncated"):
            raise SourceError(
                f"{url}: GitHub truncated the listing ({len(entries)} entries; it "
                "lists at most 100,000 entries or 7 MB); refusing an incomplete tree; "
                + LIFT_LIMIT.replace("set GITHUB_TOKEN, or read", "read")
            )
        blobs = {
            entry["path"]: entry.get("sha")
            for entry in entries
            if isinstance(entry, dict)
            and entry.get("type") == "blob"
            and isinstance(entry.get("path"), str)
            and entry["path"].split("/", 1)[0] in wanted
        }
        malformed = [
            f"entry {index}: {json.dumps(entry)[:60]} (not an object with a path)"
            for index, entry in enumerate(entries)
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str)
        ]
        return Listing(
            sorted(blobs),
            oids={p: o for p, o in blobs.items() if isinstance(o, str)},
            malformed=malformed,
            etag=response.headers.get("etag"),
        )
