"""A cold build is one Dagster run for every release (issue 14, item 1).

Per release it still records one materialisation with that release's own metadata,
and one bad release still fails alone: the runner reruns a failed range release by
release, so the others publish.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import dagster as dg
import pytest

from pipeline import runner
from pipeline.defs.history import latest_metadata
from pipeline.status import release_status


def _mirror(mirror: Path, root: Path, broken: str | None = None) -> Path:
    for release, name in (("v4.1", "summary_results.json"), ("v6.1", "summary.json")):
        folder = root / f"inference_results_{release}"
        folder.mkdir(parents=True)
        shutil.copy(mirror / folder.name / name, folder)
    if broken:
        folder = root / f"inference_results_{broken}"
        folder.mkdir(parents=True)
        (folder / "summary_results.json").write_text('{"truncated": ')
    return root


def _ingest(source: Path, work: Path, versions: list[str]):
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_SOURCE", str(source))
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        instance = runner.get_instance()
        outcomes = runner.ingest(instance, versions, progress=lines.append)
    return instance, outcomes, lines


def test_a_cold_build_of_three_releases_is_two_runs_with_per_release_records(
    mirror: Path, tmp_path: Path
):
    source = _mirror(mirror, tmp_path / "upstream")
    instance, outcomes, lines = _ingest(
        source, tmp_path / "work", ["v4.1", "v5.0", "v6.1"]
    )
    assert all(o.success for o in outcomes)
    # One run for the three release partitions, one for the cross-release assets.
    assert len(instance.get_runs()) == 2
    assert lines[0] == "3 releases, v4.1 to v6.1, in one run ..."
    assert lines[1].startswith("[1/3] v4.1: 937 rows, 0 rejected, checks 6/6 passed")
    assert lines[2].startswith("[2/3] v5.0: not in source")
    assert lines[3].startswith("[3/3] v6.1: 492 rows, 0 rejected, checks 6/6 passed")
    for version, rows in (("v4.1", 937), ("v6.1", 492)):
        records = instance.fetch_materializations(
            dg.AssetRecordsFilter(
                asset_key=dg.AssetKey("core_mlperf__results"),
                asset_partitions=[version],
            ),
            limit=5,
        ).records
        assert len(records) == 1
        assert (
            latest_metadata(instance, "core_mlperf__results", version)["rows"] == rows
        )
    status = {row["release"]: row for row in release_status(instance)}
    assert status["v6.1"]["last_run"] == "success"
    assert status["v6.1"]["rows"] == 492


def test_one_bad_release_fails_alone_and_the_others_publish(
    mirror: Path, tmp_path: Path
):
    source = _mirror(mirror, tmp_path / "upstream", broken="v5.0")
    instance, outcomes, lines = _ingest(
        source, tmp_path / "work", ["v4.1", "v5.0", "v6.1"]
    )
    by_label = {o.label: o for o in outcomes}
    assert by_label["v4.1"].success and by_label["v6.1"].success
    assert not by_label["v5.0"].success
    # The range run's failure is named where it is said, not promised "below".
    assert re.fullmatch(
        r"one run for v4\.1 to v6\.1 failed \(run [0-9a-f]{8}\): .*v5\.0 "
        r"summary_results\.json: invalid JSON at line 1 column 15.*; running each "
        r"release on its own so the others still publish",
        lines[1],
    ), lines[1]
    assert lines[3].startswith(
        "[2/3] v5.0: FAILED: v5.0 summary_results.json: invalid JSON at line 1 "
        "column 15"
    )
    # v4.1's snapshot was stored by the failed range run, so its own rerun found it
    # unchanged: it is still new to this command (it said "unchanged" before).
    assert lines[2] == (
        "[1/3] v4.1: 937 rows, 0 rejected, checks 6/6 passed, sha256 8ec7a5b032f7 "
        "(new snapshot)"
    )
    assert lines[4].endswith("sha256 f40d71a728a8 (new snapshot)")
    assert latest_metadata(instance, "core_mlperf__results", "v6.1")["rows"] == 492
    combined = latest_metadata(instance, "core_mlperf__all_results")
    assert combined["rows"] == 937 + 492
