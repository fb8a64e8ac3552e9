"""The Data page: every table behind the site as CSV and Parquet, with checksums."""

from __future__ import annotations

from pathlib import Path

from pipeline.render.downloads import Download, write_downloads
from pipeline.render.escape import escape
from pipeline.render.site import (
    GENERATED,
    Site,
    page_link,
)
from pipeline.render.site_data import write_build_info

TABLE_DESCRIPTIONS = {
    "results": "Canonical table: one row per published result, every release.",
    "rejected": "Upstream records that did not become results, with the reason.",
    "software_gains": "Derived, unofficial: same hardware in two releases.",
    "generation_ratios": "Derived, unofficial: successor over predecessor accelerator.",
    "scaling": "Derived, unofficial: larger over smaller system, same accelerator.",
    "snapshots": "Raw upstream snapshots the build read, with checksums.",
    "crosscheck": "Summary values compared with the raw result tree.",
    "accelerator_histories": "Derived, unofficial: best result per accelerator of "
    "one chip per round, with the step ratio to its previous round.",
    "flagged_pairs": "Derived pairs a plausibility rule flagged, with the reasons.",
}


def _size(path: Path) -> str:
    size = float(path.stat().st_size)
    if size < 1024:
        return f"{size:,.0f} B"
    if size < 1024**2:
        return f"{size / 1024:,.1f} KB"
    return f"{size / 1024**2:,.1f} MB"


def data_page(site: Site, downloads: list[Download]) -> str:
    """The downloads with sizes and sha256, then the columns of each."""
    page = f"{GENERATED}/data.md"
    rows = []
    for d in downloads:
        files = [
            f"[{path.name}]({page_link(page, f'downloads/{path.name}')}) · "
            f"{_size(path)}<br><code>sha256:{digest}</code>"
            for path, digest in ((d.csv, d.csv_sha256), (d.parquet, d.parquet_sha256))
        ]
        rows.append(
            f"| **{d.name}** | {escape(d.description)} | {d.rows:,} | "
            f"{files[0]} | {files[1]} |"
        )
    columns = "\n".join(
        f"<details><summary>Columns of <b>{d.name}</b> ({len(d.columns)})</summary>"
        + ", ".join(
            f"<code>{escape(c)}</code> {escape(t)}" for c, t in d.columns.items()
        )
        + "</details>\n"
        for d in downloads
    )
    text = (
        "# Data\n\nEvery table behind this site as CSV and Parquet. The sha256 lets "
        "you "
        "check that a file is the one this build published (pipeline commit "
        f"<code>{escape(site.data.pipeline_commit)}</code>). Identical inputs give "
        "byte-identical files; only [build-info.json](downloads/build-info.json) "
        "records when this build ran and when each snapshot was fetched.\n\n"
        "In the CSV files, a text cell that starts with `=`, `+`, `-`, `@`, a tab or "
        "a carriage return gets a leading `'` so that spreadsheets show it as text "
        "instead of running it as a formula; numbers are unchanged, and the Parquet "
        "files keep every value exactly as published.\n\n"
        '!!! note "Derived tables are unofficial"\n'
        "    `software_gains`, `generation_ratios` and `scaling` are computed by "
        "mlperf-ledger from MLPerf results; they are not MLPerf results. Each row "
        "carries the result keys and URLs of both results it divides.\n\n"
        "| Table | What | Rows | CSV | Parquet |\n|---|---|---:|---|---|\n"
        + "\n".join(rows)
        + "\n\n## Columns\n\n"
        + columns
    )
    return site.write_page("data.md", text)


def build(site: Site) -> None:
    """Write every download, then the Data page listing them."""
    data = site.data
    tables = {
        "results": data.results,
        "rejected": data.rejected,
        "software_gains": data.gains,
        "generation_ratios": data.generations,
        "scaling": data.scaling,
        # Fetch times go to build-info.json: they differ between identical builds.
        "snapshots": data.snapshots.drop("fetched_at"),
        "accelerator_histories": site.histories,
        "flagged_pairs": site.flagged,
    }
    if data.crosscheck is not None:
        tables["crosscheck"] = data.crosscheck
    downloads = write_downloads(
        {k: (v, TABLE_DESCRIPTIONS[k]) for k, v in tables.items()}
        | dict(site.extra_tables),
        site.out_dir / "downloads",
    )
    site.written += [p for d in downloads for p in (d.csv, d.parquet)]
    site.written.append(write_build_info(data, site.out_dir / "downloads"))
    data_page(site, downloads)
