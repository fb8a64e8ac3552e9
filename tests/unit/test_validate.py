import polars as pl

from pipeline.transform.results import RESULTS_SCHEMA, empty_results
from pipeline.validate import (
    check_not_all_rejected,
    check_results,
    check_row_count,
    loss_outcome,
    summarise_rejections,
    top_reasons,
)


def frame(**columns) -> pl.DataFrame:
    base = empty_results().to_dict(as_series=False)
    n = len(next(iter(columns.values())))
    data = {c: columns.get(c, [None] * n) for c in base}
    return pl.DataFrame(data, schema=RESULTS_SCHEMA)


def good(n: int = 2) -> pl.DataFrame:
    return frame(
        release=["v6.1"] * n,
        result_key=[f"k{i}" for i in range(n)],
        submitter=["A"] * n,
        division=["closed"] * n,
        benchmark=["resnet"] * n,
        scenario=["Offline"] * n,
        result_value=[1.0] * n,
        result_unit=["Samples/s"] * n,
        source_file=["summary.json"] * n,
        source_record=[str(i) for i in range(n)],
    )


def test_clean_table_passes_every_rule() -> None:
    assert all(o.passed for o in check_results(good(), "v6.1", previous_rows=2))


def test_duplicate_keys_fail_naming_file_record_and_key() -> None:
    table = good().with_columns(result_key=pl.lit("same"))
    outcome = {o.name: o for o in check_results(table, "v6.1", None)}[
        "unique_result_keys"
    ]
    assert not outcome.passed
    assert outcome.description == (
        "v6.1: 2 row(s) have a duplicated result key; first: "
        "summary.json record 0 (same): a duplicated result key"
    )


def test_row_count_falling_sharply_blocks() -> None:
    outcome = check_row_count(70, 100, "v6.1")
    assert not outcome.passed
    assert outcome.description == (
        "v6.1: rows fell from 100 to 70 (30%), more than the 20% allowed; "
        "the previous snapshot stays published"
    )
    assert check_row_count(85, 100, "v6.1").passed


def test_schema_drift_is_named() -> None:
    outcome = check_results(good().drop("software"), "v6.1", None)[0]
    assert not outcome.passed and "missing ['software']" in outcome.description


def test_rejections_warn_with_counts_by_reason() -> None:
    rejected = pl.DataFrame(
        {
            "source_file": ["summary.json"] * 3,
            "source_record": ["4", "9", "12"],
            "reason": ["bad unit", "bad unit", "missing field 'Result'"],
        }
    )
    outcome = summarise_rejections(rejected, "v6.1")
    assert not outcome.passed
    assert outcome.metadata["by_reason"] == {"bad unit": 2, "missing field 'Result'": 1}
    assert outcome.description.startswith(
        "v6.1: 3 record(s) rejected; first: summary.json record 4"
    )


def _rejected(reasons: list[str]) -> pl.DataFrame:
    return pl.DataFrame(
        {"reason": reasons, "source_file": ["f"] * len(reasons)},
        schema={"reason": pl.String, "source_file": pl.String},
    )


def test_reasons_are_counted_without_their_particulars() -> None:
    rejected = _rejected(
        [
            "unknown status 'someday' in closed/A/systems/a.json",
            "unknown status 'later' in closed/B/systems/b.json",
            "INVALID result ('Result is : INVALID')",
        ]
    )
    assert top_reasons(rejected) == [
        ("unknown status '…' in …", 2),
        ("INVALID result ('…')", 1),
    ]


def test_a_round_losing_more_than_one_percent_is_warned_with_its_reasons() -> None:
    rejected = _rejected(["INVALID result ('Result is : INVALID')"] * 3)
    quiet = loss_outcome(300, rejected, "v0.7")
    assert quiet.passed
    assert quiet.description == "v0.7: 3 of 303 records rejected (1.0%)"
    loud = loss_outcome(200, rejected, "v0.7")
    assert not loud.passed
    assert loud.description == (
        "v0.7: 3 of 203 records rejected (1.5%), above 1%; top reasons: "
        "INVALID result ('…') (3)"
    )
    assert loud.metadata["top_reasons"] == {"INVALID result ('…')": 3}


def _refused(n: int) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "source_file": ["summary.json"] * n,
            "source_record": [str(i) for i in range(n)],
            "reason": ["Result 1e308 is outside the plausible range"] * n,
        }
    )


def test_a_round_whose_every_record_was_rejected_fails() -> None:
    outcome = check_not_all_rejected(0, _refused(3), "v6.1")
    assert not outcome.passed
    assert outcome.description == (
        "v6.1: every one of the 3 records read was rejected, none kept; top "
        "reasons: Result NeN is outside the plausible range (3)"
    )
    failed = [o.name for o in check_results(good(0), "v6.1", None, _refused(3))]
    assert "not_all_rejected" in failed


def test_one_kept_record_or_nothing_read_passes() -> None:
    assert check_not_all_rejected(1, _refused(3), "v6.1").passed
    assert check_not_all_rejected(0, _refused(0), "v6.1").passed
    assert check_not_all_rejected(0, None, "v6.1").passed
