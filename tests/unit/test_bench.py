"""The benchmark harness's pure parts and the Performance page, on hand-written data.

No timing is asserted anywhere: ``make bench`` measures, these tests only check that
the synthetic data, the summaries, the targets and the page are right.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import polars as pl
import pytest

from benchmarks import bench, children, config, judging, report, workloads
from pipeline.render import performance_page
from pipeline.render.model import Model
from pipeline.render.pages import write_pages
from pipeline.render.performance_page import PAGE, render_performance_page
from pipeline.render.site_data import SNAPSHOT_SCHEMA, SiteData, empty_pairs
from pipeline.transform.results import empty_rejected
from tests.analysed import analyse
from tests.unit.analysis.helpers import frame, row

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

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
    assert children.replicate(table, 1).equals(table)


def test_replicate_rejects_a_factor_below_one():
    with pytest.raises(ValueError, match="factor"):
        children.replicate(two_releases(), 0)


def test_replicas_keep_the_schema_and_copy_zero_is_untouched():
    table = two_releases()
    out = children.replicate(table, 4)
    assert out.schema == table.schema
    assert out.height == 4 * table.height
    assert out["result_key"].is_unique().all()
    originals = out.filter(pl.col("result_key").is_in(table["result_key"].to_list()))
    assert originals.sort("result_key").equals(table.sort("result_key"))


def test_replicas_look_like_new_submitters_with_jittered_values():
    table = two_releases()
    out = children.replicate(table, 3, jitter=0.02)
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
    first, again = children.replicate(table, 5), children.replicate(table, 5)
    assert first.equals(again)
    other = children.replicate(table, 5, seed=1)
    assert other["result_key"].to_list() == first["result_key"].to_list()
    assert not other["result_value"].equals(first["result_value"])


def test_replicated_pairs_grow_linearly_not_quadratically():
    table = two_releases()
    base, scaled = analyse(table), analyse(children.replicate(table, 4))

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


# -- floors, ratios and targets -------------------------------------------------------


def summary(name: str, median: float | None, rows: int | None = None, **extra) -> dict:
    return {
        "name": name,
        "label": extra.pop("label", name),
        "role": "floor"
        if name in FLOOR_NAMES or name.startswith("read_")
        else "measure",
        "median_s": median,
        "rows": rows,
        "peak_rss_bytes": extra.pop("rss", None),
        "detail": extra,
    }


FLOOR_NAMES = {
    "import_dagster", "mkdocs_summary4", "mkdocs_full", "raw_tree_floor",
    "ingest_git_plain",
}  # fmt: skip


def issue_today() -> list[dict]:
    """The issue's "now" column, with floors that add up to its 1.5 s."""
    return [
        summary("import_dagster", 0.5, label="Floor: a process that imports dagster"),
        summary("read_summary4", 0.54, label="Floor: read + parse the four rounds"),
        summary("mkdocs_summary4", 0.4, label="Floor: plain mkdocs of 48 pages"),
        summary("read_full", 1.3),
        summary("mkdocs_full", 0.4),
        summary("read_added", 0.02),
        summary("read_table_x100", 0.5, rows=339_700, rss=700_000_000),
        summary("cold_summary4", 51.0, rows=3397, rss=500_000_000),
        summary("cold_full", 92.0, rows=9000),
        summary("noop_update", 2.3),
        summary("incremental", 45.08),
        summary("analytics_x100", 6.5, rows=339_700, rss=1_750_000_000, scale=100),
    ]


def judged(measurements: list[dict], **separately) -> dict[str, dict]:
    floors = judging.compute_floors(measurements)
    with_ratios = judging.with_ratios(measurements, floors)
    return {t["id"]: t for t in judging.evaluate_targets(with_ratios, separately)}


def test_a_build_floor_adds_reading_importing_and_a_plain_mkdocs_build():
    floors = judging.compute_floors(issue_today())
    assert floors["floor_summary4"]["seconds"] == pytest.approx(1.44)
    assert floors["floor_summary4"]["parts"] == {
        "read_summary4": 0.54,
        "import_dagster": 0.5,
        "mkdocs_summary4": 0.4,
    }
    assert floors["floor_full"]["seconds"] == pytest.approx(2.2)
    assert floors["floor_process"]["seconds"] == pytest.approx(0.5)
    assert floors["floor_incremental"]["seconds"] == pytest.approx(0.92)
    assert floors["floor_analytics_x100"]["seconds"] == pytest.approx(0.5)
    assert floors["floor_analytics_x100"]["peak_rss_bytes"] == 700_000_000


def test_every_measurement_gets_its_ratio_to_its_floor():
    measured = judging.with_ratios(issue_today(), judging.compute_floors(issue_today()))
    by = {m["name"]: m for m in measured}
    assert by["cold_summary4"]["floor"] == "floor_summary4"
    assert by["cold_summary4"]["ratio"] == pytest.approx(51.0 / 1.44)
    assert by["noop_update"]["ratio"] == pytest.approx(4.6)
    assert by["analytics_x100"]["ratio"] == pytest.approx(13.0)
    assert by["analytics_x100"]["rss_ratio"] == pytest.approx(2.5)
    # Floors themselves are not judged against a floor.
    assert by["read_full"]["floor"] is None and by["read_full"]["ratio"] is None


def test_a_floor_with_a_missing_part_gives_no_ratio_rather_than_a_flattering_one():
    measured = [m for m in issue_today() if m["name"] != "mkdocs_summary4"]
    floors = judging.compute_floors(measured)
    assert floors["floor_summary4"]["seconds"] is None
    by = {m["name"]: m for m in judging.with_ratios(measured, floors)}
    assert by["cold_summary4"]["ratio"] is None


@pytest.mark.parametrize(
    ("value", "floor", "expected"),
    [(3.0, 1.5, 2.0), (3.0, 0.0, None), (None, 1.0, None), (1.0, None, None)],
)
def test_ratio(value, floor, expected):
    assert judging.ratio(value, floor) == expected


def test_the_issue_figures_of_today_fail_every_target_they_cover():
    targets = judged(issue_today())
    assert [t for t in targets] == [
        "cold_summary4",
        "cold_summary4_floor",
        "cold_full",
        "noop_update",
        "cold_full_floor",
        "noop_share",
        "incremental_share",
        "correction_share",
        "analytics_x100_time",
        "analytics_x100_rss",
        "cold_git_full",
        "diff_many_keys_rss",
        "oversized_rss",
        "make_test",
        "make_test_fast",
    ]
    for key in list(targets)[:10]:
        if key != "correction_share":  # not measured in the issue's figures
            assert targets[key]["passed"] is False, key
    assert targets["correction_share"]["passed"] is None
    assert targets["cold_full_floor"]["value"] == pytest.approx(92.0 / 2.2)
    assert targets["noop_share"]["value"] == pytest.approx(2.3 / 92.0)
    assert targets["cold_summary4"]["value"] == 51.0
    assert targets["cold_summary4"]["ratio"] == pytest.approx(35.4167, abs=1e-4)
    assert targets["cold_summary4_floor"]["value"] == pytest.approx(35.4167, abs=1e-4)
    assert targets["incremental_share"]["value"] == pytest.approx(0.49)
    assert targets["incremental_share"]["ratio"] == pytest.approx(49.0)
    assert targets["analytics_x100_rss"]["value"] == pytest.approx(1.75)
    assert targets["analytics_x100_rss"]["ratio"] == pytest.approx(2.5)


@pytest.mark.parametrize(
    ("padded_mb", "passed"), [(310.0, True), (367.0, True), (368.0, False)]
)
def test_an_oversized_file_is_judged_by_peak_memory_against_the_plain_round(
    padded_mb: float, passed: bool
) -> None:
    """Issue 33: a 200 MB file refused unread peaks within 20% of the plain round."""
    measured = [
        *issue_today(),
        summary("ingest_git_plain", 11.0, rss=306 * 2**20),
        summary("ingest_git_oversized", 12.0, rss=int(padded_mb * 2**20)),
    ]
    target = judged(measured)["oversized_rss"]
    assert target["value"] == pytest.approx(padded_mb / 306)
    assert target["passed"] is passed


@pytest.mark.parametrize(
    ("git_s", "passed"), [(92.0, True), (119.0, True), (121.0, False)]
)
def test_the_git_build_is_judged_against_the_folder_build_of_the_same_run(
    git_s: float, passed: bool
) -> None:
    measured = [*issue_today(), summary("cold_git_full", git_s, rows=9000)]
    target = judged(measured)["cold_git_full"]
    assert target["value"] == pytest.approx(git_s / 92.0)
    assert target["passed"] is passed


def test_make_test_is_not_measured_unless_given_and_says_where_it_comes_from():
    targets = judged(issue_today())
    assert targets["make_test"]["passed"] is None
    assert targets["make_test"]["value"] is None
    assert (
        targets["make_test"]["note"] == "measured separately, given with --make-test-s"
    )
    given = judged(issue_today(), make_test_s=281.0, make_test_fast_s=30.0)
    assert given["make_test"]["passed"] is True
    # "< 30 s" is strict: exactly 30 s fails.
    assert given["make_test_fast"]["passed"] is False


def test_targets_pass_at_their_limits_and_name_the_floor_ratio():
    measured = issue_today()
    for m in measured:
        m["median_s"] = {
            "cold_summary4": 8.0,
            "cold_full": 20.0,
            "noop_update": 1.0,
            "incremental": 4.0,
            "analytics_x100": 4.0,
        }.get(m["name"], m["median_s"])
    measured[-1]["peak_rss_bytes"] = 1_000_000_000
    targets = judged(measured)
    for key in (
        "cold_summary4",
        "cold_summary4_floor",
        "cold_full",
        "noop_update",
        "incremental_share",
        "analytics_x100_time",
        "analytics_x100_rss",
    ):
        assert targets[key]["passed"] is True, key
    assert targets["cold_summary4_floor"]["value"] == pytest.approx(8.0 / 1.44)


def test_issue_35_targets_judge_cold_against_3x_its_floor_and_updates_as_shares():
    measured = [
        *issue_today(),
        summary("read_corrected", 0.03),
        summary("correction", 23.0),
    ]
    for m in measured:
        m["median_s"] = {"cold_full": 6.6, "noop_update": 0.066}.get(
            m["name"], m["median_s"]
        )
    targets = judged(measured)
    # Floor of the full build: 1.3 + 0.5 + 0.4 = 2.2 s; 6.6 s is exactly 3x.
    assert targets["cold_full_floor"]["value"] == pytest.approx(3.0)
    assert targets["cold_full_floor"]["passed"] is True
    assert targets["noop_share"]["value"] == pytest.approx(0.01)
    assert targets["noop_share"]["passed"] is True
    # 23 s of a 6.6 s cold build: far over a quarter; its floor has its own file.
    assert targets["correction_share"]["value"] == pytest.approx(23.0 / 6.6)
    assert targets["correction_share"]["passed"] is False
    floors = judging.compute_floors(measured)
    assert floors["floor_correction"]["parts"] == {
        "read_corrected": 0.03, "import_dagster": 0.5, "mkdocs_full": 0.4,
    }  # fmt: skip


def test_the_profile_table_splits_the_process_into_parts_that_add_up():
    cold = summary(
        "cold_full",
        30.0,
        label="Cold build, full mirror",
        profile={
            "runs": 2,
            "run_wall_s": 26.0,
            "step_s": 20.0,
            "top_steps": [
                {"step": "out_site__pages", "seconds": 7.0},
                {"step": "out_site__published", "seconds": 6.0},
            ],
            "timed_s": 30.0,
        },
    )
    rows = report.profile_rows(cold)
    assert rows == [
        ("out_site__pages", 7.0, pytest.approx(7 / 30)),
        ("out_site__published", 6.0, pytest.approx(0.2)),
        ("other steps", 7.0, pytest.approx(7 / 30)),
        ("Dagster outside the steps (launch, events, IO)", 6.0, pytest.approx(0.2)),
        (
            "outside any run (start, imports, instance, discovery, stop)",
            4.0,
            pytest.approx(4 / 30),
        ),
    ]
    assert sum(share for _, _, share in rows) == pytest.approx(1.0)
    text = report.render_report({"measurements": [cold], "targets": []})
    assert "  Where the time goes: Cold build, full mirror (last repetition)" in text
    (pages,) = [line for line in text.splitlines() if "out_site__pages" in line]
    assert pages.startswith("    out_site__pages ")
    assert pages.endswith("    7.00 s   23.3 %")
    # Floors and measurements without a profile get no table.
    assert report.profile_rows(summary("import_dagster", 0.5)) == []
    assert report.profile_rows(summary("noop_update", 0.2)) == []


def test_growth_exponent_is_one_for_linear_cost():
    small = summary("a", 1.0, rows=1_000)
    assert report.growth_exponent(small, summary("b", 10.0, rows=10_000)) == (
        pytest.approx(1.0)
    )
    assert report.growth_exponent(small, summary("b", 100.0, rows=10_000)) == (
        pytest.approx(2.0)
    )
    assert report.growth_exponent(small, None) is None
    assert report.growth_exponent(small, summary("b", 5.0, rows=1_000)) is None


def test_console_report_shows_value_ratio_and_verdict_of_every_target():
    floors = judging.compute_floors(issue_today())
    measured = judging.with_ratios(issue_today(), floors)
    text = report.render_report(
        {"measurements": measured, "targets": judging.evaluate_targets(measured)}
    )
    lines = text.splitlines()
    cold = next(
        line for line in lines if "[FAIL] Cold build, four summary rounds (" in line
    )
    assert re.fullmatch(
        r"  \[FAIL\] Cold build, four summary rounds \(v4\.1–v6\.1\) +51 s +35\.4x floor  target ≤ 8 s",
        cold,
    ), cold
    share = next(line for line in lines if "One new release" in line)
    assert (
        "49.0 %" in share
        and "49.0x floor" in share
        and "target ≤ 20 % of cold" in share
    )
    make_test = next(line for line in lines if "`make test`" in line)
    assert make_test.startswith("  [n/a ] `make test`")
    assert make_test.endswith("(measured separately, given with --make-test-s)")
    # Floors are listed as floors of others, not as measurements of their own.
    assert not any(line.startswith("  Floor:") for line in lines)
    noop = next(line for line in lines if line.startswith("  noop_update"))
    assert "median    2.3 s" in noop and "floor    0.5 s (  4.6x)" in noop


def test_measurement_summary_reports_the_median_of_repetitions():
    measurement = workloads.Measurement("noop_update", "No-op")
    for seconds, rss in ((0.3, 100), (0.1, 300), (0.2, 200)):
        measurement.runs.append(
            children.ChildRun({"seconds": seconds, "rows": 7, "runs": []}, 1.0, rss)
        )
    out = measurement.summary()
    assert out["median_s"] == pytest.approx(0.2)
    assert out["repetitions_s"] == [0.3, 0.1, 0.2]
    assert out["peak_rss_bytes"] == 300
    assert out["rows"] == 7
    assert out["role"] == "measure"
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
    weights = report.page_weights(site)
    largest = weights["largest"]
    assert largest["page"] == "generated/page.html"
    assert largest["chart_bytes"] == 30 + 201
    assert largest["total_bytes"] == largest["html_bytes"] + 231
    assert weights["pages"] == 2
    assert weights["site_files"] == 4


def test_a_full_run_writes_the_file_to_commit_a_smoke_run_writes_aside(
    tmp_path: Path, monkeypatch
):
    monkeypatch.setenv("MLPERF_BUILD_DIR", str(tmp_path / "build"))
    assert (
        bench.results_path(quick=False)
        == config.ROOT / "benchmarks/results/latest.json"
    )
    assert bench.results_path(quick=True) == tmp_path / "build" / "bench" / "quick.json"


def test_the_analytics_measured_are_the_analytics_assets():
    assert children.analytics_asset_keys() == [
        "_out_mlperf__pair_candidates",
        "out_mlperf__exclusions",
        "out_mlperf__generation_ratios",
        "out_mlperf__results",
        "out_mlperf__scaling",
        "out_mlperf__software_gains",
    ]


# -- mirrors, mkdocs floor and processes ----------------------------------------------


def test_mirror_releases_are_in_version_order(tmp_path: Path):
    for version in ("v6.1", "v10.0", "v4.1", "vX"):
        (tmp_path / f"inference_results_{version}").mkdir()
    assert [v for v, _ in workloads.mirror_releases(tmp_path)] == [
        "v4.1",
        "v6.1",
        "v10.0",
    ]


def test_a_partial_mirror_holds_copies_never_symlinks(tmp_path: Path):
    mirror = tmp_path / "mirror"
    for version in ("v4.1", "v5.1", "v6.1"):
        folder = mirror / f"inference_results_{version}" / "closed"
        folder.mkdir(parents=True)
        (folder / "summary.json").write_text(f'{{"v": "{version}"}}')
    target = workloads.copy_mirror(mirror, ["v4.1", "v6.1"], tmp_path / "copy")
    copied = sorted(p.relative_to(target).as_posix() for p in target.rglob("*"))
    assert copied == [
        "inference_results_v4.1",
        "inference_results_v4.1/closed",
        "inference_results_v4.1/closed/summary.json",
        "inference_results_v6.1",
        "inference_results_v6.1/closed",
        "inference_results_v6.1/closed/summary.json",
    ]
    assert not any(p.is_symlink() for p in target.rglob("*"))
    with pytest.raises(config.BenchError, match=r"mirror: no folder for v6\.0$"):
        workloads.copy_mirror(mirror, ["v4.1", "v6.0"], tmp_path / "other")


def test_the_mkdocs_floor_has_as_many_pages_as_the_site(tmp_path: Path):
    config = workloads.plain_mkdocs_project(tmp_path / "floor", 48)
    assert "name: material" in config.read_text()
    assert len(list((tmp_path / "floor" / "docs").rglob("*.md"))) == 48
    # Laid out like the site: pages in sections, so navigation.prune has work to do.
    assert "navigation.prune" in config.read_text()
    assert len(list((tmp_path / "floor" / "docs").glob("section-*"))) == 2
    site = tmp_path / "state" / "build" / "site"
    (site / "generated").mkdir(parents=True)
    for name in ("index.html", "404.html", "generated/a.html", "generated/b.html"):
        (site / name).write_text("<p>x</p>")
    assert workloads.built_pages(tmp_path / "state") == 3


def test_a_failing_process_is_named_with_its_exit_code_and_output(tmp_path: Path):
    argv = [sys.executable, "-c", "print('no canonical table'); raise SystemExit(3)"]
    with pytest.raises(config.BenchError) as failure:
        children.run_process("cold_full", argv, {}, tmp_path / "cold.log")
    message = str(failure.value)
    assert message.startswith(
        f"cold_full: exit code 3; last lines of {tmp_path / 'cold.log'}:"
    )
    assert message.endswith("\nno canonical table")


def test_child_entry_point_writes_its_report(tmp_path: Path, monkeypatch):
    monkeypatch.setitem(children.CHILDREN, "analytics", lambda config: {"seconds": 1.5})
    config = tmp_path / "config.json"
    result = tmp_path / "result.json"
    config.write_text(json.dumps({"result": str(result)}))
    assert bench.main(["--child", "analytics", "--config", str(config)]) == 0
    assert json.loads(result.read_text()) == {"seconds": 1.5}


@pytest.mark.parametrize("value", ["-1", "0", "nan", "fast"])
def test_a_separately_measured_figure_must_be_positive_seconds(value, capsys):
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--make-test-s", value])
    assert exit_.value.code == 2
    assert "--make-test-s: " in capsys.readouterr().err


# -- the Performance page ----------------------------------------------------------


def results_dict(**overrides) -> dict:
    """A small hand-written results file, as ``make bench`` writes it."""
    measurements = [
        *issue_today(),
        summary("read_table_x1", 0.01, rows=3397, rss=150_000_000),
        summary("read_table_x10", 0.05, rows=33970, rss=200_000_000),
        summary("analytics_x1", 0.25, rows=3397, rss=200_000_000, scale=1),
        summary("analytics_x10", 1.1, rows=33970, rss=490_000_000, scale=10),
        summary("raw_tree_scan", 0.3, rows=1449, list_s=0.2),
        summary("raw_tree_floor", 0.02),
    ]
    cold = next(m for m in measurements if m["name"] == "cold_summary4")
    cold["label"] = EVIL
    cold["repetitions_s"] = [52.0, 51.0, 50.0]
    cold["detail"]["profile"] = {
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
        "schema_version": 2,
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
        **bench.summarise(
            measurements, {"make_test_s": None, "make_test_fast_s": 24.0}
        ),
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
        assert (
            "No benchmark results are committed: `benchmarks/results/latest.json`"
            in page
        )
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
    from pipeline.defs.website import bench_results

    if committed:
        commit_results(checkout, json.dumps(results_dict()))
    without = render_performance_page(*bench_results())
    local_bench_run(tmp_path)
    with_local = render_performance_page(*bench_results())
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
            "schema&#95;version 0, this page reads 2; run make bench again",
        ),
    ],
)
def test_an_unreadable_committed_file_is_named_with_its_reason(
    checkout: Path, text: str, reason: str
):
    from pipeline.defs.website import bench_results

    commit_results(checkout, text)
    page = render_performance_page(*bench_results())
    assert page.startswith(
        "# Performance\n\nThe committed benchmark results file "
        "`benchmarks/results/latest.json` cannot be shown: "
    )
    assert reason in page
    assert "## Targets" not in page


def section(page: str, title: str) -> str:
    return page.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_page_shows_every_target_with_its_value_floor_ratio_and_verdict():
    targets = section(render_performance_page(results_dict()), "Targets")
    assert "| Target | Measured | × floor | Goal | Result |" in targets
    for line in (
        '| Cold build, four summary rounds &#40;v4.1–v6.1&#41; | 51.0 s | ×35.4 | ≤ 8 s | <span class="ledger-badge ledger-badge--fail">fail</span> |',
        '| Cold build, four summary rounds, against its floor | ×35.4 | ×35.4 | ≤ 6× floor | <span class="ledger-badge ledger-badge--fail">fail</span> |',
        '| Cold build, full mirror | 92.0 s | ×41.8 | ≤ 20 s | <span class="ledger-badge ledger-badge--fail">fail</span> |',
        '| No-op update, whole process | 2.30 s | ×4.6 | ≤ 1.0 s | <span class="ledger-badge ledger-badge--fail">fail</span> |',
        '| One new release, share of the cold build &#40;full mirror&#41; | 49.0 % | ×49.0 | ≤ 20 % of cold | <span class="ledger-badge ledger-badge--fail">fail</span> |',
        '| Analytics assets at 100× data | 6.50 s | ×13.0 | ≤ 4 s | <span class="ledger-badge ledger-badge--fail">fail</span> |',
        '| Analytics assets at 100× data, peak RSS | 1.75 GB | ×2.5 | ≤ 1 GB | <span class="ledger-badge ledger-badge--fail">fail</span> |',
        "| &#96;make test&#96;, whole suite | — | — | ≤ 5 min (measured separately, given with --make-test-s) | — not measured |",
        '| &#96;make test-fast&#96;, unit tests | 24.0 s | — | &lt; 30 s (measured separately, given with --make-test-fast-s) | <span class="ledger-badge ledger-badge--pass">pass</span> |',
    ):
        assert line in targets, line
    assert (
        "| Cold fetch and build over git &#40;local server&#41;, against the folder "
        "build | — | — | ≤ 1.3× the folder build | — not measured |"
    ) in targets
    assert (
        "| Snapshot diff with 160 invented keys per record, peak RSS against the real "
        "diff&#39;s | — | — | ≤ 3× the real file&#39;s | — not measured |"
    ) in targets
    assert targets.count("\n| ") == 16  # header + fifteen targets


def test_page_lists_measurements_against_floors_and_the_floors_parts():
    page = render_performance_page(results_dict())
    measured = section(page, "Measurements")
    assert (
        "| Measurement | Median | Repetitions | Floor | × floor | Peak RSS | Rows |"
        in measured
    )
    assert (
        "| 51.0 s | 52.0 s, 51.0 s, 50.0 s | 1.44 s | ×35.4 | 500.0 MB | 3,397 |"
        in measured
    )
    assert "| noop&#95;update | 2.30 s | — | 0.500 s | ×4.6 | — | — |" in measured
    # Floors are not measurements of their own.
    assert "read&#95;full" not in measured and "Floor&#58;" not in measured
    floors = section(page, "Floors")
    assert (
        "| read + parse the four rounds, import dagster, plain mkdocs | "
        "Floor&#58; read + parse the four rounds (0.540 s) + "
        "Floor&#58; a process that imports dagster (0.500 s) + "
        "Floor&#58; plain mkdocs of 48 pages (0.400 s) | 1.44 s |"
    ) in floors
    scaling = section(page, "Analytics cost against rows")
    assert (
        "| x100 | 339,700 | 6.50 s | 0.500 s | ×13.0 | 1.75 GB | 0 | 19.1 µs |"
        in scaling
    )


def test_page_lists_machine_raw_tree_and_page_weights():
    page = render_performance_page(results_dict())
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


def built_page(tmp_path: Path, results: dict) -> tuple[str, Path]:
    """The Performance page as a site build writes it, and its charts folder."""
    data = SiteData(
        results=frame(row()).collect(),
        rejected=empty_rejected(),
        gains=empty_pairs(),
        generations=empty_pairs(),
        scaling=empty_pairs(),
        snapshots=pl.DataFrame(schema=SNAPSHOT_SCHEMA),
        lineage_mermaid="flowchart LR",
        pipeline_commit="test",
        built_at="2026-01-01T00:00:00+00:00",
        bench=results,
    )
    out = tmp_path / "generated"
    model = Model(data=data, results=data.results, releases=("v5.1",))
    write_pages(model, out, [performance_page])
    return (out / PAGE).read_text(), out / "charts"


def test_page_charts_cost_on_log_log_axes_with_the_target(tmp_path: Path):
    page, charts_dir = built_page(tmp_path, results_dict())
    assert (
        '<div class="vega-chart" data-spec="charts/performance-analytics-cost.json" '
        'role="figure" aria-label="Analytics time against rows analysed &#40;log-log&#41;" '
        'aria-describedby="chart-performance-analytics-cost">'
    ) in page
    assert (
        (charts_dir / "performance-analytics-cost.svg").read_text().startswith("<svg")
    )
    spec = json.loads((charts_dir / "performance-analytics-cost.json").read_text())
    lines = spec["layer"][0]
    assert lines["encoding"]["x"]["scale"]["type"] == "log"
    assert lines["encoding"]["y"]["scale"]["type"] == "log"
    measured = [v for v in spec["data"]["values"] if v["series"] == "measured"]
    assert [(v["scale"], v["rows"]) for v in measured] == [
        ("x1", 3397.0),
        ("x10", 33970.0),
        ("x100", 339700.0),
    ]
    # The dotted rule is the x100 target the results were judged against.
    assert spec["layer"][2]["encoding"]["y"] == {"datum": 4.0}
    assert spec["layer"][3]["encoding"]["text"] == {"datum": "x100 target: 4 s"}


def test_a_results_file_without_a_target_draws_no_target_rule(tmp_path: Path):
    results = results_dict()
    results["targets"] = []
    _, charts_dir = built_page(tmp_path, results)
    spec = json.loads((charts_dir / "performance-analytics-cost.json").read_text())
    assert len(spec["layer"]) == 2


def test_page_tolerates_a_partial_or_odd_results_file(tmp_path: Path):
    odd = {
        "repeat": "three",
        "measurements": [{"name": "cold_build", "median_s": "fast"}],
        "targets": [{"label": "x", "value": None, "passed": None}],
        "analytics_scaling": [{"scale": 1, "rows": 0, "median_s": 1.0}],
    }
    page, charts_dir = built_page(tmp_path, odd)
    assert "— not measured" in page
    assert not charts_dir.exists()


def test_markdown_change_counts_changed_and_new_pages_by_their_bytes(tmp_path):
    """Issue 35: the share of the site's Markdown an increment rewrites."""
    before, after = tmp_path / "before", tmp_path / "after"
    for folder in (before, after):
        (folder / "generated").mkdir(parents=True)
        (folder / "index.md").write_text("# Home\n")  # 7 bytes, unchanged
    (before / "generated" / "v6.1.md").write_text("old")
    (after / "generated" / "v6.1.md").write_text("corrected")  # 9 bytes, changed
    (after / "generated" / "v6.2.md").write_text("new round!")  # 10 bytes, new
    (before / "gone.md").write_text("removed pages do not count")
    assert workloads.markdown_change(before, after) == {
        "pages": 3,
        "pages_changed": 2,
        "bytes": 26,
        "bytes_changed": 19,
        "share_of_bytes": 0.7308,
    }


def test_the_report_says_how_much_markdown_the_increment_changed():
    markdown = {
        "pages": 823,
        "pages_changed": 77,
        "bytes": 17_400_000,
        "bytes_changed": 3_750_000,
        "share_of_bytes": 0.2155,
    }
    measurement = {
        "name": "correction",
        "label": "Upstream corrects v6.1, then update (whole process)",
        "median_s": 8.8,
        "detail": {
            "profile": {"top_steps": [{"step": "out_site__pages", "seconds": 2.9}],
                        "timed_s": 8.8},
            "markdown": markdown,
        },
    }  # fmt: skip
    text = report.render_report({"measurements": [measurement], "targets": []})
    assert (
        "    Markdown changed: 77 of 823 pages, 3.75 of 17.40 MB (22 %): page work "
        "no cache can skip" in text
    )


def test_the_least_correction_changes_one_result_and_keeps_every_other_byte():
    """Issue 35: one number of one result, the floor of any correction's cost."""
    published = (
        b'{\n    "0":{\n        "Model":"dlrm-v3",\n        "Result":10891.1,\n'
        b'        "Accuracy":"Result: 3"\n    },\n    "1":{"Result":7}\n}'
    )
    edited = workloads.one_value_changed(published)
    assert edited == published.replace(b'"Result":10891.1,', b'"Result":10892.1,')
    assert workloads.one_value_changed(b'[{"Result": 41}, {"Result": 5}]') == (
        b'[{"Result": 42}, {"Result": 5}]'
    )
    assert workloads.one_value_changed(b'[{"Result": 2.5e3}]') == (
        b'[{"Result": 2501.0}]'
    )
    # A summary without a numeric result has nothing to change: not measured.
    assert workloads.one_value_changed(b'[{"Result": "n/a"}]') is None


def test_the_report_gives_each_increment_as_a_share_of_the_cold_build():
    def profiled(name: str, label: str, seconds: float) -> dict:
        return {
            "name": name,
            "label": label,
            "median_s": seconds,
            "detail": {
                "profile": {
                    "top_steps": [{"step": "out_site__pages", "seconds": 1.0}],
                    "timed_s": seconds,
                }
            },
        }

    text = report.render_report(
        {
            "measurements": [
                profiled("cold_full", "Cold build, full mirror", 20.0),
                profiled(
                    "correction_one_value",
                    "One value of v6.1 changed upstream, then update",
                    10.2,
                ),
            ],
            "targets": [],
        }
    )
    assert (
        "  Where the time goes: One value of v6.1 changed upstream, then update "
        "(last repetition; median 51 % of the cold build)" in text
    )
    assert "  Where the time goes: Cold build, full mirror (last repetition)\n" in text
