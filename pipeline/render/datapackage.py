"""``datapackage.json``: the Data page's downloads as a Frictionless Data Package.

Analysts load the CSV and Parquet files with tools that read a Data Package
(Frictionless, CKAN, Open Data Editor), or read it to learn each column's type and each
table's key without opening the files. Every resource states its size and sha256, so a
reader can check that a file is the one this build published. The descriptor is written
with sorted keys and no timestamp: identical downloads give identical bytes.

Spec: Data Package v1 (https://specs.frictionlessdata.io/data-package/) with Table
Schema types. Parquet resources carry ``"type": "file"`` (a Frictionless extension):
Frictionless validates their size and hash but reads only CSV rows, which it can do
without pandas; their ``schema`` still documents the exact Parquet types.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl

from pipeline.analysis import cost
from pipeline.analysis.pairing import PAIR_IDENTITY
from pipeline.files import write_file
from pipeline.render.downloads import FORMULA_GUARD, Download
from pipeline.transform.systems import SYSTEM_FIELDS_KEY, SYSTEMS_KEY

DESCRIPTOR = "datapackage.json"
PARQUET_MEDIATYPE = "application/vnd.apache.parquet"
CSV_MEDIATYPE = "text/csv"

#: What the upstream repositories license their contents under, with the licence text.
LICENSES: tuple[dict[str, str], ...] = (
    {
        "name": "Apache-2.0",
        "path": "https://www.apache.org/licenses/LICENSE-2.0",
        "title": "Apache License 2.0",
    },
)

#: Per table, the columns that identify a row, as the pipeline's blocking checks
#: enforce them (``validate.check_unique_keys`` per release for results,
#: ``pairs.PAIR_IDENTITY`` for pair tables). Declared only where the written file holds.
PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "results": ("release", "result_key"),
    "unit_costs": ("release", "result_key"),
    "snapshots": ("release", "path"),
    "systems": SYSTEMS_KEY,
    "system_fields": SYSTEM_FIELDS_KEY,
    **{
        name: PAIR_IDENTITY
        for name in ("software_gains", "generation_ratios", "scaling", "flagged_pairs")
    },
}

#: What a column means, where its name alone does not say it; the field's description
#: leads with it. A pair table's ``_old`` / ``_new`` columns read their end's entry.
_RESULT_ID = (
    "The official MLPerf result ID as upstream publishes it (e.g. 5.1-0001), the "
    "identifier a citation names; null where the round publishes none (v6.1's "
    "summary and the raw-tree rounds v0.5 to v4.0). result_key stays the row's key"
)
COLUMN_DESCRIPTIONS: dict[str, str] = {
    "result_id": _RESULT_ID,
    "result_id_old": f"Older (or baseline) end: {_RESULT_ID}",
    "result_id_new": f"Newer (or compared) end: {_RESULT_ID}",
    "accuracy_upstream": "The accuracy of the result's accuracy run as upstream "
    "publishes it: the summary's Accuracy field, as written (metric names and scores: "
    '"exact_match: 80.8  TOKENS_PER_SAMPLE: 3759.7", "ROUGE1: 44.5 ..."; a bare '
    "score in some v6.1 records), or, in the rounds read from raw trees only (v0.5, "
    "v1.0, v2.1), accuracy/accuracy.txt read with that round's submission checker "
    'patterns (registry/accuracy.toml), written as the checker does ("F1: 90.874"). '
    "Null where neither is in the source this site read (the mirror holds no "
    "accuracy.txt of those rounds)",
    "accuracy_note": "Why an accuracy.txt that was read gives no accuracy_upstream "
    "(unreadable, too big, no line matching the model's pattern, a model the "
    "round's checker table does not name); null otherwise",
    "design_power_watts_declared": "The system's design power in Watts as the "
    "summary declares it (v6.1's design_power_watts): declared design power, not "
    "measured; never used for energy or performance per watt (power_value holds "
    "MLPerf-measured power). Null where none is declared or the declaration is not a "
    "positive number in [1e-06, 1e+09] W (design_power_note says why)",
    "design_power_note": "Why a declared design power was not taken (null when "
    "none is declared or it was)",
    "names_composed": "The name fields (submitter, system_name, platform, "
    "accelerator_upstream, software) upstream declared in a form other than Unicode "
    "NFC (e.g. an e followed by U+0301 for an accented e): each is composed to NFC "
    "here, so the composed and decomposed spellings are one name; the Audit page "
    "lists them",
    # What a unit of work costs (unit_costs, and generation_ratios' break-even).
    **cost.COLUMN_DESCRIPTIONS,
    # The systems table's normalised descriptions (registry/descriptions.toml).
    "interconnect_family": "The declared accelerator_interconnect normalised to a "
    "family and generation where stated (NVLink 5, NVLink 4, NVLink, Infinity "
    "Fabric, PCIe 5.0, PCIe 4.0, PCIe 3.0, InfiniBand) by a reviewed vocabulary "
    "with evidence (registry/descriptions.toml); null where nothing is declared or "
    "the spelling is not in the vocabulary (the Audit page lists those)",
    "cooling_kind": "The declared cooling normalised to a kind (air, liquid, "
    "liquid + air, passive) by the same reviewed vocabulary; null where nothing is "
    "declared or the spelling is not in it",
    "accelerator_memory_gb": "The declared accelerator_memory_capacity in GB as "
    "accelerator memory is sold: GB and GiB written with the same number are the "
    "same capacity (16 GiB is 16, not 17.18; an 80 GB A100 holds 80 GiB); a whole "
    "number of GB or GiB is read as written, anything else only through the reviewed "
    "vocabulary (a driver's '23.5135498046875 GB' on a 24 GB card is 24); "
    "accelerator_memory_capacity_bytes keeps the declared unit's bytes",
}

#: Frictionless resource names: lower-case letters, digits, "-", "_" and ".".
_NAME_UNSAFE = re.compile(r"[^a-z0-9._-]+")


def field_type(dtype: pl.DataType, *, csv: bool) -> str:
    """The Table Schema type of a Polars dtype, as the file of that format holds it.

    CSV has no nested values: ``downloads.flat_for_csv`` joins lists into text and
    writes structs as JSON objects, so a list is a ``string`` in CSV and an ``array``
    in Parquet.
    """
    if dtype.is_integer():
        return "integer"
    if dtype.is_float() or dtype.is_decimal():
        return "number"
    if isinstance(dtype, pl.Boolean):
        return "boolean"
    if isinstance(dtype, pl.Datetime):
        return "datetime"
    if isinstance(dtype, pl.Date):
        return "date"
    if isinstance(dtype, pl.Time):
        return "time"
    if isinstance(dtype, (pl.List, pl.Array)):
        return "string" if csv else "array"
    if isinstance(dtype, pl.Struct):
        return "object"
    if isinstance(dtype, (pl.String, pl.Categorical, pl.Enum)):
        return "string"
    return "any"


def _field(name: str, dtype: pl.DataType, *, csv: bool) -> dict:
    field: dict = {"name": name, "type": field_type(dtype, csv=csv)}
    notes = [COLUMN_DESCRIPTIONS[name]] if name in COLUMN_DESCRIPTIONS else []
    notes.append(f"Polars dtype {dtype}")
    if csv and isinstance(dtype, (pl.List, pl.Array)):
        notes.append('list items joined by "; " (the Parquet file keeps the list)')
    if csv and isinstance(dtype, pl.Struct):
        notes.append("a JSON object in the CSV")
    field["description"] = "; ".join(notes) + "."
    return field


def table_schema(
    schema: Mapping[str, pl.DataType],
    *,
    csv: bool,
    primary_key: Sequence[str] = (),
) -> dict:
    """A Table Schema for one file: one field per column, in file order."""
    out: dict = {"fields": [_field(n, t, csv=csv) for n, t in schema.items()]}
    if primary_key:
        out["primaryKey"] = list(primary_key)
    return out


def key_problem(frame: pl.LazyFrame, key: Sequence[str]) -> str:
    """Why ``key`` cannot be the primary key of ``frame`` ("" when it can).

    A primary key promises every row a unique, complete key; the descriptor makes that
    promise only where the written rows keep it, and says why where they do not.
    """
    columns = frame.collect_schema().names()
    missing = [c for c in key if c not in columns]
    if missing:
        return f"no column {', '.join(missing)}"
    nulls, repeats = (
        frame.select(
            pl.any_horizontal(pl.col(list(key)).is_null()).sum().alias("nulls"),
            pl.struct(list(key)).is_duplicated().sum().alias("repeats"),
        )
        .collect()
        .row(0)
    )
    problems = []
    if nulls:
        problems.append(f"{nulls:,} rows lack part of the key")
    if repeats:
        problems.append(f"{repeats:,} rows share their key with another row")
    return "; ".join(problems)


def _file_key_problem(download: Download, key: Sequence[str]) -> str:
    """``key_problem`` of both files; the CSV as text, as Frictionless reads it."""
    if not key:
        return ""
    parquet = pl.read_parquet(io.BytesIO(download.parquet_bytes)).lazy()
    csv = pl.read_csv(io.BytesIO(download.csv_bytes), infer_schema=False).lazy()
    return key_problem(parquet, key) or key_problem(csv, key)


def resource_name(table: str, suffix: str, taken: set[str]) -> str:
    """A unique Frictionless resource name from a table name and a format suffix."""
    stem = _NAME_UNSAFE.sub("-", table.lower()).strip("-") or "table"
    name = f"{stem}-{suffix}" if suffix else stem
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}-{n}", n + 1
    taken.add(candidate)
    return candidate


def _resources(download: Download, taken: set[str]) -> list[dict]:
    schema = pl.read_parquet_schema(io.BytesIO(download.parquet_bytes))
    key = PRIMARY_KEYS.get(download.name, ())
    problem = _file_key_problem(download, key)
    described = download.description
    if problem:
        described += f" No primary key: ({', '.join(key)}) does not hold ({problem})."
    csv_note = (
        f" Text cells starting with =, +, -, @, a tab or a carriage return carry a "
        f"leading {FORMULA_GUARD} so spreadsheets do not run them as formulas."
    )
    common = {"title": download.name}
    return [
        common
        | {
            "name": resource_name(download.name, "", taken),
            "path": download.csv.name,
            "format": "csv",
            "mediatype": CSV_MEDIATYPE,
            "encoding": "utf-8",
            "bytes": len(download.csv_bytes),
            "hash": f"sha256:{download.csv_sha256}",
            "description": described + csv_note,
            "schema": table_schema(
                schema, csv=True, primary_key=() if problem else key
            ),
        },
        common
        | {
            "name": resource_name(download.name, "parquet", taken),
            "type": "file",
            "path": download.parquet.name,
            "format": "parquet",
            "mediatype": PARQUET_MEDIATYPE,
            "bytes": len(download.parquet_bytes),
            "hash": f"sha256:{download.parquet_sha256}",
            "description": described + " Exact values and types.",
            "schema": table_schema(
                schema, csv=False, primary_key=() if problem else key
            ),
        },
    ]


def build_datapackage(
    downloads: Sequence[Download], repositories: Sequence[str]
) -> dict:
    """The Data Package descriptor of ``downloads`` (CSV resource, then Parquet, each).

    Args:
        downloads: What ``downloads.write_downloads`` wrote, in Data page order.
        repositories: Upstream ``owner/name`` repositories the tables come from.
    """
    taken: set[str] = set()
    return {
        "profile": "data-package",
        "name": "mlperf-ledger",
        "title": "mlperf-ledger: MLPerf Inference results of every round",
        "description": (
            "The canonical table of published MLPerf Inference results, the upstream "
            "records that did not become results (with the reason), and tables derived "
            "from them by mlperf-ledger. Derived tables (software_gains, "
            "generation_ratios, scaling, unit_costs, accelerator_histories, "
            "flagged_pairs) are "
            "unofficial: not MLPerf results, not verified or endorsed by MLCommons. "
            "The results come from the MLCommons repositories listed under sources, "
            "which publish their contents under the Apache License 2.0."
        ),
        "licenses": [dict(x) for x in LICENSES],
        "sources": [
            {"title": repo, "path": f"https://github.com/{repo}"}
            for repo in sorted(set(repositories))
        ],
        "resources": [r for d in downloads for r in _resources(d, taken)],
    }


def datapackage_text(downloads: Sequence[Download], repositories: Sequence[str]) -> str:
    """``datapackage.json``'s text; equal input, equal bytes."""
    text = json.dumps(
        build_datapackage(downloads, repositories),
        indent=1,
        sort_keys=True,
        ensure_ascii=False,
    )
    return text + "\n"


def write_datapackage(
    downloads: Sequence[Download], repositories: Sequence[str], out_dir: Path
) -> Path:
    """Write ``datapackage.json`` beside the downloads (scripts and tests)."""
    return write_file(out_dir / DESCRIPTOR, datapackage_text(downloads, repositories))
