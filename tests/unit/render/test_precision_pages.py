"""Weight precision on the pair pages: both ends' precisions, the change badged, apart."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pipeline.render.pages import render_site
from pipeline.render.site_data import SiteData
from tests.unit.render.conftest import AMD_V51, AMD_V60, pair, pairs, unlabelled

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, site_data: SiteData) -> str:
    """llama2-70b-99's software gains: one pair in fp8 at both ends, one fp16 → fp8."""
    same = pair(
        AMD_V51 | {"weight_data_types": "FP8", "weight_precision": "fp8"},
        AMD_V60 | {"weight_data_types": "fp8", "weight_precision": "fp8"},
        flags=[],
    )
    changed = pair(
        AMD_V51 | {"weight_data_types": "fp16", "weight_precision": "fp16"},
        AMD_V60
        | {
            "weight_data_types": "fp8",
            "weight_precision": "fp8",
            "result_key": "6.0-0009:llama2-70b-99:Offline",
            "result_value": 41000.0,
        },
        ratio=41000.0 / 27803.9,
        precision_change="fp16 → fp8",
        flags=["precision_change"],
        flag_reasons="the weight precision changed between the rounds (fp16 → fp8)",
    )
    out = tmp_path_factory.mktemp("render") / "generated"
    render_site(replace(site_data, gains=pairs(same, changed)), out, bundle=False)
    return unlabelled((out / "software-gains" / "llama2-70b-99.md").read_text())


def test_both_ends_show_their_weight_precision_and_the_declared_text(page: str) -> None:
    same_row = next(line for line in page.splitlines() if ">1.25×<" in line)
    assert "1 node · weights fp8</summary>" in same_row
    assert "weight data types as declared: FP8<br>" in same_row
    assert "ledger-badge" not in same_row


def test_a_precision_change_is_badged_and_listed_apart(page: str) -> None:
    heading = "### With a weight-precision change: not software alone"
    before, after = page.split(heading)
    assert ">1.25×<" in before and ">1.47×<" not in before
    changed_row = next(line for line in after.splitlines() if ">1.47×<" in line)
    assert (
        '<span class="ledger-badge ledger-badge--flag" title="weight precision of the '
        'older → newer end">fp16 → fp8</span>'
    ) in changed_row
    # The change is its own badge, not a second "precision change" flag badge.
    assert "precision change</span>" not in changed_row
