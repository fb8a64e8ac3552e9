"""The model pages on hand-written rows: rankings, limits, cost cells, escaping."""

from __future__ import annotations

import pytest

from pipeline.render import model_pages
from pipeline.render.engine import Writer
from pipeline.render.model import Model
from pipeline.render.model_views import price_keys, ranking_cells, ranking_rows
from pipeline.render.pages import write_pages
from pipeline.render.site_data import SiteData, with_accelerators
from tests.unit.render.conftest import EVIL, amd, frame, result, unlabelled

ROWS = (
    amd("Offline", 32000.0),
    # Measured power (average Watts): 6000 W / 24000 tokens/s = 0.25 J per token.
    amd("Server", 24000.0, power_value=6000.0, power_unit="Watts"),
    # A bigger system, better per accelerator: ranked first, whatever its size.
    amd(
        "Server",
        72000.0,
        result_key="5.1-0002:llama2-70b-99:Server",
        submitter="Other",
        total_accelerators=16,
        result_per_accelerator=72000.0 / 16,
        # Declared, not measured: shown as such, never an energy.
        design_power_watts_declared=14000.0,
    ),
    # Open division, another model: ranked apart, the model named.
    amd(
        "Offline",
        64000.0,
        result_key="5.1-0003:llama2-70b-99:Offline",
        division="open",
        model_upstream="llama2-70b-pruned",
        result_per_accelerator=8000.0,
    ),
    # A hostile system with an unsafe link, in a round without registered limits.
    result(
        release="v7.0",
        result_key="7.0-0009:llama2-70b-99:Server",
        scenario="Server",
        submitter="Evil <b>Corp</b>",
        system_name=EVIL,
        accelerator_name=EVIL,
        result_value=8000.0,
        result_per_accelerator=1000.0,
        result_url="javascript:alert(2)",
    ),
    # Not an LLM result: no page.
    result(
        result_key="5.1-0004:resnet:Offline",
        benchmark="resnet",
        result_unit="Samples/s",
    ),
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, site_data: SiteData) -> Writer:
    rows = frame(*ROWS)
    data = SiteData(**{**site_data.__dict__, "results": rows, "measured": None})
    model = Model(data=data, results=with_accelerators(rows), releases=("v5.1", "v7.0"))
    out = tmp_path_factory.mktemp("models") / "generated"
    return write_pages(model, out, [model_pages])


def _rows(page: str, heading: str) -> list[str]:
    section = page.split(heading, 1)[1].split("\n### ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("<tr><td")]


def test_one_page_per_llm_benchmark_listed_in_the_index(site: Writer) -> None:
    assert site.page_index["models"] == {"llama2-70b-99": "models/llama2-70b-99.md"}
    index = unlabelled((site.out_dir / "models" / "index.md").read_text())
    assert "| [llama2-70b-99](llama2-70b-99.md) | v7.0, v5.1 | 5 |" in index
    assert not (site.out_dir / "models" / "resnet.md").exists()


def test_a_round_ranks_per_accelerator_best_first_with_its_limits(
    site: Writer,
) -> None:
    page = (site.out_dir / "models" / "llama2-70b-99.md").read_text()
    # Newest round first; Offline before Server; closed before open.
    assert page.index("## v7.0") < page.index("## v5.1")
    assert page.index("### v5.1 Offline · closed") < page.index("### v5.1 Server")
    assert page.index("### v5.1 Offline · open division") > page.index(
        "### v5.1 Offline · closed"
    )
    assert "No latency limit (Offline: every request at once)." in page
    assert (
        "Latency limits (99th percentile): TTFT ≤ 2,000 ms, TPOT ≤ 200 ms: at least "
        "5 tokens/s per user at the limit (1000 ÷ TPOT)"
    ) in page
    assert "Latency limits: not in the reviewed registry." in page
    first, second = _rows(page, "### v5.1 Server · closed")
    assert '<td style="text-align: right;" data-label="Rank">1</td>' in first
    assert ">Other · <a href=" in first
    assert ">16 × AMD Instinct MI300X" in first
    # 10^6 / (3600 × 4,500) accelerator-hours per million tokens.
    assert ">0.0617284</td>" in first
    assert (
        'data-price-key="amd-instinct-mi300x-192gb-hbm3" '
        'data-hours="0.06172839506172839"' in first
    )
    assert '<td style="text-align: right;" data-label="Rank">2</td>' in second
    assert ">3,000<br><small>system 24,000 Tokens/s</small></td>" in second
    assert "8 × AMD Instinct MI300X 192GB HBM3 · 1 node · closed · available" in second
    assert ">0.0925926</td>" in second
    assert "ranking of published results, not like-for-like pairs" in page


def test_open_rows_are_labelled_with_their_model(site: Writer) -> None:
    page = (site.out_dir / "models" / "llama2-70b-99.md").read_text()
    (row,) = _rows(page, "### v5.1 Offline · open division")
    assert "<strong>open</strong>" in row
    assert "model: llama2-70b-pruned" in row
    assert row.endswith(">not in the source this site read</td></tr>")


def test_hostile_names_stay_text_and_unsafe_links_are_dropped(site: Writer) -> None:
    page = (site.out_dir / "models" / "llama2-70b-99.md").read_text()
    assert "<script>" not in page
    assert "javascript:" not in page.replace("javascript&#58;", "")
    assert "Evil &lt;b&gt;Corp&lt;/b&gt;" in page
    assert "&lt;script&gt;alert" in page


def test_price_form_has_one_input_per_accelerator(site: Writer) -> None:
    page = (site.out_dir / "models" / "llama2-70b-99.md").read_text()
    # One per accelerator, and the electricity price (a result here has power).
    assert page.count("<input ") == 3
    assert 'data-price-key="amd-instinct-mi300x-192gb-hbm3"' in page
    assert "derived, not an MLPerf result" in page
    assert "<noscript>" in page


def test_price_keys_are_slugs_unique_per_page() -> None:
    assert price_keys(["NVIDIA GB300", "NVIDIA  GB300", "AMD Instinct MI355X"]) == {
        "AMD Instinct MI355X": "amd-instinct-mi355x",
        "NVIDIA  GB300": "nvidia-gb300",
        "NVIDIA GB300": "nvidia-gb300-x",
    }


def test_energy_is_shown_for_measured_power_only_and_declared_power_as_declared(
    site: Writer,
) -> None:
    page = (site.out_dir / "models" / "llama2-70b-99.md").read_text()
    first, second = _rows(page, "### v5.1 Server · closed")
    # 0.25 J per token × 10^6 / 3.6·10^6 = 0.0694444 kWh per million tokens.
    assert (
        '>0.0694444<br><small class="ledger-energy-cost" '
        'data-kwh="0.06944444444444443">—</small></td>'
    ) in second
    assert (
        ">not measured<br><small>declared design power 14,000 W: not measured; "
        "never used for energy or performance per watt</small></td>"
    ) in first
    assert "ledger-energy-cost" not in first
    # The electricity input is on the page, with its formula and "derived".
    assert 'name="kwh" data-electricity' in page
    assert (
        "<code>electricity $ per million tokens = kWh per million tokens × price per "
        "kWh</code>, for results with MLPerf-measured power only: derived, not an "
        "MLPerf result."
    ) in page
    assert "<code>kwh&#95;per&#95;million&#95;units × price per kWh</code>" in page


def test_a_page_without_measured_power_has_no_electricity_input() -> None:
    rows = frame(amd("Offline", 32000.0))
    data = ranking_cells(ranking_rows(with_accelerators(rows), rows))
    form = model_pages._price_form(data)
    assert "data-price-key" in form
    assert "data-electricity" not in form
    assert "MLPerf measured no power for any result on this page" in (
        model_pages._energy_words(data)
    )
    # No energy column then: it would say "not measured" on every row.
    assert not model_pages._has_energy(data)
    page = model_pages.model_page("llama2-70b-99", "models/x.md", ("v5.1",), data)
    text = str(page.files[0].content)
    assert "not measured" not in text and "kWh per million tokens<br>" not in text
