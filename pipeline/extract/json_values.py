"""JSON values at the trust boundary: what a scalar field of a record may hold.

Python's ``json`` accepts more than Polars or the later steps can take: integers of any
size (a bare ``ValueError`` past 4300 digits), ``NaN`` and ``Infinity``, numbers that
overflow a double, nesting deep enough to raise ``RecursionError``, and lists, objects
or booleans where a field should hold text or a number. ``loads`` parses so that none
of that raises anything but a ``ValueError`` with a message, and ``field_problem`` says
why one field's value cannot be a scalar, so an extractor rejects *that record*,
naming the field, instead of crashing on the whole file.
"""

from __future__ import annotations

import json
import math
import re

#: A signed 64-bit integer, the widest Polars column an upstream count can land in.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: Longest number text quoted in a message; longer ones are cut with their length.
_QUOTE_LIMIT = 40


#: Value types flattened to JSON text.
_NESTED = frozenset({list, dict})


class OutOfRange(str):
    """A JSON number no 64-bit integer or double holds, kept as upstream wrote it."""


def _parse_int(text: str) -> int | OutOfRange:
    # 18 digits always fit in 64 bits; only longer texts need the exact check.
    if len(text) <= 18:
        return int(text)
    if len(text) <= 20:
        value = int(text)
        if INT64_MIN <= value <= INT64_MAX:
            return value
    return OutOfRange(text)


def _parse_float(text: str) -> float | OutOfRange:
    value = float(text)
    return OutOfRange(text) if math.isinf(value) else value


class DuplicateKeys(dict):
    r"""A JSON object that cannot be trusted as parsed, and why.

    ``duplicates``: keys it names more than once with different values (``json``
    silently keeps the last: a repeated field would change a result without a trace,
    a repeated record key drop a whole record); the first value is kept. Upstream
    v1.1 system descriptions repeat keys with the same value, which changes nothing
    and is not listed. ``unencodable``: fields whose
    text held an unpaired UTF-16 surrogate escape (``"\ud800"``), which is no text
    any later step can encode; it is replaced by U+FFFD so the rest of the file can be
    read. Extractors reject such a record (or file) instead, naming the key.
    """

    duplicates: tuple[str, ...] = ()
    unencodable: tuple[str, ...] = ()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _pairs(pairs: list[tuple[str, object]]) -> dict:
    out: dict[str, object] = {}
    repeated: list[str] = []
    broken: list[str] = []
    for key, value in pairs:
        if _SURROGATE.search(key):
            key = _SURROGATE.sub("\ufffd", key)
            broken.append(key)
        if isinstance(value, str) and _SURROGATE.search(value):
            value = _SURROGATE.sub("\ufffd", value)
            broken.append(key)
        if key in out:
            # The same value twice changes nothing; two different ones would
            # silently become the last.
            if out[key] != value and key not in repeated:
                repeated.append(key)
            continue
        out[key] = value
    if not repeated and not broken:
        return out
    marked = DuplicateKeys(out)
    marked.duplicates = tuple(repeated)
    marked.unencodable = tuple(dict.fromkeys(broken))
    return marked


def duplicate_problem(record: object, what: str = "the record") -> str | None:
    """Why a parsed object cannot be trusted, or None.

    A key named twice, or text that is not text (an unpaired surrogate).
    """
    if not isinstance(record, DuplicateKeys):
        return None
    found = []
    if record.duplicates:
        keys = ", ".join(f'"{k}"' for k in record.duplicates)
        found.append(f"field {keys} appears more than once in {what}")
    if record.unencodable:
        keys = ", ".join(f'"{k}"' for k in record.unencodable)
        found.append(
            f"field {keys} holds an unpaired surrogate escape (such as \\ud800), "
            "which is not text"
        )
    return "; ".join(found)


def loads(content: str | bytes) -> object:
    """``json.loads`` with numbers a 64-bit column cannot hold kept as ``OutOfRange``.

    Raises:
        ValueError: invalid JSON (``json.JSONDecodeError``, with its position), text
            that is not UTF-8 (``UnicodeDecodeError``), or nesting deeper than the
            parser's recursion limit.
    """
    try:
        return json.loads(
            content,
            parse_int=_parse_int,
            parse_float=_parse_float,
            object_pairs_hook=_pairs,
        )
    except RecursionError:
        raise ValueError(
            "JSON nested too deeply (arrays or objects more than about 1000 levels)"
        ) from None


def _quote(text: str) -> str:
    if len(text) <= _QUOTE_LIMIT:
        return text
    return f"{text[:_QUOTE_LIMIT]}… ({len(text)} characters)"


def field_problem(name: str, value: object) -> str | None:
    """Why ``value`` cannot be the scalar field ``name`` (text or a number), or None.

    Null, text and finite numbers in 64 bits pass; every other value gets a message
    naming the field, e.g. ``field "Nodes": expected a number or string, got a list``.
    """
    kind = type(value)
    if value is None or kind is str or kind is int:
        return None
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        # The spelling upstream wrote (NaN, Infinity, -Infinity), as json.dumps does.
        return f"{name} is not finite: {json.dumps(value)}"
    if kind is OutOfRange:
        return f'field "{name}": number {_quote(str(value))} is out of the 64-bit range'
    described = {bool: "a boolean", list: "a list", dict: "an object"}.get(
        kind, f"a {kind.__name__}"
    )
    return f'field "{name}": expected a number or string, got {described}'


def record_problem(record: object, fields: tuple[str, ...]) -> str | None:
    """Every ``field_problem`` of one record's ``fields``, joined; None when all pass.

    A record that is not an object has no fields to check (the extractor rejects it
    as such).
    """
    if not isinstance(record, dict):
        return None
    found = [
        problem
        for name in fields
        if name in record and (problem := field_problem(name, record[name]))
    ]
    repeated = duplicate_problem(record)
    if repeated:
        found.insert(0, repeated)
    return "; ".join(found) if found else None


def flatten(record: object) -> object:
    """A record whose list and object values are JSON text, so any column takes them.

    The record itself is returned when nothing needs flattening (the common case).
    """
    if not isinstance(record, dict) or _NESTED.isdisjoint(map(type, record.values())):
        return record
    return {
        k: json.dumps(v, sort_keys=True) if isinstance(v, list | dict) else v
        for k, v in record.items()
    }


def json_object(
    content: str | bytes, where: str, error: type[ValueError]
) -> dict[str, object]:
    """One upstream JSON file that must be an object, or ``error`` naming why not.

    The one reading of a system JSON, an endpoints ``result_summary.json`` or an
    ``accuracy_results.json``: UTF-8 (a BOM allowed), not empty, valid JSON (line and
    column named), an object. Duplicate keys stay visible (``DuplicateKeys``) for the
    caller to judge.
    """
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise error(f"{where}: not UTF-8 text ({exc.reason})") from None
    if not content.strip():
        raise error(f"{where}: empty file")
    try:
        document = loads(content)
    except json.JSONDecodeError as exc:
        raise error(
            f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except ValueError as exc:
        raise error(f"{where}: {exc}") from None
    if not isinstance(document, dict):
        kind = "list" if isinstance(document, list) else type(document).__name__
        raise error(f"{where}: expected a JSON object, got a JSON {kind}")
    return document
