"""Look-alike names in the real full history: one pair of system names, flagged."""

from __future__ import annotations

import polars as pl

from pipeline.transform.lookalikes import lookalike_groups


def test_the_full_history_has_one_group_a_non_breaking_hyphen(
    full_mirror_results: pl.DataFrame,
) -> None:
    groups = lookalike_groups(full_mirror_results)
    # Every mirrored round (summaries and raw trees): among its submitter, system
    # and accelerator names, one pair looks alike. NVIDIA's v5.1 DGX B200 is
    # also declared with U+2011 NON-BREAKING HYPHEN for the two hyphens; no
    # submitter or accelerator name has a look-alike.
    assert groups["skeleton"].n_unique() == 1
    rows = {r["name"]: r for r in groups.iter_rows(named=True)}
    plain = "NVIDIA DGX B200 (8x B200-SXM-180GB, TensorRT)"
    odd = plain.replace("-", "\u2011")
    assert set(rows) == {plain, odd}
    assert set(groups["field"]) == {"system_name"}
    assert rows[odd]["releases"] == ["v5.1"]
    assert rows[odd]["distinct_characters"] == "U+2011 NON-BREAKING HYPHEN"
    assert rows[plain]["distinct_characters"] == "U+002D HYPHEN-MINUS"
    assert rows[odd]["results"] == 3
