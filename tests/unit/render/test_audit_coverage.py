"""The Audit page's accelerator coverage: every row classed, unmapped names listed."""

from __future__ import annotations

import polars as pl

from pipeline.render.audit_page import accelerator_coverage, rejection_summary


def test_coverage_counts_each_class_and_lists_unmapped_names_escaped() -> None:
    rows = pl.DataFrame(
        {
            "release": ["v1.0", "v1.0", "v1.0", "v0.5", "v0.5", "v0.5"],
            "accelerator_name": [
                "NVIDIA T4", None, "Mix", "<b>Chip</b>", None, "Odd board",
            ],
            "is_accelerator_mapped": [True, True, True, False, False, True],
            "is_cpu_only": [False, True, False, False, False, False],
            "is_mixed_accelerators": [False, False, True, False, False, False],
            "is_accelerator_unclassified": [False, False, False, False, False, True],
        }
    )  # fmt: skip
    text = "\n".join(accelerator_coverage(rows))
    # Oldest release first; two of v0.5's three rows are unmapped.
    assert text.index(">v0.5<") < text.index(">v1.0<")
    assert "66.67%" in text and "0.0%" in text
    assert "&lt;b&gt;Chip&lt;/b&gt;" in text and "<b>Chip</b>" not in text
    assert "&#40;no name&#41;" in text  # escaped like every name


def test_coverage_is_left_out_without_the_registry_columns() -> None:
    rows = pl.DataFrame({"release": ["v1.0"], "accelerator_name": ["x"]})
    assert accelerator_coverage(rows) == []


def test_rejections_tied_in_count_are_listed_by_reason_every_time() -> None:
    # The full history has two v2.1 reasons with 2 records each; their order came
    # out differently between two renders of the same data.
    rejected = pl.DataFrame(
        {
            "release": ["v2.1", "v2.1", "v2.1", "v2.1", "v1.0", "v2.1", "v2.1"],
            "reason": ["zeta", "alpha", "zeta", "alpha", "beta", "mid", "mid"],
            "result_key": ["z1", "a1", "z2", "a2", "b1", "m1", "m2"],
        }
    )
    summary = rejection_summary(rejected)
    assert summary.rows() == [
        ("v2.1", "alpha", 2, "a1"),
        ("v2.1", "mid", 2, "m1"),
        ("v2.1", "zeta", 2, "z1"),
        ("v1.0", "beta", 1, "b1"),
    ]
