"""The Data page serves datapackage.json next to the downloads, with reading examples."""

from __future__ import annotations

import json
import re
from pathlib import Path

import frictionless
import polars as pl
import pytest

from pipeline.render.data_page import examples
from pipeline.render.pages import render_site
from pipeline.render.site_data import SiteData

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, site_data: SiteData) -> Path:
    out = tmp_path_factory.mktemp("data") / "generated"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLPERF_LEDGER_SITE_URL", "https://ledger.example/mlperf/")
        render_site(site_data, out, bundle=False)
    return out


def test_the_built_data_package_validates_with_frictionless(site: Path) -> None:
    descriptor = site / "downloads" / "datapackage.json"
    report = frictionless.validate(str(descriptor))
    assert report.flatten(["resourceName", "type", "note"]) == []
    package = json.loads(descriptor.read_text())
    csv_files = sorted(p.name for p in (site / "downloads").glob("*.csv"))
    parquet_files = sorted(p.name for p in (site / "downloads").glob("*.parquet"))
    described = [r["path"] for r in package["resources"]]
    # Every download the page offers is described, and nothing else.
    assert sorted(described) == sorted(csv_files + parquet_files)
    assert len(csv_files) == 9
    checked = {t.name: t.stats.get("rows") for t in report.tasks}
    assert checked["results"] == 7
    # One derived cost row per result, keyed like the results.
    assert checked["unit_costs"] == 7
    costs = next(r for r in package["resources"] if r["name"] == "unit_costs")
    assert costs["schema"]["primaryKey"] == ["release", "result_key"]
    hours = next(
        f
        for f in costs["schema"]["fields"]
        if f["name"] == "accelerator_hours_per_million_units"
    )
    assert hours["description"].startswith(
        "Derived, not an MLPerf result: accelerator-hours a million units of work "
        "take, 10^6 / (3600 × result_per_accelerator)"
    )
    assert package["sources"] == [
        {
            "path": "https://github.com/mlcommons/inference_results_v5.1",
            "title": "mlcommons/inference_results_v5.1",
        },
        {
            "path": "https://github.com/mlcommons/inference_results_v6.0",
            "title": "mlcommons/inference_results_v6.0",
        },
    ]


def test_the_snapshots_download_carries_the_upstream_address(site: Path) -> None:
    snapshots = pl.read_parquet(site / "downloads" / "snapshots.parquet")
    assert "url" not in snapshots.columns
    assert snapshots.select(
        "upstream_url", "upstream_commit", "commit_basis", "read_from"
    ).row(0) == (
        "https://github.com/mlcommons/inference_results_v5.1/blob/HEAD/"
        "summary_results.json",
        None,
        "not recorded: read from upstream's HEAD",
        "upstream: https://raw.githubusercontent.com/mlcommons/inference_results_v5.1"
        "/HEAD/summary_results.json",
    )


def test_data_page_links_the_package_and_shows_examples(site: Path) -> None:
    page = (site / "data.md").read_text()
    size = (site / "downloads" / "datapackage.json").stat().st_size
    assert (
        f"[datapackage.json](downloads/datapackage.json) · {size / 1024:,.1f} KB "
        "describes every file above as a [Frictionless Data Package]"
    ) in page
    base = "https://ledger.example/mlperf/generated/downloads/"
    for tool in ("Polars", "DuckDB", "pandas", "Frictionless"):
        assert f"\n### {tool}\n" in page
    assert f'\nbase = "{base}"\n' in page
    assert '\nresults = pl.read_parquet(base + "results.parquet")\n' in page
    assert f"\nFROM read_parquet('{base}results.parquet')\n" in page
    assert '\nresults = pd.read_parquet(base + "results.parquet")\n' in page
    assert f"frictionless validate {base}datapackage.json\n" in page


def test_every_download_row_names_its_columns_for_phones(site: Path) -> None:
    page = (site / "data.md").read_text()
    header, *rows = [line for line in page.splitlines() if line.startswith("| ")]
    assert header == "| Table | What | Rows | CSV | Parquet |"
    assert len(rows) == 9  # one per CSV download
    for row in rows:
        labels = re.findall(r'(?:^|\| )<span data-label="([^"]*)"></span>', row)
        assert labels == ["Table", "What", "Rows", "CSV", "Parquet"], row
    assert (
        '| <span data-label="Table"></span>**results** | <span data-label="What">'
        "</span>Canonical table&#58; one row per published result, every release. | "
        '<span data-label="Rows"></span>7 | <span data-label="CSV"></span>'
        "[results.csv](downloads/results.csv) · "
    ) in page


def test_examples_quote_the_url_so_it_cannot_end_the_string() -> None:
    text = examples('https://x.example/it\'s "here"/')
    assert '\nbase = "https://x.example/it\'s \\"here\\"/"\n' in text
    assert (
        "FROM read_parquet('https://x.example/it''s \"here\"/results.parquet')" in text
    )


def test_the_examples_name_columns_the_results_download_has(site: Path) -> None:
    columns = set(pl.read_parquet_schema(site / "downloads" / "results.parquet"))
    used = {"release", "submitter", "system_name", "result_value", "result_unit"}
    assert used | {"benchmark", "scenario"} <= columns
