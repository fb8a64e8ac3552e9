"""Hand-written records for each summary layout and each kind of bad input."""

import json

import polars as pl
import pytest

from pipeline.extract.summary import SummaryFormatError, parse_summary, summary_tables
from pipeline.transform.results import RESULTS_SCHEMA

FINAL_REPORT = {
    "ID": "6.0-0001",
    "Submitter": "AMD",
    "Availability": "available",
    "Category": "closed",
    "Suite": "datacenter",
    "System": "AMD MI355X Custom Cluster",
    "Platform": "87xMI355X_22xEPYC_9575F",
    "Model": "llama2-70b-99",
    "UsedModel": "llama2-70b-99",
    "Scenario": "Interactive",
    "Nodes": 11,
    "Processor": "AMD EPYC 9575F",
    "Accelerator": "AMD Instinct MI355X 288GB HBM3e (x87)",
    "a#": 8,
    "Total Accelerators": 88,
    "Location": "./closed/AMD/results/87xMI355X_22xEPYC_9575F/llama2-70b-99/Interactive/performance/run_1",
    "Software": "PyTorch 2.9.1+git8907517, ROCm 7.0.0",
    "inferred": 1,
    "weight_data_types": "fp4",
    "Accuracy": "ROUGE1: 44.5439  ROUGE2: 22.1342  ROUGEL: 28.9124  TOKENS_PER_SAMPLE: 283.0",
    "Performance_Result": 785522.0,
    "Performance_Units": "Tokens/s",
}

CHECKER = {
    "Organization": "NVIDIA",
    "Availability": "preview",
    "Division": "closed",
    "SystemType": "datacenter",
    "SystemName": "NVIDIA GB300 NVL72",
    "Platform": "GB300-NVL72_GB300-288GB_aarch64x72_TRT",
    "Model": "llama3_1-8b",
    "MlperfModel": "llama3.1-8b",
    "Scenario": "singlestream",
    "Result": 1.5,
    "Units": "Latency (s)",
    "number_of_nodes": 18,
    "accelerators_per_node": 4,
    "total_accelerators": None,
    "accelerator_model_name": "NVIDIA GB300",
    "host_processor_model_name": "NVIDIA Grace CPU",
    "framework": "TensorRT 10.11",
    "weight_data_types": "fp4",
    "inferred": 0,
    "Location": "./closed/NVIDIA/results/GB300-NVL72_GB300-288GB_aarch64x72_TRT/llama3_1-8b/SingleStream/performance/run_1",
}


def tables(document: object, release: str = "v6.0", file: str = "summary_results.json"):
    content = json.dumps(document).encode()
    return summary_tables(
        content,
        release=release,
        repository=f"mlcommons/inference_results_{release}",
        source_file=file,
        sha256="abc",
        commit="ab33b21",
    )


def test_final_report_record_becomes_this_exact_row() -> None:
    results, rejected, layout = tables([FINAL_REPORT])
    assert layout == "final_report"
    assert rejected.is_empty()
    assert results.schema == pl.Schema(RESULTS_SCHEMA)
    row = results.row(0, named=True)
    assert row == {
        "release": "v6.0",
        "result_key": "6.0-0001:llama2-70b-99:Interactive",
        "result_id": "6.0-0001",
        "submitter": "AMD",
        "division": "closed",
        "division_upstream": "closed",
        "category": "datacenter",
        "availability": "available",
        "availability_upstream": "available",
        "is_preview": False,
        "system_name": "AMD MI355X Custom Cluster",
        "platform": "87xMI355X_22xEPYC_9575F",
        "benchmark": "llama2-70b-99",
        "benchmark_upstream": "llama2-70b-99",
        "model_upstream": "llama2-70b-99",
        "scenario": "Interactive",
        "result_value": 785522.0,
        "result_unit": "Tokens/s",
        "result_value_upstream": 785522.0,
        "result_unit_upstream": "Tokens/s",
        "unit_correction": None,
        "is_higher_better": True,
        "result_per_accelerator": 785522.0 / 88,
        "power_value": None,
        "power_unit": None,
        "nodes": 11,
        "accelerators_per_node": 8,
        # Upstream declares 88 (Total Accelerators, 11 nodes x 8) although the
        # accelerator and folder names say 87: the declared count stands, and the
        # disagreement is a visible note on the result.
        "total_accelerators": 88,
        "is_total_accelerators_derived": False,
        "accelerator_count_note": "declared 88 accelerators (11 nodes × 8 per node), "
        "but the accelerator name 'AMD Instinct MI355X 288GB HBM3e (x87)' states 87; "
        "the declared count is used",
        "accelerator_name": "AMD Instinct MI355X 288GB HBM3e",
        "accelerator_upstream": "AMD Instinct MI355X 288GB HBM3e (x87)",
        "host_cpu_name": "AMD EPYC 9575F",
        "software": "PyTorch 2.9.1+git8907517, ROCm 7.0.0",
        "weight_data_types": "fp4",
        # The accuracy text as the summary publishes it.
        "accuracy_upstream": "ROUGE1: 44.5439  ROUGE2: 22.1342  ROUGEL: 28.9124  "
        "TOKENS_PER_SAMPLE: 283.0",
        "accuracy_note": None,
        # The final-report layout declares no design power.
        "design_power_watts_declared": None,
        "design_power_note": None,
        # Every name declared composed (NFC).
        "names_composed": [],
        # Upstream marks it (v6.0 marks every Interactive result); it was measured.
        "is_inferred": False,
        "is_inferred_upstream": True,
        "is_inferred_unverified": False,
        "inferred_note": "marked inferred upstream; from v6.0 the checker marks every "
        "Interactive result so (an Interactive folder holds its own Server-mode run by "
        "design)",
        "location": "closed/AMD/results/87xMI355X_22xEPYC_9575F/llama2-70b-99/Interactive",
        # Pinned to the commit the file was read at, so the link keeps pointing at
        # what was read after upstream moves on.
        "result_url": "https://github.com/mlcommons/inference_results_v6.0/tree/ab33b21/"
        "closed/AMD/results/87xMI355X_22xEPYC_9575F/llama2-70b-99/Interactive",
        "upstream_commit": "ab33b21",
        "source_file": "summary_results.json",
        "source_record": "0",
        "snapshot_sha256": "abc",
    }


def test_checker_record_is_normalised() -> None:
    results, rejected, layout = tables(
        {"0": CHECKER}, release="v6.1", file="summary.json"
    )
    assert layout == "checker"
    assert rejected.is_empty()
    row = results.row(0, named=True)
    # No upstream ID: the key is derived from division/submitter/platform/benchmark.
    assert row["result_key"] == (
        "v6.1:closed/NVIDIA/GB300-NVL72_GB300-288GB_aarch64x72_TRT/llama3.1-8b/SingleStream"
    )
    assert row["result_id"] is None
    assert row["benchmark"] == "llama3.1-8b"  # alias llama3_1-8b
    assert row["benchmark_upstream"] == "llama3_1-8b"
    assert row["scenario"] == "SingleStream"  # lower-case spelling normalised
    assert (row["result_value"], row["result_unit"]) == (1500.0, "Latency (ms)")
    assert (row["result_value_upstream"], row["result_unit_upstream"]) == (
        1.5,
        "Latency (s)",
    )
    assert row["is_higher_better"] is False
    assert row["result_per_accelerator"] is None  # latency is not divided by chips
    assert row["total_accelerators"] == 72  # 18 nodes x 4, derived
    assert row["is_total_accelerators_derived"] is True
    assert row["is_preview"] is True


def test_cpu_only_record_has_zero_accelerators() -> None:
    record = FINAL_REPORT | {
        "Accelerator": "",
        "a#": "",
        "Total Accelerators": 0,
        "Nodes": 1,
        "Processor": "2xIntel Xeon 6980P",
    }
    row = tables([record])[0].row(0, named=True)
    assert (row["accelerators_per_node"], row["total_accelerators"]) == (0, 0)
    assert row["accelerator_name"] is None
    assert row["result_per_accelerator"] is None
    assert row["host_cpu_name"] == "Intel Xeon 6980P"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"Performance_Result": -5.0}, "Performance_Result must be positive, got -5"),
        ({"Performance_Result": 0}, "Performance_Result must be positive, got 0"),
        ({"Performance_Result": float("nan")}, "Performance_Result is not finite: NaN"),
        ({"Performance_Result": "fast"}, "Performance_Result is not a number: 'fast'"),
        ({"Performance_Result": None}, "missing field 'Performance_Result'"),
        ({"Scenario": "Burst"}, "unknown Scenario 'Burst'"),
        ({"Performance_Units": "Watts/s"}, "unknown Performance_Units 'Watts/s'"),
        ({"a#": "eight"}, "a# is not a count: 'eight'"),
    ],
)
def test_bad_record_is_rejected_with_reason(change: dict, reason: str) -> None:
    good = FINAL_REPORT | {"ID": "6.0-0002"}
    results, rejected, _ = tables([good, FINAL_REPORT | change])
    assert results["result_id"].to_list() == ["6.0-0002"]
    assert rejected.select("source_record", "reason").rows() == [("1", reason)]
    assert json.loads(rejected["record_json"][0])["ID"] == "6.0-0001"


@pytest.mark.parametrize(
    ("word", "canonical"),
    [
        ("soon", "unknown"),
        ("on-premise", "unknown"),
        (" RDI ", "rdi"),
        ("Research, Development, or Internal", "rdi"),
    ],
)
def test_an_availability_word_is_never_a_reason_to_reject(
    word: str, canonical: str
) -> None:
    """Published results keep their place: the word is kept, mapped where reviewed."""
    results, rejected, _ = tables([FINAL_REPORT | {"Availability": word}])
    assert rejected.is_empty()
    assert results.select("availability", "availability_upstream").row(0) == (
        canonical,
        word.strip(),
    )


@pytest.mark.parametrize(
    ("word", "division"),
    [("Closed", "closed"), (" OPEN ", "open"), ("secret", "unknown")],
)
def test_a_division_word_is_kept_and_case_folded(word: str, division: str) -> None:
    results, rejected, _ = tables([FINAL_REPORT | {"Category": word}])
    assert rejected.is_empty()
    assert results.select("division", "division_upstream").row(0) == (
        division,
        word.strip(),
    )


def test_missing_fields_are_all_named() -> None:
    record = {
        k: v for k, v in FINAL_REPORT.items() if k not in ("Submitter", "Scenario")
    }
    _, rejected, _ = tables([FINAL_REPORT | {"ID": "x"}, record])
    assert rejected["reason"].to_list() == [
        "missing field 'Submitter'; missing field 'Scenario'"
    ]


def test_duplicate_records_keep_the_first_and_reject_the_rest() -> None:
    results, rejected, _ = tables([FINAL_REPORT, FINAL_REPORT, FINAL_REPORT])
    assert results.height == 1
    assert rejected.select("source_record", "reason").rows() == [
        (
            "1",
            "duplicate result key 6.0-0001:llama2-70b-99:Interactive (first seen in record 0)",
        ),
        (
            "2",
            "duplicate result key 6.0-0001:llama2-70b-99:Interactive (first seen in record 0)",
        ),
    ]


def test_non_object_record_is_rejected_not_dropped() -> None:
    results, rejected, _ = tables([FINAL_REPORT, "oops"])
    assert results.height == 1
    assert rejected["reason"][0].startswith('record is not a JSON object: "oops"')


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "v6.2 summary.json: empty file (0 bytes)"),
        (
            b"<!DOCTYPE html>\n<html>Rate limited</html>",
            "v6.2 summary.json: looks like an HTML page, not JSON "
            "(starts with '<!DOCTYPE html>')",
        ),
        (
            b'[{"ID": "6.2-0001", "Submitter": "A',
            "v6.2 summary.json: invalid JSON at line 1 column 34: Unterminated string "
            "starting at (file is 35 bytes; truncated?)",
        ),
        (
            b'{"results": []}',
            "v6.2 summary.json: unknown schema: expected a list of records or an object "
            'keyed "0", "1", ...; got an object with keys [\'results\']',
        ),
        (
            b"42",
            "v6.2 summary.json: unknown schema: expected a list of records or an "
            'object keyed "0", "1", ...; got a JSON int',
        ),
        (b"[]", "v6.2 summary.json: the file holds no records"),
        (
            b'[{"name": "x", "value": 1}]',
            "v6.2 summary.json: unknown schema: records carry neither the final-report "
            "fields ['ID', 'Performance_Result', 'Submitter'] nor the checker fields "
            "['Division', 'Organization', 'Result']",
        ),
    ],
)
def test_unreadable_files_get_a_specific_message(content: bytes, message: str) -> None:
    with pytest.raises(SummaryFormatError) as info:
        parse_summary(content, release="v6.2", file="summary.json")
    assert str(info.value) == message


def test_reviewed_unit_mislabel_is_corrected_and_says_so() -> None:
    record = FINAL_REPORT | {
        "Model": "whisper",
        "UsedModel": "whisper",
        "Scenario": "Offline",
        "Performance_Units": "Samples/s",
        "Performance_Result": 18000.0,
    }
    row = tables([record])[0].row(0, named=True)
    assert (row["result_value"], row["result_unit"]) == (18000.0, "Tokens/s")
    assert row["result_unit_upstream"] == "Samples/s"
    assert row["unit_correction"].startswith("summary says Samples/s but the value")
    # Not in a round the correction names: left as upstream wrote it.
    row41 = tables([record], release="v4.1")[0].row(0, named=True)
    assert (row41["result_unit"], row41["unit_correction"]) == ("Samples/s", None)


def test_a_count_the_accelerator_name_contradicts_is_noted_not_chosen() -> None:
    from pipeline.transform.results import accelerator_count_note

    names = pl.DataFrame(
        {
            "accelerator": [
                "AMD Instinct MI355X 288GB HBM3e (x87)",  # 11 x 8 = 88 declared
                "AMD Instinct MI355X 288GB HBM3e (x88)",  # agrees
                # Dell/MangoBoost v6.1: two kinds, 2 x 8 each; 4 x 8 = 32 declared.
                "AMD Instinct MI300X 192GB HBM3 (x2x8) and "
                "AMD Instinct MI355X 288GB HBM3e (x2x8)",
                "NVIDIA H100-SXM-80GB",  # no count named: nothing to compare
            ],
            "total": [88, 88, 32, 8],
            "nodes": [11, 11, 4, 1],
            "per_node": [8, 8, 8, 8],
        }
    )
    notes = names.select(
        accelerator_count_note(
            pl.col("total"), pl.col("nodes"), pl.col("per_node"), pl.col("accelerator")
        )
    ).to_series()
    assert notes.to_list() == [
        "declared 88 accelerators (11 nodes × 8 per node), but the accelerator name "
        "'AMD Instinct MI355X 288GB HBM3e (x87)' states 87; the declared count is used",
        None,
        None,
        None,
    ]


def test_names_are_nfc_at_the_boundary() -> None:
    """Issue 56 B: a decomposed "Café" is the composed one in the canonical table."""
    decomposed = "Cafe\u0301 Server"
    record = CHECKER | {
        "Organization": "Cafe\u0301 Labs",
        "SystemName": decomposed,
        "Platform": "cafe\u0301-1",
    }
    results, rejected, _ = tables({"0": record}, release="v6.1", file="summary.json")
    assert rejected.is_empty()
    row = results.row(0, named=True)
    assert (row["system_name"], row["submitter"]) == (
        "Caf\u00e9 Server",
        "Caf\u00e9 Labs",
    )
    assert row["result_key"] == (
        "v6.1:closed/Caf\u00e9 Labs/caf\u00e9-1/llama3.1-8b/SingleStream"
    )
    # Which names arrived decomposed: Audit lists them (an NFC/NFD pair is seen).
    assert row["names_composed"] == ["submitter", "system_name", "platform"]


def test_a_declared_design_power_is_kept_apart_and_validated() -> None:
    """v6.1's design_power_watts: a declaration, kept as such, never a measurement."""
    records = {
        str(i): CHECKER | {"Platform": f"p{i}", "design_power_watts": watts}
        for i, watts in enumerate([132000, "1450.5", -5, "NaN", "lots", None, 1e12])
    }
    results, rejected, _ = tables(records, release="v6.1", file="summary.json")
    # A declaration that cannot be taken says why; the result itself stands.
    assert rejected.is_empty()
    got = results.sort("platform").select(
        "design_power_watts_declared", "design_power_note", "power_value"
    )
    bounds = "in the plausible range [1e-06, 1e+09]; not taken"
    assert got.rows() == [
        (132000.0, None, None),
        (1450.5, None, None),
        (None, f"design_power_watts '-5' is not a positive number of Watts {bounds}", None),
        (None, f"design_power_watts 'NaN' is not a positive number of Watts {bounds}", None),
        (None, f"design_power_watts 'lots' is not a positive number of Watts {bounds}", None),
        (None, None, None),
        (None, f"design_power_watts '1000000000000' is not a positive number of Watts {bounds}", None),
    ]  # fmt: skip
