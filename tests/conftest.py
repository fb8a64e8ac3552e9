"""Shared fixtures: the real mirror in ../shared, read without Dagster."""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import ExitStack
from pathlib import Path

import polars as pl
import pytest

from pipeline.extract.summary import summary_tables
from pipeline.registry.releases import load_manifest
from pipeline.snapshots import sha256_hex

ROOT = Path(__file__).resolve().parent.parent
MIRROR = Path(
    os.environ.get("MLPERF_TEST_MIRROR", ROOT.parent / "shared" / "mlperf-mirror")
).resolve()
MIRROR_ALT = MIRROR.parent / "mlperf-mirror-alt"
MIRROR_RELEASES = ("v4.1", "v5.1", "v6.0", "v6.1")


#: Free space /dev/shm needs before the run's temporary files go there.
RAM_TMP_MIN_FREE = 4 * 1024**3


def pytest_configure(config: pytest.Config) -> None:
    """Temporary files in RAM (/dev/shm) when it has room and no --basetemp was given.

    Every Dagster event is an SQLite commit; on disk each waits ~3 ms for fsync, in
    RAM ~0.5 ms. The suite runs dozens of Dagster runs, so this is minutes of I/O
    wait, not of work. The controller picks the folder; xdist workers inherit it.
    """
    if hasattr(config, "workerinput") or config.option.basetemp:
        return
    shm = Path("/dev/shm")
    try:
        stats = os.statvfs(shm)
    except OSError:
        return
    if stats.f_bavail * stats.f_frsize < RAM_TMP_MIN_FREE or not os.access(
        shm, os.W_OK
    ):
        return
    folder = tempfile.mkdtemp(dir=shm, prefix="mlperf-ledger-tests-")
    config.option.basetemp = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


#: Test files that take longest, longest first. ``make test`` hands files to its two
#: workers in collection order (``--no-loadscope-reorder``), so these start first and
#: the short files fill the gaps at the end. xdist's default order (most tests first)
#: started them last: a 70 s file beginning when the other worker had nothing left
#: was minutes of one idle core. The shared site's first page part leads (its
#: worker builds ``built_site``), beside the git source's cold build, which shares
#: nothing with it. The full-history build comes third, so it starts once the
#: shared site is built: the chart pictures both draw (186 of its 744 SVGs, the same
#: spec and data) are then read from the run's machine cache, not drawn twice at
#: once on both cores. Files that need ``built_site`` come after it is built.
LONGEST_FIRST = (
    # Seconds per file (setup + calls) of one `make test` with --durations on a
    # 2-core machine shared with other jobs (1145 s wall); a quiet one takes ~0.6x.
    "tests/browser/test_page_checks_even.py",  # ~245 s: the shared site and visits
    "tests/integration/test_git_source.py",  # ~280 s
    "tests/browser/test_full_history.py",  # ~275 s: its own full-history build
    "tests/integration/test_no_missed_change.py",  # ~170 s
    "tests/integration/test_at_least_once.py",  # ~150 s
    "tests/integration/test_update_e2e.py",  # ~140 s
    "tests/integration/test_hostile_canonical.py",  # ~115 s
    "tests/browser/test_page_checks_odd.py",  # ~100 s
    "tests/browser/test_a11y.py",  # ~95 s
    "tests/unit/render/test_hostile_everywhere.py",  # ~80 s
    "tests/integration/test_extreme_values.py",  # ~50 s
    "tests/browser/test_explorer.py",  # ~50 s
    "tests/integration/test_ingest_pipeline.py",  # ~50 s
    "tests/integration/test_reproducible.py",  # ~35 s
    "tests/browser/test_site.py",  # ~30 s
    "tests/browser/test_systems.py",  # ~25 s
    "tests/integration/test_one_source.py",  # ~25 s
    "tests/integration/test_one_run.py",  # ~25 s
    "tests/integration/test_hostile_summary_published.py",  # ~20 s
    "tests/browser/test_subpath.py",  # ~15 s
)


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Files of ``LONGEST_FIRST`` first, in its order; each file's own order kept.

    The sort is stable and by file only: tests that run in file order
    (test_update_e2e.py) keep it. Every worker sorts alike, as xdist requires.
    """
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    last = len(rank)

    def key(item: pytest.Item) -> int:
        path = Path(str(item.path)).resolve()
        try:
            name = path.relative_to(ROOT).as_posix()
        except ValueError:
            return last
        return rank.get(name, last)

    items.sort(key=key)


#: ``workerinput`` key of the built site the xdist workers share: its folder and URL.
SHARED_SITE = "mlperf_ledger_shared_site"
_SHARED_SITE = pytest.StashKey[dict[str, str]]()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # noqa: ANN001 (xdist's WorkerController)
    """pytest-xdist controller: one built site for all workers, at one URL.

    Building the site (``built_site`` in tests/browser/conftest.py) is the slowest
    fixture of the suite, and its page visits are split across files that run on
    different workers. The first worker to need the site builds it into
    ``<basetemp>/site`` under a lock; the others wait for it and reuse it. The
    site's URL is written into its sitemap.xml, and Material's instant navigation
    only takes over links listed there, port included, so every worker must reach
    the site at that one URL: the controller serves the folder for the whole run,
    from before any worker starts (the folder need not exist yet). It is served
    under a path (``SITE_PREFIX``), as GitHub Pages serves a project site, so
    every page visit also proves the site works there.
    """
    config = node.config
    shared = config.stash.get(_SHARED_SITE, None)
    if shared is None:
        # The controller's temporary folder, the parent of each worker's: xdist
        # itself reads it from this attribute to give each worker its own.
        factory = getattr(config, "_tmp_path_factory", None)
        if factory is None:
            return  # each worker builds its own site
        from tests.browser.server import SITE_PREFIX, serve

        folder = factory.getbasetemp() / "site"
        stack = ExitStack()
        url = stack.enter_context(serve(folder / "build" / "site", SITE_PREFIX))
        config.add_cleanup(stack.close)
        shared = config.stash[_SHARED_SITE] = {"folder": str(folder), "url": url}
    node.workerinput[SHARED_SITE] = shared


@pytest.fixture(scope="session", autouse=True)
def machine_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One machine cache (``MLPERF_CACHE_DIR``) for the whole run, never ~/.cache.

    Site builds share the Vega bundle through it as production builds on one
    machine do; pytest-xdist workers share their parent temporary folder. Set in
    ``os.environ`` so the CLI and mkdocs subprocesses inherit it.
    """
    root = tmp_path_factory.getbasetemp()
    path = (root.parent if os.environ.get("PYTEST_XDIST_WORKER") else root) / "cache"
    os.environ["MLPERF_CACHE_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not (MIRROR / "inference_results_v5.1").is_dir():
        pytest.fail(f"the shared mirror is missing at {MIRROR}; tests read real data")
    return MIRROR


@pytest.fixture(scope="session")
def mirror_results(mirror: Path) -> pl.DataFrame:
    """The canonical table of every mirrored release, built with the pure functions.

    Links name the commit the pipeline would give them (upstream_commits.toml, for
    bytes that are the file at that commit), as in a build from the mirror.
    """
    from pipeline.snapshots import Snapshot
    from pipeline.transform.provenance import snapshot_commit

    frames = []
    for release in load_manifest():
        if release.version not in MIRROR_RELEASES:
            continue
        file = mirror / release.repo_name / release.summary_path
        content = file.read_bytes()
        snapshot = Snapshot(
            release=release.version,
            path=release.summary_path,
            url=str(file),
            sha256=sha256_hex(content),
            bytes=len(content),
            fetched_at="",
            blob="",
        )
        results, _, _ = summary_tables(
            content,
            release=release.version,
            repository=release.repository,
            source_file=release.summary_path,
            sha256=snapshot.sha256,
            commit=snapshot_commit(snapshot),
        )
        frames.append(results)
    return pl.concat(frames)


#: Rounds whose raw submission tree the mirror holds.
RAW_TREE_RELEASES = ("v0.5", "v1.0", "v2.1", "v5.1", "v6.0")


@pytest.fixture(scope="session")
def raw_trees(mirror: Path) -> dict[str, tuple[pl.DataFrame, pl.DataFrame, list[str]]]:
    """Every mirrored raw tree read once: (results, rejected, listing) per round."""
    from pipeline.extract.raw_tree import scan_raw_tree
    from pipeline.source import Source

    source = Source(base=str(mirror))
    tables = {}
    for release in RAW_TREE_RELEASES:
        repo = f"inference_results_{release}"
        paths = source.list_tree(repo)
        results, rejected = scan_raw_tree(
            paths,
            lambda path, repo=repo: source.fetch(repo, path).content,
            release=release,
            repository=f"mlcommons/{repo}",
        )
        tables[release] = (results, rejected, paths)
    return tables


@pytest.fixture(scope="session")
def full_mirror_results(mirror_results: pl.DataFrame, raw_trees) -> pl.DataFrame:
    """The combined table of every mirrored round, as the pipeline builds it.

    Summary rounds come from their summary files; rounds the manifest reads from the
    raw tree only (v0.5, v1.0, v2.1) from their trees.
    """
    from pipeline.transform.inferred import judge_by_tree

    tree_only = [
        r.version
        for r in load_manifest()
        if r.version in raw_trees and not r.has_summary
    ]
    # A summary round whose tree is read too takes each result's log's verdict on
    # whether it was inferred, as core_mlperf__results does.
    summaries = [
        judge_by_tree(part, raw_trees[release][0]) if release in raw_trees else part
        for (release,), part in mirror_results.group_by("release", maintain_order=True)
    ]
    return pl.concat([*summaries, *(raw_trees[v][0] for v in tree_only)])


@pytest.fixture(scope="session")
def full_mirror_attached(full_mirror_results: pl.DataFrame) -> pl.DataFrame:
    """``full_mirror_results`` as out_mlperf__results has them: canonical
    accelerators, mixed systems marked (``attach_accelerators``)."""
    from pipeline.analysis.accelerators import attach_accelerators

    return attach_accelerators(full_mirror_results.lazy()).collect()
