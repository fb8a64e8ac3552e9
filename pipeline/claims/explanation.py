"""What a reader is told: why a reading passes or fails, its caveats, what is missing.

A handful of strings per claim, each built from one representative row; when nothing
matches, the results table is queried for the first requirement no result meets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from pipeline.claims.readings import Reading, is_in, latency_checkable
from pipeline.registry.accelerators import AcceleratorRegistry
from pipeline.registry.claims import Claim

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


def rule_text(claim: Claim, rep: Mapping[str, Any]) -> tuple[str, str | None]:
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


def aggregate_text(claim: Claim, judged: pl.DataFrame) -> str:
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
_INFERRED = (
    "inferred from another scenario's run",
    "inferred from other scenarios' runs",
)
#: Upstream's mark where nothing read can tell (``is_inferred_unverified``).
_MARKED = (
    "marked inferred upstream, a mark its checker also gives measured results",
    "marked inferred upstream, a mark their checker also gives measured results",
)


def scale_text(rep: Mapping[str, Any]) -> str:
    """The two ends' scales of an evaluation row, for per-accelerator caveats."""
    old, new = rep["total_accelerators_old"], rep["total_accelerators_new"]
    return (
        f"{old}-accelerator result in {rep['release_old']} vs "
        f"{new}-accelerator result in {rep['release_new']}"
    )


def reading_caveats(
    claim: Claim, reading: Reading, rep: Mapping[str, Any]
) -> list[str]:
    """Caveats of one reading's representative row (preview, RDI, other submitter)."""
    ends = [e for e in ("old", "new") if rep[f"result_key_{e}"] is not None]
    caveats = [
        _flag_caveat(rep, ends, "is_preview", _PREVIEW),
        _flag_caveat(rep, ends, "is_inferred", _INFERRED),
        _flag_caveat(rep, ends, "is_inferred_unverified", _MARKED),
    ]
    rdi = [e for e in ends if rep[f"availability_{e}"] == "rdi"]
    if rdi:
        caveats.append(
            "research, development or internal (RDI) system: "
            + "; ".join(_end_label(rep, e) for e in rdi)
        )
    if reading.is_per_accelerator:
        caveats.append(f"compared per accelerator: {scale_text(rep)}")
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
        (is_in("scenario", claim.scenarios), f"no {context} results in {end.release}"),
    ]
    if claim.kind == "absolute_result" and not latency_checkable(claim):
        steps.append(
            (
                pl.col("is_higher_better").fill_null(False),
                f"{context} results in {end.release} are latencies; absolute claims "
                "are checked on throughput unless stated exactly or about",
            )
        )
    if end.accelerators:
        steps.append(
            (
                is_in("accelerator_id", end.accelerators),
                f"no {accs} results for {context} in {end.release}",
            )
        )
    if claim.per_accelerator:
        on = f" on {accs}" if accs else ""
        steps.append(
            (
                pl.col("result_per_accelerator").is_not_null(),
                f"{context} results{on} in {end.release} have no per-accelerator "
                "value (mixed accelerators or no accelerator count)",
            )
        )
    who = ""
    if reading.keeps_identity and claim.submitters:
        who = f"{', '.join(claim.submitters)} "
        steps.append(
            (
                is_in("submitter", claim.submitters),
                f"no results from {', '.join(claim.submitters)} for {context} "
                f"in {end.release}" + (f" on {accs}" if accs else ""),
            )
        )
    if reading.keeps_identity and claim.systems:
        steps.append(
            (
                is_in("platform", claim.systems),
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


def not_reproducible_reason(
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
