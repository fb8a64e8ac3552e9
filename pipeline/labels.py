"""How a missing name reads wherever people see names.

Upstream leaves names out: a CPU-only system without a host CPU has no accelerator name,
an older round may lack a scenario or a benchmark. The tables keep such values null
(the data says "not given"); every message, caption and page shows ``NO_NAME``
instead, so a null neither crashes a ``str.join`` or a sort nor silently vanishes from
a list a reader is meant to act on.
"""

from __future__ import annotations

from typing import overload

import polars as pl

#: What a reader sees for a name upstream did not give (null or blank).
NO_NAME = "(no name)"


@overload
def display_name(value: object) -> str: ...
@overload
def display_name(value: pl.Expr) -> pl.Expr: ...
def display_name(value: object) -> str | pl.Expr:
    """A name for display: the value itself, or ``NO_NAME`` when null or blank.

    Accepts a Python value or a Polars expression (same rule for both; an
    expression of another type is shown as text).
    """
    if isinstance(value, pl.Expr):
        text = value.cast(pl.String)
        # Null fails the test too; ``then(text)`` keeps the column's name.
        return (
            pl.when(text.str.strip_chars() != "").then(text).otherwise(pl.lit(NO_NAME))
        )
    if value is None or not str(value).strip():
        return NO_NAME
    return str(value)
