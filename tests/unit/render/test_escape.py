import markdown
import polars as pl
import pytest

from pipeline.render.escape import escape, safe_url

NASTY = [
    "<script>alert(1)</script>",
    "[click](javascript:alert(1))",
    "*bold* _em_ `code` | pipe \\ back",
    "- list item",
    "+ plus",
    "12. ordinal",
    "# heading",
    '--8<-- "/etc/passwd"',
    "{: onclick=alert(1) }",
    "line\nbreak\ttab",
    "&amp; already",
    "Dell PowerEdge R760xa (4x H100-PCIe-80GB, TensorRT)",
    "",
    None,
]
#: The extensions mkdocs.yml enables that act on inline text.
EXTENSIONS = ["tables", "attr_list", "admonition", "toc"]


def test_script_and_markdown_link_become_entities() -> None:
    assert (
        escape("<script>alert(1)</script>")
        == "&lt;script&gt;alert&#40;1&#41;&lt;/script&gt;"
    )
    assert escape("[click](javascript:alert(1))") == (
        "&#91;click&#93;&#40;javascript&#58;alert&#40;1&#41;&#41;"
    )


def test_line_starts_cannot_open_blocks_and_whitespace_collapses() -> None:
    assert escape("- item") == "&#45; item"
    assert escape("12. x") == "12&#46; x"
    assert escape("5.1-0001:bert-99:Offline") == "5&#46;1-0001&#58;bert-99&#58;Offline"
    assert escape("a\n\nb\tc  ") == "a b c"
    assert escape(None) == ""


@pytest.mark.parametrize("text", [t for t in NASTY if t])
def test_escaped_text_renders_literally_in_markdown(text: str) -> None:
    html = markdown.markdown(
        f"| a | b |\n|---|---|\n| {escape(text)} | x |", extensions=EXTENSIONS
    )
    assert "<script" not in html and "javascript:" not in html.replace("&#58;", "?")
    assert "<a " not in html and "<em>" not in html and "<code>" not in html
    assert html.count("<td>") == 2  # the pipe did not split the cell
    # What a browser shows is the original text, whitespace collapsed.
    import html as html_module

    cell = html.split("<td>")[1].split("</td>")[0]
    assert html_module.unescape(cell) == " ".join(text.split())


def test_polars_expression_matches_python() -> None:
    column = pl.Series("s", NASTY, dtype=pl.String)
    vectorised = column.to_frame().select(escape(pl.col("s")))["s"].to_list()
    assert vectorised == [escape(t) for t in NASTY]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "https://github.com/mlcommons/x/tree/main/closed/A B/r",
            "https://github.com/mlcommons/x/tree/main/closed/A%20B/r",
        ),
        ("http://h.org/a?b=1&c=2", "http://h.org/a?b=1&amp;c=2"),
        (
            'https://h.org/"onmouseover="alert(1)',
            "https://h.org/%22onmouseover=%22alert%281%29",
        ),
        ("javascript:alert(1)", ""),
        ("JAVASCRIPT:alert(1)", ""),
        ("data:text/html,<script>", ""),
        ("//evil.example/x", ""),
        ("relative/path", ""),
        (None, ""),
    ],
)
def test_safe_url(url: str | None, expected: str) -> None:
    assert safe_url(url) == expected
    got = pl.DataFrame({"u": [url]}, schema={"u": pl.String}).select(
        safe_url(pl.col("u"))
    )["u"][0]
    assert (got or "") == expected


def test_safe_url_for_json_keeps_ampersand() -> None:
    assert safe_url("http://h.org/a?b=1&c=2", html=False) == "http://h.org/a?b=1&c=2"
