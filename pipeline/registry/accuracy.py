"""``accuracy.toml``: how a raw tree's ``accuracy.txt`` states a result's accuracy.

The rounds read from their raw tree alone (v0.5, v1.0, v2.1) publish no summary with
an ``Accuracy`` field; their accuracy is in each result's ``accuracy/accuracy.txt``,
which upstream's submission checker reads with a regular expression per accuracy
metric. Those expressions and the model -> metric tables change by round, so they
are registry data with the checker file they are copied from, never code branches.
A malformed entry (an unknown field, a pattern that does not compile or has no
group, a model naming no pattern) fails with the entry named.
"""

from __future__ import annotations

import re
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

REGISTRY_FILE = "accuracy.toml"
#: How the checker picks the line: any pattern (v0.5), or the model's (v1.0 on).
READINGS = ("any", "per_model")
_ROUND_KEYS = {
    "release", "repository", "path", "commit", "symbol", "reading", "note",
    "patterns", "models", "model_mapping", "guess",
}  # fmt: skip


class AccuracyRulesError(RegistryError):
    """The accuracy file is malformed; the message names the entry and the field."""


@dataclass(frozen=True)
class AccuracyRule(UpstreamFile):
    """How one round's checker reads ``accuracy.txt``; the checker is the evidence."""

    release: str
    reading: str
    #: metric -> compiled pattern, in the checker's order.
    patterns: tuple[tuple[str, re.Pattern[str]], ...]
    models: Mapping[str, str]
    model_mapping: Mapping[str, str]
    #: (substrings, model) in the checker's order.
    guesses: tuple[tuple[tuple[str, ...], str], ...]

    def model(self, name: str) -> str:
        """The checker's model for a folder (or model_mapping.json) name.

        ``get_mlperf_model``: the name itself when it is a model, else its mapping,
        else the first guess whose substring it contains, mapped again.
        """
        if name in self.models:
            return name
        if name in self.model_mapping:
            return self.model_mapping[name]
        guessed = next(
            (model for parts, model in self.guesses if any(p in name for p in parts)),
            name,
        )
        return self.model_mapping.get(guessed, guessed)

    def metric(self, name: str) -> str | None:
        """The metric whose pattern reads ``name``'s accuracy (None: not listed)."""
        return self.models.get(self.model(name))


def _pattern(entry: Table, metric: str, text: object) -> re.Pattern[str]:
    if not isinstance(text, str) or not text:
        raise entry.expected(f"patterns.{metric}", "a regular expression", text)
    try:
        compiled = re.compile(text)
    except re.error as exc:
        raise entry.fail(f"patterns.{metric}", f"does not compile: {exc}") from None
    if compiled.groups < 1:
        raise entry.fail(f"patterns.{metric}", "has no group to read the value from")
    return compiled


def _round(entry: Table) -> AccuracyRule:
    if isinstance(entry.get("release"), str):
        entry = entry.named(entry.get("release"))
    entry.only(_ROUND_KEYS)
    reading = entry.choice("reading", READINGS)
    raw = entry.string_map("patterns", expected="a table of metric = pattern")
    if not raw:
        raise entry.fail("patterns", "names no pattern")
    patterns = tuple((m, _pattern(entry, m, p)) for m, p in raw.items())
    per_model = reading == "per_model"
    models = entry.string_map(
        "models", default={}, values=list(raw), expected="a table of model = metric"
    )
    if per_model and not models:
        raise entry.fail("models", 'a "per_model" reading needs the model table')
    guesses = tuple(
        (
            g.strings("contains", non_empty=True),
            g.string("model"),
        )
        for g in (entry.tables("guess") if "guess" in entry else [])
    )
    return AccuracyRule(
        release=entry.string("release", pattern=RELEASE, expected="a round vX.Y"),
        **upstream_file(entry),
        reading=reading,
        patterns=patterns,
        models=models,
        model_mapping=entry.string_map("model_mapping", default={}),
        guesses=guesses,
    )


def parse_accuracy_rules(
    document: Mapping, origin: str = REGISTRY_FILE
) -> dict[str, AccuracyRule]:
    """Validate a parsed accuracy document: release -> its rule.

    Raises:
        AccuracyRulesError: an unknown field, a missing or malformed value, a
            pattern that does not compile or reads no group, a round listed twice.
    """
    root = Table.document(document, origin, AccuracyRulesError)
    root.only(("round",))
    rules: dict[str, AccuracyRule] = {}
    for entry in root.tables("round"):
        rule = _round(entry)
        if rule.release in rules:
            raise entry.fail("release", f"{rule.release!r} is listed twice")
        rules[rule.release] = rule
    return rules


@cache
def _committed() -> dict[str, AccuracyRule]:
    return load_registry(REGISTRY_FILE, parse_accuracy_rules, AccuracyRulesError)


def load_accuracy_rules(path: Path | None = None) -> dict[str, AccuracyRule]:
    """The committed rules (cached), or another file's (tests, an entry in review)."""
    if path is None:
        return _committed()
    return load_registry(path, parse_accuracy_rules, AccuracyRulesError)


def accuracy_rule_for(release: str) -> AccuracyRule | None:
    """The round's committed rule (None: its accuracy.txt is not read)."""
    return _committed().get(release)
