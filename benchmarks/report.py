"""What a run reports: the machine, the console report, page weights, growth."""

from __future__ import annotations

import datetime as dt
import math
import os
import platform
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from benchmarks.config import (
    ANALYTICS_NAME,
    DATA_URL,
    PAGE_BUDGET_BYTES,
    SPEC_ATTRIBUTE,
)
from benchmarks.judging import by_name, ratio
from pipeline import settings

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


#: Measurements whose step profile the console report shows.
PROFILED = (
    "cold_full",
    "incremental",
    "correction",
    "correction_one_value",
    "noop_update",
)


def profile_rows(measurement: Mapping[str, Any]) -> list[tuple[str, float, float]]:
    """``(part, seconds, share of the whole process)`` of a profiled measurement.

    Each asset step Dagster timed, then what no step accounts for: Dagster's own
    work inside the runs (launch, events, IO) and the process outside any run
    (start, imports, instance, discovery, stop). The parts add up to the process.
    [] when the measurement is not profiled or carries no profile.
    """
    if measurement.get("name") not in PROFILED:
        return []
    profile = (measurement.get("detail") or {}).get("profile") or {}
    total = profile.get("timed_s")
    if not isinstance(total, int | float) or total <= 0:
        return []
    steps = [
        (str(s["step"]), float(s["seconds"])) for s in profile.get("top_steps", [])
    ]
    step_s = float(profile.get("step_s") or 0.0)
    run_s = float(profile.get("run_wall_s") or 0.0)
    parts = [
        *steps,
        ("other steps", step_s - sum(seconds for _, seconds in steps)),
        ("Dagster outside the steps (launch, events, IO)", run_s - step_s),
        ("outside any run (start, imports, instance, discovery, stop)", total - run_s),
    ]
    return [(name, s, s / total) for name, s in parts if round(s, 3) > 0]


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
    measured = results.get("measurements", [])
    cold = by_name(measured).get("cold_full", {}).get("median_s")
    for m in measured:
        rows = profile_rows(m)
        if rows:
            of_cold = ratio(m.get("median_s"), cold)
            shown = (
                f"; median {of_cold * 100:.0f} % of the cold build"
                if of_cold is not None and m["name"] != "cold_full"
                else ""
            )
            lines += [
                "",
                f"  Where the time goes: {m['label']} (last repetition{shown})",
            ]
            lines += [
                f"    {step:<58} {seconds:8.2f} s  {share * 100:5.1f} %"
                for step, seconds, share in rows
            ]
            reused = ((m.get("detail") or {}).get("profile") or {}).get("reused")
            if reused:
                lines.append(
                    "    caches: {} pages copied, {} rendered; MkDocs reused the HTML "
                    "of {} pages, built {}".format(
                        *(
                            reused.get(k, "?")
                            for k in (
                                "pages_reused",
                                "pages_rendered",
                                "html_pages_reused",
                                "html_pages_built",
                            )
                        )
                    )
                )
            markdown = (m.get("detail") or {}).get("markdown")
            if markdown and markdown.get("share_of_bytes") is not None:
                lines.append(
                    f"    Markdown changed: {markdown['pages_changed']} of "
                    f"{markdown['pages']} pages, {markdown['bytes_changed'] / 1e6:.2f} "
                    f"of {markdown['bytes'] / 1e6:.2f} MB "
                    f"({markdown['share_of_bytes'] * 100:.0f} %): page work no cache "
                    "can skip"
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


# -- page weights and growth ---------------------------------------------------------


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
        for spec_ref in set(SPEC_ATTRIBUTE.findall(html)):
            spec = (page.parent / spec_ref).resolve()
            if not spec.is_file():
                continue
            charts.add(spec)
            for data_ref in DATA_URL.findall(spec.read_text(errors="replace")):
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
        if ANALYTICS_NAME.match(m["name"])
    ]
