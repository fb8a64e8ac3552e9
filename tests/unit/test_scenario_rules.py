"""A folder holding another scenario's run, read as that round's checker read it.

One hand-written tree per checker rule of ``rounds.toml`` (evidence there): the v0.5
checker reported any run under its folder's scenario, v0.7 to v1.1 inferred Offline
from SingleStream and refused Offline from MultiStream or Server, v2.0 to v5.0 also
inferred Offline from MultiStream and reported every other pair as-is, v5.1 refused
an Interactive folder without a Server run, and v6.0 infers for edge systems only and
reports no other mismatch.
"""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.extract.raw_tree import scan_raw_tree
from tests.unit.test_raw_tree import RUN, SERVER, SINGLESTREAM, log, system

MULTISTREAM = log(
    "MultiStream",
    "99th percentile latency (ns) : 645374\n",
    result="VALID\nEarly Stopping Result:\n"
    " * Early stopping 99th percentile estimate: 645424",
    stats="Mean latency (ns)               : 637777\n",
)
OFFLINE = log("Offline", "Samples per second: 10\n")


def scan(release: str, runs: dict[str, str], system_type: str = "datacenter"):
    """Scan a tree with one system whose scenario folders hold ``runs``."""
    tree = {
        "closed/Acme/systems/box.json": system(system_type=system_type),
        **{
            f"closed/Acme/results/box/resnet50/{folder}/{RUN}": text.encode()
            for folder, text in runs.items()
        },
    }
    results, rejected = scan_raw_tree(
        sorted(tree),
        tree.__getitem__,
        release=release,
        repository=f"mlcommons/inference_results_{release}",
    )
    return results, rejected


def reason(rejected: pl.DataFrame, folder: str) -> str:
    (row,) = rejected.filter(pl.col("source_file").str.contains(f"/{folder}/")).rows(
        named=True
    )
    return row["reason"]


def test_v05_reports_any_run_under_its_folder() -> None:
    server = SERVER.replace("Completed samples", "Scheduled samples")  # v0.5's line
    results, rejected = scan("v0.5", {"Offline": server})
    assert rejected.is_empty()
    (row,) = results.rows(named=True)
    assert (row["scenario"], row["result_value"], row["result_unit"]) == (
        "Offline",
        1448.97,
        "Queries/s",
    )
    assert row["is_inferred"] is True
    assert row["result_unit_upstream"] == (
        "Scheduled samples per second of a Server run, reported as Offline as the "
        "v0.5 checker did"
    )


def test_v07_infers_offline_from_singlestream_and_refuses_it_from_multistream() -> None:
    results, rejected = scan(
        "v0.7",
        {"Offline": SINGLESTREAM, "MultiStream": SINGLESTREAM},
    )
    by = {r["scenario"]: r for r in results.rows(named=True)}
    assert by["Offline"]["result_value"] == pytest.approx(1e9 / 1319496)
    assert by["Offline"]["is_inferred"] is True
    # v0.7 predates early stopping: a MultiStream folder with a SingleStream run is
    # reported as-is, the run's 90th-percentile latency.
    assert by["MultiStream"]["result_value"] == pytest.approx(1.340856)
    legacy = log("MultiStream", "Samples per query : 8\n")  # before v2.0
    results, rejected = scan("v1.0", {"Offline": legacy})
    assert results.is_empty()
    assert reason(rejected, "Offline") == (
        "Offline directory holds a MultiStream run; the v1.0 submission checker "
        "refused it (rounds.toml rule from v0.7)"
    )


def test_v21_infers_offline_from_multistream_and_reports_other_pairs_as_is() -> None:
    results, rejected = scan("v2.1", {"Offline": MULTISTREAM, "Server": OFFLINE})
    assert rejected.is_empty()
    by = {r["scenario"]: r for r in results.rows(named=True)}
    assert by["Offline"]["result_value"] == pytest.approx(8 * 1e9 / 637777)
    assert by["Offline"]["result_unit_upstream"] == (
        "8 x 1e9 / Mean latency (ns) of a MultiStream run"
    )
    assert by["Server"]["result_value"] == 10.0
    assert by["Server"]["is_inferred"] is True


def test_v51_refuses_an_interactive_folder_without_a_server_run() -> None:
    results, rejected = scan("v5.1", {"Interactive": OFFLINE})
    assert results.is_empty()
    assert reason(rejected, "Interactive") == (
        "Interactive directory holds a Offline run; the v5.1 submission checker "
        "refused it (rounds.toml rule from v5.1)"
    )


def test_v60_infers_for_edge_systems_only() -> None:
    results, rejected = scan("v6.0", {"Offline": SINGLESTREAM})
    assert results.is_empty()
    assert reason(rejected, "Offline") == (
        "Offline directory holds a SingleStream run; the v6.0 submission checker "
        "infers Offline from SingleStream for edge systems only, and system_type is "
        "'datacenter' (rounds.toml rule from v6.0)"
    )
    results, rejected = scan("v6.0", {"Offline": SINGLESTREAM}, "datacenter,edge")
    assert rejected.is_empty()
    assert results["result_value"].to_list() == [pytest.approx(1e9 / 1319496)]


def test_v60_reports_no_other_mismatch() -> None:
    results, rejected = scan("v6.0", {"Server": OFFLINE}, "edge")
    assert results.is_empty()
    assert reason(rejected, "Server") == (
        "Server directory holds a Offline run; the v6.0 submission checker reports "
        "no such result (rounds.toml rule from v6.0)"
    )


def test_a_log_that_names_no_scenario_is_rejected_saying_so() -> None:
    nameless = OFFLINE.replace("Scenario : Offline\n", "")
    results, rejected = scan("v2.1", {"Offline": nameless})
    assert results.is_empty()
    assert reason(rejected, "Offline") == (
        f"v2.1 closed/Acme/results/box/resnet50/Offline/{RUN}: no 'Scenario :' line; "
        "not a loadgen mlperf_log_summary.txt"
    )
