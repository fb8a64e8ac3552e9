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
import json
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

# Before Polars: importing the package sets the allocator configuration production
# runs with (pipeline/__init__.py), which the timed child processes inherit. With
# Polars loaded first they would inherit Polars' own default instead.
from pipeline import settings

# isort: split

from benchmarks.children import CHILDREN, child_main, run_process
from benchmarks.config import (
    DEFAULT_REPEAT,
    QUICK_SCALES,
    RAW_TREE_RELEASE,
    RESULTS_FILE,
    ROOT,
    SCALES,
    SCHEMA_VERSION,
    SUMMARY_ROUNDS,
    BenchError,
)
from benchmarks.judging import by_name, compute_floors, evaluate_targets, with_ratios
from benchmarks.report import (
    analytics_scaling,
    growth_exponent,
    machine_description,
    page_weights,
    render_report,
)
from benchmarks.workloads import (
    Harness,
    Measurement,
    bench_analytics,
    bench_cold_build,
    bench_correction,
    bench_git,
    bench_incremental,
    bench_mkdocs_floor,
    bench_noop,
    bench_oversized,
    bench_raw_tree,
    bench_snapshot_diff,
    built_pages,
    copy_mirror,
    mirror_releases,
)

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
    by = by_name(summaries)
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
        h.discard(state4)
        _, state = bench_cold_build(h, "cold_full", "Cold build, full mirror", mirror)
        bench_mkdocs_floor(h, "mkdocs_full", built_pages(state))
        bench_noop(h, state)
        git_rounds = bench_git(h)
        bench_incremental(h)
        bench_correction(h)
        bench_analytics(h, state)
        bench_raw_tree(h)
        bench_snapshot_diff(h)
        bench_oversized(h)
        weights = page_weights(state / "build" / "site")
    finally:
        if keep:
            h.say(f"kept the work folder {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    summary = summarise([m.summary() for m in h.measured], separately)
    by = by_name(summary["measurements"])
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
