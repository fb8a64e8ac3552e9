"""``vocabulary.toml``: reviewed upstream spellings of the canonical words of a field.

Parsed here; ``pipeline.transform.results`` maps each spelling onto its word.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pipeline.registry.loader import RegistryError, Table, load_registry

REGISTRY_FILE = "vocabulary.toml"
#: Canonical words of each field the vocabulary registry may map onto.
VOCABULARY_FIELDS: dict[str, tuple[str, ...]] = {
    "availability": ("available", "preview", "rdi"),
}


def parse_vocabulary(
    document: Mapping[str, Any], file: str
) -> dict[str, dict[str, str]]:
    """Per field, each reviewed upstream spelling (lower-cased) -> canonical word."""
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
def _committed() -> dict[str, dict[str, str]]:
    return load_registry(REGISTRY_FILE, parse_vocabulary, RegistryError)


def vocabulary_aliases(field: str) -> dict[str, str]:
    """Reviewed upstream spellings (lower-cased) of one field's canonical words."""
    return dict(_committed()[field])
