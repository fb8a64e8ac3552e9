"""Issue 56 B: one policy for invisible characters, in the pages and the scripts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

from pipeline.render.escape import INVISIBLE_PATTERN, INVISIBLE_RANGES, escape

ROOT = Path(__file__).resolve().parents[3]
TEXT_JS = ROOT / "site" / "assets" / "js" / "text.js"

CASES = {
    "bidi override": ("A\u202eB", "A&#91;U+202E&#93;B"),
    "bidi isolate": ("A\u2066B\u2069", "A&#91;U+2066&#93;B&#91;U+2069&#93;"),
    "arabic letter mark": ("A\u061cB", "A&#91;U+061C&#93;B"),
    "zero width space": ("NVIDIA\u200b H100", "NVIDIA&#91;U+200B&#93; H100"),
    "tag character": ("A\U000e0041", "A&#91;U+E0041&#93;"),
    "hangul filler": ("\u3164x\u115f", "&#91;U+3164&#93;x&#91;U+115F&#93;"),
    "soft hyphen": ("H\u00ad100", "H&#91;U+00AD&#93;100"),
    "variation selector": ("A\ufe0f", "A&#91;U+FE0F&#93;"),
}


@pytest.mark.parametrize(("raw", "shown"), CASES.values(), ids=list(CASES))
def test_each_kind_of_invisible_character_is_shown(raw: str, shown: str) -> None:
    assert escape(raw) == shown
    assert pl.select(escape(pl.lit(raw)))["literal"][0] == shown
    assert INVISIBLE_PATTERN.search(escape(raw)) is None


def test_the_pattern_covers_exactly_the_ranges() -> None:
    inside = [c for first, last in INVISIBLE_RANGES for c in (first, last)]
    assert all(INVISIBLE_PATTERN.fullmatch(chr(c)) for c in inside)
    assert INVISIBLE_PATTERN.search("NVIDIA H100 Café – ×") is None


def test_the_site_scripts_use_the_same_ranges() -> None:
    text = TEXT_JS.read_text()
    block = re.search(r"var RANGES = \[(.*?)\];", text, re.S)
    assert block is not None
    pairs = re.findall(r"\[0x([0-9A-F]+), 0x([0-9A-F]+)\]", block.group(1))
    assert tuple((int(a, 16), int(b, 16)) for a, b in pairs) == INVISIBLE_RANGES


def test_explorer_shows_upstream_text_through_the_helper() -> None:
    script = (TEXT_JS.parent / "explorer.js").read_text()
    assert "var show = window.ledgerText.show;" in script
    assert "String(value)" not in script  # no second, raw helper


def test_the_systems_filter_writes_no_upstream_text() -> None:
    # The family pages are static; the list's script only hides rows and counts.
    script = (TEXT_JS.parent / "systems.js").read_text()
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script
    assert script.count("textContent =") == 1  # the count of shown systems


@pytest.mark.skipif(shutil.which("node") is None, reason="no node")
def test_the_script_helper_shows_what_the_pages_show() -> None:
    raw = [case[0] for case in CASES.values()] + ["a\x1bb", None]
    program = (
        "globalThis.window = {};\n"
        + TEXT_JS.read_text()
        + f"\nconsole.log(JSON.stringify({json.dumps(raw)}.map(window.ledgerText.show)));"
    )
    out = subprocess.run(
        ["node", "-e", program], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    assert json.loads(out) == [
        "A[U+202E]B",
        "A[U+2066]B[U+2069]",
        "A[U+061C]B",
        "NVIDIA[U+200B] H100",
        "A[U+E0041]",
        "[U+3164]x[U+115F]",
        "H[U+00AD]100",
        "A[U+FE0F]",
        "a\ufffdb",
        "",
    ]
