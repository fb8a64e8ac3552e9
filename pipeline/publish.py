"""Build the website in a staging folder and publish it with an atomic swap.

``build/site`` is a symlink to one folder under ``build/published/``; publishing a new
build replaces the symlink in one ``rename``, so readers see the old site or the new
one, never half of each, and a failed build leaves the old one untouched.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from pipeline.files import remove, sync_tree, write_file
from pipeline.settings import PROJECT_ROOT, cache_dir

#: How many published builds to keep besides the current one (for rollback).
KEEP = 2


#: What a staged project holds besides ``site/generated`` (the render's).
STAGED = ("mkdocs.yml", "site", "pipeline")
#: Where the staged project lives, under the build folder (``out_site__pages``).
STAGED_PROJECT = Path("staging", "project")


def stage_project(staging: Path, root: Path = PROJECT_ROOT) -> Path:
    """The MkDocs project: mkdocs.yml, hand-written site/, link to pipeline/.

    Kept between builds and brought up to date in place (``files.sync_tree``), not
    made afresh: ``site/generated`` stays for the render, which rewrites only the
    files whose bytes change.
    """
    staging.mkdir(parents=True, exist_ok=True)
    for stray in staging.iterdir():
        if stray.name not in STAGED:
            remove(stray)
    write_file(staging / "mkdocs.yml", (root / "mkdocs.yml").read_bytes())
    sync_tree(root / "site", staging / "site", spare=("generated",))
    link = staging / "pipeline"
    if not (link.is_symlink() and link.readlink() == root / "pipeline"):
        remove(link)
        link.symlink_to(root / "pipeline", target_is_directory=True)
    return staging


def _die_with_parent() -> None:
    """In the child, before exec: be killed when the parent process dies.

    A pipeline killed mid-build (kill -9) must not leave a MkDocs process behind
    that goes on writing a build nobody publishes. Linux only (prctl); elsewhere the
    child simply outlives its parent as before.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


#: prctl(2) option: the signal the kernel sends this process when its parent dies.
_PR_SET_PDEATHSIG = 1


def mkdocs_build(
    project: Path,
    out: Path,
    site_url: str,
    data_date: dt.date | None = None,
    cache: Path | None = None,
) -> tuple[bool, str]:
    """``mkdocs build --strict`` of a staged project; (ok, warnings and errors).

    ``data_date`` (the newest round's publication date) stands in for the build date
    in the sitemap and its gzip header, so identical inputs give identical bytes;
    a ``SOURCE_DATE_EPOCH`` the caller set wins. Not ``--quiet``: it lowers MkDocs'
    log level to errors, so warnings are never logged and ``--strict`` (which
    counts logged warnings) passed a build with 360 broken anchor links.

    ``cache`` is the page cache's folder (``pipeline/render/mkdocs/cache.py``): the
    last good build's HTML of pages whose inputs did not change is reused from it.
    Material's compiled templates are kept in the machine cache (``cache_dir``),
    which every build folder shares, as they depend only on versions.
    """
    env = {
        **os.environ,
        "MLPERF_LEDGER_SITE_URL": site_url,
        "NO_MKDOCS_2_WARNING": "1",
        "MLPERF_LEDGER_TEMPLATE_CACHE": str(cache_dir() / "jinja"),
    }
    if cache is not None:
        env["MLPERF_LEDGER_PAGE_CACHE"] = str(cache)
    if data_date is not None and "SOURCE_DATE_EPOCH" not in os.environ:
        midnight = dt.datetime.combine(data_date, dt.time(), tzinfo=dt.UTC)
        env["SOURCE_DATE_EPOCH"] = str(int(midnight.timestamp()))
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "-f",
            str(project / "mkdocs.yml"),
            "--site-dir",
            str(out),
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=_die_with_parent,
    )
    problems = "\n".join(
        line
        for line in (build.stdout + build.stderr).splitlines()
        if "WARNING" in line or "ERROR" in line or "Error" in line
    )
    return build.returncode == 0, problems or build.stderr[-2000:]


def publish(built: Path, build_dir: Path) -> Path:
    """Point ``build_dir/site`` at ``built`` atomically; prune old builds."""
    link = build_dir / "site"
    if link.exists() and not link.is_symlink():
        # A plain folder from an earlier manual build: move it aside once.
        shutil.move(str(link), str(build_dir / "published" / "manual-build"))
    tmp = build_dir / ".site.new"
    if tmp.is_symlink() or tmp.exists():
        tmp.unlink()
    tmp.symlink_to(built.relative_to(build_dir), target_is_directory=True)
    tmp.replace(link)
    published = sorted(
        (p for p in (build_dir / "published").iterdir() if p != built),
        key=lambda p: p.stat().st_mtime,
    )
    for old in published[:-KEEP] if KEEP else published:
        shutil.rmtree(old, ignore_errors=True)
    return link


def site_tree_digest(site: Path) -> str:
    """One sha256 over every file of a built site (to prove it did not change)."""
    import hashlib

    digest = hashlib.sha256()
    for file in sorted(p for p in site.rglob("*") if p.is_file()):
        digest.update(file.relative_to(site).as_posix().encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()
