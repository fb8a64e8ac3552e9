"""The Audit page's sections: lineage, cross-check, submitter check, losses, vocabulary.

Each section is a list of Markdown parts from one of the build's tables; the Audit
page (``audit_page``) puts them in order.
"""

from __future__ import annotations

import re

import polars as pl

from pipeline.labels import NO_NAME
from pipeline.render import safe
from pipeline.render.context import release_index
from pipeline.render.safe import Md, md_join
from pipeline.render.site_data import release_order
from pipeline.render.tables import (
    external_link,
    html_table,
    markdown_table,
    number_cell,
)
from pipeline.transform.descriptions import NOT_REVIEWED, not_in_vocabulary
from pipeline.transform.lookalikes import composed_names, lookalike_groups
from pipeline.transform.provenance import NOT_RECORDED
from pipeline.transform.submitter_check import agreement
from pipeline.validate import LOSS_LIMIT

_NODE = r"([\w.:-]+)\s*(?:[\[({]+\"?([^\]\")}]*)\"?[\])}]+)?"


_EDGE = re.compile(rf"^\s*{_NODE}\s*[-=.]+>(?:\|[^|]*\|)?\s*{_NODE}")


def lineage_edges(mermaid: str) -> list[tuple[str, str]]:
    """(upstream, downstream) asset names from a Mermaid flowchart's arrows.

    Material for MkDocs renders Mermaid with a script from unpkg.com, and this site
    loads nothing from other hosts, so the Audit page shows the graph as a table.
    """
    labels: dict[str, str] = {}
    edges = []
    for line in mermaid.splitlines():
        match = _EDGE.match(line)
        if not match:
            continue
        source, source_label, target, target_label = match.groups()
        for node, label in ((source, source_label), (target, target_label)):
            if label or node not in labels:
                labels[node] = label or node
        edges.append((source, target))
    return [(labels[s], labels[t]) for s, t in edges]


def lineage_table(mermaid: str) -> str:
    """The asset lineage as a table of edges (the Mermaid graph's text form)."""
    edges = lineage_edges(mermaid)
    if not edges:
        return "_No lineage was recorded._\n"
    nodes = sorted({n for edge in edges for n in edge})
    # Step = longest path from a source asset: the order in which assets are built.
    step = dict.fromkeys(nodes, 0)
    for _ in nodes:
        for upstream, asset in edges:
            step[asset] = max(step[asset], step[upstream] + 1)
    reads = (
        pl.DataFrame(edges, schema=["upstream", "asset"], orient="row")
        .group_by("asset")
        .agg(pl.col("upstream").unique().sort())
        .join(pl.DataFrame({"asset": nodes}), on="asset", how="right")
        .with_columns(step=pl.col("asset").replace_strict(step, return_dtype=pl.Int32))
        .sort("step", "asset")
        .with_columns(
            c_step=pl.col("step"),
            c_asset=safe.fmt("<code>{}</code>", pl.col("asset")).cell(),
            c_reads=safe.each_of(
                pl.col("upstream"), safe.fmt("<code>{}</code>", pl.element())
            )
            .fill_null("— (source)")
            .cell(),
        )
    )
    return markdown_table(
        reads,
        {"c_step": "Step", "c_asset": "Asset", "c_reads": "Reads"},
        numeric=("c_step",),
    )


#: Cross-check exceptions listed one by one (every one is in the download).
CROSSCHECK_ROWS_SHOWN = 40


#: The file a loadgen result is checked against; the sentence that names it stands
#: alone while every matched value was checked against one.
LOADGEN_FILE = "mlperf_log_summary.txt"


def _checked_against(report: pl.DataFrame) -> Md:
    """Which file each matched summary value was checked against, per round."""
    files = (
        report.filter(pl.col("status").is_in(["agree", "disagree"]))
        .with_columns(file=pl.col("raw_source_file").str.extract(r"([^/]+)$", 1))
        .group_by("release", "file")
        .len()
        .sort("release", "file")
    )
    if set(files["file"].to_list()) <= {LOADGEN_FILE}:
        return Md(
            "Where a release's raw submission tree is read too, each published summary "
            "value is matched to the metric of its `mlperf_log_summary.txt` (division, "
            "submitter, system, benchmark, scenario); values agree within 0.1%.\n"
        )
    listed = files.with_columns(
        text=safe.fmt(
            "{}: <code>{}</code> ({})",
            pl.col("release"),
            pl.col("file"),
            safe.numeric(pl.col("len")),
        ).cell()
    )["text"].to_list()
    return Md(
        "Where a release's raw submission tree is read too, each published summary "
        "value is matched (division, submitter, system, benchmark, scenario) to the "
        "result its raw file states, and values agree within 0.1%. The file each value "
        "was checked against: {} (every row's file is `raw_source_file` in the "
        "[cross-check download](downloads/crosscheck.csv)).\n"
    ).format(md_join("; ", [safe.cell_value(t) for t in listed]))


def _not_in_source(report: pl.DataFrame) -> Md:
    """Published results with no raw file in the source: counted once per round."""
    counts = (
        report.filter(pl.col("status") == "not_in_source")
        .group_by("release")
        .len()
        .sort("release")
    )
    if counts.height == 0:
        return Md("")
    listed = counts.with_columns(
        text=safe.fmt("{}: {}", pl.col("release"), safe.numeric(pl.col("len"))).cell()
    )["text"].to_list()
    return Md(
        "\nNo raw file in this source: the source holds only part of these rounds' "
        "raw trees, so their other published results have no folder to check "
        "against ({}). They are not errors and are not listed below.\n"
    ).format(md_join("; ", [safe.cell_value(t) for t in listed]))


def crosscheck_section(report: pl.DataFrame) -> list[str]:
    """Per release agreement of summary and raw tree, then every exception."""
    missing = _not_in_source(report)
    report = report.filter(pl.col("status") != "not_in_source")
    per_release = (
        report.group_by("release")
        .agg(
            (pl.col("status").is_in(["agree", "disagree"])).sum().alias("matched"),
            (pl.col("status") == "agree").sum().alias("agree"),
            (pl.col("status") == "disagree").sum().alias("disagree"),
            (pl.col("status") == "summary_only").sum().alias("summary_only"),
            (pl.col("status") == "raw_only").sum().alias("raw_only"),
        )
        .with_columns(
            rate=safe.when(
                pl.col("matched") > 0,
                safe.fmt(
                    "{}%",
                    safe.numeric((100 * pl.col("agree") / pl.col("matched")).round(2)),
                ),
            )
            .fill_null("—")
            .cell()
        )
        .sort("release")
    )
    # A round without a summary has only raw-tree rows: nothing to disagree with.
    with_summary = per_release.filter((pl.col("matched") + pl.col("summary_only")) > 0)[
        "release"
    ]
    exceptions = report.filter(
        (pl.col("status") != "agree") & pl.col("release").is_in(with_summary.implode())
    ).sort(
        pl.col("status").replace_strict(
            {"disagree": 0, "summary_only": 1, "raw_only": 2}, default=3
        ),
        "release",
        "submitter",
        "platform",
    )
    listed = exceptions.head(CROSSCHECK_ROWS_SHOWN)

    def side(prefix: str) -> safe.MdExpr:
        value = number_cell(pl.col(f"{prefix}_value"))
        linked = safe.fmt(
            "{} {}",
            external_link(value, pl.col(f"{prefix}_url")),
            pl.col(f"{prefix}_unit"),
        )
        return safe.when(pl.col(f"{prefix}_value").is_not_null(), linked)

    shown = listed.with_columns(
        c_release=pl.col("release"),
        c_status=pl.col("status"),
        c_result=safe.fmt(
            "{} · {} · {} · {}",
            pl.col("submitter"),
            pl.col("platform"),
            pl.col("benchmark"),
            pl.col("scenario"),
        ).cell(),
        c_summary=side("summary").fill_null("—").cell(),
        c_raw=side("raw").fill_null("—").cell(),
    )
    return [
        "## Cross-check with the raw result tree\n",
        _checked_against(report),
        markdown_table(
            per_release.with_columns(pl.all().exclude("rate").cast(pl.String)),
            {
                "release": "Release",
                "matched": "Matched",
                "agree": "Agree",
                "disagree": "Disagree",
                "summary_only": "Summary only",
                "raw_only": "Raw tree only",
                "rate": "Agreement",
            },
        ),
        "\nRounds without a summary file (the raw tree is their only record) have "
        "nothing to disagree with: their rows count as raw tree only.\n",
        *([missing] if missing else []),
        Md(
            "\n{:,} result(s) of rounds with a summary disagree or appear on one "
            "side only{}"
        ).format(
            exceptions.height,
            Md(
                "; the first {:,} (disagreements first) are listed here, every one is "
                "in the [cross-check download](downloads/crosscheck.csv):\n"
            ).format(listed.height)
            if exceptions.height > listed.height
            else (Md(":\n") if exceptions.height else Md(".\n")),
        ),
        html_table(
            shown,
            {
                "c_release": "Release",
                "c_status": "Status",
                "c_result": "Result",
                "c_summary": "Summary value",
                "c_raw": "Raw-tree value",
            },
            numeric=("c_summary", "c_raw"),
        ),
    ]


#: Rows of the submitter cross-check that are listed one by one (the rest: downloads).
SUBMITTER_ROWS_SHOWN = 40


def submitter_section(check: pl.DataFrame) -> list[str]:
    """How far the submitters' own summary tables bear the logs out, per round."""
    counts = agreement(check).with_columns(
        c_release=pl.col("release"),
        **{
            f"c_{s}": pl.col(s)
            for s in ("rows", "agree", "explained", "disagree", "no_log_result")
        },
        c_share=safe.fmt("{}%", safe.numeric((pl.col("share") * 100).round(1))).cell(),
    )
    odd = (
        check.filter(pl.col("status") != "agree")
        .sort("release", "csv_file", "csv_row")
        .head(SUBMITTER_ROWS_SHOWN)
        .with_columns(
            c_release=pl.col("release"),
            c_where=safe.fmt(
                "<code>{}</code> row {}",
                pl.col("csv_file"),
                safe.numeric(pl.col("csv_row")),
            ).cell(),
            c_what=pl.concat_str(
                [pl.col("platform"), pl.col("model"), pl.col("scenario")],
                separator=" · ",
                ignore_nulls=True,
            ),
            c_csv=number_cell(pl.col("csv_value")).cell(),
            c_log=safe.when(
                pl.col("result_url").is_not_null(),
                external_link(number_cell(pl.col("log_value")), pl.col("result_url")),
                number_cell(pl.col("log_value")),
            ).cell(),
            c_status=pl.col("status"),
            c_note=pl.col("note").fill_null(""),
        )
    )
    return [
        "## Submitters' own summary tables\n",
        "Rounds before v4.1 have no official summary file, but some submitters left "
        "their own (`results_summary.csv`, `summary.csv`). Every row is compared with "
        "the result read from the logs (within 0.1%); values always come from the "
        "logs. A row a reviewed rule explains (`submitter_summaries.toml`) names it.\n",
        html_table(
            counts,
            {
                "c_release": "Release",
                "c_rows": "CSV rows",
                "c_agree": "Agree",
                "c_explained": "Explained",
                "c_disagree": "Disagree",
                "c_no_log_result": "No log result",
                "c_share": "Agree or explained",
            },
            numeric=("c_rows", "c_agree", "c_explained", "c_disagree"),
        ),
        (
            html_table(
                odd,
                {
                    "c_release": "Release",
                    "c_where": "CSV",
                    "c_what": "System · benchmark · scenario",
                    "c_csv": "CSV value",
                    "c_log": "Log value",
                    "c_status": "Status",
                    "c_note": "Why",
                },
                numeric=("c_csv", "c_log"),
            )
            if odd.height
            else "_Every row agrees with the logs._\n"
        ),
    ]


def loss_table(results: pl.DataFrame, rejected: pl.DataFrame) -> list[str]:
    """Per round that rejected anything: how much of what it read that is."""
    kept = results.group_by("release").len("results")
    lost = rejected.group_by("release").len("rejected")
    table = (
        lost.join(kept, on="release", how="left")
        .with_columns(pl.col("results").fill_null(0))
        .with_columns(
            share=pl.col("rejected") / (pl.col("rejected") + pl.col("results"))
        )
        .sort("release")
        .with_columns(
            c_release=pl.col("release"),
            c_results=pl.col("results"),
            c_rejected=pl.col("rejected"),
            c_share=safe.when(
                pl.col("share") > LOSS_LIMIT,
                safe.fmt("<b>{}%</b>", safe.numeric((pl.col("share") * 100).round(1))),
                safe.fmt("{}%", safe.numeric((pl.col("share") * 100).round(1))),
            ).cell(),
        )
    )
    if table.is_empty():
        return []
    return [
        Md(
            "Per round, the share of its records rejected (bold above {:.0%}, which "
            "the check `rejected_share_at_most_1pct` warns about), then each reason.\n"
        ).format(LOSS_LIMIT),
        html_table(
            table,
            {
                "c_release": "Release",
                "c_results": "Results",
                "c_rejected": "Rejected",
                "c_share": "Share",
            },
            numeric=("c_results", "c_rejected", "c_share"),
        ),
    ]


def vocabulary_section(results: pl.DataFrame) -> list[str]:
    """Per round, the words published results carry outside the vocabulary."""
    fields = [
        (field, f"{field}_upstream")
        for field in ("availability", "division")
        if f"{field}_upstream" in results.columns
    ]
    if not fields:
        return []
    words = pl.concat(
        [
            results.filter(pl.col(field) == "unknown").select(
                "release",
                pl.lit(field).alias("field"),
                pl.col(upstream).alias("word"),
            )
            for field, upstream in fields
        ]
    )
    counts = (
        words.group_by("release", "field", "word")
        .len()
        .sort("release", "field", "word")
        .with_columns(
            c_release=pl.col("release"),
            c_field=pl.col("field"),
            c_word=safe.fmt("<code>{}</code>", pl.col("word")).cell(),
            c_count=pl.col("len"),
        )
    )
    return [
        "## Words outside the vocabulary\n",
        "A published result is never rejected for its vocabulary: a word that is "
        "neither canonical nor a reviewed alias (`vocabulary.toml`) is kept as "
        "written and read as `unknown`.\n",
        html_table(
            counts,
            {
                "c_release": "Release",
                "c_field": "Field",
                "c_word": "Upstream word",
                "c_count": "Results",
            },
            numeric=("c_count",),
        )
        or "_Every availability and division word is in the vocabulary._\n",
    ]


def descriptions_section(system_fields: pl.DataFrame | None) -> list[str]:
    """Declared description spellings the vocabulary gives no value, never dropped.

    ``system_fields`` is the long table of declared fields
    (``out_mlperf__system_fields``). A spelling neither mapped nor reviewed says
    "not reviewed"; a reviewed one gives the registry's reason.
    """
    if system_fields is None:
        return []
    listed = (
        not_in_vocabulary(system_fields.lazy())
        .collect()
        .with_columns(
            c_field=safe.fmt("<code>{}</code>", pl.col("field")).cell(),
            c_spelling=safe.fmt("<code>{}</code>", pl.col("spelling")).cell(),
            c_rounds=pl.col("releases").list.join(", "),
            c_count=pl.col("count"),
            c_why=pl.when(pl.col("status") == NOT_REVIEWED)
            .then(pl.lit("not reviewed yet"))
            .otherwise(pl.col("reason")),
        )
    )
    return [
        "## Declared descriptions not in the vocabulary\n",
        "Interconnect, cooling and accelerator memory are normalised from what "
        "each system declares by a reviewed vocabulary (`descriptions.toml`): "
        "these declared spellings get no normalised value. They are kept as "
        "declared beside an empty normalised cell (the Explorer says *not in the "
        "vocabulary*), never dropped; placeholders such as `N/A` declare nothing "
        "and are not listed. Spellings are compared trimmed, lower-cased, white "
        "space collapsed.\n",
        html_table(
            listed,
            {
                "c_field": "Field",
                "c_spelling": "Declared spelling (first seen)",
                "c_rounds": "Rounds",
                "c_count": "Declarations",
                "c_why": "Why no value",
            },
            numeric=("c_count",),
        )
        or "_Every declared interconnect, cooling and accelerator memory spelling is "
        "in the vocabulary._\n",
    ]


def rounds_section(rounds: pl.DataFrame) -> list[str]:
    """Per round: the upstream commit read, its date and how many files."""
    commit = pl.col("commit")
    ref = commit.fill_null("HEAD")
    table = rounds.with_columns(
        c_release=pl.col("release"),
        c_commit=safe.when(
            commit.is_not_null(),
            external_link(
                safe.fmt("<code>{}</code>", commit.str.slice(0, 12)),
                pl.format("https://github.com/{}/tree/{}", pl.col("repository"), ref),
                pl.col("repository"),
            ),
            NOT_RECORDED,
        ).cell(),
        c_date=pl.col("commit_date"),
        c_files=pl.col("files_read"),
        c_summary=pl.col("summary"),
        c_tree=pl.col("raw_tree"),
        c_note=pl.col("disagreement"),
    )
    return [
        "## Upstream commits\n",
        "The upstream commit each round was read at (every result link on this site "
        "names it, so it keeps pointing at what was read after upstream moves on), "
        "its date, how many upstream files were read, and what the source had. Where "
        "the registry (`releases.toml`) expects something else, the note says so.\n",
        html_table(
            table,
            {
                "c_release": "Release",
                "c_commit": "Commit",
                "c_date": "Commit date",
                "c_files": "Files read",
                "c_summary": "Summary",
                "c_tree": "Raw tree",
                "c_note": "Note",
            },
            numeric=("c_files",),
        )
        or "_No round was read._\n",
    ]


def rejection_summary(rejected: pl.DataFrame) -> pl.DataFrame:
    """Rejected records per release and reason, most first, with one example key.

    Ties are ordered by release, then reason: ``group_by`` yields its groups in a
    different order from run to run, and identical inputs must give identical pages.
    """
    return (
        rejected.group_by("release", "reason", maintain_order=True)
        .agg(pl.len().alias("records"), pl.col("result_key").first().alias("example"))
        .sort(["records", "release", "reason"], descending=[True, False, False])
    )


def accelerator_count_notes(results: pl.DataFrame) -> list[str]:
    """Results whose declared accelerator count their accelerator name contradicts."""
    if "accelerator_count_note" not in results.columns:
        return []
    noted = (
        results.filter(pl.col("accelerator_count_note").is_not_null())
        .sort("release", "result_key")
        .with_columns(
            c_release=pl.col("release"),
            c_result=external_link(
                safe.fmt("<code>{}</code>", pl.col("result_key")), pl.col("result_url")
            ).cell(),
            c_count=number_cell(
                pl.col("total_accelerators").cast(pl.Float64), digits=15
            ).cell(),
            c_note=pl.col("accelerator_count_note"),
        )
    )
    return [
        "## Accelerator counts that disagree with their names\n",
        "Every count of accelerators is the declared one: the summary's total, else "
        "nodes × accelerators per node from the system description. Where the "
        'accelerator name states another count ("… (x87)"), the result keeps the '
        "declared count and says so here and in `accelerator_count_note` of the "
        "results download; per-accelerator numbers divide by the declared count.\n",
        html_table(
            noted,
            {
                "c_release": "Release",
                "c_result": "Result",
                "c_count": "Declared accelerators",
                "c_note": "Why it is noted",
            },
            numeric=("c_count",),
        )
        or "_Every accelerator name that states a count agrees with the declared "
        "count._\n",
    ]


def accelerator_coverage(results: pl.DataFrame) -> list[str]:
    """Per release, how result rows are classed by the accelerator registry."""
    if "is_accelerator_mapped" not in results.columns:
        return []
    unclassified = (
        pl.col("is_accelerator_unclassified")
        if "is_accelerator_unclassified" in results.columns
        else pl.lit(False)
    )
    mapped = pl.col("is_accelerator_mapped").fill_null(False)
    cpu, mixed = pl.col("is_cpu_only"), pl.col("is_mixed_accelerators")
    per_release = (
        results.group_by("release")
        .agg(
            pl.len().alias("rows"),
            (mapped & ~cpu & ~mixed & ~unclassified).sum().alias("chip"),
            (mapped & mixed).sum().alias("mixed"),
            (mapped & cpu).sum().alias("cpu"),
            unclassified.fill_null(False).sum().alias("unclassified"),
            (~mapped).sum().alias("unmapped"),
        )
        .with_columns(order=release_index(release_order(results["release"].unique())))
        .sort("order")
        .with_columns(
            [
                pl.col(c).alias(f"c_{c}")
                for c in ("rows", "chip", "mixed", "cpu", "unclassified", "unmapped")
            ],
            c_release=pl.col("release"),
            c_share=safe.fmt(
                "{}%",
                safe.numeric((100 * pl.col("unmapped") / pl.col("rows")).round(2)),
            ).cell(),
        )
    )
    names = (
        results.filter(~mapped)
        .group_by("accelerator_name")
        .agg(
            pl.len().alias("rows"),
            pl.col("release").unique().sort().alias("releases"),
        )
        .sort(["rows", "accelerator_name"], descending=[True, False], nulls_last=True)
        .with_columns(
            c_name=pl.col("accelerator_name").fill_null(NO_NAME),
            c_rows=pl.col("rows"),
            c_releases=pl.col("releases").list.join(", "),
        )
    )
    return [
        "## Accelerator coverage\n",
        "How every result row is classed by the reviewed accelerator registry "
        "(`pipeline/registry/accelerators.toml`): a single chip, a mixed system, a "
        "CPU-only system (classed by host CPU), a name the registry lists as "
        "unclassified with a reason, or unmapped. Only single chips enter generation "
        "ratios and per-accelerator numbers.\n",
        html_table(
            per_release,
            {
                "c_release": "Release",
                "c_rows": "Rows",
                "c_chip": "Single chip",
                "c_mixed": "Mixed",
                "c_cpu": "CPU only",
                "c_unclassified": "Unclassified",
                "c_unmapped": "Unmapped",
                "c_share": "Unmapped share",
            },
            numeric=(
                "c_rows",
                "c_chip",
                "c_mixed",
                "c_cpu",
                "c_unclassified",
                "c_unmapped",
            ),
        ),  # fmt: skip
        "### Unmapped accelerator names\n",
        html_table(
            names,
            {"c_name": "Accelerator name", "c_rows": "Rows", "c_releases": "Releases"},
            numeric=("c_rows",),
        )  # fmt: skip
        or "_Every accelerator name is in the registry._\n",
    ]


#: How each compared name column is called on the page.
LOOKALIKE_FIELDS = {
    "submitter": "Submitter",
    "system_name": "System",
    "accelerator_upstream": "Accelerator",
}


#: Headers of the name fields ``composed_names`` lists.
COMPOSED_FIELDS = {
    **LOOKALIKE_FIELDS, "platform": "Platform", "software": "Software",
}  # fmt: skip


def lookalike_section(results: pl.DataFrame) -> list[str]:
    """Names that look alike (TS #39 skeletons): listed as possible duplicates.

    Each spelling of a group is a row: its text (invisible characters shown as
    their code points by ``escape``), the characters it has that another spelling
    lacks, its first code points, its rounds and how many results carry it.
    """
    groups = lookalike_groups(results)
    listed = groups.with_columns(
        c_field=pl.col("field").replace_strict(LOOKALIKE_FIELDS, default="Name"),
        c_name=safe.fmt("<code>{}</code>", pl.col("name")).cell(),
        c_distinct=safe.when(
            pl.col("distinct_characters") != "",
            safe.fmt("<code>{}</code>", pl.col("distinct_characters")),
            safe.lit("—"),
        ).cell(),
        c_points=safe.fmt("<code>{}</code>", pl.col("code_points")).cell(),
        c_rounds=pl.col("releases")
        .map_elements(
            lambda r: ", ".join(release_order(r.to_list())), return_dtype=pl.String
        )
        .fill_null(""),
        c_results=pl.col("results"),
    )
    return [
        "## Names that look alike\n",
        "Submitter, system and accelerator names that differ as text but look the "
        "same, by the confusable skeleton of Unicode Technical Standard #39 (ICU's "
        "`SpoofChecker`: a Cyrillic І for a Latin I, a lower-case l for a capital "
        "I, a non-breaking hyphen for a hyphen, a soft hyphen or a Hangul filler "
        "that shows nothing). Each spelling counts as its own name everywhere on "
        "this site: they are listed here as possible duplicates for a person to "
        "judge, never merged. Names in NFC and NFD (a composed and a decomposed "
        "é) are one name here: every name is composed to NFC where it enters the "
        "canonical table (the raw snapshot keeps the bytes as declared); those "
        "declared otherwise are listed under the table.\n",
        html_table(
            listed,
            {
                "c_field": "Field",
                "c_name": "Spelling",
                "c_distinct": "Characters another spelling lacks",
                "c_points": "Code points",
                "c_rounds": "Rounds",
                "c_results": "Results",
            },
            numeric=("c_results",),
        )
        or "_No two submitter, system or accelerator names look alike._\n",
        *_composed_part(results),
    ]


def _composed_part(results: pl.DataFrame) -> list[str]:
    """Names declared not composed (NFD): composed here; pairs said to be pairs."""
    names = composed_names(results)
    listed = names.with_columns(
        c_field=pl.col("field").replace_strict(COMPOSED_FIELDS, default="Name"),
        c_name=safe.fmt("<code>{}</code>", pl.col("name")).cell(),
        c_rounds=pl.col("releases").list.join(", "),
        c_pair=pl.when(pl.col("declared_composed") > 0)
        .then(pl.lit("yes: also declared composed (NFC)"))
        .otherwise(pl.lit("no")),
    )
    return [
        "### Names declared decomposed (NFD)\n",
        html_table(
            listed,
            {
                "c_field": "Field",
                "c_name": "Name (composed)",
                "c_rounds": "Rounds declaring it decomposed",
                "declared_decomposed": "Results, decomposed",
                "declared_composed": "Results, composed",
                "c_pair": "NFC/NFD pair",
            },
            numeric=("declared_decomposed", "declared_composed"),
        )
        or "_Every name was declared composed (NFC)._\n",
    ]
