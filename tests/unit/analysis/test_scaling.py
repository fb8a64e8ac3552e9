import polars as pl
import pytest

from pipeline.analysis import exclusions, pair_candidates, pairs
from pipeline.analysis.pairing import PAIR_SCHEMA
from tests.unit.analysis.helpers import GB300, frame, one, row

GB = {"accelerator_name": GB300}


def steps(results, **kwargs):
    return pairs(results, "scaling", **kwargs)


def test_efficiency_is_speedup_over_count_ratio():
    results = frame(
        row(total_accelerators=72, nodes=18, result_value=647076.0, **GB),
        row(total_accelerators=288, nodes=72, result_value=2494310.0, **GB),
    )
    out = steps(results)
    assert out.schema == pl.Schema(PAIR_SCHEMA)
    pair = one(out, identity_level="same_submitter")
    assert (pair["total_accelerators_old"], pair["total_accelerators_new"]) == (72, 288)
    assert pair["ratio"] == pytest.approx(2494310 / 647076)
    assert pair["efficiency"] == pytest.approx((2494310 / 647076) / 4)
    assert pair["kind"] == "scaling"
    # Within one round: consecutive, no round between the ends.
    assert (pair["is_consecutive"], pair["rounds_not_in_source"]) == (True, [])


def test_every_pair_of_counts_in_both_readings():
    results = frame(
        row(submitter="A", platform="a_x8", total_accelerators=8, nodes=2, result_value=8.0, **GB),
        row(submitter="A", platform="a_x16", total_accelerators=16, nodes=4, result_value=15.0, **GB),
        row(submitter="B", platform="b_x16", total_accelerators=16, nodes=4, result_value=16.0, **GB),
        row(submitter="B", platform="b_x32", total_accelerators=32, nodes=8, result_value=30.0, **GB),
    )  # fmt: skip
    out = steps(results)
    same = out.filter(pl.col("identity_level") == "same_submitter")
    assert sorted(
        zip(same["submitter_old"], same["total_accelerators_old"],
            same["total_accelerators_new"], strict=True)
    ) == [("A", 8, 16), ("B", 16, 32)]  # fmt: skip
    best = out.filter(pl.col("identity_level") == "best_of_any")
    counts = sorted(
        zip(best["total_accelerators_old"], best["total_accelerators_new"], strict=True)
    )
    assert counts == [(8, 16), (8, 32), (16, 32)]
    step = one(best, total_accelerators_old=8, total_accelerators_new=16)
    assert step["submitter_new"] == "B"  # best at 16 is B's 16.0
    assert step["efficiency"] == pytest.approx((16 / 8) / 2)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"platform": "other_x16"}, "another system family"),
        ({"nodes": 1}, "16 accelerators in one node instead of 4 per node"),
        ({"software": "TRT 2"}, "another software stack"),
        ({"submitter": "B"}, "another submitter"),
    ],
)
def test_scaling_changes_only_the_count(change: dict, why: str) -> None:
    results = frame(
        row(platform="box_x8", total_accelerators=8, nodes=2, result_value=8.0, **GB),
        row(**{"platform": "box_x16", "total_accelerators": 16, "nodes": 4,
               "result_value": 15.0, **GB} | change),
    )  # fmt: skip
    out = steps(results)
    assert out.filter(pl.col("identity_level") == "same_submitter").height == 0, why
    # Still there as a size comparison, flagged as one.
    size = one(out, identity_level="best_of_any")
    assert "size_comparison" in size["flags"]


def test_strict_scaling_step_of_one_system_family() -> None:
    results = frame(
        row(platform="GB300-NVL72_aarch64x72_TRT", total_accelerators=72, nodes=18,
            result_value=647076.0, **GB),
        row(platform="GB300-NVL72_aarch64x288_TRT", total_accelerators=288, nodes=72,
            result_value=2494310.0, **GB),
    )  # fmt: skip
    pair = one(steps(results), identity_level="same_submitter")
    assert pair["efficiency"] == pytest.approx(0.9637, abs=1e-4)
    assert pair["flags"] == [] and pair["flag_reasons"] is None


def test_latency_is_not_scaled_and_is_counted():
    latency = {"scenario": "SingleStream", "result_unit": "Latency (ms)", **GB}
    results = frame(
        row(total_accelerators=4, result_value=30.0, **latency),
        row(total_accelerators=72, nodes=18, result_value=6.0, **latency),
    )
    assert steps(results).height == 0
    excluded = exclusions(results, "scaling")
    assert excluded.select("identity_level", "exclusion_reason", "pairs").to_dicts() == [
        {"identity_level": "best_of_any",
         "exclusion_reason": "latency results are not scaled", "pairs": 1},
        {"identity_level": "same_submitter",
         "exclusion_reason": "latency results are not scaled", "pairs": 1},
    ]  # fmt: skip


def test_cpu_only_and_different_accelerators_are_not_scaled():
    results = frame(
        # CPU-only at two socket counts a submitter wrote as accelerators: the class
        # is a host CPU, not a chip to count.
        row(accelerator_name=None, total_accelerators=2, nodes=1),
        row(accelerator_name=None, total_accelerators=4, nodes=2),
        row(total_accelerators=8, **GB),
        row(total_accelerators=16),  # H100
    )
    assert steps(results).height == 0
    assert exclusions(results, "scaling").height == 0


def test_preview_is_flagged():
    results = frame(
        row(total_accelerators=8, **GB),
        row(total_accelerators=16, availability="preview", **GB),
    )
    assert set(steps(results)["has_preview"]) == {True}
    assert steps(results, include_preview=False).height == 0


def test_open_division_steps_pair_one_model_as_run_and_grow_linearly_with_teams():
    """Teams scaling one chip in the open division: each team's own step is a pair;
    two teams' models are never formed as a candidate only to be excluded (that grew
    with the square of the teams: 0.9 M candidates at 100x the real data)."""

    def teams(count: int) -> pl.LazyFrame:
        return frame(*(
            row(division="open", submitter=f"T{team}", platform=f"t{team}_box_x{n}",
                total_accelerators=n, result_value=100.0 * n + team)
            for team in range(count)
            for n in (1, 8)
        ))  # fmt: skip

    def candidates(count: int) -> pl.DataFrame:
        return pair_candidates(teams(count), "scaling").filter(
            pl.col("division") == "open"
        )

    assert candidates(1).height == 1  # the team's step, kept
    four = candidates(4)
    # Each team's own step, and no pair across teams, kept or excluded.
    assert four.height == 4
    assert four["exclusion_reason"].is_null().all()
    assert (four["submitter_old"] == four["submitter_new"]).all()
