"""Names that look alike: Unicode TS #39 confusable skeletons, flagged, never merged.

Two submitters, systems or accelerators whose names differ only by a look-alike
character ("NVlDIA" with a lower-case L, a Cyrillic "І", a soft hyphen or a Hangul
filler inside "NVIDIA", a non-breaking hyphen for a hyphen) are two names to every
comparison and grouping, yet one to a reader. This module finds them: names whose
TS #39 *skeleton* (https://www.unicode.org/reports/tr39/#Confusable_Detection) is
equal while their text differs. They are listed for a person to judge (the Audit
page), never merged: a skeleton is a test of confusability, not a normalisation
(TS #39 says so), and two distinct upstream names may really be two things.

The skeleton is ICU's ``SpoofChecker.getSkeleton`` (the reference implementation,
kept by the Unicode consortium with ``confusables.txt``; it also drops
default-ignorable code points, as TS #39 has since Unicode 15.1). ICU computes one
string at a time, so the skeleton is a ``map_elements`` over the *unique* names of
each field (a few hundred in the full history), never over every result row.

Unicode NFC vs NFD spellings never reach the skeletons as two names: names are
NFC-normalised where they enter the canonical table (``results.NFC_FIELDS``), the
raw snapshot keeping the declared bytes, and ``names_composed`` says which were
declared otherwise; ``composed_names`` lists them (with the pairs) for Audit.

Plain Polars and ICU; no Dagster, no rendering.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from functools import cache

import icu
import polars as pl

#: The name columns of the results table compared, each within itself: a submitter
#: is never compared with a system name.
NAME_FIELDS = ("submitter", "system_name", "accelerator_upstream")

#: What ``lookalike_groups`` returns: one row per spelling of a group.
LOOKALIKE_SCHEMA = {
    "field": pl.String,
    "skeleton": pl.String,
    "name": pl.String,
    "releases": pl.List(pl.String),
    "results": pl.UInt32,
    "code_points": pl.String,
    "distinct_characters": pl.String,
}

#: The ICU whose confusable data the skeletons come from (a page's code version).
ICU_VERSION = icu.ICU_VERSION

#: Code points listed per spelling before "…": a 10 KB name is not listed whole.
CODE_POINTS_SHOWN = 48


@cache
def _checker() -> icu.SpoofChecker:
    return icu.SpoofChecker()


def skeleton(name: str) -> str:
    """The TS #39 skeleton of ``name`` (for comparison only, never for display)."""
    return _checker().getSkeleton(0, name)


def code_points(name: str, limit: int = CODE_POINTS_SHOWN) -> str:
    """``name`` as code points, "U+004E U+0056 …", the first ``limit`` of them."""
    shown = " ".join(f"U+{ord(c):04X}" for c in name[:limit])
    if len(name) > limit:
        shown += f" … ({len(name):,} code points)"
    return shown


def _character(char: str) -> str:
    return f"U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}"


def distinct_characters(name: str, others: list[str]) -> str:
    """Characters ``name`` has more of than some other spelling, with their names.

    Counted, not a set: "NVIDIA" has one "I" more than "NVlDIA", which has an "l"
    more. Empty where nothing is extra (a spelling that only lacks a character).
    """
    own = Counter(name)
    extra: set[str] = set()
    for other in others:
        extra |= set(own - Counter(other))
    return "; ".join(_character(c) for c in sorted(extra, key=ord))


def lookalike_groups(
    results: pl.DataFrame | pl.LazyFrame, fields: tuple[str, ...] = NAME_FIELDS
) -> pl.DataFrame:
    """Spellings of a name field that share a skeleton but differ as text.

    One row per spelling: its field, the shared skeleton, the rounds it appears in
    and how many results carry it, its code points and the characters it has that
    another spelling of its group does not. Groups are sorted by field and skeleton,
    spellings by results (most first), then text. Empty (with the schema) when no
    two names look alike.
    """
    frame = results.lazy()
    present = [f for f in fields if f in frame.collect_schema()]
    if not present:
        return pl.DataFrame(schema=LOOKALIKE_SCHEMA)
    names = (
        pl.concat(
            [
                frame.select(
                    field=pl.lit(f, pl.String),
                    name=pl.col(f).cast(pl.String),
                    release=pl.col("release").cast(pl.String),
                )
                for f in present
            ]
        )
        .drop_nulls("name")
        .group_by("field", "name")
        .agg(
            releases=pl.col("release").unique().sort(),
            results=pl.len().cast(pl.UInt32),
        )
        .collect()
    )
    # One row per (field, name) already: ICU sees each unique name once.
    grouped = names.with_columns(
        skeleton=pl.col("name").map_elements(skeleton, return_dtype=pl.String)
    ).filter(pl.col("name").n_unique().over("field", "skeleton") > 1)
    if grouped.is_empty():
        return pl.DataFrame(schema=LOOKALIKE_SCHEMA)
    spellings = grouped.group_by("field", "skeleton").agg("name")
    others = {
        (row["field"], name): [n for n in row["name"] if n != name]
        for row in spellings.iter_rows(named=True)
        for name in row["name"]
    }
    return (
        grouped.with_columns(
            code_points=pl.col("name").map_elements(
                code_points, return_dtype=pl.String
            ),
            distinct_characters=pl.struct("field", "name").map_elements(
                lambda row: distinct_characters(
                    row["name"], others[(row["field"], row["name"])]
                ),
                return_dtype=pl.String,
            ),
        )
        .sort(
            ["field", "skeleton", "results", "name"],
            descending=[False, False, True, False],
        )
        .select(list(LOOKALIKE_SCHEMA))
        .cast(LOOKALIKE_SCHEMA)
    )


#: What ``composed_names`` returns: one row per name declared not composed.
COMPOSED_SCHEMA = {
    "field": pl.String,
    "name": pl.String,
    "releases": pl.List(pl.String),
    "declared_decomposed": pl.UInt32,
    "declared_composed": pl.UInt32,
}


def composed_names(results: pl.DataFrame) -> pl.DataFrame:
    """Names upstream declared not composed (NFD), composed where they entered.

    ``names_composed`` (``results.canonicalise``) says which name fields of a result
    were declared in a form other than NFC. Per field and name: the rounds, how many
    results declared it decomposed and how many composed. Both counts above zero is
    an NFC/NFD pair: two spellings upstream, one name on this site.
    """
    if "names_composed" not in results.columns:
        return pl.DataFrame(schema=COMPOSED_SCHEMA)
    frames = []
    for field in NAME_FIELDS + ("platform", "software"):
        if field not in results.columns:
            continue
        decomposed = pl.col("names_composed").list.contains(field).fill_null(False)
        frames.append(
            results.lazy()
            .filter(pl.col(field).is_not_null())
            .group_by(pl.col(field).alias("name"))
            .agg(
                pl.col("release").filter(decomposed).unique().sort().alias("releases"),
                decomposed.sum().cast(pl.UInt32).alias("declared_decomposed"),
                (~decomposed).sum().cast(pl.UInt32).alias("declared_composed"),
            )
            .filter(pl.col("declared_decomposed") > 0)
            .select(pl.lit(field).alias("field"), pl.all())
        )
    if not frames:
        return pl.DataFrame(schema=COMPOSED_SCHEMA)
    return (
        pl.concat(frames)
        .sort("field", "name")
        .collect()
        .select(list(COMPOSED_SCHEMA))
        .cast(COMPOSED_SCHEMA)
    )
