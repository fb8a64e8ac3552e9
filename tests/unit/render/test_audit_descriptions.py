"""The Audit page lists declared description spellings the vocabulary has no value for."""

from __future__ import annotations

import polars as pl

from pipeline.render.audit_sections import descriptions_section
from pipeline.transform.systems import DECLARED_SCHEMA


def _declared(*rows: tuple[str, str, str]) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "release": release, "division": "closed", "submitter": f"S{i}",
                "platform": f"p{i}", "source_kind": "system_json",
                "source_file": f"closed/S{i}/systems/p{i}.json", "field_order": 0,
                "field_upstream": field, "field": field, "is_known": True,
                "value": value, "value_kind": "text",
            }
            for i, (release, field, value) in enumerate(rows)
        ],
        schema=DECLARED_SCHEMA,
    )  # fmt: skip


def test_unmapped_spellings_are_listed_with_rounds_count_and_reason() -> None:
    text = "\n".join(
        descriptions_section(
            _declared(
                ("v6.0", "cooling", "Tubes"),
                ("v1.0", "cooling", "tubes"),
                ("v0.5", "cooling", "none"),
                ("v5.1", "cooling", "Air"),
                ("v5.1", "cooling", "N/A"),
                ("v2.1", "accelerator_interconnect", "<b>NV\u200bLink</b>"),
            )
        )
    )
    assert "## Declared descriptions not in the vocabulary" in text
    # One row per spelling: first seen, every round, every declaration.
    assert "<code>tubes</code>" in text  # the v1.0 spelling comes first
    assert "v1.0, v6.0" in text
    assert "not reviewed yet" in text
    assert "Hailo" in text  # the reviewed reason of "none"
    # Mapped spellings and placeholders are not listed.
    assert "<code>Air</code>" not in text and "<code>N/A</code>" not in text
    # Hostile text is escaped, its invisible character shown.
    assert "<b>" not in text
    assert "&lt;b&gt;NV&#91;U+200B&#93;Link&lt;/b&gt;" in text


def test_nothing_unmapped_says_so_and_no_table_no_section() -> None:
    text = "\n".join(descriptions_section(_declared(("v5.1", "cooling", "Air"))))
    assert "Every declared interconnect, cooling and accelerator memory" in text
    assert descriptions_section(None) == []
