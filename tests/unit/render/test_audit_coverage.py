"""The Audit page's accelerator coverage: every row classed, unmapped names listed."""

from __future__ import annotations

import polars as pl

from pipeline.render.audit_sections import accelerator_coverage, rejection_summary


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


def test_counts_contradicting_their_names_are_listed_with_the_reason() -> None:
    from pipeline.render.audit_sections import accelerator_count_notes
    from pipeline.transform.results import accelerator_count_note

    rows = pl.DataFrame(
        {
            "release": ["v6.0", "v6.0"],
            "result_key": ["6.0-0001:llama2-70b-99:Offline", "6.0-0002:x:Offline"],
            "result_url": ["https://github.com/a", "https://github.com/b"],
            "total_accelerators": [88, 8],
            "nodes": [11, 1],
            "accelerators_per_node": [8, 8],
            "accelerator_upstream": ["MI355X <b>x</b> (x87)", "MI355X (x8)"],
        }
    ).with_columns(
        accelerator_count_note=accelerator_count_note(
            pl.col("total_accelerators"),
            pl.col("nodes"),
            pl.col("accelerators_per_node"),
            pl.col("accelerator_upstream"),
        )
    )
    text = "\n".join(accelerator_count_notes(rows))
    assert "## Accelerator counts that disagree with their names" in text
    assert "0-0001" in text and "0-0002" not in text  # (x8) agrees with 8
    assert "declared 88 accelerators &#40;11 nodes × 8 per node&#41;" in text
    # The upstream name is escaped like every upstream string.
    assert "&lt;b&gt;x&lt;/b&gt;" in text and "<b>x</b>" not in text
    # Nothing to list: the section says so.
    agreed = accelerator_count_notes(rows.filter(pl.col("total_accelerators") == 8))
    assert "agrees with the declared count" in "\n".join(agreed)
