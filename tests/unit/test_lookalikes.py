"""Issue 56: names that look alike (TS #39 skeletons) are found, never merged."""

from __future__ import annotations

import polars as pl

from pipeline.render.audit_sections import lookalike_section
from pipeline.transform.lookalikes import (
    LOOKALIKE_SCHEMA,
    code_points,
    composed_names,
    lookalike_groups,
    skeleton,
)


def _results(*rows: tuple[str, str, str, str]) -> pl.DataFrame:
    """(release, submitter, system_name, accelerator_upstream) per result."""
    return pl.DataFrame(
        rows,
        schema=["release", "submitter", "system_name", "accelerator_upstream"],
        orient="row",
    )


def _spellings(groups: pl.DataFrame, field: str) -> set[str]:
    return set(groups.filter(pl.col("field") == field)["name"].to_list())


def test_a_lower_case_l_for_a_capital_i_is_flagged() -> None:
    groups = lookalike_groups(
        _results(
            ("v6.0", "NVIDIA", "A", "H100"),
            ("v6.1", "NVIDIA", "B", "H100"),
            ("v6.1", "NVlDIA", "C", "H100"),
        )
    )
    assert _spellings(groups, "submitter") == {"NVIDIA", "NVlDIA"}
    rows = {r["name"]: r for r in groups.iter_rows(named=True)}
    # Most results first; each spelling's rounds and count.
    assert groups["name"][0] == "NVIDIA"
    assert rows["NVIDIA"]["releases"] == ["v6.0", "v6.1"]
    assert rows["NVIDIA"]["results"] == 2 and rows["NVlDIA"]["results"] == 1
    # What tells them apart, named.
    assert rows["NVlDIA"]["distinct_characters"] == "U+006C LATIN SMALL LETTER L"
    assert rows["NVIDIA"]["distinct_characters"] == "U+0049 LATIN CAPITAL LETTER I"
    assert rows["NVlDIA"]["code_points"].startswith("U+004E U+0056 U+006C")


def test_a_cyrillic_i_soft_hyphen_hangul_filler_and_tag_are_one_group() -> None:
    names = [
        "NVIDIA",
        "NV\u0406DIA",  # Cyrillic capital Byelorussian-Ukrainian I
        "NVI\u00adDIA",  # soft hyphen
        "NVIDIA\u3164",  # Hangul filler
        "NVIDIA\U000e0041",  # tag character
    ]
    groups = lookalike_groups(_results(*(("v6.1", "S", n, "H100") for n in names)))
    assert _spellings(groups, "system_name") == set(names)
    assert groups["skeleton"].n_unique() == 1
    rows = {r["name"]: r for r in groups.iter_rows(named=True)}
    assert (
        "U+0406 CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I"
        in (rows["NV\u0406DIA"]["distinct_characters"])
    )
    # Against the Cyrillic spelling, every Latin spelling has one "I" more.
    assert rows["NVI\u00adDIA"]["distinct_characters"] == (
        "U+0049 LATIN CAPITAL LETTER I; U+00AD SOFT HYPHEN"
    )
    assert rows["NVIDIA\u3164"]["distinct_characters"].endswith("U+3164 HANGUL FILLER")


def test_identical_names_and_different_names_are_not_flagged() -> None:
    groups = lookalike_groups(
        _results(
            ("v6.0", "NVIDIA", "DGX H100", "H100"),
            ("v6.1", "NVIDIA", "DGX H100", "H100"),
            ("v6.1", "AMD", "MI300X box", "MI300X"),
            # Case is not a look-alike: "Nvidia" is a different spelling, not a
            # confusable one (TS #39 skeletons keep case).
            ("v6.1", "Nvidia", "DGX H200", "H200"),
        )
    )
    assert groups.is_empty()
    assert groups.schema == pl.Schema(LOOKALIKE_SCHEMA)


def test_names_are_compared_within_their_field_only() -> None:
    # A submitter "NVIDIA" and an accelerator "NVlDIA" are different things.
    groups = lookalike_groups(_results(("v6.1", "NVIDIA", "X", "NVlDIA")))
    assert groups.is_empty()


def test_nfc_and_nfd_share_a_skeleton_but_arrive_as_one_name() -> None:
    # The skeleton folds NFC and NFD together, but names reach this module NFC
    # already (results.NFC_FIELDS), so the pair is one name, not a look-alike.
    assert skeleton("Cafe\u0301 Server") == skeleton("Caf\u00e9 Server")


def test_a_long_name_lists_its_first_code_points_only() -> None:
    shown = code_points("A" * 10_000)
    assert shown.endswith("… (10,000 code points)")
    assert shown.count("U+0041") == 48


def test_audit_lists_each_spelling_escaped_with_its_code_points() -> None:
    text = "\n".join(
        lookalike_section(
            _results(
                ("v6.1", "<b>NVIDIA</b>", "A", "H100"),
                ("v10.0", "<b>NVlDIA</b>", "A", "H100"),
                ("v6.1", "S", "NVI\u00adDIA DGX", "H100"),
                ("v6.1", "S", "NVIDIA DGX", "H100"),
            )
        )
    )
    assert "## Names that look alike" in text
    assert "composed to NFC" in text
    assert "<b>" not in text
    assert "&lt;b&gt;NVlDIA&lt;/b&gt;" in text
    # An invisible character is shown as its code point in the spelling itself.
    assert "NVI&#91;U+00AD&#93;DIA DGX" in text
    assert "U+00AD SOFT HYPHEN" in text
    assert "U+006C LATIN SMALL LETTER L" in text


def test_audit_says_when_no_names_look_alike() -> None:
    text = "\n".join(lookalike_section(_results(("v6.1", "NVIDIA", "A", "H100"))))
    assert "No two submitter, system or accelerator names look alike" in text


def _declared(*rows: tuple[str, str, list[str]]) -> pl.DataFrame:
    """(release, system_name as composed, names_composed) per result."""
    return pl.DataFrame(
        [(r, "S", name, "H100", composed) for r, name, composed in rows],
        schema={
            "release": pl.String,
            "submitter": pl.String,
            "system_name": pl.String,
            "accelerator_upstream": pl.String,
            "names_composed": pl.List(pl.String),
        },
        orient="row",
    )


def test_an_nfc_nfd_pair_is_listed_as_one_name_declared_both_ways() -> None:
    # "Café Server" declared decomposed in v6.1 (composed here) and composed in
    # v6.0; "Plain" never decomposed. The pair is flagged on Audit.
    results = _declared(
        ("v6.1", "Caf\u00e9 Server", ["system_name"]),
        ("v6.1", "Caf\u00e9 Server", ["system_name"]),
        ("v6.0", "Caf\u00e9 Server", []),
        ("v6.0", "Plain", []),
    )
    names = composed_names(results)
    assert names.rows() == [("system_name", "Caf\u00e9 Server", ["v6.1"], 2, 1)]
    text = "\n".join(lookalike_section(results))
    assert "### Names declared decomposed (NFD)" in text
    assert "<code>Café Server</code>" in text
    assert "yes&#58; also declared composed &#40;NFC&#41;" in text


def test_no_name_declared_decomposed_says_so() -> None:
    results = _declared(("v6.0", "Plain", []))
    assert composed_names(results).is_empty()
    text = "\n".join(lookalike_section(results))
    assert "_Every name was declared composed (NFC)._" in text
