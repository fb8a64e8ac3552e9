"""The "how to cite" line of a result (pipeline/render/cite.py), exact text.

The round facts come from the committed manifest (releases.toml), so the dates and
v6.1's approximate date are the reviewed ones.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from pipeline.registry.releases import Release
from pipeline.render.cite import cite_rounds, with_citation

URL_51 = (
    "https://github.com/mlcommons/inference_results_v5.1/tree/abc123/closed/NVIDIA/"
    "results/GB200/llama2-70b-99/Offline"
)
URL_61 = (
    "https://github.com/mlcommons/inference_results_v6.1/tree/def456/closed/NVIDIA/"
    "results/B300-SXM-270GBx8_TRT/qwen3-vl-235b-a22b/Offline"
)


def _cite(rows: list[dict], rounds: pl.DataFrame | None = None, **kw: str) -> list[str]:
    frame = pl.DataFrame(
        rows,
        schema={
            "release": pl.String, "division": pl.String, "availability": pl.String,
            "result_id": pl.String, "result_url": pl.String,
        },
    )  # fmt: skip
    cited = with_citation(frame.lazy(), cite_rounds() if rounds is None else rounds)
    return cited.collect()["citation"].to_list()


def test_a_v51_result_cites_its_id_and_date() -> None:
    (line,) = _cite(
        [{"release": "v5.1", "division": "closed", "availability": "available",
          "result_id": "5.1-0001", "result_url": URL_51}]
    )  # fmt: skip
    assert line == (
        "MLPerf Inference v5.1, Closed division, Available, result 5.1-0001, "
        f"published 2025-09-09; source: {URL_51}. Published by MLCommons. "
        "Derived figures on this site are not MLPerf results."
    )


def test_a_v61_result_says_its_summary_has_no_id_and_the_date_is_approximate() -> None:
    (line,) = _cite(
        [{"release": "v6.1", "division": "closed", "availability": "preview",
          "result_id": None, "result_url": URL_61}]
    )  # fmt: skip
    assert line == (
        "MLPerf Inference v6.1, Closed division, Preview, no result ID (v6.1's "
        "summary publishes none), published 2026-09-01 (approximate); source: "
        f"{URL_61}. Published by MLCommons. Derived figures on this site are "
        "not MLPerf results."
    )


def test_raw_tree_rounds_unlisted_rounds_and_odd_words() -> None:
    rounds = cite_rounds(
        [
            Release(
                version="v0.5", repository="mlcommons/inference_results_v0.5",
                summary_path="", summary_format=None,
                published_date=dt.date(2019, 11, 6), ingest=("raw_tree",),
            )
        ]
    )  # fmt: skip
    raw, unlisted = _cite(
        [
            {"release": "v0.5", "division": "open", "availability": "rdi",
             "result_id": None, "result_url": "https://x.example/a"},
            {"release": "v9.9", "division": None, "availability": "soon",
             "result_id": None, "result_url": None},
        ],
        rounds,
    )  # fmt: skip
    assert raw.startswith(
        "MLPerf Inference v0.5, Open division, RDI, no result ID (v0.5's repository "
        "publishes none), published 2019-11-06; source: https://x.example/a. "
    )
    assert unlisted.startswith(
        "MLPerf Inference v9.9, Unknown division, availability soon, no result ID "
        "(v9.9's repository publishes none), publication date not listed; source: "
        "no upstream link. "
    )


def test_the_manifest_marks_only_v61_approximate() -> None:
    rounds = cite_rounds()
    assert rounds.filter("date_approximate")["release"].to_list() == ["v6.1"]
    assert rounds.filter(pl.col("release") == "v6.0")["published_date"].item() == (
        dt.date(2026, 3, 26)
    )
