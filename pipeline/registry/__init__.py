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
    "vocabulary_aliases",
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


#: Canonical words of each field the vocabulary registry may map onto.
VOCABULARY_FIELDS: dict[str, tuple[str, ...]] = {
    "availability": ("available", "preview", "rdi"),
}


def _vocabulary(document: dict[str, Any], file: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {f: {} for f in VOCABULARY_FIELDS}
    for entry in Table.document(document, file).tables("alias"):
        entry.only(("field", "upstream", "canonical", "evidence"))
        name = entry.choice("field", tuple(VOCABULARY_FIELDS))
        entry = entry.named(f"{name} {entry.get('upstream')!r}")
        upstream = entry.string("upstream").strip().lower()
        canonical = entry.choice("canonical", VOCABULARY_FIELDS[name])
        entry.string("evidence")
        if upstream in out[name]:
            raise entry.fail("upstream", "is listed twice")
        out[name][upstream] = canonical
    return out


@cache
def _vocabulary_registry() -> dict[str, dict[str, str]]:
    return load_registry("vocabulary.toml", _vocabulary, RegistryError)


def vocabulary_aliases(field: str) -> dict[str, str]:
    """Reviewed upstream spellings (lower-cased) of one field's canonical words."""
    return dict(_vocabulary_registry()[field])
