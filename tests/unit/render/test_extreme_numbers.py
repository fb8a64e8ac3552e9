"""Any finite number that passes validation renders: huge, tiny, zero, negative.

``Performance_Result = 1e308`` once crashed page rendering with ``conversion from f64
to i64 failed``: ratios and percentages were scaled to integers with a strict cast.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.render.pages import render_site
from pipeline.render.site_data import SNAPSHOT_SCHEMA, SiteData
from pipeline.render.tables import percent, ratio
from pipeline.transform.results import empty_rejected
from tests.unit.render.conftest import (
    AMD_V51,
    AMD_V60,
    H100_16_V51,
    H100_V51,
    LINEAGE,
    frame,
    pair,
    pairs,
    result,
)

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow


def _shown(expr, values: list[float | None]) -> list[str | None]:
    column = pl.Series("v", values, dtype=pl.Float64).to_frame()
    return column.select(expr(pl.col("v")))["v"].to_list()


def test_ratio_text_for_extreme_ratios() -> None:
    assert _shown(ratio, [1e20, 1e-20, 0.0, 1.5, -1.5, 0.004, 1e308, None]) == [
        "1e+20×",
        "1e-20×",
        "0.00×",
        "1.50×",
        "-1.50×",
        "0.004×",
        "1e+308×",
        None,
    ]


def test_percent_text_for_extreme_efficiencies() -> None:
    assert _shown(percent, [1e20, 1e-20, 0.0, 0.97, -0.5, None]) == [
        "1e+22%",
        "1e-18%",
        "0%",
        "97%",
        "-50%",
        None,
    ]


@pytest.fixture(scope="module")
def extreme_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny table whose numbers sit at the edges of what a float holds."""
    huge = result(
        release="v6.0",
        result_key="6.0-0009:llama2-70b-99:Offline",
        result_id="6.0-0009",
        result_value=1e308,
        result_per_accelerator=1e308 / 8,
    )
    big_16 = {**H100_16_V51, "result_value": 31000.0 * 2e20}
    data = SiteData(
        results=frame(AMD_V51, AMD_V60, huge, H100_V51, big_16),
        rejected=empty_rejected(),
        gains=pairs(
            pair(AMD_V51, huge, ratio=1e308 / 27803.9),
            pair(AMD_V60, AMD_V51, ratio=1e-20, identity_level="hardware"),
        ),
        generations=pairs(),
        scaling=pairs(
            pair(
                H100_V51,
                big_16,
                kind="scaling",
                identity_level="same_submitter",
                ratio=2e20,
                efficiency=1e20,
            )
        ),
        snapshots=pl.DataFrame(schema=SNAPSHOT_SCHEMA),
        lineage_mermaid=LINEAGE,
        pipeline_commit="0" * 40,
        built_at="2026-01-02T03:04:05+00:00",
    )
    out = tmp_path_factory.mktemp("extreme") / "generated"
    render_site(data, out, bundle=False)
    return out


def test_render_site_shows_huge_and_tiny_ratios(extreme_site: Path) -> None:
    (scaling_page,) = (extreme_site / "scaling").glob("*.md")
    scaling = scaling_page.read_text()
    row = next(line for line in scaling.splitlines() if line.startswith("<tr><td"))
    assert row.startswith(
        '<tr><td style="text-align: right;" data-label="Ratio">2e+20×</td>'
        '<td style="text-align: right;" data-label="Efficiency">1e+22%</td>'
    )
    gains = "".join(p.read_text() for p in (extreme_site / "software-gains").glob("*"))
    assert (
        '<td style="text-align: right;" data-label="Ratio">3.59662e+303×</td>' in gains
    )
    assert '<td style="text-align: right;" data-label="Ratio">1e-20×</td>' in gains
    release = (extreme_site / "releases" / "v6.0.md").read_text()
    assert ">1e+308</a>" in release
