"""The Accelerator histories page: best per round, steps, charts, escaping."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from altair.vegalite.v6.schema.core import Root

from pipeline.analysis.history import accelerator_histories
from pipeline.registry.accelerators import parse_accelerators
from pipeline.render.context import output_folder
from pipeline.render.coverage import round_status
from pipeline.render.engine import Writer, emit
from pipeline.render.history_views import history_chart, render_history_page
from pipeline.render.site_data import SiteData
from pipeline.render.slugs import page_problems
from pipeline.render.spec import Draft
from tests.unit.render.conftest import frame, unlabelled
from tests.unit.render.rounds_data import (
    H100_V21,
    H100_V41,
    URL,
    h100,
    render_rounds_site,
)

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render_rounds_site(tmp_path_factory.mktemp("history") / "generated")


PAGE = "accelerators/nvidia-h100-sxm.md"
ANCHOR = "line-llama2-70b-99-offline-closed-tokens-s"
V21_URL = URL.replace("v5.1", "v2.1")
V41_URL = URL.replace("v5.1", "v4.1")


def test_accelerator_page_shows_best_per_round_and_steps(site: Path) -> None:
    page = unlabelled((site / PAGE).read_text())
    assert page.startswith("# NVIDIA H100 SXM\n")
    assert "Derived, unofficial — not MLPerf results" in page
    assert (
        "NVIDIA H100 SXM (registry id `nvidia-h100-sxm`) has results in 3 round(s) "
        "(v2.1, v4.1, v5.1) on 1 line(s); 2 step(s) between consecutive rounds"
    ) in page
    assert f"### llama2-70b-99 · Offline · closed {{ #{ANCHOR} }}" in page
    rows = [line for line in page.splitlines() if line.startswith("<tr><td><b>v")]
    assert len(rows) == 3
    v21, v41, v51 = rows
    assert f'<a href="{V21_URL}"' in v21 and ">1,000</a>" in v21
    assert "8 × NVIDIA H100 SXM · 1 node · system result 8,000 Tokens/s" in v21
    assert "closed · available · software: TensorRT for v2.1" in v21
    assert '<td style="text-align: right;">—</td>' in v21
    assert "skips v3.0, v3.1, v4.0&#58; not in source" in v41
    assert ">1,250</a> Tokens/s" in v41
    # The step names and links the result it divides by.
    assert f'1.25×<br><small>vs <a href="{V21_URL}" title="v2.1&#58;' in v41
    # v5.1's best (1,750 per accelerator) is the hostile row: its value is not linked.
    assert "<td>1,750 Tokens/s</td>" in v51
    assert f'1.40×<br><small>vs <a href="{V41_URL}"' in v51 and ">1.75×</td>" in v51
    assert "<br><small>skips v5.0&#58; not in source</small>" in v51


def test_gains_along_the_way_cite_both_ends(site: Path) -> None:
    page = unlabelled((site / PAGE).read_text())
    gains = page.split("## Gains along the way { #gains }")[1].split("## Results")[0]
    steps = [line for line in gains.splitlines() if line.startswith("<tr><td>")]
    assert len(steps) == 2
    first, second = steps
    assert f'<a href="#{ANCHOR}">llama2-70b-99 · Offline · closed</a>' in first
    assert f'<b>v2.1</b> <a href="{V21_URL}"' in first and ">1,000</a>" in first
    assert f'<b>v4.1</b> <a href="{V41_URL}"' in first and ">1,250</a>" in first
    assert first.endswith('<td style="text-align: right;">1.25×</td></tr>')
    # The newer end of the second step is the hostile row: shown, never linked.
    assert "<b>v5.1</b> 1,750 Tokens/s" in second and "javascript" not in second
    assert second.endswith('<td style="text-align: right;">1.40×</td></tr>')


def test_histories_page_indexes_the_accelerator_pages(site: Path) -> None:
    page = unlabelled((site / "histories.md").read_text())
    assert "Derived, unofficial — not MLPerf results" in page
    assert "## Accelerator pages { #accelerator-pages }" in page
    assert "(1 accelerator in all)" in page
    assert "| [NVIDIA H100 SXM](accelerators/nvidia-h100-sxm.md) | 3 | 1 | 2 |" in page
    # Overview rows link the line on its accelerator's page.
    assert (
        "| NVIDIA H100 SXM | [llama2-70b-99 · Offline · closed]"
        f"(accelerators/nvidia-h100-sxm.md#{ANCHOR}) "
        "| v2.1 → v4.1 → v5.1 | 1.75× |"
    ) in page
    # The line tables moved to the accelerator page.
    assert "<tr><td><b>v2.1</b>" not in page
    assert "No line was broken by a compatibility rule." in page
    # Linked from this index (above), not listed in the nav (context.ENTITY_PAGES).
    nav = json.loads((site / "partials" / "nav.json").read_text())
    assert "generated/histories.md" not in nav
    index = json.loads((site / "partials" / "pages.json").read_text())
    assert index["accelerators"] == {"nvidia-h100-sxm": PAGE}
    assert page_problems(index, site) == []


def test_history_pages_escape_hostile_submitter(site: Path) -> None:
    for name in ("histories.md", PAGE):
        page = (site / name).read_text()
        assert "<script" not in page and "javascript:" not in page, name
        assert "<b>Corp</b>" not in page and "--8<--" not in page, name
    page = (site / PAGE).read_text()
    assert "Evil &lt;b&gt;Corp&lt;/b&gt;" in page
    assert "&lt;script&gt;alert&#40;1&#41;&lt;/script&gt;" in page


def test_accelerator_chart_is_log_scale_and_cites_results(site: Path) -> None:
    spec = json.loads(
        (site / "charts" / "accelerators-nvidia-h100-sxm-tokens-s.json").read_text()
    )
    assert spec["encoding"]["y"]["scale"] == {"type": "log", "base": 10}
    assert spec["encoding"]["y"]["title"] == "Tokens/s per accelerator (log scale)"
    assert spec["encoding"]["href"]["field"] == "url"
    values = spec["data"]["values"]
    assert [v["value"] for v in values] == [1000.0, 1250.0, 1750.0]
    assert [v["line"] for v in values] == ["llama2-70b-99 · Offline · closed"] * 3
    assert values[2]["url"] is None  # javascript: is never a link target
    assert values[0]["url"] == V21_URL


def test_history_chart_is_log_scale_and_cites_results(site: Path) -> None:
    spec = json.loads((site / "charts" / "histories-tokens-s.json").read_text())
    assert spec["encoding"]["y"]["scale"] == {"type": "log", "base": 10}
    assert spec["encoding"]["href"]["field"] == "url"
    values = spec["data"]["values"]
    assert [v["value"] for v in values] == [1000.0, 1250.0, 1750.0]
    assert values[2]["url"] is None  # javascript: is never a link target
    assert values[0]["url"] == URL.replace("v5.1", "v2.1")


def test_history_chart_validates_against_vega_lite() -> None:
    histories = accelerator_histories(frame(H100_V21, H100_V41).lazy()).collect()
    points = histories.with_columns(
        chart_label=pl.lit("NVIDIA H100 SXM · llama2-70b-99 Offline"),
        line_label=pl.lit("llama2-70b-99 · Offline · closed"),
    )
    spec, data = history_chart(
        points, title="t", unit="Tokens/s", releases=["v2.1", "v4.1"]
    )
    Root.validate(spec)
    assert spec["encoding"]["color"]["scale"]["domain"] == [
        "NVIDIA H100 SXM · llama2-70b-99 Offline"
    ]
    assert data.height == 2


def test_home_and_downloads_link_the_histories(site: Path) -> None:
    home = (site / "partials" / "home.md").read_text()
    assert "[All accelerator histories →](generated/histories.md)" in home
    assert "1 lines follow" in home and "(v2.1 → v5.1, 3 rounds, **1.75×**" in home
    assert (site / "downloads" / "accelerator_histories.parquet").is_file()
    data = pl.read_parquet(site / "downloads" / "accelerator_histories.parquet")
    assert data["step_ratio"].to_list() == [None, 1.25, 1.4]


def test_hostile_accelerator_names_stay_text(
    tmp_path: Path, site_data: SiteData
) -> None:
    hostile = "<img src=x onerror=alert(1)> [x](javascript:alert(1))"
    registry = parse_accelerators(
        {
            "accelerator": [
                {
                    "id": "evil-chip",
                    "vendor": "Evil <b>Inc</b>",
                    "family": "*bold*",
                    "model": "<script>alert(3)</script> | pipe",
                    "names": [hostile],
                }
            ]
        },
        "t.toml",
    )
    # Two more rounds of a line whose benchmark and scenario upstream left empty.
    unnamed = {"benchmark": None, "scenario": None, "accelerator_name": hostile}
    rows = frame(
        h100("v5.1", 800.0, accelerator_name=hostile),
        h100("v6.0", 1600.0, accelerator_name=hostile),
        h100("v5.1", 80.0, result_key="n51", **unnamed),
        h100("v6.0", 120.0, result_key="n60", **unnamed),
    )
    histories = accelerator_histories(rows.lazy(), registry=registry).collect()
    named = histories.filter(pl.col("benchmark").is_not_null())
    assert named["step_ratio"].to_list() == [None, 2.0]
    out = tmp_path / "generated"
    draft = Draft()
    render_history_page(
        draft,
        ("v5.1", "v6.0"),
        histories,
        round_status(["v5.1", "v6.0"]),
        "methodology.md",
    )
    emit(Writer(output_folder(out)), draft.done())
    page = (out / "histories.md").read_text()
    for raw in ("<script", "<img src=x", "<b>Inc", "javascript:", "| pipe"):
        assert raw not in page, raw
    assert (
        "## Evil &lt;b&gt;Inc&lt;/b&gt; &lt;script&gt;alert&#40;3&#41;&lt;/script&gt; "
        "&#124; pipe { #history-evil-chip }"
    ) in page
    # The registry's one name of the chip, escaped like upstream's would be.
    assert (
        "8 × Evil &lt;b&gt;Inc&lt;/b&gt; &lt;script&gt;alert&#40;3&#41;&lt;/script&gt; "
        "&#124; pipe · 1 node"
    ) in page
    assert "### &#40;no name&#41; · &#40;no name&#41; · closed { #history-" in page
    assert f'1.50×<br><small>vs <a href="{URL}"' in page
