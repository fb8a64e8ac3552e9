"""Small helpers every page shares: the chip count of a result."""

from __future__ import annotations

import polars as pl

from pipeline.render import safe
from pipeline.render.context import chips


def test_chips_state_count_name_and_nodes_and_a_cpu_only_system_plainly() -> None:
    frame = pl.DataFrame(
        {
            "total": [8, 0, 72],
            "name": ["AMD Instinct MI300X", None, "NVIDIA GB300"],
            "nodes": [1, 2, 18],
        },
        schema={"total": pl.Int32, "name": pl.String, "nodes": pl.Int32},
    )
    shown = safe.values(frame, chips("total", "name", "nodes"))
    assert shown == [
        "8 × AMD Instinct MI300X · 1 node",
        "CPU only · 2 nodes",  # not "0 × CPU only"
        "72 × NVIDIA GB300 · 18 nodes",
    ]
