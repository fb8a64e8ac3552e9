"""Per-round rules: the committed registry, its validation, and a round added as data."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import pytest

from pipeline.extract.raw_tree import scan_raw_tree
from pipeline.extract.run_files import LogSummaryError, parse_log_summary
from pipeline.registry.rounds import RoundRulesError, load_round_rules, rules_for
from tests.unit.test_raw_tree import log, system

RUN = "performance/run_1/mlperf_log_summary.txt"


def test_server_metric_changes_in_v41() -> None:
    assert rules_for("v1.0").metrics["Server"].lines == (
        ("Scheduled samples per second", "Queries/s"),
    )
    assert rules_for("v4.1").metrics["Server"].lines == (
        ("Completed tokens per second", "Tokens/s"),
        ("Completed tokens per second (inferred)", "Tokens/s"),
        ("Completed samples per second", "Queries/s"),
    )


def test_v40_llama2_server_reports_completed_samples() -> None:
    # Scheduled sits among the additional stats of llama2-70b's v4.0 Server log.
    text = log(
        "Server",
        "Completed samples per second    : 18.06\n",
        stats="Scheduled samples per second : 18.10\n",
    )
    summary = parse_log_summary(text, where="w", rules=rules_for("v4.0"))
    assert (summary.metric_name, summary.metric_value) == (
        "Completed samples per second",
        18.06,
    )


def test_multistream_changes_meaning_in_v20() -> None:
    assert rules_for("v1.1").metrics["MultiStream"].lines == (
        ("Samples per query", "Samples/query"),
    )
    assert rules_for("v2.0").metrics["MultiStream"].unit == "Latency (ns)"


def test_each_round_has_its_divisions_and_log_files() -> None:
    assert rules_for("v2.1").divisions == ("closed", "open", "network")
    assert rules_for("v4.0").divisions == ("closed", "open", "network")
    assert rules_for("v6.1").divisions == ("closed", "open")
    assert rules_for("v0.5").log_files == (
        "run_1/mlperf_log_summary.txt",
        "mlperf_log_summary.txt",
    )
    assert rules_for("v1.0").log_files == ("run_1/mlperf_log_summary.txt",)


def test_unreviewed_later_rounds_get_the_newest_rules() -> None:
    assert rules_for("v9.9").metrics == load_round_rules().newest().metrics
    assert rules_for("v9.9").runs_as == {"Interactive": "Server"}


def test_v21_percentile_spelling_reads_as_the_same_percentile() -> None:
    text = log(
        "MultiStream",
        "99th percentile latency (ns) : 928655\n",
        result="VALID\nEarly Stopping Result:\n"
        " * Early stopping 99th percentile estimate: 928734",
    )
    summary = parse_log_summary(text, where="w", rules=rules_for("v2.1"))
    assert (summary.metric_name, summary.metric_value) == (
        "Early stopping 99th percentile estimate",
        928734.0,
    )


def test_v10_server_without_the_scheduled_line_names_it() -> None:
    text = log("Server", "Completed samples per second : 5\n")
    with pytest.raises(LogSummaryError) as info:
        parse_log_summary(text, where="w", rules=rules_for("v1.0"))
    assert str(info.value) == (
        "w: missing metric line for Server: expected 'Scheduled samples per second'"
    )


# -- a fictitious later round, added as data only ------------------------------------

FUTURE_RULES = """
[layout.final_report]
signature = ["ID"]
[layout.final_report.fields]
result_id = "ID"
submitter = "Submitter"
division = "Category"
category = "Suite"
availability = "Availability"
system_name = "System"
platform = "Platform"
benchmark_upstream = "Model"
model_upstream = "UsedModel"
scenario_upstream = "Scenario"
value_raw = "Performance_Result"
unit_raw = "Performance_Units"
power_raw = ""
power_unit_raw = ""
nodes_raw = "Nodes"
apn_raw = "a#"
total_raw = ""
accelerator_upstream = "Accelerator"
cpu_raw = "Processor"
software = "Software"
weight_data_types = ""
accuracy_raw = ""
inferred_raw = ""
location_raw = "Location"

[[rule]]
from = "v5.0"
divisions = ["closed", "open"]
log_files = ["run_1/mlperf_log_summary.txt"]
evidence = "the rules as they stand"
[rule.metric.Offline]
lines = [["Samples per second", "Samples/s"]]
[rule.metric.Server]
lines = [["Completed samples per second", "Queries/s"]]

[[rule]]
from = "v8.0"
evidence = "fictitious: loadgen 8.0 renames the Server line and adds an edge division"
divisions = ["closed", "open", "edge-lab"]
[rule.metric.Server]
lines = [["Served queries per second", "Queries/s"]]
"""


@pytest.fixture
def future(tmp_path: Path) -> Path:
    path = tmp_path / "rounds.toml"
    path.write_text(FUTURE_RULES)
    return path


def test_a_renamed_metric_line_is_read_with_no_code_change(future: Path) -> None:
    text = log("Server", "Served queries per second : 1234.5\n")
    tree = {
        "edge-lab/Acme/systems/box.json": system(division="edge-lab"),
        f"edge-lab/Acme/results/box/resnet50/Server/{RUN}": text.encode(),
    }
    results, rejected = scan_raw_tree(
        list(tree),
        tree.__getitem__,
        release="v8.1",
        repository="mlcommons/inference_results_v8.1",
        rules=rules_for("v8.1", future),
    )
    assert rejected.height == 0
    row = results.row(0, named=True)
    assert (row["division"], row["scenario"]) == ("edge-lab", "Server")
    assert (row["result_value"], row["result_unit"]) == (1234.5, "Queries/s")
    assert row["result_unit_upstream"] == "Served queries per second"
    assert row["snapshot_sha256"] == hashlib.sha256(text.encode()).hexdigest()


def test_the_same_log_under_the_old_rules_is_rejected_with_the_line_named(
    future: Path,
) -> None:
    text = log("Server", "Served queries per second : 1234.5\n")
    tree = {
        "closed/Acme/systems/box.json": system(),
        f"closed/Acme/results/box/resnet50/Server/{RUN}": text.encode(),
    }
    _, rejected = scan_raw_tree(
        list(tree), tree.__getitem__, release="v7.0", repository="o/r",
        rules=rules_for("v7.0", future),
    )  # fmt: skip
    assert rejected["reason"].to_list() == [
        f"v7.0 closed/Acme/results/box/resnet50/Server/{RUN}: missing metric line "
        "for Server: expected 'Completed samples per second'"
    ]


def test_a_division_the_round_does_not_have_is_rejected(future: Path) -> None:
    tree = {
        "edge-lab/Acme/systems/box.json": system(division="edge-lab"),
        f"edge-lab/Acme/results/box/resnet50/Offline/{RUN}": log(
            "Offline", "Samples per second : 5\n"
        ).encode(),
    }
    results, rejected = scan_raw_tree(
        list(tree), tree.__getitem__, release="v7.0", repository="o/r",
        rules=rules_for("v7.0", future),
    )  # fmt: skip
    assert results.height == 0
    assert rejected["reason"].to_list() == ["unknown division folder 'edge-lab'"]
    assert pl.Series(rejected["result_key"]).to_list() == [
        "v7.0:edge-lab/Acme/box/resnet50/Offline"
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ('from = "v8.0"', 'from = "8.0"'),
            "rules.toml: [rule 2 (from 8.0)] from: expected a round vX.Y, got '8.0'",
        ),
        (
            ('lines = [["Served queries per second", "Queries/s"]]', 'lines = "x"'),
            "rules.toml: [rule 2 (from v8.0).metric.Server] lines: "
            "expected a list of [log line, unit] pairs, got 'x'",
        ),
        (
            ('evidence = "fictitious', 'note = "fictitious'),
            "rules.toml: [rule 2 (from v8.0)] note: unknown field (known: divisions, "
            "evidence, from, infer, infer_requires_edge, inferred_flag, log_files, metric, mismatch, "
            "refuse, runs_as, system_files, until)",
        ),
        (
            (
                '[rule.metric.Server]\nlines = [["Served',
                '[rule.metric.Burst]\nlines = [["Served',
            ),
            "rules.toml: [rule 2 (from v8.0).metric] Burst: unknown field (known: "
            "Interactive, MultiStream, Offline, Server, SingleStream)",
        ),
        (
            ('divisions = ["closed", "open", "edge-lab"]', 'divisions = "closed"'),
            "rules.toml: [rule 2 (from v8.0)] divisions: expected a list of trimmed, "
            "non-empty strings (at least one), got 'closed'",
        ),
        (
            ('result_id = "ID"\n', ""),
            'rules.toml: [layout.final_report] fields.result_id: is required ("" '
            "when the layout lacks it)",
        ),
        (
            (
                'divisions = ["closed", "open", "edge-lab"]',
                'divisions = ["closed"]\ninfer = [{scenario = "Server", '
                'source = "Offline", method = "guess", unit = "u", description = "d"}]',
            ),
            "rules.toml: [rule 2 (from v8.0).infer 1] method: expected one of "
            "'reciprocal_mean_latency', 'queries_of_estimate', "
            "'samples_over_mean_latency', got 'guess'",
        ),
        (
            ('evidence = "the rules as they stand"\n', ""),
            "rules.toml: [rule 1 (from v5.0)] evidence: expected a non-empty string, "
            "got nothing",
        ),
    ],
)
def test_a_malformed_rules_file_names_the_rule_and_key(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    path = tmp_path / "rules.toml"
    old, new = change
    assert old in FUTURE_RULES
    path.write_text(FUTURE_RULES.replace(old, new, 1))
    with pytest.raises(RoundRulesError) as info:
        load_round_rules(path)
    assert str(info.value) == message


def test_a_percentile_template_needs_its_placeholder(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(
        FUTURE_RULES
        + '[rule.metric.SingleStream]\npercentile_line = "90th latency"\nunit = "x"\n'
    )
    with pytest.raises(RoundRulesError) as info:
        load_round_rules(path)
    assert str(info.value) == (
        "rules.toml: [rule 2 (from v8.0).metric.SingleStream] percentile_line: "
        "expected a string with exactly one {p}, got '90th latency'"
    )


def test_an_inference_needs_its_source_estimate_line(tmp_path: Path) -> None:
    # MultiStream from SingleStream needs the SingleStream log's estimates.
    infer = (
        'infer = [{scenario = "MultiStream", source = "SingleStream", '
        'method = "queries_of_estimate", samples_per_query = 8, percentile = 99, '
        'unit = "Latency (ns)", description = "8 x estimate"}]\n'
    )
    division = 'divisions = ["closed", "open", "edge-lab"]\n'
    path = tmp_path / "rules.toml"
    path.write_text(
        FUTURE_RULES.replace(division, division + infer)
        + "[rule.metric.SingleStream]\n"
        'percentile_line = "{p}th percentile latency (ns)"\nunit = "Latency (ns)"\n'
    )
    with pytest.raises(RoundRulesError) as info:
        load_round_rules(path)
    assert str(info.value) == (
        "rules.toml: in v8.0, inferring MultiStream from SingleStream needs an "
        "estimate_line in metric.SingleStream"
    )
