import polars as pl
import pytest

from pipeline.analysis import exclusions, pair_candidates, pairs
from pipeline.analysis.pairing import EXCLUSIONS_SCHEMA, PAIR_SCHEMA
from pipeline.registry.benchmarks import parse_compatibility
from tests.unit.analysis.helpers import GB300, H100, MIXED, frame, one, row


def gains(results, **kwargs):
    return pairs(results, "software_gain", **kwargs)


def test_output_conforms_exactly_to_the_pair_schema():
    results = frame(row(release="v5.1"), row(release="v6.0", result_value=150.0))
    out = gains(results)
    assert out.schema == pl.Schema(PAIR_SCHEMA)
    assert set(out["kind"]) == {"software_gain"}


def test_system_level_throughput_is_new_over_old():
    results = frame(
        row(release="v5.1", result_key="old", result_value=420659.0),
        row(release="v6.0", result_key="new", result_value=647076.0),
    )
    pair = one(gains(results), identity_level="system")
    assert pair["ratio"] == pytest.approx(647076 / 420659)
    assert (pair["result_key_old"], pair["result_key_new"]) == ("old", "new")
    assert (pair["release_old"], pair["release_new"]) == ("v5.1", "v6.0")
    assert pair["efficiency"] is None
    assert pair["is_per_accelerator"] is False


def test_latency_gain_is_old_over_new_so_lower_is_better():
    results = frame(
        row(release="v6.0", scenario="SingleStream", result_unit="Latency (ms)",
            result_value=23.0),
        row(release="v6.1", scenario="SingleStream", result_unit="Latency (ms)",
            result_value=18.0),
    )  # fmt: skip
    pair = one(gains(results), identity_level="system")
    assert pair["is_higher_better"] is False
    assert pair["ratio"] == pytest.approx(23 / 18)
    assert pair["ratio"] > 1


def test_every_ordered_pair_of_releases_is_compared():
    results = frame(
        row(release="v6.0", result_value=300.0),
        row(release="v4.1", result_value=100.0),
        row(release="v5.1", result_value=200.0),
    )
    system = gains(results).filter(pl.col("identity_level") == "system")
    assert sorted(zip(system["release_old"], system["release_new"], strict=True)) == [
        ("v4.1", "v5.1"), ("v4.1", "v6.0"), ("v5.1", "v6.0"),
    ]  # fmt: skip


def test_hardware_level_picks_the_best_submitter_of_each_release():
    results = frame(
        row(release="v5.1", submitter="A", platform="a", result_value=100.0),
        row(release="v5.1", submitter="B", platform="b", result_value=120.0),
        row(release="v6.0", submitter="A", platform="a", result_value=130.0),
        row(release="v6.0", submitter="C", platform="c", result_value=180.0),
        # Same accelerator but 16 of them: another hardware group.
        row(release="v6.0", submitter="C", platform="c16", result_value=999.0,
            total_accelerators=16, nodes=2),
    )  # fmt: skip
    pair = one(gains(results), identity_level="hardware")
    assert (pair["submitter_old"], pair["submitter_new"]) == ("B", "C")
    assert pair["ratio"] == pytest.approx(180 / 120)
    assert pair["accelerator_id_old"] == pair["accelerator_id_new"] == "nvidia-h100-sxm"
    # The system level only pairs submitter A's own platform.
    system = one(gains(results), identity_level="system")
    assert system["ratio"] == pytest.approx(130 / 100)


def test_hardware_level_picks_the_lowest_latency():
    latency = {"scenario": "SingleStream", "result_unit": "Latency (ms)"}
    results = frame(
        row(release="v5.1", submitter="A", platform="a", result_value=5.0, **latency),
        row(release="v5.1", submitter="B", platform="b", result_value=4.0, **latency),
        row(release="v6.0", submitter="A", platform="a", result_value=3.0, **latency),
    )
    pair = one(gains(results), identity_level="hardware")
    assert pair["submitter_old"] == "B"
    assert pair["ratio"] == pytest.approx(4 / 3)


def test_accelerator_level_compares_per_accelerator_at_any_scale():
    results = frame(
        row(release="v5.1", total_accelerators=8, result_value=800.0),
        row(release="v6.0", total_accelerators=72, nodes=18, platform="rack",
            accelerator_name=H100, result_value=14400.0),
    )  # fmt: skip
    out = gains(results)
    pair = one(out, identity_level="accelerator")
    assert pair["is_per_accelerator"] is True
    assert pair["ratio"] == pytest.approx((14400 / 72) / (800 / 8))
    # Different counts: no hardware-level pair.
    assert out.filter(pl.col("identity_level") == "hardware").height == 0


def test_accelerator_level_excludes_latency_and_counts_it():
    latency = {"scenario": "SingleStream", "result_unit": "Latency (ms)"}
    results = frame(
        row(release="v5.1", result_value=5.0, **latency),
        row(release="v6.0", result_value=4.0, **latency),
    )
    assert gains(results).filter(pl.col("is_per_accelerator")).height == 0
    excluded = exclusions(results, "software_gain")
    assert excluded.schema == pl.Schema(EXCLUSIONS_SCHEMA)
    assert one(excluded, identity_level="accelerator")["exclusion_reason"] == (
        "latency results are not normalised per accelerator"
    )


def test_cpu_only_pairs_at_system_and_hardware_level_only():
    cpu = {"accelerator_name": None, "total_accelerators": 0,
           "host_cpu_name": "Intel(R) Xeon(R) 6980P"}  # fmt: skip
    results = frame(
        row(release="v5.1", result_value=10.0, **cpu),
        row(
            release="v6.0",
            result_value=12.0,
            **{**cpu, "host_cpu_name": "INTEL(R) XEON(R) 6980P"},
        ),
    )
    out = gains(results)
    assert sorted(out["identity_level"]) == ["hardware", "system"]
    hardware = one(out, identity_level="hardware")
    assert hardware["accelerator_id_old"] == "cpu:intel-xeon-6980p"
    assert hardware["ratio"] == pytest.approx(1.2)


def test_mixed_and_unmapped_systems_only_at_system_level():
    results = frame(
        row(
            release="v5.1",
            platform="mix",
            accelerator_name=MIXED,
            total_accelerators=16,
        ),
        row(
            release="v6.0",
            platform="mix",
            accelerator_name=MIXED,
            total_accelerators=16,
        ),
        row(release="v5.1", platform="new", accelerator_name="Acme Chip"),
        row(release="v6.0", platform="new", accelerator_name="Acme Chip"),
    )
    out = gains(results)
    assert out["identity_level"].to_list() == ["system", "system"]
    ids = dict(zip(out["platform_old"], out["accelerator_id_old"], strict=True))
    assert ids == {"mix": "mixed-nvidia-h200-sxm-amd-mi350x", "new": None}


def test_a_system_whose_hardware_changed_is_excluded_and_counted():
    results = frame(
        row(release="v5.1", accelerator_name=H100),
        row(release="v6.0", accelerator_name=GB300),
    )
    assert gains(results).filter(pl.col("identity_level") == "system").height == 0
    excluded = one(exclusions(results, "software_gain"), identity_level="system")
    assert excluded["exclusion_reason"] == "system hardware changed between releases"
    assert excluded["pairs"] == 1


def test_incompatible_pair_is_excluded_and_counted():
    rules = parse_compatibility(
        {
            "compatibility": [
                {
                    "benchmark": "llama2-70b-99", "scenario": "Server",
                    "incompatible_between": ["v4.1", "v5.1"],
                    "reason": "Server latency constraint changed",
                }
            ]
        }
    )  # fmt: skip
    results = frame(
        row(release="v4.1", scenario="Server", result_key="s41"),
        row(release="v5.1", scenario="Server", result_key="s51"),
        row(release="v6.0", scenario="Server", result_key="s60"),
    )
    out = gains(results, rules=rules)
    kept = out.filter(pl.col("identity_level") == "system")
    assert list(zip(kept["release_old"], kept["release_new"], strict=True)) == [
        ("v5.1", "v6.0")
    ]
    excluded = exclusions(results, "software_gain", rules=rules)
    by_level = dict(zip(excluded["identity_level"], excluded["pairs"], strict=True))
    # v4.1->v5.1 and v4.1->v6.0 at each of the three levels
    assert by_level == {"system": 2, "hardware": 2, "accelerator": 2}
    assert set(excluded["exclusion_reason"]) == {"Server latency constraint changed"}
    candidates = pair_candidates(results, "software_gain", rules=rules)
    assert candidates.filter(~pl.col("is_comparable")).height == 6


def test_different_units_are_never_paired():
    results = frame(
        row(release="v5.1", scenario="Interactive", result_unit="Queries/s"),
        row(release="v6.0", scenario="Interactive", result_unit="Tokens/s"),
    )
    assert gains(results).height == 0
    reasons = set(exclusions(results, "software_gain")["exclusion_reason"])
    assert reasons == {"result units differ: Queries/s vs Tokens/s"}


def test_preview_is_flagged_and_can_be_left_out():
    results = frame(
        row(release="v5.1", result_value=100.0),
        row(release="v6.0", result_value=150.0, availability="preview"),
    )
    pair = one(gains(results), identity_level="system")
    assert (pair["is_preview_old"], pair["is_preview_new"]) == (False, True)
    assert pair["has_preview"] is True
    assert pair["availability_new"] == "preview"
    assert gains(results, include_preview=False).height == 0


def test_inferred_is_flagged_and_can_be_left_out():
    results = frame(
        row(release="v5.1", result_value=100.0, is_inferred=True),
        row(release="v6.0", result_value=150.0),
    )
    pair = one(gains(results), identity_level="system")
    assert pair["has_inferred"] is True
    assert pair["has_preview"] is False
    assert gains(results, include_inferred=False).height == 0


def test_a_gain_is_consecutive_only_from_the_systems_previous_round() -> None:
    from pipeline.analysis import headline_pairs

    results = frame(
        row(release="v5.1", result_value=100.0),
        row(release="v6.0", result_value=150.0),
        row(release="v6.1", result_value=225.0),
        # Another system skips v6.0. It was "consecutive" when that meant only "its
        # previous appearance"; v6.0 lies between upstream (in the source, too), so
        # its v5.1 -> v6.1 gain is not consecutive, with no round missing.
        row(release="v5.1", platform="other", result_value=100.0),
        row(release="v6.1", platform="other", result_value=120.0),
    )
    system = gains(results).filter(pl.col("identity_level") == "system")
    assert system.select(
        "platform_new", "release_old", "release_new", "is_consecutive",
        "rounds_not_in_source",
    ).rows() == [
        ("acme_box", "v5.1", "v6.0", True, []),
        ("acme_box", "v5.1", "v6.1", False, []),
        ("other", "v5.1", "v6.1", False, []),
        ("acme_box", "v6.0", "v6.1", True, []),
    ]  # fmt: skip
    # 2.25x across v6.0, where the system also has a result, is no headline; nor is
    # the other system's 1.2x across v6.0.
    assert sorted(headline_pairs(system)["ratio"].to_list()) == [1.5, 1.5]


#: Upstream rounds as a test registry: v5.0 is known, the test source lacks it.
KNOWN = ("v4.1", "v5.0", "v5.1", "v6.0")


def test_a_gain_across_a_round_missing_from_the_source_is_not_consecutive() -> None:
    from pipeline.analysis import headline_pairs

    results = frame(
        row(release="v4.1", result_value=100.0),
        row(release="v5.1", result_value=120.0),
        row(release="v6.0", result_value=150.0),
    )
    system = gains(results, releases=KNOWN).filter(pl.col("identity_level") == "system")
    assert system.select(
        "release_old", "release_new", "is_consecutive", "rounds_not_in_source"
    ).rows() == [
        # v4.1 is the system's previous appearance, but v5.0 exists upstream.
        ("v4.1", "v5.1", False, ["v5.0"]),
        ("v4.1", "v6.0", False, ["v5.0"]),
        ("v5.1", "v6.0", True, []),
    ]
    assert headline_pairs(system)[["release_old", "release_new"]].rows() == [
        ("v5.1", "v6.0")
    ]
    # Had the source held v5.0 (a round with no result of this system), v4.1 ->
    # v5.1 skips it without missing anything: still not consecutive.
    held = gains(
        results, releases=KNOWN, source_releases={"v4.1", "v5.0", "v5.1", "v6.0"}
    ).filter((pl.col("identity_level") == "system") & (pl.col("release_old") == "v4.1"))
    assert held.select("is_consecutive", "rounds_not_in_source").rows() == [
        (False, []),
        (False, []),
    ]


def test_consecutive_follows_the_committed_registry_of_rounds() -> None:
    # The committed releases.toml lists v5.0 (and v0.7, v1.1, v2.0, v3.0, ...).
    results = frame(
        row(release="v4.1", result_value=100.0),
        row(release="v5.1", result_value=120.0),
        row(release="v1.0", result_value=10.0),
        row(release="v2.1", result_value=20.0),
    )
    system = gains(results).filter(pl.col("identity_level") == "system")
    steps = {
        (old, new): (consecutive, missing)
        for old, new, consecutive, missing in system.select(
            "release_old", "release_new", "is_consecutive", "rounds_not_in_source"
        ).rows()
    }
    assert steps[("v1.0", "v2.1")] == (False, ["v1.1", "v2.0"])
    assert steps[("v2.1", "v4.1")] == (False, ["v3.0", "v3.1", "v4.0"])
    assert steps[("v4.1", "v5.1")] == (False, ["v5.0"])


def test_open_division_gains_pair_one_model_as_run_and_grow_linearly_with_teams():
    """Teams on one platform in the open division: each team's own gain is a pair;
    two teams' models are never formed as a candidate only to be excluded (that grew
    with the square of the teams: 24 GB at 100x the real data)."""

    def teams(count: int) -> pl.LazyFrame:
        return frame(*(
            row(release=release, division="open", submitter=f"T{team}",
                platform=f"t{team}_box", result_value=100.0 + 10 * index + team)
            for team in range(count)
            for index, release in enumerate(("v5.1", "v6.0"))
        ))  # fmt: skip

    for count in (1, 4):
        candidates = pair_candidates(teams(count), "software_gain").filter(
            pl.col("division") == "open"
        )
        kept = candidates.filter(pl.col("exclusion_reason").is_null())
        # One per level (system, hardware, accelerator) per team; none across teams.
        assert kept.height == candidates.height == 3 * count
        assert (kept["submitter_old"] == kept["submitter_new"]).all()


def test_round_steps_name_the_rounds_between_that_the_source_lacks() -> None:
    from pipeline.analysis.pairing import round_steps

    steps = round_steps(["v6.0", "v5.0", "v4.1", "v5.1"], {"v4.1", "v5.1", "v6.0"})
    rows = {
        (old, new): (adjacent, missing)
        for old, new, adjacent, missing in steps.collect().rows()
    }
    assert rows[("v5.1", "v6.0")] == (True, [])
    assert rows[("v4.1", "v5.1")] == (False, ["v5.0"])
    assert rows[("v4.1", "v6.0")] == (False, ["v5.0"])
    # A round with itself (within-round pairs) is adjacent and skips nothing.
    assert rows[("v6.0", "v6.0")] == (True, [])
    # A round the source holds but the registry does not list counts as upstream.
    extra = round_steps(["v5.1", "v6.0"], {"v5.1", "v5.2", "v6.0"}).collect()
    assert extra.filter(pl.col("release_new") == "v6.0").rows() == [
        ("v5.1", "v6.0", False, []),
        ("v5.2", "v6.0", True, []),
        ("v6.0", "v6.0", True, []),
    ]
