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
