"""Declared descriptions, normalised: interconnect family, cooling kind, memory in GB.

Upstream's system descriptions spell one thing many ways ("NVLink", "NVLINK",
"5th-gen NVLink andNVLink Switches"; "Air-cooled", "air", "Fan mode: cool"; "16 GiB
(shared with host)", "23.5135498046875 GB"). A reader filtering by interconnect wants
a handful of values, and the declaration itself beside it.

What belongs here (Dagster-free, lazy Polars, no row loops):

- ``spelling_key``: a declared text as the registry compares it.
- ``interconnect_family``, ``cooling_kind``, ``memory_gb``: the normalised value of
  one declared column, from ``registry/descriptions.toml`` (reviewed, with evidence;
  read by ``pipeline.registry.descriptions``); memory also by a pure parse of a whole
  number of GB or GiB.
- ``with_normalised``: a frame with the declared columns gets the normalised ones
  (``NORMALISED``) beside them; the declared text is never changed.
- ``spellings``: every declared spelling of the three fields in a long table of
  declared fields, with its rounds, count and whether the vocabulary maps it;
  ``not_in_vocabulary`` the ones it does not (the Audit page lists them).

A spelling the vocabulary does not know gets a null normalised value, never a guess:
the declared text stays beside it and Audit names it.
"""

from __future__ import annotations

import polars as pl

from pipeline.registry.descriptions import (
    COOLING,
    FIELDS,
    INTERCONNECT,
    MEMORY,
    WHITE_SPACE,
    DescriptionVocabulary,
    load_descriptions,
)

#: Normalised column -> (the declared column it reads, its type).
NORMALISED: dict[str, tuple[str, pl.DataType]] = {
    "interconnect_family": (INTERCONNECT, pl.String()),
    "cooling_kind": (COOLING, pl.String()),
    "accelerator_memory_gb": (MEMORY, pl.Float64()),
}
#: A declared capacity read without a registry entry: a whole number of GB or GiB.
_WHOLE_GB = r"^(\d{1,6}) ?gi?b$"

#: What the vocabulary says of one spelling (``spelling_status``).
MAPPED = "mapped"
NO_VALUE = "no value declared"
REVIEWED = "reviewed: no single value"
NOT_REVIEWED = "not reviewed"

SPELLINGS_SCHEMA: dict[str, pl.DataType] = {
    "field": pl.String(),
    "spelling": pl.String(),
    "spelling_key": pl.String(),
    "releases": pl.List(pl.String()),
    "count": pl.UInt32(),
    "status": pl.String(),
    "normalised": pl.String(),
    "reason": pl.String(),
}


def spelling_key(text: pl.Expr) -> pl.Expr:
    """A declared text as the registry compares it (``registry.spelling_key``)."""
    return (
        text.str.replace_all(WHITE_SPACE, " ").str.strip_chars(" ").str.to_lowercase()
    )


def _lookup(
    declared: pl.Expr, mapping: dict[str, object], dtype: pl.DataType
) -> pl.Expr:
    return spelling_key(declared).replace_strict(
        mapping, default=None, return_dtype=dtype
    )


def interconnect_family(
    declared: pl.Expr, vocabulary: DescriptionVocabulary | None = None
) -> pl.Expr:
    """The interconnect family of a declared ``accelerator_interconnect`` (or null)."""
    vocabulary = vocabulary or load_descriptions()
    return _lookup(declared, dict(vocabulary.interconnect), pl.String())


def cooling_kind(
    declared: pl.Expr, vocabulary: DescriptionVocabulary | None = None
) -> pl.Expr:
    """The cooling kind of a declared ``cooling`` (or null)."""
    vocabulary = vocabulary or load_descriptions()
    return _lookup(declared, dict(vocabulary.cooling), pl.String())


def memory_gb(
    declared: pl.Expr, vocabulary: DescriptionVocabulary | None = None
) -> pl.Expr:
    """The accelerator memory in GB as sold (GB and GiB one number), or null.

    A reviewed entry first; else a whole number of GB or GiB ("80 GB", "80GB",
    "8 GiB") is that number. A fraction ("17.18 GB") or anything else is null
    until reviewed.
    """
    vocabulary = vocabulary or load_descriptions()
    key = spelling_key(declared)
    parsed = key.str.extract(_WHOLE_GB, 1).cast(pl.Float64, strict=False)
    reviewed = _lookup(declared, dict(vocabulary.memory_gb), pl.Float64())
    excluded = list(vocabulary.no_value) + [
        k for (field, k) in vocabulary.unmapped if field == MEMORY
    ]
    return pl.coalesce(reviewed, pl.when(~key.is_in(excluded)).then(parsed)).cast(
        pl.Float64
    )


_NORMALISERS = {
    "interconnect_family": interconnect_family,
    "cooling_kind": cooling_kind,
    "accelerator_memory_gb": memory_gb,
}


def with_normalised(
    frame: pl.LazyFrame, vocabulary: DescriptionVocabulary | None = None
) -> pl.LazyFrame:
    """``frame`` with ``NORMALISED``'s columns beside its declared ones.

    A declared column the frame lacks gives a null normalised column.
    """
    vocabulary = vocabulary or load_descriptions()
    present = set(frame.collect_schema().names())
    return frame.with_columns(
        (
            _NORMALISERS[name](pl.col(source), vocabulary)
            if source in present
            else pl.lit(None)
        )
        .cast(dtype)
        .alias(name)
        for name, (source, dtype) in NORMALISED.items()
    )


def spelling_status(
    field: pl.Expr, declared: pl.Expr, vocabulary: DescriptionVocabulary | None = None
) -> pl.Expr:
    """What the vocabulary says of a (field, declared text): ``MAPPED`` etc."""
    vocabulary = vocabulary or load_descriptions()
    key = spelling_key(declared)
    value = (
        pl.when(field == INTERCONNECT)
        .then(interconnect_family(declared, vocabulary))
        .when(field == COOLING)
        .then(cooling_kind(declared, vocabulary))
        .when(field == MEMORY)
        .then(memory_gb(declared, vocabulary).cast(pl.String))
    )
    reviewed = pl.concat_str(field, pl.lit("\x1f"), key).is_in(
        [f"{f}\x1f{k}" for f, k in vocabulary.unmapped]
    )
    return (
        pl.when(value.is_not_null())
        .then(pl.lit(MAPPED))
        .when(key.is_in(list(vocabulary.no_value)))
        .then(pl.lit(NO_VALUE))
        .when(reviewed)
        .then(pl.lit(REVIEWED))
        .otherwise(pl.lit(NOT_REVIEWED))
    )


def _version(part: int) -> pl.Expr:
    return pl.col("release").str.extract(r"^v(\d+)\.(\d+)", part).cast(pl.Int32)


def spellings(
    declared: pl.LazyFrame, vocabulary: DescriptionVocabulary | None = None
) -> pl.LazyFrame:
    """Every spelling of the three fields in a long table of declared fields.

    ``declared`` is ``transform.systems.DECLARED_SCHEMA`` (system JSONs and summary
    columns). One row per field and spelling (``SPELLINGS_SCHEMA``): the text as
    first declared, the rounds (in version order), how many declarations, the
    status, the normalised value and, for a reviewed unmapped one, the reason.
    """
    vocabulary = vocabulary or load_descriptions()
    reasons = {f"{f}\x1f{k}": why for (f, k), why in vocabulary.unmapped.items()}
    key = spelling_key(pl.col("value"))
    value = (
        pl.when(pl.col("field") == INTERCONNECT)
        .then(interconnect_family(pl.col("value"), vocabulary))
        .when(pl.col("field") == COOLING)
        .then(cooling_kind(pl.col("value"), vocabulary))
        .otherwise(
            memory_gb(pl.col("value"), vocabulary)
            .round(3)
            .cast(pl.String)
            .str.replace(r"\.0$", "")
            + " GB"
        )
    )
    return (
        declared.filter(pl.col("field").is_in(FIELDS) & pl.col("value").is_not_null())
        .with_columns(spelling_key=key, _major=_version(1), _minor=_version(2))
        .sort("_major", "_minor", "release", "field_order", nulls_last=True)
        .group_by("field", "spelling_key", maintain_order=True)
        .agg(
            pl.col("value").first().alias("spelling"),
            pl.col("release").unique(maintain_order=True).alias("releases"),
            pl.len().cast(pl.UInt32).alias("count"),
            spelling_status(pl.col("field"), pl.col("value"), vocabulary)
            .first()
            .alias("status"),
            value.first().alias("normalised"),
        )
        .with_columns(
            reason=pl.concat_str(
                "field", pl.lit("\x1f"), "spelling_key"
            ).replace_strict(reasons, default=None, return_dtype=pl.String)
        )
        .select([pl.col(c).cast(t) for c, t in SPELLINGS_SCHEMA.items()])
        .sort("field", "spelling_key")
    )


def not_in_vocabulary(
    declared: pl.LazyFrame, vocabulary: DescriptionVocabulary | None = None
) -> pl.LazyFrame:
    """The spellings with no normalised value that declare something.

    Placeholders ("", "N/A", "-") declare nothing and are left out; a reviewed
    spelling keeps its reason, an unreviewed one says so.
    """
    return spellings(declared, vocabulary).filter(
        pl.col("status").is_in([REVIEWED, NOT_REVIEWED])
    )
