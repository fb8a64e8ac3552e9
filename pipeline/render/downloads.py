"""Data downloads: every table the site shows, as CSV and Parquet with checksums.

Readers should be able to check any number without scraping pages, and to verify that
the file they hold is the one a build published: hence sha256 and row counts next to
each link on the Data page. CSV text cells that a spreadsheet would run as a formula
get a leading ``'`` (``neutralise_formula``); Parquet keeps the exact values.
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from pipeline.files import write_file


@dataclass(frozen=True)
class Download:
    """One table in both formats: its bytes, where they go, their sha256.

    ``csv`` and ``parquet`` are the file names (``make_downloads``) or the files
    written (``write_downloads``).
    """

    name: str
    description: str
    rows: int
    columns: dict[str, str]
    csv: Path
    csv_sha256: str
    parquet: Path
    parquet_sha256: str
    csv_bytes: bytes = b""
    parquet_bytes: bytes = b""


#: First characters that make a spreadsheet read a cell as a formula (OWASP "CSV
#: Injection": =, +, -, @, tab, carriage return), their full-width forms (which some
#: spreadsheets fold to ASCII) and "|" (DDE in older ones).
FORMULA_START = r"^[=+\-@\t\r|\uFF1D\uFF0B\uFF0D\uFF20]"
#: Control characters a CSV cell must not carry (NUL truncates it in many readers).
CSV_CONTROL = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
#: Prefixed to such text cells so spreadsheets show them as text.
FORMULA_GUARD = "'"
#: Keys we build join their parts with the unit separator (0x1f, e.g.
#: ``transform.systems.identity_key``), which CSV cells may not carry: the CSV made
#: it U+FFFD and its key no longer matched the Parquet one. In every download, CSV
#: and Parquet alike, it is written as its visible symbol.
KEY_SEPARATOR = "\x1f"
KEY_SEPARATOR_SHOWN = "\u241f"  # ␟ SYMBOL FOR UNIT SEPARATOR


def printable_keys(frame: pl.DataFrame) -> pl.DataFrame:
    """``*_key`` text columns with :data:`KEY_SEPARATOR` as ␟, for both formats.

    Only keys: upstream text keeps its exact bytes in Parquet.
    """
    keys = [
        name
        for name, dtype in frame.schema.items()
        if name.endswith("_key") and dtype == pl.String
    ]
    if not keys:
        return frame
    return frame.with_columns(
        pl.col(keys).str.replace_all(KEY_SEPARATOR, KEY_SEPARATOR_SHOWN, literal=True)
    )


def neutralise_formula(text: pl.Expr) -> pl.Expr:
    """Text that a spreadsheet would run as a formula, prefixed with ``'``.

    Upstream names are untrusted ("=HYPERLINK(...)", "@SUM(...)"); a reader opening
    the CSV in a spreadsheet must see them as text. Only text columns are treated:
    a negative number stays a number.
    """
    clean = text.str.replace_all(CSV_CONTROL, "\ufffd")
    return (
        pl.when(clean.str.contains(FORMULA_START))
        .then(pl.lit(FORMULA_GUARD) + clean)
        .otherwise(clean)
    )


def neutralise_header(name: str) -> str:
    """A column name as a CSV header cell: ``neutralise_formula`` for one string.

    Header cells are cells too: a round's grid names its columns after upstream's
    benchmarks ("=HYPERLINK(...) · Offline (Tokens/s)").
    """
    clean = re.sub(CSV_CONTROL, "\ufffd", name)
    return FORMULA_GUARD + clean if re.match(FORMULA_START, clean) else clean


def flat_for_csv(frame: pl.DataFrame) -> pl.DataFrame:
    """The CSV form of a table: nested columns as text, formula-leading text quoted.

    CSV has no lists or structs, so lists are joined with "; " and structs written as
    JSON objects (one value per cell; a missing struct is an empty cell). Every text
    cell, and every header, then goes through ``neutralise_formula``. Parquet keeps
    the exact table.
    """
    exprs = []
    for name, dtype in frame.schema.items():
        column = pl.col(name)
        if isinstance(dtype, pl.List):
            text = column.list.eval(pl.element().cast(pl.String)).list.join("; ")
        elif isinstance(dtype, (pl.Struct, pl.Array)):
            # A missing struct is an empty cell like any missing value, not "null".
            text = pl.when(column.is_not_null()).then(column.struct.json_encode())
        elif isinstance(dtype, (pl.String, pl.Categorical, pl.Enum)):
            text = column.cast(pl.String)
        else:
            exprs.append(column)
            continue
        exprs.append(neutralise_formula(text).alias(name))
    flat = frame.select(exprs)
    # A guarded "=x" could meet a column already named "'=x": the later one is
    # numbered, so no header is lost.
    names: dict[str, str] = {}
    for column in flat.columns:
        header = neutralise_header(column)
        taken = set(names.values())
        number = 2
        while header in taken:
            header = f"{neutralise_header(column)} ({number})"
            number += 1
        names[column] = header
    return flat.rename(names)


def make_downloads(tables: dict[str, tuple[pl.DataFrame, str]]) -> list[Download]:
    """Each table as ``<name>.csv`` and ``<name>.parquet`` bytes, nothing written.

    Args:
        tables: File stem -> (frame, one-line description).

    Returns:
        One ``Download`` per table, in the given order.
    """
    downloads = []
    for name, (table, description) in tables.items():
        frame = printable_keys(table)
        buffer = io.BytesIO()
        frame.write_parquet(buffer, statistics=False)
        csv, parquet = flat_for_csv(frame).write_csv().encode(), buffer.getvalue()
        downloads.append(
            Download(
                name=name,
                description=description,
                rows=frame.height,
                columns={c: str(t) for c, t in frame.schema.items()},
                csv=Path(f"{name}.csv"),
                csv_sha256=hashlib.sha256(csv).hexdigest(),
                parquet=Path(f"{name}.parquet"),
                parquet_sha256=hashlib.sha256(parquet).hexdigest(),
                csv_bytes=csv,
                parquet_bytes=parquet,
            )
        )
    return downloads


def write_downloads(
    tables: dict[str, tuple[pl.DataFrame, str]], out_dir: Path
) -> list[Download]:
    """``make_downloads``, written under ``out_dir`` (scripts and tests)."""
    return [
        replace(
            d,
            csv=write_file(out_dir / d.csv.name, d.csv_bytes),
            parquet=write_file(out_dir / d.parquet.name, d.parquet_bytes),
        )
        for d in make_downloads(tables)
    ]
