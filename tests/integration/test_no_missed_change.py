"""No missed change, whatever the source (issue 33, item 1).

``site`` leaves the same state ``update`` compares with: what the source served for
each stored round (validators, or content hashes; the commit over git). So a
correction published after ``site`` is picked up by the next ``update``, on a mirror
folder, over HTTP and over git alike: the real later v6.1 summary
(``../shared/mlperf-mirror-alt``) replaces the one the site was built from.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import feedparser
import polars as pl
import pytest

from pipeline.cli import main
from tests.conftest import MIRROR, MIRROR_ALT
from tests.gitserver import GitServer, commit_folder
from tests.httpserver import FaultyServer

ROUND = "inference_results_v6.1"
OLD = (MIRROR / ROUND / "summary.json").read_bytes()
NEW = (MIRROR_ALT / ROUND / "summary.json").read_bytes()


def _sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


class Upstream:
    """One copy of the v6.1 round, served as a folder, over HTTP or over git."""

    def __init__(self, kind: str, root: Path, stack: ExitStack) -> None:
        self.kind, self.root = kind, root
        self.work = root / "work"
        self.folder = root / "served" / ROUND
        self.folder.mkdir(parents=True)
        (self.folder / "summary.json").write_bytes(OLD)
        if kind == "folder":
            self.base = str(root / "served")
        elif kind == "http":
            server = stack.enter_context(FaultyServer(root / "served"))
            self.base = server.url
        else:
            self.repo = root / "git" / "mlcommons" / f"{ROUND}.git"
            commit_folder(self.repo, self.folder, "v6.1 as published")
            server = stack.enter_context(GitServer(root / "git"))
            self.base = f"git+{server.url}"

    def link_away(self) -> None:
        """Upstream's summary becomes a symbolic link (out of the round's folder)."""
        summary = self.folder / "summary.json"
        summary.unlink()
        summary.symlink_to(MIRROR_ALT / ROUND / "summary.json")
        if self.kind == "git":
            commit_folder(
                self.repo, self.folder, "Link v6.1", date="2026-02-01T00:00:00Z"
            )

    def correct(self) -> None:
        """Upstream publishes the later v6.1 summary."""
        (self.folder / "summary.json").write_bytes(NEW)
        if self.kind == "git":
            commit_folder(
                self.repo, self.folder, "Correct v6.1", date="2026-02-01T00:00:00Z"
            )


@pytest.fixture(params=["folder", "http", "git"])
def upstream(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Upstream]:
    with ExitStack() as stack:
        served = Upstream(request.param, tmp_path, stack)
        work = served.work
        for name, value in {
            "MLPERF_SOURCE": served.base,
            "MLPERF_DATA_DIR": str(work / "data"),
            "DAGSTER_HOME": str(work / "data" / "dagster_home"),
            "MLPERF_BUILD_DIR": str(work / "build"),
            "MLPERF_GIT_CACHE_DIR": str(work / "clones"),
        }.items():
            monkeypatch.setenv(name, value)
        yield served


def _run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, list[str]]:
    code = main(list(argv))
    return code, capsys.readouterr().out.splitlines()


def _systems(upstream: Upstream) -> set[str]:
    """The Vera Rubin systems' names in the combined table the site is built from."""
    table = pl.read_parquet(
        upstream.work / "data" / "assets" / "core_mlperf__all_results" / "_.parquet"
    )
    names = table.filter(pl.col("system_name").str.contains("Rubin"))["system_name"]
    return set(names)


def _status_sha(capsys: pytest.CaptureFixture) -> str:
    code, lines = _run(capsys, "status")
    assert code == 0
    (row,) = [line for line in lines if line.startswith("v6.1 ")]
    return row.split()[2]


def test_a_correction_after_site_is_published_by_the_next_update(
    upstream: Upstream, capsys: pytest.CaptureFixture
) -> None:
    code, lines = _run(capsys, "site")
    assert code == 0, lines
    assert _status_sha(capsys) == _sha(OLD)[:12]
    assert _systems(upstream) == {"NVIDIA Vera Rubin NVL72 (72x VR-288GB_aarch64)"}

    upstream.correct()
    code, lines = _run(capsys, "update")
    assert code == 0, lines
    (line,) = [line for line in lines if line.startswith("[1/1] ")]
    assert line.startswith("[1/1] changed upstream: v6.1: 492 rows, 0 rejected, ")
    assert line.endswith(f"sha256 {_sha(NEW)[:12]} (new snapshot)")
    assert "cross-release tables and site: rebuilt" in lines
    assert _status_sha(capsys) == _sha(NEW)[:12]
    assert _systems(upstream) == {"NVIDIA VeraRubin NVL72 (72x VR-288GB_aarch64)"}
    # Published: the Changes page lists the correction field by field.
    site = upstream.work / "build" / "site" / "generated"
    changes = html.unescape((site / "changes.html").read_text())
    assert "NVIDIA VeraRubin NVL72" in changes and "NVIDIA Vera Rubin NVL72" in changes
    # The site's feed announces it, linking the Changes and the release page.
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    (entry,) = [e for e in feed.entries if "corrected upstream" in e.title]
    assert entry.title == "MLPerf Inference v6.1 corrected upstream: 6 results changed"
    links = {link.rel: link.href for link in entry.links}
    assert links == {
        "alternate": "changes.html#changes-v6-1",
        "related": "releases/v6.1.html",
    }

    # The correction is now what is stored: the next update has nothing to do.
    code, lines = _run(capsys, "update")
    assert (code, lines) == (0, ["nothing new or changed upstream: no run requested"])


@pytest.mark.parametrize("upstream", ["folder", "http"], indirect=True)
def test_a_file_touched_but_not_changed_is_verified_by_its_hash_not_rerun(
    upstream: Upstream, capsys: pytest.CaptureFixture
) -> None:
    """New validators, same bytes: the content hash says unchanged, no run starts.

    (Over git the commit is the validator: the same commit asks for nothing.)
    """
    code, lines = _run(capsys, "ingest", "--release", "v6.1")
    assert code == 0, lines
    summary = upstream.folder / "summary.json"
    summary.unlink()
    summary.write_bytes(OLD)  # a new mtime (and HTTP ETag), the same bytes
    code, lines = _run(capsys, "update")
    assert (code, lines) == (0, ["nothing new or changed upstream: no run requested"])
    assert _status_sha(capsys) == _sha(OLD)[:12]


@pytest.mark.parametrize("upstream", ["folder", "git"], indirect=True)
def test_a_summary_turned_into_a_link_is_lost_not_unchanged(
    upstream: Upstream, capsys: pytest.CaptureFixture
) -> None:
    """Item 4: the content the source lost is named, with where the rows come from."""
    code, lines = _run(capsys, "ingest", "--release", "v6.1")
    assert code == 0, lines
    upstream.link_away()
    code, lines = _run(capsys, "update")
    assert code == 0, lines
    (line,) = [line for line in lines if line.startswith("[1/1] ")]
    why = (
        "a symbolic link; not followed"
        if upstream.kind == "git"
        else "resolves outside the source root (symlink to a file outside the "
        "mirror); not read"
    )
    # Over git discovery sees a new commit; what it holds is for the run to say.
    reason = "changed upstream" if upstream.kind == "git" else "no longer in the source"
    assert line.startswith(f"[1/1] {reason}: v6.1: summary.json lost upstream (")
    assert f"summary.json: {why}); rows from the kept snapshot {_sha(OLD)[:12]} " in (
        line
    )
    assert line.endswith(": 492 rows, 0 rejected, checks 7/7 passed")
    assert "unchanged" not in line
    code, lines = _run(capsys, "update")
    assert (code, lines) == (0, ["nothing new or changed upstream: no run requested"])
