"""Weight precision on every pair: declared spellings, the change badge, its flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.analysis import pairs
from pipeline.analysis.plausibility import headline_pairs
from pipeline.registry.precisions import PrecisionsError, load_precisions
from tests.unit.analysis.helpers import B200, H200, frame, one, row


def _gain(old_types: str | None, new_types: str | None) -> dict[str, object]:
    results = frame(
        row(release="v4.1", result_key="old", weight_data_types=old_types),
        row(release="v5.1", result_key="new", result_value=120.0,
            weight_data_types=new_types),
    )  # fmt: skip
    return one(pairs(results, "software_gain"), identity_level="system")


def test_a_precision_change_is_named_and_flagged_as_not_software_only() -> None:
    pair = _gain("fp16", "fp8")
    assert (pair["weight_data_types_old"], pair["weight_data_types_new"]) == (
        "fp16",
        "fp8",
    )
    assert pair["precision_change"] == "fp16 → fp8"
    assert pair["flags"] == ["precision_change"]
    assert pair["flag_reasons"] == (
        "the weight precision changed between the rounds (fp16 → fp8)"
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("fp8", "fp8"),
        ("INT8", "int8"),  # case is no change
        ("nvfp4", "fp4"),  # one format, two spellings (precisions.toml)
        ("NVFP4 weights with FP8 KV cache", "fp4"),  # the KV cache is not a weight
        ("UNSET", "fp8"),  # v5.1's word for nothing declared: no evidence
        (None, "fp8"),
    ],
)
def test_equal_or_undeclared_precision_is_no_change(old: str | None, new: str) -> None:
    pair = _gain(old, new)
    assert pair["precision_change"] is None
    assert pair["flags"] == []


def test_an_unreviewed_spelling_is_compared_as_written() -> None:
    assert _gain("fp8", "e4m3 experimental")["precision_change"] == (
        "fp8 → e4m3 experimental"
    )


@pytest.mark.parametrize(("old", "headlines"), [("fp16", 0), ("fp8", 1)])
def test_a_software_gain_with_a_precision_change_never_headlines(
    old: str, headlines: int
) -> None:
    gains = pairs(
        frame(
            row(release="v6.0", result_key="a", weight_data_types=old),
            row(
                release="v6.1",
                result_key="b",
                result_value=150.0,
                weight_data_types="fp8",
            ),
        ),  # fmt: skip
        "software_gain",
    )
    assert headline_pairs(gains).height == headlines


def test_a_generation_pair_across_precisions_keeps_its_headline_with_a_label() -> None:
    results = frame(
        row(release="v5.1", result_key="h200", accelerator_name=H200,
            weight_data_types="fp8"),
        row(release="v5.1", result_key="b200", accelerator_name=B200,
            result_value=300.0, weight_data_types="fp4"),
    )  # fmt: skip
    pair = one(
        pairs(results, "generation_ratio"),
        identity_level="same_submitter",
        is_per_accelerator=False,
    )
    assert pair["precision_change"] == "fp8 → fp4"
    assert pair["flags"] == ["precision_differs"]
    headlines = headline_pairs(pairs(results, "generation_ratio"))
    assert headlines["precision_change"].to_list() == ["fp8 → fp4"]


def test_spellings_of_one_format_are_one_precision() -> None:
    spellings = load_precisions()
    assert spellings["nvfp4, fp8 (kv cache)"] == "fp4"  # the KV cache is no weight
    assert spellings["bf16/f32/f8_e4m3/u8"] == "bf16+fp32+fp8+uint8"
    assert spellings["float8"] == "fp8"
    assert spellings["mxfp4"] == "mxfp4"  # not NVFP4


def test_a_malformed_precision_entry_is_named(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        '[[precision]]\nupstream = "fp8,fp4"\nweights = "fp8+fp4"\nevidence = "x"\n'
    )
    with pytest.raises(PrecisionsError) as info:
        load_precisions(path)
    assert str(info.value) == (
        "p.toml: [precision 1 ('fp8,fp4')] weights: 'fp8+fp4': list each format "
        "once, sorted"
    )
