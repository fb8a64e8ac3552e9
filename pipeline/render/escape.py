"""Make upstream text inert in Markdown and HTML at once.

Upstream strings (system names, submitters, software, keys) end up inside Markdown
tables, headings, HTML attributes and raw HTML cells. Escaping each special character
as an HTML character reference works in all of those places: Python-Markdown leaves
``&#91;`` alone (so ``[x](javascript:...)`` is never a link), the tables extension does
not split on ``&#124;``, and browsers show the characters as text in both element
content and quoted attributes. Backslash escapes would not work inside raw HTML, which
is why we do not use them.

``escape`` and ``safe_url`` accept a Python string or a Polars expression and apply the
same rules from the same tables, so page code can stay vectorised.
"""

from __future__ import annotations

import re
from typing import overload

import polars as pl

#: Characters that mean something to HTML or to Python-Markdown and the extensions
#: in mkdocs.yml (emphasis, code, links, tables, attr_list braces, snippets' "<").
ENTITIES: dict[str, str] = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "'": "&#39;",
    "\\": "&#92;",
    "`": "&#96;",
    "*": "&#42;",
    "_": "&#95;",
    "{": "&#123;",
    "}": "&#125;",
    "[": "&#91;",
    "]": "&#93;",
    "(": "&#40;",
    ")": "&#41;",
    "#": "&#35;",
    "!": "&#33;",
    "|": "&#124;",
    "~": "&#126;",
    "^": "&#94;",
    "=": "&#61;",
    "$": "&#36;",
    ":": "&#58;",
}
_TABLE = str.maketrans(ENTITIES)
_WHITESPACE = r"\s+"
#: A string placed at the start of a line must not open a list ("- x", "+ x", "1. x").
_LEADING: tuple[tuple[str, str], ...] = (
    (r"^-", "&#45;"),
    (r"^\+", "&#43;"),
    (r"^(\d+)\.", "${1}&#46;"),
)

#: Characters percent-encoded in URLs: they would end the attribute, split a table
#: cell, or start Markdown syntax before Python-Markdown stashes the raw <a> tag.
URL_ENCODE: dict[str, str] = {
    " ": "%20",
    '"': "%22",
    "'": "%27",
    "<": "%3C",
    ">": "%3E",
    "`": "%60",
    "\\": "%5C",
    "{": "%7B",
    "}": "%7D",
    "|": "%7C",
    "^": "%5E",
    "[": "%5B",
    "]": "%5D",
    "(": "%28",
    ")": "%29",
    "&": "&amp;",
}
#: Only web links: no javascript:, data:, file: or relative URLs from upstream data.
_URL_ALLOWED = r"^https?://[A-Za-z0-9.-]+(:\d+)?(/\S*)?$"


#: Control characters other than whitespace (NUL, ESC, DEL, C1): no HTML or Markdown
#: may carry them (a NUL is a parse error), so each becomes U+FFFD, visibly.
_CONTROL = "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]"


#: Invisible characters: Unicode's Default_Ignorable_Code_Point property
#: (DerivedCoreProperties.txt, Unicode 15.1) and the interlinear annotation marks
#: U+FFF9-FFFB. That is every bidi control and isolate (U+061C, U+200E-200F,
#: U+202A-202E, U+2066-2069), zero-width characters and joiners, the BOM, tag
#: characters (U+E0000-E0FFF), variation selectors and the Hangul fillers (U+115F,
#: U+1160, U+3164, U+FFA0). Two names differing only by one look the same on a page,
#: and a bidi control reorders the text around it, so each is shown as its code
#: point, "[U+202E]". The site's scripts apply the same ranges
#: (``site/assets/js/text.js``; a test keeps the two equal).
INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_INVISIBLE = tuple(
    chr(c) for first, last in INVISIBLE_RANGES for c in range(first, last + 1)
)
_SHOWN = tuple(f"[U+{ord(c):04X}]" for c in _INVISIBLE)
_SHOW_INVISIBLE = str.maketrans(dict(zip(_INVISIBLE, _SHOWN, strict=True)))
#: One character class of them all, to find a raw one in a page.
INVISIBLE_PATTERN = re.compile(
    "[" + "".join(f"\\U{a:08X}-\\U{b:08X}" for a, b in INVISIBLE_RANGES) + "]"
)


def show_invisible(value: str) -> str:
    """``value`` with each invisible character written as its code point."""
    return value.translate(_SHOW_INVISIBLE)


#: ``INVISIBLE_PATTERN`` in the regex syntax Polars reads.
_INVISIBLE_CLASS = (
    "[" + "".join(f"\\x{{{a:X}}}-\\x{{{b:X}}}" for a, b in INVISIBLE_RANGES) + "]"
)


def _show_invisible_column(column: pl.Series) -> pl.Series:
    """A column with its invisible characters shown; as it is when it holds none.

    The replacement automaton of ~4,200 code points costs milliseconds to build, and
    a render escapes thousands of columns, almost none holding one: a regex scan
    decides first (a cold render went from 6 s to 10.5 s without it).
    """
    if not column.str.contains(_INVISIBLE_CLASS).any():
        return column
    return column.str.replace_many(list(_INVISIBLE), list(_SHOWN))


@overload
def escape(value: str | None) -> str: ...
@overload
def escape(value: pl.Expr) -> pl.Expr: ...
def escape(value: str | pl.Expr | None) -> str | pl.Expr:
    """Return upstream text that renders literally in Markdown and in HTML.

    Whitespace runs (including newlines, which would break a table row) collapse to one
    space; null becomes the empty string.

    Args:
        value: A string, None, or a Polars string expression.

    Returns:
        The escaped string, or an expression producing it.
    """
    if isinstance(value, pl.Expr):
        text = (
            value.fill_null("")
            .str.replace_all(_CONTROL, "\ufffd")
            .map_batches(
                _show_invisible_column, return_dtype=pl.String, is_elementwise=True
            )
            .str.replace_all(_WHITESPACE, " ")
            .str.strip_chars()
            .str.replace_many(list(ENTITIES), list(ENTITIES.values()))
        )
        for pattern, replacement in _LEADING:
            text = text.str.replace(pattern, replacement)
        return text
    if value is None:
        return ""
    text = re.sub(_CONTROL, "\ufffd", str(value)).translate(_SHOW_INVISIBLE)
    text = " ".join(text.split()).translate(_TABLE)
    for pattern, replacement in _LEADING:
        text = re.sub(pattern, replacement.replace("${1}", r"\1"), text, count=1)
    return text


@overload
def safe_url(value: str | None, *, html: bool = True) -> str: ...
@overload
def safe_url(value: pl.Expr, *, html: bool = True) -> pl.Expr: ...
def safe_url(value: str | pl.Expr | None, *, html: bool = True) -> str | pl.Expr:
    """Return an http(s) URL ready for an ``href`` attribute, or empty/null if unsafe.

    Upstream result folders may contain spaces ("closed/Naeem Khoshnevis/..."), so
    characters are percent-encoded first and the scheme and host are checked after.

    Args:
        value: A URL string, None, or a Polars string expression.
        html: Also write ``&`` as ``&amp;`` for an HTML attribute; False for URLs that
            go into JSON (chart data), where an entity would corrupt the link.

    Returns:
        The percent-encoded URL; "" (or null) for anything that is not an absolute
        http(s) URL.
    """
    table = URL_ENCODE if html else {k: v for k, v in URL_ENCODE.items() if k != "&"}
    if isinstance(value, pl.Expr):
        encoded = value.str.replace_many(list(table), list(table.values()))
        return pl.when(encoded.str.contains(_URL_ALLOWED)).then(encoded)
    if value is None:
        return ""
    encoded = value.translate(str.maketrans(table))
    return encoded if re.fullmatch(_URL_ALLOWED, encoded) else ""
