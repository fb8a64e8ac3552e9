"""The declared system description of every result: one canonical systems table.

A buyer reading a result asks what exactly the machine is (host CPU and memory,
accelerator memory, interconnect, cooling, software) and how the same system did in
other rounds. Upstream declares it in the raw tree's ``systems/<system>.json`` (up to
~50 fields, names and units drifting between rounds) and in a few summary columns.

What belongs here (Dagster-free):

- ``read_system_files``: every system JSON a round's scan reads, as one row per
  declared field (``DECLARED_SCHEMA``), each with its file and sha256; a file that
  cannot be read is one quarantined row with the reason (``QUARANTINE_SCHEMA``),
  never silently dropped. Parsing loops over files (I/O bound) and their keys.
- ``summary_declared``: the summary columns that declare a system, one row per
  system and field (values of its result rows; several are kept, joined).
- ``system_identity``: the one system identity across rounds, as the software-gain
  ``system`` level pairs (submitter, platform, accelerator, count, nodes).
- ``systems_table``: one row per round × division × submitter × system, the
  canonical fields chosen (system JSON before summary), capacities in bytes, and
  the normalised interconnect family, cooling kind and accelerator memory in GB
  (``pipeline.transform.descriptions``) beside the declared text.

Field names come from ``registry/system_fields.toml`` (reviewed, with evidence; read
by ``pipeline.registry.system_fields``);
every decision on values is a Polars expression. Every declared string is hostile:
it is kept exactly as declared here and escaped where a page shows it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping

import polars as pl

from pipeline.extract.json_values import DuplicateKeys, loads
from pipeline.registry.system_fields import SystemFields, system_fields
from pipeline.transform.descriptions import NORMALISED, with_normalised

SOURCE_SYSTEM_JSON = "system_json"
SOURCE_SUMMARY = "summary"

#: One declared field of one system, as upstream wrote it.
DECLARED_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "division": pl.String,
    "submitter": pl.String,
    "platform": pl.String,
    "source_kind": pl.String,
    "source_file": pl.String,
    "snapshot_sha256": pl.String,
    "field_order": pl.Int32,
    #: The key as declared ("number of nodes", "sumitter").
    "field_upstream": pl.String,
    #: The canonical field (registry), or the normalised key when unknown.
    "field": pl.String,
    "is_known": pl.Boolean,
    #: The value as declared: text as is, numbers and booleans as JSON text, objects
    #: and lists as JSON (keys sorted), null for JSON null.
    "value": pl.String,
    "value_kind": pl.String,
    #: What the reader noticed about the value (a repeated key, text that was no text).
    "note": pl.String,
}

#: A system file that could not be read: which, its sha256 where read, and why.
QUARANTINE_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "division": pl.String,
    "submitter": pl.String,
    "platform": pl.String,
    "source_file": pl.String,
    "snapshot_sha256": pl.String,
    "reason": pl.String,
}

#: Capacity units and their bytes. Decimal prefixes SI as declared, binary ones binary.
CAPACITY_UNITS: dict[str, int] = {
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "pb": 10**15,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "pib": 2**50,
}  # fmt: skip
_QUANTITY = r"(\d+(?:\.\d+)?)\s*([KMGTP]i?B)\b"
#: One quantity, optionally "N x" before it, and no second number+unit after it.
_CAPACITY = rf"(?i)^\s*(?:(\d+)\s*[x×*]\s*)?{_QUANTITY}"
_SECOND_QUANTITY = r"(?i)\d\s*[KMGTP]i?B\b"
_BARE_PREFIX = r"(?i)^\s*\d+(?:\.\d+)?\s*[KMGTP]i?\s*$"


# -- reading the system JSONs ------------------------------------------------------


def _value(value: object) -> tuple[str | None, str]:
    """A declared value as text and its JSON kind; objects keep their structure."""
    if value is None:
        return None, "null"
    if isinstance(value, bool):
        return ("true" if value else "false"), "boolean"
    if isinstance(value, str):  # OutOfRange numbers too: kept as written
        return value, "text"
    if isinstance(value, (int, float)):
        return json.dumps(value), "number"
    return json.dumps(value, sort_keys=True, ensure_ascii=False), "json"


def _problem(content: bytes) -> tuple[dict | None, str | None]:
    """The parsed object, or why the file is no system description."""
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text ({exc.reason})"
    if not text.strip():
        return None, "empty file"
    try:
        document = loads(text)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
    except ValueError as exc:
        return None, str(exc)
    if not isinstance(document, dict):
        kind = "list" if isinstance(document, list) else type(document).__name__
        return None, f"expected a JSON object, got a JSON {kind}"
    return document, None


def read_system_files(
    systems: Mapping[tuple[str, str, str], str],
    read: Callable[[str], bytes],
    *,
    release: str,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every declared field of the round's system files, and the files quarantined.

    Args:
        systems: (division, submitter, system folder) -> its system file, as the
            raw-tree scan reads them (``raw_tree.system_files``).
        read: The bytes of one path.
        release: The round.

    Returns:
        (``DECLARED_SCHEMA`` rows, ``QUARANTINE_SCHEMA`` rows). A file that cannot
        be read, is not UTF-8 or JSON, or is not an object is one quarantined row
        with the reason; a repeated key keeps its first value with a note.
    """
    rows: list[dict[str, object]] = []
    quarantined: list[dict[str, object]] = []
    for (division, submitter, platform), path in sorted(systems.items()):
        where = {"division": division, "submitter": submitter, "platform": platform}
        try:
            content = read(path)
        except Exception as exc:  # noqa: BLE001 (any reader's failure is a reason)
            quarantined.append(
                where | {"source_file": path, "snapshot_sha256": None,
                         "reason": f"unreadable: {exc.__class__.__name__}: {exc}"}
            )  # fmt: skip
            continue
        sha = hashlib.sha256(content).hexdigest()
        document, problem = _problem(content)
        if document is None:
            quarantined.append(
                where | {"source_file": path, "snapshot_sha256": sha, "reason": problem}
            )
            continue
        repeated = (
            set(document.duplicates) if isinstance(document, DuplicateKeys) else set()
        )
        broken = (
            set(document.unencodable) if isinstance(document, DuplicateKeys) else set()
        )
        for order, (key, raw) in enumerate(document.items()):
            value, kind = _value(raw)
            notes = []
            if key in repeated:
                notes.append(
                    "declared more than once with different values; the first is kept"
                )
            if key in broken:
                notes.append("held an unpaired surrogate escape, replaced by U+FFFD")
            rows.append(
                where | {
                    "source_kind": SOURCE_SYSTEM_JSON, "source_file": path,
                    "snapshot_sha256": sha, "field_order": order,
                    "field_upstream": str(key), "value": value, "value_kind": kind,
                    "note": "; ".join(notes) or None,
                }
            )  # fmt: skip
    declared = pl.DataFrame(
        [r | {"release": release} for r in rows],
        schema={
            k: v for k, v in DECLARED_SCHEMA.items() if k not in ("field", "is_known")
        },
    )
    return (
        canonical_fields(declared.lazy()).collect(),
        pl.DataFrame(
            [r | {"release": release} for r in quarantined], schema=QUARANTINE_SCHEMA
        ),
    )


def canonical_fields(
    declared: pl.LazyFrame, mapping: SystemFields | None = None
) -> pl.LazyFrame:
    """Declared rows with ``field`` and ``is_known``: the registry's name, or the key.

    An alias applies in the rounds it was reviewed for and in rounds not listed at
    all (a later round repeating the spelling); an unknown key is kept under its
    normalised name with ``is_known`` false.
    """
    mapping = mapping or system_fields()
    key = (
        pl.col("field_upstream")
        .str.strip_chars()
        .str.to_lowercase()
        .str.replace_all(" ", "_")
    )
    aliased = key.replace_strict(
        {k: v[0] for k, v in mapping.aliases.items()},
        default=None,
        return_dtype=pl.String,
    )
    known = key.is_in(list(mapping.fields))
    return declared.with_columns(
        field=pl.when(known).then(key).otherwise(pl.coalesce(aliased, key)),
        is_known=known | aliased.is_not_null(),
    ).select(list(DECLARED_SCHEMA))


# -- the summary's declared columns ------------------------------------------------


def summary_declared(
    frame: pl.DataFrame,
    *,
    layout: str,
    layout_fields: Mapping[str, str],
    release: str,
    source_file: str,
    sha256: str,
    mapping: SystemFields | None = None,
) -> pl.DataFrame:
    """The system fields a summary declares, one row per system and field.

    ``frame`` is the summary as strings (``extract.summary.parse_summary``,
    ``all_fields``); ``layout_fields`` its layout's canonical inputs -> column names
    (rounds.toml), for division, submitter and platform. The values of one system's
    result rows are one value when they agree; otherwise every distinct value is
    kept, joined with " | ", and the note says so.
    """
    mapping = mapping or system_fields()
    columns = {
        upstream: field
        for upstream, field in mapping.summary.get(layout, {}).items()
        if upstream in frame.columns
    }
    ids = {
        name: layout_fields.get(name, "")
        for name in ("division", "submitter", "platform")
    }
    if not columns or any(c not in frame.columns for c in ids.values()):
        return pl.DataFrame(schema=DECLARED_SCHEMA)
    order = {upstream: i for i, upstream in enumerate(columns)}
    return (
        frame.lazy()
        .select(
            *(pl.col(column).alias(name) for name, column in ids.items()),
            *(pl.col(c).cast(pl.String) for c in columns),
        )
        .unpivot(index=list(ids), variable_name="field_upstream", value_name="value")
        .with_columns(pl.col("value").str.strip_chars())
        .filter(pl.col("value").is_not_null() & (pl.col("value") != ""))
        .group_by([*ids, "field_upstream"])
        .agg(pl.col("value").unique().sort())
        .with_columns(
            release=pl.lit(release),
            source_kind=pl.lit(SOURCE_SUMMARY),
            source_file=pl.lit(source_file),
            snapshot_sha256=pl.lit(sha256),
            field_order=pl.col("field_upstream").replace_strict(
                order, return_dtype=pl.Int32
            ),
            field=pl.col("field_upstream").replace_strict(
                columns, return_dtype=pl.String
            ),
            is_known=pl.lit(True),
            note=pl.when(pl.col("value").list.len() > 1).then(
                pl.format(
                    "{} different values across this system's result rows",
                    pl.col("value").list.len(),
                )
            ),
            value=pl.col("value").list.join(" | "),
            value_kind=pl.lit("text"),
        )
        .select(list(DECLARED_SCHEMA))
        .sort("division", "submitter", "platform", "field_order")
        .collect()
    )


# -- units -------------------------------------------------------------------------


def capacity_bytes(text: pl.Expr) -> pl.Expr:
    """Bytes of a declared capacity where the text states one ("1.3TB LPDDR5x")."""
    count = text.str.extract(_CAPACITY, 1).cast(pl.Float64, strict=False).fill_null(1.0)
    number = text.str.extract(_CAPACITY, 2).cast(pl.Float64, strict=False)
    unit = text.str.extract(_CAPACITY, 3).str.to_lowercase()
    factor = unit.replace_strict(CAPACITY_UNITS, default=None, return_dtype=pl.Float64)
    rest = text.str.replace(_CAPACITY, "")
    single = ~rest.str.contains(_SECOND_QUANTITY)
    return (
        pl.when(single & number.is_not_null() & factor.is_not_null())
        .then((count * number * factor).round(0).cast(pl.Int64, strict=False))
        .otherwise(None)
    )


def capacity_note(text: pl.Expr) -> pl.Expr:
    """Why a declared capacity has no bytes (null: it has, or nothing is declared)."""
    blank = text.is_null() | (text.str.strip_chars() == "")
    return (
        pl.when(blank | capacity_bytes(text).is_not_null())
        .then(None)
        .when(text.str.contains(_BARE_PREFIX))
        .then(pl.lit("no byte unit stated (a bare prefix such as 'G')"))
        .when(
            text.str.contains(_CAPACITY)
            & text.str.replace(_CAPACITY, "").str.contains(_SECOND_QUANTITY)
        )
        .then(pl.lit("more than one quantity declared"))
        .otherwise(pl.lit("no quantity with a byte unit"))
    )


# -- one identity across rounds ------------------------------------------------------

#: What one system is across rounds: the software-gain ``system`` level's identity
#: (``analysis.gains``: submitter and platform, hardware unchanged).
IDENTITY = ("submitter", "platform", "accelerator_key", "total_accelerators", "nodes")


def identity_key() -> pl.Expr:
    """The identity as one text (unit separator between parts), from result rows."""
    accelerator = pl.coalesce("accelerator_id", "accelerator_name")
    return pl.concat_str(
        pl.col("submitter").fill_null(""),
        pl.coalesce("platform", "system_name").fill_null(""),
        accelerator.fill_null("CPU only"),
        pl.col("total_accelerators").cast(pl.String).fill_null("?"),
        pl.col("nodes").cast(pl.String).fill_null("?"),
        separator="\x1f",
    )


def system_ids(keys: pl.Series) -> dict[str, str]:
    """Each distinct identity key's id: a readable slug and a digest of the key.

    Walks distinct systems (entities, not rows). The digest makes ids unique and
    stable whatever else the round holds; the slug part is for people.
    """
    out = {}
    for key in keys.drop_nulls().unique().sort().to_list():
        submitter, platform, *_ = key.split("\x1f")
        readable = re.sub(r"[^a-z0-9]+", "-", f"{submitter} {platform}".lower()).strip(
            "-"
        )
        digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:10]
        out[key] = f"{readable[:60].rstrip('-') or 'system'}--{digest}"
    return out


def with_system_id(results: pl.DataFrame) -> pl.DataFrame:
    """Results with ``system_key`` and ``system_id`` (one system across rounds)."""
    if "accelerator_id" not in results.columns:
        results = results.with_columns(accelerator_id=pl.lit(None, dtype=pl.String))
    keyed = results.with_columns(system_key=identity_key())
    ids = system_ids(keyed["system_key"])
    return keyed.with_columns(
        system_id=pl.col("system_key").replace_strict(
            ids, default=None, return_dtype=pl.String
        )
    )


# -- the canonical table -----------------------------------------------------------

#: Canonical fields that get a column of their own in the systems table.
WIDE_FIELDS = (
    "system_name", "system_type", "status", "number_of_nodes", "accelerators_per_node",
    "accelerator_model_name", "accelerator_memory_capacity",
    "accelerator_memory_configuration", "accelerator_interconnect",
    "accelerator_host_interconnect", "host_processor_model_name",
    "host_processors_per_node", "host_processor_core_count", "host_memory_capacity",
    "host_storage_capacity", "host_networking", "cooling", "operating_system",
    "framework", "other_software_stack", "hw_notes", "sw_notes",
)  # fmt: skip
#: Capacity columns also given in bytes (``<field>_bytes``, ``<field>_bytes_note``).
CAPACITY_FIELDS = (
    "accelerator_memory_capacity",
    "host_memory_capacity",
    "host_storage_capacity",
)

SYSTEMS_KEY = ("release", "division", "submitter", "platform", "system_id")
#: What identifies one declared field (a summary's columns share one file).
SYSTEM_FIELDS_KEY = (
    "release", "division", "submitter", "platform", "source_kind", "field_order",
)  # fmt: skip

SYSTEMS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "division": pl.String,
    "submitter": pl.String,
    "platform": pl.String,
    "system_id": pl.String,
    "system_key": pl.String,
    "accelerator_id": pl.String,
    "accelerator_name": pl.String,
    "total_accelerators": pl.Int32,
    "nodes": pl.Int32,
    "results": pl.UInt32,
    "system_names": pl.List(pl.String),
    **{f: pl.String for f in WIDE_FIELDS},
    **{
        name: dtype
        for f in CAPACITY_FIELDS
        for name, dtype in ((f"{f}_bytes", pl.Int64), (f"{f}_bytes_note", pl.String))
    },
    # registry/descriptions.toml's vocabulary (null: not declared or not in it).
    **{name: dtype for name, (_, dtype) in NORMALISED.items()},
    "description_source": pl.String,
    "source_file": pl.String,
    "snapshot_sha256": pl.String,
    "declared_fields": pl.UInt32,
    "unknown_fields": pl.List(pl.String),
}


def systems_table(declared: pl.DataFrame, results: pl.DataFrame) -> pl.DataFrame:
    """One row per round × division × submitter × system with its declared description.

    ``declared`` is ``DECLARED_SCHEMA`` (system JSONs and summaries); ``results``
    the canonical results (with ``accelerator_id`` where attached). A field a system
    JSON declares wins over the summary's column; every column keeps its source in
    the long table (``out_mlperf__system_fields``). A system with results and no
    description is still a row (its description columns null).
    """
    keyed = with_system_id(results)
    systems = (
        keyed.lazy()
        .group_by("release", "division", "submitter", "platform", "system_id")
        .agg(
            pl.col("system_key").first(),
            pl.col("accelerator_id").drop_nulls().first(),
            pl.col("accelerator_name").drop_nulls().first(),
            pl.col("total_accelerators").drop_nulls().first(),
            pl.col("nodes").drop_nulls().first(),
            pl.len().alias("results"),
            pl.col("system_name").drop_nulls().unique().sort().alias("system_names"),
        )
    )
    ranked = (
        declared.lazy()
        .filter(pl.col("value").is_not_null())
        .with_columns(
            _rank=pl.when(pl.col("source_kind") == SOURCE_SYSTEM_JSON)
            .then(0)
            .otherwise(1)
        )
        .sort("_rank", "field_order")
    )
    place = ["release", "division", "submitter", "platform"]
    chosen = (
        ranked.filter(pl.col("is_known"))
        .group_by([*place, "field"])
        .agg(pl.col("value").first())
    )
    wide = (
        chosen.filter(pl.col("field").is_in(WIDE_FIELDS))
        .collect()
        .pivot(on="field", index=place, values="value")
        .lazy()
    )
    present = set(wide.collect_schema().names())
    wide = wide.with_columns(
        pl.lit(None, dtype=pl.String).alias(f) for f in WIDE_FIELDS if f not in present
    )
    meta = ranked.group_by(place).agg(
        pl.col("source_kind").first().alias("description_source"),
        pl.col("source_file").first(),
        pl.col("snapshot_sha256").first(),
        pl.col("field").n_unique().cast(pl.UInt32).alias("declared_fields"),
        pl.col("field")
        .filter(~pl.col("is_known"))
        .unique()
        .sort()
        .alias("unknown_fields"),
    )
    return (
        systems.join(wide, on=place, how="left", nulls_equal=True)
        .join(meta, on=place, how="left", nulls_equal=True)
        .with_columns(
            *(capacity_bytes(pl.col(f)).alias(f"{f}_bytes") for f in CAPACITY_FIELDS),
            *(
                capacity_note(pl.col(f)).alias(f"{f}_bytes_note")
                for f in CAPACITY_FIELDS
            ),
        )
        .pipe(with_normalised)
        .select([pl.col(c).cast(t) for c, t in SYSTEMS_SCHEMA.items()])
        .sort(list(SYSTEMS_KEY))
        .collect()
    )


def summary_system_fields(
    content: bytes, *, release: str, source_file: str, sha256: str
) -> pl.DataFrame:
    """``summary_declared`` of one summary file's bytes (empty when it cannot be read).

    A summary that cannot be parsed is the summary assets' failure to report; here it
    declares nothing.
    """
    from pipeline.extract.summary import SummaryFormatError, parse_summary
    from pipeline.registry.rounds import load_round_rules

    try:
        raw = parse_summary(content, release=release, file=source_file, all_fields=True)
    except SummaryFormatError:
        return pl.DataFrame(schema=DECLARED_SCHEMA)
    layout = load_round_rules().layouts[raw.format]
    return summary_declared(
        raw.frame,
        layout=raw.format,
        layout_fields=layout.fields,
        release=release,
        source_file=source_file,
        sha256=sha256,
    )
