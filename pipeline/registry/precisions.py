"""``precisions.toml``: reviewed spellings of ``weight_data_types``, as precisions.

Parsed here; ``pipeline.analysis.pairing`` maps each end of a pair onto its precision,
so "INT8" and "int8", or "nvfp4" and "fp4", are one precision and "fp16" -> "fp8" is a
change a reader is shown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pipeline.registry.loader import RegistryError, Table, load_registry

REGISTRY_FILE = "precisions.toml"
#: One format ("fp8", "mxfp4", "uint8") or several joined by "+" in sorted order.
_WEIGHTS = re.compile(r"^[a-z0-9]+(\+[a-z0-9]+)*$")


class PrecisionsError(RegistryError):
    """The precisions file is malformed; the message names the spelling and field."""


def parse_precisions(document: Mapping[str, Any], file: str) -> dict[str, str]:
    """Each reviewed spelling (trimmed, lower-cased) -> its weight precision."""
    root = Table.document(document, file, PrecisionsError)
    root.only(("precision",))
    out: dict[str, str] = {}
    for entry in root.tables("precision", non_empty=True):
        entry.only(("upstream", "weights", "evidence"))
        entry = entry.named(repr(entry.get("upstream")))
        upstream = entry.string("upstream").strip().lower()
        weights = entry.string("weights")
        if not _WEIGHTS.match(weights):
            raise entry.fail(
                "weights", f"{weights!r}: lower-case formats joined by '+'"
            )
        parts = weights.split("+")
        if parts != sorted(set(parts)):
            raise entry.fail("weights", f"{weights!r}: list each format once, sorted")
        entry.string("evidence")
        if upstream in out:
            raise entry.fail("upstream", "is listed twice")
        out[upstream] = weights
    return out


@cache
def _committed() -> dict[str, str]:
    return load_registry(REGISTRY_FILE, parse_precisions, PrecisionsError)


def load_precisions(path: Path | None = None) -> dict[str, str]:
    """The committed spellings (cached), or another file (tests)."""
    if path is None:
        return dict(_committed())
    return load_registry(path, parse_precisions, PrecisionsError)
