"""``claims.toml``: the vendor claims to check, typed and validated at load time.

Validation happens here, so a typo stops the pipeline with the claim and the field
named; ``pipeline.claims`` then evaluates ``Claim`` values only.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.registry.accelerators import AcceleratorRegistry, load_accelerators
from pipeline.registry.loader import REGISTRY_DIR, RegistryError, Table, load_registry
from pipeline.registry.releases import ManifestError, version_key
from pipeline.registry.rounds import SCENARIOS
from pipeline.transform.results import DIVISIONS

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

_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
_URL = re.compile(r"https?://\S+")
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


class ClaimsRegistryError(RegistryError):
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


def _figure(entry: Table, kind: str) -> tuple[float, int]:
    figure = entry.number("figure", positive=True)
    # Only a count of tokens or samples is stated in round thousands or millions.
    lowest = -MAX_DECIMALS if kind == "absolute_result" else 0
    decimals = entry.integer("decimals", minimum=lowest, maximum=MAX_DECIMALS)
    stated = entry.get("figure")
    if abs(round(figure, decimals) - figure) > TOLERANCE * max(1.0, abs(figure)):
        if decimals < 0:
            raise entry.fail(
                "figure",
                f"{stated!r} is stated more precisely than 'decimals' = {decimals} "
                f"(a multiple of {10**-decimals})",
            )
        raise entry.fail(
            "figure", f"{stated!r} has more decimals than 'decimals' = {decimals}"
        )
    return figure, decimals


def _per_accelerator(entry: Table, kind: str) -> bool:
    value = entry.boolean("per_accelerator", default=False)
    if value and kind != "absolute_result":
        raise entry.fail(
            "per_accelerator",
            "only absolute_result claims take it; the ratio kinds are read per "
            "accelerator in their own readings",
        )
    return value


def _releases(entry: Table, kind: str) -> tuple[str, ...]:
    value = entry.get("releases")
    wanted = 2 if kind == "software_gain" else 1
    shape = "(old, new)" if wanted == 2 else "(one release)"
    if (
        not isinstance(value, list)
        or len(value) != wanted
        or not all(isinstance(v, str) for v in value)
    ):
        raise entry.expected(
            "releases",
            f"a list of {wanted} release(s) {shape} for a {kind} claim",
            value,
        )
    try:
        keys = [version_key(v) for v in value]
    except ManifestError:
        raise entry.expected("releases", "rounds of the form vX.Y", value) from None
    if wanted == 2 and keys[0] >= keys[1]:
        raise entry.expected("releases", "releases in order (old, new)", value)
    return tuple(value)


def _accelerators(
    entry: Table, kind: str, registry: AcceleratorRegistry
) -> tuple[str, ...]:
    ids = entry.strings("accelerators", default=[], unique=True)
    for accelerator in ids:
        if registry.get(accelerator) is None:
            raise entry.expected(
                "accelerators", f"ids listed in {registry.source}", list(ids)
            )
    if kind == "generation_ratio" and len(ids) != 2:
        raise entry.expected(
            "accelerators",
            "[predecessor, successor] for a generation_ratio claim",
            list(ids),
        )
    if kind == "scaling_efficiency" and len(ids) != 1:
        raise entry.expected(
            "accelerators",
            "exactly one accelerator for a scaling_efficiency claim",
            list(ids),
        )
    return ids


def _counts(entry: Table, kind: str) -> tuple[int, ...]:
    value = entry.get("total_accelerators", [])
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
        raise entry.expected(
            "total_accelerators",
            f"{wanted} positive count(s) {shape} for a {kind} claim",
            value,
        )
    if kind == "scaling_efficiency" and value[0] >= value[1]:
        raise entry.expected(
            "total_accelerators", "increasing counts (smaller first)", value
        )
    return tuple(value)


def _claim(entry: Table, registry: AcceleratorRegistry) -> Claim:
    ident = entry.string("id", pattern=_ID, expected="a slug of a-z, 0-9 and '-'")
    entry = entry.named(ident)
    entry.only((*_REQUIRED, *_OPTIONAL))
    entry.require(_REQUIRED)
    source_url = entry.string("source_url", empty=True)
    if source_url and not _URL.fullmatch(source_url):
        raise entry.expected("source_url", '"" or an http(s) URL', source_url)
    kind = entry.choice("kind", KINDS)
    figure, decimals = _figure(entry, kind)
    return Claim(
        id=ident,
        claimant=entry.string("claimant"),
        source_url=source_url,
        date=entry.date("date"),
        quote=entry.string("quote"),
        figure=figure,
        qualifier=entry.choice("qualifier", QUALIFIERS),
        decimals=decimals,
        kind=kind,
        releases=_releases(entry, kind),
        benchmark=entry.string("benchmark"),
        scenarios=entry.strings(
            "scenarios", non_empty=True, unique=True, allowed=SCENARIOS
        ),
        division=entry.choice("division", DIVISIONS),
        identity_level=entry.choice(
            "identity_level", (*IDENTITY_LEVELS[kind], ANY_LEVEL)
        ),
        accelerators=_accelerators(entry, kind, registry),
        systems=entry.strings("systems", default=[], unique=True),
        submitters=entry.strings("submitters", default=[], unique=True),
        total_accelerators=_counts(entry, kind),
        title=entry.string("title", default="", empty=True),
        note=entry.string("note", default="", empty=True),
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
    root = Table.document(document, source, ClaimsRegistryError)
    root.only(("claim",))
    registry = registry or load_accelerators()
    claims: list[Claim] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(root.tables("claim"), start=1):
        claim = _claim(entry, registry)
        if claim.id in seen:
            raise entry.named(claim.id).fail(
                "id", f"is listed twice (claims {seen[claim.id]} and {index})"
            )
        seen[claim.id] = index
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
    return load_registry(
        path or claims_path(),
        lambda document, source: parse_claims(document, source, registry=registry),
        ClaimsRegistryError,
    )
