"""Vectorised cell formatting and Markdown tables: part of the safe layer.

Cells are built with Polars expressions over whole frames, so no page loops over result
rows. The cell constructors here return ``safe.MdExpr`` fragments (typed columns once
put into a frame with ``.cell()``); ``html_table`` and ``markdown_table`` escape every
column that is not such a fragment, so an upstream string put into a table is escaped
whatever the caller did. Numbers are formatted here so all pages agree on precision
(``number``, ``ratio``, ``percent`` give plain text for prose, charts and downloads;
``number_cell``, ``ratio_cell`` and ``percent_cell`` the same as table fragments).
"""

from __future__ import annotations

import html
import posixpath
import re
from collections.abc import Iterable, Sequence
from functools import cache

import polars as pl

from pipeline.render import safe
from pipeline.render.escape import escape
from pipeline.render.safe import HTML_FIELD, Md, MdExpr, _trusted

#: Significant digits shown for measured values: MLPerf summaries report about six.
SIGNIFICANT_DIGITS = 6

PREVIEW_BADGE = (
    '<span class="ledger-badge ledger-badge--preview" title="Preview: the system was '
    'not yet available when the result was published">preview</span>'
)
INFERRED_BADGE = (
    '<span class="ledger-badge ledger-badge--inferred" title="Inferred: derived from '
    'a run of another scenario of the same system (see Methodology)">inferred</span>'
)
#: Upstream's mark where its checker also marks measured results and nothing read
#: can tell (``is_inferred_unverified``): what is known, no more.
MARKED_BADGE = (
    '<span class="ledger-badge ledger-badge--inferred" title="Marked inferred '
    "upstream by a checker that also marks measured results so; whether it was "
    'inferred is not known (see Methodology)">marked inferred upstream</span>'
)
DERIVED_NOTICE = (
    '!!! warning "Derived, unofficial — not MLPerf results"\n'
    "    The ratios on this page are computed by mlperf-ledger from published MLPerf "
    "Inference results. They are derived, unofficial metrics: not MLPerf results, not "
    "verified by MLCommons Association, and not endorsed by it. Every row names and "
    "links the two official results it divides. See the "
    "[methodology]({methodology}).\n"
)


def number(expr: pl.Expr, digits: int = SIGNIFICANT_DIGITS) -> pl.Expr:
    """Format a float as text with thousands separators: 27803.9 -> "27,803.9".

    Polars has no number formatting with grouping, so the integer part is grouped by
    reversing it and inserting a comma after every third digit. Values Polars writes
    with an exponent keep it, with ``digits`` significant digits in the mantissa
    ("3.59662e+303", not the float noise of rounding at that magnitude).
    """
    text = expr.round_sig_figs(digits).cast(pl.String).str.replace(r"\.0$", "")
    integer = text.str.extract(r"^(\d+)")
    rest = text.str.replace(r"^\d+", "")
    grouped = (
        integer.str.reverse()
        .str.replace_all(r"(\d{3})", "${1},")
        .str.strip_suffix(",")
        .str.reverse()
    )
    return (
        pl.when(text.str.contains(r"[eE]"))
        .then(_scientific(expr.cast(pl.Float64), digits))
        .when(integer.is_null())
        .then(text)
        .otherwise(grouped + rest)
    )


def ratio_text(value: float) -> str:
    """``ratio`` of one value, for prose: "1.50×"."""
    return pl.select(ratio(pl.lit(value, pl.Float64))).item()


def ratio_md(value: float) -> Md:
    """``ratio_text`` as markup, for prose built with ``Md``."""
    return Md(ratio_text(value))


def _scientific(value: pl.Expr, digits: int) -> pl.Expr:
    """``value`` as "m.mmmmme+X", ``digits`` significant digits (finite, non-zero)."""
    exponent = value.abs().log10().floor()
    # 10**-324 underflows to 0: scale subnormal values up before dividing.
    scaled = (
        pl.when(exponent < -300)
        .then(value * 1e20 / pl.lit(10.0).pow(exponent + 20))
        .otherwise(value / pl.lit(10.0).pow(exponent))
    )
    rounded = scaled.round(digits - 1)
    carry = rounded.abs() >= 10  # 9.9999999 rounds up to 10
    mantissa = pl.when(carry).then(rounded / 10).otherwise(rounded)
    power = (exponent + carry.cast(pl.Float64)).cast(pl.Int64, strict=False)
    return pl.format(
        "{}e{}{}",
        mantissa.cast(pl.String).str.replace(r"\.0$", ""),
        pl.when(power < 0).then(pl.lit("-")).otherwise(pl.lit("+")),
        power.abs().cast(pl.String),
    )


#: Beyond this many units of the last decimal a value is not written in fixed
#: point: an Int64 cast would overflow (1e308 once crashed rendering), and "1e+20×"
#: reads better than twenty digits.
FIXED_LIMIT = 1e15


def _fixed(expr: pl.Expr, places: int) -> pl.Expr:
    """A float with ``places`` decimals, or ``number`` where that would mislead.

    Any finite float is formatted without error: values too large for fixed point,
    and non-zero values that would round to zero ("0.00×" for 1e-20), are written by
    ``number`` ("1e+20", "1e-20"). Negative values keep their sign.
    """
    value = expr.cast(pl.Float64)
    factor = 10**places
    scaled = (value.abs() * factor).round(0)
    fits = (scaled < FIXED_LIMIT) & ((scaled > 0) | (value == 0))
    # strict=False: the cast is evaluated for every row, also where ``fits`` is false.
    units = scaled.cast(pl.Int64, strict=False)
    sign = pl.when(value < 0).then(pl.lit("-")).otherwise(pl.lit(""))
    if places:
        digits = (units % factor).cast(pl.String).str.zfill(places)
        fixed = pl.format("{}{}.{}", sign, units // factor, digits)
    else:
        fixed = pl.format("{}{}", sign, units)
    return pl.when(fits).then(fixed).otherwise(number(value))


def _named_like(out: pl.Expr, expr: pl.Expr) -> pl.Expr:
    """``out`` under the name of ``expr``, so callers can select by that name."""
    name = expr.meta.output_name(raise_if_undetermined=False)
    return out.alias(name) if name else out


def ratio(expr: pl.Expr) -> pl.Expr:
    """Format a ratio with two decimals and a multiplication sign: 1.5 -> "1.50×".

    Ratios beyond fixed point (1e+20×) or too small for two decimals (1e-20×) are
    written with an exponent instead of failing or showing "0.00×".
    """
    return _named_like(pl.format("{}×", _fixed(expr, 2)), expr)


def percent(expr: pl.Expr) -> pl.Expr:
    """Format a fraction as a whole percentage: 0.97 -> "97%" (1e20 -> "1e+22%")."""
    return _named_like(pl.format("{}%", _fixed(expr.cast(pl.Float64) * 100, 0)), expr)


def badge_predicates(
    is_preview: pl.Expr, is_inferred: pl.Expr, unverified: pl.Expr | None = None
) -> dict[str, pl.Expr]:
    """Which badge a result shows, one predicate per badge (false, never null).

    ``badges`` draws them and ``badge_counts`` counts them: one definition, so a
    page's count of badged results is the number of badges it shows. An inferred
    result shows "inferred" only; "marked inferred upstream" is for the rest.
    """
    inferred = is_inferred.fill_null(False)
    marked = pl.lit(False) if unverified is None else unverified.fill_null(False)
    return {
        "preview": is_preview.fill_null(False),
        "inferred": inferred,
        "marked_inferred": ~inferred & marked,
    }


def badge_counts() -> dict[str, pl.Expr]:
    """How many results of a frame show each badge (result-table columns)."""
    shown = badge_predicates(
        pl.col("is_preview"), pl.col("is_inferred"), pl.col("is_inferred_unverified")
    )
    return {name: predicate.sum() for name, predicate in shown.items()}


def badges(
    is_preview: pl.Expr, is_inferred: pl.Expr, unverified: pl.Expr | None = None
) -> MdExpr:
    """HTML badges marking preview and inferred results ("" when neither applies).

    ``unverified``: upstream marks the result inferred and nothing read can tell.
    Which badge shows is ``badge_predicates``.
    """
    shown = badge_predicates(is_preview, is_inferred, unverified)
    return _trusted(
        pl.concat_str(
            pl.when(shown["preview"])
            .then(pl.lit(" " + PREVIEW_BADGE))
            .otherwise(pl.lit("")),
            pl.when(shown["inferred"])
            .then(pl.lit(" " + INFERRED_BADGE))
            .when(shown["marked_inferred"])
            .then(pl.lit(" " + MARKED_BADGE))
            .otherwise(pl.lit("")),
        )
    )


def number_cell(expr: pl.Expr, digits: int = SIGNIFICANT_DIGITS) -> MdExpr:
    """``number`` as a table fragment (digits and separators hold no markup)."""
    return _trusted(number(expr, digits))


def ratio_cell(expr: pl.Expr) -> MdExpr:
    """``ratio`` as a table fragment."""
    return _trusted(ratio(expr))


def percent_cell(expr: pl.Expr) -> MdExpr:
    """``percent`` as a table fragment."""
    return _trusted(percent(expr))


def external_link(
    label: MdExpr | pl.Expr, url: pl.Expr, title: pl.Expr | None = None
) -> MdExpr:
    """An ``<a>`` to an upstream URL around ``label``; the label alone if refused.

    ``label`` is escaped unless it is a fragment already (``safe.link``).
    """
    return safe.link(label, url, title)


def result_cell(
    value: pl.Expr,
    url: pl.Expr,
    key: pl.Expr | None,
    is_preview: pl.Expr,
    is_inferred: pl.Expr,
    unverified: pl.Expr | None = None,
    *,
    result_id: pl.Expr | None = None,
) -> MdExpr:
    """A value linked to its upstream result folder, followed by its badges.

    ``key`` (the result key) becomes the link's tooltip; pass None where the key is
    printed next to the value anyway. With ``result_id``, the official ID (what a
    citation names) leads the tooltip where upstream publishes one: "result ID
    5.1-0001 · key 5.1-0001:llama2-70b-99:Offline". ``unverified``: as for ``badges``.
    """
    if key is not None and result_id is not None:
        key = (
            pl.when(result_id.is_not_null())
            .then(pl.format("result ID {} · key {}", result_id, key))
            .otherwise(key)
        )
    return safe.link(number_cell(value), url, title=key) + badges(
        is_preview.fill_null(False), is_inferred.fill_null(False), unverified
    )


#: Characters of a long upstream text shown before its disclosure is opened.
DISCLOSURE_CHARS = 40


def disclosure(value: pl.Expr, chars: int = DISCLOSURE_CHARS) -> MdExpr:
    """Upstream text, escaped; past ``chars`` characters the rest opens on demand.

    Software strings run to hundreds of characters and made table rows many lines
    tall. A long one shows its start as a ``<details>`` summary and the rest inside
    it, so a row stays one or two lines tall and no character is lost. The text is
    cut before escaping, so an entity is never split.
    """
    long = value.str.len_chars() > chars
    return safe.when(
        long,
        safe.fmt(
            '<details class="ledger-more"><summary>{}…</summary>…{}</details>',
            value.str.slice(0, chars - 1),
            value.str.slice(chars - 1),
        ),
        safe.text(value),
    )


#: A name longer than this many characters is shortened in a cell (issue 56: a
#: 10 KB system name was shown whole on Home and Latest) ...
LONG_NAME_CHARS = 120
#: ... to its first this many characters and "…", the whole name in ``title``.
SHORT_NAME_CHARS = 100
#: One shown character of escaped text: an entity whole, or one character.
_SHOWN_CHARACTER = re.compile(r"&#?\w+;|.", re.S)


def _shortened(text: str) -> str:
    """Escaped ``text``: as it is, or its start and "…" with the whole as title."""
    shown = _SHOWN_CHARACTER.findall(text)
    if len(shown) <= LONG_NAME_CHARS:
        return text
    # Escaped text is inert in a quoted attribute too (no quote, no "<" or "&").
    start = "".join(shown[:SHORT_NAME_CHARS])
    return f'<span class="ledger-long" title="{text}">{start}…</span>'


def _shortened_column(column: pl.Series) -> pl.Series:
    """``_shortened`` of each value; one length scan where none is long (most)."""
    if not (column.str.len_chars() > LONG_NAME_CHARS).any():
        return column
    return column.map_elements(_shortened, return_dtype=pl.String)


def name_cell(value: pl.Expr) -> MdExpr:
    """A name (submitter, system), escaped; a long one shortened, whole on hover.

    Past ``LONG_NAME_CHARS`` shown characters (an entity counts as one) a name
    shows its first ``SHORT_NAME_CHARS`` and "…", the whole text in the ``title``.
    Only the page is shortened: downloads write the frames, whose text is whole.
    """
    return _trusted(
        escape(value.cast(pl.String)).map_batches(
            _shortened_column, return_dtype=pl.String, is_elementwise=True
        )
    )


#: An accuracy cell whose result has none in the source (the Explorer's words too).
NO_ACCURACY = "not in the source this site read"


def accuracy_cell(value: pl.Expr) -> MdExpr:
    """The accuracy upstream published, as it wrote it, or ``NO_ACCURACY``.

    Upstream text (the summary's Accuracy, a raw tree's accuracy.txt), escaped as a
    name is (``name_cell``: a long one shortened, whole on hover), in ``<small>``;
    null or blank text says it is not in the source this site read.
    """
    given = value.cast(pl.String).str.strip_chars() != ""
    return safe.when(
        given, safe.fmt("<small>{}</small>", name_cell(value)), NO_ACCURACY
    )


def joined(column: str, separator: str = ", ") -> MdExpr:
    """A list column's values, each escaped, as one cell: "v5.1, v6.0"."""
    return _trusted(pl.col(column).list.eval(escape(pl.element())).list.join(separator))


def page_links(
    name: pl.Expr, links: dict[str, str], *, complete: bool = True
) -> MdExpr:
    """A Markdown link from each name to its page (``links``: name -> relative path).

    The paths are ours (``relative`` of slugs, checked by ``safe.path``), never
    upstream text. ``complete=False``: a name without a page gives null, for a
    ``when`` that shows it unlinked; otherwise a name without a page is an error.
    """
    paths = {k: str(safe.path(v)) for k, v in links.items()}
    target = (
        name.replace_strict(paths)
        if complete
        else name.replace_strict(paths, default=None, return_dtype=pl.String)
    )
    return safe.fmt("[{}]({})", name, _trusted(target))


def relative(from_page: str, target: str) -> Md:
    """Link from one docs-relative page path to another docs-relative path.

    With ``use_directory_urls: false`` a page's URL mirrors its source path, so the
    same relative path works for Markdown links and for chart ``data-spec`` attributes.
    Paths are built from slugs; ``safe.path`` checks the shape (and makes it markup).
    """
    return safe.path(posixpath.relpath(target, posixpath.dirname(from_page) or "."))


@cache
def cell_label(header: str) -> str:
    """A column header as the text of a ``data-label`` attribute.

    On a phone a table is shown as one block per row (site/assets/css/ledger.css);
    each cell names its column through this attribute. Headers are safe HTML for
    element content and may hold markup: the tags are dropped and the text escaped
    again for a quoted attribute inside Markdown (no quote, no ``|``, no ``<``).
    """
    text = html.unescape(re.sub(r"<[^>]*>", " ", header))
    return escape(text)


def _cell_text(schema: pl.Schema, column: str) -> pl.Expr:
    """One listed column as cell text: a fragment as built, anything else escaped.

    This is what makes a table safe by construction: only a struct column of
    ``__html__`` (``MdExpr.cell``) is emitted as it is; a String (or number) column
    is upstream text until proven otherwise. ``schema``: the frame's, read once per
    table (Polars builds it anew on every ``DataFrame.schema``).
    """
    dtype = schema[column]
    if isinstance(dtype, pl.Struct) and [f.name for f in dtype.fields] == [HTML_FIELD]:
        return pl.col(column).struct.field(HTML_FIELD).fill_null("")
    return _escaped(column)


@cache
def _escaped(column: str) -> pl.Expr:
    """``escape`` of one column as text, built once per column name.

    Expressions are immutable, so every table reuses one; building ``escape``'s
    chain of replacements again for each of ~1,900 tables cost more than running it.
    """
    return escape(pl.col(column).cast(pl.String))


def rows_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> Md:
    """A small Markdown table from Python values (pages that read a JSON file).

    Headers are text of code, as in ``markdown_table``; every cell is escaped
    unless it is ``Md``. No phone labels: these tables are two to eight columns.
    """
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
        *("| " + " | ".join(map(safe._markup, row)) + " |" for row in rows),
    ]
    return Md("\n".join(lines) + "\n")


def markdown_table(
    frame: pl.DataFrame, columns: dict[str, str], numeric: tuple[str, ...] = ()
) -> Md:
    """A Markdown table: fragment columns as built, every other column escaped.

    Markdown gives a cell no attributes, so every cell starts with an empty
    ``<span data-label>`` naming its column, for the phone layout.

    Args:
        frame: Rows to show, one row per table row, in display order.
        columns: Frame column -> header text (headers are ours, not upstream's).
        numeric: Columns to right-align.

    Returns:
        The table as Markdown, ending with a newline; "" for an empty frame.
    """
    if frame.height == 0:
        return Md("")
    header = "| " + " | ".join(columns.values()) + " |"
    rule = "|" + "|".join("---:" if c in numeric else "---" for c in columns) + "|"
    schema = frame.schema
    rows = frame.select(
        pl.concat_str(
            pl.lit("| "),
            pl.concat_str(
                [
                    pl.lit(f'<span data-label="{cell_label(title)}"></span>')
                    + _cell_text(schema, c)
                    for c, title in columns.items()
                ],
                separator=" | ",
            ),
            pl.lit(" |"),
        ).alias("row")
    )["row"]
    return Md("\n".join([header, rule, *rows.to_list()]) + "\n")


def html_row(
    schema: pl.Schema,
    columns: dict[str, str],
    numeric: tuple[str, ...] = (),
    *,
    wide: tuple[str, ...] = (),
) -> pl.Expr:
    """Each row's ``<tr>`` of an ``html_table`` with these columns, as one expression.

    A page kind whose tables are slices of one frame formats every row once with
    this (``frame.with_columns(html_row(frame.schema, ...))``) and builds each table
    from its slice with ``html_table_of_rows``: the same bytes as ``html_table``,
    without a query per table. ``schema``: the frame's; it decides which columns are
    fragments (``MdExpr.cell``) and which are escaped.
    """
    # One format string per row, not a concatenation of per-cell expressions: ~900
    # tables per build, each built in half the time. Its only "{}" are the cells:
    # cell_label escapes braces as character references.
    row = "".join(
        f'<td{_attributes(c, numeric, wide)} data-label="{cell_label(title)}">{{}}</td>'
        for c, title in columns.items()
    )
    return pl.format(f"<tr>{row}</tr>", *[_cell_text(schema, c) for c in columns])


def _attributes(column: str, numeric: tuple[str, ...], wide: tuple[str, ...]) -> str:
    if column in numeric:
        return ' style="text-align: right;"'
    return ' class="ledger-wide"' if column in wide else ""


def html_table(
    frame: pl.DataFrame,
    columns: dict[str, str],
    numeric: tuple[str, ...] = (),
    *,
    wide: tuple[str, ...] = (),
    searchable: bool = True,
) -> Md:
    """An HTML table: fragment columns (``MdExpr.cell``) as built, others escaped.

    Large tables (hundreds of rows of results or pairs) are written as raw HTML:
    Python-Markdown passes a raw HTML block through untouched instead of running its
    inline patterns over every cell, which keeps ``mkdocs build`` fast. Use it only for
    tables without links to other pages (MkDocs validates and rewrites those only in
    Markdown). ``escape`` output is valid HTML, so an escaped cell needs nothing more.
    Every cell names its column in ``data-label``, for the phone layout.

    Args:
        frame: Rows to show, in display order.
        columns: Frame column -> header text (already safe).
        numeric: Columns to right-align.
        wide: Columns whose cells hold several lines (a pair's end) and should not be
            squeezed narrower than a readable width.
        searchable: Index the cells for the site search. Tables that repeat what
            other pages list (pairs, per-benchmark pivots) opt out: the search index
            is downloaded by every first page view.

    Returns:
        The table as one HTML block followed by a blank line; "" for an empty frame.
    """
    if frame.height == 0:
        return Md("")
    rows = frame.select(html_row(frame.schema, columns, numeric, wide=wide))
    return html_table_of_rows(
        rows.to_series(), columns, numeric, wide=wide, searchable=searchable
    )


#: From this many rows on, a table's styling and layout wait until it is near the
#: screen (``html_table_of_rows``).
DEFERRED_FROM_ROWS = 10
#: What a deferred block holds: its table's rows and columns, from which ledger.css
#: guesses the height it holds before it is laid out (a row's line on a desk, a card
#: of a line per column on a phone).
DEFERRED_STYLE = "--ledger-rows: {}; --ledger-cols: {}"
#: Controls a table's cells may hold besides links. Inside a block that waits off
#: screen they cannot be hit-tested, so accessibility checkers (axe's target-size,
#: in Lighthouse) find them "obscured": such tables are never deferred.
TARGETS = "<details"


def holds_targets(html: str | pl.Expr) -> bool | pl.Expr:
    """Whether table HTML holds a ``TARGETS`` control (text, or an expression)."""
    if isinstance(html, str):
        return TARGETS in html
    return html.str.contains(TARGETS, literal=True)


def html_table_of_rows(
    rows: pl.Series,
    columns: dict[str, str],
    numeric: tuple[str, ...] = (),
    *,
    wide: tuple[str, ...] = (),
    searchable: bool = True,
) -> Md:
    """``html_table`` of rows already formatted by ``html_row`` with these columns.

    ``rows``: the ``html_row`` strings of the rows to show, in display order.
    """
    if rows.len() == 0:
        return Md("")
    heads = "".join(
        f"<th{_attributes(c, numeric, wide)}>{title}</th>"
        for c, title in columns.items()
    )
    body = "\n".join(rows.to_list())
    opening = "<table>" if searchable else "<table data-search-exclude>"
    head = f"<thead><tr>{heads}</tr></thead>"
    table = f"{opening}\n{head}\n<tbody>\n{body}\n</tbody>\n</table>"
    if rows.len() < DEFERRED_FROM_ROWS or holds_targets(body):
        return Md(f"{table}\n\n")
    # Off screen, a long table is neither styled nor laid out until a reader scrolls
    # near it (``content-visibility: auto`` in ledger.css): on a phone, styling every
    # row of Latest at load was two thirds of its main-thread time. The height it
    # holds meanwhile is a guess from its rows and columns (a phone stacks each row
    # into a card); the browser keeps the real one after.
    style = DEFERRED_STYLE.format(rows.len(), len(columns))
    return Md(f'<div class="ledger-deferred" style="{style}">\n{table}\n</div>\n\n')


def stringify(frame: pl.DataFrame) -> pl.DataFrame:
    """Every column as plain text, for frames whose schema the page does not know.

    Lists are joined with commas and structs written as JSON, so any frame handed to
    the Audit page (for example a cross-check) can be shown without custom code; the
    table escapes the text (plain String columns always are).
    """
    exprs = []
    for name, dtype in frame.schema.items():
        column = pl.col(name)
        if isinstance(dtype, pl.List):
            text = column.list.eval(pl.element().cast(pl.String)).list.join(", ")
        elif isinstance(dtype, pl.Struct):
            text = column.struct.json_encode()
        elif dtype.is_float():
            text = number(column)
        else:
            text = column.cast(pl.String)
        exprs.append(text.alias(name))
    return frame.select(exprs)


def group_cells(
    frame: pl.DataFrame, by: Sequence[str], column: str, separator: str = ""
) -> pl.DataFrame:
    """One row per group of ``by``: its typed cells of ``column`` joined, in order.

    Fragments joined are a fragment: the result's ``column`` is a typed cell again
    (``MdExpr.cell``). A plain String column is refused (it would be upstream text).
    """
    dtype = frame.schema[column]
    if not (
        isinstance(dtype, pl.Struct) and [f.name for f in dtype.fields] == [HTML_FIELD]
    ):
        raise TypeError(f"{column!r} is not a column of typed cells")
    joined_text = pl.col(column).struct.field(HTML_FIELD).fill_null("")
    return frame.group_by(list(by), maintain_order=True).agg(
        _trusted(joined_text.str.join(separator)).cell(column)
    )


def deferred(table: MdExpr, rows: pl.Expr, columns: pl.Expr) -> MdExpr:
    """Each row's table ended as ``html_table_of_rows`` ends one.

    From ``DEFERRED_FROM_ROWS`` rows on, in the block that waits off screen; then a
    blank line. ``table``: each table without it; ``rows`` and ``columns``: its body
    rows and its columns.
    """
    before, between = DEFERRED_STYLE.split("{}")[:2]
    wrapped = pl.concat_str(
        pl.lit(f'<div class="ledger-deferred" style="{before}'),
        rows.cast(pl.String),
        pl.lit(between),
        columns.cast(pl.String),
        pl.lit('">\n'),
        table.markup,
        pl.lit("\n</div>\n\n"),
    )
    plain = pl.concat_str(table.markup, pl.lit("\n\n"))
    defer = (rows >= DEFERRED_FROM_ROWS) & ~holds_targets(table.markup)
    return _trusted(pl.when(defer).then(wrapped).otherwise(plain))


def html_tables_by(
    frame: pl.DataFrame,
    by: str,
    columns: dict[str, str],
    numeric: tuple[str, ...] = (),
    *,
    wide: tuple[str, ...] = (),
    searchable: bool = True,
    name: str = "table",
) -> pl.DataFrame:
    """``html_table`` of each group of ``by`` (rows in frame order), in one query.

    Returns one row per group: ``by`` and ``name``, the group's table as a typed
    cell, byte for byte what ``html_table`` of the group's rows would write.
    """
    heads = "".join(
        f"<th{_attributes(c, numeric, wide)}>{title}</th>"
        for c, title in columns.items()
    )
    opening = "<table>" if searchable else "<table data-search-exclude>"
    rows = frame.select(
        by, _trusted(html_row(frame.schema, columns, numeric, wide=wide)).cell(name)
    )
    grouped = group_cells(rows, [by], name, "\n").join(
        rows.group_by(by).len("_rows"), on=by, maintain_order="left"
    )
    body = pl.col(name).struct.field(HTML_FIELD)
    table = _trusted(
        pl.concat_str(
            pl.lit(f"{opening}\n<thead><tr>{heads}</tr></thead>\n<tbody>\n"),
            body,
            pl.lit("\n</tbody>\n</table>"),
        )
    )
    return grouped.select(
        by, deferred(table, pl.col("_rows"), pl.lit(len(columns))).cell(name)
    )
