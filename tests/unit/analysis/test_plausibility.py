"""Plausibility flags: the reviewed rules, their validation, and each test on tiny data."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.analysis import pairs as paired
from pipeline.analysis.plausibility import (
    PlausibilityRulesError,
    headline_pairs,
    load_plausibility_rules,
)
from tests.unit.analysis.helpers import GB300, frame, row


def flags_of(pairs: pl.DataFrame, **where: object) -> list[str]:
    for name, value in where.items():
        pairs = pairs.filter(pl.col(name) == value)
    assert pairs.height == 1, pairs
    return pairs["flags"][0].to_list()


def test_committed_rules_load_with_their_thresholds() -> None:
    rules = {r.id: r for r in load_plausibility_rules()}
    assert rules["superlinear_scaling"].threshold == 1.05
    assert rules["efficiency_above_100"].threshold == 1.0
    assert rules["efficiency_above_100"].role == "label"
    assert rules["large_software_gain"].threshold == 3.0
    assert (rules["outlier_end"].factor, rules["outlier_end"].min_class_size) == (10, 5)
    assert all(r.evidence for r in rules.values())


def test_a_plausible_software_gain_has_no_flag() -> None:
    results = frame(
        row(release="v5.1", result_value=100.0),
        row(release="v6.0", result_value=150.0),
    )
    pairs = paired(results, "software_gain")
    system = pairs.filter(pl.col("identity_level") == "system")
    assert system["flags"].to_list() == [[]]
    assert system["flag_reasons"].to_list() == [None]
    assert headline_pairs(pairs)["ratio"].to_list() == [1.5]


def test_a_large_same_hardware_gain_is_flagged_with_its_reason() -> None:
    results = frame(
        row(release="v5.1", result_value=10.0),
        row(release="v6.0", result_value=46.5 * 10.0),
    )
    pairs = paired(results, "software_gain")
    assert flags_of(pairs, identity_level="system") == ["large_software_gain"]
    reason = pairs.filter(pl.col("identity_level") == "system")["flag_reasons"][0]
    assert reason == "software-only gain above 3x on the same hardware (ratio 46.5 > 3)"
    assert headline_pairs(pairs).height == 0


def test_an_end_ten_times_below_its_class_is_flagged() -> None:
    # Five other v6.0 systems around 100 tokens/s per accelerator; ours does 1.
    others = [
        row(release="v6.0", submitter=f"S{i}", platform=f"p{i}", result_value=800.0)
        for i in range(5)
    ]
    results = frame(
        row(release="v5.1", result_value=4.0),
        row(release="v6.0", result_value=8.0),
        *others,
    )
    pairs = paired(results, "software_gain")
    assert flags_of(pairs, identity_level="system") == ["outlier_end"]
    reason = pairs.filter(pl.col("identity_level") == "system")["flag_reasons"][0]
    assert reason == (
        "an end is far off its class (v6.0 end 100.0x worse than the median of its "
        "6 results)"
    )


def test_preview_inferred_and_different_submitters_are_named() -> None:
    results = frame(
        row(release="v5.1", submitter="A", availability="preview", result_value=10.0),
        row(release="v6.0", submitter="B", is_inferred=True, result_value=12.0),
    )
    pairs = paired(results, "software_gain")
    assert flags_of(pairs, identity_level="hardware") == [
        "preview_end", "inferred_end", "different_submitters",
    ]  # fmt: skip
    reason = pairs.filter(pl.col("identity_level") == "hardware")["flag_reasons"][0]
    assert reason == (
        "an end is a preview system, not yet available (v5.1 end); an end is "
        "inferred from another scenario's run (v6.0 end); the two ends are "
        "different submitters' systems (A vs B)"
    )


def test_superlinear_scaling_of_one_system_is_flagged() -> None:
    gb = {"accelerator_name": GB300, "platform": "rack_x4"}
    results = frame(
        row(total_accelerators=4, nodes=1, result_value=10.0, **gb),
        row(total_accelerators=72, nodes=18, result_value=10.0 * 18 * 1.6, **gb),
    )
    pairs = paired(results, "scaling")
    # Above 105%: the warning, and the label every step above 100% carries.
    assert flags_of(pairs, identity_level="same_submitter") == [
        "superlinear_scaling", "efficiency_above_100",
    ]  # fmt: skip
    assert flags_of(pairs, identity_level="best_of_any") == [
        "superlinear_scaling", "efficiency_above_100", "size_comparison",
    ]  # fmt: skip
    assert headline_pairs(pairs).height == 0


def _one_system_scaling(efficiency_times_1000: int) -> pl.DataFrame:
    """One system at 4 and 8 GPUs whose step has the given efficiency (in 1/1000)."""
    gb = {"accelerator_name": GB300, "platform": "rack_x4"}
    results = frame(
        row(total_accelerators=4, nodes=1, result_value=10.0, **gb),
        row(total_accelerators=8, nodes=2, result_value=20 * efficiency_times_1000 / 1000, **gb),
    )  # fmt: skip
    pairs = paired(results, "scaling")
    return pairs.filter(pl.col("identity_level") == "same_submitter")


def test_efficiency_of_exactly_100_percent_carries_no_flag() -> None:
    step = _one_system_scaling(1000)
    assert step["efficiency"].to_list() == [1.0]
    assert step["flags"].to_list() == [[]]
    assert headline_pairs(step).height == 1


def test_efficiency_just_above_100_percent_is_labelled_not_warned() -> None:
    step = _one_system_scaling(1001)
    assert step["efficiency"][0] == pytest.approx(1.001)
    assert step["flags"].to_list() == [["efficiency_above_100"]]
    assert step["flag_reasons"].to_list() == [
        "super-linear: efficiency above 100%, more per accelerator at the larger "
        "size than at the smaller (efficiency 100.1% > 100%)"
    ]
    # A label: shown with its badge, the step stays headline material.
    assert headline_pairs(step).height == 1


def test_efficiency_above_105_percent_is_also_warned() -> None:
    step = _one_system_scaling(1051)
    assert step["flags"].to_list() == [["superlinear_scaling", "efficiency_above_100"]]
    assert step["flag_reasons"][0].startswith(
        "more than linear scaling (efficiency 105.1% > 105%); super-linear"
    )
    assert headline_pairs(step).height == 0


RULE = """
[[flag]]
id = "x"
test = "above"
field = "ratio"
threshold = 2
kinds = ["software_gain"]
reason = "r"
evidence = "e"
role = "warning"
why = "w"
"""


FLAG_X = "t.toml: [flag 1 (x)] "


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('test = "above"', 'test = "sideways"'),
         FLAG_X + "test: expected one of 'above', 'either_end', 'ends_differ', "
         "'declared_differ', 'identity_level', 'outlier_end', got 'sideways'"),
        (('field = "ratio"', 'field = "submitter"'),
         FLAG_X + "field: expected one of 'ratio', 'efficiency', got 'submitter'"),
        (('threshold = 2', 'threshold = -1'),
         FLAG_X + "threshold: expected a positive number, got -1"),
        (('threshold = 2', 'threshold = "2"'),
         FLAG_X + "threshold: expected a positive number, got '2'"),
        (('threshold = 2\n', ''), FLAG_X + "threshold: is required by test 'above'"),
        (('kinds = ["software_gain"]', 'kinds = ["gain"]'),
         FLAG_X + "kinds: expected a list, each item one of 'software_gain', "
         "'generation_ratio', 'scaling' (at least one), got ['gain']"),
        (('evidence = "e"', 'evidence = ""'),
         FLAG_X + "evidence: expected a non-empty string, got ''"),
        (('reason = "r"', 'note = "r"'),
         FLAG_X + "note: unknown field (known: evidence, factor, field, id, kinds, "
         "levels, min_class_size, reason, role, test, threshold, why)"),
        # Every rule says whether it is a label or a warning, and why.
        (('role = "warning"', 'role = "doubt"'),
         FLAG_X + "role: expected one of 'label', 'warning', got 'doubt'"),
        (('why = "w"\n', ''),
         FLAG_X + "why: expected a non-empty string, got nothing"),
    ],
)  # fmt: skip
def test_a_malformed_rule_is_named(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(RULE.replace(*change))
    with pytest.raises(PlausibilityRulesError) as info:
        load_plausibility_rules(path)
    assert str(info.value) == message


def test_an_id_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(RULE + RULE)
    with pytest.raises(PlausibilityRulesError) as info:
        load_plausibility_rules(path)
    assert str(info.value) == "t.toml: [flag 2 (x)] id: 'x' is listed twice"


def test_methodology_documents_every_rule() -> None:
    text = (Path(__file__).parents[3] / "site" / "methodology.md").read_text()
    section = text.split("## Labels and warnings", 1)[1].split("\n## ", 1)[0]
    for rule in load_plausibility_rules():
        assert f"`{rule.id}`" in section, rule.id


def test_labels_travel_with_a_headline_and_warnings_keep_a_pair_out() -> None:
    from pipeline.analysis.plausibility import headline_pairs

    results = frame(
        row(release="v5.1", result_value=100.0),
        row(release="v6.0", result_value=150.0, availability="preview"),
        row(release="v6.0", platform="big", result_value=100.0),
        row(release="v6.1", platform="big", result_value=400.0),
    )
    pairs = paired(results, "software_gain").filter(
        pl.col("identity_level") == "system"
    )
    assert pairs.select("platform_new", "flags").rows() == [
        ("acme_box", ["preview_end"]),
        ("big", ["large_software_gain"]),
    ]
    # Preview is a disclosure: the 1.5x gain is a headline, with its badge; the 4x
    # gain above every same-hardware gain on record is not.
    assert headline_pairs(pairs)["ratio"].to_list() == [1.5]


def _generation_pairs(old_value: float, new_value: float, new_count: int = 8):
    # The committed registry: H200's predecessor is H100.
    results = frame(
        row(release="v6.0", result_value=old_value, total_accelerators=8),
        row(
            release="v6.0",
            accelerator_name="NVIDIA H200-SXM-141GB",
            platform="acme_h200",
            result_value=new_value,
            total_accelerators=new_count,
            nodes=new_count // 8,
        ),
    )
    return paired(results, "generation_ratio")


def test_a_generation_ratio_above_five_is_warned_and_never_a_headline() -> None:
    # RedHat's v6.0 qwen3-vl Server H200 -> B200 was 6.14x at one scale.
    pairs = _generation_pairs(100.0, 614.0)
    strict = pairs.filter(
        (pl.col("identity_level") == "same_submitter") & ~pl.col("is_per_accelerator")
    )
    assert strict["flags"].to_list() == [["large_generation_ratio"]]
    assert strict["flag_reasons"].to_list() == [
        "hardware-generation ratio above 5x (ratio 6.14 > 5)"
    ]
    assert headline_pairs(pairs).height == 0
    assert headline_pairs(_generation_pairs(100.0, 180.0))["ratio"].to_list() == [1.8]


def test_a_per_accelerator_ratio_of_two_sizes_is_no_headline() -> None:
    # A 16-GPU H200 system against an 8-GPU H100 one: only per accelerator.
    pairs = _generation_pairs(100.0, 360.0, new_count=16)
    same_submitter = pairs.filter(pl.col("identity_level") == "same_submitter")
    assert same_submitter["is_per_accelerator"].to_list() == [True]
    assert same_submitter["flags"].to_list() == [[]]
    assert headline_pairs(pairs).height == 0
