"""The one safe layer pages build Markdown and HTML through: escaped unless built so.

Page code never marks text safe itself. It writes fragments through two types whose
every interpolated value is escaped by ``escape.escape`` (entities that are inert in
Markdown and in HTML at once) unless that value already is one of these types:

* ``Md``: a Python string of safe Markdown-with-HTML. A MarkupSafe ``Markup`` whose
  ``escape`` is ours (MarkupSafe's own leaves ``[x](javascript:...)``, ``|`` and
  ``*`` live in Markdown). ``Md("<b>{}</b>").format(name)`` escapes ``name``;
  ``Md(...)`` itself is only ever called on a string literal of page code (a
  template), which ``tests/unit/render/test_safe.py`` checks over every module.
* ``MdExpr``: the same for a Polars expression, so cells stay vectorised.
  ``fmt("<b>{}</b>", pl.col("submitter"))`` escapes the column; ``text``, ``lit``,
  ``concat``, ``when`` and ``link`` build the rest. Put into a frame with
  ``.cell()``, a fragment is a struct column with one field named ``__html__`` (the
  protocol MarkupSafe uses), so its type travels through ``with_columns``, joins and
  sorts; ``tables.html_table`` and ``tables.markdown_table`` emit only such columns
  as they are and escape every other column. A raw upstream string put into a table
  is therefore escaped without anyone remembering to.

Links go through ``link`` (Polars) and ``link_md`` (Python): the URL through
``safe_url``, and the text kept, without a link, when the URL is refused.

Only this module and ``tables`` (whose cell constructors format numbers and badges)
call ``_trusted``; ``test_safe.py`` checks that too.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence
from typing import Any, LiteralString

import polars as pl
from markupsafe import Markup

from pipeline.render.escape import escape, safe_url

#: The one field of a safe cell's struct: MarkupSafe's name for "already markup".
HTML_FIELD = "__html__"


class _Formatter(string.Formatter):
    """``Md.format``'s formatter: numbers as written, markup raw, the rest escaped.

    A number cannot carry markup, and escaping it would turn "1.5" into "1&#46;5"
    (a line-start rule): ints and floats are formatted with their spec, unescaped.
    Everything else goes through the template's ``escape`` (``Md.escape``).
    """

    def __init__(self, escape_text: Any) -> None:
        super().__init__()
        self.escape_text = escape_text

    def format_field(self, value: Any, format_spec: str) -> str:
        if hasattr(value, "__html__"):
            if format_spec:
                raise ValueError(f"format spec {format_spec!r} given for markup")
            return str(value.__html__())
        if isinstance(value, int | float) and not isinstance(value, bool):
            return format(value, format_spec)
        if value is None:  # as ``escape``: nothing to show, not "None"
            return ""
        text = format(value, format_spec) if format_spec else str(value)
        return str(self.escape_text(text))


class Md(Markup):
    """Safe Markdown-with-HTML: a template of page code, or text escaped by our rules.

    Concatenation (``+``), ``join``, ``%`` and ``format`` escape every plain string
    they are given, as MarkupSafe's ``Markup`` does, but with ``escape.escape``.
    """

    __slots__ = ()

    @classmethod
    def escape(cls, s: Any, /) -> Md:  # type: ignore[override]
        """``s`` escaped by ``escape.escape`` unless it is markup already."""
        if hasattr(s, "__html__"):
            return cls(s.__html__())
        if isinstance(s, int | float) and not isinstance(s, bool):
            return cls(str(s))
        return cls(escape(None if s is None else str(s)))

    def format(self, *args: Any, **kwargs: Any) -> Md:
        """The template with every argument escaped unless it is markup."""
        return self.__class__(_Formatter(self.escape).vformat(self, args, kwargs))

    def format_map(self, mapping: Any, /) -> Md:  # type: ignore[override]
        """``format`` with named fields from ``mapping``."""
        return self.__class__(_Formatter(self.escape).vformat(self, (), mapping))


def md_join(separator: LiteralString, parts: Iterable[Any]) -> Md:
    """``parts`` joined by a separator of code; plain strings among them escaped."""
    return Md(separator).join(parts)


class MdExpr:
    """A Polars expression whose strings are safe Markdown-with-HTML.

    Built only by this module's functions (and ``tables``' cell constructors), never
    from an arbitrary expression by page code.
    """

    __slots__ = ("markup",)

    def __init__(self, markup: pl.Expr) -> None:
        #: The safe text as a plain String expression: reading it out is fine,
        #: wrapping an arbitrary expression back is not (see ``_trusted``).
        self.markup = markup

    def cell(self, name: str | None = None) -> pl.Expr:
        """The fragment as a typed column (a struct of ``__html__``) for a frame."""
        typed = pl.struct(self.markup.alias(HTML_FIELD))
        return typed if name is None else typed.alias(name)

    def fill_null(self, value: LiteralString | Md) -> MdExpr:
        """Null rows shown as ``value``: markup of code, such as "—" (as ``lit``)."""
        return MdExpr(self.markup.fill_null(pl.lit(str(value), pl.String)))

    def __add__(self, other: MdExpr | Md | LiteralString) -> MdExpr:
        return concat(self, other)


def _trusted(expr: pl.Expr) -> MdExpr:
    """Mark an expression safe: only for text this layer or ``tables`` produced."""
    return MdExpr(expr)


def _markup(value: Any) -> str:
    """A Python value as safe text: markup as is, anything else escaped."""
    return str(Md.escape(value))


def _part(value: MdExpr | pl.Expr | Any) -> pl.Expr:
    """One interpolated value as a safe String expression."""
    if isinstance(value, MdExpr):
        return value.markup
    if isinstance(value, pl.Expr):
        return escape(value.cast(pl.String))
    return pl.lit(_markup(value), pl.String)


def text(value: pl.Expr | str | None) -> MdExpr:
    """Upstream text (a column or a Python string), escaped."""
    return MdExpr(_part(value))


def lit(markup: LiteralString | Md) -> MdExpr:
    """Markup of code (a tag, a badge, an em dash) as a constant expression."""
    return MdExpr(pl.lit(str(markup), pl.String))


def fmt(template: LiteralString | Md, *args: MdExpr | pl.Expr | Any) -> MdExpr:
    """``pl.format`` of a template of code; every argument escaped unless safe.

    A null argument makes the row null, as in ``pl.format``... except that escaped
    expressions are never null (``escape`` fills nulls with ""); use ``when`` where
    a missing value should show differently.
    """
    return MdExpr(pl.format(str(template), *(_part(a) for a in args)))


def concat(*parts: MdExpr | pl.Expr | Any, separator: LiteralString = "") -> MdExpr:
    """Fragments one after another; plain expressions and strings escaped."""
    return MdExpr(pl.concat_str([_part(p) for p in parts], separator=separator))


def when(
    condition: pl.Expr,
    then: MdExpr | pl.Expr | Any,
    otherwise: MdExpr | pl.Expr | Any = None,
) -> MdExpr:
    """``then`` where ``condition`` holds, else ``otherwise`` (null when None)."""
    chosen = pl.when(condition).then(_part(then))
    return MdExpr(chosen if otherwise is None else chosen.otherwise(_part(otherwise)))


def choose(
    branches: Sequence[tuple[pl.Expr, MdExpr | pl.Expr | Any]],
    otherwise: MdExpr | pl.Expr | Any = None,
) -> MdExpr:
    """The first branch whose condition holds (``when/then``), else ``otherwise``."""
    (first, value), *rest = branches
    chain = pl.when(first).then(_part(value))
    for condition, branch in rest:
        chain = chain.when(condition).then(_part(branch))
    return MdExpr(chain if otherwise is None else chain.otherwise(_part(otherwise)))


def coalesce(*parts: MdExpr | pl.Expr | Any) -> MdExpr:
    """The first non-null fragment of each row; plain expressions escaped."""
    return MdExpr(pl.coalesce([_part(p) for p in parts]))


def col(name: str) -> MdExpr:
    """A typed column (built with ``MdExpr.cell``) read back as a fragment.

    Reading a plain String column this way fails (it is no struct), so an unescaped
    column cannot be passed off as safe.
    """
    return MdExpr(pl.col(name).struct.field(HTML_FIELD))


def ident(value: pl.Expr) -> MdExpr:
    """An id or anchor built from slugs, kept to ``[A-Za-z0-9._-]`` (so it is safe)."""
    return MdExpr(value.str.replace_all(r"[^A-Za-z0-9._-]", ""))


def numeric(value: pl.Expr) -> MdExpr:
    """A number as written ("97.5", "-3", "1,234.5", "1e+20"): digits and signs only.

    Anything else is dropped, so even a string column given by mistake cannot carry
    markup; a number is written as it is (escaping would turn "97.5" into
    "97&#46;5", a line-start rule).
    """
    return MdExpr(value.cast(pl.String).str.replace_all(r"[^0-9.,eE+-]", ""))


def href(value: pl.Expr) -> MdExpr:
    """A relative path and anchor of ours, kept to the characters ``path`` allows."""
    return MdExpr(value.str.replace_all(r"[^A-Za-z0-9._~/%+#-]", ""))


def each(column: str, separator: LiteralString = ", ") -> MdExpr:
    """A list column's values, each escaped, as one fragment: "v5.1, v6.0"."""
    return MdExpr(pl.col(column).list.eval(escape(pl.element())).list.join(separator))


def each_of(
    items: pl.Expr, fragment: MdExpr, separator: LiteralString = ", "
) -> MdExpr:
    """``fragment`` (written over ``pl.element()``) for each value of a list, joined."""
    return MdExpr(items.list.eval(fragment.markup).list.join(separator))


def series(name: str, items: Iterable[Any]) -> pl.Series:
    """A typed column from Python values: ``Md`` as it is, anything else escaped."""
    texts = pl.Series(HTML_FIELD, [_markup(v) for v in items], dtype=pl.String)
    return pl.DataFrame([texts]).select(pl.struct(HTML_FIELD).alias(name)).to_series()


def cell_value(value: dict[str, str | None] | None) -> Md:
    """One row's value of a typed column (``frame.row(..., named=True)``) as ``Md``.

    Only a typed cell (a dict of ``__html__``) is accepted: a plain string read from
    a frame is upstream text, not markup.
    """
    if value is None:
        return Md("")
    if not isinstance(value, dict) or list(value) != [HTML_FIELD]:
        raise TypeError(f"not a typed cell: {value!r}")
    return Md(value[HTML_FIELD] or "")


def values(frame: pl.DataFrame, fragment: MdExpr) -> list[Md]:
    """The fragment evaluated over ``frame``, one ``Md`` per row (null as "")."""
    series = frame.select(fragment.markup.fill_null("").alias("md")).to_series()
    return [Md(v) for v in series.to_list()]


def link(
    label: MdExpr | pl.Expr | Any,
    url: pl.Expr,
    title: pl.Expr | MdExpr | None = None,
    *,
    attributes: LiteralString = "",
) -> MdExpr:
    """An ``<a>`` to an upstream URL; just the label where ``safe_url`` refuses it.

    Raw HTML rather than Markdown link syntax: upstream URLs may hold characters
    that end a Markdown link target early. ``label`` is escaped unless safe.
    """
    href = safe_url(url)
    inner = _part(label)
    title_attr = pl.lit("") if title is None else pl.format(' title="{}"', _part(title))
    template = f'<a href="{{}}"{{}}{attributes}>{{}}</a>'
    anchor = pl.format(template, href, title_attr, inner)
    return MdExpr(pl.when(href.is_not_null()).then(anchor).otherwise(inner))


def chart_url(url: pl.Expr) -> pl.Expr:
    """An upstream URL for chart data or the Explorer's JSON: http(s) or null.

    JSON context, not markup: ``&`` stays ``&`` (an entity would corrupt the link);
    the chart files escape ``<``, ``>`` and ``&`` as JSON escapes
    (``charts.spec.json_text``) and Vega opens only what ``safe_url`` let through.
    """
    return safe_url(url, html=False)


def accepts(url: str | None) -> bool:
    """Whether ``link``/``link_md`` would link ``url`` (``safe_url`` takes it)."""
    return bool(safe_url(url))


def link_md(label: Any, url: str | None, *, attributes: LiteralString = "") -> Md:
    """``link`` for one Python value: an ``<a>``, or the escaped label if refused."""
    inner = Md.escape(label)
    href = safe_url(url)
    if not href:
        return inner
    # safe_url's output is percent- and entity-encoded for a quoted attribute.
    template = Md('<a href="{}"') + Md(attributes) + Md(">{}</a>")
    return template.format(_Url(href), inner)


class _Url(str):
    """A URL ``safe_url`` accepted: already encoded for a quoted attribute."""

    __slots__ = ()

    def __html__(self) -> str:
        return str(self)


#: What a path of ours (``tables.relative`` of slugs, an anchor) may hold: no
#: scheme, nothing that ends a Markdown link target or an attribute.
_PATH = re.compile(r"[A-Za-z0-9._~/%+-]*(#[A-Za-z0-9._-]*)?")


def path(target: str) -> Md:
    """A relative path or anchor of ours, for a link target or a ``src``/``href``.

    Page paths are built from slugs and may hold ``_`` and ``#``, which ``escape``
    would turn into entities; this checks the shape instead and refuses anything
    else (a scheme, a space, a quote, a parenthesis).
    """
    if not _PATH.fullmatch(target):
        raise ValueError(f"not a relative path of ours: {target!r}")
    return Md(target)


def markdown_link(label: Any, url: str | None) -> Md:
    """A Markdown link to a web address of ours (the manifest's repository page).

    The URL goes through ``safe_url``; where it is refused the label stays, escaped.
    """
    href = safe_url(url)
    if not href:
        return Md.escape(label)
    return Md("[{}]({})").format(label, _Url(href))


def name(value: str) -> Md:
    """A name of ours (a download table, a file name): shown as written.

    Only letters, digits, ``_``, ``.`` and ``-`` pass, which no Markdown or HTML
    reads as markup inside a word; anything else is refused.
    """
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", value):
        raise ValueError(f"not a name of ours: {value!r}")
    return Md(value)


def code(value: str) -> Md:
    """A value for one line of a fenced code block: shown as written, not escaped.

    Inside a fence Markdown and HTML are literal text (entities would show), and
    only a backtick fence or a line break could leave it: both are refused.
    """
    if "`" in value or any(c in value for c in "\r\n\x00"):
        raise ValueError(f"cannot go inside a code block: {value!r}")
    return Md(value)


def heading(depth: int) -> Md:
    """The ``#`` marks of a Markdown heading of ``depth`` (1-6)."""
    if not 1 <= depth <= 6:
        raise ValueError(f"no Markdown heading of depth {depth}")
    return Md("#" * depth)


def page_link(label: Any, target: str) -> Md:
    """A Markdown link to one of our pages: the label escaped, the path checked."""
    return Md("[{}]({})").format(label, path(target))
