"""Tiny canonical result rows for the analysis unit tests."""

from __future__ import annotations

import itertools

import polars as pl

from pipeline.transform.results import RESULTS_SCHEMA

_KEYS = itertools.count(1)

H100 = "NVIDIA H100-SXM-80GB"
H200 = "NVIDIA H200-SXM-141GB"
B200 = "NVIDIA B200-SXM-180GB"
GB300 = "NVIDIA GB300"
MIXED = "NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e"


def row(**overrides: object) -> dict[str, object]:
    """One canonical result: an 8-GPU H100 closed Offline throughput result."""
    key = overrides.pop("result_key", None) or f"k{next(_KEYS)}"
    base: dict[str, object] = {
        "release": "v5.1",
        "result_key": key,
        "submitter": "Acme",
        "division": "closed",
        "availability": "available",
        "is_preview": False,
        "system_name": "Acme box",
        "platform": "acme_box",
        "benchmark": "llama2-70b-99",
        "model_upstream": "llama2-70b-99",
        "scenario": "Offline",
        "result_value": 100.0,
        "result_unit": "Tokens/s",
        "is_higher_better": True,
        "nodes": 1,
        "total_accelerators": 8,
        "accelerator_name": H100,
        "host_cpu_name": "Intel(R) Xeon(R) Platinum 8480+",
        "software": "TRT",
        "is_inferred": False,
        "result_url": f"https://example.org/{key}",
    }
    base.update(overrides)
    total, nodes = base["total_accelerators"], base["nodes"]
    if "accelerators_per_node" not in overrides and total is not None and nodes:
        base["accelerators_per_node"] = total // nodes
    if base["result_unit"].startswith("Latency"):
        base["is_higher_better"] = False
    if base["availability"] == "preview":
        base["is_preview"] = True
    total = base["total_accelerators"]
    base["result_per_accelerator"] = (
        base["result_value"] / total if base["is_higher_better"] and total else None
    )
    return base


def frame(*rows: dict[str, object]) -> pl.LazyFrame:
    """Rows as a lazy canonical results table (every RESULTS_SCHEMA column present)."""
    df = pl.DataFrame(list(rows), infer_schema_length=None)
    return (
        df.lazy()
        .with_columns(
            pl.lit(None, dtype=dtype).alias(name)
            for name, dtype in RESULTS_SCHEMA.items()
            if name not in df.columns
        )
        .select(list(RESULTS_SCHEMA))
        .cast(RESULTS_SCHEMA)
    )


def one(frame: pl.LazyFrame | pl.DataFrame, **where: object) -> dict[str, object]:
    """The single row matching ``where`` (fails the test if there is not exactly one)."""
    df = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    for name, value in where.items():
        df = df.filter(pl.col(name) == value)
    assert df.height == 1, f"expected one row for {where}, got {df.height}: {df}"
    return df.row(0, named=True)
