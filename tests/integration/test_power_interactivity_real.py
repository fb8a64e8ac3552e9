"""Power, interactivity and accelerator pages on the real mirrored rounds.

Concrete values from the upstream summaries (v4.1, v5.1, v6.0, v6.1): the raw trees
carry no power, so the summaries hold every power result of the ledger.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis.interactivity import interactivity
from pipeline.analysis.power import power_gains, power_results
from pipeline.render import (
    accelerator_pages,
    history_page,
    interactivity_page,
    power_page,
)
from pipeline.render.coverage import round_status
from pipeline.render.history_views import accelerator_pages as accelerator_pages_of
from pipeline.render.history_views import accelerator_points, build_histories
from pipeline.render.model import Model
from pipeline.render.pages import write_pages
from pipeline.render.site_data import (
    SNAPSHOT_SCHEMA,
    SiteData,
    empty_pairs,
    release_order,
    with_accelerators,
)
from pipeline.transform.results import empty_rejected
from tests.unit.render.conftest import unlabelled

V60 = "https://github.com/mlcommons/inference_results_v6.0/tree/ab33b21/closed/NVIDIA/"
GB300 = "results/GB300-NVL72_GB300-288GB_aarch64x72_TRT/llama2-70b-99/"


@pytest.fixture(scope="module")
def power(mirror_results: pl.DataFrame) -> pl.DataFrame:
    return power_results(mirror_results.lazy()).collect()


def test_every_real_power_result_has_its_efficiency(power: pl.DataFrame) -> None:
    assert power.height == 55
    assert power.group_by("power_kind").len().sort("power_kind").rows() == [
        ("average power", 45),
        ("energy per query", 10),
    ]
    assert power["efficiency_note"].null_count() == 55
    assert sorted(power["release"].unique()) == ["v4.1", "v5.1"]
    lenovo = power.filter(pl.col("result_key") == "5.1-0061:llama2-70b-99:Offline").row(
        0, named=True
    )
    # 102,909 Tokens/s at 10,400.999 W.
    assert lenovo["efficiency"] == pytest.approx(9.894145859816245)
    assert lenovo["efficiency_unit"] == "Tokens/s per W"
    untether = power.filter(
        pl.col("result_key") == "v4.1-0068:resnet:SingleStream"
    ).row(0, named=True)
    # 29.239 mJ per query: 34.2 queries per joule.
    assert (untether["power_value"], untether["power_unit"]) == (
        pytest.approx(29.2389869184),
        "millijoules",
    )
    assert untether["efficiency"] == pytest.approx(34.20091136504813)
    # No system reports power in two rounds: no gain to compute.
    assert power_gains(power.lazy()).collect().height == 0


def test_real_llm_systems_side_by_side(mirror_results: pl.DataFrame) -> None:
    table = interactivity(mirror_results.lazy()).collect()
    assert table.group_by("release").len().sort("release").rows() == [
        ("v4.1", 160),
        ("v5.1", 170),
        ("v6.0", 164),
        ("v6.1", 157),
    ]
    assert table["extra_results"].sum() == 0
    gb300 = table.filter(
        (pl.col("release") == "v6.0")
        & (pl.col("benchmark") == "llama2-70b-99")
        & (pl.col("platform") == "GB300-NVL72_GB300-288GB_aarch64x72_TRT")
    ).row(0, named=True)
    assert (gb300["offline_value"], gb300["server_value"]) == (1126850.0, 868278.0)
    assert gb300["interactive_value"] == 814128.0
    assert gb300["interactive_per_accelerator"] == pytest.approx(814128.0 / 72)
    assert gb300["server_vs_offline"] == pytest.approx(868278.0 / 1126850.0)
    assert (gb300["server_tpot_ms"], gb300["interactive_tpot_ms"]) == (200.0, 40.0)
    # v6.1: every LLM benchmark with a Server or Interactive scenario has the limits
    # of the checker whose MODEL_CONFIG holds v6.1.
    v61 = table.filter(pl.col("release") == "v6.1")
    limits = (
        v61.group_by("benchmark")
        .agg(pl.col("server_tpot_ms").max(), pl.col("interactive_tpot_ms").max())
        .sort("benchmark")
        .rows()
    )
    assert limits == [
        ("deepseek-r1", 80.0, 15.0),
        ("gpt-oss-120b", 80.0, 15.0),
        ("llama2-70b-99.9", 200.0, 40.0),
        ("llama3.1-8b", 100.0, 30.0),
    ]


@pytest.fixture(scope="module")
def rendered(
    tmp_path_factory: pytest.TempPathFactory, mirror_results: pl.DataFrame
) -> Path:
    out = tmp_path_factory.mktemp("real") / "generated"
    data = SiteData(
        results=mirror_results,
        rejected=empty_rejected(),
        gains=empty_pairs(),
        generations=empty_pairs(),
        scaling=empty_pairs(),
        snapshots=pl.DataFrame(schema=SNAPSHOT_SCHEMA),
        lineage_mermaid="flowchart LR\n",
        pipeline_commit="0" * 40,
        built_at="2026-01-01T00:00:00+00:00",
    )
    releases = tuple(release_order(mirror_results["release"].unique()))
    results = with_accelerators(mirror_results)
    rounds = round_status(list(releases))
    histories = build_histories(mirror_results)
    points = accelerator_points(histories, results, releases, rounds)
    model = Model(
        data=data,
        results=results,
        releases=releases,
        rounds=rounds,
        histories=histories,
        accelerator_points=points,
        accelerator_pages=accelerator_pages_of(histories, points),
    )
    write_pages(
        model,
        out,
        [accelerator_pages, history_page, interactivity_page, power_page],
    )
    return out


def test_real_pages_cite_upstream_and_stay_within_budget(rendered: Path) -> None:
    page = (rendered / "interactivity" / "llama2-70b-99.md").read_text()
    (row,) = [
        line
        for line in page.split("## v6.0")[1].split("## v5.1")[0].splitlines()
        if "GB300 NVL72" in line and line.startswith("<tr>")
    ]
    assert f'<a href="{V60}{GB300}Offline"' in row and ">15,650.7</a>" in row
    assert f'<a href="{V60}{GB300}Server"' in row and ">12,059.4</a>" in row
    assert f'<a href="{V60}{GB300}Interactive"' in row and ">11,307.3</a>" in row
    assert row.endswith(
        '<td style="text-align: right;" data-label="Server ÷ Offline">77%</td>'
        '<td style="text-align: right;" data-label="Interactive ÷ Offline">72%</td>'
        "</tr>"
    )
    mi300x = unlabelled((rendered / "accelerators" / "amd-mi300x.md").read_text())
    assert mi300x.startswith("# AMD Instinct MI300X\n")
    # A gain along the way: AMD's 1-GPU v4.1 best to MangoBoost's v5.1 best.
    assert (
        '<b>v4.1</b> <a href="https://github.com/mlcommons/inference_results_v4.1/'
        'tree/4a0c8741/closed/AMD/results/1xMI300X_2xEPYC-9374F/llama2-70b-99/Offline" '
        'title="v4.1-0001&#58;llama2-70b-99&#58;Offline">3,062.72</a> Tokens/s</td>'
        '<td class="ledger-wide"><b>v5.1</b> <a href="https://github.com/mlcommons/'
        "inference_results_v5.1/tree/965182b0/closed/MangoBoost/results/"
        '8xMI300X_2xEPYC_9534/llama2-70b-99/Offline" title="5&#46;1-0066&#58;'
        'llama2-70b-99&#58;Offline">3,481.8</a> Tokens/s<br><small>skips v5.0&#58; '
        'not in source</small></td><td style="text-align: right;">1.14×</td></tr>'
    ) in mi300x
    power = (rendered / "power.md").read_text()
    assert (
        "55 results report power, in v4.1, v5.1: 45 as average power, 10 as " in power
    )
    assert ">34.2009</a> queries/J" in power
    # No generated page of these kinds outgrows the page budget (300 KB of HTML;
    # the Markdown is well under it).
    pages = [
        *rendered.glob("accelerators/*.md"),
        *rendered.glob("interactivity/*.md"),
        rendered / "power.md",
        rendered / "histories.md",
    ]
    assert len(pages) > 40
    assert max(p.stat().st_size for p in pages) < 200_000
