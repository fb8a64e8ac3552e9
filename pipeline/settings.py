"""Where the pipeline reads from and writes to, from the environment.

One place for the environment variables so the CLI, Dagster resources and tests agree.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

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


def source_base() -> str:
    """The source base: ``MLPERF_SOURCE`` if set and non-empty, else upstream."""
    return os.environ.get("MLPERF_SOURCE", "").strip() or UPSTREAM_SOURCE


def data_dir() -> Path:
    """The data directory: ``MLPERF_DATA_DIR`` if set, else ``data/`` in the project."""
    configured = os.environ.get("MLPERF_DATA_DIR", "").strip()
    return Path(configured).resolve() if configured else PROJECT_ROOT / "data"


class SettingError(ValueError):
    """An environment variable holds an unusable value; the message names it."""


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
    configured = os.environ.get("MLPERF_BUILD_DIR", "").strip()
    return Path(configured).resolve() if configured else PROJECT_ROOT / "build"


def cache_dir() -> Path:
    """The machine's cache: ``MLPERF_CACHE_DIR``, XDG's, or ``~/.cache/mlperf-ledger``.

    It holds what depends only on a dependency's version or on its own input's hash
    (the Vega bundle, SVG fallbacks), so every build folder of the machine shares it.
    Deleting it is always safe: the next build recreates what it needs.
    """
    configured = os.environ.get("MLPERF_CACHE_DIR", "").strip()
    if configured:
        return Path(configured).resolve()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return (base / "mlperf-ledger").resolve()


def git_cache_dir() -> Path:
    """Where the git source keeps its clones: ``MLPERF_GIT_CACHE_DIR`` or ``git/``.

    One bare, blob-less clone per remote below the cache folder, reused by every
    run; deleting it costs one refetch of the files the rules read.
    """
    configured = os.environ.get("MLPERF_GIT_CACHE_DIR", "").strip()
    return Path(configured).resolve() if configured else cache_dir() / "git"


def site_url() -> str:
    """The site's public URL (``MLPERF_LEDGER_SITE_URL``), or "" when it has none.

    Canonical links, the sitemap and Material's instant navigation need it; without
    one the build names no address (never a loopback one) and pages load whole.
    """
    return os.environ.get("MLPERF_LEDGER_SITE_URL", "").strip()


def tree_api() -> str:
    """Where raw trees are listed; "" derives it from the source base."""
    return os.environ.get("MLPERF_TREE_API", "").strip()
