"""Accelerator pages on hand-made histories: breaks, single rounds, hostile names."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis.history import accelerator_histories
from pipeline.registry.accelerators import parse_accelerators
from pipeline.registry.benchmarks import parse_compatibility
from pipeline.render import accelerator_pages, history_views
from pipeline.render.coverage import round_status
from pipeline.render.model import Model
from pipeline.render.pages import write_pages
from pipeline.render.site_data import SiteData, with_accelerators
from tests.unit.render.conftest import frame, unlabelled
from tests.unit.render.rounds_data import URL, h100

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

RULE = "llama2-70b-99 Server changed in v6.0 - a test rule"
RULES = parse_compatibility(
    {
        "compatibility": [
            {
                "benchmark": "llama2-70b-99",
                "scenario": "Server",
                "incompatible_between": ["v5.1", "v6.0"],
                "reason": RULE,
            }
        ]
    }
)
RELEASES = ["v5.1", "v6.0"]


def _render(
    out: Path, site_data: SiteData, rows: pl.DataFrame, **options: object
) -> dict[str, str]:
    histories = accelerator_histories(rows.lazy(), **options).collect()
    results = with_accelerators(rows)
    status = round_status(RELEASES)
    points = history_views.accelerator_points(histories, results, RELEASES, status)
    model = Model(
        data=site_data,
        results=results,
        releases=tuple(RELEASES),
        rounds=status,
        histories=histories,
        accelerator_points=points,
        accelerator_pages=history_views.accelerator_pages(histories, points),
    )
    write_pages(model, out, [accelerator_pages])
    return dict(model.accelerator_pages)


def test_a_forbidden_step_is_not_chained_and_names_its_rule(
    tmp_path: Path, site_data: SiteData
) -> None:
    rows = frame(
        h100("v5.1", 800.0, scenario="Server", result_key="s51"),
        h100("v6.0", 1600.0, scenario="Server", result_key="s60"),
        # A line with a single round still gets its table (no chart, no step).
        h100("v6.0", 2400.0, benchmark="mixtral-8x7b", result_key="m60"),
    )
    pages = _render(tmp_path / "generated", site_data, rows, rules=RULES)
    assert pages == {"nvidia-h100-sxm": "generated/accelerators/nvidia-h100-sxm.md"}
    page = (tmp_path / "generated" / "accelerators" / "nvidia-h100-sxm.md").read_text()
    assert "on 2 line(s); 0 step(s) between consecutive rounds" in page
    # Two rounds on one line, but across the rule: charted, yet never a ratio.
    gains = page.split("## Gains along the way")[1].split("## Results")[0]
    assert "2.00×" not in page
    assert (
        '<td style="text-align: right;" data-label="Step">'
        f"not chained<br><small>{RULE}</small></td>"
    ) in gains
    assert "<b>v5.1</b> <a href=" in gains and ">100</a> Tokens/s" in gains
    assert "<b>v6.0</b> <a href=" in gains and ">200</a> Tokens/s" in gains
    line = page.split("{ #line-llama2-70b-99-server-closed-tokens-s }")[1]
    assert (f'not chained<br><small>to <a href="{URL}"') in line.split("</table>")[0]
    # A one-round line has no heading of its own: it is a row of one shared table
    # (an open-division edge chip has 95 such lines), still linked by its anchor.
    assert "### mixtral-8x7b" not in page
    single = unlabelled(
        page.split("### Lines with one round { #single-round-lines }")[1]
    )
    assert "1 line(s) with a result in one round only" in single
    assert (
        '<tr><td class="ledger-wide"><span id="line-mixtral-8x7b-offline-closed-'
        'tokens-s"></span>mixtral-8x7b · Offline · closed<br><small>Tokens/s per '
        "accelerator</small></td><td><b>v6.0</b></td>"
    ) in single
    assert ">300</a> Tokens/s" in single  # 2,400 / 8
    assert (
        "| [mixtral-8x7b · Offline · closed](#line-mixtral-8x7b-offline-closed-"
        "tokens-s) | v6.0 | 0 |"
    ) in unlabelled(page)


def test_hostile_registry_names_stay_text_and_slugs_stay_file_names(
    tmp_path: Path, site_data: SiteData
) -> None:
    hostile = "<img src=x onerror=alert(1)>"
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
    rows = frame(
        h100("v5.1", 800.0, accelerator_name=hostile),
        h100("v6.0", 1600.0, accelerator_name=hostile),
    )
    pages = _render(tmp_path / "generated", site_data, rows, registry=registry)
    assert pages == {"evil-chip": "generated/accelerators/evil-chip.md"}
    page = (tmp_path / "generated" / "accelerators" / "evil-chip.md").read_text()
    for raw in ("<script", "<img src=x", "<b>Inc", "javascript:", "| pipe"):
        assert raw not in page, raw
    assert page.startswith(
        "# Evil &lt;b&gt;Inc&lt;/b&gt; &lt;script&gt;alert&#40;3&#41;&lt;/script&gt; "
        "&#124; pipe\n"
    )
    assert '<td style="text-align: right;" data-label="Step">2.00×</td>' in page


def test_line_chart_validates_against_vega_lite(site_data: SiteData) -> None:
    from altair.vegalite.v6.schema.core import Root

    from pipeline.render.accelerator_pages import _line_spec

    rows = frame(h100("v5.1", 800.0), h100("v6.0", 1600.0))
    points = (
        accelerator_histories(rows.lazy())
        .collect()
        .with_columns(line_label=pl.lit("llama2-70b-99 · Offline · closed"))
    )
    spec, data = _line_spec(points, title="t", unit="Tokens/s", releases=RELEASES)
    Root.validate(spec)
    assert spec["encoding"]["color"]["field"] == "line"
    assert data["value"].to_list() == [100.0, 200.0]
