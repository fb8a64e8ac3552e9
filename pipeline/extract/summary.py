"""Parse an upstream summary file into an all-string Polars frame, one row per record.

This is the trust boundary: it decides whether bytes are a summary file at all and in
which layout. Field types are *not* trusted here; every value becomes a string and the
transform step casts and validates it, so a mistyped field is a rejected row with a
reason rather than a crash. What cannot become a string column at all (a list, an
object or a boolean where a field holds text or a number, a number beyond 64 bits,
NaN or Infinity) is caught here, record by record, and rejects that record naming
the field (``pipeline.extract.json_values``); the rest of the file proceeds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import polars as pl

from pipeline.extract.json_values import DuplicateKeys, flatten, loads, record_problem
from pipeline.registry.rounds import Layout, RoundRules, load_round_rules, rules_for
from pipeline.transform.inferred import judge_summary
from pipeline.transform.results import STAGED_SCHEMA, canonicalise


class SummaryFormatError(ValueError):
    """The bytes are not a summary file we can read; the message says where and why."""


@dataclass(frozen=True)
class RawSummary:
    """Records of one summary file, every field as a string (null when absent).

    ``frame`` has ``source_record`` (list index or object key), ``record_json`` (the
    record as upstream wrote it, for the rejected table) and one column per known field.
    ``problems`` has one entry per record: why a field the layout reads cannot be a
    scalar (``json_values.record_problem``), or null. It is kept out of ``frame`` so
    that an upstream field never collides with it.
    """

    format: str
    frame: pl.DataFrame
    problems: pl.Series


def _describe(value: object) -> str:
    return {dict: "a JSON object", list: "a JSON list", str: "a JSON string"}.get(
        type(value), f"a JSON {type(value).__name__}"
    )


def _decode(content: bytes, where: str) -> object:
    # A UTF-8 byte order mark is no content: JSON after it is JSON, HTML is HTML.
    content = content.lstrip().removeprefix(b"\xef\xbb\xbf")
    if not content.strip():
        raise SummaryFormatError(f"{where}: empty file ({len(content)} bytes)")
    head = content.lstrip()[:64].decode("utf-8", "replace")
    if head.startswith("<"):
        first = head.splitlines()[0][:40]
        raise SummaryFormatError(
            f"{where}: looks like an HTML page, not JSON (starts with {first!r})"
        )
    try:
        return loads(content)
    except UnicodeDecodeError as exc:
        raise SummaryFormatError(f"{where}: not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise SummaryFormatError(
            f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            f" (file is {len(content)} bytes; truncated?)"
        ) from None
    except ValueError as exc:
        raise SummaryFormatError(f"{where}: {exc}") from None


def detect_format(
    records: list[object], layouts: Mapping[str, Layout] | None = None
) -> str | None:
    """The layout whose signature fields most records carry, if any."""
    layouts = layouts if layouts is not None else load_round_rules().layouts
    objects = [r for r in records[:50] if isinstance(r, dict)]
    for name, layout in layouts.items():
        hits = sum(layout.signature <= r.keys() for r in objects)
        if objects and hits * 2 >= len(objects):
            return name
    return None


def parse_summary(
    content: bytes,
    *,
    release: str,
    file: str,
    all_fields: bool = False,
    rules: RoundRules | None = None,
) -> RawSummary:
    """Decode a summary file, detect its layout and return it as strings.

    With ``all_fields`` the frame has a column for every field any record carries
    (for diffs between snapshots), not only the fields the canonical table reads.

    Raises:
        SummaryFormatError: empty, HTML, invalid JSON or an unknown layout; the
            message names release and file.
    """
    where = f"{release} {file}"
    document = _decode(content, where)
    if (
        isinstance(document, DuplicateKeys)
        and document.duplicates
        and all(k.isdigit() for k in document)
    ):
        keys = ", ".join(f'"{k}"' for k in document.duplicates)
        raise SummaryFormatError(
            f"{where}: record key {keys} appears more than once; refusing the file "
            "(one of the records would silently be lost)"
        )
    if isinstance(document, list):
        keys = [str(i) for i in range(len(document))]
        records = document
    elif isinstance(document, dict) and all(k.isdigit() for k in document):
        keys = list(document)
        records = list(document.values())
    else:
        found = (
            f"an object with keys {sorted(document)[:5]}"
            if isinstance(document, dict)
            else _describe(document)
        )
        raise SummaryFormatError(
            f"{where}: unknown schema: expected a list of records or an object keyed "
            f'"0", "1", ...; got {found}'
        )
    if not records:
        raise SummaryFormatError(f"{where}: the file holds no records")
    layouts = rules.layouts if rules is not None else load_round_rules().layouts
    fmt = detect_format(records, layouts)
    if fmt is None:
        known = " nor ".join(
            f"the {name.replace('_', '-')} fields {sorted(layout.signature)}"
            for name, layout in layouts.items()
        )
        raise SummaryFormatError(
            f"{where}: unknown schema: records carry neither {known}"
        )
    read = columns = layouts[fmt].columns
    rare: frozenset[str] = frozenset()
    if all_fields:
        # A column per field that at least half of the records carry (every real
        # upstream field); the rest of a record's fields go into one JSON column,
        # so memory stays proportional to the file, whatever keys a hostile file
        # invents (the many-keys benchmark keeps it to a few times the real file's).
        counts: dict[str, int] = {}
        for record in records:
            if isinstance(record, dict):
                for key in record:
                    counts[key] = counts.get(key, 0) + 1
        common = sorted(k for k, n in counts.items() if 2 * n >= len(records))
        rare = frozenset(counts) - set(common) - set(columns)
        columns = tuple(dict.fromkeys([*columns, *common]))
        if rare:
            columns = (*columns, OTHER_FIELDS)
    # One pass over the parsed records at the boundary (they are Python objects until
    # Polars holds them): the fields the layout reads must be scalars, and nested
    # values become JSON text so that no value can break the all-string frame.
    problems = pl.Series(
        "problem", [record_problem(r, read) for r in records], dtype=pl.String
    )
    # Non-object records become all-null rows; record_json keeps what they were so the
    # transform can reject them with a reason instead of dropping them.
    objects = [flatten(r) if isinstance(r, dict) else {} for r in records]
    if rare:
        objects = [_fold_rare(o, rare) for o in objects]
    frame = pl.from_dicts(
        objects, schema=dict.fromkeys(columns, pl.String), strict=False
    ).with_columns(
        pl.Series("source_record", keys, dtype=pl.String),
        pl.Series(
            "record_json",
            [json.dumps(r, sort_keys=True, allow_nan=True) for r in records],
            dtype=pl.String,
        ),
    )
    return RawSummary(format=fmt, frame=frame, problems=problems)


#: The one column holding, as JSON, the fields fewer than half of the records carry.
OTHER_FIELDS = "other fields"


def _fold_rare(record: dict, rare: frozenset[str]) -> dict:
    """The record with its rare fields folded into ``OTHER_FIELDS`` (sorted JSON)."""
    folded = {k: v for k, v in record.items() if k in rare}
    if not folded:
        return record
    kept = {k: v for k, v in record.items() if k not in rare}
    kept[OTHER_FIELDS] = json.dumps(folded, sort_keys=True, default=str)
    return kept


#: The spellings of the ``inferred`` flag upstream documents (0/1 in every summary
#: file, or the words true/false); anything else rejects the record, naming
#: the field, instead of silently reading as "not inferred".
FLAGS = {"0": False, "1": True, "0.0": False, "1.0": True, "false": False, "true": True}


def stage_summary(
    raw: RawSummary, *, rules: RoundRules, source_file: str, snapshot_sha256: str
) -> tuple[pl.LazyFrame, dict[str, str]]:
    """A parsed summary as staged rows for ``canonicalise``, and its field names.

    Only the layout's field map (from the rules file) and the summary's own
    spellings are handled here: ``./`` and ``/performance/run_N`` around locations,
    the ``inferred`` flag written as 0/1. Everything else is decided once, for both
    extractors, in ``pipeline.transform.results.canonicalise``.
    """
    fields = rules.layouts[raw.format].fields
    names = {name: upstream or name for name, upstream in fields.items()}
    names["value_text"] = names["value_raw"]

    def col(name: str) -> pl.Expr:
        upstream = fields[name]
        return pl.col(upstream) if upstream else pl.lit(None, dtype=pl.String)

    value = col("value_raw").str.strip_chars()
    flag = col("inferred_raw").str.strip_chars().str.to_lowercase()
    inferred_name = fields["inferred_raw"] or "inferred"
    bad_flag = pl.when(
        flag.is_not_null() & (flag != "") & ~flag.is_in(list(FLAGS))
    ).then(
        pl.format(
            f'field "{inferred_name}" is not one of the documented spellings '
            "(0, 1, true, false): '{}'",
            col("inferred_raw").str.slice(0, 40),
        )
    )
    frame = raw.frame.lazy().with_columns(raw.problems.alias("_field_problem"))
    staged = frame.select(
        pl.lit(source_file).alias("source_file"),
        "source_record",
        pl.int_range(pl.len(), dtype=pl.Int64).alias("record_order"),
        pl.format("record {}", "source_record").alias("record_label"),
        "record_json",
        pl.lit(snapshot_sha256).alias("snapshot_sha256"),
        pl.coalesce(
            _reason_not_object(),
            pl.concat_str(
                ["_field_problem", bad_flag], separator="; ", ignore_nulls=True
            ).replace("", None),
        ).alias("problem"),
        *[
            col(name).alias(name)
            for name in (
                "result_id",
                "submitter",
                "division",
                "category",
                "availability",
                "system_name",
                "platform",
                "benchmark_upstream",
                "model_upstream",
                "scenario_upstream",
                "power_raw",
                "power_unit_raw",
                "nodes_raw",
                "apn_raw",
                "total_raw",
                "accelerator_upstream",
                "cpu_raw",
                "software",
                "weight_data_types",
            )
        ],  # fmt: skip
        col("accuracy_raw").alias("accuracy_upstream"),
        col("design_power_raw").alias("design_power_raw"),
        value.cast(pl.Float64, strict=False).alias("value"),
        value.alias("value_text"),
        col("unit_raw").str.strip_chars().alias("unit_raw"),
        flag.replace_strict(FLAGS, default=None, return_dtype=pl.Boolean)
        .fill_null(False)
        .alias("is_inferred"),
        col("location_raw")
        .str.strip_chars()
        .str.strip_prefix("./")
        .str.replace(r"/performance/run_\d+/?$", "")
        .str.strip_suffix("/")
        .alias("location"),
    )
    missing = [c for c in STAGED_SCHEMA if c not in staged.collect_schema().names()]
    staged = staged.with_columns(
        pl.lit(None, dtype=STAGED_SCHEMA[c]).alias(c) for c in missing
    ).select(list(STAGED_SCHEMA))
    return staged.cast(STAGED_SCHEMA), names


def _reason_not_object() -> pl.Expr:
    return pl.when(~pl.col("record_json").str.starts_with("{")).then(
        pl.format(
            "record is not a JSON object: {}", pl.col("record_json").str.slice(0, 40)
        )
    )


def summary_tables(
    content: bytes,
    *,
    release: str,
    repository: str,
    source_file: str,
    sha256: str,
    rules: RoundRules | None = None,
    commit: str | None = None,
) -> tuple[pl.DataFrame, pl.DataFrame, str]:
    """Bytes of one summary file to (results, rejected, layout name).

    Raises:
        SummaryFormatError: the file is not a summary at all.
    """
    rules = rules or rules_for(release)
    raw = parse_summary(content, release=release, file=source_file, rules=rules)
    staged, names = stage_summary(
        raw, rules=rules, source_file=source_file, snapshot_sha256=sha256
    )
    results, rejected = canonicalise(
        staged, rules=rules, repository=repository, names=names, commit=commit
    )
    results = judge_summary(results, rules.inferred_flag)
    results_df, rejected_df = pl.collect_all([results, rejected])
    return results_df, rejected_df, raw.format
