"""Upstream's `inferred` mark on the real v5.1, v6.0 and v6.1 summaries, as judged here.

From v6.0 the submission checker marks every Interactive result and every lower-case
folder inferred (a case-sensitive comparison); the registry (rounds.toml
inferred_flag) and the raw tree's logs decide instead. The counts are the research's
(mirror summaries counted against the raw tree where the mirror has it).
"""

from __future__ import annotations

import polars as pl
import pytest

from pipeline.transform.inferred import LOG_SAYS_MEASURED, judge_by_tree


def _round(results: pl.DataFrame, release: str) -> pl.DataFrame:
    return results.filter(pl.col("release") == release)


def _counts(frame: pl.DataFrame) -> dict[str, int]:
    return {
        "marked upstream": int(frame["is_inferred_upstream"].sum()),
        "inferred": int(frame["is_inferred"].sum()),
        "unverified": int(frame["is_inferred_unverified"].sum()),
    }


def test_v5_1_marks_are_taken_and_every_one_is_a_singlestream_run(
    mirror_results, raw_trees
) -> None:
    summary = _round(mirror_results, "v5.1")
    assert _counts(summary) == {
        "marked upstream": 536,
        "inferred": 536,
        "unverified": 0,
    }
    judged = judge_by_tree(summary, raw_trees["v5.1"][0])
    # The logs agree with every mark: nothing is overturned.
    assert _counts(judged) == {"marked upstream": 536, "inferred": 536, "unverified": 0}


def test_v6_1_interactive_and_datacenter_marks_are_not_called_inferred(
    mirror_results,
) -> None:
    v61 = _round(mirror_results, "v6.1")
    assert _counts(v61) == {"marked upstream": 125, "inferred": 0, "unverified": 9}
    interactive = v61.filter(pl.col("scenario") == "Interactive")
    assert interactive.height == 43
    assert interactive["is_inferred_upstream"].all()
    assert not interactive["is_inferred"].any()
    assert set(interactive["inferred_note"]) == {
        "marked inferred upstream; from v6.0 the checker marks every Interactive "
        "result so (an Interactive folder holds its own Server-mode run by design)"
    }
    # Every Vera Rubin row is marked upstream; all are datacenter results: measured.
    rubin = v61.filter(pl.col("accelerator_upstream").str.contains("VR200|Vera Rubin"))
    assert rubin.height == 8
    assert rubin["is_inferred_upstream"].all()
    assert not (rubin["is_inferred"] | rubin["is_inferred_unverified"]).any()
    # What the summary cannot decide: edge lower-case multistream/offline folders.
    unknown = v61.filter(pl.col("is_inferred_unverified"))
    assert sorted(unknown["location"].str.extract(r"([^/]+)$").unique()) == [
        "multistream",
        "offline",
    ]
    assert set(unknown["category"]) == {"edge"}


def test_v6_0_logs_decide_two_inferred_of_102_marked(mirror_results, raw_trees) -> None:
    summary = _round(mirror_results, "v6.0")
    # Without its tree: 53 Interactive and the datacenter/SingleStream/Server marks
    # are measured, 24 edge lower-case multistream/offline rows cannot be told.
    assert _counts(summary) == {"marked upstream": 102, "inferred": 0, "unverified": 24}
    judged = judge_by_tree(summary, raw_trees["v6.0"][0])
    assert _counts(judged) == {"marked upstream": 102, "inferred": 2, "unverified": 0}
    inferred = judged.filter(pl.col("is_inferred")).sort("scenario")
    assert inferred.select("submitter", "scenario").rows() == [
        ("Lenovo", "MultiStream"),
        ("Lenovo", "Offline"),
    ]
    assert inferred["location"].str.contains("SE100").all()
    overturned = judged.filter(pl.col("is_inferred_upstream") & ~pl.col("is_inferred"))
    assert overturned.height == 100
    # Rows the registry already explained keep that note; the others say the log.
    assert overturned.filter(pl.col("inferred_note") == LOG_SAYS_MEASURED).height == 100


@pytest.mark.parametrize("release", ["v6.0", "v6.1"])
def test_no_interactive_result_is_inferred(full_mirror_results, release) -> None:
    rows = _round(full_mirror_results, release).filter(
        pl.col("scenario") == "Interactive"
    )
    assert rows.height > 0
    assert not rows["is_inferred"].any()
