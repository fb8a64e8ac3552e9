"""Parse an upstream summary file into an all-string Polars frame, one row per record.

This is the trust boundary: it decides whether bytes are a summary file at all and in
which layout. Field types are *not* trusted here; every value becomes a string and the
transform step casts and validates it, so a mistyped field is a rejected row with a
reason rather than a crash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl

#: Columns of ``summary_results.json`` (v4.1 to v6.0, the final-report layout).
FINAL_REPORT_COLUMNS = (
    "ID", "Submitter", "Availability", "Category", "Suite", "System", "Platform",
    "Model", "UsedModel", "Scenario", "Performance_Result", "Performance_Units",
    "Power_Result", "Power_Units", "Nodes", "a#", "Total Accelerators", "Accelerator",
    "Processor", "Software", "weight_data_types", "inferred", "Location",
)  # fmt: skip
#: Columns of ``summary.json`` (v6.1 on, the submission checker's own names).
CHECKER_COLUMNS = (
    "Organization", "Availability", "Division", "SystemType", "SystemName",
    "Platform", "Model", "MlperfModel", "Scenario", "Result", "Units",
    "number_of_nodes", "accelerators_per_node", "total_accelerators",
    "accelerator_model_name", "host_processor_model_name", "framework",
    "weight_data_types", "inferred", "Location",
)  # fmt: skip
#: Fields whose presence identifies each layout.
_SIGNATURES = {
    "final_report": {"ID", "Performance_Result", "Submitter"},
    "checker": {"Organization", "Result", "Division"},
}


class SummaryFormatError(ValueError):
    """The bytes are not a summary file we can read; the message says where and why."""


@dataclass(frozen=True)
class RawSummary:
    """Records of one summary file, every field as a string (null when absent).

    ``frame`` has ``source_record`` (list index or object key), ``record_json`` (the
    record as upstream wrote it, for the rejected table) and one column per known field.
    """

    format: str
    frame: pl.DataFrame


def _describe(value: object) -> str:
    return {dict: "a JSON object", list: "a JSON list", str: "a JSON string"}.get(
        type(value), f"a JSON {type(value).__name__}"
    )


def _decode(content: bytes, where: str) -> object:
    if not content.strip():
        raise SummaryFormatError(f"{where}: empty file ({len(content)} bytes)")
    head = content.lstrip()[:64].decode("utf-8", "replace")
    if head.startswith("<"):
        first = head.splitlines()[0][:40]
        raise SummaryFormatError(
            f"{where}: looks like an HTML page, not JSON (starts with {first!r})"
        )
    try:
        return json.loads(content)
    except UnicodeDecodeError as exc:
        raise SummaryFormatError(f"{where}: not UTF-8 text ({exc.reason})") from None
    except json.JSONDecodeError as exc:
        raise SummaryFormatError(
            f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
            f" (file is {len(content)} bytes; truncated?)"
        ) from None


def detect_format(records: list[object]) -> str | None:
    """The layout whose signature fields most records carry, if any."""
    objects = [r for r in records[:50] if isinstance(r, dict)]
    for name, signature in _SIGNATURES.items():
        if objects and sum(signature <= r.keys() for r in objects) * 2 >= len(objects):
            return name
    return None


def parse_summary(
    content: bytes, *, release: str, file: str, all_fields: bool = False
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
    fmt = detect_format(records)
    if fmt is None:
        raise SummaryFormatError(
            f"{where}: unknown schema: records carry neither the final-report fields "
            f"{sorted(_SIGNATURES['final_report'])} nor the checker fields "
            f"{sorted(_SIGNATURES['checker'])}"
        )
    columns = FINAL_REPORT_COLUMNS if fmt == "final_report" else CHECKER_COLUMNS
    if all_fields:
        seen = {k for r in records if isinstance(r, dict) for k in r}
        columns = tuple(dict.fromkeys([*columns, *sorted(seen)]))
    # Non-object records become all-null rows; record_json keeps what they were so the
    # transform can reject them with a reason instead of dropping them.
    objects = [r if isinstance(r, dict) else {} for r in records]
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
    return RawSummary(format=fmt, frame=frame)
