"""One page per entity: two upstream names never share a page file.

``Model = llama2_70b_99`` once had the same page slug as ``llama2-70b-99``: the real
benchmark page was overwritten by the hostile one (56 rows -> 2).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.defs.website import out_site__pages
from pipeline.render.pages import render_site
from pipeline.render.site_data import SiteData
from pipeline.render.slugs import name_hash, page_problems, unique_slugs
from tests.unit.render.conftest import (
    AMD_V51,
    AMD_V60,
    H100_V51,
    MI325X_V60,
    frame,
    result,
)

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow

HOSTILE = "llama2_70b_99"
HOSTILE_PAGE = "benchmarks/llama2-70b-99--81eb4486c4.md"
#: The caption of the second chart, whose hash names its file.
CAPTION = "llama2-70b-99 Offline closed: best tokens s per accelerator by accelerator"


def test_names_sharing_a_slug_get_distinct_stable_slugs() -> None:
    slugs = unique_slugs(["llama2-70b-99", HOSTILE, "Llama2 70B 99", "resnet"])
    assert slugs == {
        # The name that is its own slug keeps it; the others get a hash of the name.
        "llama2-70b-99": "llama2-70b-99",
        HOSTILE: "llama2-70b-99--81eb4486c4",
        "Llama2 70B 99": "llama2-70b-99--b7afcfb6aa",
        "resnet": "resnet",
    }
    assert unique_slugs(["resnet", HOSTILE]) == {
        "resnet": "resnet",
        HOSTILE: "llama2-70b-99",
    }


@pytest.fixture(scope="module")
def collided(tmp_path_factory: pytest.TempPathFactory, site_data: SiteData) -> Path:
    """Four real llama2-70b-99 rows and one row whose benchmark is ``HOSTILE``."""
    hostile = result(
        release="v6.0",
        result_key="6.0-0666:llama2_70b_99:Offline",
        result_id="6.0-0666",
        benchmark=HOSTILE,
        result_value=2.0,
        result_per_accelerator=0.25,
    )
    data = replace(
        site_data, results=frame(AMD_V51, H100_V51, AMD_V60, MI325X_V60, hostile)
    )
    out = tmp_path_factory.mktemp("collided") / "generated"
    render_site(data, out, bundle=False)
    return out


def test_both_benchmarks_get_their_own_page(collided: Path) -> None:
    real = (collided / "benchmarks" / "llama2-70b-99.md").read_text()
    assert real.startswith("# llama2-70b-99\n")
    # Every real row is still counted on the real page: 2 in v5.1 and 2 in v6.0.
    assert (
        "Results per release: [v5.1](../releases/v5.1.md) (2), "
        "[v6.0](../releases/v6.0.md) (2).\n" in real
    )
    hostile = (collided / HOSTILE_PAGE).read_text()
    assert hostile.startswith("# llama2&#95;70b&#95;99\n")
    assert "Results per release: [v6.0](../releases/v6.0.md) (1).\n" in hostile
    index = (collided / "benchmarks" / "index.md").read_text()
    assert "[llama2-70b-99](llama2-70b-99.md)" in index
    assert "[llama2&#95;70b&#95;99](llama2-70b-99--81eb4486c4.md)" in index


def test_the_page_index_lists_one_page_per_entity(collided: Path) -> None:
    pages = json.loads((collided / "partials" / "pages.json").read_text())
    assert pages["benchmarks"] == {
        "llama2-70b-99": "benchmarks/llama2-70b-99.md",
        HOSTILE: HOSTILE_PAGE,
    }
    assert pages["releases"] == {
        "v5.1": "releases/v5.1.md",
        "v6.0": "releases/v6.0.md",
    }
    assert page_problems(pages, collided) == []


def test_the_check_names_two_entities_sharing_a_page(collided: Path) -> None:
    pages = {
        "benchmarks": {
            "llama2-70b-99": "benchmarks/llama2-70b-99.md",
            HOSTILE: "benchmarks/llama2-70b-99.md",
        }
    }
    assert page_problems(pages, collided) == [
        "benchmarks: 'llama2-70b-99' and 'llama2_70b_99' share the page "
        "benchmarks/llama2-70b-99.md"
    ]


def test_the_check_names_a_missing_page(tmp_path: Path) -> None:
    (tmp_path / "releases").mkdir()
    (tmp_path / "releases" / "v5.1.md").write_text("# v5.1\n")
    pages = {"releases": {"v5.1": "releases/v5.1.md", "v6.0": "releases/v6.0.md"}}
    assert page_problems(pages, tmp_path) == [
        "releases: no page file releases/v6.0.md for 'v6.0'",
        "releases: 2 entities but 1 page files besides the index (v5.1.md)",
    ]


def test_the_site_asset_blocks_on_the_check() -> None:
    (spec,) = [
        s for s in out_site__pages.check_specs if s.name == "one_page_per_entity"
    ]
    assert spec.blocking


def test_units_sharing_a_slug_get_their_own_chart_files(
    tmp_path: Path, site_data: SiteData
) -> None:
    """ "Tokens/s" and "tokens s" slug alike; each chart keeps its own file."""
    other = result(
        result_key="5.1-0777:llama2-70b-99:Offline",
        result_id="5.1-0777",
        platform="other",
        accelerator_name="NVIDIA H100-SXM-80GB",
        result_unit="tokens s",
    )
    data = replace(site_data, results=frame(AMD_V51, other))
    out = tmp_path / "generated"
    render_site(data, out, bundle=False)
    page = (out / "benchmarks" / "llama2-70b-99.md").read_text()
    specs = re.findall(r'data-spec="\.\./charts/([^"]+)"', page)
    assert specs == [
        "benchmark-llama2-70b-99-offline-closed-tokens-s.json",
        f"benchmark-llama2-70b-99-offline-closed-tokens-s--{name_hash(CAPTION)}.json",
    ]
    units = [
        json.loads((out / "charts" / spec).read_text())["data"]["values"][0][
            "result_unit"
        ]
        for spec in specs
    ]
    assert units == ["Tokens/s", "tokens s"]


def test_a_very_long_name_gets_a_page_of_a_valid_file_name(
    tmp_path: Path, site_data: SiteData
) -> None:
    long_name = "x" * 300
    row = result(benchmark=long_name, result_unit="u" * 300)
    out = tmp_path / "generated"
    render_site(replace(site_data, results=frame(AMD_V51, row)), out, bundle=False)
    pages = json.loads((out / "partials" / "pages.json").read_text())
    assert pages["benchmarks"][long_name] == "benchmarks/" + "x" * 64 + ".md"
    assert (
        (out / "benchmarks" / ("x" * 64 + ".md"))
        .read_text()
        .startswith("# " + long_name + "\n")
    )
    assert max(len(p.name) for p in (out / "charts").iterdir()) <= 170


@pytest.mark.parametrize("name", ["index", "INDEX", "Index"])
def test_a_benchmark_named_index_never_takes_the_folders_index_page(
    tmp_path: Path, site_data: SiteData, name: str
) -> None:
    """One record named like a reserved page must not hold back the whole site."""
    assert unique_slugs([name, "resnet"])[name] == f"index--{name_hash(name)}"
    hostile = result(
        release="v6.0",
        result_key=f"6.0-0667:{name}:Offline",
        result_id="6.0-0667",
        benchmark=name,
        result_value=2.0,
    )
    data = replace(site_data, results=frame(AMD_V51, H100_V51, hostile))
    out = tmp_path / "generated"
    render_site(data, out, bundle=False)
    pages = json.loads((out / "partials" / "pages.json").read_text())
    assert pages["benchmarks"][name] == f"benchmarks/index--{name_hash(name)}.md"
    assert page_problems(pages, out) == []
    assert (out / "benchmarks" / "index.md").read_text().startswith("# Benchmarks")
