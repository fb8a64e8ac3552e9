import polars as pl
import pytest

from pipeline.analysis.benchmarks import comparable, release_order
from pipeline.registry.benchmarks import (
    CompatibilityError,
    load_compatibility,
    parse_compatibility,
)


def rules(*entries):
    return parse_compatibility({"compatibility": list(entries)}, "t.toml")


def pairs(*rows):
    base = {
        "benchmark": "llama2-70b-99", "scenario": "Server", "division": "closed",
        "release_old": "v4.1", "release_new": "v5.1",
        "result_unit_old": "Tokens/s", "result_unit_new": "Tokens/s",
        "model_upstream_old": "llama2-70b-99", "model_upstream_new": "llama2-70b-99",
        "weight_data_types_old": "fp8", "weight_data_types_new": "fp8",
        "submitter_old": "Acme", "submitter_new": "Acme",
        "model_lineage_old": "Acme/box", "model_lineage_new": "Acme/box",
    }  # fmt: skip
    return pl.LazyFrame([{**base, **r} for r in rows])


def flags(frame):
    out = frame.collect()
    return list(zip(out["is_comparable"], out["incompatibility_reason"], strict=True))


def test_release_order_is_numeric():
    out = pl.select(
        release_order(pl.Series(["v6.1", "v10.0", "v0.7", "latest"]))
    ).to_series()
    assert out.to_list() == [6001, 10000, 7, None]


def test_units_must_match():
    result = comparable(pairs({}, {"result_unit_old": "Queries/s"}), rules())
    assert flags(result) == [
        (True, None),
        (False, "result units differ: Queries/s vs Tokens/s"),
    ]


def test_a_single_result_unit_column_is_accepted():
    frame = (
        pairs({})
        .drop("result_unit_old", "result_unit_new")
        .with_columns(result_unit=pl.lit("Tokens/s"))
    )
    assert flags(comparable(frame, rules())) == [(True, None)]


def test_incompatible_between_breaks_only_pairs_straddling_the_change():
    rule = rules(
        {
            "benchmark": "llama2-70b-*", "scenario": "Server",
            "incompatible_between": ["v5.0", "v5.1"], "reason": "TPOT tightened",
        }
    )  # fmt: skip
    frame = pairs(
        {"release_old": "v4.1", "release_new": "v5.0"},
        {"release_old": "v4.1", "release_new": "v5.1"},
        {"release_old": "v5.1", "release_new": "v6.0"},
        {"release_old": "v5.0", "release_new": "v6.1"},
        {"release_old": "v4.1", "release_new": "v5.1", "scenario": "Offline"},
        {"release_old": "v4.1", "release_new": "v5.1", "benchmark": "mixtral-8x7b"},
        # generation and scaling pairs sit inside one release: never broken by a date
        {"release_old": "v5.1", "release_new": "v5.1"},
    )
    assert flags(comparable(frame, rule)) == [
        (True, None),
        (False, "TPOT tightened"),
        (True, None),
        (False, "TPOT tightened"),
        (True, None),
        (True, None),
        (True, None),
    ]


def test_releases_rule_keeps_only_listed_releases_comparable():
    rule = rules(
        {
            "benchmark": "deepseek-r1", "scenario": "*",
            "releases": ["v5.1", "v6.0"], "reason": "verified only in v5.1-v6.0",
        }
    )  # fmt: skip
    frame = pairs(
        {"benchmark": "deepseek-r1", "release_old": "v5.1", "release_new": "v6.0"},
        {"benchmark": "deepseek-r1", "release_old": "v6.0", "release_new": "v6.1"},
        {"benchmark": "deepseek-r1", "release_old": "v6.1", "release_new": "v6.1"},
    )
    assert flags(comparable(frame, rule)) == [
        (True, None),
        (False, "verified only in v5.1-v6.0"),
        (True, None),
    ]


def test_open_division_needs_the_same_model():
    frame = pairs(
        {"division": "open", "model_upstream_new": "llama3_1-70b-fp8_dyn"},
        {"division": "open"},
        {"division": "closed", "model_upstream_new": "llama3_1-8b"},
    )
    assert flags(comparable(frame, load_compatibility())) == [
        (False, "open division: different submitted models"),
        (True, None),
        (True, None),
    ]


def test_open_division_needs_evidence_of_one_model_as_run():
    # v4.1 llama2-70b-99 Offline: NeuralMagic's GPTQ int4 run against NVIDIA's
    # depth-pruned fp16 one, both with UsedModel "llama2-70b-99".
    frame = pairs(
        {"division": "open", "weight_data_types_old": "int4",
         "weight_data_types_new": "fp16"},
        {"division": "open", "weight_data_types_old": "UNSET",
         "weight_data_types_new": "unset"},
        {"division": "open", "weight_data_types_new": "UNSET"},
        {"division": "open", "submitter_old": "NeuralMagic", "submitter_new": "NVIDIA"},
        {"division": "open", "model_lineage_new": "Acme/other"},
        {"division": "closed", "weight_data_types_new": "int4",
         "submitter_new": "NVIDIA", "model_lineage_new": "NVIDIA/x"},
    )  # fmt: skip
    assert flags(comparable(frame, load_compatibility())) == [
        (
            False,
            "open division: weight data types differ (int4 vs fp16), so the models "
            "as run differ",
        ),
        (True, None),
        (
            False,
            "open division: weight data types differ (fp8 vs not declared), so the "
            "models as run differ",
        ),
        (
            False,
            "open division: different submitters (NeuralMagic vs NVIDIA), so one "
            "model as run is not shown",
        ),
        (
            False,
            "open division: different platform lineages (Acme/box vs Acme/other), so "
            "one model as run is not shown",
        ),
        (True, None),
    ]


def test_a_quoting_reason_needs_one_field_and_both_ends():
    with pytest.raises(CompatibilityError) as error:
        rules(
            {
                "benchmark": "*", "scenario": "*", "division": "open",
                "match": ["submitter", "model_lineage"],
                "reason": "different ({old} vs {new})",
            }
        )  # fmt: skip
    assert (
        "reason: expected {old} and {new} both, in a rule that matches one field"
        in (str(error.value))
    )


def test_units_are_checked_before_rules():
    frame = pairs(
        {"division": "open", "model_upstream_new": "x", "result_unit_new": "Samples/s"}
    )
    assert flags(comparable(frame, load_compatibility())) == [
        (False, "result units differ: Tokens/s vs Samples/s")
    ]


def test_missing_columns_are_named():
    frame = pairs({}).drop("model_upstream_old", "model_upstream_new")
    with pytest.raises(ValueError) as error:
        comparable(frame, load_compatibility())
    assert str(error.value) == (
        "comparable() needs column(s) model_upstream_new, model_upstream_old"
    )


def test_committed_rules_parse_and_each_has_a_reason_and_evidence():
    committed = load_compatibility()
    assert committed
    assert all(rule.reason and rule.evidence for rule in committed)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"benchmark": "*", "scenario": "*", "reason": "r"},
            "t.toml: [compatibility 1]: needs exactly one of "
            "incompatible_between, releases, match, got 0",
        ),
        (
            {"benchmark": "*", "scenario": "*", "reason": "r",
             "incompatible_between": ["v5.1", "v5.0"]},
            "t.toml: [compatibility 1] incompatible_between: expected "
            "[last_old, first_new], oldest first, got ['v5.1', 'v5.0']",
        ),
        (
            {"benchmark": "*", "scenario": "Batch", "reason": "r", "releases": ["v5.0"]},
            "t.toml: [compatibility 1] scenario: expected one of '*', 'Offline', "
            "'Server', 'SingleStream', 'MultiStream', 'Interactive', got 'Batch'",
        ),
        (
            {"benchmark": "*", "scenario": "*", "reason": "r", "match": ["software"]},
            "t.toml: [compatibility 1] match: expected a list, each item one of "
            "'model_upstream', 'weight_data_types', 'submitter', 'model_lineage' (at least one), got ['software']",
        ),
        (
            {"benchmark": "*", "scenario": "*", "reason": "r",
             "releases": ["5.0", "v5.1"]},
            "t.toml: [compatibility 1] releases: expected a list of vX.Y versions, "
            "got ['5.0', 'v5.1']",
        ),
        (
            {"benchmark": "*", "scenario": "*", "releases": ["v5.0", "v5.1"]},
            "t.toml: [compatibility 1] reason: expected a non-empty string, got "
            "nothing",
        ),
    ],
)  # fmt: skip
def test_rule_validation_names_the_rule(entry, message):
    with pytest.raises(CompatibilityError) as error:
        rules(entry)
    assert str(error.value) == message


def test_pre_v0_7_benchmark_spellings_map_to_the_later_names():
    from pipeline.registry.benchmarks import benchmark_aliases

    names = pl.Series(
        ["ssd-small", "ssd-large", "resnet50", "ssd-mobilenet", "mobilenet", "gnmt",
         "ssd-resnet34", "retinanet", "dlrm-99", "mobilenet-v1-1.0-224-quantized"]
    )  # fmt: skip
    assert names.replace(benchmark_aliases()).to_list() == [
        "ssd-mobilenet", "ssd-resnet34", "resnet", "ssd-mobilenet", "mobilenet", "gnmt",
        "ssd-resnet34", "retinanet", "dlrm-99", "mobilenet-v1-1.0-224-quantized",
    ]  # fmt: skip


def test_aliases_point_at_canonical_names_only():
    from pipeline.registry.benchmarks import benchmark_aliases

    aliases = benchmark_aliases()
    assert not set(aliases.values()) & set(aliases)


def test_3d_unet_pairs_across_the_dataset_changes_are_excluded():
    frame = pairs(
        *(
            {"benchmark": bench, "scenario": "Offline", "result_unit_old": "Samples/s",
             "result_unit_new": "Samples/s", "release_old": old, "release_new": new}
            for bench, old, new in [
                ("3d-unet-99", "v1.0", "v1.1"),
                ("3d-unet-99", "v1.0", "v2.0"),
                ("3d-unet-99.9", "v1.1", "v2.1"),
                ("3d-unet-99", "v2.0", "v2.1"),
                ("3d-unet-99.9", "v2.1", "v5.1"),
                ("bert-99", "v1.0", "v2.1"),
            ]
        )
    )  # fmt: skip
    assert flags(comparable(frame, load_compatibility())) == [
        (True, None),
        (False, "3D U-Net dataset changed from BraTS 2019 to KiTS19 in v2.0"),
        (False, "3D U-Net dataset changed from BraTS 2019 to KiTS19 in v2.0"),
        (False, "3D U-Net KiTS19 inference set and accuracy target revised in v2.1"),
        (True, None),
        (True, None),
    ]


def test_multistream_pairs_across_v2_0_are_excluded_even_with_equal_units():
    frame = pairs(
        *(
            {"benchmark": "resnet", "scenario": "MultiStream",
             "result_unit_old": "Latency (ms)", "result_unit_new": "Latency (ms)",
             "release_old": old, "release_new": new}
            for old, new in [("v1.0", "v2.1"), ("v0.5", "v1.1"), ("v2.1", "v5.1")]
        )
    )  # fmt: skip
    assert flags(comparable(frame, load_compatibility())) == [
        (False, "MultiStream metric redefined in v2.0"),
        (True, None),
        (True, None),
    ]


def test_single_stream_and_server_stay_comparable_across_their_metric_updates():
    frame = pairs(
        {"benchmark": "resnet", "scenario": "SingleStream", "release_old": "v1.0",
         "release_new": "v2.1", "result_unit_old": "Latency (ms)",
         "result_unit_new": "Latency (ms)"},
        {"benchmark": "ssd-resnet34", "scenario": "Server", "release_old": "v0.5",
         "release_new": "v2.0", "result_unit_old": "Queries/s",
         "result_unit_new": "Queries/s"},
        {"benchmark": "resnet", "scenario": "Server", "release_old": "v2.1",
         "release_new": "v5.1", "result_unit_old": "Queries/s",
         "result_unit_new": "Queries/s"},
    )  # fmt: skip
    assert flags(comparable(frame, load_compatibility())) == [(True, None)] * 3


def test_a_same_model_entry_needs_two_platforms_and_a_unique_lineage():
    from pipeline.registry.benchmarks import parse_same_model

    entry = {
        "lineage": "L", "submitter": "Krai", "releases": ["v5.1"],
        "platforms": ["a", "b"], "evidence": "both folders name one model",
    }  # fmt: skip
    with pytest.raises(CompatibilityError) as error:
        parse_same_model({"same_model": [entry | {"platforms": ["a"]}]}, "t.toml")
    assert "platforms: expected two or more platform folders" in str(error.value)
    with pytest.raises(CompatibilityError) as error:
        parse_same_model({"same_model": [entry, entry]}, "t.toml")
    assert str(error.value) == "t.toml: [[same_model]] lineage listed twice: L"


def test_a_lineage_is_one_system_family_at_any_size_and_version():
    from pipeline.analysis.benchmarks import model_lineage
    from pipeline.registry.benchmarks import SameModel

    joined = SameModel(
        "Krai vLLM", "Krai", ("v5.1",), ("h100_x8_vllm", "h200_x8_vllm"), ""
    )
    rows = pl.DataFrame(
        {
            "submitter": ["Krai", "Krai", "Krai", "Krai", "Other"],
            "release": ["v1.0", "v2.1", "v5.1", "v5.1", "v5.1"],
            "platform": [
                "xavier-armnn-v21.02-neon", "xavier-armnn-v22.05-neon",
                "h100_x8_vllm", "h200_x8_vllm", "h200_x8_vllm",
            ],
        }
    )  # fmt: skip
    lineages = rows.select(model_lineage([joined])).to_series().to_list()
    assert lineages == [
        "Krai/xavier-armnn-neon",
        "Krai/xavier-armnn-neon",
        "Krai vLLM",
        "Krai vLLM",
        "Other/h200__vllm",  # system_family drops the count, keeps its "_"
    ]
