"""The child processes: one repetition of one measurement each, and its data.

Every repetition runs in a fresh process (``run_child``), so each starts from the
same state and its peak memory is its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from benchmarks.config import JITTER, RAW_TREE_RELEASE, ROOT, BenchError

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


# -- running one repetition in a process ---------------------------------------------


@dataclass(frozen=True)
class ChildRun:
    """One repetition as the parent saw it: the report plus the process's cost."""

    report: dict[str, Any]
    process_s: float
    peak_rss_bytes: int


def _tail(log: Path, lines: int = 15) -> str:
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    return "\n".join(text.splitlines()[-lines:]) or "(no output)"


def run_process(
    what: str, argv: Sequence[str], env: Mapping[str, str], log: Path
) -> ChildRun:
    """Run one process to its end and reap it with ``wait4``; its wall time is timed.

    ``wait4`` gives this process's own resource usage (largest RSS of it and of every
    process it waited for), which ``subprocess``' own wait would throw away. Output
    goes to ``log``; a non-zero exit raises with the last lines of it.
    """
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as out:
        started = time.perf_counter()
        process = subprocess.Popen(
            list(argv),
            env={**os.environ, **env},
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise BenchError(
            f"{what}: exit code {process.returncode}; last lines of {log}:\n"
            + _tail(log)
        )
    # Linux reports ru_maxrss in KiB (macOS in bytes; this harness targets Linux).
    return ChildRun({"seconds": elapsed}, elapsed, usage.ru_maxrss * 1024)


def run_child(
    kind: str, config: dict[str, Any], env: Mapping[str, str], scratch: Path
) -> ChildRun:
    """Run ``python -m benchmarks.bench --child kind``: it times its own call."""
    scratch.mkdir(parents=True, exist_ok=True)
    config_path = Path(tempfile.mkstemp(dir=scratch, suffix=".json")[1])
    result_path = config_path.with_suffix(".result.json")
    config_path.write_text(json.dumps({**config, "result": str(result_path)}))
    command = [sys.executable, "-m", "benchmarks.bench", "--child", kind]
    run = run_process(
        kind,
        [*command, "--config", str(config_path)],
        env,
        config_path.with_suffix(".log"),
    )
    if not result_path.exists():
        raise BenchError(f"{kind}: the child wrote no report")
    report = json.loads(result_path.read_text())
    if report.get("error"):
        raise BenchError(f"{kind}: {report['error']}")
    return ChildRun(report, run.process_s, run.peak_rss_bytes)


def cli(*args: str) -> list[str]:
    """The ``mlperf-ledger`` command line production runs, in this interpreter."""
    return [sys.executable, "-m", "pipeline.cli", *args]


# -- what the children do ------------------------------------------------------------


def step_profile(instance: Any, since: float, top: int = 12) -> dict[str, Any]:
    """Where the runs created since ``since`` spent their time, by asset step.

    The difference between the runs' wall time and the steps' time is Dagster's own
    overhead (run and step launch, event storage), the first suspect when a small
    change costs too much.
    """
    import dagster as dg

    steps: dict[str, float] = {}
    wall = 0.0
    records = [
        r for r in instance.get_run_records() if r.create_timestamp.timestamp() >= since
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


def _child_instance_profile(config: dict[str, Any]) -> dict[str, Any]:
    """After a timed command (untimed): its runs, their steps, the table's rows."""
    from pipeline import runner

    instance = runner.get_instance()
    profile = step_profile(instance, float(config["since"]))
    expected = config.get("expect_runs")
    error = None
    if expected == "none" and profile["runs"]:
        error = f"expected no run, the command started {profile['runs']}"
    if expected == "some" and not profile["runs"]:
        error = "expected the new release to be run, the command started none"
    rows = runner.latest_metadata(instance, "core_mlperf__all_results").get("rows")
    if profile["runs"]:
        profile["reused"] = reuse_counts(instance)
    return {
        "rows": int(rows) if rows is not None else None,
        "profile": profile,
        "error": error,
    }


#: What the site's two caches report (``render/memo``, ``render/mkdocs/cache``).
REUSE_FIELDS = {
    "out_site__pages": ("pages_reused", "pages_rendered"),
    "out_site__published": ("html_pages_reused", "html_pages_built"),
}


def reuse_counts(instance: Any) -> dict[str, int]:
    """How many pages the last site build copied from its caches, and rendered."""
    from pipeline import runner

    counts: dict[str, int] = {}
    for asset, fields in REUSE_FIELDS.items():
        meta = runner.latest_metadata(instance, asset)
        counts |= {f: int(meta[f]) for f in fields if meta.get(f) is not None}
    return counts


def _child_read_floor(config: dict[str, Any]) -> dict[str, Any]:
    """List, read and parse every file under the folders: the least a build does."""
    started = time.perf_counter()
    files = sorted(
        p
        for folder in config["folders"]
        for p in Path(folder).rglob("*")
        if p.is_file()
    )
    size = 0
    for file in files:
        content = file.read_bytes()
        size += len(content)
        if file.suffix == ".json":
            json.loads(content)
        else:
            content.decode("utf-8", errors="replace")
    return {
        "seconds": time.perf_counter() - started,
        "rows": None,
        "files_read": len(files),
        "bytes_read": size,
    }


def analytics_asset_keys() -> list[str]:
    """Every asset ``pipeline.defs.analytics`` defines: what the analytics cost."""
    import dagster as dg

    import pipeline.defs.analytics as analytics

    return sorted(
        key.to_user_string()
        for value in vars(analytics).values()
        if isinstance(value, dg.AssetsDefinition)
        for key in value.keys
    )


def _child_analytics_input(config: dict[str, Any]) -> dict[str, Any]:
    """Write the (replicated) canonical table where the analytics assets read it."""
    from pipeline.defs.resources import ROW_GROUP_ROWS

    frame = replicate(pl.scan_parquet(config["input"]), int(config["scale"]))
    out = Path(config["out"])
    out.parent.mkdir(parents=True, exist_ok=True)
    # In row groups as the IO manager writes the table: the analytics stream it.
    frame.write_parquet(out, row_group_size=ROW_GROUP_ROWS)
    return {"seconds": 0.0, "rows": frame.height}


def _child_read_table(config: dict[str, Any]) -> dict[str, Any]:
    """The analytics floor: reading their input table into memory."""
    started = time.perf_counter()
    frame = pl.read_parquet(config["table"])
    return {"seconds": time.perf_counter() - started, "rows": frame.height}


def _child_analytics(config: dict[str, Any]) -> dict[str, Any]:
    """Materialise the analytics assets in one run, as the cross-release run does.

    The input (``core_mlperf__all_results``) is read by the project's IO manager, the
    pair tables are checked by their blocking checks and written, exactly as in
    ``mlperf-ledger site``. The instance is opened and the definitions loaded (their
    imports paid) before the clock starts: in production a command pays those once,
    whatever it runs, and the no-op and cold-build figures include them.
    """
    from pipeline import runner

    keys = analytics_asset_keys()
    instance = runner.get_instance()
    instance.get_run_records(limit=1)
    runner.load_defs().resolve_implicit_global_asset_job_def()
    since = time.time()
    started = time.perf_counter()
    outcome = runner.run_assets(instance, keys, label="analytics")
    elapsed = time.perf_counter() - started
    if not outcome.success:
        return {"error": f"analytics assets failed: {outcome.message}"}
    pairs = {
        key: runner.latest_metadata(instance, key).get("rows")
        for key in keys
        if key
        not in (
            "out_mlperf__results",
            "out_mlperf__exclusions",
            "_out_mlperf__pair_candidates",
        )
    }
    return {
        "seconds": elapsed,
        "rows": config.get("rows"),
        "assets": keys,
        "pairs": pairs,
        "profile": {**step_profile(instance, since), "timed_s": elapsed},
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


def _child_snapshot_diff(config: dict[str, Any]) -> dict[str, Any]:
    """Diff two v6.1 summaries, their records padded with invented keys.

    With ``extra_keys``, each record carries that many distinct keys no other
    record has (a hostile file); without, the real files.
    """
    from pipeline.transform.corrections import diff_snapshots

    root = Path(config["mirror"]) / "inference_results_v6.1"
    old = json.loads((root / "summary.json").read_text())
    alt = Path(config["mirror"]).parent / "mlperf-mirror-alt" / "inference_results_v6.1"
    new = json.loads((alt / "summary.json").read_text()) if alt.exists() else old
    extra = int(config.get("extra_keys", 0))

    def hostile(records: dict, tag: str) -> bytes:
        return json.dumps(
            {
                k: r | {f"{tag}-{k}-{i}": "x" for i in range(extra)}
                for k, r in records.items()
            }
        ).encode()

    before, after = hostile(old, "a"), hostile(new, "b")
    started = time.perf_counter()
    table = diff_snapshots(
        before,
        after,
        release="v6.1",
        repository="mlcommons/inference_results_v6.1",
        path="summary.json",
        old_sha256="a",
        new_sha256="b",
        seen_at="2026-01-01T00:00:00+00:00",
    )
    return {
        "seconds": time.perf_counter() - started,
        "rows": table.height,
        "input_bytes": len(before) + len(after),
    }


CHILDREN: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "snapshot_diff": _child_snapshot_diff,
    "instance_profile": _child_instance_profile,
    "read_floor": _child_read_floor,
    "analytics_input": _child_analytics_input,
    "read_table": _child_read_table,
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
