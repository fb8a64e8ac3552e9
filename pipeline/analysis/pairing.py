"""The pair table shared by software gains, generation ratios and scaling steps.

Every derived number in mlperf-ledger is a ratio between two published results, so
all three analyses emit one schema (``PAIR_SCHEMA``): the kind of comparison, the
identity level it was made at, the ratio, and both ends in full (``*_old`` / ``*_new``)
so a reader can open the two cited results. This module holds that schema, the pairing
machinery the three analyses share (best-of selection, self-join, compatibility flags,
exclusion counts) and the pure check functions the asset checks call. Dagster wiring
does not belong here.

Conventions:
    * ``ratio > 1`` always means the ``_new`` end is better: new/old for throughput,
      old/new for latency.
    * An analysis first builds *candidate* pairs (``CANDIDATE_SCHEMA``), flags the ones
      it must not report with an ``exclusion_reason``, then splits them into the pair
      table and a per-reason count (``EXCLUSIONS_SCHEMA``): nothing is dropped
      silently.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TypedDict, overload

import polars as pl

from pipeline.analysis.accelerators import ensure_attached
from pipeline.analysis.benchmarks import (
    comparable,
    match_key,
    model_lineage,
    precision_change,
    release_order,
    weight_precision,
)
from pipeline.labels import display_name
from pipeline.registry.accelerators import AcceleratorRegistry
from pipeline.registry.benchmarks import CompatibilityRule
from pipeline.registry.releases import load_manifest, version_key

KINDS = ("software_gain", "generation_ratio", "scaling")
IDENTITY_LEVELS: dict[str, tuple[str, ...]] = {
    "software_gain": ("system", "hardware", "accelerator"),
    "generation_ratio": ("best_of_any", "same_submitter"),
    "scaling": ("same_submitter", "best_of_any"),
}

#: Columns describing one end of a pair, each as ``<name>_old`` and ``<name>_new``.
END_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "result_key": pl.String,
    #: Upstream's result ID, the identifier a citation names (null: the round
    #: publishes none, as v6.1's summary and the raw-tree rounds do not).
    "result_id": pl.String,
    "result_url": pl.String,
    "submitter": pl.String,
    "system_name": pl.String,
    "platform": pl.String,
    "accelerator_id": pl.String,
    "accelerator_name": pl.String,
    "total_accelerators": pl.Int32,
    "nodes": pl.Int32,
    "result_value": pl.Float64,
    "result_per_accelerator": pl.Float64,
    "software": pl.String,
    # As declared upstream, and as the precisions registry reads it ("fp16", "fp4").
    "weight_data_types": pl.String,
    "weight_precision": pl.String,
    "availability": pl.String,
    "is_preview": pl.Boolean,
    "is_inferred": pl.Boolean,
    "is_inferred_unverified": pl.Boolean,
}

#: A pair before the plausibility rules have looked at it (``kept_pairs``).
UNFLAGGED_PAIR_SCHEMA: dict[str, pl.DataType] = {
    "kind": pl.String,
    "identity_level": pl.String,
    "is_per_accelerator": pl.Boolean,
    "benchmark": pl.String,
    "scenario": pl.String,
    "division": pl.String,
    "result_unit": pl.String,
    "is_higher_better": pl.Boolean,
    "ratio": pl.Float64,
    "efficiency": pl.Float64,
    **{f"{name}_old": dtype for name, dtype in END_SCHEMA.items()},
    **{f"{name}_new": dtype for name, dtype in END_SCHEMA.items()},
    "has_preview": pl.Boolean,
    "has_inferred": pl.Boolean,
    # Both ends are adjacent rounds upstream (no known round of releases.toml lies
    # between them, whether or not the source holds it) and, for software gains, the
    # old end is the new end's previous appearance (the nearest earlier round in which
    # its system or hardware has a result). Always true within a round.
    "is_consecutive": pl.Boolean,
    # "fp16 → fp8" when both ends declare a weight precision and they differ (badged on
    # every pair; a software gain with one is not a software-only gain), else null.
    "precision_change": pl.String,
    # The known upstream rounds strictly between the two ends that the source this
    # build read holds no result of, oldest first (empty within a round, or when
    # every round between is in the source).
    "rounds_not_in_source": pl.List(pl.String),
}
#: The one schema of software gains, generation ratios and scaling steps as
#: published: plus the plausibility flags (``pipeline.analysis.plausibility``), the
#: ids of the rules a pair trips (empty: plausible) and their reasons.
PAIR_SCHEMA: dict[str, pl.DataType] = {
    **UNFLAGGED_PAIR_SCHEMA,
    "flags": pl.List(pl.String),
    "flag_reasons": pl.String,
}

#: Candidate pairs: the pair schema plus what decided whether a pair is reported.
CANDIDATE_SCHEMA: dict[str, pl.DataType] = {
    **UNFLAGGED_PAIR_SCHEMA,
    "result_unit_new": pl.String,
    "model_upstream_old": pl.String,
    "model_upstream_new": pl.String,
    "model_lineage_old": pl.String,
    "model_lineage_new": pl.String,
    "is_comparable": pl.Boolean,
    "incompatibility_reason": pl.String,
    "exclusion_reason": pl.String,
}

#: Excluded candidate pairs, counted per reason, with one example to look at.
EXCLUSIONS_SCHEMA: dict[str, pl.DataType] = {
    "kind": pl.String,
    "identity_level": pl.String,
    "is_per_accelerator": pl.Boolean,
    "exclusion_reason": pl.String,
    "pairs": pl.Int64,
    "example_result_key_old": pl.String,
    "example_result_key_new": pl.String,
}

#: Per-end fields carried through pairing besides ``END_SCHEMA``.
#: The model-as-run evidence (``benchmarks.MATCHABLE_FIELDS`` but ``submitter``, an
#: end column already) is carried so the open-division rules can read both ends.
_SIDE_EXTRAS = (
    "result_unit", "is_higher_better", "model_upstream", "model_lineage",
)  # fmt: skip
SCOPE_LATENCY_PER_ACCELERATOR = "latency results are not normalised per accelerator"
#: What pairing reads of a prepared row: ``pair_candidates`` keeps only these, so the
#: three analyses copy ~25 columns through their joins instead of ~50.
PAIRING_COLUMNS = tuple(
    dict.fromkeys(
        [
            *END_SCHEMA,
            *_SIDE_EXTRAS,
            "division",
            "benchmark",
            "scenario",
            "accelerators_per_node",
            "is_cpu_only",
            "is_accelerator_mapped",
            "is_mixed_accelerators",
            "_order",
            "_model_key",
        ]
    )
)


#: Pairing columns with few distinct values: categorical while pairing, so best-of
#: groups and self-joins hash integers instead of strings (faster and smaller at
#: scale, benchmarks/README.md); ``join_ends`` turns them back into strings, so no
#: output sees a categorical. ``platform`` stays a string (scaling edits it), as does
#: ``result_key`` (unique per row).
CATEGORICAL_COLUMNS = (
    "release", "division", "benchmark", "scenario", "result_unit", "_model_key",
    "accelerator_id", "accelerator_name", "availability", "model_upstream",
    "software", "submitter", "system_name", "result_url",
)  # fmt: skip


class AnalysisOptions(TypedDict, total=False):
    """Keyword arguments every public analysis function accepts (see ``Options``)."""

    include_preview: bool
    include_inferred: bool
    rules: Sequence[CompatibilityRule] | None
    registry: AcceleratorRegistry | None
    releases: Sequence[str] | None
    source_releases: Collection[str] | None


@dataclass(frozen=True)
class Options:
    """What every analysis accepts: which results to use and which rules to apply.

    Attributes:
        include_preview: use results of systems not yet available (``is_preview``).
            Kept by default and flagged in every pair (``has_preview``).
        include_inferred: use results upstream marks as inferred from another scenario
            (``is_inferred``), kept by default and flagged (``has_inferred``).
        rules: compatibility rules other than the committed ones (tests).
        registry: an accelerator registry other than the committed one (tests).
        releases: every known upstream round (default: ``releases.toml``), which
            decides whether two rounds are adjacent upstream.
        source_releases: the rounds the source this build read holds results of
            (``pair_candidates`` passes the releases of the results it is given).
    """

    include_preview: bool = True
    include_inferred: bool = True
    rules: Sequence[CompatibilityRule] | None = None
    registry: AcceleratorRegistry | None = field(default=None, compare=False)
    releases: Sequence[str] | None = None
    source_releases: Collection[str] | None = None

    def held(self, results: pl.LazyFrame) -> Options:
        """These options with ``source_releases`` set.

        As given, else the releases ``results`` holds rows of (before any
        preview/inferred filter).
        """
        if self.source_releases is not None:
            return self
        found = results.select(pl.col("release").cast(pl.String).unique()).collect()
        return replace(self, source_releases=frozenset(found["release"].drop_nulls()))

    def steps(self) -> pl.LazyFrame:
        """``round_steps`` of the known rounds and the rounds the source holds."""
        known = (
            [r.version for r in load_manifest()]
            if self.releases is None
            else list(self.releases)
        )
        return round_steps(known, self.source_releases or ())


#: One row per ordered pair of rounds (``round_steps``).
STEP_SCHEMA: dict[str, pl.DataType] = {
    "release_old": pl.String,
    "release_new": pl.String,
    "is_adjacent_upstream": pl.Boolean,
    "rounds_not_in_source": pl.List(pl.String),
}


def round_steps(known: Sequence[str], in_source: Collection[str]) -> pl.LazyFrame:
    """Every ordered pair of rounds, old no later than new (``STEP_SCHEMA``).

    Per pair: whether the two are adjacent upstream, and the rounds between them
    that the source does not hold.

    Args:
        known: every round known upstream (``releases.toml``), any order.
        in_source: the rounds the source this build read holds results of; a round
            held but not in ``known`` counts as upstream too.

    Two rounds are adjacent when no round of ``known`` or ``in_source`` lies strictly
    between them (a round with itself too: a within-round pair). Iterates over the
    rounds (a dozen), never over result rows.
    """
    held = set(in_source)
    versions = sorted(set(known) | held, key=version_key)
    rounds = pl.LazyFrame(
        {
            "release": versions,
            "_i": list(range(len(versions))),
            "_held": [v in held for v in versions],
        },
        schema={"release": pl.String, "_i": pl.Int32, "_held": pl.Boolean},
    )
    pairs = (
        rounds.select(release_old="release", _i_old="_i")
        .join(rounds.select(release_new="release", _i_new="_i"), how="cross")
        .filter(pl.col("_i_old") <= pl.col("_i_new"))
    )
    missing = (
        pairs.join(
            rounds.filter(~pl.col("_held")).select(_between="release", _i="_i"),
            how="cross",
        )
        .filter((pl.col("_i") > pl.col("_i_old")) & (pl.col("_i") < pl.col("_i_new")))
        .group_by("release_old", "release_new")
        .agg(pl.col("_between").sort_by("_i").alias("rounds_not_in_source"))
    )
    return (
        pairs.join(missing, on=["release_old", "release_new"], how="left")
        .with_columns(
            is_adjacent_upstream=pl.col("_i_new") - pl.col("_i_old") <= 1,
            rounds_not_in_source=pl.col("rounds_not_in_source").fill_null(
                pl.lit([], dtype=pl.List(pl.String))
            ),
        )
        .sort("_i_old", "_i_new")
        .select(list(STEP_SCHEMA))
        .cast(STEP_SCHEMA)
    )


def prepare(results: pl.LazyFrame, options: Options) -> pl.LazyFrame:
    """Results with canonical accelerators, filtered by the preview/inferred options.

    Adds ``model_lineage`` (``benchmarks.model_lineage``), ``_order`` (release order)
    and ``_model_key`` (what open-division rules require equal), used for pairing and
    best-of selection.
    """
    rows = ensure_attached(results, options.registry).with_columns(
        model_lineage=model_lineage()
    )
    if not options.include_preview:
        rows = rows.filter(~pl.col("is_preview"))
    if not options.include_inferred:
        rows = rows.filter(~pl.col("is_inferred"))
    return rows.with_columns(
        _order=release_order(pl.col("release")),
        _model_key=match_key(options.rules),
        weight_precision=weight_precision(),
    )


def pairing_rows(results: pl.LazyFrame, options: Options) -> pl.DataFrame:
    """The prepared rows pairing reads (``PAIRING_COLUMNS``), collected once.

    ``CATEGORICAL_COLUMNS`` are categorical here and strings again after
    ``join_ends``.
    """
    return (
        prepare(results, options)
        .select(PAIRING_COLUMNS)
        .with_columns(pl.col(*CATEGORICAL_COLUMNS).cast(pl.Categorical))
        .collect()
    )


def steps_of(prepared: pl.DataFrame, settings: Options) -> pl.LazyFrame:
    """``round_steps`` for one analysis, collected once for all its readings.

    The source's rounds are ``settings.source_releases`` (``pair_candidates`` sets
    them from the results it is given), else the rounds ``prepared`` holds.
    """
    return settings.held(prepared.lazy()).steps().collect().lazy()


def value_expr(is_per_accelerator: bool, suffix: str = "") -> pl.Expr:
    """The number a comparison uses: the result, or the result per accelerator.

    Per-accelerator values exist only for throughput (the canonical table leaves them
    null for latency, where dividing by the chip count has no meaning).
    """
    raw = pl.col(f"result_value{suffix}")
    if not is_per_accelerator:
        return raw
    per = pl.col(f"result_per_accelerator{suffix}")
    return pl.when(pl.col(f"is_higher_better{suffix}")).then(per).otherwise(raw)


def best_per_group(
    rows: pl.LazyFrame, keys: Sequence[str], *, is_per_accelerator: bool
) -> pl.LazyFrame:
    """Keep the best result of each group (highest throughput or lowest latency).

    The unit and the open-division model key are always part of the group, so a best
    result is never chosen across units or models; ties go to the smaller result key so
    reruns pick the same row. The rows kept stay in their input order.
    """
    value = value_expr(is_per_accelerator)
    score = pl.when(pl.col("is_higher_better")).then(value).otherwise(-value)
    group = list(dict.fromkeys([*keys, "result_unit", "_model_key"]))
    # Pick each group's best row number, then keep those rows with a mask. Sorting
    # every row to take the first of each group, a semi join back to the rows, or a
    # gather by row number all cost several times more at scale. Materialised here
    # because both ends of a pair read it: lazily, each end would compute it again.
    scored = rows.filter(value.is_not_null()).collect()
    best = (
        scored.lazy()
        .with_row_index("_best_i")
        .group_by(group)
        .agg(
            pl.col("_best_i")
            .sort_by(
                [score, pl.col("result_key")], descending=[True, False], nulls_last=True
            )
            .first()
        )
        .collect()
        .get_column("_best_i")
    )
    keep = pl.repeat(False, scored.height, eager=True).scatter(best, True)
    return scored.filter(keep).lazy()


def side(
    rows: pl.LazyFrame, suffix: str, keys: Sequence[str], extra: Sequence[str] = ()
) -> pl.LazyFrame:
    """One end of a pair: join keys as they are, every other column suffixed."""
    columns = [*END_SCHEMA, *_SIDE_EXTRAS, "_order", *extra]
    return rows.select(
        *keys,
        *[pl.col(c).alias(f"{c}_{suffix}") for c in columns if c not in keys],
    )


def single_accelerator() -> pl.Expr:
    """Rows whose accelerator is in the registry and is one kind of chip, not a mix."""
    return pl.col("is_accelerator_mapped") & ~pl.col("is_mixed_accelerators")


def one_by_one(parts: Sequence[pl.LazyFrame]) -> pl.LazyFrame:
    """Collect the parts of an analysis in turn, then concatenate them.

    Collecting them in one plan runs them in parallel and adds their peak memory, for
    no gain in time: the parts are small, their intermediates are not.
    """
    return pl.concat([part.collect() for part in parts]).lazy()


def join_ends(
    old: pl.LazyFrame,
    new: pl.LazyFrame,
    on: Sequence[str],
    condition: pl.Expr,
) -> pl.LazyFrame:
    """Self-join the two ends on ``on`` and keep the rows where ``condition`` holds.

    Ends that are join keys (for example ``release`` within a round) are copied back
    into their ``_old``/``_new`` columns so every candidate has the full schema.
    Categorical columns (``pairing_rows``) come out as strings.
    """
    # Match on the keys and the columns the condition reads only, then fetch the full
    # rows by index: a key can match many rows of one release that the condition then
    # discards (open-division platforms with many models), and carrying every column
    # through that fan-out would dominate memory.
    needed = set(condition.meta.root_names())
    old_rows, new_rows = old.collect(), new.collect()
    ends = (
        old_rows.lazy()
        .select(*on, *(needed & set(old_rows.columns) - set(on)))
        .with_row_index("_i_old")
        .join(
            new_rows.lazy()
            .select(*on, *(needed & set(new_rows.columns) - set(on)))
            .with_row_index("_i_new"),
            on=list(on),
            how="inner",
        )
        .filter(condition)
        .select("_i_old", "_i_new")
        # The order a left-right ordered join gives, at a fraction of its cost.
        .sort("_i_old", "_i_new")
        .collect()
    )
    # Gathering the matched rows by number, not joining them back: a join would hash
    # every row of each end to fetch a few.
    joined = (
        pl.concat(
            [
                old_rows[ends["_i_old"]],
                new_rows.drop(*on)[ends["_i_new"]],
            ],
            how="horizontal",
        )
        .lazy()
        .with_columns(pl.col(pl.Categorical).cast(pl.String))
    )
    copies = {
        f"{c}_{end}": pl.col(c)
        for c in on
        if c in (*END_SCHEMA, *_SIDE_EXTRAS, "_order")
        for end in ("old", "new")
    }
    return joined.with_columns(**copies) if copies else joined


def finish_candidates(
    joined: pl.LazyFrame,
    *,
    kind: str,
    identity_level: str,
    is_per_accelerator: bool,
    steps: pl.LazyFrame,
    scope_reason: pl.Expr | None = None,
    rules: Sequence[CompatibilityRule] | None = None,
) -> pl.LazyFrame:
    """Compute ratio and flags of joined ends and shape them as ``CANDIDATE_SCHEMA``.

    Args:
        joined: output of ``join_ends``.
        kind: one of ``KINDS``.
        identity_level: one of ``IDENTITY_LEVELS[kind]``.
        is_per_accelerator: compare results divided by their accelerator count.
        steps: ``round_steps`` (``Options.steps``): whether the two rounds are
            adjacent upstream and which rounds between them the source lacks. A pair
            whose rounds it does not list is not consecutive.
        scope_reason: why this analysis does not report a pair even though the rules
            allow it (for example latency in scaling); null where it does.
        rules: compatibility rules other than the committed ones.
    """
    higher = pl.col("is_higher_better_old")
    old = value_expr(is_per_accelerator, "_old")
    new = value_expr(is_per_accelerator, "_new")
    ratio = pl.when(higher).then(new / old).otherwise(old / new)
    if kind == "scaling":
        count_ratio = pl.col("total_accelerators_new").cast(pl.Float64) / pl.col(
            "total_accelerators_old"
        ).cast(pl.Float64)
        efficiency = pl.when(higher).then(ratio / count_ratio)
    else:
        efficiency = pl.lit(None, dtype=pl.Float64)
    # Consecutive: adjacent upstream and, where the kind records it (software
    # gains), the system's previous appearance. Adjacent upstream implies the second
    # whenever the source holds every round it knows; both are required so neither
    # a gap in the source nor a registry missing a round can make a pair consecutive.
    previous = (
        pl.col("_order_old") == pl.col("_previous_order_new")
        if "_previous_order_new" in joined.collect_schema().names()
        else pl.lit(True)
    )
    consecutive = (pl.col("is_adjacent_upstream") & previous).fill_null(False)
    frame = joined.join(
        steps, on=["release_old", "release_new"], how="left", maintain_order="left"
    ).with_columns(
        is_consecutive=consecutive,
        kind=pl.lit(kind),
        identity_level=pl.lit(identity_level),
        is_per_accelerator=pl.lit(is_per_accelerator),
        result_unit=pl.col("result_unit_old"),
        is_higher_better=higher,
        ratio=ratio,
        efficiency=efficiency,
        has_preview=pl.col("is_preview_old") | pl.col("is_preview_new"),
        has_inferred=pl.col("is_inferred_old") | pl.col("is_inferred_new"),
        precision_change=precision_change(),
    )
    flagged = comparable(frame, rules)
    scope = scope_reason if scope_reason is not None else pl.lit(None, pl.String)
    return (
        flagged.with_columns(
            exclusion_reason=pl.coalesce(scope, pl.col("incompatibility_reason"))
        )
        .select(list(CANDIDATE_SCHEMA))
        .cast(CANDIDATE_SCHEMA)
    )


def self_pairs(
    best: pl.LazyFrame,
    keys: Sequence[str],
    condition: pl.Expr,
    *,
    kind: str,
    identity_level: str,
    is_per_accelerator: bool,
    steps: pl.LazyFrame,
    scope_reason: pl.Expr | None,
    rules: Sequence[CompatibilityRule] | None,
) -> pl.LazyFrame:
    """Candidates of one reading: ``best`` paired with itself on ``keys``.

    Always within one model as run (``_model_key``, empty in the closed division):
    a software gain or a scaling step is one system family's, so two open-division
    models are never one, and forming each such pair only to exclude it grew with
    the square of the teams sharing a platform (8 M candidates at 100x, 24 GB).
    ``condition`` orders the ends (older release first, smaller count first); the
    other arguments are ``finish_candidates``'.
    """
    on = [*keys, "_model_key"]
    extra = [c for c in ("_previous_order",) if c in best.collect_schema().names()]
    joined = join_ends(
        side(best, "old", on, extra), side(best, "new", on, extra), on, condition
    )
    return finish_candidates(
        joined,
        kind=kind,
        identity_level=identity_level,
        is_per_accelerator=is_per_accelerator,
        steps=steps,
        scope_reason=scope_reason,
        rules=rules,
    )


#: The order pair tables and stored candidates are written in: a total order (both
#: result keys last), so identical inputs give identical bytes.
PAIR_ORDER = [
    "kind", "identity_level", "is_per_accelerator", "benchmark", "scenario",
    "division", "release_old", "release_new", "accelerator_id_old",
    "accelerator_id_new", "total_accelerators_old", "total_accelerators_new",
    "result_key_old", "result_key_new",
]  # fmt: skip


@overload
def cited_keys(pairs: pl.DataFrame) -> pl.DataFrame: ...
@overload
def cited_keys(pairs: pl.LazyFrame) -> pl.LazyFrame: ...
def cited_keys(pairs: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
    """Every result key a pair cites (either end), once, old ends first."""
    return pl.concat(
        [
            pairs.select(pl.col(f"result_key_{end}").alias("result_key"))
            for end in ("old", "new")
        ]
    ).unique(maintain_order=True)


def kept_pairs(candidates: pl.LazyFrame) -> pl.LazyFrame:
    """Candidates without an exclusion reason, ``UNFLAGGED_PAIR_SCHEMA``.

    ``pipeline.analysis.plausibility.reported_pairs`` adds the flags to these.
    """
    return (
        candidates.filter(pl.col("exclusion_reason").is_null())
        .select(list(UNFLAGGED_PAIR_SCHEMA))
        .sort(PAIR_ORDER, nulls_last=True)
        .cast(UNFLAGGED_PAIR_SCHEMA)
    )


def count_exclusions(candidates: pl.LazyFrame) -> pl.LazyFrame:
    """How many candidate pairs each reason removed, with one example pair each."""
    return (
        candidates.filter(pl.col("exclusion_reason").is_not_null())
        .sort(["result_key_old", "result_key_new"])
        .group_by(["kind", "identity_level", "is_per_accelerator", "exclusion_reason"])
        .agg(
            pl.len().alias("pairs"),
            pl.col("result_key_old").first().alias("example_result_key_old"),
            pl.col("result_key_new").first().alias("example_result_key_new"),
        )
        .sort(
            [
                "kind",
                "identity_level",
                "is_per_accelerator",
                "pairs",
                "exclusion_reason",
            ],
            descending=[False, False, False, True, False],
        )
        .select(list(EXCLUSIONS_SCHEMA))
        .cast(EXCLUSIONS_SCHEMA)
    )


# --------------------------------------------------------------------------------------
# Checks: pure functions returning what an asset check reports.
# --------------------------------------------------------------------------------------

#: How many offending keys a check message names (metadata lists up to ``_LIST``).
_SHOW = 5
_LIST = 50


@dataclass(frozen=True)
class CheckOutcome:
    """Result of one pure check: pass/fail, a message naming offenders, metadata."""

    passed: bool
    message: str
    metadata: dict[str, object]


def _label() -> pl.Expr:
    """How a check names a pair; a missing name reads NO_NAME, never null."""
    return pl.format(
        "{}/{} {} {} {}: {} -> {}",
        display_name(pl.col("kind")),
        display_name(pl.col("identity_level")),
        display_name(pl.col("benchmark")),
        display_name(pl.col("scenario")),
        display_name(pl.col("division")),
        display_name(pl.col("result_key_old")),
        display_name(pl.col("result_key_new")),
    )


def _collect(frame: pl.LazyFrame | pl.DataFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def _named(labels: list[str]) -> str:
    shown = "; ".join(labels[:_SHOW])
    more = len(labels) - _SHOW
    return f"{shown}; and {more} more" if more > 0 else shown


def _outcome(
    df: pl.DataFrame,
    offenders: list[str],
    offending: int,
    *,
    listed_as: str,
    passed: str,
    failed: str,
) -> CheckOutcome:
    """One check's outcome: ``failed`` is completed with the first offenders named."""
    metadata: dict[str, object] = {
        "pairs": df.height,
        "offending": offending,
        listed_as: offenders[:_LIST],
    }
    if not offenders:
        return CheckOutcome(True, passed, metadata)
    return CheckOutcome(False, f"{failed}: {_named(offenders)}", metadata)


def _bad_pairs(df: pl.DataFrame, good: pl.Expr, passed: str, are: str) -> CheckOutcome:
    """The outcome of a row-wise check: the pairs where ``good`` is not true fail."""
    bad = df.filter(~good.fill_null(False))
    return _outcome(
        df,
        bad.select(_label()).to_series().to_list(),
        bad.height,
        listed_as="offending_pairs",
        passed=passed,
        failed=f"{bad.height} of {df.height} pairs {are}",
    )


def check_ratios_finite_positive(pairs: pl.LazyFrame | pl.DataFrame) -> CheckOutcome:
    """Every ratio (and every scaling efficiency) is a finite number above zero.

    A zero, negative, infinite or missing ratio means a result value slipped through
    normalisation wrongly; publishing it as "x times faster" would be absurd.
    """
    good = (pl.col("ratio").is_finite() & (pl.col("ratio") > 0)).fill_null(False) & (
        (pl.col("kind") != "scaling")
        | ~pl.col("is_higher_better")
        | (pl.col("efficiency").is_finite() & (pl.col("efficiency") > 0))
    ).fill_null(False)
    df = _collect(pairs)
    return _bad_pairs(
        df,
        good,
        f"all {df.height} pairs have a finite, positive ratio",
        "have a ratio or efficiency that is not finite and positive",
    )


#: Per kind, the end attribute the comparison is about: equal ends make a self-pair.
_COMPARED = {
    "software_gain": "release",
    "generation_ratio": "accelerator_id",
    "scaling": "total_accelerators",
}


def check_no_self_pairs(pairs: pl.LazyFrame | pl.DataFrame) -> CheckOutcome:
    """No pair compares a result with itself, or an end with itself.

    A self-pair is the same result key at both ends, or both ends equal on what the kind
    compares (release for software gains, accelerator for generation ratios, accelerator
    count for scaling); either would report a meaningless 1.0x.
    """
    df = _collect(pairs)
    same = pl.col("result_key_old") == pl.col("result_key_new")
    for kind, column in _COMPARED.items():
        same = same | (
            (pl.col("kind") == kind)
            & pl.col(f"{column}_old")
            .cast(pl.String)
            .eq_missing(pl.col(f"{column}_new").cast(pl.String))
        )
    return _bad_pairs(
        df,
        ~same.fill_null(False),
        f"none of {df.height} pairs is a self-pair",
        "are self-pairs",
    )


def check_results_exist(
    pairs: pl.LazyFrame | pl.DataFrame, results: pl.LazyFrame | pl.DataFrame
) -> CheckOutcome:
    """Both ends of every pair cite a result key present in the results table.

    Pairs are only auditable if a reader can open both results; a key that is missing
    means the pair table and the results table come from different runs.
    """
    df = _collect(pairs)
    keys = _collect(results.lazy().select("result_key").unique())
    missing = cited_keys(df).join(keys, on="result_key", how="anti", nulls_equal=False)
    labels = [display_name(k) for k in missing.get_column("result_key").to_list()]
    gone = missing.get_column("result_key")
    bad_pairs = df.filter(
        pl.col("result_key_old").is_in(gone).fill_null(True)
        | pl.col("result_key_new").is_in(gone).fill_null(True)
    ).height
    return _outcome(
        df,
        labels,
        bad_pairs,
        listed_as="missing_result_keys",
        passed=f"all {df.height} pairs cite two existing result keys",
        failed=f"{bad_pairs} of {df.height} pairs cite {len(labels)} result key(s) "
        "missing from the results table",
    )


#: What makes two pair rows the same pair.
PAIR_IDENTITY = (
    "kind", "identity_level", "is_per_accelerator", "result_key_old", "result_key_new",
)  # fmt: skip


def check_no_duplicate_pairs(pairs: pl.LazyFrame | pl.DataFrame) -> CheckOutcome:
    """No pair (kind, identity level, per-accelerator flag, both result keys) repeats.

    A repeated pair would be counted twice in every summary built on the table.
    """
    df = _collect(pairs)
    dupes = (
        df.group_by(list(PAIR_IDENTITY))
        .agg(pl.len().alias("copies"))
        .filter(pl.col("copies") > 1)
        .sort(list(PAIR_IDENTITY))
    )
    labels = (
        dupes.select(
            pl.format(
                "{}/{} {} -> {} ({} copies)",
                display_name(pl.col("kind")),
                display_name(pl.col("identity_level")),
                display_name(pl.col("result_key_old")),
                display_name(pl.col("result_key_new")),
                pl.col("copies"),
            )
        )
        .to_series()
        .to_list()
    )
    return _outcome(
        df,
        labels,
        dupes.height,
        listed_as="duplicated_pairs",
        passed=f"all {df.height} pairs are distinct",
        failed=f"{dupes.height} pair(s) appear more than once",
    )
