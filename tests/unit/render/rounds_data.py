"""Hand-written rows for the round-coverage and accelerator-history render tests.

NVIDIA's 8x H100 llama2-70b-99 Offline result in v2.1, v4.1 and v5.1: three rounds
with absent rounds between them (v3.0-v4.0 and v5.0 are in the manifest only), and a
hostile submitter holding v5.1's best result.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.render.pages import render_site
from pipeline.render.site_data import SNAPSHOT_SCHEMA, SiteData
from pipeline.transform.results import empty_rejected
from tests.unit.render.conftest import (
    AMD_V51_URL,
    EVIL,
    LINEAGE,
    frame,
    pair,
    pairs,
    result,
)

H100 = "NVIDIA H100-SXM-80GB"
URL = AMD_V51_URL.replace("AMD/results/8xMI300X_2xEPYC_9575F", "NVIDIA/results/H100")


def h100(release: str, value: float, **overrides: object) -> dict:
    """NVIDIA's 8x H100 llama2-70b-99 Offline result in ``release``."""
    fields: dict = {
        "release": release,
        "result_key": f"{release}:closed/NVIDIA/DGX-H100/llama2-70b-99/Offline",
        "result_id": None,
        "submitter": "NVIDIA",
        "system_name": "NVIDIA DGX H100",
        "platform": "DGX-H100_H100-SXM-80GBx8_TRT",
        "accelerator_name": H100,
        "result_value": value,
        "result_per_accelerator": value / 8,
        "software": f"TensorRT for {release}",
        "result_url": URL.replace("v5.1", release),
    }
    fields.update(overrides)
    return result(**fields)


H100_V21 = h100("v2.1", 8000.0)  # 1,000 per accelerator
H100_V41 = h100("v4.1", 10000.0)  # 1,250: 1.25x
EVIL_V51 = h100(  # 1,750: 1.40x, 1.75x since v2.1; the best of v5.1
    "v5.1",
    14000.0,
    submitter="Evil <b>Corp</b>",
    system_name=EVIL,
    software='`rm -rf /` | --8<-- "/etc/passwd"',
    result_url="javascript:alert(2)",
)
H100_V51 = h100("v5.1", 12000.0, result_key="5.1-0100:llama2-70b-99:Offline")


def site_data_of(*rows: dict, gains: pl.DataFrame | None = None) -> SiteData:
    return SiteData(
        results=frame(*rows),
        rejected=empty_rejected(),
        gains=gains if gains is not None else pairs(),
        generations=pairs(),
        scaling=pairs(),
        snapshots=pl.DataFrame(schema=SNAPSHOT_SCHEMA),
        lineage_mermaid=LINEAGE,
        pipeline_commit="0123456789abcdef0123456789abcdef01234567",
        built_at="2026-01-02T03:04:05+00:00",
    )


def render_rounds_site(out: Path) -> Path:
    """Render the three H100 rounds and a v2.1 -> v4.1 software gain into ``out``."""
    # The analysis names the rounds between v2.1 and v4.1 the source lacks.
    gain = pair(
        H100_V21,
        H100_V41,
        is_consecutive=False,
        rounds_not_in_source=["v3.0", "v3.1", "v4.0"],
    )
    data = site_data_of(H100_V21, H100_V41, H100_V51, EVIL_V51, gains=pairs(gain))
    render_site(data, out, bundle=False)
    return out
