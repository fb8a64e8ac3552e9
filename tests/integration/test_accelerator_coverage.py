"""Accelerator registry coverage of the raw-tree rounds in the mirror (v0.5, v1.0, v2.1).

Every result folder (``<division>/<submitter>/results/<system>/<benchmark>/<scenario>``
with a performance log) is one row, named by its system's ``systems/<system>.json``
exactly as the canonical table names it: ``accelerator_model_name`` with " (xN)" counts
stripped, placeholders such as "-" or "N/A" meaning CPU-only. This reads the system files
directly rather than through the raw-tree reader, so it covers folders the reader rejects
too. System files are found as the reader finds them (``systems/<system>.json``, or the
round's reviewed ``system_files`` erratum); a folder without one has no name to map and is
left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis.accelerators import attach_accelerators, unmapped_accelerators
from pipeline.registry.accelerators import load_accelerators
from pipeline.registry.rounds import rules_for
from pipeline.transform.results import strip_count_prefix, strip_count_suffix

MIRROR = Path(__file__).resolve().parents[2].parent / "shared" / "mlperf-mirror"
ROUNDS = ("v0.5", "v1.0", "v2.1")
PLACEHOLDERS = ("", "-", "n/a", "na", "none", "null")
MAX_UNMAPPED = 0.01

if not all((MIRROR / f"inference_results_{r}").is_dir() for r in ROUNDS):
    pytest.skip(f"no raw-tree rounds in a mirror at {MIRROR}", allow_module_level=True)


def _count(value: object) -> int | None:
    try:
        return int(float(str(value).strip()))
    except ValueError:
        return None


def _folders(release: str) -> list[dict[str, object]]:
    root = MIRROR / f"inference_results_{release}"
    errata = rules_for(release).system_files
    folders: set[tuple[str, ...]] = set()
    for log in root.rglob("mlperf_log_summary.txt"):
        parts = log.relative_to(root).parts
        # division/submitter/results/system/benchmark/scenario/performance/[run_1/]log
        if len(parts) >= 8 and parts[2] == "results" and parts[6] == "performance":
            folders.add(parts[:6])
    systems: dict[Path, dict | None] = {}
    rows = []
    for division, submitter, _, system, _, _ in sorted(folders):
        erratum = errata.get(f"{division}/{submitter}/{system}")
        path = root / (erratum or f"{division}/{submitter}/systems/{system}.json")
        if path not in systems:
            systems[path] = json.loads(path.read_bytes()) if path.is_file() else None
        spec = systems[path]
        if spec is None:
            continue
        name = str(spec.get("accelerator_model_name") or "").strip()
        per_node = _count(spec.get("accelerators_per_node"))
        nodes = _count(spec.get("number_of_nodes") or 1)
        rows.append(
            {
                "release": release,
                "accelerator_name": None if name.lower() in PLACEHOLDERS else name,
                "total_accelerators": None
                if per_node is None or nodes is None
                else per_node * nodes,
                "host_cpu_name": spec.get("host_processor_model_name") or None,
            }
        )
    return rows


@pytest.fixture(scope="module")
def folders() -> pl.DataFrame:
    """One row per result folder of the three rounds, read once for the module."""
    rows = [row for release in ROUNDS for row in _folders(release)]
    return pl.DataFrame(
        rows,
        schema={
            "release": pl.String,
            "accelerator_name": pl.String,
            "total_accelerators": pl.Int64,
            "host_cpu_name": pl.String,
        },
    ).with_columns(
        strip_count_suffix(pl.col("accelerator_name")).alias("accelerator_name"),
        strip_count_prefix(pl.col("host_cpu_name")).alias("host_cpu_name"),
    )


@pytest.fixture(scope="module")
def attached(folders: pl.DataFrame) -> pl.DataFrame:
    return attach_accelerators(folders.lazy()).collect()


def test_every_round_has_its_result_folders(folders):
    counts = dict(folders.group_by("release").len().iter_rows())
    assert set(counts) == set(ROUNDS)
    assert all(n > 500 for n in counts.values()), counts


@pytest.mark.parametrize("release", ROUNDS)
def test_at_most_one_percent_of_rows_unmapped(folders, release):
    rows = folders.filter(pl.col("release") == release)
    report = unmapped_accelerators(rows)
    assert report["rows"].sum() <= MAX_UNMAPPED * rows.height, report


def test_lineages_reach_back_into_the_early_rounds():
    registry = load_accelerators()

    def predecessor(accelerator_id: str) -> str | None:
        return registry.get(accelerator_id).predecessor

    assert predecessor("nvidia-a100-sxm-40gb") == "nvidia-v100-sxm"
    assert predecessor("nvidia-a100-sxm-80gb") == "nvidia-a100-sxm-40gb"
    assert predecessor("nvidia-h100-sxm") == "nvidia-a100-sxm-80gb"
    assert predecessor("nvidia-a100-pcie-80gb") == "nvidia-a100-pcie-40gb"
    assert predecessor("nvidia-h100-pcie") == "nvidia-a100-pcie-80gb"
    assert predecessor("nvidia-jetson-agx-orin-devkit-32gb") == (
        "nvidia-jetson-agx-xavier"
    )
    assert predecessor("nvidia-l4") == "nvidia-t4"


def test_both_ends_of_a_lineage_step_occur_in_one_round(attached):
    """Generation ratios pair within a round; these steps have both ends somewhere."""
    ids = {
        release: set(group["accelerator_id"].drop_nulls())
        for (release,), group in attached.group_by("release")
    }
    assert {"nvidia-a100-sxm-40gb", "nvidia-a100-sxm-80gb"} <= ids["v1.0"]
    assert {"nvidia-a100-sxm-80gb", "nvidia-h100-sxm"} <= ids["v2.1"]


def test_spellings_across_rounds_are_one_accelerator(attached):
    def ids_of(pattern: str) -> set[str]:
        # Upstream's spellings (accelerator_name is the registry's one name now).
        rows = attached.filter(
            pl.col("accelerator_name_upstream").str.contains(pattern)
        )
        return set(rows["accelerator_id"])

    assert ids_of(r"T4$") == {"nvidia-t4"}
    assert ids_of(r"Xavier$") == {"nvidia-jetson-agx-xavier"}
    assert ids_of(r"^QUALCOMM Cloud AI 100 PCIe.*(HHHL|Pro)$") == {
        "qualcomm-cloud-ai-100-pcie-pro"
    }
    # A single MIG slice counted as an accelerator keeps an id of its own.
    assert ids_of(r"1x1g\.10gb MIG") == {"nvidia-a100-sxm-80gb-mig-1g-10gb"}


def test_multi_node_mixed_systems_are_mixed(attached):
    mixed = attached.filter(pl.col("accelerator_name_upstream").str.contains("Nodes?:"))
    assert mixed.height > 0
    assert mixed["accelerator_id"].unique().to_list() == [
        "mixed-nvidia-a100-sxm-80gb-a30"
    ]
    assert mixed["is_mixed_accelerators"].all()
