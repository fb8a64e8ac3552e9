"""The git source end to end, against a real git server on 127.0.0.1.

Bare repositories are built at test time from ``../shared/mlperf-mirror``: one commit
per round, each with a large file no rule reads, served by ``git http-backend`` over
smart HTTP (protocol v2, partial clone allowed), as GitHub serves them.
"""

from __future__ import annotations

import hashlib
import html
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from pipeline import runner
from pipeline.extract.raw_tree import scan_raw_tree
from pipeline.extract.summary import summary_tables
from pipeline.registry.releases import load_manifest
from pipeline.source import NotPublished, Source
from pipeline.status import release_status
from pipeline.transform.inferred import judge_by_tree
from pipeline.update import update
from tests.conftest import MIRROR, MIRROR_ALT
from tests.gitserver import GitServer, commit_folder, git, mirror_repositories

ROUNDS = sorted(
    p.name.removeprefix("inference_results_")
    for p in MIRROR.glob("inference_results_*")
)
#: A file as large as a code drop or a model checkpoint: never read, never fetched.
BIG = "code/checkpoint.bin"
BIG_BYTES = 4 * 1024 * 1024
#: Columns that name where rows were read (commit and link), not what they say.
WHERE = ("result_url", "upstream_commit")
V61 = "mlcommons/inference_results_v6.1"


def _big() -> bytes:
    """Incompressible, but the same bytes every run."""
    block = hashlib.sha256(b"mlperf-ledger").digest()
    out = bytearray()
    while len(out) < BIG_BYTES:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:BIG_BYTES])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("git")
    commits = mirror_repositories(root, MIRROR, extra={BIG: _big()})
    with GitServer(root) as server:
        yield server, root, commits


@pytest.fixture(scope="module")
def cold(served, tmp_path_factory: pytest.TempPathFactory):
    """A cold ``site`` over git: every round of the manifest, the mirror's and not."""
    server, root, commits = served
    work = tmp_path_factory.mktemp("cold")
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MLPERF_SOURCE", f"git+{server.url}")
        env.setenv("MLPERF_DATA_DIR", str(work / "data"))
        env.setenv("DAGSTER_HOME", str(work / "data" / "dagster_home"))
        env.setenv("MLPERF_BUILD_DIR", str(work / "build"))
        env.setenv("MLPERF_GIT_CACHE_DIR", str(work / "clones"))
        env.setenv("MLPERF_HTTP_DEADLINE_S", "60")
        instance = runner.get_instance()
        cost = {v: server.cost(f"inference_results_{v}.git") for v in ROUNDS}
        versions = [r.version for r in load_manifest()]
        outcomes = runner.ingest(instance, versions, progress=lines.append, site=True)
        cost = {
            v: tuple(
                a - b
                for a, b in zip(
                    server.cost(f"inference_results_{v}.git"), cost[v], strict=True
                )
            )
            for v in ROUNDS
        }
        yield {
            "instance": instance,
            "work": work,
            "lines": lines,
            "outcomes": outcomes,
            "cost": cost,
            "env": env,
            "commits": commits,
            "server": server,
            "root": root,
        }


def rows(work: Path, version: str) -> pl.DataFrame:
    path = work / "data" / "assets" / "core_mlperf__results" / f"{version}.parquet"
    return pl.read_parquet(path)


def folder_rows(version: str) -> pl.DataFrame:
    """The same round read from the mirror folder, without Dagster or git."""
    source = Source(base=str(MIRROR))
    repository = f"mlcommons/inference_results_{version}"
    for name in ("summary.json", "summary_results.json"):
        try:
            fetched = source.fetch(repository, name)
        except NotPublished:
            continue
        summary = summary_tables(
            fetched.content,
            release=version,
            repository=repository,
            source_file=name,
            sha256=hashlib.sha256(fetched.content).hexdigest(),
        )[0]
        # As the pipeline does: a round's raw tree, where read, decides `inferred`.
        return judge_by_tree(summary, tree_rows(source, repository, version))
    return tree_rows(source, repository, version)


def tree_rows(source: Source, repository: str, version: str) -> pl.DataFrame:
    return scan_raw_tree(
        source.list_tree(repository),
        lambda p: source.fetch(repository, p).content,
        release=version,
        repository=repository,
    )[0]


def test_cold_site_over_git_succeeds_and_names_every_round(cold) -> None:
    assert all(o.success for o in cold["outcomes"]), [
        o.message for o in cold["outcomes"] if not o.success
    ]
    status = {r["release"]: r for r in release_status(cold["instance"])}
    # Rounds the server does not have are reported, not failed.
    assert status["v0.7"]["status"] == "not in source"
    assert status["v5.0"]["status"] == "not in source"
    assert status["v2.1"]["status"] == "raw tree only"
    assert status["v6.1"]["status"] == "ingested"
    assert (cold["work"] / "build" / "site" / "index.html").is_file()
    assert any(line.startswith("site: ") for line in cold["lines"])


@pytest.mark.parametrize("version", ROUNDS)
def test_git_rows_equal_the_folder_rows(cold, version: str) -> None:
    got = rows(cold["work"], version).drop(WHERE).sort("result_key")
    want = folder_rows(version).drop(WHERE).sort("result_key")
    assert got.height == want.height > 0
    assert got.equals(want)


@pytest.mark.parametrize("version", ROUNDS)
def test_every_result_link_names_its_rounds_commit(cold, version: str) -> None:
    commit = cold["commits"][version]
    table = rows(cold["work"], version)
    assert table["upstream_commit"].unique().to_list() == [commit]
    prefix = f"https://github.com/mlcommons/inference_results_{version}/tree/{commit}/"
    assert table["result_url"].str.starts_with(prefix).all()


def test_audit_names_each_rounds_commit_and_the_submitters_tables(cold) -> None:
    audit = html.unescape(
        (cold["work"] / "build" / "site" / "generated" / "audit.html").read_text()
    )
    upstream = audit.split("Upstream commits", 1)[1]
    for version, commit in cold["commits"].items():
        assert f"{version}" in upstream and commit[:12] in upstream
    assert "2026-01-01T00:00:00+00:00" in upstream
    # How many files each round read, as the tree step counted them.
    outcome = json.loads(
        (
            cold["work"] / "data" / "assets" / "raw_mlperf__tree" / "v1.0.json"
        ).read_text()
    )
    row = upstream.split('data-label="Release">v1.0</td>', 1)[1].split("</tr>", 1)[0]
    assert outcome["files_read"] > 1000
    assert f'data-label="Files read">{outcome["files_read"]}</td>' in row
    # v1.0's three submitter CSVs: 47 rows agree, 3 explained by the reviewed rule.
    tables = audit.split("Submitters' own summary tables", 1)[1]
    assert "99.00 percentile latency (ns)" in tables
    assert "100.0%" in tables


def test_snapshot_sidecars_record_the_commit_and_its_date(cold) -> None:
    raw = cold["work"] / "data" / "raw" / "v6.1" / "summary.json"
    (sidecar,) = raw.glob("*.meta.json")
    meta = json.loads(sidecar.read_text())
    assert meta["upstream_commit"] == cold["commits"]["v6.1"]
    assert meta["upstream_commit_date"] == "2026-01-01T00:00:00+00:00"
    assert meta["url"].endswith(f"@{cold['commits']['v6.1']}:summary.json")


@pytest.mark.parametrize("version", ROUNDS)
def test_each_round_costs_a_few_requests_and_few_bytes(cold, version: str) -> None:
    requests, sent = cold["cost"][version]
    # ls-remote, the trees of the commit, one batch of files (and the summary file).
    assert requests <= 12
    repo = cold["root"] / "mlcommons" / f"inference_results_{version}.git"
    held = sum(f.stat().st_size for f in repo.rglob("*") if f.is_file())
    assert held > BIG_BYTES
    assert sent < BIG_BYTES / 2  # the large file never travels


def test_the_large_file_is_never_fetched(cold) -> None:
    clones = cold["work"] / "clones"
    (clone,) = [c for c in clones.iterdir() if c.name.endswith("v6.0.git")]
    listed = git(
        "-C", clone, "cat-file", "--batch-all-objects", "--batch-check"
    ).splitlines()
    assert all(not line.endswith(f" {BIG_BYTES}") for line in listed)


def test_a_quiet_update_fetches_no_pack(cold) -> None:
    server = cold["server"]
    packs = server.packs()
    lines: list[str] = []
    outcomes = update(cold["instance"], progress=lines.append)
    assert outcomes == []
    assert lines == ["nothing new or changed upstream: no run requested"]
    assert server.packs() == packs


def test_a_new_commit_on_one_round_is_picked_up_alone(cold, tmp_path: Path) -> None:
    """Upstream corrects v6.1's summary: a new snapshot, corrections and Changes."""
    server, root = cold["server"], cold["root"]
    folder = tmp_path / "v6.1"
    shutil.copytree(MIRROR / "inference_results_v6.1", folder)
    shutil.copy(MIRROR_ALT / "inference_results_v6.1" / "summary.json", folder)
    new = commit_folder(
        root / "mlcommons" / "inference_results_v6.1.git",
        folder,
        "Correct v6.1 results",
        date="2026-02-01T00:00:00Z",
        extra={BIG: _big()},
    )
    before = {v: server.cost(f"inference_results_{v}.git")[0] for v in ROUNDS}
    lines: list[str] = []
    outcomes = update(cold["instance"], progress=lines.append)
    assert all(o.success for o in outcomes), [o.message for o in outcomes]
    assert any(line.startswith("[1/1] changed upstream: v6.1: ") for line in lines)
    # Every other round cost its ls-remote only.
    for version in ROUNDS:
        if version != "v6.1":
            assert (
                server.cost(f"inference_results_{version}.git")[0] - before[version]
                <= 2
            ), version
    table = rows(cold["work"], "v6.1")
    assert table["upstream_commit"].unique().to_list() == [new]
    # Two snapshots of the file now, the new one pinned to the new commit.
    folder = cold["work"] / "data" / "raw" / "v6.1" / "summary.json"
    pinned = {
        json.loads(p.read_text())["upstream_commit"] for p in folder.glob("*.meta.json")
    }
    assert pinned == {cold["commits"]["v6.1"], new}
    corrections = pl.read_parquet(
        cold["work"] / "data" / "assets" / "out_mlperf__corrections" / "_.parquet"
    )
    assert corrections.filter(release="v6.1").height > 0
    site = cold["work"] / "build" / "site" / "generated"
    page = html.unescape((site / "changes.html").read_text())
    assert "VeraRubin" in page and "Vera Rubin" in page
    assert new[:12] in (site / "audit.html").read_text()


def _published(work: Path) -> bytes:
    return (work / "build" / "site" / "index.html").read_bytes()


def _touch_round(root: Path, version: str, note: str) -> str:
    """A new upstream commit on one round: the same files plus a changed README."""
    name = f"inference_results_{version}"
    return commit_folder(
        root / "mlcommons" / f"{name}.git",
        MIRROR / name,
        note,
        date="2026-03-01T00:00:00Z",
        extra={BIG: _big(), "README.md": note.encode()},
    )


def _failed_update(cold) -> str:
    lines: list[str] = []
    site = _published(cold["work"])
    outcomes = update(cold["instance"], progress=lines.append)
    assert outcomes and not all(o.success for o in outcomes), lines
    assert _published(cold["work"]) == site  # the last good site stays published
    assert "no release updated: cross-release tables and site left unchanged" in lines
    (line,) = [line for line in lines if line.startswith("[1/1] changed upstream:")]
    return line


def test_a_server_error_during_the_fetch_names_the_remote(cold) -> None:
    server = cold["server"]
    new = _touch_round(cold["root"], "v4.1", "server error")
    server.faults["inference_results_v4.1"] = ["500@fetch"] * 4
    line = _failed_update(cold)
    remote = f"{server.url}/mlcommons/inference_results_v4.1.git"
    assert line.startswith(
        f"[1/1] changed upstream: v4.1: FAILED: {remote}: fetching the trees of "
        f"{new[:12]} gave up after 4 attempts; last: "
    )
    assert "500" in line
    assert server.faults["inference_results_v4.1"] == []


def test_a_server_that_hangs_past_the_deadline_is_abandoned(cold, monkeypatch) -> None:
    server = cold["server"]
    monkeypatch.setenv("MLPERF_HTTP_DEADLINE_S", "2")
    server.hang_s = 6.0
    _touch_round(cold["root"], "v4.1", "hanging server")
    server.faults["inference_results_v4.1"] = ["hang@fetch"]
    line = _failed_update(cold)
    remote = f"{server.url}/mlcommons/inference_results_v4.1.git"
    assert line.startswith(f"[1/1] changed upstream: v4.1: FAILED: {remote}: fetching")
    assert line.endswith("not finished within the overall deadline of 2 s; gave up")


def test_a_branch_that_moves_during_the_fetch_is_named(cold) -> None:
    server, root = cold["server"], cold["root"]
    repo = root / "mlcommons" / "inference_results_v4.1.git"
    old = _touch_round(root, "v4.1", "about to be force-pushed away")
    # A force-push: the commit ls-remote named is no longer on any branch.
    tree = git("-C", repo, "rev-parse", "main^{tree}").strip()
    moved = git(
        "-C", repo, "commit-tree", tree, "-m", "force-pushed",
        env={"GIT_AUTHOR_DATE": "2026-04-01T00:00:00Z",
             "GIT_COMMITTER_DATE": "2026-04-01T00:00:00Z"},
    ).strip()  # fmt: skip

    def force_push(name: str, command: str) -> None:
        if name == "inference_results_v4.1" and command == "fetch":
            server.on_request = None
            git("-C", repo, "update-ref", "refs/heads/main", moved)
            git("-C", repo, "reflog", "expire", "--expire=now", "--all")
            git("-C", repo, "gc", "-q", "--prune=now")  # the old commit is gone

    server.on_request = force_push
    line = _failed_update(cold)
    assert line.endswith(
        f"the default branch moved from {old[:12]} to {moved[:12]} while it was being "
        "fetched; nothing was stored, run again to read the new commit"
    )


def test_a_missing_repository_is_reported_not_in_source(cold) -> None:
    """Said once by ``ls-remote``, before any run: no partition, no run, no event."""
    (line,) = [line for line in cold["lines"] if "v5.0" in line]
    assert line.startswith("v0.7, v1.1, v2.0, v3.0, v3.1, v4.0, v5.0: not in source")
    assert f"(no repository of that round at git+{cold['server'].url}" in line
    assert "v5.0" not in cold["instance"].get_dynamic_partitions("release")
