"""Claims registry validation and evaluation, on tiny inline results."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.claims import (
    EVALUATION_SCHEMA,
    VERDICT_SCHEMA,
    claim_verdicts,
    evaluate_claims,
)
from pipeline.registry.claims import (
    Claim,
    ClaimsRegistryError,
    load_claims,
    parse_claims,
)
from tests.analysed import analyse
from tests.unit.analysis.helpers import GB300, H200, frame, one, row

ROOT = Path(__file__).resolve().parents[2]
#: Entries written by mlperf-ledger to exercise the checker; never public.
ILLUSTRATIVE = ROOT / "tests" / "fixtures" / "claims_illustrative.toml"

B200 = "NVIDIA B200-SXM-180GB"

BASE: dict[str, object] = {
    "id": "c1",
    "claimant": "Acme",
    "source_url": "",
    "date": "2026-11-29",
    "quote": "Acme got about 1.5x faster.",
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
}


def entry(**overrides: object) -> dict[str, object]:
    """A valid raw entry with overrides; an override of None removes the field."""
    raw = {**BASE, **overrides}
    return {k: v for k, v in raw.items() if v is not None}


def claim(**overrides: object) -> Claim:
    return parse_claims({"claim": [entry(**overrides)]})[0]


def evaluate(claims: list[Claim], *rows: dict[str, object]) -> pl.DataFrame:
    results = frame(*rows)
    tables = analyse(results)
    return evaluate_claims(
        claims,
        results,
        tables.software_gains,
        tables.generation_ratios,
        tables.scaling,
    )


def gain_rows(new_value: float, **new: object) -> tuple[dict, dict]:
    """The same 8-GPU H100 system in v5.1 (100) and v6.0 (``new_value``)."""
    return (
        row(release="v5.1", result_key="old", result_value=100.0),
        row(release="v6.0", result_key="new", result_value=new_value, **new),
    )


# --------------------------------------------------------------------------------------
# Registry validation
# --------------------------------------------------------------------------------------


def test_a_valid_entry_becomes_a_claim_with_tuples_and_a_date():
    c = claim(total_accelerators=[8, 8], submitters=["Acme"], note=" why ")
    assert c.releases == ("v5.1", "v6.0")
    assert c.scenarios == ("Offline",)
    assert c.total_accelerators == (8, 8)
    assert c.date.isoformat() == "2026-11-29"
    assert c.note == "why"
    assert c.stated == "about 1.5×"
    assert c.display_title == "Acme got about 1.5x faster."


def test_title_defaults_to_the_quote_cut_at_a_word():
    c = claim(quote="word " * 40)
    assert c.display_title.endswith("word…")
    assert len(c.display_title) <= 80


PREFIX = "claims.toml: [claim 1 (c1)] "


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            {"qualifier": "roughly"},
            PREFIX + "qualifier: expected one of 'up to', 'about', 'at least', "
            "'exactly', 'over', got 'roughly'",
        ),
        (
            {"id": "GB300 claim"},
            "claims.toml: [claim 1] id: expected a slug of a-z, 0-9 and '-', "
            "got 'GB300 claim'",
        ),
        ({"figure": None}, PREFIX + "figure: is required"),
        (
            {"figures": 2},
            PREFIX + "figures: unknown field (known: accelerators, benchmark, "
            "claimant, date, decimals, division, figure, id, identity_level, kind, "
            "note, per_accelerator, qualifier, quote, releases, scenarios, "
            "source_url, submitters, systems, title, total_accelerators)",
        ),
        (
            {"figure": 1.55},
            PREFIX + "figure: 1.55 has more decimals than 'decimals' = 1",
        ),
        ({"figure": -1}, PREFIX + "figure: expected a positive number, got -1"),
        ({"figure": True}, PREFIX + "figure: expected a positive number, got True"),
        (
            {"decimals": "1"},
            PREFIX + "decimals: expected a whole number from 0 to 6, got '1'",
        ),
        (
            {"kind": "speedup"},
            PREFIX + "kind: expected one of 'software_gain', 'generation_ratio', "
            "'scaling_efficiency', 'absolute_result', got 'speedup'",
        ),
        (
            {"releases": ["v6.0"]},
            PREFIX + "releases: expected a list of 2 release(s) (old, new) for a "
            "software_gain claim, got ['v6.0']",
        ),
        (
            {"releases": ["v6.0", "v5.1"]},
            PREFIX + "releases: expected releases in order (old, new), "
            "got ['v6.0', 'v5.1']",
        ),
        (
            {"releases": ["5.1", "v6.0"]},
            PREFIX + "releases: expected rounds of the form vX.Y, got ['5.1', 'v6.0']",
        ),
        (
            {"scenarios": ["offline"]},
            PREFIX + "scenarios: expected a list, each item one of 'Offline', "
            "'Server', 'SingleStream', 'MultiStream', 'Interactive' (at least one), "
            "got ['offline']",
        ),
        (
            {"scenarios": []},
            PREFIX + "scenarios: expected a list, each item one of 'Offline', "
            "'Server', 'SingleStream', 'MultiStream', 'Interactive' (at least one), "
            "got []",
        ),
        (
            {"division": "Closed"},
            PREFIX + "division: expected one of 'closed', 'open', 'network', "
            "got 'Closed'",
        ),
        (
            {"identity_level": "best_of_any"},
            PREFIX + "identity_level: expected one of 'system', 'hardware', "
            "'accelerator', 'any', got 'best_of_any'",
        ),
        (
            {"accelerators": ["nvidia-h1000"]},
            PREFIX + "accelerators: expected ids listed in accelerators.toml, "
            "got ['nvidia-h1000']",
        ),
        (
            {
                "kind": "generation_ratio",
                "releases": ["v6.0"],
                "accelerators": ["nvidia-h200-sxm"],
            },
            PREFIX + "accelerators: expected [predecessor, successor] for a "
            "generation_ratio claim, got ['nvidia-h200-sxm']",
        ),
        (
            {
                "kind": "scaling_efficiency",
                "releases": ["v6.0"],
                "figure": 96,
                "decimals": 0,
                "total_accelerators": [288, 72],
            },
            PREFIX + "total_accelerators: expected increasing counts (smaller "
            "first), got [288, 72]",
        ),
        (
            {"total_accelerators": [72]},
            PREFIX + "total_accelerators: expected 2 positive count(s) "
            "(old end, new end) for a software_gain claim, got [72]",
        ),
        (
            {"source_url": "www.example.com"},
            PREFIX + 'source_url: expected "" or an http(s) URL, '
            "got 'www.example.com'",
        ),
        (
            {"date": "2026-13-01"},
            PREFIX + "date: expected a date (YYYY-MM-DD), got '2026-13-01'",
        ),
        ({"claimant": " "}, PREFIX + "claimant: expected a non-empty string, got ' '"),
        ({"submitters": ["A", "A"]}, PREFIX + "submitters: lists 'A' twice"),
    ],
)
def test_invalid_entries_name_the_claim_and_the_field(overrides, message):
    with pytest.raises(ClaimsRegistryError) as caught:
        parse_claims({"claim": [entry(**overrides)]})
    assert str(caught.value) == message


def test_a_duplicate_id_names_both_entries():
    with pytest.raises(ClaimsRegistryError) as caught:
        parse_claims({"claim": [entry(), entry()]})
    assert str(caught.value) == (
        "claims.toml: [claim 2 (c1)] id: is listed twice (claims 1 and 2)"
    )


def test_an_unknown_top_level_key_is_rejected():
    with pytest.raises(ClaimsRegistryError) as caught:
        parse_claims({"claims": [entry()]})
    assert str(caught.value) == "claims.toml: claims: unknown field (known: claim)"


def test_load_claims_names_the_file_it_read(tmp_path):
    draft = tmp_path / "draft.toml"
    draft.write_text(
        '[[claim]]\nid = "c1"\nclaimant = "Acme"\nsource_url = ""\n'
        'date = 2026-11-29\nquote = "q"\nfigure = 1.5\ndecimals = 1\n'
        'qualifier = "roughly"\nkind = "software_gain"\n'
        'releases = ["v5.1", "v6.0"]\nbenchmark = "b"\nscenarios = ["Offline"]\n'
        'division = "closed"\nidentity_level = "any"\n'
    )
    with pytest.raises(ClaimsRegistryError) as caught:
        load_claims(draft)
    assert str(caught.value) == (
        "draft.toml: [claim 1 (c1)] qualifier: expected one of 'up to', 'about', "
        "'at least', 'exactly', 'over', got 'roughly'"
    )


def test_load_claims_reports_broken_toml_with_the_file_name(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("[[claim]\n")
    with pytest.raises(ClaimsRegistryError) as caught:
        load_claims(broken)
    assert str(caught.value) == (
        "broken.toml: line 1, column 8: not valid TOML: Expected ']]' at the end of "
        "an array declaration"
    )


def test_the_public_registry_holds_only_sourced_vendor_claims():
    claims = load_claims()
    illustrative = [c.id for c in claims if "illustrative" in c.claimant.lower()]
    assert illustrative == []
    assert [c.id for c in claims if not c.source_url.startswith("https://")] == []
    assert {c.claimant for c in claims} == {"NVIDIA"}


def test_the_illustrative_fixture_covers_every_kind_and_stays_unsourced():
    claims = load_claims(ILLUSTRATIVE)
    assert len(claims) == 8
    assert {c.kind for c in claims} == {
        "software_gain",
        "generation_ratio",
        "scaling_efficiency",
        "absolute_result",
    }
    assert {c.claimant for c in claims} == {"illustrative (mlperf-ledger)"}
    assert {c.source_url for c in claims} == {""}
    assert all(
        c.note.startswith("Illustrative test entry written by mlperf-ledger")
        for c in claims
    )


def test_decimals_below_zero_only_for_absolute_results():
    with pytest.raises(ClaimsRegistryError) as caught:
        claim(figure=2490000, decimals=-4)
    assert str(caught.value) == (
        PREFIX + "decimals: expected a whole number from 0 to 6, got -4"
    )
    with pytest.raises(ClaimsRegistryError) as caught:
        absolute_claim(decimals=-7)
    assert str(caught.value) == (
        PREFIX + "decimals: expected a whole number from -6 to 6, got -7"
    )
    with pytest.raises(ClaimsRegistryError) as caught:
        absolute_claim(figure=2494310, decimals=-4)
    assert str(caught.value) == (
        PREFIX + "figure: 2494310 is stated more precisely than 'decimals' = -4 "
        "(a multiple of 10000)"
    )
    c = absolute_claim(figure=2490000, decimals=-4)
    assert (c.decimals, c.figure_text, c.stated) == (-4, "2,490,000", "over 2,490,000")


def test_per_accelerator_is_a_flag_of_absolute_results_only():
    assert absolute_claim(per_accelerator=True).per_accelerator is True
    assert absolute_claim().per_accelerator is False
    with pytest.raises(ClaimsRegistryError) as caught:
        absolute_claim(per_accelerator="yes")
    assert str(caught.value) == (
        PREFIX + "per_accelerator: expected true or false, got 'yes'"
    )
    with pytest.raises(ClaimsRegistryError) as caught:
        claim(per_accelerator=True)
    assert str(caught.value) == (
        PREFIX + "per_accelerator: only absolute_result claims take it; the ratio "
        "kinds are read per accelerator in their own readings"
    )


# --------------------------------------------------------------------------------------
# Rounding rules
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("qualifier", "new_value", "verdict", "match_rule", "reason"),
    [
        ("about", 153.8, "consistent", "rounded",
         "consistent when rounded (1.538× rounds to 1.5×)"),
        ("about", 146.0, "consistent", "rounded",
         "consistent when rounded (1.460× rounds to 1.5×)"),
        ("about", 155.0, "inconsistent", None,
         "inconsistent: 1.550× rounds to 1.6×, not 1.5×; it truncates to 1.5×, "
         "but 'about' means rounded"),
        # Half to even: 1.45 rounds to 1.4, so "about 1.5x" does not hold.
        ("about", 145.0, "inconsistent", None,
         "inconsistent: 1.450× rounds to 1.4×, not 1.5×"),
        ("up to", 155.0, "consistent", "truncated",
         "consistent when truncated (1.550× truncates to 1.5×; it rounds to 1.6×)"),
        ("exactly", 155.0, "consistent", "truncated",
         "consistent when truncated (1.550× truncates to 1.5×; it rounds to 1.6×)"),
        ("exactly", 153.8, "consistent", "rounded and truncated",
         "consistent when rounded and when truncated (1.538× rounds and truncates "
         "to 1.5×)"),
        ("up to", 145.0, "inconsistent", None,
         "inconsistent: 1.450× neither rounds nor truncates to 1.5× (rounds to "
         "1.4×, truncates to 1.4×)"),
        ("at least", 149.8, "inconsistent", None, "inconsistent: 1.498× < 1.5×"),
        ("at least", 150.0, "consistent", "at least", "consistent: 1.500× ≥ 1.5×"),
        ("over", 170.0, "consistent", "at least", "consistent: 1.700× ≥ 1.5×"),
    ],
)  # fmt: skip
def test_rounding_rules(qualifier, new_value, verdict, match_rule, reason):
    c = claim(qualifier=qualifier, identity_level="system")
    out = one(evaluate([c], *gain_rows(new_value)))
    assert out["value"] == pytest.approx(new_value / 100)
    assert (out["verdict"], out["match_rule"], out["reason"]) == (
        verdict,
        match_rule,
        reason,
    )


def test_truncation_is_not_fooled_by_binary_floating_point():
    # 29 / 100 * 100 is 28.999999999999996 in binary: it still truncates to 0.29.
    c = claim(qualifier="exactly", figure=0.29, decimals=2, identity_level="system")
    out = one(evaluate([c], *gain_rows(29.0)))
    assert out["match_rule"] == "rounded and truncated"
    assert out["reason"] == (
        "consistent when rounded and when truncated (0.2900× rounds and truncates "
        "to 0.29×)"
    )


def two_scenarios() -> list[dict]:
    return [
        row(release="v5.1", scenario="Offline", result_value=100.0),
        row(release="v6.0", scenario="Offline", result_value=153.8),
        row(release="v5.1", scenario="Server", result_value=100.0),
        row(release="v6.0", scenario="Server", result_value=191.3),
    ]


def test_up_to_takes_the_maximum_over_the_named_scenarios():
    c = claim(
        qualifier="up to", figure=1.9, scenarios=["Offline", "Server"],
        identity_level="system",
    )  # fmt: skip
    out = one(evaluate([c], *two_scenarios()))
    assert out["verdict"] == "consistent"
    assert (out["scenario"], out["matches"]) == ("Server", 2)
    assert out["value"] == pytest.approx(1.913)
    assert out["reason"] == (
        "maximum of 2 matching pairs (Offline, Server) is Server: consistent when "
        "rounded and when truncated (1.913× rounds and truncates to 1.9×)"
    )


def test_up_to_is_inconsistent_when_the_maximum_is_another_figure():
    c = claim(
        qualifier="up to", figure=1.5, scenarios=["Offline", "Server"],
        identity_level="system",
    )  # fmt: skip
    out = one(evaluate([c], *two_scenarios()))
    assert out["verdict"] == "inconsistent"
    assert out["reason"] == (
        "maximum of 2 matching pairs (Offline, Server) is Server: inconsistent: "
        "1.913× neither rounds nor truncates to 1.5× (rounds to 1.9×, truncates "
        "to 1.9×)"
    )


def test_up_to_also_takes_the_maximum_over_systems():
    rows = [
        *gain_rows(153.8),
        row(release="v5.1", submitter="Beta", platform="beta", result_value=100.0),
        row(release="v6.0", submitter="Beta", platform="beta", result_value=191.3),
    ]
    c = claim(qualifier="up to", figure=1.9, identity_level="system")
    out = one(evaluate([c], *rows))
    assert (out["verdict"], out["submitter_new"], out["matches"]) == (
        "consistent",
        "Beta",
        2,
    )


def test_at_least_holds_for_every_scenario_so_it_takes_the_minimum():
    c = claim(
        qualifier="at least", scenarios=["Offline", "Server"], identity_level="system"
    )
    out = one(evaluate([c], *two_scenarios()))
    assert (out["verdict"], out["scenario"]) == ("consistent", "Offline")
    assert out["reason"] == (
        "minimum of 2 matching pairs (Offline, Server) is Offline: consistent: "
        "1.538× ≥ 1.5×"
    )


def test_about_needs_every_named_scenario_to_agree():
    c = claim(scenarios=["Offline", "Server"], identity_level="system")
    out = one(evaluate([c], *two_scenarios()))
    assert (out["verdict"], out["scenario"]) == ("inconsistent", "Server")
    assert out["reason"] == (
        "1 of 2 matching pairs (Offline, Server) disagree, e.g. Server: "
        "inconsistent: 1.913× rounds to 1.9×, not 1.5×"
    )


# --------------------------------------------------------------------------------------
# Readings
# --------------------------------------------------------------------------------------


def test_output_conforms_exactly_to_the_evaluation_schema():
    out = evaluate([claim()], *gain_rows(153.8))
    assert out.schema == pl.Schema(EVALUATION_SCHEMA)
    empty = evaluate([], *gain_rows(153.8))
    assert empty.schema == pl.Schema(EVALUATION_SCHEMA)
    assert empty.height == 0


def test_a_software_gain_is_read_at_every_identity_level():
    out = evaluate([claim(total_accelerators=[8, 8])], *gain_rows(153.8))
    assert out["reading"].to_list() == [
        "system",
        "hardware",
        "accelerator (normalised per accelerator)",
    ]
    system = one(out, reading="system")
    assert (system["result_key_old"], system["result_key_new"]) == ("old", "new")
    assert (system["release_old"], system["release_new"]) == ("v5.1", "v6.0")
    assert (system["total_accelerators_old"], system["total_accelerators_new"]) == (
        8,
        8,
    )
    assert system["result_url_new"] == "https://example.org/new"
    assert system["releases"] == ["v5.1", "v6.0"]
    assert system["is_per_accelerator"] is False
    assert one(out, reading="accelerator (normalised per accelerator)")[
        "is_per_accelerator"
    ]


def test_identity_level_restricts_the_readings():
    out = evaluate([claim(identity_level="hardware")], *gain_rows(153.8))
    assert out["reading"].to_list() == ["hardware"]


def test_own_system_versus_best_of_any_submitter():
    rows = [
        *gain_rows(150.0),
        row(release="v6.0", submitter="Beta", platform="beta", result_value=160.0),
    ]
    out = evaluate([claim(submitters=["Acme"], total_accelerators=[8, 8])], *rows)
    system = one(out, reading="system")
    assert (system["verdict"], system["submitter_new"]) == ("consistent", "Acme")
    assert system["caveats"] == []
    hardware = one(out, reading="hardware")
    assert (hardware["verdict"], hardware["submitter_new"]) == ("inconsistent", "Beta")
    assert hardware["value"] == pytest.approx(1.6)
    assert hardware["caveats"] == [
        "uses another submitter's result: Beta in v6.0 (the claim names Acme)"
    ]


def test_a_claim_that_holds_only_per_accelerator_says_so():
    rows = [
        row(release="v5.1", result_key="old8", result_value=800.0),
        row(release="v6.0", result_key="new8", result_value=1200.0),
        row(release="v6.0", result_key="new2", submitter="Beta", platform="beta",
            result_value=400.0, total_accelerators=2),
    ]  # fmt: skip
    c = claim(figure=2.0, total_accelerators=[8, 8])
    out = evaluate([c], *rows)
    assert one(out, reading="system")["verdict"] == "inconsistent"
    assert one(out, reading="hardware")["verdict"] == "inconsistent"
    per = one(out, reading="accelerator (normalised per accelerator)")
    assert (per["verdict"], per["value"]) == ("consistent", pytest.approx(2.0))
    assert (per["result_key_old"], per["result_key_new"]) == ("old8", "new2")
    assert (per["grade"], per["mixes"]) == (
        "loose",
        ["per accelerator, 8 vs 2 accelerators", "different submitters"],
    )
    assert per["caveats"] == [
        "holds only in a loose reading: per accelerator, 8 vs 2 accelerators, "
        "different submitters; the claim names 8 → 8"
    ]
    verdict = one(claim_verdicts(out))
    # Not green: no like-for-like reading supports the claim.
    assert verdict["verdict"] == "holds only in a loose reading"
    assert verdict["is_per_accelerator_only"] is True
    assert verdict["loose_reading"] == (
        "accelerator (normalised per accelerator) (per accelerator, 8 vs 2 "
        "accelerators, different submitters)"
    )
    assert verdict["summary"] == (
        "holds only in a loose reading: accelerator (normalised per accelerator) "
        "(per accelerator, 8 vs 2 accelerators, different submitters); "
        "like-for-like: system inconsistent; hardware inconsistent"
    )


def test_a_per_accelerator_reading_is_labelled_even_when_others_hold():
    out = evaluate([claim()], *gain_rows(153.8))
    per = one(out, reading="accelerator (normalised per accelerator)")
    assert per["caveats"] == [
        "compared per accelerator: 8-accelerator result in v5.1 vs 8-accelerator "
        "result in v6.0"
    ]


def test_preview_and_inferred_ends_are_caveats_and_flags():
    rows = gain_rows(153.8, availability="preview", is_inferred=True)
    out = one(evaluate([claim(identity_level="system")], *rows))
    assert (out["is_preview_new"], out["is_inferred_new"]) == (True, True)
    assert out["availability_new"] == "preview"
    assert out["caveats"] == [
        "one end is a preview submission (not yet available): v6.0 Acme acme_box",
        "one end is inferred from another scenario's run: v6.0 Acme acme_box",
    ]
    marked = gain_rows(153.8, is_inferred_unverified=True)
    out = one(evaluate([claim(identity_level="system")], *marked))
    assert out["caveats"] == [
        "one end is marked inferred upstream, a mark its checker also gives measured "
        "results: v6.0 Acme acme_box",
    ]
    both = [
        row(release="v5.1", result_value=100.0, availability="preview"),
        row(release="v6.0", result_value=153.8, availability="preview"),
    ]
    out = one(evaluate([claim(identity_level="system")], *both))
    assert out["caveats"] == ["both ends are preview submissions (not yet available)"]


def generation_rows() -> list[dict]:
    return [
        row(release="v6.0", result_key="h100", result_value=100.0),
        row(release="v6.0", result_key="h200", accelerator_name=H200,
            result_value=180.0),
        row(release="v6.0", result_key="beta-h200", submitter="Beta",
            platform="beta", accelerator_name=H200, result_value=200.0),
    ]  # fmt: skip


def generation_claim(**overrides: object) -> Claim:
    return claim(
        **{
            "kind": "generation_ratio",
            "releases": ["v6.0"],
            "accelerators": ["nvidia-h100-sxm", "nvidia-h200-sxm"],
            "figure": 1.8,
            "submitters": ["Acme"],
            "total_accelerators": [8, 8],
            **overrides,
        }
    )


def test_generation_ratio_same_submitter_and_best_of_any():
    out = evaluate([generation_claim()], *generation_rows())
    assert out["reading"].to_list() == [
        "same_submitter",
        "best_of_any",
        "same_submitter (normalised per accelerator)",
        "best_of_any (normalised per accelerator)",
    ]
    own = one(out, reading="same_submitter")
    assert (own["verdict"], own["value"]) == ("consistent", pytest.approx(1.8))
    assert (own["result_key_old"], own["result_key_new"]) == ("h100", "h200")
    assert (own["accelerator_id_old"], own["accelerator_id_new"]) == (
        "nvidia-h100-sxm",
        "nvidia-h200-sxm",
    )
    best = one(out, reading="best_of_any")
    assert (best["verdict"], best["value"]) == ("inconsistent", pytest.approx(2.0))
    assert best["result_key_new"] == "beta-h200"
    verdict = one(claim_verdicts(out))
    assert verdict["matching_readings"] == [
        "same_submitter",
        "same_submitter (normalised per accelerator)",
    ]
    assert verdict["is_per_accelerator_only"] is False


def test_generation_ratio_needs_the_registered_predecessor():
    c = generation_claim(accelerators=["nvidia-h100-sxm", "nvidia-b200-sxm"])
    out = evaluate([c], *generation_rows(), row(release="v6.0", accelerator_name=B200))
    assert set(out["verdict"]) == {"not reproducible"}
    assert one(out, reading="same_submitter")["reason"] == (
        "not reproducible: the accelerator registry lists nvidia-h200-sxm as the "
        "predecessor of nvidia-b200-sxm, not nvidia-h100-sxm; generation ratios only "
        "compare an accelerator with its registered predecessor"
    )


def test_generation_ratio_at_different_counts_is_only_read_per_accelerator():
    out = evaluate([generation_claim(total_accelerators=[8, 16])], *generation_rows())
    assert one(out, reading="same_submitter")["reason"] == (
        "not reproducible: this reading compares equal accelerator counts at both "
        "ends; the claim compares 8 with 16"
    )
    per = one(out, reading="same_submitter (normalised per accelerator)")
    assert per["verdict"] == "consistent"


def scaling_rows() -> list[dict]:
    base = {"release": "v6.0", "accelerator_name": GB300}
    return [
        row(**base, result_key="a72", platform="acme_x1", total_accelerators=72,
            nodes=18, result_value=1000.0),
        row(**base, result_key="a288", platform="acme_x4", total_accelerators=288,
            nodes=72, result_value=3900.0),
        row(**base, result_key="b72", submitter="Beta", platform="beta",
            total_accelerators=72, nodes=18, result_value=1100.0),
    ]  # fmt: skip


def scaling_claim(**overrides: object) -> Claim:
    return claim(
        **{
            "kind": "scaling_efficiency",
            "releases": ["v6.0"],
            "accelerators": ["nvidia-gb300"],
            "figure": 96,
            "decimals": 0,
            "qualifier": "over",
            "submitters": ["Acme"],
            "total_accelerators": [72, 288],
            **overrides,
        }
    )


def test_scaling_efficiency_is_in_percent_of_linear():
    out = evaluate([scaling_claim()], *scaling_rows())
    own = one(out, reading="same_submitter")
    assert own["value"] == pytest.approx(3900 / 1000 / 4 * 100)
    assert (own["verdict"], own["reason"]) == (
        "consistent",
        "consistent: 97.50% ≥ 96%",
    )
    assert (own["result_key_old"], own["result_key_new"]) == ("a72", "a288")
    best = one(out, reading="best_of_any")
    assert best["value"] == pytest.approx(3900 / 1100 / 4 * 100)
    assert (best["verdict"], best["reason"]) == (
        "inconsistent",
        "inconsistent: 88.64% < 96%",
    )


def test_no_result_at_that_scale_is_not_reproducible():
    out = evaluate([scaling_claim(total_accelerators=[72, 576])], *scaling_rows())
    assert set(out["verdict"]) == {"not reproducible"}
    assert one(out, reading="same_submitter")["reason"] == (
        "not reproducible: no result at that scale: Acme llama2-70b-99 Offline "
        "(closed) results on nvidia-gb300 in v6.0 have 72, 288 accelerators, not 576"
    )
    assert one(out, reading="best_of_any")["reason"] == (
        "not reproducible: no result at that scale: llama2-70b-99 Offline (closed) "
        "results on nvidia-gb300 in v6.0 have 72, 288 accelerators, not 576"
    )
    verdict = one(claim_verdicts(out))
    assert verdict["verdict"] == "not reproducible"
    assert verdict["summary"] == one(out, reading="same_submitter")["reason"]


def test_missing_release_and_missing_submitter_are_named():
    out = evaluate([claim(releases=["v6.0", "v6.1"])], *gain_rows(153.8))
    assert one(out, reading="hardware")["reason"] == (
        "not reproducible: no v6.1 results in the data"
    )
    out = evaluate([claim(submitters=["Zeta"])], *gain_rows(153.8))
    assert one(out, reading="system")["reason"] == (
        "not reproducible: no results from Zeta for llama2-70b-99 Offline (closed) "
        "in v5.1 on nvidia-h100-sxm"
    )
    assert one(out, reading="hardware")["verdict"] == "consistent"


def test_a_pair_the_analysis_excluded_is_explained():
    # Same platform, but its accelerator count changed: no system-level pair.
    rows = [
        row(release="v5.1", result_value=100.0),
        row(release="v6.0", result_value=300.0, total_accelerators=16, nodes=2),
    ]
    out = one(evaluate([claim(identity_level="system")], *rows))
    assert out["verdict"] == "not reproducible"
    assert out["reason"] == (
        "not reproducible: results exist at both ends, but the software gains table "
        "has no system pair of them: the analysis left it out (not comparable, or "
        "outside its scope; see its exclusions)"
    )


def absolute_claim(**overrides: object) -> Claim:
    return claim(
        **{
            "kind": "absolute_result",
            "releases": ["v6.1"],
            "accelerators": ["nvidia-gb300"],
            "figure": 2700000,
            "decimals": 0,
            "qualifier": "over",
            "submitters": ["Acme"],
            "total_accelerators": [288],
            **overrides,
        }
    )


def test_absolute_result_own_and_best_of_any():
    base = {"release": "v6.1", "accelerator_name": GB300, "total_accelerators": 288}
    rows = [
        row(**base, result_key="acme", result_value=2705130.0),
        row(**base, result_key="beta", submitter="Beta", platform="beta",
            result_value=2800000.0),
        row(**{**base, "total_accelerators": 72}, result_key="acme-small",
            result_value=700000.0),
    ]  # fmt: skip
    out = evaluate([absolute_claim()], *rows)
    own = one(out, reading="same_submitter")
    assert (own["verdict"], own["reason"]) == (
        "consistent",
        "consistent: 2,705,130.0 ≥ 2,700,000",
    )
    assert (own["result_key_old"], own["result_key_new"]) == (None, "acme")
    assert own["total_accelerators_new"] == 288
    best = one(out, reading="best_of_any")
    assert (best["value"], best["result_key_new"]) == (2800000.0, "beta")
    assert best["caveats"] == [
        "uses another submitter's result: Beta in v6.1 (the claim names Acme)"
    ]


def test_absolute_claims_on_latency_are_not_reproducible():
    rows = [
        row(release="v6.1", scenario="SingleStream", result_unit="Latency (ms)",
            result_value=20.0),
    ]  # fmt: skip
    c = absolute_claim(
        accelerators=["nvidia-h100-sxm"], total_accelerators=[8],
        scenarios=["SingleStream"], figure=25, qualifier="up to",
    )  # fmt: skip
    out = evaluate([c], *rows)
    assert one(out, reading="best_of_any")["reason"] == (
        "not reproducible: llama2-70b-99 SingleStream (closed) results in v6.1 are "
        "latencies; absolute claims are checked on throughput unless stated exactly "
        "or about"
    )


def test_an_exact_latency_claim_is_checked_on_the_lowest_latency():
    # NVIDIA's v6.0 table: Wan 2.2 "21 secs" per request (SingleStream).
    rows = [
        row(release="v6.1", scenario="SingleStream", result_unit="Latency (ms)",
            result_value=40243.7, result_key="slow"),
        row(release="v6.1", scenario="SingleStream", result_unit="Latency (ms)",
            result_value=21034.0, result_key="fast", submitter="Beta"),
    ]  # fmt: skip
    c = absolute_claim(
        accelerators=["nvidia-h100-sxm"], scenarios=["SingleStream"],
        figure=21000, decimals=-3, qualifier="exactly", total_accelerators=[8],
    )  # fmt: skip
    best = one(evaluate([c], *rows), reading="best_of_any")
    assert (best["verdict"], best["result_key_new"]) == ("consistent", "fast")


# --------------------------------------------------------------------------------------
# Per-claim verdicts
# --------------------------------------------------------------------------------------


def test_claim_verdicts_one_row_per_claim_in_registry_order():
    claims = [
        claim(id="ok", total_accelerators=[8, 8]),
        claim(id="false", figure=3.0),
        claim(id="missing", releases=["v6.0", "v6.1"]),
    ]
    verdicts = claim_verdicts(evaluate(claims, *gain_rows(153.8)))
    assert verdicts.schema == pl.Schema(VERDICT_SCHEMA)
    assert verdicts["claim_id"].to_list() == ["ok", "false", "missing"]
    assert verdicts["verdict"].to_list() == [
        "consistent",
        "inconsistent",
        "not reproducible",
    ]
    assert verdicts["summary"].to_list() == [
        "consistent in 3 of 3 readings: system, hardware, accelerator (normalised "
        "per accelerator)",
        "inconsistent in every reproducible reading (3 of 3 readings)",
        "not reproducible: no v6.1 results in the data",
    ]
    assert one(verdicts, claim_id="ok")["releases"] == ["v5.1", "v6.0"]
    assert one(verdicts, claim_id="false")["matching_readings"] == []


# --------------------------------------------------------------------------------------
# Absolute results stated in millions, and per accelerator
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("qualifier", "figure", "value", "verdict", "reason"),
    [
        ("exactly", 2490000, 2494310.0, "consistent",
         "consistent when rounded and when truncated (2,494,310 rounds and "
         "truncates to 2,490,000)"),
        # Half to even at the ten-thousands: 2,495,000 rounds up to 2,500,000.
        ("about", 2490000, 2495000.0, "inconsistent",
         "inconsistent: 2,495,000 rounds to 2,500,000, not 2,490,000; it truncates "
         "to 2,490,000, but 'about' means rounded"),
        ("about", 2480000, 2485000.0, "consistent",
         "consistent when rounded (2,485,000 rounds to 2,480,000)"),
        ("exactly", 2490000, 2480000.0, "inconsistent",
         "inconsistent: 2,480,000 neither rounds nor truncates to 2,490,000 "
         "(rounds to 2,480,000, truncates to 2,480,000)"),
    ],
)  # fmt: skip
def test_a_figure_in_millions_is_matched_to_its_stated_precision(
    qualifier, figure, value, verdict, reason
):
    c = absolute_claim(
        figure=figure, decimals=-4, qualifier=qualifier, identity_level="best_of_any"
    )
    base = {"release": "v6.1", "accelerator_name": GB300, "total_accelerators": 288}
    out = one(evaluate([c], row(**base, result_key="r", result_value=value)))
    assert (out["verdict"], out["value"], out["reason"]) == (verdict, value, reason)


def per_gpu_rows() -> list[dict]:
    """Acme's 72-GPU rack and Beta's 8-GPU slice: Beta is best per GPU, Acme in total."""
    base = {"release": "v6.0", "accelerator_name": GB300, "scenario": "Server"}
    return [
        row(**base, result_key="acme72", platform="rack", total_accelerators=72,
            nodes=18, result_value=400437.0),
        row(**base, result_key="beta8", submitter="Beta", platform="slice",
            total_accelerators=8, nodes=2, result_value=64510.0),
    ]  # fmt: skip


def test_an_absolute_claim_per_accelerator_divides_by_each_results_count():
    c = absolute_claim(
        releases=["v6.0"], scenarios=["Server"], figure=8064, qualifier="exactly",
        total_accelerators=None, per_accelerator=True,
    )  # fmt: skip
    out = evaluate([c], *per_gpu_rows())
    own = one(out, reading="same_submitter")
    assert (own["verdict"], own["value"], own["result_key_new"]) == (
        "inconsistent",
        400437.0 / 72,
        "acme72",
    )
    assert own["reason"] == (
        "inconsistent: 5,561.6 neither rounds nor truncates to 8,064 (rounds to "
        "5,562, truncates to 5,561)"
    )
    best = one(out, reading="best_of_any")
    assert (best["verdict"], best["value"], best["result_key_new"]) == (
        "consistent",
        64510.0 / 8,
        "beta8",
    )
    assert best["reason"] == (
        "consistent when rounded (8,063.8 rounds to 8,064; it truncates to 8,063)"
    )
    assert best["caveats"] == [
        "holds only in a loose reading: another submitter's result (Beta)",
        "uses another submitter's result: Beta in v6.0 (the claim names Acme)",
    ]
    verdict = one(claim_verdicts(out))
    assert verdict["verdict"] == "holds only in a loose reading"
    assert verdict["is_per_accelerator_only"] is False


def test_a_per_accelerator_claim_at_a_stated_count_keeps_that_count():
    c = absolute_claim(
        releases=["v6.0"], scenarios=["Server"], figure=8064, qualifier="exactly",
        total_accelerators=[72], per_accelerator=True, identity_level="best_of_any",
    )  # fmt: skip
    out = one(evaluate([c], *per_gpu_rows()))
    assert (out["verdict"], out["result_key_new"]) == ("inconsistent", "acme72")


def test_a_per_accelerator_claim_without_per_accelerator_values_says_why():
    c = absolute_claim(
        releases=["v6.0"], figure=8064, qualifier="exactly", total_accelerators=None,
        per_accelerator=True, identity_level="best_of_any",
    )  # fmt: skip
    rows = [
        row(release="v6.0", accelerator_name=GB300, total_accelerators=None,
            nodes=None, result_value=400437.0),
    ]  # fmt: skip
    out = one(evaluate([c], *rows))
    assert out["verdict"] == "not reproducible"
    assert out["reason"] == (
        "not reproducible: llama2-70b-99 Offline (closed) results on nvidia-gb300 in "
        "v6.0 have no per-accelerator value (mixed accelerators or no accelerator "
        "count)"
    )


# --------------------------------------------------------------------------------------
# Strict by default: a claim is consistent only in a like-for-like reading
# --------------------------------------------------------------------------------------


def test_a_claim_that_holds_across_a_precision_change_is_not_consistent():
    old, new = gain_rows(153.8, weight_data_types="fp8")
    out = evaluate([claim()], old | {"weight_data_types": "fp16"}, new)
    system = one(out, reading="system")
    assert (system["verdict"], system["grade"], system["mixes"]) == (
        "consistent",
        "loose",
        ["weights fp16 → fp8"],
    )
    verdict = one(claim_verdicts(out))
    assert verdict["verdict"] == "holds only in a loose reading"
    assert verdict["loose_reading"] == "system (weights fp16 → fp8)"


@pytest.mark.parametrize("old_types", ["fp8", "FP8", "UNSET", None])
def test_equal_or_undeclared_precision_stays_like_for_like(old_types):
    old, new = gain_rows(153.8, weight_data_types="fp8")
    out = evaluate([claim()], old | {"weight_data_types": old_types}, new)
    assert one(out, reading="system")["grade"] == "like-for-like"
    verdict = one(claim_verdicts(out))
    assert (verdict["verdict"], verdict["loose_reading"]) == ("consistent", None)


def test_a_best_of_any_generation_ratio_across_submitters_is_loose():
    c = claim(
        kind="generation_ratio", releases=["v6.0"], figure=2.0,
        accelerators=["nvidia-h200-sxm", "nvidia-b200-sxm"],
    )  # fmt: skip
    out = evaluate(
        [c],
        row(release="v6.0", result_key="h200", accelerator_name=H200,
            result_value=100.0),
        row(release="v6.0", result_key="b200", accelerator_name=B200,
            result_value=150.0),
        row(release="v6.0", result_key="b200-other", accelerator_name=B200,
            submitter="Other", platform="other", result_value=200.0),
    )  # fmt: skip
    own = one(out, reading="same_submitter")
    assert (own["verdict"], own["grade"]) == ("inconsistent", "like-for-like")
    best = one(out, reading="best_of_any")
    assert (best["verdict"], best["grade"], best["mixes"]) == (
        "consistent",
        "loose",
        ["different submitters"],
    )
    verdict = one(claim_verdicts(out))
    assert verdict["verdict"] == "holds only in a loose reading"
    assert verdict["summary"] == (
        "holds only in a loose reading: best_of_any (different submitters); "
        "like-for-like: same_submitter inconsistent; same_submitter (normalised per "
        "accelerator) inconsistent"
    )
