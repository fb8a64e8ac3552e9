"""Parsers and scanner of the raw submission tree, on hand-written files."""

from __future__ import annotations

import hashlib
import json

import polars as pl
import pytest

from pipeline.extract.raw_tree import scan_raw_tree
from pipeline.extract.run_files import (
    LogSummaryError,
    SystemJsonError,
    parse_log_summary,
    parse_system_json,
)
from pipeline.source import NotPublished
from pipeline.transform.results import REJECTED_SCHEMA, RESULTS_SCHEMA

WHERE = "v9.9 closed/X/results/s/b/Offline/performance/run_1/mlperf_log_summary.txt"


def log(scenario: str, lines: str, *, result: str = "VALID", stats: str = "") -> str:
    """A loadgen summary shaped like the real ones (header, results, extra stats)."""
    return (
        "================================================\n"
        "MLPerf Results Summary\n"
        "================================================\n"
        "SUT name : PySUT\n"
        f"Scenario : {scenario}\n"
        "Mode     : PerformanceOnly\n"
        f"{lines}"
        f"Result is : {result}\n"
        "  Min duration satisfied : Yes\n"
        "  Min queries satisfied : Yes\n"
        "  Early stopping satisfied: Yes\n"
        "\n"
        "================================================\n"
        "Additional Stats\n"
        "================================================\n"
        f"{stats}"
        "Min latency (ns)                : 1281857\n"
        "\n"
        "No errors encountered during test.\n"
    )


SINGLESTREAM = log(
    "SingleStream",
    "90.0th percentile latency (ns) : 1340856\n",
    result="VALID\n"
    "Early Stopping Result:\n"
    " * Processed at least 64 queries (453399).\n"
    " * Would discard 44869 highest latency queries.\n"
    " * Early stopping 90.0th percentile estimate: 1341022\n"
    " * Early stopping 99.0th percentile estimate: 1382514",
    stats="QPS w/o loadgen overhead        : 757.87\n"
    "Mean latency (ns)               : 1319496\n",
)


# -- parse_log_summary: which line is the metric ------------------------------------


def test_offline_llm_reports_tokens_per_second() -> None:
    text = log("Offline", "Samples per second: 92.1544\nTokens per second: 27803.9\n")
    summary = parse_log_summary(text, where=WHERE)
    assert (summary.scenario, summary.metric_name) == ("Offline", "Tokens per second")
    assert (summary.metric_value, summary.metric_unit) == (27803.9, "Tokens/s")
    assert summary.result_valid is True


def test_offline_without_tokens_reports_samples_per_second() -> None:
    summary = parse_log_summary(
        log("Offline", "Samples per second: 2961.06\n"), where=WHERE
    )
    assert (summary.metric_name, summary.metric_value, summary.metric_unit) == (
        "Samples per second",
        2961.06,
        "Samples/s",
    )


def test_server_llm_reports_completed_tokens_per_second() -> None:
    text = log(
        "Server",
        "Completed samples per second    : 29.41\nCompleted tokens per second: 8840.42\n",
        stats="Scheduled samples per second : 29.62\n",
    )
    summary = parse_log_summary(text, where=WHERE)
    assert (summary.metric_name, summary.metric_value, summary.metric_unit) == (
        "Completed tokens per second",
        8840.42,
        "Tokens/s",
    )


def test_server_without_tokens_reports_completed_samples_not_scheduled() -> None:
    text = log(
        "Server",
        "Completed samples per second    : 1448.97\n",
        stats="Scheduled samples per second : 1450.01\n",
    )
    summary = parse_log_summary(text, where=WHERE)
    assert (summary.metric_name, summary.metric_value, summary.metric_unit) == (
        "Completed samples per second",
        1448.97,
        "Queries/s",
    )


def test_singlestream_reports_the_early_stopping_90th_estimate_in_ns() -> None:
    summary = parse_log_summary(SINGLESTREAM, where=WHERE)
    assert summary.scenario == "SingleStream"
    assert summary.metric_name == "Early stopping 90.0th percentile estimate"
    assert (summary.metric_value, summary.metric_unit) == (1341022.0, "Latency (ns)")
    assert summary.early_stopping_ns == {"90.0": 1341022.0, "99.0": 1382514.0}
    assert summary.mean_latency_ns == 1319496.0


def test_llm_singlestream_without_query_early_stopping_reports_the_percentile() -> None:
    # llama3.1-8b-edge: early stopping covers TTFT and TPOT only, not whole queries.
    text = log(
        "SingleStream",
        "90.0th percentile latency (ns) : 4145546277\n"
        "90.0th first token percentile latency (ns) : 1396970160\n",
        result="VALID\n"
        "TTFT Early Stopping Result:\n"
        " * Early stopping 90.0th percentile estimate: 1397965104\n"
        "TPOT Early Stopping Result:\n"
        " * Early stopping 90.0th percentile estimate: 21655390",
    )
    summary = parse_log_summary(text, where=WHERE)
    assert summary.metric_name == "90.0th percentile latency (ns)"
    assert summary.metric_value == 4145546277.0
    assert summary.early_stopping_ns == {}


def test_singlestream_with_a_999_target_reports_the_999_estimate() -> None:
    # pointpainting targets the 99.9th percentile (v5.1 GATEOverflow logs).
    text = log(
        "SingleStream",
        "99.9th percentile latency (ns) : 560000000\n",
        result="VALID\n"
        "Early Stopping Result:\n"
        " * Early stopping 99.9th percentile estimate: 564018264\n"
        " * Early stopping 99.0th percentile estimate: 540000000",
    )
    summary = parse_log_summary(text, where=WHERE)
    assert (summary.metric_name, summary.metric_value) == (
        "Early stopping 99.9th percentile estimate",
        564018264.0,
    )


def test_multistream_reports_the_early_stopping_99th_estimate() -> None:
    text = log(
        "MultiStream",
        "99.0th percentile latency (ns) : 503000\n",
        result="VALID\n"
        "Early Stopping Result:\n"
        " * Early stopping 99.0th percentile estimate: 503471",
    )
    summary = parse_log_summary(text, where=WHERE)
    assert (summary.scenario, summary.metric_name, summary.metric_value) == (
        "MultiStream",
        "Early stopping 99.0th percentile estimate",
        503471.0,
    )


def test_logs_before_early_stopping_report_the_headline_percentile() -> None:
    text = log("Single Stream", "90th percentile latency (ns) : 1200000\n")
    summary = parse_log_summary(text, where=WHERE)
    assert (summary.scenario, summary.metric_name, summary.metric_value) == (
        "SingleStream",
        "90th percentile latency (ns)",
        1200000.0,
    )


def test_invalid_result_is_parsed_not_raised() -> None:
    text = log("Offline", "Samples per second: 10.5\n", result="INVALID")
    assert parse_log_summary(text, where=WHERE).result_valid is False


def test_metric_lines_among_additional_stats_do_not_count() -> None:
    text = log("Offline", "", stats="Samples per second: 10.5\n")
    with pytest.raises(LogSummaryError) as info:
        parse_log_summary(text, where=WHERE)
    assert str(info.value) == (
        f"{WHERE}: missing metric line for Offline: "
        "expected 'Tokens per second' or 'Tokens per second (inferred)' "
        "or 'Samples per second'"
    )


# -- parse_log_summary: malformed logs, exact messages -------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("  \n", "empty log summary"),
        (
            # v6.0 open/Lattix rgat/offline: the real loadgen log is elsewhere.
            "No warnings encountered during test.\n\nNo errors encountered during test.\n",
            "no 'Scenario :' line; not a loadgen mlperf_log_summary.txt",
        ),
        (
            log("Offline", "Samples per second: 1\n").replace(
                "Result is : VALID\n", ""
            ),
            "no 'Result is :' line",
        ),
        (
            log("Offline", "Samples per second: 1\n", result="MAYBE"),
            "'Result is :' must be VALID or INVALID, got 'MAYBE'",
        ),
        (
            log("Batch", "Samples per second: 1\n"),
            "unknown scenario 'Batch' in 'Scenario :' line",
        ),
        (
            log("Server", "Scheduled samples per second : 5\n"),
            "missing metric line for Server: expected 'Completed tokens per second' "
            "or 'Completed tokens per second (inferred)' "
            "or 'Completed samples per second'",
        ),
        (
            log("Offline", "Tokens per second: n/a\n"),
            "'Tokens per second' is not a number: 'n/a'",
        ),
        (
            log("SingleStream", ""),
            "missing metric line for SingleStream: "
            "expected 'NN.Nth percentile latency (ns)'",
        ),
        (
            log(
                "SingleStream",
                "90.0th percentile latency (ns) : 1340856\n",
                result="VALID\nEarly Stopping Result:\n"
                " * Early stopping 99.0th percentile estimate: 1382514",
            ),
            "missing metric line for SingleStream: "
            "expected 'Early stopping 90.0th percentile estimate'",
        ),
        (
            # The v0.5-v1.1 MultiStream metric, read with the newest rules.
            log("Multi Stream", "Samples per query : 2692\n"),
            "missing metric line for MultiStream: "
            "expected 'NN.Nth percentile latency (ns)'",
        ),
    ],
)
def test_malformed_logs_raise_exact_messages(text: str, message: str) -> None:
    with pytest.raises(LogSummaryError) as info:
        parse_log_summary(text, where=WHERE)
    assert str(info.value) == f"{WHERE}: {message}"


# -- parse_system_json ---------------------------------------------------------------


def test_system_json_types_become_strings_and_keys_are_normalised() -> None:
    text = json.dumps(
        {
            "Division": "closed",
            "submitter": "AMD",
            "system_name": " Supermicro AS-8125GS-TNMR2 ",
            "status": "available",
            "system_type": "datacenter",
            "number_of_nodes": None,
            "accelerators_per_node ": 8.0,
            "accelerator_model_name": "AMD Instinct MI300X 192GB HBM3",
            "host_processor_model_name": "AMD EPYC 9575F",
            "host_processors_per_node": "2",
            "framework": "",
            "other_software_stack": {"vllm": "0.9", "rocm": "6.4"},
        }
    )
    fields = parse_system_json(text, where="v5.1 closed/AMD/systems/x.json")
    assert fields["division"] == "closed"
    assert fields["system_name"] == "Supermicro AS-8125GS-TNMR2"
    assert fields["accelerators_per_node"] == "8"
    assert fields["host_processors_per_node"] == "2"
    assert fields["number_of_nodes"] is None
    assert fields["framework"] is None
    assert fields["operating_system"] is None  # absent
    assert fields["other_software_stack"] == '{"rocm": "6.4", "vllm": "0.9"}'


def test_system_json_bytes_with_a_bom_are_read() -> None:
    fields = parse_system_json(b'\xef\xbb\xbf{"status": "preview"}', where="w")
    assert fields["status"] == "preview"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty file"),
        (b'{"status": "available",}', "invalid JSON at line 1 column 24: "
         "Expecting property name enclosed in double quotes"),
        (b'[{"status": "available"}]', "expected a JSON object, got a JSON list"),
        (b"\xff\xfe{}", "not UTF-8 text (invalid start byte)"),
    ],
)  # fmt: skip
def test_unreadable_system_json_raises_exact_messages(
    content: bytes, message: str
) -> None:
    with pytest.raises(SystemJsonError) as info:
        parse_system_json(content, where="v5.1 closed/X/systems/s.json")
    assert str(info.value) == f"v5.1 closed/X/systems/s.json: {message}"


# -- scan_raw_tree -------------------------------------------------------------------


def system(**overrides: object) -> bytes:
    fields = {
        "division": "closed",
        "submitter": "Acme",
        "system_name": "Acme Box",
        "status": "available",
        "system_type": "datacenter",
        "number_of_nodes": 2,
        "accelerators_per_node": "4",
        "accelerator_model_name": "Acme X1 (x8)",
        "host_processor_model_name": "2x Acme CPU",
        "framework": "AcmeRT 1.0",
    }
    fields.update(overrides)
    return json.dumps(fields).encode()


RUN = "performance/run_1/mlperf_log_summary.txt"
OFFLINE_LLM = log(
    "Offline", "Samples per second: 92.1544\nTokens per second: 27803.9\n"
)
SERVER = log("Server", "Completed samples per second    : 1448.97\n")
INTERACTIVE = log(
    "Server",
    "Completed samples per second : 29.41\nCompleted tokens per second: 8840.42\n",
)
TREE: dict[str, bytes] = {
    "closed/Acme/systems/box.json": system(),
    f"closed/Acme/results/box/llama2-70b-99/Offline/{RUN}": OFFLINE_LLM.encode(),
    f"closed/Acme/results/box/llama2-70b-99/Interactive/{RUN}": INTERACTIVE.encode(),
    # Lower-case scenario folders as older trees and GATEOverflow write them.
    f"closed/Acme/results/box/resnet50/server/{RUN}": SERVER.encode(),
    f"closed/Acme/results/box/resnet50/offline/{RUN}": log(
        "Offline", "Samples per second: 10\n", result="INVALID"
    ).encode(),
    f"closed/Acme/results/box/resnet50/Offline_old/{RUN}": OFFLINE_LLM.encode(),
    f"closed/Acme/results/box/rgat/Offline/{RUN}": log("Offline", "").encode(),
    # v6.0 layout: compliance runs and accuracy logs sit inside the scenario folder.
    f"closed/Acme/results/box/resnet50/server/TEST04/{RUN}": SERVER.encode(),
    "closed/Acme/results/box/resnet50/server/accuracy/mlperf_log_summary.txt": b"x",
    "closed/Acme/results/box/resnet50/server/measurements.json": b"{}",
    # A folder with a detail log but no summary log.
    "closed/Acme/results/box/bert-99/Offline/performance/run_1/mlperf_log_detail.txt": b"",
    # Endpoints harness (v6.1): performance/result_summary.json, no loadgen log.
    "closed/Acme/results/box/qwen3.6-27b/SingleStream/performance/result_summary.json": (
        b"{}"
    ),
    # Edge system: SingleStream run, and the same run filed under offline/multistream.
    "open/Edgy/systems/pi.json": system(
        division="open",
        submitter="Edgy",
        system_type="edge",
        status="Preview",
        number_of_nodes="1",
        accelerators_per_node="N/A",
        accelerator_model_name="N/A",
    ),
    "open/Edgy/model_mapping.json": b'{"mobilenet-v2": "resnet"}',
    f"open/Edgy/results/pi/mobilenet-v2/singlestream/{RUN}": SINGLESTREAM.encode(),
    f"open/Edgy/results/pi/mobilenet-v2/offline/{RUN}": SINGLESTREAM.encode(),
    f"open/Edgy/results/pi/mobilenet-v2/multistream/{RUN}": SINGLESTREAM.encode(),
    f"open/Edgy/results/pi/mobilenet-v2/Server/{RUN}": SINGLESTREAM.encode(),
    # Systems without a readable description.
    f"closed/Nosys/results/ghost/resnet50/Offline/{RUN}": SERVER.replace(
        "Scenario : Server", "Scenario : Offline"
    )
    .replace("Completed samples per second    :", "Samples per second:")
    .encode(),
    "closed/Broken/systems/b.json": b'{"status": ',
    f"closed/Broken/results/b/resnet50/Offline/{RUN}": log(
        "Offline", "Samples per second: 5\n"
    ).encode(),
    "closed/Weird/systems/w.json": system(
        status="someday", accelerators_per_node="eight"
    ),
    f"closed/Weird/results/w/resnet50/Offline/{RUN}": log(
        "Offline", "Samples per second: 5\n"
    ).encode(),
    # Listed but gone by the time it is read.
    "closed/Gone/systems/g.json": system(),
    f"closed/Gone/results/g/resnet50/Offline/{RUN}": b"",
}


def read(path: str) -> bytes:
    if path.startswith("closed/Gone/results"):
        raise NotPublished(f"https://example.org/{path}: not published (HTTP 404)")
    return TREE[path]


@pytest.fixture(scope="module")
def scanned() -> tuple[pl.DataFrame, pl.DataFrame]:
    return scan_raw_tree(
        list(TREE), read, release="v9.9", repository="mlcommons/inference_results_v9.9"
    )


def by_location(results: pl.DataFrame) -> dict[str, dict]:
    return {row["location"]: row for row in results.iter_rows(named=True)}


def test_scan_returns_the_canonical_schemas(scanned) -> None:
    results, rejected = scanned
    assert results.schema == pl.Schema(RESULTS_SCHEMA)
    assert rejected.schema == pl.Schema(REJECTED_SCHEMA)


def test_scan_reads_a_valid_llm_offline_result(scanned) -> None:
    row = by_location(scanned[0])["closed/Acme/results/box/llama2-70b-99/Offline"]
    path = f"closed/Acme/results/box/llama2-70b-99/Offline/{RUN}"
    assert row == {
        "release": "v9.9",
        "result_key": "v9.9:closed/Acme/box/llama2-70b-99/Offline",
        "result_id": None,
        "submitter": "Acme",
        "division": "closed",
        "division_upstream": "closed",
        "category": "datacenter",
        "availability": "available",
        "availability_upstream": "available",
        "is_preview": False,
        "system_name": "Acme Box",
        "platform": "box",
        "benchmark": "llama2-70b-99",
        "benchmark_upstream": "llama2-70b-99",
        "model_upstream": "llama2-70b-99",
        "scenario": "Offline",
        "result_value": 27803.9,
        "result_unit": "Tokens/s",
        "result_value_upstream": 27803.9,
        "result_unit_upstream": "Tokens per second",
        "unit_correction": None,
        "is_higher_better": True,
        "result_per_accelerator": 27803.9 / 8,
        "power_value": None,
        "power_unit": None,
        "nodes": 2,
        "accelerators_per_node": 4,
        "total_accelerators": 8,
        "is_total_accelerators_derived": True,
        # "(x8)" in the name agrees with 2 nodes x 4: nothing to say.
        "accelerator_count_note": None,
        "accelerator_name": "Acme X1",
        "accelerator_upstream": "Acme X1 (x8)",
        "host_cpu_name": "Acme CPU",
        "software": "AcmeRT 1.0",
        "weight_data_types": None,
        "accuracy_upstream": None,
        "accuracy_note": None,
        "design_power_watts_declared": None,
        "design_power_note": None,
        "names_composed": [],
        "is_inferred": False,
        "is_inferred_upstream": None,  # a raw tree has no upstream mark
        "is_inferred_unverified": False,
        "inferred_note": None,
        "location": "closed/Acme/results/box/llama2-70b-99/Offline",
        # No commit known (a folder the registry has no commit for): HEAD.
        "result_url": "https://github.com/mlcommons/inference_results_v9.9/tree/HEAD/"
        "closed/Acme/results/box/llama2-70b-99/Offline",
        "upstream_commit": None,
        "source_file": path,
        "source_record": "closed/Acme/systems/box.json",
        "snapshot_sha256": hashlib.sha256(TREE[path]).hexdigest(),
    }


def test_scan_normalises_scenarios_and_units(scanned) -> None:
    rows = by_location(scanned[0])
    interactive = rows["closed/Acme/results/box/llama2-70b-99/Interactive"]
    assert (interactive["scenario"], interactive["result_value"]) == (
        "Interactive",
        8840.42,
    )
    assert interactive["result_unit"] == "Tokens/s"
    server = rows["closed/Acme/results/box/resnet50/server"]
    assert (server["scenario"], server["result_unit"]) == ("Server", "Queries/s")
    assert server["benchmark"] == "resnet"  # registry alias of resnet50
    assert server["result_key"] == "v9.9:closed/Acme/box/resnet50/Server"


def test_scan_infers_offline_and_multistream_from_a_singlestream_run(scanned) -> None:
    rows = by_location(scanned[0])
    single = rows["open/Edgy/results/pi/mobilenet-v2/singlestream"]
    offline = rows["open/Edgy/results/pi/mobilenet-v2/offline"]
    multi = rows["open/Edgy/results/pi/mobilenet-v2/multistream"]
    assert (single["scenario"], single["result_value"], single["result_unit"]) == (
        "SingleStream",
        pytest.approx(1.341022),
        "Latency (ms)",
    )
    assert single["is_higher_better"] is False and single["is_inferred"] is False
    assert (offline["result_value"], offline["result_unit"]) == (
        pytest.approx(1e9 / 1319496),
        "Samples/s",
    )
    assert (
        offline["result_unit_upstream"]
        == "1e9 / Mean latency (ns) of a SingleStream run"
    )
    assert (multi["result_value"], multi["result_unit"]) == (
        pytest.approx(8 * 1.382514),
        "Latency (ms)",
    )
    assert offline["is_inferred"] is True and multi["is_inferred"] is True
    # Edge system metadata: preview status, no accelerator, model mapping applied.
    assert (single["availability"], single["is_preview"]) == ("preview", True)
    assert (single["accelerators_per_node"], single["total_accelerators"]) == (0, 0)
    assert (
        single["accelerator_name"] is None and single["result_per_accelerator"] is None
    )
    assert (single["benchmark"], single["benchmark_upstream"]) == ("resnet", "resnet")
    assert single["model_upstream"] == "mobilenet-v2"
    assert single["category"] == "edge"


def test_scan_only_reads_run_1_at_the_result_depth(scanned) -> None:
    results, rejected = scanned
    files = set(results["source_file"]) | set(rejected["source_file"])
    assert not any("TEST04" in f or "/accuracy/" in f for f in files)
    assert sorted(results["location"]) == [
        "closed/Acme/results/box/llama2-70b-99/Interactive",
        "closed/Acme/results/box/llama2-70b-99/Offline",
        "closed/Acme/results/box/resnet50/server",
        "open/Edgy/results/pi/mobilenet-v2/multistream",
        "open/Edgy/results/pi/mobilenet-v2/offline",
        "open/Edgy/results/pi/mobilenet-v2/singlestream",
    ]


def test_scan_rejects_with_exact_reasons(scanned) -> None:
    reasons = dict(scanned[1].select("source_file", "reason").iter_rows())
    box = "closed/Acme/results/box"
    assert reasons == {
        f"{box}/resnet50/offline/{RUN}": "INVALID result ('Result is : INVALID')",
        f"{box}/resnet50/Offline_old/{RUN}": "unknown scenario directory 'Offline_old'",
        f"{box}/rgat/Offline/{RUN}": f"v9.9 {box}/rgat/Offline/{RUN}: missing metric "
        "line for Offline: expected 'Tokens per second' or "
        "'Tokens per second (inferred)' or 'Samples per second'",
        f"{box}/bert-99/Offline/performance": "no mlperf_log_summary.txt under "
        f"{box}/bert-99/Offline/performance/run_1",
        f"{box}/qwen3.6-27b/SingleStream/performance/result_summary.json": (
            "no rule names the result field of benchmark 'qwen3.6-27b' in v9.9 "
            "endpoints results (endpoints.toml); incomplete run: "
            "result_summary.json says complete = (absent); failed samples: "
            "result_summary.json says n_samples_failed = (absent); no "
            f"accuracy/accuracy_results.json in {box}/qwen3.6-27b/SingleStream; "
            "result_summary.json says state = (absent), not 'complete'"
        ),
        # v9.9 is read with the newest rules: the v6.0 checker's refusal.
        f"open/Edgy/results/pi/mobilenet-v2/Server/{RUN}": "Server directory holds a "
        "SingleStream run; the v9.9 submission checker reports no such result "
        "(rounds.toml rule from v6.0)",
        f"closed/Nosys/results/ghost/resnet50/Offline/{RUN}": "missing system JSON "
        "closed/Nosys/systems/ghost.json",
        f"closed/Broken/results/b/resnet50/Offline/{RUN}": "unreadable system JSON: "
        "v9.9 closed/Broken/systems/b.json: invalid JSON at line 1 column 12: "
        "Expecting value",
        # The status word alone would be kept ("unknown"); the count cannot be read.
        f"closed/Weird/results/w/resnet50/Offline/{RUN}": "accelerators_per_node is not "
        "a count: 'eight' in closed/Weird/systems/w.json",
        f"closed/Gone/results/g/resnet50/Offline/{RUN}": f"v9.9 closed/Gone/results/g/"
        f"resnet50/Offline/{RUN}: unreadable (https://example.org/closed/Gone/results/"
        f"g/resnet50/Offline/{RUN}: not published (HTTP 404))",
    }


def test_rejected_rows_keep_key_and_evidence(scanned) -> None:
    rejected = scanned[1]
    row = rejected.filter(pl.col("reason").str.starts_with("INVALID")).row(
        0, named=True
    )
    assert row["result_key"] == "v9.9:closed/Acme/box/resnet50/Offline"
    assert row["source_record"] == "closed/Acme/systems/box.json"
    record = json.loads(row["record_json"])
    assert record["location"] == "closed/Acme/results/box/resnet50/offline"
    assert record["log_head"].startswith("=====")
    assert (
        row["snapshot_sha256"]
        == hashlib.sha256(
            TREE[f"closed/Acme/results/box/resnet50/offline/{RUN}"]
        ).hexdigest()
    )


def test_folders_differing_only_in_case_are_one_result_and_a_duplicate() -> None:
    tree = {
        "closed/A/systems/s.json": system(),
        f"closed/A/results/s/resnet50/Offline/{RUN}": log(
            "Offline", "Samples per second: 7\n"
        ).encode(),
        f"closed/A/results/s/resnet50/offline/{RUN}": log(
            "Offline", "Samples per second: 8\n"
        ).encode(),
    }
    results, rejected = scan_raw_tree(
        list(tree), tree.__getitem__, release="v9.9", repository="o/r"
    )
    assert results["result_value"].to_list() == [7.0]
    assert rejected["reason"].to_list() == [
        "duplicate result key v9.9:closed/A/s/resnet50/Offline "
        f"(first seen in closed/A/results/s/resnet50/Offline/{RUN})"
    ]


def test_empty_listing_gives_empty_tables() -> None:
    results, rejected = scan_raw_tree(
        [], lambda p: b"", release="v9.9", repository="o/r"
    )
    assert (results.height, rejected.height) == (0, 0)
    assert results.schema == pl.Schema(RESULTS_SCHEMA)
