"""``submitter_summaries.toml``: why a submitter's own table differs from the logs.

Each reviewed explanation names the round, the CSV file and what the table's values
are instead; ``pipeline.transform.submitter_check`` verifies each one it applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from pipeline.registry.loader import RegistryError, Table, load_registry

REGISTRY_FILE = "submitter_summaries.toml"


@dataclass(frozen=True)
class Explanation:
    """A reviewed reason a submitter CSV's rows differ from the logs.

    With ``line``: the CSV's value is that line of the same log (checked). With
    ``not_published``: the CSV lists results whose folder the repository does not
    have at the commit read (checked against the listing). With ``stale``: the
    CSV's value is in no line of the published log (checked), the table having been
    written from another run.
    """

    release: str
    file: str
    evidence: str
    line: str | None = None
    metric: str | None = None
    not_published: bool = False
    #: The CSV was written from another run: its value is in no line of the log.
    stale: bool = False

    @property
    def name(self) -> str:
        """How the check names the rule."""
        if self.stale:
            return (
                f"{REGISTRY_FILE}: the submitter's table was written from another run "
                "(its value is in no line of the published log)"
            )
        if self.not_published:
            return (
                f"{REGISTRY_FILE}: the submitter's table lists a result that was "
                "not published (no such result folder at this commit)"
            )
        return f"{REGISTRY_FILE}: the CSV's value is the log's {self.line!r} line"


def parse_explanations(document: Mapping, file: str) -> tuple[Explanation, ...]:
    """The ``[[explanation]]`` entries of a parsed document, validated."""
    out = []
    for entry in Table.document(document, file).tables("explanation"):
        entry.only(
            ("release", "file", "metric", "line", "not_published", "stale", "evidence")
        )
        not_published = entry.boolean("not_published", default=False)
        stale = entry.boolean("stale", default=False)
        if [not_published, stale, "line" in entry].count(True) != 1:
            raise entry.fail(
                "line", "give one of line, not_published = true or stale = true"
            )
        out.append(
            Explanation(
                release=entry.string("release"),
                file=entry.string("file"),
                evidence=entry.string("evidence"),
                line=entry.string("line") if "line" in entry else None,
                metric=entry.string("metric") if "metric" in entry else None,
                not_published=not_published,
                stale=stale,
            )
        )
    return tuple(out)


@cache
def load_explanations() -> tuple[Explanation, ...]:
    """The committed explanations."""
    return load_registry(REGISTRY_FILE, parse_explanations, RegistryError)
