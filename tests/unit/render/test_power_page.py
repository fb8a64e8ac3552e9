"""The Power page on hand-written rows: both power kinds, unusable rows, gains."""

from __future__ import annotations

from pathlib import Path

from pipeline.render import power_page
from pipeline.render.model import Model
from pipeline.render.pages import write_pages
from pipeline.render.site_data import SiteData, with_accelerators
from tests.unit.render.conftest import AMD_V51_URL, EVIL, frame, result, unlabelled

V41_URL = AMD_V51_URL.replace("v5.1", "v4.1")


def _render(tmp_path: Path, site_data: SiteData, *rows: dict) -> str:
    results = frame(*rows)
    model = Model(
        data=SiteData(**{**site_data.__dict__, "results": results}),
        results=with_accelerators(results),
        releases=("v4.1", "v5.1"),
    )
    write_pages(model, tmp_path / "generated", [power_page])
    return (tmp_path / "generated" / "power.md").read_text()


def test_efficiency_per_kind_and_unusable_power_with_its_reason(
    tmp_path: Path, site_data: SiteData
) -> None:
    page = _render(
        tmp_path,
        site_data,
        result(power_value=8000.0, power_unit="Watts"),  # 27,803.9 Tokens/s
        result(
            result_key="5.1-0002:resnet:SingleStream",
            benchmark="resnet",
            scenario="SingleStream",
            result_value=0.12,
            result_unit="Latency (ms)",
            is_higher_better=False,
            result_per_accelerator=None,
            power_value=25.0,
            power_unit="millijoules",
        ),
        result(
            result_key="5.1-0003:resnet:Offline",
            benchmark="resnet",
            result_unit="Samples/s",
            power_value=2.0,
            power_unit="kW",
        ),
        result(result_key="5.1-0004:resnet:Server", scenario="Server"),  # no power
    )
    assert (
        "3 results report power, in v5.1: 1 as average power, 1 as energy per "
        "query, 1 in a unit of neither kind. 2 results have an efficiency; 1 has "
        "none (the table says why)."
    ) in page
    page = unlabelled(page)
    rows = [line for line in page.splitlines() if line.startswith("<tr><td>v5.1")]
    assert len(rows) == 3
    llama, resnet_offline, resnet_ss = rows
    assert f'<a href="{AMD_V51_URL}"' in llama
    assert ">8,000</a> Watts<br><small>average power</small>" in llama
    # 27,803.9 Tokens/s over 8,000 W.
    assert ">3.47549</a> Tokens/s per W</td></tr>" in llama
    assert ">25</a> millijoules<br><small>energy per query</small>" in resnet_ss
    assert ">40</a> queries/J</td></tr>" in resnet_ss  # 1000 / 25 mJ
    assert (
        "—<br><small>power unit kW does not fit Offline &#40;which reports Watts&#41;"
        "</small></td></tr>"
    ) in resnet_offline
    assert "### resnet · SingleStream { #power-resnet-singlestream }" in page
    assert "| [resnet · SingleStream](#power-resnet-singlestream) | v5.1 | 1 |" in page
    assert "_No system reports power in two rounds of the ledger" in page


def test_gain_across_rounds_cites_both_ends(
    tmp_path: Path, site_data: SiteData
) -> None:
    page = _render(
        tmp_path,
        site_data,
        result(
            release="v4.1",
            result_key="v4.1-0001:llama2-70b-99:Offline",
            result_value=20000.0,
            power_value=8000.0,
            power_unit="Watts",
            result_url=V41_URL,
        ),
        result(result_value=30000.0, power_value=8000.0, power_unit="Watts"),
    )
    gains = page.split("## Gains across rounds")[1].split("## Power results")[0]
    (row,) = [line for line in gains.splitlines() if line.startswith("<tr><td")]
    assert "AMD · Supermicro AS-8125GS-TNMR2" in row
    assert (
        f'<b>v4.1</b> <a href="{V41_URL}"' in row and ">2.5</a> Tokens/s per W" in row
    )
    assert f'<b>v5.1</b> <a href="{AMD_V51_URL}"' in row
    assert ">3.75</a> Tokens/s per W" in row
    assert ">8,000</a> W</small>" in row
    assert row.endswith(
        '<td style="text-align: right;" data-label="Efficiency ratio">1.50×</td></tr>'
    )


def test_hostile_system_names_stay_text(tmp_path: Path, site_data: SiteData) -> None:
    page = _render(
        tmp_path,
        site_data,
        result(
            submitter="Evil <b>Corp</b>",
            system_name=EVIL,
            power_value=8000.0,
            power_unit="<img src=x>",
            result_url="javascript:alert(2)",
        ),
    )
    for raw in ("<script", "<b>Corp", "javascript:", "<img src=x"):
        assert raw not in page, raw
    assert "Evil &lt;b&gt;Corp&lt;/b&gt;" in page
    assert "power unit &lt;img src&#61;x&gt; does not fit Offline" in page


def test_unnamed_round_still_lists_its_power(
    tmp_path: Path, site_data: SiteData
) -> None:
    page = _render(
        tmp_path,
        site_data,
        result(release=None, scenario=None, power_value=8000.0, power_unit="Watts"),
    )
    assert "1 result report power" in page
    assert "### llama2-70b-99 · &#40;no name&#41;" in page
    # The note is the analysis's: a missing scenario has no power kind to read.
    assert "scenario &#40;none&#41; has no power metric" in page
