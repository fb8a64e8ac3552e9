"""The Data page: every table behind the site as CSV and Parquet, with checksums.

Next to the downloads goes ``datapackage.json`` (``datapackage``), which describes
every CSV and Parquet file with its schema, size and sha256, and the page shows how to
read the files with Polars, DuckDB and pandas (copy-paste examples; the project itself
depends on none but Polars).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from pipeline import settings
from pipeline.analysis import cost
from pipeline.manifest import release_for
from pipeline.registry.releases import ManifestError
from pipeline.render import safe
from pipeline.render.context import (
    GENERATED,
    page_link,
)
from pipeline.render.datapackage import DESCRIPTOR, datapackage_text
from pipeline.render.downloads import Download, make_downloads
from pipeline.render.model import Model
from pipeline.render.safe import Md, md_join
from pipeline.render.site_data import BUILD_INFO, build_info_text
from pipeline.render.spec import Draft, PageSpec, Rendered
from pipeline.render.tables import markdown_table
from pipeline.transform.provenance import with_upstream

TABLE_DESCRIPTIONS = {
    "results": "Canonical table: one row per published result, every release.",
    "rejected": "Upstream records that did not become results, with the reason.",
    "software_gains": "Derived, unofficial: same hardware in two releases. "
    "is_consecutive: the two releases are adjacent rounds upstream (no known round "
    "between them) and the older is the system's previous appearance; "
    "rounds_not_in_source: the known rounds between them the source holds no "
    "result of.",
    "generation_ratios": "Derived, unofficial: successor over predecessor accelerator. "
    "break_even_price_ratio: the successor costs less per unit of work while its "
    "price per accelerator-hour is below this × the predecessor's (= ratio).",
    "unit_costs": "Derived, unofficial: what a unit of work costs, one row per "
    "result (release, result_key as in results). accelerator_hours_per_million_units"
    f" = {cost.COST_FORMULA} (throughput results; times your price per "
    "accelerator-hour, the price of a million units); joules_per_unit and "
    "kwh_per_million_units from MLPerf-measured power only (never a declared design "
    "power); each LLM result's latency class and limits (TTFT, TPOT, tokens/s per "
    f"user at the limit = {cost.USER_RATE_FORMULA}) from the latency limits "
    "registry. A null number says why in cost_reason / energy_reason.",
    "scaling": "Derived, unofficial: larger over smaller system, same accelerator.",
    "snapshots": "Raw upstream snapshots the build read, with checksums, their "
    "upstream address and commit where known, and where the build read them.",
    "crosscheck": "Summary values compared with the raw result tree.",
    "accelerator_histories": "Derived, unofficial: best result per accelerator of "
    "one chip per round, with the step ratio to its previous round.",
    "flagged_pairs": "Derived pairs a plausibility rule flagged, with the reasons.",
    "exclusions": "Candidate pairs the analyses left out, counted by reason.",
    "corrections": "Upstream corrections: fields changed between snapshots of a "
    "release.",
    "claims": "Vendor claims evaluated under each reading, with cited results.",
    "systems": "Declared system descriptions (the submitter's declaration, not a "
    "measurement): one row per round, division, submitter and system, with "
    "system_id, the one identity across rounds, and capacities in bytes where "
    "stated.",
    "system_fields": "Every declared field of every system as written, with its "
    "canonical name, source file and sha256 (unknown fields kept).",
    "systems_quarantined": "System files that could not be read, with the reason.",
    "measured_latency": "Latency as measured, per result whose files state it "
    "(results written by the MLPerf endpoints harness, from performance/"
    "result_summary.json): TTFT and TPOT 50th, 90th and 99th percentiles and the "
    "early-stopping estimate at early_stopping_percentile (the value the round's "
    "latency limits bound), in ms; tokens_per_second_per_user = 1000 / tpot_p50_ms; "
    "accuracy: average_accuracy of accuracy/accuracy_results.json. result_key is the "
    "raw-tree result, summary_result_key the published result it measures.",
}


def _size(content: bytes | str) -> Md:
    size = float(len(content.encode() if isinstance(content, str) else content))
    if size < 1024:
        return Md("{:,.0f} B").format(size)
    if size < 1024**2:
        return Md("{:,.1f} KB").format(size / 1024)
    return Md("{:,.1f} MB").format(size / 1024**2)


#: Where the examples find the downloads, under the site's public URL.
DOWNLOADS_PATH = f"{GENERATED}/downloads/"


#: Stands for the site's address in the examples when the build has none.
SITE_PLACEHOLDER = "https://<this site>/"


def downloads_url() -> str:
    """The public URL of the downloads folder, from the site URL MkDocs builds with."""
    base = settings.site_url() or SITE_PLACEHOLDER
    return base.rstrip("/") + "/" + DOWNLOADS_PATH


def examples(base: str) -> Md:
    """Copy-paste examples reading ``results.parquet`` from ``base`` (Markdown).

    The same query in Polars, DuckDB and pandas: the ten best llama2-70b-99 Offline
    results. ``base`` is written as a Python string literal (JSON quoting) and as an
    SQL literal (quotes doubled), so no URL can end the string early.
    """
    py = json.dumps(base)
    sql = "'" + base.replace("'", "''") + "results.parquet'"
    columns = '"release", "submitter", "system_name", "result_value", "result_unit"'
    return Md(
        "## Reading the data\n\n"
        "The same question in three tools: the ten highest llama2-70b-99 Offline "
        "results of every round. Each reads the Parquet file straight from this "
        "site; download it first to work offline.\n\n"
        "### Polars\n\n"
        "```python\n"
        "import polars as pl\n\n"
        "base = {py}\n"
        'results = pl.read_parquet(base + "results.parquet")\n'
        "top = (\n"
        "    results.filter(\n"
        '        pl.col("benchmark") == "llama2-70b-99", '
        'pl.col("scenario") == "Offline"\n'
        "    )\n"
        '    .sort("result_value", descending=True)\n'
        "    .select({columns})\n"
        "    .head(10)\n"
        ")\n"
        "print(top)\n"
        "```\n\n"
        "### DuckDB\n\n"
        "```sql\n"
        "-- https needs DuckDB's httpfs extension (autoloaded where available)\n"
        "SELECT release, submitter, system_name, result_value, result_unit\n"
        "FROM read_parquet({sql})\n"
        "WHERE benchmark = 'llama2-70b-99' AND scenario = 'Offline'\n"
        "ORDER BY result_value DESC\n"
        "LIMIT 10;\n"
        "```\n\n"
        "### pandas\n\n"
        "```python\n"
        "import pandas as pd  # reading Parquet needs pyarrow\n\n"
        "base = {py}\n"
        'results = pd.read_parquet(base + "results.parquet")\n'
        "top = (\n"
        "    results.query(\"benchmark == 'llama2-70b-99' and scenario == "
        "'Offline'\")\n"
        '    .sort_values("result_value", ascending=False)\n'
        "    [[{columns}]]\n"
        "    .head(10)\n"
        ")\n"
        "print(top)\n"
        "```\n\n"
        "Reading a CSV file instead? Text cells that start with `=`, `+`, `-`, `@`, "
        "a tab or a carriage return carry a leading `'` (see above); the Parquet "
        "files have the exact values and types.\n\n"
        "### Frictionless\n\nTo check every file against its size, sha256 and "
        "schema:\n\n"
        "```sh\n"
        "pip install frictionless\n"
        "frictionless validate {base}{descriptor}\n"
        "```\n"
    ).format(
        py=safe.code(py),
        columns=safe.code(columns),
        sql=safe.code(sql),
        base=safe.code(base),
        descriptor=safe.code(DESCRIPTOR),
    )


#: Columns of the Data page's table of downloads (``_download_cells``).
DOWNLOAD_COLUMNS = {
    "table": "Table",
    "what": "What",
    "rows": "Rows",
    "csv": "CSV",
    "parquet": "Parquet",
}


def _file_cell(page: str, path: Path, content: bytes, digest: str) -> Md:
    """A download's link, size and sha256."""
    return Md("{} · {}<br><code>sha256:{}</code>").format(
        safe.page_link(safe.name(path.name), page_link(page, f"downloads/{path.name}")),
        _size(content),
        digest,
    )


def _download_cells(page: str, downloads: list[Download]) -> pl.DataFrame:
    """One row of Data page cells per download, in the order written."""
    return pl.DataFrame(
        [
            safe.series(
                "table", (Md("**{}**").format(safe.name(d.name)) for d in downloads)
            ),
            safe.series("what", (d.description for d in downloads)),
            safe.series("rows", (Md("{:,}").format(d.rows) for d in downloads)),
            safe.series(
                "csv",
                (_file_cell(page, d.csv, d.csv_bytes, d.csv_sha256) for d in downloads),
            ),
            safe.series(
                "parquet",
                (
                    _file_cell(page, d.parquet, d.parquet_bytes, d.parquet_sha256)
                    for d in downloads
                ),
            ),
        ]
    )


def data_page(model: Model, downloads: list[Download], package: str) -> str:
    """The downloads with sizes and sha256, the data package, examples, columns."""
    page = f"{GENERATED}/data.md"
    columns = md_join(
        "\n",
        (
            Md(
                "<details><summary>Columns of <b>{}</b> ({})</summary>{}</details>\n"
            ).format(
                safe.name(d.name),
                len(d.columns),
                md_join(
                    ", ",
                    (
                        Md("<code>{}</code> {}").format(c, t)
                        for c, t in d.columns.items()
                    ),
                ),
            )
            for d in downloads
        ),
    )
    text = Md(
        "# Data\n\nEvery table behind this site as CSV and Parquet. The sha256 lets "
        "you "
        "check that a file is the one this build published (pipeline commit "
        "<code>{commit}</code>). Identical inputs give "
        "byte-identical files; only [build-info.json](downloads/build-info.json) "
        "records when this build ran and when each snapshot was fetched.\n\n"
        "In the CSV files, a text cell that starts with `=`, `+`, `-`, `@`, a tab or "
        "a carriage return gets a leading `'` so that spreadsheets show it as text "
        "instead of running it as a formula; numbers are unchanged, and the Parquet "
        "files keep every value exactly as published.\n\n"
        '!!! note "Derived tables are unofficial"\n'
        "    `software_gains`, `generation_ratios`, `scaling` and `unit_costs` are "
        "computed by "
        "mlperf-ledger from MLPerf results; they are not MLPerf results. Each pair "
        "row carries the result keys and URLs of both results it divides; a "
        "`unit_costs` row names its result by `release` and `result_key`, and a "
        "cost needs your price per accelerator-hour (none is built in).\n\n"
        "{table}"
        "\n## Data package\n\n"
        "{descriptor} · "
        "{size} describes every file above as a "
        "[Frictionless Data Package](https://datapackage.org/): each table's columns "
        "with their types (as the CSV and as the Parquet file hold them), its primary "
        "key where the rows have one, and each file's size and sha256. Licence: "
        "Apache-2.0, under which the MLCommons results repositories it lists as "
        "sources publish their contents; the derived tables are unofficial.\n\n"
        "{examples}"
        "\n## Columns\n\n"
        "{columns}"
    ).format(
        commit=model.data.pipeline_commit,
        table=markdown_table(
            _download_cells(page, downloads), DOWNLOAD_COLUMNS, numeric=("rows",)
        ),
        descriptor=safe.page_link(
            safe.name(DESCRIPTOR), page_link(page, f"downloads/{DESCRIPTOR}")
        ),
        size=_size(package),
        examples=examples(downloads_url()),
        columns=columns,
    )
    return text


def render(model: Model) -> Rendered:
    """Every download, the build info and the data package, then the Data page."""
    data = model.data
    tables = {
        "results": data.results,
        "rejected": data.rejected,
        "software_gains": data.gains,
        "generation_ratios": cost.with_break_even(data.generations),
        "scaling": data.scaling,
        "unit_costs": cost.unit_costs(data.results.lazy()).collect(),
        # Fetch times go to build-info.json: they differ between identical builds.
        # The upstream address and commit instead of the build machine's path.
        "snapshots": with_upstream(data.snapshots).drop("fetched_at", "url"),
        "accelerator_histories": model.histories,
        "flagged_pairs": model.flagged,
    }
    for name in (
        "crosscheck", "exclusions", "corrections", "systems", "system_fields",
        "systems_quarantined",
    ):  # fmt: skip
        if getattr(data, name) is not None:
            tables[name] = getattr(data, name)
    if data.measured is not None:
        tables["measured_latency"] = data.measured
    if data.claim_evaluations is not None:
        tables["claims"] = data.claim_evaluations
    downloads = make_downloads(
        {k: (v, TABLE_DESCRIPTIONS[k]) for k, v in tables.items()}
    )
    draft = Draft()
    for d in downloads:
        draft.file(f"downloads/{d.csv.name}", d.csv_bytes)
        draft.file(f"downloads/{d.parquet.name}", d.parquet_bytes)
    draft.file(f"downloads/{BUILD_INFO}", build_info_text(data))
    package = datapackage_text(downloads, _repositories(list(model.releases)))
    draft.file(f"downloads/{DESCRIPTOR}", package)
    draft.page("data.md", data_page(model, downloads, package))
    return draft.done()


def specs(model: Model) -> list[PageSpec]:
    """The Data page and every download it lists."""
    return [PageSpec("data", render, {"model": model})]


def _repositories(releases: list[str]) -> list[str]:
    """The upstream repositories of the releases with rows: the package's sources."""
    out = []
    for release in releases:
        try:
            out.append(release_for(release).repository)
        except ManifestError:  # not of the form vX.Y: no repository to name
            continue
    return out
