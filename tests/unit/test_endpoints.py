"""Endpoints-harness results (v6.1): result_summary.json read by endpoints.toml.

Hand-written fixtures, each a small variant of the real files' layout
(../shared/mlperf-mirror-endpoints/README.md): the result field per benchmark, and a
named rejection for each malformed or incomplete file.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from pipeline.extract.raw_tree import files_read, scan_raw_tree
from pipeline.source import Source

SYSTEM = "closed/Acme/systems/box.json"
DIR = "closed/Acme/results/box"
PERF = "performance/result_summary.json"
ACC = "accuracy/accuracy_results.json"


def system() -> bytes:
    return json.dumps(
        {
            "division": "closed",
            "submitter": "Acme",
            "system_type": "datacenter",
            "status": "Preview",
            "system_name": "Acme box",
            "number_of_nodes": 1,
            "accelerators_per_node": 4,
            "accelerator_model_name": "Acme X1",
            "host_processor_model_name": "Acme CPU",
            "framework": "vLLM",
        }
    ).encode()


def distribution(base: float) -> dict:
    return {
        "percentiles": {"99.0": base * 3, "90.0": base * 2, "50.0": base},
        "early_stopping_percentiles": {"99.0": base * 3 + 1, "50.0": base + 1},
    }


def summary(scenario: str = "Server", **changes: object) -> dict:
    online = scenario != "Offline"
    document = {
        "n_samples_issued": 100,
        "n_samples_completed": 100,
        "n_samples_failed": 0,
        "duration_ns": 2_000_000_000,
        "legacy_loadgen_window_duration_ns": 1_500_000_000 if online else None,
        "state": "complete",
        "complete": True,
        "qps": 66.0,
        "tps": 12345.5,
        "ttft": distribution(200e6) if online else {},
        "tpot": distribution(20e6) if online else {},
    }
    document.update(changes)
    return document


def accuracy(value: object = 81.25) -> bytes:
    return json.dumps({"average_accuracy": value}).encode()


def folder(
    benchmark: str, scenario: str, result: bytes | dict, acc: bytes | None = None
) -> dict[str, bytes]:
    content = result if isinstance(result, bytes) else json.dumps(result).encode()
    files = {f"{DIR}/{benchmark}/{scenario}/{PERF}": content}
    files[f"{DIR}/{benchmark}/{scenario}/{ACC}"] = (
        acc if acc is not None else accuracy()
    )
    return files


def scan(tree: dict[str, bytes]) -> tuple[pl.DataFrame, pl.DataFrame]:
    tree = {SYSTEM: system(), **tree}
    return scan_raw_tree(
        list(tree),
        tree.__getitem__,
        release="v6.1",
        repository="mlcommons/inference_results_v6.1",
    )


def test_the_result_field_and_unit_per_benchmark_and_scenario() -> None:
    results, rejected = scan(
        {
            **folder("deepseek-r1", "Server", summary()),
            **folder("deepseek-r1", "Offline", summary("Offline")),
            **folder("qwen3-vl-235b-a22b", "Offline", summary("Offline")),
            **folder("qwen3-vl-235b-a22b", "Interactive", summary("Interactive")),
        }
    )
    assert rejected.height == 0
    assert sorted(
        results.select(
            "benchmark", "scenario", "result_value", "result_unit",
            "result_unit_upstream", "location",
        ).rows()
    ) == [
        ("deepseek-r1", "Offline", 12345.5, "Tokens/s", "tps of result_summary.json",
         f"{DIR}/deepseek-r1/Offline"),
        ("deepseek-r1", "Server", 12345.5, "Tokens/s", "tps of result_summary.json",
         f"{DIR}/deepseek-r1/Server"),
        ("qwen3-vl-235b-a22b", "Interactive", 66.0, "Queries/s",
         "qps of result_summary.json", f"{DIR}/qwen3-vl-235b-a22b/Interactive"),
        ("qwen3-vl-235b-a22b", "Offline", 66.0, "Samples/s",
         "qps of result_summary.json", f"{DIR}/qwen3-vl-235b-a22b/Offline"),
    ]  # fmt: skip
    assert set(results["source_file"]) == {
        f"{DIR}/{b}/{s}/{PERF}"
        for b, s in [
            ("deepseek-r1", "Offline"),
            ("deepseek-r1", "Server"),
            ("qwen3-vl-235b-a22b", "Offline"),
            ("qwen3-vl-235b-a22b", "Interactive"),
        ]
    }


SERVER = f"{DIR}/deepseek-r1/Server"
WHERE = f"v6.1 {SERVER}/{PERF}"

HOSTILE = [
    (
        "truncated",
        json.dumps(summary()).encode()[:60],
        None,
        f"{WHERE}: invalid JSON at line 1 column 55: Unterminated string starting at",
    ),
    (
        "incomplete",
        summary(complete=False, state="aborted"),
        None,
        "incomplete run: result_summary.json says complete = false; "
        "result_summary.json says state = aborted, not 'complete'",
    ),
    (
        "failed sample",
        summary(n_samples_failed=1),
        None,
        "failed samples: result_summary.json says n_samples_failed = 1",
    ),
    (
        "NaN percentile",
        json.dumps(summary()).replace("600000001.0", "NaN").encode(),
        None,
        f'{WHERE}: "ttft.early_stopping_percentiles."99.0"" is not finite: NaN',
    ),
    (
        "no early stopping",
        summary(tpot={"percentiles": {"99.0": 1.0}}),
        None,
        "a Server result needs tpot.early_stopping_percentiles at 99 in "
        "result_summary.json",
    ),
    (
        "no window",
        summary(legacy_loadgen_window_duration_ns=None),
        None,
        "a Server result needs a positive legacy_loadgen_window_duration_ns in "
        "result_summary.json",
    ),
    (
        "a list",
        b"[1, 2]",
        None,
        f"{WHERE}: expected a JSON object, got a JSON list",
    ),
    (
        "text result",
        summary(tps="fast"),
        None,
        f'{WHERE}: "tps": expected a number, got text',
    ),
    (
        "accuracy NaN",
        summary(),
        b'{"average_accuracy": NaN}',
        f'v6.1 {SERVER}/{ACC}: "average_accuracy" is not finite: NaN',
    ),
]


@pytest.mark.parametrize(
    ("result", "acc", "reason"),
    [case[1:] for case in HOSTILE],
    ids=[case[0] for case in HOSTILE],
)
def test_a_malformed_or_incomplete_file_is_a_named_rejection(
    result: bytes | dict, acc: bytes | None, reason: str
) -> None:
    results, rejected = scan(folder("deepseek-r1", "Server", result, acc))
    assert results.height == 0
    assert rejected.select("source_file", "reason").rows() == [
        (f"{SERVER}/{PERF}", reason)
    ]


def test_a_file_over_the_size_cap_is_a_named_rejection(tmp_path: Path) -> None:
    repo = tmp_path / "inference_results_v6.1"
    tree = {SYSTEM: system(), **folder("deepseek-r1", "Server", summary())}
    tree[f"{SERVER}/{PERF}"] = json.dumps(summary(pad="x" * 4000)).encode()
    for path, content in tree.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(content)
    source = Source(base=str(tmp_path), max_bytes=3000)
    paths = source.list_tree(repo.name)
    results, rejected = scan_raw_tree(
        paths,
        lambda p: source.fetch(repo.name, p).content,
        release="v6.1",
        repository="mlcommons/inference_results_v6.1",
    )
    assert results.height == 0
    (reason,) = rejected["reason"]
    assert reason.startswith(f"{WHERE}: unreadable (")
    assert reason.endswith("exceeds the cap of 3000 bytes; not read)")


def test_no_accuracy_file_and_an_unknown_benchmark_are_named() -> None:
    tree = folder("deepseek-r1", "Server", summary())
    del tree[f"{SERVER}/{ACC}"]
    tree.update(folder("llama9", "Offline", summary("Offline")))
    _, rejected = scan(tree)
    assert sorted(rejected.select("source_file", "reason").rows()) == [
        (f"{SERVER}/{PERF}", f"no {ACC} in {SERVER}"),
        (
            f"{DIR}/llama9/Offline/{PERF}",
            "no rule names the result field of benchmark 'llama9' in v6.1 endpoints "
            "results (endpoints.toml)",
        ),
    ]


def test_files_read_names_the_summary_accuracy_and_system() -> None:
    tree = {SYSTEM: system(), **folder("deepseek-r1", "Server", summary())}
    tree[f"{SERVER}/report.txt"] = b"x"
    assert files_read(list(tree), release="v6.1") == sorted(
        [SYSTEM, f"{SERVER}/{PERF}", f"{SERVER}/{ACC}"]
    )


def test_identical_inputs_give_identical_rows() -> None:
    tree = folder("deepseek-r1", "Server", summary())
    first, second = scan(tree), scan(dict(reversed(list(tree.items()))))
    assert first[0].equals(second[0])


def test_measured_latency_in_ms_per_result_and_its_published_key() -> None:
    from pipeline.extract.raw_tree import scan_raw_tree_measured
    from pipeline.transform.measured import MEASURED_SCHEMA, with_summary_keys

    tree = {
        SYSTEM: system(),
        **folder("deepseek-r1", "Server", summary()),
        **folder("deepseek-r1", "Offline", summary("Offline"), accuracy(80.5)),
        # Rejected (a failed sample): no result, so no measured row either.
        **folder("qwen3-vl-235b-a22b", "Server", summary(n_samples_failed=1)),
    }
    results, rejected, measured = scan_raw_tree_measured(
        list(tree),
        tree.__getitem__,
        release="v6.1",
        repository="mlcommons/inference_results_v6.1",
    )
    assert (results.height, rejected.height) == (2, 1)
    assert measured.schema == pl.Schema(MEASURED_SCHEMA)
    rows = {r["scenario"]: r for r in measured.iter_rows(named=True)}
    assert set(rows) == {"Offline", "Server"}
    server, offline = rows["Server"], rows["Offline"]
    # 200e6 ns = 200 ms; percentiles 50/90/99 = base x 1/2/3; early stopping 99 + 1 ns.
    assert (server["ttft_p50_ms"], server["ttft_p90_ms"], server["ttft_p99_ms"]) == (
        200.0,
        400.0,
        600.0,
    )
    assert server["ttft_es_ms"] == pytest.approx(600.000001)
    assert (server["tpot_p50_ms"], server["tpot_es_ms"]) == (
        20.0,
        pytest.approx(60.000001),
    )
    assert server["early_stopping_percentile"] == 99.0
    assert server["tokens_per_second_per_user"] == 50.0
    assert (server["accuracy"], offline["accuracy"]) == (81.25, 80.5)
    assert server["accuracy_file"] == f"{DIR}/deepseek-r1/Server/{ACC}"
    # Offline: empty distributions, accuracy only.
    assert (
        offline["ttft_p50_ms"] is None and offline["tokens_per_second_per_user"] is None
    )
    assert offline["early_stopping_percentile"] is None
    # The published key: the crosscheck's pair, else the tree's own where published.
    pairs = pl.LazyFrame(
        {
            "raw_result_key": [server["result_key"]],
            "summary_result_key": ["6.1-0001:deepseek-r1:Server"],
        }
    )
    keyed = with_summary_keys(
        measured.lazy(), pairs, results.lazy().filter(pl.col("scenario") == "Offline")
    ).collect()
    assert dict(keyed.select("scenario", "summary_result_key").iter_rows()) == {
        "Server": "6.1-0001:deepseek-r1:Server",
        "Offline": offline["result_key"],
    }
