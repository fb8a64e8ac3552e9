import re
from html import unescape

import polars as pl
import pytest

from pipeline.render import tables
from pipeline.render.tables import (
    disclosure,
    html_row,
    html_table,
    html_table_of_rows,
    markdown_table,
    number,
    ratio,
    ratio_cell,
    relative,
)


def test_numbers_keep_six_significant_digits_with_grouping() -> None:
    values = pl.Series([27803.9, 169197.0, 3934.022912, 1234567.891, 0.5, None])
    shown = values.to_frame("v").select(number(pl.col("v")))["v"].to_list()
    assert shown == ["27,803.9", "169,197", "3,934.02", "1,234,570", "0.5", None]


def test_ratios_have_two_decimals_and_a_times_sign() -> None:
    shown = pl.DataFrame({"r": [1.5, 12.3456, 0.04]}).select(ratio(pl.col("r")))["r"]
    assert shown.to_list() == ["1.50×", "12.35×", "0.04×"]


def test_relative_links_between_generated_pages() -> None:
    assert (
        relative("generated/releases/v5.1.md", "generated/benchmarks/bert-99.md")
        == "../benchmarks/bert-99.md"
    )
    assert (
        relative("index.md", "generated/charts/home.json")
        == "generated/charts/home.json"
    )
    assert relative("generated/scaling.md", "methodology.md") == "../methodology.md"


def test_markdown_and_html_tables() -> None:
    frame = pl.DataFrame({"a": ["x", "y"], "n": ["1", "22"]})
    assert markdown_table(frame, {"a": "A", "n": "N"}, numeric=("n",)) == (
        "| A | N |\n|---|---:|\n"
        '| <span data-label="A"></span>x | <span data-label="N"></span>1 |\n'
        '| <span data-label="A"></span>y | <span data-label="N"></span>22 |\n'
    )
    html = html_table(
        frame, {"a": "A", "n": "N"}, numeric=("n",), wide=("a",), searchable=False
    )
    assert html.startswith(
        '<table data-search-exclude>\n<thead><tr><th class="ledger-wide">A</th>'
    )
    assert (
        '<tr><td class="ledger-wide" data-label="A">y</td>'
        '<td style="text-align: right;" data-label="N">22</td></tr>' in html
    )
    assert (
        markdown_table(frame.head(0), {"a": "A"})
        == ""
        == html_table(frame.head(0), {"a": "A"})
    )


def test_disclosure_folds_only_text_past_the_limit_and_never_splits_an_entity() -> None:
    forty = "a" * 40
    cut_at_markup = "b" * 39 + "<script>"
    cells = pl.DataFrame({"text": [forty, forty + "z", cut_at_markup]}).select(
        disclosure(pl.col("text")).markup.alias("text")
    )["text"]
    assert cells.to_list() == [
        forty,
        f'<details class="ledger-more"><summary>{"a" * 39}…</summary>…az</details>',
        f'<details class="ledger-more"><summary>{"b" * 39}…</summary>'
        "…&lt;script&gt;</details>",
    ]


#: A header holding markup, an entity, a quote and Markdown's cell separator.
HOSTILE_HEADER = 'Server <abbr title="x">TTFT</abbr> &amp; "p|q" <b>'


def test_cell_labels_are_plain_text_escaped_for_a_quoted_attribute() -> None:
    frame = pl.DataFrame({"v": [1.5]}).select(ratio_cell(pl.col("v")).cell("v"))
    html = html_table(frame, {"v": HOSTILE_HEADER})
    label = re.search(r'<td data-label="([^"]*)">1\.50×</td>', html)
    assert label is not None, html
    # No quote, "<" or "|" survives raw: the attribute cannot end early, hold a tag
    # or split a Markdown row; the browser decodes the references to the header text.
    assert label[1] == "Server TTFT &amp; &quot;p&#124;q&quot;"
    assert unescape(label[1]) == 'Server TTFT & "p|q"'
    markdown = markdown_table(frame, {"v": HOSTILE_HEADER})
    row = markdown.splitlines()[2]
    assert row == f'| <span data-label="{label[1]}"></span>1.50× |'
    assert row.count("|") == 2


def test_every_cell_names_its_column() -> None:
    frame = pl.DataFrame({"k": ["a", "b", None], "v": ["1", "2", "3"]})
    columns = {"k": "System", "v": "Result"}
    html = html_table(frame, columns, numeric=("v",), wide=("k",))
    assert re.findall(r'data-label="([^"]*)"', html) == ["System", "Result"] * 3
    markdown = markdown_table(frame, columns)
    assert re.findall(r'data-label="([^"]*)"', markdown) == ["System", "Result"] * 3


def test_a_table_sliced_from_rows_formatted_once_is_the_same_table() -> None:
    # Release pages format every round's rows once and slice a table per group:
    # each must be the bytes html_table gives its group, upstream text escaped.
    frame = pl.DataFrame(
        {
            "group": ["a", "b", "a"],
            "name": ["<script>alert(1)</script>", "Plain", '{braces} & "quotes"'],
            "value": [1.5, 2.0, None],
        }
    ).with_columns(c_value=ratio_cell(pl.col("value")).fill_null("—").cell())
    columns = {"name": "System", "c_value": "Ratio"}
    rows = frame.with_columns(c_row=html_row(frame.schema, columns, ("c_value",)))
    for part in rows.partition_by("group"):
        sliced = html_table_of_rows(part["c_row"], columns, ("c_value",))
        assert sliced == html_table(part.drop("c_row"), columns, ("c_value",))
        assert "<script>" not in sliced
    first = html_table_of_rows(rows.filter(group="a")["c_row"], columns, ("c_value",))
    assert "&lt;script&gt;alert&#40;1&#41;&lt;/script&gt;" in first
    assert html_table_of_rows(rows.clear()["c_row"], columns) == ""


def test_long_tables_wait_off_screen_holding_a_height_from_rows_and_columns() -> None:
    # From ten rows on, a table sits in a content-visibility block (ledger.css):
    # a phone styles and lays it out only when a reader scrolls near it, meanwhile
    # holding a height ledger.css guesses from the rows and columns named here.
    columns = {"k": "System", "v": "Result"}
    nine = html_table(
        pl.DataFrame({"k": [f"s{i}" for i in range(9)], "v": list(range(9))}), columns
    )
    assert nine.startswith("<table>") and "ledger-deferred" not in nine
    ten = html_table(
        pl.DataFrame({"k": [f"s{i}" for i in range(10)], "v": list(range(10))}), columns
    )
    assert ten.startswith(
        '<div class="ledger-deferred" style="--ledger-rows: 10; --ledger-cols: 2">\n'
        "<table>\n"
    )
    assert ten.endswith("</table>\n</div>\n\n")
    # A table holding disclosures is never deferred: a checker cannot hit-test
    # controls in a skipped block and calls them obscured (Lighthouse's target-size).
    folded = html_table(
        pl.DataFrame({"k": [f"s{i}" for i in range(10)]}).with_columns(
            k=disclosure(pl.col("k") + pl.lit(" more" * 40), 20).cell()
        ),
        {"k": "System"},
    )
    assert "<details" in folded and "ledger-deferred" not in folded


def test_tables_by_group_are_each_groups_html_table_byte_for_byte() -> None:
    # 12 rows (deferred off screen, DEFERRED_FROM_ROWS = 10) and 2 rows (plain).
    frame = pl.DataFrame(
        {"g": ["a"] * 12 + ["b"] * 2, "x": [f"<b>{i}</b>" for i in range(14)]}
    )
    made = tables.html_tables_by(frame, "g", {"x": "X"}, searchable=False, name="t")
    assert made["g"].to_list() == ["a", "b"]
    for group, cell in made.iter_rows():
        alone = tables.html_table(
            frame.filter(pl.col("g") == group), {"x": "X"}, searchable=False
        )
        assert cell["__html__"] == str(alone)
    assert made["t"][0]["__html__"].startswith('<div class="ledger-deferred"')
    assert "<b>" not in made["t"][1]["__html__"]  # escaped, as html_table does
    with pytest.raises(TypeError):
        tables.group_cells(frame, ["g"], "x")
