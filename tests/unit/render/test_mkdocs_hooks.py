import gzip
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs import utils as mkdocs_utils
from mkdocs.exceptions import PluginError

from pipeline.render.mkdocs import hooks as mkdocs_hooks


def test_generated_sections_expand_into_their_pages(tmp_path: Path) -> None:
    nav_file = tmp_path / mkdocs_hooks.NAV_FILE
    nav_file.parent.mkdir(parents=True)
    nav_file.write_text(
        json.dumps(
            {"generated/releases/index.md": [{"v6.1": "generated/releases/v6.1.md"}]}
        )
    )
    config = {
        "docs_dir": str(tmp_path),
        "nav": [{"Home": "index.md"}, {"Releases": "generated/releases/index.md"}],
    }
    assert mkdocs_hooks.on_config(config)["nav"] == [
        {"Home": "index.md"},
        {
            "Releases": [
                "generated/releases/index.md",
                {"v6.1": "generated/releases/v6.1.md"},
            ]
        },
    ]


def test_missing_nav_file_leaves_the_nav_alone(tmp_path: Path) -> None:
    config = {"docs_dir": str(tmp_path), "nav": [{"Home": "index.md"}]}
    assert mkdocs_hooks.on_config(config)["nav"] == [{"Home": "index.md"}]


def test_front_matter_text_reaches_html_as_inert_text() -> None:
    page = SimpleNamespace(
        meta={
            "title": "</title><script>alert(document.domain)</script>A &amp; B",
            "description": '"><img src=x onerror=alert(1)>',
            "author": "Évil <b>Corp</b>",
            "template": "main.html",
        }
    )
    assert mkdocs_hooks.on_page_markdown("# x\n", page=page, config={}) == "# x\n"
    assert page.meta == {
        "title": "alert(document.domain)A &amp; B",
        "description": "&#34;&gt;",
        "author": "Évil Corp",
        "template": "main.html",
    }
    # Applying it again changes nothing: escaped text stays escaped once.
    assert mkdocs_hooks.inert(page.meta["title"]) == page.meta["title"]


def test_compact_html_drops_indentation_but_keeps_preformatted_text() -> None:
    html = (
        "<nav>\n      <ul>\n        <li>Home</li>\n      </ul>\n    </nav>\n"
        "<pre><code>a\n    indented\n</code></pre>\n   <p>x\n\n   y</p>\n"
        '<script>var s = "a\n    b";</script>\n  <code>c\n   d</code>'
    )
    assert mkdocs_hooks.compact_html(html) == (
        "<nav>\n<ul>\n<li>Home</li>\n</ul>\n</nav>\n"
        "<pre><code>a\n    indented\n</code></pre>\n<p>x\ny</p>\n"
        '<script>var s = "a\n    b";</script>\n<code>c\n   d</code>'
    )


def _page(url: str) -> SimpleNamespace:
    return SimpleNamespace(url=url, meta={})


#: A build with Material, the site's theme (the hooks leave other themes alone).
MATERIAL_CONFIG = {"theme": SimpleNamespace(name="material"), "site_url": ""}
#: Material's bundle as its base template loads it at the end of every page.
MATERIAL = '<script src="../assets/javascripts/bundle.a5f9d56c.min.js"></script>'


def test_no_page_loads_the_vega_bundle_in_its_head() -> None:
    # Charts show their build-time SVG; charts.js loads Vega when a reader reaches
    # for one (tests/browser checks that in a browser).
    head = "<html><head>\n  <title>t</title>\n</head><body>"
    chart = head + '<div class="vega-chart" data-spec="../charts/a.json"></div>'
    chart += MATERIAL
    out = mkdocs_hooks.on_post_page(
        chart, page=_page("generated/scaling/x.html"), config={}
    )
    assert "vega-bundle" not in out and out.startswith("<html><head>")


def test_only_the_systems_list_loads_its_filter_at_the_end_of_its_article() -> None:
    body = (
        "<html><head></head><body><article>{}</article>" + MATERIAL + "</body></html>"
    )
    listed = body.format('<form class="ledger-systems__filter" hidden></form>')
    out = mkdocs_hooks.on_post_page(
        listed, page=_page("generated/systems.html"), config={}
    )
    assert '<script defer src="../assets/js/systems.js"></script>\n</article>' in out
    other = mkdocs_hooks.on_post_page(
        body.format("<p>a family page</p>"),
        page=_page("generated/systems/nvidia.html"),
        config={},
    )
    assert "systems.js" not in other


def test_precompress_writes_identical_gz_of_large_text_files_only(
    tmp_path: Path,
) -> None:
    big = "<p>" + "row " * 5_000 + "</p>"
    (tmp_path / "page.html").write_text(big)
    (tmp_path / "small.css").write_text("a{}")
    (tmp_path / "data.parquet").write_bytes(b"PAR1" * 5_000)
    (tmp_path / "kept.js").write_text("x" * 20_000)
    (tmp_path / "kept.js.gz").write_bytes(b"from the bundle cache")
    written = mkdocs_hooks.precompress(tmp_path)
    assert written == [tmp_path / "page.html.gz"]
    first = (tmp_path / "page.html.gz").read_bytes()
    assert gzip.decompress(first).decode() == big
    assert (tmp_path / "kept.js.gz").read_bytes() == b"from the bundle cache"
    (tmp_path / "page.html.gz").unlink()
    mkdocs_hooks.precompress(tmp_path)
    assert (tmp_path / "page.html.gz").read_bytes() == first  # no timestamp inside


def test_static_files_of_the_staged_project_are_linked_and_the_themes_copied(
    tmp_path: Path,
) -> None:
    """The site shares bytes with the throwaway staging project, never with the theme.

    A file written into the built site later (a server's own .gz, an edit) must not
    reach the installed theme.
    """
    docs, theme, site = tmp_path / "docs", tmp_path / "theme", tmp_path / "site"
    (docs / "generated" / "systems").mkdir(parents=True)
    theme.mkdir()
    staged = docs / "generated" / "systems" / "gb300.json"
    staged.write_text('{"name": "GB300 NVL72"}')
    (theme / "bundle.js").write_text("theme();")
    mkdocs_hooks.on_config(
        {"docs_dir": str(docs), "site_url": None, "theme": None, "nav": None}
    )
    mkdocs_utils.copy_file(str(staged), str(site / "systems" / "a.json"))
    mkdocs_utils.copy_file(str(theme / "bundle.js"), str(site / "b.js"))
    assert (site / "systems" / "a.json").read_text() == '{"name": "GB300 NVL72"}'
    assert (site / "systems" / "a.json").stat().st_ino == staged.stat().st_ino
    assert (site / "b.js").stat().st_ino != (theme / "bundle.js").stat().st_ino
    (site / "b.js").write_text("edited in the site")
    assert (theme / "bundle.js").read_text() == "theme();"


def test_materials_bundle_is_left_inert_for_material_js_to_load_on_a_first_move() -> (
    None
):
    page = (
        "<html><body><article><p>x</p></article>\n"
        + MATERIAL
        + ('<script src="../assets/js/material.js" defer></script></body></html>')
    )
    out = mkdocs_hooks.on_post_page(
        page, page=_page("generated/latest.html"), config=MATERIAL_CONFIG
    )
    assert '<script src="../assets/javascripts/bundle' not in out
    assert (
        '<script data-ledger-material="../assets/javascripts/bundle.a5f9d56c.min.js" '
        'type="text/plain"></script>'
        '<script src="../assets/js/material.js" defer></script>'
    ) in out


def test_a_page_without_materials_bundle_is_an_error_not_half_deferred() -> None:
    with pytest.raises(PluginError) as error:
        mkdocs_hooks.on_post_page(
            "<html><body><p>x</p></body></html>",
            page=_page("generated/latest.html"),
            config=MATERIAL_CONFIG,
        )
    assert str(error.value) == (
        "generated/latest.html: expected Material's bundle script 1 time(s), found "
        "it 0 times (has Material's base template changed?)"
    )


def test_tables_are_wrapped_as_material_wraps_them_before_it_runs() -> None:
    # Material's bundle waits for the reader's first move; until then a table must
    # lay out as it will after (sticky header, sideways scroll): the build wraps it.
    page = (
        "<html><body><article><table>\n<tr><td>1</td></tr></table>"
        '<table class="x"><tr><td>2</td></tr></table></article>' + MATERIAL + "</body>"
    )
    out = mkdocs_hooks.on_post_page(
        page, page=_page("generated/a.html"), config=MATERIAL_CONFIG
    )
    assert (
        '<article><div class="md-typeset__scrollwrap" data-ledger-wrap>'
        '<div class="md-typeset__table"><table>\n<tr><td>1</td></tr></table></div></div>'
        '<table class="x"><tr><td>2</td></tr></table></article>'
    ) in out
