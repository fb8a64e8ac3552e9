"""``latency_limits.toml``: latency limits of the LLM and VLM benchmarks per round.

A token-streaming benchmark is bounded by its time to first token and time per
output token (TTFT, TPOT); a benchmark answered whole (qwen3-vl-235b-a22b) by its
end-to-end query latency. Both are on the run's 99th percentile.

The limits are upstream rules, not something the ledger measures: every entry names
the submission checker (repository, path, commit and symbol) that enforces it. A
malformed entry fails with the entry and the field named, so a bad edit never reaches
a page half-read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pipeline.registry.loader import (
    RELEASE,
    RegistryError,
    Table,
    UpstreamFile,
    load_registry,
    upstream_file,
)

REGISTRY_FILE = "latency_limits.toml"
#: Scenarios an LLM latency limit applies to (Offline has none).
LIMITED_SCENARIOS = ("Server", "Interactive")
_SOURCE_KEYS = {"id", "repository", "path", "commit", "symbol", "covers", "note"}
_LIMIT_KEYS = {
    "release",
    "benchmark",
    "scenario",
    "ttft_ms",
    "tpot_ms",
    "latency_ms",
    "source",
}
_MS = "a positive number of milliseconds"


class LatencyLimitsError(RegistryError):
    """The limits file is malformed; the message names the entry and the field."""


@dataclass(frozen=True)
class LimitSource(UpstreamFile):
    """Where upstream states a set of limits: one file at one commit."""

    id: str
    covers: tuple[str, ...]
    note: str


@dataclass(frozen=True)
class LatencyLimit:
    """The 99th-percentile bounds of one scenario in one round.

    Either TTFT and TPOT (a token-streaming benchmark) or the end-to-end query
    latency (``latency_ms``: a benchmark answered whole); the others are None.
    """

    release: str
    benchmark: str
    scenario: str
    ttft_ms: float | None
    tpot_ms: float | None
    source: LimitSource
    latency_ms: float | None = None


def _source(entry: Table) -> LimitSource:
    if isinstance(entry.get("id"), str):
        entry = entry.named(entry.get("id"))
    entry.only(_SOURCE_KEYS)
    return LimitSource(
        id=entry.string("id"),
        **upstream_file(entry),
        covers=entry.strings(
            "covers", non_empty=True, pattern=RELEASE, expected="a list of rounds vX.Y"
        ),
        note=entry.string("note"),
    )


def _limit(entry: Table, sources: Mapping[str, LimitSource]) -> LatencyLimit:
    named = ("release", "benchmark", "scenario")
    if all(isinstance(entry.get(k), str) and entry.get(k).strip() for k in named):
        entry = entry.named(" ".join(entry.get(k) for k in named))
    entry.only(_LIMIT_KEYS)
    release = entry.string("release", pattern=RELEASE, expected="a round vX.Y")
    benchmark = entry.string("benchmark")
    scenario = entry.choice("scenario", LIMITED_SCENARIOS)
    source_id = entry.string("source")
    if source_id not in sources:
        raise entry.expected("source", "the id of a [[source]]", source_id)
    source = sources[source_id]
    if release not in source.covers:
        raise entry.fail(
            "source",
            f"{source_id!r} covers {', '.join(source.covers)}, not {release}",
        )
    if "latency_ms" in entry:
        for token in ("ttft_ms", "tpot_ms"):
            if token in entry:
                raise entry.fail(
                    token,
                    "an end-to-end latency_ms limit has no TTFT or TPOT; give one "
                    "form or the other",
                )
        return LatencyLimit(
            release=release,
            benchmark=benchmark,
            scenario=scenario,
            ttft_ms=None,
            tpot_ms=None,
            latency_ms=entry.number(
                "latency_ms", positive=True, below=1e9, expected=_MS
            ),
            source=source,
        )
    return LatencyLimit(
        release=release,
        benchmark=benchmark,
        scenario=scenario,
        ttft_ms=entry.number("ttft_ms", positive=True, below=1e9, expected=_MS),
        tpot_ms=entry.number("tpot_ms", positive=True, below=1e9, expected=_MS),
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
    root = Table.document(document, origin, LatencyLimitsError)
    root.only(("source", "limit"))
    sources: dict[str, LimitSource] = {}
    for entry in root.tables("source"):
        source = _source(entry)
        if source.id in sources:
            raise entry.fail("id", f"{source.id!r} is listed twice")
        sources[source.id] = source
    limits: list[LatencyLimit] = []
    seen: set[tuple[str, str, str]] = set()
    for entry in root.tables("limit"):
        limit = _limit(entry, sources)
        key = (limit.release, limit.benchmark, limit.scenario)
        if key in seen:
            raise entry.named(" ".join(key)).fail(
                "scenario", "this round, benchmark and scenario are listed twice"
            )
        seen.add(key)
        limits.append(limit)
    return tuple(limits)


@cache
def _committed() -> tuple[LatencyLimit, ...]:
    return load_registry(REGISTRY_FILE, parse_limits, LatencyLimitsError)


def load_latency_limits(path: Path | None = None) -> tuple[LatencyLimit, ...]:
    """The committed limits (cached), or another file (tests, an entry under review)."""
    if path is None:
        return _committed()
    return load_registry(path, parse_limits, LatencyLimitsError)
