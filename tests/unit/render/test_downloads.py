"""CSV downloads are safe to open in a spreadsheet; Parquet keeps the exact values."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from pipeline.render.downloads import write_downloads
from pipeline.render.pages import render_site
from pipeline.render.site_data import SiteData

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

HOSTILE = pl.DataFrame(
    {
        "submitter": [
            '=HYPERLINK("http://evil.example","x")',
            "+1+cmd|' /C calc'!A0",
            "-2+3",
            "@SUM(A1:A9)",
            "\tTabbed",
            "\rReturn",
            "NVIDIA",
            None,
        ],
        "result_value": [-1.5, 2.0, -3e20, 4.0, 5.0, 6.0, 7.0, None],
        "nodes": [-1, 1, 2, 3, 4, 5, 6, 7],
        "flags": [["-x", "=y"], [], None, ["ok"], [], [], [], []],
    },
    schema={
        "submitter": pl.String,
        "result_value": pl.Float64,
        "nodes": pl.Int32,
        "flags": pl.List(pl.String),
    },
)


def test_formula_cells_are_quoted_and_numbers_stay_numbers(tmp_path: Path) -> None:
    (download,) = write_downloads({"results": (HOSTILE, "test")}, tmp_path)
    with download.csv.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["submitter", "result_value", "nodes", "flags"]
    assert [row[0] for row in rows[1:]] == [
        '\'=HYPERLINK("http://evil.example","x")',
        "'+1+cmd|' /C calc'!A0",
        "'-2+3",
        "'@SUM(A1:A9)",
        "'\tTabbed",
        "'\rReturn",
        "NVIDIA",
        "",
    ]
    # A list joined into text is text too: its leading "-" is neutralised.
    assert rows[1][3] == "'-x; =y"
    # Numeric columns are not touched: negative numbers stay numbers.
    assert [row[1] for row in rows[1:4]] == ["-1.5", "2.0", "-3e+20"]
    assert rows[1][2] == "-1"
    back = pl.read_csv(download.csv)
    assert back.schema["result_value"] == pl.Float64
    assert back.schema["nodes"] == pl.Int64
    assert back["result_value"][0] == -1.5


def test_parquet_keeps_the_exact_values(tmp_path: Path) -> None:
    (download,) = write_downloads({"results": (HOSTILE, "test")}, tmp_path)
    assert_frame_equal(pl.read_parquet(download.parquet), HOSTILE)


def test_data_page_says_how_csv_text_is_guarded(
    tmp_path: Path, site_data: SiteData
) -> None:
    out = tmp_path / "generated"
    render_site(site_data, out, bundle=False)
    assert (
        "In the CSV files, a text cell that starts with `=`, `+`, `-`, `@`, a tab or "
        "a carriage return gets a leading `'`"
    ) in (out / "data.md").read_text()


def test_header_cells_are_formula_guarded_and_never_collide() -> None:
    from pipeline.render.downloads import flat_for_csv

    frame = pl.DataFrame(
        {"=HYPERLINK(\"x\") · Offline": [1.0], "'=HYPERLINK(\"x\") · Offline": [2.0],
         "plain": ["@SUM(A1)"]}
    )  # fmt: skip
    assert flat_for_csv(frame).write_csv().splitlines() == [
        '"\'=HYPERLINK(""x"") · Offline","\'=HYPERLINK(""x"") · Offline (2)",plain',
        "1.0,2.0,'@SUM(A1)",
    ]


def test_csv_keys_equal_parquet_keys(tmp_path: Path) -> None:
    # system_key joins its parts with 0x1f, which the CSV made U+FFFD: the two
    # downloads' keys differed (issue 56 F). Both now show the separator as ␟.
    from pipeline.transform.systems import identity_key

    systems = pl.DataFrame(
        {
            "submitter": ["AMD", "=Evil"],
            "platform": ["8xMI350X_2xEPYC_9575F", None],
            "system_name": ["x", "Box"],
            "accelerator_id": ["amd-mi350x", None],
            "accelerator_name": ["MI350X", None],
            "total_accelerators": [8, None],
            "nodes": [1, 2],
        }
    ).with_columns(system_key=identity_key())
    (download,) = write_downloads({"systems": (systems, "test")}, tmp_path)
    parquet = pl.read_parquet(download.parquet)["system_key"].to_list()
    with download.csv.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["system_key"] for row in rows] == [
        "AMD␟8xMI350X_2xEPYC_9575F␟amd-mi350x␟8␟1",
        "'=Evil␟Box␟CPU only␟?␟2",  # a formula-leading key is guarded in CSV only
    ]
    assert parquet == [
        "AMD␟8xMI350X_2xEPYC_9575F␟amd-mi350x␟8␟1",
        "=Evil␟Box␟CPU only␟?␟2",
    ]
    assert [row["system_key"].removeprefix("'") for row in rows] == parquet
