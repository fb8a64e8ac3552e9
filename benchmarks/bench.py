"""The benchmark harness behind ``make bench``: what the pipeline costs, measured.

What belongs here: driving repeatable measurements of the whole pipeline (cold build,
no-op rerun, one new release), of the analytics alone on real and synthetic data, and
of raw-tree parsing against the cost of merely reading its files; summarising them
(median of repetitions, peak RSS, page weights) into ``build/bench/results.json``; and
judging them against the project's targets. What does not: the Performance page
(``pipeline.render.performance_page`` renders the JSON) and any pipeline logic (every
measurement calls the same public entry points the CLI and tests use).

It is plain Python rather than a pytest suite on purpose: timings are too noisy for
assertions in ``make test``, and a benchmark must run on the real data, for minutes.

Every repetition runs in a fresh subprocess (``-m benchmarks.bench --child ...``):

* each one starts from the same state (no warm Polars caches, imported modules or
  open Dagster instance left behind by an earlier measurement);
* peak memory is per measurement: the parent reaps each child with ``os.wait4``,
  whose ``ru_maxrss`` is the largest resident set of that child or of any process it
  waited for (``mkdocs build`` runs as a grandchild). A running total from
  ``getrusage(RUSAGE_CHILDREN)`` would only ever report the worst child so far.

The timed figure is the measured call itself (``runner.ingest``, ``runner.update``,
``analyse``, ``scan_raw_tree``), as a person waiting on a warm interpreter sees it;
the whole child process (interpreter start and imports included) is recorded next
to it as ``process_s``.

Usage::

    python -m benchmarks.bench                # 3 repetitions, median reported
    python -m benchmarks.bench --repeat 5
    python -m benchmarks.bench --quick        # one repetition, analytics at x1/x10 only
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import polars as pl

from pipeline import settings

#: The checkout holding ``benchmarks/`` (children run ``-m benchmarks.bench`` here).
ROOT = Path(__file__).resolve().parent.parent

#: Synthetic scales of the analytics benchmark (copies of every real row).
SCALES = (1, 10, 100)
QUICK_SCALES = (1, 10)
DEFAULT_REPEAT = 3
#: The round whose raw submission tree is parsed (the largest subset in the mirror).
RAW_TREE_RELEASE = "v5.1"
#: Relative jitter applied to replicated values (+-1 %): enough that copies are not
#: exact ties in best-of selections, small enough that no ratio changes meaning.
JITTER = 0.02
#: Largest "roughly linear" growth exponent of analytics time against rows.
LINEAR_EXPONENT_LIMIT = 1.25
GB = 1_000_000_000
#: The site's own page budget (``pipeline.defs.site.PAGE_BUDGET_BYTES``), repeated so
#: the harness need not import Dagster in the parent; a unit test keeps them equal.
PAGE_BUDGET_BYTES = 1_500_000
_SPEC_ATTRIBUTE = re.compile(r'data-spec="([^"]+)"')
_DATA_URL = re.compile(r'"url"\s*:\s*"(data/[^"]+)"')


class BenchError(RuntimeError):
    """A measurement could not be taken; the message says which and why."""


# -- synthetic data ------------------------------------------------------------------


def replicate(
    results: pl.DataFrame | pl.LazyFrame,
    factor: int,
    *,
    seed: int = 0,
    jitter: float = JITTER,
) -> pl.DataFrame:
    """The canonical table ``factor`` times over, as if more teams had submitted.

    Copy 0 is the real table unchanged. Copy ``k`` renames every submitter, platform
    and system (``"AMD~3"``) and makes ``result_key``/``result_id`` unique, so each
    copy behaves like a new submitter running the same hardware: pairs that need the
    same submitter or platform (system-level gains, same-submitter generations and
    scaling) grow linearly with ``factor``, while best-of-any-submitter pairs keep
    their count and only their groups grow. Merely duplicating rows would instead
    multiply self-joins quadratically and measure a workload no round will ever have.

    Values are jittered by up to ``jitter / 2`` either way with a hash of (key, copy,
    seed), so copies are not exact ties; ``result_per_accelerator`` moves with its
    ``result_value``. Everything is one Polars plan (a cross join with the copy
    numbers), no Python loop over rows.

    Args:
        results: Rows in the canonical schema (``RESULTS_SCHEMA``).
        factor: How many copies, 1 or more (1 returns the table as is).
        seed: Changes the jitter, nothing else.
        jitter: Total relative width of the jitter band.

    Returns:
        ``factor`` times the rows, same schema and column order.

    Raises:
        ValueError: ``factor`` is below 1.
    """
    if factor < 1:
        raise ValueError(f"replication factor must be 1 or more, got {factor}")
    lazy = results.lazy()
    columns = lazy.collect_schema().names()
    if factor == 1:
        return lazy.collect()
    copies = pl.LazyFrame({"_copy": pl.int_range(factor, eager=True, dtype=pl.Int32)})
    original = pl.col("_copy") == 0

    def renamed(name: str) -> pl.Expr:
        return (
            pl.when(original)
            .then(pl.col(name))
            .otherwise(pl.format("{}~{}", pl.col(name), pl.col("_copy")))
        )

    unit = (pl.struct("result_key", "_copy").hash(seed) % 1_000_003).cast(
        pl.Float64
    ) / 1_000_003
    scale = pl.when(original).then(1.0).otherwise(1.0 + jitter * (unit - 0.5))
    jittered = [
        c
        for c in ("result_value", "result_value_upstream", "result_per_accelerator")
        if c in columns
    ]
    renamed_columns = [
        c
        for c in ("result_key", "result_id", "submitter", "platform", "system_name")
        if c in columns
    ]
    return (
        lazy.join(copies, how="cross")
        .with_columns(_scale=scale)
        .with_columns(
            *[renamed(c) for c in renamed_columns],
            *[pl.col(c) * pl.col("_scale") for c in jittered],
        )
        .select(columns)
        .collect()
    )


# -- what the machine is -------------------------------------------------------------


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown"


def _ram_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine_description() -> dict[str, Any]:
    """Where the numbers were taken: they mean little without the machine."""
    from pipeline.lineage import git_commit

    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "ram_bytes": _ram_bytes(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "polars": _version("polars"),
        "dagster": _version("dagster"),
        "pipeline_commit": git_commit(str(settings.PROJECT_ROOT)),
        "date": dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
    }


# -- running one repetition in a child process ---------------------------------------


@dataclass(frozen=True)
class ChildRun:
    """One repetition as the parent saw it: the child's report plus its cost."""

    report: dict[str, Any]
    process_s: float
    peak_rss_bytes: int


def run_child(
    kind: str, config: dict[str, Any], env: dict[str, str], scratch: Path
) -> ChildRun:
    """Run ``python -m benchmarks.bench --child kind`` and reap it with ``wait4``.

    ``wait4`` gives this child's own resource usage (largest RSS of it and of every
    process it waited for), which ``subprocess``' own wait would throw away.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    config_path = Path(tempfile.mkstemp(dir=scratch, suffix=".json")[1])
    result_path = config_path.with_suffix(".result.json")
    config_path.write_text(json.dumps({**config, "result": str(result_path)}))
    command = [sys.executable, "-m", "benchmarks.bench", "--child", kind]
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command, "--config", str(config_path)],
        env={**os.environ, **env},
        cwd=ROOT,
    )
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - started
    if process.returncode != 0 or not result_path.exists():
        raise BenchError(
            f"{kind}: child process failed with exit code {process.returncode} "
            "(its output is above)"
        )
    report = json.loads(result_path.read_text())
    if report.get("error"):
        raise BenchError(f"{kind}: {report['error']}")
    # Linux reports ru_maxrss in KiB (macOS in bytes; this harness targets Linux).
    return ChildRun(report, elapsed, usage.ru_maxrss * 1024)


def _child_progress(message: str) -> None:
    print(f"      {message}", flush=True)


def _latest_rows(instance: Any) -> int | None:
    from pipeline import runner

    rows = runner.latest_metadata(instance, "core_mlperf__all_results").get("rows")
    return int(rows) if rows is not None else None


def step_profile(
    instance: Any, run_ids: set[str] | None = None, top: int = 12
) -> dict[str, Any]:
    """Where the instance's runs spent their time, by asset step, summed over runs.

    The difference between the runs' wall time and the steps' time is Dagster's own
    overhead (run and step launch, event storage), the first suspect when a small
    change costs too much.
    """
    import dagster as dg

    steps: dict[str, float] = {}
    wall = 0.0
    records = [
        r
        for r in instance.get_run_records()
        if run_ids is None or r.dagster_run.run_id in run_ids
    ]
    for record in records:
        if record.start_time and record.end_time:
            wall += record.end_time - record.start_time
        for entry in instance.all_logs(
            record.dagster_run.run_id, of_type=dg.DagsterEventType.STEP_SUCCESS
        ):
            data = entry.dagster_event.event_specific_data
            key = entry.step_key or "?"
            steps[key] = steps.get(key, 0.0) + data.duration_ms / 1000
    ranked = sorted(steps.items(), key=lambda item: -item[1])
    return {
        "runs": len(records),
        "run_wall_s": round(wall, 3),
        "step_s": round(sum(steps.values()), 3),
        "top_steps": [{"step": k, "seconds": round(v, 3)} for k, v in ranked[:top]],
    }


def _child_ingest_all(config: dict[str, Any]) -> dict[str, Any]:
    from pipeline import runner

    instance = runner.get_instance()
    versions = runner.known_releases(instance)
    started = time.perf_counter()
    outcomes = runner.ingest(instance, versions, progress=_child_progress, site=True)
    elapsed = time.perf_counter() - started
    failed = [f"{o.label}: {o.message}" for o in outcomes if not o.success]
    return {
        "seconds": elapsed,
        "rows": _latest_rows(instance),
        "releases": len(versions),
        "runs": len(outcomes),
        "error": "; ".join(failed) if failed and config.get("strict", True) else None,
        "failed": failed,
        "profile": (
            {**step_profile(instance), "timed_s": elapsed}
            if config.get("profile")
            else None
        ),
    }


def _child_update(config: dict[str, Any]) -> dict[str, Any]:
    from pipeline import runner

    instance = runner.get_instance()
    before = {r.dagster_run.run_id for r in instance.get_run_records()}
    started = time.perf_counter()
    outcomes = runner.update(instance, progress=_child_progress)
    elapsed = time.perf_counter() - started
    failed = [f"{o.label}: {o.message}" for o in outcomes if not o.success]
    expected = config.get("expect_runs")
    error = "; ".join(failed) or None
    if expected == "none" and outcomes:
        error = f"expected no run, the tick requested {[o.label for o in outcomes]}"
    if expected == "some" and not outcomes:
        error = "expected the new release to be run, the tick requested nothing"
    profile = None
    if config.get("profile"):
        new = {r.dagster_run.run_id for r in instance.get_run_records()} - before
        profile = {**step_profile(instance, new), "timed_s": elapsed}
    return {
        "seconds": elapsed,
        "rows": _latest_rows(instance),
        "runs": [o.label for o in outcomes],
        "error": error,
        "profile": profile,
    }


def _child_analytics(config: dict[str, Any]) -> dict[str, Any]:
    from pipeline.analysis import analyse

    frame = replicate(pl.read_parquet(config["input"]), int(config["scale"]))
    started = time.perf_counter()
    tables = analyse(frame)
    elapsed = time.perf_counter() - started
    return {
        "seconds": elapsed,
        "rows": frame.height,
        "pairs": {
            "software_gains": tables.software_gains.height,
            "generation_ratios": tables.generation_ratios.height,
            "scaling": tables.scaling.height,
        },
    }


def _raw_tree_inputs(mirror: str) -> tuple[Any, str, Any]:
    from pipeline.manifest import release_for
    from pipeline.source import Source

    release = release_for(RAW_TREE_RELEASE)
    return Source(mirror), release.repo_name, release


def _child_raw_tree_scan(config: dict[str, Any]) -> dict[str, Any]:
    from pipeline.extract.raw_tree import scan_raw_tree

    source, repo, release = _raw_tree_inputs(config["mirror"])
    read_count = 0

    def read(path: str) -> bytes:
        nonlocal read_count
        read_count += 1
        return source.fetch(repo, path).content

    listed = time.perf_counter()
    paths = source.list_tree(repo)
    started = time.perf_counter()
    results, rejected = scan_raw_tree(
        paths, read, release=release.version, repository=release.repository
    )
    elapsed = time.perf_counter() - started
    return {
        "seconds": elapsed,
        "list_s": started - listed,
        "rows": results.height + rejected.height,
        "files_listed": len(paths),
        "files_read": read_count,
        "files_per_s": read_count / elapsed if elapsed else None,
    }


def _child_raw_tree_floor(config: dict[str, Any]) -> dict[str, Any]:
    """Read and decode exactly the files the scan reads, and nothing else.

    The file set comes from an untimed scan with a recording reader (which also
    warms the page cache, as the scan children find it after the first run).
    """
    from pipeline.extract.raw_tree import scan_raw_tree

    source, repo, release = _raw_tree_inputs(config["mirror"])
    paths = source.list_tree(repo)
    wanted: list[str] = []

    def record(path: str) -> bytes:
        wanted.append(path)
        return source.fetch(repo, path).content

    scan_raw_tree(paths, record, release=release.version, repository=release.repository)
    files = [Path(source.url_for(repo, p)) for p in wanted]
    started = time.perf_counter()
    for file in files:
        content = file.read_bytes()
        if file.suffix == ".json":
            json.loads(content)
        else:
            content.decode("utf-8", errors="replace")
    elapsed = time.perf_counter() - started
    return {
        "seconds": elapsed,
        "rows": None,
        "files_read": len(files),
        "files_per_s": len(files) / elapsed if elapsed else None,
    }


CHILDREN: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "ingest_all": _child_ingest_all,
    "update": _child_update,
    "analytics": _child_analytics,
    "raw_tree_scan": _child_raw_tree_scan,
    "raw_tree_floor": _child_raw_tree_floor,
}


def child_main(kind: str, config_path: Path) -> int:
    """Entry point of a child: run one measurement, write its report as JSON."""
    config = json.loads(config_path.read_text())
    report = CHILDREN[kind](config)
    Path(config["result"]).write_text(json.dumps(report, default=str))
    return 0


# -- the parent: measurements, state, summaries --------------------------------------


@dataclass
class Measurement:
    """Repetitions of one measurement and their summary, as written to the JSON."""

    name: str
    label: str
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

    def say(self, message: str) -> None:
        """One progress line with the time elapsed since the start."""
        elapsed = time.perf_counter() - self.started
        minutes, seconds = divmod(int(elapsed), 60)
        print(f"[bench {minutes:02d}:{seconds:02d}] {message}", flush=True)

    def env_for(self, state: Path, source: Path) -> dict[str, str]:
        """Environment pointing every pipeline folder into ``state``."""
        return {
            "MLPERF_SOURCE": str(source),
            "MLPERF_DATA_DIR": str(state / "data"),
            "DAGSTER_HOME": str(state / "dagster_home"),
            "MLPERF_BUILD_DIR": str(state / "build"),
        }

    def measure(
        self,
        measurement: Measurement,
        kind: str,
        config: dict[str, Any],
        env: dict[str, str],
        *,
        before: Callable[[int], None] | None = None,
        after: Callable[[int], None] | None = None,
        repeat: int | None = None,
    ) -> Measurement:
        """Run ``repeat`` repetitions of one child, printing each as it ends."""
        total = repeat or self.repeat
        for index in range(1, total + 1):
            if before:
                before(index)
            self.say(f"{measurement.label}: repetition {index}/{total} ...")
            run = run_child(kind, config, env, self.root / "scratch")
            measurement.runs.append(run)
            if after:
                after(index)
            self.say(
                f"{measurement.label}: repetition {index}/{total}: "
                f"{run.report['seconds']:.3f} s (process {run.process_s:.1f} s, "
                f"peak RSS {run.peak_rss_bytes / 1e6:,.0f} MB)"
            )
        return measurement


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def _copy_files(source: Path, target: Path) -> None:
    """Copy a folder's files with fresh, writable modes (the mirror is read-only)."""
    for file in sorted(source.rglob("*")):
        if file.is_file():
            destination = target / file.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, destination)


def mirror_releases(mirror: Path) -> list[tuple[str, Path]]:
    """``(version, folder)`` of every round in a mirror, oldest first."""
    from pipeline.manifest import version_key

    found = []
    for folder in mirror.glob("inference_results_v*"):
        version = folder.name.removeprefix("inference_results_")
        try:
            found.append((version_key(version), version, folder))
        except ValueError:
            continue
    return [(v, f) for _, v, f in sorted(found)]


def bench_cold_build(h: Harness) -> tuple[Measurement, Path]:
    """Empty data, instance and build folders to a published site, ``repeat`` times.

    Returns the measurement and the state folder of the last repetition, which the
    no-op, analytics and page-weight measurements reuse.
    """
    measurement = Measurement(
        "cold_build", "Cold build (every release ingested, analytics, site)"
    )
    state = h.root / "cold"

    def fresh(_: int) -> None:
        _remove(state)
        state.mkdir(parents=True)

    # The step profile is read after the timed call, from the instance just built.
    h.measure(
        measurement,
        "ingest_all",
        {"profile": True},
        h.env_for(state, h.mirror),
        before=fresh,
    )
    profile = measurement.runs[-1].report.get("profile")
    if profile:
        measurement.detail["profile"] = profile
    return measurement, state


def bench_noop(h: Harness, state: Path) -> Measurement:
    """``runner.update`` with nothing changed upstream, after one warm-up tick."""
    env = h.env_for(state, h.mirror)
    h.say("no-op rerun: warm-up tick (records the validators)")
    warmup = run_child("update", {}, env, h.root / "scratch")
    measurement = Measurement("noop_rerun", "No-op rerun (update, nothing changed)")
    measurement.detail["warmup_s"] = round(warmup.report["seconds"], 4)
    measurement.detail["warmup_runs"] = warmup.report.get("runs")
    return h.measure(measurement, "update", {"expect_runs": "none"}, env)


def bench_incremental(h: Harness) -> Measurement:
    """A mirror without its newest round, built cold; then that round appears.

    The built state is kept aside and restored before every repetition, so each one
    measures the same step: one new summary file, then ``runner.update``.
    """
    releases = mirror_releases(h.mirror)
    if len(releases) < 2:
        raise BenchError(f"{h.mirror}: the incremental benchmark needs two rounds")
    newest, newest_folder = releases[-1]
    work = h.root / "incremental"
    mirror = work / "mirror"
    mirror.mkdir(parents=True)
    # Older rounds are symlinked (read-only, never touched); only the added round is
    # a real folder, so its files get fresh mtimes, as a new upstream file would.
    for _, folder in releases[:-1]:
        (mirror / folder.name).symlink_to(folder, target_is_directory=True)
    state, pristine = work / "state", work / "pristine"
    env = h.env_for(state, mirror)
    h.say(f"incremental: building the mirror without {newest} (not timed)")
    base = run_child("ingest_all", {}, env, h.root / "scratch")
    h.say(f"incremental: base build took {base.report['seconds']:.1f} s; warm-up tick")
    run_child("update", {"expect_runs": "none"}, env, h.root / "scratch")
    shutil.copytree(state, pristine, symlinks=True)

    def restore_and_add(_: int) -> None:
        _remove(state)
        shutil.copytree(pristine, state, symlinks=True)
        _copy_files(newest_folder, mirror / newest_folder.name)

    def withdraw(_: int) -> None:
        _remove(mirror / newest_folder.name)

    measurement = Measurement(
        "incremental", f"Incremental (one new release, {newest}, then update)"
    )
    measurement.detail.update(
        added_release=newest, base_build_s=round(base.report["seconds"], 3)
    )
    return h.measure(
        measurement,
        "update",
        {"expect_runs": "some", "profile": True},
        env,
        before=restore_and_add,
        after=withdraw,
    )


def bench_analytics(h: Harness, state: Path) -> list[Measurement]:
    """``analyse`` on the canonical table of the cold build, at every scale."""
    table = state / "data" / "assets" / "core_mlperf__all_results" / "_.parquet"
    if not table.exists():
        raise BenchError(f"{table}: the cold build left no canonical table")
    measurements = []
    for scale in h.scales:
        label = (
            "Analytics on the real data"
            if scale == 1
            else f"Analytics on synthetic data (x{scale})"
        )
        measurement = Measurement(f"analytics_x{scale}", label)
        measurement.detail["scale"] = scale
        config = {"input": str(table), "scale": scale}
        measurements.append(h.measure(measurement, "analytics", config, {}))
    return measurements


def bench_raw_tree(h: Harness) -> list[Measurement]:
    """``scan_raw_tree`` on a round's tree, and the floor: reading the same files."""
    config = {"mirror": str(h.mirror)}
    floor = Measurement(
        "raw_tree_floor", f"Raw-tree floor (read and decode, {RAW_TREE_RELEASE})"
    )
    h.measure(floor, "raw_tree_floor", config, {})
    scan = Measurement(
        "raw_tree_scan", f"Raw-tree parsing (scan_raw_tree, {RAW_TREE_RELEASE})"
    )
    h.measure(scan, "raw_tree_scan", config, {})
    return [scan, floor]


def page_weights(site: Path, top: int = 5) -> dict[str, Any]:
    """Bytes per built page: its HTML plus the chart specs and data files it loads.

    That is what a reader downloads for the page itself (the shared JavaScript and
    CSS are cached after the first page); the heaviest page is the one to watch.
    """
    site = site.resolve()
    pages = []
    for page in sorted(site.rglob("*.html")):
        html = page.read_text(encoding="utf-8", errors="replace")
        charts: set[Path] = set()
        for spec_ref in set(_SPEC_ATTRIBUTE.findall(html)):
            spec = (page.parent / spec_ref).resolve()
            if not spec.is_file():
                continue
            charts.add(spec)
            for data_ref in _DATA_URL.findall(spec.read_text(errors="replace")):
                data = (spec.parent / data_ref).resolve()
                if data.is_file():
                    charts.add(data)
        html_bytes = page.stat().st_size
        chart_bytes = sum(p.stat().st_size for p in charts)
        pages.append(
            {
                "page": page.relative_to(site).as_posix(),
                "html_bytes": html_bytes,
                "chart_bytes": chart_bytes,
                "total_bytes": html_bytes + chart_bytes,
            }
        )
    pages.sort(key=lambda p: -p["total_bytes"])
    files = [p for p in site.rglob("*") if p.is_file()]
    return {
        "pages": len(pages),
        "site_bytes": sum(p.stat().st_size for p in files),
        "site_files": len(files),
        "html_bytes": sum(p["html_bytes"] for p in pages),
        "largest": pages[0] if pages else None,
        "heaviest": pages[:top],
        "budget_bytes": PAGE_BUDGET_BYTES,
    }


# -- targets -------------------------------------------------------------------------


def _by_name(measurements: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in measurements}


def growth_exponent(
    small: dict[str, Any] | None, large: dict[str, Any] | None, key: str = "median_s"
) -> float | None:
    """``k`` in cost ~ rows^k between two scales (1 is linear), or None."""
    if not small or not large:
        return None
    cost = (small.get(key), large.get(key))
    rows = (small.get("rows"), large.get("rows"))
    if not all(cost) or not all(rows) or rows[0] == rows[1]:
        return None
    return math.log(cost[1] / cost[0]) / math.log(rows[1] / rows[0])


def _target(
    target_id: str,
    label: str,
    value: float | None,
    limit: float,
    unit: str,
    text: str,
) -> dict[str, Any]:
    return {
        "id": target_id,
        "label": label,
        "value": value,
        "limit": limit,
        "unit": unit,
        "target": text,
        "passed": None if value is None else value < limit,
    }


def evaluate_targets(
    measurements: Sequence[dict[str, Any]], weights: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Judge summarised measurements against the issue's targets for this machine.

    A target whose measurement is missing (``--quick`` skips x100) is listed with
    ``passed`` None, so the page says "not measured" instead of hiding it.
    """
    by = _by_name(measurements)

    def median(name: str) -> float | None:
        return by.get(name, {}).get("median_s")

    def share(name: str) -> float | None:
        part, cold = median(name), median("cold_build")
        return part / cold if part is not None and cold else None

    x100 = by.get("analytics_x100", {})
    rss = x100.get("peak_rss_bytes")
    targets = [
        _target(
            "analytics_real",
            "Analytics on the real data",
            median("analytics_x1"),
            1.0,
            "s",
            "< 1 s",
        ),
        _target(
            "analytics_x100_time",
            "Analytics at x100 synthetic",
            median("analytics_x100"),
            10.0,
            "s",
            "< 10 s",
        ),
        _target(
            "analytics_x100_rss",
            "Analytics at x100 synthetic, peak RSS",
            rss / GB if rss is not None else None,
            2.0,
            "GB",
            "< 2 GB",
        ),
        _target(
            "analytics_linear",
            "Analytics growth from x10 to x100 (exponent of rows; 1 is linear)",
            growth_exponent(by.get("analytics_x10"), by.get("analytics_x100")),
            LINEAR_EXPONENT_LIMIT,
            "",
            f"< {LINEAR_EXPONENT_LIMIT} (roughly linear)",
        ),
        _target(
            "noop_share",
            "No-op rerun, share of the cold build",
            share("noop_rerun"),
            0.20,
            "share",
            "< 20 % of cold",
        ),
        _target(
            "incremental_share",
            "Incremental (one new release), share of the cold build",
            share("incremental"),
            0.50,
            "share",
            "< 50 % of cold",
        ),
    ]
    if weights and weights.get("largest"):
        targets.append(
            _target(
                "page_weight",
                "Heaviest page (HTML + its chart JSON)",
                weights["largest"]["total_bytes"] / 1e6,
                PAGE_BUDGET_BYTES / 1e6,
                "MB",
                f"< {PAGE_BUDGET_BYTES / 1e6:g} MB (the site's page budget)",
            )
        )
    return targets


def analytics_scaling(measurements: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The cost-against-rows series the Performance page charts."""
    return [
        {
            "scale": m["detail"].get("scale"),
            "rows": m.get("rows"),
            "median_s": m.get("median_s"),
            "peak_rss_bytes": m.get("peak_rss_bytes"),
            "pairs": sum((m["detail"].get("pairs") or {}).values()),
        }
        for m in measurements
        if m["name"].startswith("analytics_x")
    ]


# -- entry points --------------------------------------------------------------------


def default_mirror() -> Path | None:
    """``MLPERF_SOURCE`` when it is a folder, else ``../shared/mlperf-mirror``."""
    configured = os.environ.get("MLPERF_SOURCE", "").strip()
    if configured and not configured.startswith(("http://", "https://")):
        return Path(configured).resolve()
    sibling = settings.PROJECT_ROOT.parent / "shared" / "mlperf-mirror"
    return sibling if sibling.is_dir() else None


def _per_second(count: object, seconds: object) -> float | None:
    if not isinstance(count, int | float) or not isinstance(seconds, int | float):
        return None
    return count / seconds if seconds else None


def run(
    mirror: Path,
    repeat: int,
    scales: tuple[int, ...],
    out: Path,
    *,
    keep: bool = False,
    quick: bool = False,
) -> dict[str, Any]:
    """Take every measurement, write the JSON and return it."""
    root = Path(tempfile.mkdtemp(prefix="mlperf-bench-"))
    h = Harness(root=root, mirror=mirror, repeat=repeat, scales=scales)
    h.say(f"work folder {root}; mirror {mirror}; {repeat} repetition(s) each")
    try:
        cold, state = bench_cold_build(h)
        measured = [cold, bench_noop(h, state), bench_incremental(h)]
        measured += bench_analytics(h, state)
        measured += bench_raw_tree(h)
        weights = page_weights(state / "build" / "site")
    finally:
        if keep:
            h.say(f"kept the work folder {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    summaries = [m.summary() for m in measured]
    by = _by_name(summaries)
    scan, floor = by["raw_tree_scan"], by["raw_tree_floor"]
    results = {
        "schema_version": 1,
        "quick": quick,
        "repeat": repeat,
        "mirror": str(mirror),
        "machine": machine_description(),
        "measurements": summaries,
        "targets": evaluate_targets(summaries, weights),
        "analytics_scaling": analytics_scaling(summaries),
        "raw_tree": {
            "release": RAW_TREE_RELEASE,
            "files_read": scan["detail"].get("files_read"),
            "files_listed": scan["detail"].get("files_listed"),
            "files_per_s": _per_second(
                scan["detail"].get("files_read"), scan["median_s"]
            ),
            "floor_files_per_s": _per_second(
                floor["detail"].get("files_read"), floor["median_s"]
            ),
            "overhead_ratio": _per_second(scan["median_s"], floor["median_s"]),
        },
        "page_weights": weights,
        "elapsed_s": round(time.perf_counter() - h.started, 1),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str) + "\n")
    return results


def _report(results: dict[str, Any], out: Path) -> None:
    print(f"\nresults written to {out}\n")
    for m in results["measurements"]:
        rss = (m.get("peak_rss_bytes") or 0) / 1e6
        print(
            f"  {m['label']:<58} median {m['median_s']:9.3f} s  "
            f"peak RSS {rss:7,.0f} MB  rows {m.get('rows')}"
        )
    print()
    for t in results["targets"]:
        mark = {True: "PASS", False: "FAIL", None: "n/a "}[t["passed"]]
        value = t["value"]
        if value is None:
            shown = "-"
        elif t["unit"] == "share":
            shown = f"{value * 100:.1f} %"
        else:
            shown = f"{value:.3g} {t['unit']}".strip()
        print(f"  [{mark}] {t['label']:<66} {shown:>10}  target {t['target']}")
    print("\nThe Performance page shows these on the next `make site`.")


def main(argv: Sequence[str] | None = None) -> int:
    """``make bench``: measure, write ``build/bench/results.json``, print a summary."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--repeat", type=int, default=None, help="repetitions (3)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: one repetition, analytics at x1 and x10 only",
    )
    parser.add_argument("--mirror", type=Path, default=None, help="local mirror folder")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="results file (default: <build dir>/bench/results.json)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--config", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args.child, args.config)
    mirror = args.mirror or default_mirror()
    if mirror is None or not mirror.is_dir():
        parser.error(
            "needs a local mirror (--mirror DIR or MLPERF_SOURCE=DIR): a benchmark "
            "over the network would measure the network"
        )
    repeat = args.repeat or (1 if args.quick else DEFAULT_REPEAT)
    if repeat < 1:
        parser.error("--repeat must be 1 or more")
    out = args.out or settings.build_dir() / "bench" / "results.json"
    scales = QUICK_SCALES if args.quick else SCALES
    try:
        results = run(
            mirror.resolve(), repeat, scales, out, keep=args.keep, quick=args.quick
        )
    except BenchError as error:
        print(f"bench: FAILED: {error}", file=sys.stderr)
        return 1
    _report(results, out)
    from pipeline.render.performance_page import render_performance_page

    preview = out.with_name("performance.md")
    preview.write_text(render_performance_page(results), encoding="utf-8")
    print(f"page preview: {preview}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
