"""Vendor claims checked against the published results: registry, evaluation, verdicts.

Press releases summarise MLPerf rounds as "about 1.5x faster", "up to 45% more" or
"over 96% scaling efficiency". This module turns such statements into checks against
the same derived tables the site publishes, so a reader can see which reading of the
data a claim holds in, which published results it rests on and what it leaves out.

What belongs here (Dagster-free, PUDL style): loading and validating the committed
claims registry (``pipeline/registry/claims.toml``), evaluating each claim against the
results table and the three pair tables of ``pipeline.analysis``, and summarising one
verdict per claim. What does not: the asset that runs it (``pipeline/defs``) and the
page that shows it (``pipeline/render/claims_page.py``).

Readings. A claim rarely says at which identity level it was measured, so every
reading the analysis tables offer is evaluated and labelled (``READINGS``):

* software gains: ``system`` (same submitter and platform), ``hardware`` (same
  accelerator and count, best of each release), ``accelerator (normalised per
  accelerator)`` (any scale, per accelerator);
* generation ratios: ``same_submitter`` and ``best_of_any`` at equal counts, and both
  again normalised per accelerator;
* scaling efficiency and absolute results: ``same_submitter`` and ``best_of_any``.

Readings that keep identity (``system``, ``same_submitter``) apply the claim's
``submitters`` and ``systems``; best-of readings only apply its accelerators, counts
and benchmark, and say so in a caveat when the best result is someone else's. A claim
can restrict itself to one identity level; ``"any"`` evaluates them all.

Figures and rounding. A figure stated to N decimals ("1.5x" is N = 1) is consistent
with a computed value that rounds to it (half to even, Polars' default, so 1.45 rounds
to 1.4) or truncates to it; the reason says which. "about" accepts rounding only;
"up to" and "exactly" accept either; "at least" and "over" need computed >= figure.
"up to" is checked on the maximum over every matching pair (scenarios, systems);
"at least"/"over" on the minimum; "about"/"exactly" need every matching pair to agree.

Verdicts per reading: ``consistent``, ``inconsistent``, or ``not reproducible`` (no
published pair or result matches; the reason names the first missing piece, e.g. "no
result at that scale"). A claim is consistent if at least one reading is, inconsistent
if some reading is reproducible and none is consistent, else not reproducible.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipeline.analysis.accelerators import (
    AcceleratorRegistry,
    attach_accelerators,
    load_accelerators,
)
from pipeline.manifest import ManifestError, version_key
from pipeline.registry import REGISTRY_DIR
from pipeline.transform.results import DIVISIONS, SCENARIOS

CLAIMS_FILE = "claims.toml"
QUALIFIERS = ("up to", "about", "at least", "exactly", "over")
KINDS = ("software_gain", "generation_ratio", "scaling_efficiency", "absolute_result")
VERDICTS = ("consistent", "inconsistent", "not reproducible")
ANY_LEVEL = "any"
#: Identity levels a claim of each kind may name (besides ``"any"``).
IDENTITY_LEVELS: dict[str, tuple[str, ...]] = {
    "software_gain": ("system", "hardware", "accelerator"),
    "generation_ratio": ("same_submitter", "best_of_any"),
    "scaling_efficiency": ("same_submitter", "best_of_any"),
    "absolute_result": ("same_submitter", "best_of_any"),
}
#: Decimals a figure may be stated with; more would be a typo, not a claim.
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
        decimals: how many decimals the figure is stated with (1 for "1.5x").
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
            places = self.decimals + 1 if digits is None else digits
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


def _figure(entry: _Entry) -> tuple[float, int]:
    figure = entry.raw.get("figure")
    if isinstance(figure, bool) or not isinstance(figure, int | float) or figure <= 0:
        raise entry.fail("figure", f"must be a positive number, got {figure!r}")
    decimals = entry.raw.get("decimals")
    if (
        isinstance(decimals, bool)
        or not isinstance(decimals, int)
        or not 0 <= decimals <= MAX_DECIMALS
    ):
        raise entry.fail(
            "decimals",
            f"must be a whole number from 0 to {MAX_DECIMALS}, got {decimals!r}",
        )
    if abs(round(figure, decimals) - figure) > TOLERANCE * max(1.0, abs(figure)):
        raise entry.fail(
            "figure", f"{figure!r} has more decimals than 'decimals' = {decimals}"
        )
    return float(figure), decimals


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
    figure, decimals = _figure(entry)
    kind = entry.choice("kind", KINDS)
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


# --------------------------------------------------------------------------------------
# Readings and schemas
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """One way of reading a claim against the data.

    Attributes:
        label: what the page and the evaluation table call it.
        identity_level: the analysis table's ``identity_level`` it reads.
        is_per_accelerator: compares results divided by their accelerator counts.
        keeps_identity: applies the claim's submitters and systems.
        keeps_scale: applies the claim's accelerator counts.
    """

    label: str
    identity_level: str
    is_per_accelerator: bool = False
    keeps_identity: bool = False
    keeps_scale: bool = True


PER_ACCELERATOR = " (normalised per accelerator)"
#: Every reading of each kind, strictest first.
READINGS: dict[str, tuple[Reading, ...]] = {
    "software_gain": (
        Reading("system", "system", keeps_identity=True),
        Reading("hardware", "hardware"),
        Reading(
            "accelerator" + PER_ACCELERATOR,
            "accelerator",
            is_per_accelerator=True,
            keeps_scale=False,
        ),
    ),
    "generation_ratio": (
        Reading("same_submitter", "same_submitter", keeps_identity=True),
        Reading("best_of_any", "best_of_any"),
        Reading(
            "same_submitter" + PER_ACCELERATOR,
            "same_submitter",
            is_per_accelerator=True,
            keeps_identity=True,
            keeps_scale=False,
        ),
        Reading(
            "best_of_any" + PER_ACCELERATOR,
            "best_of_any",
            is_per_accelerator=True,
            keeps_scale=False,
        ),
    ),
    "scaling_efficiency": (
        Reading("same_submitter", "same_submitter", keeps_identity=True),
        Reading("best_of_any", "best_of_any"),
    ),
    "absolute_result": (
        Reading("same_submitter", "same_submitter", keeps_identity=True),
        Reading("best_of_any", "best_of_any"),
    ),
}


def readings_for(claim: Claim) -> tuple[Reading, ...]:
    """The readings a claim is evaluated in (all of its kind for ``"any"``)."""
    every = READINGS[claim.kind]
    if claim.identity_level == ANY_LEVEL:
        return every
    return tuple(r for r in every if r.identity_level == claim.identity_level)


#: What one end of an evaluation cites, each as ``<name>_old`` and ``<name>_new``.
END_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "result_key": pl.String,
    "result_url": pl.String,
    "submitter": pl.String,
    "platform": pl.String,
    "accelerator_id": pl.String,
    "total_accelerators": pl.Int32,
    "result_value": pl.Float64,
    "availability": pl.String,
    "is_preview": pl.Boolean,
    "is_inferred": pl.Boolean,
}
_END_COLUMNS = [f"{name}_{end}" for end in ("old", "new") for name in END_SCHEMA]

#: One row per (claim, reading): ``evaluate_claims``' output.
EVALUATION_SCHEMA: dict[str, pl.DataType] = {
    "claim_id": pl.String,
    "title": pl.String,
    "claimant": pl.String,
    "kind": pl.String,
    "releases": pl.List(pl.String),
    "reading": pl.String,
    "identity_level": pl.String,
    "is_per_accelerator": pl.Boolean,
    "verdict": pl.String,
    "value": pl.Float64,
    "figure": pl.Float64,
    "qualifier": pl.String,
    "decimals": pl.Int32,
    "match_rule": pl.String,
    "matches": pl.Int32,
    "benchmark": pl.String,
    "scenario": pl.String,
    "division": pl.String,
    **{f"{name}_old": dtype for name, dtype in END_SCHEMA.items()},
    **{f"{name}_new": dtype for name, dtype in END_SCHEMA.items()},
    "reason": pl.String,
    "caveats": pl.List(pl.String),
}

#: One row per claim: ``claim_verdicts``' output.
VERDICT_SCHEMA: dict[str, pl.DataType] = {
    "claim_id": pl.String,
    "title": pl.String,
    "claimant": pl.String,
    "kind": pl.String,
    "releases": pl.List(pl.String),
    "verdict": pl.String,
    "matching_readings": pl.List(pl.String),
    "readings": pl.List(pl.String),
    "is_per_accelerator_only": pl.Boolean,
    "summary": pl.String,
}

_PAIR_TABLES = {
    "software_gain": "software gains",
    "generation_ratio": "generation ratios",
    "scaling_efficiency": "scaling",
}
_KIND_WORD = {
    "software_gain": "pair",
    "generation_ratio": "pair",
    "scaling_efficiency": "pair",
    "absolute_result": "result",
}


# --------------------------------------------------------------------------------------
# Matching: which published pairs or results a claim's reading is about
# --------------------------------------------------------------------------------------


def _in(column: str, values: Sequence[str]) -> pl.Expr:
    return pl.col(column).is_in(list(values)).fill_null(False)


def _pair_filter(claim: Claim, reading: Reading) -> pl.Expr:
    """The rows of a pair table one reading of a claim is about."""
    cond = (
        (pl.col("benchmark") == claim.benchmark)
        & _in("scenario", claim.scenarios)
        & (pl.col("division") == claim.division)
        & (pl.col("identity_level") == reading.identity_level)
        & (pl.col("is_per_accelerator") == reading.is_per_accelerator)
    )
    old_release, new_release = (
        claim.releases if claim.kind == "software_gain" else claim.releases * 2
    )
    cond &= (pl.col("release_old") == old_release) & (
        pl.col("release_new") == new_release
    )
    accs = claim.accelerators
    if claim.kind == "generation_ratio":
        cond &= (pl.col("accelerator_id_old") == accs[0]) & (
            pl.col("accelerator_id_new") == accs[1]
        )
    elif accs:
        cond &= _in("accelerator_id_old", accs) & _in("accelerator_id_new", accs)
    if reading.keeps_scale and claim.total_accelerators:
        old_count, new_count = claim.total_accelerators
        cond &= (pl.col("total_accelerators_old") == old_count) & (
            pl.col("total_accelerators_new") == new_count
        )
    if reading.keeps_identity:
        if claim.submitters:
            cond &= _in("submitter_old", claim.submitters) & _in(
                "submitter_new", claim.submitters
            )
        if claim.systems:
            cond &= _in("platform_old", claim.systems) & _in(
                "platform_new", claim.systems
            )
    return cond


def _pair_matches(table: pl.LazyFrame, claim: Claim, reading: Reading) -> pl.LazyFrame:
    # Scaling efficiency is a fraction of linear in the pair table; claims state it in
    # percent ("96% scaling efficiency").
    value = (
        pl.col("efficiency") * 100.0
        if claim.kind == "scaling_efficiency"
        else pl.col("ratio")
    )
    return table.filter(_pair_filter(claim, reading)).select(
        "scenario", value.alias("value"), *_END_COLUMNS
    )


def _result_filter(claim: Claim, reading: Reading) -> pl.Expr:
    cond = (
        (pl.col("release") == claim.releases[0])
        & (pl.col("benchmark") == claim.benchmark)
        & _in("scenario", claim.scenarios)
        & (pl.col("division") == claim.division)
        & pl.col("result_value").is_not_null()
    )
    if claim.accelerators:
        cond &= _in("accelerator_id", claim.accelerators)
    if reading.keeps_scale and claim.total_accelerators:
        cond &= pl.col("total_accelerators") == claim.total_accelerators[0]
    if reading.keeps_identity:
        if claim.submitters:
            cond &= _in("submitter", claim.submitters)
        if claim.systems:
            cond &= _in("platform", claim.systems)
    return cond


def _absolute_matches(
    results: pl.LazyFrame, claim: Claim, reading: Reading
) -> pl.LazyFrame:
    """Results an absolute claim is about, as the ``_new`` end (``_old`` is null).

    Throughput only: "over 600,000 tokens/s" reads naturally, while "at least" a
    latency would mean the opposite of what the qualifier says.
    """
    rows = results.filter(_result_filter(claim, reading) & pl.col("is_higher_better"))
    if not reading.keeps_identity:
        rows = rows.sort(
            ["result_value", "result_key"], descending=[True, False]
        ).unique(subset=["scenario"], keep="first", maintain_order=True)
    return rows.select(
        "scenario",
        pl.col("result_value").alias("value"),
        *[pl.lit(None, dtype).alias(f"{n}_old") for n, dtype in END_SCHEMA.items()],
        *[pl.col(n).alias(f"{n}_new") for n in END_SCHEMA],
    )


def _judged(matches: pl.LazyFrame, claim: Claim) -> pl.LazyFrame:
    """Matches with the rule flags, the representative match first.

    The representative is what the qualifier is about: the maximum for "up to", the
    minimum for "at least"/"over", and for "about"/"exactly" the first match that
    fails (furthest from the figure), else the furthest one.
    """
    places = claim.decimals
    scale = 10.0**places
    target = round(claim.figure * scale)
    value = pl.col("value")
    scaled = value * scale
    slack = TOLERANCE * pl.max_horizontal(pl.lit(1.0), scaled.abs())
    rounded = value.round(places, mode="half_to_even")
    truncated = (scaled + slack).floor() / scale
    rounds = (rounded * scale).round(0) == target
    truncates = (truncated * scale).round(0) == target
    reaches = value >= claim.figure - TOLERANCE * max(1.0, claim.figure)
    passes = {
        "about": rounds,
        "up to": rounds | truncates,
        "exactly": rounds | truncates,
        "at least": reaches,
        "over": reaches,
    }[claim.qualifier]
    flagged = matches.with_columns(
        _rounded=rounded,
        _truncated=truncated,
        _rounds=rounds,
        _truncates=truncates,
        _passes=passes,
        _distance=(value - claim.figure).abs(),
    )
    keys = ["result_key_old", "result_key_new"]
    if claim.qualifier == "up to":
        order, descending = ["value", *keys], [True, False, False]
    elif claim.qualifier in ("at least", "over"):
        order, descending = ["value", *keys], [False, False, False]
    else:
        order, descending = ["_passes", "_distance", *keys], [False, True, False, False]
    return flagged.sort(order, descending=descending, nulls_last=True)


# --------------------------------------------------------------------------------------
# Reasons and caveats (a handful of strings per claim, built from one row each)
# --------------------------------------------------------------------------------------


def _rule_text(claim: Claim, rep: Mapping[str, Any]) -> tuple[str, str | None]:
    """Why the representative value passes or fails, and which rule matched."""
    value = claim.format_value(rep["value"])
    figure = claim.figure_text
    if claim.qualifier in ("at least", "over"):
        if rep["_passes"]:
            return f"consistent: {value} ≥ {figure}", "at least"
        return f"inconsistent: {value} < {figure}", None
    rounded = claim.format_value(rep["_rounded"], claim.decimals)
    truncated = claim.format_value(rep["_truncated"], claim.decimals)
    if claim.qualifier == "about":
        if rep["_rounds"]:
            return f"consistent when rounded ({value} rounds to {figure})", "rounded"
        extra = (
            f"; it truncates to {figure}, but 'about' means rounded"
            if rep["_truncates"]
            else ""
        )
        return f"inconsistent: {value} rounds to {rounded}, not {figure}{extra}", None
    if rep["_rounds"] and rep["_truncates"]:
        return (
            f"consistent when rounded and when truncated ({value} rounds and "
            f"truncates to {figure})",
            "rounded and truncated",
        )
    if rep["_rounds"]:
        return (
            f"consistent when rounded ({value} rounds to {figure}; it truncates to "
            f"{truncated})",
            "rounded",
        )
    if rep["_truncates"]:
        return (
            f"consistent when truncated ({value} truncates to {figure}; it rounds to "
            f"{rounded})",
            "truncated",
        )
    return (
        f"inconsistent: {value} neither rounds nor truncates to {figure} (rounds to "
        f"{rounded}, truncates to {truncated})",
        None,
    )


def _aggregate_text(claim: Claim, judged: pl.DataFrame) -> str:
    """How the representative was chosen, when more than one pair matched."""
    count = judged.height
    if count < 2:
        return ""
    word = _KIND_WORD[claim.kind] + "s"
    scenario = judged["scenario"][0]
    scenarios = judged.select(pl.col("scenario").unique().sort().str.join(", ")).item()
    if claim.qualifier == "up to":
        return f"maximum of {count} matching {word} ({scenarios}) is {scenario}: "
    if claim.qualifier in ("at least", "over"):
        return f"minimum of {count} matching {word} ({scenarios}) is {scenario}: "
    failing = int((~judged["_passes"]).sum())
    if failing:
        return (
            f"{failing} of {count} matching {word} ({scenarios}) disagree, "
            f"e.g. {scenario}: "
        )
    return f"all {count} matching {word} ({scenarios}) agree; furthest is {scenario}: "


def _end_label(rep: Mapping[str, Any], end: str) -> str:
    return f"{rep[f'release_{end}']} {rep[f'submitter_{end}']} {rep[f'platform_{end}']}"


def _flag_caveat(
    rep: Mapping[str, Any], ends: Sequence[str], flag: str, what: tuple[str, str]
) -> str:
    """A caveat naming the end(s) carrying ``flag``; ``what`` is (singular, plural)."""
    flagged = [e for e in ends if rep[f"{flag}_{e}"]]
    one, many = what
    if not flagged:
        return ""
    if len(ends) == 1:
        return f"the result is {one}"
    if len(flagged) == len(ends):
        return f"both ends are {many}"
    return f"one end is {one}: {_end_label(rep, flagged[0])}"


_PREVIEW = (
    "a preview submission (not yet available)",
    "preview submissions (not yet available)",
)
_INFERRED = ("marked inferred upstream", "marked inferred upstream")


def _scale_text(rep: Mapping[str, Any]) -> str:
    old, new = rep["total_accelerators_old"], rep["total_accelerators_new"]
    return (
        f"{old}-accelerator result in {rep['release_old']} vs "
        f"{new}-accelerator result in {rep['release_new']}"
    )


def _caveats(claim: Claim, reading: Reading, rep: Mapping[str, Any]) -> list[str]:
    ends = [e for e in ("old", "new") if rep[f"result_key_{e}"] is not None]
    caveats = [
        _flag_caveat(rep, ends, "is_preview", _PREVIEW),
        _flag_caveat(rep, ends, "is_inferred", _INFERRED),
    ]
    rdi = [e for e in ends if rep[f"availability_{e}"] == "rdi"]
    if rdi:
        caveats.append(
            "research, development or internal (RDI) system: "
            + "; ".join(_end_label(rep, e) for e in rdi)
        )
    if reading.is_per_accelerator:
        caveats.append(f"compared per accelerator: {_scale_text(rep)}")
    if not reading.keeps_identity and claim.submitters:
        others = [e for e in ends if rep[f"submitter_{e}"] not in claim.submitters]
        for end in others:
            named = ", ".join(claim.submitters)
            caveats.append(
                f"uses another submitter's result: {rep[f'submitter_{end}']} in "
                f"{rep[f'release_{end}']} (the claim names {named})"
            )
    return [c for c in caveats if c]


def _context(claim: Claim) -> str:
    return f"{claim.benchmark} {'/'.join(claim.scenarios)} ({claim.division})"


@dataclass(frozen=True)
class _End:
    """What one end of a claim needs to exist in the results table."""

    release: str
    accelerators: tuple[str, ...]
    count: int | None


def _claim_ends(claim: Claim, reading: Reading) -> list[_End]:
    counts: Sequence[int | None] = (
        claim.total_accelerators
        if reading.keeps_scale and claim.total_accelerators
        else [None] * claim.ends
    )
    if claim.kind == "software_gain":
        return [
            _End(r, claim.accelerators, c)
            for r, c in zip(claim.releases, counts, strict=True)
        ]
    if claim.kind == "generation_ratio":
        return [
            _End(claim.releases[0], (a,), c)
            for a, c in zip(claim.accelerators, counts, strict=True)
        ]
    return [_End(claim.releases[0], claim.accelerators, c) for c in counts]


def _missing_end(
    results: pl.DataFrame, claim: Claim, reading: Reading, end: _End
) -> str | None:
    """The first requirement of an end that no published result meets, or None."""
    context = _context(claim)
    accs = " or ".join(end.accelerators)
    steps: list[tuple[pl.Expr, str]] = [
        (pl.col("release") == end.release, f"no {end.release} results in the data"),
        (
            (pl.col("benchmark") == claim.benchmark)
            & (pl.col("division") == claim.division),
            f"no {claim.division}-division {claim.benchmark} results in {end.release}",
        ),
        (_in("scenario", claim.scenarios), f"no {context} results in {end.release}"),
    ]
    if claim.kind == "absolute_result":
        steps.append(
            (
                pl.col("is_higher_better").fill_null(False),
                f"{context} results in {end.release} are latencies; absolute claims "
                "are checked on throughput only",
            )
        )
    if end.accelerators:
        steps.append(
            (
                _in("accelerator_id", end.accelerators),
                f"no {accs} results for {context} in {end.release}",
            )
        )
    who = ""
    if reading.keeps_identity and claim.submitters:
        who = f"{', '.join(claim.submitters)} "
        steps.append(
            (
                _in("submitter", claim.submitters),
                f"no results from {', '.join(claim.submitters)} for {context} "
                f"in {end.release}" + (f" on {accs}" if accs else ""),
            )
        )
    if reading.keeps_identity and claim.systems:
        steps.append(
            (
                _in("platform", claim.systems),
                f"no results on system(s) {', '.join(claim.systems)} for {context} "
                f"in {end.release}",
            )
        )
    cumulative = pl.lit(True)
    sums = []
    for i, (expr, _) in enumerate(steps):
        cumulative = cumulative & expr
        sums.append(cumulative.sum().alias(str(i)))
    found = results.select(sums).row(0)
    for (_, message), n in zip(steps, found, strict=True):
        if n == 0:
            return message
    if end.count is not None and not (
        results.filter(cumulative & (pl.col("total_accelerators") == end.count)).height
    ):
        counts = (
            results.filter(cumulative)
            .get_column("total_accelerators")
            .drop_nulls()
            .unique()
            .sort()
            .to_list()
        )
        published = ", ".join(str(c) for c in counts) or "no"
        on = f" on {accs}" if accs else ""
        return (
            f"no result at that scale: {who}{context} results{on} in {end.release} "
            f"have {published} accelerators, not {end.count}"
        )
    return None


def _not_reproducible(
    results: pl.DataFrame,
    claim: Claim,
    reading: Reading,
    registry: AcceleratorRegistry,
) -> str:
    """Why no published pair or result matches one reading of a claim."""
    if claim.kind == "generation_ratio":
        old, new = claim.accelerators
        successor = registry.get(new)
        predecessor = successor.predecessor if successor else None
        if predecessor != old:
            return (
                f"the accelerator registry lists {predecessor or 'no predecessor'} as "
                f"the predecessor of {new}, not {old}; generation ratios only compare "
                "an accelerator with its registered predecessor"
            )
    counts = claim.total_accelerators
    if (
        reading.keeps_scale
        and counts
        and claim.kind in ("software_gain", "generation_ratio")
        and counts[0] != counts[1]
    ):
        return (
            f"this reading compares equal accelerator counts at both ends; the claim "
            f"compares {counts[0]} with {counts[1]}"
        )
    for end in _claim_ends(claim, reading):
        missing = _missing_end(results, claim, reading, end)
        if missing:
            return missing
    if claim.kind == "absolute_result":
        return f"no published result matches the claim ({_context(claim)})"
    return (
        f"results exist at both ends, but the {_PAIR_TABLES[claim.kind]} table has no "
        f"{reading.label} pair of them: the analysis left it out (not comparable, or "
        "outside its scope; see its exclusions)"
    )


# --------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------


def _row(claim: Claim, reading: Reading, **values: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(EVALUATION_SCHEMA)
    row.update(
        claim_id=claim.id,
        title=claim.display_title,
        claimant=claim.claimant,
        kind=claim.kind,
        releases=list(claim.releases),
        reading=reading.label,
        identity_level=reading.identity_level,
        is_per_accelerator=reading.is_per_accelerator,
        figure=claim.figure,
        qualifier=claim.qualifier,
        decimals=claim.decimals,
        benchmark=claim.benchmark,
        division=claim.division,
        matches=0,
        caveats=[],
    )
    row.update(values)
    return row


def _evaluated_row(
    claim: Claim, reading: Reading, judged: pl.DataFrame
) -> dict[str, Any]:
    rep = judged.row(0, named=True)
    rule, match_rule = _rule_text(claim, rep)
    return _row(
        claim,
        reading,
        verdict="consistent" if rep["_passes"] else "inconsistent",
        value=rep["value"],
        match_rule=match_rule,
        matches=judged.height,
        scenario=rep["scenario"],
        **{c: rep[c] for c in _END_COLUMNS},
        reason=_aggregate_text(claim, judged) + rule,
        caveats=_caveats(claim, reading, rep),
    )


def _only_per_accelerator(claim: Claim, rows: list[dict[str, Any]]) -> None:
    """Mark per-accelerator readings that are the only ones a claim holds in.

    A per-accelerator ratio may set an 8-GPU result against a 72-GPU one; when no
    like-for-like reading agrees with the claim, the reader must see that first.
    """
    if any(r["verdict"] == "consistent" and not r["is_per_accelerator"] for r in rows):
        return
    for row in rows:
        if not (row["is_per_accelerator"] and row["verdict"] == "consistent"):
            continue
        text = f"holds only per accelerator: {_scale_text(row)}"
        counts = claim.total_accelerators
        if counts and (
            row["total_accelerators_old"],
            row["total_accelerators_new"],
        ) != tuple(counts):
            text += f" (the claim names {counts[0]} → {counts[1]})"
        row["caveats"] = [
            text,
            *[
                c
                for c in row["caveats"]
                if not c.startswith("compared per accelerator")
            ],
        ]


def evaluate_claims(
    claims: Sequence[Claim],
    results: pl.LazyFrame | pl.DataFrame,
    gains: pl.LazyFrame | pl.DataFrame,
    generations: pl.LazyFrame | pl.DataFrame,
    scaling: pl.LazyFrame | pl.DataFrame,
    *,
    registry: AcceleratorRegistry | None = None,
) -> pl.DataFrame:
    """Check every claim in every applicable reading against the published data.

    The pair tables are the ones the site publishes (``pipeline.analysis``), so a
    claim is judged on exactly the numbers a reader can look up; the results table is
    used for absolute claims and to explain what is missing when nothing matches.
    Matching and the rounding rules run in Polars; Python only loops over claims and
    their few readings, and formats one representative row per reading.

    Args:
        claims: from ``load_claims``.
        results: the canonical results table (``RESULTS_SCHEMA``, accelerator columns
            optional: they are attached here).
        gains: ``software_gains`` output (``PAIR_SCHEMA``).
        generations: ``generation_ratios`` output (``PAIR_SCHEMA``).
        scaling: ``scaling`` output (``PAIR_SCHEMA``).
        registry: accelerator registry other than the committed one (tests).

    Returns:
        ``EVALUATION_SCHEMA``: one row per (claim, reading), in registry order.
    """
    registry = registry or load_accelerators()
    # Only the releases the claims name are needed (absolute claims, diagnostics).
    releases = sorted({r for claim in claims for r in claim.releases})
    attached = attach_accelerators(
        results.lazy().filter(pl.col("release").is_in(releases)), registry
    ).collect()
    tables = {
        "software_gain": gains.lazy(),
        "generation_ratio": generations.lazy(),
        "scaling_efficiency": scaling.lazy(),
        "absolute_result": attached.lazy(),
    }
    plan = [(claim, reading) for claim in claims for reading in readings_for(claim)]
    queries = [
        _judged(
            _absolute_matches(tables[claim.kind], claim, reading)
            if claim.kind == "absolute_result"
            else _pair_matches(tables[claim.kind], claim, reading),
            claim,
        )
        for claim, reading in plan
    ]
    judged_frames = pl.collect_all(queries) if queries else []
    by_claim: dict[str, list[dict[str, Any]]] = {c.id: [] for c in claims}
    for (claim, reading), judged in zip(plan, judged_frames, strict=True):
        if judged.height:
            row = _evaluated_row(claim, reading, judged)
        else:
            row = _row(
                claim,
                reading,
                verdict="not reproducible",
                reason="not reproducible: "
                + _not_reproducible(attached, claim, reading, registry),
            )
        by_claim[claim.id].append(row)
    for claim in claims:
        _only_per_accelerator(claim, by_claim[claim.id])
    rows = [row for claim in claims for row in by_claim[claim.id]]
    return pl.DataFrame(rows, schema=EVALUATION_SCHEMA)


def claim_verdicts(evaluations: pl.DataFrame) -> pl.DataFrame:
    """One overall verdict per claim, and which readings agree with it.

    A claim is ``consistent`` if any reading is (the page shows which, and their
    caveats), ``inconsistent`` if it is reproducible in some reading and consistent in
    none, and ``not reproducible`` if no reading finds published results.

    Args:
        evaluations: ``evaluate_claims`` output.

    Returns:
        ``VERDICT_SCHEMA``, one row per claim in the order of ``evaluations``.
    """
    consistent = pl.col("verdict") == "consistent"
    reproducible = pl.col("verdict") != "not reproducible"
    per_acc_only = (
        pl.col("is_per_accelerator").filter(consistent).all() & consistent.any()
    )
    verdict = (
        pl.when(consistent.any())
        .then(pl.lit("consistent"))
        .when(reproducible.any())
        .then(pl.lit("inconsistent"))
        .otherwise(pl.lit("not reproducible"))
    )
    grouped = evaluations.group_by("claim_id", maintain_order=True).agg(
        pl.col("title").first(),
        pl.col("claimant").first(),
        pl.col("kind").first(),
        pl.col("releases").first(),
        verdict.alias("verdict"),
        pl.col("reading").filter(consistent).alias("matching_readings"),
        pl.col("reading").alias("readings"),
        per_acc_only.alias("is_per_accelerator_only"),
        reproducible.sum().alias("_reproducible"),
        pl.col("reason").first().alias("_first_reason"),
    )
    matching = pl.col("matching_readings")
    readings = pl.col("readings").list.len()
    noun = pl.when(readings == 1).then(pl.lit("reading")).otherwise(pl.lit("readings"))
    summary = (
        pl.when(pl.col("verdict") == "consistent")
        .then(
            pl.format(
                "consistent in {} of {} {}: {}",
                matching.list.len(),
                readings,
                noun,
                matching.list.join(", "),
            )
            + pl.when(pl.col("is_per_accelerator_only"))
            .then(pl.lit("; holds only per accelerator"))
            .otherwise(pl.lit(""))
        )
        .when(pl.col("verdict") == "inconsistent")
        .then(
            pl.format(
                "inconsistent in every reproducible reading ({} of {} {})",
                pl.col("_reproducible"),
                readings,
                noun,
            )
        )
        .otherwise(pl.col("_first_reason"))
    )
    return (
        grouped.with_columns(summary.alias("summary"))
        .select(list(VERDICT_SCHEMA))
        .cast(VERDICT_SCHEMA)
    )
