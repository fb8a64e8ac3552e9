import polars as pl
import pytest

from pipeline.analysis.accelerators import (
    ATTACHED_SCHEMA,
    UNMAPPED_SCHEMA,
    attach_accelerators,
    unmapped_accelerators,
)
from pipeline.analysis.pairing import single_accelerator
from pipeline.registry.accelerators import (
    Accelerator,
    AcceleratorRegistry,
    AcceleratorRegistryError,
    UnclassifiedNames,
    load_accelerators,
    parse_accelerators,
)
from tests.unit.analysis.helpers import GB300, H100, MIXED, frame, one, row


def lineage(accelerator_id: str) -> list[str]:
    registry = load_accelerators()
    chain = [accelerator_id]
    while (step := registry.get(chain[-1]).predecessor) is not None:
        chain.append(step)
    return chain[::-1]


def test_committed_registry_lineages():
    assert lineage("nvidia-b300-sxm") == [
        "nvidia-v100-sxm", "nvidia-a100-sxm-40gb", "nvidia-a100-sxm-80gb",
        "nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-b200-sxm", "nvidia-b300-sxm",
    ]  # fmt: skip
    assert lineage("nvidia-h200-nvl") == [
        "nvidia-a100-pcie-40gb", "nvidia-a100-pcie-80gb", "nvidia-h100-pcie",
        "nvidia-h100-nvl", "nvidia-h200-nvl",
    ]  # fmt: skip
    assert lineage("nvidia-jetson-agx-thor") == [
        "nvidia-jetson-agx-xavier", "nvidia-jetson-agx-orin", "nvidia-jetson-agx-thor",
    ]  # fmt: skip
    assert lineage("nvidia-l4") == ["nvidia-t4", "nvidia-l4"]
    assert lineage("nvidia-vera-rubin")[-3:] == [
        "nvidia-gb200", "nvidia-gb300", "nvidia-vera-rubin",
    ]  # fmt: skip
    assert lineage("amd-mi355x") == ["amd-mi300x", "amd-mi325x", "amd-mi355x"]
    assert lineage("amd-mi350x") == ["amd-mi300x", "amd-mi325x", "amd-mi350x"]


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["NVIDIA GB300", "NVIDIA GB300 288GB"], "nvidia-gb300"),
        (["Nvidia B300-SXM-270GB", "NVIDIA B300-SXM-270GB"], "nvidia-b300-sxm"),
        (
            ["NVIDIA Vera Rubin", "NVIDIA VeraRubin", "NVIDIA VR200"],
            "nvidia-vera-rubin",
        ),
        (
            ["Tesla T4", "NVIDIA Tesla T4", "Nvidia Tesla T4", "NVIDIA T4"],
            "nvidia-t4",
        ),
        (
            [
                "NVIDIA A100-SXM-80GB",
                "NVIDIA A100-SXM-80GB CTS",
                "NVIDIA A100-SXM4-80GB CTS",
                # a whole GPU split into seven slices, counted once per GPU
                "NVIDIA A100-SXM-80GB (7x1g.10gb MIG)",
            ],
            "nvidia-a100-sxm-80gb",
        ),
        (["NVIDIA A10", "NVIDIA A10-24Q"], "nvidia-a10"),
        (["NVIDIA Xavier", "NVIDIA AGX Xavier"], "nvidia-jetson-agx-xavier"),
        # rounds not in the mirror (v0.7 - v4.0), from upstream systems files
        (
            ["NVIDIA Orin", "NVIDIA Jetson AGX Orin"],
            "nvidia-jetson-agx-orin-devkit-32gb",
        ),
        (["Habana Gaudi2", "Intel® Gaudi® 2 AI Accelerator"], "intel-gaudi2"),
        (["NVIDIA A100-SXM4", "NVIDIA A100-SXM4-40GB"], "nvidia-a100-sxm-40gb"),
    ],
)
def test_spelling_variants_map_to_one_id(names, expected):
    attached = attach_accelerators(frame(*[row(accelerator_name=n) for n in names]))
    assert attached.collect()["accelerator_id"].to_list() == [expected] * len(names)


def test_attach_adds_the_documented_columns_and_keeps_rows_in_order():
    results = frame(row(result_key="a", accelerator_name=GB300), row(result_key="b"))
    attached = attach_accelerators(results).collect()
    assert attached.columns[-len(ATTACHED_SCHEMA) :] == list(ATTACHED_SCHEMA)
    assert attached.schema == {**results.collect_schema(), **ATTACHED_SCHEMA}
    assert attached["result_key"].to_list() == ["a", "b"]
    gb300 = one(attached, result_key="a")
    assert gb300["accelerator_vendor"] == "NVIDIA"
    assert gb300["accelerator_family"] == "Blackwell Ultra"
    assert gb300["accelerator_memory_gb"] == 288.0
    assert gb300["is_accelerator_mapped"] is True


def test_a_mig_slice_counted_as_one_accelerator_is_not_the_whole_gpu():
    slice_, whole = "NVIDIA A100-SXM-80GB (1x1g.10gb MIG)", "NVIDIA A100-SXM-80GB"
    attached = attach_accelerators(
        frame(row(accelerator_name=slice_), row(accelerator_name=whole))
    ).collect()
    assert attached["accelerator_id"].to_list() == [
        "nvidia-a100-sxm-80gb-mig-1g-10gb", "nvidia-a100-sxm-80gb",
    ]  # fmt: skip
    mig = load_accelerators().get("nvidia-a100-sxm-80gb-mig-1g-10gb")
    assert mig.predecessor is None


def test_an_ambiguous_upstream_name_is_committed_as_unclassified():
    gh200 = "NVIDIA GH200-GraceHopper-Superchip"  # 96 GB and 144 GB in v4.0
    assert "144 GB" in load_accelerators().unclassified_names()[gh200]
    attached = attach_accelerators(frame(row(accelerator_name=gh200))).collect()
    assert one(attached)["accelerator_id"] is None
    assert one(attached)["is_accelerator_unclassified"] is True
    assert unmapped_accelerators(frame(row(accelerator_name=gh200))).height == 0


def test_mixed_system_is_flagged():
    attached = attach_accelerators(frame(row(accelerator_name=MIXED))).collect()
    assert attached["accelerator_id"][0] == "mixed-nvidia-h200-sxm-amd-mi350x"
    assert attached["is_mixed_accelerators"][0] is True
    # Never normalised per accelerator: which of the two chips would it be per?
    assert attached["result_per_accelerator"][0] is None
    single = attach_accelerators(frame(row(accelerator_name=H100))).collect()
    assert single["result_per_accelerator"][0] == 100.0 / 8


def test_unmapped_accelerator_is_kept_and_reported():
    results = frame(
        row(release="v6.1", accelerator_name="Acme TurboChip 9000"),
        row(release="v5.1", accelerator_name="Acme TurboChip 9000"),
        row(release="v5.1", accelerator_name=H100),
    )
    attached = attach_accelerators(results).collect()
    assert attached.height == 3
    unknown = attached.filter(pl.col("accelerator_name") == "Acme TurboChip 9000")
    assert unknown["accelerator_id"].to_list() == [None, None]
    assert unknown["is_accelerator_mapped"].to_list() == [False, False]

    report = unmapped_accelerators(results)
    assert report.schema == UNMAPPED_SCHEMA
    assert report.to_dicts() == [
        {
            "accelerator_name": "Acme TurboChip 9000",
            "rows": 2,
            "releases": ["v5.1", "v6.1"],
        }
    ]


def test_cpu_only_is_its_own_class_keyed_by_host_cpu():
    results = frame(
        row(accelerator_name=None, total_accelerators=0,
            host_cpu_name="INTEL(R) XEON(R) 6787P"),
        row(accelerator_name=None, total_accelerators=0,
            host_cpu_name="Intel(R) Xeon(R) 6787P"),
        # An accelerator name with zero accelerators is still CPU-only.
        row(accelerator_name=H100, total_accelerators=0,
            host_cpu_name="AMD EPYC 9575F"),
    )  # fmt: skip
    attached = attach_accelerators(results).collect()
    assert attached["accelerator_id"].to_list() == [
        "cpu:intel-xeon-6787p", "cpu:intel-xeon-6787p", "cpu:amd-epyc-9575f",
    ]  # fmt: skip
    assert attached["is_cpu_only"].to_list() == [True, True, True]
    assert attached["accelerator_vendor"].to_list() == ["Intel", "Intel", "AMD"]
    assert attached["accelerator_family"].to_list() == ["CPU"] * 3
    assert attached["accelerator_memory_gb"].to_list() == [None] * 3
    assert attached["is_accelerator_mapped"].to_list() == [True] * 3
    assert unmapped_accelerators(results).height == 0


def test_cpu_only_without_host_cpu_is_unmapped():
    results = frame(
        row(accelerator_name=None, total_accelerators=0, host_cpu_name=None)
    )
    report = unmapped_accelerators(results)
    assert report.to_dicts() == [
        {"accelerator_name": None, "rows": 1, "releases": ["v5.1"]}
    ]


def entry(**fields):
    base = {
        "id": "x-one", "vendor": "X", "family": "F", "model": "One",
        "names": ["X One"],
    }  # fmt: skip
    base.update(fields)
    return base


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (
            [entry(predecessor="x-zero")],
            "t.toml: [accelerator 1 (x-one)] predecessor: expected the id of an "
            "[[accelerator]], got 'x-zero'",
        ),
        (
            [entry(), entry(id="x-two", names=["X One"])],
            "t.toml: [accelerator 2 (x-two)] names: 'X One' is also listed under "
            "'x-one'",
        ),
        (
            [entry(), entry(names=["X Two"])],
            "t.toml: [accelerator 2 (x-one)] id: 'x-one' is listed twice",
        ),
        (
            [
                entry(predecessor="x-two"),
                entry(id="x-two", names=["X Two"], predecessor="x-one"),
            ],
            "t.toml: [accelerator 1 (x-one)] predecessor: lineage cycle "
            "x-one -> x-two -> x-one",
        ),
        (
            [entry(is_mixed=True)],
            "t.toml: [accelerator 1 (x-one)] components: expected two or more ids "
            "on a mixed entry, got []",
        ),
        (
            [entry(colour="red")],
            "t.toml: [accelerator 1 (x-one)] colour: unknown field (known: "
            "components, family, id, is_mixed, memory_gb, model, names, predecessor, "
            "vendor)",
        ),
        (
            [entry(id="X One")],
            "t.toml: [accelerator 1 (X One)] id: expected a slug of a-z, 0-9 and "
            "'-', got 'X One'",
        ),
        (
            [entry(memory_gb="80 GB")],
            "t.toml: [accelerator 1 (x-one)] memory_gb: expected a positive number, "
            "got '80 GB'",
        ),
        (
            [entry(is_mixed="yes")],
            "t.toml: [accelerator 1 (x-one)] is_mixed: expected true or false, "
            "got 'yes'",
        ),
    ],
)
def test_registry_validation_names_the_entry(entries, message):
    with pytest.raises(AcceleratorRegistryError) as error:
        parse_accelerators({"accelerator": entries}, "t.toml")
    assert str(error.value) == message


UNKNOWN = "Acme board, model withheld"


def unclassified(**fields):
    base = {"names": [UNKNOWN], "reason": "the systems file names no chip"}
    base.update(fields)
    return base


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        (
            [unclassified(reason=" ")],
            "t.toml: [unclassified 1] reason: expected a reason why the names have "
            "no id, got ' '",
        ),
        (
            [unclassified(), unclassified(names=["X", "Y "])],
            "t.toml: [unclassified 2] names: expected a list of trimmed, non-empty "
            "strings (at least one), got ['X', 'Y ']",
        ),
        (
            [unclassified(names=[])],
            "t.toml: [unclassified 1] names: expected a list of trimmed, non-empty "
            "strings (at least one), got []",
        ),
        (
            [unclassified(id="acme")],
            "t.toml: [unclassified 1] id: unknown field (known: names, reason)",
        ),
        (
            [unclassified(names=["X One"])],
            "t.toml: [unclassified 1] names: 'X One' is also listed under 'x-one'",
        ),
        (
            [unclassified(), unclassified()],
            f"t.toml: [unclassified 2] names: {UNKNOWN!r} is also listed under "
            "unclassified 1",
        ),
    ],
)
def test_unclassified_validation_names_the_entry(entries, message):
    document = {"accelerator": [entry()], "unclassified": entries}
    with pytest.raises(AcceleratorRegistryError) as error:
        parse_accelerators(document, "t.toml")
    assert str(error.value) == message


def test_unclassified_must_be_an_array_of_tables():
    with pytest.raises(AcceleratorRegistryError) as error:
        parse_accelerators({"unclassified": {"names": ["A"]}}, "t.toml")
    assert str(error.value) == (
        "t.toml: unclassified: expected an array of tables [[unclassified]], "
        "got {'names': ['A']}"
    )


def test_an_unclassified_name_is_reviewed_but_never_gets_an_id():
    registry = parse_accelerators(
        {
            "accelerator": [entry(names=[H100])],
            "unclassified": [unclassified()],
        },
        "t.toml",
    )
    assert registry.unclassified_names() == {UNKNOWN: "the systems file names no chip"}
    results = frame(
        row(result_key="u", accelerator_name=UNKNOWN),
        row(result_key="m", accelerator_name=H100),
        row(result_key="x", accelerator_name="Acme TurboChip 9000"),
        # zero accelerators: CPU-only, whatever the name says
        row(result_key="c", accelerator_name=UNKNOWN, total_accelerators=0),
    )
    attached = attach_accelerators(results, registry).collect()
    flags = ["accelerator_id", "is_accelerator_mapped", "is_accelerator_unclassified"]
    assert attached.select("result_key", *flags).rows() == [
        ("u", None, False, True),
        ("m", "x-one", True, False),
        ("x", None, False, False),
        ("c", "cpu:intel-xeon-platinum-8480", True, False),
    ]
    # No id, so no ratio: the filter every pairing analysis uses drops the row.
    assert attached.filter(single_accelerator())["result_key"].to_list() == ["m", "c"]
    # Reviewed names are not "unmapped"; unknown ones still are.
    report = unmapped_accelerators(results, registry)
    assert report["accelerator_name"].to_list() == ["Acme TurboChip 9000"]


def test_a_registry_can_be_injected():
    registry = parse_accelerators({"accelerator": [entry(names=[H100])]}, "t.toml")
    attached = attach_accelerators(frame(row()), registry).collect()
    assert attached["accelerator_id"][0] == "x-one"


def test_a_registry_built_by_hand_with_a_name_twice_is_refused_not_repeated():
    # The loader refuses such a file; a registry built in code must not make the
    # lookup join repeat result rows either.
    registry = AcceleratorRegistry(
        (Accelerator("x-1", "X", "One", "X1", names=("X One",)),),
        unclassified=(UnclassifiedNames(names=("X One",), reason="ambiguous"),),
    )
    with pytest.raises(AcceleratorRegistryError) as error:
        attach_accelerators(frame(row(accelerator_name="X One")), registry)
    assert str(error.value) == "raw accelerator name(s) listed twice: X One"
