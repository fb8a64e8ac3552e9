"""The parent side: each workload with its floor, repeated and summarised."""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.children import ChildRun, cli, run_child, run_process
from benchmarks.config import MANY_KEYS, RAW_TREE_RELEASE, BenchError
from pipeline.publish import STAGED_PROJECT

# -- the parent: measurements, state, summaries --------------------------------------


@dataclass
class Measurement:
    """Repetitions of one measurement and their summary, as written to the JSON."""

    name: str
    label: str
    role: str = "measure"
    runs: list[ChildRun] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """Median, every repetition, peak RSS, rows and the last run's details."""
        seconds = [r.report["seconds"] for r in self.runs]
        rss = [r.peak_rss_bytes for r in self.runs]
        last = self.runs[-1].report if self.runs else {}
        extra = {k: v for k, v in last.items() if k not in ("seconds", "rows", "error")}
        return {
            "name": self.name,
            "label": self.label,
            "role": self.role,
            "unit": "s",
            "median_s": statistics.median(seconds) if seconds else None,
            "repetitions_s": [round(s, 4) for s in seconds],
            "process_median_s": (
                statistics.median(r.process_s for r in self.runs) if self.runs else None
            ),
            "process_s": [round(r.process_s, 3) for r in self.runs],
            "peak_rss_bytes": max(rss) if rss else None,
            "peak_rss_bytes_repetitions": rss,
            "rows": last.get("rows"),
            "detail": {**extra, **self.detail},
        }


@dataclass
class Harness:
    """State of one ``make bench`` run: folders, options, progress clock."""

    root: Path
    mirror: Path
    repeat: int
    scales: tuple[int, ...]
    started: float = field(default_factory=time.perf_counter)
    measured: list[Measurement] = field(default_factory=list)

    def say(self, message: str) -> None:
        """One progress line with the time elapsed since the start."""
        elapsed = time.perf_counter() - self.started
        minutes, seconds = divmod(int(elapsed), 60)
        print(f"[bench {minutes:02d}:{seconds:02d}] {message}", flush=True)

    def env_for(self, state: Path, source: Path) -> dict[str, str]:
        """Environment pointing every pipeline folder into ``state``."""
        return {
            "MLPERF_SOURCE": str(source),
            # One machine cache for every measurement (the Vega bundle, SVG
            # fallbacks: what depends only on versions and hashes), as on any machine
            # that built once; "cold" means empty data, instance and build folders.
            "MLPERF_CACHE_DIR": str(self.root / "machine-cache"),
            "MLPERF_DATA_DIR": str(state / "data"),
            "DAGSTER_HOME": str(state / "dagster_home"),
            "MLPERF_BUILD_DIR": str(state / "build"),
        }

    def discard(self, path: Path) -> None:
        """Set ``path`` aside for the end of the bench (``discard``)."""
        discard(path, self.root / "trash")

    @property
    def scratch(self) -> Path:
        """Configs, reports and logs of the children."""
        return self.root / "scratch"

    def log(self, name: str) -> Path:
        """A fresh log file for one process."""
        self.scratch.mkdir(parents=True, exist_ok=True)
        return Path(
            tempfile.mkstemp(dir=self.scratch, prefix=f"{name}-", suffix=".log")[1]
        )

    def measure(
        self,
        measurement: Measurement,
        take: Callable[[], ChildRun],
        *,
        before: Callable[[], None] | None = None,
        after: Callable[[], None] | None = None,
        warmup: bool = False,
    ) -> Measurement:
        """``repeat`` repetitions of ``take``, printing each as it ends.

        ``warmup`` runs ``take`` once untimed first: a floor measured with a cold
        page cache would flatter every ratio taken against it.
        """
        total = self.repeat
        if warmup:
            self.say(f"{measurement.label}: warm-up (not timed)")
            take()
        for index in range(1, total + 1):
            if before:
                before()
            self.say(f"{measurement.label}: repetition {index}/{total} ...")
            run = take()
            measurement.runs.append(run)
            if after:
                after()
            self.say(
                f"{measurement.label}: repetition {index}/{total}: "
                f"{run.report['seconds']:.3f} s (process {run.process_s:.1f} s, "
                f"peak RSS {run.peak_rss_bytes / 1e6:,.0f} MB)"
            )
        self.measured.append(measurement)
        return measurement

    def child(
        self,
        measurement: Measurement,
        kind: str,
        config: dict[str, Any],
        env: Mapping[str, str] | None = None,
    ) -> Measurement:
        """Repetitions of one child that times its own call (floors warm up first)."""
        return self.measure(
            measurement,
            lambda: run_child(kind, config, env or {}, self.scratch),
            warmup=measurement.role == "floor",
        )

    def command(
        self,
        measurement: Measurement,
        argv: Sequence[str],
        env: Mapping[str, str],
        *,
        expect_runs: str | None = None,
        before: Callable[[], None] | None = None,
        after: Callable[[], None] | None = None,
    ) -> Measurement:
        """Repetitions of a whole process, timed from start to exit.

        With ``expect_runs`` the process is a pipeline command: an untimed child
        then reads its runs, step profile and row count from the instance it used.
        """

        def take() -> ChildRun:
            since = time.time()
            run = run_process(measurement.name, argv, env, self.log(measurement.name))
            if expect_runs is None:
                return run
            profile = run_child(
                "instance_profile",
                {"since": since, "expect_runs": expect_runs},
                env,
                self.scratch,
            ).report
            profile["profile"]["timed_s"] = run.process_s
            return ChildRun(
                {**profile, **run.report}, run.process_s, run.peak_rss_bytes
            )

        return self.measure(
            measurement,
            take,
            before=before,
            after=after,
            warmup=measurement.role == "floor",
        )


def discard(path: Path, trash: Path) -> None:
    """Move ``path`` into ``trash`` (one rename); the bench empties it at the end.

    Not deleted now: on ext4, creating files within ~30 s of deleting thousands
    makes the inode allocator skip every recently freed inode (``recently_deleted``),
    which added ~4 s of kernel time to a cold build timed just after the harness
    removed the last repetition's ~25,000 files. That cost is the harness's, not
    the pipeline's (a fresh clone or a week-old build folder does not pay it), and
    it fell unevenly on builds and floors.
    """
    if not (path.is_symlink() or path.exists()):
        return
    trash.mkdir(parents=True, exist_ok=True)
    path.rename(trash / f"{len(list(trash.iterdir())):04d}-{path.name}")


def _copy_files(source: Path, target: Path) -> None:
    """Copy a folder's files with fresh, writable modes (the mirror is read-only).

    Real copies, never symlinks: the source refuses links that leave a mirror's root.
    """
    for file in sorted(source.rglob("*")):
        if file.is_file():
            destination = target / file.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, destination)


#: The Markdown a build in ``Harness.env_for``'s state folder hands MkDocs.
STAGED_MARKDOWN = Path("build") / STAGED_PROJECT / "site"


def markdown_change(before: Path, after: Path) -> dict[str, Any]:
    """How much of the site's Markdown an increment changed, new pages included.

    Rendering and MkDocs' conversion grow with the bytes of the pages they make, and
    no cache can skip a page whose Markdown changed: this share of the cold build's
    page work is what an increment pays at the least, whatever the caches do.
    """
    old = {p.relative_to(before): p for p in before.rglob("*.md")}
    pages = bytes_total = changed = bytes_changed = 0
    for path in after.rglob("*.md"):
        data = path.read_bytes()
        pages += 1
        bytes_total += len(data)
        previous = old.get(path.relative_to(after))
        if previous is None or previous.read_bytes() != data:
            changed += 1
            bytes_changed += len(data)
    share = round(bytes_changed / bytes_total, 4) if bytes_total else None
    return {
        "pages": pages,
        "pages_changed": changed,
        "bytes": bytes_total,
        "bytes_changed": bytes_changed,
        "share_of_bytes": share,
    }


def record_markdown_change(
    measurement: Measurement, pristine: Path, state: Path, then: Callable[[], None]
) -> Callable[[], None]:
    """An ``after`` hook: the repetition's ``markdown_change`` (the last one kept)."""

    def after() -> None:
        measurement.detail["markdown"] = markdown_change(
            pristine / STAGED_MARKDOWN, state / STAGED_MARKDOWN
        )
        then()

    return after


def built_base(
    h: Harness, name: str, mirror: Path, work: Path
) -> tuple[dict[str, str], tuple[Path, Path], ChildRun]:
    """``mirror`` built cold into ``work/state``, ticked once, and kept as ``pristine``.

    Not timed: the state each repetition of an update step starts from. Returns the
    environment, ``(state, pristine)`` and the base build's run.
    """
    state, pristine = work / "state", work / "pristine"
    env = h.env_for(state, mirror)
    state.mkdir(parents=True, exist_ok=True)
    base = run_process(f"{name} base", cli("site"), env, h.log("base"))
    h.say(f"{name}: base build took {base.process_s:.1f} s; warm-up tick")
    run_process(f"{name} warm-up", cli("update"), env, h.log("warmup"))
    shutil.copytree(state, pristine, symlinks=True)
    return env, (state, pristine), base


def bench_update_step(
    h: Harness,
    measurement: Measurement,
    env: Mapping[str, str],
    built: tuple[Path, Path],
    change: Callable[[], None],
    withdraw: Callable[[], None],
) -> Measurement:
    """``update`` after ``change`` upstream, from the same built state every time.

    ``built`` is ``(state, pristine)``: the state is restored from the pristine copy
    before each repetition, so each measures the same step; ``withdraw`` undoes the
    change after it, and the Markdown it changed is recorded.
    """
    state, pristine = built

    def restore_and_change() -> None:
        h.discard(state)
        shutil.copytree(pristine, state, symlinks=True)
        change()

    return h.command(
        measurement,
        cli("update"),
        env,
        expect_runs="some",
        before=restore_and_change,
        after=record_markdown_change(measurement, pristine, state, withdraw),
    )


def mirror_releases(mirror: Path) -> list[tuple[str, Path]]:
    """``(version, folder)`` of every round in a mirror, oldest first."""
    from pipeline.registry.releases import version_key

    found = []
    for folder in mirror.glob("inference_results_v*"):
        version = folder.name.removeprefix("inference_results_")
        try:
            found.append((version_key(version), version, folder))
        except ValueError:
            continue
    return [(v, f) for _, v, f in sorted(found)]


def copy_mirror(mirror: Path, versions: Sequence[str], target: Path) -> Path:
    """A mirror holding copies of only ``versions`` of ``mirror``."""
    folders = dict(mirror_releases(mirror))
    missing = [v for v in versions if v not in folders]
    if missing:
        raise BenchError(f"{mirror}: no folder for {', '.join(missing)}")
    for version in versions:
        _copy_files(folders[version], target / folders[version].name)
    return target


def built_pages(state: Path) -> int:
    """HTML pages of the site a build published (404.html is made by any build)."""
    site = state / "build" / "site"
    return sum(1 for p in site.rglob("*.html") if p.name != "404.html")


#: Pages per nav section of the plain floor project (the site's largest sections hold
#: a few dozen pages: releases, benchmarks).
SECTION_PAGES = 40


def plain_mkdocs_project(folder: Path, pages: int) -> Path:
    """A plain mkdocs-material project of ``pages`` short pages: the mkdocs floor.

    Laid out like the site (sections of a few dozen pages, the site's theme features):
    with every page at the top level, navigation.prune has nothing to prune and each
    page renders the whole nav, which took 59 s for 822 pages.
    """
    docs = folder / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (folder / "mkdocs.yml").write_text(
        "site_name: floor\n"
        "site_url: http://127.0.0.1:8000/\n"
        "use_directory_urls: false\n"
        "theme:\n  name: material\n  features:\n"
        "    - navigation.instant\n    - navigation.indexes\n    - navigation.prune\n"
    )
    (docs / "index.md").write_text("# Home\n\nThe floor of a site build.\n")
    for index in range(1, pages):
        page = docs / f"section-{index // SECTION_PAGES}" / f"page-{index}.md"
        page.parent.mkdir(exist_ok=True)
        page.write_text(f"# Page {index}\n\nSome text.\n")
    return folder / "mkdocs.yml"


def bench_cold_build(
    h: Harness, name: str, label: str, mirror: Path
) -> tuple[Measurement, Path]:
    """``mlperf-ledger site`` from empty data, instance and build folders.

    Returns the measurement and the state of the last repetition, which later
    measurements reuse.
    """
    state = h.root / name

    def fresh() -> None:
        h.discard(state)
        state.mkdir(parents=True)

    measurement = h.command(
        Measurement(name, label),
        cli("site"),
        h.env_for(state, mirror),
        expect_runs="some",
        before=fresh,
    )
    measurement.detail["mirror_rounds"] = [v for v, _ in mirror_releases(mirror)]
    return measurement, state


def bench_mkdocs_floor(h: Harness, name: str, pages: int) -> Measurement:
    """``mkdocs build`` of a plain project as big as the real site, as production."""
    config = plain_mkdocs_project(h.root / name, pages)
    argv = [
        sys.executable,
        "-m",
        "mkdocs",
        "build",
        "--strict",
        "--quiet",
        "-f",
        str(config),
        "--site-dir",
        str(h.root / name / "site"),
    ]
    measurement = Measurement(
        name, f"Floor: plain mkdocs-material build of {pages} pages", "floor"
    )
    measurement.detail["pages"] = pages
    # Each repetition builds into an empty folder, as the pipeline's build does
    # (MkDocs would otherwise delete the last one's pages first, see ``discard``).
    return h.command(
        measurement,
        argv,
        {"NO_MKDOCS_2_WARNING": "1"},
        before=lambda: h.discard(h.root / name / "site"),
    )


def bench_noop(h: Harness, state: Path) -> Measurement:
    """``mlperf-ledger update`` with nothing changed upstream, after a warm-up tick."""
    env = h.env_for(state, h.mirror)
    h.say("no-op update: warm-up tick (records the validators, not timed)")
    warmup = run_process("update warm-up", cli("update"), env, h.log("warmup"))
    measurement = Measurement("noop_update", "No-op update (whole process)")
    measurement.detail["warmup_s"] = round(warmup.process_s, 3)
    return h.command(measurement, cli("update"), env, expect_runs="none")


def bench_incremental(h: Harness) -> Measurement:
    """A mirror without its newest round, built cold; then that round appears.

    The built state is kept aside and restored before every repetition, so each one
    measures the same step: one new summary file, then ``mlperf-ledger update``.
    """
    releases = mirror_releases(h.mirror)
    if len(releases) < 2:
        raise BenchError(f"{h.mirror}: the incremental benchmark needs two rounds")
    newest, newest_folder = releases[-1]
    work = h.root / "incremental"
    mirror = copy_mirror(h.mirror, [v for v, _ in releases[:-1]], work / "mirror")
    h.say(f"incremental: building the mirror without {newest} (not timed)")
    env, built, base = built_base(h, "incremental", mirror, work)
    h.child(
        Measurement("read_added", f"Floor: read + parse {newest}", "floor"),
        "read_floor",
        {"folders": [str(newest_folder)]},
    )
    measurement = Measurement(
        "incremental", f"One new release ({newest}), then update (whole process)"
    )
    measurement.detail.update(
        added_release=newest, base_build_s=round(base.process_s, 3)
    )
    return bench_update_step(
        h,
        measurement,
        env,
        built,
        change=lambda: _copy_files(newest_folder, mirror / newest_folder.name),
        withdraw=lambda: h.discard(mirror / newest_folder.name),
    )


#: The round an upstream correction is measured on, and where its later version is.
CORRECTED_RELEASE = "v6.1"
CORRECTED_FILE = "summary.json"


def alt_mirror(mirror: Path) -> Path:
    """The mirror of later upstream versions next to ``mirror`` (``-alt``)."""
    return mirror.parent / f"{mirror.name}-alt"


#: The first numeric ``Result`` of a summary file, as its bytes hold it.
_RESULT = re.compile(rb'("Result"\s*:\s*)(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)')


def one_value_changed(data: bytes) -> bytes | None:
    """``data`` with its first numeric ``Result`` raised by one, every other byte kept.

    The least an upstream correction can be: one number of one result. None when the
    file holds no numeric ``Result`` (nothing to change).
    """
    match = _RESULT.search(data)
    if match is None:
        return None
    old = match.group(2).decode()
    integer = old.lstrip("-").isdigit()
    new = str(int(old) + 1) if integer else repr(float(old) + 1)
    return data[: match.start(2)] + new.encode() + data[match.end(2) :]


def bench_correction(h: Harness) -> None:
    """The full mirror built cold; then upstream corrects a round, and ``update``.

    Two corrections of v6.1, each measured on the same built state (restored before
    every repetition, so each repetition measures the same step): its summary
    replaced by its later version from the ``-alt`` mirror (``correction``), and
    the published summary with one value changed (``correction_one_value``), the
    least a correction can be: what it costs is what no correction costs less than.
    A correction whose file is missing is said and not measured.
    """
    name = f"inference_results_{CORRECTED_RELEASE}"
    folder = dict(mirror_releases(h.mirror)).get(CORRECTED_RELEASE)
    if folder is None or not (folder / CORRECTED_FILE).is_file():
        h.say(f"correction: no {CORRECTED_RELEASE} {CORRECTED_FILE}; not measured")
        return
    published = (folder / CORRECTED_FILE).read_bytes()
    changes: list[tuple[str, str, bytes]] = []
    corrected = alt_mirror(h.mirror) / name / CORRECTED_FILE
    if corrected.is_file():
        changes.append(
            (
                "correction",
                f"Upstream corrects {CORRECTED_RELEASE}, then update (whole process)",
                corrected.read_bytes(),
            )
        )
    else:
        h.say(f"correction: no {corrected}; not measured")
    edited = one_value_changed(published)
    if edited is None:
        h.say(f"one-value correction: no numeric Result in {folder / CORRECTED_FILE}")
    else:
        changes.append(
            (
                "correction_one_value",
                f"One value of {CORRECTED_RELEASE} changed upstream, then update",
                edited,
            )
        )
    if not changes:
        return
    work = h.root / "correction"
    every = [v for v, _ in mirror_releases(h.mirror)]
    mirror = copy_mirror(h.mirror, every, work / "mirror")
    target = mirror / name / CORRECTED_FILE
    h.say("correction: building the full mirror copy (not timed)")
    env, built, base = built_base(h, "correction", mirror, work)
    h.child(
        Measurement(
            "read_corrected",
            f"Floor: read + parse the corrected {CORRECTED_RELEASE}",
            "floor",
        ),
        "read_floor",
        {"folders": [str(corrected.parent if corrected.is_file() else folder)]},
    )

    for measured, label, content in changes:
        measurement = Measurement(measured, label)
        measurement.detail.update(
            corrected_release=CORRECTED_RELEASE, base_build_s=round(base.process_s, 3)
        )
        bench_update_step(
            h,
            measurement,
            env,
            built,
            change=lambda content=content: target.write_bytes(content),
            withdraw=lambda: target.write_bytes(published),
        )


def bench_analytics(h: Harness, state: Path) -> None:
    """The analytics assets on the cold build's table at every scale, and the floor."""
    table = state / "data" / "assets" / "core_mlperf__all_results" / "_.parquet"
    if not table.exists():
        raise BenchError(f"{table}: the cold build left no canonical table")
    for scale in h.scales:
        work = h.root / f"analytics-x{scale}"
        env = h.env_for(work, h.mirror)
        data = work / "data" / "assets" / "core_mlperf__all_results" / "_.parquet"
        h.say(f"analytics x{scale}: writing the input table (not timed)")
        prepared = run_child(
            "analytics_input",
            {"input": str(table), "scale": scale, "out": str(data)},
            {},
            h.scratch,
        )
        rows = prepared.report["rows"]
        h.child(
            Measurement(
                f"read_table_x{scale}",
                f"Floor: read the x{scale} input table ({rows:,} rows)",
                "floor",
            ),
            "read_table",
            {"table": str(data)},
        )
        label = (
            "Analytics assets on the real data"
            if scale == 1
            else f"Analytics assets on synthetic data (x{scale})"
        )
        measurement = Measurement(f"analytics_x{scale}", label)
        measurement.detail["scale"] = scale
        h.child(measurement, "analytics", {"rows": rows}, env)
        h.discard(work)


#: Invented keys per record in the hostile snapshot diff (a 2 MB v6.1 summary).


def bench_snapshot_diff(h: Harness) -> None:
    """Memory of the snapshot diff on a file whose records invent keys, vs the real."""
    config = {"mirror": str(h.mirror)}
    h.child(
        Measurement(
            "diff_real", "Floor: snapshot diff of the real v6.1 files", "floor"
        ),
        "snapshot_diff",
        config,
    )
    h.child(
        Measurement(
            "diff_many_keys",
            f"Snapshot diff, {MANY_KEYS} distinct invented keys per record",
        ),
        "snapshot_diff",
        config | {"extra_keys": MANY_KEYS},
    )


def bench_raw_tree(h: Harness) -> None:
    """``scan_raw_tree`` on a round's tree, and the floor: reading the same files."""
    config = {"mirror": str(h.mirror)}
    h.child(
        Measurement(
            "raw_tree_floor",
            f"Floor: read and decode the files the scan reads ({RAW_TREE_RELEASE})",
            "floor",
        ),
        "raw_tree_floor",
        config,
    )
    h.child(
        Measurement(
            "raw_tree_scan", f"Raw-tree parsing (scan_raw_tree, {RAW_TREE_RELEASE})"
        ),
        "raw_tree_scan",
        config,
    )


def files_read_bytes(data: Path) -> dict[str, int]:
    """Per round, the bytes of the upstream files a build read (summary and tree)."""
    from pipeline.snapshots import SnapshotStore

    out: dict[str, int] = {}
    blobs = SnapshotStore(data).blobs
    for release in sorted(p.name for p in (data / "raw").glob("v*")):
        total = 0
        for sidecar in (data / "raw" / release).glob("*/*.meta.json"):
            meta = json.loads(sidecar.read_text())
            if meta["path"] != "tree.json":
                total += meta["bytes"]
                continue
            listing = json.loads((data / meta["blob"]).read_text())
            total += sum(len(blobs.get(sha)) for sha in set(listing["files"].values()))
        out[release] = total
    return out


def bench_git(h: Harness) -> dict[str, Any]:
    """A cold ``site`` over git: the mirror's rounds on a git server on 127.0.0.1.

    The repositories are built from the mirror (one commit per round) and served by
    ``git http-backend`` (tests/gitserver.py), so the whole fetch path runs: ls-remote,
    the trees of the commit, one batch of the files the rules read. Judged against
    ``cold_full``, the same build from the folder. Per round: requests and bytes the
    server sent, against the bytes of the files read and of the repository.
    """
    from tests.gitserver import GitServer, mirror_repositories

    served = h.root / "git-server"
    h.say("building git repositories from the mirror (one commit per round)")
    mirror_repositories(served, h.mirror)
    state = h.root / "cold_git"
    with GitServer(served) as server:

        def fresh() -> None:
            h.discard(state)
            state.mkdir(parents=True)
            server.requests.clear()

        env = h.env_for(state, h.mirror) | {
            "MLPERF_SOURCE": f"git+{server.url}",
            "MLPERF_GIT_CACHE_DIR": str(state / "clones"),
        }
        h.command(
            Measurement("cold_git_full", "Cold fetch and build over git, full mirror"),
            cli("site"),
            env,
            expect_runs="some",
            before=fresh,
        )
        read = files_read_bytes(state / "data")
        rounds = {}
        for repo in sorted((served / "mlcommons").glob("*.git")):
            version = repo.name.removesuffix(".git").removeprefix("inference_results_")
            requests, sent = server.cost(repo.name)
            rounds[version] = {
                "requests": requests,
                "bytes_sent": sent,
                "bytes_of_files_read": read.get(version),
                "bytes_in_repository": sum(
                    f.stat().st_size for f in repo.rglob("*") if f.is_file()
                ),
            }
    return rounds


#: The round and read path of the oversized-file workload, and the file's size.
OVERSIZED_RELEASE = "v6.0"
OVERSIZED_PATH = (
    "open/NVIDIA/results/Jetson-Thor/llama3.1-8b-edge/Offline/performance/run_1/"
    "mlperf_log_summary.txt"
)
OVERSIZED_BYTES = 200 * 1024 * 1024


def bench_oversized(h: Harness) -> None:
    """``ingest`` of one round over git, with and without a 200 MB file in a read path.

    The file (zeros, so its pack is small, as in issue 33's attack) is over the
    64 MB cap: it must be refused without being read, so the process and its git
    children peak within a fifth of the same round without it.
    """
    from tests.gitserver import GitServer, commit_folder

    folder = h.mirror / f"inference_results_{OVERSIZED_RELEASE}"
    if not (folder / OVERSIZED_PATH).is_file():
        h.say(f"oversized file: no {OVERSIZED_PATH} in the mirror; not measured")
        return
    served = h.root / "oversized-server"
    repo = f"inference_results_{OVERSIZED_RELEASE}.git"
    h.say(f"oversized file: a git server with {OVERSIZED_RELEASE}, plain and padded")
    commit_folder(served / "plain" / "mlcommons" / repo, folder, "as published")
    padded = (folder / OVERSIZED_PATH).read_bytes() + bytes(OVERSIZED_BYTES)
    commit_folder(
        served / "padded" / "mlcommons" / repo, folder, "padded",
        extra={OVERSIZED_PATH: padded},
    )  # fmt: skip
    del padded
    ingest = f"ingest {OVERSIZED_RELEASE} over git"
    for kind, name, label, role in (
        ("plain", "ingest_git_plain", f"Floor: {ingest}", "floor"),
        ("padded", "ingest_git_oversized",
         f"{ingest.capitalize()}, a 200 MB file in a read path", "measure"),
    ):  # fmt: skip
        state = h.root / f"oversized-{kind}"
        with GitServer(served / kind) as server:

            def fresh(state: Path = state) -> None:
                h.discard(state)
                state.mkdir(parents=True)

            env = h.env_for(state, h.mirror) | {
                "MLPERF_SOURCE": f"git+{server.url}",
                "MLPERF_GIT_CACHE_DIR": str(state / "clones"),
            }
            h.command(
                Measurement(name, label, role),
                cli("ingest", "--release", OVERSIZED_RELEASE),
                env,
                before=fresh,
            )
