"""Submitters' own summary tables: both layouts read, every row compared with the logs."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.extract.submitter_csv import parse_submitter_csv, submitter_rows
from pipeline.registry.submitter_summaries import Explanation
from pipeline.transform.results import RESULTS_SCHEMA
from pipeline.transform.submitter_check import submitter_check

LOADGEN = (
    b"system_id,benchmark,scenario,perf_metric,perf_value\n"
    b"box,resnet50,Offline,Samples per second,100.05\n"
    b"box,resnet50,SingleStream,90th percentile latency (ns),2000000\n"
    b"box,bert-99,Offline,Samples per second,7\n"
)
CHECKER = (
    "\ufeffOrganization,Availability,Division,SystemType,Platform,Model,MlperfModel,"
    "Scenario,Result,Accuracy,Location\n"
    "Acme,available,closed,edge,box,resnet50,resnet,SingleStream,1.0,76,x\n"
    "Acme,available,closed,edge,box,resnet50,resnet,Offline,fast,76,x\n"
).encode()
LOG = b"99.00 percentile latency (ns) : 2000000\n"


def results() -> pl.DataFrame:
    base = dict.fromkeys(RESULTS_SCHEMA) | {
        "division": "closed",
        "submitter": "Acme",
        "platform": "box",
        "model_upstream": "resnet50",
    }
    return pl.DataFrame(
        [
            base | {"scenario": "Offline", "result_value": 100.0,
                    "result_value_upstream": 100.0, "source_file": "off.txt"},
            base | {"scenario": "SingleStream", "result_value": 1.0,
                    "result_value_upstream": 1_000_000.0, "source_file": "ss.txt"},
        ],
        schema=RESULTS_SCHEMA,
    )  # fmt: skip


def check(explanations=()) -> pl.DataFrame:
    files = {"closed/Acme/results_summary.csv": LOADGEN, "ss.txt": LOG}
    rows = submitter_rows(
        ["closed/Acme/results_summary.csv", "closed/Acme/systems/box.json"],
        files.__getitem__,
    )
    return submitter_check(
        rows,
        results(),
        release="v1.0",
        read=files.__getitem__,
        explanations=explanations,
    )


def test_every_row_is_agree_disagree_or_no_log_result() -> None:
    table = check()
    assert table.select(
        "scenario", "model", "status", "csv_value", "log_value"
    ).rows() == [
        ("Offline", "resnet50", "agree", 100.05, 100.0),  # within 0.1%
        ("SingleStream", "resnet50", "disagree", 2_000_000.0, 1_000_000.0),
        ("Offline", "bert-99", "no log result", 7.0, None),
    ]


def test_a_rule_explains_a_row_only_when_the_log_holds_the_csvs_value() -> None:
    rule = Explanation(
        "v1.0", "closed/Acme/results_summary.csv", "e",
        line="99.00 percentile latency (ns)",
    )  # fmt: skip
    assert check((rule,))["status"].to_list() == ["agree", "explained", "no log result"]
    wrong = Explanation(
        "v1.0", "closed/Acme/results_summary.csv", "e",
        line="99.90 percentile latency (ns)",
    )  # fmt: skip
    assert check((wrong,))["status"][1] == "disagree"


def test_the_checker_layout_compares_in_milliseconds_and_names_bad_values() -> None:
    rows = parse_submitter_csv("closed/Acme/summary.csv", CHECKER)
    table = submitter_check(
        rows, results(), release="v1.0", read=lambda p: b"", explanations=()
    )
    assert table.select("status", "note").rows() == [
        ("agree", None),
        ("unreadable", "value is not a number: 'fast'"),
    ]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"a,b\n1,2\n", "closed/Acme/summary.csv: not a known submitter summary "
         "layout (columns: a, b)"),
        (b"\xff\xfe", "closed/Acme/summary.csv: not UTF-8 text (invalid start byte)"),
    ],
)  # fmt: skip
def test_an_unreadable_csv_is_one_row_saying_why(content: bytes, problem: str) -> None:
    rows = parse_submitter_csv("closed/Acme/summary.csv", content)
    assert rows.select("csv_file", "problem").rows() == [
        ("closed/Acme/summary.csv", problem)
    ]


def test_a_not_published_rule_holds_only_where_the_folder_is_absent() -> None:
    rule = Explanation(
        "v1.0", "closed/Acme/results_summary.csv", "e", not_published=True
    )
    files = {"closed/Acme/results_summary.csv": LOADGEN}
    rows = submitter_rows(list(files), files.__getitem__)

    def statuses(paths: list[str]) -> list[str]:
        return submitter_check(
            rows, results(), release="v1.0", read=files.__getitem__,
            explanations=(rule,), paths=paths,
        )["status"].to_list()  # fmt: skip

    listed = ["closed/Acme/results/box/resnet50/Offline/performance/run_1/x.txt"]
    # bert-99 Offline has no folder: the table lists a result never published.
    assert statuses(listed)[2] == "explained"
    # With its folder listed (say its log was rejected), the rule does not apply.
    bert = "closed/Acme/results/box/bert-99/offline/performance/run_1/x.txt"
    assert statuses([*listed, bert])[2] == "no log result"
    assert statuses([])[2] == "no log result"  # no listing: nothing is assumed


def test_a_stale_rule_holds_only_when_the_log_has_no_such_value() -> None:
    stale = Explanation("v1.0", "closed/Acme/results_summary.csv", "e", stale=True)
    # The log holds 2000000 (as its 99th percentile): not a stale table, a label.
    assert check((stale,))["status"][1] == "disagree"
    files = {
        "closed/Acme/results_summary.csv": LOADGEN,
        "ss.txt": b"90th percentile latency (ns) : 1000000\n",
    }
    rows = submitter_rows(list(files)[:1], files.__getitem__)
    table = submitter_check(
        rows, results(), release="v1.0", read=files.__getitem__, explanations=(stale,)
    )
    assert table["status"][1] == "explained"
    assert table["note"][1].startswith(
        "submitter_summaries.toml: the submitter's table was written from another run"
    )
