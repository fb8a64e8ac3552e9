"""Reading upstream files: the public raw-file host, any HTTP mirror, or a local folder.

Every source maps ``(repository name, path)`` to bytes. A missing file is
:class:`NotPublished` (upstream has not published it; never retried); anything else that
goes wrong is a :class:`SourceError` whose message names the URL and what happened.

A source is untrusted: a mirror folder is never read outside its root
(:class:`OutsideSource`), HTTP never follows a redirect to another origin, and every
download has an overall deadline besides the per-read timeout.

The package is split by job: ``common`` (errors, results, limits), ``folder`` (a
mirror folder), ``http`` (HTTP and GitHub's API) and ``Source`` here, which reads
from either; the git source is ``pipeline.gitsource``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.source.common import (
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_BYTES,
    DIVISIONS,
    GITHUB_API,
    GITHUB_TOKEN_HOSTS,
    LIFT_LIMIT,
    MAX_REDIRECTS,
    Fetched,
    Listing,
    NotPublished,
    OutsideSource,
    Probe,
    SourceError,
    TooLarge,
    cap_text,
    now,
    owner_of,
    repo_name,
)
from pipeline.source.folder import FolderReads, file_stamp, walk_files
from pipeline.source.http import HttpReads

if TYPE_CHECKING:
    import httpx


@dataclass
class Source(FolderReads, HttpReads):
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
                fetched_at=now(),
                etag=etag,
                last_modified=last_modified,
                not_modified=True,
            )
        self._check_status(url, response)
        return Fetched(
            url=response.url,
            content=response.body,
            fetched_at=now(),
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
            stamp = file_stamp(file.stat())
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
                entries.append([path, file_stamp((root / path).lstat())])
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

    def round_folders(self) -> list[str] | None:
        """The names of the folders a mirror holds side by side; None if unlistable.

        One ``scandir`` of the base folder, so discovery sees a round whatever its
        number (``v6.10`` beside ``v6.1``), not only the successors it guesses. An
        HTTP base or a ``{repo}`` pattern cannot be listed this cheaply.
        """
        if self.is_http or "{repo}" in self.base:
            return None
        try:
            with os.scandir(self.base) as entries:
                return sorted(e.name for e in entries if e.is_dir())
        except OSError:
            return None

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
                    for path in walk_files(root / prefix, inside, self._walked)
                )
            )
        api = (api_base or self.tree_api_base()).rstrip("/")
        who = owner or owner_of(repo)
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


__all__ = [
    "DEFAULT_DEADLINE_S",
    "DEFAULT_MAX_BYTES",
    "DIVISIONS",
    "GITHUB_API",
    "GITHUB_TOKEN_HOSTS",
    "LIFT_LIMIT",
    "MAX_REDIRECTS",
    "Fetched",
    "Listing",
    "NotPublished",
    "OutsideSource",
    "Probe",
    "Source",
    "SourceError",
    "TooLarge",
    "cap_text",
    "repo_name",
]
