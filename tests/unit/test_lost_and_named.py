"""Lesser items of issue 33: lost content is named as lost, and a failure the
per-release reruns survive is still named."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline import runner
from pipeline.fetch import NOT_IN_SOURCE, fetch_release
from pipeline.manifest import release_for
from pipeline.snapshots import SnapshotStore
from pipeline.source import Source
from tests.conftest import MIRROR, MIRROR_ALT

V61 = release_for("v6.1")
SUMMARY = MIRROR / "inference_results_v6.1" / "summary.json"


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, SnapshotStore, str]:
    summary = tmp_path / "mirror" / "inference_results_v6.1" / "summary.json"
    summary.parent.mkdir(parents=True)
    summary.write_bytes(SUMMARY.read_bytes())
    store = SnapshotStore(tmp_path / "data")
    outcome = fetch_release(V61, Source(str(tmp_path / "mirror")), store)
    return summary, store, outcome.snapshot.sha256


def test_a_summary_turned_into_a_link_out_of_the_mirror_is_lost_not_unchanged(
    stored: tuple[Path, SnapshotStore, str], tmp_path: Path
) -> None:
    summary, store, sha = stored
    summary.unlink()
    summary.symlink_to(MIRROR_ALT / "inference_results_v6.1" / "summary.json")
    outcome = fetch_release(V61, Source(str(tmp_path / "mirror")), store)
    kept = store.latest("v6.1", "summary.json")
    assert (outcome.status, outcome.snapshot.sha256, outcome.is_new) == (
        NOT_IN_SOURCE,
        sha,
        False,
    )
    assert outcome.message == (
        "v6.1: summary.json lost upstream (inference_results_v6.1/summary.json: "
        "resolves outside the source root (symlink to a file outside the mirror); "
        f"not read); rows from the kept snapshot {sha[:12]} fetched {kept.fetched_at}"
    )
    assert store.served("v6.1", "summary.json") == {"absent": True}


def test_a_deleted_summary_says_so_and_where_rows_come_from(
    stored: tuple[Path, SnapshotStore, str], tmp_path: Path
) -> None:
    summary, store, sha = stored
    summary.unlink()
    outcome = fetch_release(V61, Source(str(tmp_path / "mirror")), store)
    assert outcome.message.startswith(
        f"v6.1: summary.json lost upstream ({summary}: not published (no such file "
        f"in the mirror)); rows from the kept snapshot {sha[:12]} fetched "
    )
    # It said "rows come from the raw tree", which v6.1 does not even have.
    assert outcome.disagreement == (
        "releases.toml expects summary.json, but the source has no summary file; "
        f"rows come from the kept snapshot {sha[:12]}"
    )


def test_the_release_line_of_a_lost_summary_is_never_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    message = (
        "v6.1: summary.json lost upstream (git+http://h/x.git@c:summary.json: a "
        "symbolic link; not followed); rows from the kept snapshot f40d71a728a8 "
        "fetched 2026-08-01T00:00:00+00:00"
    )
    metadata = {
        "raw_mlperf__summary": {
            "status": NOT_IN_SOURCE,
            "message": message,
            "sha256": "f40d71a728a8" + "0" * 52,
        },
        "core_mlperf__results": {"rows": 492, "rejected": 0, "checks": "7/7 passed"},
        "raw_mlperf__tree": {"status": "not requested"},
    }
    monkeypatch.setattr(
        runner, "latest_metadata", lambda instance, key, version=None: metadata[key]
    )
    line = runner.describe_release(None, runner.RunOutcome("v6.1", True, "r", ""))
    assert line == f"{message}: 492 rows, 0 rejected, checks 7/7 passed"
    assert "unchanged" not in line


class _Instance:
    """Just enough of a Dagster instance for ``run_releases``."""

    def get_dynamic_partitions(self, name: str) -> list[str]:
        return ["v6.0", "v6.1"]


def test_a_batch_failure_the_reruns_survive_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def run(instance, selection, partition=None, label="", partitions=()):  # noqa: ANN001, ANN202
        if partitions:
            return runner.RunOutcome(
                label, False, "0123456789ab", "DagsterExecutionInterruptedError: boom"
            )
        return runner.RunOutcome(partition, True, f"run-{partition}", "")

    monkeypatch.setattr(runner, "run_assets", run)
    monkeypatch.setattr(
        runner, "describe_release", lambda instance, o, since=None: f"{o.label}: ok"
    )
    lines: list[str] = []
    outcomes = runner.run_releases(_Instance(), ["v6.0", "v6.1"], lines.append)
    assert [o.success for o in outcomes] == [True, True]
    assert lines == [
        "2 releases, v6.0 to v6.1, in one run ...",
        "one run for v6.0 to v6.1 failed (run 01234567): "
        "DagsterExecutionInterruptedError: boom; running each release on its own so "
        "the others still publish",
        "each of v6.0 to v6.1 succeeded on its own: the failure of their one run "
        "(run 01234567, above) was no release's",
        "[1/2] v6.0: ok",
        "[2/2] v6.1: ok",
    ]
