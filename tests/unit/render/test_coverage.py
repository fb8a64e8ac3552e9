"""Round coverage: every round's source, and the rounds a comparison skips."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from pipeline.registry.releases import Release
from pipeline.render.coverage import (
    round_status,
    skip_note,
    skip_note_expr,
    skipped_rounds,
)
from tests.unit.render.conftest import unlabelled
from tests.unit.render.rounds_data import render_rounds_site

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render_rounds_site(tmp_path_factory.mktemp("rounds") / "generated")


def _release(version: str, ingest: tuple[str, ...] = ("raw_tree",)) -> Release:
    summary = "summary_results.json" if "summary" in ingest else ""
    return Release(
        version=version,
        repository=f"mlcommons/inference_results_{version}",
        summary_path=summary,
        summary_format="final_report" if summary else None,
        published_date=dt.date(2020, 1, int(version[1]) + 1),
        ingest=ingest,
    )


MANIFEST = [
    _release("v1.0"),
    _release("v1.1"),
    _release("v2.0"),
    _release("v2.1"),
    _release("v3.0"),
    _release("v4.1", ("summary", "raw_tree")),
]


def test_round_status_comes_from_the_manifest_and_the_rows() -> None:
    status = round_status(["v4.1", "v1.0", "v2.1", "v9.9"], MANIFEST)
    assert status.select("release", "status").rows() == [
        ("v1.0", "raw tree only"),
        ("v1.1", "not in source"),
        ("v2.0", "not in source"),
        ("v2.1", "raw tree only"),
        ("v3.0", "not in source"),
        ("v4.1", "summary file"),
        # Found with rows but not yet in the manifest: read as a summary.
        ("v9.9", "summary file"),
    ]
    assert status["published_date"][0] == dt.date(2020, 1, 2)


def test_a_round_read_without_rows_is_not_ingested_not_absent() -> None:
    status = round_status(["v1.0", "v4.1"], MANIFEST, read=["v2.1", "v4.1"])
    assert status.filter(pl.col("release").is_in(["v2.0", "v2.1"])).select(
        "release", "status", "has_rows"
    ).rows() == [("v2.0", "not in source", False), ("v2.1", "not ingested", False)]
    assert skip_note("v1.0", "v4.1", status) == (
        "skips v1.1, v2.0, v3.0: not in source; v2.1: not ingested"
    )


def test_skip_notes_name_absent_and_held_rounds() -> None:
    status = round_status(["v1.0", "v2.1", "v4.1"], MANIFEST)
    assert skipped_rounds("v2.1", "v4.1", status) == ["v3.0"]
    assert skip_note("v2.1", "v4.1", status) == "skips v3.0: not in source"
    assert skip_note("v1.0", "v1.1", status) == ""
    assert skip_note("v1.0", "v4.1", status, in_source="in source, no result") == (
        "skips v1.1, v2.0, v3.0: not in source; v2.1: in source, no result"
    )
    frame = pl.DataFrame(
        {"old": ["v1.0", "v2.1", "v4.1", None], "new": ["v2.1", "v4.1", "v4.1", "x"]}
    )
    notes = frame.select(skip_note_expr(pl.col("old"), pl.col("new"), status))
    assert notes.to_series().to_list() == [
        "skips v1.1, v2.0: not in source",
        "skips v3.0: not in source",
        "",
        "",
    ]


def test_a_pair_cell_names_the_pairs_own_missing_rounds_then_held_ones() -> None:
    from pipeline.render.pair_views import pair_cells
    from tests.unit.render.conftest import pair, pairs, result

    status = round_status(["v1.0", "v2.1", "v4.1"], MANIFEST)
    old, mid, new = (result(release=r) for r in ("v1.0", "v2.1", "v4.1"))
    cells = pair_cells(
        pairs(
            # The pair's own column names what the source lacks (here v1.1, v2.0,
            # v3.0); the status adds v2.1, held but jumped over.
            pair(old, new, rounds_not_in_source=["v1.1", "v2.0", "v3.0"]),
            pair(mid, new, rounds_not_in_source=["v3.0"]),
            pair(new, new, rounds_not_in_source=[]),
        ),
        status,
    )
    notes = (
        cells["c_comparison"]
        .struct.field("__html__")
        .str.extract(r"<small>(skips [^<]*)</small>")
    )
    assert notes.to_list() == [
        "skips v1.1, v2.0, v3.0&#58; not in source; v2.1&#58; in source",
        "skips v3.0&#58; not in source",
        None,
    ]


def test_releases_index_lists_every_round_with_its_source(site: Path) -> None:
    page = unlabelled((site / "releases" / "index.md").read_text())
    assert "| Release | Published | Source | Upstream | Results |" in page
    repo = '<a href="https://github.com/mlcommons/inference_results_{0}">inference&#95;results&#95;{0}</a>'
    assert (
        f"| [v5.1](v5.1.md) | 2025-09-09 | summary file | {repo.format('v5.1')} | "
        "2 | 2 | 2 | 1 |"
    ) in page
    assert (
        f"| [v2.1](v2.1.md) | 2022-09-08 | raw tree only | {repo.format('v2.1')} | 1 |"
        in page
    )
    assert (
        f"| v3.0 | 2023-04-05 | not in source | {repo.format('v3.0')} | — | — | — | — |"
        in page
    )
    assert "Rounds without results here (v0.5, v0.7, v1.0, v1.1, v2.0, v3.0" in page


def test_software_gain_across_absent_rounds_names_them(site: Path) -> None:
    page = (site / "software-gains" / "llama2-70b-99.md").read_text()
    note = "skips v3.0, v3.1, v4.0&#58; not in source"
    assert f"## v2.1 → v4.1\n\nThis pair of releases {note}." in page
    row = next(line for line in page.splitlines() if line.startswith("<tr><td"))
    assert f"<br><small>{note}</small>" in row
