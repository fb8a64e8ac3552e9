"""The systems table from hand-written system JSONs and summary rows."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from pipeline.extract.raw_tree import system_files
from pipeline.registry import RegistryError
from pipeline.registry.system_fields import parse_system_fields, system_fields
from pipeline.transform.systems import (
    SYSTEM_FIELDS_KEY,
    SYSTEMS_KEY,
    SYSTEMS_SCHEMA,
    capacity_bytes,
    capacity_note,
    read_system_files,
    summary_declared,
    systems_table,
    with_system_id,
)

HOSTILE = '<script>alert(1)</script>"=HYPERLINK("x")'


def _files(files: dict[str, bytes | Exception]) -> tuple[dict, object]:
    systems = {
        tuple(path.split("/")[:2]) + (path.rsplit("/", 1)[1][:-5],): path
        for path in files
    }

    def read(path: str) -> bytes:
        value = files[path]
        if isinstance(value, Exception):
            raise value
        return value

    return systems, read


def test_every_field_is_kept_with_its_file_and_sha256() -> None:
    body = json.dumps(
        {
            "sumitter": "Tencent_Corp",
            "Number of nodes": "1",
            "accelerator_memory_capacity": "80 GB",
            "other_software_stack": {"vllm": "0.9", "rocm": "6.4"},
            "ml_libraries": HOSTILE,
            "accelerators_per_node": 8,
            "is_network": True,
            "hw_notes": None,
        }
    ).encode()
    systems, read = _files({"closed/Acme/systems/box.json": body})
    declared, quarantined = read_system_files(systems, read, release="v0.5")
    assert quarantined.is_empty()
    rows = {r["field_upstream"]: r for r in declared.to_dicts()}
    assert rows["sumitter"]["field"] == "submitter"
    assert rows["sumitter"]["is_known"] is True
    assert rows["Number of nodes"]["field"] == "number_of_nodes"
    assert (rows["ml_libraries"]["field"], rows["ml_libraries"]["is_known"]) == (
        "ml_libraries",
        False,
    )
    assert rows["ml_libraries"]["value"] == HOSTILE
    assert rows["other_software_stack"]["value"] == '{"rocm": "6.4", "vllm": "0.9"}'
    assert rows["other_software_stack"]["value_kind"] == "json"
    assert (rows["accelerators_per_node"]["value"], rows["is_network"]["value"]) == (
        "8",
        "true",
    )
    assert rows["hw_notes"]["value"] is None
    import hashlib

    assert set(declared["snapshot_sha256"]) == {hashlib.sha256(body).hexdigest()}
    assert set(declared["source_file"]) == {"closed/Acme/systems/box.json"}
    assert declared["field_order"].to_list() == list(range(8))


def test_unreadable_files_are_quarantined_with_the_reason() -> None:
    systems, read = _files(
        {
            "closed/A/systems/bad.json": b'{"system_name": "x",',
            "closed/A/systems/list.json": b"[1, 2]",
            "closed/A/systems/latin.json": b'{"a": "\xe9"}',
            "closed/A/systems/empty.json": b"  \n",
            "closed/A/systems/gone.json": FileNotFoundError("not fetched"),
            "closed/A/systems/ok.json": b'\xef\xbb\xbf{"system_name": "fine"}',
        }
    )
    declared, quarantined = read_system_files(systems, read, release="v6.0")
    reasons = dict(zip(quarantined["platform"], quarantined["reason"], strict=True))
    assert reasons == {
        "bad": "invalid JSON at line 1 column 21: Expecting property name enclosed "
        "in double quotes",
        "empty": "empty file",
        "gone": "unreadable: FileNotFoundError: not fetched",
        "latin": "not UTF-8 text (invalid continuation byte)",
        "list": "expected a JSON object, got a JSON list",
    }
    assert (
        quarantined.filter(pl.col("platform") == "gone")["snapshot_sha256"][0] is None
    )
    assert declared["platform"].unique().to_list() == ["ok"]


def test_a_repeated_key_keeps_the_first_value_and_says_so() -> None:
    body = b'{"cooling": "air", "cooling": "liquid", "framework": "\\ud800x"}'
    systems, read = _files({"closed/A/systems/dup.json": body})
    declared, _ = read_system_files(systems, read, release="v1.0")
    rows = {r["field"]: r for r in declared.to_dicts()}
    assert rows["cooling"]["value"] == "air"
    assert rows["cooling"]["note"] == (
        "declared more than once with different values; the first is kept"
    )
    assert rows["framework"]["note"] == (
        "held an unpaired surrogate escape, replaced by U+FFFD"
    )


@pytest.mark.parametrize(
    ("text", "expected", "note"),
    [
        ("186 GB", 186 * 10**9, None),
        ("1.3TB LPDDR5x", 13 * 10**11, None),
        ("8x 64 GB", 512 * 10**9, None),
        ("4 GiB (shared with host)", 4 * 2**30, None),
        ("180\u2009GB", 180 * 10**9, None),
        ("125G", None, "no byte unit stated (a bare prefix such as 'G')"),
        ("80 GB(A100), 40 GB(A30)", None, "more than one quantity declared"),
        ("N/A", None, "no quantity with a byte unit"),
        ("", None, None),
        (None, None, None),
    ],
)
def test_capacities_in_bytes_only_where_unambiguous(
    text: str | None, expected: int | None, note: str | None
) -> None:
    frame = pl.DataFrame({"t": [text]}, schema={"t": pl.String}).select(
        b=capacity_bytes(pl.col("t")), n=capacity_note(pl.col("t"))
    )
    assert frame.row(0) == (expected, note)


def _summary() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "Category": ["closed", "closed", "closed"],
            "Submitter": ["NVIDIA", "NVIDIA", "NVIDIA"],
            "Platform": ["box", "box", "other"],
            "Software": ["TRT 10.14", "TRT 10.15", HOSTILE],
            "operating_system": ["Ubuntu 24.04", "Ubuntu 24.04", None],
            "Processor": ["Grace", "Grace", " "],
        }
    )


def test_summary_columns_declare_one_value_per_system_and_field() -> None:
    fields = {"division": "Category", "submitter": "Submitter", "platform": "Platform"}
    declared = summary_declared(
        _summary(),
        layout="final_report",
        layout_fields=fields,
        release="v4.1",
        source_file="summary_results.json",
        sha256="ab" * 32,
    )
    rows = {(r["platform"], r["field"]): r for r in declared.to_dicts()}
    assert rows[("box", "framework")]["value"] == "TRT 10.14 | TRT 10.15"
    assert rows[("box", "framework")]["note"] == (
        "2 different values across this system's result rows"
    )
    assert rows[("box", "operating_system")]["value"] == "Ubuntu 24.04"
    assert rows[("other", "framework")]["value"] == HOSTILE
    # A blank value declares nothing.
    assert ("other", "host_processor_model_name") not in rows
    assert set(declared["source_kind"]) == {"summary"}


def _results() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "release": ["v5.1", "v6.0", "v6.0", "v6.1"],
            "division": ["closed"] * 4,
            "submitter": ["NVIDIA"] * 4,
            "platform": ["box", "box", "box", "box"],
            "system_name": [" (72x GB300)", "NVIDIA GB300 NVL72", None, "NVIDIA GB300"],
            "accelerator_id": ["nvidia-gb300"] * 4,
            "accelerator_name": ["NVIDIA GB300"] * 4,
            "total_accelerators": [72, 72, 72, 72],
            "nodes": [18, 18, 18, 18],
        },
        schema_overrides={"total_accelerators": pl.Int32, "nodes": pl.Int32},
    )


def test_one_identity_across_rounds_and_name_variants() -> None:
    keyed = with_system_id(_results())
    assert keyed["system_id"].n_unique() == 1
    assert keyed["system_id"][0].startswith("nvidia-box--")
    bigger = with_system_id(_results().with_columns(total_accelerators=pl.lit(288)))
    assert bigger["system_id"][0] != keyed["system_id"][0]


def test_the_system_json_wins_over_the_summary() -> None:
    body = json.dumps(
        {"framework": "TRT 10.14 from JSON", "accelerator_memory_capacity": "288 GB"}
    ).encode()
    systems, read = _files({"closed/NVIDIA/systems/box.json": body})
    from_json, _ = read_system_files(systems, read, release="v6.0")
    from_summary = summary_declared(
        _summary(),
        layout="final_report",
        layout_fields={
            "division": "Category",
            "submitter": "Submitter",
            "platform": "Platform",
        },
        release="v6.0",
        source_file="summary_results.json",
        sha256="cd" * 32,
    )
    table = systems_table(pl.concat([from_json, from_summary]), _results())
    assert table.schema == pl.Schema(SYSTEMS_SCHEMA)
    row = table.filter(pl.col("release") == "v6.0").row(0, named=True)
    assert row["framework"] == "TRT 10.14 from JSON"
    assert row["operating_system"] == "Ubuntu 24.04"  # only the summary declares it
    assert row["accelerator_memory_capacity_bytes"] == 288 * 10**9
    assert row["description_source"] == "system_json"
    assert row["system_names"] == ["NVIDIA GB300 NVL72"]
    assert row["results"] == 2
    # A system with results and no description is still a row.
    bare = table.filter(pl.col("release") == "v5.1").row(0, named=True)
    assert (bare["framework"], bare["source_file"]) == (None, None)


def test_the_registry_refuses_an_alias_of_no_field() -> None:
    document = {
        "field": [
            {
                "name": "cooling",
                "label": "Cooling",
                "kind": "text",
                "group": "system",
                "evidence": "x",
            }
        ],
        "alias": [
            {
                "upstream": "cooler",
                "field": "coolant",
                "releases": ["v1.0"],
                "evidence": "x",
            }
        ],
    }
    message = (
        "system_fields.toml: [alias 1 (cooler)] field: expected one of 'cooling', "
        "got 'coolant'"
    )
    with pytest.raises(RegistryError) as caught:
        parse_system_fields(document, "system_fields.toml")
    assert str(caught.value) == message


def test_the_committed_registry_maps_what_the_mirror_misspells() -> None:
    mapping = system_fields()
    assert mapping.aliases["sumitter"] == ("submitter", ("v0.5",))
    assert mapping.summary["checker"]["framework"] == "framework"
    assert mapping.summary["final_report"]["Software"] == "framework"
    explorer = sorted(n for n, f in mapping.fields.items() if f.explorer)
    assert explorer == [
        "accelerator_interconnect",
        "accelerator_memory_capacity",
        "cooling",
        "framework",
        "host_memory_capacity",
        "host_processor_model_name",
        "operating_system",
    ]


def test_system_files_names_the_file_each_result_folder_reads() -> None:
    paths = [
        "closed/A/systems/box.json",
        "closed/A/systems/unused.json",
        "closed/A/results/box/resnet50/Offline/performance/run_1/mlperf_log_summary.txt",
    ]
    assert system_files(paths, release="v5.1") == {
        ("closed", "A", "box"): "closed/A/systems/box.json"
    }


def test_the_downloads_guard_declared_formulas_and_declare_the_keys(
    tmp_path: Path,
) -> None:
    import csv

    import frictionless

    from pipeline.render.datapackage import write_datapackage
    from pipeline.render.downloads import write_downloads

    body = json.dumps(
        {"framework": '=HYPERLINK("https://evil.example")', "cooling": HOSTILE}
    ).encode()
    systems, read = _files({"closed/NVIDIA/systems/box.json": body})
    declared, quarantined = read_system_files(systems, read, release="v6.0")
    table = systems_table(declared, _results())
    path = write_datapackage(
        write_downloads(
            {
                "systems": (table, "Systems."),
                "system_fields": (declared, "Fields."),
                "systems_quarantined": (quarantined, "Quarantined."),
            },
            tmp_path,
        ),
        ["mlcommons/inference_results_v6.0"],
        tmp_path,
    )
    report = frictionless.validate(str(path))
    assert report.flatten(["type", "note"]) == []
    descriptor = json.loads(path.read_text())
    keys = {r["name"]: r["schema"].get("primaryKey") for r in descriptor["resources"]}
    assert keys["systems"] == list(SYSTEMS_KEY)
    assert keys["system_fields"] == list(SYSTEM_FIELDS_KEY)
    with (tmp_path / "systems.csv").open(newline="", encoding="utf-8") as handle:
        v60 = [r for r in csv.DictReader(handle) if r["release"] == "v6.0"]
    assert v60[0]["framework"] == '\'=HYPERLINK("https://evil.example")'
    assert v60[0]["cooling"] == HOSTILE


def test_sections_do_not_depend_on_the_order_of_the_rows() -> None:
    from pipeline.render.site_data import empty_pairs
    from pipeline.render.system_ids import keyed_results
    from pipeline.render.system_views import sections

    body = json.dumps({"framework": "TRT 10.14", "cooling": "air"}).encode()
    systems, read = _files({"closed/NVIDIA/systems/box.json": body})
    declared, _ = read_system_files(systems, read, release="v6.0")
    results = _results().with_columns(
        result_key=pl.format("{}-{}", "release", pl.int_range(pl.len())),
        result_value=pl.lit(1.0),
        result_unit=pl.lit("Tokens/s"),
        result_url=pl.lit("javascript:alert(1)"),
        benchmark=pl.lit("llama2-70b-99"),
        scenario=pl.lit("Offline"),
        power_value=pl.lit(None, dtype=pl.Float64),
        power_unit=pl.lit(None, dtype=pl.String),
        software=pl.lit(HOSTILE),
        host_cpu_name=pl.lit("Grace"),
        is_preview=pl.lit(False),
        is_inferred=pl.lit(False),
    )
    releases = ["v5.1", "v6.0", "v6.1"]

    def made(frame: pl.DataFrame) -> pl.DataFrame:
        table = systems_table(declared, frame)
        return sections(keyed_results(frame), table, declared, empty_pairs(), releases)

    assert made(results).equals(made(results.reverse()))
    (section,) = made(results).to_dicts()
    assert section["names"] == [" (72x GB300)", "NVIDIA GB300 NVL72", "NVIDIA GB300"]
    assert section["releases"] == releases
    assert section["system_page"] == "nvidia"
    results_table = section["c_results"]["__html__"]
    # A URL that is not http(s) is never a link; the software string is escaped.
    assert "javascript" not in results_table and "<a " not in results_table
    assert "<script>" not in results_table and "&lt;script&gt;" in results_table
    assert section["c_described"]["__html__"].count('data-label="v6.0"') == 2
