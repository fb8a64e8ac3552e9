"""The Explorer's data file and page shell (the browser test drives the page)."""

from __future__ import annotations

import gzip
import hashlib
import json

import polars as pl
import pytest

from pipeline.render import explorer, explorer_data
from pipeline.render.downloads import FORMULA_GUARD, FORMULA_START
from pipeline.render.vendor import TABULATOR, VendorError, check_integrity
from tests.conftest import ROOT
from tests.unit.render.conftest import AMD_V51_URL, EVIL, frame, result

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow


def _decoded(blob: bytes) -> dict:
    return json.loads(gzip.decompress(blob).decode("utf-8"))


def _three() -> pl.DataFrame:
    return frame(
        result(),
        result(
            release="v10.0",
            result_key="10.0-0007:llama2-70b-99:Server",
            scenario="Server",
            result_url="https://github.com/mlcommons/inference_results_v10.0/tree/main/x",
        ),
        result(
            release="v4.1",
            result_key="4.1-0002:llama2-70b-99:Offline",
            result_value=11_000.5,
            power_value=5_400.0,
            power_unit="Watts",
            category="datacenter,edge",
        ),
    )


def test_one_row_per_canonical_result_newest_round_first() -> None:
    data = _decoded(explorer_data.explorer_data(_three()))
    assert data["format"] == "mlperf-ledger explorer v1"
    assert data["rows"] == 3
    assert data["columns"] == list(explorer_data.COLUMNS)
    # Version order, not text order: v10.0 before v5.1 before v4.1.
    assert [r["release"] for r in data["data"]] == ["v10.0", "v5.1", "v4.1"]
    assert [list(r) for r in data["data"]] == [list(explorer_data.COLUMNS)] * 3
    amd = data["data"][1]
    assert amd["result_key"] == "5.1-0001:llama2-70b-99:Offline"
    assert amd["result_value"] == 27803.9
    assert amd["total_accelerators"] == 8
    assert amd["accelerator"] == "AMD Instinct MI300X 192GB HBM3"
    assert amd["result_url"] == AMD_V51_URL
    assert amd["power_value"] is None
    # The official ID and the line to cite the result by, in the data and the CSV.
    assert amd["result_id"] == "5.1-0001"
    assert amd["citation"] == (
        "MLPerf Inference v5.1, Closed division, Available, result 5.1-0001, "
        f"published 2025-09-09; source: {AMD_V51_URL}. Published by MLCommons. "
        "Derived figures on this site are not MLPerf results."
    )
    oldest = data["data"][2]
    assert (oldest["power_value"], oldest["power_unit"]) == (5400.0, "Watts")
    assert oldest["category"] == "datacenter,edge"


def test_bytes_are_deterministic_whatever_the_input_order() -> None:
    rows = _three()
    first = explorer_data.explorer_data(rows)
    assert explorer_data.explorer_data(rows.reverse()) == first
    assert (
        explorer_data.explorer_data(rows.sample(fraction=1.0, shuffle=True, seed=3))
        == first
    )
    assert first[4:8] == b"\x00\x00\x00\x00"  # gzip header without a timestamp


def test_hostile_text_ships_verbatim_and_unsafe_urls_never_ship() -> None:
    rows = frame(
        result(
            system_name=EVIL,
            submitter='=HYPERLINK("https://evil.example")',
            result_url="javascript:alert(1)",
        ),
        result(result_key="k2", result_url="data:text/html,<script>alert(1)</script>"),
    )
    data = _decoded(explorer_data.explorer_data(rows))
    evil = next(r for r in data["data"] if r["system_name"] == EVIL)
    # Text, not HTML: the script sets it with textContent, so an entity would show.
    assert (
        evil["system_name"] == "<script>alert(1)</script> [click](javascript:alert(1))"
    )
    assert evil["submitter"] == '=HYPERLINK("https://evil.example")'
    assert [r["result_url"] for r in data["data"]] == [None, None]
    # The CSV download neutralises formulas with the very rule of the site's CSVs.
    assert (data["formula_start"], data["formula_guard"]) == (FORMULA_START, "'")
    assert FORMULA_GUARD == "'"


def test_a_frame_without_optional_columns_still_ships() -> None:
    rows = _three().drop("category", "platform", "power_value", "power_unit")
    data = _decoded(explorer_data.explorer_data(rows))
    assert data["rows"] == 3
    assert {r["category"] for r in data["data"]} == {None}
    assert {r["power_value"] for r in data["data"]} == {None}


def test_page_is_a_small_shell_with_no_upstream_text() -> None:
    rows = frame(result(system_name=EVIL, submitter="Evil_Corp <img src=x>"))
    page = explorer.explorer_page(rows.height)
    assert "alert" not in page and "Evil_Corp" not in page
    assert len(page.encode()) < 10_000
    assert '<div id="ledger-explorer" class="ledger-explorer" ' in page
    assert 'data-source="explorer/results.json.gz"' in page
    assert 'data-library="../assets/vendor/tabulator-tables/tabulator.min.js"' in page
    assert (
        'data-styles="../assets/vendor/tabulator-tables/tabulator.min.css '
        '../assets/css/explorer.css"' in page
    )
    # No script element: explorer.js comes from mkdocs.yml's extra_javascript.
    assert "<script" not in page
    assert "**1** rows" in page
    for name, label in explorer.FILTERS:
        assert f'{label}<select name="{name}" data-filter="{name}">' in page
    # Every file the page names exists in the site's source.
    for rel in (explorer.SCRIPT, explorer.LIBRARY, *explorer.STYLES):
        assert (ROOT / "site" / rel).is_file(), rel


def test_the_explorer_drafts_its_page_and_data_file() -> None:
    rendered = explorer.render(_three(), None)
    files = {f.rel: f.content for f in rendered.files}
    assert list(files) == ["explorer/results.json.gz", "explorer.md"]
    assert _decoded(files["explorer/results.json.gz"])["rows"] == 3
    assert "**3** rows" in files["explorer.md"]


def test_vendored_library_is_the_pinned_release() -> None:
    for name, digest in TABULATOR.file_sha256.items():
        data = (TABULATOR.folder / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name
    script = (TABULATOR.folder / "tabulator.min.js").read_bytes()
    assert script.startswith(b"/* Tabulator v6.5.3 (c) Oliver Folkerd")
    assert b"MIT License" in (TABULATOR.folder / "LICENSE").read_bytes()


def test_a_tampered_tarball_is_refused() -> None:
    with pytest.raises(
        VendorError, match="tarball integrity mismatch: expected sha512-"
    ):
        check_integrity(b"not the tarball", TABULATOR.integrity)


def test_render_site_writes_the_explorer(tmp_path, site_data) -> None:  # noqa: ANN001
    from pipeline.render.pages import render_site

    out = tmp_path / "generated"
    written = render_site(site_data, out, bundle=False)
    assert out / "explorer.md" in written
    assert out / "explorer" / "results.json.gz" in written
    data = _decoded((out / "explorer" / "results.json.gz").read_bytes())
    assert data["rows"] == site_data.results.height
    assert {r["result_key"] for r in data["data"]} == set(
        site_data.results["result_key"]
    )


def test_each_row_ships_its_derived_cost_energy_and_latency_class() -> None:
    rows = {
        r["result_key"]: r
        for r in _decoded(explorer_data.explorer_data(_three()))["data"]
    }
    amd = rows["5.1-0001:llama2-70b-99:Offline"]
    # 27,803.9 tokens/s on 8 accelerators: 10^6 / (3600 × 3,475.4875).
    assert amd["accelerator_hours_per_million_units"] == pytest.approx(
        1e6 / (3600 * 27803.9 / 8)
    )
    assert amd["cost_reason"] is None
    assert (amd["joules_per_unit"], amd["latency_class"]) == (None, "no limit")
    old = rows["4.1-0002:llama2-70b-99:Offline"]
    # 5,400 W at 11,000.5 tokens/s, measured.
    assert old["joules_per_unit"] == pytest.approx(5400 / 11000.5)
    assert old["kwh_per_million_units"] == pytest.approx(5400 / 11000.5 / 3.6)
    # v10.0 is no round the limits registry knows.
    server = rows["10.0-0007:llama2-70b-99:Server"]
    assert server["latency_class"] == "limit not in the registry"
    assert server["tpot_limit_ms"] is None


def _described(rows: pl.DataFrame) -> pl.DataFrame:
    """A systems table for ``_three``: v5.1 declares all three fields, v10.0 only an
    unreviewed cooling spelling, v4.1 nothing (as the mirror's v4.1 and v6.1)."""
    from pipeline.transform.systems import DECLARED_SCHEMA, systems_table

    declared = []
    for release, field, value in (
        ("v5.1", "accelerator_interconnect", "XGMI"),
        ("v5.1", "cooling", "Air-cooled"),
        ("v5.1", "accelerator_memory_capacity", "192 GB"),
        ("v10.0", "cooling", "Tubes"),
    ):
        one = rows.filter(pl.col("release") == release).row(0, named=True)
        declared.append(
            {
                "release": release, "division": one["division"],
                "submitter": one["submitter"], "platform": one["platform"],
                "source_kind": "system_json", "source_file": "s.json",
                "field_order": len(declared), "field_upstream": field,
                "field": field, "is_known": True, "value": value,
                "value_kind": "text",
            }
        )  # fmt: skip
    return systems_table(pl.DataFrame(declared, schema=DECLARED_SCHEMA), rows)


def test_descriptions_ship_normalised_beside_declared_and_say_what_is_missing() -> None:
    rows = _three()
    data = _decoded(explorer_data.explorer_data(rows, _described(rows)))
    by_round = {r["release"]: r for r in data["data"]}
    amd = by_round["v5.1"]
    assert (amd["accelerator_interconnect"], amd["interconnect_family"]) == (
        "XGMI",
        "Infinity Fabric",
    )
    assert (amd["cooling"], amd["cooling_kind"]) == ("Air-cooled", "air")
    assert (amd["accelerator_memory"], amd["accelerator_memory_gb"]) == ("192 GB", 192)
    assert amd["accelerator_memory_size"] == "192 GB"
    # An unreviewed spelling: declared text kept, no normalised value.
    assert (by_round["v10.0"]["cooling"], by_round["v10.0"]["cooling_kind"]) == (
        "Tubes",
        None,
    )
    # Rounds whose source declares no such field, in version order; a normalised
    # column (and the memory filter) follows its declared one.
    undescribed = data["undescribed"]
    assert undescribed["accelerator_interconnect"] == ["v4.1", "v10.0"]
    assert undescribed["interconnect_family"] == ["v4.1", "v10.0"]
    assert undescribed["cooling"] == ["v4.1"]
    assert undescribed["cooling_kind"] == ["v4.1"]
    assert undescribed["accelerator_memory_size"] == ["v4.1", "v10.0"]
    # One schema, described or not.
    plain = _decoded(explorer_data.explorer_data(rows))
    assert plain["columns"] == data["columns"]
    assert [list(r) for r in plain["data"]] == [list(r) for r in data["data"]]
    assert plain["undescribed"]["cooling_kind"] == ["v4.1", "v5.1", "v10.0"]
    # Placeholders declare nothing: the script says "not declared" for them.
    assert {"", "n/a", "-"} <= set(data["no_value"])


def test_each_row_names_the_key_its_price_goes_by_as_on_the_model_pages() -> None:
    rows = frame(
        result(),
        result(
            result_key="5.1-0009:llama2-70b-99:Offline",
            accelerator_name="NVIDIA GB300",
        ),
        result(
            result_key="5.1-0010:resnet:Offline",
            benchmark="resnet",
            total_accelerators=0,
            accelerator_name=None,
            result_per_accelerator=None,
        ),
    )
    data = _decoded(explorer_data.explorer_data(rows))
    keys = {r["result_key"]: r["price_key"] for r in data["data"]}
    assert keys == {
        "5.1-0001:llama2-70b-99:Offline": "amd-instinct-mi300x-192gb-hbm3",
        "5.1-0009:llama2-70b-99:Offline": "nvidia-gb300",
        # CPU only: keyed like any label, and never priced (no accelerator-hours).
        "5.1-0010:resnet:Offline": "cpu-only-amd-epyc-9575f-64-core-processor",
    }
    assert data["columns"][-1] == "price_key"


def test_the_first_screen_shows_accelerator_hours_without_javascript() -> None:
    rows = explorer_data.explorer_rows(_three())
    first = explorer_data.first_screen(rows)
    # 10^6 / (3600 × 27,803.9 / 8), the AMD row.
    assert 'data-label="Accelerator-hours per million units">0.0799248</td>' in first
    # The price form is in the page, hidden until the script fills it.
    page = explorer.explorer_page(3, first=first)
    assert '<form class="ledger-explorer__prices" aria-label="Your prices" ' in page
    assert 'autocomplete="off" hidden>' in page
    assert 'data-price="kwh"' in page and 'data-price="hour"' in page
    assert "Derived, not an MLPerf result." in page
    assert "stay out of the CSV" in page
