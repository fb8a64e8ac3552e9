"""``accelerators.toml``: the canonical accelerators and the raw names of each.

Upstream names one chip in many ways; this reviewed mapping is parsed and checked here
(ids, names listed once, predecessors, mixed entries), so a typo stops the pipeline
with the entry named. ``pipeline.analysis.accelerators`` joins it onto the results.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import polars as pl

from pipeline.registry.loader import RegistryError, Table, load_registry

REGISTRY_FILE = "accelerators.toml"
_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
_REQUIRED = ("id", "vendor", "family", "model", "names")
_OPTIONAL = ("memory_gb", "predecessor", "is_mixed", "components")
_UNCLASSIFIED_FIELDS = ("names", "reason")

#: One row per canonical accelerator (``AcceleratorRegistry.table``).
ACCELERATOR_SCHEMA: dict[str, pl.DataType] = {
    "accelerator_id": pl.String,
    "accelerator_vendor": pl.String,
    "accelerator_family": pl.String,
    "accelerator_model": pl.String,
    "accelerator_memory_gb": pl.Float64,
    "predecessor_id": pl.String,
    "is_mixed_accelerators": pl.Boolean,
}
#: Raw upstream name -> canonical id (``AcceleratorRegistry.names``).
NAME_SCHEMA: dict[str, pl.DataType] = {
    "accelerator_name": pl.String,
    "accelerator_id": pl.String,
}


class AcceleratorRegistryError(RegistryError):
    """The registry file is malformed; the message names the entry and the field."""


@dataclass(frozen=True)
class Accelerator:
    """One canonical accelerator (or mixed combination) as listed in the registry."""

    id: str
    vendor: str
    family: str
    model: str
    names: tuple[str, ...]
    memory_gb: float | None = None
    predecessor: str | None = None
    is_mixed: bool = False
    components: tuple[str, ...] = ()


@dataclass(frozen=True)
class UnclassifiedNames:
    """Raw names reviewed and deliberately left without an id (``[[unclassified]]``)."""

    names: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class AcceleratorRegistry:
    """The validated registry; frames are built on demand so callers stay lazy."""

    accelerators: tuple[Accelerator, ...]
    source: str = REGISTRY_FILE
    unclassified: tuple[UnclassifiedNames, ...] = ()
    _by_id: dict[str, Accelerator] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self._by_id.update({a.id: a for a in self.accelerators})

    def get(self, accelerator_id: str) -> Accelerator | None:
        """The entry with this id, or None."""
        return self._by_id.get(accelerator_id)

    def table(self) -> pl.DataFrame:
        """One row per canonical accelerator, ``ACCELERATOR_SCHEMA``."""
        return pl.DataFrame(
            {
                "accelerator_id": [a.id for a in self.accelerators],
                "accelerator_vendor": [a.vendor for a in self.accelerators],
                "accelerator_family": [a.family for a in self.accelerators],
                "accelerator_model": [a.model for a in self.accelerators],
                "accelerator_memory_gb": [a.memory_gb for a in self.accelerators],
                "predecessor_id": [a.predecessor for a in self.accelerators],
                "is_mixed_accelerators": [a.is_mixed for a in self.accelerators],
            },
            schema=ACCELERATOR_SCHEMA,
        )

    def unclassified_names(self) -> dict[str, str]:
        """Every ``[[unclassified]]`` raw name with its reason."""
        return {n: u.reason for u in self.unclassified for n in u.names}

    def names(self) -> pl.DataFrame:
        """Every raw upstream name with its canonical id, ``NAME_SCHEMA``."""
        pairs = [(n, a.id) for a in self.accelerators for n in a.names]
        return pl.DataFrame(
            {
                "accelerator_name": [n for n, _ in pairs],
                "accelerator_id": [i for _, i in pairs],
            },
            schema=NAME_SCHEMA,
        )


def _names(entry: Table) -> tuple[str, ...]:
    return entry.strings("names", non_empty=True)


def _entry(entry: Table) -> Accelerator:
    if isinstance(entry.get("id"), str):
        entry = entry.named(entry.get("id"))
    entry.only((*_REQUIRED, *_OPTIONAL))
    ident = entry.string("id", pattern=_ID, expected="a slug of a-z, 0-9 and '-'")
    vendor, family, model = (entry.string(f) for f in ("vendor", "family", "model"))
    names = _names(entry)
    memory = entry.optional_number("memory_gb", positive=True)
    predecessor = entry.optional_string("predecessor", expected="an accelerator id")
    is_mixed = entry.boolean("is_mixed", default=False)
    components = entry.strings("components", default=[])
    if is_mixed:
        if len(components) < 2:
            raise entry.expected(
                "components", "two or more ids on a mixed entry", list(components)
            )
        if predecessor is not None:
            raise entry.fail("predecessor", "a mixed entry has no predecessor")
    elif components:
        raise entry.fail("components", "only allowed with is_mixed = true")
    return Accelerator(
        id=ident,
        vendor=vendor,
        family=family,
        model=model,
        names=names,
        memory_gb=memory,
        predecessor=predecessor,
        is_mixed=is_mixed,
        components=components,
    )


def _unclassified(entry: Table) -> UnclassifiedNames:
    entry.only(_UNCLASSIFIED_FIELDS)
    names = _names(entry)
    reason = entry.string("reason", expected="a reason why the names have no id")
    return UnclassifiedNames(names=names, reason=reason)


def parse_accelerators(
    document: Mapping, source: str = REGISTRY_FILE
) -> AcceleratorRegistry:
    """Validate a parsed registry document.

    Validation happens here rather than in each analysis so that a typo in a predecessor
    or a name listed twice stops the pipeline with the entry named, instead of silently
    producing no generation ratio.

    Raises:
        AcceleratorRegistryError: a field is missing or wrong, an id or name is listed
            twice (also across ``[[accelerator]]`` and ``[[unclassified]]``), a
            predecessor or component is unknown, or the lineage has a cycle.
    """
    root = Table.document(document, source, AcceleratorRegistryError)
    root.only(("accelerator", "unclassified"))
    tables = root.tables("accelerator")
    accelerators = [_entry(t) for t in tables]
    unclassified_tables = root.tables("unclassified")
    unclassified = [_unclassified(t) for t in unclassified_tables]
    by_id: dict[str, Accelerator] = {}
    owner: dict[str, str] = {}
    for table, acc in zip(tables, accelerators, strict=True):
        table = table.named(acc.id)
        if acc.id in by_id:
            raise table.fail("id", f"{acc.id!r} is listed twice")
        by_id[acc.id] = acc
        for name in acc.names:
            if name in owner:
                raise table.fail(
                    "names", f"{name!r} is also listed under {owner[name]}"
                )
            owner[name] = repr(acc.id)
    for table, entry in zip(unclassified_tables, unclassified, strict=True):
        for name in entry.names:
            if name in owner:
                raise table.fail(
                    "names", f"{name!r} is also listed under {owner[name]}"
                )
            owner[name] = table.path
    for table, acc in zip(tables, accelerators, strict=True):
        table = table.named(acc.id)
        if acc.predecessor is not None:
            pred = by_id.get(acc.predecessor)
            if pred is None:
                raise table.expected(
                    "predecessor", "the id of an [[accelerator]]", acc.predecessor
                )
            if pred.is_mixed:
                raise table.expected(
                    "predecessor", "the id of a single chip", acc.predecessor
                )
        for component in acc.components:
            comp = by_id.get(component)
            if comp is None or comp.is_mixed:
                raise table.expected(
                    "components", "ids of single chips", list(acc.components)
                )
    for table, acc in zip(tables, accelerators, strict=True):
        seen = [acc.id]
        step = acc.predecessor
        while step is not None:
            if step in seen:
                chain = " -> ".join([*seen, step])
                raise table.named(acc.id).fail("predecessor", f"lineage cycle {chain}")
            seen.append(step)
            step = by_id[step].predecessor
    return AcceleratorRegistry(
        tuple(accelerators), source=source, unclassified=tuple(unclassified)
    )


@cache
def _default_registry() -> AcceleratorRegistry:
    return load_registry(REGISTRY_FILE, parse_accelerators, AcceleratorRegistryError)


def load_accelerators(path: Path | None = None) -> AcceleratorRegistry:
    """The committed registry (cached), or another file for tests and reviews."""
    if path is None:
        return _default_registry()
    return load_registry(path, parse_accelerators, AcceleratorRegistryError)
