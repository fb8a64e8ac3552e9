"""Quality beside speed on the real v6.1 summary (issue 54 item 5).

A v6.1 open-division result shows the accuracy its summary publishes, as written,
in the Explorer's data file and on the release's benchmark page; the closed
tables of that page have no accuracy column.
"""

from __future__ import annotations

import gzip
import json

import polars as pl
import pytest

from pipeline.render.escape import escape
from pipeline.render.explorer_data import data_file, explorer_rows
from pipeline.render.model import Slugs
from pipeline.render.release_views import (
    ranked,
    release_benchmark_pages,
    result_cells,
)
from pipeline.render.site_data import with_accelerators
from pipeline.render.spec import Draft
from pipeline.render.tables import cell_label

#: ScitiX's v6.1 open-division DeepSeek-R1 Offline result and its summary's Accuracy.
SCITIX = "v6.1:open/ScitiX/B200-SXM-180GBx8_TRT/deepseek-r1/Offline"
SCITIX_ACCURACY = (
    "exact_match: 81.70009115770283  TOKENS_PER_SAMPLE: 3727.5230173199634"
)
#: Krai's, on Qwen3-VL: the summary gives the score alone.
KRAI = "v6.1:open/Krai/h200/qwen3-vl-235b-a22b/Offline"
KRAI_ACCURACY = "0.7878368975913989"
CELL = f'data-label="{cell_label("Accuracy (as published)")}">'


@pytest.fixture(scope="module")
def v61(mirror_results: pl.DataFrame) -> pl.DataFrame:
    return mirror_results.filter(pl.col("release") == "v6.1")


def test_the_explorer_ships_each_v61_open_result_with_its_accuracy(
    v61: pl.DataFrame,
) -> None:
    data = json.loads(gzip.decompress(data_file(explorer_rows(v61))))
    shipped = {r["result_key"]: r["accuracy_upstream"] for r in data["data"]}
    assert shipped[SCITIX] == SCITIX_ACCURACY
    assert shipped[KRAI] == KRAI_ACCURACY
    # Every v6.1 result publishes one (the summary's Accuracy field).
    assert None not in shipped.values() and len(shipped) == 492


def _accuracy_cells(page: str, benchmark_heading: str) -> list[str]:
    section = page.split(benchmark_heading, 1)[1].split("\n## ", 1)[0]
    return [c.split("</td>")[0] for c in section.split(CELL)[1:]]


def test_the_release_benchmark_pages_show_open_results_accuracy(
    v61: pl.DataFrame,
) -> None:
    draft = Draft()
    benchmarks = sorted(v61["benchmark"].unique().to_list())
    slugs = Slugs(
        {"releases": {"v6.1": "v6-1"}, "benchmarks": {b: b for b in benchmarks}}
    )
    pages = release_benchmark_pages(
        draft, slugs, "v6.1", result_cells(ranked(with_accelerators(v61)))
    )
    files = {f.rel: f.content for f in draft.done().files}
    deepseek = files[pages["deepseek-r1"]]
    offline_open = _accuracy_cells(deepseek, "## Offline · open")
    assert f"<small>{escape(SCITIX_ACCURACY)}</small>" in offline_open
    assert escape(SCITIX_ACCURACY) == (
        "exact&#95;match&#58; 81.70009115770283 TOKENS&#95;PER&#95;SAMPLE&#58; "
        "3727.5230173199634"
    )
    # The closed tables keep their columns.
    assert _accuracy_cells(deepseek, "## Offline · closed") == []
    qwen = files[pages["qwen3-vl-235b-a22b"]]
    assert _accuracy_cells(qwen, "## Offline · open") == [
        # A bare score: its "." an entity against a line-start list, shown as is.
        f"<small>{escape(KRAI_ACCURACY)}</small>"
    ]
