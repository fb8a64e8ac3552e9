import polars as pl

from pipeline.render.tables import (
    disclosure,
    html_table,
    markdown_table,
    number,
    ratio,
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
        "| A | N |\n|---|---:|\n| x | 1 |\n| y | 22 |\n"
    )
    html = html_table(
        frame, {"a": "A", "n": "N"}, numeric=("n",), wide=("a",), searchable=False
    )
    assert html.startswith(
        '<table data-search-exclude>\n<thead><tr><th class="ledger-wide">A</th>'
    )
    assert (
        '<tr><td class="ledger-wide">y</td><td style="text-align: right;">22</td></tr>'
        in html
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
        disclosure(pl.col("text"))
    )["text"]
    assert cells.to_list() == [
        forty,
        f'<details class="ledger-more"><summary>{"a" * 39}…</summary>…az</details>',
        f'<details class="ledger-more"><summary>{"b" * 39}…</summary>'
        "…&lt;script&gt;</details>",
    ]
