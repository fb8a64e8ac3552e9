"""Committed, human-reviewed data files (TOML) and their loaders."""

from __future__ import annotations

from functools import cache
from typing import Any

from pipeline.registry.loader import (
    MISSING,
    REGISTRY_DIR,
    RegistryError,
    Table,
    load_registry,
    one_of,
    read_document,
    registry_file,
)

__all__ = [
    "MISSING",
    "REGISTRY_DIR",
    "RegistryError",
    "Table",
    "benchmark_aliases",
    "load_registry",
    "load_toml",
    "one_of",
    "read_document",
    "registry_file",
    "unit_corrections",
]

_UNIT_CORRECTION_FIELDS = (
    "benchmark", "scenario", "releases", "upstream_unit", "unit", "reason", "evidence",
)  # fmt: skip


@cache
def load_toml(name: str) -> dict[str, Any]:
    """Parse one committed registry file once per process (no field validation)."""
    return read_document(name)


def _aliases(document: dict[str, Any], file: str) -> dict[str, str]:
    return Table.document(document, file).string_map(
        "aliases", default={}, expected="a table of benchmark names"
    )


def _unit_corrections(document: dict[str, Any], file: str) -> list[dict[str, Any]]:
    out = []
    for entry in Table.document(document, file).tables("unit_correction"):
        entry.only(_UNIT_CORRECTION_FIELDS)
        out.append(
            {
                "benchmark": entry.string("benchmark"),
                "scenario": entry.string("scenario"),
                "releases": list(entry.strings("releases", non_empty=True)),
                "upstream_unit": entry.string("upstream_unit"),
                "unit": entry.string("unit"),
                "reason": entry.string("reason"),
                "evidence": entry.string("evidence", default=""),
            }
        )
    return out


@cache
def _benchmarks_registry() -> tuple[dict[str, str], list[dict[str, Any]]]:
    document = load_toml("benchmarks.toml")
    return (
        _aliases(document, "benchmarks.toml"),
        _unit_corrections(document, "benchmarks.toml"),
    )


def benchmark_aliases() -> dict[str, str]:
    """Upstream benchmark spellings mapped to canonical names."""
    return dict(_benchmarks_registry()[0])


def unit_corrections() -> list[dict[str, Any]]:
    """Reviewed corrections of units that upstream summaries state wrongly."""
    return [dict(c) for c in _benchmarks_registry()[1]]
