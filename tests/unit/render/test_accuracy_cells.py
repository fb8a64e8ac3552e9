"""The accuracy upstream published, beside each result (issue 54 item 5).

In the Explorer's first screen and data file, and in every open-division table of
a release's benchmark pages: as upstream wrote it, escaped for the page, and "not
in the source this site read" where the source has none.
"""

from __future__ import annotations

import gzip
import json

import polars as pl

from pipeline.render import explorer_data
from pipeline.render.escape import escape
from pipeline.render.model import Slugs
from pipeline.render.release_views import (
    _open_division,
    ranked,
    release_benchmark_pages,
    result_cells,
)
from pipeline.render.site_data import with_accelerators
from pipeline.render.spec import Draft
from pipeline.render.tables import NO_ACCURACY, cell_label
from tests.unit.render.conftest import frame, result

PUBLISHED = "exact_match: 81.40382862351869  TOKENS_PER_SAMPLE: 3825.619416590702"
HOSTILE = '<img src=x onerror=alert(1)> [x](javascript:alert(2)) =HYPERLINK("e")'
#: Where a table's accuracy cell starts (its ``data-label``, escaped).
CELL = f'data-label="{cell_label("Accuracy (as published)")}">'


def _rows() -> pl.DataFrame:
    """An open-division release: one published accuracy, one none, one hostile."""
    return frame(
        result(division="open", accuracy_upstream=PUBLISHED),
        result(
            division="open",
            result_key="5.1-0002:llama2-70b-99:Offline",
            submitter="Krai",
            accuracy_upstream=None,
        ),
        result(
            division="open",
            result_key="5.1-0003:llama2-70b-99:Offline",
            submitter="Evil",
            accuracy_upstream=HOSTILE,
        ),
        result(result_key="5.1-0004:llama2-70b-99:Offline", submitter="Closed Co"),
    )


def _cell(html: str, submitter: str) -> str:
    """The accuracy cell of the row of ``submitter`` in a table's HTML."""
    (row,) = [r for r in html.split("<tr>") if f">{submitter}<" in r]
    return row.split(CELL)[1].split("</td>")[0]


def test_explorer_first_screen_shows_accuracy_as_written_or_says_none() -> None:
    first = explorer_data.first_screen(explorer_data.explorer_rows(_rows()))
    assert _cell(first, "AMD") == f"<small>{escape(PUBLISHED)}</small>"
    assert "exact&#95;match&#58; 81.40382862351869 TOKENS" in _cell(first, "AMD")
    assert _cell(first, "Krai") == NO_ACCURACY == "not in the source this site read"
    # Markup stays text: every "<", "[" and "(" an entity, nothing live.
    assert _cell(first, "Evil") == f"<small>{escape(HOSTILE)}</small>"
    assert "<img" not in first and "](javascript" not in first


def test_explorer_data_ships_accuracy_verbatim_for_the_script() -> None:
    blob = explorer_data.explorer_data(_rows())
    data = json.loads(gzip.decompress(blob).decode("utf-8"))
    assert {"accuracy_upstream", "accuracy_note"} <= set(data["columns"])
    shipped = {r["submitter"]: r["accuracy_upstream"] for r in data["data"]}
    # Text, not HTML: the script shows it through ledgerText.show as textContent.
    assert shipped == {
        "AMD": PUBLISHED, "Krai": None, "Evil": HOSTILE, "Closed Co": None,
    }  # fmt: skip


def _benchmark_page(rows: pl.DataFrame) -> str:
    draft = Draft()
    slugs = Slugs({"releases": {"v5.1": "v5-1"}, "benchmarks": {"llama2-70b-99": "l"}})
    cells = result_cells(ranked(with_accelerators(rows)))
    (rel,) = release_benchmark_pages(draft, slugs, "v5.1", cells).values()
    (page,) = [f.content for f in draft.done().files if f.rel == rel]
    return page


def test_open_division_rows_show_their_accuracy_and_closed_tables_do_not() -> None:
    page = _benchmark_page(_rows())
    closed, open_ = page.split("## Offline · open")
    assert "Accuracy (as published)" not in closed
    assert _cell(open_, "AMD") == f"<small>{escape(PUBLISHED)}</small>"
    assert _cell(open_, "Krai") == "not in the source this site read"
    assert _cell(open_, "Evil") == f"<small>{escape(HOSTILE)}</small>"
    assert "<img" not in page and "](javascript" not in page


def test_the_release_page_counts_open_rows_with_published_accuracy() -> None:
    slugs = Slugs({"releases": {"v5.1": "v5-1"}, "benchmarks": {"llama2-70b-99": "l"}})
    cells = result_cells(ranked(with_accelerators(_rows())))
    section = "".join(
        _open_division(
            slugs,
            "generated/releases/v5-1.md",
            "v5.1",
            cells.filter(pl.col("division") != "closed"),
        )
    )
    assert "accuracy is what differs" in section
    assert "*not in the source this site read*" in section
    assert "| With published accuracy |" in section
    # Three open rows, two of which publish an accuracy.
    assert (
        '<span data-label="Rows"></span>3 | '
        '<span data-label="With published accuracy"></span>2 |'
    ) in section
