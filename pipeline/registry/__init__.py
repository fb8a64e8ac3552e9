"""Committed, human-reviewed data files (TOML) and their loaders."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

REGISTRY_DIR = Path(__file__).parent


@cache
def load_toml(name: str) -> dict:
    """Parse one registry file once per process."""
    return tomllib.loads((REGISTRY_DIR / name).read_text())


def benchmark_aliases() -> dict[str, str]:
    """Upstream benchmark spellings mapped to canonical names."""
    return dict(load_toml("benchmarks.toml").get("aliases", {}))


def unit_corrections() -> list[dict]:
    """Reviewed corrections of units that upstream summaries state wrongly."""
    return list(load_toml("benchmarks.toml").get("unit_correction", []))
