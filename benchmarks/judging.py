"""Floors, ratios and targets: pure functions, summaries in, dictionaries out.

Each measurement is judged as a ratio to a floor measured in the same run
(``FLOOR_OF``, ``FLOOR_PARTS``), and against its target in ``TARGETS``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchmarks.config import ANALYTICS_NAME, GB, MANY_KEYS, SUMMARY_ROUNDS

#: Which floor each measurement is judged against, and what each floor adds up.
FLOOR_OF = {
    "cold_summary4": "floor_summary4",
    "cold_full": "floor_full",
    "noop_update": "floor_process",
    "incremental": "floor_incremental",
    "correction": "floor_correction",
    "correction_one_value": "floor_correction",
    "raw_tree_scan": "floor_raw_tree",
    "cold_git_full": "floor_git",
    "diff_many_keys": "floor_diff",
    "ingest_git_oversized": "floor_oversized",
}
FLOOR_PARTS: dict[str, tuple[str, ...]] = {
    "floor_summary4": ("read_summary4", "import_dagster", "mkdocs_summary4"),
    "floor_full": ("read_full", "import_dagster", "mkdocs_full"),
    "floor_process": ("import_dagster",),
    "floor_incremental": ("read_added", "import_dagster", "mkdocs_full"),
    "floor_correction": ("read_corrected", "import_dagster", "mkdocs_full"),
    "floor_raw_tree": ("raw_tree_floor",),
    "floor_git": ("cold_full",),
    "floor_diff": ("diff_real",),
    "floor_oversized": ("ingest_git_plain",),
}
FLOOR_LABELS = {
    "floor_summary4": "read + parse the four rounds, import dagster, plain mkdocs",
    "floor_full": "read + parse the full mirror, import dagster, plain mkdocs",
    "floor_process": "a process that imports dagster",
    "floor_incremental": "read + parse the new round, import dagster, plain mkdocs",
    "floor_correction": "read + parse the corrected file, import dagster, plain mkdocs",
    "floor_raw_tree": "read + decode the files the scan reads",
    "floor_git": "the same cold build from the mirror folder",
    "floor_diff": "the same diff of the real v6.1 snapshots",
    "floor_oversized": "the same ingest without the oversized file",
}


# -- floors, ratios and targets (pure: summaries in, dictionaries out) ---------------


def floor_of(name: str) -> str | None:
    """The floor a measurement is judged against (analytics: its own input table)."""
    match = ANALYTICS_NAME.match(name)
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


def by_name(measurements: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Measurements by their name."""
    return {m["name"]: m for m in measurements}


def compute_floors(
    measurements: Sequence[Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """Every floor some measurement needs: the sum of its parts' medians.

    A floor with a part missing has ``seconds`` None (and so no ratio), rather than a
    smaller sum that would flatter the measurement.
    """
    by = by_name(measurements)
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


@dataclass(frozen=True)
class Target:
    """One target: which figure of which measurement, and the limit it must keep.

    ``figure`` names a measurement field (``median_s``, ``ratio``, ``rss_ratio``,
    ``peak_rss_bytes``, ``share_of_cold``), or a figure given on the command line
    (``given``); ``scale`` converts it into ``unit``.
    """

    id: str
    label: str
    measurement: str
    figure: str
    limit: float
    unit: str
    text: str
    scale: float = 1.0
    strict: bool = False
    given: str = ""


_ROUNDS = f"{SUMMARY_ROUNDS[0]}–{SUMMARY_ROUNDS[-1]}"
#: The targets of issue 14 and those added since, in report order.
TARGETS: tuple[Target, ...] = (
    Target("cold_summary4", f"Cold build, four summary rounds ({_ROUNDS})",
           "cold_summary4", "median_s", 8.0, "s", "≤ 8 s"),
    Target("cold_summary4_floor", "Cold build, four summary rounds, against its floor",
           "cold_summary4", "ratio", 6.0, "x", "≤ 6× floor"),
    Target("cold_full", "Cold build, full mirror",
           "cold_full", "median_s", 20.0, "s", "≤ 20 s"),
    Target("noop_update", "No-op update, whole process",
           "noop_update", "median_s", 1.0, "s", "≤ 1.0 s"),
    Target("cold_full_floor", "Cold build, full mirror, against its floor",
           "cold_full", "ratio", 3.0, "x", "≤ 3× floor"),
    Target("noop_share", "No-op update, share of the cold build (full mirror)",
           "noop_update", "share_of_cold", 0.01, "share", "≤ 1 % of cold"),
    Target("incremental_share",
           "One new release, share of the cold build (full mirror)",
           "incremental", "share_of_cold", 0.20, "share", "≤ 20 % of cold"),
    Target("correction_share",
           "An upstream correction of a round, share of the cold build (full mirror)",
           "correction", "share_of_cold", 0.25, "share", "≤ 25 % of cold"),
    Target("analytics_x100_time", "Analytics assets at 100× data",
           "analytics_x100", "median_s", 4.0, "s", "≤ 4 s"),
    Target("analytics_x100_rss", "Analytics assets at 100× data, peak RSS",
           "analytics_x100", "peak_rss_bytes", 1.0, "GB", "≤ 1 GB", scale=1 / GB),
    Target("cold_git_full",
           "Cold fetch and build over git (local server), against the folder build",
           "cold_git_full", "ratio", 1.3, "x", "≤ 1.3× the folder build"),
    Target("diff_many_keys_rss",
           f"Snapshot diff with {MANY_KEYS} invented keys per record, peak RSS "
           "against the real diff's",
           "diff_many_keys", "rss_ratio", 3.0, "x", "≤ 3× the real file's"),
    Target("oversized_rss",
           "Ingest over git with a 200 MB file in a read path, peak RSS against the "
           "same round without it",
           "ingest_git_oversized", "rss_ratio", 1.2, "x", "≤ 1.2× the plain round's"),
    Target("make_test", "`make test`, whole suite",
           "", "given", 300.0, "s", "≤ 5 min", given="make_test_s"),
    Target("make_test_fast", "`make test-fast`, unit tests",
           "", "given", 30.0, "s", "< 30 s", strict=True, given="make_test_fast_s"),
)  # fmt: skip
#: Which ratio to a floor each figure is shown with.
_RATIO_OF = {"peak_rss_bytes": "rss_ratio", "rss_ratio": "rss_ratio"}


def _given_note(given: str) -> str:
    flag = given.replace("_", "-")
    return f"measured separately, given with --{flag}" if given else ""


def evaluate_targets(
    measurements: Sequence[Mapping[str, Any]],
    separately: Mapping[str, float | None] | None = None,
) -> list[dict[str, Any]]:
    """Judge measurements (with ratios) against ``TARGETS``.

    ``separately`` holds figures ``make bench`` does not measure itself (``make
    test``, ``make test-fast``: minutes of the whole suite), given by flags. A target
    whose figure is missing is listed with ``passed`` None, never hidden.
    """
    by = by_name(measurements)
    separately = separately or {}
    cold = by.get("cold_full", {}).get("median_s")
    out = []
    for target in TARGETS:
        measured = by.get(target.measurement, {})
        if target.given:
            value = separately.get(target.given)
        elif target.figure == "share_of_cold":
            value = ratio(measured.get("median_s"), cold)
        else:
            value = measured.get(target.figure)
        if value is not None:
            value = value * target.scale
        passed = None
        if value is not None:
            passed = value < target.limit if target.strict else value <= target.limit
        out.append(
            {
                "id": target.id,
                "label": target.label,
                "value": value,
                "limit": target.limit,
                "unit": target.unit,
                "target": target.text,
                "ratio": None
                if target.given
                else measured.get(_RATIO_OF.get(target.figure, "ratio")),
                "passed": passed,
                "note": _given_note(target.given),
            }
        )
    return out
