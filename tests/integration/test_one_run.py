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
from pipeline.cli import main
from pipeline.defs.website import rounds_table
from pipeline.instance import latest_metadata
from pipeline.served import not_in_source
from pipeline.snapshots import SnapshotStore
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
    mirror: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    source = _mirror(mirror, tmp_path / "upstream")
    instance, outcomes, lines = _ingest(
        source, tmp_path / "work", ["v4.1", "v5.0", "v6.1"]
    )
    assert all(o.success for o in outcomes)
    # The round the mirror lacks is said once, and gets no partition, run or event.
    assert lines[0] == (
        f"v5.0: not in source (no folder of that round at {source}): no release "
        "partition made, nothing run; every update looks for them again"
    )
    assert instance.get_dynamic_partitions("release") == ["v4.1", "v6.1"]
    assert (
        instance.fetch_materializations(
            dg.AssetRecordsFilter(
                asset_key=dg.AssetKey("raw_mlperf__summary"), asset_partitions=["v5.0"]
            ),
            limit=1,
        ).records
        == []
    )
    # One run for the two release partitions, one for the cross-release assets.
    assert len(instance.get_runs()) == 2
    assert lines[1] == "2 releases, v4.1 to v6.1, in one run ..."
    assert lines[2].startswith("[1/2] v4.1: 937 rows, 0 rejected, checks 7/7 passed")
    assert lines[3].startswith("[2/2] v6.1: 492 rows, 0 rejected, checks 7/7 passed")
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
    monkeypatch.setenv("MLPERF_DATA_DIR", str(tmp_path / "work" / "data"))
    status = {row["release"]: row for row in release_status(instance)}
    assert status["v6.1"]["last_run"] == "success"
    assert status["v6.1"]["rows"] == 492
    assert status["v5.0"]["status"] == "not in source"
    assert status["v5.0"]["last_run"].startswith("none: not in source at 20")
    # Audit's table of upstream commits still lists it, as its run would have.
    (row,) = rounds_table(SnapshotStore(tmp_path / "work" / "data"), {}, {}).rows(
        named=True
    )
    assert (row["release"], row["summary"], row["files_read"], row["commit"]) == (
        "v5.0", "not in source", 0, None,
    )  # fmt: skip
    assert row["disagreement"] == "the source has no folder or repository of this round"


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
        "[1/3] v4.1: 937 rows, 0 rejected, checks 7/7 passed, sha256 8ec7a5b032f7 "
        "(new snapshot)"
    )
    assert lines[4].endswith("sha256 f40d71a728a8 (new snapshot)")
    assert latest_metadata(instance, "core_mlperf__results", "v6.1")["rows"] == 492
    combined = latest_metadata(instance, "core_mlperf__all_results")
    assert combined["rows"] == 937 + 492


def test_a_round_not_in_source_gets_its_partition_when_it_appears(
    mirror: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Issue 35 item 3: recorded once, probed by every update, quiet ones included."""
    source = tmp_path / "upstream"
    _mirror(mirror, source)
    later = source / "inference_results_v6.1"
    shutil.move(later, tmp_path / "v6.1 later")
    for name, value in {
        "MLPERF_SOURCE": str(source),
        "MLPERF_DATA_DIR": str(tmp_path / "data"),
        "DAGSTER_HOME": str(tmp_path / "data" / "dagster_home"),
        "MLPERF_BUILD_DIR": str(tmp_path / "build"),
    }.items():
        monkeypatch.setenv(name, value)
    assert main(["ingest", "--release", "v4.1", "--release", "v6.1"]) == 0
    out = capsys.readouterr().out
    assert "v6.1: not in source (no folder of that round at " in out
    assert not_in_source(tmp_path / "data").keys() == {"v6.1"}
    assert main(["update"]) == 0
    assert capsys.readouterr().out == (
        "nothing new or changed upstream: no run requested\n"
    )

    shutil.move(tmp_path / "v6.1 later", later)  # upstream publishes the round
    assert main(["update"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "new release partition(s): v6.1"
    assert lines[1].startswith(
        "[1/1] changed upstream: v6.1: 492 rows, 0 rejected, checks 7/7 passed"
    )
    with runner.exclusive() as instance:
        assert instance.get_dynamic_partitions("release") == ["v4.1", "v6.1"]
    assert not_in_source(tmp_path / "data") == {}
