import polars as pl
import pytest

from pipeline.analysis import exclusions, pairs
from pipeline.analysis.pairing import PAIR_SCHEMA
from tests.unit.analysis.helpers import B200, H100, H200, MIXED, frame, one, row


def ratios(results, **kwargs):
    return pairs(results, "generation_ratio", **kwargs)


RESULTS = frame(
    # predecessor H100: submitter A 100, submitter B 110
    row(submitter="A", platform="a-h100", accelerator_name=H100, result_value=100.0),
    row(submitter="B", platform="b-h100", accelerator_name=H100, result_value=110.0),
    # successor H200: submitter A 150, submitter C 200
    row(submitter="A", platform="a-h200", accelerator_name=H200, result_value=150.0),
    row(submitter="C", platform="c-h200", accelerator_name=H200, result_value=200.0),
    # successor B200 at another count only: per-accelerator reading only
    row(submitter="A", platform="a-b200", accelerator_name=B200, total_accelerators=1,
        result_value=60.0),
    # another release never meets this one
    row(release="v6.0", submitter="A", platform="a-h100", accelerator_name=H100,
        result_value=10.0),
)  # fmt: skip


def test_conforms_to_the_pair_schema():
    out = ratios(RESULTS)
    assert out.schema == pl.Schema(PAIR_SCHEMA)
    assert set(out["kind"]) == {"generation_ratio"}
    assert set(out["release_old"]) == {"v5.1"}


def test_best_of_any_reading_takes_the_best_result_of_each_accelerator():
    pair = one(ratios(RESULTS), identity_level="best_of_any", is_per_accelerator=False)
    assert (pair["accelerator_id_old"], pair["accelerator_id_new"]) == (
        "nvidia-h100-sxm", "nvidia-h200-sxm",
    )  # fmt: skip
    assert (pair["submitter_old"], pair["submitter_new"]) == ("B", "C")
    assert pair["ratio"] == pytest.approx(200 / 110)


def test_same_submitter_reading_pairs_one_submitters_results():
    pair = one(
        ratios(RESULTS), identity_level="same_submitter", is_per_accelerator=False
    )
    assert (pair["submitter_old"], pair["submitter_new"]) == ("A", "A")
    assert pair["ratio"] == pytest.approx(150 / 100)


def test_per_accelerator_reading_spans_different_counts():
    out = ratios(RESULTS).filter(pl.col("is_per_accelerator"))
    b200 = one(
        out, identity_level="same_submitter", accelerator_id_new="nvidia-b200-sxm"
    )
    assert (b200["total_accelerators_old"], b200["total_accelerators_new"]) == (8, 1)
    assert b200["ratio"] == pytest.approx(60 / (150 / 8))
    # No same-count pair exists for B200.
    same_count = ratios(RESULTS).filter(
        ~pl.col("is_per_accelerator")
        & (pl.col("accelerator_id_new") == "nvidia-b200-sxm")
    )
    assert same_count.height == 0


def test_latency_is_compared_at_equal_counts_only():
    latency = {"scenario": "SingleStream", "result_unit": "Latency (ms)"}
    results = frame(
        row(accelerator_name=H100, result_value=4.0, **latency),
        row(accelerator_name=H200, result_value=2.0, **latency),
    )
    out = ratios(results)
    assert out["is_per_accelerator"].to_list() == [False, False]
    assert out["ratio"].to_list() == pytest.approx([2.0, 2.0])
    excluded = exclusions(results, "generation_ratio")
    assert set(excluded["exclusion_reason"]) == {
        "latency results are not normalised per accelerator"
    }
    assert excluded["pairs"].sum() == 2


def test_a_result_without_an_accelerator_count_is_not_compared():
    # Neither reading can place it: no scale to match, nothing to divide by; it is not
    # even a candidate to count as excluded.
    latency = {"scenario": "SingleStream", "result_unit": "Latency (ms)"}
    results = frame(
        row(accelerator_name=H100, result_value=4.0, **latency),
        row(accelerator_name=H200, total_accelerators=None, result_value=2.0,
            **latency),
    )  # fmt: skip
    assert ratios(results).height == 0
    assert exclusions(results, "generation_ratio").height == 0


def test_mixed_unmapped_and_rootless_accelerators_give_no_pair():
    results = frame(
        row(accelerator_name=MIXED),
        row(accelerator_name="Acme Chip"),
        row(accelerator_name=H100),  # H100 has no predecessor in the mirror
    )
    assert ratios(results).height == 0
