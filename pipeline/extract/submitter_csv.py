"""Submitters' own summary tables in a raw tree: read to check the logs, never as data.

Several pre-v4.1 rounds carry, under ``<division>/<submitter>/``, a CSV the
submitter's tooling wrote: ``results_summary.csv`` (``system_id, benchmark,
scenario, perf_metric, perf_value``: the loadgen value in the log's own unit) or
``summary.csv`` (the submission checker's columns, ``Organization, ..., Platform,
Model, Scenario, Result``: the checker's value, latencies in milliseconds). They are
the nearest thing to an official table for those rounds, so every row is compared
with the result read from the logs (``pipeline.transform.submitter_check``). Values
always come from the logs.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

import polars as pl

#: Where the CSVs sit: the submitter's folder, or its results/ folder (v0.7 InAccel).
CSV_PATH = re.compile(
    r"^(?P<division>[^/]+)/(?P<submitter>[^/]+)/"
    r"(?:results_summary\.csv|summary\.csv|results/summary\.csv)$"
)

#: One row per CSV row (or one row per unreadable file, with ``problem``).
CSV_SCHEMA: dict[str, pl.DataType] = {
    "csv_file": pl.String,
    "csv_row": pl.Int64,
    "layout": pl.String,
    "division": pl.String,
    "submitter": pl.String,
    "platform": pl.String,
    "model": pl.String,
    "scenario": pl.String,
    "metric": pl.String,
    "value_text": pl.String,
    "problem": pl.String,
}

#: Header columns identifying each layout, and which columns hold what.
LAYOUTS: dict[str, dict[str, str]] = {
    # The value in the log's unit (ns for latencies), with the metric it names.
    "loadgen": {
        "platform": "system_id",
        "model": "benchmark",
        "scenario": "scenario",
        "metric": "perf_metric",
        "value_text": "perf_value",
    },
    # The checker's own columns: its value (ms for latencies); no metric name.
    "checker": {
        "division": "Division",
        "submitter": "Organization",
        "platform": "Platform",
        "model": "Model",
        "scenario": "Scenario",
        "value_text": "Result",
    },
}


def is_submitter_csv(path: str) -> bool:
    """Whether a listed path is one of the submitters' summary tables."""
    return CSV_PATH.match(path) is not None


def parse_submitter_csv(path: str, content: bytes) -> pl.DataFrame:
    """Rows of one submitter CSV as strings, or one row saying why it cannot be read."""
    match = CSV_PATH.match(path)
    division, submitter = (
        (match.group("division"), match.group("submitter")) if match else (None, None)
    )
    base = {"csv_file": path, "division": division, "submitter": submitter}
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return _problem(base, f"{path}: not UTF-8 text ({exc.reason})")
    reader = csv.DictReader(io.StringIO(text))
    header = set(reader.fieldnames or ())
    layout = next(
        (name for name, cols in LAYOUTS.items() if set(cols.values()) <= header), None
    )
    if layout is None:
        return _problem(
            base,
            f"{path}: not a known submitter summary layout (columns: "
            f"{', '.join(sorted(header)) or 'none'})",
        )
    columns = LAYOUTS[layout]
    rows = []
    try:
        for index, record in enumerate(reader, start=1):
            row = dict.fromkeys(CSV_SCHEMA) | base
            row |= {
                "csv_row": index,
                "layout": layout,
                **{key: _text(record.get(col)) for key, col in columns.items()},
            }
            # The checker's own CSV names the division and submitter of each row.
            row["division"] = row["division"] or division
            row["submitter"] = row["submitter"] or submitter
            rows.append(row)
    except csv.Error as exc:
        return _problem(base, f"{path}: malformed CSV ({exc})")
    return pl.DataFrame(rows, schema=CSV_SCHEMA) if rows else empty_csv_rows()


def _text(value: object) -> str | None:
    text = value.strip() if isinstance(value, str) else None
    return text or None


def _problem(base: dict, problem: str) -> pl.DataFrame:
    return pl.DataFrame([dict.fromkeys(CSV_SCHEMA) | base | {"problem": problem}],
                        schema=CSV_SCHEMA)  # fmt: skip


def empty_csv_rows() -> pl.DataFrame:
    """No submitter CSV rows."""
    return pl.DataFrame(schema=CSV_SCHEMA)


def submitter_rows(paths: list[str], read: Callable[[str], bytes]) -> pl.DataFrame:
    """Every submitter CSV of a listing; an unreadable file is one problem row."""
    frames = [empty_csv_rows()]
    for path in paths:
        if not is_submitter_csv(path):
            continue
        try:
            content = read(path)
        except (OSError, ValueError, RuntimeError) as exc:  # SourceError included
            frames.append(_problem({"csv_file": path}, f"{path}: not read ({exc})"))
            continue
        frames.append(parse_submitter_csv(path, content))
    return pl.concat(frames)
