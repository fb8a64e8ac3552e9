"""Large raw-HTML blocks skip Python-Markdown and come back byte for byte.

``mkdocs_hooks.on_page_markdown`` swaps them for placeholders and ``on_post_page``
puts them back; the page's HTML must be exactly what Markdown made of the whole page.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from types import SimpleNamespace

import markdown
import pytest
from mkdocs.exceptions import PluginError

from pipeline.publish import mkdocs_build
from pipeline.render.mkdocs import hooks as mkdocs_hooks
from pipeline.render.mkdocs.hooks import join_fragments, split_fragments

#: The Markdown extensions of mkdocs.yml that change how raw HTML or blocks parse.
EXTENSIONS = ["tables", "admonition", "attr_list", "toc", "pymdownx.superfences"]


def _table(rows: int, text: str = "cell") -> str:
    body = "\n".join(
        f'<tr><td>{text} {i}</td><td style="text-align: right;">{i:,}</td></tr>'
        for i in range(rows)
    )
    return f"<table>\n<thead><tr><th>Name</th></tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


BIG = _table(40)
SMALL = _table(2)


def _key(block: str) -> str:
    return hashlib.sha256(block.encode()).hexdigest()[: mkdocs_hooks.FRAGMENT_HEX]


def _placeholder(block: str) -> str:
    return f'<div data-ledger-fragment="{_key(block)}"></div>'


def _html(text: str) -> str:
    return markdown.Markdown(extensions=EXTENSIONS).convert(text)


def test_a_large_table_becomes_a_placeholder_and_a_small_one_stays() -> None:
    assert len(BIG) >= mkdocs_hooks.FRAGMENT_FROM_CHARS > len(SMALL)
    page = f"# T\n\nProse.\n\n{BIG}\n\n{SMALL}\n"
    text, found = split_fragments(page)
    assert text == f"# T\n\nProse.\n\n{_placeholder(BIG)}\n\n{SMALL}\n"
    assert found == {_key(BIG): BIG}
    assert re.fullmatch(r"[0-9a-f]{24}", _key(BIG))


@pytest.mark.parametrize(
    "block",
    [
        # Not block-level for Markdown: it would wrap it in a paragraph.
        "<span>" + "x" * 2000 + "</span>",
        # Two tables in one block: the first end tag closes the outer element early.
        BIG + BIG,
        # Text after the element belongs to the same Markdown block.
        BIG + "\nand *emphasis* after it",
        # Indented: a code block, not HTML.
        "    " + BIG.replace("\n", "\n    "),
        # Unbalanced: an inner table left open.
        BIG[: -len("</table>")] + "<table><tr><td>x</td></tr></table>",
    ],
    ids=["inline", "two-elements", "trailing-text", "indented", "unbalanced"],
)
def test_blocks_markdown_would_change_stay_in_the_markdown(block: str) -> None:
    page = f"Before.\n\n{block}\n\nAfter.\n"
    assert split_fragments(page) == (page, {})


def test_html_inside_fenced_code_stays_in_the_markdown() -> None:
    page = f"Intro.\n\n```html\n\n{BIG}\n\n```\n\n~~~\n{BIG}\n\n~~~\n"
    assert split_fragments(page) == (page, {})
    # After the fence closes, blocks are fragments again.
    text, found = split_fragments(page + f"\n{BIG}\n")
    assert text == page + f"\n{_placeholder(BIG)}\n"
    assert list(found) == [_key(BIG)]


def test_the_page_html_is_what_markdown_made_of_the_whole_page() -> None:
    details = f"<details><summary>All rows</summary>\n{BIG}\n</details>"
    page = (
        "# Release\n\nSome *prose* with a [link](other.md).\n\n"
        f"{BIG}\n\n"
        '!!! note "A note"\n    Indented text.\n\n'
        f"{details}\n\n"
        f"| a | b |\n|---|---|\n| 1 | 2 |\n\n{SMALL}\n\n"
        f"```python\nprint('{BIG[:20]}')\n```\n\n{_table(60, 'other')}\n"
    )
    text, found = split_fragments(page)
    assert len(found) == 3
    assert len(text) < len(page) // 4
    assert join_fragments(_html(text), found, "p.html") == _html(page)


def test_identical_blocks_share_one_fragment() -> None:
    text, found = split_fragments(f"{BIG}\n\nx\n\n{BIG}")
    assert text == f"{_placeholder(BIG)}\n\nx\n\n{_placeholder(BIG)}"
    assert join_fragments(_html(text), found, "p.html") == _html(f"{BIG}\n\nx\n\n{BIG}")


def test_a_placeholder_without_its_fragment_fails_the_build() -> None:
    key = "0123456789abcdef01234567"
    html = f'<p>x</p>\n<div data-ledger-fragment="{key}"></div>'
    with pytest.raises(PluginError) as error:
        join_fragments(html, {}, "generated/latest.html")
    assert str(error.value) == (
        f"generated/latest.html: HTML fragment {key} is missing"
    )


def test_a_fragment_whose_placeholder_vanished_fails_the_build() -> None:
    with pytest.raises(PluginError) as error:
        join_fragments("<p>x</p>", {_key(BIG): BIG}, "generated/latest.html")
    assert str(error.value) == (
        f"generated/latest.html: HTML fragment {_key(BIG)} is not in the page's HTML"
    )


@pytest.mark.parametrize(
    "forged",
    [
        '<div data-ledger-fragment="0123"></div>',
        '<div data-ledger-fragment="0123456789ABCDEF01234567"></div>',
        '<div data-ledger-fragment="0123456789abcdef01234567" class="x"></div>',
        "&lt;div data-ledger-fragment=&quot;0123456789abcdef01234567&quot;&gt;",
    ],
)
def test_only_the_exact_placeholder_form_is_replaced(forged: str) -> None:
    html = f"<p>{forged}</p>"
    assert join_fragments(html, {}, "p.html") == html


def test_the_hooks_carry_fragments_from_markdown_to_html() -> None:
    page = SimpleNamespace(meta={}, url="generated/releases/v6.0.html")
    md = mkdocs_hooks.on_page_markdown(f"# T\n\n{BIG}\n", page=page, config={})
    assert md == f"# T\n\n{_placeholder(BIG)}\n"
    body = _html(md)
    out = mkdocs_hooks.on_post_page(
        f"<html><head></head><body>{body}</body></html>", page=page, config={}
    )
    assert out == mkdocs_hooks.compact_html(
        f"<html><head></head><body>{_html(f'# T{chr(10)}{chr(10)}{BIG}')}</body></html>"
    )
    assert "data-ledger-fragment" not in out and "<td>cell 39</td>" in out


def test_fragment_anchors_are_the_ids_mkdocs_would_find() -> None:
    fragment = (
        '<table><tr><td><span id="row-1"></span>a</td>'
        "<td id='row-2' class=x>b</td><td id=row-3>c</td>"
        '<td data-id="no" title="id=&quot;no&quot;">d</td>'
        '<td><a name="old-anchor">e</a><input name="not-an-anchor"></td>'
        '<td ID="a&amp;b">f</td></tr></table>'
    )
    assert mkdocs_hooks.fragment_anchors({"k": fragment}) == {
        "row-1",
        "row-2",
        "row-3",
        "old-anchor",
        "a&b",
    }


def _project(tmp_path: Path, link: str) -> tuple[Path, str]:
    """A one-page MkDocs project using the hook, whose page links ``link``."""
    docs = tmp_path / "docs"
    (docs / mkdocs_hooks.NAV_FILE).parent.mkdir(parents=True)
    (docs / mkdocs_hooks.NAV_FILE).write_text("{}")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nstrict: true\nuse_directory_urls: false\n"
        f"hooks:\n  - {mkdocs_hooks.__file__}\n"
        "validation:\n  links:\n    anchors: warn\n"
    )
    row = '<tr><td><span id="row-1"></span>first</td></tr>\n'
    table = f"<table>\n{row}{_table(40)[len('<table>') + 1 :]}"
    (docs / "index.md").write_text(f"# T\n\n[The first row]({link})\n\n{table}\n")
    return tmp_path, table


def test_links_to_anchors_inside_fragments_pass_the_strict_build(
    tmp_path: Path,
) -> None:
    project, table = _project(tmp_path, "#row-1")
    ok, problems = mkdocs_build(project, tmp_path / "out", "http://127.0.0.1:8000/")
    assert ok, problems
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert mkdocs_hooks.compact_html(table) in html


def test_a_broken_anchor_link_fails_the_strict_build(tmp_path: Path) -> None:
    project, _ = _project(tmp_path, "#row-404")
    ok, problems = mkdocs_build(project, tmp_path / "out", "http://127.0.0.1:8000/")
    assert not ok
    assert (
        "Doc file 'index.md' contains a link '#row-404', but there is no such anchor "
        "on this page." in problems
    )
