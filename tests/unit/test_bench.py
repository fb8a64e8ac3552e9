"""The benchmark harness's pure parts and the Performance page, on hand-written data.

No timing is asserted anywhere: ``make bench`` measures, these tests only check that
the synthetic data, the summaries, the targets and the page are right.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import polars as pl
import pytest

from benchmarks import bench
from pipeline.analysis import analyse
from pipeline.render.performance_page import (
    CHART_CLASS,
    PAGE,
    render_performance_page,
)
from tests.unit.analysis.helpers import frame, row

EVIL = "<script>alert(1)</script> [x](javascript:alert(1)) | </script>"


def two_releases() -> pl.DataFrame:
    """One system in two releases (one system-level software gain), plus a scaling step."""
    return frame(
        row(release="v5.1", result_key="a", result_id="5.1-0001", result_value=100.0),
        row(release="v6.0", result_key="b", result_id=None, result_value=150.0),
        row(
            release="v6.0",
            result_key="c",
            platform="acme_big",
            system_name="Acme big box",
            total_accelerators=16,
            result_value=280.0,
        ),
    ).collect()


# -- replicate -------------------------------------------------------------------------


def test_replicate_once_is_the_table_itself():
    table = two_releases()
    assert bench.replicate(table, 1).equals(table)


def test_replicate_rejects_a_factor_below_one():
    with pytest.raises(ValueError, match="factor"):
        bench.replicate(two_releases(), 0)


def test_replicas_keep_the_schema_and_copy_zero_is_untouched():
    table = two_releases()
    out = bench.replicate(table, 4)
    assert out.schema == table.schema
    assert out.height == 4 * table.height
    assert out["result_key"].is_unique().all()
    originals = out.filter(pl.col("result_key").is_in(table["result_key"].to_list()))
    assert originals.sort("result_key").equals(table.sort("result_key"))


def test_replicas_look_like_new_submitters_with_jittered_values():
    table = two_releases()
    out = bench.replicate(table, 3, jitter=0.02)
    copy = out.filter(pl.col("result_key") == "a~2").row(0, named=True)
    assert (copy["submitter"], copy["platform"], copy["system_name"]) == (
        "Acme~2",
        "acme_box~2",
        "Acme box~2",
    )
    assert copy["result_id"] == "5.1-0001~2"
    assert copy["result_value"] == pytest.approx(100.0, rel=0.0101)
    assert copy["result_per_accelerator"] == pytest.approx(copy["result_value"] / 8)
    # A missing id stays missing rather than becoming "None~2".
    assert out.filter(pl.col("result_key") == "b~2")["result_id"].to_list() == [None]


def test_replicate_is_deterministic_and_the_seed_only_moves_values():
    table = two_releases()
    first, again = bench.replicate(table, 5), bench.replicate(table, 5)
    assert first.equals(again)
    other = bench.replicate(table, 5, seed=1)
    assert other["result_key"].to_list() == first["result_key"].to_list()
    assert not other["result_value"].equals(first["result_value"])


def test_replicated_pairs_grow_linearly_not_quadratically():
    table = two_releases()
    base, scaled = analyse(table), analyse(bench.replicate(table, 4))

    def system_gains(tables) -> int:
        gains = tables.software_gains
        return gains.filter(pl.col("identity_level") == "system").height

    assert system_gains(base) == 1
    assert system_gains(scaled) == 4
    # Best-of-any pairs compare the same hardware: more submitters, same pair count.
    hardware = pl.col("identity_level") == "hardware"
    assert (
        scaled.software_gains.filter(hardware).height
        == base.software_gains.filter(hardware).height
    )


# -- summaries and targets ---------------------------------------------------------


def summary(name: str, median: float, rows: int | None = None, **extra) -> dict:
    return {
        "name": name,
        "label": name,
        "median_s": median,
        "rows": rows,
        "peak_rss_bytes": extra.pop("rss", None),
        "detail": extra,
    }


def test_growth_exponent_is_one_for_linear_cost():
    small = summary("a", 1.0, rows=1_000)
    assert bench.growth_exponent(small, summary("b", 10.0, rows=10_000)) == (
        pytest.approx(1.0)
    )
    assert bench.growth_exponent(small, summary("b", 100.0, rows=10_000)) == (
        pytest.approx(2.0)
    )
    assert bench.growth_exponent(small, None) is None
    assert bench.growth_exponent(small, summary("b", 5.0, rows=1_000)) is None


def test_targets_pass_fail_and_not_measured():
    measured = [
        summary("cold_build", 40.0),
        summary("noop_rerun", 10.0),  # 25 % of cold: fails the 20 % target
        summary("incremental", 12.0),
        summary("analytics_x1", 0.3, rows=3_000),
        summary("analytics_x10", 1.0, rows=30_000),
    ]
    weights = {"largest": {"total_bytes": 2_000_000}}
    targets = {t["id"]: t for t in bench.evaluate_targets(measured, weights)}
    assert targets["analytics_real"]["passed"] is True
    assert targets["noop_share"]["passed"] is False
    assert targets["noop_share"]["value"] == pytest.approx(0.25)
    assert targets["incremental_share"]["passed"] is True
    assert targets["page_weight"]["passed"] is False
    for missing in ("analytics_x100_time", "analytics_x100_rss", "analytics_linear"):
        assert targets[missing]["passed"] is None


def test_x100_memory_target_is_in_gigabytes():
    measured = [
        summary("analytics_x10", 1.0, rows=30_000),
        summary("analytics_x100", 9.0, rows=300_000, rss=2_500_000_000),
    ]
    targets = {t["id"]: t for t in bench.evaluate_targets(measured)}
    assert targets["analytics_x100_time"]["passed"] is True
    assert targets["analytics_x100_rss"]["value"] == pytest.approx(2.5)
    assert targets["analytics_x100_rss"]["passed"] is False
    assert targets["analytics_linear"]["value"] == pytest.approx(0.954, abs=1e-3)


def test_measurement_summary_reports_the_median_of_repetitions():
    measurement = bench.Measurement("noop_rerun", "No-op")
    for seconds, rss in ((0.3, 100), (0.1, 300), (0.2, 200)):
        measurement.runs.append(
            bench.ChildRun({"seconds": seconds, "rows": 7, "runs": []}, 1.0, rss)
        )
    out = measurement.summary()
    assert out["median_s"] == pytest.approx(0.2)
    assert out["repetitions_s"] == [0.3, 0.1, 0.2]
    assert out["peak_rss_bytes"] == 300
    assert out["rows"] == 7
    assert out["detail"] == {"runs": []}


def test_page_weights_count_a_page_with_the_chart_files_it_loads(tmp_path: Path):
    site = tmp_path / "site"
    (site / "generated" / "charts" / "data").mkdir(parents=True)
    (site / "generated" / "charts" / "c.json").write_text(
        '{"data":{"url":"data/c.json"}}'
    )
    (site / "generated" / "charts" / "data" / "c.json").write_text(
        "[" + "1," * 99 + "1]"
    )
    (site / "generated" / "page.html").write_text(
        '<div class="vega-chart" data-spec="charts/c.json"></div>'
    )
    (site / "index.html").write_text("<p>home</p>")
    weights = bench.page_weights(site)
    largest = weights["largest"]
    assert largest["page"] == "generated/page.html"
    assert largest["chart_bytes"] == 30 + 201
    assert largest["total_bytes"] == largest["html_bytes"] + 231
    assert weights["pages"] == 2
    assert weights["site_files"] == 4


def test_page_budget_matches_the_site_check():
    from pipeline.defs.site import PAGE_BUDGET_BYTES

    assert bench.PAGE_BUDGET_BYTES == PAGE_BUDGET_BYTES


def test_mirror_releases_are_in_version_order(tmp_path: Path):
    for version in ("v6.1", "v10.0", "v4.1", "vX"):
        (tmp_path / f"inference_results_{version}").mkdir()
    assert [v for v, _ in bench.mirror_releases(tmp_path)] == ["v4.1", "v6.1", "v10.0"]


def test_child_entry_point_writes_its_report(tmp_path: Path, monkeypatch):
    monkeypatch.setitem(bench.CHILDREN, "analytics", lambda config: {"seconds": 1.5})
    config = tmp_path / "config.json"
    result = tmp_path / "result.json"
    config.write_text(json.dumps({"result": str(result)}))
    assert bench.main(["--child", "analytics", "--config", str(config)]) == 0
    assert json.loads(result.read_text()) == {"seconds": 1.5}


# -- the Performance page ----------------------------------------------------------


def results_dict(**overrides) -> dict:
    """A small hand-written results file, as ``make bench`` writes it."""
    measurements = [
        summary("cold_build", 40.0, rows=3397, rss=500_000_000),
        summary("noop_rerun", 0.05, rows=3397, rss=150_000_000),
        summary("incremental", 18.0, rows=3397, rss=430_000_000),
        summary("analytics_x1", 0.25, rows=3397, rss=200_000_000, scale=1),
        summary("analytics_x10", 1.1, rows=33970, rss=490_000_000, scale=10),
        summary("analytics_x100", 12.0, rows=339700, rss=2_700_000_000, scale=100),
        summary("raw_tree_scan", 0.3, rows=1449, list_s=0.2),
        summary("raw_tree_floor", 0.02),
    ]
    measurements[0]["label"] = EVIL
    measurements[0]["repetitions_s"] = [41.0, 40.0, 39.0]
    measurements[0]["detail"]["profile"] = {
        "runs": 15,
        "run_wall_s": 30.0,
        "step_s": 27.0,
        "timed_s": 40.0,
        "top_steps": [{"step": "core_mlperf__results", "seconds": 9.0}],
    }
    page_weights = {
        "pages": 48,
        "site_bytes": 19_000_000,
        "site_files": 288,
        "html_bytes": 5_500_000,
        "largest": {"page": "generated/scaling.html", "total_bytes": 1_200_000},
        "heaviest": [
            {
                "page": "generated/scaling.html",
                "html_bytes": 650_000,
                "chart_bytes": 550_000,
                "total_bytes": 1_200_000,
            }
        ],
        "budget_bytes": 1_500_000,
    }
    results = {
        "schema_version": 1,
        "repeat": 3,
        "quick": False,
        "machine": {
            "cpu_model": EVIL,
            "cores": 2,
            "usable_cores": 2,
            "ram_bytes": 25_000_000_000,
            "python": "3.11.7",
            "polars": "2.1.0",
            "dagster": "1.13.27",
            "pipeline_commit": "abc123",
            "date": "2026-11-29T12:00:00+00:00",
        },
        "measurements": measurements,
        "targets": bench.evaluate_targets(measurements, page_weights),
        "analytics_scaling": bench.analytics_scaling(measurements),
        "raw_tree": {
            "release": "v5.1",
            "files_read": 1574,
            "files_listed": 3023,
            "files_per_s": 5246.7,
            "floor_files_per_s": 78700.0,
            "overhead_ratio": 15.0,
        },
        "page_weights": page_weights,
    }
    results.update(overrides)
    return results


def test_page_without_results_says_none_are_committed():
    assert PAGE == "performance.md"
    for empty in (None, {}):
        page = render_performance_page(empty)
        assert "No benchmark results are committed: `benchmarks/results/latest.json`" in page
        assert "run `make bench`" in page


# -- which results the site shows ---------------------------------------------------


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch) -> Path:
    """A project root and build folder of our own, so the real checkout is not read."""
    from pipeline import settings

    root = tmp_path / "checkout"
    root.mkdir()
    monkeypatch.setattr(settings, "PROJECT_ROOT", root)
    monkeypatch.setenv("MLPERF_BUILD_DIR", str(tmp_path / "build"))
    return root


def commit_results(root: Path, text: str) -> None:
    path = root / "benchmarks" / "results" / "latest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def local_bench_run(tmp_path: Path) -> None:
    """What `make bench` used to leave behind, and the site used to show."""
    local = results_dict()
    local["machine"]["date"] = "2031-01-01T00:00:00+00:00"
    path = tmp_path / "build" / "bench" / "results.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(local))


@pytest.mark.parametrize("committed", [False, True])
def test_page_is_byte_identical_with_or_without_a_local_bench_run(
    checkout: Path, tmp_path: Path, committed: bool
):
    from pipeline.defs.site import performance_page_markdown

    if committed:
        commit_results(checkout, json.dumps(results_dict()))
    without = performance_page_markdown()
    local_bench_run(tmp_path)
    with_local = performance_page_markdown()
    assert with_local.encode() == without.encode()
    assert "2031-01-01" not in with_local
    if committed:
        assert "| Measured | 2026-11-29T12&#58;00&#58;00+00&#58;00 |" in without
    else:
        assert "No benchmark results are committed" in without


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            '{"schema_version": 1,',
            "not valid JSON &#40;Expecting property name enclosed in double quotes at line 1 column 22&#41;",
        ),
        ("[1, 2]", "expected a JSON object, found list"),
        (
            '{"schema_version": 0}',
            "schema&#95;version 0, this page reads 1; run make bench again",
        ),
    ],
)
def test_an_unreadable_committed_file_is_named_with_its_reason(
    checkout: Path, text: str, reason: str
):
    from pipeline.defs.site import performance_page_markdown

    commit_results(checkout, text)
    page = performance_page_markdown()
    assert page.startswith(
        "# Performance\n\nThe committed benchmark results file "
        "`benchmarks/results/latest.json` cannot be shown: "
    )
    assert reason in page
    assert "## Targets" not in page


def test_page_shows_targets_with_pass_and_fail_marks():
    page = render_performance_page(results_dict())
    targets = page.split("## Targets", 1)[1].split("\n## ", 1)[0]
    assert "| Analytics on the real data | 0.250 s | &lt; 1 s | ✅ pass |" in targets
    assert "| Analytics at x100 synthetic | 12.0 s | &lt; 10 s | ❌ fail |" in targets
    assert "2.70 GB | &lt; 2 GB | ❌ fail |" in targets
    assert "0.1 % | &lt; 20 % of cold | ✅ pass |" in targets


def test_page_lists_measurements_machine_raw_tree_and_page_weights():
    page = render_performance_page(results_dict())
    assert "41.0 s, 40.0 s, 39.0 s" in page
    assert "| Cores | 2 |" in page
    assert "| RAM | 25.00 GB |" in page
    assert "**×15.0**" in page
    assert "| <code>generated/scaling.html</code> | 650 kB | 550 kB | 1.2 MB |" in page
    assert "<code>core&#95;mlperf&#95;&#95;results</code> | 9.00 s |" in page
    assert "10.0 s passed outside any run" in page
    assert "Smoke run" not in page
    assert "Smoke run" in render_performance_page(results_dict(quick=True))


def test_page_escapes_every_string_from_the_results_file():
    page = render_performance_page(results_dict())
    assert "<script>alert" not in page
    assert "](javascript:" not in page
    assert "&lt;script&gt;alert&#40;1&#41;&lt;/script&gt;" in page
    # The cell separator in a label cannot split a table row.
    assert " &#124; " in page


def test_page_embeds_a_log_log_chart_inline():
    page = render_performance_page(results_dict())
    container = re.search(
        rf'<div class="{CHART_CLASS}" id="[^"]+" role="figure" aria-label="[^"]+">\n'
        r'<img class="vega-fallback" src="data:image/svg\+xml;base64,([^"]+)"[^>]*>\n'
        r'<script type="application/json">([^<]+)</script>\n</div>',
        page,
    )
    assert container, page
    assert base64.b64decode(container.group(1)).startswith(b"<svg")
    spec = json.loads(container.group(2))
    lines = spec["layer"][0]
    assert lines["encoding"]["x"]["scale"]["type"] == "log"
    assert lines["encoding"]["y"]["scale"]["type"] == "log"
    measured = [v for v in lines["data"]["values"] if v["series"] == "measured"]
    assert [(v["scale"], v["rows"]) for v in measured] == [
        ("x1", 3397.0),
        ("x10", 33970.0),
        ("x100", 339700.0),
    ]
    # The chart is not a `vega-chart`: charts.js would look for a data-spec file.
    assert 'class="vega-chart"' not in page


def test_inline_spec_cannot_close_its_script_element():
    results = results_dict()
    results["analytics_scaling"][0]["scale"] = 1
    page = render_performance_page(results)
    script = page.split('<script type="application/json">', 1)[1].split("</script>")[0]
    assert "<" not in script and ">" not in script and "&" not in script


def test_page_tolerates_a_partial_or_odd_results_file():
    odd = {
        "repeat": "three",
        "measurements": [{"name": "cold_build", "median_s": "fast"}],
        "targets": [{"label": "x", "value": None, "passed": None}],
        "analytics_scaling": [{"scale": 1, "rows": 0, "median_s": 1.0}],
    }
    page = render_performance_page(odd)
    assert "— not measured" in page
    assert CHART_CLASS not in page
