"""A round's official-style grid: one row per system, a column per benchmark."""

from __future__ import annotations

import polars as pl

from pipeline.render.grid import round_grid
from tests.unit.render.conftest import AMD_V51, CPU_V51, H100_16_V51, H100_V51, frame


def test_one_row_per_system_and_the_best_result_per_benchmark_scenario() -> None:
    # The same system's better run, listed second: the grid keeps the best, not the
    # first.
    rerun = H100_V51 | {"result_key": "5.1-0100b", "result_value": 32000.0}
    grid = round_grid(frame(AMD_V51, H100_V51, rerun, H100_16_V51, CPU_V51))
    assert grid.height == 4  # the rerun is the same system: one row
    h100 = grid.filter(
        (pl.col("total_accelerators") == 8)
        & (pl.col("submitter") == H100_V51["submitter"])
    )
    column = f"{H100_V51['benchmark']} · Offline ({H100_V51['result_unit']})"
    assert h100[column].to_list() == [32000.0]
    assert grid.columns[:6] == [
        "division", "submitter", "system_name", "accelerator", "total_accelerators",
        "availability",
    ]  # fmt: skip
