"""``descriptions.toml``: reviewed spellings of declared descriptions, normalised.

Parsed here into ``DescriptionVocabulary``; ``pipeline.transform.descriptions`` turns
it into Polars expressions (``interconnect_family``, ``cooling_kind``,
``accelerator_memory_gb``) beside the declared text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pipeline.registry.loader import RegistryError, Table, load_registry

REGISTRY_FILE = "descriptions.toml"
#: The declared fields this vocabulary normalises (``system_fields.toml`` names).
INTERCONNECT = "accelerator_interconnect"
COOLING = "cooling"
MEMORY = "accelerator_memory_capacity"
FIELDS = (INTERCONNECT, COOLING, MEMORY)
#: A vocabulary a filter can show whole.
MAX_VALUES = 12
#: Unicode's White_Space characters, literally: one class for Python's ``re`` and
#: Polars' (Rust) regex alike (their ``\s`` differ at the edges: Python's takes
#: U+001C-001F too).
WHITE_SPACE = (
    "[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"
)
_WHITE_SPACE = re.compile(WHITE_SPACE)


class DescriptionsError(RegistryError):
    """The descriptions file is malformed; the message names the entry and field."""


def spelling_key(text: str) -> str:
    """A declared spelling as the registry compares it.

    Every run of white space (``WHITE_SPACE``) one space, trimmed, lower-cased
    (``str.lower`` here, Polars' ``to_lowercase`` in
    ``transform.descriptions.spelling_key``: both Unicode's lower-case mapping).
    """
    return _WHITE_SPACE.sub(" ", text).strip(" ").lower()


@dataclass(frozen=True)
class DescriptionVocabulary:
    """Each reviewed spelling (``spelling_key``) and what it normalises to."""

    interconnect_families: tuple[str, ...]
    cooling_kinds: tuple[str, ...]
    #: Spellings that declare nothing, in any of the three fields.
    no_value: frozenset[str]
    interconnect: Mapping[str, str]
    cooling: Mapping[str, str]
    memory_gb: Mapping[str, float]
    #: (field, spelling) reviewed and given no value, with the reason.
    unmapped: Mapping[tuple[str, str], str]

    def mapping(self, field: str) -> Mapping[str, object]:
        """The spelling -> value mapping of one declared field."""
        return {
            INTERCONNECT: self.interconnect,
            COOLING: self.cooling,
            MEMORY: self.memory_gb,
        }[field]


def _vocabulary(root: Table, field: str) -> tuple[str, ...]:
    values = root.strings(field, non_empty=True, unique=True)
    if len(values) > MAX_VALUES:
        raise root.fail(field, f"{len(values)} values; a filter shows at most 12")
    return values


def _key(entry: Table, taken: set[str]) -> str:
    upstream = entry.string("upstream", empty=True)
    key = spelling_key(upstream)
    if key != upstream:
        raise entry.fail("upstream", f"write the key as compared: {key!r}")
    if key in taken:
        raise entry.fail("upstream", "is listed twice")
    taken.add(key)
    entry.string("evidence")
    return key


def parse_descriptions(document: Mapping[str, Any], file: str) -> DescriptionVocabulary:
    """The vocabulary of a parsed ``descriptions.toml``; every entry has evidence."""
    root = Table.document(document, file, DescriptionsError)
    root.only(
        ("interconnect_families", "cooling_kinds", "no_value", "interconnect",
         "cooling", "memory", "unmapped")
    )  # fmt: skip
    families = _vocabulary(root, "interconnect_families")
    kinds = _vocabulary(root, "cooling_kinds")
    no_value: set[str] = set()
    for entry in root.tables("no_value", non_empty=True):
        entry.only(("upstream", "evidence"))
        _key(entry.named(repr(entry.get("upstream"))), no_value)
    taken = {field: set(no_value) for field in FIELDS}
    interconnect: dict[str, str] = {}
    for entry in root.tables("interconnect", non_empty=True):
        entry.only(("upstream", "family", "evidence"))
        entry = entry.named(repr(entry.get("upstream")))
        interconnect[_key(entry, taken[INTERCONNECT])] = entry.choice(
            "family", families
        )
    cooling: dict[str, str] = {}
    for entry in root.tables("cooling", non_empty=True):
        entry.only(("upstream", "kind", "evidence"))
        entry = entry.named(repr(entry.get("upstream")))
        cooling[_key(entry, taken[COOLING])] = entry.choice("kind", kinds)
    memory: dict[str, float] = {}
    for entry in root.tables("memory", non_empty=True):
        entry.only(("upstream", "gb", "evidence"))
        entry = entry.named(repr(entry.get("upstream")))
        memory[_key(entry, taken[MEMORY])] = entry.number("gb", positive=True)
    unmapped: dict[tuple[str, str], str] = {}
    for entry in root.tables("unmapped"):
        entry.only(("field", "upstream", "evidence"))
        entry = entry.named(repr(entry.get("upstream")))
        field = entry.choice("field", FIELDS)
        key = _key(entry, taken[field])
        unmapped[(field, key)] = entry.string("evidence")
    unused = {
        "interconnect_families": set(families) - set(interconnect.values()),
        "cooling_kinds": set(kinds) - set(cooling.values()),
    }
    for name, values in unused.items():
        if values:
            raise root.fail(name, f"{sorted(values)[0]!r} is no entry's value")
    return DescriptionVocabulary(
        interconnect_families=families,
        cooling_kinds=kinds,
        no_value=frozenset(no_value),
        interconnect=interconnect,
        cooling=cooling,
        memory_gb=memory,
        unmapped=unmapped,
    )


@cache
def _committed() -> DescriptionVocabulary:
    return load_registry(REGISTRY_FILE, parse_descriptions, DescriptionsError)


def load_descriptions(path: Path | None = None) -> DescriptionVocabulary:
    """The committed vocabulary (cached), or another file (tests)."""
    if path is None:
        return _committed()
    return load_registry(path, parse_descriptions, DescriptionsError)
