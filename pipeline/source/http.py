"""Reading over HTTP(S): upstream's raw-file host, GitHub's API or any mirror server.

HTTP never follows a redirect to another origin, sends ``GITHUB_TOKEN`` to GitHub's
hosts over HTTPS only, waits out a rate limit when it ends before the deadline, and
every download has an overall deadline besides the per-read timeout.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import os
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pipeline.source.common import (
    GITHUB_TOKEN_HOSTS,
    LIFT_LIMIT,
    MAX_REDIRECTS,
    NotPublished,
    SourceError,
    TooLarge,
)

# httpx is imported where an HTTP source uses it: a folder or git source (and a
# quiet tick on one) never does, and the import costs ~70 ms.
if TYPE_CHECKING:
    import httpx

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
#: Statuses that mean "too many requests": wait as the server says, then retry.
_RATE_LIMITED = frozenset({403, 429})
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Reply:
    """One HTTP response, its body read within the deadline and the size cap."""

    status_code: int
    headers: httpx.Headers
    body: bytes
    #: The URL that answered, after any same-origin redirects.
    url: str


def origin(url: httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, host and port (the default one when not given): what a redirect keeps."""
    return url.scheme, url.host, url.port or _DEFAULT_PORTS.get(url.scheme)


def wait_s(headers: httpx.Headers, now: float) -> float | None:
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


def utc(epoch: float) -> str:
    """An epoch second as a UTC time a message can name."""
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class HttpReads:
    """``Source``'s HTTP requests (mixed into ``pipeline.source.Source``)."""

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

    def _request(self, method: str, url: str, headers: dict[str, str]) -> Reply:
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
                    wait = wait_s(reply.headers, time.time())
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
    ) -> Reply:
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
    ) -> Reply:
        """One request, following same-origin redirects only, body capped in size."""
        import httpx

        current = httpx.URL(url)
        for _ in range(MAX_REDIRECTS + 1):
            with self._client().stream(method, current, headers=headers) as response:
                location = response.headers.get("location")
                if response.status_code in _REDIRECTS and location:
                    target = current.join(location)
                    if origin(target) != origin(current):
                        raise SourceError(
                            f"{url}: redirected (HTTP {response.status_code}) to "
                            f"another host {target}; not followed"
                        )
                    current = target
                    continue
                if response.status_code >= 500:
                    return Reply(response.status_code, response.headers, b"", url)
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
                return Reply(
                    response.status_code, response.headers, bytes(body), str(current)
                )
        raise SourceError(f"{url}: more than {MAX_REDIRECTS} redirects; not followed")

    def _rate_limited(self, url: str, status: int, wait: float | None) -> SourceError:
        when = (
            f"retry after {utc(time.time() + wait)} (in {wait:.0f} s, past the "
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

    def _check_status(self, url: str, response: Reply) -> None:
        if response.status_code == 404:
            raise NotPublished(f"{url}: not published (HTTP 404)")
        if response.status_code >= 400:
            raise SourceError(f"{url}: HTTP {response.status_code}")

    # -- public API ----------------------------------------------------------------
