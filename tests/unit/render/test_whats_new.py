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


def test_sections_pick_what_they_say_they_pick(
    tmp_path: Path, site_data: SiteData
) -> None:
    from tests.unit.render.conftest import (
        AMD_V51,
        AMD_V60,
        H100_V51,
        MI325X_V60,
        pair,
        pairs,
    )

    def h100(release: str, chips: int, value: float, key: str) -> dict:
        return H100_V51 | {
            "release": release, "total_accelerators": chips, "result_value": value,
            "result_key": key, "nodes": chips // 8,
        }  # fmt: skip

    generation = {"kind": "generation_ratio", "identity_level": "same_submitter"}
    generations = pairs(
        pair(AMD_V60, MI325X_V60, **generation, ratio=1.18),
        # Another submitter's own pair of the same chips: shown too.
        pair(
            AMD_V60 | {"result_key": "gamma-old", "submitter": "Gamma"},
            MI325X_V60 | {"result_key": "gamma-new", "submitter": "Gamma"},
            **generation,
            ratio=1.09,
        ),
        # Another submitter's best on the new chip: a looser reading, not what's new.
        pair(
            AMD_V60,
            MI325X_V60 | {"result_key": "beta", "submitter": "Beta"},
            kind="generation_ratio",
            identity_level="best_of_any",
            ratio=1.47,
        ),
        # The same chips normalised per accelerator: not "at the same scale".
        pair(
            AMD_V60,
            MI325X_V60 | {"result_key": "pa", "total_accelerators": 16},
            **generation,
            ratio=2.5,
            is_per_accelerator=True,
        ),
        # MI300X is not new in v6.0: Home sends its pair to Latest.
        pair(H100_V51 | {"release": "v6.0"}, AMD_V60, **generation, ratio=1.12),
    )
    scaling = {"kind": "scaling", "identity_level": "same_submitter"}
    steps = pairs(
        pair(h100("v6.0", 8, 100.0, "s8"), h100("v6.0", 16, 190.0, "s16"),
             **scaling, ratio=1.9, efficiency=0.95),
        pair(h100("v6.0", 16, 190.0, "s16"), h100("v6.0", 32, 340.0, "s32"),
             **scaling, ratio=1.79, efficiency=0.89),
    )  # fmt: skip
    system = {"identity_level": "system"}
    gains = pairs(
        pair(AMD_V51, AMD_V60, **system, is_consecutive=True),
        # The same system across a round it also has: no headline.
        pair(AMD_V51 | {"release": "v4.1", "result_key": "old"}, AMD_V60, **system,
             ratio=3.9, is_consecutive=False),
    )  # fmt: skip
    data = SiteData(
        **{**site_data.__dict__, "generations": generations, "scaling": steps,
           "gains": gains}
    )  # fmt: skip
    out = tmp_path / "generated"
    render_site(data, out, bundle=False)
    home = (out / "partials" / "home.md").read_text()
    latest = (out / "latest.md").read_text()
    new = _section(home, "### New accelerators against their predecessors in v6.0")
    assert "1.18×" in new and "2.50×" not in new and "1.12×" not in new
    assert "1.47×" not in new and "1.09×" in new
    assert "The 1 pairs of accelerators that appeared before v6.0 are on" in new
    assert "1.12×" in _section(latest, "### New accelerators against")
    scaled = _section(home, "### Scaling at the largest size")
    assert "1.79×" in scaled and "1.90×" not in scaled  # the 32-chip system
    gained = _section(home, "### Software gains since each system's previous round")
    assert "1.25×" in gained and "3.90×" not in gained


def test_break_even_sentences_name_the_lowest_bound_per_chip_pair_and_scenario() -> (
    None
):
    from pipeline.render.whats_new import break_even_sentences

    pairs = pl.DataFrame(
        {
            "chip_new": ["NVIDIA Vera Rubin", "NVIDIA Vera Rubin", "<b>X</b>", "Y"],
            "chip_old": ["NVIDIA GB300", "NVIDIA GB300", "NVIDIA GB300", "Z"],
            "benchmark": ["qwen3-vl-235b-a22b", "qwen3-vl-235b-a22b", "deepseek-r1",
                          "resnet"],
            "scenario": ["Interactive", "Interactive", "Server", "SingleStream"],
            "result_unit": ["Queries/s", "Queries/s", "Tokens/s", "Latency (ms)"],
            "is_higher_better": [True, True, True, False],
            "break_even_price_ratio": [3.74073, 3.9, 1.5, 2.0],
        }
    )  # fmt: skip
    text = str(break_even_sentences(pairs))
    assert (
        "- **NVIDIA Vera Rubin** is cheaper per qwen3-vl-235b-a22b Interactive query "
        "as long as it costs less than **3.74×** NVIDIA GB300's price per "
        "accelerator-hour (the lowest of 2 pairs)\n"
    ) in text
    # Upstream text is escaped; a latency pair makes no cost sentence.
    assert "<b>X</b>" not in text and "&lt;b&gt;X&lt;/b&gt;" in text
    assert "per deepseek-r1 Server token" in text
    assert "resnet" not in text
    assert text.startswith("\n**Break-even prices** (derived, not an MLPerf result")
