"""Website assets: render the pages, then build and publish them safely.

Belongs here: gathering the asset values and instance facts (snapshot checks, the
asset graph) the pages show, and calling ``pipeline.render`` and ``pipeline.publish``.
Page layout lives in ``pipeline.render``; the staging/swap mechanics in
``pipeline.publish``.
"""

import datetime as dt
import functools
import importlib
import json
import pkgutil
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import dagster as dg
import polars as pl

import pipeline.analysis.cost as cost_module
import pipeline.analysis.history as history_module
import pipeline.labels as labels_module
import pipeline.publish as publish_module
import pipeline.render as render_package
import pipeline.transform.lookalikes as lookalikes_module
from pipeline import settings
from pipeline.defs.partitions import FOLLOW_UPSTREAM
from pipeline.fetch import NOT_IN_SOURCE, NOT_REQUESTED, RAW_TREE_ONLY, SOURCE_ERROR
from pipeline.instance import latest_metadata
from pipeline.lineage import code_version, git_commit, mermaid
from pipeline.manifest import release_for
from pipeline.pending import disk_cause
from pipeline.publish import STAGED_PROJECT, mkdocs_build, publish, stage_project
from pipeline.registry.claims import load_claims
from pipeline.registry.releases import version_key
from pipeline.render.bench_results import (
    load_results,
)
from pipeline.render.memo import RenderMemo
from pipeline.render.pages import PAGE_INDEX, render_site
from pipeline.render.site_data import ROUNDS_SCHEMA, SNAPSHOT_SCHEMA, SiteData
from pipeline.render.slugs import page_problems
from pipeline.served import not_in_source
from pipeline.snapshots import Snapshot, SnapshotStore
from pipeline.transform.measured import with_summary_keys
from pipeline.transform.provenance import snapshot_commit

#: The MkDocs glue package (``pipeline/render/mkdocs/``): the hooks ``mkdocs.yml``
#: loads by file path (``hooks:``) and the patches they make, in ``HOOKS_DIR``.
MKDOCS_PACKAGE = "mkdocs"
MKDOCS_HOOKS = ("hooks", "cache")
HOOKS_DIR = Path(render_package.__file__).parent / MKDOCS_PACKAGE

#: Pages every published site must have (besides one per release with results).
REQUIRED_PAGES = ("index.html", "methodology.html", "generated/audit.html")
#: A page heavier than this (HTML plus its chart data) fails the weight check.
PAGE_BUDGET_BYTES = settings.PAGE_BUDGET_BYTES


def snapshot_table(instance: dg.DagsterInstance, raw: dict[str, dict]) -> pl.DataFrame:
    """One row per stored snapshot in use: where it came from and what it yielded."""
    rows = []
    for release, value in raw.items():
        snap = value.get("snapshot")
        if not snap:
            continue
        meta = latest_metadata(instance, "core_mlperf__results", release)
        rows.append(
            {
                "release": release,
                "path": snap["path"],
                "url": snap["url"],
                "sha256": snap["sha256"],
                "bytes": snap["bytes"],
                "fetched_at": snap["fetched_at"],
                "rows": meta.get("rows"),
                "rejected": meta.get("rejected"),
                "checks": meta.get("checks", ""),
                "commit": snap.get("upstream_commit"),
            }
        )
    return pl.DataFrame(rows, schema=SNAPSHOT_SCHEMA).sort("release")


def rounds_table(store: SnapshotStore, raw: dict, tree: dict) -> pl.DataFrame:
    """Per round: the commit read, its date, how many files, what the source had."""
    rows = []
    for release in sorted(set(raw) | set(tree), key=version_key):
        summary, listing = raw.get(release) or {}, tree.get(release) or {}
        snaps = [
            Snapshot(**value["snapshot"])
            for value in (listing, summary)
            if value.get("snapshot")
        ]
        # Counted when the tree was read; an outcome stored before that was counted
        # is read back from its snapshot.
        files = listing.get("files_read")
        if files is None:
            files = (
                len(json.loads(store.read(snaps[0])).get("files", {}))
                if listing.get("snapshot")
                else 0
            )
        if summary.get("snapshot"):
            files += 1
        commits = [c for snap in snaps if (c := snapshot_commit(snap))]
        rows.append(
            {
                "release": release,
                "repository": release_for(release).repository,
                "commit": listing.get("commit")
                or summary.get("commit")
                or next(iter(commits), None),
                "commit_date": next(
                    (s.upstream_commit_date for s in snaps if s.upstream_commit_date),
                    None,
                ),
                "files_read": files,
                "summary": summary.get("status"),
                "raw_tree": tree_state(listing),
                "disagreement": summary.get("disagreement") or None,
            }
        )
    # Listed rounds the source has nothing of have no partition, so no outcome
    # (``runner.absent_rounds``): their rows say what a run of them would have.
    for version in not_in_source(store.root).keys() - set(raw) - set(tree):
        release = release_for(version)
        rows.append(
            {
                "release": version,
                "repository": release.repository,
                "commit": None,
                "commit_date": None,
                "files_read": 0,
                "summary": NOT_IN_SOURCE if release.has_summary else RAW_TREE_ONLY,
                "raw_tree": NOT_IN_SOURCE if release.reads_raw_tree else NOT_REQUESTED,
                "disagreement": "the source has no folder or repository of this round",
            }
        )
    rows.sort(key=lambda row: version_key(row["release"]))
    return pl.DataFrame(rows, schema=ROUNDS_SCHEMA)


def tree_state(outcome: dict) -> str | None:
    """What Audit says of a round's raw tree: its status, and why where it matters.

    A tree whose source failed says the reason, and files refused for their size
    are named ("ingested; 1 file over the 64 MB cap: <path>").
    """
    status = outcome.get("status")
    if status == SOURCE_ERROR:
        return f"{status}: {outcome.get('message', '')}"
    if outcome.get("over_cap_note"):
        return f"{status}; {outcome['over_cap_note']}"
    return status


def lineage_of() -> str:
    """The project's asset graph as Mermaid, from the definitions themselves."""
    from pipeline.definitions import defs

    graph = defs().resolve_asset_graph()
    nodes = [k.to_user_string() for k in graph.materializable_asset_keys]
    edges = [
        (parent.to_user_string(), key.to_user_string())
        for key in graph.materializable_asset_keys
        for parent in graph.get(key).parent_keys
    ]
    return mermaid(edges, nodes)


def in_memory_engine(step: Callable[..., Iterator]) -> Callable[..., Iterator]:
    """Run a generator step with Polars' in-memory engine.

    Rendering asks thousands of small queries (one per page, table and chart); the
    in-memory engine answers each in about half the time of the streaming default.
    """

    @functools.wraps(step)
    def run(*args: object, **kwargs: object) -> Iterator:
        with pl.Config(engine_affinity="in-memory"):
            yield from step(*args, **kwargs)

    return run


def bench_results() -> tuple[dict | None, str | None]:
    """The committed bench results for the Performance page, never from build/."""
    return load_results(settings.PROJECT_ROOT)


@dg.asset(
    group_name="site",
    kinds={"markdown"},
    automation_condition=FOLLOW_UPSTREAM,
    code_version=code_version(
        # Every page module, not only pages.py: a chart or history change must make
        # the pages stale too. Not the MkDocs glue (its hooks and patches): it
        # shapes the HTML (the published site's code version) and importing it
        # loads MkDocs.
        *(
            importlib.import_module(f"pipeline.render.{name}")
            for name in sorted(
                m.name for m in pkgutil.iter_modules(render_package.__path__)
            )
            if name != MKDOCS_PACKAGE
        ),
        history_module,
        # Unit costs are computed at render time (downloads, Explorer, What's new),
        # from the latency limits registry (below).
        cost_module,
        labels_module,
        # Audit's look-alike names are found at render time (with ICU: its version
        # in the extra below).
        lookalikes_module,
        # The Performance page shows the committed bench results: a new commit of
        # them must make the pages stale too.
        # (and the benchmark tasks the benchmark pages state).
        extra=tuple(
            path.read_text()
            for path in [
                settings.PROJECT_ROOT / "benchmarks/results/latest.json",
                settings.PROJECT_ROOT / "pipeline/registry/benchmark_tasks.toml",
                settings.PROJECT_ROOT / "pipeline/registry/latency_limits.toml",
            ]
            if path.exists()
        )
        + (f"ICU {lookalikes_module.ICU_VERSION}",),
    ),
    ins={
        "results": dg.AssetIn("out_mlperf__results"),
        "rejected": dg.AssetIn("core_mlperf__rejected"),
        "gains": dg.AssetIn("out_mlperf__software_gains"),
        "generations": dg.AssetIn("out_mlperf__generation_ratios"),
        "steps": dg.AssetIn("out_mlperf__scaling"),
        "crosscheck": dg.AssetIn("core_mlperf__crosscheck"),
        "measured": dg.AssetIn("core_mlperf__tree_measured"),
        "corrections": dg.AssetIn("out_mlperf__corrections"),
        "claims": dg.AssetIn("out_mlperf__claims"),
        "exclusions": dg.AssetIn("out_mlperf__exclusions"),
        "raw": dg.AssetIn("raw_mlperf__summary"),
        "tree": dg.AssetIn("raw_mlperf__tree"),
        "submitter": dg.AssetIn("core_mlperf__submitter_check"),
        "systems": dg.AssetIn("out_mlperf__systems"),
        "system_fields": dg.AssetIn("out_mlperf__system_fields"),
        "systems_quarantined": dg.AssetIn("core_mlperf__systems_quarantined"),
    },
    check_specs=[
        dg.AssetCheckSpec(
            "one_page_per_entity",
            asset="out_site__pages",
            blocking=True,
            description="Every release and benchmark has its own page file: no two "
            "upstream names share one, none is missing.",
        ),
    ],
    description=(
        "Every generated page of the website (Markdown, Vega-Lite chart specs, "
        "downloads, the local Vega bundle) in a staging MkDocs project."
    ),
)
@in_memory_engine
def out_site__pages(
    context: dg.AssetExecutionContext,
    results: pl.LazyFrame,
    rejected: pl.LazyFrame,
    gains: pl.LazyFrame,
    generations: pl.LazyFrame,
    steps: pl.LazyFrame,
    crosscheck: pl.LazyFrame,
    measured: pl.LazyFrame,
    corrections: pl.LazyFrame,
    claims: pl.LazyFrame,
    exclusions: pl.LazyFrame,
    raw: dict,
    tree: dict,
    submitter: pl.LazyFrame,
    systems: pl.LazyFrame,
    system_fields: pl.LazyFrame,
    systems_quarantined: pl.LazyFrame,
):
    """Render the pages into ``build/staging/project``; check one page per entity."""
    build = settings.build_dir()
    project = stage_project(build / STAGED_PROJECT)
    frames = dict(
        zip(
            ["results", "rejected", "gains", "generations", "scaling", "crosscheck"],
            pl.collect_all([results, rejected, gains, generations, steps, crosscheck]),
            strict=True,
        )
    )
    corrections_df, evaluations, excluded, systems_df, fields_df, quarantined_df = (
        pl.collect_all(
            [corrections, claims, exclusions, systems, system_fields,
             systems_quarantined]
        )
    )  # fmt: skip
    # Measured latency and accuracy of the published results (endpoints-harness
    # results only); no table at all where no result states them.
    measured_df = with_summary_keys(measured, crosscheck, results).collect()
    bench, bench_problem = bench_results()
    data = SiteData(
        **frames,
        snapshots=snapshot_table(context.instance, raw),
        rounds=rounds_table(SnapshotStore(settings.data_dir()), raw, tree),
        submitter_check=submitter.collect(),
        lineage_mermaid=lineage_of(),
        pipeline_commit=git_commit(str(settings.PROJECT_ROOT)),
        built_at=dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
        exclusions=excluded,
        corrections=corrections_df,
        claims=tuple(load_claims()),
        claim_evaluations=evaluations,
        bench=bench,
        bench_problem=bench_problem,
        systems=systems_df,
        system_fields=fields_df,
        systems_quarantined=quarantined_df,
        measured=measured_df if measured_df.height else None,
    )
    memo = RenderMemo(build / "cache" / "render", verify=settings.render_cache_verify())
    written = render_site(data, project / "site" / "generated", memo=memo)
    generated = project / "site" / "generated"
    pages = json.loads((generated / PAGE_INDEX).read_text(encoding="utf-8"))
    problems = page_problems(pages, generated)
    yield dg.Output(
        {"project": str(project), "releases": data.releases, "pages": pages},
        metadata={
            "files": len(written),
            "releases": data.releases,
            "pages_reused": memo.reused,
            "pages_rendered": memo.rendered,
        },
    )
    yield dg.AssetCheckResult(
        check_name="one_page_per_entity",
        passed=not problems,
        description="one page per release and benchmark"
        if not problems
        else "; ".join(problems)[:2000],
        metadata={
            "entities": {kind: len(by_name) for kind, by_name in pages.items()},
            "problems": problems[:20],
        },
    )


@dg.asset(
    group_name="site",
    kinds={"html"},
    automation_condition=FOLLOW_UPSTREAM,
    code_version=code_version(
        publish_module,
        # Read, not imported: MkDocs loads them by path in its own process. Every
        # file of the package: the hooks and the patches they make.
        extra=tuple(
            path.read_text(encoding="utf-8") for path in sorted(HOOKS_DIR.glob("*.py"))
        ),
    ),
    check_specs=[
        dg.AssetCheckSpec(
            "mkdocs_strict_build",
            asset="out_site__published",
            blocking=True,
            description="mkdocs build --strict succeeds with no warning.",
        ),
        dg.AssetCheckSpec(
            "every_page_present",
            asset="out_site__published",
            blocking=True,
            description="Home, methodology, audit and one page per release exist.",
        ),
        dg.AssetCheckSpec(
            "page_weight_budget",
            asset="out_site__published",
            description="No page's HTML is heavier than 1.5 MB.",
        ),
    ],
    description=(
        "The built website, published by an atomic symlink swap of build/site only "
        "when the build and its blocking checks pass; otherwise the last good site "
        "stays online unchanged."
    ),
)
def out_site__published(out_site__pages: dict):
    """Build into a fresh folder, check it, then swap it into place."""
    build = settings.build_dir()
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%f")
    # Built in staging and moved into published/ only once it passes, so a build a
    # killed or failed run leaves behind is never among the published ones; a
    # stale one from an earlier run is removed first.
    staged = build / "staging" / "site"
    shutil.rmtree(staged, ignore_errors=True)
    target = build / "published" / stamp
    dates = [
        d for v in out_site__pages["releases"] if (d := release_for(v).published_date)
    ]
    cache = build / "cache" / "pages"
    ok, problems = mkdocs_build(
        Path(out_site__pages["project"]),
        staged,
        settings.site_url(),
        data_date=max(dates, default=None),
        cache=cache,
    )
    if not ok and "Errno 28" in problems:
        problems = (
            f"the build folder {build} is full (No space left on device); " + problems
        )
    yield dg.AssetCheckResult(
        check_name="mkdocs_strict_build",
        passed=ok,
        description="built without warnings" if ok else problems[:2000],
    )
    expected = list(REQUIRED_PAGES) + [
        "generated/" + page.removesuffix(".md") + ".html"
        for page in out_site__pages["pages"]["releases"].values()
    ]
    missing = [p for p in expected if not (staged / p).exists()] if ok else expected
    yield dg.AssetCheckResult(
        check_name="every_page_present",
        passed=not missing,
        description="all pages present" if not missing else f"missing: {missing[:10]}",
        metadata={"expected": len(expected), "missing": missing[:20]},
    )
    heavy = (
        sorted(
            (str(p.relative_to(staged)), p.stat().st_size)
            for p in staged.rglob("*.html")
            if p.stat().st_size > PAGE_BUDGET_BYTES
        )
        if ok
        else []
    )
    yield dg.AssetCheckResult(
        check_name="page_weight_budget",
        passed=not heavy,
        severity=dg.AssetCheckSeverity.WARN,
        description="every page under budget" if not heavy else f"heavy: {heavy}",
    )
    if not ok or missing:
        shutil.rmtree(staged, ignore_errors=True)
        raise dg.Failure(
            description="site not published, the last good site stays: "
            + (problems[:500] if not ok else f"missing pages {missing[:5]}")
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staged.rename(target)
        link = publish(target, build)
    except OSError as exc:
        # Nothing half-done stays: the build that could not be swapped in goes.
        shutil.rmtree(staged, ignore_errors=True)
        if (build / "site").resolve() != target:
            shutil.rmtree(target, ignore_errors=True)
        raise dg.Failure(
            description="site not published, the last good site stays: cannot "
            f"swap the new site into {build}: {disk_cause(exc)}"
        ) from None
    pages = sum(1 for _ in target.rglob("*.html"))
    reused = page_cache_report(cache)
    yield dg.Output(
        {"site": str(link), "build": str(target), "pages": pages},
        metadata={"site": str(link), "pages": pages, **reused},
    )


def page_cache_report(cache: Path) -> dict[str, int]:
    """How many pages MkDocs reused from its page cache (``render/mkdocs/cache.py``)."""
    try:
        report = json.loads((cache / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        "html_pages_reused": int(report.get("reused", 0)),
        "html_pages_built": int(report.get("pages", 0)) - int(report.get("reused", 0)),
    }
