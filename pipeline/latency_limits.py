"""LLM latency limits (TTFT, TPOT) per round, benchmark and scenario, as reviewed data.

The limits are upstream rules, not something the ledger measures: they come from
``pipeline/registry/latency_limits.toml``, where every entry names the submission
checker (repository, path, commit and symbol) that enforces it. This module validates
that file and hands it to the analyses as a typed frame. A malformed entry fails with
the entry and the field named, so a bad edit never reaches a page half-read.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import polars as pl

from pipeline.registry import REGISTRY_DIR, load_toml

REGISTRY_FILE = "latency_limits.toml"
#: Scenarios an LLM latency limit applies to (Offline has none).
LIMITED_SCENARIOS = ("Server", "Interactive")
_SOURCE_KEYS = {"id", "repository", "path", "commit", "symbol", "covers", "note"}
_LIMIT_KEYS = {"release", "benchmark", "scenario", "ttft_ms", "tpot_ms", "source"}
_RELEASE = re.compile(r"^v\d+\.\d+$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")

#: One row per limit, with its source spelled out (``limits_frame``).
LIMITS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "benchmark": pl.String,
    "scenario": pl.String,
    "ttft_ms": pl.Float64,
    "tpot_ms": pl.Float64,
    "source_id": pl.String,
    "source_repository": pl.String,
    "source_path": pl.String,
    "source_commit": pl.String,
    "source_symbol": pl.String,
    # The file at that commit on GitHub.
    "source_url": pl.String,
}


class LatencyLimitsError(ValueError):
    """The limits file is malformed; the message names the entry and the field."""


@dataclass(frozen=True)
class LimitSource:
    """Where upstream states a set of limits: one file at one commit."""

    id: str
    repository: str
    path: str
    commit: str
    symbol: str
    covers: tuple[str, ...]
    note: str

    @property
    def url(self) -> str:
        """The file at that commit on GitHub."""
        return f"https://github.com/{self.repository}/blob/{self.commit}/{self.path}"


@dataclass(frozen=True)
class LatencyLimit:
    """The 99th-percentile TTFT and TPOT bounds of one scenario in one round."""

    release: str
    benchmark: str
    scenario: str
    ttft_ms: float
    tpot_ms: float
    source: LimitSource


def _text(entry: Mapping, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise LatencyLimitsError(f"{where}: {key} is missing or empty")
    return value.strip()


def _unknown(entry: Mapping, allowed: set[str], where: str) -> None:
    extra = sorted(set(entry) - allowed)
    if extra:
        raise LatencyLimitsError(f"{where}: unknown field(s) {', '.join(extra)}")


def _source(index: int, entry: object, origin: str) -> LimitSource:
    where = f"{origin} source {index + 1}"
    if not isinstance(entry, Mapping):
        raise LatencyLimitsError(f"{where}: is not a table")
    if isinstance(entry.get("id"), str):
        where = f"{where} ({entry['id']})"
    _unknown(entry, _SOURCE_KEYS, where)
    repository = _text(entry, "repository", where)
    if not _REPOSITORY.match(repository):
        raise LatencyLimitsError(
            f"{where}: repository must be owner/name, not {repository!r}"
        )
    commit = _text(entry, "commit", where)
    if not _COMMIT.match(commit):
        raise LatencyLimitsError(
            f"{where}: commit must be 40 lower-case hex digits, not {commit!r}"
        )
    covers = entry.get("covers", [])
    if (
        not isinstance(covers, list)
        or not covers
        or not all(isinstance(c, str) and _RELEASE.match(c) for c in covers)
    ):
        raise LatencyLimitsError(f"{where}: covers must list rounds such as 'v5.1'")
    return LimitSource(
        id=_text(entry, "id", where),
        repository=repository,
        path=_text(entry, "path", where),
        commit=commit,
        symbol=_text(entry, "symbol", where),
        covers=tuple(covers),
        note=_text(entry, "note", where),
    )


def _milliseconds(entry: Mapping, key: str, where: str) -> float:
    value = entry.get(key)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 < value < 1e9
    ):
        raise LatencyLimitsError(
            f"{where}: {key} must be a positive number of milliseconds, not {value!r}"
        )
    return float(value)


def _limit(
    index: int, entry: object, sources: Mapping[str, LimitSource], origin: str
) -> LatencyLimit:
    where = f"{origin} limit {index + 1}"
    if not isinstance(entry, Mapping):
        raise LatencyLimitsError(f"{where}: is not a table")
    named = ("release", "benchmark", "scenario")
    if all(isinstance(entry.get(k), str) and entry[k].strip() for k in named):
        where = f"{where} ({entry['release']} {entry['benchmark']} {entry['scenario']})"
    _unknown(entry, _LIMIT_KEYS, where)
    release = _text(entry, "release", where)
    if not _RELEASE.match(release):
        raise LatencyLimitsError(f"{where}: release must look like 'v5.1'")
    scenario = _text(entry, "scenario", where)
    if scenario not in LIMITED_SCENARIOS:
        raise LatencyLimitsError(
            f"{where}: scenario must be one of {', '.join(LIMITED_SCENARIOS)}, "
            f"not {scenario!r}"
        )
    source_id = _text(entry, "source", where)
    if source_id not in sources:
        raise LatencyLimitsError(f"{where}: source {source_id!r} is not a [[source]]")
    source = sources[source_id]
    if release not in source.covers:
        raise LatencyLimitsError(
            f"{where}: source {source_id!r} covers {', '.join(source.covers)}, "
            f"not {release}"
        )
    return LatencyLimit(
        release=release,
        benchmark=_text(entry, "benchmark", where),
        scenario=scenario,
        ttft_ms=_milliseconds(entry, "ttft_ms", where),
        tpot_ms=_milliseconds(entry, "tpot_ms", where),
        source=source,
    )


def parse_limits(
    document: Mapping, origin: str = REGISTRY_FILE
) -> tuple[LatencyLimit, ...]:
    """Validate a parsed limits document.

    Raises:
        LatencyLimitsError: an unknown field, a missing or malformed value, a source
            that does not exist or does not cover the round, or one round, benchmark
            and scenario listed twice; the message names the entry.
    """
    raw_sources = document.get("source", [])
    raw_limits = document.get("limit", [])
    if not isinstance(raw_sources, list) or not isinstance(raw_limits, list):
        raise LatencyLimitsError(f"{origin}: [[source]] and [[limit]] must be arrays")
    parsed = [_source(i, e, origin) for i, e in enumerate(raw_sources)]
    sources = {s.id: s for s in parsed}
    if len(sources) != len(parsed):
        ids = [s.id for s in parsed]
        twice = sorted({i for i in ids if ids.count(i) > 1})
        raise LatencyLimitsError(
            f"{origin}: source id(s) listed twice: {', '.join(twice)}"
        )
    limits = tuple(_limit(i, e, sources, origin) for i, e in enumerate(raw_limits))
    keys = [(x.release, x.benchmark, x.scenario) for x in limits]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        listed = ", ".join(" ".join(k) for k in twice)
        raise LatencyLimitsError(f"{origin}: listed twice: {listed}")
    return limits


@cache
def _committed() -> tuple[LatencyLimit, ...]:
    return parse_limits(load_toml(REGISTRY_FILE), REGISTRY_FILE)


def load_latency_limits(path: Path | None = None) -> tuple[LatencyLimit, ...]:
    """The committed limits (cached), or another file (tests, an entry under review)."""
    if path is None:
        return _committed()
    return parse_limits(tomllib.loads(path.read_text()), path.name)


def registry_path() -> Path:
    """Where the committed limits live (for code versions and the page's source)."""
    return REGISTRY_DIR / REGISTRY_FILE


def limits_frame(limits: tuple[LatencyLimit, ...] | None = None) -> pl.DataFrame:
    """The limits as one typed row per round, benchmark and scenario.

    Args:
        limits: Parsed limits; the committed ones when None.
    """
    rows = [
        {
            "release": x.release,
            "benchmark": x.benchmark,
            "scenario": x.scenario,
            "ttft_ms": x.ttft_ms,
            "tpot_ms": x.tpot_ms,
            "source_id": x.source.id,
            "source_repository": x.source.repository,
            "source_path": x.source.path,
            "source_commit": x.source.commit,
            "source_symbol": x.source.symbol,
            "source_url": x.source.url,
        }
        for x in (load_latency_limits() if limits is None else limits)
    ]
    return pl.DataFrame(rows, schema=LIMITS_SCHEMA)
