"""datapackage.json: every download described, valid for Frictionless, reproducible."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import frictionless
import polars as pl

from pipeline.render.datapackage import write_datapackage
from pipeline.render.downloads import write_downloads
from pipeline.transform.results import RESULTS_SCHEMA
from tests.unit.render.conftest import AMD_V51, AMD_V60, H100_V51, frame, result

REPOS = ["mlcommons/inference_results_v6.0", "mlcommons/inference_results_v5.1"]

#: One column of each dtype family the tables use, with values a CSV reader trips on.
MIXED = pl.DataFrame(
    {
        "release": ["v5.1", "v6.0", "v6.0"],
        "path": ["summary_results.json", "summary_results.json", "tree.json"],
        "submitter": ['=HYPERLINK("http://evil.example")', "-2+3", None],
        "ratio": [float("inf"), float("nan"), 1e-30],
        "nodes": [1, -2, None],
        "rows": [1448, 520, 0],
        "is_preview": [True, False, None],
        "published": [dt.date(2025, 9, 9), dt.date(2026, 3, 26), None],
        "fetched_at": [dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)] * 3,
        "flags": [["-x", "=y"], [], None],
        "ends": [{"old": "v5.1", "new": "v6.0"}, {"old": None, "new": "v6.0"}, None],
    },
    schema={
        "release": pl.String,
        "path": pl.String,
        "submitter": pl.String,
        "ratio": pl.Float64,
        "nodes": pl.Int32,
        "rows": pl.UInt32,
        "is_preview": pl.Boolean,
        "published": pl.Date,
        "fetched_at": pl.Datetime("us", "UTC"),
        "flags": pl.List(pl.String),
        "ends": pl.Struct({"old": pl.String, "new": pl.String}),
    },
)


def _package(out: Path, tables: dict[str, tuple[pl.DataFrame, str]]) -> Path:
    return write_datapackage(write_downloads(tables, out), REPOS, out)


def _fields(descriptor: dict, resource: str) -> list[tuple[str, str]]:
    (res,) = [r for r in descriptor["resources"] if r["name"] == resource]
    return [(f["name"], f["type"]) for f in res["schema"]["fields"]]


def test_descriptor_validates_with_frictionless_including_csv_rows(
    tmp_path: Path,
) -> None:
    path = _package(
        tmp_path,
        {
            "results": (frame(AMD_V51, AMD_V60, H100_V51), "Canonical table."),
            "snapshots": (MIXED, "Snapshots."),
        },
    )
    report = frictionless.validate(str(path))
    assert report.flatten(["type", "note"]) == []
    assert report.valid
    # Every resource was checked; the CSV ones row by row against their schema.
    checked = {task.name: task.stats.get("rows") for task in report.tasks}
    assert checked == {
        "results": 3,
        "results-parquet": None,
        "snapshots": 3,
        "snapshots-parquet": None,
    }
    descriptor = json.loads(path.read_text())
    assert descriptor["licenses"][0]["name"] == "Apache-2.0"
    assert descriptor["sources"] == [
        {
            "path": "https://github.com/mlcommons/inference_results_v5.1",
            "title": "mlcommons/inference_results_v5.1",
        },
        {
            "path": "https://github.com/mlcommons/inference_results_v6.0",
            "title": "mlcommons/inference_results_v6.0",
        },
    ]
    (results,) = [r for r in descriptor["resources"] if r["name"] == "results"]
    assert results["schema"]["primaryKey"] == ["release", "result_key"]
    assert len(results["schema"]["fields"]) == len(RESULTS_SCHEMA)
    assert (results["path"], results["format"], results["mediatype"]) == (
        "results.csv",
        "csv",
        "text/csv",
    )
    assert results["bytes"] == (tmp_path / "results.csv").stat().st_size
    assert results["hash"].startswith("sha256:") and len(results["hash"]) == 71


def test_types_follow_the_polars_dtypes_per_format(tmp_path: Path) -> None:
    path = _package(tmp_path, {"snapshots": (MIXED, "Snapshots.")})
    descriptor = json.loads(path.read_text())
    common = [
        ("release", "string"),
        ("path", "string"),
        ("submitter", "string"),
        ("ratio", "number"),
        ("nodes", "integer"),
        ("rows", "integer"),
        ("is_preview", "boolean"),
        ("published", "date"),
        ("fetched_at", "datetime"),
    ]
    # CSV joins lists into text; Parquet keeps the list.
    assert _fields(descriptor, "snapshots") == [
        *common,
        ("flags", "string"),
        ("ends", "object"),
    ]
    assert _fields(descriptor, "snapshots-parquet") == [
        *common,
        ("flags", "array"),
        ("ends", "object"),
    ]
    (parquet,) = [r for r in descriptor["resources"] if r["name"].endswith("parquet")]
    assert parquet["mediatype"] == "application/vnd.apache.parquet"
    assert parquet["schema"]["primaryKey"] == ["release", "path"]


def test_a_tampered_download_fails_validation(tmp_path: Path) -> None:
    path = _package(tmp_path, {"results": (frame(AMD_V51), "Canonical table.")})
    parquet = tmp_path / "results.parquet"
    parquet.write_bytes(parquet.read_bytes() + b"\0")
    report = frictionless.validate(str(path))
    assert not report.valid
    assert sorted(e[0] for e in report.flatten(["type"])) == [
        "byte-count",
        "hash-count",
    ]


def test_csv_cells_are_checked_against_the_declared_types(tmp_path: Path) -> None:
    path = _package(tmp_path, {"results": (frame(AMD_V51), "Canonical table.")})
    csv = tmp_path / "results.csv"
    csv.write_text(csv.read_text().replace(",27803.9,", ",lots,"))
    descriptor = json.loads(path.read_text())
    for res in descriptor["resources"]:  # size and hash made to match the edit
        if res["name"] == "results":
            res["bytes"] = csv.stat().st_size
            res["hash"] = "sha256:" + hashlib.sha256(csv.read_bytes()).hexdigest()
    path.write_text(json.dumps(descriptor))
    report = frictionless.validate(str(path))
    assert report.flatten(["type", "fieldName", "cell"]) == [
        ["type-error", "result_value", "lots"]
    ]


def test_a_key_the_rows_break_is_not_declared_and_the_reason_is_given(
    tmp_path: Path,
) -> None:
    twice = frame(AMD_V51, result(result_value=1.0), result(result_key=None))
    path = _package(tmp_path, {"results": (twice, "Canonical table.")})
    descriptor = json.loads(path.read_text())
    (res,) = [r for r in descriptor["resources"] if r["name"] == "results"]
    assert "primaryKey" not in res["schema"]
    assert res["description"].startswith(
        "Canonical table. No primary key: (release, result_key) does not hold "
        "(1 rows lack part of the key; 2 rows share their key with another row)."
    )
    assert frictionless.validate(str(path)).valid


def test_identical_input_gives_identical_bytes(tmp_path: Path) -> None:
    tables = {"results": (frame(AMD_V51, AMD_V60), "Canonical table.")}
    first = _package(tmp_path / "a", tables).read_bytes()
    second = _package(tmp_path / "b", tables).read_bytes()
    assert first == second
    text = first.decode()
    assert json.dumps(json.loads(text), indent=1, sort_keys=True) + "\n" == text
    assert "created" not in json.loads(text)
