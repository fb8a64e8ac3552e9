"""accelerator_histories on hand-written rows: best per round, steps, breaks."""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.analysis.history import HISTORY_SCHEMA, accelerator_histories
from pipeline.registry.accelerators import parse_accelerators
from pipeline.registry.benchmarks import parse_compatibility
from tests.unit.analysis.helpers import H100, H200, MIXED, frame, row

REGISTRY = parse_accelerators(
    {
        "accelerator": [
            {
                "id": "chip-h100",
                "vendor": "NVIDIA",
                "family": "Hopper",
                "model": "H100 SXM",
                "names": [H100],
            },
            {
                "id": "chip-h200",
                "vendor": "NVIDIA",
                "family": "Hopper",
                "model": "H200 SXM",
                "names": [H200],
            },
            {
                "id": "mixed-h200-mi350x",
                "vendor": "Mixed",
                "family": "Mixed",
                "model": "H200 + MI350X",
                "names": [MIXED],
                "is_mixed": True,
                "components": ["chip-h100", "chip-h200"],
            },
        ],
        "unclassified": [{"names": ["Mystery NPU"], "reason": "not identified"}],
    },
    "t.toml",
)
SERVER_BREAK = "llama2-70b-99 Server changed in v6.0 (test rule)"
RULES = parse_compatibility(
    {
        "compatibility": [
            {
                "benchmark": "llama2-70b-99",
                "scenario": "Server",
                "incompatible_between": ["v5.1", "v6.0"],
                "reason": SERVER_BREAK,
            }
        ]
    }
)


def _histories(*rows: dict, **options: object) -> pl.DataFrame:
    options.setdefault("registry", REGISTRY)
    options.setdefault("rules", RULES)
    return accelerator_histories(frame(*rows), **options).collect()


def test_three_round_line_gives_best_per_accelerator_and_step_ratios() -> None:
    history = _histories(
        # v4.1: one GPU does more per accelerator (120) than eight (800 / 8 = 100).
        row(release="v4.1", result_key="h41-8", result_value=800.0),
        row(
            release="v4.1", result_key="h41-1", result_value=120.0, total_accelerators=1
        ),
        row(release="v5.1", result_key="h51", result_value=1200.0),  # 150
        row(release="v6.0", result_key="h60", result_value=1440.0),  # 180
        # Not single chips, or not throughput: none of these may enter a line.
        row(release="v5.1", accelerator_name=MIXED, result_value=1e9),
        row(release="v5.1", accelerator_name="Mystery NPU", result_value=1e9),
        row(release="v5.1", accelerator_name="Unknown XPU", result_value=1e9),
        row(
            release="v5.1",
            accelerator_name=None,
            total_accelerators=0,
            result_value=1e9,
        ),
        row(release="v5.1", result_unit="Latency (ms)", result_value=0.001),
    )
    assert history.schema == pl.Schema(HISTORY_SCHEMA)
    assert history.select(
        "accelerator_id", "release", "value", "result_key", "total_accelerators"
    ).rows() == [
        ("chip-h100", "v4.1", 120.0, "h41-1", 1),
        ("chip-h100", "v5.1", 150.0, "h51", 8),
        ("chip-h100", "v6.0", 180.0, "h60", 8),
    ]
    assert history["step_ratio"].to_list() == [None, 1.25, 1.2]
    assert history["cumulative_ratio"].to_list() == [1.0, 1.25, 1.5]
    assert history["release_prev"].to_list() == [None, "v4.1", "v5.1"]
    # A step cites both results it divides.
    assert history["result_url_prev"].to_list() == [
        None,
        "https://example.org/h41-1",
        "https://example.org/h51",
    ]
    assert history["step"].to_list() == [1, 2, 3]
    assert history["segment_rounds"].to_list() == [3, 3, 3]
    assert history["segment"].to_list() == [0, 0, 0]
    assert history["break_reason"].to_list() == [None, None, None]
    first = history.row(0, named=True)
    assert first["result_url"] == "https://example.org/h41-1"
    assert (first["accelerator_vendor"], first["accelerator_model"]) == (
        "NVIDIA",
        "H100 SXM",
    )


def test_incompatible_boundary_breaks_the_chain_into_segments() -> None:
    history = _histories(
        *(
            row(release=r, scenario="Server", result_key=f"s{r}", result_value=v)
            for r, v in (
                ("v4.1", 800.0),
                ("v5.1", 1000.0),
                ("v6.0", 1600.0),
                ("v6.1", 2000.0),
            )
        )
    )
    assert history["segment"].to_list() == [0, 0, 1, 1]
    assert history["segment_rounds"].to_list() == [2, 2, 2, 2]
    assert history["step"].to_list() == [1, 2, 1, 2]
    assert history["step_ratio"].to_list() == [None, 1.25, None, 1.25]
    # The break names its rule and the round it is not chained to.
    assert history["break_reason"].to_list() == [None, None, SERVER_BREAK, None]
    assert history["release_prev"].to_list() == [None, "v4.1", "v5.1", "v6.0"]
    assert history["cumulative_ratio"].to_list() == [1.0, 1.25, 1.0, 1.25]


def test_committed_rules_break_3d_unet_at_v2_0_and_lines_never_mix_units() -> None:
    history = _histories(
        row(release="v1.0", benchmark="3d-unet-99", result_unit="Samples/s"),
        row(release="v2.1", benchmark="3d-unet-99", result_unit="Samples/s"),
        row(release="v5.1", result_unit="Queries/s", result_value=400.0),
        row(release="v6.0", result_unit="Tokens/s", result_value=800.0),
        rules=None,
    )
    unet = history.filter(pl.col("benchmark") == "3d-unet-99")
    assert unet["segment"].to_list() == [0, 1]
    assert unet["step_ratio"].to_list() == [None, None]
    assert "BraTS 2019 to KiTS19" in unet["break_reason"][1]
    llama = history.filter(pl.col("benchmark") == "llama2-70b-99")
    assert sorted(llama["result_unit"].to_list()) == ["Queries/s", "Tokens/s"]
    assert llama["segment_rounds"].to_list() == [1, 1]
    assert llama["step_ratio"].to_list() == [None, None]


def test_open_division_lines_follow_one_submitted_model() -> None:
    history = _histories(
        row(release="v5.1", division="open", model_upstream="m1", result_value=80.0),
        row(release="v6.0", division="open", model_upstream="m1", result_value=160.0),
        row(release="v6.0", division="open", model_upstream="m2", result_value=8e3),
        rules=None,
    )
    m1 = history.filter(pl.col("line_model") == "m1 · Acme/acme_box")
    assert m1["step_ratio"].to_list() == [None, 2.0]
    m2 = history.filter(pl.col("line_model") == "m2 · Acme/acme_box")
    assert m2["segment_rounds"].item() == 1


def test_versions_sort_numerically_and_preview_can_be_left_out() -> None:
    rows = (
        row(release="v10.0", result_key="ten", result_value=300.0),
        row(release="v9.0", result_key="nine", result_value=200.0),
        row(
            release="v9.0",
            result_key="nine-preview",
            result_value=900.0,
            availability="preview",
        ),
    )
    with_preview = _histories(*rows)
    assert with_preview["release"].to_list() == ["v9.0", "v10.0"]
    assert with_preview["result_key"].to_list() == ["nine-preview", "ten"]
    assert with_preview["is_preview"].to_list() == [True, False]
    measured = _histories(*rows, include_preview=False)
    assert measured["result_key"].to_list() == ["nine", "ten"]
    assert measured["step_ratio"].to_list() == [None, pytest.approx(1.5)]
