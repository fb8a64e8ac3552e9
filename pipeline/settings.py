"""Where the pipeline reads from and writes to, from the environment.

One place for the environment variables so the CLI, Dagster resources and tests agree.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from pipeline.redact import has_credentials, redact_text

#: Upstream: every round's repository read over git from GitHub, at the commit its
#: default branch points to (``releases.toml`` names each repository).
UPSTREAM_SOURCE = "git+https://github.com"

#: The committed ``make bench`` results the Performance page shows, and their layout.
BENCH_RESULTS_FILE = "benchmarks/results/latest.json"
BENCH_SCHEMA_VERSION = 2
#: A page heavier than this (HTML plus its chart data) fails the weight check.
PAGE_BUDGET_BYTES = 1_500_000

#: The project root (the folder holding ``pyproject.toml``).
PROJECT_ROOT = Path(__file__).resolve().parent.parent


class SettingError(ValueError):
    """An environment variable holds an unusable value; the message names it."""


# -- validation: every value that reaches a page, a path or a command line --------

#: Longest URL taken from the environment: about what browsers and servers accept,
#: far more than any real base needs, and never a 10 KB value on every page.
MAX_URL_CHARS = 2000
#: Longest path (in bytes) and path component no file system refuses outright.
MAX_PATH_BYTES = 4000
MAX_NAME_BYTES = 255
#: What a URL from the environment may hold: RFC 3986's characters without the
#: quote (a site URL lands in HTML attributes and inline scripts). Anything else
#: (whitespace, quotes, angle brackets, backslashes, control or non-ASCII
#: characters) is refused, not escaped: percent-encode it.
_URL_CHARACTER = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&()*+,;=%]")
#: Control characters (C0, DEL, C1): they drive a terminal and end lines in files.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _shown(value: str) -> str:
    """A value as messages quote it: whole when short, else its start and length.

    A URL's credentials are never shown (``user:***@host``).
    """
    value = redact_text(value)
    if len(value) <= 60:
        return repr(value)
    return f"{value[:60]!r}… ({len(value)} characters)"


def check_url(
    name: str,
    value: str,
    schemes: tuple[str, ...] = ("http", "https"),
    *,
    extra: str = "",
    prefix: str = "",
) -> str:
    """``value`` if it is an absolute URL of ``schemes`` with a host, safe to write.

    ``extra`` are characters allowed besides RFC 3986's (``{}`` for the source's
    ``{repo}`` placeholder); ``prefix`` comes before the URL (``git+``) and is kept
    in messages. Raises :class:`SettingError` naming ``name``.
    """
    wanted = " or ".join(f"{s}://" for s in schemes)
    if len(value) > MAX_URL_CHARS:
        raise SettingError(
            f"{name}: a URL of {len(value)} characters is too long (at most "
            f"{MAX_URL_CHARS})"
        )
    for index, char in enumerate(value, start=1):
        if not (_URL_CHARACTER.fullmatch(char) or char in extra):
            raise SettingError(
                f"{name} {_shown(value)}: character {index} ({char!r}) is not allowed "
                f"in a URL (expected an absolute {wanted} URL without quotes, angle "
                "brackets, whitespace or control characters; percent-encode others)"
            )
    url = value.removeprefix(prefix)
    try:
        parts = urlsplit(url.replace("{repo}", "x"))
        parts.port  # noqa: B018 (raises on a port that is not a number in range)
    except ValueError as exc:  # "http://[::1": an unclosed IPv6 address
        raise SettingError(f"{name} {_shown(value)}: not a URL ({exc})") from None
    if parts.scheme not in schemes or not url.startswith(f"{parts.scheme}://"):
        raise SettingError(f"{name} {_shown(value)}: expected an absolute {wanted} URL")
    if not parts.hostname:
        raise SettingError(f"{name} {_shown(value)}: no host in the URL")
    if parts.hostname.startswith("-"):
        # git would read "ssh://-oProxyCommand=..." as an option of ssh.
        raise SettingError(
            f"{name} {_shown(value)}: a host starting with '-' is refused"
        )
    return value


def check_folder(name: str, value: str) -> str:
    """``value`` if a file system can hold it as a folder path and it prints safely.

    Raises :class:`SettingError` naming ``name`` (an option or a variable).
    """
    if _CONTROL.search(value):
        raise SettingError(
            f"{name} {_shown(value)}: a control character in a folder path"
        )
    if any(len(part.encode()) > MAX_NAME_BYTES for part in Path(value).parts):
        raise SettingError(
            f"{name} {value[:60]!r}…: a folder name longer than {MAX_NAME_BYTES} "
            "bytes, which no file system takes"
        )
    if len(value.encode()) > MAX_PATH_BYTES:
        raise SettingError(f"{name}: a path of {len(value)} characters is too long")
    return value


def check_source(name: str, value: str) -> None:
    """A source base (``MLPERF_SOURCE`` or ``--source``): git, HTTP or a mirror folder.

    Empty means upstream over git, which needs a git that can read it.
    """
    from pipeline.gitsource import GitMissing, git_version, is_git_source

    if not value:
        name, value = "the default source", UPSTREAM_SOURCE
    if is_git_source(value):
        url = value.removeprefix("git+")
        if not url.startswith(("http://", "https://", "file://", "ssh://")):
            raise SettingError(
                f"{name} {redact_text(value)!r}: expected git+https://host[/path] "
                "(or git+http://, git+file://, git+ssh://)"
            )
        if url.startswith("file://"):
            check_folder(name, value)
        else:
            check_url(name, value, ("http", "https", "ssh"), prefix="git+")
        try:
            git_version()
        except GitMissing as exc:
            raise SettingError(f"{name} {redact_text(value)!r}: {exc}") from None
        return
    if value.startswith(("http://", "https://")):
        check_url(name, value, extra="{}")
        return
    check_folder(name, value)
    # With a {repo} placeholder, the folder holding the repositories must exist.
    prefix = value.split("{repo}", 1)[0]
    folder = Path(prefix + "x").parent if "{repo}" in value else Path(value)
    if not folder.exists():
        raise SettingError(
            f"{name} {redact_text(value)!r}: no such directory "
            "(expected a mirror folder or an http(s):// URL)"
        )
    if not folder.is_dir():
        raise SettingError(f"{name} {redact_text(value)!r}: not a directory")


def _folder_variable(variable: str) -> str:
    """The stripped value of a folder variable, checked (see :func:`check_folder`)."""
    return check_folder(variable, os.environ.get(variable, "").strip())


def check_environment() -> None:
    """Read every variable a run uses, so a bad one is named before anything runs.

    ``MLPERF_SOURCE`` and ``MLPERF_DATA_DIR`` are not read here: a flag may stand in
    for them, so the CLI checks whichever was given (:func:`check_source`,
    :func:`check_folder`).
    """
    for variable in (
        "MLPERF_BUILD_DIR",
        "MLPERF_CACHE_DIR",
        "XDG_CACHE_HOME",
        "MLPERF_GIT_CACHE_DIR",
        "DAGSTER_HOME",
    ):
        _folder_variable(variable)
    http_timeout_s()
    http_deadline_s()
    site_url()
    tree_api()
    _check_token()
    source_date_epoch()


#: The latest ``SOURCE_DATE_EPOCH`` a build can use: MkDocs writes it into the
#: sitemap's gzip header, which holds 32 bits (2106-02-07T06:28:15Z); Python's dates
#: end at year 9999 anyway, and 999999999999 failed deep in the build ("year 33658
#: is out of range").
MAX_SOURCE_DATE_EPOCH = 2**32 - 1


def source_date_epoch() -> int | None:
    """``SOURCE_DATE_EPOCH`` as a number, checked; None when unset."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    if not epoch:
        return None
    if not (epoch.isascii() and epoch.isdigit() and len(epoch) <= 12):
        # The site build passes it to MkDocs, which dates the sitemap with it.
        raise SettingError(
            f"SOURCE_DATE_EPOCH {_shown(epoch)}: expected a whole number of seconds "
            "since 1970-01-01 UTC"
        )
    if int(epoch) > MAX_SOURCE_DATE_EPOCH:
        raise SettingError(
            f"SOURCE_DATE_EPOCH {epoch}: after the latest date a build can carry, "
            f"{MAX_SOURCE_DATE_EPOCH} (2106-02-07T06:28:15Z: the sitemap's gzip "
            "header holds 32 bits)"
        )
    return int(epoch)


# -- the settings ---------------------------------------------------------------------


def source_base() -> str:
    """The source base: ``MLPERF_SOURCE`` if set and non-empty, else upstream."""
    return os.environ.get("MLPERF_SOURCE", "").strip() or UPSTREAM_SOURCE


def data_dir() -> Path:
    """The data directory: ``MLPERF_DATA_DIR`` if set, else ``data/`` in the project."""
    configured = _folder_variable("MLPERF_DATA_DIR")
    return Path(configured).resolve() if configured else PROJECT_ROOT / "data"


def _seconds(variable: str, default: float) -> float:
    """A positive, finite number of seconds from ``variable``, else ``default``."""
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise SettingError(
            f"{variable} {text[:40]!r}: expected a number of seconds above 0 "
            f"(default {default:g})"
        )
    return value


def http_timeout_s() -> float:
    """Per-request HTTP timeout: ``MLPERF_HTTP_TIMEOUT_S`` or 30 seconds."""
    return _seconds("MLPERF_HTTP_TIMEOUT_S", 30.0)


def http_deadline_s() -> float:
    """Overall limit per download: ``MLPERF_HTTP_DEADLINE_S`` or 300 seconds.

    On the git source it bounds each git command (a fetch of a round's files).
    """
    return _seconds("MLPERF_HTTP_DEADLINE_S", 300.0)


def open_source(
    base: str = "", *, timeout_s: float = 0.0, deadline_s: float = 0.0, retries: int = 3
):  # noqa: ANN201 (Source | GitSource, imported late)
    """The source for ``base`` (default: ``MLPERF_SOURCE``, else upstream over git).

    ``git+<url>`` is the git source (clones cached under :func:`cache_dir`);
    anything else is a mirror folder or an HTTP(S) base.
    """
    from pipeline.gitsource import GitSource, is_git_source
    from pipeline.source import Source

    base = base or source_base()
    timeout_s = timeout_s or http_timeout_s()
    deadline_s = deadline_s or http_deadline_s()
    if is_git_source(base):
        return GitSource(
            base=base,
            cache=git_cache_dir(),
            timeout_s=timeout_s,
            deadline_s=deadline_s,
            retries=retries,
        )
    return Source(
        base=base,
        timeout_s=timeout_s,
        deadline_s=deadline_s,
        retries=retries,
        tree_api=tree_api(),
    )


def build_dir() -> Path:
    """Where the website is built and published: ``MLPERF_BUILD_DIR`` or ``build/``."""
    configured = _folder_variable("MLPERF_BUILD_DIR")
    return Path(configured).resolve() if configured else PROJECT_ROOT / "build"


def cache_dir() -> Path:
    """The machine's cache: ``MLPERF_CACHE_DIR``, XDG's, or ``~/.cache/mlperf-ledger``.

    It holds what depends only on a dependency's version or on its own input's hash
    (the Vega bundle, SVG fallbacks, Material's compiled templates), so every build
    folder of the machine shares it.
    Deleting it is always safe: the next build recreates what it needs.
    """
    configured = _folder_variable("MLPERF_CACHE_DIR")
    if configured:
        return Path(configured).resolve()
    xdg = _folder_variable("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return (base / "mlperf-ledger").resolve()


def git_cache_dir() -> Path:
    """Where the git source keeps its clones: ``MLPERF_GIT_CACHE_DIR`` or ``git/``.

    One bare, blob-less clone per remote below the cache folder, reused by every
    run; deleting it costs one refetch of the files the rules read.
    """
    configured = _folder_variable("MLPERF_GIT_CACHE_DIR")
    return Path(configured).resolve() if configured else cache_dir() / "git"


def site_url() -> str:
    """The site's public URL (``MLPERF_LEDGER_SITE_URL``), or "" when it has none.

    Canonical links, the sitemap and Material's instant navigation need it; without
    one the build names no address (never a loopback one) and pages load whole.
    Every page carries it (canonical link, Material's inline script), so it is an
    absolute http(s) URL or refused (:func:`check_url`).
    """
    value = os.environ.get("MLPERF_LEDGER_SITE_URL", "").strip()
    if not value:
        return ""
    check_url("MLPERF_LEDGER_SITE_URL", value)
    if has_credentials(value):
        # Every page would carry it: a password would be published.
        raise SettingError(
            f"MLPERF_LEDGER_SITE_URL {_shown(value)}: a user name or password in the "
            "site's URL would be published on every page; give the public address "
            "without credentials"
        )
    return value


def tree_api() -> str:
    """Where raw trees are listed; "" derives it from the source base."""
    value = os.environ.get("MLPERF_TREE_API", "").strip()
    return check_url("MLPERF_TREE_API", value) if value else ""


#: A GitHub token is printable ASCII without spaces; classic ones are 40
#: characters, fine-grained ones under 100.
MAX_TOKEN_CHARS = 255
_TOKEN = re.compile(r"[\x21-\x7e]+")


def _check_token() -> None:
    """``GITHUB_TOKEN`` goes into a request header, so it is one line of ASCII.

    The sources read it where they send it; this names a bad one before a run
    instead of a header error in its middle. Never shown: it is a secret.
    """
    value = os.environ.get("GITHUB_TOKEN", "").strip()
    if value and (len(value) > MAX_TOKEN_CHARS or not _TOKEN.fullmatch(value)):
        raise SettingError(
            f"GITHUB_TOKEN: expected a token of printable ASCII without spaces, at "
            f"most {MAX_TOKEN_CHARS} characters (its {len(value)} characters are "
            "not shown)"
        )


def cache_verify() -> bool:
    """``MLPERF_LEDGER_PAGE_CACHE_VERIFY=1``: render every page and check the caches.

    The render cache (``pipeline.render.memo``) and the page cache
    (``pipeline/render/mkdocs/cache.py``) then render each page afresh and fail the
    build where a cached copy differs: how the tests prove an incremental build is a
    cold build's bytes.
    """
    return os.environ.get("MLPERF_LEDGER_PAGE_CACHE_VERIFY", "").strip() == "1"


def render_cache_verify() -> bool:
    """The render cache alone verified: ``MLPERF_LEDGER_RENDER_CACHE_VERIFY=1``.

    Every page a cached spec would replay is rendered again and compared, and a
    difference fails the build (``memo.StaleRender``): a key that misses an input
    cannot pass. MkDocs' page cache still reuses, so a test can check both that
    pages were reused and that each reuse was right. ``cache_verify`` implies it.
    """
    alone = os.environ.get("MLPERF_LEDGER_RENDER_CACHE_VERIFY", "").strip() == "1"
    return alone or cache_verify()
