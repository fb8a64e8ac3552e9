"""Headlines and summaries cite only the strictest, unflagged pairs; tables keep all.

One software gain is plausible (AMD's own MI300X system, 1.25×); one is a broken end
on the same system (46.51×, flagged, with a hostile reason); one is plausible but only
at the looser hardware level (2×). Scaling has one plausible step of one system
family, one super-linear step of one system family (flagged) and one size comparison,
in two units.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import polars as pl
import pytest

from pipeline.render.escape import escape
from pipeline.render.pages import HEADLINE_DEFINITIONS, render_site
from pipeline.render.site_data import SiteData
from tests.conftest import ROOT
from tests.unit.render.conftest import (
    AMD_V51,
    AMD_V60,
    H100_16_V51,
    H100_V51,
    pair,
    pairs,
    result,
    unlabelled,
)

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

DELL_OLD = result(
    result_key="5.1-0300:llama2-70b-99:Offline",
    submitter="Dell",
    system_name="Dell Pro Max GB10",
    platform="GB10",
    accelerator_name="NVIDIA GB10",
    total_accelerators=1,
    result_value=1.75,
    result_per_accelerator=1.75,
)
DELL_NEW = DELL_OLD | {
    "release": "v6.0",
    "result_key": "6.0-0300:llama2-70b-99:Offline",
    "result_value": 81.39,
    "result_per_accelerator": 81.39,
}
HOSTILE_REASON = "software-only gain above 3x <b>broken</b> (ratio 46.51 > 3)"
H100_OLD = H100_V51 | {"is_inferred": False}
H100_NEW = H100_OLD | {
    "release": "v6.0",
    "result_key": "6.0-0100:llama2-70b-99:Offline",
    "result_value": 62000.0,
}
SERVER = {"scenario": "Server", "result_unit": "Queries/s"}
H100_32 = H100_16_V51 | {
    "result_key": "5.1-0102:llama2-70b-99:Offline",
    "total_accelerators": 32,
    "nodes": 4,
    "result_value": 160000.0,
}
OTHER_8 = H100_OLD | {
    "result_key": "5.1-0400:llama2-70b-99:Offline",
    "submitter": "Other",
    "result_value": 20000.0,
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, site_data: SiteData) -> Path:
    data = SiteData(
        results=site_data.results,
        rejected=site_data.rejected,
        gains=pairs(
            pair(AMD_V51, AMD_V60),
            pair(
                DELL_OLD,
                DELL_NEW,
                flags=["large_software_gain", "outlier_end"],
                flag_reasons=HOSTILE_REASON,
            ),
            pair(H100_OLD, H100_NEW, identity_level="hardware"),
        ),
        generations=site_data.generations,
        scaling=pairs(
            pair(
                H100_OLD,
                H100_16_V51,
                kind="scaling",
                identity_level="same_submitter",
                ratio=60000.0 / 31000.0,
                efficiency=60000.0 / 31000.0 / 2,
            ),
            pair(
                H100_16_V51,
                H100_32,
                kind="scaling",
                identity_level="same_submitter",
                ratio=160000.0 / 60000.0,
                efficiency=160000.0 / 60000.0 / 2,
                flags=["superlinear_scaling"],
                flag_reasons="more than linear scaling (efficiency 1.333 > 1.05)",
            ),
            pair(
                OTHER_8 | SERVER,
                H100_32 | SERVER,
                kind="scaling",
                identity_level="best_of_any",
                ratio=8.0,
                efficiency=2.0,
                flags=["superlinear_scaling", "size_comparison"],
                flag_reasons="more than linear scaling; size comparison, not scaling",
            ),
        ),
        snapshots=site_data.snapshots,
        lineage_mermaid=site_data.lineage_mermaid,
        pipeline_commit=site_data.pipeline_commit,
        built_at=site_data.built_at,
    )
    out = tmp_path_factory.mktemp("headlines") / "generated"
    render_site(data, out, bundle=False)
    return out


def _section(text: str, heading: str) -> str:
    return text.split(heading + "\n", 1)[1].split("\n### ", 1)[0]


def _chart_rows(site: Path, name: str) -> list[dict]:
    spec = json.loads((site / "charts" / f"{name}.json").read_text())
    return spec["data"]["values"]


def test_home_headline_counts_only_the_strictest_unflagged_pair(site: Path) -> None:
    gains = _section((site / "partials" / "home.md").read_text(), "### Software gains")
    assert (
        "1 software gains (v5.1 → v6.0): median **1.25×**, largest **1.25×**. "
        "2 more pair(s) into v6.0, at looser readings, across a round the system also "
        "has, or with a plausibility warning, "
        "are on the detail page." in gains
    )
    # The top-N table and the chart cite the plausible pair and nothing else.
    assert "6&#46;0-0004&#58;llama2-70b-99&#58;Offline" in gains
    assert "6&#46;0-0300" not in gains and "46.51×" not in gains
    assert "6&#46;0-0100" not in gains and "2.00×" not in gains
    rows = _chart_rows(site, "home-software-gains")
    assert [r["result_key_new"] for r in rows] == ["6.0-0004:llama2-70b-99:Offline"]


def test_every_headline_states_its_definition(site: Path) -> None:
    home = (site / "partials" / "home.md").read_text()
    for kind, page in (
        ("gains", "software-gains.md"),
        ("generations", "generations.md"),
        ("scaling", "scaling.md"),
    ):
        line = '<p class="ledger-definition"><b>Definition:</b> '
        text = (site / page).read_text()
        assert line in text, page
        definition = HEADLINE_DEFINITIONS[kind]
        assert definition.split(" (")[0].replace("'", "&#39;") in text, page
        if kind != "generations":  # the only generation pair is flagged
            assert definition.split(" (")[0].replace("'", "&#39;") in home, kind
    assert "without a plausibility warning only" in HEADLINE_DEFINITIONS["gains"]


def test_scaling_headline_is_efficiency_of_plausible_scaling_only(site: Path) -> None:
    scaling = _section((site / "partials" / "home.md").read_text(), "### Scaling")
    assert (
        "1 scaling pairs (v5.1): median efficiency **97%**, largest **1.94×** at 97% "
        "efficiency." in scaling
    )
    assert "2.67×" not in scaling and "8.00×" not in scaling
    rows = _chart_rows(site, "home-scaling")
    assert [r["efficiency"] for r in rows] == [0.9677]


def test_pair_pages_summarise_strict_unflagged_pairs_and_badge_the_rest(
    site: Path,
) -> None:
    page = unlabelled((site / "software-gains.md").read_text())
    assert "**1 software gains** (v6.0): median **1.25×**, largest **1.25×**." in page
    assert "1 of the 3 pairs below carry a plausibility warning" in page
    assert (
        "| [llama2-70b-99](software-gains/llama2-70b-99.md) | 3 | 1 | 1 | 1.25× | "
        "1.25× – 1.25× |" in page
    )
    page = (site / "software-gains" / "llama2-70b-99.md").read_text()
    assert (
        "**3 pairs** (1 at the strictest reading without a warning: median **1.25×**, "
        "largest **1.25×**); 1 carry a plausibility warning" in page
    )
    row = next(line for line in page.splitlines() if "46.51×" in line)
    assert (
        '<span class="ledger-badge ledger-badge--flag">large software gain</span>'
        in (row)
    )
    assert '<span class="ledger-badge ledger-badge--flag">outlier end</span>' in row
    assert "&lt;b&gt;broken&lt;/b&gt;" in row and "<b>broken</b>" not in row
    # The hardware-level pair stays in the table, unbadged, outside the summary.
    assert any("2.00×" in line for line in page.splitlines())


def test_scaling_page_splits_units_and_keeps_size_comparisons_apart(
    site: Path,
) -> None:
    index = (site / "scaling.md").read_text()
    assert "**1 scaling pairs** (v5.1): median efficiency **97%**" in index
    page = (site / "scaling" / "llama2-70b-99.md").read_text()
    offline = _section(page, "## Offline · Tokens/s")
    assert "scaling-llama2-70b-99-offline-tokens-s.json" in offline
    assert "superlinear scaling</span>" in offline  # a flagged scaling step, badged
    server = _section(page, "## Server · Queries/s")
    assert "No scaling pair" in server and "vega-chart" not in server
    assert "1 size comparison(s)" in server and "scaling &#40;" not in server
    assert "<small>closed · size comparison</small>" in server
    for rows in (_chart_rows(site, "scaling-llama2-70b-99-offline-tokens-s"),):
        assert {r["result_unit"] for r in rows} == {"Tokens/s"}
        assert {r["reading"] for r in rows} == {"scaling"}


def test_benchmark_page_gives_each_unit_its_own_chart(
    tmp_path: Path, site_data: SiteData
) -> None:
    before = result(
        release="v0.7",
        result_key="0.7-1:resnet:MultiStream",
        benchmark="resnet",
        scenario="MultiStream",
        result_value=1000.0,
        result_unit="Samples/query",
        result_per_accelerator=125.0,
    )
    after = before | {
        "release": "v5.1",
        "result_key": "5.1-1:resnet:MultiStream",
        "result_value": 0.5,
        "result_unit": "Latency (ms)",
        "is_higher_better": False,
        "result_per_accelerator": 0.5 / 8,
    }
    results = pl.concat(
        [
            site_data.results,
            pl.DataFrame([before, after], schema=site_data.results.schema),
        ]
    )
    data = dataclasses.replace(site_data, results=results)
    out = tmp_path / "generated"
    render_site(data, out, bundle=False)
    page = (out / "benchmarks" / "resnet.md").read_text()
    assert "## MultiStream · closed · Samples/query" in page
    assert "## MultiStream · closed · Latency &#40;ms&#41;" in page
    for unit in ("samples-query", "latency-ms"):
        rows = _chart_rows(out, f"benchmark-resnet-multistream-closed-{unit}")
        assert len({r["result_unit"] for r in rows}) == 1


def test_methodology_states_every_headline_definition() -> None:
    text = " ".join((ROOT / "site" / "methodology.md").read_text().split())
    for kind, definition in HEADLINE_DEFINITIONS.items():
        assert definition in text, kind


def test_pair_tables_list_strict_pairs_before_larger_looser_ones() -> None:
    from pipeline.render.pair_views import pair_table

    cells = pl.DataFrame(
        {
            "ratio": [28.4, 1.3, 2.0],
            "is_headline": [False, True, False],
            "is_strict": [False, True, True],
            "c_ratio": ["28.40× per accelerator", "1.30×", "2.00× warned"],
            "c_comparison": ["best_of_any", "same_submitter", "same_submitter"],
            "c_old": ["a", "b", "c"],
            "c_new": ["d", "e", "f"],
        }
    )
    table = pair_table(cells, ("Older", "Newer"))
    # Plain strings in a table are escaped ("1.30×" -> "1&#46;30×").
    order = [
        table.index(escape(t))
        for t in ("1.30×", "2.00× warned", "28.40× per accelerator")
    ]
    assert order == sorted(order)
