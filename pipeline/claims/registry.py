"""The claims registry: typed loading and validation of ``claims.toml``.

Validation happens here, at load time, so a typo stops the pipeline with the claim
and the field named; evaluation then works on ``Claim`` values only.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.analysis.accelerators import AcceleratorRegistry, load_accelerators
from pipeline.manifest import ManifestError, version_key
from pipeline.registry import REGISTRY_DIR
from pipeline.transform.results import DIVISIONS, SCENARIOS

CLAIMS_FILE = "claims.toml"
QUALIFIERS = ("up to", "about", "at least", "exactly", "over")
KINDS = ("software_gain", "generation_ratio", "scaling_efficiency", "absolute_result")
ANY_LEVEL = "any"
#: Identity levels a claim of each kind may name (besides ``"any"``).
IDENTITY_LEVELS: dict[str, tuple[str, ...]] = {
    "software_gain": ("system", "hardware", "accelerator"),
    "generation_ratio": ("same_submitter", "best_of_any"),
    "scaling_efficiency": ("same_submitter", "best_of_any"),
    "absolute_result": ("same_submitter", "best_of_any"),
}
#: Decimals a figure may be stated with; more would be a typo, not a claim. Absolute
#: results may also be stated to tens, thousands, ... ("2.49 million" is -4 decimals).
MAX_DECIMALS = 6
#: Relative tolerance against binary floating point (0.29 * 100 = 28.999999999999996)
#: when truncating and comparing; far below any precision a claim states.
TOLERANCE = 1e-9

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_URL = re.compile(r"^https?://\S+$")
_REQUIRED = (
    "id", "claimant", "source_url", "date", "quote", "figure", "qualifier",
    "decimals", "kind", "releases", "benchmark", "scenarios", "division",
    "identity_level",
)  # fmt: skip
_OPTIONAL = (
    "title", "note", "accelerators", "systems", "submitters", "total_accelerators",
    "per_accelerator",
)  # fmt: skip
_TITLE_LENGTH = 80


class ClaimsRegistryError(ValueError):
    """The claims registry is malformed; the message names the claim and the field."""


@dataclass(frozen=True)
class Claim:
    """One vendor (or illustrative) claim and the structured query that checks it.

    Attributes:
        id: slug, unique in the registry (also the page anchor).
        claimant: who made the claim.
        source_url: where it was made ("" when there is no public source).
        date: when it was made.
        quote: the claim's text as stated.
        figure: the number in the claim (a ratio, a percentage of linear scaling for
            ``scaling_efficiency``, or a result in its unit for ``absolute_result``).
        qualifier: one of ``QUALIFIERS``.
        decimals: how many decimals the figure is stated with (1 for "1.5x"); below
            zero for absolute results stated to tens or more (-4 for "2.49 million").
        kind: one of ``KINDS``.
        releases: (old, new) for software gains, (release,) otherwise.
        benchmark: canonical benchmark name.
        scenarios: the scenarios the claim covers.
        division: closed, open or network.
        identity_level: one of ``IDENTITY_LEVELS[kind]`` or ``"any"``.
        accelerators: canonical accelerator ids; (predecessor, successor) for
            generation ratios, (accelerator,) for scaling.
        systems: platform names (upstream system folder names).
        submitters: submitter names.
        total_accelerators: counts per end: (old, new), (smaller, larger) for scaling,
            (count,) for absolute results; empty means any count.
        title: short title for pages (defaults to the start of the quote).
        note: provenance or reviewer's remarks.
        per_accelerator: an absolute result stated per accelerator ("8,064 tokens
            per second per GPU"): each result is divided by its accelerator count.
    """

    id: str
    claimant: str
    source_url: str
    date: dt.date
    quote: str
    figure: float
    qualifier: str
    decimals: int
    kind: str
    releases: tuple[str, ...]
    benchmark: str
    scenarios: tuple[str, ...]
    division: str
    identity_level: str
    accelerators: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()
    submitters: tuple[str, ...] = ()
    total_accelerators: tuple[int, ...] = ()
    title: str = ""
    note: str = ""
    per_accelerator: bool = False

    @property
    def ends(self) -> int:
        """How many published results one computed value rests on (1 or 2)."""
        return 1 if self.kind == "absolute_result" else 2

    @property
    def display_title(self) -> str:
        """The title, or the start of the quote cut at a word boundary."""
        if self.title:
            return self.title
        quote = " ".join(self.quote.split())
        if len(quote) <= _TITLE_LENGTH:
            return quote
        return quote[: _TITLE_LENGTH - 1].rsplit(" ", 1)[0] + "…"

    def format_value(self, value: float, digits: int | None = None) -> str:
        """A number in the claim's unit: ``1.538×``, ``96.37%``, ``2,705,130.0``.

        Computed values get two more digits than the figure is stated with (at least
        three for ratios) so a reader sees why it rounds or truncates as it does.
        """
        if self.kind == "absolute_result":
            # A figure stated in thousands or millions is still shown in full units.
            places = max(0, self.decimals + 1 if digits is None else digits)
            return f"{value:,.{places}f}"
        if self.kind == "scaling_efficiency":
            places = self.decimals + 2 if digits is None else digits
            return f"{value:.{places}f}%"
        places = max(3, self.decimals + 2) if digits is None else digits
        return f"{value:.{places}f}×"

    @property
    def figure_text(self) -> str:
        """The figure as stated: ``1.5×``, ``96%``, ``2,700,000``."""
        return self.format_value(self.figure, self.decimals)

    @property
    def stated(self) -> str:
        """Qualifier and figure: ``about 1.5×``."""
        return f"{self.qualifier} {self.figure_text}"


# --------------------------------------------------------------------------------------
# Loading and validation
# --------------------------------------------------------------------------------------


class _Entry:
    """One raw ``[[claim]]`` table and the context its error messages need."""

    def __init__(self, source: str, index: int, raw: Mapping[str, Any]) -> None:
        self.source = source
        self.raw = raw
        ident = raw.get("id")
        valid = isinstance(ident, str) and bool(_ID.match(ident))
        self.label = repr(ident) if valid else str(index + 1)

    def fail(self, name: str, message: str) -> ClaimsRegistryError:
        return ClaimsRegistryError(
            f"{self.source} claim {self.label} field {name!r}: {message}"
        )

    def text(self, name: str, *, empty: bool = False) -> str:
        value = self.raw.get(name, "" if name in _OPTIONAL else None)
        if not isinstance(value, str) or (not empty and not value.strip()):
            kind = "a string" if empty else "a non-empty string"
            raise self.fail(name, f"must be {kind}, got {value!r}")
        return value.strip()

    def choice(self, name: str, allowed: Sequence[str]) -> str:
        value = self.raw.get(name)
        if value not in allowed:
            options = ", ".join(repr(a) for a in allowed)
            raise self.fail(name, f"must be one of {options}, got {value!r}")
        return value

    def strings(self, name: str) -> tuple[str, ...]:
        value = self.raw.get(name, [])
        if not isinstance(value, list) or not all(
            isinstance(v, str) and v.strip() == v and v for v in value
        ):
            raise self.fail(name, f"must be a list of trimmed strings, got {value!r}")
        duplicates = sorted({v for v in value if value.count(v) > 1})
        if duplicates:
            raise self.fail(name, f"lists {duplicates[0]!r} twice")
        return tuple(value)


def _date(entry: _Entry) -> dt.date:
    value = entry.raw.get("date")
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise entry.fail("date", f"must be a date (YYYY-MM-DD), got {value!r}")


def _figure(entry: _Entry, kind: str) -> tuple[float, int]:
    figure = entry.raw.get("figure")
    if isinstance(figure, bool) or not isinstance(figure, int | float) or figure <= 0:
        raise entry.fail("figure", f"must be a positive number, got {figure!r}")
    decimals = entry.raw.get("decimals")
    # Only a count of tokens or samples is stated in round thousands or millions.
    lowest = -MAX_DECIMALS if kind == "absolute_result" else 0
    if (
        isinstance(decimals, bool)
        or not isinstance(decimals, int)
        or not lowest <= decimals <= MAX_DECIMALS
    ):
        raise entry.fail(
            "decimals",
            f"must be a whole number from {lowest} to {MAX_DECIMALS}, got {decimals!r}",
        )
    if abs(round(figure, decimals) - figure) > TOLERANCE * max(1.0, abs(figure)):
        if decimals < 0:
            raise entry.fail(
                "figure",
                f"{figure!r} is stated more precisely than 'decimals' = {decimals} "
                f"(a multiple of {10**-decimals})",
            )
        raise entry.fail(
            "figure", f"{figure!r} has more decimals than 'decimals' = {decimals}"
        )
    return float(figure), decimals


def _per_accelerator(entry: _Entry, kind: str) -> bool:
    value = entry.raw.get("per_accelerator", False)
    if not isinstance(value, bool):
        raise entry.fail("per_accelerator", f"must be true or false, got {value!r}")
    if value and kind != "absolute_result":
        raise entry.fail(
            "per_accelerator",
            "only absolute_result claims take it; the ratio kinds are read per "
            "accelerator in their own readings",
        )
    return value


def _releases(entry: _Entry, kind: str) -> tuple[str, ...]:
    value = entry.raw.get("releases")
    wanted = 2 if kind == "software_gain" else 1
    shape = "(old, new)" if wanted == 2 else "(one release)"
    if (
        not isinstance(value, list)
        or len(value) != wanted
        or not all(isinstance(v, str) for v in value)
    ):
        raise entry.fail(
            "releases",
            f"must be a list of {wanted} release(s) {shape} for a {kind} claim, "
            f"got {value!r}",
        )
    try:
        keys = [version_key(v) for v in value]
    except ManifestError as error:
        raise entry.fail("releases", str(error)) from None
    if wanted == 2 and keys[0] >= keys[1]:
        raise entry.fail("releases", f"must be in order (old, new), got {value!r}")
    return tuple(value)


def _scenarios(entry: _Entry) -> tuple[str, ...]:
    scenarios = entry.strings("scenarios")
    if not scenarios:
        raise entry.fail("scenarios", "must name at least one scenario")
    for scenario in scenarios:
        if scenario not in SCENARIOS:
            options = ", ".join(repr(s) for s in SCENARIOS)
            raise entry.fail(
                "scenarios", f"unknown scenario {scenario!r}; must be one of {options}"
            )
    return scenarios


def _accelerators(
    entry: _Entry, kind: str, registry: AcceleratorRegistry
) -> tuple[str, ...]:
    ids = entry.strings("accelerators")
    for accelerator in ids:
        if registry.get(accelerator) is None:
            raise entry.fail(
                "accelerators",
                f"unknown accelerator id {accelerator!r} (not in {registry.source})",
            )
    if kind == "generation_ratio" and len(ids) != 2:
        raise entry.fail(
            "accelerators",
            "a generation_ratio claim needs [predecessor, successor], "
            f"got {list(ids)!r}",
        )
    if kind == "scaling_efficiency" and len(ids) != 1:
        raise entry.fail(
            "accelerators",
            "a scaling_efficiency claim needs exactly one accelerator, "
            f"got {list(ids)!r}",
        )
    return ids


def _counts(entry: _Entry, kind: str) -> tuple[int, ...]:
    value = entry.raw.get("total_accelerators", [])
    wanted = 1 if kind == "absolute_result" else 2
    if value == []:
        return ()
    if (
        not isinstance(value, list)
        or len(value) != wanted
        or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value
        )
    ):
        shape = "(count,)" if wanted == 1 else "(old end, new end)"
        raise entry.fail(
            "total_accelerators",
            f"must list {wanted} positive count(s) {shape} for a {kind} claim, "
            f"got {value!r}",
        )
    if kind == "scaling_efficiency" and value[0] >= value[1]:
        raise entry.fail(
            "total_accelerators",
            f"must be increasing (smaller count first), got {value!r}",
        )
    return tuple(value)


def _claim(entry: _Entry, registry: AcceleratorRegistry) -> Claim:
    raw = entry.raw
    ident = raw.get("id")
    if not isinstance(ident, str) or not _ID.match(ident):
        raise entry.fail("id", f"must be a slug of a-z, 0-9 and '-', got {ident!r}")
    unknown = sorted(set(raw) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise entry.fail(unknown[0], "unknown field")
    for name in _REQUIRED:
        if name not in raw:
            raise entry.fail(name, "is required")
    source_url = entry.text("source_url", empty=True)
    if source_url and not _URL.match(source_url):
        raise entry.fail(
            "source_url", f'must be "" or an http(s) URL, got {source_url!r}'
        )
    kind = entry.choice("kind", KINDS)
    figure, decimals = _figure(entry, kind)
    return Claim(
        id=ident,
        claimant=entry.text("claimant"),
        source_url=source_url,
        date=_date(entry),
        quote=entry.text("quote"),
        figure=figure,
        qualifier=entry.choice("qualifier", QUALIFIERS),
        decimals=decimals,
        kind=kind,
        releases=_releases(entry, kind),
        benchmark=entry.text("benchmark"),
        scenarios=_scenarios(entry),
        division=entry.choice("division", DIVISIONS),
        identity_level=entry.choice(
            "identity_level", (*IDENTITY_LEVELS[kind], ANY_LEVEL)
        ),
        accelerators=_accelerators(entry, kind, registry),
        systems=entry.strings("systems"),
        submitters=entry.strings("submitters"),
        total_accelerators=_counts(entry, kind),
        title=entry.text("title", empty=True),
        note=entry.text("note", empty=True),
        per_accelerator=_per_accelerator(entry, kind),
    )


def parse_claims(
    document: Mapping[str, Any],
    source: str = CLAIMS_FILE,
    *,
    registry: AcceleratorRegistry | None = None,
) -> list[Claim]:
    """Validate a parsed claims document.

    Validation happens at load time, not during evaluation, so that a typo (a
    qualifier "roughly", an accelerator id the registry does not know) stops the
    pipeline with the claim and field named instead of silently yielding "not
    reproducible".

    Args:
        document: the parsed TOML (``{"claim": [...]}``).
        source: file name used in error messages.
        registry: accelerator registry the ids are checked against (tests).

    Returns:
        The claims in file order.

    Raises:
        ClaimsRegistryError: naming the claim (id, or 1-based index when the id itself
            is bad) and the field.
    """
    unknown = sorted(set(document) - {"claim"})
    if unknown:
        raise ClaimsRegistryError(
            f"{source}: unknown top-level key(s) {', '.join(unknown)}"
        )
    entries = document.get("claim", [])
    if not isinstance(entries, list):
        raise ClaimsRegistryError(f"{source}: [[claim]] must be an array of tables")
    registry = registry or load_accelerators()
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(entries):
        if not isinstance(raw, Mapping):
            raise ClaimsRegistryError(f"{source} claim {index + 1}: must be a table")
        entry = _Entry(source, index, raw)
        claim = _claim(entry, registry)
        if claim.id in seen:
            raise entry.fail(
                "id", f"is listed twice (claims {seen[claim.id]} and {index + 1})"
            )
        seen[claim.id] = index + 1
        claims.append(claim)
    return claims


def claims_path() -> Path:
    """Where the committed registry lives (for code versions and error messages)."""
    return REGISTRY_DIR / CLAIMS_FILE


def load_claims(
    path: Path | None = None, *, registry: AcceleratorRegistry | None = None
) -> list[Claim]:
    """The committed claims registry, or another file (tests, reviews of a draft).

    Raises:
        ClaimsRegistryError: an entry is invalid (see ``parse_claims``).
    """
    path = path or claims_path()
    try:
        document = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise ClaimsRegistryError(f"{path.name}: not valid TOML: {error}") from None
    return parse_claims(document, path.name, registry=registry)
