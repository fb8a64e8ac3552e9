"""The canonical results table: its schema, its vocabularies, the one step to it.

``canonicalise`` builds the table from any extractor's staged rows, lazily.

Both extractors (``pipeline.extract.summary`` for the published summary files,
``pipeline.extract.raw_tree`` for the raw submission tree) only parse: bytes become
staged rows (``STAGED_SCHEMA``) that say what upstream wrote and, where the extractor
already knows, why a record cannot be a result (``problem``). ``canonicalise`` is the
single place that validates fields against the round's rules and the vocabularies
below, converts units, derives counts and keys, and splits every staged row into
exactly one canonical row or one rejected row with its reason. Nothing is dropped
silently.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import NamedTuple

import polars as pl

from pipeline.registry.benchmarks import benchmark_aliases, unit_corrections
from pipeline.registry.rounds import SCENARIOS, RoundRules
from pipeline.registry.vocabulary import vocabulary_aliases

#: Lower-case spelling -> canonical scenario (folders and summaries vary in case).
SCENARIO_SPELLINGS = {s.lower(): s for s in SCENARIOS}
#: Every division any round has used (each round's own list is in its rules).
DIVISIONS = ("closed", "open", "network")
AVAILABILITIES = ("available", "preview", "rdi")
#: An availability word that is neither canonical nor a reviewed alias
#: (``registry/vocabulary.toml``): the result is kept, its word in
#: ``availability_upstream``.
UNKNOWN = "unknown"
#: Placeholders submitters write for "none" in names and counts.
PLACEHOLDERS = ("", "n/a", "na", "none", "-", "null")


class Unit(NamedTuple):
    """A unit as upstream (or a round's rules) names it, and its canonical form.

    The value in the canonical unit is ``value * multiply / divide`` (two exact
    factors rather than one rounded one, so ``ns / 1e6`` stays what it always was).
    """

    canonical: str
    multiply: float = 1.0
    divide: float = 1.0
    is_higher_better: bool = True


UNITS: dict[str, Unit] = {
    "Tokens/s": Unit("Tokens/s"),
    "Samples/s": Unit("Samples/s"),
    "Queries/s": Unit("Queries/s"),
    "Tasks/s": Unit("Tasks/s"),
    # Before v2.0 MultiStream reported how many samples each query carried at the
    # latency bound: higher is better, and nothing later measures the same thing.
    "Samples/query": Unit("Samples/query"),
    "Latency (ms)": Unit("Latency (ms)", is_higher_better=False),
    # v6.0 and v6.1 report some latencies in seconds, loadgen logs in nanoseconds;
    # one unit keeps them comparable.
    "Latency (s)": Unit("Latency (ms)", multiply=1000.0, is_higher_better=False),
    "Latency (ns)": Unit("Latency (ms)", divide=1e6, is_higher_better=False),
}
#: Canonical units (the ``result_unit`` vocabulary).
CANONICAL_UNITS = tuple(dict.fromkeys(u.canonical for u in UNITS.values()))

#: Plausible values, inclusive, of a result in each canonical unit. Why these bounds:
#: the largest values of every mirrored round (v0.5 to v6.1, summaries and raw trees,
#: 13,344 rows) are 5.75e6 Tokens/s, 2.59e6 Samples/s, 2.62e6 Queries/s, 0.46 Tasks/s,
#: 8,704 Samples/query and 57,402 ms, the smallest 0.0138 Samples/s and 0.119 ms, so
#: each bound leaves at least five orders of magnitude of margin. They also keep every
#: number later steps derive finite and within a 64-bit integer: the widest ratio of
#: two results is 1e18, a value times the most accelerators 1e17. A value outside its
#: range (1e308, 5e-324) is a broken record, rejected with the field and value named.
RESULT_RANGES: dict[str, tuple[float, float]] = {
    "Tokens/s": (1e-6, 1e12),
    "Samples/s": (1e-6, 1e12),
    "Queries/s": (1e-6, 1e12),
    "Tasks/s": (1e-6, 1e12),
    "Samples/query": (1e-6, 1e12),
    "Latency (ms)": (1e-6, 1e9),  # 1 ns to 11.6 days
}
#: Plausible counts, inclusive. The real maxima are 72 nodes, 256 accelerators per
#: node and 512 accelerators in all (minima 1, 0 and 0: CPU-only systems count no
#: accelerators); 100,000 leaves a wide margin and keeps every count, and a derived
#: total (nodes x per node), far inside ``pl.Int32``.
COUNT_RANGES: dict[str, tuple[int, int]] = {
    "nodes_raw": (1, 100_000),
    "apn_raw": (0, 100_000),
    "total_raw": (0, 100_000),
}
#: Plausible power results, inclusive, in the unit upstream gives (Watts or
#: millijoules): the real ones are 27.5 to 10,442.
POWER_RANGE: tuple[float, float] = (1e-6, 1e9)

RESULTS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "result_key": pl.String,
    "result_id": pl.String,
    "submitter": pl.String,
    "division": pl.String,
    #: The division as upstream wrote it ("unknown" in ``division`` when it is none
    #: of the round's).
    "division_upstream": pl.String,
    "category": pl.String,
    "availability": pl.String,
    #: The availability (status) as upstream wrote it, whatever the word.
    "availability_upstream": pl.String,
    "is_preview": pl.Boolean,
    "system_name": pl.String,
    "platform": pl.String,
    "benchmark": pl.String,
    "benchmark_upstream": pl.String,
    "model_upstream": pl.String,
    "scenario": pl.String,
    "result_value": pl.Float64,
    "result_unit": pl.String,
    "result_value_upstream": pl.Float64,
    "result_unit_upstream": pl.String,
    "unit_correction": pl.String,
    "is_higher_better": pl.Boolean,
    "result_per_accelerator": pl.Float64,
    "power_value": pl.Float64,
    "power_unit": pl.String,
    "nodes": pl.Int32,
    "accelerators_per_node": pl.Int32,
    "total_accelerators": pl.Int32,
    "is_total_accelerators_derived": pl.Boolean,
    # The declared count (total, else nodes x per node) always stands; where the
    # accelerator name states another count ("... (x87)" beside 11 x 8 = 88), why
    # the two disagree is said here (null: no count named, or the same one).
    "accelerator_count_note": pl.String,
    "accelerator_name": pl.String,
    "accelerator_upstream": pl.String,
    "host_cpu_name": pl.String,
    "software": pl.String,
    "weight_data_types": pl.String,
    #: The accuracy upstream publishes for the result, as written: the summary's
    #: (v4.1 on: "ROUGE1: 44.5  ROUGE2: 22.1 ...") or a raw tree's accuracy.txt as
    #: the round's checker reads it ("F1: 90.874"; registry/accuracy.toml).
    "accuracy_upstream": pl.String,
    #: Why a raw tree's accuracy.txt that was read gives no accuracy_upstream.
    "accuracy_note": pl.String,
    #: The system's design power as the summary declares it (v6.1's
    #: design_power_watts), in Watts: a declaration, not a measurement, never used
    #: for energy or performance per watt. Positive and finite, else null with
    #: design_power_note saying why.
    "design_power_watts_declared": pl.Float64,
    "design_power_note": pl.String,
    #: Name fields (``NFC_FIELDS``) upstream declared not composed (NFD): composed
    #: here, listed on Audit so a composed/decomposed pair is seen.
    "names_composed": pl.List(pl.String),
    # Inferred from another scenario's run, as this project judges it (the log where
    # the raw tree is read, else upstream's mark unless the round's registry says it
    # misleads there: pipeline/transform/inferred.py).
    "is_inferred": pl.Boolean,
    # Upstream's own mark (null: the round's summary has none, or no summary read).
    "is_inferred_upstream": pl.Boolean,
    # Marked inferred upstream where the mark is known to mislead and the summary
    # alone cannot tell: not called inferred, but a badge says it is marked.
    "is_inferred_unverified": pl.Boolean,
    # What is known where upstream's mark is not taken at its word.
    "inferred_note": pl.String,
    "location": pl.String,
    "result_url": pl.String,
    #: The upstream commit the row was read at (null: the source could not say).
    "upstream_commit": pl.String,
    "source_file": pl.String,
    "source_record": pl.String,
    "snapshot_sha256": pl.String,
}

REJECTED_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "source_file": pl.String,
    "source_record": pl.String,
    "result_key": pl.String,
    "reason": pl.String,
    "record_json": pl.String,
    "snapshot_sha256": pl.String,
}

#: What an extractor hands to ``canonicalise``: one row per upstream record, values
#: as upstream wrote them (strings), except what the extractor had to compute.
STAGED_SCHEMA: dict[str, pl.DataType] = {
    # Provenance and the extractor's verdict.
    "source_file": pl.String,
    "source_record": pl.String,
    "record_order": pl.Int64,  # first in this order wins a duplicate key
    "record_label": pl.String,  # names the record in a duplicate-key message
    "record_json": pl.String,
    "snapshot_sha256": pl.String,
    "problem": pl.String,  # why the extractor could not read a result, or null
    "field_source": pl.String,  # file the descriptive fields came from, if not this
    # Identity.
    "result_id": pl.String,
    "key_model": pl.String,  # model part of the fallback key (null: the benchmark)
    "submitter": pl.String,
    "division": pl.String,
    "category": pl.String,
    "availability": pl.String,
    "system_name": pl.String,
    "platform": pl.String,
    "benchmark_upstream": pl.String,
    "model_upstream": pl.String,
    "scenario_upstream": pl.String,
    # The result.
    "value": pl.Float64,
    "value_text": pl.String,
    "unit_raw": pl.String,
    "unit_upstream": pl.String,  # what upstream called it, when not unit_raw
    "is_inferred": pl.Boolean,
    "power_raw": pl.String,
    "power_unit_raw": pl.String,
    # The system.
    "nodes_raw": pl.String,
    "apn_raw": pl.String,
    "total_raw": pl.String,
    "accelerator_upstream": pl.String,
    "cpu_raw": pl.String,
    "software": pl.String,
    "weight_data_types": pl.String,
    # The accuracy the summary or accuracy.txt publishes, as written, and why a read
    # accuracy.txt gives none.
    "accuracy_upstream": pl.String,
    "accuracy_note": pl.String,
    # A declared design power as written (never a measurement).
    "design_power_raw": pl.String,
    "location": pl.String,
}
#: Fields without which a record cannot be a result.
REQUIRED = (
    "submitter", "division", "platform", "benchmark_upstream", "scenario_upstream",
    "value_text", "unit_raw", "availability",
)  # fmt: skip
#: Staged fields whose messages name the extractor's own field name.
NAMED_FIELDS = (*REQUIRED, "nodes_raw", "apn_raw", "total_raw")


#: Names normalised to Unicode NFC where they enter the canonical table.
NFC_FIELDS = (
    "submitter",
    "system_name",
    "platform",
    "accelerator_upstream",
    "software",
)


def reason_when(condition: pl.Expr, message: pl.Expr | str) -> pl.Expr:
    """``message`` where ``condition`` holds, else null (one check of a reason list)."""
    text = pl.lit(message) if isinstance(message, str) else message
    return pl.when(condition).then(text)


def _placeholder(expr: pl.Expr) -> pl.Expr:
    return expr.str.strip_chars().str.to_lowercase().is_in(PLACEHOLDERS)


def _text(name: str) -> pl.Expr:
    """A trimmed string field; blanks and placeholders such as "N/A" become null."""
    text = pl.col(name).str.strip_chars()
    return pl.when(_placeholder(text)).then(None).otherwise(text)


def _count(name: str) -> pl.Expr:
    """A count written as 8, "8", "8.0"; placeholders become null."""
    return (
        _text(name).cast(pl.Float64, strict=False).round(0).cast(pl.Int32, strict=False)
    )


def _is_bad_count(name: str) -> pl.Expr:
    """Written, but not a whole non-negative number ("eight", "-1", "1.5", "NaN")."""
    number = _number(name)
    return _text(name).is_not_null() & (
        number.is_null()
        | ~number.is_finite()
        | (number < 0)
        | (number != number.floor())
    )


def _bounds(low: float, high: float) -> str:
    return f"[{low:g}, {high:g}]"


def _outside(value: pl.Expr, low: float, high: float) -> pl.Expr:
    """A written number outside ``[low, high]`` (NaN is outside every range)."""
    return value.is_not_null() & ~((value >= low) & (value <= high))


def strip_count_suffix(name: pl.Expr) -> pl.Expr:
    """Drop per-system counts such as " (x87)" or " (x2x8)" from hardware names."""
    return name.str.replace_all(r"\s*\(x[\dx]+\)", "").str.strip_chars()


def named_accelerator_count(name: pl.Expr) -> pl.Expr:
    """The count an accelerator name states in its "(xN)" suffixes, summed; or null.

    "MI355X (x87)" -> 87; a mix "MI300X (x2x8) and MI355X (x2x8)" -> 16 + 16 = 32
    (each suffix a product of its factors, as ``strip_count_suffix`` reads them).
    Folder names are not read: they name CPU counts too ("22xEPYC") and mix
    per-node and total counts ("9x8xMI355X").
    """
    factors = (
        pl.element()
        .str.strip_prefix("(x")
        .str.strip_suffix(")")
        .str.split("x")
        .list.eval(pl.element().cast(pl.Int64, strict=False))
        .list.eval(pl.element().product())
        .list.first()
    )
    counts = name.str.extract_all(r"\(x\d+(?:x\d+)*\)").list.eval(factors)
    return pl.when(counts.list.len() > 0).then(counts.list.sum())


def accelerator_count_note(
    total: pl.Expr, nodes: pl.Expr, per_node: pl.Expr, accelerator: pl.Expr
) -> pl.Expr:
    """Why the declared count and the accelerator name's count disagree, or null.

    The declared count stands (it is what the submission declares in its system
    description and summary fields); the note makes the disagreement visible.
    """
    named = named_accelerator_count(accelerator)
    return (
        pl.when(named.is_not_null() & total.is_not_null() & (named != total))
        .then(
            pl.format(
                "declared {} accelerators ({} nodes × {} per node), but the "
                "accelerator name '{}' states {}; the declared count is used",
                total,
                nodes.cast(pl.String).fill_null("?"),
                per_node.cast(pl.String).fill_null("?"),
                accelerator,
                named,
            )
        )
        .otherwise(pl.lit(None, pl.String))
    )


def strip_count_prefix(name: pl.Expr) -> pl.Expr:
    """Drop a leading count such as "2x" from CPU names (v4.1 writes "2xAMD EPYC")."""
    return name.str.replace(r"^\d+\s*x\s*", "").str.strip_chars()


def _unit_corrections(release: str) -> pl.LazyFrame:
    """This release's reviewed unit corrections, keyed like the staged rows."""
    rows = [c for c in unit_corrections() if release in c["releases"]]
    return pl.LazyFrame(
        {
            "benchmark": [c["benchmark"] for c in rows],
            "scenario": [c["scenario"] for c in rows],
            "unit_raw": [c["upstream_unit"] for c in rows],
            "corrected_unit": [c["unit"] for c in rows],
            "unit_correction": [c["reason"] for c in rows],
        },
        schema=dict.fromkeys(
            ["benchmark", "scenario", "unit_raw", "corrected_unit", "unit_correction"],
            pl.String,
        ),
    )


def _division(rules: RoundRules, from_folder: bool) -> pl.Expr:
    """A summary's division word, case-folded; one outside the round's is "unknown".

    A published record is never rejected for its vocabulary (the word stays in
    ``division_upstream``). A raw-tree folder is kept as spelled: every round's
    checker reads a division folder only when spelled exactly, so a folder outside
    the round's divisions is not part of the submission and is rejected by name.
    """
    if from_folder:
        return pl.col("division")
    folded = pl.col("division").str.to_lowercase()
    return (
        pl.when(pl.col("division").is_null())
        .then(None)
        .when(folded.is_in(list(rules.divisions)))
        .then(folded)
        .otherwise(pl.lit(UNKNOWN))
    )


def _leaves_repository(location: pl.Expr) -> pl.Expr:
    """Whether a path from upstream, made part of a URL, could leave its repository.

    Browsers resolve ``.`` and ``..`` segments (``%2e`` decoded, a backslash read as
    ``/``) before fetching, so ``tree/<commit>/../../other/repo`` is another one.
    """
    decoded = location.str.replace_all(r"(?i)%2e", ".").str.replace_all(
        r"(?i)%2f|%5c|\\", "/"
    )
    return decoded.str.contains(r"(^|/)\.{1,2}(/|$)").fill_null(False) | (
        decoded.str.starts_with("/").fill_null(False)
    )


def _field_checks(
    rules: RoundRules, names: Mapping[str, str], sourced: Collection[str]
) -> list[pl.Expr]:
    """One reason per failed check of a record the extractor could read."""
    in_source = (
        pl.when(pl.col("field_source").is_not_null())
        .then(pl.format(" in {}", "field_source"))
        .otherwise(pl.lit(""))
    )

    def say(template: str, *args: pl.Expr | str, field: str) -> pl.Expr:
        if field in sourced:
            return pl.format(template + "{}", *args, in_source)
        return pl.format(template, *args) if args else pl.lit(template)

    checks = [
        reason_when(
            pl.col(name).is_null(), say(f"missing field '{names[name]}'", field=name)
        )
        for name in REQUIRED
    ]
    value, text = pl.col("value"), pl.col("value_text")
    value_name = names["value_text"]
    checks += [
        reason_when(
            text.is_not_null() & value.is_null(),
            say(f"{value_name} is not a number: '{{}}'", text, field="value_text"),
        ),
        reason_when(
            value.is_not_null() & ~value.is_finite(),
            say(f"{value_name} is not finite: {{}}", text, field="value_text"),
        ),
        reason_when(
            value.is_finite() & (value <= 0),
            say(f"{value_name} must be positive, got {{}}", text, field="value_text"),
        ),
        reason_when(
            pl.col("scenario_upstream").is_not_null() & pl.col("scenario").is_null(),
            say(
                f"unknown {names['scenario_upstream']} '{{}}'",
                "scenario_upstream",
                field="scenario_upstream",
            ),
        ),
        reason_when(
            pl.col("unit_raw").is_not_null() & ~pl.col("unit_raw").is_in(list(UNITS)),
            say(f"unknown {names['unit_raw']} '{{}}'", "unit_raw", field="unit_raw"),
        ),
        reason_when(
            _leaves_repository(pl.col("location")),
            say(
                f"{names.get('location_raw', 'Location')} '{{}}' leads outside the "
                "round's repository (an absolute path or a '.' or '..' segment, also "
                "percent-encoded or with backslashes); its link would point elsewhere",
                pl.col("location").str.slice(0, 80),
                field="location",
            ),
        ),
        reason_when(
            pl.col("division").is_not_null()
            & ~pl.col("division").is_in([*rules.divisions, UNKNOWN]),
            say(f"unknown {names['division']} '{{}}'", "division", field="division"),
        ),
    ]
    checks += [
        reason_when(
            _is_bad_count(name),
            say(
                f"{names[name]} is not a count: '{{}}'",
                pl.col(name).str.strip_chars(),
                field=name,
            ),
        )
        for name in ("nodes_raw", "apn_raw", "total_raw")
    ]
    checks += _range_checks(names, say)
    return checks


def _range_checks(
    names: Mapping[str, str], say: Callable[..., pl.Expr]
) -> list[pl.Expr]:
    """Finite numbers outside their plausible range (``RESULT_RANGES`` and others).

    The result is compared in its canonical unit; the message names the value and
    unit as upstream wrote them, and the range in that unit.
    """
    value, unit = pl.col("value"), pl.col("unit_raw")
    checks = []
    for upstream, spec in UNITS.items():
        low, high = RESULT_RANGES[spec.canonical]
        canonical = value / spec.divide * spec.multiply
        # The bounds in the upstream unit, for the message ("Latency (ns)").
        shown = (low * spec.divide / spec.multiply, high * spec.divide / spec.multiply)
        checks.append(
            reason_when(
                value.is_finite() & (value > 0) & (unit == upstream)
                & _outside(canonical, low, high),
                say(
                    f"{names['value_text']} {{}} is outside the plausible range "
                    f"{_bounds(*shown)} for {upstream}",
                    value.cast(pl.String),
                    field="value_text",
                ),
            )
        )  # fmt: skip
    for name, (low, high) in COUNT_RANGES.items():
        count = _number(name)
        checks.append(
            reason_when(
                ~_is_bad_count(name) & _outside(count, low, high),
                say(
                    f"{names[name]} {{}} is outside the plausible range "
                    f"{_bounds(low, high)}",
                    _number_text(count),
                    field=name,
                ),
            )
        )
    # Nodes times accelerators per node, when no total is written and both are
    # plausible: the total canonicalise derives must be plausible too.
    both_plausible = [
        ~_is_bad_count(name) & ~_outside(_number(name), *COUNT_RANGES[name])
        for name in ("nodes_raw", "apn_raw")
    ]
    derived = _number("nodes_raw").fill_null(1) * _number("apn_raw")
    total_low, total_high = COUNT_RANGES["total_raw"]
    checks.append(
        reason_when(
            _text("total_raw").is_null()
            & pl.all_horizontal(both_plausible)
            & _outside(derived, total_low, total_high),
            say(
                f"{names['nodes_raw']} x {names['apn_raw']} = {{}} accelerators is "
                f"outside the plausible range {_bounds(total_low, total_high)}",
                _number_text(derived),
                field="nodes_raw",
            ),
        )
    )
    power = _text("power_raw")
    power_number = _number("power_raw")
    power_name = names.get("power_raw", "power")
    checks += [
        reason_when(
            power.is_not_null() & power_number.is_null(),
            say(f"{power_name} is not a number: '{{}}'", power, field="power_raw"),
        ),
        reason_when(
            _outside(power_number, *POWER_RANGE),
            say(
                f"{power_name} {{}} is outside the plausible range "
                f"{_bounds(*POWER_RANGE)}",
                power_number.cast(pl.String),
                field="power_raw",
            ),
        ),
    ]
    return checks


def _declared_power(names: Mapping[str, str]) -> pl.Expr:
    """A declared design power in Watts: positive, finite and plausible, else null."""
    number = _number("design_power_raw")
    return pl.when(
        number.is_finite() & (number > 0) & ~_outside(number, *POWER_RANGE)
    ).then(number)


def _declared_power_note(names: Mapping[str, str]) -> pl.Expr:
    """Why a declared design power is not taken (null: none declared, or taken).

    The result stands: a declaration that is not a number says nothing of it.
    """
    written = _text("design_power_raw")
    name = names.get("design_power_raw", "design power")
    return pl.when(written.is_not_null() & _declared_power(names).is_null()).then(
        pl.format(
            f"{name} '{{}}' is not a positive number of Watts in the plausible range "
            f"{_bounds(*POWER_RANGE)}; not taken",
            written.str.slice(0, 40),
        )
    )


def _number(name: str) -> pl.Expr:
    """A written number as a float; null when absent, a placeholder or not a number."""
    return _text(name).cast(pl.Float64, strict=False)


def _number_text(number: pl.Expr) -> pl.Expr:
    """A count for a message: whole numbers without ".0", others as Polars prints."""
    whole = pl.when(number == number.floor()).then(number.cast(pl.Int64, strict=False))
    return pl.coalesce(whole.cast(pl.String), number.cast(pl.String))


def canonicalise(
    staged: pl.LazyFrame,
    *,
    rules: RoundRules,
    repository: str,
    names: Mapping[str, str],
    sourced: Collection[str] = NAMED_FIELDS,
    commit: str | None = None,
    division_is_folder: bool = False,
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Staged rows of one round to (canonical results, rejected records), lazily.

    Args:
        staged: An extractor's rows, ``STAGED_SCHEMA``.
        rules: The round's rules (divisions; the release named in keys and rows).
        repository: ``owner/name`` on GitHub, for result links.
        commit: The upstream commit the rows were read at; links name it, so they
            keep pointing at what was read after upstream moves on (``HEAD`` when
            the source cannot say).
        names: Each of ``NAMED_FIELDS`` as the extractor's source spells it, so a
            message names the field a person can find upstream.
        sourced: Fields read from the row's ``field_source`` file (a message about
            them says "in <file>").
        division_is_folder: The division is a folder name (the raw tree), kept as
            spelled, not a summary's word to case-fold.

    Returns:
        ``RESULTS_SCHEMA`` rows and ``REJECTED_SCHEMA`` rows; every staged row is in
        exactly one of them.
    """
    missing = sorted(set(NAMED_FIELDS) - set(names))
    if missing:
        raise ValueError(f"canonicalise: no message name for {', '.join(missing)}")
    release = rules.release
    text_fields = [
        "result_id", "key_model", "submitter", "division", "category", "system_name",
        "platform", "benchmark_upstream", "model_upstream", "scenario_upstream",
        "value_text", "unit_raw", "unit_upstream", "power_unit_raw", "software",
        "weight_data_types", "accuracy_upstream", "accuracy_note", "location",
    ]  # fmt: skip
    availability = pl.col("availability").str.strip_chars().str.to_lowercase()
    staged = (
        # Names are compared, grouped and keyed: one spelling per name, NFC, so a
        # decomposed "Cafe\u0301" is the composed "Café" (the raw snapshot keeps
        # the bytes as declared).
        staged.with_columns(
            # Which names arrived not composed (NFD, or mixed): Audit lists them,
            # so a composed/decomposed pair is flagged although it is one name here.
            names_composed=pl.concat_list(
                pl.when(pl.col(n) != pl.col(n).str.normalize("NFC")).then(pl.lit(n))
                for n in NFC_FIELDS
            ).list.drop_nulls()
        )
        .with_columns(pl.col(n).str.normalize("NFC") for n in NFC_FIELDS)
        .with_columns(
            # Blank strings are missing values; a name such as "N/A" is kept as
            # written except where it means "none" (accelerator, counts).
            [
                pl.when(pl.col(n).str.strip_chars() == "")
                .then(None)
                .otherwise(pl.col(n).str.strip_chars())
                .alias(n)
                for n in text_fields
            ],
            availability_raw=pl.col("availability"),
            accelerator_upstream=_text("accelerator_upstream"),
        )
        .with_columns(
            availability=pl.when(availability == "")
            .then(None)
            .when(availability.is_in(AVAILABILITIES))
            .then(availability)
            .otherwise(
                availability.replace_strict(
                    vocabulary_aliases("availability"), default=pl.lit(UNKNOWN)
                )
            ),
            scenario=pl.col("scenario_upstream")
            .str.to_lowercase()
            .replace_strict(SCENARIO_SPELLINGS, default=None),
            benchmark=pl.col("benchmark_upstream").replace(benchmark_aliases()),
            division=_division(rules, division_is_folder),
            division_upstream=pl.col("division"),
        )
        .with_columns(
            result_key=pl.when(pl.col("result_id").is_not_null())
            .then(pl.format("{}:{}:{}", "result_id", "benchmark", "scenario"))
            .otherwise(
                pl.format(
                    "{}:{}/{}/{}/{}/{}",
                    pl.lit(release),
                    "division",
                    "submitter",
                    "platform",
                    pl.coalesce("key_model", "benchmark"),
                    pl.coalesce("scenario", "scenario_upstream"),
                )
            ),
        )
        .with_columns(
            reason=pl.coalesce(
                "problem",
                pl.concat_str(
                    _field_checks(rules, names, sourced),
                    separator="; ",
                    ignore_nulls=True,
                ),
            )
        )
        .with_columns(
            # Later records repeating a key are rejected; the first one stands.
            first_label=pl.col("record_label")
            .sort_by("record_order")
            .first()
            .over("result_key"),
            first_order=pl.col("record_order").min().over("result_key"),
        )
        .with_columns(
            reason=pl.when(pl.col("reason") != "")
            .then("reason")
            .when(pl.col("record_order") != pl.col("first_order"))
            .then(
                pl.format(
                    "duplicate result key {} (first seen in {})",
                    "result_key",
                    "first_label",
                )
            )
        )
    )
    unit = pl.col("unit_raw")
    unit_of = {k: v.canonical for k, v in UNITS.items()}
    higher_of = {u.canonical: u.is_higher_better for u in UNITS.values()}
    nodes = _count("nodes_raw").fill_null(1)
    # No count and no accelerator named: a CPU-only system, zero accelerators.
    apn = (
        pl.when(_text("apn_raw").is_null() & pl.col("accelerator_upstream").is_null())
        .then(pl.lit(0, dtype=pl.Int32))
        .otherwise(_count("apn_raw"))
    )
    accepted = (
        staged.filter(pl.col("reason").is_null())
        .join(
            _unit_corrections(release).rename({"benchmark": "_cb", "scenario": "_cs"}),
            left_on=["benchmark", "scenario", "unit_raw"],
            right_on=["_cb", "_cs", "unit_raw"],
            how="left",
            maintain_order="left",
        )
        .with_columns(
            nodes=nodes,
            accelerators_per_node=apn,
            total_raw_count=_count("total_raw"),
            result_unit=pl.coalesce(
                "corrected_unit", unit.replace_strict(unit_of, default=None)
            ),
            # Divide, then multiply: each step is exact when its factor is 1.
            result_value=pl.col("value")
            / unit.replace_strict(
                {k: v.divide for k, v in UNITS.items()},
                default=None,
                return_dtype=pl.Float64,
            )
            * unit.replace_strict(
                {k: v.multiply for k, v in UNITS.items()},
                default=None,
                return_dtype=pl.Float64,
            ),
        )
        .with_columns(
            total_accelerators=pl.coalesce(
                "total_raw_count", pl.col("nodes") * pl.col("accelerators_per_node")
            ),
            is_higher_better=pl.col("result_unit").replace_strict(
                higher_of, default=True, return_dtype=pl.Boolean
            ),
        )
    )
    results = accepted.select(
        pl.lit(release).alias("release"),
        "result_key",
        "result_id",
        "submitter",
        "division",
        pl.col("division_upstream"),
        pl.col("category").str.to_lowercase().str.replace_all(" ", ""),
        "availability",
        pl.col("availability_raw").str.strip_chars().alias("availability_upstream"),
        (pl.col("availability") == "preview").alias("is_preview"),
        "system_name",
        "platform",
        "benchmark",
        "benchmark_upstream",
        "model_upstream",
        "scenario",
        "result_value",
        "result_unit",
        pl.col("value").alias("result_value_upstream"),
        pl.coalesce("unit_upstream", "unit_raw").alias("result_unit_upstream"),
        "unit_correction",
        "is_higher_better",
        pl.when(pl.col("is_higher_better") & (pl.col("total_accelerators") > 0))
        .then(pl.col("result_value") / pl.col("total_accelerators"))
        .alias("result_per_accelerator"),
        _text("power_raw").cast(pl.Float64, strict=False).alias("power_value"),
        pl.col("power_unit_raw").alias("power_unit"),
        "nodes",
        "accelerators_per_node",
        "total_accelerators",
        pl.col("total_raw_count").is_null().alias("is_total_accelerators_derived"),
        accelerator_count_note(
            pl.col("total_accelerators"),
            pl.col("nodes"),
            pl.col("accelerators_per_node"),
            pl.col("accelerator_upstream"),
        ).alias("accelerator_count_note"),
        strip_count_suffix(pl.col("accelerator_upstream")).alias("accelerator_name"),
        "accelerator_upstream",
        strip_count_prefix(pl.col("cpu_raw")).alias("host_cpu_name"),
        "software",
        "weight_data_types",
        "accuracy_upstream",
        "accuracy_note",
        _declared_power(names).alias("design_power_watts_declared"),
        _declared_power_note(names).alias("design_power_note"),
        "names_composed",
        pl.col("is_inferred").fill_null(False),
        pl.lit(None, pl.Boolean).alias("is_inferred_upstream"),
        pl.lit(False).alias("is_inferred_unverified"),
        pl.lit(None, pl.String).alias("inferred_note"),
        "location",
        pl.format(
            "https://github.com/{}/tree/{}/{}",
            pl.lit(repository),
            pl.lit(commit or "HEAD"),
            "location",
        ).alias("result_url"),
        pl.lit(commit, dtype=pl.String).alias("upstream_commit"),
        "source_file",
        "source_record",
        "snapshot_sha256",
    ).cast(RESULTS_SCHEMA)
    rejected = (
        staged.filter(pl.col("reason").is_not_null())
        .select(
            pl.lit(release).alias("release"),
            "source_file",
            "source_record",
            "result_key",
            "reason",
            "record_json",
            "snapshot_sha256",
        )
        .cast(REJECTED_SCHEMA)
    )
    return results, rejected


def empty_results() -> pl.DataFrame:
    """The canonical table with no rows (rounds with nothing ingested yet)."""
    return pl.DataFrame(schema=RESULTS_SCHEMA)


def empty_rejected() -> pl.DataFrame:
    """The rejected table with no rows."""
    return pl.DataFrame(schema=REJECTED_SCHEMA)
