"""Hand-written records for the renderer's unit tests (real values, tiny frames)."""

from __future__ import annotations

import re

import polars as pl
import pytest

from pipeline.render.site_data import (
    PAIR_END_SCHEMA,
    PAIR_SCHEMA,
    SiteData,
    empty_pairs,
)
from pipeline.transform.results import RESULTS_SCHEMA, empty_rejected

AMD_V51_URL = (
    "https://github.com/mlcommons/inference_results_v5.1/tree/main/closed/AMD/results/"
    "8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline"
)
EVIL = "<script>alert(1)</script> [click](javascript:alert(1))"

#: The column labels ``tables`` gives every cell for the phone layout: a
#: ``data-label`` attribute on an HTML cell, an empty labelled span opening a
#: Markdown cell.
_CELL_LABEL = re.compile(r' data-label="[^"]*"|<span data-label="[^"]*"></span>')


def unlabelled(page: str) -> str:
    """``page`` without its cells' column labels, for tests about values and links.

    Tests about the labels themselves compare against the page as written.
    """
    return _CELL_LABEL.sub("", page)


def result(**overrides: object) -> dict:
    """One canonical row: AMD's v5.1 8xMI300X llama2-70b-99 Offline result by default."""
    row = {name: None for name in RESULTS_SCHEMA}
    row.update(
        release="v5.1",
        result_key="5.1-0001:llama2-70b-99:Offline",
        result_id="5.1-0001",
        submitter="AMD",
        division="closed",
        category="datacenter",
        availability="available",
        is_preview=False,
        system_name="Supermicro AS-8125GS-TNMR2",
        platform="8xMI300X_2xEPYC_9575F",
        benchmark="llama2-70b-99",
        scenario="Offline",
        result_value=27803.9,
        result_unit="Tokens/s",
        is_higher_better=True,
        result_per_accelerator=27803.9 / 8,
        nodes=1,
        accelerators_per_node=8,
        total_accelerators=8,
        is_total_accelerators_derived=False,
        accelerator_name="AMD Instinct MI300X 192GB HBM3",
        host_cpu_name="AMD EPYC 9575F 64-Core Processor",
        software="ROCm 6.4.1, vLLM 0.9.2",
        is_inferred=False,
        result_url=AMD_V51_URL,
        source_file="summary_results.json",
        snapshot_sha256="ab" * 32,
    )
    row.update(overrides)
    return row


def amd(scenario: str, value: float, **overrides: object) -> dict:
    """AMD's v5.1 8x MI300X llama2-70b-99 system in one scenario."""
    fields: dict = {
        "scenario": scenario,
        "result_key": f"5.1-0001:llama2-70b-99:{scenario}",
        "result_value": value,
        "result_per_accelerator": value / 8,
        "result_url": AMD_V51_URL.replace("Offline", scenario),
    }
    fields.update(overrides)
    return result(**fields)


def frame(*rows: dict) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=RESULTS_SCHEMA)


def pair(old: dict, new: dict, **overrides: object) -> dict:
    """A pair-schema row from two result records (a software gain by default)."""
    row: dict = {
        "kind": "software_gain",
        "identity_level": "system",
        "is_per_accelerator": False,
        "benchmark": new["benchmark"],
        "scenario": new["scenario"],
        "division": new["division"],
        "result_unit": new["result_unit"],
        "is_higher_better": new["is_higher_better"],
        "ratio": new["result_value"] / old["result_value"],
        "efficiency": None,
        "has_preview": old["is_preview"] or new["is_preview"],
        "has_inferred": old["is_inferred"] or new["is_inferred"],
        "rounds_not_in_source": [],
    }
    for suffix, end in (("_old", old), ("_new", new)):
        for name in PAIR_END_SCHEMA:
            row[f"{name}{suffix}"] = end.get(name)
    row.update(overrides)
    return row


def pairs(*rows: dict) -> pl.DataFrame:
    return pl.DataFrame(list(rows), schema=PAIR_SCHEMA) if rows else empty_pairs()


AMD_V51 = result()
AMD_V60 = result(
    release="v6.0",
    result_key="6.0-0004:llama2-70b-99:Offline",
    result_id="6.0-0004",
    result_value=34754.9,
    result_per_accelerator=34754.9 / 8,
    software="ROCm 7.0, vLLM 0.10.1",
    result_url=AMD_V51_URL.replace("v5.1", "v6.0"),
)
MI325X_V60 = result(
    release="v6.0",
    result_key="6.0-0005:llama2-70b-99:Offline",
    result_id="6.0-0005",
    platform="8xMI325X_2xEPYC_9575F",
    accelerator_name="AMD Instinct MI325X 256GB HBM3e",
    result_value=41000.0,
    result_per_accelerator=41000.0 / 8,
    availability="preview",
    is_preview=True,
    result_url=AMD_V51_URL.replace("v5.1", "v6.0").replace("MI300X", "MI325X"),
)
H100_V51 = result(
    result_key="5.1-0100:llama2-70b-99:Offline",
    result_id="5.1-0100",
    submitter="NVIDIA",
    system_name="NVIDIA DGX H100",
    platform="DGX-H100_H100-SXM-80GBx8_TRT",
    accelerator_name="NVIDIA H100-SXM-80GB",
    result_value=31000.0,
    result_per_accelerator=31000.0 / 8,
    software="TensorRT 10.11, CUDA 12.9",
    is_inferred=True,
    result_url=AMD_V51_URL.replace(
        "AMD/results/8xMI300X_2xEPYC_9575F", "NVIDIA/results/DGX-H100"
    ),
)
EVIL_V60 = result(
    release="v6.0",
    result_key="6.0-0666:llama2-70b-99:Offline",
    result_id="6.0-0666",
    submitter="Evil <b>Corp</b>",
    system_name=EVIL,
    software='`rm -rf /` | --8<-- "/etc/passwd"',
    result_value=1.0,
    result_per_accelerator=1.0 / 8,
    result_url="javascript:alert(2)",
)
H100_16_V51 = result(
    result_key="5.1-0101:llama2-70b-99:Offline",
    result_id="5.1-0101",
    submitter="NVIDIA",
    system_name="2x NVIDIA DGX H100",
    platform="DGX-H100_H100-SXM-80GBx16_TRT",
    accelerator_name="NVIDIA H100-SXM-80GB",
    nodes=2,
    total_accelerators=16,
    result_value=60000.0,
    result_per_accelerator=60000.0 / 16,
    result_url=AMD_V51_URL.replace(
        "AMD/results/8xMI300X_2xEPYC_9575F", "NVIDIA/results/DGX-H100x2"
    ),
)
CPU_V51 = result(
    result_key="5.1-0200:resnet:Offline",
    result_id="5.1-0200",
    submitter="Intel",
    system_name="1-node-2S-GNR_128C",
    platform="1-node-2S-GNR_128C",
    benchmark="resnet",
    accelerator_name=None,
    accelerators_per_node=0,
    total_accelerators=0,
    result_value=30000.0,
    result_unit="Samples/s",
    result_per_accelerator=None,
    host_cpu_name="Intel(R) Xeon(R) 6980P",
    result_url=AMD_V51_URL.replace(
        "AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99", "Intel/results/GNR/resnet"
    ),
)

LINEAGE = """flowchart LR
  raw_mlperf__summary["raw_mlperf__summary"] --> core_mlperf__results["core_mlperf__results"]
  core_mlperf__results --> out_mlperf__software_gains
  core_mlperf__results -->|pairs| out_mlperf__scaling
"""


@pytest.fixture(scope="session")
def site_data() -> SiteData:
    results = frame(
        AMD_V51, AMD_V60, MI325X_V60, H100_V51, H100_16_V51, CPU_V51, EVIL_V60
    )
    return SiteData(
        results=results,
        rejected=empty_rejected(),
        gains=pairs(pair(AMD_V51, AMD_V60)),
        generations=pairs(
            pair(
                AMD_V60,
                MI325X_V60,
                kind="generation_ratio",
                identity_level="same_submitter",
                ratio=41000.0 / 34754.9,
                flags=["preview_end"],
                flag_reasons="an end is a preview system, not yet available (v6.0 end)",
            )
        ),
        scaling=pairs(
            pair(
                H100_V51,
                H100_16_V51,
                kind="scaling",
                identity_level="same_submitter",
                ratio=60000.0 / 31000.0,
                efficiency=60000.0 / 31000.0 / 2,
            )
        ),
        snapshots=pl.DataFrame(
            {
                "release": ["v5.1"],
                "path": ["summary_results.json"],
                "url": [
                    "https://raw.githubusercontent.com/mlcommons/inference_results_v5.1/HEAD/summary_results.json"
                ],
                "sha256": ["ab" * 32],
                "bytes": [1234567],
                "fetched_at": ["2026-01-02T03:04:05+00:00"],
                "rows": [1448],
                "rejected": [0],
                "checks": [["schema: passed", "row count: passed"]],
                "commit": pl.Series([None], dtype=pl.String),  # read over HTTP
            }
        ),
        lineage_mermaid=LINEAGE,
        pipeline_commit="0123456789abcdef0123456789abcdef01234567",
        built_at="2026-01-02T03:04:05+00:00",
    )
