"""The benchmark harness behind ``make bench``: what the pipeline costs, and its floor.

What belongs here: driving repeatable measurements of the path production takes (the
``mlperf-ledger site`` and ``update`` commands as whole processes, the analytics
assets materialised through Dagster as the cross-release run does), measuring in the
same run the floor each one is judged against, summarising both (medians, peak RSS,
ratios to the floor, page weights) and judging them against the targets of issue 14.
What does not: the Performance page (``pipeline.render.performance_page`` renders the
committed results file) and any pipeline logic.

It lives outside the installed ``pipeline`` package on purpose: nothing the site or
the pipeline runs depends on it. ``make bench`` writes
``benchmarks/results/latest.json`` with the machine and the date; a developer commits
that file deliberately, and only a committed file reaches the site. ``--quick``
writes ``build/bench/quick.json`` instead, so a smoke run is never committed by
accident.

The floors, each measured here with the same repetitions:

* a build: reading and parsing every file of its mirror (``json.loads`` / UTF-8),
  plus ``python -c "import dagster"`` and a plain mkdocs-material build of as many
  pages as the real build published (both whole processes, as production runs them);
* a no-op ``update``: ``python -c "import dagster"``;
* one new release: reading its files, plus the import and the mkdocs build;
* the analytics: reading the input table (``pl.read_parquet``);
* raw-tree parsing: reading and decoding exactly the files the scan reads.

``make test`` takes minutes, so ``make bench`` does not run it: its wall time (and
that of ``make test-fast``) is measured separately and given with ``--make-test-s``
(``--make-test-fast-s``); without them those targets read "not measured".

Every repetition runs in a fresh process, reaped with ``os.wait4``: each starts from
the same state, and ``ru_maxrss`` is the peak memory of that process and everything it
waited for (``mkdocs build`` runs as a grandchild of ``mlperf-ledger site``).

Usage::

    python -m benchmarks.bench                # 3 repetitions, median reported
    python -m benchmarks.bench --repeat 5
    python -m benchmarks.bench --quick        # one repetition, analytics at x1/x10
    python -m benchmarks.bench --make-test-s 281 --make-test-fast-s 24
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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

# Before Polars: importing the package sets the allocator configuration production
# runs with (pipeline/__init__.py), which the timed child processes inherit. With
# Polars loaded first they would inherit Polars' own default instead.
from pipeline import settings

# isort: split
import polars as pl

#: The committed results file and its layout. Repeated from
#: ``pipeline.render.performance_page`` (a unit test keeps them equal) so that no
#: child process pays for importing Altair: its memory would count as the pipeline's.
RESULTS_FILE = "benchmarks/results/latest.json"
SCHEMA_VERSION = 2

#: The checkout holding ``benchmarks/`` (children run ``-m benchmarks.bench`` here).
ROOT = Path(__file__).resolve().parent.parent

#: Synthetic scales of the analytics benchmark (copies of every real row).
SCALES = (1, 10, 100)
QUICK_SCALES = (1, 10)
DEFAULT_REPEAT = 3
#: The summary rounds of the "four summary rounds" cold build (issue 14).
SUMMARY_ROUNDS = ("v4.1", "v5.1", "v6.0", "v6.1")
#: The round whose raw submission tree is parsed (the largest subset in the mirror).
RAW_TREE_RELEASE = "v5.1"
#: Relative jitter applied to replicated values (+-1 %): enough that copies are not
#: exact ties in best-of selections, small enough that no ratio changes meaning.
JITTER = 0.02
GB = 1_000_000_000
#: The site's own page budget (``pipeline.defs.site.PAGE_BUDGET_BYTES``), repeated so
#: the harness need not import Dagster in the parent; a unit test keeps them equal.
PAGE_BUDGET_BYTES = 1_500_000
_SPEC_ATTRIBUTE = re.compile(r'data-spec="([^"]+)"')
_DATA_URL = re.compile(r'"url"\s*:\s*"(data/[^"]+)"')
_ANALYTICS = re.compile(r"^analytics_x(\d+)$")

#: Which floor each measurement is judged against, and what each floor adds up.
FLOOR_OF = {
    "cold_summary4": "floor_summary4",
    "cold_full": "floor_full",
    "noop_update": "floor_process",
    "incremental": "floor_incremental",
    "raw_tree_scan": "floor_raw_tree",
    "cold_git_full": "floor_git",
    "diff_many_keys": "floor_diff",
}
FLOOR_PARTS: dict[str, tuple[str, ...]] = {
    "floor_summary4": ("read_summary4", "import_dagster", "mkdocs_summary4"),
    "floor_full": ("read_full", "import_dagster", "mkdocs_full"),
    "floor_process": ("import_dagster",),
    "floor_incremental": ("read_added", "import_dagster", "mkdocs_full"),
    "floor_raw_tree": ("raw_tree_floor",),
    "floor_git": ("cold_full",),
    "floor_diff": ("diff_real",),
}
FLOOR_LABELS = {
    "floor_summary4": "read + parse the four rounds, import dagster, plain mkdocs",
    "floor_full": "read + parse the full mirror, import dagster, plain mkdocs",
    "floor_process": "a process that imports dagster",
    "floor_incremental": "read + parse the new round, import dagster, plain mkdocs",
    "floor_raw_tree": "read + decode the files the scan reads",
    "floor_git": "the same cold build from the mirror folder",
    "floor_diff": "the same diff of the real v6.1 snapshots",
}


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


# -- floors, ratios and targets (pure: summaries in, dictionaries out) ---------------


def floor_of(name: str) -> str | None:
    """The floor a measurement is judged against (analytics: its own input table)."""
    match = _ANALYTICS.match(name)
    if match:
        return f"floor_analytics_x{match.group(1)}"
    return FLOOR_OF.get(name)


def floor_parts(name: str) -> tuple[str, ...]:
    """The floor measurements whose medians add up to floor ``name``."""
    if name.startswith("floor_analytics_x"):
        return (name.replace("floor_analytics_", "read_table_"),)
    return FLOOR_PARTS.get(name, ())


def floor_label(name: str) -> str:
    """What a floor is, in a few words."""
    if name.startswith("floor_analytics_x"):
        return f"read the {name.removeprefix('floor_analytics_')} input table"
    return FLOOR_LABELS.get(name, name)


def ratio(value: float | None, floor: float | None) -> float | None:
    """``value`` as a multiple of ``floor``; None when either is missing or not > 0."""
    if value is None or floor is None or floor <= 0 or value < 0:
        return None
    return value / floor


def _by_name(measurements: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {m["name"]: m for m in measurements}


def compute_floors(
    measurements: Sequence[Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """Every floor some measurement needs: the sum of its parts' medians.

    A floor with a part missing has ``seconds`` None (and so no ratio), rather than a
    smaller sum that would flatter the measurement.
    """
    by = _by_name(measurements)
    floors: dict[str, dict[str, Any]] = {}
    for measurement in measurements:
        name = floor_of(measurement["name"])
        if name is None or name in floors:
            continue
        parts = {p: by.get(p, {}).get("median_s") for p in floor_parts(name)}
        rss = [by.get(p, {}).get("peak_rss_bytes") for p in parts]
        complete = bool(parts) and all(v is not None for v in parts.values())
        floors[name] = {
            "label": floor_label(name),
            "seconds": sum(parts.values()) if complete else None,
            "peak_rss_bytes": max(rss)
            if rss and all(r is not None for r in rss)
            else None,
            "parts": parts,
        }
    return floors


def with_ratios(
    measurements: Sequence[Mapping[str, Any]], floors: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Each measurement with its floor, its time and memory as multiples of it."""
    out = []
    for measurement in measurements:
        name = floor_of(measurement["name"])
        floor = floors.get(name, {}) if name else {}
        out.append(
            {
                **measurement,
                "floor": name,
                "floor_s": floor.get("seconds"),
                "ratio": ratio(measurement.get("median_s"), floor.get("seconds")),
                "rss_ratio": ratio(
                    measurement.get("peak_rss_bytes"), floor.get("peak_rss_bytes")
                ),
            }
        )
    return out


def _target(
    target_id: str,
    label: str,
    value: float | None,
    limit: float,
    unit: str,
    text: str,
    *,
    ratio_to_floor: float | None = None,
    strict: bool = False,
    note: str = "",
) -> dict[str, Any]:
    passed = None
    if value is not None:
        passed = value < limit if strict else value <= limit
    return {
        "id": target_id,
        "label": label,
        "value": value,
        "limit": limit,
        "unit": unit,
        "target": text,
        "ratio": ratio_to_floor,
        "passed": passed,
        "note": note,
    }


def evaluate_targets(
    measurements: Sequence[Mapping[str, Any]],
    separately: Mapping[str, float | None] | None = None,
) -> list[dict[str, Any]]:
    """Judge measurements (with ratios) against the targets of issue 14.

    ``separately`` holds figures ``make bench`` does not measure itself (``make
    test``, ``make test-fast``: minutes of the whole suite), given by flags. A target
    whose figure is missing is listed with ``passed`` None, never hidden.
    """
    by = _by_name(measurements)
    separately = separately or {}

    def get(name: str, key: str) -> Any:
        return by.get(name, {}).get(key)

    cold4, full = get("cold_summary4", "median_s"), get("cold_full", "median_s")
    rss = get("analytics_x100", "peak_rss_bytes")
    rounds = f"{SUMMARY_ROUNDS[0]}–{SUMMARY_ROUNDS[-1]}"
    separate = "measured separately, given with {}"
    return [
        _target(
            "cold_summary4",
            f"Cold build, four summary rounds ({rounds})",
            cold4,
            8.0,
            "s",
            "≤ 8 s",
            ratio_to_floor=get("cold_summary4", "ratio"),
        ),
        _target(
            "cold_summary4_floor",
            "Cold build, four summary rounds, against its floor",
            get("cold_summary4", "ratio"),
            6.0,
            "x",
            "≤ 6× floor",
            ratio_to_floor=get("cold_summary4", "ratio"),
        ),
        _target(
            "cold_full",
            "Cold build, full mirror",
            full,
            20.0,
            "s",
            "≤ 20 s",
            ratio_to_floor=get("cold_full", "ratio"),
        ),
        _target(
            "noop_update",
            "No-op update, whole process",
            get("noop_update", "median_s"),
            1.0,
            "s",
            "≤ 1.0 s",
            ratio_to_floor=get("noop_update", "ratio"),
        ),
        _target(
            "incremental_share",
            "One new release, share of the cold build (full mirror)",
            ratio(get("incremental", "median_s"), full),
            0.20,
            "share",
            "≤ 20 % of cold",
            ratio_to_floor=get("incremental", "ratio"),
        ),
        _target(
            "analytics_x100_time",
            "Analytics assets at 100× data",
            get("analytics_x100", "median_s"),
            4.0,
            "s",
            "≤ 4 s",
            ratio_to_floor=get("analytics_x100", "ratio"),
        ),
        _target(
            "analytics_x100_rss",
            "Analytics assets at 100× data, peak RSS",
            rss / GB if rss is not None else None,
            1.0,
            "GB",
            "≤ 1 GB",
            ratio_to_floor=get("analytics_x100", "rss_ratio"),
        ),
        _target(
            "cold_git_full",
            "Cold fetch and build over git (local server), against the folder build",
            get("cold_git_full", "ratio"),
            1.3,
            "x",
            "≤ 1.3× the folder build",
            ratio_to_floor=get("cold_git_full", "ratio"),
        ),
        _target(
            "diff_many_keys_rss",
            f"Snapshot diff with {MANY_KEYS} invented keys per record, peak RSS "
            "against the real diff's",
            get("diff_many_keys", "rss_ratio"),
            3.0,
            "x",
            "≤ 3× the real file's",
            ratio_to_floor=get("diff_many_keys", "rss_ratio"),
        ),
        _target(
            "make_test",
            "`make test`, whole suite",
            separately.get("make_test_s"),
            300.0,
            "s",
            "≤ 5 min",
            note=separate.format("--make-test-s"),
        ),
        _target(
            "make_test_fast",
            "`make test-fast`, unit tests",
            separately.get("make_test_fast_s"),
            30.0,
            "s",
            "< 30 s",
            strict=True,
            note=separate.format("--make-test-fast-s"),
        ),
    ]


def format_value(value: float | None, unit: str) -> str:
    """A target's figure in its own unit, for the console report."""
    if value is None:
        return "-"
    if unit == "share":
        return f"{value * 100:.1f} %"
    if unit == "x":
        return f"{value:.1f}x"
    if unit == "GB":
        return f"{value:.2f} GB"
    return f"{value:.3g} {unit}".strip()


def render_report(results: Mapping[str, Any]) -> str:
    """The console summary: every measurement, then every target with its verdict."""
    lines = []
    for m in results.get("measurements", []):
        if m.get("role") == "floor":
            continue
        rss = (m.get("peak_rss_bytes") or 0) / 1e6
        floor = format_value(m.get("floor_s"), "s")
        shown = format_value(m.get("ratio"), "x")
        lines.append(
            f"  {m['label']:<52} median {format_value(m.get('median_s'), 's'):>8}  "
            f"floor {floor:>8} ({shown:>6})  peak RSS {rss:7,.0f} MB"
        )
    lines.append("")
    for t in results.get("targets", []):
        mark = {True: "PASS", False: "FAIL", None: "n/a "}[t["passed"]]
        value = format_value(t["value"], t["unit"])
        against = format_value(t.get("ratio"), "x")
        note = f"  ({t['note']})" if t.get("note") else ""
        lines.append(
            f"  [{mark}] {t['label']:<56} {value:>9}  {against:>7} floor  "
            f"target {t['target']}{note}"
        )
    rounds = results.get("git_source") or {}
    if rounds:
        lines += ["", "  Over git, per round (the last cold build):"]
    for version, cost in rounds.items():
        lines.append(
            f"  {version:<6} {cost['requests']:>3} requests, "
            f"{cost['bytes_sent'] / 1e6:7.2f} MB sent for "
            f"{(cost['bytes_of_files_read'] or 0) / 1e6:7.2f} MB of files read "
            f"(repository {cost['bytes_in_repository'] / 1e6:7.2f} MB)"
        )
    return "\n".join(lines) + "\n"


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
    return {
        "rows": int(rows) if rows is not None else None,
        "profile": profile,
        "error": error,
    }


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


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def _copy_files(source: Path, target: Path) -> None:
    """Copy a folder's files with fresh, writable modes (the mirror is read-only).

    Real copies, never symlinks: the source refuses links that leave a mirror's root.
    """
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
        _remove(state)
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
    return h.command(measurement, argv, {"NO_MKDOCS_2_WARNING": "1"})


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
    state, pristine = work / "state", work / "pristine"
    env = h.env_for(state, mirror)
    h.say(f"incremental: building the mirror without {newest} (not timed)")
    base = run_process("incremental base", cli("site"), env, h.log("base"))
    h.say(f"incremental: base build took {base.process_s:.1f} s; warm-up tick")
    run_process("incremental warm-up", cli("update"), env, h.log("warmup"))
    shutil.copytree(state, pristine, symlinks=True)

    def restore_and_add() -> None:
        _remove(state)
        shutil.copytree(pristine, state, symlinks=True)
        _copy_files(newest_folder, mirror / newest_folder.name)

    def withdraw() -> None:
        _remove(mirror / newest_folder.name)

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
    return h.command(
        measurement,
        cli("update"),
        env,
        expect_runs="some",
        before=restore_and_add,
        after=withdraw,
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
        _remove(work)


#: Invented keys per record in the hostile snapshot diff (a 2 MB v6.1 summary).
MANY_KEYS = 160


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


# -- page weights and growth ---------------------------------------------------------


def files_read_bytes(data: Path) -> dict[str, int]:
    """Per round, the bytes of the upstream files a build read (summary and tree)."""
    out: dict[str, int] = {}
    for release in sorted(p.name for p in (data / "raw").glob("v*")):
        total = 0
        for sidecar in (data / "raw" / release).glob("*/*.meta.json"):
            meta = json.loads(sidecar.read_text())
            if meta["path"] != "tree.json":
                total += meta["bytes"]
                continue
            listing = json.loads((data / meta["blob"]).read_text())
            total += sum(
                (data / "raw" / "blobs" / sha[:2] / sha).stat().st_size
                for sha in set(listing["files"].values())
            )
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
            _remove(state)
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


def analytics_scaling(
    measurements: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """The cost-against-rows series the Performance page charts, with its floors."""
    return [
        {
            "scale": m["detail"].get("scale"),
            "rows": m.get("rows"),
            "median_s": m.get("median_s"),
            "floor_s": m.get("floor_s"),
            "ratio": m.get("ratio"),
            "peak_rss_bytes": m.get("peak_rss_bytes"),
            "pairs": sum(v or 0 for v in (m["detail"].get("pairs") or {}).values()),
        }
        for m in measurements
        if _ANALYTICS.match(m["name"])
    ]


# -- entry points --------------------------------------------------------------------


def default_mirror() -> Path | None:
    """``MLPERF_SOURCE`` when it is a folder, else ``../shared/mlperf-mirror``."""
    configured = os.environ.get("MLPERF_SOURCE", "").strip()
    if configured and not configured.startswith(("http://", "https://")):
        return Path(configured).resolve()
    sibling = ROOT.parent / "shared" / "mlperf-mirror"
    return sibling if sibling.is_dir() else None


def _per_second(count: object, seconds: object) -> float | None:
    if not isinstance(count, int | float) or not isinstance(seconds, int | float):
        return None
    return count / seconds if seconds else None


def summarise(
    summaries: Sequence[Mapping[str, Any]],
    separately: Mapping[str, float | None],
) -> dict[str, Any]:
    """Floors, ratios and targets of one run's summarised measurements."""
    floors = compute_floors(summaries)
    summaries = with_ratios(summaries, floors)
    by = _by_name(summaries)
    return {
        "measurements": summaries,
        "floors": floors,
        "targets": evaluate_targets(summaries, separately),
        "separately": dict(separately),
        "analytics_scaling": analytics_scaling(summaries),
        "analytics_growth_exponent": growth_exponent(
            by.get("analytics_x10"), by.get("analytics_x100")
        ),
    }


def run(
    mirror: Path,
    repeat: int,
    scales: tuple[int, ...],
    out: Path,
    *,
    separately: Mapping[str, float | None],
    keep: bool = False,
    quick: bool = False,
) -> dict[str, Any]:
    """Take every measurement and its floor, write the JSON and return it."""
    root = Path(tempfile.mkdtemp(prefix="mlperf-bench-"))
    h = Harness(root=root, mirror=mirror, repeat=repeat, scales=scales)
    h.say(f"work folder {root}; mirror {mirror}; {repeat} repetition(s) each")
    try:
        h.command(
            Measurement(
                "import_dagster", "Floor: a process that imports dagster", "floor"
            ),
            [sys.executable, "-c", "import dagster"],
            {},
        )
        summary4 = copy_mirror(mirror, SUMMARY_ROUNDS, root / "summary4-mirror")
        h.child(
            Measurement(
                "read_summary4", "Floor: read + parse the four rounds", "floor"
            ),
            "read_floor",
            {"folders": [str(summary4)]},
        )
        h.child(
            Measurement("read_full", "Floor: read + parse the full mirror", "floor"),
            "read_floor",
            {"folders": [str(f) for _, f in mirror_releases(mirror)]},
        )
        h.say("filling the machine cache (the Vega bundle) before the cold builds")
        warm = root / "warm-bundle"
        run_process(
            "filling the machine cache",
            [
                sys.executable,
                "-c",
                "import sys; from pathlib import Path; "
                "from pipeline.render.bundle import write_bundle; "
                "write_bundle(Path(sys.argv[1]), Path(sys.argv[2]))",
                str(warm),
                str(root / "machine-cache"),
            ],
            {},
            h.log("warm-bundle"),
        )
        rounds = f"{SUMMARY_ROUNDS[0]}–{SUMMARY_ROUNDS[-1]}"
        _, state4 = bench_cold_build(
            h, "cold_summary4", f"Cold build, four summary rounds ({rounds})", summary4
        )
        bench_mkdocs_floor(h, "mkdocs_summary4", built_pages(state4))
        _remove(state4)
        _, state = bench_cold_build(h, "cold_full", "Cold build, full mirror", mirror)
        bench_mkdocs_floor(h, "mkdocs_full", built_pages(state))
        bench_noop(h, state)
        git_rounds = bench_git(h)
        bench_incremental(h)
        bench_analytics(h, state)
        bench_raw_tree(h)
        bench_snapshot_diff(h)
        weights = page_weights(state / "build" / "site")
    finally:
        if keep:
            h.say(f"kept the work folder {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    summary = summarise([m.summary() for m in h.measured], separately)
    by = _by_name(summary["measurements"])
    scan, floor = by["raw_tree_scan"], by["raw_tree_floor"]
    results = {
        "schema_version": SCHEMA_VERSION,
        "quick": quick,
        "repeat": repeat,
        "mirror": str(mirror),
        "summary_rounds": list(SUMMARY_ROUNDS),
        "machine": machine_description(),
        **summary,
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
            "overhead_ratio": scan["ratio"],
        },
        "git_source": git_rounds,
        "page_weights": weights,
        "elapsed_s": round(time.perf_counter() - h.started, 1),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str) + "\n")
    return results


def results_path(quick: bool) -> Path:
    """Where results go by default: the file to commit, or aside for a smoke run."""
    if quick:
        return settings.build_dir() / "bench" / "quick.json"
    return ROOT / RESULTS_FILE


def _seconds_flag(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected seconds > 0, got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """``make bench``: measure against the floors, write the results, print them."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench", description=(__doc__ or "").split("\n")[0]
    )
    parser.add_argument("--repeat", type=int, default=None, help="repetitions (3)")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: one repetition, analytics at x1 and x10 only, written to "
        "build/bench/quick.json unless --out says otherwise",
    )
    parser.add_argument("--mirror", type=Path, default=None, help="local mirror folder")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"results file (default: {RESULTS_FILE}, which the site shows once "
        "committed)",
    )
    parser.add_argument(
        "--make-test-s",
        type=_seconds_flag,
        default=None,
        help="wall time of `make test` measured separately (it takes minutes)",
    )
    parser.add_argument(
        "--make-test-fast-s",
        type=_seconds_flag,
        default=None,
        help="wall time of `make test-fast` measured separately",
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
    out = args.out or results_path(args.quick)
    scales = QUICK_SCALES if args.quick else SCALES
    separately = {
        "make_test_s": args.make_test_s,
        "make_test_fast_s": args.make_test_fast_s,
    }
    try:
        results = run(
            mirror.resolve(),
            repeat,
            scales,
            out,
            separately=separately,
            keep=args.keep,
            quick=args.quick,
        )
    except BenchError as error:
        print(f"bench: FAILED: {error}", file=sys.stderr)
        return 1
    print(f"\nresults written to {out}\n")
    print(render_report(results))
    from pipeline.render.performance_page import render_performance_page

    preview = settings.build_dir() / "bench" / "performance.md"
    preview.parent.mkdir(parents=True, exist_ok=True)
    preview.write_text(render_performance_page(results), encoding="utf-8")
    print(f"page preview: {preview}")
    if out.resolve() == (ROOT / RESULTS_FILE).resolve():
        print(
            f"The site shows these figures once {RESULTS_FILE} is committed "
            "(check the machine and date it records first)."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
