"""Extreme but valid records: whatever passes validation, no later step crashes on.

Property-style: every plausible range of ``pipeline.transform.results`` is pushed to
both of its ends (the smallest and the largest result in each unit, one and the most
accelerators, the largest power), and every text field to long and non-ASCII values.
Each case is a small family of summary records of v5.1 and v6.0 that pair with each
other and with real rows (same submitter and platform across rounds, one system at two
sizes, the best of a chip), so the extremes reach every ratio. Each case goes through
the whole chain as the assets call it: canonicalisation (nothing rejected, the values
exact), the analytics, the claims and the site renderer, which must complete with the
extreme rows on their pages and in the downloads, the values unchanged.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis import (
    attach_accelerators,
    check_no_duplicate_pairs,
    check_no_self_pairs,
    check_ratios_finite_positive,
    check_results_exist,
)
from pipeline.claims import evaluate_claims
from pipeline.extract.summary import summary_tables
from pipeline.registry.claims import load_claims
from pipeline.render.escape import escape
from pipeline.render.pages import render_site
from pipeline.render.site_data import SNAPSHOT_SCHEMA, SiteData
from pipeline.transform.results import (
    COUNT_RANGES,
    POWER_RANGE,
    RESULT_RANGES,
    RESULTS_SCHEMA,
    empty_rejected,
)
from tests.analysed import analyse

RELEASES = ("v5.1", "v6.0")
LOW, HIGH = RESULT_RANGES["Tokens/s"]
LATENCY_LOW, LATENCY_HIGH = RESULT_RANGES["Latency (ms)"]
MOST = COUNT_RANGES["total_raw"][1]
#: Real rows kept beside the extremes: the GB300 rack of both rounds (the chip the
#: extreme systems use, so accelerator-level pairs join real and extreme rows).
SEED_PLATFORM = "GB300-NVL72_GB300-288GB_aarch64x72_TRT"
#: Non-ASCII text: accents, CJK, an emoji, right-to-left Arabic, a combining accent
#: and a zero-width joiner.
UNICODE = "Ünïcødé 加速器 🚀 مسرّع e\u0301\u200d"
LONG = 2000  # characters; the longest real text field is 240


def record(case: str, platform: str = "", **fields: object) -> dict[str, object]:
    """One final-report summary record of ``case``'s submitter; ``fields`` override."""
    submitter = f"Extreme {case}"
    platform = platform or f"EXT-{case}"
    scenario = str(fields.get("Scenario", "Offline"))
    return {
        "Submitter": submitter,
        "Availability": "available",
        "Category": "closed",
        "Suite": "datacenter",
        "System": f"Extreme {case} system",
        "Platform": platform,
        "Model": "deepseek-r1",
        "UsedModel": "deepseek-r1",
        "Scenario": scenario,
        "Nodes": 1,
        "Processor": "NVIDIA Grace CPU",
        "Accelerator": "NVIDIA GB300",
        "a#": 4,
        "Total Accelerators": 4,
        "Location": f"closed/{submitter}/results/{platform}/deepseek-r1/{scenario}",
        "Software": "TensorRT 10.13",
        "inferred": 0,
        "weight_data_types": "fp4",
        "Performance_Result": 1000.0,
        "Performance_Units": "Tokens/s",
    } | fields


@dataclass(frozen=True)
class Case:
    """Records per release, and the values the canonical rows must carry."""

    records: dict[str, list[dict[str, object]]]
    #: column -> every value it must hold among the case's canonical rows.
    expected: dict[str, set[object]]


def both(make: Callable[[str], list[dict[str, object]]]) -> dict[str, list]:
    return {release: make(release) for release in RELEASES}


def _counts(case: str) -> Case:
    sizes = [(1, 1), (MOST, 1), (1, MOST)]  # (nodes, accelerators per node)
    return Case(
        both(
            lambda release: [
                record(
                    case,
                    f"EXT-{case}-{nodes}x{apn}",
                    Nodes=nodes,
                    **{"a#": apn, "Total Accelerators": None},
                    # The most accelerators at the largest result: the widest product.
                    Performance_Result=HIGH if release == "v6.0" else 1.0,
                )
                for nodes, apn in sizes
            ]
        ),
        {"total_accelerators": {1, MOST}, "result_per_accelerator": {HIGH / MOST}},
    )


CASES: dict[str, Callable[[str], Case]] = {
    # The smallest result in one round and the largest in the next, on one system,
    # and the other way round on another: gains of 1e18 and 1e-18.
    "throughput_bounds": lambda case: Case(
        {
            "v5.1": [
                record(case, Performance_Result=LOW),
                record(case, f"EXT-{case}-down", Performance_Result=HIGH),
            ],
            "v6.0": [
                record(case, Performance_Result=HIGH),
                record(case, f"EXT-{case}-down", Performance_Result=LOW),
            ],
        },
        {"result_value": {LOW, HIGH}},
    ),
    # Latency at both ends in each unit upstream writes, converted to ms.
    "latency_bounds": lambda case: Case(
        {
            release: [
                record(
                    case,
                    f"EXT-{case}-{unit[9:11]}",
                    Scenario="SingleStream",
                    Performance_Units=unit,
                    Performance_Result=value,
                )
                for unit, value in (
                    [
                        ("Latency (ms)", LATENCY_HIGH),
                        ("Latency (ns)", LATENCY_HIGH * 1e6),
                        ("Latency (s)", LATENCY_HIGH / 1e3),
                    ]
                    if release == "v5.1"
                    else [
                        ("Latency (ms)", LATENCY_LOW),
                        ("Latency (ns)", LATENCY_LOW * 1e6),
                        ("Latency (s)", LATENCY_LOW / 1e3),
                    ]
                )
            ]
            for release in RELEASES
        },
        {"result_value": {LATENCY_LOW, LATENCY_HIGH}},
    ),
    # One accelerator, the most nodes, the most per node.
    "accelerator_counts": _counts,
    # Power at both ends of its range.
    "power_bounds": lambda case: Case(
        both(
            lambda release: [
                record(
                    case,
                    Power_Result=POWER_RANGE[release == "v6.0"],
                    Power_Units="Watts",
                )
            ]
        ),
        {"power_value": set(POWER_RANGE)},
    ),
    # Every text field long, and non-ASCII, in a name no registry knows.
    "long_unicode_text": lambda case: Case(
        both(
            lambda release: [
                record(
                    case,
                    f"EXT-{case}-{UNICODE}-" + "p" * LONG,
                    Submitter=f"Extreme {case} {UNICODE} " + "s" * LONG,
                    System=f"{UNICODE} " + "y" * LONG,
                    Accelerator=f"{UNICODE} chip " + "a" * LONG,
                    Processor=f"{UNICODE} cpu " + "c" * LONG,
                    Software=f"{UNICODE} " + "w" * LONG,
                    weight_data_types=f"{UNICODE} " + "t" * LONG,
                )
            ]
        ),
        # Names are NFC-normalised at the boundary (e + U+0301 is é); the zero-width
        # joiner stays in the data, shown visibly on pages.
        {"system_name": {unicodedata.normalize("NFC", f"{UNICODE} " + "y" * LONG)}},
    ),
}


def canonical(case: str) -> pl.DataFrame:
    """The case's records through ``summary_tables``; a rejection fails the test."""
    frames = []
    for release, records in CASES[case](case).records.items():
        numbered = [
            {"ID": f"{release[1:]}-{case}-{i}"} | r for i, r in enumerate(records)
        ]
        content = json.dumps(numbered, ensure_ascii=False).encode()
        results, rejected, _ = summary_tables(
            content,
            release=release,
            repository=f"mlcommons/inference_results_{release}",
            source_file="summary_results.json",
            sha256="0" * 64,
        )
        assert rejected.select("source_record", "reason").rows() == []
        assert results.height == len(records)
        frames.append(results)
    return pl.concat(frames)


@pytest.mark.parametrize("case", list(CASES))
def test_extremes_pass_validation_with_their_exact_values(case: str) -> None:
    rows = canonical(case)
    for column, values in CASES[case](case).expected.items():
        assert values <= set(rows[column].to_list()), column


@pytest.mark.parametrize("unit", ["Tokens/s", "Samples/s", "Latency (ms)"])
def test_just_beyond_either_bound_is_rejected(unit: str) -> None:
    """The cases above sit exactly on the bounds validation enforces."""
    low, high = RESULT_RANGES[unit]
    records = [
        {"ID": f"6.0-{i}"}
        | record("beyond", f"EXT-{i}", Performance_Units=unit, Performance_Result=v)
        for i, v in enumerate([low, high, low * (1 - 1e-9), high * (1 + 1e-9)])
    ]
    results, rejected, _ = summary_tables(
        json.dumps(records).encode(),
        release="v6.0",
        repository="mlcommons/inference_results_v6.0",
        source_file="summary_results.json",
        sha256="0" * 64,
    )
    assert results["result_value"].to_list() == [low, high]
    assert rejected["source_record"].to_list() == ["2", "3"]
    bounds = f"is outside the plausible range [{low:g}, {high:g}] for {unit}"
    assert [r.endswith(bounds) for r in rejected["reason"]] == [True, True]


def build_site(
    rows: pl.DataFrame, base: pl.DataFrame, out: Path
) -> tuple[pl.DataFrame, object, Path]:
    """Analytics, claims and pages over ``base`` plus ``rows``, as the assets call them."""
    results = attach_accelerators(
        pl.concat([base, rows]).cast(RESULTS_SCHEMA).lazy()
    ).collect()
    tables = analyse(results)
    claims = load_claims()
    evaluations = evaluate_claims(
        claims, results, tables.software_gains, tables.generation_ratios,
        tables.scaling,
    )  # fmt: skip
    data = SiteData(
        results=results,
        rejected=empty_rejected(),
        gains=tables.software_gains,
        generations=tables.generation_ratios,
        scaling=tables.scaling,
        snapshots=pl.DataFrame(schema=SNAPSHOT_SCHEMA),
        lineage_mermaid="flowchart LR\n  a --> b\n",
        pipeline_commit="0" * 40,
        built_at="2026-01-01T00:00:00+00:00",
        exclusions=tables.exclusions,
        claims=tuple(claims),
        claim_evaluations=evaluations,
    )
    render_site(data, out, bundle=False)
    return results, tables, out


@pytest.fixture(scope="module")
def base(mirror_results: pl.DataFrame) -> pl.DataFrame:
    """Real rows the extremes pair with: every v5.1 and v6.0 row of the GB300 rack."""
    return mirror_results.filter(
        pl.col("release").is_in(RELEASES), pl.col("platform") == SEED_PLATFORM
    )


#: Cases the renderer does not survive yet (see each reason).
RENDER_CRASHES: dict[str, str] = {}


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            c,
            marks=pytest.mark.xfail(strict=True, reason=RENDER_CRASHES[c])
            if c in RENDER_CRASHES
            else (),
        )
        for c in CASES
    ],
)
def test_extremes_go_through_analytics_and_rendering(
    case: str, base: pl.DataFrame, tmp_path: Path
) -> None:
    rows = canonical(case)
    results, tables, site = build_site(rows, base, tmp_path / "generated")
    keys = set(rows["result_key"])
    assert keys <= set(results["result_key"])
    # The extremes reach the derived tables, and the blocking pair checks pass.
    paired = []
    for pairs in (tables.software_gains, tables.generation_ratios, tables.scaling):
        paired += pairs.filter(
            pl.col("result_key_old").is_in(keys) | pl.col("result_key_new").is_in(keys)
        )["ratio"].to_list()
        outcomes = [
            check_ratios_finite_positive(pairs),
            check_no_self_pairs(pairs),
            check_results_exist(pairs, results),
            check_no_duplicate_pairs(pairs),
        ]
        assert all(o.passed for o in outcomes), [o.message for o in outcomes]
    assert paired, "no pair reaches the extreme rows"
    # The downloads keep every extreme row with its exact values.
    downloaded = pl.read_parquet(site / "downloads" / "results.parquet").filter(
        pl.col("result_key").is_in(keys)
    )
    assert downloaded.height == rows.height
    for column, values in CASES[case](case).expected.items():
        assert values <= set(downloaded[column].to_list()), column
    # Each release page shows the case's submitter.
    submitter = escape(rows["submitter"][0])
    for release in RELEASES:
        assert submitter in (site / "releases" / f"{release}.md").read_text()
