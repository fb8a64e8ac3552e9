"""Declared descriptions, normalised: the vocabulary, the expressions, hostile text."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.registry import REGISTRY_DIR
from pipeline.registry.descriptions import (
    DescriptionsError,
    load_descriptions,
    spelling_key,
)
from pipeline.transform.descriptions import (
    MAPPED,
    NO_VALUE,
    NOT_REVIEWED,
    REVIEWED,
    not_in_vocabulary,
    spellings,
    with_normalised,
)
from pipeline.transform.systems import DECLARED_SCHEMA


def _normalised(**declared: list[str | None]) -> dict[str, list]:
    frame = pl.DataFrame(declared, schema=dict.fromkeys(declared, pl.String))
    return with_normalised(frame.lazy()).collect().to_dict(as_series=False)


def test_spellings_of_one_interconnect_are_one_family() -> None:
    out = _normalised(
        accelerator_interconnect=[
            "NVLink", "NVLINK", " nvlink ", "5th-gen NVLink andNVLink Switches",
            "18x 5th Gen NVLink,\u202f14.4\u202fTB/s aggregated bandwidth", "XGMI",
            "PCIe Gen5 x16", "PCIe 3.0 ", None,
        ]
    )  # fmt: skip
    assert out["interconnect_family"] == [
        "NVLink", "NVLink", "NVLink", "NVLink 5", "NVLink 5", "Infinity Fabric",
        "PCIe 5.0", "PCIe 3.0", None,
    ]  # fmt: skip
    # The declared text stays as written beside it.
    assert out["accelerator_interconnect"][1] == "NVLINK"


def test_cooling_kinds_and_the_declared_text_beside_them() -> None:
    out = _normalised(
        cooling=["Air-cooled", "air\u2011cooled", "Fan mode: cool", "passive",
                 "Direct Liquid Cooling", "N/A", "standard"]
    )  # fmt: skip
    assert out["cooling_kind"] == [
        "air", "air", "air", "passive", "liquid", None, None,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("declared", "gb"),
    [
        ("80 GB", 80.0),
        ("80GB", 80.0),
        ("8 GiB", 8.0),
        # 16 GiB is 17.18 x 10^9 bytes: sold, and normalised, as 16.
        ("16 GiB (shared with host)", 16.0),
        # A driver's GiB written as GB on a 24 GB card (reviewed entry).
        ("23.5135498046875 GB", 24.0),
        ("96Gi", 96.0),
        # A fraction nobody reviewed is no value, not 17.18.
        ("17.18 GB", None),
        ("125G", None),
        ("80 GB(A100), 40 GB(A30)", None),
        ("Shared with host", None),
        ("0", None),
        ("N/A", None),
        ("", None),
        (None, None),
    ],
)
def test_memory_in_gb_as_sold(declared: str | None, gb: float | None) -> None:
    out = _normalised(accelerator_memory_capacity=[declared])
    assert out["accelerator_memory_gb"] == [gb]


def test_a_frame_without_the_declared_columns_gets_null_columns() -> None:
    out = _normalised(framework=["TensorRT"])
    assert out["interconnect_family"] == [None]
    assert out["cooling_kind"] == [None]
    assert out["accelerator_memory_gb"] == [None]


#: Hostile spellings: none may crash the expressions or be mapped by accident.
HOSTILE = [
    "",
    "   ",
    "https://evil.example/nvlink",
    "<script>alert(1)</script>NVLink",
    "NV\u200bLink",  # a zero-width space inside: another spelling
    "\u202eknilVN",  # a bidi override
    "NVLink\x00",
    '=HYPERLINK("https://evil.example","NVLink")',
    "a" * 10_000,
]


def _declared(field: str, values: list[str], release: str = "v5.1") -> pl.DataFrame:
    rows = [
        {
            "release": release, "division": "closed", "submitter": f"S{i}",
            "platform": f"p{i}", "source_kind": "system_json",
            "source_file": f"closed/S{i}/systems/p{i}.json", "field_order": 0,
            "field_upstream": field, "field": field, "is_known": True,
            "value": value, "value_kind": "text",
        }
        for i, value in enumerate(values)
    ]  # fmt: skip
    return pl.DataFrame(rows, schema=DECLARED_SCHEMA)


def test_hostile_spellings_are_unmapped_and_listed_not_crashed() -> None:
    out = _normalised(accelerator_interconnect=HOSTILE, cooling=HOSTILE)
    assert out["interconnect_family"] == [None] * len(HOSTILE)
    assert out["cooling_kind"] == [None] * len(HOSTILE)
    listed = not_in_vocabulary(
        _declared("accelerator_interconnect", HOSTILE).lazy()
    ).collect()
    # Blank text declares nothing; every other hostile spelling is listed, as
    # written (the page escapes it), and unreviewed.
    assert sorted(listed["spelling"].to_list()) == sorted(HOSTILE[2:])
    assert set(listed["status"]) == {NOT_REVIEWED}


def test_spellings_count_rounds_and_say_what_the_vocabulary_does() -> None:
    declared = pl.concat(
        [
            _declared("cooling", ["Air", "air", "none", "N/A", "Tubes"], "v6.0"),
            _declared("cooling", ["AIR"], "v1.0"),
            _declared("accelerator_memory_capacity", ["17.18 GB"], "v2.1"),
        ]
    )
    table = spellings(declared.lazy()).collect()
    rows = {(r["field"], r["spelling_key"]): r for r in table.iter_rows(named=True)}
    air = rows[("cooling", "air")]
    # The first spelling in version order, every round, every declaration.
    assert (air["spelling"], air["releases"], air["count"]) == (
        "AIR", ["v1.0", "v6.0"], 3,
    )  # fmt: skip
    assert (air["status"], air["normalised"]) == (MAPPED, "air")
    assert rows[("cooling", "n/a")]["status"] == NO_VALUE
    assert rows[("cooling", "none")]["status"] == REVIEWED
    assert "Hailo" in rows[("cooling", "none")]["reason"]
    assert rows[("cooling", "tubes")]["status"] == NOT_REVIEWED
    assert rows[("accelerator_memory_capacity", "17.18 gb")]["status"] == NOT_REVIEWED


def test_the_key_trims_folds_case_and_white_space_only() -> None:
    assert spelling_key("  NVLink\u202f(NV18)\t") == "nvlink (nv18)"
    assert spelling_key("NV\u200bLink") == "nv\u200blink"


def test_each_vocabulary_has_at_most_twelve_values() -> None:
    vocabulary = load_descriptions()
    assert len(vocabulary.interconnect_families) <= 12
    assert len(vocabulary.cooling_kinds) <= 12
    assert set(vocabulary.interconnect.values()) == set(
        vocabulary.interconnect_families
    )


def _copy_with(tmp_path: Path, old: str, new: str) -> Path:
    text = (REGISTRY_DIR / "descriptions.toml").read_text()
    assert old in text, old
    path = tmp_path / "descriptions.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('family = "NVLink 5"', 'family = "NVLink 6"', "family: expected one of"),
        ('upstream = "xgmi"', 'upstream = "XGMI"', "write the key as compared"),
        ('upstream = "amd fabric"', 'upstream = "xgmi"', "is listed twice"),
        ("gb = 16\n", "gb = -16\n", "gb: expected a positive number"),
        (
            'evidence = "Named in so many words (v6.0)."',
            'evidence = ""',
            "evidence: expected a non-empty string",
        ),
        (
            'cooling_kinds = ["air", "liquid", "liquid + air", "passive"]',
            'cooling_kinds = ["air", "liquid", "liquid + air", "passive", "a", "b", '
            '"c", "d", "e", "f", "g", "h", "i"]',
            "13 values; a filter shows at most 12",
        ),
    ],
)
def test_a_malformed_entry_is_named(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    with pytest.raises(DescriptionsError, match=message):
        load_descriptions(_copy_with(tmp_path, old, new))
