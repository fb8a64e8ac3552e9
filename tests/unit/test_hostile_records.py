"""Hostile records (issue 13, rows 4 and 5): each is rejected naming its field.

Row 4: a record whose field holds a list, an object, a boolean, a number beyond 64
bits or a non-finite number made Polars raise a bare ``ComputeError`` (or Python a
``ValueError``/``RecursionError``) for the whole file, or slipped through as a silent
default. Row 5: a value far outside any plausible range (``Performance_Result`` =
1e308) passed validation and crashed page rendering. Now that one record is rejected
with a reason naming the field and the value, and the rest of the release proceeds.
"""

from __future__ import annotations

import json

import pytest

from pipeline.extract.raw_tree import scan_raw_tree
from pipeline.extract.run_files import SystemJsonError, parse_system_json
from pipeline.extract.summary import SummaryFormatError, parse_summary, summary_tables
from tests.unit.test_raw_tree import RUN, log, system
from tests.unit.test_results_normalise import CHECKER, FINAL_REPORT, tables

GOOD = FINAL_REPORT | {"ID": "6.0-0002"}
BIG = "1" + "0" * 4999  # 5000 digits: past Python's int parsing limit


def rejected_after_a_good_record(content: bytes) -> list[tuple[str, str]]:
    """Rejected (record, reason) of a file whose record 0 is good; record 0 is kept."""
    results, rejected, _ = summary_tables(
        content,
        release="v6.0",
        repository="mlcommons/inference_results_v6.0",
        source_file="summary_results.json",
        sha256="abc",
    )
    assert results["result_id"].to_list() == ["6.0-0002"]
    return rejected.select("source_record", "reason").rows()


# -- row 4: wrong JSON types and numbers no column holds -----------------------------


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"Nodes": [1, 2]}, 'field "Nodes": expected a number or string, got a list'),
        ({"Nodes": {}}, 'field "Nodes": expected a number or string, got an object'),
        ({"Nodes": True}, 'field "Nodes": expected a number or string, got a boolean'),
        (
            {"Nodes": 2**63},
            'field "Nodes": number 9223372036854775808 is out of the 64-bit range',
        ),
        (
            {"a#": -(2**63) - 1},
            'field "a#": number -9223372036854775809 is out of the 64-bit range',
        ),
        (
            {"Submitter": ["AMD"]},
            'field "Submitter": expected a number or string, got a list',
        ),
        (
            {"Performance_Result": {"value": 1}},
            'field "Performance_Result": expected a number or string, got an object',
        ),
        ({"Nodes": float("nan")}, "Nodes is not finite: NaN"),
        (
            {"Total Accelerators": float("inf")},
            "Total Accelerators is not finite: Infinity",
        ),
        ({"Software": float("-inf")}, "Software is not finite: -Infinity"),
        # Two bad fields: both named, in the layout's field order.
        (
            {"Nodes": [1], "Submitter": False},
            'field "Submitter": expected a number or string, got a boolean; '
            'field "Nodes": expected a number or string, got a list',
        ),
    ],
)
def test_wrongly_typed_field_rejects_only_that_record(
    change: dict, reason: str
) -> None:
    results, rejected, _ = tables([GOOD, FINAL_REPORT | change])
    assert results["result_id"].to_list() == ["6.0-0002"]
    assert rejected.select("source_record", "reason").rows() == [("1", reason)]
    assert json.loads(rejected["record_json"][0])["ID"] == "6.0-0001"


def test_checker_layout_names_the_record_key_and_its_field() -> None:
    document = {
        "0": CHECKER,
        "7": CHECKER | {"Platform": "other", "number_of_nodes": [18]},
    }
    results, rejected, layout = tables(document, release="v6.1", file="summary.json")
    assert layout == "checker"
    assert results["platform"].to_list() == [CHECKER["Platform"]]
    assert rejected.select("source_record", "reason").rows() == [
        ("7", 'field "number_of_nodes": expected a number or string, got a list')
    ]


@pytest.mark.parametrize(
    ("number", "reason"),
    [
        # Past Python's 4300-digit limit: json.loads raised a bare ValueError.
        (BIG, f'field "Nodes": number {BIG[:40]}… (5000 characters) is out of the '
         "64-bit range"),
        # A double overflows to infinity: not a number anyone wrote.
        ("1e400", 'field "Performance_Result": number 1e400 is out of the 64-bit range'),
    ],
)  # fmt: skip
def test_numbers_beyond_64_bits_are_named_as_written(number: str, reason: str) -> None:
    field = "Nodes" if number == BIG else "Performance_Result"
    bad = json.dumps(FINAL_REPORT | {field: "__N__"}).replace('"__N__"', number)
    content = f"[{json.dumps(GOOD)}, {bad}]".encode()
    assert rejected_after_a_good_record(content) == [("1", reason)]


def test_nested_value_in_a_field_not_read_keeps_the_record() -> None:
    """Only fields the layout reads must be scalars; the diff view sees the rest."""
    content = json.dumps([GOOD | {"Notes": ["a", 1]}, FINAL_REPORT | {"Nodes": [2]}])
    assert rejected_after_a_good_record(content.encode()) == [
        ("1", 'field "Nodes": expected a number or string, got a list')
    ]
    # Every field, for diffs between snapshots: nested values as their JSON text.
    raw = parse_summary(content.encode(), release="v6.0", file="s", all_fields=True)
    assert raw.frame["Notes"].to_list() == ['["a", 1]', None]
    assert raw.frame["Nodes"].to_list() == ["11", "[2]"]


def test_json_nested_too_deeply_is_a_format_error_not_a_recursion_error() -> None:
    content = b"[" * 100_000 + b"]" * 100_000
    with pytest.raises(SummaryFormatError) as info:
        parse_summary(content, release="v6.2", file="summary.json")
    assert str(info.value) == (
        "v6.2 summary.json: JSON nested too deeply (arrays or objects more than "
        "about 1000 levels)"
    )


# -- row 4 in the raw tree: system descriptions ---------------------------------------

WHERE = "v5.1 closed/X/systems/s.json"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            system(number_of_nodes=[1, 2]),
            'field "number_of_nodes": expected a number or string, got a list',
        ),
        (
            system(system_name={"name": "x"}),
            'field "system_name": expected a number or string, got an object',
        ),
        (system(accelerators_per_node=float("nan")), "accelerators_per_node is not finite: NaN"),
        (
            system().replace(b'"number_of_nodes": 2', f'"number_of_nodes": {BIG}'.encode()),
            f'field "number_of_nodes": number {BIG[:40]}… (5000 characters) is out '
            "of the 64-bit range",
        ),
        (
            b"[" * 100_000 + b"]" * 100_000,
            "JSON nested too deeply (arrays or objects more than about 1000 levels)",
        ),
    ],
)  # fmt: skip
def test_system_json_field_of_the_wrong_type_is_named(
    content: bytes, message: str
) -> None:
    with pytest.raises(SystemJsonError) as info:
        parse_system_json(content, where=WHERE)
    assert str(info.value) == f"{WHERE}: {message}"


# -- row 5: plausible ranges ------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (
            {"Performance_Result": 1e308},
            "Performance_Result 1e+308 is outside the plausible range [1e-06, 1e+12] "
            "for Tokens/s",
        ),
        (
            {"Performance_Result": 5e-324},
            "Performance_Result 5e-324 is outside the plausible range [1e-06, 1e+12] "
            "for Tokens/s",
        ),
        (
            {"Scenario": "SingleStream", "Performance_Units": "Latency (ns)",
             "Performance_Result": 1e16},
            "Performance_Result 1e+16 is outside the plausible range [1, 1e+15] for "
            "Latency (ns)",
        ),
        ({"Nodes": 2**40}, "Nodes 1099511627776 is outside the plausible range [1, 100000]"),
        ({"Nodes": 0}, "Nodes 0 is outside the plausible range [1, 100000]"),
        ({"Nodes": 1e300}, "Nodes 1e+300 is outside the plausible range [1, 100000]"),
        ({"Nodes": 1.5}, "Nodes is not a count: '1.5'"),
        (
            {"Total Accelerators": 100_001},
            "Total Accelerators 100001 is outside the plausible range [0, 100000]",
        ),
        (
            {"Nodes": 100_000, "a#": 100_000, "Total Accelerators": None},
            "Nodes x a# = 10000000000 accelerators is outside the plausible range "
            "[0, 100000]",
        ),
        (
            {"Power_Result": 1e300, "Power_Units": "Watts"},
            "Power_Result 1e+300 is outside the plausible range [1e-06, 1e+09]",
        ),
        (
            {"Power_Result": "lots", "Power_Units": "Watts"},
            "Power_Result is not a number: 'lots'",
        ),
    ],
)  # fmt: skip
def test_implausible_value_rejects_only_that_record(change: dict, reason: str) -> None:
    results, rejected, _ = tables([GOOD, FINAL_REPORT | change])
    assert results["result_id"].to_list() == ["6.0-0002"]
    assert rejected.select("source_record", "reason").rows() == [("1", reason)]


def test_raw_tree_implausible_values_and_wrong_types_are_rejected_by_folder() -> None:
    offline = log("Offline", "Samples per second: 5\n").encode()
    tree = {
        "closed/Acme/systems/ok.json": system(),
        f"closed/Acme/results/ok/resnet50/Offline/{RUN}": offline,
        "closed/Acme/systems/huge.json": system(number_of_nodes=1_000_000),
        f"closed/Acme/results/huge/resnet50/Offline/{RUN}": offline,
        "closed/Acme/systems/flag.json": system(number_of_nodes=True),
        f"closed/Acme/results/flag/resnet50/Offline/{RUN}": offline,
        "closed/Acme/systems/fast.json": system(),
        f"closed/Acme/results/fast/resnet50/Offline/{RUN}": log(
            "Offline", "Samples per second: 1e308\n"
        ).encode(),
    }
    results, rejected = scan_raw_tree(
        list(tree), tree.__getitem__, release="v5.1", repository="mlcommons/x"
    )
    assert results["platform"].to_list() == ["ok"]
    assert sorted(rejected.select("source_record", "reason").rows()) == [
        (
            "closed/Acme/systems/fast.json",
            "metric 1e+308 is outside the plausible range [1e-06, 1e+12] for Samples/s",
        ),
        (
            "closed/Acme/systems/flag.json",
            "unreadable system JSON: v5.1 closed/Acme/systems/flag.json: field "
            '"number_of_nodes": expected a number or string, got a boolean',
        ),
        (
            "closed/Acme/systems/huge.json",
            "number_of_nodes 1000000 is outside the plausible range [1, 100000] in "
            "closed/Acme/systems/huge.json",
        ),
    ]
