"""Nulls and never-seen names in the real canonical table: nothing downstream crashes.

Upstream rounds leave fields out and bring names no registry has seen yet. The real
table of the mirrored releases gets, for every string column of ``RESULTS_SCHEMA``,
copies of a few real rows with that column null and with an unseen value (unseen
accelerator, unit, benchmark, scenario, a submitter written as HTML), plus rows without
any chip count and rows with neither accelerator nor host CPU name. The analytics, the
unmapped-accelerators check as the asset reports it, the claims and the site renderer
then run on it as the Dagster assets call them, and each must still tell a reader the
truth: unknown names are listed, missing names are shown as ``NO_NAME``, hostile text
stays text, and the downloads keep the nulls.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis import (
    attach_accelerators,
    check_no_duplicate_pairs,
    check_no_self_pairs,
    check_ratios_finite_positive,
    check_results_exist,
    unmapped_accelerators,
)
from pipeline.analysis.accelerators import ATTACHED_SCHEMA
from pipeline.claims import claim_verdicts, evaluate_claims
from pipeline.defs.analytics import out_mlperf__results
from pipeline.labels import NO_NAME
from pipeline.registry.claims import load_claims
from pipeline.render.escape import escape
from pipeline.render.pages import render_site
from pipeline.render.site_data import SNAPSHOT_SCHEMA, SiteData
from pipeline.transform.results import RESULTS_SCHEMA, empty_rejected
from tests.analysed import analyse
from tests.unit.render.conftest import unlabelled

STRING_COLUMNS = [c for c, t in RESULTS_SCHEMA.items() if t == pl.String]
COUNT_COLUMNS = ("nodes", "accelerators_per_node", "total_accelerators")
UNSEEN_ACCELERATOR = "Unseen Accelerator X1"
UNSEEN_BENCHMARK = "never-seen-benchmark"
UNSEEN_UNIT = "Widgets/s"
HOSTILE_SUBMITTER = "<b>x</b>"
#: Unseen values; other columns get "<i>unseen COLUMN</i>", markup that must stay text.
UNSEEN: dict[str, str] = {
    "release": "v9.9",  # a round newer than the manifest (releases are versions)
    "accelerator_name": UNSEEN_ACCELERATOR,
    "result_unit": UNSEEN_UNIT,
    "benchmark": UNSEEN_BENCHMARK,
    "scenario": "SidewaysStream",
    "submitter": HOSTILE_SUBMITTER,
}
#: Real rows the hostile copies start from: NVIDIA's GB300 rack in v5.1 and v6.0 (a
#: software gain several claims rest on), besides the first rows of every release.
SEED_KEYS = ("5.1-0072:deepseek-r1:Offline", "6.0-0078:deepseek-r1:Offline")


def unseen(column: str) -> str:
    return UNSEEN.get(column, f"<i>unseen {column}</i>")


def tag(column: str, kind: str) -> str:
    return f"#{column}-{kind}"


@pytest.fixture(scope="module")
def hostile(full_mirror_results: pl.DataFrame) -> pl.DataFrame:
    """The real table plus the hostile copies, keys tagged ``<key>#<column>-<kind>``.

    The real table is every mirrored round (summaries and raw-tree-only rounds), so
    the cross-release steps run over the whole shared mirror.
    """
    mirror_results = full_mirror_results
    seed = pl.concat(
        [
            mirror_results.sort("result_key").group_by("release").head(2),
            mirror_results.filter(pl.col("result_key").is_in(SEED_KEYS)),
        ],
        how="diagonal",
    ).select(list(RESULTS_SCHEMA))
    key = pl.col("result_key")
    copies = []
    for column in STRING_COLUMNS:
        for kind, value in (("null", None), ("unseen", unseen(column))):
            rows = seed.with_columns(key + tag(column, kind))
            copies.append(rows.with_columns(pl.lit(value, pl.String).alias(column)))
    copies.append(
        seed.with_columns(
            *[pl.lit(None, pl.Int32).alias(c) for c in COUNT_COLUMNS],
            key + tag("counts", "null"),
        )
    )
    # A CPU-only row without a host CPU has no class: the user's crash.
    copies.append(
        seed.with_columns(
            accelerator_name=None, host_cpu_name=None, result_key=key + "#nameless"
        )
    )
    return pl.concat([mirror_results, *copies]).cast(RESULTS_SCHEMA)


@pytest.fixture(scope="module")
def results(hostile: pl.DataFrame) -> pl.DataFrame:
    """``out_mlperf__results``: the canonical rows with their accelerators attached."""
    return attach_accelerators(hostile.lazy()).collect()


@pytest.fixture(scope="module")
def tables(results: pl.DataFrame):
    return analyse(results)


@pytest.fixture(scope="module")
def evaluations(results: pl.DataFrame, tables) -> pl.DataFrame:
    return evaluate_claims(
        load_claims(), results, tables.software_gains, tables.generation_ratios,
        tables.scaling,
    )  # fmt: skip


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory,
    results: pl.DataFrame,
    tables,
    evaluations: pl.DataFrame,
) -> Path:
    """The generated pages as ``out_site__pages`` renders them (no MkDocs build)."""
    out = tmp_path_factory.mktemp("hostile") / "generated"
    snapshots = pl.DataFrame(schema=SNAPSHOT_SCHEMA)
    data = SiteData(
        results=results,
        rejected=empty_rejected(),
        gains=tables.software_gains,
        generations=tables.generation_ratios,
        scaling=tables.scaling,
        snapshots=snapshots,
        lineage_mermaid="flowchart LR\n  a --> b\n",
        pipeline_commit="0" * 40,
        built_at="2026-01-01T00:00:00+00:00",
        exclusions=tables.exclusions,
        claims=tuple(load_claims()),
        claim_evaluations=evaluations,
    )
    render_site(data, out, bundle=False)
    return out


@pytest.fixture(scope="module")
def pages(site: Path) -> dict[str, str]:
    """Every generated Markdown page (what MkDocs turns into HTML), by path."""
    return {str(p.relative_to(site)): p.read_text() for p in site.rglob("*.md")}


@pytest.fixture(scope="module")
def downloaded(site: Path) -> pl.DataFrame:
    return pl.read_parquet(site / "downloads" / "results.parquet")


def injected(frame: pl.DataFrame, column: str, kind: str) -> pl.DataFrame:
    """The copies made for ``column`` and ``kind`` (``result_key``'s carry no tag)."""
    if column == "result_key":
        key = pl.col("result_key")
        return frame.filter(key.is_null() if kind == "null" else key == unseen(column))
    return frame.filter(pl.col("result_key").str.ends_with(tag(column, kind)))


# --- analytics and the asset check -------------------------------------------------


def test_every_row_survives_with_its_accelerator_attached(hostile, results):
    assert results.height == hostile.height
    assert set(ATTACHED_SCHEMA) <= set(results.columns)
    nameless = results.filter(pl.col("result_key").str.ends_with("#nameless"))
    assert nameless.height and not nameless["is_accelerator_mapped"].any()


def test_unmapped_list_names_the_unseen_accelerator_and_the_nameless_rows(results):
    unmapped = unmapped_accelerators(results)
    names = dict(zip(unmapped["accelerator_name"], unmapped["rows"], strict=True))
    seeded = injected(results, "accelerator_name", "unseen").height
    assert names[UNSEEN_ACCELERATOR] == seeded
    assert (
        names[None]
        >= results.filter(pl.col("result_key").str.ends_with("#nameless")).height
    )


def test_the_asset_check_reports_the_null_name_as_a_placeholder(hostile):
    """The check that stopped the whole build with a TypeError on a null name."""
    output, check = list(out_mlperf__results(hostile.lazy()))
    assert output.value.collect().height == hostile.height
    assert not check.passed
    assert UNSEEN_ACCELERATOR in check.description
    assert NO_NAME in check.description
    unmapped = check.metadata["unmapped"].value
    assert set(unmapped) >= {UNSEEN_ACCELERATOR, NO_NAME}
    assert all(isinstance(name, str) for name in unmapped)


def test_pair_checks_run_and_name_their_offenders(results, tables):
    for pairs in (tables.software_gains, tables.generation_ratios, tables.scaling):
        assert pairs.height > 100
        outcomes = [
            check_ratios_finite_positive(pairs),
            check_no_self_pairs(pairs),
            check_results_exist(pairs, results),
            check_no_duplicate_pairs(pairs),
        ]
        assert all(o.passed for o in outcomes), [o.message for o in outcomes]


def test_a_failing_pair_check_names_a_nameless_pair(results, tables):
    """The blocking checks report such a pair instead of crashing on its message."""
    broken = tables.scaling.head(2).with_columns(
        benchmark=None, scenario=None, result_key_new=None, ratio=0.0
    )
    for outcome in (
        check_ratios_finite_positive(broken),
        check_results_exist(broken, results),
        check_no_duplicate_pairs(pl.concat([broken, broken])),
    ):
        assert not outcome.passed
        assert NO_NAME in outcome.message, outcome.message


def test_no_result_is_divided_by_one_of_another_unit_benchmark_or_scenario(tables):
    """A copy with an unseen or missing unit (benchmark, scenario) only pairs with
    copies that carry the same one: a missing unit is not a wildcard."""
    for pairs in (tables.software_gains, tables.generation_ratios, tables.scaling):
        for column in ("result_unit", "benchmark", "scenario"):
            for kind in ("null", "unseen"):
                ends = [
                    pl.col(f"result_key_{end}").str.ends_with(tag(column, kind))
                    for end in ("old", "new")
                ]
                assert pairs.filter(ends[0] != ends[1]).is_empty(), (column, kind)


def test_hostile_copies_change_no_claim_verdict(full_mirror_results, evaluations):
    mirror_results = full_mirror_results
    clean = analyse(attach_accelerators(mirror_results.lazy()).collect())
    expected = claim_verdicts(
        evaluate_claims(
            load_claims(),
            mirror_results,
            clean.software_gains,
            clean.generation_ratios,
            clean.scaling,
        )
    )
    got = claim_verdicts(evaluations)
    assert got.select("claim_id", "verdict").equals(
        expected.select("claim_id", "verdict")
    )


# --- the site ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "column", [c for c in STRING_COLUMNS if unseen(c) != escape(unseen(c))]
)
def test_markup_in_any_column_stays_text_on_every_page(column, pages):
    assert not [p for p, text in pages.items() if unseen(column) in text]


@pytest.mark.parametrize("column", STRING_COLUMNS)
@pytest.mark.parametrize("kind", ["null", "unseen"])
def test_downloads_keep_every_injected_value_as_given(column, kind, downloaded):
    """The placeholder is for readers only: the data files keep null as null."""
    rows = injected(downloaded, column, kind)
    assert rows.height >= 2
    if kind == "null":
        assert rows[column].is_null().all()
    else:
        assert (rows[column] == unseen(column)).all()


@pytest.mark.parametrize(
    ("page", "text"),
    [
        # A missing benchmark gets its own page, titled with the placeholder.
        ("benchmarks/no-name.md", f"# {escape(NO_NAME)}\n"),
        ("benchmarks/never-seen-benchmark.md", f"# {UNSEEN_BENCHMARK}\n"),
        ("benchmarks/index.md", f"[{escape(NO_NAME)}](no-name.md)"),
        # Scenario and division headings of a release page.
        ("releases/v6.1.md", f"\n#### {escape(NO_NAME)} · closed · "),
        ("releases/v6.1.md", "\n#### SidewaysStream · closed · "),
        # Divisions other than closed: their headings on the per-benchmark pages,
        # their names in the release page's list of them.
        ("releases/v6.1/*.md", f"\n## Offline · {escape(NO_NAME)} · "),
        ("releases/v6.1/*.md", f" · {escape(unseen('division'))} · "),
        ("releases/v6.1.md", escape(unseen("division"))),
        # Submitters, escaped, in the submitters table.
        ("releases/v6.1.md", f"<tr><td>{escape(NO_NAME)}</td>"),
        ("releases/v6.1.md", f"<tr><td>{escape(HOSTILE_SUBMITTER)}</td>"),
        # Every result row: on the release's per-benchmark pages.
        ("releases/v6.1/*.md", f"8 × {UNSEEN_ACCELERATOR} · 1 node"),
        # No accelerator and no host CPU: still a CPU-only system, named as unknown.
        ("releases/v6.1.md", "CPU only&#58; unknown CPU"),
        # A round newer than the manifest gets its page.
        ("releases/v9.9.md", "# MLPerf Inference v9.9\n"),
        ("releases/index.md", "[v9.9](v9.9.md)"),
    ],
)
def test_missing_and_unseen_names_are_visible(page, text, pages):
    shown = "".join(v for p, v in pages.items() if fnmatch.fnmatch(p, page))
    assert text in unlabelled(shown)


def test_hostile_submitter_is_escaped_wherever_it_is_shown(pages):
    shown = [p for p, text in pages.items() if escape(HOSTILE_SUBMITTER) in text]
    assert "releases/v6.1.md" in shown
    assert not [p for p, text in pages.items() if HOSTILE_SUBMITTER in text]


def test_audit_counts_every_row(hostile, pages):
    assert f"Canonical results: {hostile.height:,};" in pages["audit.md"]


@pytest.mark.parametrize(
    "release", ["v0.5", "v1.0", "v2.1", "v4.1", "v5.1", "v6.0", "v6.1"]
)
def test_every_mirrored_round_has_its_release_page(release, full_mirror_results, pages):
    rows = full_mirror_results.filter(pl.col("release") == release)
    busiest = rows["submitter"].value_counts(sort=True)["submitter"][0]
    page = pages[f"releases/{release}.md"]
    assert page.startswith(f"# MLPerf Inference {release}\n")
    assert escape(busiest) in page


def test_a_failing_pair_check_publishes_none_of_the_three_tables(results):
    """The three pair tables are one step: one bad table stops all three before any
    is written, so the previous three stay published together."""
    import dagster as dg

    from pipeline.analysis import pair_candidates
    from pipeline.defs.analytics import out_mlperf__pair_tables

    candidates = pair_candidates(results.lazy())
    kept_scaling = (pl.col("kind") == "scaling") & pl.col("exclusion_reason").is_null()
    first = candidates.with_row_index("_i").filter(kept_scaling)["_i"][0]
    broken = (
        candidates.with_row_index("_i")
        .with_columns(ratio=pl.when(pl.col("_i") == first).then(0.0).otherwise("ratio"))
        .drop("_i")
    )
    events = []
    with pytest.raises(dg.Failure) as failure:
        for event in out_mlperf__pair_tables(broken.lazy(), results.lazy()):
            events.append(event)
    assert not [e for e in events if isinstance(e, dg.Output)]
    failed = {
        (e.asset_key.to_user_string(), e.check_name)
        for e in events
        if isinstance(e, dg.AssetCheckResult) and not e.passed
    }
    assert failed == {("out_mlperf__scaling", "ratios_finite_positive")}
    assert len(events) == 12  # every check of the three tables ran and reported
    assert failure.value.description.startswith("out_mlperf__scaling: 1 of ")
    assert failure.value.description.endswith(
        "(blocking check failed; the previous tables stay published)"
    )
