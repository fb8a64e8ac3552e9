"""Issue 56: a 10 KB name is shortened on pages, whole on hover and in downloads."""

from __future__ import annotations

import csv
import html
import re
from pathlib import Path

import polars as pl

from pipeline.render.downloads import write_downloads
from pipeline.render.tables import (
    LONG_NAME_CHARS,
    SHORT_NAME_CHARS,
    name_cell,
)

#: 10 KB of hostile text: markup, quotes, a table pipe, an invisible character.
LONG = ('<b onclick="x">N|V\u200bI</b> ' * 400)[:10_000]


def _cell(value: str | None) -> str:
    frame = pl.DataFrame({"name": [value]}, schema={"name": pl.String})
    return frame.select(name_cell(pl.col("name")).markup)["name"][0]


def test_a_10_kb_name_shows_its_first_100_characters_and_the_whole_on_hover() -> None:
    cell = _cell(LONG)
    match = re.fullmatch(
        r'<span class="ledger-long" title="([^"<>]*)">([^<>"]*)…</span>', cell
    )
    assert match, cell[:200]
    title, shown = match.groups()
    # The title is the whole name, escaped for an attribute (the invisible character
    # shown as its code point, as everywhere on the site).
    assert (
        html.unescape(title)
        == " ".join(LONG.split()).replace("\u200b", "[U+200B]").strip()
    )
    # Shown: the first 100 characters (an entity counts as one), never a cut entity.
    assert len(html.unescape(shown)) == SHORT_NAME_CHARS
    assert not re.search(r"&#?\w*$", shown)
    assert "<b" not in cell and "|" not in cell


def test_a_name_at_the_limit_is_shown_whole() -> None:
    at_limit = "N" * LONG_NAME_CHARS
    assert _cell(at_limit) == at_limit
    # Entities count as one character each: 120 "<" are not 480 characters.
    assert _cell("<" * LONG_NAME_CHARS) == "&lt;" * LONG_NAME_CHARS
    assert "title=" in _cell("N" * (LONG_NAME_CHARS + 1))
    assert _cell(None) == ""


def test_downloads_keep_the_whole_name(tmp_path: Path) -> None:
    frame = pl.DataFrame({"system_name": [LONG]})
    (download,) = write_downloads({"systems": (frame, "test")}, tmp_path)
    with download.csv.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[1][0] == LONG
    assert pl.read_parquet(download.parquet)["system_name"][0] == LONG
