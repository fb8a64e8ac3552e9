"""cross_check on tiny canonical frames: every status, tolerance edge, units."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.transform.crosscheck import (
    REPORT_SCHEMA,
    cross_check,
    cross_check_summary,
)
from pipeline.transform.results import RESULTS_SCHEMA


def rows(*records: dict) -> pl.LazyFrame:
    base = {
        "release": "v9.9",
        "division": "closed",
        "submitter": "Acme",
        "platform": "box",
        "benchmark": "resnet",
        "scenario": "Offline",
        "result_unit": "Samples/s",
        "is_inferred": False,
        "total_accelerators": 8,
    }
    full = [
        {**base, **r, "location": f"closed/Acme/results/box/{r['model_upstream']}"}
        for r in records
    ]
    return (
        pl.DataFrame(full, schema_overrides=RESULTS_SCHEMA)
        .lazy()
        .select(
            [
                pl.col(c) if c in full[0] else pl.lit(None, dtype=t).alias(c)
                for c, t in RESULTS_SCHEMA.items()
            ]
        )
    )


@pytest.fixture
def report() -> pl.DataFrame:
    summary = rows(
        {"model_upstream": "resnet50", "result_value": 1000.0},
        {"model_upstream": "retinanet", "result_value": 100.0},
        {"model_upstream": "bert-99", "result_value": 50.0},
        {
            "model_upstream": "whisper",
            "result_value": 31969.2,
            "result_unit": "Samples/s",
        },
    )
    raw = rows(
        {"model_upstream": "resnet50", "result_value": 1001.0},  # exactly 0.1 % off
        {"model_upstream": "retinanet", "result_value": 100.2},  # 0.2 % off
        {"model_upstream": "3d-unet-99", "result_value": 5.0},
        {
            "model_upstream": "whisper",
            "result_value": 31969.2,
            "result_unit": "Tokens/s",
        },
    )
    return cross_check(summary, raw)


def test_report_has_its_schema_and_one_row_per_result(report: pl.DataFrame) -> None:
    assert report.schema == pl.Schema(REPORT_SCHEMA)
    assert dict(report.select("model_upstream", "status").iter_rows()) == {
        "3d-unet-99": "raw_only",
        "bert-99": "summary_only",
        "resnet50": "agree",
        "retinanet": "disagree",
        "whisper": "agree",
    }


def test_disagreement_carries_both_values_and_links(report: pl.DataFrame) -> None:
    row = report.filter(pl.col("status") == "disagree").row(0, named=True)
    assert (row["summary_value"], row["raw_value"]) == (100.0, 100.2)
    assert row["relative_difference"] == pytest.approx(0.002)
    assert (
        row["summary_location"]
        == row["raw_location"]
        == ("closed/Acme/results/box/retinanet")
    )


def test_unit_mismatch_is_flagged_apart_from_the_value(report: pl.DataFrame) -> None:
    row = report.filter(pl.col("model_upstream") == "whisper").row(0, named=True)
    assert (row["status"], row["has_unit_mismatch"]) == ("agree", True)
    assert (row["summary_unit"], row["raw_unit"]) == ("Samples/s", "Tokens/s")


def test_tolerance_is_inclusive_and_configurable() -> None:
    summary = rows({"model_upstream": "resnet50", "result_value": 100.0})
    raw = rows({"model_upstream": "resnet50", "result_value": 100.25})  # 0.25 % off
    assert cross_check(summary, raw, tolerance=0.0025)["status"].to_list() == ["agree"]
    assert cross_check(summary, raw, tolerance=0.0024)["status"].to_list() == [
        "disagree"
    ]


def test_summary_counts(report: pl.DataFrame) -> None:
    assert cross_check_summary(report) == {
        "matched": 3,
        "agree": 2,
        "disagree": 1,
        "summary_only": 1,
        "raw_only": 1,
        "not_in_source": 0,
        "unit_mismatch": 1,
        "agreement_rate": 2 / 3,
    }


def test_a_result_with_no_folder_in_a_scanned_round_is_not_in_source() -> None:
    summary = rows(
        {"model_upstream": "resnet50", "result_value": 1000.0},
        {"model_upstream": "bert-99", "result_value": 50.0},
        {"model_upstream": "gptj", "result_value": 5.0},
    )
    raw = rows({"model_upstream": "resnet50", "result_value": 1000.0})
    # The scan read resnet50's folder (a result) and gptj's (rejected), not bert-99's.
    scanned = pl.LazyFrame(
        {
            "result_key": [
                "v9.9:closed/Acme/box/resnet50/Offline",
                "v9.9:closed/Acme/box/gptj/Offline",
            ]
        }
    )
    report = cross_check(summary, raw, scanned=scanned)
    assert dict(report.select("model_upstream", "status").iter_rows()) == {
        "bert-99": "not_in_source",
        "gptj": "summary_only",
        "resnet50": "agree",
    }
    assert cross_check_summary(report)["not_in_source"] == 1
    # A round the scan did not read keeps its one-sided results as summary_only.
    other = pl.LazyFrame({"result_key": ["v1.0:closed/Acme/box/resnet50/Offline"]})
    assert set(cross_check(summary, raw, scanned=other)["status"]) == {
        "agree",
        "summary_only",
    }


def test_summary_of_an_empty_report() -> None:
    empty = pl.DataFrame(schema=REPORT_SCHEMA)
    assert cross_check_summary(empty)["agreement_rate"] is None
