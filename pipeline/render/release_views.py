"""How a release is laid out: its numbers, first appearances, submitters, top rows.

Shared by the release pages (``release_pages``: one per round, one per benchmark of
a round, the Releases index) and the "Latest release" digest (``latest_page``); a
release page is a function of the release's own rows and its ``ReleaseFacts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from pipeline.manifest import release_for
from pipeline.render import claim_notes, safe
from pipeline.render.change_notes import changes_note
from pipeline.render.context import (
    GENERATED,
    GROUP,
    chips,
    new_in,
    numbers_block,
    page_link,
    sorted_groups,
)
from pipeline.render.coverage import (
    NOT_IN_SOURCE,
    NOT_INGESTED,
    RAW_TREE,
    SUMMARY_FILE,
    round_status,
    skip_note,
)
from pipeline.render.model import Model, Slugs
from pipeline.render.safe import Md, md_join
from pipeline.render.site_data import is_accelerator_type, system_label, systems_count
from pipeline.render.spec import Draft, Section
from pipeline.render.system_ids import system_link
from pipeline.render.tables import (
    NO_ACCURACY,
    accuracy_cell,
    badge_counts,
    disclosure,
    external_link,
    html_row,
    html_table,
    html_table_of_rows,
    joined,
    markdown_table,
    name_cell,
    number_cell,
    page_links,
    result_cell,
)
from pipeline.transform.provenance import NOT_RECORDED, TREE_FILE, with_upstream

#: Where each round's grid download goes, under ``generated/``.
GRIDS = "downloads/grids"
#: Rows per benchmark, scenario and division on a release page and the "Latest
#: release" digest; every row is on the release's page of that benchmark.
LATEST_TOP_N = 3


RESULT_COLUMNS = {
    "c_rank": "#",
    "c_submitter": "Submitter",
    "c_system": "System",
    "c_chips": "Accelerators",
    "c_result": "Result",
    "c_per_accelerator": "Per accelerator",
    "c_software": "Software",
    "c_availability": "Availability",
}


#: Right-aligned columns of the result tables.
RESULT_NUMERIC = ("c_rank", "c_result", "c_per_accelerator")

#: The result tables of the open division (and any other outside the closed one):
#: the accuracy upstream published stands beside each result, since there a
#: submitter may change the model and accuracy is what differs.
OPEN_RESULT_COLUMNS = {
    "c_rank": "#",
    "c_submitter": "Submitter",
    "c_system": "System",
    "c_chips": "Accelerators",
    "c_result": "Result",
    "c_accuracy": "Accuracy (as published)",
    "c_per_accelerator": "Per accelerator",
    "c_software": "Software",
    "c_availability": "Availability",
}


def _is_closed() -> pl.Expr:
    """Rows of the closed division, whose tables keep ``RESULT_COLUMNS``."""
    return pl.col("division") == "closed"


def result_cells(frame: pl.DataFrame) -> pl.DataFrame:
    """Display cells of ranked canonical results, computed once for every page.

    ``c_row`` is each row's table row (``tables.html_row``): a release's page and
    its benchmark pages slice one formatting of every round's rows.
    """
    linked = "system_id" in frame.columns
    cells = frame.with_columns(
        c_rank=pl.col("rank"),
        c_submitter=name_cell(pl.col("submitter")).cell(),
        c_system=safe.fmt(
            "{}<br><small>{}{}</small>",
            name_cell(system_label()),
            name_cell(pl.col("platform")),
            safe.fmt(" · {}", system_link()) if linked else "",
        ).cell(),
        c_chips=chips("total_accelerators", "accelerator_name", "nodes").cell(),
        c_result=result_cell(
            pl.col("result_value"),
            pl.col("result_url"),
            pl.col("result_key"),
            pl.col("is_preview"),
            pl.col("is_inferred"),
            pl.col("is_inferred_unverified"),
            result_id=pl.col("result_id") if "result_id" in frame.columns else None,
        ).cell(),
        c_per_accelerator=number_cell(pl.col("result_per_accelerator"))
        .fill_null("—")
        .cell(),
        c_software=disclosure(pl.col("software").fill_null("not stated")).cell(),
        c_availability=pl.col("availability"),
        c_accuracy=accuracy_cell(
            pl.col("accuracy_upstream")
            if "accuracy_upstream" in frame.columns
            else pl.lit(None, pl.String)
        ).cell(),
    )
    return cells.with_columns(
        c_row=pl.when(_is_closed())
        .then(html_row(cells.schema, RESULT_COLUMNS, RESULT_NUMERIC))
        .otherwise(html_row(cells.schema, OPEN_RESULT_COLUMNS, RESULT_NUMERIC))
    )


def _result_table(cells: pl.DataFrame) -> str:
    """Ranked canonical results (from ``result_cells``) as a sortable table.

    A table outside the closed division has the published accuracy column too
    (``OPEN_RESULT_COLUMNS``); each table holds one division.
    """
    closed = cells.height > 0 and cells["division"][0] == "closed"
    columns = RESULT_COLUMNS if closed else OPEN_RESULT_COLUMNS
    return html_table_of_rows(cells["c_row"], columns, RESULT_NUMERIC)


def ranked(results: pl.DataFrame) -> pl.DataFrame:
    """Each submitter's best result per accelerator type in every benchmark group.

    One row per (submitter, accelerator) keeps a table readable when a submitter lists
    many near-identical systems, while every submitter and every chip stays visible.
    """
    better_first = (
        pl.when(pl.col("is_higher_better"))
        .then(-pl.col("result_value"))
        .otherwise(pl.col("result_value"))
    )
    return (
        results.sort(better_first, "result_key")
        .unique(
            subset=[*GROUP, "submitter", "accelerator_id"],
            keep="first",
            maintain_order=True,
        )
        .with_columns(rank=pl.int_range(1, pl.len() + 1).over(GROUP))
    )


def _stat_exprs() -> dict[str, pl.Expr]:
    """The counts of ``release_stats``, as aggregations (also per release)."""
    return {
        "results": pl.len(),
        "submitters": pl.col("submitter").n_unique(),
        "systems": systems_count(),
        "accelerators": pl.col("accelerator_id")
        .filter(is_accelerator_type())
        .n_unique(),
        "benchmarks": pl.col("benchmark").n_unique(),
        # Counted with the predicates the badges are drawn with.
        **badge_counts(),
    }


def release_stats(results: pl.DataFrame) -> dict[str, int]:
    """Counts a release page and the index show (results, submitters, ...)."""
    return results.select(**_stat_exprs()).row(0, named=True)


@dataclass(frozen=True)
class ReleaseFacts:
    """What a release page shows besides its own rows (its render cache's inputs).

    Its first appearances and the releases before it (a new round changes neither
    for an older release), its corrections and claims, and the slugs it links.
    """

    release: str
    earlier: tuple[str, ...]
    firsts: tuple[tuple[str, tuple[str, ...]], ...]
    notes: str
    slugs: Slugs


def release_facts(
    model: Model, release: str, page: str, cells: pl.DataFrame
) -> ReleaseFacts:
    """``ReleaseFacts`` of ``release`` as shown on ``page`` (docs-relative)."""
    corrections = model.data.corrections
    changed = (
        changes_note(corrections, release, page) if corrections is not None else Md("")
    )
    notes = changed + claim_notes.release_note(model.verdicts, release, page)
    position = model.releases.index(release)
    return ReleaseFacts(
        release=release,
        earlier=tuple(model.releases[:position]),
        firsts=(
            (
                "Accelerators",
                tuple(new_in(model, release, "accelerator_id", "accelerator_label")),
            ),
            ("Benchmarks", tuple(new_in(model, release, "benchmark"))),
            ("Submitters", tuple(new_in(model, release, "submitter"))),
        ),
        notes=str(notes),
        slugs=model.names.only(
            releases=[release], benchmarks=cells["benchmark"].to_list()
        ),
    )


def release_page(
    draft: Draft,
    facts: ReleaseFacts,
    rel: str,
    *,
    title: str,
    results: pl.DataFrame,
    cells: pl.DataFrame,
    top_n: int = LATEST_TOP_N,
    lead: Sequence[str] = (),
) -> str:
    """One release's page: numbers, what is new, submitters, top rows per group.

    ``results``: the release's rows of the model's results; ``cells``:
    ``result_cells`` of their ``ranked`` rows; ``lead``: parts shown right after
    the numbers.
    """
    release, slugs = facts.release, facts.slugs
    page = f"{GENERATED}/{rel}"
    stats = release_stats(results)
    meta = release_for(release)
    if meta.published_date:
        note = Md(" ({})").format(meta.date_note) if meta.date_note else ""
        published = Md("published {}{}").format(meta.published_date.isoformat(), note)
    else:
        published = "publication date unknown"
    upstream = safe.markdown_link(
        meta.repository, f"https://github.com/{meta.repository}"
    )
    parts = [
        Md("# {}\n").format(title),
        Md("MLPerf Inference {}, {}. Upstream: {}.\n").format(
            release, published, upstream
        ),
        numbers_block(
            [
                (stats["results"], "results"),
                (stats["submitters"], "submitters"),
                (stats["systems"], "systems"),
                (stats["accelerators"], "accelerator types"),
                (stats["benchmarks"], "benchmarks"),
            ]
        ),
        # Counted over the release's results, not only the top rows shown below:
        # every result is on its benchmark's page, with the same badge.
        Md(
            "Of its {:,} results, {:,} preview, {:,} inferred and {:,} marked "
            "inferred upstream results carry a badge wherever they are shown.\n"
        ).format(
            stats["results"],
            stats["preview"],
            stats["inferred"],
            stats["marked_inferred"],
        ),
        *lead,
        facts.notes,
        "## First appearances\n",
    ]
    if not facts.earlier:
        parts.append(Md("{} is the oldest release in the ledger.\n").format(release))
    else:
        parts.append(
            Md("First appearances in the ledger (earlier releases: {}):\n").format(
                md_join(", ", facts.earlier)
            )
        )
        for label, values in facts.firsts:
            listed = md_join(", ", values) or "none"
            parts.append(Md("- **{}** ({}): {}").format(label, len(values), listed))
        parts.append("")
    submitters = (
        results.group_by("submitter")
        .agg(
            pl.len().alias("results"),
            systems_count().alias("systems"),
            pl.col("accelerator_label").unique().sort().alias("chips"),
            pl.col("division").unique().sort().alias("divisions"),
        )
        .sort(["results", "submitter"], descending=[True, False])
        .with_columns(
            c_submitter=pl.col("submitter"),
            c_results=pl.col("results"),
            c_systems=pl.col("systems"),
            c_chips=joined("chips").cell(),
            c_divisions=joined("divisions").cell(),
        )
    )
    parts += [
        Md("\n## Submitters\n\n{:,} organisations submitted results.\n").format(
            stats["submitters"]
        ),
        html_table(
            submitters,
            {
                "c_submitter": "Submitter",
                "c_results": "Results",
                "c_systems": "Systems",
                "c_chips": "Accelerators",
                "c_divisions": "Divisions",
            },
            numeric=("c_results", "c_systems"),
        ),
    ]
    ranked = cells
    closed = pl.col("division") == "closed"
    grid = page_link(page, f"{GRIDS}/{slugs.entity_slug('releases', release)}")
    parts.append(
        Md(
            "\nThe official-style grid of {}, one row per system and a column per "
            "benchmark × scenario, is a download: [CSV]({}) · [Parquet]({}).\n"
        ).format(release, safe.path(f"{grid}.csv"), safe.path(f"{grid}.parquet"))
    )
    shown = cells.filter((pl.col("rank") <= top_n) & closed)
    counts = dict(ranked.group_by("benchmark").len().iter_rows())
    digest = (
        Md(" This digest is the [{} page]({}) of the newest release.").format(
            release, page_link(page, full)
        )
        if (full := slugs.page_of("releases", release)) != rel
        else ""
    )
    parts.append(
        Md(
            "\n## Results by benchmark\n\nTables list the top {} of each group "
            "of the closed division (the open division, where submitters may replace "
            "the model, is listed after them, one page per benchmark), best per "
            "submitter and accelerator type, ranked by the MLPerf metric "
            "(higher throughput or lower latency first); each benchmark's page lists "
            "every submitter's best result per accelerator type. Each value links to "
            "its upstream result folder; hover it for the result key.{}\n"
        ).format(top_n, digest)
    )
    for (benchmark,), bench_rows in sorted(
        shown.partition_by("benchmark", as_dict=True).items()
    ):
        across = page_link(page, slugs.page_of("benchmarks", benchmark))
        everything = page_link(page, release_benchmark_page(slugs, release, benchmark))
        parts.append(
            Md(
                "\n### {b}\n\n[All {n:,} rows of {b} in {r} →]({everything}) · "
                "[Across releases]({across})\n"
            ).format(
                b=benchmark,
                n=counts[benchmark],
                r=release,
                everything=everything,
                across=across,
            )
        )
        parts += draft.sections(page, _group_tables(bench_rows, "####"))
    parts += _open_division(slugs, page, release, ranked.filter(~closed))
    return draft.page(rel, "\n".join(parts))


def _open_division(
    slugs: Slugs, page: str, release: str, rows: pl.DataFrame
) -> list[str]:
    """One line per benchmark with results outside the closed division, linked.

    Each line counts the rows whose accuracy upstream published: each benchmark
    page shows it beside every such result (``OPEN_RESULT_COLUMNS``).
    """
    if rows.height == 0:
        return []
    accuracy = (
        pl.col("accuracy_upstream").str.strip_chars() != ""
        if "accuracy_upstream" in rows.columns
        else pl.lit(False)
    )
    links = {
        b: page_link(page, release_benchmark_page(slugs, release, b))
        for b in rows["benchmark"].unique().to_list()
    }
    listed = (
        rows.group_by("benchmark")
        .agg(
            pl.len().alias("rows"),
            pl.col("division").unique().sort().alias("divisions"),
            pl.col("scenario").unique().sort().alias("scenarios"),
            accuracy.fill_null(False).sum().alias("with_accuracy"),
        )
        .sort("benchmark")
        .with_columns(
            c_benchmark=page_links(pl.col("benchmark"), links).cell(),
            c_rows=pl.col("rows"),
            c_accuracy=pl.col("with_accuracy"),
            c_divisions=joined("divisions").cell(),
            c_scenarios=joined("scenarios").cell(),
        )
    )
    return [
        "\n## Open division and other divisions\n",
        Md(
            "{:,} benchmark(s) of {} have results outside the closed division; each "
            "page lists every submitter's best result per accelerator type, with the "
            "accuracy upstream published beside each result, as written: in the open "
            "division a submitter may change the model, so accuracy is what differs. "
            "A result whose source, as this site read it, has none says *{}*.\n"
        ).format(listed.height, release, NO_ACCURACY),
        markdown_table(
            listed,
            {
                "c_benchmark": "Benchmark",
                "c_divisions": "Divisions",
                "c_scenarios": "Scenarios",
                "c_rows": "Rows",
                "c_accuracy": "With published accuracy",
            },
            numeric=("c_rows", "c_accuracy"),
        ),
    ]


def _group_tables(rows: pl.DataFrame, level: str) -> list[Section]:
    """A heading and a ranked table per scenario and division (one unit each)."""
    return [
        Section(
            Md("\n{} {} · {} · {}\n").format(
                safe.heading(len(level)),
                scenario,
                division,
                group["result_unit"].first(),
            ),
            table=_result_table(group),
        )
        for (scenario, division), group in sorted_groups(rows, ["scenario", "division"])
    ]


def release_benchmark_page(slugs: Slugs, release: str, benchmark: str) -> str:
    """The page of one benchmark's results in one release, under ``generated/``."""
    folder = slugs.entity_slug("releases", release)
    return f"releases/{folder}/{slugs.entity_slug('benchmarks', benchmark)}.md"


def release_benchmark_pages(
    draft: Draft, slugs: Slugs, release: str, cells: pl.DataFrame
) -> dict[str, str]:
    """Every submitter's best result per accelerator type, one page per benchmark.

    A release page holding every row outgrew any page budget (764 rows in v4.1);
    here each benchmark of the release has its own page. ``cells``: the release's
    ``result_cells`` of ``ranked`` rows.
    """
    release_page_rel = slugs.page_of("releases", release)
    ranked = cells
    pages = {}
    for (benchmark,), rows in sorted(
        ranked.partition_by("benchmark", as_dict=True).items()
    ):
        rel = release_benchmark_page(slugs, release, benchmark)
        page = f"{GENERATED}/{rel}"
        back = page_link(page, release_page_rel)
        across = page_link(page, slugs.page_of("benchmarks", benchmark))
        parts = [
            Md("# {} in MLPerf Inference {}\n").format(benchmark, release),
            Md("[MLPerf Inference {}]({}) · [{} across releases]({})\n").format(
                release, back, benchmark, across
            ),
            Md(
                "{:,} rows: each submitter's best result per accelerator type, ranked "
                "by the MLPerf metric (higher throughput or lower latency first). Each "
                "value links to its upstream result folder; hover it for the result "
                "key.\n"
            ).format(rows.height),
            *draft.sections(page, _group_tables(rows, "##")),
        ]
        draft.page(rel, "\n".join(parts))
        pages[benchmark] = rel
    return pages


#: Releases index columns of the snapshot table.
SNAPSHOT_COLUMNS = {
    "c_release": "Release",
    "c_file": "Upstream file",
    "c_commit": "Commit",
    "c_sha": "sha256",
    "c_read": "Read from",
}


def snapshot_cells(snapshots: pl.DataFrame) -> pl.DataFrame:
    """Cells of the snapshot table: the upstream link, never the place read from.

    ``snapshots`` carries ``provenance.with_upstream``'s columns. The file links to
    its upstream address (at the commit where known); the place the build read it
    from (a mirror, possibly a local folder shown by its path inside the mirror) is a
    plain-text note, never a link.
    """
    label = safe.when(
        pl.col("path") == TREE_FILE, "raw submission tree", pl.col("path")
    )
    commit = safe.when(
        pl.col("upstream_commit").is_not_null(),
        safe.fmt("<code>{}</code>", pl.col("upstream_commit")),
        NOT_RECORDED,
    )
    return snapshots.with_columns(
        c_release=pl.col("release"),
        c_file=external_link(label, pl.col("upstream_url")).cell(),
        c_commit=safe.fmt(
            "{}<br><small>{}</small>", commit, pl.col("commit_basis")
        ).cell(),
        c_sha=safe.fmt("<code>{}</code>", pl.col("sha256")).cell(),
        c_read=safe.fmt("<small>{}</small>", pl.col("read_from")).cell(),
    )


def _gaps(rounds: pl.DataFrame) -> list[Md]:
    """Each step between consecutive rounds with rows that jumps over other rounds."""
    held = rounds.filter(pl.col("has_rows"))["release"].to_list()
    return [
        Md("{} → {} {}").format(old, new, note)
        for old, new in zip(held, held[1:], strict=False)
        if (note := skip_note(old, new, rounds))
    ]


#: Columns of the Releases index's table of rounds (``_round_cells``).
ROUND_COLUMNS = {
    "c_release": "Release",
    "c_published": "Published",
    "c_status": "Source",
    "c_upstream": "Upstream",
    "c_results": "Results",
    "c_submitters": "Submitters",
    "c_systems": "Systems",
    "c_accelerators": "Accelerator types",
}
ROUND_COUNTS = ("c_results", "c_submitters", "c_systems", "c_accelerators")


def _round_cells(model: Model, page: str, rounds: pl.DataFrame) -> pl.DataFrame:
    """One row per round of ``round_status``, newest first, as Releases index cells.

    A round with results links its release page and shows its counts; one without
    shows "—" for them.
    """
    # One manifest look-up per round (tens of them), not per result.
    repositories = {r: release_for(r).repository for r in rounds["release"]}
    links = {r: page_link(page, model.page_of("releases", r)) for r in model.releases}
    counts = model.results.group_by("release").agg(**_stat_exprs())
    repository = pl.col("release").replace_strict(repositories)
    return (
        rounds.reverse()
        .join(counts, on="release", how="left", maintain_order="left")
        .select(
            c_release=safe.when(
                pl.col("release").is_in(list(model.releases)),
                page_links(pl.col("release"), links, complete=False),
                pl.col("release"),
            ).cell(),
            c_published=pl.col("published_date")
            .dt.to_string("%Y-%m-%d")
            .fill_null("unknown"),
            c_status=pl.col("status"),
            c_upstream=external_link(
                repository.str.replace(r"^[^/]*/", ""),  # Release.repo_name
                pl.format("https://github.com/{}", repository),
            ).cell(),
            **{
                column: number_cell(pl.col(stat).cast(pl.Float64), digits=15)
                .fill_null("—")
                .cell()
                for column, stat in zip(
                    ROUND_COUNTS,
                    ("results", "submitters", "systems", "accelerators"),
                    strict=True,
                )
            },
        )
    )


def releases_index(model: Model) -> str:
    """Every known round with its status and upstream repository; the snapshots read.

    Rounds the source lacks are listed with the rest, so a step such as v4.1 → v5.1
    is visibly not consecutive; each snapshot links to its upstream address and
    commit, whatever the build read it from.
    """
    page = f"{GENERATED}/releases/index.md"
    snapshots = with_upstream(model.data.snapshots)
    rounds = round_status(list(model.releases), read=snapshots["release"])
    absent = rounds.filter(~pl.col("has_rows"))["release"].to_list()
    notes = []
    if absent:
        notes.append(
            Md(
                "Rounds without results here ({}) are listed so that no gap is "
                "silent: cross-round comparisons skip them and say so."
            ).format(md_join(", ", absent))
        )
    if gaps := _gaps(rounds):
        gap_list = md_join("; ", gaps)
        notes.append(Md("Steps that are not consecutive: {}.").format(gap_list))
    missing = Md("{}\n\n").format(md_join(" ", notes)) if notes else ""
    order = {r: i for i, r in enumerate(rounds["release"].to_list())}
    cells = snapshot_cells(
        snapshots.with_columns(
            _order=pl.col("release").replace_strict(
                order, default=len(order), return_dtype=pl.Int32
            )
        ).sort("_order", "path")
    )
    snapshot_table = html_table(cells, SNAPSHOT_COLUMNS, searchable=False)
    text = Md(
        "# Releases\n\nOne page per MLPerf Inference release in the ledger: what was "
        "new, who submitted, and the best results of every benchmark. *Source* says "
        "how a round's rows were read: from its published **{summary}**, from "
        "its raw tree of submission logs (**{tree}**: rounds before v4.1 "
        "publish no summary), **{not_ingested}** (the build read a file of the round "
        "but no result came of it) or **{not_in_source}** (a round of the manifest "
        "the source this build read does not have). *Upstream* is the round's "
        "MLCommons repository.\n\n"
        "{missing}{rounds}"
        "\n## Snapshots read by this build\n\n"
        "Each file this build read, linked to its upstream address: at the commit "
        "where it is known (and why), else at HEAD. *Read from* says where this build "
        "fetched it (the upstream host or a mirror); the full record is on the "
        "[Audit page]({audit}).\n\n{snapshots}"
    ).format(
        summary=SUMMARY_FILE,
        tree=RAW_TREE,
        not_ingested=NOT_INGESTED,
        not_in_source=NOT_IN_SOURCE,
        missing=missing,
        rounds=markdown_table(
            _round_cells(model, page, rounds), ROUND_COLUMNS, numeric=ROUND_COUNTS
        ),
        audit=page_link(page, "audit.md"),
        snapshots=snapshot_table or Md("_No snapshots were recorded._\n"),
    )
    return text
