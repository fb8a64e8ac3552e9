"""Reading upstream over git: each round's repository at a pinned commit.

``MLPERF_SOURCE=git+<base>`` reads the repository ``<base>/<owner>/<name>.git`` (owner
and name from ``releases.toml``). The commit comes from one ``git ls-remote``; the
listing from a shallow, blob-less fetch of that commit (trees only); the files a rule
reads from one batched fetch of exactly their blob ids. So a round costs a handful of
requests and the bytes of the files read, whatever else its repository holds (code,
compliance runs, large binaries), and GitHub's REST limits and listing truncation do
not apply. Everything goes through the git command line; there is no protocol code
here.

Clones are kept under ``settings.git_cache_dir()``, one bare repository per remote,
reused:
an object already fetched is never fetched again, and a commit already listed costs
no request beyond ``ls-remote``.
"""

from __future__ import annotations

import base64
import datetime as dt
import fcntl
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.source import (
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_BYTES,
    Fetched,
    Listing,
    NotPublished,
    Probe,
    SourceError,
    TooLarge,
)

#: Sparse checkout and partial clone as used here need git 2.25 or newer.
MIN_GIT = (2, 25)
GIT_PREFIX = "git+"
#: Hosts a GITHUB_TOKEN may be sent to (never to a mirror or a local server).
GITHUB_HOSTS = ("github.com",)
_SHA = re.compile(r"[0-9a-f]{40}")
#: git's own words for a repository the server does not have. GitHub answers an
#: anonymous request for a repository that does not exist (or is private) with 401,
#: which git, with prompts off, reports as not being able to read a username.
_MISSING = re.compile(
    r"repository '.*' not found|not found|HTTP 404|does not appear to be a git "
    r"repository|returned error: 404|could not read Username|terminal prompts "
    r"disabled|Authentication failed|returned error: 401",
    re.I,
)
#: Failures worth another attempt: the server or the connection, not the request.
_TRANSIENT = re.compile(
    r"HTTP 5\d\d|returned error: 5\d\d|RPC failed|early EOF|Connection (reset|refused)"
    r"|timed out|Could not resolve host|Failed to connect|transfer closed"
    r"|remote end hung up|Operation too slow",
    re.I,
)


class GitMissing(SourceError):
    """The git command line is absent or too old; the message says what is needed."""


def git_version(git: str = "git") -> tuple[int, int]:
    """The installed git's (major, minor), or :class:`GitMissing` saying what to do."""
    found = shutil.which(git)
    if found is None:
        raise GitMissing(
            "the git source needs the git command line (2.25 or newer), and none is "
            "on PATH: install git (e.g. apt-get install git) or point MLPERF_SOURCE "
            "at a mirror folder or an http(s):// mirror"
        )
    out = subprocess.run(
        [found, "--version"], capture_output=True, text=True, check=False
    ).stdout
    match = re.search(r"(\d+)\.(\d+)", out)
    version = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
    if version < MIN_GIT:
        raise GitMissing(
            f"the git source needs git {MIN_GIT[0]}.{MIN_GIT[1]} or newer for partial "
            f"clone and sparse fetch; {found} is {out.strip() or 'unknown'}"
        )
    return version


@dataclass(frozen=True)
class _Round:
    """One repository at one commit: what ``ls-remote`` and ``ls-tree`` said."""

    remote: str
    commit: str
    #: path -> (mode, blob id) of every file at the commit.
    entries: dict[str, tuple[str, str]]
    commit_date: str | None
    #: Listed files whose names cannot be read, each described.
    malformed: tuple[str, ...] = ()


@dataclass
class GitSource:
    """Reads ``<base>/<owner>/<name>.git`` at the commit of its default branch."""

    base: str
    cache: Path
    timeout_s: float = 30.0
    deadline_s: float = DEFAULT_DEADLINE_S
    retries: int = 3
    backoff_s: float = 0.5
    max_bytes: int = DEFAULT_MAX_BYTES
    git: str = "git"
    #: One line per git command that talked to the server, in order.
    request_log: list[str] = field(default_factory=list)
    _commits: dict[str, str] = field(default_factory=dict, init=False, repr=False)
    _rounds: dict[str, _Round] = field(default_factory=dict, init=False, repr=False)
    _blobs: dict[str, bytes] = field(default_factory=dict, init=False, repr=False)
    #: Blob id -> size of fetched blobs over ``max_bytes``: never read.
    _oversized: dict[str, int] = field(default_factory=dict, init=False, repr=False)

    is_http = False
    pins_commits = True

    def __post_init__(self) -> None:
        self.remote_base = self.base.removeprefix(GIT_PREFIX).rstrip("/")

    # -- addresses ------------------------------------------------------------------
    def remote(self, repository: str) -> str:
        """The clone URL of ``owner/name``."""
        return f"{self.remote_base}/{repository}.git"

    def url_for(self, repository: str, path: str) -> str:
        """Where a file was read: the remote, the commit (once known) and the path."""
        commit = self._commits.get(repository)
        at = f"@{commit}" if commit else ""
        return f"{GIT_PREFIX}{self.remote(repository)}{at}:{path}"

    def close(self) -> None:
        """Nothing to release: every git process has ended when its call returns."""

    # -- running git ----------------------------------------------------------------
    def _env(self, remote: str) -> dict[str, str]:
        env = {
            **os.environ,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "LC_ALL": "C",
        }
        config = [
            ("protocol.version", "2"),
            # A stalled transfer fails after timeout_s below 1 kB/s, like HTTP's
            # per-read timeout; the deadline bounds the whole command.
            ("http.lowSpeedLimit", "1000"),
            ("http.lowSpeedTime", str(max(1, round(self.timeout_s)))),
            ("gc.auto", "0"),
            ("maintenance.auto", "false"),
        ]
        token = os.environ.get("GITHUB_TOKEN", "").strip()
        host = re.match(r"https://([^/:]+)/", remote)
        if token and host and host.group(1) in GITHUB_HOSTS:
            basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
            config.append(
                (
                    f"http.https://{host.group(1)}/.extraheader",
                    f"Authorization: Basic {basic}",
                )
            )
        env["GIT_CONFIG_COUNT"] = str(len(config))
        for index, (key, value) in enumerate(config):
            env[f"GIT_CONFIG_KEY_{index}"] = key
            env[f"GIT_CONFIG_VALUE_{index}"] = value
        return env

    def _run(
        self,
        args: list[str],
        *,
        remote: str,
        what: str,
        stdin: bytes = b"",
        network: bool = False,
    ) -> bytes:
        """One git command; a network one is retried on transient failures.

        Every attempt runs in its own process group, killed whole at the deadline
        (git starts helpers such as ``git-remote-http`` that would outlive it).
        """
        deadline = time.monotonic() + self.deadline_s
        attempts = self.retries + 1 if network else 1
        problem = ""
        for attempt in range(attempts):
            if attempt:
                time.sleep(self.backoff_s * 2 ** (attempt - 1))
            left = deadline - time.monotonic()
            if network:
                self.request_log.append(f"{what}: {remote}")
            code, out, err = (
                (None, b"", "") if left <= 0 else self._spawn(args, remote, stdin, left)
            )
            if code is None:
                raise SourceError(
                    f"{remote}: {what} not finished within the overall deadline of "
                    f"{self.deadline_s:g} s; gave up"
                )
            if code == 0:
                return out
            problem = _last_lines(err)
            if network and _MISSING.search(problem) and not _TRANSIENT.search(problem):
                raise NotPublished(f"{remote}: not published ({problem})")
            if not (network and _TRANSIENT.search(problem)):
                raise SourceError(f"{remote}: {what} failed: {problem}")
        raise SourceError(
            f"{remote}: {what} gave up after {attempts} attempts; last: {problem}"
        )

    def _spawn(
        self, args: list[str], remote: str, stdin: bytes, left: float
    ) -> tuple[int | None, bytes, str]:
        try:
            process = subprocess.Popen(
                [self.git, *args],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env(remote),
                start_new_session=True,
            )
        except OSError as exc:
            raise GitMissing(f"cannot run {self.git}: {exc.strerror or exc}") from None
        try:
            out, err = process.communicate(stdin, timeout=left)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            return None, b"", ""
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
        return process.returncode, out, err.decode("utf-8", "replace")

    # -- the clone cache ------------------------------------------------------------
    def _clone_dir(self, remote: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", remote.split("://", 1)[-1]).strip("_")
        return self.cache / slug

    @contextmanager
    def _locked(self, remote: str) -> Iterator[Path]:
        """The clone of ``remote``, created if new, held by this process alone."""
        folder = self._clone_dir(remote)
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            lock = folder.with_suffix(".lock").open("w")
        except OSError as exc:
            raise SourceError(
                f"cannot use the git clone cache {folder.parent}: {exc.strerror or exc}"
            ) from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (folder / "HEAD").is_file():
                shutil.rmtree(folder, ignore_errors=True)
                local = {"remote": remote, "what": "creating the clone cache"}
                self._run(["init", "-q", "--bare", str(folder)], **local)
                for key, value in (
                    ("remote.origin.url", remote),
                    ("remote.origin.promisor", "true"),
                    ("remote.origin.partialclonefilter", "blob:none"),
                ):
                    self._run(["-C", str(folder), "config", key, value], **local)
            yield folder

    # -- rounds -----------------------------------------------------------------------
    def commit(self, repository: str) -> str:
        """The commit the default branch points to now: one ``ls-remote``, cached.

        Raises:
            NotPublished: the server has no such repository.
            SourceError: the server could not be asked.
        """
        if repository not in self._commits:
            remote = self.remote(repository)
            out = self._run(
                ["ls-remote", remote, "HEAD"],
                remote=remote,
                what="ls-remote",
                network=True,
            ).decode("utf-8", "replace")
            sha = out.split("\t", 1)[0].strip()
            if not _SHA.fullmatch(sha):
                raise NotPublished(f"{remote}: not published (no default branch)")
            self._commits[repository] = sha
        return self._commits[repository]

    def _round(self, repository: str) -> _Round:
        """The listing at the current commit, fetching its trees (no blobs) if new."""
        if repository in self._rounds:
            return self._rounds[repository]
        commit = self.commit(repository)
        remote = self.remote(repository)
        with self._locked(remote) as folder:
            git_dir = ["-C", str(folder)]
            ref = f"refs/ledger/{commit}"
            have = self._run(
                [*git_dir, "for-each-ref", "--format=%(objectname)", ref],
                remote=remote,
                what="reading the clone cache",
            )
            if not have.strip():
                self._fetch_commit(git_dir, remote, repository, commit)
                self._run(
                    [*git_dir, "update-ref", ref, commit],
                    remote=remote,
                    what="recording the fetched commit",
                )
            listed = self._run(
                [*git_dir, "ls-tree", "-r", "-z", "--full-tree", commit],
                remote=remote,
                what="listing the commit",
            )
            date = (
                self._run(
                    [*git_dir, "show", "-s", "--format=%cI", commit],
                    remote=remote,
                    what="reading the commit date",
                )
                .decode()
                .strip()
            )
        entries: dict[str, tuple[str, str]] = {}
        malformed: list[str] = []
        for raw in listed.split(b"\0"):
            meta, _, name = raw.partition(b"\t")
            parts = meta.decode("ascii", "replace").split(" ")
            if len(parts) != 3 or parts[1] != "blob":
                continue
            try:
                path = name.decode("utf-8")
            except UnicodeDecodeError:
                # No later step could hold such a name; said, never read.
                malformed.append(f"{name[:60]!r} (a path that is not UTF-8)")
                continue
            entries[path] = (parts[0], parts[2])
        self._rounds[repository] = _Round(
            remote, commit, entries, date or None, tuple(malformed)
        )
        return self._rounds[repository]

    def _fetch_commit(
        self, git_dir: list[str], remote: str, repository: str, commit: str
    ) -> None:
        """Shallow, blob-less fetch of one commit: its commit and tree objects only."""
        try:
            self._run(
                [
                    *git_dir,
                    "fetch",
                    "-q",
                    "--depth=1",
                    "--filter=blob:none",
                    "--no-tags",
                    "--no-write-fetch-head",
                    "origin",
                    commit,
                ],
                remote=remote,
                what=f"fetching the trees of {commit[:12]}",
                network=True,
            )
        except NotPublished:
            raise
        except SourceError as exc:
            self._commits.pop(repository, None)
            try:
                now = self.commit(repository)
            except SourceError:
                raise exc from None
            if now != commit:
                raise SourceError(
                    f"{remote}: the default branch moved from {commit[:12]} to "
                    f"{now[:12]} while it was being fetched; nothing was stored, run "
                    "again to read the new commit"
                ) from None
            raise

    def listing(self, repository: str, prefixes: tuple[str, ...] = ()) -> Listing:
        """Every file at the current commit (under ``prefixes`` when given).

        A symbolic link is listed but never read: its target is not a file of
        the repository at this commit, so it is reported as unread with why.
        """
        round_ = self._round(repository)
        wanted = tuple(p.strip("/") for p in prefixes)
        paths = sorted(
            path
            for path in round_.entries
            if not wanted or path.split("/", 1)[0] in wanted
        )
        return Listing(
            paths=paths,
            oids={p: round_.entries[p][1] for p in paths},
            commit=round_.commit,
            commit_date=round_.commit_date,
            unread={
                p: f"{self.url_for(repository, p)}: a symbolic link; not followed"
                for p in paths
                if round_.entries[p][0] == "120000"
            },
            malformed=list(round_.malformed),
        )

    def list_tree(
        self,
        repo: str,
        prefixes: tuple[str, ...] = ("closed", "open", "network"),
        **_: object,
    ) -> list[str]:
        """Paths under the division folders at the current commit."""
        return self.listing(repo, prefixes).paths

    def prefetch(self, repository: str, paths: Iterable[str]) -> None:
        """Download the blobs of ``paths`` in one request (those not cached yet)."""
        round_ = self._round(repository)
        oids = sorted(
            {
                round_.entries[p][1]
                for p in paths
                if p in round_.entries and round_.entries[p][0] != "120000"
            }
            - set(self._blobs)
            - set(self._oversized)
        )
        if not oids:
            return
        with self._locked(round_.remote) as folder:
            git_dir = ["-C", str(folder)]
            self._run(
                [
                    *git_dir,
                    "-c",
                    "fetch.negotiationAlgorithm=noop",
                    "fetch",
                    "-q",
                    "--no-tags",
                    "--no-write-fetch-head",
                    "--filter=blob:none",
                    "--stdin",
                    "origin",
                ],
                remote=round_.remote,
                what=f"fetching {len(oids)} files at {round_.commit[:12]}",
                stdin="".join(f"{oid}\n" for oid in oids).encode(),
                network=True,
            )
            # The pack went to disk (git's own process): each blob's size is known
            # before a byte of it is read here, so one over the cap is refused
            # and never held in memory.
            sizes = self._run(
                [*git_dir, "cat-file", "--batch-check"],
                remote=round_.remote,
                what="sizing fetched files",
                stdin="".join(f"{oid}\n" for oid in oids).encode(),
            )
            for oid, size in _parse_batch_check(sizes):
                if size > self.max_bytes:
                    self._oversized[oid] = size
            readable = [oid for oid in oids if oid not in self._oversized]
            batch = self._run(
                [*git_dir, "cat-file", "--batch"],
                remote=round_.remote,
                what="reading fetched files",
                stdin="".join(f"{oid}\n" for oid in readable).encode(),
            )
        self._blobs.update(_parse_batch(batch))

    def fetch(
        self,
        repo: str,
        path: str,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> Fetched:
        """One file at the current commit, or NotPublished when the commit lacks it.

        HTTP validators are accepted and not needed: the commit pins the bytes, and
        a commit already read is never asked for again (``pipeline.fetch``).
        """
        round_ = self._round(repo)
        url = self.url_for(repo, path)
        entry = round_.entries.get(path)
        if entry is None:
            raise NotPublished(f"{url}: not published (no such file at this commit)")
        if entry[0] == "120000":
            raise NotPublished(f"{url}: a symbolic link; not followed")
        if entry[1] not in self._blobs:
            self.prefetch(repo, [path])
        if entry[1] in self._oversized:
            raise TooLarge(url, f"{self._oversized[entry[1]]} bytes", self.max_bytes)
        content = self._blobs.get(entry[1])
        if content is None:
            raise SourceError(f"{url}: the server did not send this file")
        return Fetched(
            url=url,
            content=content,
            fetched_at=dt.datetime.now(dt.UTC).replace(microsecond=0),
            etag=round_.commit,
            last_modified=round_.commit_date,
        )

    def has_round(self, repo: str) -> bool:
        """Whether the server has the round's repository: one ``ls-remote``.

        Cached, so the run that reads the round asks no second time.
        """
        return self.probe(repo).exists

    def probe(
        self,
        repo: str,
        path: str = "",
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> Probe:
        """Whether the repository exists and its commit changed: one ``ls-remote``.

        The commit is the validator (``etag``); ``path`` is not looked up, because
        knowing whether one file exists would cost fetching the trees.
        """
        try:
            commit = self.commit(repo)
        except NotPublished:
            return Probe(url=self.remote(repo), exists=False)
        return Probe(
            url=self.remote(repo),
            exists=True,
            etag=commit,
            not_modified=commit == etag,
        )


def _parse_batch(output: bytes) -> Iterator[tuple[str, bytes]]:
    """``git cat-file --batch`` output: (blob id, content) per object present."""
    position = 0
    while position < len(output):
        end = output.index(b"\n", position)
        header = output[position:end].decode().split(" ")
        position = end + 1
        if len(header) != 3:  # "<oid> missing": not sent by the server
            continue
        size = int(header[2])
        yield header[0], output[position : position + size]
        position += size + 1


def _parse_batch_check(output: bytes) -> Iterator[tuple[str, int]]:
    """``git cat-file --batch-check`` output: (blob id, size) per object present."""
    for line in output.decode("ascii", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) == 3 and parts[2].isdigit():  # "<oid> missing" is skipped
            yield parts[0], int(parts[2])


def _last_lines(stderr: str) -> str:
    """Git's own explanation: its last non-empty lines, on one line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return "; ".join(lines[-2:]) if lines else "no message"


def is_git_source(base: str) -> bool:
    """Whether a source base names the git source (``git+<url>``)."""
    return base.startswith(GIT_PREFIX)
