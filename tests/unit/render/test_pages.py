import gzip
import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from pipeline.render import bundle
from pipeline.render.pages import lineage_edges, render_site
from pipeline.render.site_data import SiteData
from pipeline.render.slugs import page_problems
from tests.unit.render.conftest import AMD_V51_URL, frame, result, unlabelled

#: Builds a site, runs a subprocess or holds real locks: left out of test-fast.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, site_data: SiteData) -> Path:
    """Rendered once for the module: the pages are only read."""
    out = tmp_path_factory.mktemp("render") / "generated"
    render_site(site_data, out, bundle=False)
    return out


def test_release_page_lists_amd_mi300x_llama2_offline_with_its_link(site: Path) -> None:
    page = unlabelled((site / "releases" / "v5.1.md").read_text())
    assert "#### Offline · closed · Tokens/s" in page
    row = next(line for line in page.splitlines() if AMD_V51_URL in line)
    # The tooltip leads with the official result ID, the identifier to cite.
    assert (
        f'<a href="{AMD_V51_URL}" title="result ID 5.1-0001 · key '
        '5.1-0001&#58;llama2-70b-99&#58;Offline">27,803.9</a>' in row
    )
    assert "<td>AMD</td>" in row
    assert "8xMI300X&#95;2xEPYC&#95;9575F" in row
    assert "8 × AMD Instinct MI300X 192GB HBM3 · 1 node" in row
    assert (
        "[llama2-70b-99](../benchmarks/llama2-70b-99.md)" not in page
    )  # linked as "Across releases"
    assert "[Across releases](../benchmarks/llama2-70b-99.md)" in page


def test_inferred_and_preview_results_carry_badges(site: Path) -> None:
    # Per accelerator, NVIDIA's inferred 8-GPU result (3,875) beats its 16-GPU one.
    bench = unlabelled((site / "benchmarks" / "llama2-70b-99.md").read_text())
    h100 = next(
        line for line in bench.splitlines() if line.startswith("<tr><td>NVIDIA H100")
    )
    assert '>3,875</a> <span class="ledger-badge ledger-badge--inferred"' in h100
    v60 = (site / "releases" / "v6.0.md").read_text()
    mi325x = next(
        line for line in v60.splitlines() if "MI325X" in line and "href" in line
    )
    assert "ledger-badge--preview" in mi325x


def test_software_gain_row_cites_both_ends(site: Path) -> None:
    index = unlabelled((site / "software-gains.md").read_text())
    # The index links each benchmark's page; the pairs themselves live there.
    assert "| [llama2-70b-99](software-gains/llama2-70b-99.md) | 1 |" in index
    assert "<tr>" not in index and "vega-chart" not in index
    page = (site / "software-gains" / "llama2-70b-99.md").read_text()
    assert page.startswith("# Software gains: llama2-70b-99\n")
    assert "[All benchmarks](../software-gains.md)" in page
    assert "Derived, unofficial — not MLPerf results" in page
    row = next(
        line
        for line in page.splitlines()
        if line.startswith("<tr><td") and "1.25×" in line
    )
    for text in (
        "<b>v5.1</b>", "<b>v6.0</b>", f'href="{AMD_V51_URL}"', "27,803.9", "34,754.9",
        "<code>5&#46;1-0001&#58;llama2-70b-99&#58;Offline</code>",
        "<code>6&#46;0-0004&#58;llama2-70b-99&#58;Offline</code>",
        "software: ROCm 6.4.1, vLLM 0.9.2 · available",
        "software: ROCm 7.0, vLLM 0.10.1 · available",
        "8 × AMD Instinct MI300X 192GB HBM3 · 1 node", "closed · system",
    ):  # fmt: skip
        assert text in row, text
    assert (
        '<div class="vega-chart" data-spec="../charts/software-gains-llama2-70b-99-v5.1-v6.0.json"'
        in page
    )
    # Compact: who and on what in the summary of a disclosure; the software string,
    # availability, the official result ID (the one to cite), the key and the line
    # to cite the result by open on demand.
    assert (
        '<details class="ledger-more"><summary>AMD · Supermicro AS-8125GS-TNMR2 · 8 × '
        "AMD Instinct MI300X 192GB HBM3 · 1 node · weights not declared</summary>"
        "software: ROCm 6.4.1, vLLM 0.9.2 · available<br>weight data types as "
        "declared: not declared<br>result ID <b>5&#46;1-0001</b> · key "
        "<code>5&#46;1-0001&#58;llama2-70b-99&#58;Offline</code>"
        '<br><a class="ledger-system-link" href="../systems/amd.html#'
        'amd-8xmi300x-2xepyc-9575f--ef432e3414">system description</a>'
        '<br><small class="ledger-cite">How to cite: MLPerf Inference v5.1, '
        "Closed division, Available, result 5.1-0001, published 2025-09-09; "
        "source&#58; https&#58;//github.com/mlcommons/inference&#95;results&#95;"
        "v5.1/tree/main/closed/AMD/results/8xMI300X&#95;2xEPYC&#95;9575F/"
        "llama2-70b-99/Offline. Published by MLCommons. Derived "
        "figures on this site are not MLPerf results.</small></details>" in row
    )
    assert "result ID <b>6&#46;0-0004</b>" in row
    assert "MLPerf Inference v6.0, Closed division, Available, result 6.0-0004, " in row
    # Both ends are one system (same submitter, platform, chips and nodes): one id.
    assert row.count("#amd-8xmi300x-2xepyc-9575f--ef432e3414") == 2


def test_every_ratio_page_shows_the_notice(site: Path) -> None:
    for name in (
        "software-gains.md",
        "generations.md",
        "scaling.md",
        "partials/home.md",
    ):
        assert (
            "Derived, unofficial — not MLPerf results" in (site / name).read_text()
        ), name
    benchmark_pages = [
        p for kind in ("software-gains", "generations", "scaling")
        for p in (site / kind).glob("*.md")
    ]  # fmt: skip
    assert len(benchmark_pages) == 3
    for path in benchmark_pages:
        assert "Derived, unofficial — not MLPerf results" in path.read_text(), path
    scaling = (site / "scaling.md").read_text()
    assert "97%" in scaling and "1.94×" in scaling


def test_home_headlines_and_latest_release_numbers(site: Path) -> None:
    home = (site / "partials" / "home.md").read_text()
    # The story first: What's new (one-line notice, first comparison), then the
    # round in numbers.
    assert home.index("## What's new in v6.0") < home.index("### v6.0 in numbers")
    assert "**Derived, unofficial — not MLPerf results:**" in home
    assert "<div><strong>3</strong>results</div>" in home
    assert "[Everything in v6.0 →](generated/releases/v6.0.md)" in home
    assert 'data-spec="generated/charts/home-software-gains.json"' in home
    # Shown first as its build-time picture, sized so nothing moves when it loads;
    # the rows it plots as CSV and the picture itself beside the spec.
    # The page's first chart loads at once (it is the first screen), later ones lazily.
    pictures = re.findall(r'<img class="vega-static" src="([^"]+)" alt="" (.*?)>', home)
    assert len(pictures) >= 2
    assert re.fullmatch(r'width="\d+" height="\d+" decoding="async"', pictures[0][1])
    assert all(p[1].endswith(' loading="lazy"') for p in pictures[1:])
    assert "generated/charts/home-software-gains.svg" in [p[0] for p in pictures]
    # A phone gets the chart drawn at its width, not the desktop one scaled to 6 px.
    assert re.search(
        r'<picture><source media="\(max-width: 600px\)" '
        r'srcset="generated/charts/home-software-gains.narrow.svg" width="358" '
        r'height="\d+"><img class="vega-static" '
        r'src="generated/charts/home-software-gains.svg"',
        home,
    )
    assert '<a href="generated/charts/home-software-gains.csv">data as CSV</a>' in home
    assert (
        '<a href="generated/charts/home-software-gains.svg" download>SVG image</a>'
        in home
    )
    assert (site / "charts" / "home-software-gains.svg").read_text().startswith("<svg")
    # The only generation pair has a preview end: a label, not a warning. The
    # headline cites it, and the detail page shows it with its label badge.
    assert "home-generations.json" in home
    generations = (site / "generations" / "llama2-70b-99.md").read_text()
    assert (
        '<details class="ledger-more"><summary><span class="ledger-badge '
        'ledger-badge--label">preview end</span></summary>'
        '<small class="ledger-flag-reason">'
    ) in generations


def test_benchmark_page_compares_per_accelerator_and_leaves_out_cpu_only(
    site: Path,
) -> None:
    page = (site / "benchmarks" / "llama2-70b-99.md").read_text()
    assert "## Offline · closed" in page
    assert "Tokens/s per accelerator, best per accelerator type" in page
    assert ">3,475.49</a>" in page  # 27,803.9 / 8
    resnet = (site / "benchmarks" / "resnet.md").read_text()
    assert "1 CPU-only results" in resnet and "vega-chart" not in resnet


def test_malicious_upstream_strings_stay_text(site: Path) -> None:
    for path in site.rglob("*.md"):
        text = path.read_text()
        assert "<script" not in text and "javascript:" not in text, path
        assert "<b>Corp</b>" not in text and "--8<--" not in text, path
    page = unlabelled((site / "releases" / "v6.0.md").read_text())
    assert (
        "&lt;script&gt;alert&#40;1&#41;&lt;/script&gt; &#91;click&#93;&#40;javascript&#58;alert&#40;1&#41;&#41;"
        in page
    )
    # The unsafe result URL is not linked at all: the value is plain text.
    row = next(line for line in page.splitlines() if "Evil" in line and "<td>" in line)
    assert "<a " not in row.split("ledger-wide")[0] and ">1</td>" in row


def test_data_page_lists_downloads_with_checksums_and_rows(
    site: Path, site_data: SiteData
) -> None:
    page = unlabelled((site / "data.md").read_text())
    csv = site / "downloads" / "results.csv"
    digest = hashlib.sha256(csv.read_bytes()).hexdigest()
    assert re.search(
        rf"\| \*\*results\*\* \| .* \| 7 \| \[results\.csv\]\(downloads/results\.csv\) · [\d.]+ KB<br><code>sha256:{digest}</code>",
        page,
    )
    for name in (
        "rejected",
        "software_gains",
        "generation_ratios",
        "scaling",
        "snapshots",
    ):
        assert (site / "downloads" / f"{name}.parquet").is_file()
        assert f"[{name}.csv](downloads/{name}.csv)" in page


def test_audit_page_has_lineage_snapshots_and_commit(site: Path) -> None:
    page = unlabelled((site / "audit.md").read_text())
    assert "<code>0123456789abcdef0123456789abcdef01234567</code>" in page
    assert (
        "| 2 | <code>out&#95;mlperf&#95;&#95;scaling</code> | <code>core&#95;mlperf&#95;&#95;results</code> |"
        in page
    )
    assert "<code>" + "ab" * 32 + "</code>" in page
    assert "schema&#58; passed, row count&#58; passed" in page
    assert "1,234,567" in page
    assert "mermaid" not in page.lower().replace("mermaid source", "").replace(
        "mermaid viewer", ""
    )


def test_lineage_edges_read_labels_and_arrows() -> None:
    assert lineage_edges(
        'flowchart LR\n  a["A asset"] --> b\n  b -->|x| c[C]\n  note\n'
    ) == [
        ("A asset", "b"),
        ("b", "C"),
    ]


def test_nav_lists_releases_newest_first_and_the_index_every_benchmark(
    site: Path,
) -> None:
    nav = json.loads((site / "partials" / "nav.json").read_text())
    assert nav["generated/releases/index.md"] == [
        {"v6.0": "generated/releases/v6.0.md"},
        {"v5.1": "generated/releases/v5.1.md"},
    ]
    # Entity pages are reached from their section's index, not from the nav: one
    # more benchmark must not change the HTML of every benchmark page.
    assert "generated/benchmarks/index.md" not in nav
    index = unlabelled((site / "benchmarks" / "index.md").read_text())
    assert "[llama2-70b-99](llama2-70b-99.md)" in index
    assert "[resnet](resnet.md)" in index


def test_claims_changes_and_performance_come_from_the_site_data(
    tmp_path: Path, site_data: SiteData
) -> None:
    # Every page kind is a PAGE_MODULES entry: with no claims, corrections or bench
    # results the three pages still exist and say so.
    out = tmp_path / "generated"
    render_site(site_data, out, bundle=False)
    assert "*No claims are registered yet.*" in (out / "claims.md").read_text()
    assert (
        "No release has changed since the pipeline first stored it."
        in (out / "changes.md").read_text()
    )
    assert "No benchmark results are committed" in (out / "performance.md").read_text()


def test_render_site_refuses_other_folders(tmp_path: Path, site_data: SiteData) -> None:
    with pytest.raises(ValueError, match="generated"):
        render_site(site_data, tmp_path / "site", bundle=False)


def test_render_site_removes_stale_pages_but_keeps_the_bundle(
    tmp_path: Path, site_data: SiteData
) -> None:
    site = tmp_path / "generated"
    render_site(site_data, site, bundle=False)
    (site / "releases" / "v0.5.md").write_text("stale")
    (site / "assets" / "js").mkdir(parents=True)
    (site / "assets" / "js" / "vega-bundle.js").write_text("cached")
    render_site(site_data, site, bundle=False)
    assert not (site / "releases" / "v0.5.md").exists()
    assert (site / "assets" / "js" / "vega-bundle.js").read_text() == "cached"


def test_bundle_is_wrapped_and_rewritten_only_when_versions_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    monkeypatch.setattr(
        bundle.vl_convert,
        "javascript_bundle",
        lambda: calls.append(1) or "const n=1;window.vegaEmbed=n;",
    )
    path = bundle.write_bundle(tmp_path)
    text = path.read_text()
    assert (
        text.startswith("/* vega 6")
        and "(() => {\nconst n=1;" in text
        and text.endswith("})();\n")
    )
    bundle.write_bundle(tmp_path)
    assert calls == [1]


def test_bundle_is_cached_per_machine_and_rebundled_only_for_a_new_vl_convert(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, site_data: SiteData
) -> None:
    calls = []
    monkeypatch.setattr(
        bundle.vl_convert,
        "javascript_bundle",
        lambda: calls.append(1) or "const n=1;window.vegaEmbed=n;",
    )
    monkeypatch.setenv("MLPERF_CACHE_DIR", str(tmp_path / "cache"))
    # Two builds in fresh staging folders (as every pipeline run stages a new
    # project, and as two data folders on one machine do): the second copies the
    # cached bundle instead of bundling again.
    first = tmp_path / "one" / "generated"
    second = tmp_path / "two" / "generated"
    render_site(site_data, first, bundle=True)
    render_site(site_data, second, bundle=True)
    assert calls == [1]
    js = "assets/js/vega-bundle.js"
    assert (second / js).read_bytes() == (first / js).read_bytes()
    cache = tmp_path / "cache"
    name = f"vega-bundle-{bundle.bundle_key()[:16]}.js"
    # The cache also keeps the charts' SVG renderings, in a folder of their own.
    bundles = sorted(p.name for p in cache.iterdir() if p.name != "svg")
    assert bundles == [name, f"{name}.gz"]
    # The precompressed copy a static server can send holds the same script.
    gz = (second / js).with_name("vega-bundle.js.gz")
    assert gzip.decompress(gz.read_bytes()) == (second / js).read_bytes()
    # Another vl-convert version is another key: bundled again, the old file kept.
    versions = bundle._versions()
    monkeypatch.setattr(
        bundle, "_versions", lambda: versions | {"vl-convert-python": "9.9.9"}
    )
    render_site(site_data, tmp_path / "three" / "generated", bundle=True)
    assert calls == [1, 1]
    assert len([p for p in cache.iterdir() if p.name != "svg"]) == 4
    assert (
        "vl-convert-python 9.9.9" in (tmp_path / "three" / "generated" / js).read_text()
    )


def test_pair_pages_are_in_the_page_index_and_linked_from_their_index(
    site: Path,
) -> None:
    nav = json.loads((site / "partials" / "nav.json").read_text())
    pages = json.loads((site / "partials" / "pages.json").read_text())
    for kind in ("software-gains", "generations", "scaling"):
        assert f"generated/{kind}.md" not in nav
        index = unlabelled((site / f"{kind}.md").read_text())
        assert f"[llama2-70b-99]({kind}/llama2-70b-99.md)" in index
        assert pages[kind] == {"llama2-70b-99": f"{kind}/llama2-70b-99.md"}
    assert page_problems(pages, site) == []


LONG_SOFTWARE = "TensorRT-LLM 0.17.0, CUDA 12.8, cuDNN 9.7, NCCL 2.25 <b>, Driver 570"


def test_release_page_shows_top_rows_and_links_the_benchmark_page_with_every_row(
    tmp_path: Path, site_data: SiteData
) -> None:
    # Five submitters in one group: the release page shows the best three, the
    # release's page of that benchmark all five.
    names = ["Acme", "Bolt", "Cray", "Dyna", "Echo"]
    rows = [
        result(
            submitter=name,
            result_key=f"5.1-900{i}:llama2-70b-99:Offline",
            result_id=f"5.1-900{i}",
            result_value=1000.0 * (i + 1),
            result_per_accelerator=125.0 * (i + 1),
            software=LONG_SOFTWARE if name == "Echo" else "vLLM 0.9",
        )
        for i, name in enumerate(names)
    ]
    out = tmp_path / "generated"
    render_site(replace(site_data, results=frame(*rows)), out, bundle=False)
    page = unlabelled((out / "releases" / "v5.1.md").read_text())
    table = page.split("#### Offline · closed · Tokens/s")[1]
    shown = [n for n in names if f"<td>{n}</td>" in table]
    assert shown == ["Cray", "Dyna", "Echo"]
    assert (
        "[All 5 rows of llama2-70b-99 in v5.1 →](v5.1/llama2-70b-99.md) · "
        "[Across releases](../benchmarks/llama2-70b-99.md)" in page
    )
    full = unlabelled((out / "releases" / "v5.1" / "llama2-70b-99.md").read_text())
    assert full.startswith("# llama2-70b-99 in MLPerf Inference v5.1\n")
    assert "[MLPerf Inference v5.1](../v5.1.md)" in full
    assert [n for n in names if f"<td>{n}</td>" in full] == names
    # A long software string opens on demand; its start stays visible, and the
    # markup in it stays text.
    assert (
        '<details class="ledger-more"><summary>TensorRT-LLM 0.17.0, CUDA 12.8, cuDNN '
        "9…</summary>….7, NCCL 2.25 &lt;b&gt;, Driver 570</details>" in full
    )
    pages = json.loads((out / "partials" / "pages.json").read_text())
    assert pages["releases/v5.1"] == {"llama2-70b-99": "releases/v5.1/llama2-70b-99.md"}
    assert page_problems(pages, out) == []
    # Out of the nav, which every page carries.
    assert "releases/v5.1/" not in (out / "partials" / "nav.json").read_text()


def test_a_benchmark_page_opens_with_its_task(site: Path) -> None:
    page = (site / "benchmarks" / "llama2-70b-99.md").read_text()
    assert page.startswith(
        "# llama2-70b-99\n\n**Task:** question answering and chat &#40;large language "
        "model&#41; (reference application <code>language/llama2-70b</code>"
    )
