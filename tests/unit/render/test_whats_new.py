"""The "What's new" section: the newest round's comparisons on Home and Latest."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from pipeline.render.pages import render_site
from pipeline.render.site_data import SiteData


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, site_data: SiteData) -> Path:
    out = tmp_path_factory.mktemp("whats-new") / "generated"
    render_site(site_data, out, bundle=False)
    return out


def _section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n### ", 1)[0]


def test_home_opens_with_the_newest_rounds_successor_over_predecessor(
    site: Path,
) -> None:
    home = (site / "partials" / "home.md").read_text()
    # Before the derived-metrics headlines: no click needed.
    assert home.index("## What's new in v6.0") < home.index("## Derived metrics")
    part = _section(home, "### New accelerators against their predecessors in v6.0")
    # The MI325X is new in v6.0 and its pair with the MI300X has a preview end: a
    # label, shown with its badge, not a reason to leave the pair out.
    assert "New in v6.0: AMD Instinct MI325X" in part
    assert "1.18×" in part
    assert 'ledger-badge--label">preview end</span>' in part
    assert 'data-spec="generated/charts/home-whats-new-successors.json"' in part
    latest = (site / "latest.md").read_text()
    assert "## What's new in v6.0" in latest
    assert "latest-whats-new-successors.json" in latest


def test_a_warned_pair_is_left_out_of_whats_new(
    tmp_path: Path, site_data: SiteData
) -> None:
    warned = site_data.generations.with_columns(
        flags=pl.lit(["outlier_end"], dtype=pl.List(pl.String)),
        flag_reasons=pl.lit("an end is far off its class"),
    )
    out = tmp_path / "generated"
    render_site(
        SiteData(**{**site_data.__dict__, "generations": warned}), out, bundle=False
    )
    home = (out / "partials" / "home.md").read_text()
    part = _section(home, "### New accelerators against their predecessors in v6.0")
    assert "was measured at the same scale as its registered predecessor" in part
    assert "1.18×" not in part
