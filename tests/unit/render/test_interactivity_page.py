"""The Interactivity pages on hand-written rows: limits, three scenarios, escaping."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from altair.vegalite.v6.schema.core import Root

from pipeline.render import charts, interactivity_page
from pipeline.render.engine import Writer
from pipeline.render.model import Model
from pipeline.render.pages import write_pages
from pipeline.render.site_data import SiteData, with_accelerators
from tests.unit.render.conftest import AMD_V51_URL, EVIL, amd, frame, result, unlabelled

CHECKER = (
    "https://github.com/mlcommons/inference/blob/"
    "001d64ca1a8079d7a1cebee5eeac56f743dc0c57/tools/submission/submission_checker/"
    "constants.py"
)


ROWS = (
    amd("Offline", 32000.0),
    amd("Server", 24000.0),
    amd("Interactive", 16000.0),
    # v7.0: no limits in the registry; a hostile system, and an unsafe link.
    result(
        release="v7.0",
        result_key="6.1-0009:llama2-70b-99.9:Server",
        benchmark="llama2-70b-99.9",
        scenario="Server",
        submitter="Evil <b>Corp</b>",
        system_name=EVIL,
        result_value=8000.0,
        result_per_accelerator=1000.0,
        result_url="javascript:alert(2)",
    ),
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, site_data: SiteData) -> Writer:
    rows = frame(*ROWS)
    data = SiteData(**{**site_data.__dict__, "results": rows})
    model = Model(data=data, results=with_accelerators(rows), releases=("v5.1", "v7.0"))
    out = tmp_path_factory.mktemp("interactivity") / "generated"
    return write_pages(model, out, [interactivity_page])


def test_index_lists_each_rounds_limits_with_their_source(site: Writer) -> None:
    page = unlabelled((site.out_dir / "interactivity" / "index.md").read_text())
    assert page.startswith("# Interactivity\n")
    assert (
        f'<tr><td>v5.1</td><td>llama2-70b-99</td><td><a href="{CHECKER}">2,000 ms · '
        f'200 ms</a></td><td><a href="{CHECKER}">450 ms · 40 ms</a></td><td><a '
        f'href="{CHECKER}">tools/submission/submission&#95;checker/constants.py @ '
        "001d64c</a></td><td>1</td></tr>"
    ) in page
    # Results but no sourced limit: said, never guessed.
    assert (
        "<tr><td>v7.0</td><td>llama2-70b-99.9</td><td>not in the registry</td>"
        "<td>—</td><td>—</td><td>1</td></tr>"
    ) in page
    # A sourced round without results in the ledger is still listed.
    assert (
        "<tr><td>v5.0</td><td>llama2-70b-interactive-99</td><td><a href="
        f'"{CHECKER}">450 ms · 40 ms</a></td>'
    ) in page
    assert "| [llama2-70b-99](llama2-70b-99.md) | v5.1 | 1 |" in page
    assert site.nav["generated/interactivity/index.md"] == [
        {"llama2-70b-99": "generated/interactivity/llama2-70b-99.md"},
        {"llama2-70b-99.9": "generated/interactivity/llama2-70b-99.9.md"},
    ]
    assert site.page_index["interactivity"] == {
        "llama2-70b-99": "interactivity/llama2-70b-99.md",
        "llama2-70b-99.9": "interactivity/llama2-70b-99.9.md",
    }


def test_benchmark_page_shows_one_systems_three_scenarios(site: Writer) -> None:
    page = (site.out_dir / "interactivity" / "llama2-70b-99.md").read_text()
    assert "## v5.1 { #round-v5-1 }" in page
    assert (
        "Limits (99th percentile): Server: TTFT ≤ 2,000 ms, TPOT ≤ 200 ms (at least "
        f'5 tokens/s per user; <a href="{CHECKER}">source</a>); Interactive: TTFT ≤ '
        "450 ms, TPOT ≤ 40 ms (at least 25 tokens/s per user"
    ) in page
    (row,) = [line for line in page.splitlines() if line.startswith("<tr><td")]
    assert "AMD · Supermicro AS-8125GS-TNMR2" in row
    assert "8 × AMD Instinct MI300X · 1 node · closed" in row
    assert f'<a href="{AMD_V51_URL}" title="5&#46;1-0001&#58;llama2-70b-99&#58;' in row
    assert ">4,000</a><br><small>system 32,000</small>" in row
    assert ">3,000</a><br><small>system 24,000</small>" in row
    assert ">2,000</a><br><small>system 16,000</small>" in row
    assert row.endswith(
        '<td style="text-align: right;" data-label="Server ÷ Offline">75%</td>'
        '<td style="text-align: right;" data-label="Interactive ÷ Offline">50%</td>'
        "</tr>"
    )


def test_chart_places_each_scenario_in_order_with_its_target(
    site: Writer,
) -> None:
    spec = json.loads(
        (site.out_dir / "charts" / "interactivity-llama2-70b-99-v5.1.json").read_text()
    )
    assert spec["encoding"]["y"]["scale"] == {"type": "log", "base": 10}
    assert spec["encoding"]["y"]["title"] == "Tokens/s per accelerator (log scale)"
    assert spec["encoding"]["x"]["title"] == "scenario, latency target tightening"
    points = sorted(
        (v["target_tokens_per_user"], v["per_accelerator"], v["scenario"])
        for v in spec["data"]["values"]
    )
    assert points == [
        (0.0, 4000.0, "Offline"),
        (5.0, 3000.0, "Server"),
        (25.0, 2000.0, "Interactive"),
    ]


def test_unregistered_round_and_hostile_names_stay_text(site: Writer) -> None:
    page = (site.out_dir / "interactivity" / "llama2-70b-99.9.md").read_text()
    assert "Server: limits not in the registry." in page
    assert "vega-chart" not in page  # no limit: nothing to place on a chart
    for raw in ("<script", "<b>Corp", "javascript:"):
        assert raw not in page, raw
    assert "Evil &lt;b&gt;Corp&lt;/b&gt;" in page
    assert ">1,000<br><small>system 8,000</small>" in page


def test_unnamed_round_and_benchmark_get_a_visible_section(
    tmp_path: Path, site_data: SiteData
) -> None:
    """Upstream left the round and benchmark empty: shown as (no name), not a crash."""
    rows = frame(amd("Server", 24000.0, release=None, benchmark=None))
    model = Model(
        data=SiteData(**{**site_data.__dict__, "results": rows}),
        results=with_accelerators(rows),
        releases=(),
    )
    render = write_pages(model, tmp_path / "generated", [interactivity_page])
    assert render.page_index["interactivity"] == {
        "(no name)": "interactivity/no-name.md"
    }
    page = (tmp_path / "generated" / "interactivity" / "no-name.md").read_text()
    assert page.startswith("# Interactivity: &#40;no name&#41;\n")
    assert "## &#40;no name&#41; { #round-no-name }" in page
    assert ">3,000</a><br><small>system 24,000</small>" in page


def test_interactivity_chart_validates_against_vega_lite() -> None:
    from pipeline.analysis.interactivity import interactivity, interactivity_points

    table = interactivity(frame(*ROWS[:3]).lazy()).collect()
    points = (
        interactivity_points(table).collect().with_columns(system=pl.lit("AMD · box"))
    )
    spec, data = charts.interactivity_chart(points, title="t")
    Root.validate(spec)
    # Ordered scenario points, not a target axis with Offline at zero.
    assert spec["encoding"]["x"]["field"] == "scenario"
    assert spec["encoding"]["x"]["sort"] == ["Offline", "Server", "Interactive"]
    assert sorted(data["target_tokens_per_user"].to_list()) == [0.0, 5.0, 25.0]
