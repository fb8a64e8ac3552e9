"""The one home of the reviewed registries (``*.toml``) and of their loaders.

Each ``<name>.toml`` is read by ``pipeline.registry.<name>`` into typed records,
through ``loader`` (one reading path, one error format); the code that uses the
records imports them from there.
"""

from __future__ import annotations

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
    "load_registry",
    "one_of",
    "read_document",
    "registry_file",
]
