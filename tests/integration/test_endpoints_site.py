"""The site built from v6.1 with the endpoints-harness files: what a reader sees.

The mirror is assembled at test time (tmp_path): the main mirror's v6.1
``summary.json`` plus ``../shared/mlperf-mirror-endpoints``'s v6.1 files (NVIDIA's
Vera Rubin NVL72; that folder's README.md documents them). Only v6.1 is built, through
the runner's ingest with ``site=True``. Values below are read from the six
``result_summary.json`` and ``accuracy_results.json`` files (nanoseconds / 1e6).
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

REPO = "inference_results_v6.1"
PLATFORM = "VR-NVL72_VR-288GB_aarch64x72_TRT"
FOLDER = f"closed/NVIDIA/results/{PLATFORM}"
#: (benchmark, scenario) -> TTFT p50, p90, p99, early stopping; TPOT the same (ms,
#: two decimals as shown); tokens/s per user (1000 / TPOT p50, one decimal).
MEASURED = {
    ("deepseek-r1", "Server"): (
        ("205.52", "253.33", "303.55", "304.65"),
        ("41.11", "46.27", "48.22", "48.22"),
        "24.3",
    ),
    ("deepseek-r1", "Interactive"): (
        ("264.9", "345.42", "475.32", "484.73"),
        ("10.53", "11.86", "12.55", "12.56"),
        "94.9",
    ),
    ("qwen3-vl-235b-a22b", "Server"): (
        ("1,800.56", "3,016.62", "4,413.22", "4,431.16"),
        ("115.6", "133", "161.42", "161.68"),
        "8.7",
    ),
    ("qwen3-vl-235b-a22b", "Interactive"): (
        ("308.81", "546.32", "906.47", "910.49"),
        ("12.36", "13.4", "14.13", "14.14"),
        "80.9",
    ),
}
#: average_accuracy of each accuracy/accuracy_results.json.
ACCURACY = {
    ("deepseek-r1", "Offline"): 81.35825,
    ("deepseek-r1", "Server"): 81.426618,
    ("deepseek-r1", "Interactive"): 80.628988,
    ("qwen3-vl-235b-a22b", "Offline"): 0.787182,
    ("qwen3-vl-235b-a22b", "Server"): 0.787415,
    ("qwen3-vl-235b-a22b", "Interactive"): 0.784513,
}


@pytest.fixture(scope="module")
def built(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from pipeline import runner

    endpoints = mirror.parent / "mlperf-mirror-endpoints" / REPO
    if not endpoints.is_dir():
        pytest.fail(f"the endpoints mirror is missing at {endpoints}")
    root = tmp_path_factory.mktemp("upstream")
    shutil.copytree(endpoints, root / REPO)
    shutil.copyfile(mirror / REPO / "summary.json", root / REPO / "summary.json")
    work = tmp_path_factory.mktemp("work")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_SOURCE", str(root))
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        env.delenv("MLPERF_LEDGER_SITE_URL", raising=False)
        (work / "build").mkdir()
        outcomes = runner.ingest(
            runner.get_instance(), ["v6.1"], progress=lambda _: None, site=True
        )
    assert all(o.success for o in outcomes), [o.message for o in outcomes]
    return {
        "site": work / "build" / "site",
        "assets": work / "data" / "assets",
        "upstream": root,
    }


def _text(path: Path) -> str:
    """A page's text: tags dropped, entities unescaped, spaces collapsed."""
    raw = re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8"))
    return re.sub(r"\s+", " ", html.unescape(raw))


def test_the_six_results_are_read_from_result_summary_json(built) -> None:
    tree = pl.read_parquet(
        built["assets"] / "core_mlperf__tree_results" / "v6.1.parquet"
    )
    assert tree.height == 6
    assert sorted(tree["source_file"]) == sorted(
        f"{FOLDER}/{b}/{s}/performance/result_summary.json" for b, s in ACCURACY
    )


def test_the_crosscheck_agrees_on_six(built) -> None:
    report = pl.read_parquet(built["assets"] / "core_mlperf__crosscheck" / "_.parquet")
    counts = dict(report.group_by("status").len().iter_rows())
    assert counts["agree"] == 6
    assert "disagree" not in counts and "raw_only" not in counts


def test_measured_latency_and_accuracy_reach_the_downloads(built) -> None:
    downloads = built["site"] / "generated" / "downloads"
    table = pl.read_csv(downloads / "measured_latency.csv")
    assert table.height == 6
    server = table.filter(pl.col("location") == f"{FOLDER}/deepseek-r1/Server").row(
        0, named=True
    )
    assert round(server["ttft_es_ms"], 2) == 304.65
    assert round(server["tpot_es_ms"], 2) == 48.22
    assert server["early_stopping_percentile"] == 99.0
    assert round(server["tokens_per_second_per_user"], 4) == round(
        1000 / server["tpot_p50_ms"], 4
    )
    # v6.1's summary gives these records no result ID: the key is the fallback one.
    assert (
        server["summary_result_key"]
        == f"v6.1:closed/NVIDIA/{PLATFORM}/deepseek-r1/Server"
    )
    accuracy = {
        tuple(r["location"].rsplit("/", 2)[1:]): r["accuracy"]
        for r in table.iter_rows(named=True)
    }
    assert accuracy == pytest.approx(ACCURACY, abs=1e-6)
    # The accuracy run's average_accuracy is summary.json's Accuracy (records 324-329,
    # which the canonical results table does not carry: this table does).
    summary = json.loads((built["upstream"] / REPO / "summary.json").read_text())
    stated = {
        (r["Model"], r["Scenario"]): float(r["Accuracy"])
        for r in summary.values()
        if r["Platform"] == PLATFORM
    }
    assert accuracy == pytest.approx(stated, rel=1e-12)
    package = json.loads((downloads / "datapackage.json").read_text())
    described = {r["name"]: r.get("description", "") for r in package["resources"]}
    assert "early-stopping estimate" in described["measured_latency"]


@pytest.mark.parametrize("benchmark", ["deepseek-r1", "qwen3-vl-235b-a22b"])
def test_interactivity_pages_show_measured_latency_beside_the_limits(
    built, benchmark: str
) -> None:
    text = _text(built["site"] / "generated" / "interactivity" / f"{benchmark}.html")
    assert "Latency as measured" in text
    for (b, scenario), (ttft, tpot, user) in MEASURED.items():
        if b != benchmark:
            continue
        row = re.search(
            rf"NVIDIA · [^·]*?NVL72[^·]*? {scenario} (.*?) (?:NVIDIA|$)", text
        )
        assert row, (benchmark, scenario)
        shown = row.group(1)
        for d, values in (("TTFT", ttft), ("TPOT", tpot)):
            p50, p90, p99, es = values
            assert (
                f"p50 {p50} · p90 {p90} · p99 {p99} early stopping (p99) {es}" in shown
            ), (d, shown)
        assert user in shown
    if benchmark == "deepseek-r1":
        assert "limit ≤ 2,000" in text and "limit ≤ 80" in text  # Server
        assert "limit ≤ 1,500" in text and "limit ≤ 15" in text  # Interactive
        # Bounded by TTFT and TPOT: no end-to-end column.
        assert "End-to-end latency" not in text
    else:
        # Bounded end to end (v6.1 checker's MODEL_CONFIG latency-constraint):
        # Server 12 s, Interactive 1.5 s, beside the measured distribution.
        assert "limit not in the registry" not in text
        assert "only the latency as measured is shown" in text
        assert (
            "Limits (99th percentile): Server: end-to-end query latency ≤ 12,000 "
            "ms; source ; Interactive: end-to-end query latency ≤ 1,500 ms; source ."
        ) in text
        assert "no limit: end-to-end latency is bounded" in text  # TTFT, TPOT
        for scenario, (p50, p90, p99, es), limit in (
            ("Server", ("6,768.62", "8,488.51", "10,326.9", "10,344.5"), "12,000"),
            ("Interactive", ("838.52", "1,100.51", "1,479.94", "1,483.69"), "1,500"),
        ):
            assert (
                f"p50 {p50} · p90 {p90} · p99 {p99} early stopping (p99) {es} "
                f"limit ≤ {limit}"
            ) in text, scenario
        assert "End-to-end latency (ms)" in text
    index = _text(built["site"] / "generated" / "interactivity" / "index.html")
    assert "Latency as measured" in index and benchmark in index
    if benchmark != "deepseek-r1":
        # Its systems are counted though it answers in queries, not tokens.
        assert re.search(
            r"v6\.1 qwen3-vl-235b-a22b end-to-end 12,000 ms end-to-end 1,500 ms "
            r"\S+ @ b66003e \d+ ",
            index,
        ), index


def test_the_vr_system_shows_its_memory_and_interconnect(built) -> None:
    systems = built["site"] / "generated" / "downloads" / "systems.csv"
    row = (
        pl.read_csv(systems, infer_schema=False)
        .filter(pl.col("platform") == PLATFORM)
        .row(0, named=True)
    )
    assert row["accelerator_memory_capacity_bytes"] == str(288 * 10**9)
    # The system's section on its family page, read from its system JSON.
    (page,) = [
        p
        for p in (built["site"] / "generated" / "systems").glob("*.html")
        if f'id="{row["system_id"]}"' in p.read_text()
    ]
    section = page.read_text().split(f'id="{row["system_id"]}"', 1)[1]
    section = html.unescape(section.split('<h2 id="', 1)[0])
    assert f"<code>{PLATFORM}</code>" in section
    assert f"<code>closed/NVIDIA/systems/{PLATFORM}.json</code>" in section
    for value in ("288 GB", "HBM4", "NVLink-C2C", "6th-gen NVLink andNVLink Switches"):
        assert f">{value}</td>" in section, value


def test_audit_counts_results_without_a_raw_file_once_and_names_the_file(
    built,
) -> None:
    report = pl.read_parquet(built["assets"] / "core_mlperf__crosscheck" / "_.parquet")
    counts = dict(report.group_by("status").len().iter_rows())
    # 492 published v6.1 results; the source holds the folders of six.
    assert counts == {"agree": 6, "not_in_source": 486}
    text = _text(built["site"] / "generated" / "audit.html")
    assert "No raw file in this source" in text
    assert "(v6.1: 486)" in text
    assert text.count("No raw file in this source") == 1
    assert "v6.1: result_summary.json (6)" in text
    # Not listed one by one as exceptions.
    assert "0 result(s) of rounds with a summary disagree" in text
