"""Rebuild on every new release, end to end through Dagster (issue: discovery sensor).

One evolving world, in order: a mirror without v6.1 is built; v6.1 appears; v6.1 is
corrected upstream (the alt version, then a hand-changed value); a truncated v6.2 is
published; then a quiet tick. The tests below run in file order on that world.
"""

import hashlib
import html
import json
import shutil
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from pipeline import runner
from pipeline.defs.automation import release_discovery
from pipeline.defs.resources import DataDirResource, SourceResource
from pipeline.instance import latest_metadata
from pipeline.publish import site_tree_digest
from pipeline.snapshots import SnapshotStore
from pipeline.update import apply_tick
from tests.conftest import MIRROR_ALT
from tests.httpserver import FaultyServer

V61 = "inference_results_v6.1/summary.json"


@pytest.fixture(scope="module")
def world(mirror: Path, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("upstream")
    for release in ("v4.1", "v5.1", "v6.0"):
        folder = root / f"inference_results_{release}"
        folder.mkdir()
        shutil.copy(mirror / folder.name / "summary_results.json", folder)
    work = tmp_path_factory.mktemp("work")
    with FaultyServer(root) as server, pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_SOURCE", server.url)
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        # Every page the render cache reuses is rendered again and compared: a key
        # that missed an input fails the new round's or the correction's build.
        env.setenv("MLPERF_LEDGER_RENDER_CACHE_VERIFY", "1")
        instance = runner.get_instance()
        outcomes = runner.ingest(
            instance, ["v4.1", "v5.1", "v6.0", "v6.1"], progress=print, site=True
        )
        assert all(o.success for o in outcomes), [o.message for o in outcomes]
        yield {
            "server": server,
            "root": root,
            "mirror": mirror,
            "instance": instance,
            "data": work / "data",
            "site": work / "build" / "site",
            "cursor": None,
        }


def tick(world: dict) -> dg.SensorResult:
    """Evaluate the discovery sensor with Dagster's sensor test context."""
    context = dg.build_sensor_context(
        instance=world["instance"],
        cursor=world["cursor"],
        resources={"source": SourceResource(), "data_dir": DataDirResource()},
    )
    result = release_discovery(context)
    world["cursor"] = result.cursor
    return result


def requested(result: dg.SensorResult) -> list[str]:
    return [r.partition_key for r in result.run_requests or []]


def table(world: dict, asset: str) -> pl.DataFrame:
    return pl.read_parquet(world["data"] / "assets" / asset / "_.parquet")


def test_1_site_without_v61(world: dict) -> None:
    releases = world["site"] / "generated" / "releases"
    assert sorted(p.name for p in releases.glob("v*.html")) == [
        "v4.1.html",
        "v5.1.html",
        "v6.0.html",
    ]


def test_2_new_release_runs_only_its_partition(world: dict) -> None:
    shutil.copytree(
        world["mirror"] / "inference_results_v6.1",
        world["root"] / "inference_results_v6.1",
        dirs_exist_ok=True,
    )
    server: FaultyServer = world["server"]
    server.requests.clear()
    result = tick(world)
    assert requested(result) == ["v6.1"]
    outcomes = apply_tick(world["instance"], result, progress=print)
    assert all(o.success for o in outcomes)
    assert (world["site"] / "generated" / "releases" / "v6.1.html").exists()
    gains = table(world, "out_mlperf__software_gains")
    assert gains.filter(release_old="v6.0", release_new="v6.1").height > 0
    # Known releases were probed with HEAD only: not re-fetched, not re-parsed.
    for release in ("v4.1", "v5.1", "v6.0"):
        assert server.gets(f"inference_results_{release}/summary_results.json") == 0
    # Once by discovery, which accepts a new round only when its file parses as a
    # summary (a server answering 200 for anything registers nothing), once by the run.
    assert server.gets(V61) == 2


#: The one generated file that holds times (test_reproducible): left out of the
#: byte comparison below.
BUILD_INFO = "generated/downloads/build-info.json"


def site_files(site: Path) -> dict[str, str]:
    site = site.resolve()
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file() and p.relative_to(site).as_posix() != BUILD_INFO
    }


def assert_cold_build_is_identical(world: dict, folder: Path) -> None:
    """The incremental site, byte for byte the site a cold build of the same data gives.

    The cold build renders and builds every page from the same tables into a fresh
    build folder, so neither cache (render nor MkDocs) has anything to reuse.
    """
    incremental = site_files(world["site"])
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_BUILD_DIR", str(folder))
        outcome = runner.run_assets(
            world["instance"], ["out_site__pages", "out_site__published"], label="cold"
        )
        assert outcome.success, outcome.message
        meta = latest_metadata(world["instance"], "out_site__pages")
        assert meta["pages_reused"] == 0  # nothing to copy from: a cold render
        assert meta["pages_rendered"] > 100
    cold = site_files(folder / "site")
    differ = sorted(n for n in cold.keys() | incremental.keys()
                    if cold.get(n) != incremental.get(n))  # fmt: skip
    assert differ == []
    assert len(cold) > 200


def test_2b_a_new_round_reuses_pages_and_equals_a_cold_build(
    world: dict, tmp_path: Path
) -> None:
    # The v6.1 run above reused the pages v6.1 does not change: the rounds before it
    # (release pages) and their HTML.
    pages = latest_metadata(world["instance"], "out_site__pages")
    published = latest_metadata(world["instance"], "out_site__published")
    assert pages["pages_reused"] > 0
    assert published["html_pages_reused"] > 0
    assert_cold_build_is_identical(world, tmp_path / "cold")


def test_3_correction_is_a_new_snapshot_and_listed(world: dict) -> None:
    # The build readers see until the correction is published; the next build
    # shares its unchanged files' bytes (hard links) and must not alter them.
    shown = world["site"].resolve()
    shown_digest = site_tree_digest(shown)
    shutil.copy(MIRROR_ALT / V61, world["root"] / V61)
    result = tick(world)
    assert requested(result) == ["v6.1"]
    assert all(o.success for o in apply_tick(world["instance"], result, progress=print))
    assert world["site"].resolve() != shown
    assert site_tree_digest(shown) == shown_digest
    assert len(SnapshotStore(world["data"]).versions("v6.1", "summary.json")) == 2
    corrections = table(world, "out_mlperf__corrections")
    assert corrections.height == 18
    assert corrections["result_key"].n_unique() == 6
    assert set(corrections["field"]) == {
        "SystemName",
        "accelerator_model_name",
        "notes",
    }
    assert corrections.filter(
        ~pl.col("old_value").str.contains("Vera Rubin")
        | ~pl.col("new_value").str.contains("VeraRubin")
    ).is_empty()
    # Both spellings are the same accelerator, under its one name; the corrected
    # spelling stays upstream's.
    results = table(world, "out_mlperf__results")
    rubin = results.filter(pl.col("accelerator_id") == "nvidia-vera-rubin")
    assert set(rubin["accelerator_name"]) == {"NVIDIA Vera Rubin"}
    assert "NVIDIA VeraRubin" in set(rubin["accelerator_name_upstream"])


def test_3a_a_correction_rebuilds_a_fraction_and_equals_a_cold_build(
    world: dict, tmp_path: Path
) -> None:
    pages = latest_metadata(world["instance"], "out_site__pages")
    published = latest_metadata(world["instance"], "out_site__published")
    # v6.1's own pages and the pages of the renamed accelerator change; the pages
    # of the older rounds and benchmarks v6.1 lacks come from the caches.
    assert pages["pages_reused"] > pages["pages_rendered"]
    assert published["html_pages_reused"] > published["html_pages_built"]
    assert_cold_build_is_identical(world, tmp_path / "cold")


def test_3b_hand_changed_value_shows_old_and_new(world: dict) -> None:
    path = world["root"] / V61
    records = json.loads(path.read_text())
    old = records["0"]["Result"]
    records["0"]["Result"] = 12345.6
    path.write_text(json.dumps(records))
    result = tick(world)
    assert requested(result) == ["v6.1"]
    assert all(o.success for o in apply_tick(world["instance"], result, progress=print))
    corrections = table(world, "out_mlperf__corrections")
    changed = corrections.filter(field="Result")
    assert changed.select("result_key", "old_value", "new_value").rows() == [
        ("v6.1:closed/AMD/8xMI350X_2xEPYC_9575F/dlrm-v3/Offline", str(old), "12345.6")
    ]
    # What a reader sees: entities decoded (escaping writes "." as "&#46;").
    page = html.unescape((world["site"] / "generated" / "changes.html").read_text())
    assert "12345.6" in page and "VeraRubin" in page and "Vera Rubin" in page
    release_page = (world["site"] / "generated" / "releases" / "v6.1.html").read_text()
    assert "changes.html#changes-v6-1" in release_page


def test_4_truncated_new_release_fails_and_site_stays(world: dict) -> None:
    before = site_tree_digest(world["site"].resolve())
    v62 = world["root"] / "inference_results_v6.2"
    v62.mkdir()
    content = (world["root"] / V61).read_bytes()
    (v62 / "summary.json").write_bytes(content[: len(content) // 3])
    result = tick(world)
    # Not a summary yet: discovery does not accept the round (no partition, no run)
    # until its file parses; the published site is untouched.
    assert requested(result) == []
    assert not result.dynamic_partitions_requests
    assert apply_tick(world["instance"], result, progress=print) == []
    assert "v6.2" not in world["instance"].get_dynamic_partitions("release")
    assert site_tree_digest(world["site"].resolve()) == before


def test_5_quiet_tick_requests_nothing(world: dict) -> None:
    server: FaultyServer = world["server"]
    server.requests.clear()
    assert requested(tick(world)) == []
    assert [m for m, _ in server.requests if m == "GET"] == []
