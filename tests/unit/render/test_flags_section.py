"""The Audit page's plausibility section and the flagged-pairs download."""

from __future__ import annotations

from pipeline.render.flags_section import flagged_pairs, flags_section
from tests.unit.render.conftest import AMD_V51, AMD_V60, EVIL_V60, pair, pairs


def test_only_flagged_pairs_are_listed_with_their_reasons() -> None:
    gains = pairs(
        pair(AMD_V51, AMD_V60, flags=[], flag_reasons=None),
        pair(
            AMD_V51, EVIL_V60, identity_level="hardware",
            flags=["different_submitters"],
            flag_reasons="the two ends are different submitters' systems (AMD vs Evil)",
        ),
    )  # fmt: skip
    flagged = flagged_pairs([gains, pairs(), pairs()])
    assert flagged["result_key_new"].to_list() == [EVIL_V60["result_key"]]
    assert flagged["flags"].to_list() == [["different_submitters"]]


def test_each_rule_is_shown_with_its_count_and_evidence_escaped() -> None:
    gains = pairs(
        pair(AMD_V51, EVIL_V60, flags=["different_submitters", "<b>x</b>"],
             flag_reasons="r"),
    )  # fmt: skip
    text = "\n".join(flags_section(flagged_pairs([gains])))
    assert "Flagged pairs: **1**." in text
    assert "downloads/flagged_pairs.csv" in text
    # One row per committed rule; the one that fired counts its pair.
    assert "<code>superlinear&#95;scaling</code>" in text
    assert "software&#95;gain 1" in text
    assert "<b>x</b>" not in text
