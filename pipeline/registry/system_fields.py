"""``system_fields.toml``: the canonical fields of a system description, reviewed.

Per field its label, kind and group; per round the upstream keys that mean it; per
summary layout the columns that declare it. ``pipeline.transform.systems`` reads the
declared descriptions through it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pipeline.registry.loader import RegistryError, Table, load_registry

REGISTRY = "system_fields.toml"
KINDS = ("text", "capacity", "count")
GROUPS = ("system", "accelerator", "host", "software", "network", "power", "notes")


class SystemFieldsError(RegistryError):
    """``system_fields.toml`` is malformed; the message names the entry."""


@dataclass(frozen=True)
class FieldSpec:
    """One canonical field of the description."""

    name: str
    label: str
    kind: str
    group: str
    explorer: bool
    evidence: str


@dataclass(frozen=True)
class SystemFields:
    """The reviewed mapping: canonical fields, per-round aliases, summary columns."""

    fields: dict[str, FieldSpec]
    #: Normalised upstream key -> (canonical field, rounds it was seen in).
    aliases: dict[str, tuple[str, tuple[str, ...]]]
    #: Summary layout -> upstream column -> canonical field.
    summary: dict[str, dict[str, str]]


def parse_system_fields(document: Mapping[str, Any], file: str) -> SystemFields:
    """The mapping from a parsed document (for tests with their own registry)."""
    top = Table.document(document, file, SystemFieldsError)
    top.only(("field", "alias", "summary"))
    fields: dict[str, FieldSpec] = {}
    for entry in top.tables("field", non_empty=True):
        entry.only(("name", "label", "kind", "group", "explorer", "evidence"))
        name = entry.string("name")
        entry = entry.named(name)
        if name in fields:
            raise entry.fail("name", "is listed twice")
        fields[name] = FieldSpec(
            name=name,
            label=entry.string("label"),
            kind=entry.choice("kind", KINDS),
            group=entry.choice("group", GROUPS),
            explorer=entry.boolean("explorer", default=False),
            evidence=entry.string("evidence"),
        )
    aliases: dict[str, tuple[str, tuple[str, ...]]] = {}
    for entry in top.tables("alias"):
        entry.only(("upstream", "field", "releases", "evidence"))
        upstream = normalised_key(entry.string("upstream"))
        entry = entry.named(upstream)
        target = entry.choice("field", tuple(fields))
        if upstream in aliases or upstream in fields:
            raise entry.fail("upstream", "is already a field or an alias")
        entry.string("evidence")
        aliases[upstream] = (target, tuple(entry.strings("releases", non_empty=True)))
    summary: dict[str, dict[str, str]] = {}
    for entry in top.tables("summary"):
        entry.only(("layout", "upstream", "field", "evidence"))
        layout = entry.string("layout")
        upstream = entry.string("upstream")
        entry = entry.named(f"{layout} {upstream}")
        columns = summary.setdefault(layout, {})
        if upstream in columns:
            raise entry.fail("upstream", "is listed twice for its layout")
        columns[upstream] = entry.choice("field", tuple(fields))
        entry.string("evidence")
    return SystemFields(fields, aliases, summary)


def load_system_fields(path: str | Path = REGISTRY) -> SystemFields:
    """Read and check a system-fields registry (the committed one by default)."""
    return load_registry(path, parse_system_fields, SystemFieldsError)


@cache
def system_fields() -> SystemFields:
    """The committed mapping, read once per process."""
    return load_system_fields()


def normalised_key(key: str) -> str:
    """A key as the registry compares it ("Number of nodes" is number_of_nodes)."""
    return str(key).strip().lower().replace(" ", "_")
