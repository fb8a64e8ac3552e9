"""The Explorer's data file: every result as one compressed JSON (``DATA_FILE``).

What the Explorer page (``explorer``) fetches on demand: the canonical results with
their descriptions and citation, formula-guarded text, as gzip-compressed JSON with
identical bytes for identical inputs.
"""

from __future__ import annotations

import gzip
import json

import polars as pl

from pipeline.analysis.benchmarks import model_label, model_lineage
from pipeline.analysis.cost import unit_costs
from pipeline.registry.descriptions import load_descriptions
from pipeline.render import safe
from pipeline.render.cite import cite_rounds, with_citation
from pipeline.render.downloads import FORMULA_GUARD, FORMULA_START
from pipeline.render.model_views import price_keys
from pipeline.render.safe import Md
from pipeline.render.site_data import release_order, with_accelerators
from pipeline.render.system_ids import families
from pipeline.render.tables import accuracy_cell, html_table, number
from pipeline.transform.descriptions import NORMALISED, with_normalised
from pipeline.transform.systems import with_system_id

#: Columns of the data file, in order, with their types. Canonical names (the CSV
#: download uses them as headers) plus ``accelerator``, the registry's chip name.
COLUMNS: dict[str, pl.DataType] = {
    "release": pl.String(),
    "benchmark": pl.String(),
    "scenario": pl.String(),
    "result_value": pl.Float64(),
    "result_unit": pl.String(),
    "is_higher_better": pl.Boolean(),
    "result_per_accelerator": pl.Float64(),
    "submitter": pl.String(),
    "system_name": pl.String(),
    "platform": pl.String(),
    "division": pl.String(),
    "category": pl.String(),
    "availability": pl.String(),
    "is_preview": pl.Boolean(),
    "is_inferred": pl.Boolean(),
    "accelerator": pl.String(),
    "accelerator_name": pl.String(),
    "total_accelerators": pl.Int32(),
    "nodes": pl.Int32(),
    "host_cpu_name": pl.String(),
    "power_value": pl.Float64(),
    "power_unit": pl.String(),
    "software": pl.String(),
    # Open division only: model, declared weight types and platform lineage, which
    # must be equal for two results to be one model as run (benchmarks.toml).
    "model_as_run": pl.String(),
    # The accuracy of the result's accuracy run, as upstream wrote it (the summary's
    # Accuracy, a raw tree's accuracy.txt), and why a file that was read gave none.
    "accuracy_upstream": pl.String(),
    "accuracy_note": pl.String(),
    "result_key": pl.String(),
    # Upstream's official result ID, what a citation names (null where the round
    # publishes none), and the line to cite the result by (``cite.citation``).
    "result_id": pl.String(),
    "result_url": pl.String(),
    "citation": pl.String(),
    # The declared description (out_mlperf__systems), columns off by default: the
    # system's identity across rounds and what a buyer filters by, with units.
    # Interconnect, cooling and accelerator memory twice: as declared, and normalised
    # by registry/descriptions.toml (what the filters use; null where the vocabulary
    # has no value for the declared text).
    "system_id": pl.String(),
    #: The system's family page under generated/systems/ (``system_ids.families``).
    "system_page": pl.String(),
    "accelerator_memory": pl.String(),
    "accelerator_memory_size": pl.String(),
    "accelerator_memory_gb": pl.Float64(),
    "accelerator_interconnect": pl.String(),
    "interconnect_family": pl.String(),
    "host_memory": pl.String(),
    "host_memory_gb": pl.Float64(),
    "cooling": pl.String(),
    "cooling_kind": pl.String(),
    "framework": pl.String(),
    "operating_system": pl.String(),
    # Derived, not MLPerf results (``pipeline.analysis.cost``): what a unit of work
    # takes, with the reason where it cannot be derived, and the LLM latency class.
    "accelerator_hours_per_million_units": pl.Float64(),
    "cost_reason": pl.String(),
    "joules_per_unit": pl.Float64(),
    "kwh_per_million_units": pl.Float64(),
    "latency_class": pl.String(),
    "ttft_limit_ms": pl.Float64(),
    "tpot_limit_ms": pl.Float64(),
    "tokens_per_second_per_user_at_limit": pl.Float64(),
    # The key a price per accelerator-hour goes by in the address and storage
    # (``model_views.price_keys``, the model pages' keys): not a download column.
    "price_key": pl.String(),
}

#: The derived columns, from ``cost.unit_costs`` by release and result key.
DERIVED = (
    "accelerator_hours_per_million_units", "cost_reason", "joules_per_unit",
    "kwh_per_million_units", "latency_class", "ttft_limit_ms", "tpot_limit_ms",
    "tokens_per_second_per_user_at_limit",
)  # fmt: skip


#: Identifies the data file's layout; the script refuses any other.
FORMAT = "mlperf-ledger explorer v1"


#: Description columns and the systems table's column each comes from.
DESCRIPTION = {
    "accelerator_memory": "accelerator_memory_capacity",
    "accelerator_interconnect": "accelerator_interconnect",
    "host_memory": "host_memory_capacity",
    "cooling": "cooling",
    "framework": "framework",
    "operating_system": "operating_system",
}


#: Each normalised column and the data file's declared column it normalises.
NORMALISED_FROM = {
    "interconnect_family": "accelerator_interconnect",
    "cooling_kind": "cooling",
    "accelerator_memory_gb": "accelerator_memory",
    "accelerator_memory_size": "accelerator_memory",
}


#: Canonical columns a caller may leave out (``SiteData`` requires fewer than
#: ``RESULTS_SCHEMA``); they ship as nulls.
OPTIONAL = (
    "category", "platform", "power_value", "power_unit", "model_upstream",
    "weight_data_types", "result_id", "accuracy_upstream", "accuracy_note",
)  # fmt: skip


def _gigabytes(column: str) -> pl.Expr:
    return (pl.col(f"{column}_bytes") / 1e9).round(3)


def with_description(
    results: pl.DataFrame, systems: pl.DataFrame | None
) -> pl.DataFrame:
    """Results with their system's id, family page and declared description columns.

    The description columns are nulls without ``systems``.
    """
    keyed = with_system_id(results)
    pages = families(with_accelerators(keyed)).select("system_id", "system_page")
    keyed = keyed.join(pages, on="system_id", how="left", maintain_order="left")
    place = ["release", "division", "submitter", "platform", "system_id"]
    if systems is None or not set(place) <= set(keyed.columns):
        return keyed.with_columns(
            pl.lit(None, dtype=COLUMNS[c]).alias(c)
            for c in (*DESCRIPTION, *NORMALISED_FROM, "host_memory_gb")
        )
    if not set(NORMALISED) <= set(systems.columns):
        # A systems table written before the vocabulary: normalise it here.
        systems = with_normalised(systems.lazy()).collect()
    described = systems.select(
        *place,
        *(pl.col(source).alias(name) for name, source in DESCRIPTION.items()),
        *NORMALISED,
        host_memory_gb=_gigabytes("host_memory_capacity"),
    ).with_columns(
        # The memory filter's words: "288 GB" (GB as sold: 16 GiB is "16 GB").
        accelerator_memory_size=pl.format(
            "{} GB",
            pl.col("accelerator_memory_gb")
            .round(3)
            .cast(pl.String)
            .str.replace(r"\.0$", ""),
        )
    )
    return keyed.join(
        described, on=place, how="left", nulls_equal=True, maintain_order="left"
    )


def explorer_rows(
    results: pl.DataFrame, systems: pl.DataFrame | None = None
) -> pl.DataFrame:
    """The canonical results as the explorer ships them: one row per result.

    Newest round first (version order, not text order), then by result key, so the
    bytes depend only on the rows. URLs that are not plain http(s) become null; the
    citation names the URL as shipped.
    """
    present = set(results.columns)
    missing = [
        pl.lit(None, dtype=COLUMNS.get(c, pl.String())).alias(c)
        for c in OPTIONAL
        if c not in present
    ]
    costs = unit_costs(results.lazy()).select("release", "result_key", *DERIVED)
    order = release_order(results["release"])
    rank = {r: i for i, r in enumerate(order)}
    labelled = with_accelerators(results.with_columns(missing))
    keys = price_keys(labelled["accelerator_label"].drop_nulls().unique().to_list())
    shaped = (
        with_description(labelled, systems)
        .lazy()
        .with_columns(model_lineage=model_lineage())
        .with_columns(
            accelerator=pl.col("accelerator_label"),
            price_key=pl.col("accelerator_label").replace_strict(
                keys, default=None, return_dtype=pl.String
            ),
            model_as_run=pl.when(pl.col("division") == "open").then(model_label()),
            result_url=safe.chart_url(pl.col("result_url")),
            _rank=pl.col("release").replace_strict(
                rank, default=len(order), return_dtype=pl.Int32
            ),
        )
    )
    return (
        with_citation(shaped, cite_rounds())
        .join(
            costs,
            on=["release", "result_key"],
            how="left",
            nulls_equal=True,
            maintain_order="left",
        )
        .sort(["_rank", "result_key"], descending=[True, False], nulls_last=True)
        .select([pl.col(c).cast(t) for c, t in COLUMNS.items()])
        .collect()
    )


def undescribed_rounds(rows: pl.DataFrame) -> dict[str, list[str]]:
    """Per description column, the rounds of which no row declares that field.

    Their source (as this site read it) has no such description at all (v4.1 and
    v6.1's summaries name no interconnect, cooling or accelerator memory): the
    Explorer says so in those cells and under a filter on the field, rather than
    showing an empty cell that reads as "removed". A normalised column follows its
    declared one. Rounds in version order.
    """
    order = release_order(rows["release"])
    declared = (
        rows.lazy()
        .group_by("release")
        .agg(pl.col(c).is_not_null().any() for c in DESCRIPTION)
    )
    held = declared.collect()
    out: dict[str, list[str]] = {}
    for column in DESCRIPTION:
        without = set(held.filter(~pl.col(column))["release"].to_list())
        out[column] = [r for r in order if r in without]
    for column, source in NORMALISED_FROM.items():
        out[column] = out[source]
    return dict(sorted(out.items()))


def explorer_data(results: pl.DataFrame, systems: pl.DataFrame | None = None) -> bytes:
    """The gzip'd JSON data file: metadata, then every row as an object.

    Deterministic: same rows, same bytes (gzip header without name or time).
    ``undescribed``: ``undescribed_rounds`` (release names are the manifest's);
    ``no_value``: the vocabulary's placeholders.
    """
    return data_file(explorer_rows(results, systems))


#: Rows the page shows before its data is loaded: the table's first page.
FIRST_SCREEN_ROWS = 25
_FIRST_COLUMNS = {
    "release": "Round",
    "benchmark": "Benchmark",
    "scenario": "Scenario",
    "c_result": "Result",
    # Beside the result, as upstream wrote it: in the open division, accuracy is
    # what differs.
    "c_accuracy": "Accuracy (as published)",
    "submitter": "Submitter",
    "system_name": "System",
    "c_accelerators": "Accelerators",
    "division": "Division",
    # Derived, not an MLPerf result: what a price per accelerator-hour multiplies
    # (without JavaScript the page's only cost figure).
    "c_hours": "Accelerator-hours per million units",
}


def first_screen(rows: pl.DataFrame) -> Md:
    """The Explorer's first page of rows as a plain table, in the page itself.

    A reader sees results at once, without JavaScript and without the 11k-row data
    file and the table library, which load when the reader reaches for a filter,
    the search, a sort or the next page (``explorer.js``). Same order as the
    interactive table's first page (``explorer_rows``); upstream text escaped.
    """
    shown = rows.head(FIRST_SCREEN_ROWS).with_columns(
        c_result=safe.link(
            safe.fmt(
                "{} {}",
                safe.numeric(number(pl.col("result_value"))),
                pl.col("result_unit"),
            ),
            pl.col("result_url"),
        ).cell(),
        c_accelerators=pl.when(pl.col("total_accelerators").is_not_null())
        .then(
            pl.format(
                "{} × {}",
                pl.col("total_accelerators"),
                pl.col("accelerator").fill_null("?"),
            )
        )
        .otherwise(pl.lit("CPU only")),
        c_hours=safe.when(
            pl.col("accelerator_hours_per_million_units").is_not_null(),
            safe.numeric(number(pl.col("accelerator_hours_per_million_units"))),
            "—",
        ).cell(),
        c_accuracy=accuracy_cell(pl.col("accuracy_upstream")).cell(),
    )
    return html_table(shown, _FIRST_COLUMNS, ("c_result", "c_hours"), searchable=False)


def data_file(rows: pl.DataFrame) -> bytes:
    """``explorer_data`` of rows ``explorer_rows`` already shaped."""
    meta = {
        "format": FORMAT,
        "rows": rows.height,
        "columns": list(COLUMNS),
        "formula_start": FORMULA_START,
        "formula_guard": FORMULA_GUARD,
        "undescribed": undescribed_rounds(rows),
        # Declared texts that declare nothing ("N/A", "-"), trimmed and lower-cased:
        # their cells say "not declared", not "not in the vocabulary".
        "no_value": sorted(load_descriptions().no_value),
    }
    head = json.dumps(meta, ensure_ascii=False, separators=(",", ":"))
    body = f'{head[:-1]},"data":{rows.write_json()}}}'
    return gzip.compress(body.encode("utf-8"), compresslevel=9, mtime=0)
