"""Where each snapshot comes from upstream, whatever the build read it from.

A snapshot's ``url`` is where this build fetched it: the upstream raw-file host, an
HTTP mirror or a local folder (an absolute path on the building machine, meaningless
to a reader and never to be shown as a link). Readers need the upstream address of the
file and, where known, the upstream commit. The commit comes from the reviewed registry
``pipeline/registry/upstream_commits.toml``: a summary file gets it only when its bytes
are the ones recorded for that commit; a raw tree read from a mirror gets the commit
the mirror states. The place the build read from stays visible as a secondary note,
with a local folder reduced to its path inside the mirror.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl

from pipeline.manifest import release_for
from pipeline.redact import POLARS_USER_ONLY, POLARS_WITH_PASSWORD
from pipeline.registry.releases import ManifestError, Release, load_manifest
from pipeline.registry.upstream_commits import RoundCommit, load_commits
from pipeline.snapshots import Snapshot

#: The raw tree's snapshot path (``pipeline.served.TREE_FILE``): our listing, not a file
#: upstream has; its upstream address is the repository tree.
TREE_FILE = "tree.json"
GITHUB = "https://github.com"
RAW_HOST = "https://raw.githubusercontent.com/"
NOT_RECORDED = "not recorded"

#: Columns ``with_upstream`` adds to a snapshot table.
UPSTREAM_SCHEMA: dict[str, pl.DataType] = {
    "repository": pl.String,
    "upstream_url": pl.String,
    "upstream_commit": pl.String,
    "commit_basis": pl.String,
    "read_from": pl.String,
}


def _repository(release: str, manifest: Mapping[str, Release]) -> str | None:
    if release in manifest:
        return manifest[release].repository
    try:
        return release_for(release, []).repository
    except ManifestError:  # not of the form vX.Y: no upstream repository to name
        return None


def with_upstream(
    snapshots: pl.DataFrame,
    commits: Mapping[str, RoundCommit] | None = None,
    manifest: Sequence[Release] | None = None,
) -> pl.DataFrame:
    """The snapshot table with its upstream address, commit and the place it was read.

    Adds ``UPSTREAM_SCHEMA``: ``repository`` (from the manifest), ``upstream_url``
    (``github.com/<repo>/blob/<commit or HEAD>/<path>``; ``/tree/...`` for a raw tree),
    ``upstream_commit`` (null when unknown), ``commit_basis`` (why that commit, or why
    none) and ``read_from`` (the upstream host, an HTTP mirror's URL, or
    ``local mirror: <repository name>/<path>``; never a local absolute path).
    """
    commits = load_commits() if commits is None else commits
    known = {r.version: r for r in (load_manifest() if manifest is None else manifest)}
    releases = snapshots["release"].unique().to_list()
    rounds = pl.DataFrame(
        {
            "release": releases,
            "repository": [_repository(r, known) for r in releases],
            "_commit": [commits[r].commit if r in commits else None for r in releases],
            "_evidence": [
                commits[r].evidence if r in commits else None for r in releases
            ],
            "_tree_commit": [r in commits and commits[r].raw_tree for r in releases],
        },
        schema={
            "release": pl.String,
            "repository": pl.String,
            "_commit": pl.String,
            "_evidence": pl.String,
            "_tree_commit": pl.Boolean,
        },
    )
    files = pl.DataFrame(
        [
            {"release": c.release, "path": p, "sha256": s, "_file_commit": c.commit}
            for c in commits.values()
            for p, s in c.files.items()
        ],
        schema={
            "release": pl.String,
            "path": pl.String,
            "sha256": pl.String,
            "_file_commit": pl.String,
        },
    )
    # Snapshots stored before credentials were redacted at the source keep them in
    # ``url``: never shown (``pipeline.redact``).
    shown_url = (
        pl.col("url")
        .str.replace_all(POLARS_WITH_PASSWORD, "${1}${2}:***@")
        .str.replace_all(POLARS_USER_ONLY, "${1}***@")
    )
    url = shown_url.fill_null("")
    repo = pl.col("repository")
    repo_name = repo.str.split("/").list.last()
    upstream_raw = pl.concat_str(pl.lit(RAW_HOST), repo, pl.lit("/"))
    from_upstream = url.str.starts_with(upstream_raw).fill_null(False)
    is_tree = pl.col("path") == TREE_FILE
    # Read over git, the snapshot states its own commit: nothing to look up.
    read_at = (
        pl.col("commit") if "commit" in snapshots.columns else pl.lit(None, pl.String)
    )
    over_git = url.str.starts_with("git+")
    commit = (
        pl.when(read_at.is_not_null())
        .then(read_at)
        .when(~is_tree)
        .then(pl.col("_file_commit"))
        .when(pl.col("_tree_commit") & ~from_upstream)
        .then(pl.col("_commit"))
    )
    basis = (
        pl.when(read_at.is_not_null())
        .then(pl.lit("read at this commit over git"))
        .when(~is_tree & pl.col("_file_commit").is_not_null())
        .then(pl.format("sha256 matches the file at this commit ({})", "_evidence"))
        .when(commit.is_not_null())
        .then(
            pl.format(
                "stated by the mirror, not checked file by file ({})", "_evidence"
            )
        )
        .when(from_upstream)
        .then(pl.lit(f"{NOT_RECORDED}: read from upstream's HEAD"))
        .when(~is_tree & pl.col("_commit").is_not_null())
        .then(
            pl.format(
                "{}: these bytes are not the file at {}",
                pl.lit(NOT_RECORDED),
                "_commit",
            )
        )
        .otherwise(pl.lit(NOT_RECORDED))
    )
    ref = commit.fill_null("HEAD")
    upstream_url = (
        pl.when(repo.is_null())
        .then(None)
        .when(is_tree)
        .then(pl.format("{}/{}/tree/{}", pl.lit(GITHUB), repo, ref))
        .otherwise(pl.format("{}/{}/blob/{}/{}", pl.lit(GITHUB), repo, ref, "path"))
    )
    inside = pl.when(is_tree).then(pl.lit("")).otherwise(pl.col("path"))
    read_from = (
        pl.when(from_upstream)
        .then(pl.format("upstream: {}", url))
        .when(over_git)
        .then(pl.format("git: {}", url.str.strip_prefix("git+")))
        .when(url.str.contains(r"^https?://"))
        .then(pl.format("HTTP mirror: {}", url))
        .when(repo.is_not_null())
        .then(pl.format("local mirror: {}/{}", repo_name, inside))
        .otherwise(pl.format("local mirror: {}", inside))
    )
    return (
        snapshots.lazy()
        .join(rounds.lazy(), on="release", how="left", maintain_order="left")
        .join(
            files.lazy(),
            on=["release", "path", "sha256"],
            how="left",
            maintain_order="left",
        )
        .with_columns(
            url=shown_url,
            upstream_url=upstream_url,
            upstream_commit=commit,
            commit_basis=basis,
            read_from=read_from,
        )
        .drop("_commit", "_evidence", "_tree_commit", "_file_commit")
        .collect()
    )


def snapshot_commit(
    snapshot: Snapshot, commits: Mapping[str, RoundCommit] | None = None
) -> str | None:
    """The upstream commit a snapshot's bytes are of, for links in its result rows.

    The git source records it when it reads; for a mirror the registry says, on
    the same terms as :func:`with_upstream`: a summary only when its sha256 is the
    file's at that commit, a raw tree when the mirror states its commit.
    """
    if snapshot.upstream_commit:
        return snapshot.upstream_commit
    entry = (load_commits() if commits is None else commits).get(snapshot.release)
    if entry is None or snapshot.url.startswith(RAW_HOST):
        return None
    if snapshot.path == TREE_FILE:
        return entry.commit if entry.raw_tree else None
    return entry.commit if entry.files.get(snapshot.path) == snapshot.sha256 else None
