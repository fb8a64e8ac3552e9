"""The safe layer: text is escaped unless code built it as markup, and only there.

Pages write Markdown-with-HTML through ``safe.Md`` (Python) and ``safe.MdExpr``
(Polars), and tables escape every column that is not a typed cell. These tests pin
the rules, show that a raw string put into a table is escaped, and check by reading
the source that no page module escapes, marks safe or calls ``Md`` on anything but a
template literal itself.
"""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import polars as pl
import pytest

import pipeline.render as render_package
from pipeline.render import safe
from pipeline.render.mkdocs import hooks as mkdocs_hooks
from pipeline.render.safe import Md, md_join
from pipeline.render.tables import html_table, markdown_table, number_cell

EVIL = '<script>x</script> [e](javascript:alert(1)) "q" | *b*'
EVIL_ESCAPED = (
    "&lt;script&gt;x&lt;/script&gt; &#91;e&#93;&#40;javascript&#58;alert&#40;1&#41;"
    "&#41; &quot;q&quot; &#124; &#42;b&#42;"
)


def test_md_format_escapes_text_with_our_rules_and_keeps_markup_and_numbers() -> None:
    assert Md("<b>{}</b>").format(EVIL) == f"<b>{EVIL_ESCAPED}</b>"
    # MarkupSafe's own escape would leave the Markdown link and the pipe live.
    assert "[e](javascript" in str(__import__("markupsafe").escape(EVIL))
    inner = Md("<i>{}</i>").format("a_b")
    assert Md("<b>{}</b>").format(inner) == "<b><i>a&#95;b</i></b>"
    # Numbers are written as they are: "1.5" escaped would be "1&#46;5".
    assert Md("{} {:,} {:.1f} {}").format(1.5, 12345, 2.25, -3) == "1.5 12,345 2.2 -3"
    assert Md("{}").format(None) == ""


def test_concatenation_and_join_escape_plain_strings() -> None:
    assert Md("<b>") + "<i>" == "<b>&lt;i&gt;"
    assert "<i>" + Md("<b>") == "&lt;i&gt;<b>"  # str + Md escapes the str too
    assert md_join(", ", ["<a>", Md("<b>")]) == "&lt;a&gt;, <b>"


def test_a_raw_string_in_a_table_cell_is_escaped_and_a_typed_cell_is_not() -> None:
    frame = pl.DataFrame({"raw": [EVIL], "value": [27803.9]}).with_columns(
        typed=safe.fmt("<b>{}</b>", pl.col("raw")).cell(),
        number=number_cell(pl.col("value")).cell(),
    )
    columns = {"raw": "Raw", "typed": "Typed", "number": "Number"}
    html = html_table(frame, columns)
    assert f">{EVIL_ESCAPED}</td>" in html
    assert f"><b>{EVIL_ESCAPED}</b></td>" in html
    assert ">27,803.9</td>" in html
    assert "<script" not in html and "](javascript" not in html
    markdown = markdown_table(frame, columns)
    assert f"</span>{EVIL_ESCAPED} |" in markdown and "<script" not in markdown


def test_a_plain_column_cannot_be_read_as_markup() -> None:
    frame = pl.DataFrame({"raw": [EVIL]})
    with pytest.raises(pl.exceptions.PolarsError):
        frame.select(safe.col("raw").markup)
    with pytest.raises(TypeError, match="not a typed cell"):
        safe.cell_value(EVIL)  # type: ignore[arg-type]
    typed = frame.select(safe.text(pl.col("raw")).cell("t")).row(0, named=True)
    assert safe.cell_value(typed["t"]) == EVIL_ESCAPED


def test_links_keep_their_text_when_the_url_is_refused() -> None:
    urls = pl.DataFrame(
        {
            "label": ["<b>k</b>", "k2"],
            "url": ["javascript:alert(1)", "https://x.org/a b"],
        }
    )
    cells = urls.select(safe.link(pl.col("label"), pl.col("url")).markup).to_series()
    assert cells.to_list() == [
        "&lt;b&gt;k&lt;/b&gt;",
        '<a href="https://x.org/a%20b">k2</a>',
    ]
    assert safe.link_md("<b>", "javascript:x") == "&lt;b&gt;"
    assert safe.link_md("s", "https://x.org/?a=1&b=2") == (
        '<a href="https://x.org/?a=1&amp;b=2">s</a>'
    )
    assert safe.markdown_link("r", "data:text/html,x") == "r"


@pytest.mark.parametrize(
    "target", ["javascript:x", "a b.md", 'x".md', "x).md", "//evil.org/x", "a\nb"]
)
def test_paths_of_ours_refuse_anything_else(target: str) -> None:
    if target.startswith("//"):
        # No scheme: a protocol-relative path is still only slugs and slashes.
        assert safe.path(target) == target
        return
    with pytest.raises(ValueError, match="not a relative path of ours"):
        safe.path(target)


def test_code_and_names_refuse_what_would_leave_their_context() -> None:
    assert safe.code('base = "https://x.org/"') == 'base = "https://x.org/"'
    with pytest.raises(ValueError):
        safe.code("```\n<script>")
    assert safe.name("software_gains.csv") == "software_gains.csv"
    with pytest.raises(ValueError):
        safe.name("<b>")


def test_theme_text_of_the_mkdocs_hook_is_escaped_and_removing_it_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def page() -> SimpleNamespace:
        return SimpleNamespace(meta={"title": EVIL, "description": '"><img src=x>'})

    shown = page()
    mkdocs_hooks.on_page_markdown("# x\n", page=shown, config={})
    assert '"' not in shown.meta["description"] and "<" not in shown.meta["title"]
    monkeypatch.setattr(mkdocs_hooks, "escape", lambda value: value)
    leaked = page()
    mkdocs_hooks.on_page_markdown("# x\n", page=leaked, config={})
    assert '"' in leaked.meta["description"]


# -- only the layer marks text safe ---------------------------------------------------

RENDER = Path(render_package.__file__).parent
#: The layer: the escape rules, the types, the cell constructors and tables.
LAYER = {"escape.py", "safe.py", "tables.py"}
#: Contexts with their own escaping: the MkDocs theme's HTML (MarkupSafe, after the
#: tags are stripped) and the Atom feed's XML around entry HTML built with ``Md``.
OTHER_CONTEXTS = {"mkdocs/hooks.py": "markupsafe", "feed.py": "xml.sax.saxutils"}


def _page_sources() -> list[Path]:
    return sorted(p for p in RENDER.rglob("*.py") if p.name not in LAYER)


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(RENDER) if path.is_relative_to(RENDER) else path.name
    context = path.relative_to(RENDER).as_posix() if path.is_relative_to(RENDER) else ""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            allowed = OTHER_CONTEXTS.get(context)
            if node.module == "pipeline.render.escape" or (
                node.module in ("markupsafe", "xml.sax.saxutils")
                and node.module != allowed
            ):
                found.append(f"{where}:{node.lineno} imports from {node.module}")
            if node.module == "pipeline.render.safe" and any(
                a.name.startswith("_") for a in node.names
            ):
                found.append(f"{where}:{node.lineno} imports a private of safe")
        if isinstance(node, ast.Attribute) and node.attr == "_trusted":
            found.append(f"{where}:{node.lineno} marks an expression safe")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("Md", "Markup")
            and context not in OTHER_CONTEXTS
        ):
            args = node.args
            literal = (
                len(args) == 1
                and not node.keywords
                and isinstance(args[0], ast.Constant)
                and isinstance(args[0].value, str)
            )
            if not literal:
                found.append(
                    f"{where}:{node.lineno} calls {node.func.id} on non-literal"
                )
    return found


def test_only_the_layer_escapes_or_marks_text_safe() -> None:
    sources = _page_sources()
    assert len(sources) > 20  # every page module is read
    assert [p for path in sources for p in _problems(path)] == []


def test_the_source_check_finds_a_page_that_marks_text_safe(tmp_path: Path) -> None:
    page = tmp_path / "page.py"
    page.write_text(
        "from pipeline.render.escape import escape\n"
        "from pipeline.render.safe import Md, _trusted\n"
        "def f(name):\n"
        "    return Md(name) + Md(f'<b>{name}</b>') + Md('<i>{}</i>').format(name)\n",
        encoding="utf-8",
    )
    problems = _problems(page)
    assert [p.split(" ", 1)[1] for p in problems] == [
        "imports from pipeline.render.escape",
        "imports a private of safe",
        "calls Md on non-literal",
        "calls Md on non-literal",
    ]
