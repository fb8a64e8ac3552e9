"""Everything the website shows, gathered in one typed object.

``SiteData`` is the contract between the pipeline and the renderer: Dagster (or a test)
fills it with frames, ``render_site`` turns it into files. Validation happens here,
once, so a missing column fails with the frame's and column's name instead of deep
inside a page template.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import polars as pl

from pipeline.analysis.pairing import END_SCHEMA, PAIR_SCHEMA
from pipeline.labels import display_name
from pipeline.registry.releases import ManifestError, version_key

#: One end of a pair, and the shared pair schema: the analysis module's, re-exported.
PAIR_END_SCHEMA = END_SCHEMA

#: Canonical columns the pages read (the full RESULTS_SCHEMA may be passed).
RESULTS_COLUMNS: tuple[str, ...] = (
    "release", "result_key", "submitter", "division", "availability", "is_preview",
    "system_name", "platform", "benchmark", "scenario", "result_value", "result_unit",
    "is_higher_better", "result_per_accelerator", "nodes", "total_accelerators",
    "accelerator_name", "host_cpu_name", "software", "is_inferred", "result_url",
)  # fmt: skip

#: Names pages group by, sort, link to and print (also as ``<name>_old``/``_new`` in
#: pair tables). A missing one is shown as ``pipeline.labels.NO_NAME``.
NAME_COLUMNS: tuple[str, ...] = (
    "submitter", "division", "availability", "system_name", "platform", "benchmark",
    "scenario", "result_unit",
)  # fmt: skip

SNAPSHOT_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "path": pl.String,
    "url": pl.String,
    "sha256": pl.String,
    "bytes": pl.Int64,
    "fetched_at": pl.String,
    "rows": pl.Int64,
    "rejected": pl.Int64,
    "checks": pl.String,
    #: The upstream commit the snapshot was read at (git source; null elsewhere).
    "commit": pl.String,
}
SNAPSHOT_COLUMNS: tuple[str, ...] = tuple(SNAPSHOT_SCHEMA)

#: One row per round: the upstream commit its rows were read at and what was read.
ROUNDS_SCHEMA: dict[str, pl.DataType] = {
    "release": pl.String,
    "repository": pl.String,
    "commit": pl.String,
    "commit_date": pl.String,
    "files_read": pl.Int64,
    "summary": pl.String,
    "raw_tree": pl.String,
    "disagreement": pl.String,
}

#: Accelerator vendors recognised in upstream accelerator names when the analysis
#: module has not attached ``accelerator_vendor``: (vendor, case-insensitive regex).
VENDOR_PATTERNS: tuple[tuple[str, str], ...] = (
    ("NVIDIA", r"(?i)nvidia|tesla|geforce|jetson"),
    ("AMD", r"(?i)\bamd\b|instinct"),
    ("Intel", r"(?i)intel|gaudi"),
    ("Google", r"(?i)\btpu\b"),
    ("Qualcomm", r"(?i)qualcomm|cloud ai"),
    ("UntetherAI", r"(?i)untether|speedai"),
)
CPU_ONLY_VENDOR = "CPU only"
OTHER_VENDOR = "Other"


class SiteDataError(ValueError):
    """A frame handed to the renderer lacks a column; the message names both."""


def _require(
    frame: pl.DataFrame, columns: tuple[str, ...] | list[str], name: str
) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise SiteDataError(
            f"SiteData.{name} is missing column(s): {', '.join(missing)}"
        )


def vendor_of(name: pl.Expr) -> pl.Expr:
    """Vendor from an accelerator name: a fallback for frames without vendor columns.

    A mixed system ("NVIDIA H200 + AMD MI350X") gets the first vendor named; null names
    are CPU-only systems.
    """
    vendor = pl.when(name.is_null()).then(pl.lit(CPU_ONLY_VENDOR))
    for label, pattern in VENDOR_PATTERNS:
        vendor = vendor.when(name.str.contains(pattern)).then(pl.lit(label))
    return vendor.otherwise(pl.lit(OTHER_VENDOR))


def with_accelerators(results: pl.DataFrame) -> pl.DataFrame:
    """Results with the accelerator columns the pages group, label and colour by.

    The analysis module attaches curated identities (``accelerator_id``,
    ``accelerator_vendor``, ``accelerator_model``, ``is_cpu_only``); without them (a
    unit test, or before the analysis ran), or where it left an accelerator unmapped,
    the upstream name stands in, so pages degrade to raw names instead of failing.
    Adds ``accelerator_label``, the name shown to readers.
    """
    name = pl.col("accelerator_name")
    host = pl.col("host_cpu_name").fill_null("unknown CPU")
    present = set(results.columns)

    def given(column: str, default: pl.Expr) -> pl.Expr:
        return pl.coalesce(pl.col(column), default) if column in present else default

    cpu_only = given(
        "is_cpu_only",
        name.is_null() | (pl.col("total_accelerators").fill_null(0) == 0),
    )
    model = (
        pl.format("{} {}", pl.col("accelerator_vendor"), pl.col("accelerator_model"))
        if {"accelerator_vendor", "accelerator_model"} <= present
        else pl.lit(None, dtype=pl.String)
    )
    return results.with_columns(
        is_cpu_only=cpu_only,
        is_mixed_accelerators=given("is_mixed_accelerators", pl.lit(False)),
        is_inferred_unverified=given("is_inferred_unverified", pl.lit(False)),
        accelerator_id=given(
            "accelerator_id",
            pl.when(cpu_only).then(pl.format("cpu: {}", host)).otherwise(name),
        ),
        accelerator_vendor=given(
            "accelerator_vendor",
            pl.when(cpu_only).then(pl.lit(CPU_ONLY_VENDOR)).otherwise(vendor_of(name)),
        ),
        accelerator_label=pl.when(cpu_only)
        .then(pl.format("CPU only: {}", host))
        .otherwise(pl.coalesce(model, name)),
    )


#: What makes one system wherever a page counts systems: one row of the round's grid
#: (``grid.round_grid``), so the grid, Latest, Home and the release pages agree.
SYSTEM_IDENTITY = (
    "division", "submitter", "system_name", "accelerator_label",
    "total_accelerators", "availability",
)  # fmt: skip


def systems_count() -> pl.Expr:
    """How many systems rows hold (``SYSTEM_IDENTITY``), as an aggregation."""
    return pl.struct(SYSTEM_IDENTITY).n_unique()


def is_accelerator_type() -> pl.Expr:
    """Rows of one kind of accelerator: not CPU-only, not a mix of two chips.

    A mixed system ("NVIDIA + AMD H200 SXM + Instinct MI350X") is not a new
    accelerator type; its chips are counted where they appear alone.
    """
    return ~pl.col("is_cpu_only").fill_null(False) & ~pl.col(
        "is_mixed_accelerators"
    ).fill_null(False)


def system_label(suffix: str = "") -> pl.Expr:
    """A system's name as pages show it, never stating a size the result lacks.

    Upstream names a system once ("NVIDIA GB300 NVL72 (72x GB300-288GB_aarch64,
    TensorRT)") and reuses the name for a four-rack, 288-GPU result; where the name's
    leading "(N x" disagrees with the row's accelerator count, the label says both.
    Plain text: callers escape it for their context.
    """
    name = pl.col(f"system_name{suffix}")
    total = pl.col(f"total_accelerators{suffix}")
    stated = name.str.extract(r"\((\d+)\s*x\s*[A-Za-z]", 1).cast(pl.Int32, strict=False)
    return (
        pl.when(stated.is_not_null() & (total > 0) & (stated != total))
        .then(
            pl.format(
                "{} [named for {}; this result: {} accelerators]", name, stated, total
            )
        )
        .otherwise(name)
    )


def best_results(rows: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The best result of each group of ``keys``, best first.

    Highest throughput or lowest latency; ties go to the smaller result key.
    """
    score = (
        pl.when(pl.col("is_higher_better"))
        .then(pl.col("result_value"))
        .otherwise(-pl.col("result_value"))
    )
    return rows.sort(
        [score, "result_key"], descending=[True, False], nulls_last=True
    ).unique(keys, keep="first", maintain_order=True)


def with_names(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with every null or blank name (``NAME_COLUMNS``) as ``NO_NAME``.

    Pages partition, sort, slug and print these columns; a record upstream left
    unnamed then gets its own visible heading, row and page instead of breaking the
    build or disappearing. Downloads keep the nulls: only the pages use this.
    """
    names = [
        c
        for c in frame.columns
        if c.removesuffix("_old").removesuffix("_new") in NAME_COLUMNS
        and frame.schema[c] == pl.String
    ]
    return frame.with_columns(display_name(pl.col(c)).alias(c) for c in names)


def release_order(releases: list[str] | pl.Series) -> list[str]:
    """Releases sorted by version number (v4.1 < v5.1 < v10.0), unknown forms last."""

    def key(version: str) -> tuple[int, int, str]:
        try:
            return (*version_key(version), "")
        except ManifestError:
            return (10**6, 0, version)

    return sorted({str(r) for r in releases if r is not None}, key=key)


@dataclass(frozen=True, kw_only=True)
class SiteData:
    """The frames and facts one build of the website shows.

    Attributes:
        results: Canonical results (``RESULTS_SCHEMA``), optionally with the analysis
            module's ``accelerator_id``, ``accelerator_vendor`` and ``is_cpu_only``.
        rejected: Upstream records that did not become results (``REJECTED_SCHEMA``).
        gains: Software gains in ``PAIR_SCHEMA``.
        generations: Hardware generation ratios in ``PAIR_SCHEMA``.
        scaling: Scaling pairs in ``PAIR_SCHEMA``.
        snapshots: One row per raw snapshot consumed (``SNAPSHOT_COLUMNS``).
        lineage_mermaid: The asset graph as a Mermaid flowchart.
        pipeline_commit: Git commit of the pipeline code that built the site.
        built_at: ISO timestamp of the build.
        crosscheck: Optional comparison of summary values with the raw result tree.
        rounds: Optional per-round provenance (``ROUNDS_SCHEMA``) for Audit.
    """

    results: pl.DataFrame
    rejected: pl.DataFrame
    gains: pl.DataFrame
    generations: pl.DataFrame
    scaling: pl.DataFrame
    snapshots: pl.DataFrame
    lineage_mermaid: str
    pipeline_commit: str
    built_at: str
    crosscheck: pl.DataFrame | None = None
    #: Per round: commit, its date, files read (``ROUNDS_SCHEMA``); None: not shown.
    rounds: pl.DataFrame | None = None
    #: Submitters' own summary rows against the logs (``CHECK_SCHEMA``), or None.
    submitter_check: pl.DataFrame | None = None
    #: Candidate pairs the analyses left out, per reason; None: no download.
    exclusions: pl.DataFrame | None = None
    #: Upstream corrections (``CORRECTIONS_SCHEMA``); None: none known.
    corrections: pl.DataFrame | None = None
    #: The claims registry in page order (``pipeline.registry.claims.Claim``) and their
    #: evaluations (``EVALUATION_SCHEMA``; None: nothing evaluated).
    claims: tuple = ()
    claim_evaluations: pl.DataFrame | None = None
    #: The committed ``make bench`` results the Performance page shows, or why the
    #: file cannot be shown (``bench_results.load_results``).
    bench: dict | None = None
    bench_problem: str | None = None
    #: The declared system descriptions (``transform.systems.SYSTEMS_SCHEMA``) and
    #: every declared field (``DECLARED_SCHEMA``); None: no Systems page.
    systems: pl.DataFrame | None = None
    system_fields: pl.DataFrame | None = None
    #: System files that could not be read (``QUARANTINE_SCHEMA``), or None.
    systems_quarantined: pl.DataFrame | None = None
    #: Latency as measured and accuracy of the results whose files state them
    #: (``transform.measured.MEASURED_SCHEMA``); None: no result states them.
    measured: pl.DataFrame | None = None

    def __post_init__(self) -> None:
        _require(self.results, RESULTS_COLUMNS, "results")
        _require(self.snapshots, SNAPSHOT_COLUMNS, "snapshots")
        for name in ("gains", "generations", "scaling"):
            frame = getattr(self, name)
            _require(frame, list(PAIR_SCHEMA), name)
            # Same names, same types: casting once here keeps page code free of checks.
            object.__setattr__(
                self, name, frame.select(list(PAIR_SCHEMA)).cast(PAIR_SCHEMA)
            )

    @property
    def releases(self) -> list[str]:
        """Releases present in the results, oldest first."""
        return release_order(self.results["release"].unique())

    @property
    def latest_release(self) -> str | None:
        """The newest release with results, if any."""
        return self.releases[-1] if self.releases else None


def empty_pairs() -> pl.DataFrame:
    """A pair table with no rows (an analysis that found nothing to compare)."""
    return pl.DataFrame(schema=PAIR_SCHEMA)


#: The one generated file allowed to differ between builds of identical inputs.
BUILD_INFO = "build-info.json"


def build_info_text(data: SiteData) -> str:
    """When this build ran and when each snapshot was fetched, as JSON text.

    Everything else the build writes is a function of its inputs (byte-reproducible);
    the times are kept here, in one place, so that stays true.
    """
    fetched = (
        data.snapshots.select("release", "path", "sha256", "fetched_at")
        .sort("release", "path")
        .to_dicts()
    )
    info = {
        "built_at": data.built_at,
        "pipeline_commit": data.pipeline_commit,
        "snapshots_fetched_at": fetched,
    }
    return json.dumps(info, indent=2, sort_keys=True) + "\n"
