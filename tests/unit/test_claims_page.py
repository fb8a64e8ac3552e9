"""The Claims page: cards, links to both cited results, escaping of every string."""

from __future__ import annotations

import re
from pathlib import Path

import markdown
import polars as pl
import pytest

from pipeline.claims import VERDICTS, claim_verdicts, evaluate_claims
from pipeline.registry.claims import Claim, load_claims, parse_claims
from pipeline.render.claim_cells import _fixed
from pipeline.render.claim_notes import claim_anchor, claims_for_release
from pipeline.render.claims_page import render_claims_page
from pipeline.render.escape import escape, safe_url
from tests.analysed import analyse
from tests.unit.analysis.helpers import GB300, frame, row
from tests.unit.render.conftest import unlabelled

CSS = Path(__file__).resolve().parents[2] / "site" / "assets" / "css" / "ledger.css"

EVIL = "<script>alert(1)</script> [x](javascript:alert(1)) *b* | `c`"


def make_claim(**overrides: object) -> Claim:
    raw = {
        "id": "c1",
        "claimant": "Acme",
        "source_url": "https://example.org/claim?a=1&b=2",
        "date": "2026-11-29",
        "quote": "Acme got about 1.5x faster.",
        "title": "Acme 1.5x",
        "figure": 1.5,
        "decimals": 1,
        "qualifier": "about",
        "kind": "software_gain",
        "releases": ["v5.1", "v6.0"],
        "benchmark": "llama2-70b-99",
        "scenarios": ["Offline"],
        "division": "closed",
        "identity_level": "any",
        "accelerators": ["nvidia-h100-sxm"],
        "note": "Illustrative test entry.",
        **overrides,
    }
    return parse_claims({"claim": [{k: v for k, v in raw.items() if v is not None}]})[0]


def page_for(claims: list[Claim], *rows: dict[str, object]) -> tuple[str, pl.DataFrame]:
    results = frame(*rows)
    tables = analyse(results)
    evaluations = evaluate_claims(
        claims, results, tables.software_gains, tables.generation_ratios, tables.scaling
    )
    verdicts = claim_verdicts(evaluations)
    return render_claims_page(claims, evaluations, verdicts), verdicts


def rows(**new: object) -> list[dict[str, object]]:
    return [
        row(release="v5.1", result_key="k-old", result_value=100.0),
        row(release="v6.0", result_key="k-new", result_value=153.8, **new),
    ]


@pytest.fixture
def page() -> str:
    text, _ = page_for([make_claim()], *rows())
    return text


def test_page_has_title_and_the_derived_notice(page):
    assert page.startswith("# Claims\n")
    assert '!!! warning "Derived, unofficial — not MLPerf results"' in page
    assert "not MLPerf results, not verified by MLCommons Association" in page


def test_card_has_anchor_badge_quote_source_and_readings(page):
    assert "## Acme 1.5x {#claim-c1}" in page
    assert "| [Acme 1.5x](#claim-c1) | Acme |" in unlabelled(page)
    assert (
        '<span class="ledger-badge ledger-badge--consistent">consistent</span>' in page
    )
    assert "> “Acme got about 1.5x faster.”" in page
    assert '- **Source:** <a href="https://example.org/claim?a=1&amp;b=2">' in page
    assert "- **Date:** 2026-11-29" in page
    assert "about 1.5× software gain · llama2-70b-99 Offline (closed)" in page
    assert "| system<br><small>like-for-like</small> | " in unlabelled(page)
    assert '| <span data-label="Computed"></span>1.538× |' in page


def _labels(row: str) -> list[str]:
    """The column labels opening the cells of one Markdown table row, in order."""
    return re.findall(r'(?:^|\| )<span data-label="([^"]*)"></span>', row)


def test_every_cell_of_the_claims_tables_names_its_column(page):
    # On a phone each row is a block and each cell says which column it is.
    index = next(line for line in page.splitlines() if "(#claim-c1)" in line)
    assert _labels(index) == ["Claim", "Claimant", "Verdict", "Readings that agree"]
    readings = [line for line in page.splitlines() if "k-old" in line]
    assert readings
    for line in readings:
        assert _labels(line) == [
            "Reading", "Verdict", "Computed", "Older / smaller result",
            "Newer / larger result", "Why", "Caveats",
        ]  # fmt: skip
    one_end, _ = page_for(
        [absolute(figure=8064, decimals=0)],
        row(release="v6.0", result_key="slice", accelerator_name=GB300,
            total_accelerators=8, result_value=64510.0),
    )  # fmt: skip
    (reading,) = [line for line in one_end.splitlines() if "slice" in line]
    assert _labels(reading) == [
        "Reading",
        "Verdict",
        "Value",
        "Result",
        "Why",
        "Caveats",
    ]


def test_both_cited_results_link_to_their_upstream_folders(page):
    assert (
        '<a href="https://example.org/k-old" title="k-old">v5.1 Acme acme&#95;box</a>'
        in page
    )
    assert (
        '<a href="https://example.org/k-new" title="k-new">v6.0 Acme acme&#95;box</a>'
        in page
    )
    assert " · 8 accelerators · 153.8" in page


def test_a_claim_without_source_says_so():
    text, _ = page_for([make_claim(source_url="")], *rows())
    assert "- **Source:** no public source" in text


def test_registry_and_upstream_strings_are_escaped():
    claim = make_claim(
        claimant=EVIL, quote=EVIL, title=EVIL, note=EVIL, submitters=["Acme"],
        source_url="",
    )  # fmt: skip
    text, _ = page_for(
        [claim],
        *rows(platform=f"box {EVIL}", result_url="javascript:alert(1)"),
    )
    assert "<script>" not in text
    assert "javascript:" not in text
    assert "[x]" not in text
    assert "&lt;script&gt;alert&#40;1&#41;&lt;/script&gt;" in text
    assert "&#124;" in text
    html = markdown.markdown(text, extensions=["tables", "admonition", "attr_list"])
    assert "<script>" not in html
    assert 'href="javascript' not in html


def test_unsafe_result_url_is_shown_as_plain_text():
    text, _ = page_for([make_claim()], *rows(result_url="javascript:alert(1)"))
    assert "v6.0 Acme acme&#95;box · 8 accelerators" in text
    assert '<a href="https://example.org/k-old"' in text


def test_preview_results_carry_a_badge_and_a_caveat():
    text, _ = page_for([make_claim()], *rows(availability="preview"))
    assert "ledger-badge--preview" in text
    assert "one end is a preview submission &#40;not yet available&#41;&#58;" in text


def test_not_reproducible_claims_show_why():
    text, _ = page_for([make_claim(releases=["v6.0", "v6.1"])], *rows())
    assert 'ledger-badge--not-reproducible">not reproducible</span>' in text
    assert "no v6.1 results in the data" in text


def test_an_empty_registry_renders_a_page():
    text, _ = page_for([], *rows())
    assert "*No claims are registered yet.*" in text


def test_claims_for_release_lists_claims_that_cite_it():
    claims = [
        make_claim(id="gain"),
        make_claim(id="later", releases=["v6.0", "v6.1"], title=None),
    ]
    _, verdicts = page_for(claims, *rows())
    assert claims_for_release(verdicts, "v6.0") == [
        ("gain", "Acme 1.5x", "consistent"),
        ("later", "Acme got about 1.5x faster.", "not reproducible"),
    ]
    assert claims_for_release(verdicts, "v5.1") == [("gain", "Acme 1.5x", "consistent")]
    assert claims_for_release(verdicts, "v4.1") == []


def test_claim_anchor_is_a_slug():
    assert claim_anchor("gb300-dsr1") == "claim-gb300-dsr1"
    assert claim_anchor('x"><script>') == "claim-x---script-"


def absolute(**overrides: object) -> Claim:
    return make_claim(
        **{
            "kind": "absolute_result",
            "releases": ["v6.0"],
            "accelerators": ["nvidia-gb300"],
            "qualifier": "exactly",
            "identity_level": "best_of_any",
            **overrides,
        }
    )


def test_a_per_accelerator_claim_says_so_and_shows_the_value_per_accelerator():
    claim = absolute(figure=8064, decimals=0, per_accelerator=True)
    text, _ = page_for(
        [claim],
        row(release="v6.0", result_key="slice", accelerator_name=GB300,
            total_accelerators=8, result_value=64510.0),
    )  # fmt: skip
    assert (
        "exactly 8,064 absolute result per accelerator · llama2-70b-99 Offline "
        "(closed) · v6.0 · nvidia-gb300" in text
    )
    assert "| best&#95;of&#95;any<br><small>like-for-like</small> | " in unlabelled(
        text
    )
    assert '| <span data-label="Value"></span>8,063.8 | ' in text
    assert " · 8 accelerators · 64,510.0" in text


def test_a_figure_in_millions_is_shown_in_full_units():
    claim = absolute(figure=2490000, decimals=-4, total_accelerators=[288])
    text, _ = page_for(
        [claim],
        row(release="v6.0", result_key="four-racks", accelerator_name=GB300,
            total_accelerators=288, result_value=2494310.0),
    )  # fmt: skip
    assert "exactly 2,490,000 absolute result · llama2-70b-99 Offline" in text
    assert '| <span data-label="Value"></span>2,494,310 | ' in text
    assert "rounds and truncates to 2,490,000" in text


def _rule(selector: str) -> dict[str, str]:
    """The declarations of one CSS rule of ledger.css (fails if absent)."""
    css = CSS.read_text()
    found = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert found, f"no CSS rule for {selector}"
    pairs = (d.split(":", 1) for d in found.group(1).split(";") if ":" in d)
    return {k.strip(): v.strip() for k, v in pairs}


def _luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
              for c in channels]  # fmt: skip
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_every_verdict_badge_is_styled_distinctly_and_readably():
    colours, marks = set(), set()
    for verdict in VERDICTS:
        slug = verdict.replace(" ", "-")
        rule = _rule(f".ledger-badge--{slug}")
        # WCAG AA for small text: at least 4.5:1 between text and background.
        assert _contrast(rule["color"], rule["background"]) >= 4.5, verdict
        colours.add((rule["color"], rule["background"]))
        # Not colour alone: each verdict also carries its own mark before the word.
        marks.add(_rule(f".ledger-badge--{slug}::before")["content"])
    assert len(colours) == len(VERDICTS)
    assert len(marks) == len(VERDICTS)


def test_the_real_claims_show_source_link_quote_and_a_styled_verdict():
    claims = load_claims()
    text, verdicts = page_for(claims, *rows())
    html = markdown.markdown(text, extensions=["tables", "admonition", "attr_list"])
    for claim in claims:
        card = text.split(f"{{#claim-{claim.id}}}", 1)[1].split("\n## ", 1)[0]
        assert (
            f'- **Source:** <a href="{safe_url(claim.source_url)}">'
            f"{escape(claim.source_url)}</a>" in card
        )
        assert f"> “{escape(claim.quote)}”" in card
        verdict = verdicts.filter(pl.col("claim_id") == claim.id)["verdict"].item()
        slug = verdict.replace(" ", "-")
        assert f'<span class="ledger-badge ledger-badge--{slug}">{verdict}</span>' in (
            card
        )
        assert _rule(f".ledger-badge--{slug}")
    assert (
        '<a href="https://metropulsenews.com/?p=29955">'
        "https&#58;//metropulsenews.com/?p&#61;29955</a>" in html
    )


def test_claim_values_of_any_finite_magnitude_are_formatted_not_crashed():
    # 1e308 once crashed the Int64 cast behind fixed-point formatting.
    frame = pl.DataFrame({"v": [1.5, 1e20, 1e308]}, schema={"v": pl.Float64})
    grouped = frame.select(_fixed(pl.col("v"), 2, grouped=True))["v"].to_list()
    assert grouped == ["1.50", "1e+20", "1e+308"]
    assert frame.select(_fixed(pl.col("v"), 0))["v"].to_list() == [
        "2",
        "1e+20",
        "1e+308",
    ]


def test_a_badge_names_its_reading_and_the_strictest_value(page):
    # The verdict is carried by the system reading, the strictest one with a value.
    assert (
        '<span class="ledger-badge ledger-badge--consistent">consistent</span> under '
        "the **system** reading; strictest reading with a value (system): **1.538×**."
    ) in page


def test_a_verdict_carried_by_a_looser_reading_shows_the_strict_value_beside_it():
    # The same system got 1.2x; the best v6.0 result of that hardware (another
    # submitter's system) is 1.5x the v5.1 one. The claim is consistent under the
    # hardware reading, and the page says the strictest reading gives 1.2x.
    claim = make_claim(figure=1.5)
    text, _ = page_for(
        [claim],
        row(release="v5.1", result_key="a", result_value=100.0),
        row(release="v6.0", result_key="b", result_value=120.0),
        row(release="v6.0", result_key="c", result_value=150.0, submitter="Other",
            platform="other"),
    )  # fmt: skip
    assert (
        "consistent</span> under the **hardware** reading; strictest reading with a "
        "value (system): **1.200×**."
    ) in text
